"""Provenance: whether this campus makes a run's world and term again from their names, where verify only shows the
log is faithful to the world and term stored with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from campus.events import RULES_VERSION
from campus.events.codec import RULES
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.replays.provenance import provenance, run_provenance, term_provenance, world_provenance
from campus.replays.verify import verify
from campus.agents import make_agent
from campus.lab.lifelong import probe_term
from campus.scenarios.play import RunSpec, load_inputs, load_world, new_run, open_run, start_run, store_inputs
from campus.scenarios.task import AT_START, Term
from campus.scenarios.term import generate_term
from campus.world.generate import generate_world
from campus.world.index import WorldIndex
from campus.world.stulife import load_stulife

from tests.conftest import SHARED, play

ROOT = Path(__file__).resolve().parents[1]
SCALE = 0.05


def _unheld(term: Term) -> tuple[Term, str]:
    """``term`` with one task's held-at-start mark removed (a student arriving late then passes it), and that task."""
    tasks = list(term.tasks)
    index = next(i for i, task in enumerate(tasks) if AT_START in task.ground_truth)
    truth = {key: value for key, value in tasks[index].ground_truth.items() if key != AT_START}
    tasks[index] = msgspec.structs.replace(tasks[index], ground_truth=truth)
    return msgspec.structs.replace(term, tasks=tuple(tasks)), tasks[index].id


@pytest.mark.parametrize(("switches", "command"), [
    ({}, "--seed 1 --scale 0.05"),
    ({"disruptions": False, "busy_days": False}, "--seed 1 --scale 0.05 --no-disruptions --no-busy-days"),
    ({"busy_days": False, "check_ins": True}, "--seed 1 --scale 0.05 --no-busy-days --check-ins"),
])
def test_a_run_campus_starts_is_reproduced_with_its_command(switches: dict, command: str) -> None:
    run = start_run(MemoryStore(), RunSpec(seed=1, scale=SCALE, **switches))
    found = run_provenance(run)
    assert found.reproduced and found.command == command
    assert found.world.verdict == "reproduced" and "seed 1" in found.world.detail


def test_an_edited_term_verifies_but_is_not_reproduced() -> None:
    """The gap: a run on a hand-edited term keeping its name is faithful to the term stored with it."""
    world, term = load_inputs(RunSpec(scale=SCALE))
    edited, task_id = _unheld(term)
    assert edited.name == term.name and edited.hash != term.hash
    run = play(MemoryStore(), world, edited, "oracle")
    assert verify(run).ok
    found = run_provenance(run)
    assert found.world.verdict == "reproduced" and found.term.verdict == "differs" and found.command is None
    assert f"1 of its {len(term.tasks)} tasks changed (first {task_id}: ground_truth)" in found.term.detail
    assert run_provenance(play(MemoryStore(), world, term, "oracle")).reproduced


def test_a_fork_playing_an_edited_term_of_its_own_is_not_reproduced() -> None:
    """A fork at seq 0 may carry a term of its own (a lifelong probe's). Until that term was checked too, a fork
    carrying an edited copy of its root's term under the root's name was reproduced, root and all (a red-team's)."""
    store = MemoryStore()
    world, term = load_inputs(RunSpec(scale=SCALE))
    root = play(store, world, term, "oracle")
    edited, task_id = _unheld(term)
    store_inputs(store, world, edited)
    store.fork(root.branch.id, 0, "forged", agent="oracle", term_hash=edited.hash, label="forged")
    fork = open_run(store, "forged")
    fork.session(make_agent("oracle", edited, world)).run()
    assert verify(fork).ok and run_provenance(root).reproduced
    found = run_provenance(fork)
    assert found.term.verdict == "differs" and found.command is None and not found.reproduced
    assert "this fork plays a term of its own" in found.term.detail and task_id in found.term.detail
    store.fork(root.branch.id, 0, "probe", agent="oracle", term_hash=_probe(store, world, term).hash, label="probe")
    probed = run_provenance(open_run(store, "probe"))
    assert probed.term.verdict == "unchecked" and not probed.reproduced


def _probe(store: MemoryStore, world: WorldIndex, term: Term) -> Term:
    """A lifelong probe's term of ``term`` (its first ten tasks), stored."""
    probe = probe_term(term, 10, ())
    store_inputs(store, world, probe)
    return probe


def test_added_and_dropped_tasks_and_rules_are_named() -> None:
    world, term = load_inputs(RunSpec(scale=SCALE))
    dropped = msgspec.structs.replace(term, tasks=term.tasks[1:], rules=term.rules[:-1])
    origin, recipe = term_provenance(world, dropped, 0)
    assert recipe is None and origin.verdict == "differs"
    assert f"1 missing (first {term.tasks[0].id})" in origin.detail and "trigger rules differ" in origin.detail
    renamed = msgspec.structs.replace(term, tasks=(msgspec.structs.replace(term.tasks[0], id="extra-001"),) + term.tasks[1:])
    assert "1 added (first extra-001)" in term_provenance(world, renamed, 0)[0].detail


def test_the_families_a_term_holds_choose_the_recipe() -> None:
    """A term with its disruptions cut out (tasks and rules; they change nothing else) is the plain term of its seed:
    reproduced, and said to be without them."""
    world, term = load_inputs(RunSpec(scale=SCALE, busy_days=False))
    cut = msgspec.structs.replace(term, tasks=tuple(t for t in term.tasks if t.scenario != "disruptions"), rules=())
    assert cut.hash == load_inputs(RunSpec(scale=SCALE, disruptions=False, busy_days=False))[1].hash
    origin, recipe = term_provenance(world, cut, 0)
    assert origin.verdict == "reproduced" and recipe is not None and not recipe.disruptions and not recipe.busy
    assert "without disruptions, busy days or check-ins" in origin.detail


def test_a_term_played_with_another_seed_differs() -> None:
    world, term = load_inputs(RunSpec(scale=SCALE))
    run = new_run(MemoryStore(), world, term, agent_name="noop", seed=4)
    found = run_provenance(run)
    assert found.term.verdict == "differs" and "played with seed 4" in found.term.detail


def test_names_campus_does_not_make_are_unchecked() -> None:
    world, term = load_inputs(RunSpec(scale=SCALE))
    for name in ("my-term", "term-0-xe", "term-0-x."):  # a scale that is no number: no ValueError out of float()
        own = msgspec.structs.replace(term, name=name)
        assert term_provenance(world, own, 0)[0].verdict == "unchecked", name
    huge = msgspec.structs.replace(term, name="term-0-x1e999")
    assert term_provenance(world, huge, 0)[0].verdict == "differs"  # this campus makes no term at that scale
    wrong_seed = msgspec.structs.replace(term, seed=3)
    assert term_provenance(world, wrong_seed, 3)[0].verdict == "unchecked"
    for name in ("my-campus", "generated-0-xe"):
        renamed = msgspec.structs.replace(world.world, name=name)
        assert world_provenance(renamed).verdict == "unchecked", name


def test_an_edited_world_differs_and_names_what_changed() -> None:
    world = generate_world(2)
    assert world_provenance(world).verdict == "reproduced"
    longer = [msgspec.structs.replace(path, minutes=path.minutes + 1) if i == 0 else path for i, path in enumerate(world.paths)]
    edited = msgspec.structs.replace(world, paths=longer)
    origin = world_provenance(edited)
    assert origin.verdict == "differs" and origin.detail.endswith("paths differ")
    other = msgspec.structs.replace(generate_world(3), name="generated-2", seed=2)
    assert "buildings" in world_provenance(other).detail


OLD_WORLD_HASH = "56eae30fb41af5ee8d1a959c35218f1c4d50358a5fa6ac43277aee502522969a"
"""``generate_world(0)`` of the code before world generator 2 (1e174ed), as its runs stored it."""


def test_a_world_of_an_older_generator_is_reproduced_by_it_with_its_command() -> None:
    old = generate_world(0, generator=1)
    assert old.hash == OLD_WORLD_HASH and generate_world(0).hash != OLD_WORLD_HASH
    origin = world_provenance(old)
    assert origin.verdict == "reproduced" and origin.generator == 1 and "world generator 1" in origin.detail
    assert world_provenance(generate_world(0)).generator is None
    world = WorldIndex(old)
    found = provenance(world, generate_term(world, 0, SCALE), 0, {RULES: RULES_VERSION})
    assert found.reproduced and found.command == "--seed 0 --scale 0.05 --world generated@1"
    assert load_world("generated:0@1", 5).hash == load_world("generated@1", 0).hash == OLD_WORLD_HASH
    other = WorldIndex(generate_world(3))
    assert provenance(other, generate_term(other, 0, SCALE), 0, {RULES: RULES_VERSION}).command == \
        "--seed 0 --scale 0.05 --world generated:3"
    with pytest.raises(ValueError, match="no world generator 9"):
        load_world("generated@9", 0)
    for bad in ("generated@", "generated:x@1", "generated@1:0"):
        with pytest.raises(ValueError, match="bad world"):
            load_world(bad, 0)


@pytest.mark.skipif(not (SHARED / "stulife").is_dir(), reason="needs ../shared/stulife")
def test_the_published_world_is_compared_with_the_data_given() -> None:
    published = load_stulife(SHARED / "stulife")[0]
    assert world_provenance(published).verdict == "unchecked"
    assert world_provenance(published, published).verdict == "reproduced"
    fewer = msgspec.structs.replace(published, advisors=published.advisors[1:])
    origin = world_provenance(fewer, published)
    assert origin.verdict == "differs" and "advisors" in origin.detail
    term = load_inputs(RunSpec(world=f"stulife:{SHARED / 'stulife'}", scale=SCALE))[1]
    found = provenance(WorldIndex(published), term, 0, {"rules": 2}, published)
    assert found.reproduced and found.command == "--seed 0 --scale 0.05 --world stulife:DIR"


def _campus(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "campus.cli.main", *args], cwd=cwd, capture_output=True, text=True,
                          env=os.environ | {"PYTHONPATH": str(ROOT)}, timeout=300)


def test_verify_says_it_and_strict_refuses(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    world, term = load_inputs(RunSpec(scale=SCALE))
    store = SQLiteStore(db)
    play(store, world, term, "oracle")
    play(store, world, _unheld(term)[0], "oracle", branch_id="edited")
    store.close()
    honest = _campus("verify", "oracle-s0", "--db", str(db), "--strict", cwd=tmp_path)
    assert honest.returncode == 0 and "the same world and term: campus run --seed 0 --scale 0.05" in honest.stdout
    shown = json.loads(_campus("verify", "edited", "--db", str(db), "--json", cwd=tmp_path).stdout)
    assert shown["ok"] is True and shown["provenance"]["reproduced"] is False
    assert shown["provenance"]["term"]["verdict"] == "differs"
    refused = _campus("verify", "edited", "--db", str(db), "--strict", cwd=tmp_path)
    assert refused.returncode == 1 and "term: differs" in refused.stdout and "not reproduced" in refused.stderr
    quiet = json.loads(_campus("verify", "edited", "--db", str(db), "--json", "--no-provenance", cwd=tmp_path).stdout)
    assert "provenance" not in quiet
    for args, message in ((["--strict", "--no-provenance"], "--strict needs"), (["--world", "generated"], "stulife:DIR"),
                          (["--world", f"stulife:{tmp_path / 'none'}"], "not a directory")):
        bad = _campus("verify", "edited", "--db", str(db), *args, cwd=tmp_path)
        assert bad.returncode == 2 and bad.stderr.startswith("error:") and message in bad.stderr

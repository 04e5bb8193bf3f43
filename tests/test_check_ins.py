"""In-term memory checks: weekly check-ins composed at release from the log so far, judged exactly from it,
and verified, replayed, resumed and forked like every other task."""

from __future__ import annotations

import gzip
from pathlib import Path

import msgspec
import pytest

from campus.agents.registry import playing, resolve
from campus.events import TaskComposed, TaskReleased, decode_events
from campus.kernel.clock import day_of
from campus.kernel.schedule import Prefix
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.lab.probing import log_prefix, probe_run
from campus.replays.fork import fork_run
from campus.replays.score import rescore
from campus.replays.seek import seek
from campus.replays.verify import verify
from campus.scenarios.check_ins import ASKED, SCENARIO, numbered, probes_of
from campus.scenarios.play import Run, new_run, open_run
from campus.replays.export import import_lines
from campus.scenarios.probes import (
    GENERATOR_VERSION, IN_FORK, PLANTED, TERM_PLANT, Instructed, Preferred, ToldPlaces, probe_set_hash, standing_of,
    without_word,
)
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import Term
from campus.scenarios.term import generate_term
from campus.world.index import WorldIndex
from tests.test_cli import as_json, campus

SCALE = 0.1
"""Two check-ins (weeks 19 and 20) after a term with emails, bookings and walks enough to ask about."""


@pytest.fixture(scope="module")
def term(world: WorldIndex) -> Term:
    return generate_term(world, 0, scale=SCALE, check_ins=True)


def play(world: WorldIndex, term: Term, name: str, store: MemoryStore | None = None) -> Run:
    store = store or MemoryStore()
    run = new_run(store, world, term, agent_name=name, seed=0)
    run.session(playing(resolve(name, store=store, term=term, world=world)[0], run.branch.id)).run()
    return run


@pytest.fixture(scope="module")
def oracle_read(world: WorldIndex, term: Term) -> Run:
    return play(world, term, "oracle-reader")


def check_ins(run: Run) -> list[tuple[int, TaskReleased]]:
    rows = [row for row in run.store.rows(run.branch.id) if row.kind == "task_released"]
    released = zip(rows, decode_events([row.payload for row in rows]))
    return [(row.seq, e) for row, e in released if isinstance(e, TaskReleased) and e.task_id.startswith("check-in")]


def prefix_of(run: Run, release: int) -> Prefix:
    rows = log_prefix(run, release - 1)
    return Prefix(rows, release, run.store.rows(run.branch.id, release, release)[0].t, run.world.describe, run.world)


def test_check_ins_are_opt_in_and_move_no_other_task(world: WorldIndex, term: Term) -> None:
    plain = generate_term(world, 0, scale=SCALE)
    assert not any(task.scenario == SCENARIO for task in plain.tasks)
    asked = [task for task in term.tasks if task.evaluator == "check_in"]
    assert len(asked) == 2 and tuple(t for t in term.tasks if t.scenario != SCENARIO) == plain.tasks
    assert term.world_changes == plain.world_changes
    for task in asked:  # the term knows which abilities, in which order, and its own notes; no answer exists yet
        assert set(task.ground_truth) == {"abilities", "planted", "probe_version"}
        assert len(task.ground_truth["planted"]) == 3
        assert task.flags.counts_toward == "" and not task.flags.long_term and not task.flags.self_motivated


def test_the_oracle_reader_answers_every_check_in_and_mps_sits_beside_stugpa(oracle_read: Run) -> None:
    card = scorecard(oracle_read.term, oracle_read.ended_tasks())
    ended = {e.task_id: e for e in oracle_read.ended_tasks()}
    for _, released in check_ins(oracle_read):
        event = ended[released.task_id]
        assert event.outcome == "success" and len(event.marks) >= ASKED and set(event.marks.values()) == {1000}
    asked = {name: value for name, value in card["mps"]["abilities"].items() if value is not None}
    assert len(asked) >= ASKED and set(asked.values()) == {1.0} and card["mps"]["overall"] == 1.0
    assert card["stugpa"]["total"] == 100.0 and card["ltrr"] == 1.0


def test_no_memory_is_right_only_on_abstention_and_its_twin_keeps_that_honest(world: WorldIndex, term: Term) -> None:
    run = play(world, term, "no-memory")
    abilities = scorecard(term, run.ended_tasks())["mps"]["abilities"]
    assert abilities["abstention"] == 0.5
    assert all(value == 0.0 for name, value in abilities.items() if name != "abstention" and value is not None)


def test_the_log_holds_the_questions_and_a_hash_never_the_answers(oracle_read: Run) -> None:
    for seq, released in check_ins(oracle_read):
        (composed,) = decode_events([oracle_read.store.rows(oracle_read.branch.id, seq + 1, seq + 1)[0].payload])
        assert isinstance(composed, TaskComposed) and composed.task_id == released.task_id
        probes = probes_of(oracle_read.term.by_id[released.task_id], 0, prefix_of(oracle_read, seq))
        assert composed.digest == probe_set_hash(probes)
        assert all(f"{n}. {probe.question}" in released.observation for n, probe in enumerate(probes, start=1))
        assert set(msgspec.json.decode(oracle_read.store.rows(oracle_read.branch.id, seq + 1, seq + 1)[0].payload)) == {
            "kind", "task_id", "digest"}


def test_verify_and_score_judge_check_ins_again_from_the_log(oracle_read: Run) -> None:
    report = verify(oracle_read, deep=True)
    assert report.ok, report.mismatch
    assert rescore(oracle_read).matches


def test_verify_refuses_a_check_in_whose_questions_were_not_drawn_from_its_log(world: WorldIndex, term: Term) -> None:
    """The same questions asked over another past (a term whose seed draws other probes) do not verify."""
    reseeded = msgspec.structs.replace(term, seed=1)
    assert reseeded.hash != term.hash
    run = play(world, reseeded, "oracle-reader")
    assert verify(run).ok
    forged = Run(run.store, run.branch, run.world, term, run.kernel)
    report = verify(forged)
    assert not report.ok and report.mismatch is not None and report.mismatch.check == "composition"


def test_replay_seeks_into_a_check_in(oracle_read: Run) -> None:
    seq, released = check_ins(oracle_read)[-1]
    state = seek(oracle_read, seq + 1)
    assert state.session.task_id == released.task_id and state.seq == seq + 1


def test_a_run_resumed_inside_a_check_in_ends_as_if_played_at_once(world: WorldIndex, term: Term,
                                                                    oracle_read: Run) -> None:
    seq, _ = check_ins(oracle_read)[0]
    before = sum(1 for row in oracle_read.store.rows(oracle_read.branch.id, 1, seq) if row.kind == "agent_replied")
    store = MemoryStore()
    run = new_run(store, world, term, agent_name="oracle-reader", seed=0)
    reader = playing(resolve("oracle-reader", store=store, term=term, world=world)[0], run.branch.id)
    run.session(reader).run(max_steps=before)
    resumed = open_run(store, run.branch.id)
    assert resumed.store.head(run.branch.id)[0] == seq + 1  # stopped with the check-in composed, not answered
    resumed.session(playing(resolve("oracle-reader", store=store, term=term, world=world)[0], run.branch.id)).run()
    assert store.head(run.branch.id)[1] == oracle_read.store.head(oracle_read.branch.id)[1]


def test_a_fork_asks_about_its_own_past(oracle_read: Run) -> None:
    """Forked before the first check-in, a student who does nothing is asked about another past (or nothing),
    and the fork verifies; forked right before a check-in, the same past gives the same questions."""
    (first, _), (second, released) = check_ins(oracle_read)
    idle, _ = fork_run(oracle_read, first - 200, agent_name="noop", new_id="idle")
    idle.session(resolve("noop", store=idle.store, term=idle.term, world=idle.world)[0]).run()
    assert verify(idle).ok
    digests = {e.task_id: e.digest for e in decode_events([r.payload for r in idle.store.rows("idle")
                                                           if r.kind == "task_composed"])}
    parent = {e.task_id: e.digest for e in decode_events([r.payload for r in oracle_read.store.rows(oracle_read.branch.id)
                                                          if r.kind == "task_composed"])}
    assert digests.keys() == parent.keys() and digests != parent
    late, _ = fork_run(oracle_read, second - 2, agent_name="no-memory", new_id="late")
    late.session(playing(resolve("no-memory", store=late.store, term=late.term, world=late.world)[0], "late")).run()
    assert verify(late).ok
    (composed,) = [e for e in decode_events([r.payload for r in late.store.rows("late", second)])
                   if isinstance(e, TaskComposed)]
    assert composed.digest == parent[released.task_id]


def test_answers_are_read_one_numbered_line_each() -> None:
    assert numbered("1: B012\n2) 4\n 3. no record\n1: late", 4) == ["B012", "4", "no record", None]
    assert numbered("the answers are all above", 2) == [None, None]


def test_campus_run_with_check_ins(tmp_path: Path) -> None:
    summary = as_json(campus("run", "--scale", str(SCALE), "--check-ins", "--agent", "oracle-reader", "--json",
                             cwd=tmp_path))
    assert summary["scorecard"]["mps"]["overall"] == 1.0
    refused = campus("run", "--resume", "oracle-reader-s0", "--check-ins", cwd=tmp_path, check=False)
    assert refused.returncode == 2 and "--check-ins" in refused.stderr and "Traceback" not in refused.stderr


def test_the_term_plants_an_instruction_a_preference_and_a_contradiction_early(term: Term) -> None:
    notes = [task for task in term.tasks if task.id.startswith(TERM_PLANT)]
    assert [(task.id.removeprefix(TERM_PLANT), day_of(task.release) // 7) for task in sorted(notes, key=lambda t: t.release)] \
        in ([("instruction", 1), ("preference", 1), ("told-1", 2), ("told-2", 6)],
            [("preference", 1), ("instruction", 1), ("told-1", 2), ("told-2", 6)])
    assert all(task.flags.delivery_only and task.scenario == SCENARIO for task in notes)
    standing = standing_of(term.tasks)
    assert sorted(type(q).__name__ for q in standing) == ["Instructed", "Preferred", "ToldPlaces"]
    told = next(q for q in standing if isinstance(q, ToldPlaces))
    assert [p.task_id for p in told.plants] == [f"{TERM_PLANT}told-1", f"{TERM_PLANT}told-2"]
    word = next(q.word for q in standing if isinstance(q, Instructed))
    feature = next(q.feature for q in standing if isinstance(q, Preferred))
    texts = " ".join(task.instruction for task in notes)
    assert f'"{word}"' in texts and feature.replace("_", " ") in texts and all(place in texts for place in told.places)


def test_probe_forks_ask_about_the_terms_notes_at_their_distance(oracle_read: Run) -> None:
    abilities = list(PLANTED)
    oracle = probe_run(oracle_read, lambda fork: resolve("oracle-reader", store=fork.store, term=fork.term,
                                                         world=fork.world)[0], "oracle-reader", abilities=abilities)
    (point,) = oracle.points
    fork = open_run(oracle_read.store, point.branch)
    assert not any(task.id.startswith("plant-") for task in fork.term.tasks[len(oracle_read.term.tasks):])
    assert {a.probe.ability for a in point.asked} == set(abilities) and oracle.overall == 1.0
    assert all(a.events_bin != IN_FORK and a.days_bin in ("1-4 weeks", ">=4 weeks") for a in point.asked)
    recent = probe_run(oracle_read, lambda fork: resolve("recent-only", store=fork.store, term=fork.term,
                                                         world=fork.world)[0], "recent-only", abilities=abilities)
    assert recent.abilities["contradiction_resolution"] == 0.0 and recent.abilities["instruction_following"] == 0.0


def test_following_the_standing_instruction_is_never_wrong_elsewhere() -> None:
    assert without_word("alice@campus.edu Roger", "Roger") == "alice@campus.edu"
    assert without_word("B012; B013. roger!", "Roger") == "B012; B013"
    assert without_word("Roger", "Roger") == "Roger" and without_word("Rogers Hall", "Roger") == "Rogers Hall"


PROBES_1_EXPORT = Path(__file__).parent / "fixtures" / "probes1-check-ins-x0.1.jsonl.gz"
"""``campus run --check-ins --agent oracle-reader --scale 0.1`` (seed 0) exported before probe generator version 2,
whose term's check-ins name no ``probe_version``."""


def test_a_check_in_run_made_under_probe_generator_1_imports_and_verifies(tmp_path: Path) -> None:
    with gzip.open(PROBES_1_EXPORT, "rt") as lines:
        recorded = lines.read().splitlines()
    run = open_run(store := SQLiteStore(tmp_path / "old.db"), import_lines(store, recorded).branch.id)
    asked = [task for task in run.term.tasks if task.evaluator == "check_in"]
    assert asked and all("probe_version" not in task.ground_truth for task in asked)
    assert verify(run).ok and verify(run, deep=True).ok
    drawn = [(seq, released.task_id) for seq, released in check_ins(run)]
    today = [probe_set_hash(probes_of(msgspec.structs.replace(run.term.by_id[task_id], ground_truth=run.term.by_id[
        task_id].ground_truth | {"probe_version": GENERATOR_VERSION}), 0, prefix_of(run, seq))) for seq, task_id in drawn]
    then = [probe_set_hash(probes_of(run.term.by_id[task_id], 0, prefix_of(run, seq))) for seq, task_id in drawn]
    assert then != today, "the fixture would not tell the versions apart"


def test_a_new_term_draws_its_check_ins_with_the_current_generator(term: Term) -> None:
    asked = [task for task in term.tasks if task.evaluator == "check_in"]
    assert asked and all(task.ground_truth["probe_version"] == GENERATOR_VERSION for task in asked)

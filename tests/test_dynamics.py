"""``campus dynamics``: the static twin of a run with disruptions, per task solved static / dynamic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from campus.agents import make_agent
from campus.cli.main import app
from campus.events import TriggerSkipped, WorldChanged, decode_events
from campus.kernel.store import MemoryStore
from campus.replays.dynamics import dynamics
from campus.replays.verify import verify
from campus.scenarios.disruptions import SCENARIO
from campus.scenarios.play import Run
from campus.scenarios.task import Term
from campus.scenarios.term import generate_term
from campus.world.index import WorldIndex
from tests.conftest import play


@pytest.fixture(scope="module")
def disrupted(world: WorldIndex) -> Term:
    return generate_term(world, 0, scale=0.05, disruptions=True)


def _fired(run: Run) -> int:
    rows = run.store.rows(run.branch.id)
    return sum(isinstance(e, (WorldChanged, TriggerSkipped)) and bool(e.rule) for e in decode_events([r.payload for r in rows]))


def test_the_oracle_loses_nothing_to_the_dynamics(world: WorldIndex, disrupted: Term) -> None:
    """Its plans are made for the change and still meet the goal in the twin, where the change never comes: a hard
    task's plan books, looks and rebooks, and its last booking is its answer. (While any booking that served the goal
    counted, the first booking stood in the twin and the message or the walk named the second, so two hard tasks
    failed static only.)"""
    run = play(MemoryStore(), world, disrupted, "oracle")
    report = dynamics(run, make_agent("oracle", disrupted, world))
    tasks = sum(t.scenario == SCENARIO for t in disrupted.tasks)
    assert report.totals["tasks"] == report.totals["solved_dynamic"] == tasks and report.totals["lost_to_dynamics"] == 0
    assert report.totals["solved_static"] == tasks and report.totals["only_dynamic"] == 0
    assert report.replies["reused"] > 0 and report.replies["asked"] > 0  # the same until a look shows the change
    twin = run.store.branch(report.twin)
    assert twin.config["triggers"] is False and twin.parent is None and twin.seed == run.branch.seed
    from campus.scenarios.play import open_run

    static = open_run(run.store, report.twin)
    assert _fired(static) == 0 < _fired(run) and verify(static).ok


def test_stale_loses_every_solvable_task_to_the_dynamics_only(world: WorldIndex, disrupted: Term) -> None:
    run = play(MemoryStore(), world, disrupted, "stale")
    report = dynamics(run, make_agent("stale", disrupted, world))
    solvable = {t.id for t in disrupted.tasks if t.scenario == SCENARIO and t.ground_truth["solvable"]}
    assert {r["task_id"] for r in report.tasks if r["static"] and not r["dynamic"]} == solvable
    assert not any(r["dynamic"] for r in report.tasks)  # impossible ones fail both ways: it never abstains
    assert report.totals["lost_to_dynamics"] == len(solvable) and report.totals["solved_dynamic"] == 0
    assert all(r["cell"].count("/") == 1 for r in report.tasks)


def test_with_the_recording_alone_the_twin_stops_where_the_conversation_parts(world: WorldIndex, disrupted: Term) -> None:
    from campus.kernel.agent import AgentUnavailable

    run = play(MemoryStore(), world, disrupted, "oracle")
    with pytest.raises(AgentUnavailable, match="left the recording"):
        dynamics(run, None)


def test_a_term_without_rules_or_a_static_run_is_refused(world: WorldIndex, disrupted: Term) -> None:
    with pytest.raises(ValueError, match="no trigger rules"):
        dynamics(play(MemoryStore(), world, generate_term(world, 0, scale=0.05, disruptions=False), "oracle"), None)
    with pytest.raises(ValueError, match="static twin already"):
        dynamics(play(MemoryStore(), world, disrupted, "noop", triggers=False), None)


def test_a_run_that_stopped_before_the_end_is_refused_and_no_twin_is_made(world: WorldIndex, disrupted: Term) -> None:
    """Its disrupted tasks after the stop were counted as lost to the dynamics (29 of 36 at step 200)."""
    from campus.scenarios.play import new_run

    store = MemoryStore()
    run = new_run(store, world, disrupted, agent_name="oracle", seed=0)
    run.session(make_agent("oracle", disrupted, world)).run(max_steps=200)
    with pytest.raises(ValueError, match="is stopped at step .*finish it first"):
        dynamics(run, make_agent("oracle", disrupted, world))
    assert [b.id for b in store.branches()] == [run.branch.id]


def test_the_command_prints_the_gap_and_its_json(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    cli = CliRunner()
    made = cli.invoke(app, ["run", "--db", db, "--agent", "stale", "--scale", "0.05", "--disruptions", "--json"])
    assert made.exit_code == 0, made.output
    run_id = json.loads(made.stdout)["run"]
    shown = cli.invoke(app, ["dynamics", run_id, "--db", db])
    assert shown.exit_code == 0 and "solved static" in shown.stdout and f"{run_id}~static" in shown.stdout
    again = cli.invoke(app, ["dynamics", run_id, "--db", db, "--json"])
    report = json.loads(again.stdout)
    assert report["twin"] == f"{run_id}~static-2" and report["totals"]["solved_dynamic"] == 0 < report["totals"]["solved_static"]
    scored = cli.invoke(app, ["score", run_id, "--db", db])
    assert scored.exit_code == 0 and "DRS 0.0%" in scored.stdout and "Pass@1 per sub-type" in scored.stdout
    assert "disruptions (36 tasks" in scored.stdout and "stale_state 36 tasks" in scored.stdout
    missing = cli.invoke(app, ["dynamics", "nope", "--db", db])
    assert missing.exit_code == 2 and "nope" in missing.output

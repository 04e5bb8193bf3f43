"""The whole term: counts, the oracle's perfect score, the controls' order, re-scoring by replay."""

from __future__ import annotations

import pytest

from agents import make_agent
from kernel.store import MemoryStore
from replays.score import rescore
from scenarios.play import Run, new_run
from scenarios.scorecard import scorecard
from scenarios.term import PAPER_COUNTS, generate_term, term_report


def _play(world, term, agent: str) -> Run:
    run = new_run(MemoryStore(), world, term, agent_name=agent, seed=0)
    run.session(make_agent(agent, term, world)).run()
    return run


@pytest.fixture(scope="module")
def controls(world):
    term = generate_term(world, 5, scale=0.25)
    return term, {agent: _play(world, term, agent) for agent in ("noop", "stateless", "diligent", "oracle", "stale")}


def test_the_default_term_has_at_least_the_papers_counts(term) -> None:
    report = term_report(term)
    for scenario, paper in PAPER_COUNTS.items():
        assert report["by_scenario"][scenario]["tasks"] >= paper, scenario
    assert [t.release for t in term.tasks] == sorted(t.release for t in term.tasks)
    assert len({t.id for t in term.tasks}) == len(term.tasks)


def test_the_oracle_scores_stugpa_100_and_succeeds_on_every_scenario(term, oracle_full) -> None:
    run = oracle_full
    card = scorecard(term, run.ended_tasks())
    assert {name: row["success_rate"] for name, row in card["by_scenario"].items()} == {name: 1.0 for name in card["by_scenario"]}
    assert set(card["by_scenario"]) == set(PAPER_COUNTS)
    assert card["stugpa"]["total"] == 100.0 and None not in card["stugpa"]["rates"].values()
    assert card["ltrr"] == 1.0 and card["pis"] == 1.0


def test_the_controls_are_ordered_on_pis_and_stugpa(controls) -> None:
    term, runs = controls
    cards = {agent: scorecard(term, run.ended_tasks()) for agent, run in runs.items()}
    order = ("noop", "stateless", "diligent", "oracle")
    pis = [cards[agent]["pis"] for agent in order]
    assert pis == sorted(pis) and len(set(pis)) == len(pis), pis
    gpa = [cards[agent]["stugpa"]["total"] for agent in order]
    assert gpa == sorted(gpa) and len(set(gpa)) == len(gpa), gpa


def test_the_stale_control_fails_exactly_the_tasks_with_a_stale_plan(controls) -> None:
    term, runs = controls
    outcomes = {event.task_id: event.outcome for event in runs["stale"].ended_tasks()}
    stale = {task.id for task in term.tasks if task.stale is not None}
    assert stale, "the term has tasks with a stale plan"
    assert {task_id for task_id in stale if outcomes[task_id] != "failure"} == set()
    others = {t.id for t in term.tasks if t.stale is None and not t.flags.delivery_only}
    failed_others = {task_id for task_id in others if outcomes[task_id] == "failure"}
    # a task whose prerequisite was a stale failure fails with it; nothing else may
    assert all(any(dep in stale for dep in term.by_id[task_id].depends_on) for task_id in failed_others), failed_others


def test_score_reproduces_every_runs_scorecard_by_replay(controls) -> None:
    _, runs = controls
    for agent, run in runs.items():
        report = rescore(run)
        assert report.matches and not report.changed, agent
        assert report.scorecard == scorecard(run.term, run.ended_tasks())


def test_score_notices_a_judgement_that_no_longer_holds(controls) -> None:
    _, runs = controls
    run = runs["oracle"]
    ended = run.ended_tasks()
    flipped = next(e for e in ended if e.outcome == "success")
    # re-score the run against a term in which that task's plan was judged by a stricter rule
    task = run.term.by_id[flipped.task_id]
    stricter = {"parts": [*task.ground_truth.get("parts", []), {"check": "answer", "letter": "Z"}]}
    import msgspec

    changed = msgspec.structs.replace(task, ground_truth=stricter)
    term = msgspec.structs.replace(run.term, tasks=tuple(changed if t.id == task.id else t for t in run.term.tasks))
    report = rescore(Run(run.store, run.branch, run.world, term, run.kernel))
    assert not report.matches and [c["task_id"] for c in report.changed] == [task.id]

"""Metrics on small hand-computed terms: every number below is worked out by hand."""

from __future__ import annotations

import pytest

from campus.events import TaskEnded
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import Flags, Task, Term


def task(task_id: str, *, scenario: str = "s", phase: str = "p", **flags: object) -> Task:
    return Task(id=task_id, scenario=scenario, phase=phase, release=0, instruction="x", systems=(),
                evaluator="parts", ground_truth={"parts": []}, flags=Flags(**flags))  # type: ignore[arg-type]


def ended(task_id: str, outcome: str, turns: int = 1, **marks: int) -> TaskEnded:
    return TaskEnded(task_id=task_id, outcome=outcome, reason="finish", turns=turns, marks=marks)


TERM = Term(name="t", seed=0, world_hash="w", tasks=(
    task("exam-1", phase="exam", counts_toward="exam", long_term=True),
    task("exam-2", phase="exam", counts_toward="exam", long_term=True),
    task("exam-3", phase="exam", counts_toward="exam", long_term=True),
    task("exam-4", phase="exam", counts_toward="exam", long_term=True),
    task("class-1", phase="in_class", counts_toward="class", self_motivated=True),
    task("class-2", phase="in_class", counts_toward="class", self_motivated=True),
    task("advisor-1", counts_toward="advisor"),
    task("advisor-2", counts_toward="advisor", commitment=True, self_motivated=True, long_term=True),
    task("club-1", counts_toward="club"),
    task("lib-1", commitment=True),
    task("lecture-1", phase="in_class", commitment=True),
    task("note", delivery_only=True),
))


def test_stugpa_by_hand() -> None:
    card = scorecard(TERM, [
        ended("exam-1", "success"), ended("exam-2", "success"), ended("exam-3", "failure"),  # exam-4 never ended
        ended("class-1", "failure", attended=1), ended("class-2", "success", attended=0),
        ended("advisor-1", "success", turns=3), ended("advisor-2", "failure"),
        ended("club-1", "success", turns=5),
        ended("lib-1", "success", unused_bookings=2),
        ended("lecture-1", "failure", attended=1),  # there, but answered wrong: not a missed commitment
        ended("note", "unscored"),
    ])
    gpa = card["stugpa"]
    # exam 2/4 -> 25; attendance 1/2 (answers do not count) -> 15; advisor 1/2 -> 4; club 1/1 -> 6;
    # responsibility 6 - 0.5 * 2 unused bookings - 0.25 * 1 missed commitment (advisor-2) = 4.75
    assert gpa["points"] == {"exam": 25.0, "class": 15.0, "advisor": 4.0, "club": 6.0, "responsibility": 4.75}
    assert gpa["total"] == 54.75
    assert gpa["unused_bookings"] == 2 and gpa["missed_commitments"] == 1
    # LTRR: exam-1..4 and advisor-2 are long-term, 2 of 5 succeeded; PIS: class-1, class-2, advisor-2 -> 1 of 3
    assert card["ltrr"] == 0.4 and card["pis"] == pytest.approx(1 / 3, abs=1e-6)
    assert card["total"] == {"tasks": 11, "succeeded": 6, "success_rate": round(6 / 11, 6)}
    assert card["by_phase"]["exam"] == {"tasks": 4, "succeeded": 2, "ended": 3, "success_rate": 0.5}
    # successes took 1, 1, 1, 3, 5, 1 turns
    assert card["avg_turns"] == 2.0


def test_responsibility_never_goes_below_zero_and_missing_components_score_zero() -> None:
    term = Term(name="t", seed=0, world_hash="w", tasks=tuple(task(f"c{i}", commitment=True) for i in range(40)))
    card = scorecard(term, [ended(f"c{i}", "failure") for i in range(40)])
    assert card["stugpa"]["points"]["responsibility"] == 0.0 and card["stugpa"]["total"] == 0.0
    assert card["stugpa"]["rates"] == {"exam": None, "class": None, "advisor": None, "club": None}
    assert card["ltrr"] is None and card["pis"] is None and card["avg_turns"] is None


def test_a_perfect_run_scores_100() -> None:
    outcomes = [ended(t.id, "unscored" if t.flags.delivery_only else "success", attended=1) for t in TERM.tasks]
    assert scorecard(TERM, outcomes)["stugpa"]["total"] == 100.0


def test_events_of_unknown_tasks_are_ignored() -> None:
    card = scorecard(TERM, [ended("not-in-term", "success"), ended("exam-1", "success")])
    assert card["total"]["succeeded"] == 1

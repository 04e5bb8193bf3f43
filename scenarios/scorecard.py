"""Scores as folds over task-ended events, so re-scoring a run is a replay, not a re-run."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from events import TaskEnded
from scenarios.task import Term


def scorecard(term: Term, ended: Iterable[TaskEnded]) -> dict[str, Any]:
    """Success per scenario and in total over scored tasks, and average turns of successes."""
    by_scenario: dict[str, dict[str, Any]] = {}
    for task in term.tasks:
        if not task.flags.delivery_only:
            by_scenario.setdefault(task.scenario, {"tasks": 0, "succeeded": 0, "ended": 0})["tasks"] += 1
    success_turns: list[int] = []
    for event in ended:
        task = term.by_id.get(event.task_id)
        if task is None or event.outcome == "unscored":
            continue
        row = by_scenario[task.scenario]
        row["ended"] += 1
        if event.outcome == "success":
            row["succeeded"] += 1
            success_turns.append(event.turns)
    for row in by_scenario.values():
        row["success_rate"] = _rate(row["succeeded"], row["tasks"])
    tasks = sum(r["tasks"] for r in by_scenario.values())
    succeeded = sum(r["succeeded"] for r in by_scenario.values())
    return {
        "by_scenario": by_scenario,
        "total": {"tasks": tasks, "succeeded": succeeded, "success_rate": _rate(succeeded, tasks)},
        "avg_turns": round(sum(success_turns) / len(success_turns), 3) if success_turns else None,
    }


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 6) if whole else 0.0

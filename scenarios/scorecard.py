"""Scores as folds over task-ended events, so re-scoring a run is a replay, not a re-run.

Every rate's denominator is the term's scored tasks of that kind, ended or not: a run that
stopped early is scored on what it did. The paper's metrics (stulife.md §10.1):

- **StuGPA** (0-100) = 50 x exam accuracy + 30 x attendance rate + 8 x advisor-task success
  + 6 x club-task success + Personal Responsibility. Exam tasks are those with
  ``counts_toward == "exam"``; attendance is the ``attended`` mark of ``class`` tasks
  (being there in time, whatever the answer); advisor and club tasks likewise.
- **Personal Responsibility** starts at 6 and loses ``UNUSED_BOOKING`` per booking made for
  right now and left unused (the ``unused_bookings`` mark) and ``MISSED_COMMITMENT`` per
  failed task that carried out something the student had scheduled itself
  (``Flags.commitment``); it never goes below 0. The paper gives no sizes; these make an
  agent that keeps none of its commitments lose the whole component.
- **LTRR**: success on long-term-memory tasks; **PIS**: success on self-motivated tasks.
- success per scenario, per phase and in total; **AvgTurns** over successful tasks.
- **DRS** (disruption resilience score): success over disruption tasks, and **stt**: Pass@1
  per sub-type x level cell with its count and a 95 % Wilson interval (STT-Arena's table).
  Both appear only for a term with disruption tasks, so older scorecards are unchanged.
- **MPS** (memory-probe score, BEAM's ability vector): the mean probe score per ability (a
  probe's ``probe_permille`` mark, or a check-in's ``<ability>/<n>`` marks; one not answered
  scores 0) and their unweighted mean. Only for a term with memory probes (a probe fork) or
  memory check-ins (``--check-ins``), and never part of StuGPA, LTRR or PIS.
- **busy_days** (only for a term with busy days): errands, SR and CS (Trainee-Bench Eq. 4), late
  errands and minutes late, errands per day, CS per family (``scenarios/busy_days.busy_metrics``).
A component with no tasks in the term scores 0 and is reported as ``null``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from campus.events import TaskEnded
from campus.scenarios.busy_days import busy_metrics
from campus.scenarios.check_ins import SCENARIO as CHECK_INS, probe_marks
from campus.scenarios.disruptions import SCENARIO as DISRUPTIONS
from campus.scenarios.abilities import ABILITIES
from campus.scenarios.probes import PROBE_SCENARIO
from campus.scenarios.task import Task, Term

RESPONSIBILITY = 6.0
UNUSED_BOOKING = 0.5
MISSED_COMMITMENT = 0.25
WEIGHTS = {"exam": 50.0, "class": 30.0, "advisor": 8.0, "club": 6.0}


def scorecard(term: Term, ended: Iterable[TaskEnded]) -> dict[str, Any]:
    """Every metric of a run, from the term and the run's task-ended events."""
    outcomes: dict[str, TaskEnded] = {event.task_id: event for event in ended if event.task_id in term.by_id}
    scored = [task for task in term.tasks if not task.flags.delivery_only]

    def success(task: Task) -> bool:
        event = outcomes.get(task.id)
        return event is not None and event.outcome == "success"

    succeeded = [task for task in scored if success(task)]
    turns = [outcomes[task.id].turns for task in succeeded]
    disrupted = [task for task in scored if task.scenario == DISRUPTIONS]
    extra = {"drs": _rate_of(disrupted, success), "stt": stt_cells(disrupted, success)} if disrupted else {}
    probes = [task for task in scored if task.scenario in (PROBE_SCENARIO, CHECK_INS)]
    if probes:
        extra["mps"] = memory_probe_score(probes, outcomes)
    busy = busy_metrics(term, {task_id: event.marks for task_id, event in outcomes.items()})
    if busy is not None:
        extra["busy_days"] = busy
    return extra | {
        "stugpa": stugpa(scored, outcomes),
        "ltrr": _rate_of([t for t in scored if t.flags.long_term], success),
        "pis": _rate_of([t for t in scored if t.flags.self_motivated], success),
        "by_scenario": _grouped(scored, success, outcomes, lambda t: t.scenario),
        "by_phase": _grouped(scored, success, outcomes, lambda t: t.phase),
        "total": {"tasks": len(scored), "succeeded": len(succeeded), "success_rate": _rate(len(succeeded), len(scored))},
        "avg_turns": round(sum(turns) / len(turns), 3) if turns else None,
    }


def memory_probe_score(probes: list[Task], outcomes: dict[str, TaskEnded]) -> dict[str, Any]:
    """``{"overall", "abilities": {ability: mean score or None}}`` over the probe tasks and check-ins (a check-in
    not ended yet asked nothing the log knows of)."""
    scores: dict[str, list[float]] = {}
    for task in probes:
        event = outcomes.get(task.id)
        if task.scenario == CHECK_INS:
            for ability, value in probe_marks(event.marks) if event is not None else []:
                scores.setdefault(ability, []).append(value)
            continue
        value = event.marks.get("probe_permille", 0) / 1000 if event is not None else 0.0
        scores.setdefault(task.ground_truth["probe"]["ability"], []).append(value)
    abilities = {name: round(sum(v) / len(v), 6) if (v := scores.get(name)) else None for name in ABILITIES}
    present = [value for value in abilities.values() if value is not None]
    return {"overall": round(sum(present) / len(present), 6) if present else None, "abilities": abilities}


def stugpa(scored: list[Task], outcomes: dict[str, TaskEnded]) -> dict[str, Any]:
    rates: dict[str, float | None] = {}
    for component in WEIGHTS:
        tasks = [task for task in scored if task.flags.counts_toward == component]
        if component == "class":
            hits = sum(outcomes[t.id].marks.get("attended", 0) for t in tasks if t.id in outcomes)
        else:
            hits = sum(outcomes[t.id].outcome == "success" for t in tasks if t.id in outcomes)
        rates[component] = _rate(hits, len(tasks)) if tasks else None
    unused = sum(event.marks.get("unused_bookings", 0) for event in outcomes.values())
    missed = sum(1 for task in scored if task.flags.commitment and _missed(outcomes.get(task.id)))
    responsibility = max(0.0, RESPONSIBILITY - UNUSED_BOOKING * unused - MISSED_COMMITMENT * missed)
    points = {name: round(WEIGHTS[name] * (rate or 0.0), 4) for name, rate in rates.items()}
    total = sum(points.values()) + responsibility
    return {
        "total": round(total, 2),
        "points": points | {"responsibility": round(responsibility, 4)},
        "rates": rates,
        "unused_bookings": unused,
        "missed_commitments": missed,
    }


def _missed(event: TaskEnded | None) -> bool:
    """A commitment is kept by showing up where there is an appointment, else by doing the task."""
    if event is None:
        return True
    if "attended" in event.marks:
        return not event.marks["attended"]
    return event.outcome != "success"


def _grouped(scored: list[Task], success: Any, outcomes: dict[str, TaskEnded], key: Any) -> dict[str, dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for task in scored:
        row = groups.setdefault(key(task), {"tasks": 0, "succeeded": 0, "ended": 0})
        row["tasks"] += 1
        row["ended"] += task.id in outcomes
        row["succeeded"] += success(task)
    for row in groups.values():
        row["success_rate"] = _rate(row["succeeded"], row["tasks"])
    return groups


def stt_cells(tasks: list[Task], success: Any) -> dict[str, dict[str, Any]]:
    """``"<sub_type>/<level>"`` -> tasks, succeeded, Pass@1 and its 95 % Wilson interval."""
    cells: dict[str, list[bool]] = {}
    for task in tasks:
        cells.setdefault(f"{task.ground_truth['sub_type']}/{task.ground_truth['level']}", []).append(success(task))
    return {key: {"tasks": len(hits), "succeeded": sum(hits), "pass_at_1": _rate(sum(hits), len(hits)),
                  "interval": wilson(sum(hits), len(hits))} for key, hits in sorted(cells.items())}


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a success rate (95 % by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (round(max(0.0, centre - half), 6), round(min(1.0, centre + half), 6))


def _rate_of(tasks: list[Task], success: Any) -> float | None:
    return _rate(sum(success(task) for task in tasks), len(tasks)) if tasks else None


def _rate(part: int | float, whole: int) -> float:
    return round(part / whole, 6) if whole else 0.0

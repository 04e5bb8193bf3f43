"""Re-scoring a stored run by replay: every task judged again from the log, no agent needed.

The log is folded once; at each task's end the term's evaluator judges the task again
against the state and the task's own events, exactly as the runner did. The scorecard of
those judgements must equal the scorecard of the recorded outcomes; any task judged
differently is listed (a changed evaluator, a damaged log, or a term that is not the run's).
The same pass counts each task's tool calls and error modes (``replays/detectors.py``), over
all tasks and over the disruption tasks alone.
"""

from __future__ import annotations

from typing import Any

import msgspec

from campus.events import Event, TaskEnded, TaskReleased
from campus.kernel.schedule import Composing
from campus.kernel.store import StoreError, decode_rows
from campus.replays.detectors import Tally, TaskLog
from campus.replays.verify import OnTask, batches
from campus.scenarios.disruptions import SCENARIO as DISRUPTIONS
from campus.scenarios.play import Run
from campus.scenarios.scorecard import scorecard


class ScoreReport(msgspec.Struct, kw_only=True):
    run: str
    scorecard: dict[str, Any]
    recorded: dict[str, Any]
    matches: bool
    changed: list[dict[str, Any]]
    """Tasks whose judgement now differs from the recorded one: id, recorded and judged outcome and detail."""
    errors: dict[str, Any] = {}
    """``all`` tasks and ``disruptions``: detector counts (findings, tasks) and average tool calls per task."""


def rescore(run: Run, on_task: OnTask | None = None) -> ScoreReport:
    """``StoreError`` for a run with no event at all: its log lost even ``run_started``, so an empty scorecard
    "reproduced" would vouch for nothing."""
    if run.store.head(run.branch.id)[0] == 0:
        raise StoreError(f"run {run.branch.id!r} has no events, not even its run_started: nothing to score "
                         "('campus verify' tells what is wrong)")
    projection, term = run.kernel.projection, run.term
    state = projection.initial()
    task_events: list[Event] = []
    recorded: list[TaskEnded] = []
    judged: list[TaskEnded] = []
    changed: list[dict[str, Any]] = []
    logged: list[tuple[int, Event]] = []
    tallies = {"all": Tally(), "disruptions": Tally()}
    composing = Composing(term, run.kernel.describe, run.kernel.world)
    for rows in batches(run):
        for row, event in zip(rows, decode_rows(rows)):
            composing.see(row.seq, row.t, event)
            if isinstance(event, TaskReleased):
                logged = []
            logged.append((row.seq, event))
            if isinstance(event, TaskEnded):
                task = TaskLog(logged)
                calls, findings = len(task.calls), task.detect()
                for name, tally in tallies.items():
                    if name == "all" or term.by_id[event.task_id].scenario == DISRUPTIONS:
                        tally.count(calls, findings)
                recorded.append(event)
                again = _judge(run, state, task_events, event, composing)
                judged.append(again)
                if again != event:
                    changed.append({"task_id": event.task_id, "recorded": [event.outcome, event.detail],
                                    "judged": [again.outcome, again.detail]})
                if on_task is not None:
                    on_task(row.t)
            projection.apply(state, row.seq, row.t, event)
            if isinstance(event, TaskReleased):
                task_events = [event]
            elif task_events:
                task_events.append(event)
    card, before = scorecard(term, judged), scorecard(term, recorded)
    return ScoreReport(run=run.branch.id, scorecard=card, recorded=before, matches=card == before and not changed,
                       changed=changed, errors={name: tally.summary() for name, tally in tallies.items()})


def _judge(run: Run, state: Any, task_events: list[Event], ended: TaskEnded, composing: Composing) -> TaskEnded:
    if ended.outcome == "unscored":
        return ended
    outcome, detail, marks = run.term.evaluate(ended.task_id, state, task_events, composing.open)
    return msgspec.structs.replace(ended, outcome=outcome, detail=detail, marks=marks)

"""The kernel's own state: the clock and the session.

Everything the runner needs to pick a run up where it stopped — which day has started,
which task is open, how many turns it has used, how many tasks and triggers are done —
is projected from the log like any subsystem's state. That is what lets a resume or a
fork rebuild the SimPy processes from the log instead of copying them.
"""

from __future__ import annotations

from typing import Any

import msgspec

from campus.events import (
    AgentReplied,
    DayStarted,
    InstructionRevealed,
    RunEnded,
    TaskEnded,
    TaskReleased,
    TimeAnnounced,
    ToolCalled,
    WorldChanged,
)
from campus.kernel.projection import Domain, occurrence, reads


class ClockState(msgspec.Struct, kw_only=True):
    day: int = -1
    announced_day: int = -1
    """The last day whose date the agent was told (it is told once, at its first task of the day)."""


class SessionState(msgspec.Struct, kw_only=True):
    task_id: str = ""
    turns: int = 0
    withheld: bool = False
    next_task: int = 0
    triggers_done: int = 0
    calls: int = 0
    finished: bool = False
    outcomes: dict[str, str] = {}


def _day_started(part: ClockState, event: DayStarted) -> None:
    part.day = event.day


@occurrence
def _time_announced(part: ClockState, event: TimeAnnounced) -> None:
    part.announced_day = part.day


@reads("task_id", "withheld")
def _released(part: SessionState, event: TaskReleased) -> None:
    part.task_id = event.task_id
    part.turns = 0
    part.withheld = event.withheld


@occurrence
def _revealed(part: SessionState, event: InstructionRevealed) -> None:
    part.withheld = False


@occurrence
def _replied(part: SessionState, event: AgentReplied) -> None:
    part.turns += 1


@occurrence
def _called(part: SessionState, event: ToolCalled) -> None:
    part.calls += 1


@reads("task_id", "outcome")
def _ended(part: SessionState, event: TaskEnded) -> None:
    part.outcomes[event.task_id] = event.outcome
    part.task_id = ""
    part.withheld = False
    part.next_task += 1


def _changed(part: SessionState, event: WorldChanged) -> None:
    if not event.rule:  # a rule's firing is not one of the term's scheduled changes
        part.triggers_done += 1


@occurrence
def _run_ended(part: SessionState, event: RunEnded) -> None:
    part.finished = True


def _new_clock(world: Any) -> ClockState:
    return ClockState()


def _new_session(world: Any) -> SessionState:
    return SessionState()


CLOCK = Domain(
    name="clock",
    state_type=ClockState,
    initial=_new_clock,
    reducers={DayStarted: _day_started, TimeAnnounced: _time_announced},
)

SESSION = Domain(
    name="session",
    state_type=SessionState,
    initial=_new_session,
    reducers={
        TaskReleased: _released,
        InstructionRevealed: _revealed,
        AgentReplied: _replied,
        ToolCalled: _called,
        TaskEnded: _ended,
        WorldChanged: _changed,
        RunEnded: _run_ended,
    },
)

"""What the kernel needs to know of a term: when each task starts and how it is judged.

The term itself (tasks with hidden ground truth, generators, evaluators) lives in
``scenarios/``; the kernel sees only these cards, so it can never leak what it does not hold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple, Protocol

import msgspec

from campus.events import Event, TaskReleased, WorldChange


class TaskCard(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    scenario: str
    release: int
    instruction: str
    systems: tuple[str, ...]
    required_place: str | None = None
    opens: int | None = None
    """The minute from which an instruction withheld at ``required_place`` is handed out there (``None``: the moment
    the student arrives)."""
    round_limit: int | None = None
    """Turns allowed in this task; ``None`` means the run's configured limit."""
    scored: bool = True
    answers: Literal["letter", "text"] = "letter"
    """How ``Answer:`` is read: one multiple-choice letter, or the rest of the reply as text (a memory probe)."""
    composed: bool = False
    """Its questions are composed at release from the log so far (``Schedule.compose``), after ``instruction``."""


Logged = tuple[int, int, Event]
"""``(seq, t, event)`` of one row of the log."""


class Prefix(NamedTuple):
    """The log before a composed task's release: its rows of the kinds the schedule reads (``log_kinds``), the
    seq and minute of the release, how the world names a place, and the world itself (``Kernel.world``), for a
    composer whose questions leave out what the world gives away."""

    rows: Sequence[Logged]
    seq: int
    t: int
    describe: Callable[[str], str]
    world: Any = None


class Trigger(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    t: int
    change: WorldChange


class Schedule(Protocol):
    @property
    def hash(self) -> str: ...

    def cards(self) -> Sequence[TaskCard]: ...

    def triggers(self) -> Sequence[Trigger]: ...

    def trigger_rules(self) -> Sequence[Any]:
        """Trigger rules (``kernel.triggers.Rule``); a term without disruptions has none."""
        ...

    def evaluate(self, task_id: str, state: Any, events: Sequence[Event],
                 prefix: Prefix | None = None) -> tuple[str, str, dict[str, int]]:
        """``(outcome, detail, marks)`` for a scored task: outcome is ``success`` or ``failure``; a composed
        task is judged against what was composed from ``prefix``, the log before its release."""
        ...

    def log_kinds(self) -> frozenset[str]:
        """The event kinds composed tasks are composed from (none when the term has no composed task)."""
        ...

    def compose(self, task_id: str, prefix: Prefix) -> tuple[str, str]:
        """``(text shown after the instruction, digest of what it was drawn from)`` for a composed task."""
        ...

    def feedback(self, task_id: str, marks: dict[str, int]) -> str | None:
        """A mentor's words on a task just judged (with its marks), told before it ends; None for most tasks."""
        ...


class Composing:
    """Follows a log in seq order for a schedule's composed tasks (``verify``, ``score``): the rows they read, and
    the prefix of the composed task released last (``None`` once a task that is not composed is released)."""

    def __init__(self, schedule: Schedule, describe: Callable[[str], str], world: Any = None) -> None:
        self.kinds = schedule.log_kinds()
        self.composed = {card.id for card in schedule.cards() if card.composed}
        self.describe = describe
        self.world = world
        self.rows: list[Logged] = []
        self.open: Prefix | None = None

    def see(self, seq: int, t: int, event: Event) -> None:
        """Take in the next row (call it before the next row is looked at)."""
        if not self.kinds:
            return
        if isinstance(event, TaskReleased):
            composed = event.task_id in self.composed
            self.open = Prefix(list(self.rows), seq, t, self.describe, self.world) if composed else None
        if event.__struct_config__.tag in self.kinds:
            self.rows.append((seq, t, event))

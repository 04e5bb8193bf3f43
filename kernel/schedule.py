"""What the kernel needs to know of a term: when each task starts and how it is judged.

The term itself (tasks with hidden ground truth, generators, evaluators) lives in
``scenarios/``; the kernel sees only these cards, so it can never leak what it does not hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol

import msgspec

from campus.events import Event, WorldChange


class TaskCard(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    scenario: str
    release: int
    instruction: str
    systems: tuple[str, ...]
    required_place: str | None = None
    round_limit: int | None = None
    """Turns allowed in this task; ``None`` means the run's configured limit."""
    scored: bool = True
    answers: Literal["letter", "text"] = "letter"
    """How ``Answer:`` is read: one multiple-choice letter, or the rest of the reply as text (a memory probe)."""


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

    def evaluate(self, task_id: str, state: Any, events: Sequence[Event]) -> tuple[str, str, dict[str, int]]:
        """``(outcome, detail, marks)`` for a scored task: outcome is ``success`` or ``failure``."""
        ...

    def feedback(self, task_id: str, marks: dict[str, int]) -> str | None:
        """A mentor's words on a task just judged (with its marks), told before it ends; None for most tasks."""
        ...

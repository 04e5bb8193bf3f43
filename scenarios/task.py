"""The task model and the term: what a student is asked, when, and how it is judged.

A task's ground truth lives here and nowhere else: the kernel only ever sees a
``TaskCard`` (release time, instruction, tools), and evaluators read the ground truth after
the task has ended.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import msgspec

from events import Event, content_hash
from kernel.schedule import TaskCard, Trigger

Evaluator = Callable[["Task", Any, Sequence[Event]], tuple[bool, str]]
"""``(task, state, the task's own events) -> (success, detail)``: a pure function."""

EVALUATORS: dict[str, Evaluator] = {}


def evaluator(name: str) -> Callable[[Evaluator], Evaluator]:
    def register(fn: Evaluator) -> Evaluator:
        EVALUATORS[name] = fn
        return fn

    return register


class Flags(msgspec.Struct, frozen=True, kw_only=True):
    long_term: bool = False
    """Needs something the student was told long before (the paper's LTM tasks)."""
    self_motivated: bool = False
    """Says nothing but the time: the student must know what it committed to (SM tasks)."""
    delivery_only: bool = False
    """Delivers an instruction for later; run, but not scored."""


class Task(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    scenario: str
    phase: str
    release: int
    instruction: str
    systems: tuple[str, ...]
    evaluator: str
    ground_truth: dict[str, Any]
    required_place: str | None = None
    flags: Flags = Flags()
    depends_on: tuple[str, ...] = ()
    round_limit: int | None = None
    """Agent turns allowed; ``None`` means the run's limit (``campus run --rounds``)."""

    def card(self) -> TaskCard:
        return TaskCard(
            id=self.id,
            scenario=self.scenario,
            release=self.release,
            instruction=self.instruction,
            systems=self.systems,
            required_place=self.required_place,
            round_limit=self.round_limit,
            scored=not self.flags.delivery_only,
        )


class Term(msgspec.Struct, frozen=True, kw_only=True, dict=True):
    """A whole term: tasks in release order and the world changes scheduled between them."""

    name: str
    seed: int
    world_hash: str
    tasks: tuple[Task, ...]
    world_changes: tuple[Trigger, ...] = ()

    @cached_property
    def hash(self) -> str:
        return content_hash(self)

    @cached_property
    def by_id(self) -> dict[str, Task]:
        return {task.id: task for task in self.tasks}

    def cards(self) -> list[TaskCard]:
        return [task.card() for task in self.tasks]

    def triggers(self) -> list[Trigger]:
        return list(self.world_changes)

    def evaluate(self, task_id: str, state: Any, events: Sequence[Event]) -> tuple[str, str]:
        task = self.by_id[task_id]
        success, detail = EVALUATORS[task.evaluator](task, state, events)
        return ("success" if success else "failure"), detail


_TERM = msgspec.json.Decoder(Term)


def decode_term(data: bytes | str) -> Term:
    return _TERM.decode(data)

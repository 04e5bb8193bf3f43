"""The task model and the term: what a student is asked, when, and how it is judged.

A task's ground truth lives here and nowhere else: the kernel only ever sees a
``TaskCard`` (release time, instruction, tools), and evaluators read the ground truth after
the task has ended.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, cast

import msgspec

from campus.events import SCHEMA_VERSION, Event, TaskReleased, TooDeep, Walked, canonical, content_hash, digest
from campus.events.upcast import upcast_change, v1_day, v1_slot, v1_time
from campus.kernel.schedule import Prefix, TaskCard, Trigger
from campus.kernel.triggers import Rule

class Verdict(msgspec.Struct, frozen=True):
    """An evaluator's judgement: success, why, and marks the metrics read (see ``TaskEnded.marks``)."""

    success: bool
    detail: str
    marks: dict[str, int] = {}


Evaluator = Callable[["Task", Any, Sequence[Event]], Verdict]
"""``(task, state, the task's own events) -> verdict``: a pure function."""

ARRIVAL_GRACE = 10
"""Minutes after a task's release within which reaching its required place still counts as present."""

AT_START = "at_start"
"""A ground-truth key of the terms made since 2026-11-29, on every task held at a place with a start after its
release (a lecture, an in-class exam, a club meeting): what it hands out there is handed out from the start
(``TaskCard.opens``), and being there means being there at the start, or on the way then and arriving within the
grace. Before, the text appeared on arrival and the first walk that ended there in time counted: a student that
remembered nothing and walked from academic building to academic building attended 46-63 of the 128 class sessions
of seed 0 at ``--scale 0.3`` (the others' buildings passed on the way), where ``diligent`` attended none."""

EVALUATORS: dict[str, Evaluator] = {}
TEXT_ANSWERS: set[str] = set()
"""Evaluators of tasks answered in words (``Answer: <text>``) rather than with a letter."""
FEEDBACK: dict[str, Callable[["Task", dict[str, int]], "str | None"]] = {}
"""Evaluator name -> a mentor's words on a judged task from its marks (``Term.feedback``); most evaluators have none."""


@dataclass(frozen=True)
class Composer:
    """How a composed task is asked and judged: both pure functions of the log before its release.

    ``compose(task, seed, prefix)`` gives the text shown after the instruction and the digest of what it was
    drawn from; ``judge(task, seed, prefix, events)`` draws the same again and judges the task's events."""

    kinds: frozenset[str]
    """The event kinds it reads from the log."""
    compose: Callable[["Task", int, Prefix], tuple[str, str]]
    judge: Callable[["Task", int, Prefix, Sequence[Event]], Verdict]


COMPOSERS: dict[str, Composer] = {}
"""Evaluator name -> how its tasks are composed at release (a check-in's questions) and judged."""


def composed(name: str, composer: Composer) -> None:
    """Register the evaluator ``name`` of tasks composed at release from the log; they are answered in words."""
    COMPOSERS[name] = composer
    TEXT_ANSWERS.add(name)


def evaluator(name: str, *, answers: Literal["letter", "text"] = "letter") -> Callable[[Evaluator], Evaluator]:
    def register(fn: Evaluator) -> Evaluator:
        EVALUATORS[name] = fn
        if answers == "text":
            TEXT_ANSWERS.add(name)
        return fn

    return register


class Flags(msgspec.Struct, frozen=True, kw_only=True):
    long_term: bool = False
    """Needs something the student was told long before (the paper's LTM tasks)."""
    self_motivated: bool = False
    """Says nothing but the time: the student must know what it committed to (SM tasks)."""
    delivery_only: bool = False
    """Delivers an instruction for later; run, but not scored."""
    counts_toward: str = ""
    """The StuGPA component this task feeds: ``exam``, ``class`` (attendance), ``advisor``, ``club`` or ``""``."""
    commitment: bool = False
    """Carries out something the student scheduled itself; failing it is a missed commitment."""


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
    starts: int | None = None
    """When the appointment at ``required_place`` begins (default: the release); arriving by
    ``starts + ARRIVAL_GRACE`` counts as present."""
    flags: Flags = Flags()
    depends_on: tuple[str, ...] = ()
    round_limit: int | None = None
    """Agent turns allowed; ``None`` means the run's limit (``campus run --rounds``)."""
    solution: tuple[str, ...] = ()
    """The oracle's plan (``agents/plans.py``): steps such as ``call:<tool call>``, ``goto:B001``, ``answer:B``."""
    stale: tuple[str, ...] | None = None
    """The plan of a student who ignored the latest change; it must fail the task."""
    follow_up: tuple[str, ...] = ()
    """Later tasks whose instruction this (delivery) task gives."""

    def card(self) -> TaskCard:
        return TaskCard(
            id=self.id,
            scenario=self.scenario,
            release=self.release,
            instruction=self.instruction,
            systems=self.systems,
            required_place=self.required_place,
            opens=self.starts if at_start(self) and self.instruction else None,
            round_limit=self.round_limit,
            scored=not self.flags.delivery_only,
            answers="text" if self.evaluator in TEXT_ANSWERS else "letter",
            composed=self.evaluator in COMPOSERS,
        )


class Term(msgspec.Struct, frozen=True, kw_only=True, dict=True, omit_defaults=True):
    """A whole term: tasks in release order and the world changes scheduled between them."""

    name: str
    seed: int
    world_hash: str
    tasks: tuple[Task, ...]
    world_changes: tuple[Trigger, ...] = ()
    rules: tuple[Rule, ...] = ()
    """Trigger rules (disruptions); left out of the encoding when empty, so older terms keep their hash."""

    @cached_property
    def encoded(self) -> bytes:
        """The term's canonical bytes, what every new run stores (~6 MB for the default term): made once."""
        return canonical(self)

    @cached_property
    def hash(self) -> str:
        """``content_hash`` of the term, from the bytes already made; a term read from an older schema keeps the
        hash it was stored under (``decode_term``)."""
        return digest(self.encoded)

    @cached_property
    def by_id(self) -> dict[str, Task]:
        return {task.id: task for task in self.tasks}

    def cards(self) -> list[TaskCard]:
        return [task.card() for task in self.tasks]

    def triggers(self) -> list[Trigger]:
        return list(self.world_changes)

    def trigger_rules(self) -> list[Rule]:
        return list(self.rules)

    def evaluate(self, task_id: str, state: Any, events: Sequence[Event],
                 prefix: Prefix | None = None) -> tuple[str, str, dict[str, int]]:
        """``(outcome, detail, marks)``; a task whose prerequisite failed fails without being judged. A composed
        task needs ``prefix``, the log before its release."""
        task = self.by_id[task_id]
        marks = {"attended": int(attended(task, state, events))} if task.required_place else {}
        failed = [dep for dep in task.depends_on if state.session.outcomes.get(dep) == "failure"]
        if failed:
            return "failure", f"prerequisite {failed[0]} failed", marks
        composer = COMPOSERS.get(task.evaluator)
        if composer is not None:
            if prefix is None:
                raise ValueError(f"task {task_id} is composed from the log: judging it needs the log before its release")
            verdict = composer.judge(task, self.seed, prefix, events)
        else:
            verdict = EVALUATORS[task.evaluator](task, state, events)
        return ("success" if verdict.success else "failure"), verdict.detail, marks | verdict.marks

    def log_kinds(self) -> frozenset[str]:
        return frozenset().union(*(COMPOSERS[t.evaluator].kinds for t in self.tasks if t.evaluator in COMPOSERS))

    def compose(self, task_id: str, prefix: Prefix) -> tuple[str, str]:
        task = self.by_id[task_id]
        return COMPOSERS[task.evaluator].compose(task, self.seed, prefix)

    def feedback(self, task_id: str, marks: dict[str, int]) -> str | None:
        task = self.by_id[task_id]
        give = FEEDBACK.get(task.evaluator)
        return give(task, marks) if give is not None else None


def at_start(task: Task) -> bool:
    """Whether the task hands out at its place from its start and judges presence there then (``AT_START``)."""
    return bool(task.ground_truth.get(AT_START)) and task.required_place is not None and task.starts is not None


def attended(task: Task, state: Any, events: Sequence[Event]) -> bool:
    """Whether the student was at the task's required place by its start plus the grace.

    Present at release when the instruction was not withheld (or, for a task with no
    instruction, when the student never walked and ends there); otherwise the first walk
    that ends at the place must arrive in time. Under ``at_start``: there at the start, or on
    the way there then and arriving within the grace (``_there_at_start``).
    """
    if not events or not isinstance(events[0], TaskReleased):
        return False
    place = task.required_place
    walks = [e for e in events if isinstance(e, Walked)]
    if at_start(task):
        return _there_at_start(task, state, walks)
    if task.instruction and not events[0].withheld:
        return True
    if not walks:
        return state.geography.location == place
    starts = task.release if task.starts is None else task.starts
    arrival = next((walk.arrive for walk in walks if walk.path[-1] == place), None)
    return arrival is not None and arrival <= starts + ARRIVAL_GRACE


def _there_at_start(task: Task, state: Any, walks: Sequence[Walked]) -> bool:
    """At the place when the task starts, or on the way there then: only walks set out before the start count. The
    student is where the last of them that arrived by the start ended (where it was at release when none had); one
    still under way at the start counts if it ends at the place within the grace. A walk set out at the start or later
    counts for nothing: a student that waited somewhere until the start and, shown nothing, walked on had a second
    guess (camping at one building and stepping to another attended 77 of seed 0's 160 held tasks at ``--scale 0.3``,
    where the busiest building holds 51), and hops between the members of a building complex take no minutes."""
    starts = cast(int, task.starts)
    before = [walk for walk in walks if walk.depart < starts]
    arrived = [walk for walk in before if walk.arrive <= starts]
    here = arrived[-1].path[-1] if arrived else walks[0].path[0] if walks else state.geography.location
    under_way = before[len(arrived):]
    if not under_way:
        return here == task.required_place
    return under_way[0].path[-1] == task.required_place and under_way[0].arrive <= starts + ARRIVAL_GRACE


_TERM = msgspec.json.Decoder(Term)


def stored_term(term: Term) -> Term:
    """``term`` as a store gives it back: equal, every mapping in key order (``world.model.stored_form``'s reason:
    a run on the term just made and its verify, fork or resume on the stored copy read the same dicts in one order)."""
    again = decode_term(term.encoded)
    vars(again)["encoded"] = term.encoded
    return again


def decode_term(data: bytes | str, schema: int = SCHEMA_VERSION) -> Term:
    """A stored term; one written under an older ``schema`` is upcast and keeps the hash it was
    stored under (the hash its runs' genesis binds).

    A term that the current schema refuses is read as one of schema 1 (whose upcasting
    changes only what has the old shape), so a fork recorded as current still reads the
    term of the run it was forked from.
    """
    try:
        return _decoded_term(data, schema)
    except RecursionError:
        raise TooDeep("a term") from None


def _decoded_term(data: bytes | str, schema: int) -> Term:
    if schema >= SCHEMA_VERSION:
        try:
            return _TERM.decode(data)
        except msgspec.ValidationError:
            schema = 1
    raw = msgspec.json.decode(data)
    term = msgspec.convert(upcast_term(raw, schema), Term)
    term.__dict__["hash"] = content_hash(raw)
    return term


def upcast_term(raw: Any, schema: int) -> Any:
    """A decoded term of ``schema`` as one of the current schema: its world changes and the parts of its ground truths.
    What has not the shape of a term is left as it is, for the conversion to a ``Term`` to refuse (a stored term is
    untrusted)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("world_changes", []), list) or not isinstance(raw.get("tasks", []), list):
        return raw
    triggers = [trigger | {"change": upcast_change(trigger["change"], schema)}
                if isinstance(trigger, dict) and isinstance(trigger.get("change"), dict) else trigger
                for trigger in raw.get("world_changes", [])]
    tasks = [task | {"ground_truth": _upcast_truth(task.get("ground_truth"), schema)} if isinstance(task, dict) else task
             for task in raw.get("tasks", [])]
    return raw | {"world_changes": triggers, "tasks": tasks}


def _upcast_truth(truth: Any, schema: int) -> Any:
    if schema >= 2 or not isinstance(truth, dict) or not isinstance(truth.get("parts"), list):
        return truth
    return truth | {"parts": [_part_v1(part) for part in truth["parts"]]}


def _part_v1(part: Any) -> Any:
    """Schema 1 parts held labels: a booking's ``date`` and ``time_slot``, a calendar event's ``time``."""
    if not isinstance(part, dict):
        return part
    if part.get("check") == "booking" and isinstance(part.get("date"), str) and isinstance(part.get("time_slot"), str):
        rest = {k: v for k, v in part.items() if k not in ("date", "time_slot")}
        return rest | {"day": v1_day(part["date"])} | v1_slot(part["time_slot"])
    if part.get("check") == "calendar" and isinstance(part.get("time"), str):
        return part | {"time": v1_time(part["time"])}
    return part


from campus.scenarios import checks  # noqa: E402,F401  (registers the "parts" evaluator; it imports this module)
from campus.scenarios import probes  # noqa: E402,F401  (registers the "probe" evaluator and, through it, check_ins)

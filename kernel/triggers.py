"""Trigger rules: world changes that fire mid-task, as data in the term.

A rule is ``{id, sub_type, activation, mutations, mode}``:

- **activation** says when it is looked at: ``OnRead`` (just before a matching tool call is
  dispatched, so that very read reveals the change), ``AtTime`` (the rule clock, a SimPy
  process, fires it at minute ``t`` whether or not the agent looks), ``AfterOpen`` (the rule
  clock fires it ``minutes`` after its task is actually shown to the student, however late
  that is) or ``OnEvent`` (right after an event of a kind, e.g. ``booked`` or ``walked``). Each
  has a ``where``: predicates that must all hold.
- **predicates** are a closed set of Structs, never code: ``TaskIs``, ``ArgIs``, ``ToolIs``,
  ``EndsAt``.
- **mutations** are compare-and-set world changes (``events.changes.CompareAndSet``): each
  ``old`` must hold in the projection (checked by the guard of the domain that applies the
  change), else nothing changes and a ``TriggerSkipped`` event says why.
- **mode** ``Once`` fires at most once; ``Guarded(recovery)`` stays armed, re-applying its
  changes whenever it activates and they no longer hold, until an event of the task matches
  ``recovery``.

A rule activated by ``task_ended`` of its task (``TaskIs``) undoes a disruption once the task
is judged, so a disruption lasts exactly while its task is open and no other task sees it.

Firing appends one ``WorldChanged`` per mutation naming the rule and the seq of the event
that caused it (0 for the clock). Whether a rule is armed is a fold of the log (``RULES``), so
a resume, a fork or ``verify`` re-derives every firing from the events alone. The kernel holds
no ground truth here: a rule says what changes, never what the agent should do about it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Union

import msgspec

from campus.events import (
    Booked,
    CompareAndSet,
    Event,
    RoomHours,
    RoomStatus,
    SeatFeatures,
    FeatureLost,
    ToolCalled,
    TriggerSkipped,
    Walked,
    WalkwayStatus,
    WorldChanged,
    walkway_key,
)
from campus.kernel.clock import date_label
from campus.kernel.projection import Domain

# ------------------------------------------------------------------ predicates


class TaskIs(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="task_is"):
    """The open task is this one."""

    task_id: str


class ToolIs(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="tool_is"):
    """The event is a call of this tool."""

    tool: str


class ArgIs(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="arg_is"):
    """The call's argument ``name`` equals ``value`` (spaces at the ends and letter case aside)."""

    name: str
    value: str


class EndsAt(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="ends_at"):
    """The event is a walk ending at this building, or a booking in this library."""

    building: str


Predicate = Union[TaskIs, ToolIs, ArgIs, EndsAt]

# ------------------------------------------------------------------ activations and modes


class OnRead(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="on_read"):
    tool: str
    """A tool's name, or a system's name and a dot (``reservation.``) for any of its tools."""
    where: tuple[Predicate, ...] = ()


class AtTime(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="at_time"):
    t: int
    where: tuple[Predicate, ...] = ()


class AfterOpen(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="after_open"):
    """``minutes`` after the ``task_released`` of ``task_id``, if that task is still open then."""

    task_id: str
    minutes: int
    where: tuple[Predicate, ...] = ()


EventKind = Literal["booked", "walked", "tool_called", "email_sent", "calendar_event_added", "task_ended"]


class OnEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="on_event"):
    kind: EventKind
    where: tuple[Predicate, ...] = ()


Activation = Union[OnRead, AtTime, AfterOpen, OnEvent]


class Once(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="once"):
    pass


class Guarded(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="guarded"):
    recovery: tuple[Predicate, ...]
    recovery_kind: EventKind = "booked"


Mode = Union[Once, Guarded]

SubType = Literal["T1", "T2", "T3", "S1", "S2", "S3", "ST1", "ST2", "ST3"]
SUB_TYPES: tuple[str, ...] = SubType.__args__  # type: ignore[attr-defined]


class Rule(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    sub_type: SubType
    activation: Activation
    mutations: tuple[CompareAndSet, ...]
    mode: Mode = Once()


# ------------------------------------------------------------------ entities


EntityClass = Literal["seat", "room", "walkway"]


def entities(change: CompareAndSet) -> list[tuple[EntityClass, str]]:
    """The entities a change mutates: each one's class and a key that is also how tools show it (a ``FeatureLost``
    mutates every seat it names)."""
    match change:
        case SeatFeatures():
            return [("seat", change.seat_id)]
        case FeatureLost():
            return [("seat", seat_id) for seat_id in change.seats]
        case RoomStatus() | RoomHours():
            return [("room", f"{change.building_id}|{change.room_id}|{date_label(change.day)}")]
        case WalkwayStatus():
            return [("walkway", walkway_key(change.a, change.b))]
    raise TypeError(f"not a trigger change: {type(change).__name__}")


# ------------------------------------------------------------------ projected rule state


class RulesState(msgspec.Struct, kw_only=True):
    fired: dict[str, int] = {}
    """Rule id -> how many times it fired."""
    skipped: list[str] = []
    versions: dict[str, int] = {}
    """Entity key -> how many trigger changes it has had (its version)."""


def _changed(part: RulesState, event: WorldChanged) -> None:
    if not event.rule:
        return
    part.fired[event.rule] = part.fired.get(event.rule, 0) + 1
    if isinstance(event.change, (SeatFeatures, FeatureLost, RoomStatus, RoomHours, WalkwayStatus)):
        for _, key in entities(event.change):
            part.versions[key] = part.versions.get(key, 0) + 1


def _skipped(part: RulesState, event: TriggerSkipped) -> None:
    if event.rule not in part.skipped:
        part.skipped.append(event.rule)


RULES = Domain(
    name="rules",
    state_type=RulesState,
    initial=lambda world: RulesState(),
    reducers={WorldChanged: _changed, TriggerSkipped: _skipped},
)

# ------------------------------------------------------------------ evaluation (pure)


def _fold(value: Any) -> str:
    return " ".join(str(value).split()).casefold()


def holds(predicate: Predicate, task_id: str, event: Event | None) -> bool:
    """Whether one predicate holds for the open task and the event looked at (None for the clock)."""
    match predicate:
        case TaskIs():
            return task_id == predicate.task_id
        case ToolIs():
            return isinstance(event, ToolCalled) and event.tool == predicate.tool
        case ArgIs():
            return isinstance(event, ToolCalled) and _fold(event.args.get(predicate.name, "")) == _fold(predicate.value)
        case EndsAt():
            if isinstance(event, Walked):
                return event.path[-1] == predicate.building
            return isinstance(event, Booked) and event.location_id == predicate.building
    return False


def all_hold(predicates: Sequence[Predicate], task_id: str, event: Event | None) -> bool:
    return all(holds(p, task_id, event) for p in predicates)


def armed(rule: Rule, part: RulesState, task_events: Sequence[Event], task_id: str) -> bool:
    """Once: not yet fired or skipped. Guarded: no event of the open task has shown recovery."""
    if isinstance(rule.mode, Once):
        return rule.id not in part.fired and rule.id not in part.skipped
    kind = rule.mode.recovery_kind
    recovered = any(
        _kind(e) == kind and all_hold(rule.mode.recovery, task_id, e) for e in task_events
    )
    return not recovered


def _kind(event: Event) -> str:
    return type(event).__struct_config__.tag  # type: ignore[return-value]


def _tool_matches(pattern: str, tool: str) -> bool:
    return tool.startswith(pattern) if pattern.endswith(".") else tool == pattern


def activated(rule: Rule, task_id: str, event: Event | None, *, read: bool = False) -> bool:
    """Whether ``rule``'s activation matches: a call about to be dispatched (``read``), an event just
    recorded, or (``event`` None) the clock at its time."""
    act = rule.activation
    match act:
        case OnRead():
            return read and isinstance(event, ToolCalled) and _tool_matches(act.tool, event.tool) and all_hold(act.where, task_id, event)
        case OnEvent():
            return not read and event is not None and _kind(event) == act.kind and all_hold(act.where, task_id, event)
        case AtTime():
            return event is None and all_hold(act.where, task_id, None)
        case AfterOpen():
            return event is None and task_id == act.task_id and all_hold(act.where, task_id, None)
    return False


Due = tuple[int, str, Rule]
"""(minute, rule id, rule): a timed rule on the rule clock's agenda, in the order it is looked at."""


def due_at_times(rules: Sequence[Rule], since: int) -> list[Due]:
    """The ``AtTime`` rules whose minute is not before ``since``, in agenda order."""
    return sorted((r.activation.t, r.id, r) for r in rules if isinstance(r.activation, AtTime) and r.activation.t >= since)


def due_after_open(rules: Mapping[str, Sequence[Rule]], task_id: str, opened: int, since: int) -> list[Due]:
    """The ``AfterOpen`` rules of a task shown at ``opened`` whose minute is not before ``since``.

    ``rules`` maps a task id to its ``AfterOpen`` rules (``after_open_index``)."""
    found = [(opened + r.activation.minutes, r.id, r) for r in rules.get(task_id, ())  # type: ignore[union-attr]
             if opened + r.activation.minutes >= since]  # type: ignore[union-attr]
    return sorted(found)


def bound_task(rule: Rule) -> str | None:
    """The one task while which ``rule`` can activate (its ``after_open`` task, or the ``task_is`` of its
    activation), or None if it may activate in any."""
    act = rule.activation
    if isinstance(act, AfterOpen):
        return act.task_id
    return next((p.task_id for p in act.where if isinstance(p, TaskIs)), None)


class RuleIndex:
    """The rules that can activate while a task is open, in term order: those bound to it and the unbound ones.

    A term's disruption rules each name their task, so looking only at these gives the same firings as looking
    at every rule on every call and event, without scanning them all each time."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self._unbound: list[tuple[int, Rule]] = []
        self._bound: dict[str, list[tuple[int, Rule]]] = {}
        for position, rule in enumerate(rules):
            task = bound_task(rule)
            (self._unbound if task is None else self._bound.setdefault(task, [])).append((position, rule))
        self._made: dict[str, list[Rule]] = {}

    def for_task(self, task_id: str) -> list[Rule]:
        made = self._made.get(task_id)
        if made is None:
            ranked = sorted(self._bound.get(task_id, []) + self._unbound, key=lambda item: item[0])
            made = self._made[task_id] = [rule for _, rule in ranked]
        return made


def after_open_index(rules: Sequence[Rule]) -> dict[str, list[Rule]]:
    """Task id -> the rules timed from that task's opening."""
    index: dict[str, list[Rule]] = {}
    for rule in rules:
        if isinstance(rule.activation, AfterOpen):
            index.setdefault(rule.activation.task_id, []).append(rule)
    return index


Guards = Mapping[type, tuple[str, Any]]
"""Change type -> (name of the domain applying it, its compare-and-set check)."""


def guards_of(domains: Sequence[Domain]) -> dict[type, tuple[str, Any]]:
    return {kind: (d.name, check) for d in domains for kind, check in d.guards.items()}


def fire(rule: Rule, state: Any, world: Any, guards: Guards, cause: int) -> list[Event]:
    """The events firing ``rule`` now appends: one ``WorldChanged`` per mutation, or one
    ``TriggerSkipped`` if any ``old`` does not hold (a rule applies all its changes or none).
    A guarded rule whose changes all already hold (still in effect) appends nothing."""
    problems: list[str] = []
    in_effect = 0
    for change in rule.mutations:
        name, check = guards[type(change)]
        part = getattr(state, name)
        problem = check(part, change, world)
        if problem is not None:
            already = check(part, msgspec.structs.replace(change, old=change.new), world) is None
            if already:
                in_effect += 1
            problems.append(problem)
    if isinstance(rule.mode, Guarded) and in_effect == len(rule.mutations):
        return []
    if problems:
        return [TriggerSkipped(rule=rule.id, cause=cause, reason="; ".join(problems))]
    return [
        WorldChanged(change_id=f"{rule.id}#{index + 1}", change=change, rule=rule.id, cause=cause)
        for index, change in enumerate(rule.mutations)
    ]


def rule_problem(rule: Rule, guards: Guards) -> str | None:
    """Why a rule could never fire (checked when a term is built)."""
    if not rule.mutations:
        return f"rule {rule.id} changes nothing"
    if isinstance(rule.activation, AfterOpen) and rule.activation.minutes < 1:
        return f"rule {rule.id} fires {rule.activation.minutes} minutes after its task opens; it must be at least 1"
    for change in rule.mutations:
        if type(change) not in guards:
            return f"rule {rule.id}: no domain applies a {type(change).__name__}"
    return None

"""The vocabulary of the campus: every fact the log can hold, as frozen msgspec Structs.

Each event carries a stable tag (the ``kind`` field in JSON). The simulated time of an
event is not a field: it is the ``t`` column of the log row, and it is bound into the hash
chain there (see ``events.codec.chain_hash``).
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

SCHEMA_VERSION = 1


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", omit_defaults=False):
    """Base of every event. Subclasses declare a unique ``tag``."""


# ---------------------------------------------------------------- run lifecycle


class RunStarted(Event, tag="run_started"):
    world_hash: str
    term_hash: str
    seed: int
    config: dict[str, Any]
    schema: int = SCHEMA_VERSION


class RunEnded(Event, tag="run_ended"):
    reason: str


# ---------------------------------------------------------------- clock


class DayStarted(Event, tag="day_started"):
    """A new simulated day: the date is announced and the student wakes up at home."""

    day: int
    home: str


class TimeAnnounced(Event, tag="time_announced"):
    label: str


class WorldChanged(Event, tag="world_changed"):
    """A scheduled change to the world (a trigger), applied at its time."""

    change_id: str
    change: dict[str, Any]


# ---------------------------------------------------------------- tasks


class TaskReleased(Event, tag="task_released"):
    """A task begins. ``observation`` is exactly what the agent is shown; never ground truth."""

    task_id: str
    scenario: str
    observation: str
    systems: list[str]
    withheld: bool = False


class InstructionRevealed(Event, tag="instruction_revealed"):
    """The student reached the task's required place, so its instruction is shown now."""

    task_id: str
    text: str


class Answered(Event, tag="answered"):
    task_id: str
    answer: str


class TaskEnded(Event, tag="task_ended"):
    task_id: str
    outcome: str
    reason: str
    turns: int
    detail: str = ""
    marks: dict[str, int] = {}
    """What the metrics need besides the outcome, e.g. ``attended`` (0/1) or ``unused_bookings``."""


# ---------------------------------------------------------------- the agent boundary


class StructuredCall(msgspec.Struct, frozen=True, kw_only=True):
    """A tool call given as a name and JSON arguments (native function calling)."""

    name: str
    arguments: dict[str, Any] = {}
    id: str | None = None


class AgentReplied(Event, tag="agent_replied"):
    """The agent's reply, verbatim: the one non-deterministic input of a run."""

    task_id: str
    text: str | None = None
    call: StructuredCall | None = None


class ActionRejected(Event, tag="action_rejected"):
    task_id: str
    message: str


# ---------------------------------------------------------------- commands


class ToolCalled(Event, tag="tool_called"):
    call_id: str
    task_id: str
    tool: str
    args: dict[str, Any]
    positional: list[Any] = []


class ToolResult(Event, tag="tool_result"):
    call_id: str
    status: str
    message: str
    data: dict[str, Any] | None = None
    minutes: int = 0


# ---------------------------------------------------------------- domain facts: geography


class Walked(Event, tag="walked"):
    path: list[str]
    depart: int
    arrive: int


# ---------------------------------------------------------------- domain facts: calendar


class CalendarEventAdded(Event, tag="calendar_event_added"):
    calendar_id: str
    event_id: str
    title: str
    location: str
    time: str
    description: str = ""


class CalendarEventUpdated(Event, tag="calendar_event_updated"):
    calendar_id: str
    event_id: str
    changes: dict[str, str]


class CalendarEventRemoved(Event, tag="calendar_event_removed"):
    calendar_id: str
    event_id: str


# ---------------------------------------------------------------- domain facts: email


class EmailSent(Event, tag="email_sent"):
    email_id: str
    to: str
    subject: str
    body: str
    cc: str = ""


# ---------------------------------------------------------------- domain facts: reservations


class Booked(Event, tag="booked"):
    """A library room or seat booked; ``task_id`` is the task that made the booking."""

    booking_id: str
    task_id: str
    location_id: str
    room_id: str
    item_name: str
    date: str
    time_slot: str
    seat_id: str = ""


# ---------------------------------------------------------------- domain facts: courses


class DraftAdded(Event, tag="draft_added"):
    section_id: str


class DraftRemoved(Event, tag="draft_removed"):
    section_id: str


class PassAssigned(Event, tag="pass_assigned"):
    section_id: str
    pass_type: str


class Registered(Event, tag="registered"):
    """The draft was submitted: one result per section (``success`` or why it failed)."""

    semester: int
    results: dict[str, str]


AnyEvent = Union[
    RunStarted,
    RunEnded,
    DayStarted,
    TimeAnnounced,
    WorldChanged,
    TaskReleased,
    InstructionRevealed,
    Answered,
    TaskEnded,
    AgentReplied,
    ActionRejected,
    ToolCalled,
    ToolResult,
    Walked,
    CalendarEventAdded,
    CalendarEventUpdated,
    CalendarEventRemoved,
    EmailSent,
    Booked,
    DraftAdded,
    DraftRemoved,
    PassAssigned,
    Registered,
]

EVENT_TYPES: tuple[type[Event], ...] = AnyEvent.__args__  # type: ignore[attr-defined]
KINDS: dict[str, type[Event]] = {cls.__struct_config__.tag: cls for cls in EVENT_TYPES}

"""The vocabulary of the campus: every fact the log can hold, as frozen msgspec Structs.

Each event carries a stable tag (the ``kind`` field in JSON). The simulated time of an
event is not a field: it is the ``t`` column of the log row, and it is bound into the hash
chain there (see ``events.codec.chain_hash``).
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

from campus.events.changes import CalendarTime, WorldChange

SCHEMA_VERSION = 2
"""2: every time in a fact or world change is a number (``CalendarTime``, day indexes, minutes);
schema 1 wrote labels (``events.upcast`` reads them)."""


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", omit_defaults=False):
    """Base of every event. Subclasses declare a unique ``tag``."""


# ---------------------------------------------------------------- run lifecycle


MAX_SEED = 2**63 - 1
"""Seeds run from 0 to the largest integer a SQLite column holds (a run's seed is stored in its branch's row)."""


class RunStarted(Event, tag="run_started", frozen=True):
    world_hash: str
    term_hash: str
    seed: int
    config: dict[str, Any]
    schema: int = SCHEMA_VERSION


class RunEnded(Event, tag="run_ended", frozen=True):
    reason: str


# ---------------------------------------------------------------- clock


class DayStarted(Event, tag="day_started", frozen=True):
    """A new simulated day: the date is announced and the student wakes up at home."""

    day: int
    home: str


class TimeAnnounced(Event, tag="time_announced", frozen=True):
    label: str


class WorldChanged(Event, tag="world_changed", frozen=True, omit_defaults=True):
    """A change to the world: scheduled (``change_id`` names it) or fired by a trigger rule.

    A fired change names its ``rule`` and the seq of the event that caused it (``cause``; 0
    for a rule fired by the clock). Both are left out of the encoding when empty, so a
    scheduled change is the same bytes as in logs written before rules existed."""

    change_id: str
    change: WorldChange
    rule: str = ""
    cause: int = 0


class TriggerSkipped(Event, tag="trigger_skipped", frozen=True):
    """A rule's activation held but a change's ``old`` value did not: nothing was changed."""

    rule: str
    cause: int
    reason: str


# ---------------------------------------------------------------- tasks


class TaskReleased(Event, tag="task_released", frozen=True):
    """A task begins. ``observation`` is exactly what the agent is shown; never ground truth."""

    task_id: str
    scenario: str
    observation: str
    systems: list[str]
    withheld: bool = False


class TaskComposed(Event, tag="task_composed", frozen=True):
    """The task just released was composed from the log before it (a check-in's questions, in its observation).

    ``digest`` names what the questions were drawn from (a probe set, answers and all), which stays out of
    the log; ``verify`` draws it again from the same log and compares."""

    task_id: str
    digest: str


class InstructionRevealed(Event, tag="instruction_revealed", frozen=True):
    """The student reached the task's required place, so its instruction is shown now."""

    task_id: str
    text: str


class InfeasibleReported(Event, tag="infeasible_reported", frozen=True):
    """The agent reported that the task cannot be done, naming what blocks it."""

    task_id: str
    reason: str
    blocked_by: list[str]


class Answered(Event, tag="answered", frozen=True):
    task_id: str
    answer: str


class MentorFeedback(Event, tag="mentor_feedback", frozen=True):
    """What a mentor tells the student about a task just judged (the checkpoints it missed), right before it ends."""

    task_id: str
    text: str


class HintGiven(Event, tag="hint_given", frozen=True):
    """A hint told to the student inside an open task, from outside the term (``campus fork --hint``): a what-if input
    like an injected reply. ``level`` is the rung of the errands' hint ladder (1 a nudge, 2 whom to ask, 3 the
    answer), 0 for free words; ``errands`` the errands it is about (none for free words)."""

    task_id: str
    text: str
    level: int = 0
    errands: tuple[str, ...] = ()


class TaskEnded(Event, tag="task_ended", frozen=True):
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


class AgentReplied(Event, tag="agent_replied", frozen=True):
    """The agent's reply, verbatim: the one non-deterministic input of a run."""

    task_id: str
    text: str | None = None
    call: StructuredCall | None = None


class ActionRejected(Event, tag="action_rejected", frozen=True):
    task_id: str
    message: str


# ---------------------------------------------------------------- commands


class ToolCalled(Event, tag="tool_called", frozen=True):
    call_id: str
    task_id: str
    tool: str
    args: dict[str, Any]
    positional: list[Any] = []


class ToolResult(Event, tag="tool_result", frozen=True):
    call_id: str
    status: str
    message: str
    data: dict[str, Any] | None = None
    minutes: int = 0


# ---------------------------------------------------------------- domain facts: geography


class Walked(Event, tag="walked", frozen=True):
    path: list[str]
    depart: int
    arrive: int


# ---------------------------------------------------------------- domain facts: calendar


class CalendarEventAdded(Event, tag="calendar_event_added", frozen=True):
    calendar_id: str
    event_id: str
    title: str
    location: str
    time: CalendarTime
    description: str = ""


class EventChanges(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The fields of a calendar event that an update changed; None (omitted) keeps the old value."""

    title: str | None = None
    location: str | None = None
    time: CalendarTime | None = None
    description: str | None = None


class CalendarEventUpdated(Event, tag="calendar_event_updated", frozen=True):
    calendar_id: str
    event_id: str
    changes: EventChanges


class CalendarEventRemoved(Event, tag="calendar_event_removed", frozen=True):
    calendar_id: str
    event_id: str


# ---------------------------------------------------------------- domain facts: email


class EmailSent(Event, tag="email_sent", frozen=True):
    email_id: str
    to: str
    subject: str
    body: str
    cc: str = ""


# ---------------------------------------------------------------- domain facts: reservations


class Booked(Event, tag="booked", frozen=True):
    """A library room or seat booked on ``day`` (absolute day index) from ``start`` to ``end``
    (minutes since that day's midnight); ``task_id`` is the task that made the booking."""

    booking_id: str
    task_id: str
    location_id: str
    room_id: str
    item_name: str
    day: int
    start: int
    end: int
    seat_id: str = ""


# ---------------------------------------------------------------- domain facts: people and errands


class ReplyParaphrased(Event, tag="reply_paraphrased", frozen=True):
    """A person's reply (the result of call ``call_id``) in a language model's words (``--paraphrase-model``): the
    student is shown ``text`` instead of the template's, and a replay tells it again without asking the model."""

    task_id: str
    call_id: str
    text: str


class ClueRevealed(Event, tag="clue_revealed", frozen=True):
    """A person told the student a clue (``people.ask``)."""

    clue_id: str
    holder: str
    payload: str


class ErrandHandedOut(Event, tag="errand_handed_out", frozen=True):
    """At the end of a meeting the student waited through, its leader handed out errand ``errand_id``."""

    errand_id: str


class ErrandReported(Event, tag="errand_reported", frozen=True):
    """The student reported an errand done at simulated minute ``at``."""

    errand_id: str
    at: int


# ---------------------------------------------------------------- domain facts: courses


class DraftAdded(Event, tag="draft_added", frozen=True):
    section_id: str


class DraftRemoved(Event, tag="draft_removed", frozen=True):
    section_id: str


class PassAssigned(Event, tag="pass_assigned", frozen=True):
    section_id: str
    pass_type: str


class Registered(Event, tag="registered", frozen=True):
    """The draft was submitted: one result per section (``success`` or why it failed)."""

    semester: int
    results: dict[str, str]


AnyEvent = Union[
    RunStarted,
    RunEnded,
    DayStarted,
    TimeAnnounced,
    WorldChanged,
    TriggerSkipped,
    InfeasibleReported,
    TaskReleased,
    TaskComposed,
    InstructionRevealed,
    Answered,
    MentorFeedback,
    HintGiven,
    TaskEnded,
    AgentReplied,
    ActionRejected,
    ToolCalled,
    ToolResult,
    ReplyParaphrased,
    Walked,
    CalendarEventAdded,
    CalendarEventUpdated,
    CalendarEventRemoved,
    EmailSent,
    Booked,
    ClueRevealed,
    ErrandHandedOut,
    ErrandReported,
    DraftAdded,
    DraftRemoved,
    PassAssigned,
    Registered,
]

EVENT_TYPES: tuple[type[Event], ...] = AnyEvent.__args__  # type: ignore[attr-defined]
KINDS: dict[str, type[Event]] = {str(cls.__struct_config__.tag): cls for cls in EVENT_TYPES}

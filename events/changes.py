"""Scheduled world changes: what a trigger changes, one Struct per kind, tagged by ``type``.

A change is applied by the subsystem that owns its kind, which also says whether it makes
sense (the section, seat or calendar exists, the times are real); the types here only fix
its shape. Every time is a number: a day is an absolute day index (0 = Monday of week 0),
a clock time is minutes since that day's midnight. Labels such as ``Week 3, Monday`` are
rendered only where a person or the agent reads them.
"""

from __future__ import annotations

from typing import Literal, Union

import msgspec


class CalendarTime(msgspec.Struct, frozen=True, kw_only=True):
    """When a calendar event takes place: on ``weekday`` of every week from ``first_week`` to
    ``last_week`` (one week for a single occurrence), from ``start`` to ``end``."""

    first_week: int
    last_week: int
    weekday: int
    """0 = Monday ... 6 = Sunday."""
    start: int
    """Minutes since midnight."""
    end: int


class Span(msgspec.Struct, frozen=True, kw_only=True):
    """A clock range within one day, in minutes since midnight."""

    start: int
    end: int


class Popularity(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="popularity"):
    """A course section's popularity becomes ``value`` (0-99)."""

    code: str
    value: int


class SeatAvailability(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="seat_availability"):
    """On ``day`` exactly ``open_seats`` (full seat ids) of one study area are open."""

    building_id: str
    room_id: str
    day: int
    open_seats: tuple[str, ...]


class AdvisorAvailability(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="advisor_availability"):
    """An advisor's free slots on ``day``, replacing the default office hours."""

    advisor_id: str
    day: int
    slots: tuple[Span, ...]


class CalendarEntry(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="calendar_event", omit_defaults=True):
    """An event written into a calendar by the world, e.g. an advisor's busy time."""

    calendar_id: str
    title: str
    location: str
    time: CalendarTime
    description: str = ""


# Compare-and-set changes, made by trigger rules (``kernel/triggers.py``): each names one entity,
# the value ``old`` it must have in the projection for the change to apply, and the ``new`` one.


class RoomStatus(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="room_status"):
    """A library room is open or closed on ``day`` (a closed room lists nothing and takes no booking)."""

    building_id: str
    room_id: str
    day: int
    old: Literal["open", "closed"]
    new: Literal["open", "closed"]


class RoomHours(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="room_hours"):
    """A library room's bookable hours on ``day`` change from ``old`` to ``new`` (minutes since midnight)."""

    building_id: str
    room_id: str
    day: int
    old: Span
    new: Span


class SeatFeatures(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="seat_features"):
    """A seat's features change (e.g. its projector is removed)."""

    building_id: str
    room_id: str
    seat_id: str
    old: tuple[str, ...]
    new: tuple[str, ...]


class FeatureLost(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="feature_lost"):
    """Seats of a library, each with ``feature``, lose it together (``old`` True, ``new`` False), or have it again (the
    reverse). A disruption that leaves one way out takes the feature from every other fitting seat of its library at
    once: a ``SeatFeatures`` per seat made the default term's log 87 % longer."""

    building_id: str
    feature: str
    seats: tuple[str, ...]
    old: bool
    new: bool


WalkwayState = Literal["open", "congested", "closed"]


class WalkwayStatus(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="walkway_status"):
    """The walkway between two adjacent buildings becomes congested (slower) or closed, or opens again."""

    a: str
    b: str
    old: WalkwayState
    new: WalkwayState


ClueCondition = Literal["always", "in_person"]
"""When a holder tells a clue: to anyone who asks, or only to a student standing in the holder's building."""


class ClueHeld(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="clue_held", gc=False):
    """A person comes to know something a student may ask about (``subsystems/people.py``).

    ``keywords``: a question matches when it contains one of them as a word (case ignored);
    ``payload``: what the holder tells."""

    clue_id: str
    holder: str
    topic: str
    keywords: tuple[str, ...]
    condition: ClueCondition
    payload: str


Priority = Literal["high", "normal", "low"]


class ErrandPosted(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="errand_posted"):
    """An errand of a busy day reaches the student's list (and, inside a task, is announced to it)."""

    errand_id: str
    title: str
    text: str
    deadline: int
    """Absolute minute by which it should be reported done."""
    priority: Priority


class ErrandHeld(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="errand_held"):
    """An errand a person hands the student when telling clue ``clue_id``: the student learns of it only by asking."""

    clue_id: str
    errand: ErrandPosted


class ErrandAtMeeting(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="errand_at_meeting", gc=False):
    """An errand handed out at the end of a meeting (``title`` in ``building``, minutes ``start``-``end``) to a student
    who is there when it ends: one who skips the meeting never learns of it."""

    title: str
    building: str
    start: int
    end: int
    errand: ErrandPosted


class Announcement(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="announcement"):
    """Something the student is told at this moment (an appointment about to begin); it changes no state."""

    text: str


WorldChange = Union[Popularity, SeatAvailability, AdvisorAvailability, CalendarEntry, RoomStatus, RoomHours, SeatFeatures,
                    FeatureLost, WalkwayStatus, ClueHeld, ErrandPosted, ErrandHeld, ErrandAtMeeting, Announcement]
CompareAndSet = Union[RoomStatus, RoomHours, SeatFeatures, FeatureLost, WalkwayStatus]
"""The changes a trigger rule may make: every one carries the ``old`` value it replaces."""


def walkway_key(a: str, b: str) -> str:
    """One key per walkway, whichever end is named first."""
    return "~".join(sorted((a, b)))


"""The calendar: the student's own calendar, clubs' shared calendars and advisors' free/busy times.

State: ``calendars`` maps a calendar id to its entries (event id -> ``Entry``),
``next_event`` numbers new events (``evt_1``, ``evt_2``, ... across all calendars), and
``availability`` holds advisor free slots that the world set explicitly, keyed
``"<advisor id>|<absolute day>"``.

Calendar ids and what the agent may do with them:

- ``self``: the student's own calendar: add, update, remove, view.
- ``club_<id>`` (the id is letters and digits; stored lower-case): a club's shared
  calendar: add and view only. Shared calendars are append-only.
- ``advisor_<id>``: an advisor's busy times. They enter the world through
  ``WorldChanged`` (a ``CalendarEntry`` change); the agent sees them only as free/busy
  through ``calendar.query_advisor_availability``.
- anything else is not a calendar.

A calendar exists once something was added to it; a valid id nobody wrote to has no events.

Times are written ``Week 3, Monday, 15:00-16:00`` (one occurrence) or
``Week 1-18, Monday, 14:00-16:50`` (every week in the range); ``Week 1 to 18``, day
abbreviations, any letter case and missing commas are accepted. Facts and state hold the
time as numbers (``CalendarTime``); the canonical label is rendered for the agent's
messages (``time_label``). An event occurs on a date when the date's weekday is the event's day and
the date's week is within the event's weeks.

Advisor availability on a date is the world's explicit list for that (advisor, date) if
one was set, otherwise the default office-hour slots minus every slot that overlaps an
event of the advisor's calendar on that date.
"""

from __future__ import annotations

import functools

import re
from functools import lru_cache
from typing import Any

import msgspec

from campus.events import (
    AdvisorAvailability,
    CalendarEntry,
    CalendarEventAdded,
    CalendarEventRemoved,
    CalendarEventUpdated,
    CalendarTime,
    EventChanges,
    Span,
    WorldChanged,
)
from campus.kernel.clock import MINUTES_PER_DAY
from campus.kernel.clock import TimeFormatError, clock_label, date_label, day_index, span_label, time_label
from campus.kernel.projection import Domain
from campus.kernel.tools import Outcome, Param, Refuse, ToolDecl, ok

MAX_TITLE = 200
MAX_LOCATION = 200
MAX_DESCRIPTION = 5000
MAX_ID = 40

DEFAULT_SLOTS: tuple[str, ...] = (
    "09:00-10:00",
    "10:00-11:00",
    "11:00-12:00",
    "13:00-14:00",
    "14:00-15:00",
    "15:00-16:00",
    "16:00-17:00",
)
"""An advisor's office hours when the world says nothing else about a date."""

DETAIL_KEYS: tuple[str, ...] = ("event_title", "location", "time", "description")
"""The keys ``calendar.update_event`` accepts in ``new_details``, in the order they are applied."""

_FACT_KEYS = {"event_title": "title", "location": "location", "time": "time", "description": "description"}
"""``new_details`` key -> field of ``EventChanges``."""

TIME_FORMAT = (
    "Write it as 'Week X, Day, HH:MM-HH:MM' (e.g. 'Week 3, Monday, 15:00-16:00'), "
    "or with a week range for a weekly event (e.g. 'Week 1-18, Monday, 14:00-16:50')."
)
DATE_FORMAT = "Write the date as 'Week X, Day', e.g. 'Week 3, Monday'."

# Every whitespace run below is owned by exactly one quantifier and every quantified item
# is followed by something it cannot match, so a failing match backtracks in linear time.
_SEP = r"\s*(?:,\s*)?"
_CLOCK = r"(\d{1,2}):(\d{2})"
_TIME = re.compile(
    r"\s*week\s*(\d{1,3})(?:\s*(?:-|to)\s*(\d{1,3}))?" + _SEP + r"([a-z]+)" + _SEP + _CLOCK + r"\s*-\s*" + _CLOCK + r"\s*",
    re.IGNORECASE | re.ASCII,
)
_DATE = re.compile(r"\s*week\s*(\d{1,3})" + _SEP + r"([a-z]+)\s*", re.IGNORECASE | re.ASCII)
_SLOT = re.compile(r"\s*" + _CLOCK + r"\s*-\s*" + _CLOCK + r"\s*", re.ASCII)
_CLUB = re.compile(r"club_([a-z0-9]{1,40})", re.IGNORECASE | re.ASCII)
_ADVISOR = re.compile(r"advisor_(\w{1,40})", re.IGNORECASE | re.ASCII)
_ADVISOR_ID = re.compile(r"\w{1,40}", re.ASCII)
_EVENT_ID = re.compile(r"evt_(\d{1,9})", re.IGNORECASE | re.ASCII)


# ------------------------------------------------------------------ state


class Entry(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One calendar event (never tracked by the cyclic GC: it holds only text, numbers and a frozen time, so it
    can be in no reference cycle, and a decoded state holds hundreds). Frozen: an update replaces it, so states
    restored from snapshots may share it (``kernel/snapshots.py``)."""

    event_id: str
    title: str
    location: str
    when: CalendarTime
    description: str = ""


class CalendarState(msgspec.Struct, kw_only=True):
    calendars: dict[str, dict[str, Entry]] = {}
    next_event: int = 1
    availability: dict[str, list[Span]] = {}


def time_problem(when: CalendarTime) -> str | None:
    """Why a time in a fact or world change is not one a handler could have written, or None."""
    if not 0 <= when.weekday <= 6:
        return f"weekday {when.weekday} is not 0 (Monday) ... 6 (Sunday)"
    if not 0 <= when.first_week <= when.last_week:
        return f"weeks {when.first_week}-{when.last_week} are not a range of weeks"
    if not 0 <= when.start < when.end <= MINUTES_PER_DAY:
        return f"minutes {when.start}-{when.end} are not a clock range within one day"
    return None


# ------------------------------------------------------------------ parsing


_PARSED = 4096
"""How many distinct texts each parser remembers. Parsing is a pure function of the text and
its results are immutable, so the same class time or date an agent writes again costs a
dict lookup instead of a regular expression. (Only handlers parse: facts hold numbers.)"""


@lru_cache(maxsize=_PARSED)
def parse_time(text: str) -> CalendarTime | str:
    """Parse an event time such as ``Week 1-18, Mon, 14:00-16:50``; a str result is the error."""
    shown = _show(text)
    match = _TIME.fullmatch(text)
    if match is None:
        return f"Cannot read the time '{shown}'. {TIME_FORMAT}"
    first, last, day_name, h1, m1, h2, m2 = match.groups()
    first_week = int(first)
    last_week = int(last) if last is not None else first_week
    day = _day(day_name)
    if day is None:
        return f"'{day_name}' in the time '{shown}' is not a day of the week (Monday ... Sunday). {TIME_FORMAT}"
    start, end = _minutes(h1, m1), _minutes(h2, m2)
    if start is None or end is None:
        return f"The time '{shown}' has a clock time outside 00:00-23:59. {TIME_FORMAT}"
    if end <= start:
        return f"The time '{shown}' ends at {_clock(end)}, which is not after its start {_clock(start)}. {TIME_FORMAT}"
    if last_week < first_week:
        return f"The time '{shown}' has the week range {first_week}-{last_week}, which ends before it starts. {TIME_FORMAT}"
    return CalendarTime(first_week=first_week, last_week=last_week, weekday=day, start=start, end=end)


@lru_cache(maxsize=_PARSED)
def parse_day(text: str) -> int | str:
    """Parse a date such as ``Week 3, Monday`` to an absolute day index; a str result is the error."""
    match = _DATE.fullmatch(text)
    if match is None:
        return f"Cannot read the date '{_show(text)}'. {DATE_FORMAT}"
    week, day_name = match.groups()
    day = _day(day_name)
    if day is None:
        return f"'{day_name}' is not a day of the week (Monday ... Sunday). {DATE_FORMAT}"
    return int(week) * 7 + day


def read_time(text: str) -> CalendarTime:
    """``parse_time`` for a handler: a time it cannot read refuses the call."""
    when = parse_time(text)
    if isinstance(when, str):
        raise Refuse(when)
    return when


def read_day(text: str) -> int:
    """``parse_day`` for a handler: a date it cannot read refuses the call."""
    day = parse_day(text)
    if isinstance(day, str):
        raise Refuse(day)
    return day


@lru_cache(maxsize=_PARSED)
def parse_slot(text: str) -> tuple[int, int] | None:
    """Parse ``HH:MM-HH:MM`` to (start, end) minutes of the day, or None."""
    match = _SLOT.fullmatch(text)
    if match is None:
        return None
    start, end = _minutes(match.group(1), match.group(2)), _minutes(match.group(3), match.group(4))
    if start is None or end is None or end <= start:
        return None
    return start, end


def classify_calendar(calendar_id: str) -> tuple[str, str]:
    """``(kind, canonical id)`` with kind one of self, club, advisor, unknown."""
    cid = calendar_id.strip()
    if cid.lower() == "self":
        return "self", "self"
    club = _CLUB.fullmatch(cid)
    if club is not None:
        return "club", "club_" + club.group(1).lower()
    advisor = _ADVISOR.fullmatch(cid)
    if advisor is not None:
        return "advisor", "advisor_" + advisor.group(1)
    return "unknown", cid


def occurs_on(entry: Entry, day: int) -> bool:
    """Whether the entry takes place on the absolute day ``day`` (``view_schedule`` inlines it)."""
    when = entry.when
    return when.weekday == day % 7 and when.first_week <= day // 7 <= when.last_week


def _day(name: str) -> int | None:
    try:
        return day_index(name)
    except TimeFormatError:
        return None


def _minutes(hours: str, minutes: str) -> int | None:
    h, m = int(hours), int(minutes)
    if h > 23 or m > 59:
        return None
    return h * 60 + m


def _clock(minute: int) -> str:
    """``HH:MM`` of a minute of the day; the end of the day is ``24:00``."""
    return clock_label(minute) if 0 <= minute < MINUTES_PER_DAY else f"{minute // 60:02d}:{minute % 60:02d}"


def _show(text: str, limit: int = 60) -> str:
    """The agent's text, shortened and on one line, for quoting in a message."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _single_line(text: str) -> bool:
    return _CONTROL.search(text) is None


@functools.lru_cache(maxsize=8192)
def _event_number(event_id: str) -> int:
    match = _EVENT_ID.fullmatch(event_id)
    return int(match.group(1)) if match else 10**12


# ------------------------------------------------------------------ permissions

_CLUB_VERBS = {"update": "updated", "remove": "removed"}
_ADVISOR_VERBS = {"add": "add events to", "update": "change events in", "remove": "remove events from", "view": "view"}


def _permit(action: str, calendar_id: str) -> str:
    """The canonical calendar id, if ``action`` is allowed on it."""
    kind, cid = classify_calendar(calendar_id)
    if kind == "self":
        return cid
    if kind == "club":
        if action in ("add", "view"):
            return cid
        raise Refuse(
            f"Club calendars are append-only: events in '{cid}' cannot be {_CLUB_VERBS[action]}. "
            "You can add a new event to it with calendar.add_event, or change events in your own calendar 'self'."
        )
    if kind == "advisor":
        advisor = cid[len("advisor_"):]
        raise Refuse(
            f"'{cid}' is an advisor's calendar; you cannot {_ADVISOR_VERBS[action]} it. To see when the advisor "
            f"is free, use calendar.query_advisor_availability(advisor_id=\"{advisor}\", date=\"Week X, Day\")."
        )
    raise Refuse(
        f"Unknown calendar '{_show(calendar_id)}'. Use 'self' for your own calendar or 'club_<club id>' for a "
        "club's shared calendar."
    )


# ------------------------------------------------------------------ field checks


def _check_title(value: str) -> None:
    _check_line("event_title", value, MAX_TITLE)


def _check_location(value: str) -> None:
    _check_line("location", value, MAX_LOCATION)


def _check_line(name: str, value: str, limit: int) -> None:
    if not value:
        raise Refuse(f"'{name}' is empty; give a short text.")
    if len(value) > limit:
        raise Refuse(f"'{name}' is too long ({len(value)} characters; at most {limit}). Shorten it.")
    if not _single_line(value):
        raise Refuse(f"'{name}' must be a single line of text without line breaks or tabs.")


def _check_description(value: str) -> None:
    if len(value) > MAX_DESCRIPTION:
        raise Refuse(f"'description' is too long ({len(value)} characters; at most {MAX_DESCRIPTION}). Shorten it.")


def _summary(entry: Entry) -> str:
    place = f" at {entry.location}" if entry.location else ""
    return f"{time_label(entry.when)}{place}"


# ------------------------------------------------------------------ handlers


def add_event(view: Any, args: dict[str, Any]) -> Outcome:
    cid = _permit("add", args["calendar_id"])
    title = args["event_title"].strip()
    location = args["location"].strip()
    description = args.get("description", "").strip()
    _check_title(title)
    _check_location(location)
    _check_description(description)
    when = read_time(args["time"])
    part: CalendarState = view.state.calendar
    event_id = f"evt_{part.next_event}"
    fact = CalendarEventAdded(
        calendar_id=cid, event_id=event_id, title=title, location=location, time=when, description=description
    )
    message = f"Added '{title}' to calendar '{cid}' as event {event_id} ({time_label(when)} at {location})."
    return ok(message, [fact], {"event_id": event_id, "calendar_id": cid})


def remove_event(view: Any, args: dict[str, Any]) -> Outcome:
    cid = _permit("remove", args["calendar_id"])
    entry = _find(view.state.calendar, cid, args["event_id"])
    fact = CalendarEventRemoved(calendar_id=cid, event_id=entry.event_id)
    message = f"Removed event {entry.event_id} ('{entry.title}', {_summary(entry)}) from calendar '{cid}'."
    return ok(message, [fact], {"event_id": entry.event_id, "calendar_id": cid})


def update_event(view: Any, args: dict[str, Any]) -> Outcome:
    cid = _permit("update", args["calendar_id"])
    entry = _find(view.state.calendar, cid, args["event_id"])
    changes = _validate_details(args["new_details"])
    fact = CalendarEventUpdated(calendar_id=cid, event_id=entry.event_id, changes=changes)
    after = _changed(entry, changes)
    changed = [key for key in DETAIL_KEYS if getattr(changes, _FACT_KEYS[key]) is not None]
    message = (
        f"Updated event {entry.event_id} in calendar '{cid}' (changed: {', '.join(changed)}). "
        f"It is now '{after.title}', {_summary(after)}."
    )
    return ok(message, [fact], {"event_id": entry.event_id, "calendar_id": cid, "changed": changed})


def view_schedule(view: Any, args: dict[str, Any]) -> Outcome:
    cid = _permit("view", args["calendar_id"])
    day = read_day(args["date"])
    label = date_label(day)
    part: CalendarState = view.state.calendar
    week, weekday = divmod(day, 7)
    on_day = [
        e for e in part.calendars.get(cid, {}).values()
        if e.when.weekday == weekday and e.when.first_week <= week <= e.when.last_week
    ]
    entries = sorted(on_day, key=lambda e: (e.when.start, _event_number(e.event_id), e.event_id))
    if not entries:
        return ok(f"No events on {label} in calendar '{cid}'.", data={"events": []})
    lines = [f"Found {len(entries)} event(s) on {label} in calendar '{cid}':"]
    events = []
    for e in entries:
        place = f" at {e.location}" if e.location else ""
        when = time_label(e.when)
        lines.append(f"- [{e.event_id}] {_clock(e.when.start)}-{_clock(e.when.end)} {e.title}{place} ({when})")
        if e.description:
            lines.append("  Description: " + e.description.replace("\n", "\n    "))
        events.append({"event_id": e.event_id, "title": e.title, "location": e.location, "time": when, "description": e.description})
    return ok("\n".join(lines), data={"events": events})


def query_advisor_availability(view: Any, args: dict[str, Any]) -> Outcome:
    advisor = args["advisor_id"].strip()
    if _ADVISOR_ID.fullmatch(advisor) is None:
        raise Refuse(
            f"'{_show(advisor)}' is not an advisor id. Advisor ids are letters, digits and underscores "
            "(at most 40), e.g. 'T0001'."
        )
    day = read_day(args["date"])
    label = date_label(day)
    slots = free_slots(view.state.calendar, advisor, day)
    data = {"advisor_id": advisor, "date": label, "free_slots": slots}
    if not slots:
        return ok(f"Advisor {advisor} has no free slots on {label}. Try another date.", data=data)
    return ok(f"Advisor {advisor} is free on {label} at: {', '.join(slots)}.", data=data)


def free_slots(part: CalendarState, advisor_id: str, day: int) -> list[str]:
    """The advisor's free slots on an absolute day (see the module docstring)."""
    override = part.availability.get(_availability_key(advisor_id, day))
    if override is not None:
        return [span_label(span) for span in override]
    busy = [(e.when.start, e.when.end) for e in part.calendars.get(f"advisor_{advisor_id}", {}).values() if occurs_on(e, day)]
    return [
        slot
        for slot, (start, end) in zip(DEFAULT_SLOTS, _DEFAULT_BOUNDS)
        if not any(b_start < end and start < b_end for b_start, b_end in busy)
    ]


_DEFAULT_BOUNDS: tuple[tuple[int, int], ...] = tuple(
    (int(s[0:2]) * 60 + int(s[3:5]), int(s[6:8]) * 60 + int(s[9:11])) for s in DEFAULT_SLOTS
)


def _availability_key(advisor_id: str, day: int) -> str:
    return f"{advisor_id}|{day}"


def _find(part: CalendarState, cid: str, event_id: str) -> Entry:
    key = event_id.strip().lower()
    entry = part.calendars.get(cid, {}).get(key)
    if entry is not None:
        return entry
    raise Refuse(
        f"There is no event '{_show(event_id)}' in calendar '{cid}'. Event ids look like 'evt_3'; "
        f"use calendar.view_schedule(calendar_id=\"{cid}\", date=\"Week X, Day\") to find the ids of a day's events."
    )


def _validate_details(details: dict[str, Any]) -> EventChanges:
    valid = ", ".join(DETAIL_KEYS)
    if not details:
        raise Refuse(f"'new_details' is empty. Give at least one of: {valid}, e.g. {{\"location\": \"Library Room 305\"}}.")
    unknown = sorted(str(k) for k in details if k not in DETAIL_KEYS)
    if unknown:
        raise Refuse(f"'new_details' has unknown key(s) {', '.join(repr(_show(k, 30)) for k in unknown)}. Valid keys are: {valid}.")
    changes: dict[str, Any] = {}
    for key in DETAIL_KEYS:
        if key not in details:
            continue
        value = details[key]
        if not isinstance(value, str):
            raise Refuse(f"new_details['{key}'] must be a string.")
        if key == "time":
            changes["time"] = read_time(value)
            continue
        value = value.strip()
        check = {"event_title": _check_title, "location": _check_location, "description": _check_description}[key]
        check(value)
        changes[_FACT_KEYS[key]] = value
    return EventChanges(**changes)


# ------------------------------------------------------------------ reducers


def _changed(entry: Entry, changes: EventChanges) -> Entry:
    """The entry with the changed fields replaced (a time that is no real time is skipped: a log must fold)."""
    fields = {name: value for name in ("title", "location", "description") if (value := getattr(changes, name)) is not None}
    if changes.time is not None and time_problem(changes.time) is None:
        fields["when"] = changes.time
    return msgspec.structs.replace(entry, **fields)


def _insert(part: CalendarState, calendar_id: str, entry: Entry) -> None:
    part.calendars.setdefault(calendar_id, {})[entry.event_id] = entry
    number = _EVENT_ID.fullmatch(entry.event_id)
    part.next_event = max(part.next_event + 1, int(number.group(1)) + 1) if number else part.next_event + 1


def _added(part: CalendarState, event: CalendarEventAdded) -> None:
    if time_problem(event.time) is not None:  # never written by the handler; a log must still fold
        return
    entry = Entry(event_id=event.event_id, title=event.title, location=event.location, when=event.time, description=event.description)
    _insert(part, event.calendar_id, entry)


def _updated(part: CalendarState, event: CalendarEventUpdated) -> None:
    calendar = part.calendars.get(event.calendar_id, {})
    entry = calendar.get(event.event_id)
    if entry is not None:
        calendar[event.event_id] = _changed(entry, event.changes)


def _removed(part: CalendarState, event: CalendarEventRemoved) -> None:
    calendar = part.calendars.get(event.calendar_id)
    if calendar is not None:
        calendar.pop(event.event_id, None)


def _world_changed(part: CalendarState, event: WorldChanged) -> None:
    match event.change:
        case AdvisorAvailability() as change:
            parsed = _read_availability(change)
            if not isinstance(parsed, str):
                key, slots = parsed
                part.availability[key] = slots
        case CalendarEntry() as change:
            read = _read_calendar_entry(change)
            if not isinstance(read, str):
                cid, title, location, when, description = read
                entry = Entry(event_id=f"evt_{part.next_event}", title=title, location=location, when=when, description=description)
                _insert(part, cid, entry)


def advisor_availability_problem(change: AdvisorAvailability, world: object = None) -> str | None:
    """Why an advisor availability change would be ignored, or None.

    Scenario loaders call this to reject a bad trigger before a run starts; the reducer
    itself skips such a change, because a log must always fold.
    """
    parsed = _read_availability(change)
    return parsed if isinstance(parsed, str) else None


def calendar_entry_problem(change: CalendarEntry, world: object = None) -> str | None:
    """Why a calendar entry change would be ignored, or None (see ``advisor_availability_problem``)."""
    read = _read_calendar_entry(change)
    return read if isinstance(read, str) else None


def _read_availability(change: AdvisorAvailability) -> tuple[str, list[Span]] | str:
    if _ADVISOR_ID.fullmatch(change.advisor_id) is None:
        return "advisor_availability needs 'advisor_id' (letters, digits, underscores)"
    if change.day < 0:
        return f"advisor_availability day {change.day} is before the term"
    for slot in change.slots:
        if not 0 <= slot.start < slot.end <= MINUTES_PER_DAY:
            return f"advisor_availability slot {slot.start}-{slot.end} is not a range of minutes within one day"
    spans = sorted(set(change.slots), key=lambda span: (span.start, span.end))
    return _availability_key(change.advisor_id, change.day), spans


def _read_calendar_entry(change: CalendarEntry) -> tuple[str, str, str, CalendarTime, str] | str:
    kind, cid = classify_calendar(change.calendar_id)
    if kind == "unknown" or not change.title.strip():
        return "calendar_event needs a known calendar id (self, club_<id>, advisor_<id>) and a non-empty title"
    problem = time_problem(change.time)
    if problem is not None:
        return f"calendar_event time: {problem}"
    return cid, change.title.strip(), change.location.strip(), change.time, change.description.strip()


# ------------------------------------------------------------------ declarations

_CALENDAR_ID = Param(
    name="calendar_id",
    type="string",
    description=(
        "Which calendar: 'self' for your own calendar, or 'club_<club id>' (e.g. 'club_c027') for a club's "
        "shared calendar."
    ),
    max_length=100,
)
_OWN_CALENDAR_ID = Param(
    name="calendar_id",
    type="string",
    description="The calendar holding the event; only your own calendar 'self' can be changed (club calendars are append-only).",
    max_length=100,
)
_EVENT_ID_PARAM = Param(
    name="event_id",
    type="string",
    description="The event's id as shown when it was added or by calendar.view_schedule, e.g. 'evt_3'.",
    max_length=MAX_ID,
)
_DATE_PARAM = Param(
    name="date",
    type="string",
    description="The day to look at, written 'Week X, Day', e.g. 'Week 3, Monday'.",
    max_length=100,
)
_TIME_DESCRIPTION = (
    "When the event takes place: 'Week X, Day, HH:MM-HH:MM' for a single occurrence (e.g. 'Week 3, Monday, "
    "15:00-16:00'), or a week range for an event that repeats weekly (e.g. 'Week 1-18, Monday, 14:00-16:50'). "
    "24-hour clock; the end must be after the start on the same day."
)

ADD_EVENT = ToolDecl(
    name="calendar.add_event",
    system="calendar",
    description=(
        "Add an event to your own calendar ('self') or to a club's shared calendar ('club_<club id>'). "
        "The result gives the new event's id (e.g. 'evt_3'), which calendar.update_event and "
        "calendar.remove_event need. Events added to a club calendar cannot be changed or removed later."
    ),
    params=(
        _CALENDAR_ID,
        Param(name="event_title", type="string", description="A short title for the event, one line, at most 200 characters.", max_length=MAX_TITLE),
        Param(name="location", type="string", description="Where the event takes place (a building or room name), one line, at most 200 characters.", max_length=MAX_LOCATION),
        Param(name="time", type="string", description=_TIME_DESCRIPTION, max_length=100),
        Param(name="description", type="string", description="Notes about the event, at most 5000 characters.", required=False, max_length=MAX_DESCRIPTION),
    ),
    handler=add_event,
    mutates=True,
    example='calendar.add_event(calendar_id="self", event_title="Team Meeting", location="Library Room 201", time="Week 3, Monday, 15:00-16:00")',
)

REMOVE_EVENT = ToolDecl(
    name="calendar.remove_event",
    system="calendar",
    description="Delete an event from your own calendar ('self'), given its event id.",
    params=(_OWN_CALENDAR_ID, _EVENT_ID_PARAM),
    handler=remove_event,
    mutates=True,
    example='calendar.remove_event(calendar_id="self", event_id="evt_3")',
)

UPDATE_EVENT = ToolDecl(
    name="calendar.update_event",
    system="calendar",
    description=(
        "Change an event in your own calendar ('self'), given its event id. Only the fields named in "
        "new_details change; the others keep their values."
    ),
    params=(
        _OWN_CALENDAR_ID,
        _EVENT_ID_PARAM,
        Param(
            name="new_details",
            type="object",
            description=(
                "The fields to change, as an object with one or more of the keys 'event_title', 'location', 'time' "
                "and 'description', each with a text value; 'time' uses the same format as in calendar.add_event."
            ),
        ),
    ),
    handler=update_event,
    mutates=True,
    example=(
        'calendar.update_event(calendar_id="self", event_id="evt_3", '
        'new_details={"location": "Library Room 305", "time": "Week 3, Monday, 16:00-17:00"})'
    ),
)

VIEW_SCHEDULE = ToolDecl(
    name="calendar.view_schedule",
    system="calendar",
    description=(
        "List every event that takes place on one date in your own calendar ('self') or a club's shared "
        "calendar ('club_<club id>'), ordered by start time, with each event's id. Weekly events appear on "
        "every date in their week range."
    ),
    params=(_CALENDAR_ID, _DATE_PARAM),
    handler=view_schedule,
    example='calendar.view_schedule(calendar_id="self", date="Week 3, Monday")',
)

QUERY_ADVISOR_AVAILABILITY = ToolDecl(
    name="calendar.query_advisor_availability",
    system="calendar",
    description=(
        "List the time slots (HH:MM-HH:MM) in which an advisor is free on a date, e.g. to pick a meeting time. "
        "Advisors' calendars cannot be viewed or changed; this is the only way to see when they are busy."
    ),
    params=(
        Param(name="advisor_id", type="string", description="The advisor's id, e.g. 'T0001' (letters, digits and underscores).", max_length=MAX_ID),
        _DATE_PARAM,
    ),
    handler=query_advisor_availability,
    example='calendar.query_advisor_availability(advisor_id="T0001", date="Week 3, Monday")',
)

MAX_WAIT = 240
"""The longest a single ``calendar.wait`` lets pass (minutes)."""


def wait(view: Any, args: dict[str, Any]) -> Outcome:
    """Let simulated time pass where the student is: the one way to spend time without doing anything."""
    minutes = args["minutes"]
    if not isinstance(minutes, int) or isinstance(minutes, bool) or not 1 <= minutes <= MAX_WAIT:
        raise Refuse(f"minutes must be between 1 and {MAX_WAIT}, got {minutes}.")
    return ok(f"You waited {minutes} min.", data={"minutes": minutes}, minutes=minutes)


WAIT = ToolDecl(
    name="calendar.wait",
    system="calendar",
    description=f"Do nothing for a while where you are: the given minutes (1-{MAX_WAIT}) pass.",
    params=(Param(name="minutes", type="integer", description="How many minutes to let pass."),),
    handler=wait,
    example="calendar.wait(minutes=15)",
)

CALENDAR_TOOLS: tuple[ToolDecl, ...] = (ADD_EVENT, REMOVE_EVENT, UPDATE_EVENT, VIEW_SCHEDULE, QUERY_ADVISOR_AVAILABILITY, WAIT)


def _new_calendar(world: Any) -> CalendarState:
    return CalendarState()


CALENDAR = Domain(
    name="calendar",
    state_type=CalendarState,
    initial=_new_calendar,
    reducers={
        CalendarEventAdded: _added,
        CalendarEventUpdated: _updated,
        CalendarEventRemoved: _removed,
        WorldChanged: _world_changed,
    },
    tools=CALENDAR_TOOLS,
    changes={AdvisorAvailability: advisor_availability_problem, CalendarEntry: calendar_entry_problem},
)

"""The calendar: the student's own calendar, clubs' shared calendars and advisors' free/busy times.

State: ``calendars`` maps a calendar id to its entries (event id -> ``Entry``),
``next_event`` numbers new events (``evt_1``, ``evt_2``, ... across all calendars), and
``availability`` holds advisor free slots that the world set explicitly, keyed
``"<advisor id>|<date label>"``.

Calendar ids and what the agent may do with them:

- ``self``: the student's own calendar: add, update, remove, view.
- ``club_<id>`` (the id is letters and digits; stored lower-case): a club's shared
  calendar: add and view only. Shared calendars are append-only.
- ``advisor_<id>``: an advisor's busy times. They enter the world through
  ``WorldChanged`` (``type == "calendar_event"``); the agent sees them only as free/busy
  through ``calendar.query_advisor_availability``.
- anything else is not a calendar.

A calendar exists once something was added to it; a valid id nobody wrote to has no events.

Times are written ``Week 3, Monday, 15:00-16:00`` (one occurrence) or
``Week 1-18, Monday, 14:00-16:50`` (every week in the range); ``Week 1 to 18``, day
abbreviations, any letter case and missing commas are accepted, and the canonical form is
what is stored. An event occurs on a date when the date's weekday is the event's day and
the date's week is within the event's weeks.

Advisor availability on a date is the world's explicit list for that (advisor, date) if
one was set, otherwise the default office-hour slots minus every slot that overlaps an
event of the advisor's calendar on that date.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import msgspec

from events import CalendarEventAdded, CalendarEventRemoved, CalendarEventUpdated, WorldChanged
from kernel.clock import DAYS, TimeFormatError, date_label, day_index
from kernel.projection import Domain
from kernel.tools import Outcome, Param, ToolDecl, fail, ok

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
"""``new_details`` key -> key in ``CalendarEventUpdated.changes`` (the ``Entry`` field name)."""

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


class Entry(msgspec.Struct, kw_only=True):
    """One calendar event. ``time`` is canonical; the other time fields are parsed from it."""

    event_id: str
    title: str
    location: str
    time: str
    description: str = ""
    first_week: int
    last_week: int
    day: int
    """0 = Monday ... 6 = Sunday."""
    start: int
    """Minutes since midnight."""
    end: int


class CalendarState(msgspec.Struct, kw_only=True):
    calendars: dict[str, dict[str, Entry]] = {}
    next_event: int = 1
    availability: dict[str, list[str]] = {}


class When(msgspec.Struct, frozen=True, kw_only=True):
    """A parsed event time: a day of the week, a clock range, and the weeks it recurs in."""

    first_week: int
    last_week: int
    day: int
    start: int
    end: int

    def label(self) -> str:
        weeks = f"{self.first_week}" if self.first_week == self.last_week else f"{self.first_week}-{self.last_week}"
        return f"Week {weeks}, {DAYS[self.day]}, {_clock(self.start)}-{_clock(self.end)}"


# ------------------------------------------------------------------ parsing


_PARSED = 4096
"""How many distinct texts each parser remembers. Parsing is a pure function of the text and
its results are immutable, so the same class time or date read again (in a handler, a
reducer or a fold) costs a dict lookup instead of a regular expression."""


@lru_cache(maxsize=_PARSED)
def parse_time(text: str) -> When | str:
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
    return When(first_week=first_week, last_week=last_week, day=day, start=start, end=end)


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
    return entry.day == day % 7 and entry.first_week <= day // 7 <= entry.last_week


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
    return f"{minute // 60:02d}:{minute % 60:02d}"


def _show(text: str, limit: int = 60) -> str:
    """The agent's text, shortened and on one line, for quoting in a message."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _single_line(text: str) -> bool:
    return _CONTROL.search(text) is None


def _event_number(event_id: str) -> int:
    match = _EVENT_ID.fullmatch(event_id)
    return int(match.group(1)) if match else 10**12


# ------------------------------------------------------------------ permissions

_CLUB_VERBS = {"update": "updated", "remove": "removed"}
_ADVISOR_VERBS = {"add": "add events to", "update": "change events in", "remove": "remove events from", "view": "view"}


def _permit(action: str, calendar_id: str) -> tuple[str, str | None]:
    """The canonical calendar id, and an error message if ``action`` is not allowed on it."""
    kind, cid = classify_calendar(calendar_id)
    if kind == "self":
        return cid, None
    if kind == "club":
        if action in ("add", "view"):
            return cid, None
        return cid, (
            f"Club calendars are append-only: events in '{cid}' cannot be {_CLUB_VERBS[action]}. "
            "You can add a new event to it with calendar.add_event, or change events in your own calendar 'self'."
        )
    if kind == "advisor":
        advisor = cid[len("advisor_"):]
        return cid, (
            f"'{cid}' is an advisor's calendar; you cannot {_ADVISOR_VERBS[action]} it. To see when the advisor "
            f"is free, use calendar.query_advisor_availability(advisor_id=\"{advisor}\", date=\"Week X, Day\")."
        )
    return cid, (
        f"Unknown calendar '{_show(calendar_id)}'. Use 'self' for your own calendar or 'club_<club id>' for a "
        "club's shared calendar."
    )


# ------------------------------------------------------------------ field checks


def _check_title(value: str) -> str | None:
    return _check_line("event_title", value, MAX_TITLE)


def _check_location(value: str) -> str | None:
    return _check_line("location", value, MAX_LOCATION)


def _check_line(name: str, value: str, limit: int) -> str | None:
    if not value:
        return f"'{name}' is empty; give a short text."
    if len(value) > limit:
        return f"'{name}' is too long ({len(value)} characters; at most {limit}). Shorten it."
    if not _single_line(value):
        return f"'{name}' must be a single line of text without line breaks or tabs."
    return None


def _check_description(value: str) -> str | None:
    if len(value) > MAX_DESCRIPTION:
        return f"'description' is too long ({len(value)} characters; at most {MAX_DESCRIPTION}). Shorten it."
    return None


def _summary(entry: Entry) -> str:
    place = f" at {entry.location}" if entry.location else ""
    return f"{entry.time}{place}"


# ------------------------------------------------------------------ handlers


def add_event(view: Any, args: dict[str, Any]) -> Outcome:
    cid, denied = _permit("add", args["calendar_id"])
    if denied:
        return fail(denied)
    title = args["event_title"].strip()
    location = args["location"].strip()
    description = args.get("description", "").strip()
    problem = _check_title(title) or _check_location(location) or _check_description(description)
    if problem:
        return fail(problem)
    when = parse_time(args["time"])
    if isinstance(when, str):
        return fail(when)
    part: CalendarState = view.state.calendar
    event_id = f"evt_{part.next_event}"
    fact = CalendarEventAdded(
        calendar_id=cid, event_id=event_id, title=title, location=location, time=when.label(), description=description
    )
    message = f"Added '{title}' to calendar '{cid}' as event {event_id} ({when.label()} at {location})."
    return ok(message, [fact], {"event_id": event_id, "calendar_id": cid})


def remove_event(view: Any, args: dict[str, Any]) -> Outcome:
    cid, denied = _permit("remove", args["calendar_id"])
    if denied:
        return fail(denied)
    entry, missing = _find(view.state.calendar, cid, args["event_id"])
    if entry is None:
        return fail(missing)
    fact = CalendarEventRemoved(calendar_id=cid, event_id=entry.event_id)
    message = f"Removed event {entry.event_id} ('{entry.title}', {_summary(entry)}) from calendar '{cid}'."
    return ok(message, [fact], {"event_id": entry.event_id, "calendar_id": cid})


def update_event(view: Any, args: dict[str, Any]) -> Outcome:
    cid, denied = _permit("update", args["calendar_id"])
    if denied:
        return fail(denied)
    entry, missing = _find(view.state.calendar, cid, args["event_id"])
    if entry is None:
        return fail(missing)
    changes = _validate_details(args["new_details"])
    if isinstance(changes, str):
        return fail(changes)
    fact = CalendarEventUpdated(calendar_id=cid, event_id=entry.event_id, changes=changes)
    after = msgspec.structs.replace(entry, **changes)
    changed = [key for key in DETAIL_KEYS if _FACT_KEYS[key] in changes]
    message = (
        f"Updated event {entry.event_id} in calendar '{cid}' (changed: {', '.join(changed)}). "
        f"It is now '{after.title}', {_summary(after)}."
    )
    return ok(message, [fact], {"event_id": entry.event_id, "calendar_id": cid, "changed": changed})


def view_schedule(view: Any, args: dict[str, Any]) -> Outcome:
    cid, denied = _permit("view", args["calendar_id"])
    if denied:
        return fail(denied)
    day = parse_day(args["date"])
    if isinstance(day, str):
        return fail(day)
    label = date_label(day)
    part: CalendarState = view.state.calendar
    week, weekday = divmod(day, 7)
    on_day = [e for e in part.calendars.get(cid, {}).values() if e.day == weekday and e.first_week <= week <= e.last_week]
    entries = sorted(on_day, key=lambda e: (e.start, _event_number(e.event_id), e.event_id))
    if not entries:
        return ok(f"No events on {label} in calendar '{cid}'.", data={"events": []})
    lines = [f"Found {len(entries)} event(s) on {label} in calendar '{cid}':"]
    for e in entries:
        place = f" at {e.location}" if e.location else ""
        lines.append(f"- [{e.event_id}] {_clock(e.start)}-{_clock(e.end)} {e.title}{place} ({e.time})")
        if e.description:
            lines.append("  Description: " + e.description.replace("\n", "\n    "))
    events = [
        {"event_id": e.event_id, "title": e.title, "location": e.location, "time": e.time, "description": e.description}
        for e in entries
    ]
    return ok("\n".join(lines), data={"events": events})


def query_advisor_availability(view: Any, args: dict[str, Any]) -> Outcome:
    advisor = args["advisor_id"].strip()
    if _ADVISOR_ID.fullmatch(advisor) is None:
        return fail(
            f"'{_show(advisor)}' is not an advisor id. Advisor ids are letters, digits and underscores "
            "(at most 40), e.g. 'T0001'."
        )
    day = parse_day(args["date"])
    if isinstance(day, str):
        return fail(day)
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
        return list(override)
    busy = [(e.start, e.end) for e in part.calendars.get(f"advisor_{advisor_id}", {}).values() if occurs_on(e, day)]
    return [
        slot
        for slot, (start, end) in zip(DEFAULT_SLOTS, _DEFAULT_BOUNDS)
        if not any(b_start < end and start < b_end for b_start, b_end in busy)
    ]


_DEFAULT_BOUNDS: tuple[tuple[int, int], ...] = tuple(
    (int(s[0:2]) * 60 + int(s[3:5]), int(s[6:8]) * 60 + int(s[9:11])) for s in DEFAULT_SLOTS
)


def _availability_key(advisor_id: str, day: int) -> str:
    return f"{advisor_id}|{date_label(day)}"


def _find(part: CalendarState, cid: str, event_id: str) -> tuple[Entry | None, str]:
    key = event_id.strip().lower()
    entry = part.calendars.get(cid, {}).get(key)
    if entry is not None:
        return entry, ""
    return None, (
        f"There is no event '{_show(event_id)}' in calendar '{cid}'. Event ids look like 'evt_3'; "
        f"use calendar.view_schedule(calendar_id=\"{cid}\", date=\"Week X, Day\") to find the ids of a day's events."
    )


def _validate_details(details: dict[str, Any]) -> dict[str, str] | str:
    """The validated changes, keyed by ``Entry`` field names, or an error message."""
    valid = ", ".join(DETAIL_KEYS)
    if not details:
        return f"'new_details' is empty. Give at least one of: {valid}, e.g. {{\"location\": \"Library Room 305\"}}."
    unknown = sorted(str(k) for k in details if k not in DETAIL_KEYS)
    if unknown:
        return f"'new_details' has unknown key(s) {', '.join(repr(_show(k, 30)) for k in unknown)}. Valid keys are: {valid}."
    changes: dict[str, str] = {}
    for key in DETAIL_KEYS:
        if key not in details:
            continue
        value = details[key]
        if not isinstance(value, str):
            return f"new_details['{key}'] must be a string."
        if key == "time":
            when = parse_time(value)
            if isinstance(when, str):
                return when
            changes["time"] = when.label()
            continue
        value = value.strip()
        check = {"event_title": _check_title, "location": _check_location, "description": _check_description}[key]
        problem = check(value)
        if problem:
            return problem
        changes[_FACT_KEYS[key]] = value
    return changes


# ------------------------------------------------------------------ reducers


def _entry(event_id: str, title: str, location: str, when: When, description: str) -> Entry:
    return Entry(
        event_id=event_id,
        title=title,
        location=location,
        time=when.label(),
        description=description,
        first_week=when.first_week,
        last_week=when.last_week,
        day=when.day,
        start=when.start,
        end=when.end,
    )


def _insert(part: CalendarState, calendar_id: str, entry: Entry) -> None:
    part.calendars.setdefault(calendar_id, {})[entry.event_id] = entry
    number = _EVENT_ID.fullmatch(entry.event_id)
    part.next_event = max(part.next_event + 1, int(number.group(1)) + 1) if number else part.next_event + 1


def _added(part: CalendarState, event: CalendarEventAdded) -> None:
    when = parse_time(event.time)
    if isinstance(when, str):  # never written by the handler; a log must still fold
        return
    _insert(part, event.calendar_id, _entry(event.event_id, event.title, event.location, when, event.description))


def _updated(part: CalendarState, event: CalendarEventUpdated) -> None:
    entry = part.calendars.get(event.calendar_id, {}).get(event.event_id)
    if entry is None:
        return
    for key, value in event.changes.items():
        if key == "time":
            when = parse_time(value)
            if isinstance(when, str):
                continue
            entry.time = when.label()
            entry.first_week, entry.last_week, entry.day = when.first_week, when.last_week, when.day
            entry.start, entry.end = when.start, when.end
        elif key in ("title", "location", "description"):
            setattr(entry, key, value)


def _removed(part: CalendarState, event: CalendarEventRemoved) -> None:
    calendar = part.calendars.get(event.calendar_id)
    if calendar is not None:
        calendar.pop(event.event_id, None)


def _world_changed(part: CalendarState, event: WorldChanged) -> None:
    change = event.change
    kind = change.get("type")
    if kind == "advisor_availability":
        parsed = _read_availability(change)
        if not isinstance(parsed, str):
            key, slots = parsed
            part.availability[key] = slots
    elif kind == "calendar_event":
        read = _read_calendar_event(change)
        if not isinstance(read, str):
            cid, title, location, when, description = read
            _insert(part, cid, _entry(f"evt_{part.next_event}", title, location, when, description))


def world_change_problem(change: dict[str, Any]) -> str | None:
    """Why a scheduled calendar change would be ignored, or None (also for other change types).

    Scenario loaders can call this to reject a bad trigger before a run starts; the reducer
    itself skips such a change, because a log must always fold.
    """
    kind = change.get("type")
    if kind == "advisor_availability":
        parsed = _read_availability(change)
    elif kind == "calendar_event":
        parsed = _read_calendar_event(change)
    else:
        return None
    return parsed if isinstance(parsed, str) else None


def _read_availability(change: dict[str, Any]) -> tuple[str, list[str]] | str:
    advisor, date, slots = change.get("advisor_id"), change.get("date"), change.get("slots")
    if not isinstance(advisor, str) or _ADVISOR_ID.fullmatch(advisor) is None:
        return "advisor_availability needs 'advisor_id' (letters, digits, underscores)"
    if not isinstance(date, str):
        return "advisor_availability needs 'date' like 'Week 3, Monday'"
    day = parse_day(date)
    if isinstance(day, str):
        return day
    if not isinstance(slots, list) or not all(isinstance(s, str) for s in slots):
        return "advisor_availability needs 'slots', a list of 'HH:MM-HH:MM' strings"
    parsed: set[tuple[int, int]] = set()
    for slot in slots:
        bounds = parse_slot(slot)
        if bounds is None:
            return f"advisor_availability slot {slot[:30]!r} is not 'HH:MM-HH:MM' with the end after the start"
        parsed.add(bounds)
    return _availability_key(advisor, day), [f"{_clock(s)}-{_clock(e)}" for s, e in sorted(parsed)]


def _read_calendar_event(change: dict[str, Any]) -> tuple[str, str, str, When, str] | str:
    fields = {key: change.get(key) for key in ("calendar_id", "title", "location", "time")}
    fields["description"] = change.get("description", "")
    text = {key: value for key, value in fields.items() if isinstance(value, str)}
    if len(text) != len(fields):
        return "calendar_event needs string 'calendar_id', 'title', 'location', 'time' (and optional 'description')"
    kind, cid = classify_calendar(text["calendar_id"])
    if kind == "unknown" or not text["title"].strip():
        return "calendar_event needs a known calendar id (self, club_<id>, advisor_<id>) and a non-empty title"
    when = parse_time(text["time"])
    if isinstance(when, str):
        return when
    return cid, text["title"].strip(), text["location"].strip(), when, text["description"].strip()


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

CALENDAR_TOOLS: tuple[ToolDecl, ...] = (ADD_EVENT, REMOVE_EVENT, UPDATE_EVENT, VIEW_SCHEDULE, QUERY_ADVISOR_AVAILABILITY)


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
)

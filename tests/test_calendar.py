"""The calendar subsystem: tools, permissions, time formats, reducers, availability, fuzzing.

Handlers are called directly through a small harness (no runner): arguments are bound with
the kernel's ``bind_arguments`` as the dispatcher does, facts are applied with the domain's
reducers, and every call checks the handler contract (no mutation of the state it reads,
no facts on failure or from read-only tools).
"""

from __future__ import annotations

import ast
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.events import (
    AdvisorAvailability,
    CalendarEntry,
    CalendarEventAdded,
    CalendarEventUpdated,
    CalendarTime,
    EventChanges,
    Popularity,
    Span,
    WorldChange,
    WorldChanged,
    canonical,
    decode_event,
)
from campus.kernel.clock import DAYS
from campus.kernel.engine import ToolView
from campus.kernel.projection import Projection
from campus.kernel.tools import ToolDecl, bind_arguments
from tests.harness import DomainHarness, encoded
from campus.subsystems.calendar import (
    CALENDAR,
    CALENDAR_TOOLS,
    DEFAULT_SLOTS,
    DETAIL_KEYS,
    CalendarState,
    advisor_availability_problem,
    calendar_entry_problem,
    parse_day,
    parse_slot,
    parse_time,
    time_label,
)

TOOLS: dict[str, ToolDecl] = {t.name: t for t in CALENDAR_TOOLS}
UNKNOWN = "Unknown calendar '{}'. Use 'self' for your own calendar or 'club_<club id>' for a club's shared calendar."
FORMAT_HINT = "Week X, Day, HH:MM-HH:MM"


def at(text: str) -> CalendarTime:
    """An event time, written as the agent would write it."""
    when = parse_time(text)
    assert isinstance(when, CalendarTime), when
    return when


def on(text: str) -> int:
    day = parse_day(text)
    assert isinstance(day, int), day
    return day


def spans(*texts: str) -> tuple[Span, ...]:
    bounds = [parse_slot(text) for text in texts]
    return tuple(Span(start=b[0], end=b[1]) for b in bounds if b is not None)


def make_view(part: CalendarState) -> ToolView:
    return DomainHarness(CALENDAR).view(part)


def apply(part: CalendarState, facts: Any) -> None:
    DomainHarness(CALENDAR).apply(facts, part)


class Harness(DomainHarness):
    """One calendar part, called the way the dispatcher calls handlers."""

    def __init__(self) -> None:
        super().__init__(CALENDAR)

    def add(self, calendar_id: str = "self", title: str = "Study", location: str = "Library", when: str = "Week 1, Monday, 10:00-11:00", **extra: Any) -> str:
        outcome = self.ok("calendar.add_event", calendar_id=calendar_id, event_title=title, location=location, time=when, **extra)
        return outcome.result.data["event_id"]

    def world(self, change: WorldChange) -> None:
        CALENDAR.reducers[WorldChanged](self.part, WorldChanged(change_id="c1", change=change))

    def day(self, calendar_id: str, date: str) -> list[str]:
        data = self.ok("calendar.view_schedule", calendar_id=calendar_id, date=date).result.data
        return [e["event_id"] for e in data["events"]]

    def free(self, advisor_id: str, date: str) -> list[str]:
        return self.ok("calendar.query_advisor_availability", advisor_id=advisor_id, date=date).result.data["free_slots"]


@pytest.fixture
def h() -> Harness:
    return Harness()


# ------------------------------------------------------------------ add_event


def test_add_event_message_data_fact_and_state(h: Harness) -> None:
    outcome = h.ok(
        "calendar.add_event", calendar_id="self", event_title=" Study ", location="Library", time="Week 1, Monday, 10:00-11:00"
    )
    assert outcome.result.message == "Added 'Study' to calendar 'self' as event evt_1 (Week 1, Monday, 10:00-11:00 at Library)."
    assert outcome.result.data == {"event_id": "evt_1", "calendar_id": "self"}
    assert outcome.facts == (
        CalendarEventAdded(calendar_id="self", event_id="evt_1", title="Study", location="Library", time=at("Week 1, Monday, 10:00-11:00")),
    )
    entry = h.part.calendars["self"]["evt_1"]
    assert (entry.title, entry.location, entry.description) == ("Study", "Library", "")
    assert entry.when == CalendarTime(first_week=1, last_week=1, weekday=0, start=600, end=660)
    assert h.part.next_event == 2


def test_add_event_stores_description(h: Harness) -> None:
    h.add(description="  Bring the slides.  ")
    assert h.part.calendars["self"]["evt_1"].description == "Bring the slides."


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("Week 3, Monday, 15:00-16:00", "Week 3, Monday, 15:00-16:00"),
        ("week 3 monday 15:00-16:00", "Week 3, Monday, 15:00-16:00"),
        ("  WEEK 3 ,MON,9:05 - 16:00 ", "Week 3, Monday, 09:05-16:00"),
        ("Week 1-18, Monday, 14:00-16:50", "Week 1-18, Monday, 14:00-16:50"),
        ("Week 1 to 18, Monday, 14:00-16:50", "Week 1-18, Monday, 14:00-16:50"),
        ("Week 1 TO 18 sun 00:00-23:59", "Week 1-18, Sunday, 00:00-23:59"),
        ("week1-18,tue,14:00-16:50", "Week 1-18, Tuesday, 14:00-16:50"),
        ("Week 4-4, Fri, 08:00-09:00", "Week 4, Friday, 08:00-09:00"),
        ("Week 0, Saturday, 06:00-07:30", "Week 0, Saturday, 06:00-07:30"),
    ],
)
def test_add_event_accepts_time_forms_and_stores_canonical(h: Harness, given: str, canonical: str) -> None:
    outcome = h.ok("calendar.add_event", calendar_id="self", event_title="T", location="L", time=given)
    assert time_label(outcome.facts[0].time) == canonical
    assert h.part.calendars["self"]["evt_1"].when == at(canonical)
    assert canonical in outcome.result.message


@pytest.mark.parametrize(
    ("bad", "fragment"),
    [
        ("Week 3, Monday, 16:00-15:00", "not after its start"),
        ("Week 3, Monday, 15:00-15:00", "not after its start"),
        ("Week 3, Monday, 23:00-24:00", "outside 00:00-23:59"),
        ("Week 3, Monday, 24:00-24:30", "outside 00:00-23:59"),
        ("Week 3, Monday, 10:60-11:00", "outside 00:00-23:59"),
        ("Week 3, Funday, 10:00-11:00", "not a day of the week"),
        ("Week 3, Mo, 10:00-11:00", "not a day of the week"),
        ("Week 18-1, Monday, 10:00-11:00", "ends before it starts"),
        ("Week 3, Monday", "Cannot read the time"),
        ("Week 3, Monday, 10:00", "Cannot read the time"),
        ("Monday 10:00-11:00", "Cannot read the time"),
        ("Week three, Monday, 10:00-11:00", "Cannot read the time"),
        ("Week 3, Monday, 10-11", "Cannot read the time"),
        ("2024-01-01 10:00", "Cannot read the time"),
        ("", "Cannot read the time"),
        ("Week 3, Monday, 10:00-11:00\nWeek 4", "Cannot read the time"),
    ],
)
def test_add_event_rejects_bad_times(h: Harness, bad: str, fragment: str) -> None:
    message = h.fail("calendar.add_event", calendar_id="self", event_title="T", location="L", time=bad)
    assert fragment in message
    assert FORMAT_HINT in message and "Week 1-18, Monday, 14:00-16:50" in message
    assert h.part.next_event == 1


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("event_title", "", "'event_title' is empty"),
        ("event_title", "   ", "'event_title' is empty"),
        ("location", " \t ", "'location' is empty"),
        ("event_title", "Line one\nLine two", "single line"),
        ("location", "Room\t1", "single line"),
    ],
)
def test_add_event_rejects_bad_title_or_location(h: Harness, field: str, value: str, fragment: str) -> None:
    args = {"calendar_id": "self", "event_title": "T", "location": "L", "time": "Week 1, Monday, 10:00-11:00", field: value}
    assert fragment in h.fail("calendar.add_event", **args)


def test_add_event_length_limits_in_declaration_and_handler(h: Harness) -> None:
    tool = TOOLS["calendar.add_event"]
    args = {"calendar_id": "self", "event_title": "x" * 201, "location": "L", "time": "Week 1, Monday, 10:00-11:00"}
    problem = bind_arguments(tool, args)
    assert isinstance(problem, str) and "at most 200" in problem
    # The handler checks too (it may be reached by other paths than the dispatcher).
    for key, value, limit in (("event_title", "x" * 201, "200"), ("location", "y" * 201, "200"), ("description", "z" * 5001, "5000")):
        raw = {"calendar_id": "self", "event_title": "T", "location": "L", "time": "Week 1, Monday, 10:00-11:00", key: value}
        outcome = tool.call(make_view(h.part), raw)
        assert not outcome.result.ok and outcome.facts == ()
        assert f"at most {limit}" in outcome.result.message
    assert h.add(title="x" * 200, location="y" * 200, description="z" * 5000) == "evt_1"


def test_calendar_ids_are_normalised(h: Harness) -> None:
    assert h.ok("calendar.add_event", calendar_id=" SELF ", event_title="A", location="L", time="Week 1, Monday, 10:00-11:00").result.data["calendar_id"] == "self"
    assert h.add(calendar_id="Club_C027") == "evt_2"
    assert set(h.part.calendars) == {"self", "club_c027"}
    assert h.day("club_c027", "Week 1, Monday") == ["evt_2"]
    assert h.day("CLUB_c027", "Week 1, Monday") == ["evt_2"]


# ------------------------------------------------------------------ permissions

CALLS: dict[str, dict[str, Any]] = {
    "calendar.add_event": {"event_title": "T", "location": "L", "time": "Week 1, Monday, 10:00-11:00"},
    "calendar.update_event": {"event_id": "evt_1", "new_details": {"location": "Elsewhere"}},
    "calendar.remove_event": {"event_id": "evt_1"},
    "calendar.view_schedule": {"date": "Week 1, Monday"},
}


@pytest.mark.parametrize("tool", sorted(CALLS))
@pytest.mark.parametrize("calendar_id", ["someone@university.edu", "self2", "club_", "club_c-27", "advisors_T1", "", "me"])
def test_unknown_calendars_fail_with_guidance(h: Harness, tool: str, calendar_id: str) -> None:
    h.add()
    assert h.fail(tool, calendar_id=calendar_id, **CALLS[tool]) == UNKNOWN.format(calendar_id)


@pytest.mark.parametrize("tool", sorted(CALLS))
def test_advisor_calendars_are_free_busy_only(h: Harness, tool: str) -> None:
    h.world(CalendarEntry(calendar_id="advisor_T0001", title="Busy", location="Office", time=at("Week 1, Monday, 10:00-11:00")))
    message = h.fail(tool, calendar_id="advisor_T0001", **CALLS[tool])
    assert "advisor" in message
    assert 'calendar.query_advisor_availability(advisor_id="T0001"' in message


@pytest.mark.parametrize("tool", ["calendar.update_event", "calendar.remove_event"])
def test_club_calendars_are_append_only(h: Harness, tool: str) -> None:
    event_id = h.add(calendar_id="club_c027")
    message = h.fail(tool, calendar_id="club_c027", **{**CALLS[tool], "event_id": event_id})
    assert "append-only" in message and "calendar.add_event" in message
    assert event_id in h.part.calendars["club_c027"]


def test_club_calendars_allow_add_and_view(h: Harness) -> None:
    first = h.add(calendar_id="club_c027", title="Chess night", location="Union", when="Week 2, Friday, 19:00-21:00")
    second = h.add(calendar_id="club_c027", title="Chess night", location="Union", when="Week 2, Friday, 18:00-19:00")
    assert h.day("club_c027", "Week 2, Friday") == [second, first]
    assert h.day("self", "Week 2, Friday") == []


def test_unwritten_club_calendar_has_no_events(h: Harness) -> None:
    outcome = h.ok("calendar.view_schedule", calendar_id="club_x9", date="Week 2, Friday")
    assert outcome.result.message == "No events on Week 2, Friday in calendar 'club_x9'."
    assert outcome.result.data == {"events": []}


# ------------------------------------------------------------------ event ids, update, remove


def test_event_ids_are_sequential_across_calendars_and_shown(h: Harness) -> None:
    assert [h.add(), h.add(calendar_id="club_c1"), h.add()] == ["evt_1", "evt_2", "evt_3"]
    message = h.ok("calendar.view_schedule", calendar_id="self", date="Week 1, Monday").result.message
    assert "[evt_1]" in message and "[evt_3]" in message and "[evt_2]" not in message


def test_ids_from_add_work_in_update_and_remove(h: Harness) -> None:
    keep = h.add(title="Keep")
    move = h.add(title="Move", when="Week 2, Tuesday, 09:00-10:00")
    outcome = h.ok(
        "calendar.update_event",
        calendar_id="self",
        event_id=move,
        new_details={"time": "week 2 to 4 thu 13:00 - 14:30", "location": " Lab 3 ", "event_title": "Moved", "description": "New room"},
    )
    assert outcome.facts == (
        CalendarEventUpdated(
            calendar_id="self",
            event_id=move,
            changes=EventChanges(title="Moved", location="Lab 3", time=at("Week 2-4, Thursday, 13:00-14:30"), description="New room"),
        ),
    )
    assert outcome.result.message == (
        f"Updated event {move} in calendar 'self' (changed: event_title, location, time, description). "
        "It is now 'Moved', Week 2-4, Thursday, 13:00-14:30 at Lab 3."
    )
    entry = h.part.calendars["self"][move]
    assert (entry.title, entry.location, entry.description) == ("Moved", "Lab 3", "New room")
    assert entry.when == CalendarTime(first_week=2, last_week=4, weekday=3, start=780, end=870)
    assert h.day("self", "Week 2, Tuesday") == []
    assert h.day("self", "Week 3, Thursday") == [move]

    removed = h.ok("calendar.remove_event", calendar_id="self", event_id=keep)
    assert removed.result.message == f"Removed event {keep} ('Keep', Week 1, Monday, 10:00-11:00 at Library) from calendar 'self'."
    assert removed.result.data == {"event_id": keep, "calendar_id": "self"}
    assert keep not in h.part.calendars["self"]
    assert "calendar.view_schedule" in h.fail("calendar.remove_event", calendar_id="self", event_id=keep)


def test_partial_update_keeps_other_fields(h: Harness) -> None:
    event_id = h.add(description="Notes")
    outcome = h.ok("calendar.update_event", calendar_id="self", event_id=event_id, new_details={"location": "Cafe"})
    assert outcome.facts[0].changes == EventChanges(location="Cafe")
    assert outcome.result.data == {"event_id": event_id, "calendar_id": "self", "changed": ["location"]}
    entry = h.part.calendars["self"][event_id]
    assert (entry.title, entry.location, time_label(entry.when), entry.description) == ("Study", "Cafe", "Week 1, Monday, 10:00-11:00", "Notes")
    h.ok("calendar.update_event", calendar_id="self", event_id=event_id, new_details={"description": ""})
    assert h.part.calendars["self"][event_id].description == ""


@pytest.mark.parametrize("tool", ["calendar.update_event", "calendar.remove_event"])
@pytest.mark.parametrize("event_id", ["evt_99", "3", "", "evt_2"])
def test_unknown_event_ids_fail(h: Harness, tool: str, event_id: str) -> None:
    h.add()
    h.add(calendar_id="club_c1")  # evt_2 lives in a club calendar, not in 'self'
    message = h.fail(tool, calendar_id="self", **{**CALLS[tool], "event_id": event_id})
    assert "There is no event" in message and "calendar.view_schedule" in message


def test_event_ids_are_case_insensitive(h: Harness) -> None:
    h.add()
    assert h.ok("calendar.remove_event", calendar_id="self", event_id=" EVT_1 ").result.data["event_id"] == "evt_1"


@pytest.mark.parametrize(
    ("details", "fragment"),
    [
        ({}, "'new_details' is empty"),
        ({"title": "X"}, "unknown key(s) 'title'. Valid keys are: event_title, location, time, description."),
        ({"location": "X", "when": "Y", "date": "Z"}, "unknown key(s) 'date', 'when'"),
        ({"time": 5}, "new_details['time'] must be a string"),
        ({"event_title": ["X"]}, "new_details['event_title'] must be a string"),
        ({"event_title": None}, "new_details['event_title'] must be a string"),
        ({"time": "Week 3, Monday, 11:00-10:00"}, FORMAT_HINT),
        ({"time": "tomorrow"}, "Cannot read the time"),
        ({"event_title": "  "}, "'event_title' is empty"),
        ({"location": ""}, "'location' is empty"),
        ({"event_title": "x" * 201}, "at most 200"),
        ({"description": "d" * 5001}, "at most 5000"),
        ({"location": "OK", "time": "bad"}, "Cannot read the time"),
    ],
)
def test_update_event_rejects_bad_details(h: Harness, details: dict[str, Any], fragment: str) -> None:
    event_id = h.add()
    assert fragment in h.fail("calendar.update_event", calendar_id="self", event_id=event_id, new_details=details)


def test_update_event_requires_an_object(h: Harness) -> None:
    h.add()
    problem = bind_arguments(TOOLS["calendar.update_event"], {"calendar_id": "self", "event_id": "evt_1", "new_details": "location=X"})
    assert isinstance(problem, str) and "must be an object" in problem


# ------------------------------------------------------------------ view_schedule


def test_view_schedule_lists_sorted_events_with_descriptions(h: Harness) -> None:
    late = h.add(title="Lecture", location="Hall A", when="Week 1-18, Monday, 14:00-16:50")
    early = h.add(title="Study", location="Library", when="Week 3, Monday, 10:00-11:00", description="Chapter 4")
    h.add(title="Other day", when="Week 3, Tuesday, 10:00-11:00")
    outcome = h.ok("calendar.view_schedule", calendar_id="self", date="week 3 mon")
    assert outcome.result.message == (
        "Found 2 event(s) on Week 3, Monday in calendar 'self':\n"
        f"- [{early}] 10:00-11:00 Study at Library (Week 3, Monday, 10:00-11:00)\n"
        "  Description: Chapter 4\n"
        f"- [{late}] 14:00-16:50 Lecture at Hall A (Week 1-18, Monday, 14:00-16:50)"
    )
    assert outcome.result.data == {
        "events": [
            {"event_id": early, "title": "Study", "location": "Library", "time": "Week 3, Monday, 10:00-11:00", "description": "Chapter 4"},
            {"event_id": late, "title": "Lecture", "location": "Hall A", "time": "Week 1-18, Monday, 14:00-16:50", "description": ""},
        ]
    }


def test_view_schedule_orders_same_start_by_event_number(h: Harness) -> None:
    ids = [h.add(title=f"E{i}", when="Week 1, Monday, 09:00-10:00") for i in range(1, 12)]
    h.add(title="Earlier", when="Week 1, Monday, 08:00-09:00")
    assert h.day("self", "Week 1, Monday") == ["evt_12"] + ids
    assert ids[9] == "evt_10"


def test_view_schedule_empty_day(h: Harness) -> None:
    h.add()
    outcome = h.ok("calendar.view_schedule", calendar_id="self", date="Week 1, Tuesday")
    assert outcome.result.message == "No events on Week 1, Tuesday in calendar 'self'."
    assert outcome.result.data == {"events": []}


@pytest.mark.parametrize("date", ["Week 3", "Monday", "Week 3, Monday, 10:00", "Week 3, Someday", "Week -1, Monday", "", "W3 Mon"])
def test_view_schedule_rejects_bad_dates(h: Harness, date: str) -> None:
    assert "Week X, Day" in h.fail("calendar.view_schedule", calendar_id="self", date=date)


def test_week_range_event_occurs_on_every_week_in_range_only(h: Harness) -> None:
    event_id = h.add(when="Week 2-5, Wednesday, 14:00-15:00")
    for week in range(0, 9):
        for day in DAYS:
            expected = [event_id] if 2 <= week <= 5 and day == "Wednesday" else []
            assert h.day("self", f"Week {week}, {day}") == expected, (week, day)


# ------------------------------------------------------------------ advisor availability


def test_default_availability(h: Harness) -> None:
    outcome = h.ok("calendar.query_advisor_availability", advisor_id="T0001", date="Week 3, Monday")
    assert outcome.result.data == {"advisor_id": "T0001", "date": "Week 3, Monday", "free_slots": list(DEFAULT_SLOTS)}
    assert outcome.result.message == "Advisor T0001 is free on Week 3, Monday at: " + ", ".join(DEFAULT_SLOTS) + "."


def test_busy_events_from_world_changes_remove_overlapping_slots(h: Harness) -> None:
    h.world(CalendarEntry(calendar_id="advisor_T0001", title="Seminar", location="Room 1", time=at("Week 3, Monday, 10:00-11:00")))
    h.world(CalendarEntry(calendar_id="advisor_T0001", title="Lab", location="Lab", time=at("Week 1-4, Monday, 14:30-15:10"), description="weekly"))
    assert h.part.calendars["advisor_T0001"]["evt_2"].description == "weekly"
    assert h.free("T0001", "Week 3, Monday") == ["09:00-10:00", "11:00-12:00", "13:00-14:00", "16:00-17:00"]
    assert h.free("T0001", "Week 2, Monday") == ["09:00-10:00", "10:00-11:00", "11:00-12:00", "13:00-14:00", "16:00-17:00"]
    assert h.free("T0001", "Week 5, Monday") == list(DEFAULT_SLOTS)
    assert h.free("T0001", "Week 3, Tuesday") == list(DEFAULT_SLOTS)
    assert h.free("T0002", "Week 3, Monday") == list(DEFAULT_SLOTS)


def test_world_calendar_event_consumes_an_event_id(h: Harness) -> None:
    h.world(CalendarEntry(calendar_id="advisor_T0001", title="Busy", location="", time=at("Week 3, Monday, 09:00-17:00")))
    assert h.part.calendars["advisor_T0001"]["evt_1"].when == at("Week 3, Monday, 09:00-17:00")
    assert h.add() == "evt_2"
    outcome = h.ok("calendar.query_advisor_availability", advisor_id="T0001", date="Week 3, Monday")
    assert outcome.result.message == "Advisor T0001 has no free slots on Week 3, Monday. Try another date."
    assert outcome.result.data["free_slots"] == []


def test_world_calendar_event_can_fill_any_known_calendar(h: Harness) -> None:
    h.world(CalendarEntry(calendar_id="Club_C5", title="Fair", location="Quad", time=at("Week 1, Friday, 12:00-13:00")))
    h.world(CalendarEntry(calendar_id="self", title="Orientation", location="Hall", time=at("Week 0, Monday, 09:00-10:00")))
    assert h.day("club_c5", "Week 1, Friday") == ["evt_1"]
    assert h.day("self", "Week 0, Monday") == ["evt_2"]


def test_availability_override_replaces_the_list_for_that_date_only(h: Harness) -> None:
    h.world(CalendarEntry(calendar_id="advisor_T0001", title="Busy", location="x", time=at("Week 3, Monday, 09:00-12:00")))
    h.world(AdvisorAvailability(advisor_id="T0001", day=on("week 3 mon"), slots=spans("15:00-16:00", "9:00-10:00", "15:00-16:00")))
    assert h.part.availability == {f"T0001|{3 * 7}": [Span(start=540, end=600), Span(start=900, end=960)]}
    assert h.free("T0001", "Week 3, Monday") == ["09:00-10:00", "15:00-16:00"]
    assert h.free("T0001", "Week 3, Tuesday") == list(DEFAULT_SLOTS)
    assert h.free("T0002", "Week 3, Monday") == list(DEFAULT_SLOTS)
    h.world(AdvisorAvailability(advisor_id="T0001", day=on("Week 3, Monday"), slots=spans()))
    assert h.free("T0001", "Week 3, Monday") == []


@pytest.mark.parametrize(
    "change",
    [
        AdvisorAvailability(advisor_id="T1", day=21, slots=(Span(start=600, end=540),)),
        AdvisorAvailability(advisor_id="T1", day=-1, slots=()),
        AdvisorAvailability(advisor_id="T 1", day=21, slots=()),
        AdvisorAvailability(advisor_id="T1", day=21, slots=(Span(start=540, end=600), Span(start=1400, end=1500))),
        CalendarEntry(calendar_id="advisor_T1", title="X", location="L", time=CalendarTime(first_week=3, last_week=3, weekday=0, start=1500, end=1560)),
        CalendarEntry(calendar_id="advisor_T1", title="X", location="L", time=CalendarTime(first_week=3, last_week=3, weekday=7, start=540, end=600)),
        CalendarEntry(calendar_id="advisor_T1", title="X", location="L", time=CalendarTime(first_week=4, last_week=3, weekday=0, start=540, end=600)),
        CalendarEntry(calendar_id="someone@x.edu", title="X", location="L", time=at("Week 3, Monday, 09:00-10:00")),
        CalendarEntry(calendar_id="advisor_T1", title=" ", location="L", time=at("Week 3, Monday, 09:00-10:00")),
    ],
)
def test_invalid_world_changes_are_reported_and_ignored(h: Harness, change: AdvisorAvailability | CalendarEntry) -> None:
    before = encoded(h.part)
    problem = advisor_availability_problem(change) if isinstance(change, AdvisorAvailability) else calendar_entry_problem(change)
    assert isinstance(problem, str)
    h.world(change)
    assert encoded(h.part) == before


def test_other_world_changes_are_ignored(h: Harness) -> None:
    before = encoded(h.part)
    h.world(Popularity(code="advisor_T1", value=3))
    assert encoded(h.part) == before
    assert advisor_availability_problem(AdvisorAvailability(advisor_id="T1", day=on("Week 1, Monday"), slots=spans())) is None
    assert calendar_entry_problem(CalendarEntry(calendar_id="advisor_T1", title="X", location="L", time=at("Week 1, Monday, 09:00-10:00"))) is None


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ({"advisor_id": "T1", "date": "Week 3, Monday", "slots": "09:00-10:00"}, "advisor_availability"),
        ({"advisor_id": "T1", "date": "Week 3, Monday"}, "advisor_availability"),
        ({"calendar_id": "advisor_T1", "title": "X", "time": "Week 3, Monday, 09:00-10:00"}, "calendar_event"),
        ({"calendar_id": "advisor_T1", "title": "X", "location": "L", "time": "Week 3, Monday, 09:00-10:00", "description": 3}, "calendar_event"),
        ({"advisor_id": "T1", "date": "Week 3, Monday", "slots": []}, "building_closed"),
        ({"advisor_id": "T1", "day": 21, "slots": ["09:00-10:00"]}, "advisor_availability"),
        ({"advisor_id": "T1", "day": "21", "slots": []}, "advisor_availability"),
        ({"calendar_id": "advisor_T1", "title": "X", "location": "L", "time": {"first_week": 3, "weekday": 0, "start": 1, "end": 2}},
         "calendar_event"),
    ],
)
def test_world_changes_of_the_wrong_shape_are_refused_by_the_codec(raw: dict[str, Any], kind: str) -> None:
    payload = msgspec.json.encode({"kind": "world_changed", "change_id": "c1", "change": {"type": kind, **raw}})
    with pytest.raises(msgspec.ValidationError):
        decode_event(payload)


def test_a_calendar_entry_round_trips_through_the_codec_without_an_empty_description() -> None:
    plain = CalendarEntry(calendar_id="advisor_T1", title="X", location="L", time=at("Week 3, Monday, 09:00-10:00"))
    described = msgspec.structs.replace(plain, description="weekly")
    assert b"description" not in canonical(WorldChanged(change_id="c1", change=plain))
    for change in (plain, described):
        event = WorldChanged(change_id="c1", change=change)
        assert decode_event(canonical(event)) == event


@pytest.mark.parametrize(("advisor_id", "date", "fragment"), [
    ("T 0001", "Week 3, Monday", "is not an advisor id"),
    ("", "Week 3, Monday", "is not an advisor id"),
    ("T-1", "Week 3, Monday", "is not an advisor id"),
    ("x" * 41, "Week 3, Monday", "is not an advisor id"),
    ("T0001", "Monday", "Week X, Day"),
    ("T0001", "Week 3, Monday, 10:00-11:00", "Week X, Day"),
])
def test_query_advisor_availability_rejects_bad_input(h: Harness, advisor_id: str, date: str, fragment: str) -> None:
    tool = TOOLS["calendar.query_advisor_availability"]
    outcome = tool.call(make_view(h.part), {"advisor_id": advisor_id, "date": date})
    assert not outcome.result.ok and outcome.facts == ()
    assert fragment in outcome.result.message


# ------------------------------------------------------------------ determinism, folding, snapshots


def script(h: Harness) -> list[str]:
    messages = []
    h.world(CalendarEntry(calendar_id="advisor_T7", title="Busy", location="x", time=at("Week 2, Monday, 13:00-15:00")))
    for i in range(5):
        messages.append(h.ok("calendar.add_event", calendar_id="self" if i % 2 else "club_c1", event_title=f"E{i}", location="L", time=f"Week {i}-{i + 3}, Monday, 1{i}:00-1{i}:30").result.message)
    messages.append(h.ok("calendar.update_event", calendar_id="self", event_id="evt_3", new_details={"time": "Week 2, Monday, 08:00-09:00"}).result.message)
    messages.append(h.fail("calendar.remove_event", calendar_id="club_c1", event_id="evt_2"))
    messages.append(h.ok("calendar.remove_event", calendar_id="self", event_id="evt_5").result.message)
    messages.append(h.ok("calendar.view_schedule", calendar_id="self", date="Week 2, Monday").result.message)
    messages.append(h.ok("calendar.query_advisor_availability", advisor_id="T7", date="Week 2, Monday").result.message)
    return messages


def test_same_calls_give_identical_state_and_messages() -> None:
    first, second = Harness(), Harness()
    assert script(first) == script(second)
    assert encoded(first.part) == encoded(second.part)
    assert first.part.next_event == 7


def test_projection_fold_and_snapshot_round_trip() -> None:
    h = Harness()
    facts: list[Any] = []
    for name, args in [
        ("calendar.add_event", {"calendar_id": "self", "event_title": "A", "location": "L", "time": "Week 1-3, Friday, 09:00-10:00"}),
        ("calendar.add_event", {"calendar_id": "club_q1", "event_title": "B", "location": "L", "time": "Week 2, Friday, 09:00-10:00"}),
        ("calendar.update_event", {"calendar_id": "self", "event_id": "evt_1", "new_details": {"event_title": "A2"}}),
    ]:
        facts.extend(h.ok(name, **args).facts)
    projection = Projection([CALENDAR], None)
    state = projection.fold(projection.initial(), facts, len(facts), 0)
    assert encoded(state.calendar) == encoded(h.part)
    restored = msgspec.json.decode(encoded(h.part), type=CalendarState)
    assert restored == h.part


# ------------------------------------------------------------------ declarations


def test_declarations_are_complete() -> None:
    assert list(TOOLS) == [
        "calendar.add_event",
        "calendar.remove_event",
        "calendar.update_event",
        "calendar.view_schedule",
        "calendar.query_advisor_availability",
        "calendar.wait",
    ]
    assert CALENDAR.name == "calendar" and CALENDAR.tools == CALENDAR_TOOLS
    for tool in CALENDAR_TOOLS:
        assert tool.system == "calendar" and tool.minutes == 1
        assert tool.mutates == (tool.name in {"calendar.add_event", "calendar.remove_event", "calendar.update_event"})
        assert tool.description.isascii() and tool.description
        assert all(p.description and p.description.isascii() for p in tool.params)
        assert tool.json_schema()["additionalProperties"] is False


@pytest.mark.parametrize("tool", CALENDAR_TOOLS, ids=lambda t: t.name)
def test_examples_are_valid_calls(tool: ToolDecl) -> None:
    call = ast.parse(tool.example, mode="eval").body
    assert isinstance(call, ast.Call) and ast.unparse(call.func) == tool.name
    args = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    h = Harness()
    h.add(when="Week 3, Monday, 15:00-16:00")
    h.add(when="Week 3, Monday, 17:00-18:00")
    h.add(when="Week 3, Monday, 19:00-20:00")  # evt_3, the id the examples use
    assert h.call(tool.name, **args).result.ok


# ------------------------------------------------------------------ parsing properties and linear time

WHENS = st.builds(
    lambda first, span, day, start, length: CalendarTime(first_week=first, last_week=first + span, weekday=day, start=start, end=min(start + length, 1439)),
    st.integers(0, 500),
    st.integers(0, 400),
    st.integers(0, 6),
    st.integers(0, 1438),
    st.integers(1, 600),
)


@given(WHENS, st.data())
def test_every_spelling_of_a_time_parses_to_the_same_value(when: CalendarTime, data: st.DataObject) -> None:
    assert parse_time(time_label(when)) == when
    day = DAYS[when.weekday]
    day_text = data.draw(st.sampled_from([day, day.lower(), day.upper(), day[:3], day[:3].lower()]))
    sep = data.draw(st.sampled_from([", ", ",", " ", "  ,  "]))
    weeks = f"{when.first_week}" if when.first_week == when.last_week else f"{when.first_week}{data.draw(st.sampled_from(['-', ' - ', ' to ', 'TO']))}{when.last_week}"
    clock = f"{when.start // 60}:{when.start % 60:02d}-{when.end // 60:02d}:{when.end % 60:02d}"
    text = f"{data.draw(st.sampled_from(['Week ', 'week', 'WEEK  ']))}{weeks}{sep}{day_text}{sep}{clock}"
    assert parse_time(text) == when


@given(st.text(max_size=80))
def test_parsers_never_raise(text: str) -> None:
    assert isinstance(parse_time(text), (CalendarTime, str))
    assert isinstance(parse_day(text), (int, str))


@pytest.mark.parametrize(
    "text",
    [
        "Week 1" + " " * 20000 + "!",
        "Week 1, Monday" + " " * 20000 + "!",
        "Week 1 " + ", " * 10000,
        "Week 1, Monday, 10:00" + " " * 20000 + "-",
        "Week 1 to" + " " * 20000,
        "week" + "1" * 20000,
    ],
)
def test_long_hostile_times_are_refused(text: str) -> None:
    assert isinstance(parse_time(text), str)
    assert isinstance(parse_day(text), str)


# ------------------------------------------------------------------ fuzzing every tool

GOOD = [
    "self", "club_c027", "advisor_T0001", "T0001", "evt_1", "evt_2", "evt_3", "Week 3, Monday",
    "Week 1-18, Monday, 14:00-16:50", "Week 3, Monday, 15:00-16:00", "Library", "a@b.edu", "",
]
LONG = st.builds(lambda piece, n: piece * n, st.sampled_from([" ", "a", "9", ",", "\u00e9", "Week 1 ", "\n"]), st.integers(100, 21000))
TEXT = st.one_of(st.text(max_size=30), st.sampled_from(GOOD), LONG)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(DETAIL_KEYS) | st.text(max_size=8), inner, max_size=4),
    max_leaves=6,
)


FITTING: dict[str, list[str]] = {
    "calendar_id": ["self", "club_c027", "Club_C027", "advisor_T0001", "SELF", "x@y.edu"],
    "event_id": ["evt_1", "evt_2", "evt_3", "EVT_3", "evt_9"],
    "event_title": ["Study", " Team Meeting ", "A\nB"],
    "location": ["Library", "Room 201", " "],
    "time": ["Week 3, Monday, 15:00-16:00", "week 1 to 18 mon 9:00-10:00", "Week 3, Monday, 16:00-15:00"],
    "description": ["notes", "", "line\nline"],
    "date": ["Week 3, Monday", "week 3 mon", "Week 1, Sunday", "Week 3"],
    "advisor_id": ["T0001", "T0002", "T 1"],
}
DETAILS = st.dictionaries(st.sampled_from(DETAIL_KEYS), st.sampled_from(FITTING["time"] + FITTING["location"]), max_size=3) | st.dictionaries(
    st.sampled_from(DETAIL_KEYS) | st.text(max_size=8), VALUES, max_size=4
)


def fitting(param: Any, wild: bool) -> st.SearchStrategy[Any]:
    """Values for a parameter: plausible ones (to reach the handlers' deeper paths) or wild ones."""
    if param.type == "object":
        return DETAILS
    if wild:
        return TEXT
    return st.sampled_from(FITTING.get(param.name, GOOD))


def fuzz_args(tool: ToolDecl) -> st.SearchStrategy[dict[str, Any]]:
    names = [p.name for p in tool.params]

    def typed(wild: bool) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries(
            {p.name: fitting(p, wild) for p in tool.params if p.required},
            optional={p.name: fitting(p, wild) | st.none() for p in tool.params if not p.required},
        )

    loose = st.dictionaries(st.sampled_from(names + ["bogus"]), VALUES, max_size=len(names) + 1)
    return st.integers(0, 3).flatmap(lambda pick: loose if pick == 0 else typed(wild=pick == 1))


def seeded() -> CalendarState:
    h = Harness()
    h.add(when="Week 1-18, Monday, 14:00-16:50")
    h.add(calendar_id="club_c027", when="Week 3, Monday, 15:00-16:00")
    h.add(when="Week 3, Monday, 15:00-16:00", description="d")
    h.world(CalendarEntry(calendar_id="advisor_T0001", title="Busy", location="x", time=at("Week 3, Monday, 09:00-10:00")))
    return h.part


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_fuzz_tools_never_raise_and_failures_change_nothing(data: st.DataObject) -> None:
    tool = data.draw(st.sampled_from(CALENDAR_TOOLS))
    args = data.draw(fuzz_args(tool))
    bound = bind_arguments(tool, args)
    if isinstance(bound, str):
        return  # the dispatcher answers with this message; the handler is not called
    part = seeded()
    before = encoded(part)
    outcome = tool.call(make_view(part), bound)
    assert encoded(part) == before
    assert outcome.result.message and outcome.result.message.isascii()
    if not outcome.result.ok or not tool.mutates:
        assert outcome.facts == ()
    apply(part, outcome.facts)
    if outcome.facts and tool.name != "calendar.update_event":
        assert encoded(part) != before  # an update to the values an event already has changes nothing


def test_update_to_the_same_values_is_accepted_and_changes_nothing(h: Harness) -> None:
    event_id = h.add(when="Week 3, Monday, 15:00-16:00")
    before = encoded(h.part)
    h.ok("calendar.update_event", calendar_id="self", event_id=event_id, new_details={"time": "Week 3, Monday, 15:00-16:00"})
    assert encoded(h.part) == before


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_fuzz_handlers_directly_with_any_strings(data: st.DataObject) -> None:
    """Even text the dispatcher would refuse (non-ASCII, over-long) must not crash a handler."""
    tool = data.draw(st.sampled_from(CALENDAR_TOOLS))
    args = {p.name: data.draw(st.dictionaries(st.text(max_size=12), st.text(max_size=40), max_size=3) if p.type == "object" else TEXT) for p in tool.params if p.required}
    outcome = tool.call(make_view(seeded()), args)
    assert outcome.result.ok or outcome.facts == ()


MINUTES = st.integers(-5, 24 * 60 + 5)


@settings(max_examples=200, deadline=None)
@given(st.one_of(
    st.builds(AdvisorAvailability, advisor_id=TEXT, day=st.integers(-3, 400),
              slots=st.lists(st.builds(Span, start=MINUTES, end=MINUTES), max_size=3).map(tuple)),
    st.builds(CalendarEntry, calendar_id=TEXT | st.just("advisor_T1"), title=TEXT, location=TEXT, description=TEXT,
              time=st.builds(CalendarTime, first_week=st.integers(-2, 30), last_week=st.integers(-2, 30), weekday=st.integers(-1, 8),
                             start=MINUTES, end=MINUTES)),
))
def test_fuzz_world_changes_never_break_a_fold(change: AdvisorAvailability | CalendarEntry) -> None:
    part = seeded()
    CALENDAR.reducers[WorldChanged](part, WorldChanged(change_id="c", change=change))
    problem = advisor_availability_problem(change) if isinstance(change, AdvisorAvailability) else calendar_entry_problem(change)
    assert (problem is None) or encoded(part) == encoded(seeded())

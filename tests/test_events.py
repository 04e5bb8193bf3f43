"""The vocabulary: canonical encoding, hashing, round trips and upcasting."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import campus.events as events
from campus.events import (
    EVENT_TYPES,
    KINDS,
    AdvisorAvailability,
    Booked,
    CalendarEntry,
    CalendarEventAdded,
    CalendarEventUpdated,
    CalendarTime,
    EventChanges,
    Popularity,
    SeatAvailability,
    Span,
    WorldChange,
    WorldChanged,
    ToolCalled,
    Walked,
    canonical,
    chain_hash,
    content_hash,
    decode_event,
    decode_events,
    genesis_hash,
)
from campus.events.upcast import UPCASTERS, register, upcast


def call(args: dict) -> ToolCalled:
    return ToolCalled(call_id="call-1", task_id="t", tool="map.find_building_id", args=args)


def test_integral_floats_hash_like_integers() -> None:
    assert canonical(call({"n": 25})) == canonical(call({"n": 25.0}))
    assert content_hash(call({"n": [1, 2.0, {"x": -0.0}]})) == content_hash(call({"n": [1, 2, {"x": 0}]}))
    assert canonical(call({"n": 25.5})) != canonical(call({"n": 25}))


def test_keys_are_sorted_whatever_the_insertion_order() -> None:
    assert canonical(call({"b": 1, "a": {"d": 1, "c": 2}})) == canonical(call({"a": {"c": 2, "d": 1}, "b": 1}))
    assert canonical(call({"a": 1})).startswith(b'{"args":{"a":1},"call_id"')


def test_strings_that_look_like_numbers_are_left_alone() -> None:
    encoded = canonical(call({"text": "version 2.0 and 1e3"}))
    assert b'"version 2.0 and 1e3"' in encoded


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), st.recursive(
    st.none() | st.booleans() | st.integers(-2**60, 2**60) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
), max_size=6))
def test_canonical_is_stable_under_round_trip(args: dict) -> None:
    event = call(args)
    once = canonical(event)
    again = canonical(decode_event(once))
    assert once == again


def test_every_kind_round_trips_and_tags_are_unique() -> None:
    assert len(KINDS) == len(EVENT_TYPES)
    walked = Walked(path=["B001", "B002"], depart=10, arrive=15)
    assert decode_event(canonical(walked)) == walked
    batch = [walked, call({"x": 1})]
    assert decode_events([canonical(e) for e in batch]) == batch
    assert decode_events([canonical(e).decode() for e in batch]) == batch


def test_events_are_frozen() -> None:
    walked = Walked(path=["B001", "B002"], depart=10, arrive=15)
    with pytest.raises(AttributeError):
        walked.depart = 3  # type: ignore[misc]


def test_unknown_kind_is_rejected() -> None:
    with pytest.raises(msgspec.ValidationError):
        decode_event(b'{"kind":"no_such_event"}')


def test_chain_hash_binds_previous_hash_time_and_payload() -> None:
    payload = canonical(call({}))
    base = chain_hash("0" * 64, 10, payload)
    assert base != chain_hash("1" * 64, 10, payload)
    assert base != chain_hash("0" * 64, 11, payload)
    assert base != chain_hash("0" * 64, 10, canonical(call({"a": 1})))


def test_genesis_binds_world_term_seed_and_config() -> None:
    base = genesis_hash("w", "t", 0, {"round_limit": 20}, "a")
    assert base == genesis_hash("w", "t", 0, {"round_limit": 20.0}, "a")
    assert len({base, genesis_hash("w2", "t", 0, {}, "a"), genesis_hash("w", "t2", 0, {}, "a"), genesis_hash("w", "t", 1, {}, "a")}) == 4


def test_genesis_binds_the_agent_only_under_rules_that_say_so() -> None:
    bound = {"round_limit": 20, "agent_bound": True}
    assert genesis_hash("w", "t", 0, bound, "oracle") != genesis_hash("w", "t", 0, bound, "noop")
    assert genesis_hash("w", "t", 0, {"round_limit": 20}, "oracle") == genesis_hash("w", "t", 0, {"round_limit": 20}, "noop")


def test_a_schema_1_payload_decodes_as_its_upcast_event() -> None:
    old = [
        b'{"kind":"booked","booking_id":"bk_1","task_id":"t","location_id":"B001","room_id":"101",'
        b'"item_name":"Debate Hall","date":"Week 4, Saturday","time_slot":"09:00-10:30","seat_id":""}',
        b'{"kind":"calendar_event_added","calendar_id":"self","event_id":"evt_1","title":"Lab","location":"L",'
        b'"time":"Week 1-18, Monday, 14:00-16:50","description":""}',
        b'{"kind":"calendar_event_updated","calendar_id":"self","event_id":"evt_1",'
        b'"changes":{"location":"Cafe","time":"Week 3, Sunday, 08:05-09:00"}}',
        b'{"kind":"world_changed","change_id":"c","change":{"type":"advisor_availability","advisor_id":"T1",'
        b'"date":"Week 0, Tuesday","slots":["13:00-14:00"]}}',
        b'{"kind":"world_changed","change_id":"c","change":{"type":"calendar_event","calendar_id":"advisor_T1",'
        b'"title":"Busy","location":"x","time":"Week 2, Friday, 09:00-10:00"}}',
    ]
    lab = CalendarTime(first_week=1, last_week=18, weekday=0, start=14 * 60, end=16 * 60 + 50)
    expected = [
        Booked(booking_id="bk_1", task_id="t", location_id="B001", room_id="101", item_name="Debate Hall",
               day=4 * 7 + 5, start=9 * 60, end=10 * 60 + 30),
        CalendarEventAdded(calendar_id="self", event_id="evt_1", title="Lab", location="L", time=lab),
        CalendarEventUpdated(calendar_id="self", event_id="evt_1", changes=EventChanges(
            location="Cafe", time=CalendarTime(first_week=3, last_week=3, weekday=6, start=8 * 60 + 5, end=9 * 60))),
        WorldChanged(change_id="c", change=AdvisorAvailability(advisor_id="T1", day=1, slots=(Span(start=780, end=840),))),
        WorldChanged(change_id="c", change=CalendarEntry(
            calendar_id="advisor_T1", title="Busy", location="x",
            time=CalendarTime(first_week=2, last_week=2, weekday=4, start=540, end=600))),
    ]
    assert [decode_event(payload) for payload in old] == expected
    current = [canonical(Walked(path=["B001"], depart=1, arrive=1))]
    assert decode_events(current + old) == decode_events(current) + expected


def test_an_update_without_a_time_reads_the_same_under_both_schemas() -> None:
    payload = b'{"kind":"calendar_event_updated","calendar_id":"self","event_id":"evt_2","changes":{"title":"X"}}'
    event = decode_event(payload)
    assert event == CalendarEventUpdated(calendar_id="self", event_id="evt_2", changes=EventChanges(title="X"))
    assert canonical(event) == canonical(msgspec.json.decode(payload))


def test_a_schema_1_label_that_does_not_read_becomes_a_time_nothing_applies() -> None:
    booked = decode_event(b'{"kind":"booked","booking_id":"bk_1","task_id":"t","location_id":"B","room_id":"R",'
                          b'"item_name":"I","date":"someday","time_slot":"10:00-09:00"}')
    assert isinstance(booked, Booked) and booked.day < 0 and booked.start >= booked.end
    added = decode_event(b'{"kind":"calendar_event_added","calendar_id":"self","event_id":"evt_1","title":"T",'
                         b'"location":"L","time":"Week 1, Funday, 10:00-11:00"}')
    assert isinstance(added, CalendarEventAdded) and added.time.start >= added.time.end


def test_a_payload_no_schema_reads_is_refused_with_the_current_error() -> None:
    with pytest.raises(msgspec.ValidationError, match="day"):
        decode_event(b'{"kind":"booked","booking_id":"bk_1","task_id":"t","location_id":"B","room_id":"R",'
                     b'"item_name":"I","day":"x","start":1,"end":2}')


@pytest.mark.parametrize("payload", [b'[1, 2]', b'"booked"', b'{"kind": ["booked"]}', b'{"kind": {"a": 1}}', b'{"kind": 7}',
                                     b'{"kind": "world_changed", "change": {"type": ["seat_availability"]}}'])
def test_a_payload_of_no_events_shape_is_a_validation_error(payload: bytes) -> None:
    """A stored payload is untrusted: whatever its shape, reading it fails as a payload no schema reads, never with
    the error of an upcaster handed what no schema ever wrote."""
    with pytest.raises(msgspec.ValidationError):
        decode_event(payload)


def test_upcasters_run_from_the_payloads_schema() -> None:
    @register(0, "walked")
    def rename(raw: dict) -> dict:
        raw = dict(raw)
        raw["path"] = raw.pop("route")
        return raw

    try:
        old = {"kind": "walked", "route": ["B001", "B002"], "depart": 1, "arrive": 2}
        assert upcast(old, 0) == {"kind": "walked", "path": ["B001", "B002"], "depart": 1, "arrive": 2}
        assert upcast(old, events.SCHEMA_VERSION) == old
    finally:
        UPCASTERS.pop(0, None)


@pytest.mark.parametrize(("change", "plain"), [
    (Popularity(code="CS101", value=87), {"type": "popularity", "code": "CS101", "value": 87}),
    (SeatAvailability(building_id="B021", room_id="East Wing", day=30, open_seats=("B021-East Wing-S009", "B021-East Wing-S001")),
     {"type": "seat_availability", "building_id": "B021", "room_id": "East Wing", "day": 30,
      "open_seats": ["B021-East Wing-S009", "B021-East Wing-S001"]}),
    (AdvisorAvailability(advisor_id="T0800", day=32, slots=(Span(start=960, end=1020),)),
     {"type": "advisor_availability", "advisor_id": "T0800", "day": 32, "slots": [{"start": 960, "end": 1020}]}),
    (CalendarEntry(calendar_id="advisor_T1", title="Busy", location="Office", time=CalendarTime(first_week=1, last_week=1, weekday=0, start=600, end=660)),
     {"type": "calendar_event", "calendar_id": "advisor_T1", "title": "Busy", "location": "Office",
      "time": {"first_week": 1, "last_week": 1, "weekday": 0, "start": 600, "end": 660}}),
    (CalendarEntry(calendar_id="self", title="Lab", location="Lab", time=CalendarTime(first_week=1, last_week=4, weekday=0, start=870, end=910), description="weekly"),
     {"type": "calendar_event", "calendar_id": "self", "title": "Lab", "location": "Lab",
      "time": {"first_week": 1, "last_week": 4, "weekday": 0, "start": 870, "end": 910}, "description": "weekly"}),
])
def test_a_world_change_round_trips_through_the_log_as_its_struct_in_the_bytes_of_its_dict(change: WorldChange, plain: dict) -> None:
    event = WorldChanged(change_id="c1", change=change)
    payload = canonical(event)
    assert payload == canonical({"kind": "world_changed", "change_id": "c1", "change": plain})
    back = decode_event(payload)
    assert back == event and isinstance(back, WorldChanged) and type(back.change) is type(change)

"""The reservation subsystem: listings, bookings, conflicts, seeded availability, shaping, fuzzing.

Most tests run on a small hand-built campus: Grand Central Library (B001) with two rooms
named "Quiet Study Zone" (West Wing, 60 seats; East Wing, 3 seats), a public "Debate Hall"
(101) and a "Computer Lab" (101-120); Riverside Library (B003) with one reading room; and
Science Hall (B002), which is not a library. Handlers are called through the kernel's
``DomainHarness`` (arguments bound as the dispatcher binds them, handler contract checked).
"""

from __future__ import annotations

import ast
import json
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.events import Booked, Popularity, SeatAvailability, WorldChanged
from campus.kernel.clock import date_label, parse_moment
from campus.kernel.engine import ToolView
from campus.kernel.projection import Projection
from campus.kernel.tools import ToolDecl, bind_arguments
from campus.subsystems.calendar import parse_day
from campus.subsystems.reservation import (
    OPEN_SHARE,
    RESERVATION,
    RESERVATION_TOOLS,
    ReservationState,
    seat_availability_problem,
    seat_drawn_open,
)
from tests.conftest import SHARED
from tests.harness import DomainHarness, encoded
from campus.world.generate import generate_world
from campus.world.index import WorldIndex
from campus.world.model import SEAT_FEATURES, Building, Library, Room, Seat, World
from campus.world.stulife import load_map

TOOLS: dict[str, ToolDecl] = {t.name: t for t in RESERVATION_TOOLS}
QUERY, BOOK = "reservation.query_availability", "reservation.make_booking"
NOW = parse_moment("Week 1, Monday 09:00")
DATE = "Week 4, Saturday"
DAY = 4 * 7 + 5
WEST, EAST = "Quiet Study Zone (West Wing)", "Quiet Study Zone (East Wing)"


def features(i: int) -> list[str]:
    """Seat i: good_wifi always, power_outlet if even, quiet_zone if a multiple of 3, window_seat if of 5."""
    return ["good_wifi"] + [f for f, n in (("power_outlet", 2), ("quiet_zone", 3), ("window_seat", 5)) if i % n == 0]


def seats(building: str, room: str, count: int) -> list[Seat]:
    return [Seat(id=f"{building}-{room}-S{i:03d}", features=features(i)) for i in range(1, count + 1)]


def building(building_id: str, name: str) -> Building:
    return Building(id=building_id, name=name, aliases=[], type="Academic", zone="Quad", amenities={})


def campus(with_libraries: bool = True) -> WorldIndex:
    grand = Library(
        building_id="B001",
        rooms=[
            Room(id="West Wing", name="Quiet Study Zone", floor="floor_2", kind="StudyArea", seats=seats("B001", "West Wing", 60)),
            Room(id="East Wing", name="Quiet Study Zone", floor="floor_3", kind="StudyArea", seats=seats("B001", "East Wing", 3)),
            Room(id="101", name="Debate Hall", floor="floor_1", kind="PublicArea"),
            Room(id="101-120", name="Computer Lab", floor="floor_1", kind="StudyArea", seats=seats("B001", "101-120", 2)),
        ],
    )
    river = Library(building_id="B003", rooms=[Room(id="105", name="Reading Room", floor="floor_1", kind="StudyArea", seats=seats("B003", "105", 5))])
    world = World(
        name="test",
        seed=None,
        home="B002",
        buildings=[building("B001", "Grand Central Library"), building("B002", "Science Hall"), building("B003", "Riverside Library")],
        paths=[],
        complexes=[],
        libraries=[grand, river] if with_libraries else [],
    )
    return WorldIndex(world)


CAMPUS = campus()


class Harness(DomainHarness):
    """One reservation part on a world, with the view's clock, seed, task and rules version under the test's control.

    Most tests here hold the rules of version 1 (the seat-by-seat draw and listing), which old runs still follow;
    the version 2 tests near the end check its draw and that its compact listing tells the same."""

    def __init__(self, world: WorldIndex = CAMPUS, now: int = NOW, seed: int = 0, task_id: str = "t1", rules: int = 1) -> None:
        super().__init__(RESERVATION, world)
        self.now, self.seed, self.task_id, self.rules = now, seed, task_id, rules

    def view(self, part: Any = None) -> ToolView:
        state = SimpleNamespace(reservation=self.part if part is None else part)
        return ToolView(world=self.campus, state=state, task_id=self.task_id, now=self.now, seed=self.seed, rules=self.rules)

    def shape(self, room_id: str, open_seats: list[str], date: str = DATE, building_id: str = "B001") -> None:
        day = parse_day(date)
        assert isinstance(day, int)
        change = SeatAvailability(building_id=building_id, room_id=room_id, day=day, open_seats=tuple(open_seats))
        RESERVATION.reducers[WorldChanged](self.part, WorldChanged(change_id="c", change=change))

    def listing(self, **args: Any) -> Any:
        return self.ok(QUERY, **{"location_id": "B001", "date": DATE, **args}).result

    def book(self, item: str = WEST, slot: str = "14:00-16:00", seat: str | None = "B001-West Wing-S012", date: str = DATE, location: str = "B001") -> Any:
        args = {"location_id": location, "item_name": item, "date": date, "time_slot": slot}
        if seat is not None:
            args["seat_id"] = seat
        return self.call(BOOK, **args)

    def booked(self, **args: Any) -> Booked:
        outcome = self.book(**args)
        assert outcome.result.ok, outcome.result.message
        return outcome.facts[0]

    def refused(self, **args: Any) -> str:
        before = encoded(self.part)
        outcome = self.book(**args)
        assert not outcome.result.ok and outcome.facts == () and encoded(self.part) == before
        return outcome.result.message


@pytest.fixture
def h() -> Harness:
    harness = Harness()
    harness.shape("West Wing", [f"B001-West Wing-S{i:03d}" for i in range(1, 61) if i != 7])  # all but S007 open
    harness.shape("East Wing", ["B001-East Wing-S001", "B001-East Wing-S002", "B001-East Wing-S003"])
    return harness


def room_data(result: Any, room_id: str) -> dict[str, Any]:
    return next(r for r in result.data["rooms"] if r["room_id"] == room_id)


def seat_ids(result: Any, room_id: str) -> list[str]:
    return [s["seat_id"] for s in room_data(result, room_id)["seats"]]


# ------------------------------------------------------------------ query_availability


def test_listing_shows_every_room_bounded_with_free_times(h: Harness) -> None:
    result = h.listing()
    lines = result.message.splitlines()
    assert lines[0] == "Availability in Grand Central Library (B001) on Week 4, Saturday (open 08:00-22:00; book in quarter hours):"
    assert "Quiet Study Zone (West Wing), floor_2, study area (book one seat): 59 of 60 seats open." in lines
    assert "  - B001-West Wing-S006 [good_wifi, power_outlet, quiet_zone]: free 08:00-22:00" in lines
    assert not any("S007" in line for line in lines)
    assert '  ... and 49 more open seats; narrow the list with room="Quiet Study Zone (West Wing)" and/or features=[...].' in lines
    assert "B001-West Wing-S011" in result.message and "B001-West Wing-S012" not in result.message  # 10 per room here
    assert "Debate Hall (101), floor_1, public area (book the whole room, no seat_id): free 08:00-22:00." in lines
    assert lines[-1].startswith('Book with reservation.make_booking(location_id="B001"')
    west = room_data(result, "West Wing")
    assert west["open_seats"] == 59 and len(west["seats"]) == 10
    assert west["seats"][0] == {"seat_id": "B001-West Wing-S001", "features": ["good_wifi"], "free": ["08:00-22:00"]}
    assert room_data(result, "101") == {"room_id": "101", "name": "Debate Hall", "floor": "floor_1", "kind": "PublicArea", "free": ["08:00-22:00"]}
    assert [r["room_id"] for r in result.data["rooms"]] == ["West Wing", "East Wing", "101", "101-120"]
    assert (result.data["location_id"], result.data["date"]) == ("B001", DATE)
    assert all(len(line) < 200 for line in lines)


def test_unshaped_rooms_follow_the_seeded_draw() -> None:
    h = Harness()
    result = h.listing(room="Computer Lab")
    drawn = [s.id for s in seat_list("101-120") if seat_drawn_open(0, DATE, s.id)]
    assert seat_ids(result, "101-120") == drawn
    river = h.ok(QUERY, location_id="b003", date="week 4 sat").result
    assert river.data["location_id"] == "B003" and river.data["date"] == DATE
    assert seat_ids(river, "105") == [s.id for s in seat_list("105", "B003") if seat_drawn_open(0, DATE, s.id)]


def seat_list(room_id: str, building_id: str = "B001") -> list[Seat]:
    library = next(lib for lib in CAMPUS.world.libraries if lib.building_id == building_id)
    return next(r for r in library.rooms if r.id == room_id).seats


def test_open_share_is_about_six_in_ten() -> None:
    draws = [seat_drawn_open(seed, f"Week {w}, Monday", f"B001-X-S{i:03d}") for seed in range(3) for w in range(10) for i in range(100)]
    assert abs(sum(draws) / len(draws) - OPEN_SHARE) < 0.03


def test_same_seed_same_listing_other_seed_or_date_differs() -> None:
    first, again, other = Harness(seed=7), Harness(seed=7), Harness(seed=8)
    assert first.listing().message == again.listing().message
    assert seat_ids(first.listing(room=WEST), "West Wing") != seat_ids(other.listing(room=WEST), "West Wing")
    assert seat_ids(first.listing(room=WEST), "West Wing") != seat_ids(first.listing(room=WEST, date="Week 4, Sunday"), "West Wing")


@pytest.mark.parametrize(
    ("room", "expected"),
    [
        ("Quiet Study Zone", ["West Wing", "East Wing"]),
        ("quiet   study zone", ["West Wing", "East Wing"]),
        ("West Wing", ["West Wing"]),
        ("quiet study zone (west wing)", ["West Wing"]),
        ("Quiet Study Zone(West Wing )", ["West Wing"]),
        ("101", ["101"]),
        ("Debate Hall (101)", ["101"]),
        ("101-120", ["101-120"]),
    ],
)
def test_room_filter(h: Harness, room: str, expected: list[str]) -> None:
    assert [r["room_id"] for r in h.listing(room=room).data["rooms"]] == expected


def test_unknown_room_lists_the_rooms_and_a_seat_given_as_room_is_explained(h: Harness) -> None:
    message = h.fail(QUERY, location_id="B001", date=DATE, room="Silent Room")
    assert message == (
        "Grand Central Library (B001) has no room 'Silent Room'. Its rooms: Quiet Study Zone (West Wing) on floor_2, "
        "study area, Quiet Study Zone (East Wing) on floor_3, study area, Debate Hall (101) on floor_1, public area, "
        "Computer Lab (101-120) on floor_1, study area. Name a room by its name, its id, or as 'name (id)'."
    )
    seat = h.fail(QUERY, location_id="B001", date=DATE, room="b001-west wing-s012")
    assert "is a seat in Quiet Study Zone (West Wing), not a room" in seat


def test_one_study_area_lists_up_to_25_seats(h: Harness) -> None:
    result = h.listing(room=WEST)
    assert len(room_data(result, "West Wing")["seats"]) == 25
    assert "  - B001-West Wing-S026 [good_wifi, power_outlet]: free 08:00-22:00" in result.message
    assert '  ... and 34 more open seats; narrow the list with room="Quiet Study Zone (West Wing)"' in result.message
    assert len(result.message.splitlines()) == 1 + 1 + 25 + 1 + 1


def test_feature_filter_keeps_seats_with_every_feature(h: Harness) -> None:
    result = h.listing(room=WEST, features=["Power Outlet", "quiet-zone", "power_outlet"])
    ids = seat_ids(result, "West Wing")
    assert ids == [f"B001-West Wing-S{i:03d}" for i in range(6, 61, 6)]
    assert "10 open seat(s) have power_outlet, quiet_zone." in result.message
    everywhere = h.listing(features=["window_seat"])
    assert [r["room_id"] for r in everywhere.data["rooms"]] == ["West Wing", "East Wing", "101-120"]  # public areas left out
    assert seat_ids(everywhere, "East Wing") == []
    assert "0 open seat(s) have window_seat." in everywhere.message
    assert h.listing(features=[]).data == h.listing().data


@pytest.mark.parametrize(
    ("features_arg", "fragment"),
    [
        (["sofa", "power_outlet"], "'sofa' is not a seat feature. Seat features: good_wifi,"),
        ([3], "'a non-text value' is not a seat feature"),
        ([["power_outlet"]], "is not a seat feature"),
    ],
)
def test_bad_features_fail(h: Harness, features_arg: list[Any], fragment: str) -> None:
    assert fragment in h.fail(QUERY, location_id="B001", date=DATE, features=features_arg)


def test_features_on_a_public_area_fail(h: Harness) -> None:
    message = h.fail(QUERY, location_id="B001", date=DATE, room="Debate Hall", features=["whiteboard"])
    assert "apply only to study areas" in message


@pytest.mark.parametrize("tool", [QUERY, BOOK])
def test_non_library_buildings_name_the_libraries(h: Harness, tool: str) -> None:
    args = {"date": DATE} | ({} if tool == QUERY else {"item_name": WEST, "time_slot": "14:00-16:00", "seat_id": "S012"})
    libraries = "Buildings with bookable spaces: Grand Central Library (B001), Riverside Library (B003)."
    assert h.fail(tool, location_id="B002", **args) == f"Science Hall (B002) is not a library and has no seats or rooms to book. {libraries}"
    assert h.fail(tool, location_id="B999", **args) == (
        f"There is no building with id 'B999'. {libraries} Use map.find_building_id to look up an id."
    )


def test_a_campus_without_libraries_says_so() -> None:
    h = Harness(world=campus(with_libraries=False))
    assert "No building on this campus has bookable spaces." in h.fail(QUERY, location_id="B001", date=DATE)


@pytest.mark.parametrize("tool", [QUERY, BOOK])
@pytest.mark.parametrize(
    ("date", "fragment"),
    [
        ("Week 4", "Cannot read the date"),
        ("Saturday", "Cannot read the date"),
        ("Week 4, Caturday", "not a day of the week"),
        ("Week 4, Saturday 10:00", "Cannot read the date"),
        ("Week 0, Friday", "Week 0, Friday is in the past: it is now Week 1, Monday 09:00. Choose today or a later date."),
        ("Week 0, Sunday", "is in the past"),
    ],
)
def test_bad_and_past_dates_fail(h: Harness, tool: str, date: str, fragment: str) -> None:
    args = {} if tool == QUERY else {"item_name": WEST, "time_slot": "14:00-16:00", "seat_id": "S012"}
    assert fragment in h.fail(tool, location_id="B001", date=date, **args)


def test_today_offers_only_times_from_the_next_quarter_hour() -> None:
    h = Harness(now=parse_moment("Week 1, Monday 10:07"))
    h.shape("East Wing", ["B001-East Wing-S001"], date="Week 1, Monday")
    result = h.listing(date="Week 1, Monday")
    assert "  - B001-East Wing-S001 [good_wifi]: free 10:15-22:00" in result.message
    assert room_data(result, "101")["free"] == ["10:15-22:00"]
    late = Harness(now=parse_moment("Week 1, Monday 22:01"))
    assert "not free for the rest of this date" in late.listing(date="Week 1, Monday", room="Debate Hall").message


# ------------------------------------------------------------------ make_booking: success


def test_booking_a_seat(h: Harness) -> None:
    outcome = h.book(item="quiet study zone (west wing)", slot=" 14:00 - 16:00 ", seat="b001-west wing-s012", date="week 4 sat", location="b001")
    assert outcome.result.message == (
        "Booked seat B001-West Wing-S012 in Quiet Study Zone (West Wing), Grand Central Library (B001), "
        "Week 4, Saturday 14:00-16:00 (booking bk_1)."
    )
    fact = Booked(
        booking_id="bk_1", task_id="t1", location_id="B001", room_id="West Wing", item_name="Quiet Study Zone",
        day=DAY, start=840, end=960, seat_id="B001-West Wing-S012",
    )
    assert outcome.facts == (fact,)
    assert outcome.result.data == {
        "booking_id": "bk_1", "location_id": "B001", "room_id": "West Wing", "item_name": "Quiet Study Zone",
        "seat_id": "B001-West Wing-S012", "date": DATE, "time_slot": "14:00-16:00",
    }
    booking = h.part.bookings[0]
    assert (booking.day, booking.start, booking.end, booking.task_id) == (4 * 7 + 5, 840, 960, "t1")
    assert h.part.next_booking == 2


def test_booking_a_public_area_and_ids_count_up(h: Harness) -> None:
    h.booked()
    h.task_id = "t2"
    fact = h.booked(item="Debate Hall", seat=None, slot="9:00-10:30")
    assert fact == Booked(booking_id="bk_2", task_id="t2", location_id="B001", room_id="101", item_name="Debate Hall", day=DAY, start=540, end=630)
    assert h.book(item="Debate Hall", seat=None, slot="10:30-11:00").result.message == (
        "Booked Debate Hall (101), Grand Central Library (B001), Week 4, Saturday 10:30-11:00 (booking bk_3)."
    )
    assert [b.booking_id for b in h.part.bookings] == ["bk_1", "bk_2", "bk_3"]


@pytest.mark.parametrize(
    ("item", "seat", "room_id"),
    [
        ("West Wing", "S012", "West Wing"),
        ("Quiet Study Zone", "B001-West Wing-S012", "West Wing"),
        ("Quiet Study Zone", "S012", "West Wing"),  # only the West Wing has a seat S012
        ("Quiet Study Zone", "B001-East Wing-S001", "East Wing"),
        ("QUIET STUDY ZONE (EAST WING)", "s002", "East Wing"),
        ("Computer Lab", "S001", "101-120"),
    ],
)
def test_rooms_and_seats_in_every_accepted_form(h: Harness, item: str, seat: str, room_id: str) -> None:
    h.shape("101-120", ["B001-101-120-S001"])
    fact = h.booked(item=item, seat=seat)
    assert fact.room_id == room_id and fact.item_name in ("Quiet Study Zone", "Computer Lab")
    assert fact.seat_id.startswith(f"B001-{room_id}-S")


def test_today_from_now_on(h: Harness) -> None:
    h.now = parse_moment("Week 4, Saturday 13:50")
    assert (h.booked(slot="14:00-16:00").start, h.booked(slot="16:00-17:00").end) == (840, 1020)


# ------------------------------------------------------------------ make_booking: refusals


@pytest.mark.parametrize(
    ("slot", "fragment"),
    [
        ("14:00", "Cannot read the time slot '14:00'. Write it as 'HH:MM-HH:MM'"),
        ("2pm-4pm", "Cannot read the time slot"),
        ("16:00-14:00", "Cannot read the time slot"),
        ("14:00-14:00", "Cannot read the time slot"),
        ("21:00-24:00", "Cannot read the time slot"),
        ("14:10-16:00", "14:10-16:00 is not on the quarter-hour grid"),
        ("14:00-15:59", "not on the quarter-hour grid"),
        ("07:45-09:00", "07:45-09:00 is outside the library's opening hours, 08:00-22:00."),
        ("21:00-22:15", "outside the library's opening hours"),
        ("", "Cannot read the time slot"),
    ],
)
def test_bad_time_slots_fail(h: Harness, slot: str, fragment: str) -> None:
    assert fragment in h.refused(slot=slot)


def test_today_before_now_and_after_closing_fail(h: Harness) -> None:
    h.now = parse_moment("Week 4, Saturday 14:05")
    assert h.refused(slot="14:00-16:00") == (
        "It is already 14:05 on Week 4, Saturday, so a booking for today must start at 14:15 or later."
    )
    h.now = parse_moment("Week 4, Saturday 21:50")
    assert "closed for the rest of today" in h.refused(slot="21:00-22:00")


def test_a_shared_name_needs_the_id_or_a_seat(h: Harness) -> None:
    message = h.refused(item="Quiet Study Zone", seat=None)
    assert message == (
        "2 rooms of Grand Central Library (B001) match 'Quiet Study Zone' (say which one): Quiet Study Zone (West Wing) "
        "on floor_2, study area, Quiet Study Zone (East Wing) on floor_3, study area. Give item_name as 'name (id)', "
        "e.g. 'Quiet Study Zone (West Wing)'."
    )
    assert "(say which one)" in h.refused(item="Quiet Study Zone", seat="S001")  # both rooms have an S001
    assert "none of them has a seat 'S099'" in h.refused(item="Quiet Study Zone", seat="S099")


def test_seat_rules(h: Harness) -> None:
    assert h.refused(seat=None) == (
        "Quiet Study Zone (West Wing) is a study area: you book one seat in it. Give seat_id, one of the open seats "
        'reservation.query_availability(location_id="B001", date="Week 4, Saturday", room="Quiet Study Zone (West Wing)") lists.'
    )
    assert "is a study area" in h.refused(seat="  ")
    assert h.refused(item="Debate Hall", seat="S001") == "Debate Hall (101) is a public area, booked whole: leave seat_id out."
    assert h.refused(item=EAST, seat="B001-West Wing-S012") == (
        "Quiet Study Zone (East Wing) has no seat 'B001-West Wing-S012'. It is in Quiet Study Zone (West Wing). "
        "Seat ids there look like 'B001-East Wing-S001'."
    )
    assert h.refused(seat="B001-West Wing-S007") == (
        "Seat B001-West Wing-S007 is not open for booking on Week 4, Saturday. "
        'reservation.query_availability(location_id="B001", date="Week 4, Saturday", room="Quiet Study Zone (West Wing)") '
        "lists the seats that are."
    )
    assert "has no room 'Library Cafe'" in h.refused(item="Library Cafe")
    assert "is a seat in Quiet Study Zone (West Wing), not a room" in h.refused(item="B001-West Wing-S012", seat=None)
    assert "has no room" in h.refused(item="  ")


def test_booked_seats_are_not_offered_for_overlapping_times(h: Harness) -> None:
    h.booked()
    assert h.refused(slot="15:00-17:00") == (
        "Seat B001-West Wing-S012 is already booked on Week 4, Saturday at 14:00-16:00 (booking bk_1), which overlaps "
        "15:00-17:00. It is free 08:00-14:00, 16:00-22:00 that day."
    )
    assert "already booked" in h.refused(slot="08:00-22:00")
    assert "already booked" in h.refused(slot="13:45-14:15")
    assert h.booked(slot="16:00-18:00").booking_id == "bk_2"  # back to back is fine
    assert h.booked(slot="08:00-14:00").booking_id == "bk_3"
    assert h.booked(seat="S013").booking_id == "bk_4"  # another seat at the same time
    h.shape("West Wing", ["B001-West Wing-S012"], date="Week 4, Sunday")
    assert h.booked(date="Week 4, Sunday", seat="S012").booking_id == "bk_5"  # the same time on another date


def test_listing_shows_booked_windows_and_hides_fully_booked_seats(h: Harness) -> None:
    h.booked()
    h.booked(seat="S013", slot="08:00-22:00")
    result = h.listing(room=WEST)
    assert "  - B001-West Wing-S012 [good_wifi, power_outlet, quiet_zone]: free 08:00-14:00, 16:00-22:00 (booked 14:00-16:00)" in result.message
    assert "B001-West Wing-S013" not in result.message
    assert "58 of 60 seats open" in result.message
    entry = next(s for s in room_data(result, "West Wing")["seats"] if s["seat_id"] == "B001-West Wing-S012")
    assert entry["free"] == ["08:00-14:00", "16:00-22:00"]
    other_day = h.listing(room=WEST, date="Week 4, Sunday")  # unshaped: the seeded draw, bookings of another day ignored
    assert "(booked" not in other_day.message


def test_public_areas_conflict_by_room(h: Harness) -> None:
    h.booked(item="Debate Hall", seat=None, slot="10:00-12:00")
    assert "Debate Hall (101) is already booked on Week 4, Saturday at 10:00-12:00 (booking bk_1)" in h.refused(item="Debate Hall", seat=None, slot="11:00-13:00")
    assert h.listing(room="Debate Hall").data["rooms"][0]["free"] == ["08:00-10:00", "12:00-22:00"]
    assert "(booked 10:00-12:00)" in h.listing(room="Debate Hall").message
    assert h.booked(item="Debate Hall", seat=None, slot="12:00-13:00").booking_id == "bk_2"
    h.shape("105", ["B003-105-S001"], date="Week 5, Monday", building_id="B003")
    other = h.booked(location="B003", item="Reading Room", seat="S001", date="Week 5, Monday")
    assert (other.location_id, other.room_id, other.seat_id, other.booking_id) == ("B003", "105", "B003-105-S001", "bk_3")


# ------------------------------------------------------------------ shaping through world changes


def test_world_change_makes_exactly_the_listed_seats_open() -> None:
    h = Harness()
    closed = next(s.id for s in seat_list("West Wing") if not seat_drawn_open(0, DATE, s.id))
    opened = next(s.id for s in seat_list("West Wing") if seat_drawn_open(0, DATE, s.id))
    assert "is not open for booking" in h.refused(seat=closed)
    h.shape("West Wing", [closed, closed])
    assert seat_ids(h.listing(room=WEST), "West Wing") == [closed]
    assert h.part.shaped == {f"B001|West Wing|{DAY}": [closed]}
    assert "is not open for booking" in h.refused(seat=opened)
    assert h.booked(seat=closed).seat_id == closed
    assert seat_ids(h.listing(room=EAST), "East Wing") == [s.id for s in seat_list("East Wing") if seat_drawn_open(0, DATE, s.id)]
    h.shape("West Wing", [], date="week 4 saturday")  # the latest change for a room and date wins
    assert h.listing(room=WEST).data["rooms"][0]["open_seats"] == 0


@pytest.mark.parametrize(
    "change",
    [
        SeatAvailability(building_id="", room_id="West Wing", day=DAY, open_seats=()),
        SeatAvailability(building_id="B001", room_id="A|B", day=DAY, open_seats=()),
        SeatAvailability(building_id="B001", room_id="W" * 201, day=DAY, open_seats=()),
        SeatAvailability(building_id="B001", room_id="West Wing", day=-1, open_seats=()),
        SeatAvailability(building_id="B001", room_id="West Wing", day=DAY, open_seats=("",)),
    ],
)
def test_invalid_world_changes_are_reported_and_ignored(change: SeatAvailability) -> None:
    h = Harness()
    before = encoded(h.part)
    assert isinstance(seat_availability_problem(change), str)
    RESERVATION.reducers[WorldChanged](h.part, WorldChanged(change_id="c", change=change))
    assert encoded(h.part) == before


def test_world_change_checked_against_the_world() -> None:
    good = SeatAvailability(building_id="B001", room_id="West Wing", day=DAY, open_seats=("B001-West Wing-S012",))
    assert seat_availability_problem(good) is None and seat_availability_problem(good, CAMPUS) is None
    for changes, fragment in [
        ({"building_id": "B002"}, "'B002' is not the id of a library"),
        ({"building_id": "b001"}, "'b001' is not the id of a library"),
        ({"room_id": "101"}, "B001 has no study area with id '101'"),
        ({"room_id": "North Wing"}, "B001 has no study area with id 'North Wing'"),
        ({"open_seats": ("B001-West Wing-S012", "B001-East Wing-S001")}, "Quiet Study Zone (West Wing) has no seat 'B001-East Wing-S001'"),
    ]:
        bad = msgspec.structs.replace(good, **changes)
        assert seat_availability_problem(bad, CAMPUS) == f"seat_availability: {fragment}"
        assert seat_availability_problem(bad) is None  # the reducer cannot tell without the world


def test_other_world_changes_are_ignored() -> None:
    h = Harness()
    before = encoded(h.part)
    RESERVATION.reducers[WorldChanged](h.part, WorldChanged(change_id="c", change=Popularity(code="B001", value=1)))
    assert encoded(h.part) == before


# ------------------------------------------------------------------ reducers, folding, determinism


def script(h: Harness) -> list[str]:
    h.shape("West Wing", ["B001-West Wing-S012", "B001-West Wing-S013"])
    messages = [h.book().result.message, h.book(slot="15:00-16:00").result.message, h.book(seat="S013").result.message]
    messages.append(h.book(item="Debate Hall", seat=None).result.message)
    messages.append(h.listing().message)
    return messages


def test_same_calls_same_state_and_messages() -> None:
    first, second = Harness(seed=3), Harness(seed=3)
    assert script(first) == script(second)
    assert encoded(first.part) == encoded(second.part)
    assert first.part.next_booking == 4


def test_projection_fold_and_snapshot_round_trip() -> None:
    h = Harness()
    facts: list[Any] = [WorldChanged(change_id="c", change=SeatAvailability(building_id="B001", room_id="West Wing", day=DAY, open_seats=("B001-West Wing-S012",)))]
    RESERVATION.reducers[WorldChanged](h.part, facts[0])
    facts += h.book().facts + h.book(item="Debate Hall", seat=None).facts
    projection = Projection([RESERVATION], CAMPUS)
    state = projection.fold(projection.initial(), facts, len(facts), 0)
    assert encoded(state.reservation) == encoded(h.part) and len(h.part.bookings) == 2
    assert msgspec.json.decode(encoded(h.part), type=ReservationState) == h.part


def test_booked_reducer_skips_unreadable_facts_and_follows_ids() -> None:
    part = ReservationState()
    bad = Booked(booking_id="bk_1", task_id="t", location_id="B001", room_id="101", item_name="Debate Hall", day=-1, start=600, end=660)
    RESERVATION.reducers[Booked](part, bad)
    RESERVATION.reducers[Booked](part, msgspec.structs.replace(bad, day=DAY, start=660, end=600))
    RESERVATION.reducers[Booked](part, msgspec.structs.replace(bad, day=DAY, start=1400, end=1441))
    assert part == ReservationState()
    RESERVATION.reducers[Booked](part, msgspec.structs.replace(bad, booking_id="bk_41", day=DAY, start=540, end=600))
    assert part.next_booking == 42
    assert (part.bookings[0].day, part.bookings[0].start, part.bookings[0].end) == (DAY, 540, 600)
    RESERVATION.reducers[Booked](part, msgspec.structs.replace(bad, booking_id="other", day=DAY))
    assert part.next_booking == 43


# ------------------------------------------------------------------ declarations


def test_declarations() -> None:
    assert list(TOOLS) == [QUERY, BOOK]
    assert RESERVATION.name == "reservation" and RESERVATION.tools == RESERVATION_TOOLS
    for tool in RESERVATION_TOOLS:
        assert tool.system == "reservation" and tool.minutes == 1 and tool.mutates == (tool.name == BOOK)
        assert tool.description.isascii() and all(p.description.isascii() for p in tool.params)
        assert tool.json_schema()["additionalProperties"] is False
    assert [p.name for p in TOOLS[QUERY].params] == ["location_id", "date", "room", "features"]
    assert [p.name for p in TOOLS[BOOK].params] == ["location_id", "item_name", "date", "time_slot", "seat_id"]
    assert [p.name for p in TOOLS[BOOK].params if not p.required] == ["seat_id"]
    assert all(f in TOOLS[QUERY].params[3].description for f in SEAT_FEATURES)


@pytest.mark.parametrize("tool", RESERVATION_TOOLS, ids=lambda t: t.name)
def test_examples_are_valid_calls(h: Harness, tool: ToolDecl) -> None:
    """Each example, filled with this world's names as the kernel fills it, books or lists as written."""
    from campus.kernel.tools import with_examples
    from campus.subsystems.examples import example_values

    call = ast.parse(with_examples(tool, example_values(h.campus)).example, mode="eval").body
    assert isinstance(call, ast.Call) and ast.unparse(call.func) == tool.name
    args = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    assert h.call(tool.name, **args).result.ok


# ------------------------------------------------------------------ the generated campus


def test_generated_world_libraries_are_bookable() -> None:
    world = WorldIndex(generate_world(0))
    if not world.world.libraries:
        pytest.skip("generate_world(0) has no libraries yet (another change adds them)")
    h = Harness(world=world)
    library = world.world.libraries[0]
    result = h.ok(QUERY, location_id=library.building_id, date=DATE).result
    study = next((r for r in result.data["rooms"] if r["kind"] == "StudyArea" and r["seats"]), None)
    public = next((r for r in result.data["rooms"] if r["kind"] != "StudyArea"), None)
    assert study is not None or public is not None
    if study is not None:
        fact = h.booked(location=library.building_id, item=f"{study['name']} ({study['room_id']})", seat=study["seats"][0]["seat_id"])
        assert fact.seat_id == study["seats"][0]["seat_id"]
    if public is not None:
        assert h.booked(location=library.building_id, item=f"{public['name']} ({public['room_id']})", seat=None).seat_id == ""
    non_library = next(b.id for b in world.world.buildings if b.id not in {lib.building_id for lib in world.world.libraries})
    assert "is not a library" in h.fail(QUERY, location_id=non_library, date=DATE)


# ------------------------------------------------------------------ the published StuLife seat map

STULIFE = SHARED / "stulife"


@pytest.fixture(scope="module")
def stulife() -> WorldIndex:
    if not (STULIFE / "campus_data.json").exists():
        pytest.skip(f"the published StuLife data is not at {STULIFE}")
    world, _ = load_map(STULIFE)
    data = json.loads((STULIFE / "campus_data.json").read_text())["library_seats"]["libraries"]
    libraries = [
        Library(
            building_id=b["id"],
            rooms=[
                Room(id=r["room_id"], name=r["room_name"], floor=floor, kind=r["type"],
                     seats=[Seat(id=s["seat_id"], features=s["features"]) for s in r.get("seats", [])])
                for floor, rooms in b["internal_amenities"].items()
                for r in rooms
            ],
        )
        for b in data
    ]
    return WorldIndex(msgspec.structs.replace(world, libraries=libraries))


def test_every_published_room_is_reachable_and_listings_stay_bounded(stulife: WorldIndex) -> None:
    """The reference could reach 24 of the 29 seated rooms by no name (stulife.md 8.5); here every room is."""
    h = Harness(world=stulife)
    assert len(stulife.world.libraries) == 14
    for library in stulife.world.libraries:
        result = h.ok(QUERY, location_id=library.building_id, date=DATE).result
        assert len(result.message) < 20_000
        assert [r["room_id"] for r in result.data["rooms"]] == [r.id for r in library.rooms]
        for room in library.rooms:
            only = h.ok(QUERY, location_id=library.building_id, date=DATE, room=f"{room.name} ({room.id})").result
            assert [r["room_id"] for r in only.data["rooms"]] == [room.id]
            if room.kind == "StudyArea":
                change = SeatAvailability(building_id=library.building_id, room_id=room.id, day=DAY, open_seats=(room.seats[0].id,))
                assert seat_availability_problem(change, stulife) is None


def test_published_map_duplicates_and_shared_names(stulife: WorldIndex) -> None:
    h = Harness(world=stulife)
    assert "2 rooms of Grand Central Library (B001) match 'Quiet Study Zone'" in h.refused(item="Quiet Study Zone", seat=None)
    h.shape("West Wing", ["B001-West Wing-S001", "B001-West Wing-S008"])
    result = h.listing(room=WEST)
    assert seat_ids(result, "West Wing") == ["B001-West Wing-S001", "B001-West Wing-S008"]  # S001 appears twice in the data, listed once
    assert "2 of 33 seats open" in result.message
    fact = h.booked(item="Quiet Study Zone", seat="B001-West Wing-S008")
    assert (fact.room_id, fact.item_name) == ("West Wing", "Quiet Study Zone")
    quiet = h.listing(room=WEST, features=["quiet_zone", "power_outlet"]).data["rooms"][0]["seats"]
    assert all({"quiet_zone", "power_outlet"} <= set(s["features"]) for s in quiet)


# ------------------------------------------------------------------ fuzzing

FITTING: dict[str, list[Any]] = {
    "location_id": ["B001", "B001", "b001", "b003", "B002", "B999", ""],
    "date": [DATE, DATE, "week 4 sat", "Week 1, Monday", "Week 0, Sunday", "Week 4", "Week 999, Sunday"],
    "room": [WEST, "Quiet Study Zone", "101", "Debate Hall", "B001-West Wing-S012", "x"],
    "item_name": [WEST, EAST, "Quiet Study Zone", "Debate Hall", "101-120", "Reading Room", "nothing"],
    "time_slot": ["14:00-16:00", "9:00-10:30", "07:00-09:00", "14:10-15:00", "16:00-14:00", "08:00-22:00", "x"],
    "seat_id": ["B001-West Wing-S012", "S012", "S014", "S001", "s007", "B003-105-S001", "", "zzz"],
    "features": [["power_outlet"], ["Quiet Zone", "power_outlet"], [], ["bogus"], [1, None], [["x"]]],
}
LONG = st.builds(lambda piece, n: piece * n, st.sampled_from([" ", "a", "(", "Week 1 ", "\u00e9", "1:"]), st.integers(100, 21000))
TEXT = st.one_of(st.text(max_size=30), LONG, st.sampled_from([v for k, vs in FITTING.items() if k != "features" for v in vs]))
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


SLOTS = st.builds(
    lambda start, length: f"{start // 4:02d}:{start % 4 * 15:02d}-{(start + length) // 4:02d}:{(start + length) % 4 * 15:02d}",
    st.integers(28, 88),
    st.integers(1, 16),
)


def fuzz_args(tool: ToolDecl) -> st.SearchStrategy[dict[str, Any]]:
    names = [p.name for p in tool.params]

    def value(param: Any, wild: bool) -> st.SearchStrategy[Any]:
        if wild:
            return st.lists(VALUES, max_size=4) if param.type == "array" else TEXT
        if param.name == "time_slot":
            return SLOTS | st.sampled_from(FITTING["time_slot"])
        return st.sampled_from(FITTING[param.name])

    def typed(wild: bool) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries(
            {p.name: value(p, wild) for p in tool.params if p.required},
            optional={p.name: value(p, wild) | st.none() for p in tool.params if not p.required},
        )

    loose = st.dictionaries(st.sampled_from(names + ["bogus"]), VALUES, max_size=len(names) + 1)
    return st.integers(0, 5).flatmap(lambda pick: loose if pick == 0 else typed(wild=pick == 1))


def seeded() -> Harness:
    h = Harness()
    h.shape("West Wing", [f"B001-West Wing-S{i:03d}" for i in range(1, 61) if i != 7])
    h.booked()
    h.booked(item="Debate Hall", seat=None, slot="10:00-11:00")
    return h


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_fuzz_tools_never_raise_and_failures_change_nothing(data: st.DataObject) -> None:
    tool = data.draw(st.sampled_from(RESERVATION_TOOLS))
    bound = bind_arguments(tool, data.draw(fuzz_args(tool)))
    if isinstance(bound, str):
        return  # the dispatcher answers with this message; the handler is not called
    h = seeded()
    before = encoded(h.part)
    outcome = tool.call(h.view(), bound)
    assert encoded(h.part) == before
    assert outcome.result.message and outcome.result.message.isascii()
    assert len(outcome.result.message) < 12_000
    if not outcome.result.ok or not tool.mutates:
        assert outcome.facts == ()
        return
    (fact,) = outcome.facts
    h.apply(outcome.facts)
    assert h.part.bookings[-1].booking_id == fact.booking_id == "bk_3"
    again = tool.call(h.view(), bound)  # the same booking twice always conflicts
    assert not again.result.ok and "already booked" in again.result.message


QUARTERS = st.tuples(st.integers(32, 87), st.integers(1, 24)).map(lambda p: (p[0] * 15, min(p[0] + p[1], 88) * 15))


def windows_of(busy: list[tuple[int, int]]) -> list[str]:
    """Free opening-hour windows, computed minute by minute (the model the subsystem must agree with)."""
    taken = {m for start, end in busy for m in range(start, end)}
    free = [m for m in range(8 * 60, 22 * 60) if m not in taken]
    runs: list[list[int]] = []
    for m in free:
        if runs and runs[-1][1] == m:
            runs[-1][1] = m + 1
        else:
            runs.append([m, m + 1])
    return [f"{a // 60:02d}:{a % 60:02d}-{b // 60:02d}:{b % 60:02d}" for a, b in runs]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["S001", "S002", "S003", None]), QUARTERS), max_size=12))
def test_bookings_and_listings_agree_with_a_simple_model(calls: list[tuple[str | None, tuple[int, int]]]) -> None:
    h = Harness()
    h.shape("East Wing", ["B001-East Wing-S001", "B001-East Wing-S002", "B001-East Wing-S003"])
    model: dict[str, list[tuple[int, int]]] = {}
    for seat, (start, end) in calls:
        slot = f"{start // 60:02d}:{start % 60:02d}-{end // 60:02d}:{end % 60:02d}"
        clash = any(s < end and start < e for s, e in model.get(seat or "room", []))
        outcome = h.book(item=EAST if seat else "Debate Hall", seat=seat, slot=slot)
        assert outcome.result.ok == (not clash), outcome.result.message
        if outcome.result.ok:
            model.setdefault(seat or "room", []).append((start, end))
    assert [b.booking_id for b in h.part.bookings] == [f"bk_{i}" for i in range(1, len(h.part.bookings) + 1)]
    east = {s["seat_id"][-4:]: s["free"] for s in h.listing(room=EAST).data["rooms"][0]["seats"]}
    for seat in ("S001", "S002", "S003"):
        expected = windows_of(model.get(seat, []))
        assert east.get(seat, []) == expected
    assert h.listing(room="Debate Hall").data["rooms"][0]["free"] == windows_of(model.get("room", []))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_fuzz_handlers_directly_with_any_strings(data: st.DataObject) -> None:
    """Even text the dispatcher would refuse (non-ASCII, over-long) must not crash a handler."""
    tool = data.draw(st.sampled_from(RESERVATION_TOOLS))
    args = {p.name: data.draw(TEXT) for p in tool.params if p.required or data.draw(st.booleans())}
    if "features" in args:
        args["features"] = data.draw(st.lists(TEXT, max_size=3))
    h = seeded()
    outcome = tool.call(h.view(), args)
    assert outcome.result.ok or outcome.facts == ()


@settings(max_examples=200, deadline=None)
@given(st.builds(
    SeatAvailability,
    building_id=TEXT | st.just("B001"),
    room_id=TEXT | st.just("West Wing"),
    day=st.integers(-3, 400) | st.just(DAY),
    open_seats=st.lists(TEXT | st.just("B001-West Wing-S012"), max_size=3).map(tuple),
))
def test_fuzz_world_changes_never_break_a_fold(change: SeatAvailability) -> None:
    h = Harness()
    RESERVATION.reducers[WorldChanged](h.part, WorldChanged(change_id="c", change=change))
    problem = seat_availability_problem(change)
    assert isinstance(seat_availability_problem(change, CAMPUS), (str, type(None)))  # never raises, with the world too
    assert len(h.part.shaped) == (problem is None)


def test_every_generated_library_room_is_bookable_by_its_map_amenity_name() -> None:
    """The map names a room the way its building's amenities list it; that name must book it."""
    from campus.subsystems.reservation import libraries, match_rooms
    from campus.world.gen_library import amenity_of
    from campus.world.generate import generate_world
    from campus.world.index import WorldIndex

    world = WorldIndex(generate_world(0))
    checked = 0
    for place in libraries(world).places:
        for room in place.rooms:
            assert room in match_rooms(place, amenity_of(room)), amenity_of(room)
            checked += 1
    assert checked >= 50


# ------------------------------------------------------------------ rules version 2


def test_rules_2_draws_each_room_once_per_date() -> None:
    from campus.subsystems.reservation import drawn_open, libraries, room_draw

    place = libraries(CAMPUS).by_id["b001"]
    west = next(r for r in place.rooms if r.id == "West Wing")
    shares, differs = [], False
    for seed in range(3):
        for day in range(20, 60):
            values = room_draw(seed, date_label(day), "B001", "West Wing", 60)
            drawn = drawn_open(place, west, seed, day, 2)
            assert drawn == [s for s, v in zip(west.seats, values) if v < 39_321]  # int(0.6 * 2**16)
            assert drawn_open(place, west, seed, day, 2) is drawn  # the memo
            shares.append(len(drawn) / 60)
            differs |= drawn != drawn_open(place, west, seed, day, 1)
    assert abs(sum(shares) / len(shares) - OPEN_SHARE) < 0.03 and differs
    assert room_draw(0, DATE, "B001", "West Wing", 4) != room_draw(0, DATE, "B001", "East Wing", 4)


def _told(result: Any, room: Room) -> list[tuple[str, list[str], list[str]]]:
    """(seat id, features, free times) of each seat a compact listing shows in ``room``, read from its message
    and data the way an agent would (short ids read back through ``find_seat``)."""
    from campus.subsystems.reservation import find_seat, libraries

    data = room_data(result, room.id)
    header = next(i for i, line in enumerate(result.message.splitlines()) if line.startswith(f"{room.name} ({room.id}),"))
    lines = result.message.splitlines()[header + 1: header + 1 + len(data["seats"])]
    told = []
    for short, line in zip(data["seats"], lines):
        assert line.startswith(f"  - {short} [")
        seat = find_seat(libraries(CAMPUS).by_id["b001"], room, short)
        assert seat is not None
        features = line[line.index("[") + 1: line.index("]")].split(", ")
        told.append((seat.id, [f for f in features if f], data.get("free_by_seat", {}).get(short, data["free"])))
    return told


@pytest.mark.parametrize("now", [NOW, parse_moment("Week 4, Saturday 13:10")])
@pytest.mark.parametrize("setup", ["plain", "booked", "features", "changed", "closed", "hours"])
def test_the_compact_listing_tells_what_the_seat_by_seat_listing_tells(setup: str, now: int) -> None:
    """Rules 2's listing against rules 1's on the same open seats (shaped, so the draw is out of it): every room
    lists the same seats with the same features and free times, and the same counts."""
    from campus.events import RoomHours, RoomStatus, SeatFeatures, Span

    old, new = Harness(now=now, rules=1), Harness(now=now, rules=2)
    for h in (old, new):
        h.shape("West Wing", [f"B001-West Wing-S{i:03d}" for i in range(1, 61) if i % 7])
        h.shape("101-120", ["B001-101-120-S002"])
        h.shape("East Wing", ["B001-East Wing-S001", "B001-East Wing-S003"])
        if setup == "booked":
            h.booked(slot="18:00-19:00")
            h.booked(item="Debate Hall", seat=None, slot="15:00-16:00")
        if setup == "changed":
            change = SeatFeatures(building_id="B001", room_id="West Wing", seat_id="B001-West Wing-S001", old=["good_wifi"],
                                  new=["quiet_zone"])
            RESERVATION.reducers[WorldChanged](h.part, WorldChanged(change_id="f", change=change, rule="r"))
        if setup in ("closed", "hours"):
            day = parse_day(DATE)
            assert isinstance(day, int)
            change = RoomStatus(building_id="B001", room_id="West Wing", day=day, old="open", new="closed") if setup == "closed" \
                else RoomHours(building_id="B001", room_id="West Wing", day=day, old=Span(start=480, end=1320), new=Span(start=600, end=900))
            RESERVATION.reducers[WorldChanged](h.part, WorldChanged(change_id="s", change=change, rule="r"))
    asks: list[dict[str, Any]] = [{}, {"room": WEST}]
    if setup == "features":
        asks += [{"features": ["quiet_zone"]}, {"room": WEST, "features": ["power_outlet", "window_seat"]}]
    rooms = {r.id: r for lib in CAMPUS.world.libraries if lib.building_id == "B001" for r in lib.rooms}
    for ask in asks:
        before, after = old.listing(**ask), new.listing(**ask)
        assert [r["room_id"] for r in before.data["rooms"]] == [r["room_id"] for r in after.data["rooms"]]
        for room_before, room_after in zip(before.data["rooms"], after.data["rooms"]):
            room = rooms[room_before["room_id"]]
            if room.kind != "StudyArea" or room_before.get("closed"):
                assert room_after == room_before
                continue
            assert room_after["open_seats"] == room_before["open_seats"]
            assert _told(after, room) == [(s["seat_id"], s["features"], s["free"]) for s in room_before["seats"]]
        assert [line for line in after.message.splitlines() if line.startswith("  ...")] == \
               [line for line in before.message.splitlines() if line.startswith("  ...")]


def test_a_compact_listing_s_short_ids_book_their_seats() -> None:
    h = Harness(rules=2)
    result = h.listing(room="Computer Lab")
    for short in room_data(result, "101-120")["seats"]:
        assert h.booked(item="Computer Lab", seat=short, slot="10:00-11:00").seat_id == f"B001-101-120-{short}"



def _scanned_bookings(part: ReservationState, building_id: str, room_id: str, day: int) -> dict[str, list[Any]]:
    """``room_bookings`` the slow way: a scan of every booking."""
    grouped: dict[str, list[Any]] = {}
    for booking in part.bookings:
        if booking.day == day and booking.location_id == building_id and booking.room_id == room_id:
            grouped.setdefault(booking.seat_id, []).append(booking)
    for bookings in grouped.values():
        bookings.sort(key=lambda b: (b.start, b.end, b.booking_id))
    return grouped


def _offered_seat_by_seat(part: ReservationState, place: Any, room: Any, seats: list[Seat], booked: dict[str, list[Any]],
                          features: list[str], idle: Any, earliest: int, low: int, high: int, limit: int) -> tuple[int, list[Any]]:
    """``_offered`` the slow way: every open seat as it is now, its features and free windows worked out one by one."""
    from campus.subsystems.reservation import _within, free_windows, seat_now

    offered = []
    for seat in seats:
        now = seat_now(part, seat)
        if not all(f in now.features for f in features):
            continue
        busy = booked.get(seat.id)
        windows = idle if busy is None else _within(free_windows(busy, earliest), low, high)
        if windows:
            offered.append((seat, now, windows, busy or []))
    return len(offered), offered[:limit]


ROOMS_BOOKED = [("West Wing", "B001-West Wing-S{:03d}", 60), ("101-120", "B001-101-120-S{:03d}", 2), ("101", "", 0)]
CHANGE = st.tuples(st.just("features"), st.integers(1, 60), st.lists(st.sampled_from(SEAT_FEATURES), max_size=3, unique=True))
BOOKING = st.tuples(st.just("booking"), st.sampled_from(range(len(ROOMS_BOOKED))), st.integers(1, 60), st.integers(32, 86),
                    st.integers(1, 8), st.sampled_from([DAY, DAY + 1]))
"""(room, seat, start and length in quarter hours, day)."""
WHOLE_DAY = st.tuples(st.just("booking"), st.just(0), st.integers(1, 60), st.just(32), st.just(56), st.just(DAY))
"""A West Wing seat booked 08:00-22:00 on the day asked about: no free time left, so it is neither listed nor counted."""
ASK = st.tuples(st.just("ask"), st.sampled_from([{}, {"room": WEST}, {"room": "Computer Lab"}]),
                st.lists(st.sampled_from(SEAT_FEATURES), max_size=2, unique=True))


@settings(max_examples=150, deadline=None)
@given(steps=st.lists(st.one_of(CHANGE, BOOKING, WHOLE_DAY, ASK), max_size=30), rules=st.sampled_from([1, 2]),
       now=st.sampled_from([NOW, parse_moment("Week 4, Saturday 13:10"), parse_moment("Week 4, Saturday 21:50")]))
def test_listings_from_the_booking_index_and_feature_sets_are_the_seat_by_seat_scan(steps: list[Any], rules: int, now: int) -> None:
    """Bookings found by (building, room, day) in an index kept in step with the appends, and offered seats filtered by
    feature sets (a trigger's changes over them), list exactly what the scan of every booking and seat lists."""
    from campus.events import SeatFeatures
    from campus.subsystems import reservation

    h = Harness(now=now, rules=rules)
    made = 0
    for step in steps:
        if step[0] == "features":
            seat = f"B001-West Wing-S{step[1]:03d}"
            change = SeatFeatures(building_id="B001", room_id="West Wing", seat_id=seat, old=[], new=step[2])
            RESERVATION.reducers[WorldChanged](h.part, WorldChanged(change_id="f", change=change, rule="r"))
        elif step[0] == "booking":
            room_id, seat_form, count = ROOMS_BOOKED[step[1]]
            made += 1
            start = step[3] * 15
            RESERVATION.reducers[Booked](h.part, Booked(
                booking_id=f"bk_{made}", task_id="t", location_id="B001", room_id=room_id, item_name=room_id, day=step[5],
                start=start, end=min(start + step[4] * 15, 22 * 60), seat_id=seat_form.format(1 + step[2] % count) if count else ""))
        else:
            ask = {**step[1], **({"features": step[2]} if step[2] else {})}
            fast = h.ok(QUERY, **{"location_id": "B001", "date": DATE, **ask}).result
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(reservation, "room_bookings", _scanned_bookings)
                patch.setattr(reservation, "_offered", _offered_seat_by_seat)
                slow = h.ok(QUERY, **{"location_id": "B001", "date": DATE, **ask}).result
            assert msgspec.json.encode(fast) == msgspec.json.encode(slow)
        for day in (DAY, DAY + 1):
            for room_id, _, _ in ROOMS_BOOKED:
                assert reservation.room_bookings(h.part, "B001", room_id, day) == _scanned_bookings(h.part, "B001", room_id, day)


def test_the_booking_index_follows_a_list_that_is_replaced_or_shrinks() -> None:
    """A state's bookings list copied (a fork, a seek), cut back or with its last item swapped is indexed anew."""
    from campus.subsystems.reservation import INDEXES_KEPT, Booking, room_bookings

    def booking(n: int, day: int = DAY) -> Booking:
        return Booking(booking_id=f"bk_{n}", task_id="t", location_id="B001", room_id="101", item_name="Debate Hall",
                       day=day, start=600 + n, end=700 + n)

    part = ReservationState(bookings=[booking(1), booking(2)])
    assert room_bookings(part, "B001", "101", DAY) == {"": [booking(1), booking(2)]}
    part.bookings.append(booking(3, DAY + 1))
    assert room_bookings(part, "B001", "101", DAY + 1) == {"": [booking(3, DAY + 1)]}
    del part.bookings[1:]
    assert room_bookings(part, "B001", "101", DAY) == {"": [booking(1)]} and room_bookings(part, "B001", "101", DAY + 1) == {}
    part.bookings[0] = booking(4)
    assert room_bookings(part, "B001", "101", DAY) == {"": [booking(4)]}
    others = [ReservationState(bookings=[booking(n)]) for n in range(INDEXES_KEPT + 2)]
    for n, other in enumerate(others):
        assert room_bookings(other, "B001", "101", DAY) == {"": [booking(n)]}
    assert room_bookings(part, "B001", "101", DAY) == {"": [booking(4)]}


def test_booking_indexes_of_runs_on_threads_stay_their_own() -> None:
    """Runs a sweep plays on threads each index their own bookings, more of them at once than are kept."""
    from concurrent.futures import ThreadPoolExecutor

    from campus.subsystems.reservation import INDEXES_KEPT, Booking, room_bookings

    def play(run: int) -> bool:
        part = ReservationState()
        for n in range(60):
            part.bookings.append(Booking(booking_id=f"bk_{n}", task_id=str(run), location_id="B001", room_id=str(n % 3),
                                         item_name="x", day=DAY + n % 2, start=600, end=660 + run))
            if room_bookings(part, "B001", str(n % 3), DAY) != _scanned_bookings(part, "B001", str(n % 3), DAY):
                return False
        return True

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert all(pool.map(play, range(INDEXES_KEPT + 16)))


def test_the_seats_with_the_features_asked_are_remembered_within_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    from campus.subsystems import reservation

    place = reservation.libraries(CAMPUS).by_id["b001"]
    west = next(r for r in place.rooms if r.id == "West Wing")
    monkeypatch.setattr(reservation, "FEATURE_SETS_KEPT", 3)
    monkeypatch.setattr(place, "having", {})
    for wanted in ({"power_outlet"}, {"quiet_zone"}, {"window_seat"}, {"power_outlet", "quiet_zone"}, set()):
        found = place.with_all(west, frozenset(wanted))
        assert found == {s.id for s in west.seats if wanted <= set(s.features)} and len(place.having) <= 3


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_the_seats_with_the_features_asked_match_a_seat_by_seat_test(data: st.DataObject) -> None:
    """``with_all`` (a room's per-feature index, intersected) against the definition: every seat tested in turn."""
    from campus.subsystems import reservation

    place = data.draw(st.sampled_from(reservation.libraries(CAMPUS).places))
    room = data.draw(st.sampled_from(place.rooms))
    wanted = frozenset(data.draw(st.sets(st.sampled_from([*SEAT_FEATURES, "no_such_feature"]), max_size=4)))
    expected = {seat.id for seat in place.distinct[id(room)] if wanted <= set(seat.features)}
    assert place.with_all(room, wanted) == expected
    assert reservation.libraries(CAMPUS).by_id[place.building_id.casefold()].with_all(room, wanted) == expected  # the memo

"""The hot handlers' fast paths against the slow paths they replace, on generated and published worlds.

Each fast path must give exactly what the plain computation gives: the advisor/club index what a
fold over every entity finds, the memoised seat draw what a fresh draw gives, and a listing built
on the shared free times of unbooked seats what the seat-by-seat loop builds.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from campus.events import Booked, SeatFeatures, WorldChanged
from campus.kernel.clock import date_label
from campus.kernel.engine import Kernel, ToolView
from campus.scenarios.play import build_kernel
from campus.subsystems.information import _index, fold
from campus.subsystems.reservation import libraries, open_seats, room_draw, seat_drawn_open
from tests.conftest import SHARED
from campus.world.generate import generate_world
from campus.world.index import WorldIndex

STULIFE = SHARED / "stulife"
SYSTEMS = ("reservation", "data_system")
DAYS = (7, 23, 60, 131)


@pytest.fixture(scope="module", params=["generated", "published"])
def world(request: pytest.FixtureRequest) -> WorldIndex:
    if request.param == "generated":
        return WorldIndex(generate_world(1))
    if not (STULIFE / "campus_data.json").exists():
        pytest.skip(f"the StuLife data is not at {STULIFE}")
    from campus.world.stulife import load_stulife

    return WorldIndex(load_stulife(STULIFE)[0])


def _call(kernel: Kernel, state: Any, name: str, seed: int = 0, rules: int = 2, **args: Any) -> Any:
    return kernel.dispatch(state, task_id="t", name=name, args=args, systems=SYSTEMS, seed=seed, rules=rules).result


def test_the_entity_index_finds_what_a_fold_over_every_entity_finds(world: WorldIndex) -> None:
    index = _index(_plain_view(world))
    for is_club, entities in ((True, index.clubs), (False, index.advisors)):
        for by in ("id", "name"):
            keys = [e.id if by == "id" else e.name for e in entities[:300]]
            keys += [k.upper() for k in keys[:20]] + [f"  {k} " for k in keys[:20]] + ["nobody", "T9999"]
            for key in keys:
                slow = [e for e in entities if fold(e.id if by == "id" else e.name) == fold(key)]
                assert index.entities[is_club, by].get(fold(key), []) == slow


def _plain_view(world: WorldIndex) -> ToolView:
    return ToolView(world=world, state=build_kernel(world).projection.initial(), task_id="t", now=0, seed=0)


def _fresh_draw(place: Any, room: Any, seed: int, day: int, rules: int) -> list[Any]:
    seats = place.distinct[id(room)]
    if rules == 1:
        return [s for s in seats if seat_drawn_open(seed, date_label(day), s.id)]
    values = room_draw(seed, date_label(day), place.building_id, room.id, len(seats))
    return [s for s, v in zip(seats, values) if v < 39_321]


@pytest.mark.parametrize("rules", [1, 2])
def test_the_memoised_seat_draw_is_the_fresh_draw(world: WorldIndex, rules: int) -> None:
    view = msgspec.structs.replace(_plain_view(world), rules=rules)
    for seed in (0, 3):
        seeded = msgspec.structs.replace(view, seed=seed)
        for place in libraries(world).places:
            for room in place.rooms:
                for day in DAYS:
                    fresh = _fresh_draw(place, room, seed, day, rules)
                    assert open_seats(seeded, place, room, day) == fresh
                    assert open_seats(seeded, place, room, day) == fresh  # the second read comes from the memo


@pytest.mark.parametrize("rules", [1, 2])
def test_a_listing_on_shared_free_times_is_the_seat_by_seat_listing(world: WorldIndex, rules: int) -> None:
    """A feature change on a seat of no library sends the listing down the seat-by-seat loop without changing what it lists."""
    kernel = build_kernel(world)
    fast, slow = kernel.projection.initial(), kernel.projection.initial()
    change = SeatFeatures(building_id="nowhere", room_id="none", seat_id="no-such-seat", old=[], new=["good_wifi"])
    kernel.projection.apply(slow, 1, 0, WorldChanged(change_id="c", change=change, rule="r"))
    assert slow.reservation.features and not fast.reservation.features
    for place in libraries(world).places:
        for day in DAYS:
            for seed in (0, 1):
                args = {"location_id": place.building_id, "date": date_label(day)}
                expected = _call(kernel, slow, "reservation.query_availability", seed, rules, **args)
                assert expected.ok
                got = _call(kernel, fast, "reservation.query_availability", seed, rules, **args)
                assert msgspec.json.encode(got) == msgspec.json.encode(expected)


@pytest.mark.parametrize("rules", [1, 2])
def test_a_booking_in_a_room_still_lists_that_room_seat_by_seat(world: WorldIndex, rules: int) -> None:
    kernel = build_kernel(world)
    state = kernel.projection.initial()
    place = next(p for p in libraries(world).places if any(r.kind == "StudyArea" and r.seats for r in p.rooms))
    room = next(r for r in place.rooms if r.kind == "StudyArea" and r.seats)
    seat = open_seats(msgspec.structs.replace(_plain_view(world), rules=rules), place, room, DAYS[0])[0]
    kernel.projection.apply(state, 1, 0, Booked(booking_id="bk_1", task_id="t", location_id=place.building_id, room_id=room.id,
                                                 item_name=room.name, seat_id=seat.id, day=DAYS[0], start=600, end=660))
    result = _call(kernel, state, "reservation.query_availability", 0, rules, location_id=place.building_id,
                   date=date_label(DAYS[0]), room=f"{room.name} ({room.id})")
    listing = result.data["rooms"][0]
    if rules == 1:
        listed = next(s for s in listing["seats"] if s["seat_id"] == seat.id)
        assert listed["free"] == ["08:00-10:00", "11:00-22:00"]
        others = [s["free"] for s in listing["seats"] if s["seat_id"] != seat.id]
        assert others and all(free == ["08:00-22:00"] for free in others)
    else:
        short = libraries(world).by_id[place.building_id.casefold()].short[id(seat)]
        assert listing["free_by_seat"] == {short: ["08:00-10:00", "11:00-22:00"]} and listing["free"] == ["08:00-22:00"]
        assert f"  - {short} [{', '.join(seat.features)}]: free 08:00-10:00, 11:00-22:00 (booked 10:00-11:00)" in \
            result.message.splitlines()


def _find_seat_slowly(room: Any, text: str) -> Any:
    wanted = text.strip().casefold()
    if not wanted:
        return None
    exact = next((s for s in room.seats if s.id.casefold() == wanted), None)
    if exact is not None:
        return exact
    return next((s for s in room.seats if s.id.casefold().endswith("-" + wanted)), None)


def _match_rooms_slowly(place: Any, text: str) -> list[Any]:
    def fold(words: str) -> str:
        return " ".join(words.split()).casefold()

    wanted = fold(text)
    if not wanted:
        return []
    for naming in (lambda r: f"{r.name} ({r.id})", lambda r: f"{r.name} {r.id}", lambda r: r.id, lambda r: r.name):
        found = [r for r in place.rooms if fold(naming(r)) == wanted]
        if found:
            return found
    name, paren, rest = text.strip().partition("(")
    if not paren or not rest.endswith(")"):
        return []
    return [r for r in place.rooms if fold(r.name) == fold(name) and fold(r.id) == fold(rest[:-1])]


def test_seats_and_rooms_found_by_name_are_what_a_scan_finds(world: WorldIndex) -> None:
    from campus.subsystems.reservation import find_seat, match_rooms

    for place in libraries(world).places:
        for room in place.rooms:
            texts = [room.id, room.name, f"{room.name} ({room.id})", f"  {room.name.upper()}   {room.id} ", f"{room.name}({room.id} )",
                     room.name[:3], "", "S001", "s001", "001", "-S001", "nope"]
            for text in texts:
                assert match_rooms(place, text) == _match_rooms_slowly(place, text), text
            for seat in room.seats[:40]:
                tail = seat.id.rsplit("-", 1)[-1]
                for text in (seat.id, seat.id.lower(), f" {tail} ", tail.lower(), seat.id.split("-", 1)[-1], "S9999"):
                    assert find_seat(place, room, text) is _find_seat_slowly(room, text), text
                assert find_seat(place, room, place.short[id(seat)]) is _find_seat_slowly(room, seat.id)


def test_category_lists_find_what_a_fold_over_every_entity_finds(world: WorldIndex) -> None:
    from campus.subsystems.information import _advisors_matching

    index = _index(_plain_view(world))
    categories = sorted({c.category for c in index.clubs})
    for category in [*categories, categories[0].upper(), "no such category"]:
        assert index.clubs_by_category.get(fold(category), []) == [c for c in index.clubs if fold(c.category) == fold(category)]
    words = sorted({a.area for a in index.advisors} | {a.field for a in index.advisors})[:40] + ["learning", "AI", "nothing at all"]
    for word in words:
        key = fold(word)
        for level, slow in (
            ("level_1", [a for a in index.advisors if fold(a.area) == key]),
            ("level_2", [a for a in index.advisors if fold(a.field) == key]),
            (None, [a for a in index.advisors if any(key in fold(t) for t in (a.area, a.field, *a.tags))]),
        ):
            assert _advisors_matching(index, key, level) == slow


def test_clock_labels_from_the_table_are_the_formatted_ones() -> None:
    from campus.kernel.clock import MINUTES_PER_DAY, clock_label

    for t in range(-2 * MINUTES_PER_DAY, 9 * MINUTES_PER_DAY, 7):
        minute = t % MINUTES_PER_DAY
        assert clock_label(t) == f"{minute // 60:02d}:{minute % 60:02d}"


def test_the_seat_draw_memo_stays_bounded_and_right(world: WorldIndex) -> None:
    from campus.subsystems.reservation import DRAWS_KEPT

    view = _plain_view(world)
    place = libraries(world).places[0]
    room = next(r for r in place.rooms if r.seats)
    for seed in range(DRAWS_KEPT + 5):
        seeded = msgspec.structs.replace(view, seed=seed)
        drawn = open_seats(seeded, place, room, 9)
        if seed < 5 or seed >= DRAWS_KEPT - 5:  # either side of the memo being forgotten
            assert drawn == _fresh_draw(place, room, seed, 9, view.rules)
        assert len(place.drawn) <= DRAWS_KEPT

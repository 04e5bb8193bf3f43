"""Reservations: library seats and rooms, when they are free, and bookings.

StuLife's reservation system, with the reference defects fixed (stulife.md 7.5, 8.5, 14.4):
listings are seeded and respect bookings, and a booking is checked against the world.

Rules:

- Only libraries (``world.libraries``) have bookable spaces. A library room is a study area
  (``StudyArea``: book one seat in it) or a public area (any other kind: book the whole
  room, without a seat). Libraries are open 08:00-22:00 every day.
- ``item_name`` names a room of the library by its name (``Quiet Study Zone``), by its id
  inside the building (``West Wing``), or as ``name (id)`` (``Quiet Study Zone (West Wing)``,
  how the map writes it). Letter case and runs of spaces do not matter; the first of these
  forms that matches any room wins. A name shared by several rooms of the building is
  ambiguous unless the seat id says which of them is meant.
- A seat is named by its full id (``B001-West Wing-S012``) or by the last part of it
  (``S012``) inside its room; letter case does not matter.
- Dates are ``Week X, Day``. A time slot is ``HH:MM-HH:MM`` on the quarter-hour grid
  (minutes 00, 15, 30 or 45), inside opening hours, ending after it starts. Nothing can be
  booked or looked up for a past date, and a booking for today must not start before the
  current time.
- Availability on a date is a pure function of the world, the run seed, the date, the
  bookings made and the recorded world changes:

  * a seat is open with probability 0.6, drawn as the run's rules version says
    (``campus.events.rules_of``). Version 1, seat by seat: the first 8 bytes of
    ``sha256("reservation.seat|<seed>|<date label>|<seat id>")``, read as a big-endian
    integer, are below ``0.6 * 2**64``. Version 2, once per room and date: ``room_draw``;
  * a ``WorldChanged`` whose change is a ``SeatAvailability`` (``building_id``,
    ``room_id``, ``day`` and ``open_seats``, full seat ids) replaces that draw for one
    room on one date: exactly the listed seats are open. This is how a scenario changes which
    seats are open (a stale library pair's fitting seats, a disruption), through a recorded
    event; nothing here reads a task's ground truth. The latest such change for a room and
    date wins;
  * an open seat, and a public area, is free in opening hours except when it is booked;
    for today, times before the next quarter hour from now are not offered.
- A listing shows at most 25 open seats when one study area is listed and 10 per room when
  several are (a whole library), then counts the rest; ``room`` and ``features`` narrow it.
  Under rules 1 every seat's line and data entry give its whole id, features and free times;
  under rules 2 (``_compact_study_listing``) a seat's line gives its short id (``S012``) and
  features, the room's line the free times its seats share, and a seat's own times only where a
  booking makes them differ; the data holds the counts, the shared times and the short ids.
- A booking conflicts with an earlier one of the same seat (study area) or of the same
  room (public area) on the same date whose time slot overlaps. The student may hold other
  bookings at the same time: there is no cancel tool, so a wrong booking can be followed by
  the right one.
- Booking ids are ``bk_1``, ``bk_2``, ... in the order bookings were made.

State: ``bookings`` (every booking, in order), ``next_booking``, and ``shaped``:
``"<building id>|<room id>|<absolute day>"`` -> the seats a world change made open (dropped
once its date is past, when the next day starts). Facts and state hold days and minutes;
``Week 4, Saturday`` and ``14:00-16:00`` are rendered for the agent's messages only.
"""

from __future__ import annotations

import functools
import hashlib
import re
import struct
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import msgspec

from campus.events import (Booked, DayStarted, FeatureLost, RoomHours, RoomStatus, SeatAvailability, SeatFeatures, Span,
                           WorldChanged)
from campus.kernel.clock import MINUTES_PER_DAY, clock_label, date_label, day_of, label
from campus.kernel.engine import ToolView
from campus.kernel.projection import Domain
from campus.kernel.tools import Outcome, Param, Refuse, ToolDecl, fail, ok
from campus.subsystems.calendar import parse_slot, read_day
from campus.world.index import WorldIndex
from campus.world.model import SEAT_FEATURES, Room, Seat

OPEN = 8 * 60
CLOSE = 22 * 60
HOURS = f"{clock_label(OPEN)}-{clock_label(CLOSE)}"
GRID = 15
"""Time slots start and end on multiples of this many minutes."""
OPEN_SHARE = 0.6
"""The chance that a seat is open on a date, unless a world change says which seats are."""
MAX_SEATS = 25
"""Open seats listed for a room when it is the only study area listed; the rest are counted."""
MAX_SEATS_EACH = 10
"""Open seats listed per room when several study areas are listed (a whole library: ~100 lines)."""
MAX_LISTED = 25
MAX_ID = 200
DRAWS_KEPT = 4_096
"""Seat draws a library remembers, (room, seed, day, rules) each, before it forgets them all: a whole term of one
seed in the largest published library (~10 study rooms x 147 days) fits, so a term never draws a day twice."""
FEATURE_SETS_KEPT = 4_096
"""(room, features asked) pairs a library remembers the matching seats of before it forgets them all."""

_THRESHOLD = int(OPEN_SHARE * 2**64)
_THRESHOLD_16 = int(OPEN_SHARE * 2**16)
STUDY = "StudyArea"
_BOOKING_ID = re.compile(r"bk_(\d{1,9})", re.ASCII)
SLOT_FORMAT = "Write it as 'HH:MM-HH:MM' with the end after the start, e.g. '14:00-16:00'."


# ------------------------------------------------------------------ state


class Booking(msgspec.Struct, kw_only=True, frozen=True):
    """One booking, on an absolute ``day``."""

    booking_id: str
    task_id: str
    location_id: str
    room_id: str
    item_name: str
    seat_id: str = ""
    day: int
    start: int
    """Minutes since midnight."""
    end: int


class ReservationState(msgspec.Struct, kw_only=True):
    bookings: list[Booking] = []
    next_booking: int = 1
    shaped: dict[str, list[str]] = {}
    closed: list[str] = []
    """Shape keys (``building|room|day``) of rooms a trigger closed."""
    hours: dict[str, Span] = {}
    """Shape key -> the room's bookable hours that date, where a trigger changed them."""
    features: dict[str, tuple[str, ...]] = {}
    """Seat id -> its features, where a trigger changed them (a tuple: a decoded state holds no list per seat)."""


# ------------------------------------------------------------------ the libraries of a world


class Place:
    """A library: its building, its rooms, and where each seat is."""

    def __init__(self, building_id: str, name: str, rooms: Sequence[Room]) -> None:
        self.building_id = building_id
        self.name = name
        self.rooms = tuple(rooms)
        self.seat_rooms: dict[str, list[Room]] = {}
        """Case-folded seat id -> the rooms holding a seat with that id."""
        for room in self.rooms:
            for seat in room.seats:
                rooms_of = self.seat_rooms.setdefault(seat.id.casefold(), [])
                if room not in rooms_of:
                    rooms_of.append(room)
        self.distinct = {id(room): _distinct(room.seats) for room in self.rooms}
        """``id`` of one of ``rooms`` -> its seats, one per id (the rooms are held here, so the ids stay theirs)."""
        self.heads = {id(seat): _seat_head(seat) for room in self.rooms for seat in room.seats}
        """``id`` of a seat of ``rooms`` -> the start of its listing line, up to its free times."""
        self.seat_names = {id(room): _seat_names(room) for room in self.rooms}
        """``id`` of one of ``rooms`` -> its seats by case-folded id, and by every case-folded part after a '-'
        of an id (the first seat in room order for each), which ``find_seat`` reads."""
        self.short = {id(seat): _short_id(building_id, room, seat, self.seat_names[id(room)])
                      for room in self.rooms for seat in room.seats}
        """``id`` of a seat of ``rooms`` -> the id a compact listing (rules 2) gives it."""
        self.lines = {id(seat): f"  - {self.short[id(seat)]} [{', '.join(seat.features)}]" for room in self.rooms
                      for seat in room.seats}
        """``id`` of a seat of ``rooms`` -> its line in a compact listing when it is free at the room's common times."""
        self.having: dict[tuple[int, frozenset[str]], frozenset[str]] = {}
        """(``id`` of one of ``rooms``, features) -> the ids of its seats that have them all in the world (``with_all``)."""
        self.by_feature: dict[int, dict[str, frozenset[str]]] = {}
        """``id`` of one of ``rooms`` -> each feature -> the ids of its seats having it in the world, made when first asked."""
        self.room_names: tuple[dict[str, list[Room]], ...] = tuple({} for _ in _ROOM_NAMINGS)
        """For each way of naming a room that ``match_rooms`` tries, in its order: the case-folded name -> the rooms."""
        for names, naming in zip(self.room_names, _ROOM_NAMINGS):
            for room in self.rooms:
                names.setdefault(_fold(naming(room)), []).append(room)
        self.drawn: dict[tuple[int, int, int, int], list[Seat]] = {}
        """(``id`` of a room, seed, day, rules version) -> its seats the seeded draw opens that day, in room order."""

    def describe(self) -> str:
        return f"{self.name} ({self.building_id})"

    def with_all(self, room: Room, wanted: frozenset[str]) -> frozenset[str]:
        """The ids of the room's seats that have every ``wanted`` feature in the world, found once per features asked."""
        key = (id(room), wanted)
        found = self.having.get(key)
        if found is None:
            if len(self.having) >= FEATURE_SETS_KEPT:  # an agent may ask for any of many combinations; keep the memo bounded
                self.having.clear()
            found = self.having[key] = _having_all(self._features_of(room), wanted) if wanted \
                else frozenset(seat.id for seat in self.distinct[id(room)])
        return found

    def _features_of(self, room: Room) -> dict[str, frozenset[str]]:
        found = self.by_feature.get(id(room))
        if found is None:
            found = self.by_feature[id(room)] = seats_by_feature(self.distinct[id(room)])
        return found


def seats_by_feature(seats: Sequence[Seat]) -> dict[str, frozenset[str]]:
    """Each feature -> the ids of the seats having it: one pass over a room, where testing each (room, features) asked
    against every seat cost ~200k instructions a time (640 times in the default term)."""
    having: dict[str, list[str]] = {}
    for seat in seats:
        for feature in seat.features:
            having.setdefault(feature, []).append(seat.id)
    return {feature: frozenset(ids) for feature, ids in having.items()}


def _having_all(by_feature: dict[str, frozenset[str]], wanted: frozenset[str]) -> frozenset[str]:
    """The ids having every ``wanted`` feature (one or more)."""
    sets = [by_feature.get(feature, _NONE) for feature in wanted]
    return sets[0].intersection(*sets[1:])


_NONE: frozenset[str] = frozenset()


def _seat_head(seat: Seat) -> str:
    return f"  - {seat.id} [{', '.join(seat.features)}]: free "


def _seat_names(room: Room) -> tuple[dict[str, Seat], dict[str, Seat]]:
    exact: dict[str, Seat] = {}
    tails: dict[str, Seat] = {}
    for seat in room.seats:
        folded = seat.id.casefold()
        exact.setdefault(folded, seat)
        for at, char in enumerate(folded):
            if char == "-":
                tails.setdefault(folded[at + 1:], seat)
    return exact, tails


def _short_id(building_id: str, room: Room, seat: Seat, names: tuple[dict[str, Seat], dict[str, Seat]]) -> str:
    """The seat's id without its ``<building id>-<room id>-`` part (``S012``) when ``find_seat`` reads that back
    as this very seat, else its whole id."""
    prefix = f"{building_id}-{room.id}-"
    short = seat.id[len(prefix):] if seat.id.startswith(prefix) else ""
    return short if short and _named(names, short.casefold()) is seat else seat.id


def _named(names: tuple[dict[str, Seat], dict[str, Seat]], wanted: str) -> Seat | None:
    exact, tails = names
    found = exact.get(wanted)
    return found if found is not None else tails.get(wanted)


class Libraries:
    """Every library of a world, found by building id (letter case does not matter)."""

    def __init__(self, world: WorldIndex) -> None:
        self.by_id: dict[str, Place] = {}
        for library in world.world.libraries:
            place = Place(library.building_id, world.name_of(library.building_id), library.rooms)
            self.by_id.setdefault(library.building_id.casefold(), place)
        self.places = sorted(self.by_id.values(), key=lambda p: p.building_id)


_LIBRARIES: weakref.WeakKeyDictionary[WorldIndex, Libraries] = weakref.WeakKeyDictionary()


def libraries(world: WorldIndex) -> Libraries:
    """The world's libraries, built once per ``WorldIndex``."""
    found = _LIBRARIES.get(world)
    if found is None:
        found = _LIBRARIES[world] = Libraries(world)
    return found


# ------------------------------------------------------------------ availability


def seat_drawn_open(seed: int, date: str, seat_id: str) -> bool:
    """The seeded draw: is this seat open on this date (a date label) when no world change says?"""
    digest = hashlib.sha256(f"reservation.seat|{seed}|{date}|{seat_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") < _THRESHOLD


def shape_key(building_id: str, room_id: str, day: int) -> str:
    return f"{building_id}|{room_id}|{day}"


def open_seats(view: ToolView, place: Place, room: Room, day: int) -> list[Seat]:
    """The room's seats that are open on the day, in the room's order (bookings aside)."""
    part: ReservationState = view.state.reservation
    shaped = part.shaped.get(shape_key(place.building_id, room.id, day))
    if shaped is not None:
        chosen = set(shaped)
        return [seat for seat in place.distinct[id(room)] if seat.id in chosen]
    return list(drawn_open(place, room, view.seed, day, view.rules))


def drawn_open(place: Place, room: Room, seed: int, day: int, rules: int) -> list[Seat]:
    """The room's seats the seeded draw of this rules version opens on the day, in the room's order, drawn once
    per (room, seed, day, rules) (the list is shared: do not change it). Version 1 draws seat by seat
    (``seat_drawn_open``), version 2 once for the room (``room_draw``)."""
    key = (id(room), seed, day, rules)
    drawn = place.drawn.get(key)
    if drawn is None:
        if len(place.drawn) >= DRAWS_KEPT:  # a long sweep visits many seeds; keep the memo bounded
            place.drawn.clear()
        seats = place.distinct[id(room)]
        date = date_label(day)
        if rules == 1:
            drawn = [seat for seat in seats if seat_drawn_open(seed, date, seat.id)]
        else:
            drawn = [seat for seat, value in zip(seats, room_draw(seed, date, place.building_id, room.id, len(seats)))
                     if value < _THRESHOLD_16]
        place.drawn[key] = drawn
    return drawn


def room_draw(seed: int, date: str, building_id: str, room_id: str, seats: int) -> tuple[int, ...]:
    """Rules 2: one 16-bit number per seat of the room (in its order) from a single seeded digest,
    ``shake_256("reservation.room|<seed>|<date label>|<building id>|<room id>")``, read big-endian;
    a seat is open when its number is below ``int(0.6 * 2**16)`` (39,321)."""
    digest = hashlib.shake_256(f"reservation.room|{seed}|{date}|{building_id}|{room_id}".encode()).digest(2 * seats)
    return struct.unpack(f">{seats}H", digest)


def _distinct(seats: Sequence[Seat]) -> list[Seat]:
    """One seat per id, the first (the published seat map repeats a few ids inside a room)."""
    first: dict[str, Seat] = {}
    for seat in seats:
        first.setdefault(seat.id, seat)
    return list(first.values())


def room_bookings(part: ReservationState, building_id: str, room_id: str, day: int) -> dict[str, list[Booking]]:
    """A room's bookings on a day by seat id ("" for the whole room), each list by start time."""
    grouped: dict[str, list[Booking]] = {}
    for booking in _booking_index(part.bookings).get((building_id, room_id, day), ()):
        grouped.setdefault(booking.seat_id, []).append(booking)
    for bookings in grouped.values():
        bookings.sort(key=lambda b: (b.start, b.end, b.booking_id))
    return grouped


class _BookingIndex:
    """One ``ReservationState.bookings`` list (held, so its ``id`` stays its own) by (building, room, day), in log
    order. Reducers only append to that list (as snapshots also assume), so the index follows it by adding the
    bookings appended since it last looked; a list that shrank or whose last indexed item changed is indexed anew."""

    def __init__(self, bookings: list[Booking]) -> None:
        self.bookings = bookings
        self.count = 0
        self.rooms: dict[tuple[str, str, int], list[Booking]] = {}

    def current(self) -> dict[tuple[str, str, int], list[Booking]]:
        bookings = self.bookings
        if self.count > len(bookings) or (self.count and bookings[self.count - 1] is not self.last):
            self.count, self.rooms = 0, {}
        rooms = self.rooms
        for booking in bookings[self.count:]:
            rooms.setdefault((booking.location_id, booking.room_id, booking.day), []).append(booking)
        if len(bookings) > self.count:
            self.count, self.last = len(bookings), bookings[-1]
        return rooms

    last: Booking | None = None


INDEXES_KEPT = 64
"""Bookings lists whose index is kept (one per state in use: a session's, a fork's, a seek's, a sweep thread's); past
it the oldest goes."""
_INDEXES: dict[int, _BookingIndex] = {}
_INDEXES_LOCK = threading.Lock()
"""Taken to add an index (a sweep plays runs on threads); finding one is a single dict read."""


def _booking_index(bookings: list[Booking]) -> dict[tuple[str, str, int], list[Booking]]:
    """The bookings by (building, room, day), each list in log order (what a scan of ``bookings`` finds)."""
    index = _INDEXES.get(id(bookings))
    if index is None:
        index = _BookingIndex(bookings)
        with _INDEXES_LOCK:
            while len(_INDEXES) >= INDEXES_KEPT:
                del _INDEXES[next(iter(_INDEXES))]
            _INDEXES[id(bookings)] = index
    return index.current()


def free_windows(busy: Sequence[Booking], earliest: int) -> list[tuple[int, int]]:
    """Opening hours from ``earliest`` on, minus the booked times."""
    windows: list[tuple[int, int]] = []
    cursor = max(OPEN, earliest)
    for booking in busy:
        if booking.start > cursor:
            windows.append((cursor, min(booking.start, CLOSE)))
        cursor = max(cursor, booking.end)
    if cursor < CLOSE:
        windows.append((cursor, CLOSE))
    return [(s, e) for s, e in windows if e > s]


def _earliest(view: ToolView, day: int) -> int:
    """The first bookable minute of the day: opening time, or for today the next quarter hour."""
    if day != day_of(view.now):
        return OPEN
    minute = view.now % MINUTES_PER_DAY
    return max(OPEN, -(-minute // GRID) * GRID)


def _span(start: int, end: int) -> str:
    return f"{clock_label(start)}-{clock_label(end)}"


def _spans(windows: Sequence[tuple[int, int]]) -> list[str]:
    return [_span(s, e) for s, e in windows]


# ------------------------------------------------------------------ reading arguments


def _show(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _room_label(room: Room) -> str:
    return f"{room.name} ({room.id})"


def _bounded(items: Sequence[str], what: str) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    more = f", and {len(items) - MAX_LISTED} more {what}" if len(items) > MAX_LISTED else ""
    return shown + more


def _find_library(view: ToolView, location_id: str) -> Place:
    """The library with this building id; a refusal names the buildings that have bookable spaces."""
    world: WorldIndex = view.world
    known = libraries(world)
    place = known.by_id.get(location_id.strip().casefold())
    if place is not None:
        return place
    listing = _bounded([p.describe() for p in known.places], "libraries")
    spaces = f"Buildings with bookable spaces: {listing}." if listing else "No building on this campus has bookable spaces."
    building = world.buildings.get(location_id.strip())
    if building is None:
        raise Refuse(f"There is no building with id '{_show(location_id, 40)}'. {spaces} Use map.find_building_id to look up an id.")
    raise Refuse(f"{world.describe(building.id)} is not a library and has no seats or rooms to book. {spaces}")


def _bookable_day(view: ToolView, text: str) -> int:
    day = read_day(text)
    if day < day_of(view.now):
        raise Refuse(f"{date_label(day)} is in the past: it is now {label(view.now)}. Choose today or a later date.")
    return day


def _read_slot(view: ToolView, text: str, day: int) -> tuple[int, int]:
    bounds = parse_slot(text)
    if bounds is None:
        raise Refuse(f"Cannot read the time slot '{_show(text)}'. {SLOT_FORMAT}")
    start, end = bounds
    slot = _span(start, end)
    if start % GRID or end % GRID:
        raise Refuse(f"The time slot {slot} is not on the quarter-hour grid: start and end at minute 00, 15, 30 or 45.")
    if start < OPEN or end > CLOSE:
        raise Refuse(f"The time slot {slot} is outside the library's opening hours, {HOURS}.")
    if day == day_of(view.now) and _earliest(view, day) >= CLOSE:
        raise Refuse(f"The library is closed for the rest of today ({date_label(day)}); choose a later date.")
    if day == day_of(view.now) and start < view.now % MINUTES_PER_DAY:
        raise Refuse(
            f"It is already {clock_label(view.now)} on {date_label(day)}, so a booking for today must start at "
            f"{clock_label(_earliest(view, day))} or later."
        )
    return start, end


_ROOM_NAMINGS = (
    lambda r: _room_label(r),
    lambda r: f"{r.name} {r.id}",
    lambda r: r.id,
    lambda r: r.name,
)
"""The ways ``match_rooms`` tries to name a room, in order."""


def match_rooms(place: Place, text: str) -> list[Room]:
    """Rooms named by ``text``: as ``name (id)`` or ``name id`` (how the map writes numbered rooms,
    e.g. "Silent Study Hall 234"), else by id, else by name (case and spaces free)."""
    wanted = _fold(text)
    if not wanted:
        return []
    for names in place.room_names:
        found = names.get(wanted)
        if found:
            return list(found)
    name, paren, rest = text.strip().partition("(")
    if not paren or not rest.endswith(")"):
        return []
    name, room_id = _fold(name), _fold(rest[:-1])  # "name (id)" spaced differently, e.g. "Hall(101 )"
    return [r for r in place.rooms if _fold(r.name) == name and _fold(r.id) == room_id]


def find_seat(place: Place, room: Room, text: str) -> Seat | None:
    """The room's seat with this full id, or else the first whose id ends with ``-<text>`` (``S012``); letter
    case does not matter."""
    wanted = text.strip().casefold()
    return _named(place.seat_names[id(room)], wanted) if wanted else None


def _rooms_list(place: Place, rooms: Sequence[Room] | None = None) -> str:
    chosen = place.rooms if rooms is None else rooms
    kinds = [f"{_room_label(r)} on {r.floor}, {'study area' if r.kind == STUDY else 'public area'}" for r in chosen]
    return _bounded(kinds, "rooms")


def _no_room(place: Place, text: str) -> str:
    seat_in = place.seat_rooms.get(text.strip().casefold())
    if seat_in:
        return (
            f"'{_show(text)}' is a seat in {_room_label(seat_in[0])}, not a room. Give the room as item_name and "
            "the seat as seat_id."
        )
    return (
        f"{place.describe()} has no room '{_show(text)}'. Its rooms: {_rooms_list(place)}. "
        "Name a room by its name, its id, or as 'name (id)'."
    )


def _read_features(raw: Any) -> list[str]:
    """Requested seat features, normalised (``Power Outlet`` -> ``power_outlet``)."""
    if not isinstance(raw, list):
        raise Refuse("features must be a list of seat features, e.g. [\"power_outlet\", \"quiet_zone\"].")
    wanted: list[str] = []
    for item in raw:
        name = "_".join(item.replace("-", " ").split()).casefold() if isinstance(item, str) else None
        if name not in SEAT_FEATURES:
            shown = _show(item, 40) if isinstance(item, str) else "a non-text value"
            raise Refuse(f"'{shown}' is not a seat feature. Seat features: {', '.join(SEAT_FEATURES)}.")
        if name not in wanted:
            wanted.append(name)
    return wanted


# ------------------------------------------------------------------ query_availability


def _study_listing(
    view: ToolView, place: Place, room: Room, day: int, features: list[str], limit: int
) -> tuple[list[str], dict[str, Any]]:
    booked = room_bookings(view.state.reservation, place.building_id, room.id, day)
    earliest = _earliest(view, day)
    part: ReservationState = view.state.reservation
    key = shape_key(place.building_id, room.id, day)
    if key in part.closed:
        return _closed_listing(room, day)
    low, high = room_hours(part, key)
    idle, idle_spans, _ = _idle(earliest, low, high)
    seats = open_seats(view, place, room, day)
    total, offered = _offered(part, place, room, seats, booked, features, idle, earliest, low, high, limit)
    heads = place.heads
    listed, seats_data = [], []
    for seat, now, windows, busy in offered:
        spans: Sequence[str] = idle_spans if windows is idle else _spans(windows)
        head = heads[id(seat)] if now is seat else _seat_head(now)
        listed.append(f"{head}{', '.join(spans)}{_booked_note(busy)}")
        seats_data.append({"seat_id": now.id, "features": list(now.features), "free": list(spans)})
    count, note = _room_count(place, room, total, features), _hours_note(low, high)
    lines = [f"{_room_label(room)}, {room.floor}, study area (book one seat){note}: {count}.", *listed, *_more(room, total, limit)]
    data = {"room_id": room.id, "name": room.name, "floor": room.floor, "kind": room.kind, "open_seats": total, "seats": seats_data}
    return lines, data


def _compact_study_listing(
    view: ToolView, place: Place, room: Room, day: int, features: list[str], limit: int
) -> tuple[list[str], dict[str, Any]]:
    """Rules 2: ``_study_listing`` told once per room. The room's line says when its open seats are free and how
    seat ids may be written; a seat's line gives its short id and features, and its own free times only where a
    booking makes them differ. The data holds the counts, the common free times and the listed short ids."""
    part: ReservationState = view.state.reservation
    key = shape_key(place.building_id, room.id, day)
    if key in part.closed:
        return _closed_listing(room, day)
    earliest = _earliest(view, day)
    low, high = room_hours(part, key)
    idle, idle_spans, idle_free = _idle(earliest, low, high)
    seats = open_seats(view, place, room, day)
    short, lines = place.short, place.lines
    own: dict[str, list[str]] = {}
    booked = room_bookings(part, place.building_id, room.id, day) if part.bookings else {}
    if not (booked or part.features):  # every offered seat is the world's, free at the room's common times
        plain = _plain_offer(part, place, room, seats, features, idle)
        total, shown = len(plain), plain[:limit]
        listed = [lines[id(seat)] for seat in shown]
    else:
        total, offered = _offered(part, place, room, seats, booked, features, idle, earliest, low, high, limit)
        shown, listed = [], []
        for seat, now, windows, busy in offered:
            shown.append(seat)
            line = lines[id(seat)] if now is seat else f"  - {short[id(seat)]} [{', '.join(now.features)}]"
            if windows is not idle:
                spans = _spans(windows)
                own[short[id(seat)]] = spans
                line += f": free {', '.join(spans)}{_booked_note(busy)}"
            listed.append(line)
    count, note = _room_count(place, room, total, features), _hours_note(low, high)
    ids = [short[id(seat)] for seat in shown]
    free = f", each free {idle_free}{' unless noted' if own else ''}" if shown else ""
    spelled = next((f"; seat_id as listed or whole, e.g. '{seat.id}'" for seat in shown if short[id(seat)] != seat.id), "")
    lines_out = [f"{_room_label(room)}, {room.floor}, study area (book one seat){note}: {count}{free}{spelled}.", *listed,
                 *_more(room, total, limit)]
    data: dict[str, Any] = {"room_id": room.id, "name": room.name, "floor": room.floor, "kind": room.kind,
                            "open_seats": total, "free": list(idle_spans) if shown else [], "seats": ids}
    if own:
        data["free_by_seat"] = own
    return lines_out, data


Offer = tuple[Seat, Seat, Sequence[tuple[int, int]], list[Booking]]
"""An offered seat: the world's seat, the seat now, its free windows (``idle`` itself when no booking cuts them), its
bookings."""


def _offered(
    part: ReservationState, place: Place, room: Room, seats: list[Seat], booked: dict[str, list[Booking]],
    features: list[str], idle: Sequence[tuple[int, int]], earliest: int, low: int, high: int, limit: int,
) -> tuple[int, list[Offer]]:
    """How many of the open seats have every feature asked for (as the seat is now) and some free time, and the
    first ``limit`` of them. A booked seat's windows lie inside ``idle``, so with no idle time nothing is offered."""
    seats = _plain_offer(part, place, room, seats, features, idle)
    if not booked:
        return len(seats), [(seat, seat_now(part, seat), idle, []) for seat in seats[:limit]]
    cut = {seat_id: _within(free_windows(busy, earliest), low, high) for seat_id, busy in booked.items()}
    full = {seat_id for seat_id, windows in cut.items() if not windows}
    total = len(seats) - (sum(seat.id in full for seat in seats) if full else 0)
    offered: list[Offer] = []
    for seat in seats:  # only up to the last shown: every other seat is counted above
        if len(offered) == limit:
            break
        windows: Sequence[tuple[int, int]] = cut.get(seat.id, idle)
        if windows:
            offered.append((seat, seat_now(part, seat), windows, booked.get(seat.id) or []))
    return total, offered


def _plain_offer(part: ReservationState, place: Place, room: Room, seats: list[Seat], features: list[str],
                 idle: Sequence[tuple[int, int]]) -> list[Seat]:
    """The open seats with every feature asked for, bookings aside; none with no idle time (a booked seat's windows
    lie inside ``idle``)."""
    if not idle:
        return []
    return _with_features(part, place, room, seats, frozenset(features)) if features else seats


def _with_features(part: ReservationState, place: Place, room: Room, seats: list[Seat], wanted: frozenset[str]) -> list[Seat]:
    """The seats that have every ``wanted`` feature now (a trigger may have changed a seat's)."""
    having, changed = place.with_all(room, wanted), part.features
    if not changed:
        return [seat for seat in seats if seat.id in having]
    return [seat for seat in seats if (seat.id in having if seat.id not in changed
                                       else wanted <= set(seat_now(part, seat).features))]


def _closed_listing(room: Room, day: int) -> tuple[list[str], dict[str, Any]]:
    return [f"{_room_label(room)}, {room.floor}, study area: closed on {date_label(day)}."], {
        "room_id": room.id, "name": room.name, "floor": room.floor, "kind": room.kind, "closed": True, "seats": []}


def _room_count(place: Place, room: Room, total: int, features: list[str]) -> str:
    if features:
        return f"{total} open seat(s) have {', '.join(features)}"
    return f"{total} of {len(place.distinct[id(room)])} seats open"


def _hours_note(low: int, high: int) -> str:
    return f" (open only {_span(low, high)} that day)" if (low, high) != (OPEN, CLOSE) else ""


def _more(room: Room, total: int, limit: int) -> list[str]:
    """The line after a listing cut at ``limit`` seats of ``total``, if it was cut."""
    if total <= limit:
        return []
    return [f"  ... and {total - limit} more open seats; narrow the list with room=\"{_room_label(room)}\" "
            "and/or features=[...]."]


@functools.lru_cache(maxsize=1_024)
def _idle(earliest: int, low: int, high: int) -> tuple[tuple[tuple[int, int], ...], tuple[str, ...], str]:
    """When an unbooked seat is free on a date (from ``earliest``, within the room's hours ``low``-``high``):
    the windows, their labels and the labels joined. The same few answers serve every room and date."""
    windows = tuple(_within(free_windows((), earliest), low, high))
    spans = tuple(_spans(windows))
    return windows, spans, ", ".join(spans)


def _within(windows: list[tuple[int, int]], low: int, high: int) -> list[tuple[int, int]]:
    """The windows clipped to the room's hours that day (``low``-``high``), empty ones dropped."""
    return [(max(s, low), min(e, high)) for s, e in windows if min(e, high) > max(s, low)]


def _booked_note(busy: Sequence[Booking]) -> str:
    return f" (booked {', '.join(_span(b.start, b.end) for b in busy)})" if busy else ""


def _public_listing(view: ToolView, place: Place, room: Room, day: int) -> tuple[list[str], dict[str, Any]]:
    busy = room_bookings(view.state.reservation, place.building_id, room.id, day).get("", [])
    windows = free_windows(busy, _earliest(view, day))
    free = f"free {', '.join(_spans(windows))}" if windows else "not free for the rest of this date"
    line = f"{_room_label(room)}, {room.floor}, public area (book the whole room, no seat_id): {free}{_booked_note(busy)}."
    data = {"room_id": room.id, "name": room.name, "floor": room.floor, "kind": room.kind, "free": _spans(windows)}
    return [line], data


def query_availability(view: ToolView, args: dict[str, Any]) -> Outcome:
    place = _find_library(view, args["location_id"])
    day = _bookable_day(view, args["date"])
    rooms = list(place.rooms)
    if "room" in args:
        rooms = match_rooms(place, args["room"])
        if not rooms:
            return fail(_no_room(place, args["room"]))
    features = _read_features(args.get("features", []))
    if features:
        rooms = [r for r in rooms if r.kind == STUDY]
        if not rooms:
            return fail("Seat features apply only to study areas, and the rooms asked about are public areas booked whole. Leave out features.")
    date = date_label(day)
    lines = [f"Availability in {place.describe()} on {date} (open {HOURS}; book in quarter hours):"]
    limit = MAX_SEATS if sum(r.kind == STUDY for r in rooms) <= 1 else MAX_SEATS_EACH
    rooms_data = []
    for room in rooms:
        if room.kind == STUDY:
            shown, data = (_study_listing if view.rules == 1 else _compact_study_listing)(view, place, room, day, features, limit)
        else:
            shown, data = _public_listing(view, place, room, day)
        lines += shown
        rooms_data.append(data)
    lines.append(
        f'Book with reservation.make_booking(location_id="{place.building_id}", item_name="<room name (id)>", '
        f'date="{date}", time_slot="HH:MM-HH:MM", seat_id="<seat id>"); leave seat_id out for a public area.'
    )
    return ok("\n".join(lines), data={"location_id": place.building_id, "date": date, "rooms": rooms_data})


# ------------------------------------------------------------------ make_booking


def _pick_room(place: Place, item_name: str, seat_text: str) -> tuple[Room, Seat | None]:
    """The room (and seat, if one was named) the agent means; refused if it cannot be told."""
    rooms = match_rooms(place, item_name)
    if not rooms:
        raise Refuse(_no_room(place, item_name))
    if len(rooms) > 1:
        exact = place.seat_rooms.get(seat_text.casefold(), [])
        holding = [r for r in rooms if r in exact] or [r for r in rooms if find_seat(place, r, seat_text) is not None]
        if len(holding) != 1:
            why = f"none of them has a seat '{_show(seat_text, 40)}'" if seat_text and not holding else "say which one"
            raise Refuse(
                f"{len(rooms)} rooms of {place.describe()} match '{_show(item_name)}' ({why}): {_rooms_list(place, rooms)}. "
                "Give item_name as 'name (id)', e.g. '" + _room_label(rooms[0]) + "'."
            )
        rooms = holding
    room = rooms[0]
    if room.kind != STUDY or not seat_text:
        return room, None
    seat = find_seat(place, room, seat_text)
    if seat is None:
        elsewhere = place.seat_rooms.get(seat_text.strip().casefold())
        where = f" It is in {_room_label(elsewhere[0])}." if elsewhere else ""
        example = f" Seat ids there look like '{room.seats[0].id}'." if room.seats else ""
        raise Refuse(f"{_room_label(room)} has no seat '{_show(seat_text, 40)}'.{where}{example}")
    return room, seat


def make_booking(view: ToolView, args: dict[str, Any]) -> Outcome:
    place = _find_library(view, args["location_id"])
    day = _bookable_day(view, args["date"])
    start, end = _read_slot(view, args["time_slot"], day)
    seat_text = args.get("seat_id", "").strip()
    room, seat = _pick_room(place, args["item_name"], seat_text)
    date = date_label(day)
    look = f'reservation.query_availability(location_id="{place.building_id}", date="{date}", room="{_room_label(room)}")'
    if room.kind != STUDY and seat_text:
        return fail(f"{_room_label(room)} is a public area, booked whole: leave seat_id out.")
    if room.kind == STUDY and seat is None:
        return fail(f"{_room_label(room)} is a study area: you book one seat in it. Give seat_id, one of the open seats {look} lists.")
    if seat is not None and seat not in open_seats(view, place, room, day):
        return fail(f"Seat {seat.id} is not open for booking on {date}. {look} lists the seats that are.")
    part: ReservationState = view.state.reservation
    key = shape_key(place.building_id, room.id, day)
    if key in part.closed:
        return fail(f"{_room_label(room)} is closed on {date}. {look} shows what is open.")
    low, high = room_hours(part, key)
    if start < low or end > high:
        return fail(f"{_room_label(room)} can be booked only {_span(low, high)} on {date}. {look} shows its free times.")
    busy = room_bookings(part, place.building_id, room.id, day).get(seat.id if seat else "", [])
    clash = next((b for b in busy if b.start < end and start < b.end), None)
    if clash is not None:
        what = f"Seat {seat.id}" if seat else _room_label(room)
        free = ", ".join(_spans(free_windows(busy, _earliest(view, day)))) or "no other time"
        return fail(
            f"{what} is already booked on {date} at {_span(clash.start, clash.end)} (booking {clash.booking_id}), "
            f"which overlaps {_span(start, end)}. It is free {free} that day."
        )
    booking_id = f"bk_{part.next_booking}"
    fact = Booked(
        booking_id=booking_id,
        task_id=view.task_id,
        location_id=place.building_id,
        room_id=room.id,
        item_name=room.name,
        day=day,
        start=start,
        end=end,
        seat_id=seat.id if seat else "",
    )
    what = f"seat {seat.id} in {_room_label(room)}" if seat else _room_label(room)
    slot = _span(start, end)
    message = f"Booked {what}, {place.describe()}, {date} {slot} (booking {booking_id})."
    data = {k: getattr(fact, k) for k in ("booking_id", "location_id", "room_id", "item_name", "seat_id")}
    return ok(message, [fact], data | {"date": date, "time_slot": slot})


# ------------------------------------------------------------------ reducers and world changes


def _booked(part: ReservationState, event: Booked) -> None:
    if event.day < 0 or not 0 <= event.start < event.end <= MINUTES_PER_DAY:  # never written by the handler; a log must still fold
        return
    part.bookings.append(
        Booking(
            booking_id=event.booking_id,
            task_id=event.task_id,
            location_id=event.location_id,
            room_id=event.room_id,
            item_name=event.item_name,
            seat_id=event.seat_id,
            day=event.day,
            start=event.start,
            end=event.end,
        )
    )
    number = _BOOKING_ID.fullmatch(event.booking_id)
    part.next_booking = max(part.next_booking + 1, int(number.group(1)) + 1) if number else part.next_booking + 1


def _world_changed(part: ReservationState, event: WorldChanged) -> None:
    change = event.change
    if isinstance(change, (RoomStatus, RoomHours, SeatFeatures, FeatureLost)):
        _apply_rule_change(part, change)
    elif isinstance(change, SeatAvailability):
        read = _read_shaping(change)
        if not isinstance(read, str):
            key, seats = read
            part.shaped[key] = seats


def room_hours(part: ReservationState, key: str) -> tuple[int, int]:
    """A room's bookable hours on a date (shape key): the library's, unless a trigger changed them."""
    changed = part.hours.get(key)
    return (changed.start, changed.end) if changed is not None else (OPEN, CLOSE)


LOST = "!"
"""An override ``(LOST + feature,)`` in ``ReservationState.features``: the seat has the world's features but that one
(``FeatureLost``, which names only its seats' ids: their features made the default term 70 % larger)."""


def seat_now(part: ReservationState, seat: Seat) -> Seat:
    """The seat with the features it has now (a trigger may have changed them)."""
    changed = part.features.get(seat.id)
    if changed is None:
        return seat
    return Seat(id=seat.id, features=[f for f in seat.features if f != changed[0][1:]] if is_lost(changed)
                else list(changed))


def is_lost(override: Sequence[str]) -> bool:
    """Whether a features override says one feature was lost (``LOST``)."""
    return len(override) == 1 and override[0].startswith(LOST)


RuleChange = RoomStatus | RoomHours | SeatFeatures | FeatureLost
"""The reservation changes a trigger rule makes."""


def _apply_rule_change(part: ReservationState, change: RuleChange) -> None:
    match change:
        case RoomStatus():
            key = shape_key(change.building_id, change.room_id, change.day)
            if change.new == "closed" and key not in part.closed:
                part.closed.append(key)
            elif change.new == "open" and key in part.closed:
                part.closed.remove(key)
        case RoomHours():
            part.hours[shape_key(change.building_id, change.room_id, change.day)] = change.new
        case SeatFeatures():
            part.features[change.seat_id] = tuple(change.new)
        case FeatureLost():
            lost = (LOST + change.feature,)
            for seat_id in change.seats:
                if change.new:
                    part.features.pop(seat_id, None)
                else:
                    part.features[seat_id] = lost


def rule_change_holds(part: ReservationState, change: RuleChange, world: WorldIndex) -> str | None:
    """Compare-and-set: why ``change.old`` is not the current value (None when it is)."""
    match change:
        case RoomStatus():
            key = shape_key(change.building_id, change.room_id, change.day)
            now = "closed" if key in part.closed else "open"
            return None if now == change.old else f"room {change.room_id} of {change.building_id} is {now}, not {change.old}"
        case RoomHours():
            low, high = room_hours(part, shape_key(change.building_id, change.room_id, change.day))
            hours = Span(start=low, end=high)
            return None if hours == change.old else (
                f"room {change.room_id} of {change.building_id} has hours {_span(low, high)}, not {_span(change.old.start, change.old.end)}")
        case SeatFeatures():
            seat = _world_seat(world, change)
            if seat is None:
                return f"there is no seat {change.seat_id}"
            features = tuple(seat_now(part, seat).features)
            return None if features == tuple(change.old) else f"seat {change.seat_id} has {list(features)}, not {list(change.old)}"
        case FeatureLost():
            lost = (LOST + change.feature,)
            for seat_id in change.seats:  # an undone ``SeatFeatures`` leaves the world's features as an override
                current = part.features.get(seat_id)
                has = current is None or (not is_lost(current) and change.feature in current)
                if has != change.old:
                    return f"seat {seat_id} {'has' if has else 'does not have'} {change.feature}"
                if not has and current != lost:
                    return f"seat {seat_id} lost {change.feature} to another change"
            return None


def _world_seat(world: WorldIndex, change: SeatFeatures) -> Seat | None:
    place = libraries(world).by_id.get(change.building_id.casefold())
    room = next((r for r in place.rooms if r.id == change.room_id), None) if place else None
    return next((s for s in room.seats if s.id == change.seat_id), None) if room else None


def _seat_in(world: WorldIndex, building_id: str, seat_id: str) -> Seat | None:
    """The world's seat ``seat_id`` of a library, in whichever room holds it."""
    place = libraries(world).by_id.get(building_id.casefold())
    rooms = place.seat_rooms.get(seat_id.casefold(), []) if place else []
    return next((s for r in rooms for s in r.seats if s.id == seat_id), None)


def rule_change_problem(change: RuleChange, world: WorldIndex) -> str | None:
    """Why a trigger's reservation change names nothing real (checked when a term is built)."""
    place = libraries(world).by_id.get(change.building_id.casefold())
    if place is None:
        return f"{change.building_id} is not a library"
    if isinstance(change, FeatureLost):
        for seat_id in change.seats:
            seat = _seat_in(world, change.building_id, seat_id)
            if seat is None:
                return f"no seat {seat_id}"
            if change.feature not in seat.features:
                return f"seat {seat_id} has no {change.feature} to lose"
        return None if change.feature in SEAT_FEATURES else f"unknown feature {change.feature}"
    if not any(r.id == change.room_id for r in place.rooms):
        return f"{change.building_id} has no room {change.room_id}"
    if isinstance(change, SeatFeatures):
        if _world_seat(world, change) is None:
            return f"no seat {change.seat_id}"
        stray = [f for f in change.new if f not in SEAT_FEATURES]
        return f"unknown feature {stray[0]}" if stray else None
    if change.day < 0:
        return f"day {change.day} is before the term"
    if isinstance(change, RoomHours) and not all(OPEN <= s.start < s.end <= CLOSE for s in (change.old, change.new)):
        return f"bad hours {_span(change.old.start, change.old.end)} -> {_span(change.new.start, change.new.end)}"
    return None


def _day_started(part: ReservationState, event: DayStarted) -> None:
    """Shapings of past dates can never be read again (nothing is booked or listed for the past)."""
    if part.shaped:
        part.shaped = {key: seats for key, seats in part.shaped.items() if _shaped_day(key) >= event.day}


def _shaped_day(key: str) -> int:
    """The day a shaping key (``building|room|day``) is for."""
    return int(key.rsplit("|", 1)[1])


def _read_shaping(change: SeatAvailability) -> tuple[str, list[str]] | str:
    for name, value in (("building_id", change.building_id), ("room_id", change.room_id)):
        if not value or "|" in value or len(value) > MAX_ID:
            return f"seat_availability needs '{name}', a non-empty id without '|'"
    if change.day < 0:
        return f"seat_availability day {change.day} is before the term"
    if "" in change.open_seats:
        return "seat_availability needs 'open_seats', a list of full seat ids"
    return shape_key(change.building_id, change.room_id, change.day), sorted(set(change.open_seats))


def seat_availability_problem(change: SeatAvailability, world: WorldIndex | None = None) -> str | None:
    """Why a seat availability change would be ignored or miss, or None.

    Without ``world`` only what the reducer checks is checked (a log must always fold).
    With it, scenario loaders also learn whether the library, the study area and every
    seat exist; ids must be exact.
    """
    read = _read_shaping(change)
    if isinstance(read, str) or world is None:
        return read if isinstance(read, str) else None
    place = libraries(world).by_id.get(change.building_id.casefold())
    if place is None or place.building_id != change.building_id:
        return f"seat_availability: '{change.building_id}' is not the id of a library"
    room = next((r for r in place.rooms if r.id == change.room_id), None)
    if room is None or room.kind != STUDY:
        return f"seat_availability: {place.building_id} has no study area with id '{change.room_id}'"
    ids = {s.id for s in room.seats}
    stray = [s for s in read[1] if s not in ids]
    if stray:
        return f"seat_availability: {_room_label(room)} has no seat '{stray[0]}'"
    return None


# ------------------------------------------------------------------ declarations

_LOCATION = Param(name="location_id", type="string", description="The library's building id, e.g. '<<library>>' (map.find_building_id finds it).", max_length=MAX_ID)
_DATE = Param(name="date", type="string", description="The day, written 'Week X, Day', e.g. 'Week 4, Saturday'. Today or later.", max_length=100)

QUERY_AVAILABILITY = ToolDecl(
    name="reservation.query_availability",
    system="reservation",
    description=(
        "List what can be booked in a library on a date: for each study area its open seats with their features "
        f"and free times, for each public area (booked whole) its free times. Libraries are open {HOURS}. "
        f"At most {MAX_SEATS_EACH} seats are listed per room ({MAX_SEATS} when only one study area is listed); "
        "narrow the list with the optional room and features."
    ),
    params=(
        _LOCATION,
        _DATE,
        Param(name="room", type="string", required=False, max_length=MAX_ID, description="Only this room: its name, its id, or 'name (id)', e.g. '<<room>>'."),
        Param(name="features", type="array", items="string", required=False, description="Only seats that have all of these features, e.g. [\"power_outlet\", \"quiet_zone\"]. Features: " + ", ".join(SEAT_FEATURES) + "."),
    ),
    handler=query_availability,
    example='reservation.query_availability(location_id="<<library>>", date="Week 4, Saturday")',
)

MAKE_BOOKING = ToolDecl(
    name="reservation.make_booking",
    system="reservation",
    description=(
        "Book a seat in a library study area, or a whole public area, for a time slot on a date. Check first with "
        "reservation.query_availability which seats are open. The result gives the booking id."
    ),
    params=(
        _LOCATION,
        Param(name="item_name", type="string", max_length=MAX_ID, description="The room: its name, its id, or 'name (id)' as listed, e.g. '<<room>>'."),
        _DATE,
        Param(name="time_slot", type="string", max_length=100, description=f"'HH:MM-HH:MM' within {HOURS}, in quarter hours, e.g. '14:00-16:00'."),
        Param(name="seat_id", type="string", required=False, max_length=MAX_ID, description="The seat, e.g. '<<seat>>' (required in a study area; leave out for a public area)."),
    ),
    handler=make_booking,
    mutates=True,
    example=(
        'reservation.make_booking(location_id="<<library>>", item_name="<<room>>", date="Week 4, Saturday", '
        'time_slot="14:00-16:00", seat_id="<<seat>>")'
    ),
)

RESERVATION_TOOLS: tuple[ToolDecl, ...] = (QUERY_AVAILABILITY, MAKE_BOOKING)


def _new_state(world: Any) -> ReservationState:
    return ReservationState()


RESERVATION = Domain(
    name="reservation",
    state_type=ReservationState,
    initial=_new_state,
    reducers={Booked: _booked, WorldChanged: _world_changed, DayStarted: _day_started},
    tools=RESERVATION_TOOLS,
    guards={RoomStatus: rule_change_holds, RoomHours: rule_change_holds, SeatFeatures: rule_change_holds,
            FeatureLost: rule_change_holds},
    changes={SeatAvailability: seat_availability_problem, RoomStatus: rule_change_problem, RoomHours: rule_change_problem,
             SeatFeatures: rule_change_problem, FeatureLost: rule_change_problem},
)

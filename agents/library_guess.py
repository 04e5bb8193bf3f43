"""libguess: a student who books library seats without ever looking up which library a task means.

A Library Study task names its library only indirectly (a catalogue book, a subject, or the library's
name, which the student must look up in the catalogue or on the map). This control never looks: it is
a ``Control`` (``agents/controls.py``), handed the time and the task's conversation and nothing else.

On a seat request (the text says what the seat needs, in the words of the features the reservation
tool lists, and a session ``from HH:MM, <duration> long``) it

1. asks the reservation system about a building that is no library: the refusal lists every library;
2. queries each listed library for the session's date with the requested features, as many as the
   round limit leaves room for;
3. books, for the session, the first seat listed in the library showing the fewest fitting seats (at
   least one): a library showing exactly one comes first, which is how the target of the terms made
   before ``anywhere`` stood out, ties going to the first listed;
4. walks there by the map's route when the seat is for now ("... there to use it").

A request for a later time (a scheduled delivery) is written in its own calendar; a task that shows only
the time reads the calendar (as ``diligent``) and carries out a seat request due then. Every other task it
finishes at once. On the library tasks the term audit holds its passes to the chance of picking, uniformly,
one of the libraries that show a fitting seat (``lab/audit.py``); every reply is a pure function of the
``Seen``.
"""

from __future__ import annotations

import json
import re

from campus.kernel.clock import MINUTES_PER_DAY, clock_label, date_label
from campus.world.model import SEAT_FEATURES

from campus.agents.controls import Control, Seen, due_entry
from campus.agents.plans import FINISH, Plan, action, quoted
from campus.agents.reader import go_to, later

ROUNDS = 20
"""The round limit of a task (``scenarios.rounds.DEFAULT_ROUND_LIMIT``): tool calls past it are never made."""

_SESSION = re.compile(r"a session from (\d\d):(\d\d), (\d+)(\.5)? hours?(?: and (\d+) minutes)? long")
_NEEDS = re.compile(r"(?:seat|It also) needs ([^.]+)\.")
_USE = "there to use it"
_LIBRARIES = re.compile(r"Buildings with bookable spaces: (.*)")
_ID = re.compile(r"\((\w+)\)")
_ROOM = re.compile(r"^(.+?), [^,\n]+, study area \(book one seat\)[^:\n]*: (\d+) open seat\(s\) have", re.MULTILINE)
_SEAT = re.compile(r"^  - (\S+) \[")
NOWHERE = "no-such-library"
"""The building asked about to be told which buildings are libraries."""

Found = list[tuple[str, int, list[str]]]
"""A library's listing read back: (room label, fitting seats open, seat ids listed) per study area."""


class SeatRequest:
    """What a Library Study text asks for, as a literal reader gets it: features, session, and whether to go."""

    def __init__(self, text: str) -> None:
        needs = " ".join(_NEEDS.findall(text))
        self.features = [feature for feature in SEAT_FEATURES if feature.replace("_", " ") in needs]
        found = _SESSION.search(text)
        self.slot: tuple[int, int] | None = None
        if found is not None:
            start = int(found[1]) * 60 + int(found[2])
            length = int(found[3]) * 60 + (30 if found[4] else 0) + int(found[5] or 0)
            self.slot = (start, start + length)
        self.use = _USE in text

    @property
    def valid(self) -> bool:
        return bool(self.features) and self.slot is not None


def is_seat_request(text: str) -> bool:
    return SeatRequest(text).valid


class LibraryGuesser(Control):
    name = "libguess"

    def plan(self, seen: Seen) -> Plan:
        text = seen.shown
        if text:
            when = later(text)
            if not is_seat_request(text):
                return iter([FINISH])  # type: ignore[return-value]
            return note(text, when) if when is not None else guess(SeatRequest(text), seen.announced, 0)
        return self._from_calendar(seen.announced)

    def _from_calendar(self, start: int) -> Plan:
        today = date_label(start // MINUTES_PER_DAY)
        schedule = yield action(f'calendar.view_schedule(calendar_id="self", date="{today}")')
        entry = due_entry(schedule or "", start % MINUTES_PER_DAY)
        if entry is None or not is_seat_request(entry[2]):
            yield FINISH
            return
        yield from guess(SeatRequest(entry[2]), start, 1)


def note(text: str, when: tuple[str, str]) -> Plan:
    """Write a seat request for later into the student's own calendar at its time, the request as the description."""
    date, clock = when
    end = min(int(clock[:2]) + 1, 23)
    yield action(f'calendar.add_event(calendar_id="self", event_title="Book a library seat", location="a library", '
                 f"time={quoted(f'{date}, {clock}-{end:02d}{clock[2:]}')}, description={quoted(text)})")
    yield FINISH


def guess(request: SeatRequest, now: int, used: int) -> Plan:
    """Book a fitting seat in the library showing fewest of them, never asking which library the text means; ``used``:
    the calls this task has made already."""
    assert request.slot is not None
    date = date_label(now // MINUTES_PER_DAY)
    refused = yield action(f'reservation.query_availability(location_id="{NOWHERE}", date="{date}")')
    listed = _LIBRARIES.search(refused or "")
    places = _ID.findall(listed.group(1)) if listed else []
    room_for = ROUNDS - used - 1 - 1 - (3 if request.use else 0)  # the listing, the booking, the walk
    found: dict[str, Found] = {}
    for place in places[:max(0, room_for)]:
        shown = yield action(f"reservation.query_availability(location_id={quoted(place)}, date={quoted(date)}, "
                             f"features={json.dumps(request.features)})")
        found[place] = read_listing(shown or "")
    chosen = fewest(found)
    if chosen is None:
        yield FINISH
        return
    room, seat = next((label, seats[0]) for label, _, seats in found[chosen] if seats)
    start, end = request.slot
    yield action(f"reservation.make_booking(location_id={quoted(chosen)}, item_name={quoted(room)}, date={quoted(date)}, "
                 f"time_slot={quoted(f'{clock_label(start)}-{clock_label(end)}')}, seat_id={quoted(seat)})")
    if request.use:
        yield from go_to(chosen)
    yield FINISH


def read_listing(text: str) -> Found:
    """Each study area of a ``query_availability`` listing with features: its label, its count, the seats listed."""
    rooms: Found = []
    for line in text.splitlines():
        room = _ROOM.match(line)
        if room is not None:
            rooms.append((room[1], int(room[2]), []))
            continue
        seat = _SEAT.match(line)
        if seat is not None and rooms:
            rooms[-1][2].append(seat[1])
    return rooms


def fewest(found: dict[str, Found]) -> str | None:
    """The library whose listing shows the fewest fitting seats, at least one listed (the first of those tied)."""
    counts = {place: sum(count for _, count, _ in rooms) for place, rooms in found.items()
              if any(seats for _, _, seats in rooms)}
    return min(counts, key=lambda place: counts[place]) if counts else None


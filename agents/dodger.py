"""dodger: a student who meets a disruption task by steering clear of the plan, never looking at the task's date.

Every disruption breaks the plan a task hands out (a room, a seat, an hour, a route), so a student that never follows
the plan escapes the change without noticing it. This control is a ``Control`` (``agents/controls.py``): it sees the
time and the task's conversation, nothing else. On a disruption task it

1. reads the goal off the text (the library, or the fallback library the text names; the date, the feature, the
   blocks) and the planned rooms and seats;
2. lists the library's seats with the feature for the *next* day, which no disruption touches (the rooms and the
   seats' features are the same every day; only which seats are open changes);
3. books, for each block, a listed seat outside the planned rooms (the last room listed first), trying the next when a
   booking is refused, which costs nothing, and the next room when one is refused as closed; of two blocks it keeps
   the late one as planned;
4. walks to the library by the map's route when the task asks it to go there, and writes the seat it booked to the
   study group when asked.

It never compares anything with the plan and never looks again after booking. Before a solvable disruption left one
way out (``scenarios.disruptions._swept``) such a student passed 429 of 432 solvable tasks of generated seeds 0-3 at
``--scale 0.3``; the term audit holds it to the chance of a fitting seat of the way out's rooms drawn evenly. Every
other task it finishes at once; every reply is a pure function of the ``Seen``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator

from campus.kernel.clock import MINUTES_PER_DAY, clock_label, date_label, parse_moment

from campus.agents.controls import Control, Seen
from campus.agents.library_guess import read_listing
from campus.agents.plans import FINISH, Plan, action, quoted
from campus.agents.reader import go_to

OPENING = "Tonight you study in the library"
"""How a disruption task's text begins (``scenarios/disruptions.py``)."""
TRIES = 6
"""Seats tried for a block before the block is given up."""
LATE = 120
"""Minutes into the block's window at which it books (20:00 of the evening's window)."""

_LIBRARY = re.compile(r"in a study area of [^()]*\((B\d{3})\)")
_FALLBACK = re.compile(r"\(or, if it cannot be had there, of [^()]*\((B\d{3})\)\)")
_DATE = re.compile(r" on (Week \d+, \w+), for \d one-hour")
_FEATURE = re.compile(r"you need a seat with (.+?) in a study area")
_WINDOW = re.compile(r"one between (\d\d):(\d\d) and (\d\d):(\d\d)")
_PLANNED = re.compile(r'make_booking\(location_id="\w+", item_name="([^"]+)", date="[^"]+", time_slot="[^"]+", '
                      r'seat_id="([^"]+)"\)')
_GROUP = re.compile(r"Then email (\S+@\S+) ")


class Dodger(Control):
    name = "dodger"

    def plan(self, seen: Seen) -> Plan:
        text = seen.shown
        if not text.startswith(OPENING):
            return iter([FINISH])  # type: ignore[return-value]
        return dodge(text)


def dodge(text: str) -> Plan:
    """Book around the plan of the disruption task ``text`` from the next day's listing, go and write as asked."""
    found = [_LIBRARY.search(text), _DATE.search(text), _FEATURE.search(text)]
    if not all(found):
        yield FINISH
        return
    fallback = _FALLBACK.search(text)
    library = fallback[1] if fallback else found[0][1]  # type: ignore[index]
    date, feature = found[1][1], found[2][1].replace(" ", "_")  # type: ignore[index]
    windows = [(int(a) * 60 + int(b), int(c) * 60 + int(d)) for a, b, c, d in _WINDOW.findall(text)]
    planned = _PLANNED.findall(text)
    next_day = date_label(parse_moment(date) // MINUTES_PER_DAY + 1)
    shown = yield action(f"reservation.query_availability(location_id={quoted(library)}, date={quoted(next_day)}, "
                         f"features={json.dumps([feature])})")
    rooms = [(label, seats) for label, _, seats in read_listing(shown or "") if seats]
    avoided = {room for room, _ in planned}
    others = [room for room in rooms if room[0] not in avoided] or rooms
    booked: str | None = None
    for index, (low, high) in enumerate(windows):
        if index and len(planned) > index:  # the late block of two, kept as planned
            room, seat = planned[index]
            yield _book(library, room, date, high - 60, seat)
            continue
        start = min(low + LATE, high - 60)
        booked = yield from _first_taken(library, date, start, others if index else list(reversed(others)))
    if "Then go to the library" in text:
        yield from go_to(library)
    group = _GROUP.search(text)
    if group and booked:
        yield action(f'email.send_email(to={quoted(group[1])}, subject="Study seat", body={quoted(f"I booked seat {booked}.")})')
    yield FINISH


def _first_taken(library: str, date: str, start: int,
                 rooms: list[tuple[str, list[str]]]) -> Generator[str, str, str | None]:
    """Book seats of ``rooms`` in order until one booking is taken, going on to the next room when one is refused as
    closed; returns the seat (``None`` after ``TRIES`` bookings)."""
    tried = 0
    for room, seats in rooms:
        for seat in seats:
            if tried == TRIES:
                return None
            tried += 1
            result = yield _book(library, room, date, start, seat)
            if (result or "").startswith("Booked"):
                return seat
            if " is closed on " in (result or ""):
                break
    return None


def _book(library: str, room: str, date: str, start: int, seat: str) -> str:
    return action(f"reservation.make_booking(location_id={quoted(library)}, item_name={quoted(room)}, date={quoted(date)}, "
                  f"time_slot={quoted(f'{clock_label(start)}-{clock_label(start + 60)}')}, seat_id={quoted(seat)})")

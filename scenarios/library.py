"""Library Study: book one library seat that meets every need the text implies, now or later.

What the student is told (after the StuLife paper, appendix H.3). Each instruction is a
first-person note or a message from a roommate or a counsellor, and says

- *where*: a catalogue book (``"<title>" by <author>``: ``data_system.search_books`` tells
  which library holds it), a subject (a catalogue category: ``list_books_by_category``
  names the one library holding it), or, for general study, the library by name (the map
  gives its id). Books never leave their library, so the seat must be in that library;
- *what the seat needs*: two or three seat features in plain words with a reason
  ("a power outlet, since the laptop battery will not last"), and a session start and
  duration on the 15-minute grid inside opening hours (08:00-22:00);
- *when*:

  * *now*: book for a session starting within the task's hour, then go and use the seat;
  * *later today*: book now for a session hours later the same day (only the booking counts);
  * *scheduled*: a delivery task (run, not scored) names a later date and time to book at
    and a session starting just after it, the same day or one to six days later (half and
    half). The execution task at that time says nothing but the time: the student must
    have noted it in its calendar. It then books, in that task, and goes to the seat.

Which seat. Any seat of the library that has every requested feature and is open is right, as in
the published data (a two-feature need is met by a median of ten seats in a room). Nothing is shaped
for a task: which seats are open is the seeded draw of the run (``reservation.drawn_open``, the run
seed and rules version the term is made for), and the features are chosen (``_pick_seating``) from a
seat of the library so that, by that draw alone, the library has a fitting seat open that day and so
do at least ``SHOWING_SHARE`` of all libraries with study areas (9 of 12 on a generated campus, 11 of
14 on the published one): which libraries show a fitting seat, how many they show and how full they
are say nothing of which one the task means. The library itself is drawn evenly among those free that
day that have a topic of the drawn kind (``Stock.topic``). A library is used by at most one task per
date.

Before (terms whose booking part has no ``anywhere``): one change per study area at the release made
exactly one seat of the library fit and opened other seats with chance 0.5 (the draw's is 0.6), and
only the library's own bookings were judged. A student who never looked the library up passed 84 of
90 tasks (scale 0.3, generated seeds 0 and 1 and the published campus, seed 0) by booking where
the open share was lowest and exactly one seat fitted; on the same seeds' terms made by the first
version of this design (before the decoys and the topic filter below) it passed 2 of 90, where a
library drawn uniformly among those showing a fitting seat would pass 8 (the term audit holds
``libguess``, which books in the library showing fewest fitting seats, to that).

Ground truth: a ``booking`` part (library, date, time slot, ``seat_ids``: every fitting seat open
when the task is released) made in this task and judged on the task's last booking of all, in any
library on any day (``anywhere``, beside ``last``): booking in several libraries fails unless the
last is right. For sessions starting within the hour a ``location`` part (the student ends the task
in that library) plus ``use``: booking and not going earns the ``unused_bookings`` mark.

Stale variant (half of the scheduled pairs): the features are chosen where the draw leaves a fitting
seat of the library closed (and one open). At the delivery the library shows the draw; at the
execution's release one change per study area holding a fitting seat closes every fitting seat the
draw opened and opens every one it closed, every other seat staying as drawn. The stale plan books a
seat that fitted at the delivery; it is no longer open, so the task fails. The same swap is made at
the same minute in ``DECOYS`` other libraries free that day whose draw leaves a fitting seat open and
one closed (``Stock.decoys``; each is then taken that day, and the features are chosen where there are
that many): changed only in the task's library, a student who noted every library's listing at the
delivery and booked where it had changed passed 24 of 24 stale executions (generated seeds 0 and 1,
the published campus, ``--scale 0.3``; a second red-team); now 4 of 40 (seeds 0-3 and the published
campus; at most one in five by design), where a library drawn among those showing a fitting seat
passes 3.7.

Flags: execution tasks are long-term, self-motivated commitments (the paper's 50 LTM and
50 SM); delivery tasks are delivery-only; immediate tasks have neither. At scale 1 there
are 51 immediate tasks and 50 pairs: 151 tasks.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from campus.events import SeatAvailability
from campus.kernel.clock import MINUTES_PER_DAY, clock_label, date_label
from campus.kernel.schedule import Trigger
from campus.scenarios.context import TermContext
from campus.scenarios.task import Flags, Task
from campus.scenarios.timeline import Overlap, Timeline
from campus.subsystems.information import fold, plain
from campus.subsystems.reservation import CLOSE, GRID, STUDY, Place, drawn_open, libraries, seat_availability_problem
from campus.world.index import WorldIndex
from campus.world.model import SEAT_FEATURES, Library, Room, Seat

SCENARIO = "library_study"
PHASE = "daily_campus"
PREFIX = "library"
SYSTEMS = ("reservation", "data_system", "bibliography", "map", "geography", "calendar", "email")

PAPER_IMMEDIATE = 51
PAPER_SCHEDULED = 50
NOW_SHARE = 0.6
"""Of the immediate tasks, the share that book for a session starting within the hour."""
STALE_SHARE = 0.5
"""Of the scheduled pairs, the share whose fitting seat moves between delivery and execution."""
SHOWING_SHARE = 0.75
"""Of the libraries with study areas, the share (rounded up) in which the day's draw must open a seat with every
requested feature: which libraries show one then says little about which the task means."""
FEATURE_TRIES = 60
"""Seats of the library whose features are tried as the request (``_pick_seating``)."""

DECOYS = 4
"""Other libraries changed alike at a stale pair's execution (``Stock.decoys``): a library a decoy change takes for the
day is one neither the disruptions nor the day's other library tasks can have, so they are drawn among the libraries
the disruptions cannot use (one study area) where there are enough of them. Taking as many as must show a fitting
seat crowded the published campus (seed 0 had 27 disruption tasks fewer, seed 1 no longer fitted), and four drawn
among all its libraries still took seed 0 thirteen draws and a thinning. They are drawn so that the task's library is as likely to come first, last or anywhere among the changed ones
in the order the libraries are listed, as far as there are libraries to draw before and after it (the first library
listed is always first): drawn evenly, it came first in about half of the stale executions of seeds 1-3
at ``--scale 0.3`` (the libraries holding the catalogue's books have the lower ids), and a student booking at the
first library whose listing had changed passed 15 of 40 (seeds 0-3 and the published campus)."""

KINDS = ("book", "book", "subject", "subject", "named", "named", "named")
"""The kind of topic a task is about, drawn from these, where its library has one of that kind."""

FIRST_DAY = 7
LAST_DAY = 18 * 7 - 1
"""Tasks fall in Weeks 1-17."""
BOOKING_MINUTES = 90
"""Reserved per booking task: a few calls and a walk of up to ~35 minutes."""
DELIVERY_MINUTES = 60
LEAD = 15
"""A session booked for right away starts this many minutes after the task's release."""
DURATIONS = (90, 105, 120, 135, 150, 180, 210, 240)
MIN_GAP = 120
"""Minutes between a same-day delivery and its execution, and before a 'later today' session."""


def _times(first: float, last: float) -> tuple[int, ...]:
    return tuple(range(round(first * 60), round(last * 60) + 1, GRID))


NOW_TIMES = _times(8, 19.5)
LATER_TIMES = _times(8, 15)
DELIVERY_TIMES = _times(8, 21)
SAME_DAY_DELIVERY_TIMES = _times(8, 17)
EXECUTION_TIMES = NOW_TIMES

FEATURE_WORDS: dict[str, str] = {
    "power_outlet": "a power outlet, since the laptop battery will not last the session",
    "quiet_zone": "a spot in a quiet zone, because even whispering is distracting",
    "computer_access": "computer access, as the laptop is away for repair",
    "discussion_zone": "a place in a discussion zone, so talking problems through out loud is fine",
    "low_traffic_area": "a low traffic area, away from people walking past all the time",
    "window_seat": "a window seat, which helps to stay awake",
    "natural_lighting": "natural lighting, because lamps tire the eyes",
    "large_table": "a large table to spread out notes and printouts",
    "good_wifi": "good wifi for streaming the lecture recordings",
    "whiteboard": "a whiteboard for sketching derivations",
    "private_space": "a private space where nobody looks over one's shoulder",
    "comfortable_seating": "comfortable seating for a long sit",
    "reference_materials": "reference materials within reach",
    "technical_resources": "technical resources nearby, such as scanners and specialist software",
    "sofa_area": "a sofa area for relaxed reading",
    "projector": "a projector for rehearsing slides",
    "historical_archives": "the historical archives close by",
    "specialized_collections": "the specialized collections close by",
    "convenient_location": "a convenient location near the entrance",
}
"""How an instruction words each seat feature it asks for (``group_room`` is never asked: the seat is for one)."""

REASONS = (
    "A report on it is due next week.",
    "The seminar discusses it on Friday.",
    "It ties in with one of your courses this term.",
    "It is for a side project that has been waiting for weeks.",
    "The midterm will lean on it.",
    "A group presentation depends on it.",
)
STUDY_REASONS = (
    "The problem sets are piling up.",
    "There is a lot of revision to catch up on.",
    "The programming assignment needs a long, focused stretch.",
    "The reading list for this week is long.",
)
ROOMMATES = ("Kenji", "Maya", "Tom", "Aiko", "Leo", "Sara")
COUNSELLORS = ("Ms. Tanaka", "Mr. Okafor", "Dr. Lindqvist", "Ms. Moreau")


# ------------------------------------------------------------------ what the world offers


@dataclass(frozen=True)
class Topic:
    """Why the student goes to a library, and how it finds which one."""

    kind: str
    """``book`` (search the catalogue), ``subject`` (a category) or ``named`` (general study)."""
    library: str
    text: str
    """The book title, the category, or the library's name."""
    author: str = ""

    def lookup(self) -> str:
        if self.kind == "book":
            return f"data_system.search_books(query={json.dumps(self.text)}, search_type=\"title\")"
        if self.kind == "subject":
            return f"data_system.list_books_by_category(category={json.dumps(self.text)})"
        return f"map.find_building_id(building_name={json.dumps(self.text)})"


def _study_rooms(library: Library) -> list[Room]:
    return [room for room in library.rooms if room.kind == STUDY and room.seats]


def _distinct(seats: Sequence[Seat]) -> list[Seat]:
    """One seat per id, the first (the published seat map repeats a few ids inside a room)."""
    first: dict[str, Seat] = {}
    for seat in seats:
        first.setdefault(seat.id, seat)
    return list(first.values())


def _topics(world: WorldIndex) -> dict[str, list[Topic]]:
    """Per library with study areas: its catalogue books (found alone by their title), subjects and its name.

    A book or subject sharing a word with any library's name is left out: a student matching the topic's words
    against the library names the reservation tool lists found the library without looking anything up ("Law" in
    the School of Law, an author "University Archives" in The University Archive: 16 of 55 book and subject tasks of
    generated seeds 0, 1 and the published campus at ``--scale 0.3``, where a library drawn among those showing a
    fitting seat passes 4.9)."""
    libraries = {lib.building_id: lib for lib in world.world.libraries if _study_rooms(lib)}
    found: dict[str, list[Topic]] = {building: [] for building in sorted(libraries)}
    named = set().union(*(_words(world.name_of(lib.building_id)) for lib in world.world.libraries))
    books = world.world.books
    folded = [fold(book.title) for book in books]
    for book, key in zip(books, folded):
        if book.library_id in found and sum(key in other for other in folded) == 1 \
                and not _words(f"{book.title} {book.author}") & named:
            found[book.library_id].append(Topic("book", book.library_id, plain(book.title), plain(book.author)))
    for category in sorted({book.category for book in books}):
        holders = {book.library_id for book in books if book.category == category}
        if len(holders) == 1 and (holder := holders.pop()) in found and not _words(category) & named:
            found[holder].append(Topic("subject", holder, plain(category)))
    for building in found:
        found[building].append(Topic("named", building, plain(world.name_of(building))))
    return found


_WORD = re.compile(r"[a-z]{3,}")
_PLAIN_WORDS = frozenset({"the", "and", "for", "library", "libraries", "school", "college", "hall", "center", "centre",
                          "university", "campus", "building", "house", "room", "rooms"})
"""Words of a library's name that name no subject (the kind of place, not what it holds)."""


def _words(text: str) -> set[str]:
    """The words of ``text`` that could tie it to a library's name, lowercased, a plural's ``s`` dropped."""
    return {word.removesuffix("s") for word in _WORD.findall(fold(text)) if word not in _PLAIN_WORDS}


class Stock:
    """The world's libraries and topics, which library already hosts a booking on which day, and the seat draw."""

    def __init__(self, world: WorldIndex, seed: int, rules_version: int) -> None:
        self.world = world
        self.topics = _topics(world)
        self.libraries = {lib.building_id: lib for lib in world.world.libraries}
        self.taken: set[tuple[str, int]] = set()
        self.full: set[int] = set()
        """Days on which every library with a topic is taken (``take``)."""
        self.seed = seed
        self.rules_version = rules_version
        self.places = [place for place in libraries(world).places
                       if any(room.kind == STUDY and room.seats for room in place.rooms)]
        self.needed = math.ceil(SHOWING_SHARE * len(self.places))
        """Libraries that must show a fitting seat open on a booking task's date (``SHOWING_SHARE``)."""

    def topic(self, rng: random.Random, day: int) -> Topic:
        """A topic of a library that has no booking task on ``day`` yet (and now has one).

        The kind is drawn first (``KINDS``), then the library, every free one with a topic of that kind alike, then
        its topic: drawn among all topics of a kind at once, most tasks went to the libraries holding most books (on
        the published campus 16 of 30 to B001 and B042 at scale 0.3, seed 0), so a fixed library was a good guess."""
        kind = rng.choice(KINDS)
        free = [building for building in self.topics if (building, day) not in self.taken]
        if not free:
            raise ValueError(f"no library left for a task on {date_label(day)}")
        having = [building for building in free if any(t.kind == kind for t in self.topics[building])] or free
        building = rng.choice(having)
        found = self.topics[building]
        topic = rng.choice([t for t in found if t.kind == kind] or found)
        self.take(building, day)
        return topic

    def changes(self, building: str, day: int, shaping: dict[str, list[str]]) -> list[SeatAvailability]:
        """One validated change per shaped room."""
        changes = []
        for room_id, seats in shaping.items():
            change = SeatAvailability(building_id=building, room_id=room_id, day=day, open_seats=tuple(seats))
            problem = seat_availability_problem(change, self.world)
            if problem:
                raise ValueError(problem)
            changes.append(change)
        return changes

    def drawn_ids(self, building: str, day: int) -> set[str]:
        """The ids of the library's study-area seats the seeded draw opens on ``day``."""
        place = libraries(self.world).by_id[building.casefold()]
        return {seat.id for room in place.rooms if room.kind == STUDY
                for seat in drawn_open(place, room, self.seed, day, self.rules_version)}

    def free_on(self, day: int) -> bool:
        """Whether some library with a topic has no booking task (nor a stale pair's decoy change) on ``day``."""
        return day not in self.full

    def take(self, building: str, day: int) -> None:
        """The library hosts a booking task (or a decoy change) on ``day``: no other task gets it that day."""
        self.taken.add((building, day))
        if all((other, day) in self.taken for other in self.topics):
            self.full.add(day)

    def swapped(self, building: str, day: int, wanted: Sequence[str]) -> dict[str, list[str]]:
        """Room id -> open seats, for the rooms holding a seat with every ``wanted`` feature: the fitting seats the
        day's draw opens closed and those it closes opened, every other seat as drawn (empty unless the draw leaves a
        fitting seat open and one closed: the library shows a fitting seat before the change and after it, as a stale
        pair's own does)."""
        place = libraries(self.world).by_id[building.casefold()]
        drawn = self.drawn_ids(building, day)
        fitting = {id(room): ids for room in place.rooms if room.kind == STUDY and room.seats
                   and (ids := place.with_all(room, frozenset(wanted)))}
        if {seat in drawn for ids in fitting.values() for seat in ids} != {True, False}:
            return {}
        return {room.id: [seat.id for seat in place.distinct[id(room)] if (seat.id in drawn) != (seat.id in fitting[id(room)])]
                for room in place.rooms if id(room) in fitting}

    def decoyable(self, target: str, day: int, wanted: Sequence[str]) -> int:
        """How many libraries ``decoys`` would change."""
        return sum(1 for place in self.places if place.building_id != target
                   and (place.building_id, day) not in self.taken and self.swapped(place.building_id, day, wanted))

    def decoys(self, rng: random.Random, target: str, day: int,
               wanted: Sequence[str]) -> list[tuple[str, dict[str, list[str]]]]:
        """The same swap in ``DECOYS`` other libraries free on ``day`` whose draw leaves a fitting seat open and one
        closed (each now taken that day), so that which listings changed at a stale pair's execution says little of
        which library the task means."""
        order = [place.building_id for place in self.places]
        eligible = [(place, shaping) for place in self.places if place.building_id != target
                    and (place.building_id, day) not in self.taken and (shaping := self.swapped(place.building_id, day, wanted))]
        quiet = [pair for pair in eligible if not _disruptable(pair[0])]
        found = [(place.building_id, shaping) for place, shaping in (quiet if len(quiet) >= DECOYS else eligible)]
        before = [pair for pair in found if order.index(pair[0]) < order.index(target)]
        after = found[len(before):]
        ranks = [r for r in range(DECOYS + 1) if r <= len(before) and DECOYS - r <= len(after)]
        if ranks:  # the task's library as likely anywhere among those changed, in listing order, as the others allow
            rank = rng.choice(ranks)
            chosen = rng.sample(before, rank) + rng.sample(after, DECOYS - rank)
        else:
            chosen = rng.sample(found, min(DECOYS, len(found)))
        for building, _ in chosen:
            self.take(building, day)
        return chosen

    def showing(self, day: int, features: Sequence[str]) -> list[str]:
        """The libraries with a seat having every feature that the seeded draw opens on ``day``."""
        return showing(self.places, self.seed, self.rules_version, day, features)


def _disruptable(place: Place) -> bool:
    """Whether the disruptions can use the library (``scenarios.disruptions``: two study areas or more)."""
    return sum(room.kind == STUDY for room in place.rooms) >= 2


def showing(places: Sequence[Place], seed: int, rules_version: int, day: int, features: Sequence[str]) -> list[str]:
    """Of ``places``, the libraries in which the seeded draw (``rules_version``'s) opens a study-area seat having every
    one of ``features`` on ``day``: what a student who queries every library with the features sees show a seat,
    changes and bookings aside."""
    wanted = frozenset(features)
    return [place.building_id for place in places
            if any(seat.id in place.with_all(room, wanted) for room in place.rooms if room.kind == STUDY
                   for seat in drawn_open(place, room, seed, day, rules_version))]


def libraries_showing(world: WorldIndex, seed: int, rules_version: int, day: int, features: Sequence[str]) -> list[str]:
    """``showing`` over every library of ``world``: a library booking task's libraries to pick from for a student
    who never looks up which one the task means (the term audit's chance for ``libguess``)."""
    return showing(libraries(world).places, seed, rules_version, day, features)


# ------------------------------------------------------------------ the seats that fit


@dataclass(frozen=True)
class Seating:
    """What the seat needs, the seats that meet it when the booking task is released, and the plans' seats."""

    features: tuple[str, ...]
    answers: tuple[tuple[Room, Seat], ...]
    """Every seat of the library with every feature that is open when the task is released: booking any is right."""
    booked: tuple[Room, Seat]
    """The seat the oracle's plan books (one of ``answers``)."""
    stale: tuple[Room, Seat] | None = None
    """Stale pairs: the seat a plan made at the delivery books (it fitted then; it is closed at the execution)."""
    shaping: dict[str, list[str]] = field(default_factory=dict)
    """Stale pairs: room id -> the seats open from the execution's release (the draw's, fitting ones swapped)."""


def _fits(seat: Seat, features: Sequence[str]) -> bool:
    return all(feature in seat.features for feature in features)


def _wanted(rng: random.Random, seat: Seat) -> list[str]:
    """Two or three of the seat's worded features (two twice as often), in the world's feature order."""
    worded = [f for f in seat.features if f in FEATURE_WORDS]
    return sorted(rng.sample(worded, min(len(worded), rng.choice((2, 2, 3)))), key=SEAT_FEATURES.index)


def _pick_seating(stock: Stock, building: str, day: int, rng: random.Random, stale: bool) -> Seating:
    """Features of a seat of the library that, by the day's draw alone, the library and most others can meet.

    Up to ``FEATURE_TRIES`` seats with two worded features are tried in a seeded order; the first whose
    features leave a seat open in the library and in at least ``stock.needed`` libraries wins, else the one
    shown open in most libraries. A stale pair also needs a fitting seat closed (the change at the execution
    swaps them) and, to count as shown, as many other libraries free that day with one closed (``Stock.decoys``:
    they change alike)."""
    seats = [(room, seat) for room in _study_rooms(stock.libraries[building]) for seat in _distinct(room.seats)]
    candidates = [seat for _, seat in seats if sum(f in FEATURE_WORDS for f in seat.features) >= 2]
    rng.shuffle(candidates)
    drawn = stock.drawn_ids(building, day)
    best: tuple[int, Seating] | None = None
    for seat in candidates[:FEATURE_TRIES]:
        wanted = _wanted(rng, seat)
        fit = [(room, s) for room, s in seats if _fits(s, wanted)]
        opened = [pair for pair in fit if pair[1].id in drawn]
        closed = [pair for pair in fit if pair[1].id not in drawn]
        if not opened or (stale and not closed):
            continue
        seating = _stale_seating(stock, building, day, wanted, opened, closed, rng) if stale else \
            Seating(tuple(wanted), tuple(opened), rng.choice(opened))
        shown = len(stock.showing(day, wanted))
        if stale and stock.decoyable(building, day, wanted) < DECOYS:
            shown = min(shown, stock.needed - 1)
        if shown >= stock.needed:
            return seating
        if best is None or shown > best[0]:
            best = (shown, seating)
    if best is None:
        what = "a stale pair can move" if stale else "the draw opens"
        raise ValueError(f"{building}: no seat with two worded features that {what} on {date_label(day)}")
    return best[1]


def _stale_seating(stock: Stock, building: str, day: int, wanted: Sequence[str], opened: Sequence[tuple[Room, Seat]],
                   closed: Sequence[tuple[Room, Seat]], rng: random.Random) -> Seating:
    """At the execution's release every fitting seat the draw opens closes and every one it closes opens; every
    other seat stays as drawn."""
    return Seating(tuple(wanted), tuple(closed), rng.choice(closed), rng.choice(opened),
                   stock.swapped(building, day, wanted))


# ------------------------------------------------------------------ one job


@dataclass(frozen=True)
class Draft:
    release: int
    kind: str
    """``now``, ``later``, ``delivery`` or ``execution``."""
    pair: int | None
    text: str
    topic: Topic
    day: int
    slot: tuple[int, int]
    """Session start and end, minutes since midnight."""
    seating: Seating
    changes: tuple[tuple[int, SeatAvailability], ...] = ()
    """World changes this booking task relies on: (minute, change)."""
    act: int = 0
    """For a delivery: when the execution task comes (minutes since Week 0)."""


def generate(ctx: TermContext, *, immediate: int | None = None, scheduled: int | None = None) -> tuple[list[Task], list[Trigger]]:
    """Library tasks, and the world changes that move the fitting seats of the stale pairs.

    ``immediate`` single tasks (60% for right away, the rest for later the same day) and
    ``scheduled`` delivery/execution pairs, placed in Weeks 1-17; ids follow release order.
    """
    world, rng = ctx.world, ctx.rng("library")
    immediate = ctx.count(PAPER_IMMEDIATE) if immediate is None else immediate
    scheduled = ctx.count(PAPER_SCHEDULED) if scheduled is None else scheduled
    now = round(immediate * NOW_SHARE)
    jobs = ["now"] * now + ["later"] * (immediate - now) + ["scheduled"] * scheduled
    rng.shuffle(jobs)
    same_day = _shares(rng, scheduled, 0.5)
    stale = _shares(rng, scheduled, STALE_SHARE)
    stock = Stock(world, ctx.seed, ctx.rules_version)
    drafts: list[Draft] = []
    pair = 0
    for number, job in enumerate(jobs):
        owner = f"library {number}"
        if job == "scheduled":
            drafts += _scheduled(ctx.timeline, rng, stock, owner, pair, same_day[pair], stale[pair])
            pair += 1
        else:
            drafts.append(_immediate(ctx.timeline, rng, stock, owner, job))
    drafts.sort(key=lambda draft: draft.release)
    ids = [f"{PREFIX}-{rank:03d}" for rank in range(1, len(drafts) + 1)]
    partner = {draft.pair: task_id for task_id, draft in zip(ids, drafts) if draft.kind == "execution"}
    tasks = [_task(world, task_id, draft, partner.get(draft.pair, "")) for task_id, draft in zip(ids, drafts)]
    triggers = [
        Trigger(id=f"{task_id}/{number:02d}", t=t, change=change)
        for task_id, draft in zip(ids, drafts)
        for number, (t, change) in enumerate(draft.changes, 1)
    ]
    return tasks, triggers


def _shares(rng: random.Random, count: int, share: float) -> list[bool]:
    """``count`` flags, ``round(count * share)`` of them true, in a seeded order."""
    flags = [index < round(count * share) for index in range(count)]
    rng.shuffle(flags)
    return flags


def _candidates(days: range, times: Sequence[int]) -> list[int]:
    return [day * MINUTES_PER_DAY + minute for day in days for minute in times]


def _duration(rng: random.Random, start: int) -> int:
    return rng.choice([d for d in DURATIONS if start + d <= CLOSE])


def _immediate(timeline: Timeline, rng: random.Random, stock: Stock, owner: str, job: str) -> Draft:
    days = range(FIRST_DAY, LAST_DAY + 1)
    candidates = [t for t in _candidates(days, NOW_TIMES if job == "now" else LATER_TIMES)
                  if stock.free_on(t // MINUTES_PER_DAY)]
    release = timeline.place(rng, candidates, BOOKING_MINUTES, owner)
    day, minute = divmod(release, MINUTES_PER_DAY)
    if job == "now":
        start = minute + LEAD
    else:
        latest = min(19 * 60 + 30, minute + 5 * 60)
        start = rng.choice(range(-(-(minute + MIN_GAP) // 30) * 30, latest + 1, 30))
    topic = stock.topic(rng, day)
    seating = _pick_seating(stock, topic.library, day, rng, stale=False)
    slot = (start, start + _duration(rng, start))
    style = rng.choice(("self", "self", "roommate", "counsellor"))
    text = _instruction(rng, style, topic, seating.features, slot, job, None)
    return Draft(release, job, None, text, topic, day, slot, seating)


def _scheduled(
    timeline: Timeline, rng: random.Random, stock: Stock, owner: str, pair: int, same_day: bool, stale: bool
) -> list[Draft]:
    deliveries = _candidates(range(FIRST_DAY, LAST_DAY + (1 if same_day else 0)), SAME_DAY_DELIVERY_TIMES if same_day else DELIVERY_TIMES)
    def executions(delivered: int) -> list[int]:
        times = (_same_day_executions if same_day else _later_executions)(delivered)
        return [t for t in times if stock.free_on(t // MINUTES_PER_DAY)]
    delivered, at = _place_pair(timeline, rng, deliveries, executions, owner)
    day, minute = divmod(at, MINUTES_PER_DAY)
    topic = stock.topic(rng, day)
    seating = _pick_seating(stock, topic.library, day, rng, stale=stale)
    start = minute + LEAD * rng.choice((1, 2))
    slot = (start, start + _duration(rng, start))
    style = rng.choice(("self", "self", "roommate", "counsellor"))
    text = _instruction(rng, style, topic, seating.features, slot, "delivery", at)
    changes = [(at, c) for c in stock.changes(topic.library, day, seating.shaping)]
    if stale:
        changes += [(at, c) for building, shaping in stock.decoys(rng, topic.library, day, seating.features)
                    for c in stock.changes(building, day, shaping)]
    delivery = Draft(delivered, "delivery", pair, text, topic, day, slot, seating, act=at)
    execution = Draft(at, "execution", pair, "", topic, day, slot, seating, tuple(changes))
    return [delivery, execution]


def _same_day_executions(delivered: int) -> list[int]:
    day, minute = divmod(delivered, MINUTES_PER_DAY)
    return _candidates(range(day, day + 1), [t for t in EXECUTION_TIMES if t >= minute + MIN_GAP])


def _later_executions(delivered: int) -> list[int]:
    first = delivered // MINUTES_PER_DAY + 1
    return _candidates(range(first, min(first + 6, LAST_DAY + 1)), EXECUTION_TIMES)


def _place_pair(
    timeline: Timeline, rng: random.Random, deliveries: Sequence[int], executions: Callable[[int], list[int]], owner: str
) -> tuple[int, int]:
    """Reserve a delivery among ``deliveries`` that leaves a free execution slot, then that execution."""
    order = list(deliveries)
    rng.shuffle(order)
    for delivered in order:
        if timeline.is_free(delivered, DELIVERY_MINUTES) and any(timeline.is_free(e, BOOKING_MINUTES) for e in executions(delivered)):
            timeline.reserve(delivered, DELIVERY_MINUTES, owner)
            return delivered, timeline.place(rng, executions(delivered), BOOKING_MINUTES, f"{owner} (execution)")
    raise Overlap(f"{owner}: no free delivery slot with a free execution slot after it")


# ------------------------------------------------------------------ tasks


def _task(world: WorldIndex, task_id: str, draft: Draft, executed_by: str) -> Task:
    if draft.kind == "delivery":
        return _delivery(world, task_id, draft, executed_by)
    seating = draft.seating
    use = draft.kind != "later"
    start, end = draft.slot
    parts: list[dict[str, Any]] = [
        {"check": "booking", "location_id": draft.topic.library, "day": draft.day, "start": start, "end": end,
         "seat_ids": [seat.id for _, seat in seating.answers], "last": True, "anywhere": True}
    ]
    truth: dict[str, Any] = {"parts": parts, "features": list(seating.features), "topic": draft.topic.kind}
    if use:
        parts.append({"check": "location", "building": draft.topic.library})
        truth["use"] = draft.topic.library
    execution = draft.kind == "execution"
    stale = _plan(draft, *seating.stale, use) if seating.stale else None
    return Task(
        id=task_id, scenario=SCENARIO, phase=PHASE, release=draft.release, instruction=draft.text, systems=SYSTEMS,
        evaluator="parts", ground_truth=truth, flags=Flags(long_term=execution, self_motivated=execution, commitment=execution),
        solution=_plan(draft, *seating.booked, use), stale=stale,
    )


def _plan(draft: Draft, room: Room, seat: Seat, use: bool) -> tuple[str, ...]:
    library, date = draft.topic.library, date_label(draft.day)
    slot = f"{clock_label(draft.slot[0])}-{clock_label(draft.slot[1])}"
    steps = [
        f"call:{draft.topic.lookup()}",
        f"call:reservation.query_availability(location_id={json.dumps(library)}, date={json.dumps(date)}, "
        f"features={json.dumps(list(draft.seating.features))})",
        f"call:reservation.make_booking(location_id={json.dumps(library)}, item_name={json.dumps(f'{room.name} ({room.id})')}, "
        f"date={json.dumps(date)}, time_slot={json.dumps(slot)}, seat_id={json.dumps(seat.id)})",
    ]
    if use:
        steps.append(f"goto:{library}")
    return tuple(steps)


def _delivery(world: WorldIndex, task_id: str, draft: Draft, executed_by: str) -> Task:
    return Task(
        id=task_id, scenario=SCENARIO, phase=PHASE, release=draft.release, instruction=draft.text, systems=SYSTEMS,
        evaluator="parts", ground_truth={"parts": []}, flags=Flags(delivery_only=True),
        solution=(f"call:{_note(world, draft)}",), follow_up=(executed_by,),
    )


def _note(world: WorldIndex, draft: Draft) -> str:
    """The calendar entry a diligent student writes at the delivery: when, where (a building id) and what."""
    where = draft.topic.library if draft.topic.kind == "named" else world.world.home
    when = f"{date_label(draft.act // MINUTES_PER_DAY)}, {clock_label(draft.act)}-{clock_label(draft.act + 60)}"
    return (
        f'calendar.add_event(calendar_id="self", event_title="Book a library seat", location={json.dumps(where)}, '
        f"time={json.dumps(when)}, description={json.dumps(draft.text)})"
    )


# ------------------------------------------------------------------ instructions


def duration_words(minutes: int) -> str:
    """``150`` -> ``2.5 hours``, ``105`` -> ``1 hour and 45 minutes``."""
    hours, rest = divmod(minutes, 60)
    if rest == 0:
        return f"{hours} hours"
    if rest == 30:
        return f"{hours}.5 hours"
    return f"{hours} hour{'s' if hours > 1 else ''} and {rest} minutes"


def _instruction(
    rng: random.Random, style: str, topic: Topic, features: Sequence[str], slot: tuple[int, int], job: str, at: int | None
) -> str:
    mine = style == "self"
    session = f"a session from {clock_label(slot[0])}, {duration_words(slot[1] - slot[0])} long"
    body = " ".join((_where(rng, topic, mine), _needs(features, mine), _when(session, job, at, mine)))
    if mine:
        opener = rng.choice(("Note to self:", "Thinking it over:", "Okay, study plan:", "Reminder to myself:"))
        return f"{opener} {body}"
    if style == "roommate":
        name = rng.choice(ROOMMATES)
        return f"Message from your roommate {name}: Hey! {body} - {name}"
    name = rng.choice(COUNSELLORS)
    return f"Message from your counsellor, {name}: Hello. {body} Best regards, {name}"


def _where(rng: random.Random, topic: Topic, mine: bool) -> str:
    if topic.kind == "named":
        reason = rng.choice(STUDY_REASONS)
        return f"{reason} I will study at {topic.text}." if mine else f"{reason} A good place for it is {topic.text}."
    reason = rng.choice(REASONS)
    held = "Catalogue books cannot leave the library that holds them"
    if topic.kind == "book":
        if mine:
            return f'I have to work through "{topic.text}" by {topic.author}. {reason} {held}, so my seat has to be in that library.'
        return f'You mentioned needing "{topic.text}" by {topic.author}. {reason} {held}, so book your seat in that library.'
    if mine:
        return f"I want to dig into {topic.text}. {reason} My seat has to be in the library that holds the catalogue's {topic.text} books."
    return f"It is time you dug into {topic.text}. {reason} Sit in the library that holds the catalogue's {topic.text} books."


def _needs(features: Sequence[str], mine: bool) -> str:
    first, *more = [FEATURE_WORDS[feature] for feature in features]
    sentences = [f"{'My' if mine else 'Your'} seat needs {first}."]
    sentences += [f"It also needs {item}." for item in more]
    return " ".join(sentences)


def _when(session: str, job: str, at: int | None, mine: bool) -> str:
    if job == "now":
        if mine:
            return f"I will book a seat right now for {session}, and then head straight there to use it."
        return f"Book yourself a seat right now for {session}, and go straight there to use it."
    if job == "later":
        return f"I will book it now for later today: {session}." if mine else f"Book it now for later today: {session}."
    assert at is not None
    when = f"on {date_label(at // MINUTES_PER_DAY)} at {clock_label(at)}"
    if mine:
        return (
            f"Not right now, though: {when} I will book the seat, for {session}, and then go there to use it. "
            "I will book it then, not earlier, since which seats are open that day may still change. "
            "Nothing will remind me, so it goes in my calendar."
        )
    return (
        f"Not now, though: {when}, book yourself the seat, for {session}, and then go there to use it. "
        "Book it then, not earlier, since which seats are open that day may still change. "
        "Nobody will remind you, so put it in your calendar."
    )

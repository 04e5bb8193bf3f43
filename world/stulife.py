"""Reading the published StuLife background data into the world model.

``load_map`` reads only the campus map; ``load_stulife`` reads the whole published layout
(``map_v1.5.json``, ``courses.json`` with ``combined_courses_s1.json`` and
``combined_courses_s2.json``, ``campus_data.json`` and ``books/*.json``) into one ``World``.

Rules:

- Nothing is dropped or repaired silently. Every quirk of the data that the importer works
  around is a line of the returned ``ImportReport``, and so are the source fields the world
  model has no place for.
- The home base is Lakeside Dormitory (B083), as in the benchmark.
- Library rooms keep the seat data's ``room_id`` as id and ``room_name`` as name. Every
  seat room is checked against its building's amenities on the same floor, in either the
  form ``name`` or ``name (room_id)``. Duplicated seat ids get ``-2``, ``-3``... in source
  order. Seats' ``available`` flags are not imported: availability is the reservation
  system's business.
- Course sections come from ``courses.json``. Its ``popularity`` is null everywhere, so
  popularity is the ``popularity_index`` of the combined file of the section's semester,
  matched by course code (``DEFAULT_POPULARITY`` when missing). Seats are that file's
  ``seats_left``, else its ``enrollment_capacity``, else ``DEFAULT_SEATS``. A blank
  ``time`` is taken from the combined file. Codes are kept as given, even where one is used
  in both semesters: a section is identified by (code, semester).
- A club's email is the address in its ``recruitment_info`` (without the sentence's period).
- A book's library is the building named before `` - `` in its ``location``; the whole
  location string is its collection.
- Texts carry the titles the tools know (``TEXTS``), in that order: the three handbooks,
  then the eight textbooks. Article ids are kept as given, even where books share them; a
  chapter title repeated inside a book gets `` (2)`` so that every chapter can be listed.
  The Academic Programs Guide is built from the programs file: one chapter per program,
  sections at level-3 headings (at every heading below the title when a program has none),
  an article per sub-heading, cut into parts of at most ``ARTICLE_LIMIT`` characters, titled
  ``<program>: <heading>`` so that titles are unique in the book.
- A file is untrusted. Every value the world takes from it is checked as it is read: numbers for their type and range
  (whole numbers, never ``true`` or ``2.0``: ``WALK_MINUTES``, ``CREDITS``, ``TEACHING_WEEKS``, ``POPULARITY``,
  ``SEATS``; class times and weekdays too), texts for their type and for control characters (none in a name, an id or
  a one-line text; an article body may hold the five JSON short escapes, as the published books do). A bad value is
  one ``StuLifeDataError`` naming the file, the entry (its JSON path, and its id when it has one) and the field; it is
  never clamped or repaired, and nothing is returned.
- Agents only see ASCII, so every string of the world is transliterated (``to_ascii``).
- Determinism: the output depends only on the files. Source order is kept where it means
  something (catalogue order, book structure, seats in a room); libraries and buildings
  are sorted by id.
"""

from __future__ import annotations

import json
import math
import os
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import msgspec

from campus.world.model import (
    SEAT_FEATURES,
    Advisor,
    Article,
    Book,
    BookSection,
    Building,
    Chapter,
    Club,
    Complex,
    CourseSection,
    Library,
    Room,
    Seat,
    Text,
    World,
    counts,
    stored_form,
)
from campus.world.model import (
    Path as Walkway,
)

HOME = "B083"
DEFAULT_POPULARITY = 50
"""The reference implementation's default when a course has no popularity."""
DEFAULT_SEATS = 100
"""The most common ``enrollment_capacity`` in the combined course files."""
ARTICLE_LIMIT = 2000
"""Longest article body, in characters, cut from the Academic Programs Guide."""

TEXTS: tuple[tuple[str, str, str, str], ...] = (
    # file (without .json), the title the tools know, kind, the course it belongs to
    ("university_rules", "Student Handbook", "handbook", ""),
    ("academic_integrity", "Academic Integrity Guidelines", "handbook", ""),
    ("informatics_division_programs_anonymized", "Academic Programs Guide", "handbook", ""),
    ("IntroductionCS", "A Panorama of Computing: From Bits to Artificial Intelligence", "textbook",
     "Introduction to Computer Science"),
    ("Linear Algebra", "Linear Algebra and Its Applications", "textbook", "Linear Algebra"),
    ("Mathematical Analysis", "Mathematical Analysis", "textbook", "Mathematical Analysis I"),
    ("Military Theory", "Military Theory and National Defense", "textbook", "Military Theory (Including Military Training)"),
    ("Programming4Everyone", "Programming for Everyone", "textbook", "Programming for Everyone"),
    ("innovation", "Innovation and Entrepreneurship", "textbook", "Innovation and Entrepreneurship"),
    ("mental", "Mental Health and Wellness", "textbook", "Mental Health & Development of College Students"),
    ("programing", "Advanced Programming Concepts", "textbook", "Programming"),
)
PROGRAMS_FILE = "informatics_division_programs_anonymized"


class StuLifeDataError(ValueError):
    """The directory does not hold the published StuLife layout, or holds a value the simulation cannot use."""


class ImportReport(msgspec.Struct, frozen=True, kw_only=True):
    counts: dict[str, int]
    notes: list[str]
    """Human-readable, one quirk or decision per line."""


# ---------------------------------------------------------------- entry points


def load_map(directory: str | Path) -> tuple[World, list[str]]:
    """The StuLife campus map as a ``World``, and a report of what could not be mapped."""
    notes: list[str] = []
    buildings, paths, complexes = _map(Path(directory), notes)
    return stored_form(World(name="stulife", seed=None, home=HOME, buildings=buildings, paths=paths,
                             complexes=complexes)), notes


def load_stulife(directory: str | Path) -> tuple[World, ImportReport]:
    """Everything the published data holds, as one ``World``, with a report of its quirks."""
    root = Path(directory)
    if not os.path.isdir(root):
        raise StuLifeDataError(f"{root} is not a directory; point at the StuLife background data directory")
    notes: list[str] = []
    buildings, paths, complexes = _map(root, notes)
    with _shape("map_v1.5.json"):  # a name or alias of another type than text
        names = _building_names(buildings)
    file = "campus_data.json"
    raw = _Entry(file, "the file", _read(root, file))
    with _shape(file):
        libraries = _libraries(raw.sub("library_seats"), {b.id: b for b in buildings}, notes)
        clubs = _clubs([_Entry(file, _at(f"clubs[{i}]", club, "club_id"), club) for i, club in enumerate(raw.entries("clubs"))],
                       notes)
        advisors = [_advisor(_Entry(file, _at(f"advisors[{i}]", advisor, "advisor_id"), advisor), notes)
                    for i, advisor in enumerate(raw.entries("advisors"))]
        books = _books([_Entry(file, _at(f"library_books[{i}]", book, "title"), book)
                        for i, book in enumerate(raw.entries("library_books"))], names, notes)
    courses = _courses(root, {b.id for b in buildings}, notes)
    texts = _texts(root, {c.name for c in courses}, notes)
    notes.append(
        "not imported (no place in the world model): advisors' gender and age; books' status (all 'Available'); "
        "seats' accessible and available flags (availability is the reservation system's); courses' "
        "total_class_hours, class_hours_per_week, instructor id and building_name, and the combined files' submodule; "
        "the books' versions and dates"
    )
    world = World(name="stulife", seed=None, home=HOME, buildings=buildings, paths=paths, complexes=complexes,
                  libraries=libraries, courses=courses, advisors=advisors, clubs=clubs, books=books, texts=texts)
    world = stored_form(_ascii_world(world, notes))
    return world, ImportReport(counts=counts(world), notes=[to_ascii(note)[0] for note in notes])


# ---------------------------------------------------------------- files


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise ValueError(f"the number {literal[:40]} is too large for a float")
    return value


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def _read(root: Path, name: str) -> Any:
    source = root / name
    if not os.path.isfile(source):
        raise StuLifeDataError(f"{source} does not exist; point at the StuLife background data directory")
    try:
        return json.loads(source.read_text(encoding="utf-8"), parse_float=_finite, parse_constant=_no_constant)
    except OSError as error:
        raise StuLifeDataError(f"cannot read {source}: {error.strerror or error}") from None
    except ValueError as error:  # not UTF-8, not JSON, or a number no JSON reader agrees on (NaN, 1e400, 5,000 digits)
        raise StuLifeDataError(f"{source} is not valid JSON: {error}") from None
    except RecursionError:
        raise StuLifeDataError(f"{source} nests lists or objects too deeply to be StuLife data") from None


@contextmanager
def _shape(name: str) -> Iterator[None]:
    """Turn a missing key or a wrong type in a file into one ``StuLifeDataError``."""
    try:
        yield
    except (KeyError, TypeError, IndexError, AttributeError, ValueError) as error:
        if isinstance(error, StuLifeDataError):
            raise
        raise StuLifeDataError(f"{name} does not have the published shape ({type(error).__name__}: {error})") from None


# ---------------------------------------------------------------- values: types, ranges, control characters

WALK_MINUTES = (1, 24 * 60)
"""A walkway's ``time_cost``: whole minutes, at least one (the simulated clock must move forward; complexes are the
map's zero-cost walks) and at most a day (the published map's longest is 15 minutes; a day keeps every route's sum far
inside what the clock, the log and SQLite hold exactly)."""
CREDITS = (0, 30)
"""A course's credits: the published ones are 1-5, a whole term's load is about 30."""
TEACHING_WEEKS = (1, 18)
"""A course's weeks: week 0 is course selection, 19 the finals, 20-21 planning; the published courses and the generated
ones teach inside 1-18."""
POPULARITY = (0, 99)
"""The pass rules' range (``subsystems.courses``), which a world change's popularity is held to as well."""
SEATS = (0, 10_000)
"""A section's seats: zero is a full section; the published ones hold at most 120."""
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""Control characters (Unicode category Cc: C0, DEL, C1). None is allowed in a name, an id or any one-line text: they
reach every observation that names the thing (an ESC drives the reader's terminal, a newline forges a line). Checking
the source is enough: ``to_ascii`` makes no control character out of any other character."""
_BODY_CONTROL = re.compile(r"[\x00-\x07\x0b\x0e-\x1f\x7f-\x9f]")
"""Control characters an article body may not hold: all but the five JSON writes as a short escape, ``\\b \\t \\n \\f
\\r``, which the published books hold (line breaks, and LaTeX whose backslash was read as an escape: ``\\begin``,
``\\times``, ``\\frac``, ``\\rho``)."""
_REQUIRED: Any = object()


def _shown(value: Any) -> str:
    """A value of the file in an error line: JSON's names, texts in ASCII with their control characters escaped,
    everything cut short."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        digits = str(value) if abs(value) < 10**30 else f"{str(value)[:12]}... ({len(str(abs(value)))} digits)"
        return digits
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return ascii(value) if len(value) <= 40 else ascii(value[:40])[:-1] + "...'"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


def _text(value: Any, fail: Callable[[str], NoReturn], *, body: bool = False, nonempty: bool = False) -> str:
    problem = _text_problem(value, body, nonempty)
    if problem is not None:
        fail(problem)
    return value


def _text_problem(value: Any, body: bool, nonempty: bool) -> str | None:
    """What is wrong with ``value`` as a text of the world, if anything (nearly every text is printable ASCII, which
    two C calls settle)."""
    if not isinstance(value, str):
        return f"is {_shown(value)}, not a text"
    bad = None if value.isascii() and value.isprintable() else (_BODY_CONTROL if body else _CONTROL).search(value)
    if bad is not None:
        kind = "an article's text" if body else "a name, an id or a one-line text"
        return (f"holds the control character U+{ord(bad.group()):04X} at character {bad.start() + 1}, which {kind} "
                "may not hold")
    if nonempty and not value.strip():
        return f"is {_shown(value)}; it may not be empty"
    return None


class _Entry:
    """One object of a file, read field by field: each value is checked for its type, a number for its range and a text
    for control characters, and a bad one is one ``StuLifeDataError`` naming the file, the entry and the field."""

    __slots__ = ("file", "label", "raw", "prefix")

    def __init__(self, file: str, label: str, raw: Any, prefix: str = "") -> None:
        self.file, self.label, self.prefix = file, label, prefix
        if not isinstance(raw, dict):
            where = f", field '{prefix[:-1]}'" if prefix else ""
            raise StuLifeDataError(f"{file}: {label}{where} is {_shown(raw)}, not an object")
        self.raw: dict[str, Any] = raw

    def fail(self, field: str, problem: str) -> NoReturn:
        raise StuLifeDataError(f"{self.file}: {self.label}: field '{self.prefix}{field}' {problem}")

    def failing(self, field: str) -> Callable[[str], NoReturn]:
        return lambda problem: self.fail(field, problem)

    def value(self, field: str, default: Any = _REQUIRED) -> Any:
        if field in self.raw:
            return self.raw[field]
        if default is _REQUIRED:
            self.fail(field, "is missing")
        return default

    def sub(self, field: str, default: Any = _REQUIRED) -> _Entry:
        """The object in ``field`` (``default``, e.g. ``{}``, when it is absent)."""
        return _Entry(self.file, self.label, self.value(field, default), f"{self.prefix}{field}.")

    def entries(self, field: str, default: Any = _REQUIRED) -> list[Any]:
        value = self.value(field, default)
        if not isinstance(value, list):
            self.fail(field, f"is {_shown(value)}, not a list")
        return value

    def text(self, field: str, default: Any = _REQUIRED, *, body: bool = False, nonempty: bool = False) -> str:
        value = self.value(field, default)
        problem = _text_problem(value, body, nonempty)
        if problem is not None:
            self.fail(field, problem)
        return value

    def texts(self, field: str, default: Any = _REQUIRED, *, nonempty: bool = False) -> list[str]:
        items = self.entries(field, default)
        for i, item in enumerate(items):
            problem = _text_problem(item, False, nonempty)
            if problem is not None:
                self.fail(f"{field}[{i}]", problem)
        return items

    def table(self, field: str, default: Any = _REQUIRED) -> dict[str, Any]:
        """An object whose keys are texts shown to the agent (floors, property names), each checked."""
        value = self.value(field, default)
        if not isinstance(value, dict):
            self.fail(field, f"is {_shown(value)}, not an object")
        for key in value:
            def fail(problem: str, key: str = key) -> NoReturn:
                self.fail(field, f"has a key {_shown(key)} that {problem}")
            _text(key, fail, nonempty=True)
        return value

    def whole(self, field: str, bounds: tuple[int, int], what: str, default: Any = _REQUIRED) -> int:
        """A whole number in ``bounds`` (a JSON ``true`` or ``2.0`` is not one)."""
        value = self.value(field, default)
        low, high = bounds
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(field, f"is {_shown(value)}; {what} is a whole number from {low} to {high}")
        return value


def _at(path: str, raw: Any, *keys: str) -> str:
    """An entry's name in error lines: its JSON path, and its id when it has a text one (escaped)."""
    if isinstance(raw, dict):
        for key in keys:
            if isinstance(raw.get(key), str):
                return f"{path} ({key} {_shown(raw[key])})"
    return path


# ---------------------------------------------------------------- map


def _map(root: Path, notes: list[str]) -> tuple[list[Building], list[Walkway], list[Complex]]:
    file = "map_v1.5.json"
    raw = _Entry(file, "the file", _read(root, file))
    with _shape(file):
        buildings = sorted((_building(_Entry(file, _at(f"nodes[{i}]", node, "id"), node))
                            for i, node in enumerate(raw.entries("nodes"))), key=lambda b: b.id)
        known = {b.id for b in buildings}
        paths = []
        for i, edge in enumerate(raw.entries("edges")):
            path = _walkway(_Entry(file, f"edges[{i}]", edge))
            if path.source not in known or path.target not in known:
                notes.append(f"walkway {path.source}-{path.target}: unknown endpoint, not imported")
                continue
            paths.append(path)
        complexes = []
        for i, raw_group in enumerate(raw.entries("building_complexes", [])):
            group = _Entry(file, _at(f"building_complexes[{i}]", raw_group, "group_id"), raw_group)
            complexes.append(Complex(id=group.text("group_id", nonempty=True), name=group.text("group_name"),
                                     members=group.texts("member_ids", nonempty=True),
                                     description=group.text("connection_description", "")))
    if HOME not in known:
        raise StuLifeDataError(f"{file}: the map has no home base {HOME} (Lakeside Dormitory)")
    return buildings, paths, complexes


def _walkway(edge: _Entry) -> Walkway:
    source, target = edge.text("source", nonempty=True), edge.text("target", nonempty=True)
    edge.label += f" (source {_shown(source)}, target {_shown(target)})"
    properties = edge.table("properties", {})
    return Walkway(source=source, target=target, minutes=edge.whole("time_cost", WALK_MINUTES, "a walk's time in minutes"),
                   properties={key: _text(value, edge.failing(f"properties.{key}")) for key, value in properties.items()})


def _building(node: _Entry) -> Building:
    amenities = node.table("internal_amenities", {})
    return Building(
        id=node.text("id", nonempty=True),
        name=node.text("name", nonempty=True),
        aliases=node.texts("aliases", []),
        type=node.text("type", ""),
        zone=node.text("zone", ""),
        amenities={floor: node.sub("internal_amenities").texts(floor) for floor in amenities},
    )


def _building_names(buildings: list[Building]) -> dict[str, str]:
    """Case-folded name or alias → building id (names first, as ``WorldIndex.names``)."""
    table: dict[str, str] = {}
    for building in buildings:
        table.setdefault(building.name.casefold(), building.id)
    for building in buildings:
        for alias in building.aliases:
            table.setdefault(alias.casefold(), building.id)
    return table


# ---------------------------------------------------------------- libraries


def _libraries(seats: _Entry, buildings: dict[str, Building], notes: list[str]) -> list[Library]:
    libraries: list[Library] = []
    by_name = by_form = 0
    entries = [(f"library_seats.libraries[{i}]", _Entry(seats.file, _at(f"library_seats.libraries[{i}]", entry, "id"), entry))
               for i, entry in enumerate(seats.entries("libraries"))]
    for path, entry in sorted(entries, key=lambda e: e[1].text("id", nonempty=True)):
        building = buildings.get(entry.text("id"))
        if building is None:
            notes.append(f"library seats for unknown building {entry.text('id')} ({entry.text('name', '')}): not imported")
            continue
        rooms: list[Room] = []
        matched: set[tuple[str, str]] = set()
        floors = entry.sub("internal_amenities")
        for floor in entry.table("internal_amenities"):
            amenities = building.amenities.get(floor, [])
            for j, raw_room in enumerate(floors.entries(floor)):
                at = f"{path}.internal_amenities.{floor}[{j}]"
                room = _Entry(entry.file, _at(at, raw_room, "room_id"), raw_room)
                name, room_id = room.text("room_name"), room.text("room_id", nonempty=True)
                plain, combined = name, f"{name} ({room_id})"
                if plain in amenities:
                    by_name += 1
                    matched.add((floor, plain))
                elif combined in amenities:
                    by_form += 1
                    matched.add((floor, combined))
                else:
                    notes.append(f"library room {building.id} {floor} '{plain}' (room_id '{room_id}') matches no "
                                 f"amenity of {building.name} on that floor, neither as '{plain}' nor as '{combined}'; kept")
                rooms.append(_room(building.id, floor, at, room, notes))
        ids = Counter(room.id for room in rooms)
        for room_id in sorted(i for i, n in ids.items() if n > 1):
            notes.append(f"library {building.id}: room_id '{room_id}' is used by {ids[room_id]} rooms; kept as given")
        for floor, amenities in building.amenities.items():
            for amenity in amenities:
                if (floor, amenity) not in matched:
                    notes.append(f"library {building.id} {floor}: the map's amenity '{amenity}' has no room in the seat data")
        libraries.append(Library(building_id=building.id, rooms=rooms))
    notes.append(
        f"library rooms vs map amenities: {by_name} seat-data rooms match an amenity by room_name, {by_form} only in the "
        "map's 'room_name (room_id)' form (e.g. the map's 'Quiet Study Zone (West Wing)' is room_name 'Quiet Study Zone', "
        "room_id 'West Wing'); rooms keep room_id as id and room_name as name"
    )
    return libraries


def _room(building_id: str, floor: str, at: str, raw: _Entry, notes: list[str]) -> Room:
    kind = raw.text("type")
    if kind not in ("StudyArea", "PublicArea"):
        notes.append(f"library room {building_id} '{raw.text('room_name')}': unknown type '{kind}', imported as PublicArea")
        kind = "PublicArea"
    seats: list[Seat] = []
    seen: Counter[str] = Counter()
    for k, raw_seat in enumerate(raw.entries("seats")):
        seat = _Entry(raw.file, _at(f"{at}.seats[{k}]", raw_seat, "seat_id"), raw_seat)
        seat_id = seat.text("seat_id", nonempty=True)
        features = seat.texts("features")
        seen[seat_id] += 1
        if seen[seat_id] > 1:
            unique = f"{seat_id}-{seen[seat_id]}"
            notes.append(f"duplicate seat id '{seat_id}' in {building_id} room '{raw.text('room_id')}': "
                         f"occurrence {seen[seat_id]} (seat {len(seats) + 1} of the room) is now '{unique}'")
            seat_id = unique
        unknown = sorted(set(features) - set(SEAT_FEATURES))
        if unknown:
            notes.append(f"seat {seat_id}: features {unknown} are not in SEAT_FEATURES; kept")
        seats.append(Seat(id=seat_id, features=list(dict.fromkeys(features))))
    return Room(id=raw.text("room_id"), name=raw.text("room_name"), floor=floor, kind=kind, seats=seats)


# ---------------------------------------------------------------- clubs, advisors, books

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def _clubs(raw: list[_Entry], notes: list[str]) -> list[Club]:
    clubs: list[Club] = []
    periods = 0
    for entry in raw:
        club_id, name, text = entry.text("club_id", nonempty=True), entry.text("club_name"), entry.text("recruitment_info")
        found = _EMAIL.search(text)
        if found is None:
            notes.append(f"club {club_id} ({name}): no email address in recruitment_info; email left empty")
        elif text[found.end():found.end() + 1] == ".":
            periods += 1
        clubs.append(Club(id=club_id, name=name, category=entry.text("category"), description=entry.text("description"),
                          recruitment=text, email=found.group(0) if found else ""))
    notes.append(f"club emails: extracted from recruitment_info; in {periods} of {len(clubs)} clubs a sentence's "
                 "period follows the address directly and is not part of it")
    return sorted(clubs, key=lambda c: c.id)


def _advisor(raw: _Entry, notes: list[str]) -> Advisor:
    area, advisor_id = raw.sub("research_area"), raw.text("advisor_id", nonempty=True)
    given = raw.value("preferences", None)
    preference = _Entry(raw.file, raw.label, {} if given is None else given, "preferences.")  # null: no preferences
    if isinstance(preference.value("level_2", ""), list):
        items = preference.texts("level_2")
        notes.append(f"advisor {advisor_id}: preferences.level_2 is a list {items}; joined with '; '")
        detail = "; ".join(items)
    else:
        detail = preference.text("level_2", "")
    return Advisor(
        id=advisor_id, name=raw.text("name"), email=raw.text("email"), area=area.text("level_1"), field=area.text("level_2"),
        tags=area.texts("tags", []), works=raw.texts("representative_work", []),
        preference=preference.text("level_1", ""), preference_detail=detail,
        preference_text=preference.text("description", ""),
    )


def _books(raw: list[_Entry], names: dict[str, str], notes: list[str]) -> list[Book]:
    books: list[Book] = []
    held: dict[str, set[str]] = defaultdict(set)
    for entry in raw:
        title, location, category = entry.text("title"), entry.text("location"), entry.text("category")
        library, _, rest = location.partition(" - ")
        library_id = names.get(library.strip().casefold(), "")
        if not rest or not library_id:
            notes.append(f"book '{title}': no map building named in its location '{location}'; library left empty")
        held[category].add(location)
        books.append(Book(title=title, author=entry.text("author"), call_number=entry.text("call_number"),
                          type=entry.text("type"), category=category, library_id=library_id, collection=location))
    for category in sorted(c for c, places in held.items() if len(places) > 1):
        notes.append(f"book category '{category}' is held in {len(held[category])} locations "
                     f"({'; '.join(sorted(held[category]))}); each book keeps its own location")
    return books


# ---------------------------------------------------------------- courses

_TIME = re.compile(r"([0-9]{2}):([0-9]{2})-([0-9]{2}):([0-9]{2})")


def _class_time(text: str) -> bool:
    """``HH:MM-HH:MM`` on one day, ending after it starts (what ``subsystems.courses`` reads as a class time)."""
    match = _TIME.fullmatch(text)
    if match is None:
        return False
    h1, m1, h2, m2 = (int(g) for g in match.groups())
    return h1 <= 23 and h2 <= 23 and m1 <= 59 and m2 <= 59 and h1 * 60 + m1 < h2 * 60 + m2


def _courses(root: Path, buildings: set[str], notes: list[str]) -> list[CourseSection]:
    file = "courses.json"
    raw = _Entry(file, "the file", _read(root, file))
    legacy = {1: _combined(root, "combined_courses_s1.json", notes), 2: _combined(root, "combined_courses_s2.json", notes)}
    with _shape(file):
        entries = [_Entry(file, _at(f"courses[{i}]", entry, "course_code"), entry)
                   for i, entry in enumerate(raw.entries("courses"))]
        if all(entry.value("popularity", None) is None for entry in entries):
            notes.append(f"course popularity: 'popularity' is null for all {len(entries)} sections of courses.json; "
                         "popularity_index is taken from combined_courses_s1.json / combined_courses_s2.json, matched "
                         "by course code within the section's semester")
        sections = [_section(entry, legacy, buildings, notes) for entry in entries]
        _course_notes(sections, entries, legacy, notes)
    return sections


def _course_notes(sections: list[CourseSection], entries: list[_Entry], legacy: dict[int, dict[str, dict[str, Any]]],
                  notes: list[str]) -> None:
    defaulted = [s.code for s, e in zip(sections, entries) if _legacy_of(e, legacy) is None]
    if defaulted:
        notes.append(f"course popularity: {len(defaulted)} sections have no combined-file entry ({', '.join(defaulted[:10])}); "
                     f"they get popularity {DEFAULT_POPULARITY} (the reference default) and {DEFAULT_SEATS} seats")
    else:
        notes.append(f"course popularity and seats: found in the combined files for all {len(sections)} sections "
                     f"(seats = seats_left; the default {DEFAULT_POPULARITY} popularity / {DEFAULT_SEATS} seats was not needed)")
    by_code: dict[str, set[int]] = defaultdict(set)
    for section in sections:
        by_code[section.code].add(section.semester)
    repeated = Counter((s.code, s.semester) for s in sections)
    for (code, semester), n in sorted(repeated.items()):
        if n > 1:
            notes.append(f"course {code} appears {n} times in semester {semester} of courses.json; all kept")
    shared = sorted(code for code, semesters in by_code.items() if len(semesters) > 1)
    if shared:
        notes.append(f"course codes used in both semesters: {', '.join(shared)}; kept as given, so a section is "
                     "identified by (code, semester)")
    names = {s.name for s in sections}
    for section in sections:
        for missing in [p for p in section.prerequisites if p not in names]:
            notes.append(f"course {section.code}: prerequisite '{missing}' is not a course name; kept")


def _combined(root: Path, name: str, notes: list[str]) -> dict[str, dict[str, Any]]:
    """The file's entries by course code, each with the values a section may take from it checked."""
    raw = _Entry(name, "the file", _read(root, name))
    table: dict[str, dict[str, Any]] = {}
    with _shape(name):
        for i, item in enumerate(raw.entries("all_courses")):
            entry = _Entry(name, _at(f"all_courses[{i}]", item, "course_code"), item)
            code = entry.text("course_code", nonempty=True)
            if "popularity_index" in entry.raw:
                entry.whole("popularity_index", POPULARITY, "a popularity")
            for key in ("seats_left", "enrollment_capacity"):
                if entry.value(key, None) is not None:
                    entry.whole(key, SEATS, "a section's number of seats")
            if "schedule" in entry.raw:
                entry.sub("schedule").text("time", "")
            if code in table:
                notes.append(f"{name}: course code {code} appears twice; the first is used")
                continue
            table[code] = item
    return table


def _semester(entry: _Entry) -> int:
    given = entry.value("semester")
    text = str(given) if isinstance(given, (str, int)) and not isinstance(given, bool) else ""
    value = text.split()[-1] if text.split() else ""
    if value not in ("1", "2"):
        entry.fail("semester", f"is {_shown(given)}, not a known semester ('Semester 1' or 'Semester 2')")
    return int(value)


def _legacy_of(entry: _Entry, legacy: dict[int, dict[str, dict[str, Any]]]) -> dict[str, Any] | None:
    return legacy[_semester(entry)].get(entry.text("course_code"))


def _section(entry: _Entry, legacy: dict[int, dict[str, dict[str, Any]]], buildings: set[str],
             notes: list[str]) -> CourseSection:
    code, schedule = entry.text("course_code", nonempty=True), entry.sub("schedule")
    semester = _semester(entry)
    old = _legacy_of(entry, legacy) or {}
    given = schedule.text("time")
    time = given.strip()
    if not _class_time(time):
        fallback = str(old.get("schedule", {}).get("time", "")).strip()
        if not _class_time(fallback):
            schedule.fail("time", f"is {_shown(given)}, not a class time HH:MM-HH:MM (from 00:00 to 23:59, ending after it "
                                  f"starts), and combined_courses_s{semester}.json has none for {code}")
        notes.append(f"course {code}: time {given!r} in courses.json; took '{fallback}' from "
                     f"combined_courses_s{semester}.json")
        time = fallback
    weeks = schedule.sub("weeks")
    first_week = weeks.whole("start", TEACHING_WEEKS, "a teaching week")
    last_week = weeks.whole("end", TEACHING_WEEKS, "a teaching week")
    if last_week < first_week:
        weeks.fail("end", f"is {last_week}, before the first week {first_week}")
    days = schedule.texts("days")
    for j, day in enumerate(days):
        if day not in WEEKDAYS or day in days[:j]:
            schedule.fail(f"days[{j}]", f"is {_shown(day)}; days are distinct names of weekdays ({', '.join(WEEKDAYS)})")
    location = schedule.sub("location")
    building_id = location.text("building_id", nonempty=True)
    if building_id not in buildings:
        notes.append(f"course {code}: building {building_id} is not on the map; kept")
    kind = entry.text("type")
    if kind not in ("Compulsory", "Elective"):
        notes.append(f"course {code}: unknown type '{kind}', imported as elective")
    popularity = old.get("popularity_index", DEFAULT_POPULARITY)
    seats = next((old[k] for k in ("seats_left", "enrollment_capacity") if old.get(k) is not None), DEFAULT_SEATS)
    prerequisites = entry.texts("prerequisites") if entry.value("prerequisites", None) is not None else []
    return CourseSection(
        code=code, name=entry.text("course_name"), credits=entry.whole("credits", CREDITS, "a course's credits"),
        instructor=entry.sub("instructor").text("name"), semester=semester, compulsory=kind == "Compulsory",
        first_week=first_week, last_week=last_week, days=days, time=time, building_id=building_id,
        room=location.text("room"), popularity=popularity, seats=seats, prerequisites=prerequisites,
        description=entry.text("description", ""),
    )


# ---------------------------------------------------------------- texts


def _texts(root: Path, course_names: set[str], notes: list[str]) -> list[Text]:
    books = root / "books"
    known = {stem for stem, *_ in TEXTS}
    extra = sorted(p.name for p in books.glob("*.json") if p.stem not in known) if books.is_dir() else []
    if extra:
        notes.append(f"books: {', '.join(extra)} are not known to the tools; not imported")
    texts: list[Text] = []
    wrapped: list[str] = []
    renamed: list[str] = []
    for stem, title, kind, course in TEXTS:
        file = f"books/{stem}.json"
        raw = _read(root, file)
        with _shape(file):
            at = ""
            if isinstance(raw, list):
                if len(raw) != 1:
                    raise StuLifeDataError(f"{file} holds a list of {len(raw)} items, not one book")
                wrapped.append(f"{stem}.json")
                raw, at = raw[0], "[0]"
            book = _Entry(file, at or "the book", raw)
            if stem == PROGRAMS_FILE:
                _check_programs(book, at)
                chapters = _programs_guide(raw, notes)
            else:
                chapters = _unique_chapters(title, _chapters(book, at), notes)
                if book.text("handbook_title", title) != title:
                    renamed.append(f"{stem}.json '{raw['handbook_title']}' -> '{title}'")
        if course and course not in course_names:
            notes.append(f"textbook '{title}': course '{course}' is not in the catalogue; kept")
        texts.append(Text(title=title, kind=kind, chapters=chapters, course=course))
    if wrapped:
        notes.append(f"books: {' and '.join(wrapped)} wrap the book in a one-element list; unwrapped")
    if renamed:
        notes.append(f"books: {len(renamed)} files carry another title than the one the tools know; the tool title is used: "
                     + "; ".join(renamed))
    with _shape("books/*.json"):  # an article's id or title of another type than text
        _report_article_ids(texts, notes)
    return texts


def _chapters(book: _Entry, at: str) -> list[Chapter]:
    """The book's chapters; titles and ids are one-line texts, article bodies may hold line breaks (``_BODY_CONTROL``)."""
    chapters: list[Chapter] = []
    for c, raw_chapter in enumerate(book.entries("content")):
        chapter_at = f"{at}.content[{c}]" if at else f"content[{c}]"
        chapter = _Entry(book.file, chapter_at, raw_chapter)
        title = chapter.text("title")
        sections: list[BookSection] = []
        for s, raw_section in enumerate(chapter.entries("content")):
            section = _Entry(book.file, f"{chapter_at}.content[{s}]", raw_section)
            section_title = section.text("title")
            articles: list[Article] = []
            for a, raw_article in enumerate(section.entries("content")):
                article = _Entry(book.file, _at(f"{section.label}.content[{a}]", raw_article, "id"), raw_article)
                articles.append(Article(id=article.text("id", nonempty=True), title=article.text("title"),
                                        body=article.text("content", body=True)))
            sections.append(BookSection(title=section_title, articles=articles))
        chapters.append(Chapter(title=title, sections=sections))
    return chapters


def _check_programs(book: _Entry, at: str) -> None:
    """The programs file's texts: codes, majors and headings become ids and titles (one line); everything else is
    rendered into article bodies (line breaks allowed, ``_BODY_CONTROL``)."""
    for i, raw_program in enumerate(book.entries("programs")):
        program = _Entry(book.file, _at(f"{at}.programs[{i}]" if at else f"programs[{i}]", raw_program, "program_code"),
                         raw_program)
        program.text("program_code", nonempty=True)
        program.text("major")
        if program.value("program_type", None) is not None:
            program.text("program_type")
        for j, raw_block in enumerate(program.entries("content")):
            block = _Entry(book.file, program.label, raw_block, f"content[{j}].")
            if _is_heading(block.raw):
                block.text("text")
                continue
            if not _body_texts_fit(raw_block):
                for where, text in _texts_inside(raw_block):
                    _text(text, block.failing(where), body=True)


def _body_texts_fit(value: Any) -> bool:
    """Whether every text in ``value`` (keys too) may stand in an article's body; where one may not, ``_texts_inside``
    finds where it is for the error line."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not (item.isascii() and item.isprintable()) and _BODY_CONTROL.search(item):
                return False
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def _texts_inside(value: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Every text in ``value`` (keys too), with where it is, e.g. ``data[2].courses[0].name``; a loop, not a recursion,
    so that nesting as deep as the JSON reader takes cannot exhaust the stack."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            yield where or "(text)", item
        elif isinstance(item, dict):
            for key, child in reversed(item.items()):
                shown = key if key.isascii() and key.isprintable() else ascii(key)
                inside = f"{where}.{shown}" if where else shown
                yield inside + " (a key)", key
                stack.append((inside, child))
        elif isinstance(item, list):
            stack.extend((f"{where}[{n}]", child) for n, child in reversed(list(enumerate(item))))


def _unique_chapters(title: str, chapters: list[Chapter], notes: list[str]) -> list[Chapter]:
    """A repeated chapter title gets `` (2)``, `` (3)``... so every chapter can be listed."""
    seen: Counter[str] = Counter()
    result: list[Chapter] = []
    for chapter in chapters:
        seen[chapter.title] += 1
        if seen[chapter.title] > 1:
            renamed = f"{chapter.title} ({seen[chapter.title]})"
            same = [s.title for s in chapter.sections] == [s.title for s in result[-1].sections] if result else False
            notes.append(f"'{title}': chapter '{chapter.title}' appears again at position {len(result) + 1}"
                         + (" with the same sections" if same else "") + f"; this occurrence is now '{renamed}'")
            chapter = msgspec.structs.replace(chapter, title=renamed)
        result.append(chapter)
    return result


def _report_article_ids(texts: list[Text], notes: list[str]) -> None:
    books_of: dict[str, set[str]] = defaultdict(set)
    titles: Counter[str] = Counter()
    for text in texts:
        ids = Counter(a.id for c in text.chapters for s in c.sections for a in s.articles)
        repeated = sorted(i for i, n in ids.items() if n > 1)
        if repeated:
            notes.append(f"'{text.title}': {len(repeated)} article ids occur more than once inside the book "
                         f"(e.g. '{repeated[0]}'); kept as given")
        for article_id in ids:
            books_of[article_id].add(text.title)
        titles.update(a.title for c in text.chapters for s in c.sections for a in s.articles)
    shared = sorted(i for i, books in books_of.items() if len(books) > 1)
    if shared:
        widest = max(shared, key=lambda i: (len(books_of[i]), i))
        notes.append(f"article ids: {len(shared)} of {len(books_of)} distinct ids occur in more than one book "
                     f"(e.g. '{widest}' in {len(books_of[widest])} books); kept as given, so an id names an article only "
                     "together with its book")
    repeated_titles = sum(1 for n in titles.values() if n > 1)
    if repeated_titles:
        notes.append(f"article titles: {repeated_titles} titles occur more than once across the books; kept as given")


# ---------------------------------------------------------------- the Academic Programs Guide

_PROGRAM_KEYS = {
    "课程名称": "Course Name", "课程代码": "Course Code", "考核方式": "Assessment", "总学时": "Total Hours",
    "开课学期": "Semester", "实践/上机/设计": "Practice/Lab/Design", "学分": "Credits", "备注": "Notes",
    "学分要求": "Credits Required", "编号": "No.", "包名": "Package Name", "方向简介": "Direction Summary",
}
"""The Chinese column names used as keys in the programs file's tables."""
_CHECKED = {"√", "✓"}
_SKIPPED_KEYS = {"structure"}


def _programs_guide(raw: dict[str, Any], notes: list[str]) -> list[Chapter]:
    chapters: list[Chapter] = []
    flat: list[str] = []
    for number, program in enumerate(raw["programs"], 1):
        code, blocks = program["program_code"], program["content"]
        title = program["major"]
        if program.get("program_type") and program["program_type"] not in title:
            title += f" ({program['program_type']})"
        level3 = any(_is_heading(b) and b.get("level") == 3 for b in blocks)
        if not level3:
            flat.append(code)
        is_section = (lambda b: _is_heading(b) and b.get("level") == 3) if level3 else _is_heading
        chapters.append(Chapter(title=f"Chapter {number}: {title}", sections=_program_sections(code, title, blocks, is_section)))
    notes.append(f"Academic Programs Guide: {len(chapters)} chapters, one per program; sections at level-3 headings, articles "
                 f"of at most {ARTICLE_LIMIT} characters rendered from paragraphs, lists and tables; ids prog_<program>_<section>_<n>"
                 + (f"; program(s) {', '.join(flat)} have no level-3 heading, so every heading below the title starts a "
                    "section there" if flat else ""))
    return chapters


def _is_heading(block: dict[str, Any]) -> bool:
    return block.get("type") == "heading"


def _program_sections(code: str, major: str, blocks: list[dict[str, Any]],
                      is_section: Callable[[dict[str, Any]], bool]) -> list[BookSection]:
    groups: list[tuple[str, list[dict[str, Any]]]] = [("Overview", [])]
    opening = bool(blocks) and _is_heading(blocks[0]) and blocks[0].get("level") != 3
    for block in blocks[1:] if opening else blocks:  # an opening heading above the sections names the program
        if is_section(block):
            groups.append((str(block["text"]).strip(), []))
        else:
            groups[-1][1].append(block)
    if not groups[0][1]:
        groups.pop(0)
    sections: list[BookSection] = []
    titles: Counter[str] = Counter()
    headings: Counter[str] = Counter()
    for title, members in groups:
        titles[title] += 1
        shown = title if titles[title] == 1 else f"{title} ({titles[title]})"
        articles = _program_articles(f"prog_{code}_{len(sections) + 1}", major, shown, members, headings)
        sections.append(BookSection(title=shown, articles=articles))
    return sections


def _program_articles(prefix: str, major: str, section_title: str, blocks: list[dict[str, Any]],
                      headings: Counter[str]) -> list[Article]:
    """Each sub-heading starts an article; long runs are cut into parts of at most ARTICLE_LIMIT characters.

    Titles name the program and are unique in the book: ``<major>: <heading>[ (part n)]``, with
    parts numbered on across repeats of a heading in the same program.
    """
    runs: list[tuple[str, list[str]]] = [(section_title, [])]
    for block in blocks:
        if _is_heading(block):
            runs.append((str(block["text"]).strip(), []))
        else:
            runs[-1][1].append(_render_block(block))
    articles: list[Article] = []
    for title, pieces in runs:
        parts = _pack([p for p in pieces if p.strip()])
        if not parts and title == section_title:
            continue
        for body in parts or [title]:
            headings[title] += 1
            part = "" if headings[title] == 1 else f" (part {headings[title]})"
            articles.append(Article(id=f"{prefix}_{len(articles) + 1}", title=f"{major}: {title}{part}", body=body))
    return articles


def _pack(pieces: list[str]) -> list[str]:
    chunks = [chunk for piece in pieces for chunk in _split(piece)]
    bodies: list[str] = []
    for chunk in chunks:
        if bodies and len(bodies[-1]) + 2 + len(chunk) <= ARTICLE_LIMIT:
            bodies[-1] += "\n\n" + chunk
        else:
            bodies.append(chunk)
    return bodies


def _split(text: str) -> list[str]:
    """``text`` in pieces of at most ARTICLE_LIMIT characters, cut at line ends, else at spaces."""
    if len(text) <= ARTICLE_LIMIT:
        return [text]
    pieces: list[str] = []
    for line in text.split("\n"):
        while len(line) > ARTICLE_LIMIT:
            cut = line.rfind(" ", 0, ARTICLE_LIMIT)
            cut = cut if cut > 0 else ARTICLE_LIMIT
            pieces.append(line[:cut])
            line = line[cut:].lstrip()
        if pieces and len(pieces[-1]) + 1 + len(line) <= ARTICLE_LIMIT:
            pieces[-1] += "\n" + line
        else:
            pieces.append(line)
    return pieces


def _render_block(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "paragraph":
        return str(block.get("text", ""))
    if kind == "list":
        return "\n".join(_lines(block.get("items", []), ""))
    if "rows" in block:
        return _render_matrix(block)
    lines = [f"{block['title']}"] if block.get("title") else []
    return "\n".join(lines + _lines(block.get("data", []), ""))


def _render_matrix(block: dict[str, Any]) -> str:
    headers = [str(h) for h in block.get("column_headers", [])]
    lines = [str(block.get("title", "Relationship matrix")) + f" (rows: {block.get('row_header', '')})"]
    for row in block["rows"]:
        if not isinstance(row, dict):
            lines += _lines(row, "")
            continue
        label = next((str(v) for v in row.values() if isinstance(v, str)), "")
        values = next((v for v in row.values() if isinstance(v, list)), [])
        columns = headers[-len(values):] if len(headers) >= len(values) else headers + [
            f"column {i}" for i in range(len(headers) + 1, len(values) + 1)]
        marked = [col if str(v) in _CHECKED else f"{col}: {v}" for col, v in zip(columns, values) if v not in (None, "")]
        lines.append(f"{label}: {'; '.join(marked) if marked else 'none'}")
    return "\n".join(lines)


def _lines(value: Any, indent: str) -> list[str]:
    """Nested table data as readable indented lines: plain fields of a record on one line."""
    if isinstance(value, list):
        lines: list[str] = []
        for item in value:
            if isinstance(item, dict):
                lines += _lines(item, indent)
            elif isinstance(item, list):
                lines.append(indent + " | ".join(_scalar(cell) for cell in item))
            elif item not in (None, ""):
                lines.append(f"{indent}- {_scalar(item)}")
        return lines
    if isinstance(value, dict):
        inline: list[str] = []
        nested: list[str] = []
        for key, field in value.items():
            name = _PROGRAM_KEYS.get(str(key), str(key).replace("_", " "))
            if key in _SKIPPED_KEYS or field in (None, "", [], {}):
                continue
            if not isinstance(field, (dict, list)):
                inline.append(f"{name}: {_scalar(field)}")
            elif _plain(field) and isinstance(field, list) and all(len(str(x)) <= 60 for x in field):
                inline.append(f"{name}: {', '.join(_scalar(x) for x in field)}")
            elif _plain(field) and isinstance(field, dict):
                inline.append(f"{name}: (" + ", ".join(
                    f"{_PROGRAM_KEYS.get(str(k), str(k).replace('_', ' '))} {_scalar(x)}"
                    for k, x in field.items() if x not in (None, "")) + ")")
            else:
                nested += [f"{indent}{name}:", *_lines(field, indent + "  ")]
        return ([indent + "; ".join(inline)] if inline else []) + nested
    return [] if value in (None, "") else [indent + _scalar(value)]


def _plain(value: dict[str, Any] | list[Any]) -> bool:
    return not any(isinstance(x, (dict, list)) for x in (value.values() if isinstance(value, dict) else value))


def _scalar(value: Any) -> str:
    return "yes" if str(value) in _CHECKED else str(value)


# ---------------------------------------------------------------- ASCII

_ASCII_TABLE: dict[str, str] = {
    "\u2014": "--", "\u2013": "-", "\u2012": "-", "\u2010": "-", "\u2011": "-", "\u2212": "-",
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2033": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2026": "...", "\u00b7": "-", "\u2022": "-", "\u00a0": " ",
    "\u2192": "->", "\u2190": "<-", "\u2194": "<->", "\u21d2": "=>", "\u25b6": ">",
    "\u2500": "-", "\u2502": "|", "\u2514": "+", "\u251c": "+", "\u250c": "+", "\u2510": "+", "\u2518": "+",
    "\u221a": "sqrt", "\u2713": "[x]", "\u00d7": "x", "\u00f7": "/", "\u2265": ">=", "\u2264": "<=", "\u2248": "~=",
    "\u2260": "!=", "\u00b1": "+/-", "\u221e": "infinity", "\u00b0": " degrees ", "\u00b5": "u", "\u20ac": "EUR",
    "\u00a3": "GBP", "\u00ae": "(R)", "\u00a9": "(C)", "\u2122": "(TM)", "\u00df": "ss", "\u0153": "oe", "\u0152": "OE",
    "\u00e6": "ae", "\u00c6": "AE", "\u00f8": "o", "\u00d8": "O", "\u0142": "l",
    "\u03b1": "alpha", "\u03b2": "beta", "\u03b3": "gamma", "\u03b4": "delta", "\u03b5": "epsilon", "\u03b8": "theta",
    "\u03bb": "lambda", "\u03bc": "mu", "\u03c0": "pi", "\u03c3": "sigma", "\u03c9": "omega", "\u0394": "Delta",
    "\u0398": "Theta", "\u03a3": "Sigma", "\u03a9": "Omega",
    **{chr(0x2460 + i): f"({i + 1})" for i in range(20)},
}
"""Punctuation and symbols in ASCII; ``to_ascii`` folds any other non-ASCII character by NFKD."""
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def to_ascii(text: str) -> tuple[str, str]:
    """``text`` in ASCII (a table for punctuation and symbols, then NFKD), and the characters that had no ASCII form.

    Only the non-ASCII characters are looked at (``str.translate`` with a table looked every character up, and a
    miss raises inside it: the published texts' millions of characters made that most of their import)."""
    lost: list[str] = []

    def one(match: re.Match[str]) -> str:
        char = match.group()
        mapped = _ASCII_TABLE.get(char)
        if mapped is not None:
            return mapped
        folded = "".join(c for c in unicodedata.normalize("NFKD", char) if c.isascii())
        if not folded:
            lost.append(char)
        return folded

    result = _NON_ASCII.sub(one, text)
    if lost:
        result = re.sub(r" ?\( *\)", "", result)  # e.g. "shi (<ideograph>)" -> "shi"
    return result, "".join(lost)


def _ascii_world(world: World, notes: list[str]) -> World:
    changed = 0
    examples: dict[str, str] = {}  # the first non-ASCII character -> an example of it
    lost: Counter[str] = Counter()

    def fix(value: Any) -> Any:
        nonlocal changed
        if isinstance(value, str):
            if value.isascii():
                return value
            result, dropped = to_ascii(value)
            changed += 1
            lost.update(dropped)
            first = _NON_ASCII.search(value) if len(examples) < 4 else None
            if first is not None and first[0] not in examples:
                examples[first[0]] = _example(value)
            return result
        if isinstance(value, list):
            return [fix(v) for v in value]
        if isinstance(value, dict):
            return {fix(k): fix(v) for k, v in value.items()}
        return value

    try:
        fixed = msgspec.convert(fix(msgspec.to_builtins(world)), World)
    except msgspec.ValidationError as error:
        raise StuLifeDataError(f"a value of the wrong type in the data: {error}") from None
    if changed:
        shown = ", ".join(f"U+{ord(c):04X}" for c, _ in sorted(lost.items(), key=lambda kv: (-kv[1], kv[0]))[:6])
        notes.append(f"non-ASCII text: {changed} strings transliterated to ASCII (e.g. {'; '.join(examples.values())})"
                     + (f"; {sum(lost.values())} characters with no ASCII form were dropped ({len(lost)} distinct, "
                        f"e.g. {shown}: CJK ideographs, emoji, joiners)" if lost else ""))
    return fixed


def _example(value: str) -> str:
    at = next(i for i, c in enumerate(value) if not c.isascii())
    window = value[max(0, at - 12):at + 12]
    return f"{window!a} -> '{to_ascii(window)[0]}'"

"""Libraries: bookable rooms with seats, and the catalogue of titles they hold.

Rules
-----
* The libraries are the buildings whose name contains ``Library`` (12 at scale 1).
* **Rooms come from the map.** Every library amenity whose name is in ``STUDY_ROOMS``
  becomes a ``StudyArea`` room with seats, every one in ``PUBLIC_ROOMS`` a ``PublicArea``
  room booked whole; lobbies, desks, cafes and displays are not rooms. Each library also
  gets one to three extra public rooms (``ADDED_ROOMS``, e.g. ``Group Study Room 205``),
  appended to upper floors that list fewer than four amenities, so the map names them too.
  A room's ``name`` is the amenity without its qualifier and its ``id`` is the qualifier:
  ``Quiet Study Zone (West Wing)`` -> name ``Quiet Study Zone``, id ``West Wing``;
  ``Silent Study Hall 234`` -> ``Silent Study Hall``, ``234``; an amenity without one
  (``Periodicals Reading Room``) has its name as id. An id already taken in the building
  gets the floor added (``East Wing, floor 4``; an unqualified name becomes ``floor 4``), and the
  map's amenity is renamed to match, so map and seat data name every room uniquely. The id
  is the whole amenity. ``amenity_of(room)`` gives back the amenity, which is always listed
  on ``room.floor``, and no two rooms share one.
* **Seats.** ``round(2600 * scale)`` seats are shared among the study rooms in proportion
  to a size drawn per room kind (at least 8 per room). Seat ids are
  ``<building>-<room id>-S001``... Each room draws a pool of 16 of the 20 features: its three
  characteristic ones (a Computer Lab's are computer_access, power_outlet and
  technical_resources) and 13 others. A seat has 2-9 distinct features (about 5 on
  average): each characteristic feature with probability 0.35, the rest drawn evenly from
  the pool; so a given pair of features is held by roughly a tenth of a room's seats and a
  triple by a few. Features are listed in ``SEAT_FEATURES`` order.
* **Catalogue.** ``round(395 * scale)`` titles over the 29 ``CATEGORIES`` (apportioned by
  their weights; types Book, Thesis and Journal in the proportions 320 : 43 : 32). Every
  category lives in exactly one library and one collection string
  ``"<library name> - <collection> Collection (<floor key>)"``: a library named after a
  category (``Physics Library``) holds that category in its own collection; every other
  category goes with its group (``Pure Sciences``) to one library: the least loaded one,
  preferring the group's zone (``GROUP_ZONES``), ties broken by a seeded draw. Call numbers ``<CODE>-<100..999>.<author initial><1..9>``
  and titles are unique. Without any library there are no rooms and no catalogue.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from campus.world.gen_common import (
    apportion,
    person_names,
    round_half_up,
    shuffled_labels,
    stream,
)
from campus.world.model import SEAT_FEATURES, Book, Building, Library, Room, Seat

SEATS_AT_SCALE_1 = 2600
BOOKS_AT_SCALE_1 = 395
MIN_SEATS = 8
CHARACTERISTIC_CHANCE = 0.35
POOL_SIZE = 16
#: Weights of a seat's feature count, 2..9.
FEATURE_COUNT_WEIGHTS = (5, 12, 24, 25, 16, 9, 5, 4)
MAX_AMENITIES = 4


@dataclass(frozen=True)
class StudySpec:
    smallest: int
    largest: int
    characteristic: tuple[str, str, str]


STUDY_ROOMS: dict[str, StudySpec] = {
    "Quiet Study Zone": StudySpec(60, 120, ("quiet_zone", "low_traffic_area", "natural_lighting")),
    "Silent Study Hall": StudySpec(50, 110, ("quiet_zone", "large_table", "low_traffic_area")),
    "Study Carrels": StudySpec(24, 60, ("private_space", "quiet_zone", "power_outlet")),
    "24-Hour Study Room": StudySpec(30, 70, ("power_outlet", "good_wifi", "comfortable_seating")),
    "Periodicals Reading Room": StudySpec(
        80, 150, ("reference_materials", "comfortable_seating", "natural_lighting")
    ),
    "Computer Lab": StudySpec(40, 90, ("computer_access", "power_outlet", "technical_resources")),
}
ADDED_ROOMS = ("Group Study Room", "Discussion Room", "Presentation Practice Room")
PUBLIC_ROOMS = frozenset(
    {"Group Study Rooms", "Media Lab", "Special Collections Room", "Map Room",
     "Archives & Rare Books", *ADDED_ROOMS}
)
_AMENITY = re.compile(r"(?P<name>.+?)(?: \((?P<paren>[^()]+)\)| (?P<number>B?\d+))?")
_NUMBER = re.compile(r"B?\d+")
_ORDER = {feature: i for i, feature in enumerate(SEAT_FEATURES)}
_COUNTS = [k for k, w in zip(range(2, 10), FEATURE_COUNT_WEIGHTS) for _ in range(w)]


def is_library(building: Building) -> bool:
    return "Library" in building.name


def amenity_of(room: Room) -> str:
    """The amenity on ``room.floor`` that this room is (see the module rules)."""
    if room.id == room.name:
        return room.name
    if _NUMBER.fullmatch(room.id):
        return f"{room.name} {room.id}"
    return f"{room.name} ({room.id})"


# --------------------------------------------------------------------------------------
# Rooms
# --------------------------------------------------------------------------------------


def _split(amenity: str) -> tuple[str, str]:
    """``"Silent Study Hall 234"`` -> ``("Silent Study Hall", "234")``; no qualifier -> name."""
    match = _AMENITY.fullmatch(amenity)
    assert match is not None  # the pattern matches any non-empty string
    qualifier = match["paren"] or match["number"] or match["name"]
    return match["name"], qualifier


def _level(floor: str) -> str:
    return floor.removeprefix("floor_")


def _add_rooms(building: Building, rng: random.Random) -> Building:
    """Append 1-3 public rooms to upper floors that have space; returns the building."""
    amenities = {floor: list(items) for floor, items in building.amenities.items()}
    taken = {_split(item)[1] for items in amenities.values() for item in items}
    wanted = rng.randint(1, 3)
    for _ in range(wanted):
        floors = [f for f, items in amenities.items()
                  if f.startswith("floor_") and f != "floor_1" and len(items) < MAX_AMENITIES]
        if not floors:
            break
        floor = rng.choice(floors)
        names = [n for n in ADDED_ROOMS if not any(_split(i)[0] == n for i in amenities[floor])]
        numbers = [f"{_level(floor)}{n:02d}" for n in range(1, 41)]
        numbers = [n for n in numbers if n not in taken]
        if not names or not numbers:
            continue
        number = rng.choice(numbers)
        taken.add(number)
        amenities[floor].append(f"{rng.choice(names)} {number}")
    return msgspec.structs.replace(building, amenities=amenities)


def _room_id(name: str, qualifier: str, floor: str, taken: set[str]) -> str:
    """The qualifier, or for a room repeated on another floor, one naming the floor too."""
    level = f"floor {_level(floor)}"
    again = level if qualifier == name else f"{qualifier}, {level}"
    for candidate in (qualifier, again, f"{again}, {name}"):
        if candidate not in taken:
            return candidate
    raise AssertionError(f"amenity {name!r} listed twice on {floor}")  # amenities are distinct per floor


@dataclass
class _PlannedRoom:
    building: str
    room_id: str
    name: str
    floor: str
    size: int  # drawn weight for the seat share; 0 for a public room
    amenity: str = ""  # the map amenity this room was read from
    seats: int = 0


def _plan_rooms(building: Building, rng: random.Random) -> list[_PlannedRoom]:
    taken: set[str] = set()
    rooms = []
    for floor, items in building.amenities.items():
        for amenity in items:
            name, qualifier = _split(amenity)
            spec = STUDY_ROOMS.get(name)
            if spec is None and name not in PUBLIC_ROOMS:
                continue
            room_id = _room_id(name, qualifier, floor, taken)
            taken.add(room_id)
            size = rng.randint(spec.smallest, spec.largest) if spec else 0
            rooms.append(_PlannedRoom(building.id, room_id, name, floor, size, amenity))
    return rooms


def _pool(characteristic: Sequence[str], rng: random.Random) -> list[str]:
    others = [f for f in SEAT_FEATURES if f not in characteristic]
    return rng.sample(others, POOL_SIZE - len(characteristic))


def _seats(planned: _PlannedRoom, rng: random.Random) -> list[Seat]:
    characteristic = STUDY_ROOMS[planned.name].characteristic
    others = _pool(characteristic, rng)
    width = max(3, len(str(planned.seats)))
    prefix = f"{planned.building}-{planned.room_id}-S"
    seats = []
    for i in range(1, planned.seats + 1):
        wanted = _COUNTS[int(rng.random() * len(_COUNTS))]
        chosen = [f for f in characteristic if rng.random() < CHARACTERISTIC_CHANCE]
        chosen += rng.sample(others, max(0, wanted - len(chosen)))
        chosen.sort(key=_ORDER.__getitem__)
        seats.append(Seat(id=f"{prefix}{i:0{width}d}", features=chosen))
    return seats


def make_libraries(
    buildings: Sequence[Building], seed: int, scale: float
) -> tuple[list[Building], list[Library]]:
    """The buildings (libraries with their added rooms) and every library's rooms."""
    rng = stream(seed, scale, "library rooms")
    buildings = [_add_rooms(b, rng) if is_library(b) else b for b in buildings]
    plans = {b.id: _plan_rooms(b, rng) for b in buildings if is_library(b)}
    study = [p for rooms in plans.values() for p in rooms if p.size]
    if study:
        shares = apportion(round_half_up(SEATS_AT_SCALE_1 * scale), [p.size for p in study])
        for planned, share in zip(study, shares):
            planned.seats = max(MIN_SEATS, share)
    seat_rng = stream(seed, scale, "library seats")
    libraries = []
    for building_id, rooms in plans.items():
        made = [
            Room(id=p.room_id, name=p.name, floor=p.floor, kind="StudyArea", seats=_seats(p, seat_rng))
            if p.size else Room(id=p.room_id, name=p.name, floor=p.floor, kind="PublicArea")
            for p in rooms
        ]
        libraries.append(Library(building_id=building_id, rooms=made))
    made_by_id = {lib.building_id: lib.rooms for lib in libraries}
    return [_name_rooms_uniquely(b, plans[b.id], made_by_id[b.id]) if b.id in plans else b for b in buildings], libraries


def _name_rooms_uniquely(building: Building, plans: Sequence[_PlannedRoom], rooms: Sequence[Room]) -> Building:
    """Write each room's unique name back into the map, so a repeated room is told apart there too."""
    amenities = {floor: list(items) for floor, items in building.amenities.items()}
    for planned, room in zip(plans, rooms):
        items = amenities[room.floor]
        items[items.index(planned.amenity)] = amenity_of(room)
    return msgspec.structs.replace(building, amenities=amenities)


# --------------------------------------------------------------------------------------
# The catalogue
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Category:
    name: str
    code: str
    group: str
    weight: int
    topics: tuple[str, ...]


CATEGORIES: tuple[Category, ...] = (
    Category("History", "HIST", "Humanities", 21, (
        "Medieval Trade Routes", "Empires and Their Borders", "Revolutions in Europe",
        "Ancient Mediterranean Cities", "Maritime Exploration", "The Industrial Age",
        "Oral History", "Colonial Archives")),
    Category("Philosophy", "PHIL", "Humanities", 20, (
        "Ethics", "Epistemology", "Political Philosophy", "Philosophy of Mind", "Logic",
        "Aesthetics", "Moral Responsibility", "Free Will")),
    Category("Literature", "LIT", "Humanities", 16, (
        "The Modern Novel", "Poetry and Form", "Short Fiction", "Literary Theory",
        "Drama and Performance", "World Literature", "Narrative Voice", "The Essay")),
    Category("Linguistics", "LING", "Humanities", 9, (
        "Syntax", "Phonology", "Language Acquisition", "Sociolinguistics", "Semantics",
        "Historical Linguistics", "Corpus Linguistics")),
    Category("Classics", "CLAS", "Humanities", 7, (
        "Greek Tragedy", "Roman Law", "Homeric Epic", "Latin Prose", "Ancient Rhetoric",
        "Classical Archaeology")),
    Category("Political Science", "POLS", "Social Sciences", 18, (
        "Democratic Institutions", "International Relations", "Public Policy",
        "Comparative Politics", "Elections and Voting", "Political Economy", "Federalism")),
    Category("Economics", "ECON", "Social Sciences", 18, (
        "Microeconomics", "Macroeconomics", "Labor Markets", "Behavioral Economics",
        "Development Economics", "Monetary Policy", "Game Theory", "Trade and Tariffs")),
    Category("Sociology", "SOC", "Social Sciences", 17, (
        "Urban Communities", "Social Networks", "Inequality", "Family and Kinship",
        "Work and Organizations", "Migration", "Social Movements")),
    Category("Psychology", "PSY", "Social Sciences", 14, (
        "Memory", "Child Development", "Social Cognition", "Motivation", "Perception",
        "Personality", "Clinical Practice")),
    Category("Anthropology", "ANTH", "Social Sciences", 8, (
        "Ritual and Belief", "Material Culture", "Kinship Systems", "Fieldwork Methods",
        "Human Evolution", "Food and Culture")),
    Category("Geography", "GEOG", "Social Sciences", 6, (
        "Cartography", "River Basins", "Urban Geography", "Climate Regions", "Land Use",
        "Population Geography")),
    Category("Education", "EDU", "Social Sciences", 10, (
        "Curriculum Design", "Classroom Assessment", "Learning Sciences", "Higher Education",
        "Inclusive Teaching", "Educational Technology")),
    Category("Business", "BUS", "Social Sciences", 11, (
        "Strategy", "Marketing", "Accounting", "Leadership", "Operations Management",
        "Entrepreneurship", "Corporate Finance")),
    Category("Law", "LAW", "Law", 18, (
        "Contract Law", "Constitutional Law", "Criminal Procedure", "Property Law",
        "International Law", "Torts", "Intellectual Property", "Evidence")),
    Category("Computer Science", "CS", "Computing", 20, (
        "Algorithms", "Operating Systems", "Compilers", "Computer Networks", "Databases",
        "Distributed Systems", "Programming Languages", "Computer Security")),
    Category("AI", "AI", "Computing", 14, (
        "Machine Learning", "Neural Networks", "Reinforcement Learning", "Knowledge Graphs",
        "Natural Language Processing", "Computer Vision", "Planning and Search")),
    Category("Physics", "PHYS", "Pure Sciences", 14, (
        "Classical Mechanics", "Quantum Mechanics", "Thermodynamics", "Electromagnetism",
        "Optics", "Particle Physics", "Condensed Matter")),
    Category("Mathematics", "MATH", "Pure Sciences", 12, (
        "Linear Algebra", "Real Analysis", "Number Theory", "Topology", "Probability",
        "Combinatorics", "Differential Equations")),
    Category("Chemistry", "CHEM", "Pure Sciences", 11, (
        "Organic Synthesis", "Physical Chemistry", "Catalysis", "Spectroscopy",
        "Polymer Chemistry", "Electrochemistry")),
    Category("Biology", "BIO", "Pure Sciences", 11, (
        "Cell Biology", "Genetics", "Ecology", "Evolution", "Microbiology", "Plant Biology",
        "Marine Biology")),
    Category("Neuroscience", "NEURO", "Pure Sciences", 9, (
        "Neural Circuits", "Synaptic Plasticity", "Sleep", "Brain Imaging",
        "Cognitive Neuroscience", "Consciousness")),
    Category("Astronomy", "ASTR", "Pure Sciences", 7, (
        "Stellar Evolution", "Exoplanets", "Galaxies", "Cosmology", "Radio Astronomy",
        "The Solar System")),
    Category("Engineering", "ENG", "Applied Sciences", 15, (
        "Structural Design", "Control Systems", "Signal Processing", "Robotics",
        "Fluid Mechanics", "Materials Testing", "Embedded Systems", "Power Systems")),
    Category("Environmental Science", "ENV", "Applied Sciences", 9, (
        "Water Quality", "Air Pollution", "Biodiversity", "Renewable Energy",
        "Soil Science", "Climate Adaptation")),
    Category("Medicine", "MED", "Applied Sciences", 9, (
        "Epidemiology", "Anatomy", "Pharmacology", "Public Health", "Immunology",
        "Clinical Trials")),
    Category("Music", "MUS", "Arts", 14, (
        "Harmony", "Counterpoint", "Jazz Improvisation", "Orchestration", "Music Theory",
        "Ethnomusicology", "Opera")),
    Category("Art History", "ARTH", "Arts", 10, (
        "Renaissance Painting", "Modern Sculpture", "Printmaking", "Museum Studies",
        "Iconography", "Textile Art")),
    Category("Film Studies", "FILM", "Arts", 7, (
        "Documentary Film", "Film Editing", "Silent Cinema", "Screenwriting", "Film Sound",
        "World Cinema")),
    Category("Architecture", "ARCH", "Arts", 8, (
        "Urban Design", "Sustainable Building", "Architectural Drawing", "Housing",
        "Landscape Architecture", "Building Conservation")),
)
BOOK_TYPES = ("Book", "Thesis", "Journal")
BOOK_TYPE_WEIGHTS = (320, 43, 32)
TITLE_PATTERNS: dict[str, tuple[str, ...]] = {
    "Book": (
        "{t}: An Introduction", "Foundations of {t}", "A Short History of {t}", "{t} in Practice",
        "Essays on {t}", "Understanding {t}", "A Handbook of {t}", "Rethinking {t}",
        "Principles of {t}", "{t} for Beginners", "Advanced Topics in {t}", "The Future of {t}",
        "Readings in {t}", "Debates in {t}", "{t} and Society", "A Field Guide to {t}",
    ),
    "Thesis": (
        "An Empirical Study of {t}", "{t} Revisited: A Doctoral Thesis",
        "Models of {t}: A Dissertation", "Case Studies in {t}: A Thesis",
        "New Evidence on {t}: A Thesis",
    ),
    "Journal": (
        "Journal of {t}", "{t} Review", "{t} Quarterly", "Annals of {t}", "Letters in {t}",
    ),
}


def _named_after(library: Building) -> Category | None:
    """The category a library is named after (the longest that fits), if any."""
    fits = [c for c in CATEGORIES
            if library.name == f"{c.name} Library" or library.name.endswith(f" {c.name} Library")]
    return max(fits, key=lambda c: len(c.name), default=None)


def _shelf_floor(library: Building, rng: random.Random) -> str:
    floors = [f for f in library.amenities if f != "all_floors"]
    return rng.choice(floors)


#: The zone whose libraries a group of categories would rather live in.
GROUP_ZONES = {
    "Humanities": "Founders Quad", "Social Sciences": "Founders Quad", "Law": "Founders Quad",
    "Computing": "Science Ridge", "Pure Sciences": "Science Ridge",
    "Applied Sciences": "Science Ridge", "Arts": "Arts Quarter",
}


def _collections(libraries: Sequence[Building], rng: random.Random) -> dict[str, tuple[Building, str]]:
    """Category name -> (library, collection string)."""
    placed: dict[str, tuple[Building, str]] = {}
    load = {b.id: 0 for b in libraries}
    for library in libraries:
        category = _named_after(library)
        if category is not None and category.name not in placed:
            floor = _shelf_floor(library, rng)
            placed[category.name] = (library, f"{library.name} - {category.name} Collection ({floor})")
            load[library.id] += 1
    tiebreak = {b.id: rng.random() for b in libraries}
    for group in dict.fromkeys(c.group for c in CATEGORIES):
        library = min(libraries, key=lambda b: (
            load[b.id], b.zone != GROUP_ZONES[group], tiebreak[b.id]))
        load[library.id] += 1
        collection = f"{library.name} - {group} Collection ({_shelf_floor(library, rng)})"
        for category in CATEGORIES:
            if category.group == group and category.name not in placed:
                placed[category.name] = (library, collection)
    return placed


def _title(category: Category, kind: str, used: set[str], rng: random.Random) -> str:
    title = ""
    for _ in range(12):
        title = rng.choice(TITLE_PATTERNS[kind]).format(t=rng.choice(category.topics))
        if title.lower() not in used:
            return title
    volume = 2
    while f"{title}, Volume {volume}".lower() in used:
        volume += 1
    return f"{title}, Volume {volume}"


def _call_number(category: Category, last: str, used: set[str], rng: random.Random) -> str:
    while True:
        number = f"{category.code}-{rng.randint(100, 999)}.{last[0]}{rng.randint(1, 9)}"
        if number not in used:
            return number


def make_books(buildings: Sequence[Building], seed: int, scale: float) -> list[Book]:
    libraries = [b for b in buildings if is_library(b)]
    if not libraries:
        return []
    rng = stream(seed, scale, "books")
    placed = _collections(libraries, rng)
    total = round_half_up(BOOKS_AT_SCALE_1 * scale)
    counts = apportion(total, [c.weight for c in CATEGORIES])
    kinds = shuffled_labels(rng, BOOK_TYPES, apportion(total, BOOK_TYPE_WEIGHTS))
    authors = person_names(rng, total)
    titles: set[str] = set()
    numbers: set[str] = set()
    books: list[Book] = []
    for category, count in zip(CATEGORIES, counts):
        library, collection = placed[category.name]
        for _ in range(count):
            kind = kinds[len(books)]
            first, last = authors[len(books)]
            title = _title(category, kind, titles, rng)
            titles.add(title.lower())
            number = _call_number(category, last, numbers, rng)
            numbers.add(number)
            author = f"{first} {last} (editor)" if kind == "Journal" else f"{first} {last}"
            books.append(Book(title=title, author=author, call_number=number, type=kind,
                              category=category.name, library_id=library.id, collection=collection))
    return books

"""The static world: the campus map and everything a term is played on.

A world is plain data, content-hashed: the same world has the same hash on any machine,
and a log's genesis binds that hash, so a run can only be replayed on the world it ran on.
"""

from __future__ import annotations

from functools import cached_property

import msgspec

from campus.events.codec import canonical, digest

#: Edge properties a route can be constrained on, with every value they may take.
PATH_PROPERTIES: dict[str, tuple[str, ...]] = {
    "rain_exposure": ("Covered", "Exposed", "Exposed_Puddles", "Exposed_Slippery"),
    "illumination": ("Good", "Poor"),
    "path_type": ("Outdoor", "Indoor"),
    "accessibility": (
        "Standard",
        "Wheelchair",
        "No_Bicycle",
        "Uneven_Surface",
        "Steep_Grade",
        "Stairs_Only",
    ),
    "congestion": ("Low", "Normal", "High_During_Class_Change", "High_After_Classes"),
}

BUILDING_TYPES: tuple[str, ...] = (
    "Academic",
    "Residential",
    "Service",
    "Outdoor",
    "Recreation",
    "Administrative",
)


class Building(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    aliases: list[str]
    type: str
    zone: str
    amenities: dict[str, list[str]]


class Path(msgspec.Struct, frozen=True, kw_only=True):
    """An undirected walkway between two buildings."""

    source: str
    target: str
    minutes: int
    properties: dict[str, str]


class Complex(msgspec.Struct, frozen=True, kw_only=True):
    """Buildings joined inside, so walking between members costs no time."""

    id: str
    name: str
    members: list[str]
    description: str = ""


SEAT_FEATURES: tuple[str, ...] = (
    "good_wifi", "low_traffic_area", "convenient_location", "computer_access", "sofa_area", "power_outlet",
    "large_table", "whiteboard", "window_seat", "projector", "discussion_zone", "quiet_zone", "private_space",
    "group_room", "comfortable_seating", "natural_lighting", "historical_archives", "technical_resources",
    "reference_materials", "specialized_collections",
)


class Seat(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    """Unique in the world, e.g. ``B001-West Wing-S001``."""
    features: list[str]


class Room(msgspec.Struct, frozen=True, kw_only=True):
    """A bookable room of a library: a study area with seats, or a public area booked whole."""

    id: str
    """The room's id inside its building, e.g. ``West Wing`` or ``201``."""
    name: str
    """What agents call it, e.g. ``Quiet Study Zone`` (``item_name`` in bookings)."""
    floor: str
    kind: str
    """``StudyArea`` (book a seat) or ``PublicArea`` (book the room)."""
    seats: list[Seat] = []


class Library(msgspec.Struct, frozen=True, kw_only=True):
    building_id: str
    rooms: list[Room]


class CourseSection(msgspec.Struct, frozen=True, kw_only=True):
    """One section of a course; its code is the section id agents use (``COMS0031131032(2)``)."""

    code: str
    name: str
    credits: int
    instructor: str
    semester: int
    compulsory: bool
    first_week: int
    last_week: int
    days: list[str]
    time: str
    """``HH:MM-HH:MM``."""
    building_id: str
    room: str
    popularity: int
    """0-99: how contested the section is (see the pass rules in ``subsystems.courses``)."""
    seats: int
    prerequisites: list[str] = []
    """Names of courses that must be taken first."""
    description: str = ""


class Advisor(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    email: str
    area: str
    """Research area, first level (e.g. ``Engineering``)."""
    field: str
    """Research area, second level (e.g. ``Mechanical and Industrial Engineering``)."""
    tags: list[str]
    works: list[str]
    preference: str = ""
    preference_detail: str = ""
    preference_text: str = ""


class Club(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    category: str
    description: str
    recruitment: str
    """Recruitment notice; it names the contact address."""
    email: str


class Book(msgspec.Struct, frozen=True, kw_only=True):
    """A title in the library catalogue."""

    title: str
    author: str
    call_number: str
    type: str
    category: str
    library_id: str
    """The building that holds it (every category lives in exactly one library)."""
    collection: str
    """Where inside: e.g. ``STEM Library - Applied Sciences & Engineering Collection (floor_1)``."""


class Article(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    title: str
    body: str


class BookSection(msgspec.Struct, frozen=True, kw_only=True):
    title: str
    articles: list[Article]


class Chapter(msgspec.Struct, frozen=True, kw_only=True):
    title: str
    sections: list[BookSection]


class Text(msgspec.Struct, frozen=True, kw_only=True):
    """A handbook or textbook the bibliography tools read: book, chapter, section, article."""

    title: str
    kind: str
    """``handbook`` or ``textbook``."""
    chapters: list[Chapter]
    course: str = ""
    """For a textbook, the course it belongs to."""


class World(msgspec.Struct, frozen=True, kw_only=True, dict=True):
    name: str
    seed: int | None
    home: str
    buildings: list[Building]
    paths: list[Path]
    complexes: list[Complex]
    libraries: list[Library] = []
    courses: list[CourseSection] = []
    advisors: list[Advisor] = []
    clubs: list[Club] = []
    books: list[Book] = []
    texts: list[Text] = []

    @cached_property
    def encoded(self) -> bytes:
        """The world's canonical bytes, what every run on it stores and its hash names: made once, since a published world
        is ~9.5 MB of JSON and a sweep or a test session starts many runs on one world."""
        return canonical(self)

    @cached_property
    def hash(self) -> str:
        """``content_hash`` of the world, from the bytes already made."""
        return digest(self.encoded)


def counts(world: World) -> dict[str, int]:
    """How much of everything a world holds (what `campus world generate/import-stulife` print)."""
    rooms = [room for library in world.libraries for room in library.rooms]
    chapters = [chapter for text in world.texts for chapter in text.chapters]
    sections = [section for chapter in chapters for section in chapter.sections]
    return {
        "buildings": len(world.buildings), "walkways": len(world.paths), "complexes": len(world.complexes),
        "libraries": len(world.libraries), "rooms": len(rooms),
        "study_rooms": sum(room.kind == "StudyArea" for room in rooms),
        "public_rooms": sum(room.kind == "PublicArea" for room in rooms),
        "seats": sum(len(room.seats) for room in rooms), "courses": len(world.courses), "clubs": len(world.clubs),
        "advisors": len(world.advisors), "books": len(world.books), "texts": len(world.texts),
        "chapters": len(chapters), "sections": len(sections),
        "articles": sum(len(section.articles) for section in sections),
    }


_WORLD = msgspec.json.Decoder(World)


def decode_world(data: bytes | str) -> World:
    return _WORLD.decode(data)


def stored_form(world: World) -> World:
    """``world`` as a store gives it back: equal, with every mapping in key order (the canonical encoding sorts keys).
    A world just made keeps the order its maker filled its mappings in (a building's floors, a walkway's properties),
    so a run played on it listed a building's floors in one order and its verify, fork or resume, reading the stored
    copy, in another: the re-executed call differed. Every world campus makes is returned in this form."""
    again = decode_world(world.encoded)
    vars(again)["encoded"] = world.encoded  # the same bytes: canonical(decode(canonical(w))) == canonical(w)
    return again

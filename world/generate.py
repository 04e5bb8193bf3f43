"""A deterministic generator of StuLife-style campuses and everything played on them.

``generate_world(seed, scale)`` builds a :class:`~world.model.World` shaped like the
published StuLife campus, with every name, alias and amenity drawn from this module's own
word lists.

Shape of the generated campus (scale 1.0)
-----------------------------------------
* **155 buildings in 7 zones**: Founders Quad 30, Science Ridge 25, North Residential
  Village 25, South Residential Village 25, Arts Quarter 20, Athletics Park 15 and Campus
  Center & Administration 15. Each zone has a fixed type mix (``ZONES``) that adds up to
  Academic 54, Residential 32, Service 30, Outdoor 16, Recreation 12, Administrative 11.
  A scale multiplies every zone's size (rounded half up, at least one building per zone)
  and the zone's type mix is apportioned by largest remainder.
* **Ids** ``B001``... are given zone by zone; inside a zone the zone's hub comes first.
* **Names and aliases** share one case-insensitive namespace; the home base is always the
  Residential "Lakeside Dormitory" in the North Residential Village, the central hub an
  Administrative "... Welcome Center" in the Campus Center zone. About a fifth of the
  academic buildings are libraries (their names contain "Library") with study areas.
* **Walkways** form one hub-and-spoke campus: the welcome center links to every other
  zone's hub (3-8 minutes); each zone is a random recursive tree hanging off its hub
  (1-6 minutes, attaching to the hub with a raised probability); then about 12% of the
  building count in extra walkways join random buildings of one zone (1-6 minutes) or of
  two neighbouring zones (4-15 minutes), so that property constraints can change the best
  route; finally the welcome center gets direct spokes until its degree is the campus's
  highest and at least a tenth of the building count.
* **Properties** are drawn for every walkway from weights close to the published map,
  correlated: an Indoor walkway is always Covered, Covered walkways are rarely Poorly lit,
  Science Ridge (a hill) has more Steep_Grade, wet walkways more Uneven_Surface, academic
  zones more class-change congestion and residential/athletic ones more after-class crowds.
* **Complexes**: five (scaled, at least one where possible) groups of 3-4 non-Outdoor
  buildings of one zone, grown along walkways so joined buildings are neighbours; the home
  is never part of one.
* **The catalogue** (``world.gen_*``, each module states its rules): library rooms and
  seats taken from the libraries' amenities, which gain one to three bookable rooms each
  (``gen_library``, the map's only change), the library catalogue
  (``gen_library``), advisors and clubs (``gen_people``), two semesters of course sections
  taught by advisors in the campus's academic buildings (``gen_courses``), and handbooks and
  textbooks with checkable facts (``gen_texts``, which depend on the seed only). At scale 1:
  12 libraries with 2,600 seats, 256 sections (226 in generator 1), 1,000 advisors, 101 clubs, 395 titles and 11
  texts; the scale multiplies seats, elective sections, advisors, clubs and titles.

**Generator versions** (``WORLD_GENERATORS``): a generated world does not store the generator that made it, so
``generate_world`` keeps the older ones, and ``campus verify`` tries each to say which made a stored world. 1: three
sections per semester-1 compulsory course; 2 (since 2026-11-29): six, so a class's weekday block holds more compulsory
sections than a student without its timetable can cover by going to one of them; 3 (since 2026-11-29): the six meet
at two times, three parallel classes at each with their own instructors (semester 2's two at one time), so the
timetable no longer tells a student which of a course's sections an earlier task recommended (``gen_courses.TIMES``).

Every random stream is seeded from ``sha256(f"{seed}|{scale}|{purpose}")`` with ``scale``
normalised to a float, so ``generate_world(7, 1)`` and ``generate_world(7, 1.0)`` agree and
the output is byte-identical in every process.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from campus.world.gen_common import apportion, round_half_up, stream
from campus.world.gen_courses import SECTIONS, make_courses
from campus.world.gen_library import make_books, make_libraries
from campus.world.gen_people import make_advisors, make_clubs
from campus.world.gen_texts import make_texts
from campus.world.model import PATH_PROPERTIES, Building, Complex, Path, World, stored_form

HOME_NAME = "Lakeside Dormitory"

# --------------------------------------------------------------------------------------
# Zones
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ZoneSpec:
    name: str
    character: str  # humanities | science | arts | residential | athletics | center
    hub_type: str
    types: tuple[tuple[str, int], ...]

    @property
    def size(self) -> int:
        return sum(count for _, count in self.types)


_RESIDENTIAL_MIX = (("Residential", 16), ("Service", 5), ("Outdoor", 2), ("Recreation", 2))

ZONES: tuple[ZoneSpec, ...] = (
    ZoneSpec(
        "Founders Quad",
        "humanities",
        "Academic",
        (("Academic", 22), ("Service", 3), ("Outdoor", 3), ("Administrative", 2)),
    ),
    ZoneSpec(
        "Science Ridge", "science", "Academic", (("Academic", 20), ("Service", 3), ("Outdoor", 2))
    ),
    ZoneSpec("North Residential Village", "residential", "Service", _RESIDENTIAL_MIX),
    ZoneSpec("South Residential Village", "residential", "Service", _RESIDENTIAL_MIX),
    ZoneSpec(
        "Arts Quarter",
        "arts",
        "Academic",
        (("Academic", 12), ("Service", 4), ("Outdoor", 3), ("Recreation", 1)),
    ),
    ZoneSpec(
        "Athletics Park",
        "athletics",
        "Recreation",
        (("Recreation", 7), ("Outdoor", 3), ("Service", 3), ("Administrative", 2)),
    ),
    ZoneSpec(
        "Campus Center & Administration",
        "center",
        "Administrative",
        (("Administrative", 7), ("Service", 7), ("Outdoor", 1)),
    ),
)
HOME_ZONE = 2
CENTER_ZONE = 6
#: Neighbouring zones around the central one (which neighbours them all).
ZONE_RING: tuple[tuple[int, int], ...] = ((0, 1), (1, 2), (2, 5), (5, 3), (3, 4), (4, 0))
CROSS_PAIRS: tuple[tuple[int, int], ...] = ZONE_RING + tuple((CENTER_ZONE, z) for z in range(6))
ACADEMIC_CHARACTERS = frozenset({"humanities", "science", "arts"})
#: Libraries per academic building (12 of 54 at scale 1).
LIBRARY_SHARE = 12 / 54
#: Extra walkways per building, beyond the trees and hub links.
EXTRA_EDGE_SHARE = 0.12
#: Minimum welcome-center degree per building.
HUB_DEGREE_SHARE = 0.10
#: Probability that a building attaches straight to its zone's hub.
HUB_PREFERENCE = {"center": 0.6, "default": 0.3}
BASE_COMPLEXES = 5

# --------------------------------------------------------------------------------------
# Word lists
# --------------------------------------------------------------------------------------

SURNAMES = (
    "Harwell", "Ashcombe", "Brightwater", "Calloway", "Dunmore", "Everly", "Fairbanks",
    "Galloway", "Hawthorne", "Ingram", "Kessler", "Langford", "Merriweather", "Northcott",
    "Pemberton", "Quinlan", "Redfield", "Sterling", "Thornbury", "Underhill", "Whitcombe",
    "Yardley", "Ashby", "Bellamy", "Carrington", "Ellsworth", "Fenwick", "Greaves",
    "Holloway", "Jarrow", "Kingsley", "Lockhart", "Marlowe", "Ormond", "Prescott",
    "Stanhope", "Tolliver", "Winslow", "Abernathy", "Blackwood", "Corbett", "Davenport",
    "Eastman", "Fitzwilliam", "Gresham", "Hollister", "Iverson", "Kendrick", "Lindqvist",
    "Montague", "Nettleton", "Okonkwo", "Pritchard", "Rosenthal", "Salazar", "Takahashi",
    "Vandermeer", "Wexley", "Zielinski", "Alcott", "Barrington", "Castellano",
)
TREES = (
    "Juniper", "Alder", "Birch", "Cedar", "Hemlock", "Larch", "Maple", "Rowan", "Sycamore",
    "Willow", "Aspen", "Magnolia", "Hazel", "Linden", "Spruce", "Cypress", "Poplar", "Elm",
    "Chestnut", "Hickory", "Laurel", "Sequoia", "Tamarack", "Yew", "Holly", "Beech",
    "Dogwood", "Hornbeam", "Redbud", "Buckeye",
)
PLACES = (
    "Northgate", "Southgate", "Eastbrook", "Westfield", "Ridgeview", "Hillcrest",
    "Meadowbrook", "Stonebridge", "Riverside", "Brookside", "Fernhill", "Pinecrest",
    "Summit", "Highland", "Millbrook", "Foxhollow", "Kingsbridge", "Clearwater", "Ivybank",
    "Sunfield", "Harborview", "Glenmoor", "Windmere", "Copperhill", "Silverbrook",
)
WELCOME_WORDS = ("Founders", "Commonwealth", "Heritage", "Cardinal", "Charter", "Keystone")
COMPLEX_WORDS = (
    "Meridian", "Crescent", "Lantern", "Beacon", "Compass", "Horizon", "Cornerstone",
    "Gateway", "Pinnacle", "Confluence", "Colonnade", "Arcadia", "Tandem", "Quadrant",
    "Lattice", "Concourse", "Atrium", "Corridor",
)
LETTERS = ("A", "B", "C", "D", "E")
WINGS = ("North Wing", "South Wing", "East Wing", "West Wing")
DISCIPLINES = {
    "humanities": (
        "History", "Philosophy", "Economics", "Linguistics", "Political Science",
        "Sociology", "Psychology", "Mathematics", "Classics", "Anthropology", "Law",
        "Education", "Business", "Literature", "Modern Languages",
    ),
    "science": (
        "Physics", "Chemistry", "Biology", "Computer Science", "Electrical Engineering",
        "Mechanical Engineering", "Civil Engineering", "Materials Science", "Earth Sciences",
        "Astronomy", "Biochemistry", "Neuroscience", "Statistics", "Environmental Science",
        "Bioengineering",
    ),
    "arts": (
        "Music", "Fine Arts", "Theater", "Dance", "Film Studies", "Architecture", "Design",
        "Sculpture", "Photography", "Art History", "Creative Writing", "Media Arts",
    ),
}
#: Words a name may start with that make a sensible one-word nickname.
_PROPER_WORDS = frozenset(SURNAMES + TREES + PLACES + WELCOME_WORDS)
#: Name endings and the short form used in a nickname ("Harwell Lib", "Cedar Tower B").
SHORT_FORMS: tuple[tuple[str, str], ...] = (
    ("Library", "Lib"),
    ("Laboratories", "Labs"),
    ("Residence Tower", "Tower"),
    ("Residence Hall", "Res"),
    ("Apartments", "Apts"),
    ("Dining Commons", "Dining"),
    ("Dining Hall", "Dining"),
    ("Coffee House", "Coffee"),
    ("Student Union", "Union"),
    ("Student Center", "Union"),
    ("Fitness Center", "Gym"),
    ("Aquatic Center", "Pool"),
    ("Natatorium", "Pool"),
    ("Recreation Center", "Rec"),
    ("Administration Building", "Admin"),
    ("Health Center", "Clinic"),
    ("Wellness Clinic", "Clinic"),
    ("Technology Center", "Tech"),
    ("Science Center", "Sci"),
    ("Lecture Center", "Lectures"),
    ("Amphitheater", "Amphi"),
)

# --------------------------------------------------------------------------------------
# Building kinds: what a building is called and what it holds
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """A building sub-type: name patterns and amenity pools.

    Name patterns use ``{S}`` surname, ``{T}`` tree, ``{P}`` place, ``{D}`` discipline,
    ``{L}`` letter and ``{W}`` welcome word. Amenity templates use ``{room}``, ``{lo}``,
    ``{hi}`` (room numbers on the floor) and ``{wing}``.
    """

    type: str
    names: tuple[str, ...]
    rooms: tuple[str, ...]
    ground: tuple[str, ...] = ()
    basement: tuple[str, ...] = ()
    whole: tuple[str, ...] = ()
    study: tuple[str, ...] = ()
    lobby: str = ""  # always the first amenity on floor_1
    max_floors: int = 4
    min_upper: int = 1


_ACADEMIC_ROOMS = (
    "Seminar Room {room}", "Lecture Hall {room}", "Classroom {room}",
    "Faculty Offices ({lo}-{hi})", "Department Office {room}", "Student Lounge ({wing})",
    "Teaching Assistant Offices ({lo}-{hi})",
)
_ACADEMIC_GROUND = ("Main Lobby & Information Desk", "Cafe", "Auditorium {room}")
_ACADEMIC_BASEMENT = ("Storage & Mechanical Rooms", "Bike Storage", "Vending Area", "Locker Bank")
_ACADEMIC_WHOLE = (
    "Faculty Offices", "Restrooms & Water Fountains", "Elevator Access", "Study Nooks",
)

KINDS: dict[str, Kind] = {
    "humanities": Kind(
        "Academic",
        ("{S} Hall", "{S} Hall of {D}", "{S} {D} Building", "{D} Center",
         "{S} Institute of {D}", "{S} Lecture Center"),
        _ACADEMIC_ROOMS + ("Reading Room {room}", "Language Lab {room}", "Moot Courtroom {room}",
                           "Writing Center {room}", "Case Study Room {room}"),
        _ACADEMIC_GROUND, _ACADEMIC_BASEMENT, _ACADEMIC_WHOLE,
    ),
    "science": Kind(
        "Academic",
        ("{S} Hall of {D}", "{S} {D} Laboratories", "{D} Research Center", "{S} {D} Building",
         "{S} Science Center", "{D} Laboratory Building"),
        _ACADEMIC_ROOMS + ("Chemistry Teaching Lab {room}", "Physics Lab {room}",
                           "Computer Lab ({lo}-{hi})", "Wet Lab Suite ({lo}-{hi})",
                           "Clean Room {room}", "Electronics Workshop {room}",
                           "Robotics Lab {room}"),
        _ACADEMIC_GROUND, _ACADEMIC_BASEMENT + ("Instrument Core Facility", "Machine Shop"),
        _ACADEMIC_WHOLE,
    ),
    "arts": Kind(
        "Academic",
        ("{S} Hall of {D}", "{S} Studios", "{S} Conservatory", "{D} Center",
         "{S} Arts Building", "{S} Theater"),
        _ACADEMIC_ROOMS + ("Rehearsal Studio {room}", "Painting Studio {room}",
                           "Practice Rooms ({lo}-{hi})", "Gallery ({wing})", "Darkroom {room}",
                           "Digital Media Lab {room}"),
        _ACADEMIC_GROUND + ("Black Box Theater", "Recital Hall"),
        _ACADEMIC_BASEMENT + ("Scene Shop", "Costume Storage"), _ACADEMIC_WHOLE,
    ),
    "library": Kind(
        "Academic",
        ("{S} Library", "{S} Memorial Library", "{D} Library", "{S} {D} Library",
         "{P} Library"),
        ("Periodicals Reading Room", "Special Collections Room {room}",
         "Media Lab ({lo}-{hi})", "Stacks ({wing})", "Map Room {room}",
         "Computer Lab ({lo}-{hi})"),
        ("Reference Desk", "Cafe", "New Arrivals Display", "Self-Checkout Kiosks"),
        ("Archives & Rare Books", "Compact Shelving Stacks", "Book Repair Workshop"),
        ("Wi-Fi Coverage", "Book Return Slots", "Printing Stations"),
        ("Quiet Study Zone ({wing})", "Group Study Rooms ({lo}-{hi})",
         "Silent Study Hall {room}", "Study Carrels ({wing})", "24-Hour Study Room {room}"),
        lobby="Main Lobby & Circulation Desk",
        min_upper=2,
    ),
    "residence": Kind(
        "Residential",
        ("{T} Hall", "{T} House", "{T} Residence Tower {L}", "{P} Commons",
         "{S} Residence Hall", "{T} Court", "{P} Apartments", "{T} Lodge"),
        ("Student Rooms ({lo}-{hi})", "Study Lounge ({wing})", "Floor Lounge {room}",
         "Shared Kitchen {room}", "Resident Advisor Office {room}", "Quiet Room {room}"),
        ("Mailroom", "Common Lounge", "Community Kitchen"),
        ("Laundry Room", "Bike Storage", "Storage Lockers", "Game Room"),
        ("Laundry Facilities", "Study Lounges", "Wi-Fi Coverage", "Elevator Access"),
        lobby="Main Lobby & Front Desk",
    ),
    "dining": Kind(
        "Service",
        ("{P} Dining Commons", "{S} Dining Hall"),
        ("Dining Hall", "Salad Bar", "Grill Station", "Late-Night Kitchen",
         "Catering Office {room}", "Private Dining Room {room}"),
        ("Main Servery", "Grab-and-Go Market"), ("Loading Dock", "Bakery Kitchen"),
        max_floors=3,
    ),
    "cafe": Kind(
        "Service", ("{T} Cafe", "{P} Coffee House"),
        ("Cafe", "Espresso Bar", "Bakery Counter", "Seating Area ({wing})"), max_floors=2,
    ),
    "health": Kind(
        "Service", ("{S} Health Center", "{P} Wellness Clinic"),
        ("Student Health Clinic", "Pharmacy", "Counseling Offices ({lo}-{hi})",
         "Urgent Care Desk", "Wellness Room {room}"),
        ("Check-In Desk",), max_floors=3,
    ),
    "bookstore": Kind(
        "Service", ("{P} Bookstore", "{S} Book Exchange"),
        ("Bookstore", "Textbook Counter", "Campus Apparel Shop", "Stationery Aisle"),
        max_floors=2,
    ),
    "print": Kind(
        "Service", ("{P} Print & Copy Center", "{S} Print Shop"),
        ("Print Shop", "Copy Center", "Poster Printing {room}", "Self-Service Printers ({wing})"),
        max_floors=2,
    ),
    "mail": Kind(
        "Service", ("{P} Mail Center", "{P} Post Office"),
        ("Mail Center", "Package Lockers", "Shipping Counter"), max_floors=1,
    ),
    "union": Kind(
        "Service", ("{S} Student Union", "{S} Student Center"),
        ("Student Union Lounge", "Club Offices ({lo}-{hi})", "Food Court", "Event Hall {room}",
         "Information Desk", "Meeting Rooms ({lo}-{hi})"),
        ("Main Lobby", "Ticket Office"), ("Game Room", "Bowling Lanes"),
    ),
    "career": Kind(
        "Service", ("{S} Career Center",),
        ("Career Services Office {room}", "Interview Rooms ({lo}-{hi})",
         "Resume Workshop Room {room}"), max_floors=2,
    ),
    "market": Kind(
        "Service", ("{P} Market", "{T} Corner Store"),
        ("Convenience Store", "ATM Kiosk", "Grocery Aisle", "Pharmacy Counter"), max_floors=1,
    ),
    "tech": Kind(
        "Service", ("{S} Technology Center",),
        ("IT Help Desk", "Device Repair Counter", "Computer Lab ({lo}-{hi})",
         "Software Training Room {room}"), max_floors=3,
    ),
    "plaza": Kind(
        "Outdoor", ("{S} Plaza", "{P} Plaza"),
        ("Open Plaza", "Central Fountain", "Seating Terraces", "Food Truck Bays", "Event Stage",
         "Bike Racks"),
    ),
    "garden": Kind(
        "Outdoor", ("{T} Garden", "{S} Memorial Garden"),
        ("Botanical Beds", "Greenhouse", "Koi Pond", "Meditation Path", "Shaded Benches"),
    ),
    "field": Kind(
        "Outdoor", ("{S} Field", "{P} Fields"),
        ("Soccer Field", "Running Track", "Bleachers", "Equipment Shed", "Intramural Field"),
    ),
    "green": Kind(
        "Outdoor", ("{P} Green", "{T} Lawn"),
        ("Open Lawn", "Picnic Tables", "Hammock Grove", "Outdoor Chess Boards"),
    ),
    "amphitheater": Kind(
        "Outdoor", ("{P} Amphitheater", "{S} Amphitheater"),
        ("Open-Air Stage", "Tiered Seating", "Sound Booth", "Lawn Seating"),
    ),
    "courtyard": Kind(
        "Outdoor", ("{S} Courtyard", "{T} Courtyard"),
        ("Courtyard Seating", "Sculpture Garden", "Outdoor Study Tables", "Water Feature"),
    ),
    "fitness": Kind(
        "Recreation", ("{S} Fitness Center",),
        ("Weight Room", "Cardio Deck ({wing})", "Group Exercise Studio {room}",
         "Spin Studio {room}"),
        ("Front Desk", "Locker Rooms"), max_floors=3,
    ),
    "aquatic": Kind(
        "Recreation", ("{S} Aquatic Center", "{S} Natatorium"),
        ("Competition Pool", "Diving Well", "Lap Pool", "Spectator Gallery", "Hot Tub"),
        ("Locker Rooms",), ("Pool Mechanical Room",), max_floors=2,
    ),
    "arena": Kind(
        "Recreation", ("{S} Arena", "{P} Arena"),
        ("Main Court", "Spectator Seating ({wing})", "Concessions Stand", "Press Box {room}"),
        max_floors=3,
    ),
    "fieldhouse": Kind(
        "Recreation", ("{S} Fieldhouse",),
        ("Indoor Track", "Basketball Courts", "Climbing Wall", "Equipment Checkout"),
        max_floors=2,
    ),
    "tennis": Kind(
        "Recreation", ("{P} Tennis Pavilion", "{S} Tennis Center"),
        ("Indoor Tennis Courts", "Pro Shop", "Viewing Lounge"), max_floors=2,
    ),
    "rec": Kind(
        "Recreation", ("{P} Recreation Center", "{S} Recreation Hall"),
        ("Multipurpose Gym", "Table Tennis Room {room}", "Yoga Studio {room}",
         "Squash Courts ({lo}-{hi})", "Juice Bar"), ("Front Desk",), ("Locker Rooms",),
    ),
    "admin": Kind(
        "Administrative", ("{S} Administration Building",),
        ("Office of the Dean ({wing})", "Administrative Offices ({lo}-{hi})",
         "Conference Room {room}", "Human Resources Office {room}"),
        ("Reception Desk",), ("Records Storage",), ("Administrative Offices",),
    ),
    "registrar": Kind(
        "Administrative", ("{S} Registrar Building",),
        ("Registrar's Office {room}", "Transcript Services Counter",
         "Enrollment Services ({wing})"),
        max_floors=3,
    ),
    "admissions": Kind(
        "Administrative", ("{P} Admissions House", "{S} Admissions Center"),
        ("Admissions Office", "Visitor Lounge", "Information Session Room {room}"), max_floors=2,
    ),
    "finance": Kind(
        "Administrative", ("{S} Finance Building",),
        ("Financial Aid Office {room}", "Bursar's Office {room}", "Payment Windows"), max_floors=3,
    ),
    "alumni": Kind(
        "Administrative", ("{S} Alumni House",),
        ("Alumni Relations Office {room}", "Donor Lounge", "Event Room {room}"), max_floors=2,
    ),
    "president": Kind(
        "Administrative", ("{S} House",),
        ("Office of the President", "Board Room {room}", "Executive Suite ({wing})"), max_floors=2,
    ),
    "welcome": Kind(
        "Administrative", ("{W} Welcome Center",),
        ("Visitor Information Center", "Campus Tours Office {room}", "Lost & Found",
         "Information Session Room {room}", "Conference Room {room}"),
        ("Campus Map Kiosk", "Visitor Lounge", "Cafe"), lobby="Welcome Desk", max_floors=3,
    ),
}
#: The kinds a building of each type is drawn from (libraries and academic kinds aside).
KINDS_BY_TYPE: dict[str, tuple[str, ...]] = {
    "Residential": ("residence",),
    "Service": ("dining", "cafe", "health", "bookstore", "print", "mail", "union", "career",
                "market", "tech"),
    "Outdoor": ("plaza", "garden", "field", "green", "amphitheater", "courtyard"),
    "Recreation": ("fitness", "aquatic", "arena", "fieldhouse", "tennis", "rec"),
    "Administrative": ("admin", "registrar", "admissions", "finance", "alumni", "president"),
}
#: The kind of a zone's hub, where the zone's character asks for one.
HUB_KINDS = {"residential": "dining", "athletics": "rec", "center": "welcome"}
COMPLEX_SUFFIX = {
    "humanities": "Teaching Complex", "science": "Research Complex", "arts": "Arts Complex",
    "residential": "Residential Complex", "athletics": "Sports Complex", "center": "Civic Complex",
}

# --------------------------------------------------------------------------------------
# Random streams and small helpers
# --------------------------------------------------------------------------------------


def _stream(seed: int, scale: float, purpose: str) -> random.Random:
    return stream(seed, scale, purpose)


def _check_scale(scale: float) -> float:
    try:
        value = float(scale)
    except (TypeError, ValueError):
        raise ValueError(f"scale must be a positive number, got {scale!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_SCALE):
        raise ValueError(f"scale must be a number above 0 and at most {MAX_SCALE:g}, got {scale!r}")
    return value


MAX_SCALE = 100.0
"""The largest campus generated: about 15,500 buildings (a scale of 1e6 was still drawing after 30 s of CPU)."""


# --------------------------------------------------------------------------------------
# Layout: zones, types, kinds, hubs, home
# --------------------------------------------------------------------------------------


@dataclass
class _Slot:
    """A building being planned."""

    id: str
    zone: int
    type: str
    kind: str
    name: str = ""


@dataclass
class _Layout:
    slots: list[_Slot]
    zones: list[list[_Slot]]  # per zone, hub first
    home: _Slot
    center: _Slot


def _zone_types(zone: ZoneSpec, size: int, rng: random.Random) -> list[str]:
    counts = apportion(size, [count for _, count in zone.types])
    types = [t for (t, _), n in zip(zone.types, counts) for _ in range(n)]
    rng.shuffle(types)
    if zone.hub_type in types:  # the zone's hub goes first
        types.insert(0, types.pop(types.index(zone.hub_type)))
    return types


def _zone_kinds(zone: ZoneSpec, types: list[str], rng: random.Random) -> list[str]:
    academic = [i for i, t in enumerate(types) if t == "Academic"]
    libraries = set(rng.sample(academic, round_half_up(len(academic) * LIBRARY_SHARE)))
    character = zone.character if zone.character in ACADEMIC_CHARACTERS else "humanities"
    kinds = []
    for i, building_type in enumerate(types):
        if building_type == "Academic":
            kinds.append("library" if i in libraries else character)
        else:
            kinds.append(rng.choice(KINDS_BY_TYPE[building_type]))
    hub_kind = HUB_KINDS.get(zone.character)
    if hub_kind is not None and types and types[0] == KINDS[hub_kind].type:
        kinds[0] = hub_kind
    return kinds


def _plan(scale: float, rng: random.Random) -> _Layout:
    sizes = [max(1, round_half_up(zone.size * scale)) for zone in ZONES]
    width = max(3, len(str(sum(sizes))))
    slots: list[_Slot] = []
    zones: list[list[_Slot]] = []
    for z, (zone, size) in enumerate(zip(ZONES, sizes)):
        types = _zone_types(zone, size, rng)
        kinds = _zone_kinds(zone, types, rng)
        members = []
        for building_type, kind in zip(types, kinds):
            slot = _Slot(f"B{len(slots) + 1:0{width}d}", z, building_type, kind)
            slots.append(slot)
            members.append(slot)
        zones.append(members)
    center = zones[CENTER_ZONE][0]  # Administrative: it leads the centre zone's mix
    center.kind = "welcome"
    residential = [s for s in zones[HOME_ZONE] if s.type == "Residential"]
    home = rng.choice(residential or [s for s in slots if s.type == "Residential"])
    return _Layout(slots, zones, home, center)


# --------------------------------------------------------------------------------------
# Names and aliases
# --------------------------------------------------------------------------------------


def _draw_name(kind: Kind, zone: ZoneSpec, rng: random.Random) -> str:
    pattern = rng.choice(kind.names)
    disciplines = DISCIPLINES.get(zone.character, DISCIPLINES["humanities"])
    return pattern.format(
        S=rng.choice(SURNAMES),
        T=rng.choice(TREES),
        P=rng.choice(PLACES),
        D=rng.choice(disciplines),
        L=rng.choice(LETTERS),
        W=rng.choice(WELCOME_WORDS),
    )


def _unique_name(kind: Kind, zone: ZoneSpec, used: set[str], rng: random.Random) -> str:
    name = _draw_name(kind, zone, rng)
    for _ in range(40):
        if name.lower() not in used:
            return name
        name = _draw_name(kind, zone, rng)
    number = 2
    while f"{name} {number}".lower() in used:
        number += 1
    return f"{name} {number}"


def _short_form(name: str) -> str | None:
    words = name.split()
    letter = words[-1] if len(words[-1]) == 1 else ""
    base = " ".join(words[:-1]) if letter else name
    for ending, short in SHORT_FORMS:
        if base.endswith(ending) and words[0] in _PROPER_WORDS:
            return f"{words[0]} {short}{' ' + letter if letter else ''}"
    return None


def _alias_candidates(name: str) -> list[str]:
    words = name.split()
    candidates = []
    initials = "".join(w[0] for w in words if w[0].isupper() or w[0].isdigit())
    if len(initials) >= 2:
        candidates.append(initials)
    short = _short_form(name)
    if short is not None:
        candidates.append(short)
    if len(words) >= 2 and words[0] in _PROPER_WORDS:
        candidates.append(words[0])
    return candidates


def _choose_aliases(
    name: str, fixed: Sequence[str], used: set[str], rng: random.Random
) -> list[str]:
    count = max(rng.choices((0, 1, 2, 3), weights=(2, 4, 3, 1))[0], min(len(fixed), 3))
    drawn = _alias_candidates(name)
    rng.shuffle(drawn)
    aliases: list[str] = []
    for alias in [*fixed, *drawn]:
        if len(aliases) == count:
            break
        if alias.lower() not in used:
            used.add(alias.lower())
            aliases.append(alias)
    return aliases


def _name_buildings(layout: _Layout, rng: random.Random) -> dict[str, list[str]]:
    """Give every slot a unique name, then aliases; returns aliases by building id."""
    used = {HOME_NAME.lower()}
    layout.home.name = HOME_NAME
    special = (layout.center, layout.home)
    ordered = [layout.center] + [s for s in layout.slots if s not in special]
    for slot in ordered:
        slot.name = _unique_name(KINDS[slot.kind], ZONES[slot.zone], used, rng)
        used.add(slot.name.lower())
    fixed = {
        layout.home.id: ("Lakeside", "Lakeside Dorm"),
        layout.center.id: ("Welcome Center", "Visitor Center"),
    }
    return {
        slot.id: _choose_aliases(slot.name, fixed.get(slot.id, ()), used, rng)
        for slot in layout.slots
    }


# --------------------------------------------------------------------------------------
# Amenities
# --------------------------------------------------------------------------------------


def _floor_keys(kind: Kind, rng: random.Random) -> list[str]:
    if kind.type == "Outdoor":
        return ["floor_1"]
    lowest = kind.min_upper
    count = rng.randint(lowest, max(lowest, kind.max_floors))
    basement = bool(kind.basement) and count - 1 >= lowest and rng.random() < 0.3
    whole = bool(kind.whole) and count - basement - 1 >= lowest and rng.random() < 0.25
    upper = count - basement - whole
    keys = ["basement"] if basement else []
    keys += [f"floor_{level}" for level in range(1, upper + 1)]
    if whole:
        keys.append("all_floors")
    return keys


def _fill(template: str, level: str, rng: random.Random) -> str:
    if "{" not in template:
        return template
    low = rng.randint(1, 12)
    return template.format(
        room=f"{level}{rng.randint(1, 40):02d}",
        lo=f"{level}{low:02d}",
        hi=f"{level}{low + rng.randint(4, 18):02d}",
        wing=rng.choice(WINGS),
    )


def _floor_amenities(kind: Kind, key: str, rng: random.Random) -> list[str]:
    """One to four amenities for one floor key, each template used at most once."""
    if key == "basement":
        pool, level = kind.basement, "B"
    elif key == "all_floors":
        pool, level = kind.whole, ""
    elif key == "floor_1":
        pool, level = kind.ground + kind.rooms, "1"
    else:
        pool, level = kind.rooms, key.removeprefix("floor_")
    wanted = rng.randint(1, 4)
    first: list[str] = []
    if key == "floor_1" and kind.lobby:
        first = [kind.lobby]
    elif kind.study and key not in ("floor_1", "basement", "all_floors"):
        first = [rng.choice(kind.study)]  # every upper library floor has a study area
        pool = pool + tuple(t for t in kind.study if t != first[0])
    rest = rng.sample(pool, min(len(pool), wanted - len(first)))
    return [_fill(template, level, rng) for template in first + rest]


def _amenities(kind: Kind, rng: random.Random) -> dict[str, list[str]]:
    return {key: _floor_amenities(kind, key, rng) for key in _floor_keys(kind, rng)}


# --------------------------------------------------------------------------------------
# Walkways
# --------------------------------------------------------------------------------------


@dataclass
class _Edge:
    source: str
    target: str
    minutes: int
    kind: str  # hub | zone | cross


@dataclass
class _Graph:
    edges: list[_Edge]
    adjacency: dict[str, list[str]]
    pairs: set[tuple[str, str]]

    @classmethod
    def empty(cls, ids: Sequence[str]) -> _Graph:
        return cls([], {i: [] for i in ids}, set())

    def has(self, a: str, b: str) -> bool:
        return (min(a, b), max(a, b)) in self.pairs

    def add(self, a: str, b: str, minutes: int, kind: str) -> bool:
        if a == b or self.has(a, b):
            return False
        self.pairs.add((min(a, b), max(a, b)))
        self.adjacency[a].append(b)
        self.adjacency[b].append(a)
        self.edges.append(_Edge(a, b, minutes, kind))
        return True

    def degree(self, a: str) -> int:
        return len(self.adjacency[a])


def _link_hubs(layout: _Layout, graph: _Graph, rng: random.Random) -> None:
    for z, members in enumerate(layout.zones):
        if z != CENTER_ZONE:
            graph.add(layout.center.id, members[0].id, rng.randint(3, 8), "hub")


def _grow_trees(layout: _Layout, graph: _Graph, rng: random.Random) -> None:
    for zone, members in zip(ZONES, layout.zones):
        preference = HUB_PREFERENCE.get(zone.character, HUB_PREFERENCE["default"])
        for i in range(1, len(members)):
            parent = members[0] if rng.random() < preference else members[rng.randrange(i)]
            graph.add(parent.id, members[i].id, rng.randint(1, 6), "zone")


def _add_shortcuts(layout: _Layout, graph: _Graph, rng: random.Random) -> None:
    """Extra walkways inside a zone or between neighbouring zones: alternative routes."""
    target = round_half_up(EXTRA_EDGE_SHARE * len(layout.slots))
    sizes = [len(members) for members in layout.zones]
    added, attempts = 0, 0
    while added < target and attempts < 50 * target + 100:
        attempts += 1
        if rng.random() < 0.55:
            members = layout.zones[rng.choices(range(len(sizes)), weights=sizes)[0]]
            if len(members) < 3:
                continue
            a, b = rng.sample(members, 2)
            minutes, kind = rng.randint(1, 6), "zone"
        else:
            za, zb = rng.choice(CROSS_PAIRS)
            a, b = rng.choice(layout.zones[za]), rng.choice(layout.zones[zb])
            minutes, kind = rng.randint(4, 15), "cross"
        if layout.center in (a, b):
            continue
        added += graph.add(a.id, b.id, minutes, kind)


def _raise_hub(layout: _Layout, graph: _Graph, rng: random.Random) -> None:
    """Direct spokes from the welcome center until it is the campus's busiest building."""
    center = layout.center
    floor = math.ceil(HUB_DEGREE_SHARE * len(layout.slots))
    free = [s for s in layout.slots if s is not center and not graph.has(center.id, s.id)]
    own = [s for s in free if s.zone == CENTER_ZONE]
    others = [s for s in free if s.zone != CENTER_ZONE]
    rng.shuffle(own)
    rng.shuffle(others)
    candidates = own + others
    for slot in candidates:
        busiest = max((graph.degree(s.id) for s in layout.slots if s is not center), default=0)
        if graph.degree(center.id) >= floor and graph.degree(center.id) > busiest:
            break
        if slot.zone == CENTER_ZONE:
            graph.add(center.id, slot.id, rng.randint(1, 6), "zone")
        else:
            graph.add(center.id, slot.id, rng.randint(3, 8), "hub")


def _build_graph(layout: _Layout, rng: random.Random) -> _Graph:
    graph = _Graph.empty([s.id for s in layout.slots])
    _link_hubs(layout, graph, rng)
    _grow_trees(layout, graph, rng)
    _add_shortcuts(layout, graph, rng)
    _raise_hub(layout, graph, rng)
    return graph


# --------------------------------------------------------------------------------------
# Walkway properties
# --------------------------------------------------------------------------------------

_INDOOR_CHANCE = {"hub": 0.05, "zone": 0.085, "cross": 0.02}
_RAIN_OUTDOOR = (56, 77, 7, 4)
_POOR_LIGHT = {"Covered": 0.01, "Exposed": 0.04, "Exposed_Puddles": 0.08, "Exposed_Slippery": 0.08}
_ACCESS_BASE = (87, 43, 7, 7, 6, 5)
_ACCESS_INDOOR = (40, 40, 15, 0, 0, 5)
_CONGESTION_BASE = (67, 36, 35, 17)


def _weighted(rng: random.Random, key: str, weights: Sequence[float]) -> str:
    return rng.choices(PATH_PROPERTIES[key], weights=weights)[0]


def _accessibility_weights(indoor: bool, rain: str, characters: set[str]) -> list[float]:
    if indoor:
        return list(_ACCESS_INDOOR)
    weights = [float(w) for w in _ACCESS_BASE]
    if "science" in characters:  # the ridge is a hill
        weights[4] *= 3
    if rain in ("Exposed_Puddles", "Exposed_Slippery"):
        weights[3] *= 3
    return weights


def _congestion_weights(kind: str, characters: set[str]) -> list[float]:
    weights = [float(w) for w in _CONGESTION_BASE]
    if characters & ACADEMIC_CHARACTERS:
        weights[2] *= 1.6
    if characters & {"residential", "athletics"}:
        weights[3] *= 1.6
    if kind == "hub":
        weights[0] *= 0.6
    return weights


def _draw_properties(kind: str, characters: set[str], rng: random.Random) -> dict[str, str]:
    indoor = rng.random() < _INDOOR_CHANCE[kind]
    rain = "Covered" if indoor else _weighted(rng, "rain_exposure", _RAIN_OUTDOOR)
    poor = 0.0 if indoor else _POOR_LIGHT[rain]
    return {
        "rain_exposure": rain,
        "illumination": "Poor" if rng.random() < poor else "Good",
        "path_type": "Indoor" if indoor else "Outdoor",
        "accessibility": _weighted(
            rng, "accessibility", _accessibility_weights(indoor, rain, characters)
        ),
        "congestion": _weighted(rng, "congestion", _congestion_weights(kind, characters)),
    }


def _paths(layout: _Layout, graph: _Graph, rng: random.Random) -> list[Path]:
    zone_of = {s.id: s.zone for s in layout.slots}
    paths = []
    for edge in graph.edges:
        characters = {ZONES[zone_of[edge.source]].character, ZONES[zone_of[edge.target]].character}
        paths.append(
            Path(
                source=edge.source,
                target=edge.target,
                minutes=edge.minutes,
                properties=_draw_properties(edge.kind, characters, rng),
            )
        )
    return paths


# --------------------------------------------------------------------------------------
# Complexes
# --------------------------------------------------------------------------------------


def _grow_group(seed: _Slot, eligible: dict[str, _Slot], size: int, graph: _Graph,
                rng: random.Random) -> list[_Slot]:
    group = [seed]
    while len(group) < size:
        frontier = [
            eligible[n] for member in group for n in graph.adjacency[member.id]
            if n in eligible and eligible[n] not in group
        ]
        if not frontier:
            break
        group.append(rng.choice(frontier))
    return group


def _pick_members(members: list[_Slot], graph: _Graph, rng: random.Random) -> list[_Slot] | None:
    if len(members) < 3:
        return None
    size = min(rng.choice((3, 4)), len(members))
    eligible = {s.id: s for s in members}
    seeds = list(members)
    rng.shuffle(seeds)
    for seed in seeds[:8]:
        group = _grow_group(seed, eligible, size, graph, rng)
        if len(group) >= 3:
            return sorted(group, key=lambda s: s.id)
    return sorted(rng.sample(members, size), key=lambda s: s.id)


def _join_names(names: Sequence[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1]


def _complex_name(zone: ZoneSpec, used: set[str], rng: random.Random) -> str:
    words = list(COMPLEX_WORDS)
    rng.shuffle(words)
    for word in words:
        name = f"{word} {COMPLEX_SUFFIX[zone.character]}"
        if name.lower() not in used:
            return name
    number = 2
    while f"{name} {number}".lower() in used:
        number += 1
    return f"{name} {number}"


def _complexes(
    layout: _Layout, graph: _Graph, used_names: set[str], rng: random.Random
) -> list[Complex]:
    target = max(1, round_half_up(BASE_COMPLEXES * len(layout.slots) / sum(z.size for z in ZONES)))
    taken: set[str] = {layout.home.id}
    order = list(range(len(ZONES)))
    rng.shuffle(order)
    complexes: list[Complex] = []
    cursor, stalled = 0, 0
    while len(complexes) < target and stalled < len(order):
        zone = order[cursor % len(order)]
        cursor += 1
        free = [s for s in layout.zones[zone] if s.id not in taken and s.type != "Outdoor"]
        group = _pick_members(free, graph, rng)
        if group is None:
            stalled += 1
            continue
        stalled = 0
        taken.update(s.id for s in group)
        name = _complex_name(ZONES[zone], used_names, rng)
        used_names.add(name.lower())
        description = (
            f"{_join_names([s.name for s in group])} are joined by enclosed corridors and "
            "skybridges, so moving between them takes no walking time."
        )
        complexes.append(
            Complex(
                id=f"C{len(complexes) + 1:02d}",
                name=name,
                members=[s.id for s in group],
                description=description,
            )
        )
    return complexes


# --------------------------------------------------------------------------------------
# The world
# --------------------------------------------------------------------------------------


WORLD_GENERATORS = tuple(SECTIONS)
WORLD_GENERATOR = max(WORLD_GENERATORS)
"""The generator ``generate_world`` uses unless told otherwise."""


def generate_world(seed: int = 0, scale: float = 1.0, generator: int = WORLD_GENERATOR) -> World:
    """A campus of about ``155 * scale`` buildings, fully determined by ``(seed, scale, generator)``."""
    if generator not in WORLD_GENERATORS:
        raise ValueError(f"no world generator {generator}: this campus has {', '.join(map(str, WORLD_GENERATORS))}")
    scale = _check_scale(scale)
    layout = _plan(scale, _stream(seed, scale, "layout"))
    aliases = _name_buildings(layout, _stream(seed, scale, "names"))
    amenity_rng = _stream(seed, scale, "amenities")
    buildings = [
        Building(
            id=slot.id,
            name=slot.name,
            aliases=aliases[slot.id],
            type=slot.type,
            zone=ZONES[slot.zone].name,
            amenities=_amenities(KINDS[slot.kind], amenity_rng),
        )
        for slot in layout.slots
    ]
    graph = _build_graph(layout, _stream(seed, scale, "edges"))
    paths = _paths(layout, graph, _stream(seed, scale, "properties"))
    used_names = {s.name.lower() for s in layout.slots}
    used_names.update(a.lower() for names in aliases.values() for a in names)
    complexes = _complexes(layout, graph, used_names, _stream(seed, scale, "complexes"))
    buildings, libraries = make_libraries(buildings, seed, scale)
    advisors = make_advisors(seed, scale)
    return stored_form(World(
        name=f"generated-{seed}" if scale == 1 else f"generated-{seed}-x{scale}",
        seed=seed,
        home=layout.home.id,
        buildings=buildings,
        paths=paths,
        complexes=complexes,
        libraries=libraries,
        courses=make_courses(buildings, advisors, seed, scale, generator),
        advisors=advisors,
        clubs=make_clubs(seed, scale),
        books=make_books(buildings, seed, scale),
        texts=make_texts(seed),
    ))


__all__ = ["WORLD_GENERATOR", "WORLD_GENERATORS", "ZONES", "generate_world"]

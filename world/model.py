"""The static world: the campus map and everything a term is played on.

A world is plain data, content-hashed: the same world has the same hash on any machine,
and a log's genesis binds that hash, so a run can only be replayed on the world it ran on.
"""

from __future__ import annotations

import msgspec

from events.codec import canonical, content_hash

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


class World(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    seed: int | None
    home: str
    buildings: list[Building]
    paths: list[Path]
    complexes: list[Complex]

    def encode(self) -> bytes:
        return canonical(self)

    @property
    def hash(self) -> str:
        return content_hash(self)


_WORLD = msgspec.json.Decoder(World)


def decode_world(data: bytes | str) -> World:
    return _WORLD.decode(data)

"""Reading the published StuLife background data into the world model.

For now this reads the campus map (``map_v1.5.json``): buildings, walkways with their
properties, and building complexes; the home base is Lakeside Dormitory (B083), as in the
benchmark. Nothing is dropped silently: anything that cannot be mapped is listed in the
returned report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from world.model import Building, Complex, Path as Walkway, World

HOME = "B083"


class StuLifeDataError(ValueError):
    """The directory does not hold the published StuLife layout."""


def load_map(directory: str | Path) -> tuple[World, list[str]]:
    """The StuLife campus map as a ``World``, and a report of what could not be mapped."""
    source = Path(directory) / "map_v1.5.json"
    if not source.exists():
        raise StuLifeDataError(f"{source} does not exist; point at the StuLife background data directory")
    raw: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    report: list[str] = []
    buildings = [_building(node) for node in raw.get("nodes", [])]
    known = {b.id for b in buildings}
    paths = []
    for edge in raw.get("edges", []):
        if edge.get("source") not in known or edge.get("target") not in known:
            report.append(f"walkway {edge.get('source')}-{edge.get('target')}: unknown endpoint")
            continue
        paths.append(Walkway(source=edge["source"], target=edge["target"], minutes=int(edge["time_cost"]),
                             properties={k: str(v) for k, v in edge.get("properties", {}).items()}))
    complexes = [
        Complex(id=group["group_id"], name=group["group_name"], members=list(group["member_ids"]),
                description=group.get("connection_description", ""))
        for group in raw.get("building_complexes", [])
    ]
    if HOME not in known:
        raise StuLifeDataError(f"the map has no home base {HOME} (Lakeside Dormitory)")
    world = World(name="stulife", seed=None, home=HOME, buildings=sorted(buildings, key=lambda b: b.id),
                  paths=paths, complexes=complexes)
    return world, report


def _building(node: dict[str, Any]) -> Building:
    return Building(
        id=node["id"],
        name=node["name"],
        aliases=list(node.get("aliases", [])),
        type=node.get("type", ""),
        zone=node.get("zone", ""),
        amenities={floor: list(rooms) for floor, rooms in node.get("internal_amenities", {}).items()},
    )

"""Map and geography: where the student is, and how it gets anywhere.

The map tools are read-only views of the campus. ``geography.walk_to`` is the only way to
move: it follows real walkways from the current building, one after another, and costs the
minutes of every walkway it uses (inside a building complex: nothing). The student wakes up
at home every day. Path results show building ids next to names, so a planned path can be
walked as it is — two defects of the reference implementation fixed.
"""

from __future__ import annotations

import difflib
from typing import Any

import msgspec

from campus.events import DayStarted, Walked, WalkwayStatus, WorldChanged, walkway_key
from campus.kernel.clock import label
from campus.kernel.engine import ToolView
from campus.kernel.projection import Domain
from campus.kernel.tools import Outcome, Param, Refuse, ToolDecl, fail, ok
from campus.world.graph import Edge, fastest_path
from campus.world.index import WorldIndex
from campus.world.model import PATH_PROPERTIES
from campus.world.routes import RouteError, check_constraints, unmet, walk_minutes

MAX_LISTED = 25


class GeographyState(msgspec.Struct, kw_only=True):
    location: str
    trail: list[str]
    """Every building passed through today, in order (reset when the day starts)."""
    walkways: dict[str, str] = {}
    """Walkway key (``walkway_key``) -> ``congested`` or ``closed``, where a trigger changed it."""


CONGESTION = 3
"""A congested walkway takes this many times its minutes."""


def _world_changed(part: GeographyState, event: WorldChanged) -> None:
    change = event.change
    if isinstance(change, WalkwayStatus):
        key = walkway_key(change.a, change.b)
        if change.new == "open":
            part.walkways.pop(key, None)
        else:
            part.walkways[key] = change.new


def walkway_now(part: GeographyState, a: str, b: str) -> str:
    return part.walkways.get(walkway_key(a, b), "open")


def walkway_holds(part: GeographyState, change: WalkwayStatus, world: WorldIndex) -> str | None:
    """Compare-and-set: why the walkway is not ``change.old`` now (None when it is)."""
    now = walkway_now(part, change.a, change.b)
    return None if now == change.old else f"walkway {change.a}-{change.b} is {now}, not {change.old}"


def walkway_problem(change: WalkwayStatus, world: WorldIndex) -> str | None:
    if not world.graph.has_edge(change.a, change.b) or world.graph[change.a][change.b]["inside"]:
        return f"there is no outdoor walkway {change.a}-{change.b}"
    return None


def _overlay_route(world: WorldIndex, part: GeographyState, source: str, target: str) -> tuple[list[str], int]:
    """The fastest route with closed walkways left out and congested ones slower (no constraints)."""

    def weight(a: str, b: str, data: Edge) -> float | None:
        state = walkway_now(part, a, b)
        if state == "closed":
            return None
        return data["minutes"] * (CONGESTION if state == "congested" else 1)

    path = fastest_path(world.graph, source, target, weight)
    if path is None:
        raise RouteError(f"every route from {source} to {target} uses a closed walkway")
    return path, overlay_minutes(world, part, path)


def overlay_minutes(world: WorldIndex, part: GeographyState, path: list[str]) -> int:
    total = 0
    for a, b in zip(path, path[1:]):
        data = world.graph.edge(a, b)
        if data is None:
            raise RouteError(f"there is no walkway from {a} to {b}")
        state = walkway_now(part, a, b)
        if state == "closed":
            raise RouteError(f"the walkway from {a} to {b} is closed")
        total += data["minutes"] * (CONGESTION if state == "congested" else 1)
    return total


def _new_state(world: WorldIndex) -> GeographyState:
    return GeographyState(location=world.home, trail=[world.home])


def _day_started(part: GeographyState, event: DayStarted) -> None:
    part.location = event.home
    part.trail = [event.home]


def _walked(part: GeographyState, event: Walked) -> None:
    part.location = event.path[-1]
    part.trail.extend(event.path[1:])


def locate(state: Any) -> str:
    return state.geography.location


# ------------------------------------------------------------------ map tools


def _unknown_building(world: WorldIndex, building_id: str) -> Outcome:
    return fail(f"There is no building with id '{building_id[:40]}'. Use map.find_building_id to look one up by name.")


def find_building_id(view: ToolView, args: dict[str, Any]) -> Outcome:
    world: WorldIndex = view.world
    query = args["building_name"].strip()
    found = world.names.get(query.casefold())
    if found is None:
        guesses = difflib.get_close_matches(query.casefold(), list(world.names), n=3, cutoff=0.6)
        hint = f" Did you mean: {', '.join(repr(g) for g in guesses)}?" if guesses else ""
        return fail(f"No building is named '{query[:60]}'.{hint} Names and aliases are matched exactly (case does not matter).")
    building_id, alias = found
    name = world.name_of(building_id)
    via = f" (matched alias '{alias}')" if alias else ""
    return ok(f"Found building '{name}' with ID '{building_id}'{via}.", data={"building_id": building_id, "name": name})


def get_building_details(view: ToolView, args: dict[str, Any]) -> Outcome:
    world: WorldIndex = view.world
    building = world.buildings.get(args["building_id"])
    if building is None:
        return _unknown_building(world, args["building_id"])
    lines = [
        f"{building.name} ({building.id})",
        f"Type: {building.type}",
        f"Zone: {building.zone}",
        f"Aliases: {', '.join(building.aliases) if building.aliases else 'none'}",
        "Amenities:",
    ]
    lines += [f"- {floor}: {'; '.join(rooms)}" for floor, rooms in building.amenities.items()]
    group = world.complex_of.get(building.id)
    if group is not None:
        lines.append(f"Part of {group.name} ({group.id}) with {', '.join(m for m in group.members if m != building.id)}: walking between them takes no time.")
    lines.append("Walkways from here: " + "; ".join(
        f"{world.describe(n)} {d['minutes']} min" for n, d in sorted(world.graph[building.id].items())
    ))
    return ok("\n".join(lines), data={"building": msgspec.to_builtins(building)})


def find_room_location(view: ToolView, args: dict[str, Any]) -> Outcome:
    world: WorldIndex = view.world
    query = args["room_query"].strip().casefold()
    if not query:
        return fail("room_query is empty; give part of a room's name, such as 'Seminar Room' or '101'.")
    building_id, zone = args.get("building_id"), args.get("zone")
    if building_id is not None and building_id not in world.buildings:
        return _unknown_building(world, building_id)
    if zone is not None and zone not in world.zones:
        return fail(f"There is no zone '{zone[:40]}'. Zones: {', '.join(world.zones)}.")
    hits = [
        (room, floor, b)
        for b in world.world.buildings
        if (building_id is None or b.id == building_id) and (zone is None or b.zone == zone)
        for floor, rooms in b.amenities.items()
        for room in rooms
        if query in room.casefold()
    ]
    if not hits:
        return fail(f"No room matching '{args['room_query'][:60]}' was found. Try a shorter part of the name.")
    lines = [f"Found {len(hits)} room(s) matching '{args['room_query'][:60]}':"]
    lines += [f"- {room} on {floor} of {b.name} ({b.id})" for room, floor, b in hits[:MAX_LISTED]]
    if len(hits) > MAX_LISTED:
        lines.append(f"... and {len(hits) - MAX_LISTED} more; narrow the search with building_id or zone.")
    data = {"rooms": [{"room": r, "floor": f, "building_id": b.id} for r, f, b in hits[:MAX_LISTED]]}
    return ok("\n".join(lines), data=data)


def query_buildings_by_property(view: ToolView, args: dict[str, Any]) -> Outcome:
    world: WorldIndex = view.world
    zone, kind, amenity = args.get("zone"), args.get("building_type"), args.get("amenity")
    if zone is None and kind is None and amenity is None:
        return fail("Give at least one filter: zone, building_type or amenity. map.list_valid_query_properties lists the values.")
    if zone is not None and zone not in world.zones:
        return fail(f"There is no zone '{zone[:40]}'. Zones: {', '.join(world.zones)}.")
    if kind is not None and kind not in world.types:
        return fail(f"There is no building type '{kind[:40]}'. Types: {', '.join(world.types)}.")
    needle = amenity.casefold() if amenity is not None else None
    found = [
        b for b in world.world.buildings
        if (zone is None or b.zone == zone)
        and (kind is None or b.type == kind)
        and (needle is None or any(needle in room.casefold() for rooms in b.amenities.values() for room in rooms))
    ]
    if not found:
        return fail("No building matches those filters.")
    lines = [f"Found {len(found)} building(s):"]
    lines += [f"- {b.name} ({b.id}): {b.type}, {b.zone}" for b in found[:MAX_LISTED]]
    if len(found) > MAX_LISTED:
        lines.append(f"... and {len(found) - MAX_LISTED} more; add a filter to narrow the list.")
    return ok("\n".join(lines), data={"building_ids": [b.id for b in found]})


def find_optimal_path(view: ToolView, args: dict[str, Any]) -> Outcome:
    world: WorldIndex = view.world
    source, target = args["source_building_id"], args["target_building_id"]
    for building_id in (source, target):
        if building_id not in world.buildings:
            return _unknown_building(world, building_id)
    part: GeographyState = view.state.geography
    if part.walkways and not args.get("constraints"):
        try:
            path, minutes = _overlay_route(world, part, source, target)
        except RouteError as error:
            return fail(f"No path: {error}.")
        changed = [f"{a}-{b} {walkway_now(part, a, b)}" for a, b in zip(path, path[1:]) if walkway_now(part, a, b) != "open"]
        note = f" Congested on the way: {', '.join(changed)}." if changed else ""
        path_literal = "[" + ", ".join(f'"{b}"' for b in path) + "]"
        message = (
            f"Optimal path ({minutes} min, {len(path) - 1} walkway(s)): {' -> '.join(world.describe(b) for b in path)}.{note}\n"
            f'Walk it with geography.walk_to(path_info={{"path": {path_literal}}}).'
        )
        return ok(message, data={"path": path, "path_names": [world.name_of(b) for b in path], "minutes": minutes})
    try:
        constraints = check_constraints(args.get("constraints"))
        route = world.route(source, target, constraints)
    except RouteError as error:
        return fail(f"No path: {error}.")
    stops = " -> ".join(world.describe(b) for b in route.path)
    misses = sum(
        1 for a, b in zip(route.path, route.path[1:])
        if not world.graph[a][b]["inside"] and unmet(world.graph[a][b]["properties"], constraints)
    ) if constraints else 0  # no constraint is unmet
    note = f" {misses} of its walkways do not meet every constraint (no better route exists)." if misses else ""
    path_literal = "[" + ", ".join(f'"{b}"' for b in route.path) + "]"
    message = (
        f"Optimal path ({route.minutes} min, {len(route.path) - 1} walkway(s)): {stops}.{note}\n"
        f'Walk it with geography.walk_to(path_info={{"path": {path_literal}}}).'
    )
    data = {"path": route.path, "path_names": [world.name_of(b) for b in route.path], "minutes": route.minutes}
    return ok(message, data=data)


def get_building_complex_info(view: ToolView, args: dict[str, Any]) -> Outcome:
    world: WorldIndex = view.world
    building_id = args["building_id"]
    if building_id not in world.buildings:
        return _unknown_building(world, building_id)
    group = world.complex_of.get(building_id)
    if group is None:
        return ok(f"{world.describe(building_id)} is not part of a building complex.", data={"complex": None})
    members = ", ".join(world.describe(m) for m in group.members)
    return ok(
        f"{world.describe(building_id)} is part of {group.name} ({group.id}): {members}. {group.description}".strip(),
        data={"complex": group.id, "members": list(group.members)},
    )


def list_valid_query_properties(view: ToolView, args: dict[str, Any]) -> Outcome:
    world: WorldIndex = view.world
    lines = [f"Zones: {', '.join(world.zones)}.", f"Building types: {', '.join(world.types)}.", "Path constraints for map.find_optimal_path:"]
    lines += [f"- {key}: {', '.join(values)}" for key, values in PATH_PROPERTIES.items()]
    data = {"zones": world.zones, "building_types": world.types, "constraints": {k: list(v) for k, v in PATH_PROPERTIES.items()}}
    return ok("\n".join(lines), data=data)


# ------------------------------------------------------------------ geography tools


def get_current_location(view: ToolView, args: dict[str, Any]) -> Outcome:
    world: WorldIndex = view.world
    here = view.state.geography.location
    return ok(f"You are at {world.describe(here)}.", data={"building_id": here, "name": world.name_of(here)})


def walk_to(view: ToolView, args: dict[str, Any]) -> Outcome:
    world: WorldIndex = view.world
    here = view.state.geography.location
    usage = 'Pass path_info={"path": [...]} with building ids from map.find_optimal_path, starting where you are'
    path = args["path_info"].get("path")
    if not isinstance(path, list) or not all(isinstance(b, str) for b in path):
        return fail(f"path_info needs a 'path' list of building ids. {usage} ({here}).")
    if len(path) < 2:
        return fail(f"A path needs at least two buildings: where you are ({here}) and where you go. {usage}.")
    unknown = next((b for b in path if b not in world.buildings), None)
    if unknown is not None:
        return _unknown_building(world, unknown)
    if path[0] != here:
        return fail(f"The path starts at {path[0]} but you are at {world.describe(here)}. {usage}.")
    try:
        part: GeographyState = view.state.geography
        minutes = overlay_minutes(world, part, path) if part.walkways else walk_minutes(world.graph, path)
    except RouteError as error:
        raise Refuse(f"You cannot walk that path: {error}. {usage}.") from None
    arrive = view.now + minutes
    fact = Walked(path=list(path), depart=view.now, arrive=arrive)
    message = (
        f"You walked {' -> '.join(world.describe(b) for b in path)} in {minutes} min. "
        f"You are now at {world.describe(path[-1])}. It is {label(arrive)}."
    )
    return ok(message, facts=[fact], data={"location": path[-1], "minutes": minutes}, minutes=minutes)


# ------------------------------------------------------------------ declarations

_BUILDING_ID = Param(name="building_id", type="string", description="A building id such as 'B001'.")

MAP_TOOLS: tuple[ToolDecl, ...] = (
    ToolDecl(
        name="map.find_building_id", system="map", handler=find_building_id,
        description="Look up a building's id by its exact name or one of its aliases (case does not matter).",
        params=(Param(name="building_name", type="string", description="The building's name or alias."),),
        example='map.find_building_id(building_name="Lakeside Dormitory")',
    ),
    ToolDecl(
        name="map.get_building_details", system="map", handler=get_building_details,
        description="Show a building's name, type, zone, aliases, rooms per floor, complex and the walkways leaving it.",
        params=(_BUILDING_ID,), example='map.get_building_details(building_id="B001")',
    ),
    ToolDecl(
        name="map.find_room_location", system="map", handler=find_room_location,
        description="Find rooms whose name contains the query, optionally within one building or zone.",
        params=(
            Param(name="room_query", type="string", description="Part of a room's name or number, e.g. 'Seminar Room 101'."),
            Param(name="building_id", type="string", description="Only search this building.", required=False),
            Param(name="zone", type="string", description="Only search this zone.", required=False),
        ),
        example='map.find_room_location(room_query="Seminar Room")',
    ),
    ToolDecl(
        name="map.query_buildings_by_property", system="map", handler=query_buildings_by_property,
        description="List buildings by zone, building type and/or a room or amenity they contain. Give at least one filter.",
        params=(
            Param(name="zone", type="string", description="A zone name (see map.list_valid_query_properties).", required=False),
            Param(name="building_type", type="string", description="A building type, e.g. 'Academic'.", required=False),
            Param(name="amenity", type="string", description="Part of a room or amenity name, e.g. 'Cafe'.", required=False),
        ),
        example='map.query_buildings_by_property(building_type="Academic")',
    ),
    ToolDecl(
        name="map.find_optimal_path", system="map", handler=find_optimal_path,
        description=(
            "Plan the best walking route between two buildings, returned as building ids and names with its minutes. "
            "Constraints are preferences on walkway properties; each walkway that misses one counts as half again as long."
        ),
        params=(
            Param(name="source_building_id", type="string", description="Where the route starts, e.g. 'B083'."),
            Param(name="target_building_id", type="string", description="Where the route ends."),
            Param(
                name="constraints", type="object", required=False,
                description="Walkway preferences, e.g. {\"rain_exposure\": \"Covered\", \"congestion\": \"Low\"}. Keys: "
                + ", ".join(PATH_PROPERTIES) + ".",
            ),
        ),
        example='map.find_optimal_path(source_building_id="B083", target_building_id="B001", constraints={"rain_exposure": "Covered"})',
    ),
    ToolDecl(
        name="map.get_building_complex_info", system="map", handler=get_building_complex_info,
        description="Tell whether a building belongs to a complex of connected buildings, and which.",
        params=(_BUILDING_ID,), example='map.get_building_complex_info(building_id="B001")',
    ),
    ToolDecl(
        name="map.list_valid_query_properties", system="map", handler=list_valid_query_properties,
        description="List the zones, building types and route constraints (with their values) the map tools accept.",
        params=(), example="map.list_valid_query_properties()",
    ),
)

GEOGRAPHY_TOOLS: tuple[ToolDecl, ...] = (
    ToolDecl(
        name="geography.get_current_location", system="geography", handler=get_current_location,
        description="Tell which building you are in.", params=(), example="geography.get_current_location()",
    ),
    ToolDecl(
        name="geography.walk_to", system="geography", handler=walk_to, mutates=True,
        description=(
            "Walk along a path of adjacent buildings, starting where you are. Use the path from map.find_optimal_path. "
            "Walking takes the minutes of every walkway on the path."
        ),
        params=(Param(name="path_info", type="object", description='An object with a "path" list of building ids, e.g. {"path": ["B083", "B142", "B001"]}.'),),
        example='geography.walk_to(path_info={"path": ["B083", "B142", "B001"]})',
    ),
)

GEOGRAPHY = Domain(
    name="geography",
    state_type=GeographyState,
    initial=_new_state,
    reducers={DayStarted: _day_started, Walked: _walked, WorldChanged: _world_changed},
    tools=MAP_TOOLS + GEOGRAPHY_TOOLS,
    guards={WalkwayStatus: walkway_holds},
    changes={WalkwayStatus: walkway_problem},
)

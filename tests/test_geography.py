"""Map and geography tools, and the route finder, on generated and published campuses."""

from __future__ import annotations

import types

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.kernel.engine import ToolView
from campus.kernel.tools import bind_arguments
from campus.subsystems.geography import GEOGRAPHY, GEOGRAPHY_TOOLS, MAP_TOOLS
from tests.conftest import SHARED
from campus.world.graph import Walkways
from campus.world.index import WorldIndex
from campus.world.routes import RouteError, Search, check_constraints, edge_cost, edge_costs, find_route, settle
from campus.world.stulife import load_map

TOOLS = {t.name: t for t in MAP_TOOLS + GEOGRAPHY_TOOLS}
STULIFE = SHARED / "stulife"


def as_networkx(graph: Walkways) -> nx.Graph:
    """The walkways as a networkx graph, for networkx's searches to check the kernel's against."""
    return nx.Graph(graph.adj)


def call(world: WorldIndex, name: str, location: str | None = None, now: int = 600, **args):
    part = GEOGRAPHY.initial(world)
    if location is not None:
        part.location = location
    state = types.SimpleNamespace(geography=part)
    bound = bind_arguments(TOOLS[name], args)
    assert not isinstance(bound, str), bound
    return TOOLS[name].call(ToolView(world=world, state=state, task_id="t", now=now, seed=0), bound)


def test_find_building_by_name_and_alias(world) -> None:
    building = world.world.buildings[5]
    found = call(world, "map.find_building_id", building_name=building.name.upper())
    assert found.result.ok and found.result.data["building_id"] == building.id
    with_alias = next(b for b in world.world.buildings if b.aliases)
    found = call(world, "map.find_building_id", building_name=with_alias.aliases[0])
    assert found.result.data["building_id"] == with_alias.id and "matched alias" in found.result.message
    missing = call(world, "map.find_building_id", building_name=building.name[:-1])
    assert not missing.result.ok and "Did you mean" in missing.result.message


def test_building_details_show_walkways_and_complex(world) -> None:
    member = world.world.complexes[0].members[0]
    shown = call(world, "map.get_building_details", building_id=member)
    assert shown.result.ok and "walking between them takes no time" in shown.result.message
    assert "Walkways from here:" in shown.result.message
    assert not call(world, "map.get_building_details", building_id="B999").result.ok


def test_room_search_and_property_query(world) -> None:
    rooms = call(world, "map.find_room_location", room_query="study")
    assert rooms.result.ok and all("study" in r["room"].lower() for r in rooms.result.data["rooms"])
    zone = world.zones[0]
    in_zone = call(world, "map.find_room_location", room_query="a", zone=zone)
    assert all(world.buildings[r["building_id"]].zone == zone for r in in_zone.result.data["rooms"])
    assert not call(world, "map.find_room_location", room_query="zzzz-no-room").result.ok
    assert not call(world, "map.find_room_location", room_query="a", zone="Atlantis").result.ok
    academic = call(world, "map.query_buildings_by_property", building_type="Academic")
    assert academic.result.ok and all(world.buildings[b].type == "Academic" for b in academic.result.data["building_ids"])
    assert "at least one filter" in call(world, "map.query_buildings_by_property").result.message


def test_path_results_show_ids_and_can_be_walked(world) -> None:
    source, target = world.home, world.world.buildings[-1].id
    planned = call(world, "map.find_optimal_path", source_building_id=source, target_building_id=target)
    assert planned.result.ok
    path = planned.result.data["path"]
    assert all(b in planned.result.message for b in path) and "geography.walk_to" in planned.result.message
    walked = call(world, "geography.walk_to", location=source, path_info={"path": path})
    assert walked.result.ok and walked.facts[0].path == path
    assert walked.minutes == planned.result.data["minutes"] == walked.facts[0].arrive - walked.facts[0].depart


def test_walk_follows_only_real_walkways_from_here(world) -> None:
    home = world.home
    neighbour = sorted(world.graph[home])[0]
    far = next(b for b in sorted(world.buildings) if b != home and not world.graph.has_edge(home, b))
    assert "no walkway" in call(world, "geography.walk_to", location=home, path_info={"path": [home, far]}).result.message
    assert "but you are at" in call(world, "geography.walk_to", location=home, path_info={"path": [neighbour, home]}).result.message
    assert not call(world, "geography.walk_to", location=home, path_info={"path": [home]}).result.ok
    assert not call(world, "geography.walk_to", location=home, path_info={"route": [home, neighbour]}).result.ok
    assert not call(world, "geography.walk_to", location=home, path_info={"path": [home, "B999"]}).result.ok
    assert call(world, "geography.walk_to", location=home, path_info={"path": [home, neighbour]}).result.ok


def test_constraints_are_validated(world) -> None:
    bad = call(world, "map.find_optimal_path", source_building_id=world.home, target_building_id="B001", constraints={"avoid": "crowds"})
    assert not bad.result.ok and "rain_exposure" in bad.result.message
    with pytest.raises(RouteError):
        check_constraints({"congestion": "None"})


def test_route_cost_is_optimal_against_networkx(world) -> None:
    constraints = {"rain_exposure": "Covered", "congestion": "Low"}

    def weight(a, b, data):
        from campus.world.routes import edge_cost

        return edge_cost(data, constraints)

    nodes = sorted(world.buildings)
    for source in nodes[::17]:
        for target in nodes[::23]:
            if source != target:
                route = find_route(world.graph, source, target, constraints)
                assert route.cost == nx.dijkstra_path_length(as_networkx(world.graph), source, target, weight=weight)


def test_routes_are_deterministic_and_multi_leg(world) -> None:
    stops = [world.home, "B010", "B100"]
    first = world.route_through(stops, {"accessibility": "Wheelchair"})
    again = WorldIndex(world.world).route_through(stops, {"accessibility": "Wheelchair"})
    assert first == again and first.path[0] == world.home and "B010" in first.path and first.path[-1] == "B100"
    legs = [find_route(world.graph, a, b, {"accessibility": "Wheelchair"}) for a, b in zip(stops, stops[1:])]
    assert first.path == legs[0].path + legs[1].path[1:] and first.cost == legs[0].cost + legs[1].cost


def test_the_route_cache_agrees_with_uncached_searches(world) -> None:
    nodes = sorted(world.buildings)
    for constraints in ({}, {"rain_exposure": "Covered"}):
        for source in nodes[::29]:
            for target in nodes[::11]:
                if source != target:
                    assert world.route(source, target, constraints) == find_route(world.graph, source, target, constraints)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), covered=st.booleans())
def test_best_paths_are_networkx_all_shortest_paths(world, data, covered) -> None:
    constraints = {"rain_exposure": "Covered"} if covered else {}
    nodes = sorted(world.buildings)
    source, target = data.draw(st.sampled_from(nodes)), data.draw(st.sampled_from(nodes))
    expected = sorted(nx.all_shortest_paths(as_networkx(world.graph), source, target, weight=lambda a, b, d: edge_cost(d, constraints)))
    assert world.best_paths(source, target, constraints) == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), covered=st.booleans())
def test_a_search_taken_further_settles_as_a_fresh_one(world, data, covered) -> None:
    """``Search.until`` goes on from the building it stopped at: each call's nodes, in order, are a fresh
    ``settle`` to that target (or all of them with None), so the memoised routes are the uncached ones."""
    nodes = sorted(world.buildings)
    adjacency = edge_costs(world.graph, {"rain_exposure": "Covered"} if covered else {})
    source = data.draw(st.sampled_from(nodes))
    search = Search(world.graph, source, adjacency)
    for target in data.draw(st.lists(st.one_of(st.none(), st.sampled_from(nodes)), min_size=1, max_size=6)):
        fresh = settle(world.graph, source, adjacency, until=target)
        got = list(search.until(target).items())
        assert got[:len(fresh)] == list(fresh.items())
        assert target is None or target in dict(got)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(TOOLS)), args=st.dictionaries(
    st.sampled_from(["building_name", "building_id", "room_query", "zone", "building_type", "amenity",
                     "source_building_id", "target_building_id", "constraints", "path_info", "junk"]),
    st.one_of(st.text(max_size=30), st.integers(), st.none(), st.lists(st.text(max_size=5), max_size=4),
              st.dictionaries(st.sampled_from(["path", "rain_exposure", "x"]), st.one_of(st.text(max_size=6), st.lists(st.sampled_from(["B001", "B002", "B083"]), max_size=4)), max_size=2)),
    max_size=4,
))
def test_no_input_crashes_a_tool_and_failures_change_nothing(world, name, args) -> None:
    bound = bind_arguments(TOOLS[name], args)
    if isinstance(bound, str):
        return
    part = GEOGRAPHY.initial(world)
    outcome = TOOLS[name].call(ToolView(world=world, state=types.SimpleNamespace(geography=part), task_id="t", now=0, seed=0), bound)
    assert outcome.result.message.isascii()
    if not outcome.result.ok:
        assert outcome.facts == ()


# ------------------------------------------------------------------ the published StuLife map


@pytest.fixture(scope="module")
def stulife() -> WorldIndex:
    if not (STULIFE / "map_v1.5.json").exists():
        pytest.skip(f"the StuLife data is not at {STULIFE}")
    world, report = load_map(STULIFE)
    assert report == []
    return WorldIndex(world)


def reference_cost(graph: nx.Graph, source: str, target: str, constraints: dict[str, str]) -> float:
    """The published benchmark's penalised cost in minutes, computed independently with networkx."""

    def weight(a: str, b: str, data: dict) -> float:
        base = data["minutes"] if data["minutes"] > 0 else 0.01
        if data["inside"]:
            return base
        misses = 0
        for key, wanted in constraints.items():
            value = data["properties"].get(key)
            if value is None or (key == "rain_exposure" and wanted == "Covered" and "Exposed" in value) or (key != "rain_exposure" and value != wanted):
                misses += 1
        return base * (1 + 0.5 * misses)

    return nx.dijkstra_path_length(graph, source, target, weight=weight)


def test_stulife_map_shape(stulife: WorldIndex) -> None:
    assert len(stulife.buildings) == 155 and len(stulife.world.paths) == 155 and len(stulife.world.complexes) == 5
    assert nx.is_connected(as_networkx(stulife.graph))
    assert stulife.route("B083", "B001").path == ["B083", "B142", "B001"]


@pytest.mark.parametrize("constraints", [{}, {"rain_exposure": "Covered"}, {"accessibility": "Wheelchair"}, {"congestion": "Low", "illumination": "Good"}])
def test_routes_on_the_stulife_map_agree_with_the_published_cost(stulife: WorldIndex, constraints) -> None:
    nodes = sorted(stulife.buildings)
    checked = 0
    for source in nodes[::9]:
        for target in nodes[::7]:
            if source == target:
                continue
            route = stulife.route(source, target, constraints)
            assert route.cost / 200 == pytest.approx(reference_cost(as_networkx(stulife.graph), source, target, constraints), abs=0.05)
            checked += 1
    assert checked > 250


@given(properties=st.dictionaries(st.sampled_from(["rain_exposure", "surface", "lighting", "x"]), st.text(max_size=12)))
def test_no_walkway_misses_no_constraint(properties: dict[str, str]) -> None:
    """What lets ``find_optimal_path`` skip counting misses when no constraint is given: none is ever unmet."""
    from campus.world.routes import unmet

    assert unmet(properties, {}) == 0
    assert unmet(properties, {"surface": "Paved"}) == (properties.get("surface") != "Paved")

"""The campus generator: determinism, shape, uniqueness and walkway invariants."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections import Counter

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.world.generate import ZONES, generate_world
from campus.world.model import BUILDING_TYPES, PATH_PROPERTIES, World, decode_world

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZONE_SIZES = {
    "Founders Quad": 30,
    "Science Ridge": 25,
    "North Residential Village": 25,
    "South Residential Village": 25,
    "Arts Quarter": 20,
    "Athletics Park": 15,
    "Campus Center & Administration": 15,
}
TYPE_COUNTS = {
    "Academic": 54,
    "Residential": 32,
    "Service": 30,
    "Outdoor": 16,
    "Recreation": 12,
    "Administrative": 11,
}
FLOOR_KEYS = {"basement", "floor_1", "floor_2", "floor_3", "floor_4", "all_floors"}


@pytest.fixture(scope="module")
def world() -> World:
    return generate_world(0)


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def campus_graph(world: World) -> nx.Graph:
    graph = nx.Graph()
    graph.add_nodes_from(b.id for b in world.buildings)
    for path in world.paths:
        graph.add_edge(path.source, path.target, minutes=path.minutes)
    for group in world.complexes:
        for i, a in enumerate(group.members):
            for b in group.members[i + 1 :]:
                if not graph.has_edge(a, b):
                    graph.add_edge(a, b, minutes=0)
    return graph


def degrees(world: World) -> Counter[str]:
    counts: Counter[str] = Counter()
    for path in world.paths:
        counts[path.source] += 1
        counts[path.target] += 1
    return counts


def center_hub(world: World) -> str:
    (hub,) = [b.id for b in world.buildings if b.name.endswith("Welcome Center")]
    return hub


def assert_valid(world: World) -> None:
    """Every structural invariant the generator promises, at any seed and scale."""
    ids = [b.id for b in world.buildings]
    by_id = {b.id: b for b in world.buildings}
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    width = max(3, len(str(len(ids))))
    assert ids == [f"B{i:0{width}d}" for i in range(1, len(ids) + 1)]
    assert {b.zone for b in world.buildings} == set(ZONE_SIZES)
    assert all(b.type in BUILDING_TYPES for b in world.buildings)

    # names and aliases: one case-insensitive namespace, ASCII
    labels = [b.name for b in world.buildings] + [a for b in world.buildings for a in b.aliases]
    lowered = [label.lower() for label in labels]
    assert len(set(lowered)) == len(lowered), Counter(lowered).most_common(3)
    assert all(label.isascii() and label.strip() == label and label for label in labels)
    assert all(len(b.aliases) <= 3 for b in world.buildings)

    # amenities
    for b in world.buildings:
        assert 1 <= len(b.amenities) <= 4, b
        assert set(b.amenities) <= FLOOR_KEYS, b
        for items in b.amenities.values():
            assert 1 <= len(items) <= 4, b
            assert len(set(items)) == len(items), b
            assert all(item.isascii() and item for item in items), b

    # home
    home = by_id[world.home]
    assert home.type == "Residential" and home.name == "Lakeside Dormitory"

    # walkways
    pairs = set()
    for path in world.paths:
        assert path.source in by_id and path.target in by_id
        assert path.source != path.target
        pair = frozenset((path.source, path.target))
        assert pair not in pairs, path
        pairs.add(pair)
        assert 1 <= path.minutes <= 15
        same_zone = by_id[path.source].zone == by_id[path.target].zone
        assert path.minutes <= 6 if same_zone else path.minutes >= 3, path
        assert set(path.properties) == set(PATH_PROPERTIES)
        for key, value in path.properties.items():
            assert value in PATH_PROPERTIES[key], (key, value)
        if path.properties["path_type"] == "Indoor":
            assert path.properties["rain_exposure"] == "Covered"
    assert nx.is_connected(campus_graph(world))

    # complexes
    complex_ids = [c.id for c in world.complexes]
    assert complex_ids == [f"C{i:02d}" for i in range(1, len(complex_ids) + 1)]
    seen: set[str] = set()
    for group in world.complexes:
        assert 3 <= len(group.members) <= 4
        assert len({by_id[m].zone for m in group.members}) == 1
        assert world.home not in group.members
        assert not seen & set(group.members)
        seen |= set(group.members)
        assert group.name and group.description.endswith(".") and group.description.count(".") == 1

    # the welcome center is the busiest building
    hub = center_hub(world)
    counts = degrees(world)
    assert by_id[hub].type in ("Administrative", "Service")
    assert all(counts[hub] > n for b, n in counts.items() if b != hub)


# --------------------------------------------------------------------------------------
# determinism
# --------------------------------------------------------------------------------------


def test_same_seed_gives_identical_bytes_and_hash() -> None:
    first, second = generate_world(7), generate_world(7)
    assert first.encoded == second.encoded
    assert first.hash == second.hash
    assert first == second


def test_hash_is_the_same_in_separate_processes() -> None:
    code = "from campus.world.generate import generate_world; print(generate_world(7).hash)"
    hashes = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        result = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        hashes.append(result.stdout.strip())
    assert hashes[0] == hashes[1] == generate_world(7).hash
    assert len(hashes[0]) == 64


def test_different_seeds_give_different_worlds() -> None:
    hashes = {generate_world(seed).hash for seed in range(8)}
    assert len(hashes) == 8


def test_scale_is_part_of_the_identity() -> None:
    assert generate_world(3, 1).encoded == generate_world(3, 1.0).encoded
    assert generate_world(3, 1.0).hash != generate_world(3, 1.5).hash


def test_world_metadata_and_round_trip(world: World) -> None:
    assert world.name == "generated-0" and world.seed == 0
    scaled = generate_world(7, 2)
    assert scaled.name == "generated-7-x2.0" and scaled.seed == 7
    assert decode_world(world.encoded) == world
    assert decode_world(world.encoded).hash == world.hash


# --------------------------------------------------------------------------------------
# counts and scale
# --------------------------------------------------------------------------------------


def test_default_counts(world: World) -> None:
    assert len(world.buildings) == 155
    assert Counter(b.zone for b in world.buildings) == ZONE_SIZES
    assert Counter(b.type for b in world.buildings) == TYPE_COUNTS
    assert [z.name for z in ZONES] == list(ZONE_SIZES)
    assert len(world.complexes) == 5


def test_double_scale(world: World) -> None:
    big = generate_world(0, 2.0)
    assert len(big.buildings) == 310
    assert Counter(b.zone for b in big.buildings) == {z: 2 * n for z, n in ZONE_SIZES.items()}
    assert Counter(b.type for b in big.buildings) == {t: 2 * n for t, n in TYPE_COUNTS.items()}
    assert len(big.complexes) == 10
    assert len(big.paths) > 1.8 * len(world.paths)
    assert_valid(big)


@pytest.mark.parametrize("scale", [0, -1, -0.5, math.nan, math.inf, 100.5, 1e6])
def test_a_scale_out_of_range_is_rejected(scale: float) -> None:
    with pytest.raises(ValueError, match="above 0 and at most 100"):
        generate_world(0, scale)


@pytest.mark.parametrize("scale", [0.01, 0.1, 0.3, 0.5, 1.3])
def test_other_scales_stay_valid(scale: float) -> None:
    small = generate_world(5, scale)
    sizes = Counter(b.zone for b in small.buildings)
    assert all(sizes[zone] >= 1 for zone in ZONE_SIZES)
    for zone, base in ZONE_SIZES.items():
        assert sizes[zone] == max(1, math.floor(base * scale + 0.5))
    assert_valid(small)
    if scale >= 0.1:
        assert len(small.complexes) >= 1


def test_wide_ids_at_large_scale() -> None:
    large = generate_world(1, 7)
    assert len(large.buildings) == 1085
    assert large.buildings[0].id == "B0001" and large.buildings[-1].id == "B1085"
    assert_valid(large)


# --------------------------------------------------------------------------------------
# structure of the default world
# --------------------------------------------------------------------------------------


def test_default_world_is_valid(world: World) -> None:
    assert_valid(world)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=-(2**40), max_value=2**40))
def test_any_seed_is_valid(seed: int) -> None:
    world = generate_world(seed)
    assert_valid(world)
    assert degrees(world)[center_hub(world)] >= 15
    assert sum("Library" in b.name for b in world.buildings) >= 10


def test_exactly_one_home(world: World) -> None:
    assert [b.id for b in world.buildings if b.name == "Lakeside Dormitory"] == [world.home]
    assert sum("lakeside" in b.name.lower() for b in world.buildings) == 1


def test_central_hub_has_highest_degree(world: World) -> None:
    hub = center_hub(world)
    counts = degrees(world)
    assert counts[hub] >= 15
    assert counts[hub] == max(counts.values())
    assert sorted(counts.values())[-2] < counts[hub]
    # it reaches every other zone directly
    by_id = {b.id: b for b in world.buildings}
    spokes = [p for p in world.paths if hub in (p.source, p.target)]
    reached = {by_id[p.target if p.source == hub else p.source].zone for p in spokes}
    assert reached == set(ZONE_SIZES)


def test_extra_walkways_create_cycles(world: World) -> None:
    n = len(world.buildings)
    cycles = len(world.paths) - (n - 1)
    assert 0.10 * n <= cycles <= 0.20 * n


def test_libraries_have_study_areas(world: World) -> None:
    libraries = [b for b in world.buildings if "Library" in b.name]
    assert len(libraries) >= 10
    assert all(b.type == "Academic" for b in libraries)
    for library in libraries:
        items = [item for floor in library.amenities.values() for item in floor]
        assert any("Study" in item for item in items), library
        assert "Main Lobby & Circulation Desk" in library.amenities["floor_1"]


def amenity_text(building) -> str:  # noqa: ANN001
    return " | ".join(item for floor in building.amenities.values() for item in floor)


#: Amenities that would be out of place in a building of the type.
FOREIGN = {
    "Academic": ("Laundry", "Student Rooms", "Weight Room", "Lap Pool", "Soccer Field"),
    "Residential": ("Lecture Hall", "Seminar Room", "Lap Pool", "Soccer Field", "Pharmacy"),
    "Service": ("Seminar Room", "Student Rooms", "Lap Pool", "Soccer Field", "Registrar"),
    "Outdoor": ("Seminar Room", "Student Rooms", "Lobby", "Office", "Lap Pool"),
    "Recreation": ("Seminar Room", "Student Rooms", "Registrar", "Pharmacy"),
    "Administrative": ("Student Rooms", "Lap Pool", "Weight Room", "Laundry", "Seminar Room"),
}
#: Amenities the campus must offer somewhere, by building type.
EXPECTED = {
    "Academic": ("Seminar Room", "Lecture Hall", "Lab"),
    "Residential": ("Laundry", "Lounge"),
    "Service": ("Cafe", "Clinic", "Print Shop"),
    "Outdoor": ("Field", "Garden", "Plaza"),
    "Recreation": ("Pool", "Weight Room"),
    "Administrative": ("Office",),
}


def test_amenities_fit_building_types() -> None:
    worlds = [generate_world(seed) for seed in range(3)]
    for world in worlds:
        for b in world.buildings:
            text = amenity_text(b)
            assert not [w for w in FOREIGN[b.type] if w in text], (b.type, b.name, text)
            if b.type == "Outdoor":
                assert set(b.amenities) == {"floor_1"} and not any(c.isdigit() for c in text), b
            if b.type == "Residential":
                assert b.amenities["floor_1"][0] == "Main Lobby & Front Desk", b
    buildings = [b for w in worlds for b in w.buildings]
    texts = {t: [amenity_text(b) for b in buildings if b.type == t] for t in EXPECTED}
    for building_type, words in EXPECTED.items():
        for word in words:
            assert any(word in text for text in texts[building_type]), (building_type, word)


def test_room_numbers_sit_on_their_floor(world: World) -> None:
    """"Seminar Room 204" is on floor_2, "(101-120)" on floor_1, "B03" in the basement."""
    numbered = 0
    for b in world.buildings:
        for key, items in b.amenities.items():
            level = {"basement": "B"}.get(key, key.removeprefix("floor_"))
            for item in items:
                for word in item.replace("(", " ").replace(")", " ").replace("-", " ").split():
                    if len(word) == 3 and (word[0] == "B" or word.isdigit()) and word[1:].isdigit():
                        numbered += 1
                        assert key != "all_floors" and word.startswith(level), (b.id, key, item)
    assert numbered > 200


def test_property_distribution_is_close_to_the_published_map() -> None:
    paths = [p for seed in range(10) for p in generate_world(seed).paths]
    counts = {key: Counter(p.properties[key] for p in paths) for key in PATH_PROPERTIES}
    for key, values in PATH_PROPERTIES.items():
        assert set(counts[key]) == set(values), key  # every value occurs
    total = len(paths)
    assert 0.03 < counts["path_type"]["Indoor"] / total < 0.15
    assert 0.01 < counts["illumination"]["Poor"] / total < 0.08
    assert 0.30 < counts["rain_exposure"]["Covered"] / total < 0.60
    assert counts["accessibility"].most_common(1)[0][0] == "Standard"
    assert counts["congestion"].most_common(1)[0][0] == "Low"

    def poor_share(covered: bool) -> float:
        group = [p for p in paths if (p.properties["rain_exposure"] == "Covered") == covered]
        return sum(p.properties["illumination"] == "Poor" for p in group) / len(group)

    assert poor_share(covered=True) < poor_share(covered=False)


def test_constraints_change_some_best_routes(world: World) -> None:
    hub = center_hub(world)
    full = campus_graph(world)
    calm = nx.Graph()
    calm.add_nodes_from(full.nodes)
    for path in world.paths:
        if not path.properties["congestion"].startswith("High"):
            calm.add_edge(path.source, path.target, minutes=path.minutes)
    for group in world.complexes:
        for i, a in enumerate(group.members):
            for b in group.members[i + 1 :]:
                calm.add_edge(a, b, minutes=0)
    best = nx.single_source_dijkstra_path_length(full, hub, weight="minutes")
    constrained = nx.single_source_dijkstra_path_length(calm, hub, weight="minutes")
    detours = [b for b, d in constrained.items() if d > best[b]]
    assert detours, "no route got longer when avoiding crowded walkways"


def test_complex_members_are_neighbours(world: World) -> None:
    """Complexes are grown along walkways: each member touches another member."""
    adjacency: dict[str, set[str]] = {}
    for path in world.paths:
        adjacency.setdefault(path.source, set()).add(path.target)
        adjacency.setdefault(path.target, set()).add(path.source)
    by_id = {b.id: b for b in world.buildings}
    for group in world.complexes:
        members = set(group.members)
        assert all(adjacency[m] & members for m in members), group
        assert all(by_id[m].type != "Outdoor" for m in members)
        assert all(by_id[m].name in group.description for m in members)



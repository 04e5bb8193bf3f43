"""The walkway graph and its searches against networkx, which held the graph and ran the searches before them: the
same neighbours in the same order, and the same path chosen among equally fast ones (the log holds that choice)."""

from __future__ import annotations

import random

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.world.generate import generate_world
from campus.world.graph import Edge, Walkways, distances, fastest_path
from campus.world.index import WorldIndex
from campus.world.model import World

NODES = [f"B{i:03d}" for i in range(9)]

edges = st.lists(
    st.tuples(st.sampled_from(NODES), st.sampled_from(NODES), st.integers(0, 4), st.booleans()), max_size=30,
).map(lambda drawn: [(a, b, minutes, inside) for a, b, minutes, inside in drawn if a != b])
"""Few nodes, small integer minutes: many paths tie, and a pair may be joined twice (the later data wins)."""


def both(nodes: list[str], drawn: list[tuple[str, str, int, bool]]) -> tuple[Walkways, nx.Graph]:
    ours, theirs = Walkways(nodes), nx.Graph()
    theirs.add_nodes_from(nodes)
    for a, b, minutes, inside in drawn:
        ours.add_edge(a, b, {"minutes": minutes, "properties": {}, "inside": inside})
        theirs.add_edge(a, b, minutes=minutes, properties={}, inside=inside)
    return ours, theirs


def same_shape(ours: Walkways, theirs: nx.Graph) -> bool:
    return [(n, list(nbrs.items())) for n, nbrs in ours.adj.items()] == \
        [(n, list(nbrs.items())) for n, nbrs in theirs.adj.items()]


def closing(closed: set[frozenset[str]]):
    """A weight leaving out the ``closed`` walkways and counting an inside walk as free, as the tools' weights do."""

    def weight(a: str, b: str, edge: Edge) -> float | None:
        if frozenset((a, b)) in closed:
            return None
        return 0 if edge["inside"] else edge["minutes"] * (3 if edge["minutes"] == 2 else 1)

    return weight


@settings(max_examples=400, deadline=None)
@given(drawn=edges, ends=st.tuples(st.sampled_from(NODES), st.sampled_from(NODES)),
       closed=st.sets(st.frozensets(st.sampled_from(NODES), min_size=2, max_size=2), max_size=6))
def test_fastest_path_chooses_what_networkx_chooses(drawn, ends, closed) -> None:
    ours, theirs = both(sorted(NODES[:6]), drawn)
    assert same_shape(ours, theirs)
    source, target = ends
    if source not in ours:
        with pytest.raises(ValueError, match="not on the walkways"):
            fastest_path(ours, source, target, closing(closed))
        return
    weight = closing(closed)
    try:
        expected: list[str] | None = nx.shortest_path(theirs, source, target, weight=weight)
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        expected = None
    if target not in ours:
        with pytest.raises(ValueError, match="not on the walkways"):
            fastest_path(ours, source, target, weight)
        return
    assert fastest_path(ours, source, target, weight) == expected


@settings(max_examples=200, deadline=None)
@given(drawn=edges, source=st.sampled_from(NODES[:6]),
       closed=st.sets(st.frozensets(st.sampled_from(NODES), min_size=2, max_size=2), max_size=6))
def test_distances_are_networkx_dijkstra_lengths(drawn, source, closed) -> None:
    ours, theirs = both(sorted(NODES[:6]), drawn)
    weight = closing(closed)
    assert distances(ours, source, weight) == nx.single_source_dijkstra_path_length(theirs, source, weight=weight)


def old_graph(world: World) -> nx.Graph:
    """The world's graph as ``WorldIndex`` built it with networkx."""
    graph = nx.Graph()
    graph.add_nodes_from(sorted(b.id for b in world.buildings))
    for path in world.paths:
        graph.add_edge(path.source, path.target, minutes=path.minutes, properties=path.properties, inside=False)
    for group in world.complexes:
        members = sorted(group.members)
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                if not graph.has_edge(a, b):
                    graph.add_edge(a, b, minutes=0, properties={}, inside=True)
    return graph


@pytest.mark.parametrize("seed", [0, 3])
def test_a_world_has_the_walkways_networkx_gave_it_and_the_same_detours(seed) -> None:
    world = generate_world(seed=seed)
    ours, theirs = WorldIndex(world).graph, old_graph(world)
    assert same_shape(ours, theirs)
    outdoor = sorted(frozenset((a, b)) for a, nbrs in ours.adj.items() for b, edge in nbrs.items() if not edge["inside"])
    assert outdoor
    buildings = sorted(world.buildings, key=lambda b: b.id)
    for i, closed in enumerate(outdoor[::7]):
        weight = closing({closed})
        for source, target in [(world.home, buildings[(i * 5) % len(buildings)].id), (buildings[i].id, buildings[-1 - i].id)]:
            try:
                expected: list[str] | None = nx.shortest_path(theirs, source, target, weight=weight)
            except nx.NetworkXNoPath:
                expected = None
            assert fastest_path(ours, source, target, weight) == expected


def test_walkways_answer_what_the_tools_ask() -> None:
    graph = Walkways(["a", "b"])
    graph.add_edge("a", "b", {"minutes": 3, "properties": {}, "inside": False})
    graph.add_edge("b", "c", {"minutes": 1, "properties": {}, "inside": False})
    graph.add_edge("b", "a", {"minutes": 5, "properties": {"x": "y"}, "inside": False})
    assert "c" in graph and "d" not in graph and list(graph.adj) == ["a", "b", "c"]
    assert graph.has_edge("b", "a") and not graph.has_edge("a", "c") and not graph.has_edge("d", "a")
    assert graph.edge("a", "b") is graph.edge("b", "a") and graph.edge("a", "b") == {"minutes": 5, "properties": {"x": "y"}, "inside": False}
    assert graph.edge("a", "c") is None and graph.edge("d", "a") is None
    assert list(graph["b"]) == ["a", "c"]
    assert fastest_path(graph, "a", "a", closing(set())) == ["a"]
    assert fastest_path(graph, "a", "c", closing({frozenset("bc")})) is None


def test_fastest_path_over_many_drawn_graphs() -> None:
    """Three thousand drawn graphs and ends: ties are common enough here that starting the search from the wrong end,
    or settling a tie out of order, changes some of the paths (hypothesis's few hundred examples can miss that)."""
    differ = []
    for trial in range(3000):
        draw = random.Random(trial)
        nodes = [f"B{i:03d}" for i in range(draw.randint(3, 12))]
        drawn = []
        for _ in range(draw.randint(2, 30)):
            a, b = draw.sample(nodes, 2)
            drawn.append((a, b, draw.randint(0, 3), draw.random() < 0.1))
        ours, theirs = both(nodes, drawn)
        source, target = draw.choice(nodes), draw.choice(nodes)
        weight = closing({frozenset(draw.sample(nodes, 2))})
        try:
            expected: list[str] | None = nx.shortest_path(theirs, source, target, weight=weight)
        except nx.NetworkXNoPath:
            expected = None
        if fastest_path(ours, source, target, weight) != expected:
            differ.append(trial)
    assert differ == []

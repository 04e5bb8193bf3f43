"""Route finding: the penalised Dijkstra of the StuLife benchmark, made exact and documented.

Constraints are edge-property requirements such as ``{"rain_exposure": "Covered"}``. They
are soft: every requirement an edge does not meet adds half of that edge's minutes to its
cost, the published benchmark's rule (so routes on the StuLife map agree with it in cost).
A requirement is unmet when the edge lacks the property, or — for ``rain_exposure:
Covered`` — when its value says exposed (``Exposed``, ``Exposed_Puddles``, …), or — for any
other key — when the value differs. Walking inside a building complex costs nothing and
meets every requirement.

Costs are kept as integers (hundredths of a half-minute), so no float rounding can break a
tie: an edge of ``m`` minutes with ``u`` unmet requirements costs ``100·m·(2+u)``, and a zero-
minute edge costs 1 (the benchmark's 0.01 minutes). Ties are broken, in order, by fewer
hops, fewer real minutes, then the smaller sequence of building ids — a total order, so the
same query always gives the same route.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence

import msgspec

from campus.world.graph import Edge, Walkways
from campus.world.model import PATH_PROPERTIES


class Route(msgspec.Struct, frozen=True, kw_only=True):
    path: list[str]
    minutes: int
    cost: int
    """Penalised cost in hundredths of half-minutes (see the module docstring)."""


class RouteError(ValueError):
    """A route query that cannot be answered; the message says why."""


def check_constraints(constraints: Mapping[str, object] | None) -> dict[str, str]:
    """Validate constraints against the known edge properties and values."""
    if not constraints:
        return {}
    checked: dict[str, str] = {}
    for key, value in constraints.items():
        if key not in PATH_PROPERTIES:
            raise RouteError(
                f"unknown constraint '{key}'. Valid constraints: {', '.join(PATH_PROPERTIES)} "
                "(map.list_valid_query_properties shows their values)"
            )
        allowed = PATH_PROPERTIES[key]
        if not isinstance(value, str) or value not in allowed:
            raise RouteError(f"constraint '{key}' must be one of {', '.join(allowed)}")
        checked[key] = value
    return checked


def unmet(properties: Mapping[str, str], constraints: Mapping[str, str]) -> int:
    count = 0
    for key, wanted in constraints.items():
        value = properties.get(key)
        if value is None:
            count += 1
        elif key == "rain_exposure":
            if wanted == "Covered" and "Exposed" in value:
                count += 1
        elif value != wanted:
            count += 1
    return count


def edge_cost(data: Edge, constraints: Mapping[str, str]) -> int:
    if data.get("inside"):
        return 1
    minutes = data["minutes"]
    if minutes <= 0:
        return 1
    return 100 * minutes * (2 + unmet(data["properties"], constraints))


Settled = dict[str, tuple[int, int, int, tuple[str, ...]]]
"""Building → (cost, hops, minutes, path) of its best route, for every building settled so far."""


def find_route(graph: Walkways, source: str, target: str, constraints: Mapping[str, str] | None = None) -> Route:
    """The best route from ``source`` to ``target`` under soft constraints."""
    return as_route(settle(graph, source, edge_costs(graph, constraints or {}), until=target), source, target)


Adjacency = dict[str, list[tuple[str, int, int]]]
"""Building → its walkways as (neighbour, penalised cost, minutes), for one set of constraints."""


def edge_costs(graph: Walkways, constraints: Mapping[str, str]) -> Adjacency:
    """Every walkway's penalised cost under ``constraints``, as plain adjacency lists (both directions)."""
    return {
        node: [(neighbour, edge_cost(data, constraints), data["minutes"]) for neighbour, data in edges.items()]
        for node, edges in graph.adj.items()
    }


def settle(graph: Walkways, source: str, adjacency: Adjacency, until: str | None = None) -> Settled:
    """Dijkstra from ``source``, stopping once ``until`` is settled (or when all are).

    Nodes are settled in the total order (cost, hops, minutes, path), so every node settled
    on the way has its final best route too: callers may keep the result as a cache.
    """
    return Search(graph, source, adjacency).until(until)


class Search:
    """``settle`` that can be taken further: ``until(target)`` goes on from where the last call stopped, so a
    source asked about many targets settles each building once. The entries are totally ordered (no two
    share a path), so the nodes come out in the same order as from a fresh search to the later target."""

    def __init__(self, graph: Walkways, source: str, adjacency: Adjacency) -> None:
        if source not in graph:
            raise RouteError(f"there is no building with id '{source}'")
        self.graph = graph
        self.adjacency = adjacency
        self.settled: Settled = {}
        self._heap: list[tuple[int, int, int, tuple[str, ...]]] = [(0, 0, 0, (source,))]
        self._unexpanded: tuple[int, int, int, tuple[str, ...]] | None = None
        """The entry settled last whose walkways are not yet on the heap (the search stopped at it)."""

    def until(self, target: str | None) -> Settled:
        """Settle up to ``target`` (every node with None); the nodes settled so far, with their routes."""
        if target is not None and target not in self.graph:
            raise RouteError(f"there is no building with id '{target}'")
        settled, heap, adjacency = self.settled, self._heap, self.adjacency
        if target in settled:
            return settled
        pop, push = heapq.heappop, heapq.heappush
        entry = self._unexpanded
        self._unexpanded = None
        while entry is not None or heap:
            if entry is None:
                entry = pop(heap)
                path = entry[3]
                node = path[-1]
                if node in settled:
                    entry = None
                    continue
                settled[node] = entry
                if node == target:
                    self._unexpanded = entry
                    break
            cost, hops, minutes, path = entry[0], entry[1] + 1, entry[2], entry[3]
            for neighbour, step, walk in adjacency[path[-1]]:
                if neighbour not in settled:
                    push(heap, (cost + step, hops, minutes + walk, path + (neighbour,)))
            entry = None
        return settled


def best_paths(adjacency: Adjacency, source: str, target: str) -> list[list[str]]:
    """Every least-cost path from ``source`` to ``target`` (what ``nx.all_shortest_paths`` gives with the same
    integer costs), sorted: a Dijkstra keeping every predecessor on a least-cost way, then the paths read back."""
    if source not in adjacency or target not in adjacency:
        raise RouteError(f"there is no building with id '{source if source not in adjacency else target}'")
    best = {source: 0}
    before: dict[str, list[str]] = {source: []}
    done: set[str] = set()
    heap = [(0, source)]
    while heap:
        cost, node = heapq.heappop(heap)
        if node in done:
            continue
        done.add(node)
        if node == target:
            break
        for neighbour, step, _ in adjacency[node]:
            reach = cost + step
            known = best.get(neighbour)
            if known is None or reach < known:
                best[neighbour], before[neighbour] = reach, [node]
                heapq.heappush(heap, (reach, neighbour))
            elif reach == known and neighbour not in done:
                before[neighbour].append(node)
    if target not in done:
        raise RouteError(f"no walkway connects {source} and {target}")
    paths: list[list[str]] = []
    stack = [[target]]
    while stack:
        tail = stack.pop()
        if tail[0] == source:
            paths.append(tail)
        else:
            stack.extend([node, *tail] for node in before[tail[0]])
    return sorted(paths)


def as_route(settled: Settled, source: str, target: str) -> Route:
    entry = settled.get(target)
    if entry is None:
        raise RouteError(f"no walkway connects {source} and {target}")
    cost, _, minutes, path = entry
    return Route(path=list(path), minutes=minutes, cost=cost)


def join_legs(legs: Sequence[Route]) -> Route:
    """One route made of legs that each start where the previous one ended."""
    path = list(legs[0].path)
    for leg in legs[1:]:
        path.extend(leg.path[1:])
    return Route(path=path, minutes=sum(leg.minutes for leg in legs), cost=sum(leg.cost for leg in legs))


def walk_minutes(graph: Walkways, path: Sequence[str]) -> int:
    """The minutes a walk along ``path`` takes; ``RouteError`` if it is not a walk."""
    total = 0
    for a, b in zip(path, path[1:]):
        data = graph.edge(a, b)
        if data is None:
            raise RouteError(f"there is no walkway from {a} to {b}")
        total += data["minutes"]
    return total

"""The walkway graph and the two searches the kernel runs on it beside ``routes``' own.

networkx used to hold this graph. Importing it took ~0.1 s of every command that loads a world (a third of a cold
``campus run --scale 0.01``), for a dict of dicts and two Dijkstras; and a path it chose among equally fast ones went
into the log, so the log depended on the installed networkx's tie-breaking. Both searches are kept here instead,
choosing what networkx 3.6 chooses, so the runs made with it replay unchanged (tested against networkx itself).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from itertools import count
from typing import TypedDict


class Edge(TypedDict):
    minutes: int
    properties: dict[str, str]
    inside: bool
    """A walk between two members of one building complex (no minutes, every requirement met)."""


Weight = Callable[[str, str, Edge], "float | None"]
"""An edge's cost in a search, given its two ends and data; None leaves the edge out."""


class Walkways:
    """Buildings as nodes, walkways as undirected edges; ``adj[a][b]`` is the edge's data, one dict shared by both
    directions. Neighbours keep the order their edges were added in, as the searches' tie-breaking depends on it."""

    __slots__ = ("adj",)

    def __init__(self, nodes: Iterable[str] = ()) -> None:
        self.adj: dict[str, dict[str, Edge]] = {node: {} for node in nodes}

    def add_edge(self, a: str, b: str, edge: Edge) -> None:
        """Join ``a`` and ``b`` (added as nodes if new); an existing edge between them gets ``edge``'s data."""
        known = self.adj.setdefault(a, {}).get(b)
        if known is not None:
            known.update(edge)
            edge = known
        self.adj[a][b] = edge
        self.adj.setdefault(b, {})[a] = edge

    def __contains__(self, node: object) -> bool:
        return node in self.adj

    def __getitem__(self, node: str) -> dict[str, Edge]:
        return self.adj[node]

    def has_edge(self, a: str, b: str) -> bool:
        return b in self.adj.get(a, ())

    def edge(self, a: str, b: str) -> Edge | None:
        """The walkway from ``a`` to ``b``, or None when there is none."""
        return self.adj.get(a, {}).get(b)


def fastest_path(graph: Walkways, source: str, target: str, weight: Weight) -> list[str] | None:
    """A least-cost path from ``source`` to ``target`` (None when none is left), found by Dijkstra from both ends at
    once, a step from each in turn: among equally cheap paths, the one networkx's ``bidirectional_dijkstra`` gives.

    Each side keeps the cheapest known way to every node it has reached and settles nodes in order of cost, ties in
    the order they were reached. Whenever a side improves its way to a node the other side has reached, the two
    ways joined there are a candidate, kept if strictly cheaper than the best one so far. The search ends when a
    node is settled by both sides: the best candidate is then a least-cost path."""
    for end in (source, target):
        if end not in graph.adj:
            raise ValueError(f"{end!r} is not on the walkways")
    if source == target:
        return [source]
    order = count()
    settled: tuple[set[str], set[str]] = (set(), set())
    reached: tuple[dict[str, float], dict[str, float]] = ({source: 0}, {target: 0})
    previous: tuple[dict[str, str | None], dict[str, str | None]] = ({source: None}, {target: None})
    fringe: tuple[list[tuple[float, int, str]], list[tuple[float, int, str]]] = (
        [(0, next(order), source)], [(0, next(order), target)])
    best: float | None = None
    meeting = source
    side = 1
    while fringe[0] and fringe[1]:
        side = 1 - side
        cost, _, node = heapq.heappop(fringe[side])
        if node in settled[side]:
            continue
        settled[side].add(node)
        if node in settled[1 - side]:
            return _walk_back(previous[0], meeting)[::-1] + _walk_back(previous[1], previous[1][meeting])
        mine, theirs = reached[side], reached[1 - side]
        for neighbour, edge in graph.adj[node].items():
            step = weight(node, neighbour, edge) if side == 0 else weight(neighbour, node, edge)
            if step is None:
                continue
            total = cost + step
            if neighbour in settled[side]:
                continue
            known = mine.get(neighbour)
            if known is not None and total >= known:
                continue
            mine[neighbour] = total
            heapq.heappush(fringe[side], (total, next(order), neighbour))
            previous[side][neighbour] = node
            other = theirs.get(neighbour)
            if other is not None and (best is None or total + other < best):
                best, meeting = total + other, neighbour
    return None


def _walk_back(previous: dict[str, str | None], node: str | None) -> list[str]:
    """``node``, the node it was reached from, and so on back to where that side started."""
    path = []
    while node is not None:
        path.append(node)
        node = previous[node]
    return path


def distances(graph: Walkways, source: str, weight: Weight) -> dict[str, float]:
    """The least cost from ``source`` to every node it can reach (Dijkstra)."""
    done: dict[str, float] = {}
    heap: list[tuple[float, str]] = [(0, source)]
    while heap:
        cost, node = heapq.heappop(heap)
        if node in done:
            continue
        done[node] = cost
        for neighbour, edge in graph.adj[node].items():
            step = weight(node, neighbour, edge)
            if step is not None and neighbour not in done:
                heapq.heappush(heap, (cost + step, neighbour))
    return done

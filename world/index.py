"""Fast read-only lookups over a world: buildings by id and name, and the walkway graph."""

from __future__ import annotations

from functools import cached_property

from collections.abc import Mapping, Sequence

from campus.world.graph import Walkways
from campus.world.model import Building, Complex, World
from campus.world.routes import Adjacency, Route, Search, as_route, best_paths, edge_costs, join_legs


class WorldIndex:
    """A world with its lookups built once. Everything here is read-only and deterministic."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.home = world.home
        self.buildings: dict[str, Building] = {b.id: b for b in world.buildings}
        self.complex_of: dict[str, Complex] = {m: c for c in world.complexes for m in c.members}
        self.graph = _graph(world)
        self.zones: list[str] = sorted({b.zone for b in world.buildings})
        self.types: list[str] = sorted({b.type for b in world.buildings})
        self._costs: dict[tuple, Adjacency] = {}
        self._searches: dict[tuple, Search] = {}

    def route(self, source: str, target: str, constraints: Mapping[str, str] | None = None) -> Route:
        """``find_route`` memoised. A search from a source settles many buildings before its
        target, each with its final route, so the search is kept: it answers later queries and goes on
        from where it stopped for a target not settled yet."""
        wanted = tuple(sorted((constraints or {}).items()))
        search = self._searches.get((source, wanted))
        if search is None or target not in search.settled:
            if search is None:
                search = self._searches[(source, wanted)] = Search(self.graph, source, self._adjacency(wanted))
            search.until(target)
        return as_route(search.settled, source, target)

    def best_paths(self, source: str, target: str, constraints: Mapping[str, str] | None = None) -> list[list[str]]:
        """Every least-cost path from ``source`` to ``target``, sorted (``routes.best_paths``)."""
        return best_paths(self._adjacency(tuple(sorted((constraints or {}).items()))), source, target)

    def _adjacency(self, wanted: tuple[tuple[str, str], ...]) -> Adjacency:
        costs = self._costs.get(wanted)
        if costs is None:
            costs = self._costs[wanted] = edge_costs(self.graph, dict(wanted))
        return costs

    def route_through(self, stops: Sequence[str], constraints: Mapping[str, str] | None = None) -> Route:
        """A multi-leg route visiting ``stops`` in order, each leg planned on its own."""
        return join_legs([self.route(a, b, constraints) for a, b in zip(stops, stops[1:])])

    @property
    def hash(self) -> str:
        return self.world.hash

    @cached_property
    def names(self) -> dict[str, tuple[str, str | None]]:
        """Case-folded name or alias → (building id, the alias matched or None)."""
        table: dict[str, tuple[str, str | None]] = {}
        for building in self.world.buildings:
            table.setdefault(building.name.casefold(), (building.id, None))
        for building in self.world.buildings:
            for alias in building.aliases:
                table.setdefault(alias.casefold(), (building.id, alias))
        return table

    def name_of(self, building_id: str) -> str:
        building = self.buildings.get(building_id)
        return building.name if building is not None else building_id

    def describe(self, building_id: str) -> str:
        return f"{self.name_of(building_id)} ({building_id})"


def _graph(world: World) -> Walkways:
    """Walkways as edges with ``minutes`` and ``properties``; complex members joined at zero cost."""
    graph = Walkways(sorted(b.id for b in world.buildings))
    for path in world.paths:
        graph.add_edge(path.source, path.target, {"minutes": path.minutes, "properties": path.properties, "inside": False})
    for group in world.complexes:
        members = sorted(group.members)
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                if not graph.has_edge(a, b):
                    graph.add_edge(a, b, {"minutes": 0, "properties": {}, "inside": True})
    return graph

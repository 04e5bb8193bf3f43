"""Where to draw each building: campus worlds have walkways but no coordinates.

The layout is a pure function of the world. Zones become discs: the zone holding the
best-connected building (the campus hub) sits in the middle and the others stand on a ring
around it, each next to the zone it shares most walkways with. Inside a zone, a small
force-directed layout (Fruchterman-Reingold) spreads the buildings, pulled along their
walkways and, for walkways that leave the zone, towards the neighbouring zone. Starting
points come from sha256 of the building ids, so every process draws the same map.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict

from campus.world.model import World

Point = tuple[float, float]

CANVAS = 1000.0
"""Coordinates are fitted into a ``CANVAS`` x ``CANVAS`` square (with a margin)."""
MARGIN = 40.0
ZONE_SPACING = 24.0
"""Radius of a zone's disc per square root of its building count."""
PAIR_BUDGET = 240_000
"""Upper bound on node pairs visited per zone, so huge zones stay fast (fewer iterations)."""


def campus_layout(world: World) -> dict[str, Point]:
    """Building id -> (x, y) in ``[0, CANVAS]``, rounded to 0.1."""
    zones: dict[str, list[str]] = defaultdict(list)
    zone_of: dict[str, str] = {}
    for building in world.buildings:
        zones[building.zone].append(building.id)
        zone_of[building.id] = building.zone
    edges = [(p.source, p.target) for p in world.paths if p.source in zone_of and p.target in zone_of]
    edges += [(a, b) for c in world.complexes for a, b in zip(c.members, c.members[1:]) if a in zone_of and b in zone_of]
    centres, radii = _zone_discs(list(zones), zones, zone_of, edges)
    points: dict[str, Point] = {}
    for zone, members in zones.items():
        inner = [(a, b) for a, b in edges if zone_of[a] == zone == zone_of[b]]
        outward = _outward_pulls(zone, members, zone_of, edges, centres)
        for member, (x, y) in _spring(members, inner, outward).items():
            cx, cy = centres[zone]
            points[member] = (cx + x * radii[zone], cy + y * radii[zone])
    return _fit(points)


def _zone_discs(
    order: list[str], zones: dict[str, list[str]], zone_of: dict[str, str], edges: list[tuple[str, str]]
) -> tuple[dict[str, Point], dict[str, float]]:
    """Each zone's centre and radius: the hub's zone in the middle, the rest on a ring."""
    radii = {zone: ZONE_SPACING * math.sqrt(len(members)) + ZONE_SPACING for zone, members in zones.items()}
    if len(order) == 1:
        return {order[0]: (0.0, 0.0)}, radii
    degree = Counter(node for edge in edges for node in edge)
    hub = max(zone_of, key=lambda b: (degree[b], _reverse_order(b)))
    middle = zone_of[hub]
    shared: Counter[tuple[str, str]] = Counter()
    for a, b in edges:
        if zone_of[a] != zone_of[b]:
            shared[(zone_of[a], zone_of[b])] += 1
            shared[(zone_of[b], zone_of[a])] += 1
    ring = _ring_order([z for z in order if z != middle], shared)
    ring_radius = radii[middle] + max(radii[z] for z in ring) + ZONE_SPACING
    if len(ring) > 2:
        widest = max(radii[z] for z in ring)
        ring_radius = max(ring_radius, (widest + ZONE_SPACING / 2) / math.sin(math.pi / len(ring)))
    centres = {middle: (0.0, 0.0)}
    for index, zone in enumerate(ring):
        angle = -math.pi / 2 + 2 * math.pi * index / len(ring)
        centres[zone] = (ring_radius * math.cos(angle), ring_radius * math.sin(angle))
    return centres, radii


def _reverse_order(building_id: str) -> tuple[int, ...]:
    """Ties on degree go to the building listed first (smaller id)."""
    return tuple(-ord(ch) for ch in building_id)


def _ring_order(zones: list[str], shared: Counter[tuple[str, str]]) -> list[str]:
    """Greedy walk: each next zone is the unplaced one sharing most walkways with the last."""
    ring = [zones[0]]
    left = zones[1:]
    while left:
        last = ring[-1]
        best = max(left, key=lambda z: (shared[(last, z)], -left.index(z)))
        ring.append(best)
        left.remove(best)
    return ring


def _outward_pulls(
    zone: str, members: list[str], zone_of: dict[str, str], edges: list[tuple[str, str]], centres: dict[str, Point]
) -> dict[str, Point]:
    """For each building with walkways out of its zone, the mean unit direction towards those zones."""
    here = centres[zone]
    sums: dict[str, list[float]] = {}
    for a, b in edges:
        for inside, other in ((a, b), (b, a)):
            if zone_of[inside] == zone and zone_of[other] != zone:
                ox, oy = centres[zone_of[other]]
                dx, dy = ox - here[0], oy - here[1]
                length = math.hypot(dx, dy) or 1.0
                acc = sums.setdefault(inside, [0.0, 0.0, 0.0])
                acc[0] += dx / length
                acc[1] += dy / length
                acc[2] += 1
    return {b: (s[0] / s[2], s[1] / s[2]) for b, s in sums.items()}


def _seeded_point(building_id: str) -> Point:
    digest = hashlib.sha256(f"campus-map|{building_id}".encode()).digest()
    x = int.from_bytes(digest[:4], "big") / 2**32
    y = int.from_bytes(digest[4:8], "big") / 2**32
    return 2 * x - 1, 2 * y - 1


def _spring(nodes: list[str], edges: list[tuple[str, str]], outward: dict[str, Point]) -> dict[str, Point]:
    """Fruchterman-Reingold in the unit disc, deterministic from the node ids."""
    n = len(nodes)
    if n == 1:
        return {nodes[0]: (0.0, 0.0)}
    pos = {node: _seeded_point(node) for node in nodes}
    k = 1.0 / math.sqrt(n)
    iterations = max(10, min(90, PAIR_BUDGET // (n * n)))
    temperature = 0.25
    cooling = temperature / (iterations + 1)
    for _ in range(iterations):
        moves = {node: [0.0, 0.0] for node in nodes}
        for i, a in enumerate(nodes):
            ax, ay = pos[a]
            for b in nodes[i + 1 :]:
                dx, dy = ax - pos[b][0], ay - pos[b][1]
                distance = math.hypot(dx, dy) or 1e-6
                push = k * k / distance
                moves[a][0] += dx / distance * push
                moves[a][1] += dy / distance * push
                moves[b][0] -= dx / distance * push
                moves[b][1] -= dy / distance * push
        for a, b in edges:
            dx, dy = pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]
            distance = math.hypot(dx, dy) or 1e-6
            pull = distance * distance / k
            moves[a][0] -= dx / distance * pull
            moves[a][1] -= dy / distance * pull
            moves[b][0] += dx / distance * pull
            moves[b][1] += dy / distance * pull
        for node, (ox, oy) in outward.items():
            moves[node][0] += ox * k
            moves[node][1] += oy * k
        for node in nodes:
            mx, my = moves[node]
            length = math.hypot(mx, my) or 1e-6
            step = min(length, temperature)
            x, y = pos[node][0] + mx / length * step, pos[node][1] + my / length * step
            radius = math.hypot(x, y)
            if radius > 1:
                x, y = x / radius, y / radius
            pos[node] = (x, y)
        temperature -= cooling
    return pos


def _fit(points: dict[str, Point]) -> dict[str, Point]:
    xs = [p[0] for p in points.values()]
    ys = [p[1] for p in points.values()]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    scale = (CANVAS - 2 * MARGIN) / span
    left = MARGIN + ((CANVAS - 2 * MARGIN) - (max(xs) - min(xs)) * scale) / 2
    top = MARGIN + ((CANVAS - 2 * MARGIN) - (max(ys) - min(ys)) * scale) / 2
    return {
        b: (round(left + (x - min(xs)) * scale, 1), round(top + (y - min(ys)) * scale, 1))
        for b, (x, y) in sorted(points.items())
    }

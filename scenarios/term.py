"""Building a term from a world: every scenario's tasks, merged in release order."""

from __future__ import annotations

from scenarios import exploration
from scenarios.task import Term
from world.index import WorldIndex

DEFAULT_COUNTS = {"campus_exploration": (26, 25)}
"""Immediate tasks and scheduled pairs per scenario (76 exploration tasks, as in the paper)."""


def generate_term(world: WorldIndex, seed: int = 0, scale: float = 1.0) -> Term:
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    immediate, scheduled = (max(1, round(n * scale)) for n in DEFAULT_COUNTS["campus_exploration"])
    tasks = exploration.generate(world, seed, immediate=immediate, scheduled=scheduled)
    tasks.sort(key=lambda task: (task.release, task.id))
    name = f"term-{seed}" + (f"-x{scale:g}" if scale != 1 else "")
    return Term(name=name, seed=seed, world_hash=world.hash, tasks=tuple(tasks))

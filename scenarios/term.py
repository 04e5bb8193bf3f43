"""Building a term from a world: every scenario's tasks, merged in release order.

Generators run in a fixed order on one timeline, so fixed appointments are placed before
flexible work: orientation and regulation sessions, course selection (which decides the
timetable), lectures and exams on that timetable, then exploration, clubs, advisors and
library study in the hours left free.
"""

from __future__ import annotations

from scenarios import exploration
from scenarios.context import TermContext
from scenarios.task import Task, Term
from world.index import WorldIndex

PAPER_COUNTS = {"campus_exploration": 76}


def generate_term(world: WorldIndex, seed: int = 0, scale: float = 1.0) -> Term:
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    ctx = TermContext(world=world, seed=seed, scale=scale)
    tasks: list[Task] = []
    tasks += exploration.generate(ctx, immediate=ctx.count(26), scheduled=ctx.count(25))
    tasks.sort(key=lambda task: (task.release, task.id))
    name = f"term-{seed}" + (f"-x{scale:g}" if scale != 1 else "")
    return Term(name=name, seed=seed, world_hash=world.hash, tasks=tuple(tasks))

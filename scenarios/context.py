"""What every scenario generator is handed: the world, the seed, the scale and the shared timetable."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from campus.events import RULES_VERSION
from campus.scenarios.rng import stream
from campus.scenarios.timeline import Timeline
from campus.world.index import WorldIndex
from campus.world.model import CourseSection


@dataclass
class TermContext:
    world: WorldIndex
    seed: int
    scale: float = 1.0
    timeline: Timeline = field(default_factory=Timeline)
    timetable: list[CourseSection] = field(default_factory=list)
    """The semester-1 sections the student ends up taking (set by course selection, read by lectures and exams)."""
    attempt: int = 0
    """Which placement attempt this is: a seed whose first draw does not fit is drawn again from streams
    salted with the attempt (``generate_term``), so every seed gives one term, the same in any process."""
    thinned: int = 0
    """How many disruption tasks fewer per (sub-type, level) cell than the paper's count: 0 unless no draw of the
    full count fits (``generate_term``)."""
    rules_version: int = RULES_VERSION
    """The version of the world's rules the term's runs follow: generators that read a seeded draw of the
    handlers (library seats) read this version's, so a term's plans hold in the runs made under it."""

    def count(self, paper: int) -> int:
        """The paper's count for something, scaled (at least 1)."""
        return max(1, round(paper * self.scale))

    def rng(self, purpose: str) -> random.Random:
        return stream(self.seed, purpose if self.attempt == 0 else f"{purpose}|attempt {self.attempt}")

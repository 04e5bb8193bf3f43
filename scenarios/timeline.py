"""The term's timetable: which stretches of simulated time each scenario's tasks occupy.

Generators run one after another on one ``Timeline``; each reserves the minutes its tasks
need (release to the latest time the oracle could still be busy with them), so tasks of
different scenarios never overlap and a diligent student can do everything on time.
Fixed appointments (study sessions, classes, exams) are reserved first, then the flexible
work is placed in the gaps.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterable

from kernel.clock import MINUTES_PER_DAY

WEEK = 7 * MINUTES_PER_DAY


def at(week: int, weekday: int, hour: int, minute: int = 0) -> int:
    """Minutes since Monday 00:00 of week 0 for ``Week week, <weekday>, hour:minute`` (Monday = 0)."""
    return week * WEEK + weekday * MINUTES_PER_DAY + hour * 60 + minute


class Overlap(ValueError):
    pass


class Timeline:
    """Disjoint reserved intervals ``[start, end)``, each with the name of its owner."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._spans: list[tuple[int, int, str]] = []

    def is_free(self, start: int, minutes: int) -> bool:
        end = start + minutes
        i = bisect.bisect_right(self._starts, start)
        if i and self._spans[i - 1][1] > start:
            return False
        return i >= len(self._spans) or self._spans[i][0] >= end

    def reserve(self, start: int, minutes: int, owner: str) -> int:
        if minutes <= 0:
            raise ValueError(f"{owner}: a reservation needs a positive length, got {minutes}")
        if not self.is_free(start, minutes):
            raise Overlap(f"{owner}: {start}+{minutes} overlaps {self.owner_at(start, minutes)}")
        i = bisect.bisect_right(self._starts, start)
        self._starts.insert(i, start)
        self._spans.insert(i, (start, start + minutes, owner))
        return start

    def owner_at(self, start: int, minutes: int) -> str:
        return ", ".join(owner for s, e, owner in self._spans if s < start + minutes and e > start) or "nothing"

    def place(self, rng: random.Random, candidates: Iterable[int], minutes: int, owner: str) -> int:
        """Reserve one free start among ``candidates`` (chosen by ``rng``) and return it."""
        free = [start for start in candidates if self.is_free(start, minutes)]
        if not free:
            raise Overlap(f"{owner}: no free {minutes}-minute slot among the candidates")
        return self.reserve(rng.choice(free), minutes, owner)

    def first_free(self, candidates: Iterable[int], minutes: int, owner: str) -> int:
        """Reserve the earliest free start among ``candidates`` (in the order given)."""
        for start in candidates:
            if self.is_free(start, minutes):
                return self.reserve(start, minutes, owner)
        raise Overlap(f"{owner}: no free {minutes}-minute slot among the candidates")

    def spans(self) -> list[tuple[int, int, str]]:
        return list(self._spans)


def slots(weeks: Iterable[int], weekdays: Iterable[int], hours: Iterable[float]) -> list[int]:
    """Every ``at(week, weekday, hour)`` in order; fractional hours give half and quarter hours."""
    days = list(weekdays)
    times = [round(h * 60) for h in hours]
    return [week * WEEK + day * MINUTES_PER_DAY + t for week in weeks for day in days for t in times]

"""The term's timetable: which stretches of simulated time each scenario's tasks occupy.

Generators run one after another on one ``Timeline``; each reserves the minutes its tasks
need (release to the latest time the oracle could still be busy with them), so tasks of
different scenarios never overlap and a diligent student can do everything on time.
Fixed appointments (study sessions, classes, exams) are reserved first, then the flexible
work is placed in the gaps.

**Slack.** A student is not the oracle: it reads, hesitates and checks. Every flexible
placement therefore keeps at least ``SLACK`` minutes beyond what the oracle needs for its task
(the generators size their reservations so: exploration from the walk, course selection from
the calls, the others with fixed sizes well above the oracle's time), and a fixed session of
several tasks holds ``SLACK`` minutes per further task after its end (``hold``) for the backlog
a slow student builds up there. Flexible work is never placed in a hold, while fixed
appointments may be (a class does not move for anyone), so an agent spending up to ``SLACK``
extra minutes on every task still finds each flexible task released on time.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterable
from typing import TypeGuard

from campus.kernel.clock import MINUTES_PER_DAY

WEEK = 7 * MINUTES_PER_DAY
SLACK = 15
"""Extra minutes per task a student may spend beyond the oracle without being late for the next one."""


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
        self._held_starts: list[int] = []
        self._held: list[tuple[int, int, str]] = []
        self._blocked: tuple[list[int], list[int]] | None = None
        """Starts and ends of the union of reservations and holds, merged (built on the first question, then kept)."""
        self.changes = 0
        """How many reservations and holds were made: an answer remembered at one count holds until it moves."""

    def is_free(self, start: int, minutes: int) -> bool:
        """Nothing reserved and nothing held in ``[start, start + minutes)``: room for flexible work."""
        starts, ends = self._union()
        i = bisect.bisect_right(starts, start)
        return (not i or ends[i - 1] <= start) and (i == len(starts) or starts[i] >= start + minutes)

    def _union(self) -> tuple[list[int], list[int]]:
        if self._blocked is None:
            starts: list[int] = []
            ends: list[int] = []
            for s, e, _ in sorted([*self._spans, *self._held]):
                if ends and s <= ends[-1]:
                    ends[-1] = max(ends[-1], e)
                else:
                    starts.append(s)
                    ends.append(e)
            self._blocked = (starts, ends)
        return self._blocked

    def reserve(self, start: int, minutes: int, owner: str) -> int:
        """Reserve ``[start, start + minutes)``; a hold there gives way, a reservation raises ``Overlap``."""
        if minutes <= 0:
            raise ValueError(f"{owner}: a reservation needs a positive length, got {minutes}")
        if not _clear(self._starts, self._spans, start, minutes):
            raise Overlap(f"{owner}: {start}+{minutes} overlaps {self.owner_at(start, minutes)}")
        i = bisect.bisect_right(self._starts, start)
        self._starts.insert(i, start)
        self._spans.insert(i, (start, start + minutes, owner))
        self._block(start, start + minutes)
        self.changes += 1
        return start

    def hold(self, start: int, minutes: int, owner: str) -> None:
        """Keep flexible work out of ``[start, start + minutes)`` (merged with any hold it touches)."""
        end = start + minutes
        i = bisect.bisect_right(self._held_starts, start)
        if i and self._held[i - 1][1] >= start:
            i -= 1
        j = i
        while j < len(self._held) and self._held[j][0] <= end:
            j += 1
        merged = self._held[i:j]
        if merged:
            start, end = min(start, merged[0][0]), max(end, merged[-1][1])
        self._block(start, end)
        self.changes += 1
        self._held[i:j] = [(start, end, owner)]
        self._held_starts[i:j] = [start]

    def _block(self, start: int, end: int) -> None:
        """Add ``[start, end)`` to the merged union in place, as ``_union`` would merge it: the union's parts are
        the connected stretches of the closed intervals, so the new one joins every part it meets or touches."""
        if self._blocked is None:
            return
        if end < start:
            self._blocked = None
            return
        starts, ends = self._blocked
        i = bisect.bisect_left(ends, start)
        j = bisect.bisect_right(starts, end)
        if i < j:
            start, end = min(start, starts[i]), max(end, ends[j - 1])
        starts[i:j] = [start]
        ends[i:j] = [end]

    def owner_at(self, start: int, minutes: int) -> str:
        spans = [*self._spans, *self._held]
        return ", ".join(owner for s, e, owner in spans if s < start + minutes and e > start) or "nothing"

    def place(self, rng: random.Random, candidates: Iterable[int], minutes: int, owner: str) -> int:
        """Reserve one free start among ``candidates`` (chosen by ``rng``) and return it."""
        free = self.free_among(candidates, minutes)
        if not free:
            raise Overlap(f"{owner}: no free {minutes}-minute slot among the candidates")
        return self.reserve(rng.choice(free), minutes, owner)

    def free_among(self, candidates: Iterable[int], minutes: int) -> list[int]:
        """The candidates ``is_free`` accepts, in the order given (one pass with the union bound locally)."""
        starts, ends = self._union()
        n = len(starts)
        if minutes > 0 and _ascending_ints(candidates):
            free_slices = _free_in_slices(candidates, minutes, starts, ends)
            if free_slices is not None:
                return free_slices
        search = bisect.bisect_right
        free = []
        for start in candidates:
            i = search(starts, start)
            if (not i or ends[i - 1] <= start) and (i == n or starts[i] >= start + minutes):
                free.append(start)
        return free

    def first_free(self, candidates: Iterable[int], minutes: int, owner: str) -> int:
        """Reserve the earliest free start among ``candidates`` (in the order given)."""
        for start in candidates:
            if self.is_free(start, minutes):
                return self.reserve(start, minutes, owner)
        raise Overlap(f"{owner}: no free {minutes}-minute slot among the candidates")

    def spans(self) -> list[tuple[int, int, str]]:
        return list(self._spans)


def _ascending_ints(candidates: Iterable[int]) -> TypeGuard[range | list[int]]:
    """A non-empty range or list of ints in ascending order (checked in C: no loop over them in Python)."""
    if type(candidates) is range:
        return candidates.step > 0 and bool(candidates)
    return type(candidates) is list and bool(candidates) and set(map(type, candidates)) == {int} and sorted(candidates) == candidates


def _free_in_slices(candidates: range | list[int], minutes: int, starts: list[int], ends: list[int]) -> list[int] | None:
    """``free_among`` for ascending candidates, a gap at a time: between union parts j-1 and j the free starts are
    those from ``ends[j-1]`` to ``starts[j] - minutes``, a slice of the candidates, so the cost follows the gaps
    they span rather than their number (the generators ask about some 1.2M candidates per term). None when they
    span so many gaps that testing each candidate is cheaper."""
    first, last = candidates[0], candidates[-1]
    low, high = bisect.bisect_right(starts, first), bisect.bisect_right(starts, last)
    if 4 * (high - low) > len(candidates):
        return None
    free: list[int] = []
    for j in range(low, high + 1):
        lo = ends[j - 1] if j else first
        hi = starts[j] - minutes if j < len(starts) else last
        if lo <= hi:
            free.extend(candidates[bisect.bisect_left(candidates, lo):bisect.bisect_right(candidates, hi)])
    return free


def _clear(starts: list[int], spans: list[tuple[int, int, str]], start: int, minutes: int) -> bool:
    """No span of the sorted, disjoint ``spans`` meets ``[start, start + minutes)``."""
    i = bisect.bisect_right(starts, start)
    if i and spans[i - 1][1] > start:
        return False
    return i >= len(spans) or spans[i][0] >= start + minutes


def slots(weeks: Iterable[int], weekdays: Iterable[int], hours: Iterable[float]) -> list[int]:
    """Every ``at(week, weekday, hour)`` in order; fractional hours give half and quarter hours."""
    days = list(weekdays)
    times = [round(h * 60) for h in hours]
    return [week * WEEK + day * MINUTES_PER_DAY + t for week in weeks for day in days for t in times]

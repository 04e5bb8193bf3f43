"""The machine's pace: CPU seconds of one fixed piece of interpreter work, here and now.

Every timing ``campus bench`` command measures it before and after its own work and prints it beside its figures. On a
shared or throttled virtual machine the same code runs several times slower, with nothing else running inside it, so a
figure means little without the pace it was measured at: two bench runs compare only at a similar pace, and issue 18's
targets are for the pace of a quiet machine of this kind.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from msgspec import Struct, structs

WORK = 30_000_000
"""``sum(range(WORK))``: the check earlier sessions timed on this machine kind, quiet and slowed, so its quiet value is known."""
QUIET_S = 0.28
"""The pace this machine kind showed when quiet, in the sessions that took the README's quiet figures (CPU seconds)."""
REPEATS = 3


class Pace(Struct, frozen=True):
    before_s: float
    """The median CPU seconds of ``REPEATS`` runs of the work, before the bench."""
    after_s: float
    """The same, after it (a long bench can outlast a quiet spell)."""
    quiet_s: float = QUIET_S

    @property
    def slowdown(self) -> float:
        """How many times slower than quiet, the worse of before and after."""
        return max(self.before_s, self.after_s) / self.quiet_s

    def figures(self) -> dict[str, float]:
        return {**structs.asdict(self), "slowdown": round(self.slowdown, 2)}

    def describe(self) -> str:
        return (f"machine pace: sum(range(3e7)) took {self.before_s:.2f} s of CPU before, {self.after_s:.2f} s after "
                f"({self.quiet_s:.2f} s on a quiet machine of this kind: {self.slowdown:.1f}x); figures taken slower than "
                "quiet say little about the targets")


def pace(repeats: int = REPEATS) -> float:
    """The median CPU seconds of ``sum(range(WORK))`` over ``repeats`` runs."""
    taken = []
    for _ in range(repeats):
        begun = time.process_time()
        sum(range(WORK))
        taken.append(time.process_time() - begun)
    return round(statistics.median(taken), 3)


def paced(measure: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``measure()``'s report with the machine's pace before and after it, under ``"pace"``."""
    before = pace()
    report = measure()
    return {**report, "pace": Pace(before_s=before, after_s=pace()).figures()}


def describe(figures: dict[str, float]) -> str:
    """``Pace.describe`` of a report's ``"pace"``."""
    return Pace(before_s=figures["before_s"], after_s=figures["after_s"], quiet_s=figures["quiet_s"]).describe()

"""`campus bench startup`: how long a command takes from a cold process, as a user starts it.

Two commands, each run ``repeats`` times in a fresh interpreter (``python -m campus.cli.main``):
``campus --help`` and ``campus run --scale 0.01`` (the oracle on the smallest term, into a new
database each time). For each: the median wall time with its range, and the median CPU time of
the child process (user + system, from ``RUSAGE_CHILDREN``), which a busy machine disturbs less.
The targets (issue 18) are on wall time, judged on the median.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGETS = {"help": 0.3, "run": 1.0}
"""Seconds of wall time, at most: ``campus --help`` and ``campus run --scale 0.01`` from a cold start."""


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(args: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``campus ARGS``; a failure is an error, not a figure."""
    cpu, begun = _child_cpu(), time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "campus.cli.main", *args], cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - begun
    if result.returncode != 0:
        raise RuntimeError(f"campus {' '.join(args)} exited {result.returncode}: {result.stderr.strip()[-500:]}")
    return wall, _child_cpu() - cpu


def _figure(samples: list[tuple[float, float]], target: float) -> dict[str, Any]:
    """The median wall time as printed (to the millisecond), and the verdict on that printed figure."""
    walls = [wall for wall, _ in samples]
    median = round(statistics.median(walls), 3)
    return {"wall_s": median, "wall_range_s": [round(min(walls), 3), round(max(walls), 3)],
            "cpu_s": round(statistics.median(cpu for _, cpu in samples), 3), "target_s": target, "met": median <= target}


def measure_startup(repeats: int = 5, directory: str | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="campus-startup-", dir=directory) as scratch:
        where = Path(scratch)
        helps = [_timed(["--help"], where) for _ in range(repeats)]
        runs = [_timed(["run", "--scale", "0.01", "--db", f"run{index}.db", "--json"], where) for index in range(repeats)]
    return {"repeats": repeats, "help": _figure(helps, TARGETS["help"]), "run": _figure(runs, TARGETS["run"])}

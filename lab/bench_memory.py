"""`campus bench memory`: the peak memory of ``campus verify`` and ``campus score`` on a long run.

The run is real, so both commands do all their work on it: a session plays the kernel
benchmark's tool term (unscored tasks that every system serves, each ended by its round
limit) with its tool-cycling agent until the log holds about ``events`` events. Then each
command runs in its own process, and its peak resident memory is what that process reports
as ``VmHWM`` when it exits (everything it ever held, interpreter and imports included).
Not ``ru_maxrss`` from ``wait4``: on Linux a child's figure starts from its parent's peak
at the fork, and the builder maps the whole file.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from campus.kernel.store import SQLiteStore
from campus.lab.bench import TOOL_ROUNDS, ToolCycleAgent, tool_term
from campus.scenarios.play import new_run
from campus.world.generate import generate_world
from campus.world.index import WorldIndex

TARGET_MB = 300.0
EVENTS_PER_TASK = 72
"""Measured: each turn a reply, a call, its result and a fact every other turn or so; a task's time line,
release and end."""
SNAPSHOT_EVERY = 50_000
"""Fewer snapshots than a session takes by default: the state of this run grows with every calendar
event and email, and 500 snapshots of it would fill the disk; verify still checks each one."""
RUN = "bench-memory"


def build_run(path: Path, events: int) -> int:
    """A real run of about ``events`` events in a new file at ``path``; its length."""
    world = WorldIndex(generate_world(0))
    term = tool_term(world, tasks=math.ceil(events / EVENTS_PER_TASK))
    store = SQLiteStore(path)
    try:
        run = new_run(store, world, term, agent_name="bench-tools", seed=0, round_limit=TOOL_ROUNDS, branch_id=RUN)
        run.session(ToolCycleAgent(world, len(term.tasks) * TOOL_ROUNDS), snapshot_every=SNAPSHOT_EVERY).run()
        return store.head(RUN)[0]
    finally:
        store.close()


_REPORTING = """
import atexit, sys
from pathlib import Path
def report(out=Path(sys.argv[1])):
    status = Path("/proc/self/status").read_text()
    out.write_text(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))
atexit.register(report)
from campus.cli.main import app
sys.argv = ["campus", *sys.argv[2:]]
app()
"""
"""``campus`` that writes its own peak resident memory (kB) to the file named by its first argument."""


def peak_of(command: list[str], scratch: Path) -> dict[str, Any]:
    """Run ``campus COMMAND`` in a child process: its exit code, peak RSS and CPU seconds."""
    peak = scratch / "peak"
    child = subprocess.Popen([sys.executable, "-c", _REPORTING, str(peak), *command],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    errors = child.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(child.pid, 0)
    return {"exit": os.waitstatus_to_exitcode(status), "peak_rss_mb": round(int(peak.read_text()) / 1024, 1),
            "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1), "stderr": errors.strip()[-500:]}


def measure_memory(events: int = 1_000_000, directory: str | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        path = Path(scratch) / "long.db"
        begun = time.perf_counter()
        length = build_run(path, events)
        built = time.perf_counter() - begun
        size = path.stat().st_size
        verify = peak_of(["verify", RUN, "--db", str(path)], Path(scratch))
        score = peak_of(["score", RUN, "--db", str(path)], Path(scratch))
    return {"events": length, "db_mb": round(size / 2**20), "build_seconds": round(built, 1),
            "verify": verify, "score": score, "target_mb": TARGET_MB}

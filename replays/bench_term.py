"""`campus bench term`: a full default term played by the oracle into a file DB.

Reports what the issue asks for: generation and play wall time, tool calls per second over
the whole path (parse, dispatch, handler, events appended, hash-chained and committed) and
the process's peak resident memory (``ru_maxrss``: everything the process ever held,
interpreter and imports included, so it is an upper bound on what the run needs).
"""

from __future__ import annotations

import gc
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from agents.oracle import OracleAgent
from kernel.store import SQLiteStore
from scenarios.play import new_run
from scenarios.scorecard import scorecard
from scenarios.term import generate_term
from world.generate import generate_world
from world.index import WorldIndex

TARGET_SECONDS = 3.0
TARGET_MB = 200.0


def measure_full_term(seed: int = 0, scale: float = 1.0, directory: str | None = None) -> dict[str, Any]:
    begun = time.perf_counter()
    world = WorldIndex(generate_world(seed))
    term = generate_term(world, seed, scale)
    generated = time.perf_counter() - begun
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        store = SQLiteStore(Path(scratch) / "term.db")
        run = new_run(store, world, term, agent_name="oracle", seed=seed)
        gc.collect()
        begun = time.perf_counter()
        state = run.session(OracleAgent(term, world)).run()
        played = time.perf_counter() - begun
        events = store.head(run.branch.id)[0]
        card = scorecard(term, run.ended_tasks())
        store.close()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    calls = state.session.calls
    return {
        "seed": seed, "scale": scale, "tasks": len(term.tasks), "events": events, "tool_calls": calls,
        "generate_seconds": round(generated, 3), "play_seconds": round(played, 3),
        "tool_calls_per_s": round(calls / played), "events_per_s": round(events / played),
        "peak_rss_mb": round(peak_mb, 1), "stugpa": card["stugpa"]["total"], "success_rate": card["total"]["success_rate"],
        "targets": {"seconds": TARGET_SECONDS, "peak_mb": TARGET_MB},
    }

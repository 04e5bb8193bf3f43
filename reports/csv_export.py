"""A run's tasks and tool calls as CSV files, for triage in a spreadsheet or a notebook.

``tasks.csv``: one row per ended task (id, scenario, phase, release time, outcome, reason, turns,
and the model's tokens, latency and cost in USD for it when the agent reported them; the cost is
empty when the model's price is unknown). ``tool_calls.csv``: one
row per tool call in log order (seq, simulated time, task, tool, arguments as JSON, status,
message, minutes it took).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable
from pathlib import Path

import msgspec

from campus.events import TaskEnded, ToolCalled, ToolResult, decode_event
from campus.kernel.clock import label
from campus.kernel.outputs import OutputError, check_output, output
from campus.kernel.tasks import events_of
from campus.replays.prices import Price, cost_usd
from campus.replays.usage import Usage, run_usage
from campus.scenarios.play import Run

TASK_COLUMNS = ("task_id", "scenario", "phase", "released", "outcome", "reason", "turns", "prompt_tokens",
                "completion_tokens", "latency_s", "cost_usd")
CALL_COLUMNS = ("seq", "time", "task_id", "tool", "args", "status", "message", "minutes")
TABLES = {"tasks.csv": TASK_COLUMNS, "tool_calls.csv": CALL_COLUMNS}


def write_csv(run: Run, folder: Path, price: Price | None = None) -> dict[str, int]:
    """Write ``tasks.csv`` and ``tool_calls.csv`` into ``folder``; the number of rows of each.
    ``price`` is the run's model's price, if known."""
    check_tables(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"cannot make {folder}: {error.strerror or error}") from None
    tasks = {task.id: task for task in run.term.tasks}
    usage = run_usage(run.store, run.branch.id).by_task
    task_rows: list[tuple[object, ...]] = []
    for ended in events_of(run.store, run.branch.id, TaskEnded):
        task = tasks[ended.task_id]
        spent = usage.get(ended.task_id, Usage())
        task_rows.append((ended.task_id, task.scenario, task.phase, label(task.release), ended.outcome, ended.reason,
                          ended.turns, spent.prompt_tokens, spent.completion_tokens, spent.latency_s, cost_usd(spent, price)))
    call_rows: list[tuple[object, ...]] = []
    open_calls: dict[str, list[object]] = {}
    for row in run.store.rows(run.branch.id):
        if row.kind not in ("tool_called", "tool_result"):
            continue
        event = decode_event(row.payload)
        if isinstance(event, ToolCalled):
            open_calls[event.call_id] = [row.seq, label(row.t), event.task_id, event.tool,
                                         msgspec.json.encode(event.args).decode()]
        elif isinstance(event, ToolResult) and event.call_id in open_calls:
            call_rows.append((*open_calls.pop(event.call_id), event.status, event.message, event.minutes))
    _write(folder / "tasks.csv", TASK_COLUMNS, task_rows)
    _write(folder / "tool_calls.csv", CALL_COLUMNS, call_rows)
    return {"tasks": len(task_rows), "tool_calls": len(call_rows)}


def check_tables(folder: Path) -> None:
    """``OutputError`` unless both tables may be written in ``folder`` (new files, or tables written before), or it
    may be made: what of its path exists is folders, the last of them one this user may write in."""
    try:
        if folder.is_dir():
            for name, columns in TABLES.items():
                check_output(folder / name, _ours(columns), f"a campus {name}")
            return
        nearest = next(above for above in folder.absolute().parents if above.exists())
        if folder.exists() or not nearest.is_dir():
            raise OutputError(f"{folder if folder.exists() else nearest} is a file; the tables go in a folder")
        if not os.access(nearest, os.W_OK | os.X_OK):
            raise OutputError(f"cannot make {folder}: this user may not write in the folder {nearest}")
    except OSError as error:  # a name too long, ...
        raise OutputError(f"cannot write in {folder}: {error.strerror or error}") from None


def _write(path: Path, columns: tuple[str, ...], rows: list[tuple[object, ...]]) -> None:
    with output(path, _ours(columns), f"a campus {path.name}") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows(rows)


def _ours(columns: tuple[str, ...]) -> Callable[[bytes], bool]:
    """Whether a file is a table this module wrote: it starts with the table's header row."""
    header = (",".join(columns) + "\r\n").encode()
    return lambda head: head.startswith(header)

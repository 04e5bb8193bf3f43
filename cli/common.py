"""What every command shares: the consoles, the common options, one-line errors and the database."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import msgspec
import typer
from rich.console import Console
from rich.markup import escape

from campus.kernel.agent import AgentUnavailable
from campus.kernel.clock import TimeFormatError
from campus.kernel.runner import SessionError
from campus.kernel.store import EventStore, StoreError, open_store
from campus.replays.diff import mismatches
from campus.replays.export import ExportFormatError
from campus.replays.seek import SeekError
from campus.scenarios.play import Run, RunSpec, load_inputs, load_world
from campus.scenarios.task import Term
from campus.world.index import WorldIndex

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

DB = typer.Option("runs.db", "--db", help="The SQLite file holding runs (created if missing).")
JSON = typer.Option(False, "--json", help="Print machine-readable JSON instead of a summary.")
WORLD_HELP = "'generated' (the default: a campus from the seed) or 'stulife:DIR' (the published StuLife data)."

EXPECTED_ERRORS = (StoreError, SessionError, SeekError, TimeFormatError, ExportFormatError, ValueError, AgentUnavailable)
"""Errors a command reports as one line (exit 2) rather than as a traceback."""


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    raise typer.Exit(code)


@contextmanager
def open_db(path: str, *, must_exist: bool = True) -> Iterator[EventStore]:
    if must_exist and path != ":memory:" and not Path(path).exists():
        fail(f"no database at {path}; create one with 'campus run --db {path}'")
    try:
        store = open_store(path)
    except StoreError as error:
        fail(str(error))
    try:
        yield store
    except EXPECTED_ERRORS as error:
        fail(str(error))
    except sqlite3.DatabaseError as error:  # a file damaged after it was opened
        fail(f"{path} is damaged: {error}")
    finally:
        store.close()


def pairing_warning(a: Run, b: Run, force: bool) -> str | None:
    """Refuse (one line, exit 2) to compare runs whose tasks do not pair, unless ``force``; then the warning to show."""
    found = mismatches(a, b)
    if not found:
        return None
    what = f"{a.branch.id} and {b.branch.id} are not runs of the same world, term and rules ({'; '.join(found)})"
    if not force:
        fail(f"{what}, so their tasks do not pair; pass --force to compare them anyway")
    warning = f"compared with --force: {what}; task pairings, flips and the noise test mean nothing here"
    err.print(f"[bold yellow]warning:[/] {escape(warning)}", highlight=False)
    return warning


def emit_json(value: Any) -> None:
    sys.stdout.write(msgspec.json.encode(value).decode() + "\n")


def world_of(source: str | None, seed: int) -> WorldIndex:
    try:
        return load_world(source or "generated", seed)
    except ValueError as error:
        fail(str(error))


DISRUPTIONS_HELP = ("Include the mid-task disruption tasks (STT-Arena's nine conflict types x four solvability levels, "
                    "360 at scale 1, scored as DRS): on by default (with --busy-days, off unless given); "
                    "--no-disruptions gives the term without them.")


def with_disruptions(flag: bool | None, busy_days: bool) -> bool:
    """``--disruptions/--no-disruptions`` as given; when not given, on, except with busy days (the two do not yet fit
    in one full term)."""
    return not busy_days if flag is None else flag


def inputs_of(world_source: str | None, seed: int, scale: float, resume: str | None,
              disruptions: bool | None = None, busy_days: bool = False) -> tuple[WorldIndex, Term] | None:
    """The world and term of a new run (``disruptions`` ``None``: as ``with_disruptions`` decides); ``None`` when
    resuming (a run continues on its own world and term)."""
    if resume is not None:
        if world_source is not None or disruptions is not None or busy_days:
            fail("--world, --disruptions/--no-disruptions and --busy-days cannot be used with --resume: "
                 "a run continues on its own world and term")
        return None
    try:
        return load_inputs(RunSpec(world=world_source or "generated", seed=seed, scale=scale,
                                   disruptions=with_disruptions(disruptions, busy_days), busy_days=busy_days))
    except ValueError as error:
        fail(str(error))

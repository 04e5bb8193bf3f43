"""What every command shares: the consoles, the common options, one-line errors and the database.

Only typer and rich are imported here; the kernel is imported by the functions that use it, so
``campus --help`` and a command's ``--help`` start without it.
"""

from __future__ import annotations

import inspect
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, cast

import typer
from rich.console import Console
from rich.markup import escape

from campus.events.model import MAX_SEED

if TYPE_CHECKING:
    from campus.kernel.runner import Paraphrase
    from campus.replays.prices import Price
    from campus.kernel.store import EventStore
    from campus.scenarios.play import Run
    from campus.scenarios.task import Term
    from campus.world.index import WorldIndex

PIPE_CLOSED = 141
"""The exit code when whoever reads the output closes it early (``campus score RUN | head``): a process killed by
SIGPIPE's, as a shell reports it, not 1, which ``score`` and ``verify`` use for "changed" and "mismatch"."""


PIPED_WIDTH = 160
"""Columns a table gets when the output is no terminal and ``COLUMNS`` does not say (rich's 80 cut run names)."""


class _Console(Console):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if not self.is_terminal and "COLUMNS" not in os.environ:
            self.width = PIPED_WIDTH

    def on_broken_pipe(self) -> None:
        """Rich stops writing and exits 1 when the reader has gone; the exit code is ``PIPE_CLOSED`` here."""
        try:
            super().on_broken_pipe()
        except SystemExit:
            raise SystemExit(PIPE_CLOSED) from None


out = _Console(soft_wrap=True, markup=False, emoji=False)
err = _Console(stderr=True, soft_wrap=True, markup=False, emoji=False)
"""Both print text as it is: run names, agent names, paths and messages come from users, files and agents, and a
``[/]`` or ``:smile:`` in them must show as typed (as Rich markup it raised ``MarkupError``). A line that is styled
passes ``markup=True`` and ``escape``s what it puts in."""

def run_name(value: str | None) -> str | None:
    """``--name``'s check: a name given must say something (an empty one was taken for none, and a default made) and
    print as one plain line (``name_problem``)."""
    if value is None:
        return None
    from campus.scenarios.play import name_problem

    problem = name_problem(value)
    if problem is not None:
        raise typer.BadParameter(f"a run's name cannot be {value[:60]!r}: {problem}")
    return value


def seed_option(help: str | None = None) -> Any:
    """``--seed``: from 0 to ``MAX_SEED`` (what a run's stored seed can hold)."""
    return typer.Option(0, "--seed", min=0, max=MAX_SEED, help=help)


DB = typer.Option("runs.db", "--db", help="The SQLite file holding the runs (it must exist).")
NEW_DB = typer.Option("runs.db", "--db", help="The SQLite file holding runs (created if missing).")
_json_errors = [False]
"""Whether the command being run was given ``--json`` (set by ``JsonErrorsGroup`` as it parses the arguments): its
errors then also go to stdout as one JSON object."""


def json_option(help: str = "Print machine-readable JSON instead of a summary.") -> Any:
    """A command's ``--json``: with it, an error is also printed on stdout as ``{"error": ..., "exit_code": ...}``,
    so a script reading stdout gets JSON either way (``JsonErrorsGroup``, ``fail``)."""
    return typer.Option(False, "--json", help=help)


class JsonErrorsGroup(typer.core.TyperGroup):
    """The app's command group: a usage error (a bad option value, an unknown option or command, a missing argument)
    is reported as typer reports it and, when ``--json`` is among the arguments, also as ``{"error", "exit_code"}`` on
    stdout, as ``fail`` does for the errors a command finds itself (they are raised before the command's ``--json``
    is read)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        _json_errors[0] = "--json" in args  # anew for each command, so one run after another does not inherit it
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _USAGE_ERROR as error:
            if _json_errors[0]:
                usage = cast(_Usage, error)
                emit_json({"error": usage.format_message(), "exit_code": usage.exit_code})
            raise


class _Usage(Protocol):
    exit_code: int

    def format_message(self) -> str: ...


def _usage_error() -> type[Exception]:
    """Click's ``UsageError`` as typer carries it (newer typers vendor click and export only ``BadParameter``, a
    subclass of it)."""
    base = typer.BadParameter.__base__
    assert base is not None and issubclass(base, Exception)
    return base


_USAGE_ERROR = _usage_error()


JSON = json_option()
PRICES = typer.Option(None, "--prices", metavar="FILE", help="Model prices (USD per 1M input/output tokens) "
                      "added over the built-in table: TOML (*.toml) or JSON mapping 'provider/model' to {input, output}.")
WORLD_HELP = ("'generated' (the default: a campus from the seed) or 'stulife:DIR' (the published StuLife data); "
              "'generated@1' makes the campus as world generator 1 did (before 2026-11-29: three sections per "
              "compulsory course), 'generated:SEED' another seed's campus.")


def _scratch_dir(directory: str | None) -> str | None:
    if directory is not None and not (os.path.isdir(directory) and os.access(directory, os.W_OK | os.X_OK)):
        raise typer.BadParameter(f"{directory} is not a directory this process can write in")
    return directory


def scratch_option(what: str) -> Any:
    """A bench's ``--dir``: an existing directory it may write in, checked before any work (a usage error, exit 2)."""
    return typer.Option(None, "--dir", callback=_scratch_dir,
                        help=f"Where to put the scratch {what}: an existing directory (default: a temp dir).")


ROUNDS_HELP = ("Agent turns allowed per task. A task that carries its own round limit (as many of the "
               "published StuLife tasks do) keeps it: the task's limit wins, this one applies to every other task.")


@cache
def expected_errors() -> tuple[type[Exception], ...]:
    """Errors a command reports as one line (exit 2) rather than as a traceback."""
    from campus.kernel.agent import AgentUnavailable
    from campus.kernel.clock import TimeFormatError
    from campus.kernel.outputs import OutputError
    from campus.kernel.runner import SessionError
    from campus.kernel.store import StoreError
    from campus.replays.export import ExportFormatError
    from campus.replays.seek import SeekError

    return (StoreError, SessionError, SeekError, TimeFormatError, ExportFormatError, OutputError, ValueError,
            AgentUnavailable)


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"[bold red]error:[/] {escape(message)}", markup=True, highlight=False)
    if _json_errors[0]:
        emit_json({"error": message, "exit_code": code})
    raise typer.Exit(code)


def exists(path: str) -> bool:
    """Whether something is at ``path`` (one line, exit 2, for a path that cannot name a file: too long, ...)."""
    from campus.kernel.store import StoreError, path_exists

    try:
        return path_exists(path)
    except StoreError as error:
        fail(str(error))


@contextmanager
def open_db(path: str, *, must_exist: bool = True, read_only: bool = False) -> Iterator[EventStore]:
    """``read_only``: for a command that only reads; the file is never written (see ``SQLiteStore``)."""
    from campus.kernel.store import StoreError, disk_full, open_store, permissions, refusal

    if (must_exist or read_only) and path != ":memory:" and not exists(path):
        fail(f"no database at {path}; create one with 'campus run --db {path}'")
    try:
        store = open_store(path, read_only=read_only, holds_runs=must_exist)
    except StoreError as error:
        fail(str(error))
    try:
        yield store
    except expected_errors() as error:
        fail(str(error))
    except RecursionError:  # msgspec's, on a value edited to nest past ~1,000 levels where a reader decodes it directly
        fail(f"{path} is damaged: it holds JSON nested too deeply to read")
    except sqlite3.DatabaseError as error:  # a file damaged after it was opened, a disk that filled up, a read-only file
        if disk_full(error):
            fail(f"no room left to write {path} ({error}): nothing past its last commit was written")
        if permissions(error):  # a file this user may only read opens; its first write fails
            fail(str(refusal(path, error, "write")))
        if "Could not decode to UTF-8" in str(error):  # Python's sqlite3 on a text column edited to other bytes
            fail(f"{path} is damaged: it holds a text that is not valid UTF-8")
        fail(f"{path} is damaged: {error}")
    finally:
        store.close()


@contextmanager
def no_empty_db_left(path: str) -> Iterator[None]:
    """A database file the block creates is removed again if the block fails before any run is in it (bad input
    changes nothing, not even by leaving an empty database behind)."""
    fresh = path != ":memory:" and not exists(path)
    try:
        yield
    except BaseException:
        if fresh:
            _discard_empty_db(path)
        raise


def _discard_empty_db(path: str) -> None:
    if not Path(path).is_file():  # failed before making it (connecting now would make an empty one)
        return
    try:
        with closing(sqlite3.connect(path)) as conn:
            if conn.execute("SELECT count(*) FROM branches").fetchone()[0]:
                return
    except sqlite3.Error:
        return
    for suffix in ("", "-wal", "-shm"):
        Path(path + suffix).unlink(missing_ok=True)


def pairing_warning(a: Run, b: Run, force: bool) -> str | None:
    """Refuse (one line, exit 2) to compare runs whose tasks do not pair, unless ``force``; then the warning to show."""
    from campus.replays.diff import mismatches

    found = mismatches(a, b)
    if not found:
        return None
    what = f"{a.branch.id} and {b.branch.id} are not runs of the same world, term and rules ({'; '.join(found)})"
    if not force:
        fail(f"{what}, so their tasks do not pair; pass --force to compare them anyway")
    warning = f"compared with --force: {what}; task pairings, flips and the noise test mean nothing here"
    err.print(f"[bold yellow]warning:[/] {escape(warning)}", markup=True, highlight=False)
    return warning


def emit_json(value: Any) -> None:
    import msgspec

    sys.stdout.write(msgspec.json.encode(value).decode() + "\n")


def world_of(source: str | None, seed: int) -> WorldIndex:
    from campus.scenarios.play import load_world

    try:
        return load_world(source or "generated", seed)
    except ValueError as error:
        fail(str(error))


DISRUPTIONS_HELP = ("Include the mid-task disruption tasks (STT-Arena's nine conflict types x four solvability levels, "
                    "360 at scale 1, scored as DRS): on by default; "
                    "--no-disruptions gives the term without them.")

BUSY_HELP = ("The busy days (on by default): one a week from week 2, a day of streamed errands with deadlines and "
             "priorities, appointments that come first, and people (people.ask) who hold what the errands need; scored "
             "as SR and CS. --no-busy-days plays the term without them (the term before busy days, byte for byte).")



PARAPHRASE_MODEL = typer.Option(None, "--paraphrase-model", metavar="PROVIDER/NAME",
                                help="Have this model reword what people say (people.ask) before the student reads it; "
                                     "the words are recorded, so replay and verify never ask it again. Off by default: "
                                     "the template's words.")
PARAPHRASE_BASE_URL = typer.Option(None, "--paraphrase-base-url", metavar="URL",
                                   help="Where the paraphrase model is served, if not at its provider's URL.")


def paraphraser_of(model: str | None, base_url: str | None) -> Paraphrase | None:
    """The session's paraphraser for ``--paraphrase-model`` / ``--paraphrase-base-url``, or exit 2 with one line."""
    if model is None:
        if base_url is not None:
            fail("--paraphrase-base-url goes with --paraphrase-model")
        return None
    from campus.agents.paraphrase import make_paraphraser
    from campus.kernel.agent import AgentUnavailable

    try:
        return make_paraphraser(model, base_url)
    except (ValueError, AgentUnavailable) as error:
        fail(str(error))


def inputs_of(world_source: str | None, seed: int, scale: float, resume: str | None,
              disruptions: bool | None = None, busy_days: bool | None = None,
              check_ins: bool = False) -> tuple[WorldIndex, Term] | None:
    """The world and term of a new run (``None`` for a switch not given: its default, on); ``None`` when resuming
    (a run continues on its own world and term)."""
    from campus.scenarios.play import RunSpec, load_inputs

    if resume is not None:
        if world_source is not None or disruptions is not None or busy_days is not None or check_ins:
            fail("--world, --disruptions/--no-disruptions, --busy-days/--no-busy-days and --check-ins cannot be used "
                 "with --resume: a run continues on its own world and term")
        return None
    try:
        return load_inputs(RunSpec(world=world_source or "generated", seed=seed, scale=scale,
                                   disruptions=disruptions is not False, busy_days=busy_days is not False,
                                   check_ins=check_ins))
    except ValueError as error:
        fail(str(error))


PriceOf = Callable[[str], "Price | None"]


def price_lookup(path: Path | None) -> PriceOf:
    """The price of a run's agent (by its spec): ``None`` for a built-in agent or a model the table does not name."""
    from campus.replays.prices import load_prices, price_for

    try:
        table = load_prices(path)
    except ValueError as error:
        fail(str(error))

    def price_of(agent: str) -> Price | None:
        return price_for(table, model_key(agent))

    return price_of


def model_key(agent: str) -> str | None:
    """How the price table names a run's model (``provider/model``; inspect_ai names its models so too); ``None`` for
    an agent that is no model."""
    from campus.agents.llm import LLMConfig
    from campus.agents.registry import INSPECT

    if agent.startswith(INSPECT):
        return agent[len(INSPECT):]
    return LLMConfig.from_spec(agent).price_key() if agent.startswith("llm:") else None


def reflow_help(app: typer.Typer) -> None:
    """Give every command of ``app`` and of its groups its docstring with each paragraph's lines joined.

    typer (0.2x) keeps the line breaks of every paragraph after the first, and rich then wraps those lines again:
    a docstring wrapped at 120 columns came out as alternating long and short lines in an 80-column ``--help``."""
    for info in app.registered_commands:
        text = info.help or (info.callback.__doc__ if info.callback is not None else None)
        if isinstance(text, str):
            info.help = reflowed(text)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            reflow_help(group.typer_instance)


def reflowed(text: str) -> str:
    """``text`` (a docstring) with the lines of each paragraph joined by spaces; a line that starts a list item
    (``- ``) or is indented stays on its own, and a paragraph marked ``\\b`` (click's "do not rewrap") is left alone."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(paragraph if paragraph.startswith("\b") else _joined(paragraph) for paragraph in paragraphs)


def _joined(paragraph: str) -> str:
    first, *rest = paragraph.split("\n")
    return first + "".join(f"\n{line}" if line.startswith(("- ", " ")) else f" {line}" for line in rest)

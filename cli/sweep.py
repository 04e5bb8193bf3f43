"""``campus sweep``: many (agent, seed) runs in parallel into one database, then a comparison table.

Kept apart from ``cli/main.py`` (which registers it) because it owns its own progress display
and table; the playing itself is ``lab.sweep``, the numbers ``reports.comparison``.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from functools import partial
from typing import TYPE_CHECKING, Any

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from campus.agents import BUILTIN
from campus.cli.common import ROUNDS_HELP, err, fail, json_option, no_empty_db_left, out
from campus.scenarios.rounds import DEFAULT_ROUND_LIMIT

if TYPE_CHECKING:
    from campus.kernel.agent import Agent
    from campus.kernel.store import EventStore
    from campus.lab.sweep import AgentSpec, PlannedRun, RunResult, SweepSettings
    from campus.reports.comparison import Metric
    from campus.reports.stats import Estimate, PairedDifference
    from campus.scenarios.task import Term
    from campus.world.index import WorldIndex


def build_agent(spec: AgentSpec, store: EventStore, term: Term, world: WorldIndex) -> Agent:
    """Runs in the worker processes."""
    from campus.agents.registry import resolve

    return resolve(spec.name, store=store, term=term, world=world)[0]


def sweep(
    ctx: typer.Context,
    agents: list[str] = typer.Option(..., "--agent", help=f"An agent to play every seed (repeat for more): {', '.join(BUILTIN)}, "
                                                           "llm:PROVIDER/MODEL (e.g. llm:openai/gpt-4.1), "
                                                           "llm:model=...;base_url=...;... or recorded:RUN. "
                                                           "Model keys come from the provider's variable."),
    seeds: str = typer.Option(..., "--seeds", help="Seeds as a range, a list or both: 1-20, 3, 1,4,7, 1-3,9."),
    trials: int = typer.Option(1, "--trials", min=1, help="Play each (agent, seed) this many times (runs -t2, -t3, ...); "
                                                          "with 2 or more the table adds pass^k and the flip rate."),
    workers: int = typer.Option(os.cpu_count() or 1, "--workers", min=1, help="Worker processes playing at once (default: one per CPU)."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="Play this many runs at once on threads of this process "
                                                                    "instead of worker processes: for model agents, which "
                                                                    "wait on the network. Each run has its own connection."),
    ray: str = typer.Option(None, "--ray", metavar="ADDRESS",
                            help="Play the runs as Ray tasks, each into a SQLite file of its own, merged into --db "
                                 "as they finish: 'local' starts Ray on this machine, 'auto' joins the cluster this "
                                 "machine belongs to (after 'ray start'), ray://HOST:10001 a remote one."),
    scale: float = typer.Option(1.0, "--scale", help="Term size relative to the paper's task counts."),
    disruptions: bool = typer.Option(True, "--disruptions/--no-disruptions",
                                     help="Play the term with its mid-task disruption tasks (scored as DRS), or without."),
    busy_days: bool = typer.Option(True, "--busy-days/--no-busy-days",
                                   help="Play the term with its busy days (scored as SR and CS), or without."),
    db: str = typer.Option("runs.db", "--db", help="The SQLite file all runs go into (created if missing)."),
    rounds: int = typer.Option(DEFAULT_ROUND_LIMIT, "--rounds", min=1, help=ROUNDS_HELP),
    prefix: str = typer.Option("", "--prefix", help="Name runs PREFIX-<agent>-s<seed> instead of <agent>-s<seed>."),
    as_json: bool = json_option("Print machine-readable JSON instead of the table."),
) -> None:
    """Play every agent on every seed in parallel, then compare the agents.

    Each seed has its own generated world and term, shared by all agents,
    so agents are compared seed by seed. Runs are named <agent>-s<seed>
    (<agent>-s<seed>-t<k> for trial k > 1).
    Running the same sweep again keeps finished runs, continues interrupted
    ones and plays the missing ones. The table shows each agent's mean over
    seeds ± the half-width of its 95% t-interval, and the paired difference
    between agents, starred when its interval excludes 0. With --trials K,
    a seed's value is the mean of its trials, and each agent also gets
    pass^k (k = 1..K: the chance that k trials of a task all succeed) and
    the flip rate (the share of tasks not decided the same in every trial).
    """
    import msgspec
    from campus.kernel.store import StoreError
    from campus.lab.ray_sweep import play_on_ray
    from campus.lab.sweep import SweepError, SweepSettings, parse_seeds, play_sweep, play_threads
    from campus.reports.comparison import compare

    with no_empty_db_left(db):  # a sweep that fails before any run leaves no empty database
        try:
            specs = _specs(agents)
            settings = SweepSettings(db=db, scale=scale, rounds=rounds, prefix=prefix, trials=trials,
                                     disruptions=disruptions, busy_days=busy_days)
            chosen = parse_seeds(seeds)
            _check_recordings(db, agents, chosen, scale)
            planned = _plan(settings, specs, chosen)
            with _progress(planned, enabled=not as_json) as progress:
                if ray is not None:
                    play_on_ray(settings, planned, ray, build_agent, progress)
                elif concurrency > 1:
                    play_threads(settings, planned, concurrency, build_agent, progress)
                else:
                    play_sweep(settings, planned, workers, build_agent, progress, _worker_logs(ctx))
            results = _collect(settings, planned)
        except (ValueError, SweepError, StoreError) as error:
            fail(str(error))
        except KeyboardInterrupt:
            fail("interrupted; finished runs are kept, and the same command continues the sweep", code=130)
    comparison = compare(results, [spec.label for spec in specs])
    runs = [{key: value for key, value in asdict(r).items() if key not in ("outcomes", "cells")} for r in results]
    report = {"db": db, "scale": scale, "disruptions": disruptions, "busy_days": busy_days, "rounds": rounds,
              "trials": trials, "seeds": sorted({r.seed for r in planned}), "agents": [spec.label for spec in specs],
              "agent_specs": {spec.label: spec.name for spec in specs}, "runs": runs} | comparison
    if as_json:
        sys.stdout.write(msgspec.json.encode(report).decode() + "\n")
    else:
        _print_report(report, results)


def _worker_logs(ctx: typer.Context) -> Callable[[], None]:
    """The operator-log settings of this command (``--log-json``, ``-v``), for the worker processes."""
    from campus.kernel.logs import configure as configure_logs

    options = ctx.parent.params if ctx.parent is not None else {}
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(options.get("verbose") or 0, 2)]
    return partial(configure_logs, json=bool(options.get("log_json")), level=level)


def _specs(names: list[str]) -> list[AgentSpec]:
    from campus.agents.registry import check_name, run_label
    from campus.lab.sweep import AgentSpec

    if len(set(names)) != len(names):
        raise ValueError(f"each agent may be named once: {', '.join(names)}")
    recorded = [check_name(name) for name in names]
    return [AgentSpec(name, run_label(name)) for name in recorded]


def _check_recordings(db: str, names: list[str], seeds: list[int], scale: float) -> None:
    """``recorded:RUN`` replays one run on that run's own seed and scale: a sweep asking for another, or a run the
    database does not hold, is refused before anything is played (a worker failed on it mid-sweep, leaving a run
    behind and saying that the same command would continue)."""
    from pathlib import Path

    from campus.agents.registry import recorded_source
    from campus.kernel.store import open_store
    from campus.replays.status import term_scale

    sources = [(name, source) for name in names for source in [recorded_source(name)] if source is not None]
    if not sources:
        return
    if not Path(db).is_file():
        raise ValueError(f"{sources[0][0]} replays run {sources[0][1]}, and there is no database at {db} to hold it")
    store = open_store(db, read_only=True)
    try:
        for name, source in sources:
            info = store.branch(source)
            own = term_scale(store, info.term_hash)
            if seeds != [info.seed] or (own is not None and own != scale):
                at = f"--seeds {info.seed}" + (f" --scale {own:g}" if own is not None else "")
                raise ValueError(f"{name} replays run {source} on its own seed and scale: sweep it with {at}")
    finally:
        store.close()


def _plan(settings: SweepSettings, specs: list[AgentSpec], seeds: list[int]) -> list[PlannedRun]:
    from campus.kernel.store import open_store
    from campus.lab.sweep import plan_sweep
    from campus.scenarios.term import check_scale

    check_scale(settings.scale)
    if settings.db == ":memory:":
        raise ValueError("a sweep's workers share one database file; give --db a path")
    store = open_store(settings.db)  # creates the file, its tables and WAL mode before any worker starts
    try:
        return plan_sweep(store, specs, seeds, settings)
    finally:
        store.close()


def _collect(settings: SweepSettings, planned: list[PlannedRun]) -> list[RunResult]:
    from campus.kernel.store import open_store
    from campus.lab.sweep import collect

    store = open_store(settings.db)
    try:
        return collect(store, planned)
    finally:
        store.close()


# ---------------------------------------------------------------- progress


@contextmanager
def _progress(planned: list[PlannedRun], enabled: bool) -> Iterator[Any]:
    """One bar over the runs to play, moved by each task a worker ends; only when stderr is a terminal."""
    from campus.kernel.clock import label

    to_play = sum(run.action != "keep" for run in planned)
    if not enabled or not err.is_terminal or not to_play:
        yield None
        return
    columns = (TextColumn("runs"), BarColumn(), TextColumn("{task.completed:.1f}/{task.total:.0f}"),
               TimeRemainingColumn(), TextColumn("{task.fields[now]}", markup=False))
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("runs", total=to_play, now="")
        playing: dict[str, list[Any]] = {}
        finished = 0

        def update(message: tuple[Any, ...]) -> None:
            nonlocal finished
            kind, run = message[0], message[1]
            if kind == "start":
                playing[run] = [message[2], message[3], ""]
            elif kind == "task" and run in playing:
                playing[run][0] += 1
                playing[run][2] = label(message[2])
            elif kind == "done":
                playing.pop(run, None)
                finished += 1
            share = sum(done / total for done, total, _ in playing.values() if total)
            now = "; ".join(f"{name}: {when}" for name, (_, _, when) in playing.items() if when)
            bar.update(task, completed=finished + share, now=now)

        yield update


# ---------------------------------------------------------------- table


def _print_report(report: dict[str, Any], results: list[RunResult]) -> None:
    from campus.reports.comparison import METRICS

    agents = report["agents"]
    seeds = report["seeds"]
    trials = f" x {report['trials']} trials" if report["trials"] > 1 else ""
    table = Table(title=f"{len(agents)} agent(s) x {len(seeds)} seed(s){trials}, scale {report['scale']:g}, "
                        f"{report['rounds']} rounds per task ({report['db']})")
    table.add_column("metric")
    for agent in agents:
        table.add_column(agent, justify="right")
    for pair in report["paired"]:
        table.add_column(f"{pair['b']} - {pair['a']}", justify="right")
    for metric in METRICS:
        cells = [_estimate(report["summary"][agent][metric.key], metric) for agent in agents]
        cells += [_difference(pair["metrics"][metric.key], metric) for pair in report["paired"]]
        table.add_row(metric.title, *cells)
    consistency = report["consistency"]
    if any(consistency.values()):
        for k in range(1, report["trials"] + 1):
            table.add_row(f"pass^{k}", *[_share(c.pass_hat_k.get(k) if c else None) for c in map(consistency.get, agents)])
        table.add_row("flip rate", *[_share(c.flip_rate if c else None) for c in map(consistency.get, agents)])
        if any(c and c.drs for c in consistency.values()):
            for k in range(1, report["trials"] + 1):
                table.add_row(f"DRS pass^{k}", *[_share(c.drs.pass_hat_k.get(k) if c and c.drs else None)
                                                 for c in map(consistency.get, agents)])
    out.print(table)
    if any(consistency.values()):
        out.print(f"pass^k: the chance that k of the {report['trials']} trials of a task all succeed, averaged over "
                  f"every seed's scored tasks (DRS: its disruption tasks); flip rate: the share of those tasks not "
                  f"decided the same in every trial.", highlight=False)
        _print_cells(report, agents)
    confidence = f"{report['confidence']:.0%}"
    out.print(f"mean ± half-width of the {confidence} t-interval over seeds; the difference columns pair the "
              f"agents seed by seed, * = its {confidence} interval excludes 0 (more than seed-to-seed noise); "
              f"rates in percentage points.", highlight=False)
    actions = {action: sum(r.action == action for r in results) for action in ("new", "resume", "keep")}
    out.print(f"{len(results)} runs: {actions['new']} played, {actions['resume']} continued, {actions['keep']} kept "
              f"from before; all in {report['db']}", highlight=False)


def _print_cells(report: dict[str, Any], agents: list[str]) -> None:
    """pass^1 and pass^K of every STT-Arena cell (sub-type x level), one column per agent."""
    from campus.reports.comparison import cell_order

    consistency = report["consistency"]
    cells = sorted({cell for c in consistency.values() if c for cell in c.cells}, key=cell_order)
    if not cells:
        return
    last = report["trials"]
    table = Table(title=f"disruption cells: pass^1 / pass^{last} (tasks over all seeds)")
    table.add_column("cell")
    for agent in agents:
        table.add_column(agent, justify="right")
    for cell in cells:
        shown = []
        for agent in agents:
            found = consistency[agent].cells.get(cell) if consistency[agent] else None
            shown.append("n/a" if found is None else
                         f"{_share(found.pass_hat_k[1])} / {_share(found.pass_hat_k[last])} ({found.tasks})")
        table.add_row(cell, *shown)
    out.print(table)


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def _number(value: float, metric: Metric, signed: bool = False) -> str:
    """Rates in percent with one decimal, points and turns with two."""
    shown, digits = (value * 100, 1) if metric.is_rate else (value, 2)
    return f"{shown:+.{digits}f}" if signed else f"{shown:.{digits}f}"


def _estimate(estimate: Estimate, metric: Metric, signed: bool = False) -> str:
    if estimate.mean is None:
        return "n/a"
    unit = "%" if metric.is_rate and not signed else ""
    mean = _number(estimate.mean, metric, signed) + unit
    if estimate.half_width is None:
        return f"{mean} (n=1)"
    return f"{mean} ± {_number(estimate.half_width, metric)}"


def _difference(paired: PairedDifference, metric: Metric) -> str:
    shown = _estimate(paired.difference, metric, signed=True)
    return f"{shown} *" if paired.exceeds_noise else shown

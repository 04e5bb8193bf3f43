"""``campus term audit``: play the oracle, the controls and the adversaries on many seeds and check the term."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from campus.cli.common import fail, json_option

if TYPE_CHECKING:
    from campus.lab.audit import SeedResult


out = Console(soft_wrap=True, markup=False, emoji=False)
err = Console(stderr=True, soft_wrap=True, markup=False, emoji=False)
"""Text as it is (a ``--world`` path is shown in a table's title), as ``cli.common``'s consoles."""


def audit(
    seeds: str = typer.Option("0-99", "--seeds", help="Seeds to audit: '0-99', '3', '1,4,7' or a mix."),
    world_source: str = typer.Option("generated", "--world", metavar="SOURCE", help="'generated' or 'stulife:DIR'."),
    scale: float = typer.Option(1.0, "--scale", help="Task counts relative to the paper's."),
    workers: int = typer.Option(0, "--workers", min=0, help="Worker processes (0: one per core)."),
    disruptions: bool = typer.Option(True, "--disruptions/--no-disruptions",
                                     help="Audit the term with its mid-task disruption tasks, and play the disruption "
                                          "controls (stale, abstainer, optimist) on them: on by default."),
    busy_days: bool = typer.Option(True, "--busy-days/--no-busy-days", help="Audit the term with its busy days, and play "
                                   "the busy-day controls guesser, sprayer, fifo, learner and forgetful on them."),
    as_json: bool = json_option("Print machine-readable JSON instead of tables."),
) -> None:
    """Check every seed's term: oracle at 100 %, controls in order, guessers at chance, absent and dawdler as expected,
    and, with disruptions, stale failing every disruption task, abstainer every solvable one, optimist every impossible one.

    Exits 1 when anything is violated (each violation is listed), 2 on bad input.
    """
    from campus.lab.audit import summarise
    from campus.lab.sweep import parse_seeds
    from campus.scenarios.term import check_scale
    from campus.world.stulife import StuLifeDataError

    try:
        chosen = parse_seeds(seeds)
    except ValueError as error:
        fail(str(error))
    try:
        check_scale(scale)
    except ValueError as error:
        fail(str(error))
    kind, _, directory = world_source.partition(":")
    if world_source != "generated" and (kind != "stulife" or not os.path.isdir(directory)):
        fail(f"unknown world {world_source!r}; use --world generated or --world stulife:DIR (an existing directory)")
    count = workers or os.cpu_count() or 1
    try:
        results = _audit(chosen, world_source, scale, count, disruptions, busy_days)
    except StuLifeDataError as error:  # the directory exists but does not hold the data (its workers load it)
        fail(str(error))
    except KeyboardInterrupt:
        fail("interrupted; an audit keeps nothing, so the same command starts it again", code=130)
    summary = summarise(results)
    if as_json:
        out.print_json(json.dumps(summary))
    else:
        _print(summary, world_source)
    if summary["violations"]:
        raise typer.Exit(1)


def _audit(chosen: list[int], world_source: str, scale: float, count: int, disruptions: bool,
           busy_days: bool) -> list[SeedResult]:
    """Every seed's ``SeedResult``, with a progress bar on a terminal."""
    from campus.lab.audit import run_audit

    if err.is_terminal:
        columns = (TextColumn("audit"), BarColumn(), MofNCompleteColumn(), TextColumn("seeds"), TimeRemainingColumn())
        with Progress(*columns, console=err, transient=True) as bar:
            task = bar.add_task("audit", total=len(chosen))

            def advance(_: SeedResult) -> None:
                bar.update(task, advance=1)

            return run_audit(chosen, world_source, scale, count, on_seed=advance, disruptions=disruptions, busy=busy_days)
    return run_audit(chosen, world_source, scale, count, disruptions=disruptions, busy=busy_days)


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def _print(summary: dict[str, Any], world: str) -> None:
    from campus.agents.adversarial import OPTION_GUESSES, POOLED_GUESSES, REMEMBERED_GUESSES
    from campus.lab.audit import (AGENTS, COURSE_GUESSES, DODGE_GUESS, GUESSERS, LEARNED_CEILING, LEARNED_COUNT_CEILING,
                                  LIBRARY_GUESS, PROBE_GUESSES)
    from campus.scenarios.busy_days import BUSY_CONTROLS

    seeds = summary["seeds"]
    table = Table(title=f"Success per scenario (%), {len(seeds)} seeds on {world}")
    table.add_column("scenario")
    for name in AGENTS:
        table.add_column(name, justify="right")
    for scenario, row in summary["success"].items():
        table.add_row(scenario, *(_pct(row.get(name, 0.0)) for name in AGENTS))
    out.print(table)
    headline = Table(title="Headline metrics (mean over seeds)")
    headline.add_column("metric")
    for name in AGENTS:
        headline.add_column(name, justify="right")
    for metric in ("stugpa", "ltrr", "pis", "success"):
        values = summary["headline"].get
        headline.add_row(metric, *(f"{values(name, {}).get(metric, 0.0):.2f}" if metric == "stugpa"
                                   else _pct(values(name, {}).get(metric, 0.0)) for name in AGENTS))
    out.print(headline)
    for name in (*GUESSERS, *OPTION_GUESSES, *POOLED_GUESSES, *REMEMBERED_GUESSES, *PROBE_GUESSES):
        g = summary["guessing"][name]
        what = "memory-probe guesses" if name in PROBE_GUESSES else "long-term questions"
        out.print(f"{name}: {g['right']}/{g['questions']} {what} right = {_pct(g['accuracy'])} % "
                  f"(95 % interval {_pct(g['low'])}-{_pct(g['high'])}), chance {_pct(g['chance'])} %", highlight=False)
    for name, what in (*((name, "long-term course steps right") for name in COURSE_GUESSES),
                       (LIBRARY_GUESS, "library tasks passed"), (DODGE_GUESS, "passed")):
        g = summary["guessing"][name]
        if g["questions"]:
            out.print(f"{name}: {g['right']}/{g['questions']} {what} = {_pct(g['accuracy'])} % (95 % interval "
                      f"{_pct(g['low'])}-{_pct(g['high'])}), chance {_pct(g['chance'])} %", highlight=False)
    learned = summary["learned_lists"]
    out.print(f"week summaries answered with another seed's lists of the week: mean F1 {learned['mean_f1']:.3f} "
              f"(largest {learned['max_f1']:.2f}) over {learned['probes']:g} (at most {LEARNED_CEILING:g})"
              if learned["probes"] else "week summaries answered with another seed's lists: not measured (one seed)",
              highlight=False)
    counts = summary["learned_counts"]
    out.print(f"email counts answered with another seed's: {counts['right']:g}/{counts['probes']:g} right = "
              f"{_pct(counts['accuracy'])} % (the same answers shuffled {_pct(counts['shuffled'])} %; at most "
              f"{_pct(LEARNED_COUNT_CEILING)} %)" if counts["probes"]
              else "email counts answered with another seed's: none to answer (one seed, or no count asked)",
              highlight=False)
    named = summary["world_recipients"]
    out.print(f"email recipients named from the subject and the world alone: {named['right']}/{named['probes']} "
              "(none may be)", highlight=False)
    absent = summary["absent"]
    out.print(f"absent: at most {absent['attendance']:g} attendance points, {absent['exam']:g} in-room exam questions "
              f"and {absent['walks']:g} disruption tasks that need a walk, on any seed", highlight=False)
    out.print(f"canvasser (each email also to two others): {summary['canvasser']} scored tasks judged otherwise than "
              "they must be (every task with an email to send failed, every other passed)", highlight=False)
    swept = summary["sweeper"]
    out.print(f"sweeper (remembers nothing, searches the academic buildings from the start): {swept['attended']} tasks "
              f"held from their start attended, against {swept['one_building']} in the building holding the most of "
              "them (at most that, seed by seed); a student going to a compulsory first-semester section the catalogue "
              f"shows meeting then would attend {swept['catalogue']:.1f} of them, and one going to the building likeliest "
              f"to hold its class by how timetables are drawn {swept['likeliest']:.1f} (both reported, not held)",
              highlight=False)
    late = summary["lateness"]
    out.print(f"largest lateness of a released task: oracle {late['oracle']} min, dawdler {late['dawdler']} min",
              highlight=False)
    for name, kinds in summary["disruptions"].items():
        shown = ", ".join(f"{kinds[kind][0]}/{kinds[kind][1]} {kind}" for kind in ("solvable", "impossible"))
        out.print(f"disruption tasks passed by {name}: {shown}", highlight=False)
    if summary.get("busy_days") is not None:
        busy = summary["busy_days"]
        wrong = ", ".join(f"{name} {busy[name]}" for name in ("oracle", *BUSY_CONTROLS))
        recurrence = ("not measured (no seed's term has two busy days)" if busy["learner_recurrence"] is None else
                      f"learner at most {busy['learner_recurrence']:g}, forgetful at least {busy['forgetful_recurrence']:g}")
        out.print(f"busy-day checkpoints judged otherwise than they must be: {wrong}; same-checkpoint recurrence: "
                  f"{recurrence}", highlight=False)
    out.print(f"seeds that did not generate: {', '.join(map(str, summary['failed_seeds'])) or 'none'}", highlight=False)
    if summary["violations"]:
        out.print(f"{len(summary['violations'])} violations", style="bold red")
        for line in summary["violations"]:
            out.print(f"  {line}", highlight=False)
    else:
        out.print("no violations", style="bold green")

"""``campus probe``: memory probes over a run's own past, asked in forks and scored exactly (BEAM's ten abilities)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from campus.agents import READERS, RECENT_STEPS
from campus.agents.options import AgentOptions
from campus.cli.agents import with_agent_options
from campus.cli.common import DB, JSON, emit_json, fail, open_db, out
from campus.scenarios.abilities import ABILITIES

if TYPE_CHECKING:
    from campus.lab.probing import ProbeReport
    from campus.scenarios.play import Run


@with_agent_options
def probe(
    run_id: str = typer.Argument(..., metavar="RUN", help="The run whose past is asked about (it is never written)."),
    db: str = DB,
    agent: str = typer.Option(None, "--agent", help=f"Who answers: any agent name (default: the run's own), or a reader "
                                                    f"that bounds the score: {', '.join(READERS)}."),
    at_step: int = typer.Option(None, "--at-step", min=0,
                                help="Ask right after the last task that ended by this event (seq). Default: the run's last task."),
    every_week: bool = typer.Option(False, "--every-week", help="Ask after the last task of every week (one fork each)."),
    abilities: str = typer.Option(",".join(ABILITIES), "--abilities",
                                  help="Comma-separated abilities to ask about (default: all ten)."),
    per_ability: int = typer.Option(2, "--per-ability", min=1, help="Probes per ability at each point (abstention: pairs)."),
    window: int = typer.Option(None, "--window", min=1, metavar="N",
                               help=f"With --agent recent-only: how many of its own latest steps (replies) the reader "
                                    f"sees back from each question (default {RECENT_STEPS}). A smaller window forgets "
                                    "sooner, so its scores fall at a shorter distance; the forks record it as "
                                    "recent-only:N."),
    as_json: bool = JSON,
    agent_options: AgentOptions = AgentOptions(),
) -> None:
    """Ask the agent about its own past and score the answers exactly, as BEAM's ten-ability vector.

    Each point forks the run (RUN~probe-SEQ) and releases the probes there as tasks; the agent
    keeps the memory it had at that point. Questions and answers come from the log (no model,
    no judge); the report gives each ability, their unweighted mean, and both per distance bin
    between the evidence and the question (events and simulated days).
    """
    import msgspec
    from campus.agents.registry import is_llm, resolve
    from campus.kernel.agent import AgentUnavailable
    from campus.kernel.store import StoreError
    from campus.lab.probing import probe_run
    from campus.scenarios.play import open_run

    if at_step is not None and every_week:
        fail("--at-step and --every-week choose the points in two different ways; give one of them")
    chosen = [name.strip() for name in abilities.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in ABILITIES]
    if unknown or not chosen:
        fail(f"unknown ability {unknown[0] if unknown else '(none given)'!r}; choose from: {', '.join(ABILITIES)}")
    if window is not None and agent != "recent-only":
        given = f"--agent {agent}" if agent else "the run's own agent"
        fail(f"--window sets how far back the recent-only reader sees: give it with --agent recent-only (not {given})")
    with open_db(db) as store:
        current = open_run(store, run_id)
        name = f"recent-only:{window}" if window is not None else agent or current.branch.agent
        try:
            _, recorded = resolve(name, agent_options, store=store, term=current.term, world=current.world)
            options = agent_options if is_llm(name) else AgentOptions()

            def player(fork: Run) -> Any:
                return resolve(recorded, options, store=fork.store, term=fork.term, world=fork.world,
                               branch=fork.branch.id)[0]

            report = probe_run(current, player, recorded, at_step=at_step, every_week=every_week,
                               abilities=[a for a in ABILITIES if a in chosen], per_ability=per_ability)
        except (ValueError, StoreError, AgentUnavailable) as error:
            fail(str(error))
    if as_json:
        emit_json(msgspec.to_builtins(report))
        return
    _print(report)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _print(report: ProbeReport) -> None:

    bins = list(report.by_events)
    table = Table(title=f"Memory probes of {report.run} answered by {report.agent}")
    table.add_column("ability", no_wrap=True)
    table.add_column("score", justify="right")
    for name in bins:  # distance bins in events to the evidence ("100-1k"), or no such distance
        table.add_column(f"{name} ev" if name[:1].isdigit() or name[:1] in "<>" else name, justify="right")
    for ability in ABILITIES:
        table.add_row(ability, _pct(report.abilities[ability]), *(_pct(report.by_events[b][ability]) for b in bins))
    out.print(table)
    days = ", ".join(f"{name}: {_pct(_mean(vector))}" for name, vector in report.by_days.items())
    asked = sum(len(point.asked) for point in report.points)
    out.print(f"overall {_pct(report.overall)} over {asked} probes at {len(report.points)} "
              f"point{'' if len(report.points) == 1 else 's'} "
              f"({', '.join(p.branch for p in report.points[:3])}{', ...' if len(report.points) > 3 else ''})",
              highlight=False, markup=False)
    out.print(f"by days since the evidence: {days}", highlight=False, markup=False)
    out.print(f"stale answers {_pct(report.stale_rate)}, over-abstention {_pct(report.over_abstention)}, "
              f"ordering coverage {_pct(report.ordering_coverage)}, summary precision {_pct(report.summary_precision)} "
              f"recall {_pct(report.summary_recall)}", highlight=False, markup=False)
    if report.skipped:
        out.print(f"skipped {len(report.skipped)} weekly point(s) whose log held nothing to ask about yet (after steps "
                  f"{', '.join(map(str, report.skipped))})", highlight=False, markup=False)


def _mean(vector: dict[str, float | None]) -> float | None:
    values = [v for v in vector.values() if v is not None]
    return sum(values) / len(values) if values else None


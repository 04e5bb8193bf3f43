"""The ``campus`` command line: a thin layer over the kernel, scenarios, agents and replays.

Every command prints a readable summary by default and machine-readable JSON with
``--json``. Errors are one line on stderr and exit code 2 (under ``--json`` also a JSON object on stdout);
``verify`` exits 1 when a run does not verify.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from campus.agents.options import AgentOptions
from campus.cli.agents import AGENT_HELP, with_agent_options
from campus.cli.common import (BUSY_HELP, DB, DISRUPTIONS_HELP, JSON, NEW_DB, JsonErrorsGroup, PARAPHRASE_BASE_URL, PARAPHRASE_MODEL, PRICES,
                               ROUNDS_HELP, WORLD_HELP, emit_json, err, expected_errors, fail,
                               PIPE_CLOSED, inputs_of, model_key, no_empty_db_left, open_db, out, pairing_warning, paraphraser_of, price_lookup,
                               reflow_help, run_name, scratch_option, seed_option, world_of)
from campus.cli.progress import task_progress
from campus.cli.prompt import prompt as prompt_command
from campus.cli.report import report as report_command
from campus.cli.audit import audit as audit_command
from campus.cli.sweep import sweep as sweep_command
from campus.cli.mcp import mcp as mcp_command
from campus.cli.probe import probe as probe_command
from campus.scenarios.rounds import DEFAULT_ROUND_LIMIT

if TYPE_CHECKING:
    from campus.replays.provenance import Provenance
    from campus.scenarios.play import Run, RunSpec
    from campus.scenarios.task import Term
    from campus.world.index import WorldIndex
    from campus.world.model import World
    from campus.world.stulife import ImportReport

CHECK_INS_HELP = ("Add the weekly memory check-ins: a counsellor asks a few questions about what the student did "
                  "(BEAM's abilities, answers drawn from the log at the check-in), scored as MPS beside StuGPA.")

app = typer.Typer(
    cls=JsonErrorsGroup,
    help="An event-sourced campus for agents: run a term, then replay, fork, verify and diff it.",
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
)
world_app = typer.Typer(help="Generate and inspect campus worlds.", add_completion=False)
term_app = typer.Typer(help="Generate and inspect terms (the tasks of a semester).", add_completion=False)
bench_app = typer.Typer(help="Measure the kernel on this machine. Every timing bench also prints the machine's pace (CPU seconds of a fixed loop before and after, against a quiet machine's 0.28 s): figures taken at a slower pace say little about the targets.", add_completion=False)
app.add_typer(world_app, name="world")
app.add_typer(term_app, name="term")
app.add_typer(bench_app, name="bench")
app.command(name="sweep")(sweep_command)
term_app.command(name="audit")(audit_command)
app.command(name="report")(report_command)
app.command(name="prompt")(prompt_command)
app.command(name="mcp")(mcp_command)
app.command(name="probe")(probe_command)

AGENT = typer.Option("oracle", "--agent", help=AGENT_HELP)

MANY_BRANCHES = 50
"""Above this many new branches, a command asks for --yes."""


def _play(run: Run, agent: Any, db: str, *, show_progress: bool, max_steps: int | None = None, paraphrase: Any = None) -> None:
    """Play ``run``; an error stops it with one line that names the run and how to go on."""
    from campus.kernel.recorded import RecordingError
    from campus.kernel.store import RunHeld, disk_full
    from campus.replays.status import run_status

    remaining = len(run.term.tasks) - len(run.ended_tasks())
    stops: tuple[type[BaseException], ...] = (KeyboardInterrupt, *expected_errors())
    try:
        with task_progress(err, remaining, "playing", show_progress) as tick:
            hook = None if tick is None else (lambda state, ended: tick(state.now))
            run.session(agent, on_task_end=hook, paraphrase=paraphrase).run(max_steps=max_steps)
    except stops as error:
        if isinstance(error, RunHeld):
            fail(f"{error}: wait for it to stop, or stop that process, before continuing the run")
        interrupted = isinstance(error, KeyboardInterrupt)
        stopped, code = ("interrupted", 130) if interrupted else (str(error), 2)  # 130: the shell's code for Ctrl-C
        if disk_full(error):
            stopped = f"no room left to write {db}: nothing past the last commit was written; free some space first"
        status = run_status(run.store, run.branch.id)
        if status.state == "abandoned" and run.branch.parent is None:
            fail(f"{stopped} (run {run.branch.id} has no reply yet and is hidden from 'campus runs'; "
                 f"the same command plays into it again)", code)
        if isinstance(error, RecordingError):  # a resume would ask the same recording again
            fail(f"{stopped} (run {run.branch.id} {status}; a recording goes no further: to go on, fork it with "
                 f"another agent: campus fork {run.branch.id} --db {db} --at-step {status.head} --agent AGENT)", code)
        fail(f"{stopped} (run {run.branch.id} {status}; continue it with: campus run --db {db} --resume {run.branch.id})",
             code)


def _start(store: Any, spec: RunSpec, inputs: tuple[WorldIndex, Term]) -> Run:
    """A new run of ``spec``, or the abandoned run that the same command left before its first reply."""
    from campus.events import genesis_hash
    from campus.kernel.runner import run_config
    from campus.replays.status import abandoned_twin
    from campus.scenarios.play import open_run, slug, start_run

    world, term = inputs
    base = spec.branch_id or f"{slug(spec.label or spec.agent)}-s{spec.seed}"
    genesis = genesis_hash(world.hash, term.hash, spec.seed, run_config(spec.round_limit), spec.agent)
    twin = abandoned_twin(store, base, spec.agent, genesis)
    return open_run(store, twin) if twin is not None else start_run(store, spec, inputs)


def _summary(run: Run) -> dict[str, Any]:
    from campus.scenarios.scorecard import scorecard

    head, final_hash = run.store.head(run.branch.id)
    return {
        "run": run.branch.id,
        "agent": run.branch.agent,
        "seed": run.branch.seed,
        "events": head,
        "final_hash": final_hash,
        "finished": any(r.kind == "run_ended" for r in run.store.rows(run.branch.id, head, head)),
        "scorecard": scorecard(run.term, run.ended_tasks()),
    }


def _metrics_line(card: dict[str, Any]) -> str:
    gpa = card["stugpa"]
    points = ", ".join(f"{name} {value:g}" for name, value in gpa["points"].items())
    rates = ", ".join(f"{name} {row['success_rate']:.1%}" for name, row in card["by_phase"].items())

    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.1%}"

    drs = f"; DRS {pct(card['drs'])}" if "drs" in card else ""
    probes = card.get("mps")
    mps = "" if probes is None else "; MPS " + pct(probes["overall"]) + " (" + ", ".join(
        f"{name} {pct(value)}" for name, value in probes["abilities"].items() if value is not None) + ")"
    return (f"StuGPA {gpa['total']:.2f} ({points}); LTRR {pct(card['ltrr'])}; PIS {pct(card['pis'])}{drs}; "
            f"by phase: {rates}; avg turns {'n/a' if card['avg_turns'] is None else card['avg_turns']}{mps}")


def _print_disruptions(card: dict[str, Any], errors: dict[str, Any]) -> None:
    """The STT cells (Pass@1 with counts and the 95 % Wilson interval) and the error modes."""
    cells = card.get("stt")
    if cells:
        levels = sorted({key.split("/")[1] for key in cells}, key=("easy", "medium", "hard", "impossible").index)
        table = Table(title="Pass@1 per sub-type x level: succeeded/tasks [95 % Wilson interval]")
        table.add_column("sub-type")
        for level in levels:
            table.add_column(level, justify="right")
        for sub_type in sorted({key.split("/")[0] for key in cells}, key=lambda k: (len(k), k)):
            row = [cells.get(f"{sub_type}/{level}") for level in levels]
            table.add_row(sub_type, *("" if c is None else f"{c['succeeded']}/{c['tasks']} "
                                      f"[{c['interval'][0]:.2f}-{c['interval'][1]:.2f}]" for c in row))
        out.print(table)
    for scope, tally in errors.items():
        if tally["tasks"]:
            found = ", ".join(f"{name} {row['tasks']} tasks ({row['findings']} findings)" for name, row in tally["detectors"].items())
            out.print(f"{scope} ({tally['tasks']} tasks, {tally['avg_calls']} calls per task): {found}", highlight=False)


def _print_summary(summary: dict[str, Any]) -> None:
    card = summary["scorecard"]
    table = Table(title=f"Run {summary['run']} ({summary['agent']}, seed {summary['seed']})")
    for column in ("scenario", "tasks", "succeeded", "success rate"):
        table.add_column(column, justify="left" if column == "scenario" else "right")
    for name, row in card["by_scenario"].items():
        table.add_row(name, str(row["tasks"]), str(row["succeeded"]), f"{row['success_rate']:.1%}")
    total = card["total"]
    table.add_row(Text("total", style="bold"), str(total["tasks"]), str(total["succeeded"]), f"{total['success_rate']:.1%}")
    out.print(table)
    out.print(_metrics_line(card), highlight=False)
    state = "finished" if summary["finished"] else "stopped before the end (continue with --resume)"
    out.print(f"{summary['events']} events, {state}; final hash {summary['final_hash'][:16]}")


# ---------------------------------------------------------------- run


@app.command()
@with_agent_options
def run(
    ctx: typer.Context,
    db: str = NEW_DB,
    seed: int = seed_option("Seed for the world, the term and the run."),
    agent: str = AGENT,
    scale: float = typer.Option(1.0, "--scale", help="Term size relative to the paper's task counts."),
    rounds: int = typer.Option(DEFAULT_ROUND_LIMIT, "--rounds", min=1, help=ROUNDS_HELP),
    resume: str = typer.Option(None, "--resume", help="Continue this stored run instead of starting a new one."),
    max_steps: int = typer.Option(None, "--max-steps", min=0, help="Stop after this many agent replies (resume later)."),
    world_source: str = typer.Option(None, "--world", metavar="SOURCE", help=WORLD_HELP),
    disruptions: bool = typer.Option(None, "--disruptions/--no-disruptions", show_default=False, help=DISRUPTIONS_HELP),
    name: str = typer.Option(None, "--name", callback=run_name, help="Name of the new run (default: AGENT-sSEED, numbered if taken)."),
    busy_days: bool | None = typer.Option(None, "--busy-days/--no-busy-days", help=BUSY_HELP, show_default=False),
    check_ins: bool = typer.Option(False, "--check-ins", help=CHECK_INS_HELP),
    paraphrase_model: str = PARAPHRASE_MODEL,
    paraphrase_base_url: str = PARAPHRASE_BASE_URL,
    as_json: bool = JSON,
    agent_options: AgentOptions = AgentOptions(),
) -> None:
    """Play a term with an agent and print its scorecard.

    With no options: generate the default world and term (seed 0), let the built-in oracle
    play it into runs.db, and print the scorecard.
    """
    from campus.agents.registry import changed_options, playing, recorded_source, replay_run, resolve, run_label
    from campus.replays.status import run_status
    from campus.scenarios.play import RunSpec, open_run

    given = [f"--{option}" for option in ("seed", "agent", "scale", "rounds")
             if getattr(ctx.get_parameter_source(option), "name", None) == "COMMANDLINE"]  # typer's own click's enum
    if resume is not None and given:
        fail(f"{', '.join(given)} cannot be used with --resume: a run continues with its own seed, agent, scale and "
             "round limit")
    settings = [option for option in given if option != "--agent"] + [
        option for option, value in (("--world", world_source), ("--disruptions/--no-disruptions", disruptions),
                                     ("--busy-days/--no-busy-days", busy_days), ("--check-ins", check_ins or None))
        if value is not None]
    if recorded_source(agent) and settings:
        fail(f"{', '.join(settings)} cannot be used with --agent {agent}: a replay plays on its run's own world, term, "
             "seed, scale and round limit")
    inputs = None if recorded_source(agent) else inputs_of(world_source, seed, scale, resume, disruptions, busy_days, check_ins)
    paraphrase = paraphraser_of(paraphrase_model, paraphrase_base_url)
    if name is not None and (resume is not None or inputs is None):
        fail("--name names a new run: not with --resume, and not with recorded:RUN (its replay is named after RUN)")
    with no_empty_db_left(db), open_db(db, must_exist=resume is not None) as store:
        if resume is not None:
            current = open_run(store, resume)
            _refuse_outside_agent(current, f"continue it with: campus mcp --db {db} --resume {current.branch.id} (an MCP "
                                           "client), or fork it with --agent to hand it to another agent")
            player, now = resolve(current.branch.agent, agent_options, store=store, term=current.term, world=current.world,
                                  branch=current.branch.id)
            # a paraphrase model reworded its people's replies: resumed without one, the rest would not be
            if paraphrase is None and _counted(current, "reply_paraphrased") and run_status(store, current.branch.id).state != "finished":
                fail(f"run {current.branch.id} was played with people's replies reworded by a model: give "
                     "--paraphrase-model (and --paraphrase-base-url) again to go on with them reworded")
            changed = changed_options(current.branch.agent, now)
            if changed:
                fail(f"{', '.join(changed)} would change the agent of run {current.branch.id}: a run continues with the "
                     f"agent it records. To go on with another, fork it: campus fork {current.branch.id} --db {db} "
                     f"--at-step N {' '.join(changed)} ...")
        elif inputs is None:
            current, player = replay_run(store, agent, agent_options)
        else:
            world, term = inputs
            player, agent_name = resolve(agent, agent_options, store=store, term=term, world=world)
            spec = RunSpec(seed=seed, scale=scale, agent=agent_name, round_limit=rounds, label=run_label(agent_name),
                           branch_id=name)
            current = _start(store, spec, inputs)
            player = playing(player, current.branch.id)
        _play(current, player, db, show_progress=not as_json, max_steps=max_steps, paraphrase=paraphrase)
        summary = _summary(current)
    emit_json(summary) if as_json else _print_summary(summary)


def _import_stulife(directory: str) -> tuple[World, ImportReport]:
    from campus.world.stulife import StuLifeDataError, load_stulife

    try:
        return load_stulife(directory)
    except StuLifeDataError as error:
        fail(str(error))


def _refuse_outside_agent(current: Run, advice: str) -> None:
    """One clear error when ``current`` was played by an agent campus does not run itself (an MCP client, ``Env``,
    inspect_ai): only its recorded name is stored, so nothing can rebuild it here."""
    from campus.agents.registry import INSPECT, plays_itself

    agent = current.branch.agent
    if plays_itself(agent):
        return
    if agent.startswith(INSPECT):
        advice = "an inspect_ai evaluation does not resume a run; fork it with --agent to hand it to another agent"
    fail(f"run {current.branch.id} was played by {agent!r}, an agent campus does not run itself: {advice}")


def _agent(name: str, current: Run) -> Any:
    """The agent called ``name`` for a stored run (an llm agent rebuilt from its recorded spec)."""
    from campus.agents.registry import resolve
    from campus.kernel.store import StoreError

    try:
        return resolve(name, store=current.store, term=current.term, world=current.world, branch=current.branch.id)[0]
    except (ValueError, StoreError) as error:
        fail(str(error))


# ---------------------------------------------------------------- replay, fork, verify, diff


@app.command()
def replay(
    run_id: str = typer.Argument(..., metavar="RUN", help="The run (branch) to look into."),
    db: str = DB,
    step: int = typer.Option(None, "--step", help="Show the state after this event (seq)."),
    at: str = typer.Option(None, "--at", help="Show the state at a simulated time, e.g. 'Week 0, Tuesday 10:00'."),
    as_json: bool = JSON,
) -> None:
    """Show the world of a run at a step or a simulated time, with its state hash."""
    from campus.replays.seek import describe_state, resolve_position, seek
    from campus.scenarios.play import open_run

    with open_db(db, read_only=True) as store:
        current = open_run(store, run_id)
        seq = resolve_position(current, step=step, at=at)
        described = describe_state(current, seek(current, seq))
    if as_json:
        emit_json(described)
        return
    out.print(f"[bold]{escape(run_id)}[/] at seq {described['seq']} — {escape(described['time'])}", markup=True)
    out.print(f"location: {described['location']['name']} ({described['location']['id']}); walked today: {' -> '.join(described['trail_today'])}")
    events = sum(len(c) for c in described["calendar"].values())
    out.print(f"calendar: {events} event(s); emails sent: {len(described['emails'])}")
    session = described["session"]
    out.print(f"task in progress: {session['task_id'] or 'none'}; tasks done: {session['next_task']}")
    out.print(f"state hash: {described['state_hash']}")


@app.command()
@with_agent_options
def fork(
    run_id: str = typer.Argument(..., metavar="RUN", help="The run to branch from."),
    db: str = DB,
    at_step: int = typer.Option(None, "--at-step", help="Branch after this event (moved back to the step boundary before it)."),
    at: str = typer.Option(None, "--at", help="Branch at a simulated time, e.g. 'Week 0, Tuesday 10:00'."),
    agent: str = typer.Option(None, "--agent", help="Agent that continues the branch (default: the parent's)."),
    reply: str = typer.Option(None, "--reply", help="Inject this reply as the agent's first answer after the fork."),
    hint: str = typer.Option(None, "--hint", help="Tell the student these words inside the task open at the fork (a "
                             "hint_given event), then continue; 'campus diff' shows what it unlocked."),
    hint_level: int = typer.Option(None, "--hint-level", min=1, max=3, help="Give a busy day's hint ladder instead: "
                                   "for every errand posted and not yet reported at the fork, 1 a nudge, 2 whom to "
                                   "ask, 3 the answer."),
    name: str = typer.Option(None, "--name", callback=run_name, help="Name of the new run (default: RUN@SEQ)."),
    max_steps: int = typer.Option(None, "--max-steps", min=0, help="Stop the branch after this many agent replies."),
    as_json: bool = JSON,
    agent_options: AgentOptions = AgentOptions(),
) -> None:
    """Branch a run at a step or time and continue it, with another agent, an injected reply or a hint."""
    from campus.agents.registry import playing, resolve
    from campus.replays.fork import InjectedReply, fork_run, step_boundary
    from campus.replays.hints import give_hint, make_hint
    from campus.replays.seek import resolve_position
    from campus.scenarios.play import open_run

    with open_db(db) as store:
        parent = open_run(store, run_id)
        seq = resolve_position(parent, step=at_step, at=at)
        if agent is None:
            _refuse_outside_agent(parent, "name the agent that continues the fork with --agent")
        player, agent_name = resolve(agent or parent.branch.agent, agent_options, store=store,
                                     term=parent.term, world=parent.world)
        if reply is not None and max_steps == 0:
            fail("--reply needs at least one step: the injected reply is kept only with the step it plays")
        given = None
        if hint is not None or hint_level is not None:
            if reply is not None:
                fail("--hint and --hint-level cannot be used with --reply")
            try:
                given = make_hint(parent, step_boundary(parent, seq), text=hint, level=hint_level)
            except ValueError as error:
                fail(str(error))
        child, point = fork_run(parent, seq, agent_name=agent_name, new_id=name, deferred=reply is not None)
        player = playing(player, child.branch.id)
        if given is not None:
            give_hint(child, given)
        if reply is not None:
            player = InjectedReply(reply, player)
        _play(child, player, db, show_progress=not as_json, max_steps=max_steps)
        summary = _summary(child) | {"parent": run_id, "fork_seq": point.seq, "requested_seq": point.requested} | (
            {"hint": {"level": given.level, "errands": list(given.errands), "text": given.text}} if given else {})
    if as_json:
        emit_json(summary)
        return
    moved = "" if point.seq == point.requested else f" (moved back from {point.requested} to the step boundary)"
    out.print(f"forked {escape(run_id)} at seq {point.seq}{moved} into [bold]{escape(summary['run'])}[/]", markup=True)
    _print_summary(summary)


@app.command(name="verify")
def verify_command(
    run_id: str = typer.Argument(..., metavar="RUN", help="The run to verify."),
    db: str = DB,
    deep: bool = typer.Option(False, "--deep", help="Also replay the whole run from its recorded replies and compare every "
                                                    "hash; for a model's run, also rebuild every request it sent and "
                                                    "compare it with the recorded request hash."),
    signed_by: str = typer.Option(None, "--signed-by", metavar="PUBKEY",
                                  help="Also require a stored signature by this Ed25519 public key (PEM) over exactly this "
                                       "run's head: who produced it (see 'campus export --sign', 'campus keygen')."),
    origin: bool = typer.Option(True, "--provenance/--no-provenance",
                                help="Also make the run's world and term again from their names (a generated world's "
                                     "seed, a term's seed, scale and families, the run's rules) and compare: a run on "
                                     "an edited term verifies against its own term, and only this says it is not the "
                                     "term it is named after. One term generation: 1.5-2 s of CPU for a full term."),
    published: str = typer.Option(None, "--world", metavar="stulife:DIR",
                                  help="The published StuLife data, to compare a run's published world with."),
    strict: bool = typer.Option(False, "--strict", help="Exit 1 unless the world and the term are both reproduced "
                                                        "(for a reviewer checking a reported run)."),
    as_json: bool = JSON,
) -> None:
    """Check the hash chain, re-execute every tool call and re-judge every task. Exit 1 on the first mismatch.

    Then, by default, say whether this campus makes the run's world and term from their names (provenance): the log
    can be faithful to a term someone edited.
    """
    import msgspec
    from campus.replays.provenance import run_provenance
    from campus.replays.signing import check_signed, public_key
    from campus.replays.verify import verify
    from campus.scenarios.play import open_run

    from campus.lab.prompt_check import check_prompts

    if strict and not origin:
        fail("--strict needs the provenance check; leave out --no-provenance")
    data = _published_world(published) if published is not None else None
    unsigned: str | None = None
    found: Provenance | None = None
    with open_db(db, read_only=True) as store:
        key = public_key(signed_by) if signed_by is not None else None
        current = open_run(store, run_id)
        with task_progress(err, _ended_count(current), "verifying", not as_json) as tick:
            report = verify(current, deep=deep, on_task=tick)
        if key is not None and report.ok:
            unsigned = check_signed(current, key)
        prompts = check_prompts(current) if deep and report.ok else None
        if origin and report.ok:
            found = run_provenance(current, data)
    if as_json:
        emit_json(msgspec.to_builtins(report) | ({"signed_by": signed_by, "signed": unsigned is None} if signed_by is not None else {})
                  | ({"prompts": asdict(prompts)} if prompts else {})
                  | ({"provenance": msgspec.to_builtins(found) | {"reproduced": found.reproduced}} if found else {}))
    elif report.ok:
        out.print(f"[green]verified[/] {escape(report.run)}: {report.events} events, {report.tool_calls} tool calls "
                  f"re-executed, {report.tasks_judged} tasks re-judged in {report.seconds:.3f}s"
                  + ("" if signed_by is None or unsigned else f"; its head is signed by {escape(signed_by)}"), markup=True)
        if found is not None:
            _print_provenance(found)
        if prompts is not None and prompts.mismatch is None and prompts.skipped is None:
            out.print(f"{prompts.checked} model requests rebuilt from the log and the agent spec match their recorded hashes",
                      highlight=False)
        elif prompts is not None and prompts.skipped is not None and current.branch.agent.startswith("llm:"):
            out.print(f"model requests not rebuilt: {prompts.skipped}", highlight=False)
        if unsigned:
            err.print(f"[bold red]not signed[/] by {escape(signed_by)}: {escape(unsigned)}", markup=True, highlight=False)
    else:
        mismatch = report.mismatch
        err.print(f"[bold red]mismatch[/] in {escape(report.run)} at seq {mismatch.seq} ({escape(mismatch.check)})",  # type: ignore[union-attr]
                  markup=True)
        err.print(f"expected: {msgspec.json.encode(mismatch.expected).decode()[:2000]}")  # type: ignore[union-attr]
        err.print(f"actual:   {msgspec.json.encode(mismatch.actual).decode()[:2000]}")  # type: ignore[union-attr]
    if prompts is not None and prompts.mismatch is not None:
        err.print(f"[bold red]prompt mismatch[/] in {escape(run_id)}: {escape(prompts.mismatch)}", markup=True, highlight=False)
    if not report.ok or unsigned or (prompts is not None and prompts.mismatch is not None):
        raise typer.Exit(1)
    if strict and found is not None and not found.reproduced:
        err.print("[bold red]not reproduced[/]: --strict asks for a world and a term this campus makes from their names",
                  markup=True, highlight=False)
        raise typer.Exit(1)


_SHOWN = {"reproduced": "green", "differs": "bold red", "unchecked": "yellow"}


def _print_provenance(found: Provenance) -> None:
    """The provenance of a verified run, a line for its world and one for its term."""
    for part, origin in (("world", found.world), ("term", found.term)):
        out.print(f"{part}: [{_SHOWN[origin.verdict]}]{origin.verdict}[/] ({escape(origin.detail)})", markup=True,
                  highlight=False)
    if found.command is not None:
        out.print(f"the same world and term: campus run {found.command}", highlight=False)
    elif found.term.verdict == "differs":
        out.print("the log is faithful to the term stored with it, but that term is not the one its name says: its "
                  "scores are not figures of that term", highlight=False)


def _published_world(source: str) -> World:
    """The StuLife world of ``--world stulife:DIR``."""
    kind, _, directory = source.partition(":")
    if kind != "stulife" or not directory:
        fail(f"--world takes stulife:DIR (the published data), got {source!r}: a generated world is made again from "
             "its seed without it")
    return _import_stulife(directory)[0]


def _said(verdict: Any) -> str:
    """A task's outcome as ``score`` lists it (an outcome and its reason, or a lone value), in words, not as a list."""
    return " / ".join(map(str, verdict)) if isinstance(verdict, (list, tuple)) else str(verdict)


def _counted(run: Run, kind: str) -> int:
    """How many events of ``kind`` the run's log holds, counted without decoding them (a damaged payload is for
    verify to name as a mismatch, or for score to refuse, not for a progress bar to stop the command on)."""
    head = run.store.head(run.branch.id)[0]
    return sum(len(batch) for batch in run.store.scan(run.branch.id, 1, head, (kind,)))


def _ended_count(run: Run) -> int:
    """For a progress bar: the task ends in the log."""
    return _counted(run, "task_ended")


@app.command()
def keygen(
    path: str = typer.Argument(..., metavar="KEY", help="Where to write the private key; the public key goes to KEY.pub."),
) -> None:
    """Make an Ed25519 key pair for signing runs (PEM files, as OpenSSL writes them).

    Sign with 'campus export RUN --sign KEY'; check with 'campus verify RUN --signed-by KEY.pub'.
    OpenSSL gives the same: openssl genpkey -algorithm ed25519 -out KEY; openssl pkey -in KEY -pubout -out KEY.pub
    """
    from campus.replays.signing import SigningError, generate_key

    if not path:
        fail("KEY is empty: give the file to write the private key to")
    try:
        public = generate_key(Path(path))
    except SigningError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {path}: {error.strerror or error}")
    err.print(f"wrote the private key to {path} (keep it secret) and the public key to {public}")


@app.command()
def diff(
    run_a: str = typer.Argument(..., metavar="RUN_A"),
    run_b: str = typer.Argument(..., metavar="RUN_B"),
    db: str = DB,
    force: bool = typer.Option(False, "--force", help="Compare runs of different worlds, terms or rules anyway (with a warning)."),
    as_json: bool = JSON,
) -> None:
    """Compare two runs: first divergence, tasks whose outcome flipped, and final-state differences.

    Only runs of the same world, term (seed and scale) and rules pair task by task; others are
    refused unless --force.
    """
    from campus.replays.diff import diff_runs
    from campus.scenarios.play import open_run

    with open_db(db, read_only=True) as store:
        a, b = open_run(store, run_a), open_run(store, run_b)
        warning = pairing_warning(a, b, force)
        report = diff_runs(a, b) | ({"warning": warning} if warning else {})
    if as_json:
        emit_json(report)
        return
    if warning is not None:
        out.print(f"WARNING: {warning}", highlight=False, markup=False)
    _print_diff(report)


def _p_value(p: float) -> str:
    """``= 0.031``, or ``< 1e-300`` where the float underflowed."""
    return f"= {p:.2g}" if p > 0 else "< 1e-300"


def _print_diff(report: dict[str, Any]) -> None:
    import msgspec

    point = report["first_divergence"]
    if point is None:
        out.print(f"{report['a']} and {report['b']} are identical event for event.")
        return
    out.print(f"first divergence at seq {point['seq']} ({point['time']}):")
    seen = point["seen"]
    if seen is not None:
        last = seen["last_message"].strip().splitlines()
        out.print(f"  in task {seen['task_id']}, after {seen['turns_before']} replies; last shown: "
                  f"{last[-1][:160] if last else ''}", highlight=False, markup=False)
    for side in ("a", "b"):
        event = point[side]
        shown = "(no event: the run ended)" if event is None else msgspec.json.encode(event["event"]).decode()[:300]
        out.print(f"  {report[side]}: {shown}", highlight=False, markup=False)
    metrics = report["metrics"]
    parts = []
    for name in ("stugpa", "ltrr", "pis", "success_rate", "avg_turns"):
        row = metrics[name]
        if row["a"] is not None and row["b"] is not None:
            parts.append(f"{name} {row['a']:g} -> {row['b']:g} ({row['delta']:+g})")
    out.print("metrics: " + "; ".join(parts), highlight=False)
    noise = report["noise"]
    verdict = "exceeds the noise" if noise["exceeds_noise"] else "within the noise"
    out.print(f"paired over {noise['paired_tasks']} tasks: {noise['solved_only_by_a']} solved only by {report['a']}, "
              f"{noise['solved_only_by_b']} only by {report['b']}; exact McNemar p {_p_value(noise['p_value'])} ({verdict})",
              highlight=False)
    for hint in report.get("hints", ()):
        rung = f"level {hint['level']} hint" if hint["level"] else "hint"
        out.print(f"{rung} in {hint['task_id']}: unlocked {', '.join(hint['unlocked']) or 'nothing'}"
                  + (f"; lost {', '.join(hint['lost'])}" if hint["lost"] else ""), highlight=False)
    errors = report["errors"]
    out.print("tasks flagged per error mode: " + "; ".join(f"{name} {row['a']} -> {row['b']} ({row['delta']:+d})"
                                                          for name, row in errors.items()), highlight=False)
    if "mps" in metrics and metrics["mps"]["delta"] is not None:
        out.print(f"memory probes: MPS {metrics['mps']['a']:g} -> {metrics['mps']['b']:g} ({metrics['mps']['delta']:+g})",
                  highlight=False)
        for ability, cell in report.get("probes", {}).items():
            row = metrics["mps_abilities"][ability]
            out.print(f"  {ability}: {row['a']:g} -> {row['b']:g}; over {cell['paired']} paired probes {cell['only_a']} "
                      f"answered in full only by {report['a']}, {cell['only_b']} only by {report['b']}; "
                      f"McNemar p {_p_value(cell['p_value'])}", highlight=False)
    out.print(f"outcome flips: {len(report['outcome_flips'])}")
    for flip in report["outcome_flips"][:20]:
        out.print(f"  {flip['task_id']}: {flip['a']} -> {flip['b']}")
    if len(report["outcome_flips"]) > 20:
        out.print(f"  ... and {len(report['outcome_flips']) - 20} more (--json lists every one)")
    for domain, changes in report["state_diff"].items():
        counts = {k: len(v) for k, v in changes.items()}
        if any(counts.values()):
            out.print(f"state {domain}: +{counts['added']} -{counts['removed']} ~{counts['changed']}")


@app.command(name="dynamics")
def dynamics_command(
    run_id: str = typer.Argument(..., metavar="RUN", help="A run of a term with disruptions."),
    db: str = DB,
    agent: str = typer.Option(None, "--agent", help="Who answers where the twin's conversation leaves RUN's "
                                                     "(default: RUN's own agent)."),
    name: str = typer.Option(None, "--name", callback=run_name, help="Name of the static twin (default: RUN~static)."),
    as_json: bool = JSON,
) -> None:
    """The dynamics gap: play RUN's static twin (same world, term and seed, every trigger rule disabled) and show,
    per disrupted task, whether it was solved static and dynamic.

    The twin reuses RUN's recorded reply wherever it shows the agent the same conversation, and asks the agent
    elsewhere. It is stored as a run of its own (replay, verify, diff it like any other).
    """
    from campus.agents.registry import resolve
    from campus.kernel.store import StoreError
    from campus.scenarios.play import open_run

    from campus.replays.dynamics import dynamics

    with open_db(db) as store:
        current = open_run(store, run_id)
        try:
            player = resolve(agent or current.branch.agent, store=store, term=current.term, world=current.world)[0]
        except (ValueError, StoreError) as error:
            if agent is not None:
                fail(str(error))
            player = None  # the recording alone; the twin stops with a clear error if it needs more
        report = dynamics(current, player, name)
    if as_json:
        emit_json(report)
        return
    table = Table(title=f"{run_id}: static twin {report.twin}")
    for column in ("task", "cell", "static", "dynamic"):
        table.add_column(column)
    for row in report.tasks:
        table.add_row(row["task_id"], row["cell"], *("solved" if row[k] else Text("failed", style="red") for k in ("static", "dynamic")))
    out.print(table)
    t = report.totals
    out.print(f"solved static {t['solved_static']}/{t['tasks']}, dynamic {t['solved_dynamic']}/{t['tasks']}; "
              f"lost to the dynamics {t['lost_to_dynamics']}, solved only dynamic {t['only_dynamic']} "
              f"({report.replies['reused']} recorded replies reused, {report.replies['asked']} asked of the agent)",
              highlight=False)


# ---------------------------------------------------------------- export, import, runs


@app.command(name="export")
def export_command(
    run_id: str = typer.Argument(..., metavar="RUN"),
    db: str = DB,
    output: str = typer.Option("-", "--output", "-o", help="File to write (default: standard output)."),
    sign_with: str = typer.Option(None, "--sign", metavar="KEY",
                                  help="Sign the run's head with this Ed25519 private key (PEM): the signature goes in the "
                                       "file's end line and into the database, for 'campus verify --signed-by'."),
) -> None:
    """Write a run, with its world and term, as hash-checked JSON Lines."""
    from campus.kernel import outputs
    from campus.replays.export import is_export, write_export
    from campus.replays.signing import private_key, sign, store_signature
    from campus.replays.verify import check_chain, check_inputs
    from campus.scenarios.play import open_run

    if output != "-":
        try:
            outputs.check_output(output, is_export, "a campus export")  # before the signature goes into the database
        except outputs.OutputError as error:
            fail(str(error))
    with open_db(db, read_only=True) as store:  # a tampered log is neither exported nor signed, nor written to
        current = open_run(store, run_id)
        broken = check_inputs(current) or check_chain(current)
    if broken is not None:
        fail(f"run {run_id} fails its hash check at seq {broken.seq} ({broken.check}): nothing was exported"
             + (" or signed" if sign_with is not None else "") + f"; 'campus verify {run_id}' tells more")
    with open_db(db, read_only=sign_with is None) as store:
        current = open_run(store, run_id)
        signature = sign(current, private_key(sign_with)) if sign_with is not None else None
        if signature is not None:
            store_signature(store, signature)
        if output == "-":
            count = write_export(current, sys.stdout, signature)
        else:
            with outputs.output(output, is_export, "a campus export") as handle:
                count = write_export(current, handle, signature)
            err.print(f"wrote {count} events of {run_id} to {output}" + (f", signed with {sign_with}" if signature else ""))


@app.command(name="import")
def import_command(
    path: str = typer.Argument(..., metavar="FILE", help="A file written by 'campus export'."),
    db: str = NEW_DB,
    name: str = typer.Option(None, "--name", callback=run_name, help="Name of the imported run (default: its original name)."),
    as_json: bool = JSON,
) -> None:
    """Read a run from JSON Lines into the database, checking every hash and verifying the run first."""
    from campus.replays.export import import_export, read_lines

    if not os.path.isfile(path):
        fail(f"no file at {path}")
    with no_empty_db_left(db), open_db(db, must_exist=False) as store:
        with open(path, encoding="utf-8") as handle:
            current, stored = import_export(store, read_lines(handle), branch_id=name)
        summary = _summary(current) | {"imported": stored}
    if not summary["imported"] and not as_json:
        err.print(f"{db} holds this run already, event for event, as {current.branch.id}: nothing was imported",
                  highlight=False)
    emit_json(summary) if as_json else _print_summary(summary)


@app.command()
def score(
    run_id: str = typer.Argument(..., metavar="RUN", help="The run to score again."),
    db: str = DB,
    prices: Path = PRICES,
    as_json: bool = JSON,
) -> None:
    """Re-score a stored run by replaying its log and judging every task again (no agent is called).

    Prints the scorecard, and for a model's run its token, latency and cost totals (per task in
    --json; the cost is unknown for a model the price table does not name); exit 1 if any task is
    judged differently from what the run recorded.
    """
    import msgspec
    from campus.replays.prices import cost_line, run_cost
    from campus.replays.usage import run_usage, usage_line
    from campus.scenarios.play import open_run

    from campus.replays.score import rescore

    price_of = price_lookup(prices)
    with open_db(db, read_only=True) as store:
        current = open_run(store, run_id)
        with task_progress(err, _ended_count(current), "scoring", not as_json) as tick:
            report = rescore(current, on_task=tick)
        usage = run_usage(store, run_id)
    key = model_key(current.branch.agent)
    price = price_of(current.branch.agent)
    if as_json:
        emit_json(msgspec.to_builtins(report) | {"usage": asdict(usage)}
                  | ({"cost": run_cost(usage, price)} if key is not None else {}))
    else:
        out.print(f"{escape(report.run)}: " + ("scorecard reproduced" if report.matches else "[bold red]scorecard differs[/]"),
                  markup=True)
        out.print(_metrics_line(report.scorecard), highlight=False)
        _print_disruptions(report.scorecard, report.errors)
        if usage.total.prompt_tokens or usage.total.latency_s:
            out.print(usage_line(usage.total), highlight=False)
        if key is not None:
            out.print(cost_line(usage.total, price, key), highlight=False, markup=False)
        for item in report.changed[:20]:
            out.print(f"- {item['task_id']}: recorded {_said(item['recorded'])}, judged {_said(item['judged'])}",
                      highlight=False, markup=False)
    if not report.matches:
        raise typer.Exit(1)


@app.command()
def lifelong(
    run_id: str = typer.Argument(..., metavar="RUN", help="A finished run (or one past the blocks probed)."),
    db: str = DB,
    agent: str = typer.Option(None, "--agent", help="Agent that answers the re-tests (default: the run's own)."),
    blocks: int = typer.Option(4, "--blocks", min=2, help="Blocks the term's questions are split into (the K of appendix B)."),
    per_block: int = typer.Option(8, "--per-block", min=1, help="Questions of a block re-tested by each probe."),
    yes: bool = typer.Option(False, "--yes", help=f"Make the probe branches even when there are more than {MANY_BRANCHES}."),
    as_json: bool = JSON,
) -> None:
    """Lifelong-learning metrics (AP, AIP, FGT, BWT, FWT of the paper's appendix B), measured by forks.

    After each block of the term, and once before the first, a probe branch forks the run and
    asks a sample of earlier blocks' questions again; the success matrix gives the metrics.
    Probe branches stay in the database (RUN~lifelong-tT-bI) to replay, verify or diff.
    """
    from campus.scenarios.play import open_run

    from campus.lab.lifelong import as_dict, lifelong as measure, probe_count

    branches = probe_count(blocks)
    if branches > MANY_BRANCHES and not yes:
        fail(f"--blocks {blocks} makes {branches} probe branches in {db} (more than {MANY_BRANCHES}); "
             "pass --yes to make them, or fewer --blocks")
    with open_db(db) as store:
        current = open_run(store, run_id)
        name = agent or current.branch.agent
        _agent(name, current)
        if not as_json:
            err.print(f"making {branches} probe branches of {run_id}", highlight=False)
        report = measure(current, lambda probe: _agent(name, probe), blocks=blocks, per_block=per_block)
    if as_json:
        emit_json(as_dict(report))
        return

    def pct(value: float | None) -> str:
        return "  -  " if value is None else f"{value:5.0%}"

    table = Table(title=f"Re-test success of {run_id} (row: after block; column: block re-tested)")
    table.add_column("after")
    for index in range(report.blocks):
        table.add_column(f"block {index + 1}", justify="right")
    for after, row in enumerate(report.matrix):
        table.add_row("start" if after == 0 else f"block {after}", *map(pct, row))
    out.print(table)

    def num(value: float | None) -> str:
        return "n/a" if value is None else f"{value:+.3f}"

    out.print(f"AP {pct(report.ap[-1]).strip()}, AIP {pct(report.aip).strip()}, FGT {num(report.fgt)}, "
              f"BWT {num(report.bwt)}, FWT {num(report.fwt)} ({len(report.probes)} probe branches)", highlight=False)


@app.command()
def runs(
    db: str = DB,
    show_all: bool = typer.Option(False, "--all", help="Also list abandoned runs (no reply from their agent)."),
    prices: Path = PRICES,
    as_json: bool = JSON,
) -> None:
    """List the runs (branches) in a database: status, agent, seed, scale, StuGPA, parent and fork point.

    A run is finished, stopped at a step (continue it with 'campus run --resume RUN'), or
    abandoned: its agent never replied (an unreachable model, a bad key); those are hidden
    unless --all.
    """
    from campus.agents.registry import INSPECT, is_llm, run_label
    from campus.events import TaskEnded
    from campus.kernel.tasks import events_of
    from campus.replays.status import run_status, term_scale
    from campus.replays.prices import cost_text, cost_usd
    from campus.replays.usage import run_usage
    from campus.scenarios.scorecard import scorecard
    from campus.scenarios.task import decode_term

    price_of = price_lookup(prices)
    with open_db(db, read_only=True) as store:
        terms: dict[str, Term] = {}
        scales: dict[str, float | None] = {}
        rows: list[dict[str, Any]] = []
        hidden = 0
        damage: tuple[type[BaseException], ...] = (*expected_errors(), sqlite3.DatabaseError, RecursionError)
        for branch_id in store.branch_ids():
            try:
                b = store.branch(branch_id)
                status = run_status(store, b.id)
                if status.state == "abandoned" and not show_all:
                    hidden += 1
                    continue
                if b.term_hash not in terms:
                    terms[b.term_hash] = decode_term(store.get_blob(b.term_hash), b.schema)
                    scales[b.term_hash] = term_scale(store, b.term_hash)
                card = scorecard(terms[b.term_hash], events_of(store, b.id, TaskEnded))
                usage = run_usage(store, b.id).total if is_llm(b.agent) or b.agent.startswith(INSPECT) else None
            except damage as error:  # one damaged run hid them all
                rows.append({"run": branch_id, "status": "damaged", "error": str(error) or type(error).__name__})
                continue
            rows.append({"run": b.id, "status": status.state, "agent": b.agent, "label": run_label(b.agent),
                         "tokens": None if usage is None else usage.prompt_tokens + usage.completion_tokens,
                         "latency_s": None if usage is None else usage.latency_s,
                         "cost_usd": None if usage is None else cost_usd(usage, price_of(b.agent)),
                         "seed": b.seed, "scale": scales[b.term_hash], "stugpa": card["stugpa"]["total"],
                         "tasks_ended": card["total"]["tasks"], "parent": b.parent,
                         "fork_seq": b.fork_seq if b.parent else None, "events": status.head,
                         "final_hash": store.head(b.id)[1], "status_text": str(status)})
    damaged = [r for r in rows if r["status"] == "damaged"]
    if as_json:
        emit_json(rows)
        if damaged:
            raise typer.Exit(2)
        return
    rows = [r for r in rows if r["status"] != "damaged"]
    table = Table()
    numbers = ("seed", "scale", "StuGPA", "fork at", "events", "tokens", "cost")
    for column in ("run", "status", "agent", "seed", "scale", "StuGPA", "parent", "fork at", "events", "tokens", "cost",
                   "final hash"):
        table.add_column(column, justify="right" if column in numbers else "left")
    for r in rows:
        table.add_row(r["run"], r["status_text"], r["label"], str(r["seed"]), "" if r["scale"] is None else f"{r['scale']:g}",
                      f"{r['stugpa']:.2f}", r["parent"] or "", "" if r["fork_seq"] is None else str(r["fork_seq"]),
                      str(r["events"]), "" if r["tokens"] is None else f"{r['tokens']:,}",
                      "" if r["tokens"] is None else cost_text(r["cost_usd"]), r["final_hash"][:16])
    if rows or not damaged:
        out.print(table)
    if hidden:
        out.print(f"{hidden} abandoned run(s) hidden (their agent never replied); --all lists them", highlight=False)
    listed = " (the other runs are listed)" if rows else ""
    for said in dict.fromkeys(r["error"] for r in damaged):  # a lineage's damage is every run's on it: said once
        err.print(f"[bold red]error:[/] {escape(said)}{listed}", markup=True, highlight=False)
    if damaged:
        raise typer.Exit(2)


# ---------------------------------------------------------------- world and bench


@world_app.command("generate")
def world_generate(
    seed: int = seed_option(),
    scale: float = typer.Option(1.0, "--scale", help="Size relative to the published campus."),
    generator: int = typer.Option(None, "--generator", show_default=False,
                                  help="The world generator: 2 (the default since 2026-11-29: six sections per "
                                  "first-semester compulsory course) or 1 (three, every generated world before)."),
    as_json: bool = JSON,
) -> None:
    """Generate a campus from a seed and print its size and hash."""
    from campus.world.generate import WORLD_GENERATOR, generate_world
    from campus.world.model import counts

    generator = WORLD_GENERATOR if generator is None else generator
    try:
        world = generate_world(seed, scale, generator)
    except ValueError as error:
        fail(str(error))
    size = counts(world)
    report = {"name": world.name, "seed": seed, "generator": generator, "hash": world.hash, "home": world.home,
              "zones": sorted({b.zone for b in world.buildings}), "counts": size}
    if as_json:
        emit_json(report)
    else:
        out.print(f"{world.name}: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in size.items()))
        out.print(f"home {world.home}; hash {world.hash}")


@term_app.command("generate")
def term_generate(
    seed: int = seed_option("Seed for the world (if generated) and the term."),
    scale: float = typer.Option(1.0, "--scale", help="Task counts relative to the paper's (at 1.0 the default term has 1,686 tasks; 1,313 without its disruptions and busy days)."),
    world_source: str = typer.Option(None, "--world", metavar="SOURCE", help=WORLD_HELP),
    disruptions: bool = typer.Option(True, "--disruptions/--no-disruptions", help=DISRUPTIONS_HELP),
    busy_days: bool = typer.Option(True, "--busy-days/--no-busy-days", help=BUSY_HELP),
    check_ins: bool = typer.Option(False, "--check-ins", help=CHECK_INS_HELP),
    output: Path = typer.Option(None, "--output", "-o", help="Also write the term (with ground truth) as JSON here."),
    as_json: bool = JSON,
) -> None:
    """Generate the term for a world and print its tasks per scenario (scored, long-term, self-motivated)."""
    from campus.kernel.outputs import OutputError, check_output, write_output
    from campus.scenarios.term import generate_term, is_term_file, term_report

    world = world_of(world_source, seed)
    try:
        if output is not None:
            check_output(output, is_term_file, "a campus term")
        term = generate_term(world, seed, scale, disruptions=disruptions, busy=busy_days, check_ins=check_ins)
        if output is not None:
            write_output(output, term.encoded, is_term_file, "a campus term")
    except (OutputError, ValueError) as error:
        fail(str(error))
    report = term_report(term)
    if as_json:
        emit_json(report)
        return
    table = Table(title=f"{term.name} on {world.world.name} (hash {term.hash[:16]})")
    for column in ("scenario", "phase", "tasks", "scored", "long-term", "self-motivated", "first", "last"):
        table.add_column(column, justify="left" if column in ("scenario", "phase", "first", "last") else "right")
    for name, row in report["by_scenario"].items():
        table.add_row(name, row["phase"], str(row["tasks"]), str(row["scored"]), str(row["long_term"]),
                      str(row["self_motivated"]), row["first"], row["last"])
    total = report["total"]
    table.add_row(Text("total", style="bold"), "", str(total["tasks"]), str(total["scored"]), str(total["long_term"]),
                  str(total["self_motivated"]), "", "")
    out.print(table)
    out.print(f"{report['world_changes']} world changes", highlight=False)


@world_app.command("import-stulife")
def world_import_stulife(
    directory: str = typer.Argument(..., metavar="DIR", help="The StuLife background data (map_v1.5.json, courses.json, ...)."),
    as_json: bool = JSON,
) -> None:
    """Import the published StuLife data as a world; print its size, hash and what the import had to work around."""
    world, report = _import_stulife(directory)
    if as_json:
        emit_json({"name": world.name, "hash": world.hash, "counts": report.counts, "report": report.notes})
        return
    counts = report.counts
    out.print(f"{world.name}: {counts['buildings']} buildings, {counts['walkways']} walkways, {counts['complexes']} complexes, "
              f"home {world.home}; {counts['libraries']} libraries with {counts['rooms']} rooms ({counts['study_rooms']} study, "
              f"{counts['public_rooms']} public) and {counts['seats']} seats; {counts['courses']} course sections, "
              f"{counts['clubs']} clubs, {counts['advisors']} advisors, {counts['books']} books; {counts['texts']} texts "
              f"({counts['chapters']} chapters, {counts['sections']} sections, {counts['articles']} articles)", highlight=False)
    out.print(f"hash {world.hash}", highlight=False)
    out.print(f"[bold]import report[/] ({len(report.notes)} notes):", markup=True)
    for note in report.notes:
        out.print(f"- {note}", highlight=False, markup=False)


@bench_app.command("kernel")
def bench_kernel(
    events: int = typer.Option(1_000_000, "--events", min=10_000, help="Length of the long branch to measure on."),
    directory: str = scratch_option("database"),
    read_side: bool = typer.Option(False, "--read-side", help="Only build the long branch and measure fold and seek (about half the time)."),
    as_json: bool = JSON,
) -> None:
    """Measure append, fold, seek, fork, divergence, verify and tool-call rates on this machine."""
    from campus.lab.bench import run_kernel_bench
    from campus.lab.pace import paced

    report = paced(lambda: run_kernel_bench(events, directory, progress=None if as_json else err, read_side=read_side))
    if as_json:
        emit_json(report)
        return
    table = Table(title="campus kernel benchmark")
    for column in ("measure", "value", "target"):
        table.add_column(column)
    for row in report["rows"]:
        table.add_row(row["measure"], row["value"], row["target"])
    out.print(table)
    _print_pace(report)


def _print_pace(report: dict[str, Any]) -> None:
    from campus.lab.pace import describe

    out.print(describe(report["pace"]), highlight=False)


@bench_app.command("memory")
def bench_memory(
    events: int = typer.Option(1_000_000, "--events", min=1_000, help="Length of the run to build and check."),
    directory: str = scratch_option("database"),
    as_json: bool = JSON,
) -> None:
    """Build a real run of EVENTS events, then run `campus verify` and `campus score` on it, each in its own
    process: their peak resident memory (target <= 300 MB, whatever the length of the log)."""
    from campus.lab.bench_memory import measure_memory

    report = measure_memory(events, directory)
    if as_json:
        emit_json(report)
        return
    out.print(f"a run of {report['events']:,} events ({report['db_mb']:,} MB file, built in {report['build_seconds']} s)",
              highlight=False)
    for name in ("verify", "score"):
        figure = report[name]
        verdict = "met" if figure["peak_rss_mb"] <= report["target_mb"] else "[bold]not met[/]"
        out.print(f"campus {name}: exit {figure['exit']}, peak RSS {figure['peak_rss_mb']} MB "
                  f"(target <= {report['target_mb']:.0f} MB: {verdict}), {figure['cpu_seconds']} s CPU", markup=True,
                  highlight=False)


@bench_app.command("calls")
def bench_calls(
    world_source: str = typer.Option(None, "--world", metavar="SOURCE", show_default=False,
                                     help="The campus to call tools on: 'stulife:DIR' or 'generated' (default: the "
                                          "published one, as the issue measures, in the shared/stulife folder beside "
                                          "this checkout, wherever the command runs)."),
    rounds: int = typer.Option(1_667, "--rounds", min=1, help="Rounds of the 12 calls (1,667 rounds = 20,004 calls)."),
    repeats: int = typer.Option(5, "--repeats", min=1, help="Repetitions of the whole workload per log; the median is reported."),
    directory: str = scratch_option("databases"),
    as_json: bool = JSON,
) -> None:
    """Drive the reference's 12-call mix (parse, dispatch, log) on SQLite and in memory; time three tools alone.

    Every input is drawn beforehand from the world with a fixed seed and checked to succeed; the state is reset every 10 rounds by forking an empty run. Prints calls/s (median and range of the repetitions), CPU µs per call, and each target with met / not met.
    """
    from campus.lab.bench_calls import run_calls_bench
    from campus.lab.pace import paced

    world_source = world_source or f"stulife:{Path(__file__).resolve().parents[2] / 'shared' / 'stulife'}"
    try:
        report = paced(lambda: run_calls_bench(world_source, rounds, repeats, directory,
                                                say=None if as_json else lambda message: err.print(message, style="dim")))
    except ValueError as error:
        fail(str(error))
    if as_json:
        emit_json(report)
        return
    table = Table(title=f"campus tool-call benchmark on {report['figures']['world']}")
    for column in ("measure", "value", "target"):
        table.add_column(column)
    for row in report["rows"]:
        table.add_row(row["measure"], row["value"], row["target"])
    out.print(table)
    _print_pace(report)


@bench_app.command("term")
def bench_term(
    seed: int = seed_option(),
    scale: float = typer.Option(1.0, "--scale", help="Term size relative to the paper's task counts."),
    directory: str = scratch_option("database"),
    disruptions: bool = typer.Option(True, "--disruptions/--no-disruptions", help=DISRUPTIONS_HELP),
    busy_days: bool = typer.Option(True, "--busy-days/--no-busy-days", help=BUSY_HELP),
    repeats: int = typer.Option(3, "--repeats", min=1, help="Plays of the term, each into a fresh file; the median is "
                                "reported, with the range (every play must end at the same head hash)."),
    as_json: bool = JSON,
) -> None:
    """Play a full term (the default one unless told otherwise) with the oracle into a file DB: wall time, tool calls/s,
    peak memory."""
    from campus.lab.bench_term import measure_full_term
    from campus.lab.pace import paced
    from campus.scenarios.term import check_scale

    try:
        check_scale(scale)
        report = paced(lambda: measure_full_term(seed, scale, directory, disruptions=disruptions, busy_days=busy_days,
                                                 repeats=repeats))
    except (RuntimeError, ValueError) as error:
        fail(str(error))
    if as_json:
        emit_json(report)
        return
    verdict = report["met"] or dict.fromkeys(report["targets"])
    met = {name: "for a full default term" if v is None else "met" if v else "not met" for name, v in verdict.items()}
    out.print(f"{report['tasks']} tasks, {report['events']:,} events, {report['tool_calls']:,} tool calls; "
              f"generated in {report['generate_seconds']} s, played in {report['play_seconds']} s "
              f"(median of {report['repeats']}, {report['play_seconds_range'][0]}-{report['play_seconds_range'][1]} s; "
              f"{report['play_cpu_seconds']} s CPU) "
              f"(target <= {report['targets']['seconds']} s wall: {met['seconds']}); {report['tool_calls_per_s']:,} tool calls/s; "
              f"peak RSS {report['peak_rss_mb']} MB (target <= {report['targets']['peak_mb']:.0f} MB: {met['peak_mb']}); "
              f"StuGPA {report['stugpa']}, success {report['success_rate']:.1%}", highlight=False)
    _print_pace(report)


@bench_app.command("startup")
def bench_startup(
    repeats: int = typer.Option(5, "--repeats", min=1, help="Cold starts of each command; the median is reported."),
    directory: str = scratch_option("databases"),
    as_json: bool = JSON,
) -> None:
    """Time 'campus --help' and 'campus run --scale 0.01' from cold processes: wall (median, range) and CPU."""
    from campus.lab.bench_startup import measure_startup
    from campus.lab.pace import paced

    try:
        report = paced(lambda: measure_startup(repeats, directory))
    except RuntimeError as error:
        fail(str(error))
    if as_json:
        emit_json(report)
        return
    table = Table(title=f"campus start-up, median of {repeats} cold starts")
    for column in ("command", "wall", "CPU", "target"):
        table.add_column(column)
    for name, command in (("help", "campus --help"), ("run", "campus run --scale 0.01")):
        row = report[name]
        low, high = row["wall_range_s"]
        table.add_row(command, f"{row['wall_s']:.3f} s ({low:.3f}-{high:.3f})", f"{row['cpu_s']:.3f} s",
                      f"<= {row['target_s']:g} s wall: {'met' if row['met'] else 'not met'}")
    out.print(table)
    _print_pace(report)

@app.callback()
def _setup(
    log_json: bool = typer.Option(False, "--log-json", help="Write operator logs (stderr) as JSON lines."),
    verbose: int = typer.Option(0, "--verbose", "-v", count=True, metavar="",
                                help="More operator logs on stderr: -v sessions, -vv every task (each line names the run, agent, seq and simulated time)."),
) -> None:
    from campus.kernel.logs import configure as configure_logs

    configure_logs(json=log_json, level=(logging.WARNING, logging.INFO, logging.DEBUG)[min(verbose, 2)])


reflow_help(app)


def main() -> None:
    try:
        app()
    except SystemExit as done:
        # typer answers a closed stdout met outside rich (a JSON line) by exit 1, once it has wrapped the streams
        if done.code == 1 and "PacifyFlushWrapper" in type(sys.stdout).__name__:
            raise SystemExit(PIPE_CLOSED) from None
        raise


if __name__ == "__main__":
    main()

"""``campus mcp``: serve a run over MCP on stdin/stdout, so any MCP client plays the term.

Registered in ``cli/main.py``. Nothing but the protocol may reach stdout: messages for people
go to stderr.
"""

from __future__ import annotations

import importlib.util

import typer

from campus.cli.common import (BUSY_HELP, DISRUPTIONS_HELP, NEW_DB, PARAPHRASE_BASE_URL, PARAPHRASE_MODEL, ROUNDS_HELP, WORLD_HELP, err,
                               fail, inputs_of, open_db, paraphraser_of, seed_option)
from campus.scenarios.rounds import DEFAULT_ROUND_LIMIT


def mcp(
    ctx: typer.Context,
    db: str = NEW_DB,
    seed: int = seed_option("Seed for the world, the term and the run."),
    scale: float = typer.Option(1.0, "--scale", help="Term size relative to the paper's task counts."),
    rounds: int = typer.Option(DEFAULT_ROUND_LIMIT, "--rounds", min=1, help=ROUNDS_HELP),
    world_source: str = typer.Option(None, "--world", metavar="SOURCE", help=WORLD_HELP),
    resume: str = typer.Option(None, "--resume", metavar="RUN", help="Continue this stored run instead of starting a new one."),
    agent_name: str = typer.Option("mcp", "--agent-name", help="The agent name recorded for a new run (its id is NAME-sSEED)."),
    check_ins: bool = typer.Option(False, "--check-ins", help="Add the weekly memory check-ins to a new run's term "
                                   "(answered with answer: a list, one typed answer per question)."),
    disruptions: bool = typer.Option(None, "--disruptions/--no-disruptions", show_default=False, help=DISRUPTIONS_HELP),
    busy_days: bool = typer.Option(None, "--busy-days/--no-busy-days", show_default=False, help=BUSY_HELP),
    paraphrase_model: str = PARAPHRASE_MODEL,
    paraphrase_base_url: str = PARAPHRASE_BASE_URL,
) -> None:
    """Serve a term over MCP (stdio): the client is the student; every call is recorded in the run.

    Tools: the campus tools (calendar__add_event, ...), observe, answer and finish. Point an MCP client at 'campus mcp --db runs.db --seed 0'; afterwards verify, score or diff the run like any other (its id is printed on stderr).
    """
    from campus.agents.registry import INSPECT, steps_from_outside
    from campus.env.driver import Driver
    from campus.env.mcp_server import serve
    from campus.scenarios.play import RunSpec, open_run, start_run

    if importlib.util.find_spec("mcp") is None:
        fail("campus mcp needs the MCP SDK: pip install 'campus[mcp]'")
    given = [f"--{option.replace('_', '-')}" for option in ("seed", "scale", "rounds", "agent_name")
             if getattr(ctx.get_parameter_source(option), "name", None) == "COMMANDLINE"]
    if resume is not None and given:
        fail(f"{', '.join(given)} cannot be used with --resume: a run continues with its own seed, scale, round limit "
             "and agent name")
    if not steps_from_outside(agent_name):
        fail(f"--agent-name {agent_name!r} is the name of an agent campus plays itself; name the MCP client otherwise")
    inputs = inputs_of(world_source, seed, scale, resume, disruptions, busy_days, check_ins=check_ins)
    paraphrase = paraphraser_of(paraphrase_model, paraphrase_base_url)
    with open_db(db, must_exist=resume is not None) as store:
        if inputs is None:
            current = open_run(store, resume)
            recorded = current.branch.agent
            if not steps_from_outside(recorded):
                player = "inspect_ai" if recorded.startswith(INSPECT) else "campus"
                fail(f"run {current.branch.id} is played by {recorded!r} ({player} runs it): an MCP client may continue "
                     "only a run an MCP client or Env played; fork it to hand it over: "
                     f"campus fork {current.branch.id} --db {db} --at-step N --agent ...")
        else:
            current = start_run(store, RunSpec(seed=seed, scale=scale, agent=agent_name, round_limit=rounds,
                                                     check_ins=check_ins, disruptions=disruptions is not False,
                                                     busy_days=busy_days is not False), inputs)
        driver = Driver(current, paraphrase)
        state = "the term is already over" if driver.finished else f"{len(current.ended_tasks())} task(s) ended so far"
        err.print(f"campus mcp: serving run {current.branch.id} from {db} on stdio ({state})", highlight=False)
        serve(driver)

"""``campus mcp``: serve a run over MCP on stdin/stdout, so any MCP client plays the term.

Registered in ``cli/main.py``; the helpers it shares with the other commands are imported when
the command runs, so neither module imports the other at load time. Nothing but the protocol
may reach stdout: messages for people go to stderr.
"""

from __future__ import annotations

import importlib.util

import typer

from scenarios.play import DEFAULT_ROUND_LIMIT


def mcp(
    db: str = typer.Option("runs.db", "--db", help="The SQLite file holding runs (created if missing)."),
    seed: int = typer.Option(0, "--seed", help="Seed for the world, the term and the run."),
    scale: float = typer.Option(1.0, "--scale", help="Term size relative to the paper's task counts."),
    rounds: int = typer.Option(DEFAULT_ROUND_LIMIT, "--rounds", min=1, help="Agent turns allowed per task."),
    world_source: str = typer.Option(None, "--world", metavar="SOURCE",
                                     help="'generated' (the default: a campus from the seed) or 'stulife:DIR'."),
    resume: str = typer.Option(None, "--resume", metavar="RUN", help="Continue this stored run instead of starting a new one."),
    agent_name: str = typer.Option("mcp", "--agent-name", help="The agent name recorded for a new run (its id is NAME-sSEED)."),
) -> None:
    """Serve a term over MCP (stdio): the client is the student; every call is recorded in the run.

    Tools: the campus tools (calendar__add_event, ...), observe, answer and finish. Point an MCP client at 'campus mcp --db runs.db --seed 0'; afterwards verify, score or diff the run like any other (its id is printed on stderr).
    """
    from cli.main import _fail, _store, err, world_for
    from scenarios.play import new_run, open_run
    from scenarios.term import generate_term

    from env.driver import Driver
    from env.mcp_server import serve

    if importlib.util.find_spec("mcp") is None:
        _fail("campus mcp needs the MCP SDK: pip install 'campus\\[mcp]'")
    world = world_for(resume, world_source, seed)
    with _store(db, must_exist=resume is not None) as store:
        if world is None:
            current = open_run(store, resume)
        else:
            current = new_run(store, world, generate_term(world, seed, scale), agent_name=agent_name, seed=seed,
                              round_limit=rounds)
        driver = Driver(current)
        state = "the term is already over" if driver.finished else f"{len(current.ended_tasks())} task(s) ended so far"
        err.print(f"campus mcp: serving run {current.branch.id} from {db} on stdio ({state})", highlight=False)
        serve(driver)

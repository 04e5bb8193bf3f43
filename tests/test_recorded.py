"""Recorded replies: exact reproduction of a run, and forks that ask the model only after the fork point."""

from __future__ import annotations

from pathlib import Path

import pytest

from campus.agents import make_agent
from campus.agents.recorded import RecordingError, recorded_agent
from campus.kernel.store import EventStore, MemoryStore, SQLiteStore
from campus.replays.diff import first_divergence
from campus.replays.fork import fork_run, step_boundary
from campus.replays.verify import verify
from campus.scenarios.play import Run, new_run, open_run
from campus.scenarios.task import Term
from tests.chat_server import ChatServer
from tests.llm_support import as_text_answers, as_tool_calls, llm_agent
from campus.world.index import WorldIndex

pytest_plugins = ["tests.llm_fixtures"]  # the short term and the oracle's script


@pytest.fixture(scope="module")
def llm_run(world: WorldIndex, short_term: Term, oracle_replies: list[str], tmp_path_factory) -> Run:
    """A tools-mode LLM run of the short term in a SQLite file (structured calls with the model's call ids)."""
    store = SQLiteStore(tmp_path_factory.mktemp("recorded") / "runs.db")
    with ChatServer(as_tool_calls(oracle_replies)) as server:
        agent = llm_agent(server, mode="tools")
        run = new_run(store, world, short_term, agent_name=agent.name, seed=0, branch_id="model")
        run.session(agent).run()
    assert len(server.requests) == len(oracle_replies)
    return run


def events(store: EventStore, branch: str) -> list[tuple[int, int, str]]:
    return [(row.seq, row.t, row.payload) for row in store.rows(branch)]


def test_recorded_replies_reproduce_every_event_exactly(llm_run: Run) -> None:
    """Byte for byte; the hashes differ from the first on, because the chain binds who played (``recorded:model``)."""
    store = llm_run.store
    again = new_run(store, llm_run.world, llm_run.term, agent_name="recorded:model", seed=0, branch_id="again")
    again.session(recorded_agent(store, "model")).run()
    assert events(store, "again") == events(store, "model")
    assert store.hash_at("again", 1) != store.hash_at("model", 1)
    assert first_divergence(store, "again", "model") is None
    assert verify(open_run(store, "again")).ok


def test_a_recorded_run_stopped_and_resumed_is_still_the_same_run(llm_run: Run) -> None:
    store = llm_run.store
    run = new_run(store, llm_run.world, llm_run.term, agent_name="recorded:model", seed=0, branch_id="in-parts")
    run.session(recorded_agent(store, "model")).run(max_steps=123)
    open_run(store, "in-parts").session(recorded_agent(store, "model")).run(max_steps=77)
    open_run(store, "in-parts").session(recorded_agent(store, "model")).run()
    whole = new_run(store, llm_run.world, llm_run.term, agent_name="recorded:model", seed=0, branch_id="whole")
    whole.session(recorded_agent(store, "model")).run()
    assert events(store, "in-parts") == events(store, "model")
    assert store.head("in-parts") == store.head("whole")


def test_a_recording_that_runs_out_stops_the_run_with_a_clear_error(llm_run: Run) -> None:
    store = llm_run.store
    short = new_run(store, llm_run.world, llm_run.term, agent_name="recorded:model", seed=0, branch_id="short")
    short.session(recorded_agent(store, "model")).run(max_steps=50)
    replay = new_run(store, llm_run.world, llm_run.term, agent_name="recorded:short", seed=0, branch_id="short-again")
    with pytest.raises(RecordingError, match=r"recording of short ran out: it has 50 replies"):
        replay.session(recorded_agent(store, "short")).run()
    assert events(store, "short-again") == events(store, "short")  # every step before the error is kept


def test_the_command_says_a_replay_that_ran_out_goes_on_only_in_a_fork(tmp_path: Path) -> None:
    """It said "continue it with: campus run --resume", which asked the same recording again and failed the same way."""
    import json

    from typer.testing import CliRunner

    from campus.cli.main import app

    db = str(tmp_path / "runs.db")
    cli = CliRunner()
    assert cli.invoke(app, ["run", "--db", db, "--scale", "0.05", "--max-steps", "30"]).exit_code == 0
    replayed = cli.invoke(app, ["run", "--db", db, "--agent", "recorded:oracle-s0"])
    assert replayed.exit_code == 2 and "ran out" in replayed.stderr and "--resume" not in replayed.stderr
    advice = replayed.stderr[replayed.stderr.index("campus fork"):].split(")")[0].replace("AGENT", "oracle").split()
    went_on = cli.invoke(app, [*advice[1:], "--json"])
    assert went_on.exit_code == 0 and json.loads(went_on.stdout)["finished"], went_on.output


def test_a_recording_of_another_run_is_refused_when_the_tasks_differ(world: WorldIndex, short_term: Term, oracle_run: Run) -> None:
    store = oracle_run.store
    noop = new_run(store, world, short_term, agent_name="noop", seed=0, branch_id="noop-rec")
    noop.session(make_agent("noop", short_term, world)).run()
    child, point = fork_run(oracle_run, step_boundary(oracle_run, 300), agent_name="recorded:noop-rec", new_id="mixed")
    head = store.head("mixed")
    with pytest.raises(RecordingError, match=r"has left the recording of noop-rec: reply \d+ was given in task"):
        child.session(recorded_agent(store, "noop-rec")).run()
    assert store.head("mixed") == head


def test_a_fork_asks_the_model_only_after_the_fork_point(
        world: WorldIndex, short_term: Term, oracle_replies: list[str], tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    with ChatServer(as_text_answers(oracle_replies)) as server:
        agent = llm_agent(server)
        parent = new_run(store, world, short_term, agent_name=agent.name, seed=0, branch_id="parent")
        parent.session(agent).run()
    fork_seq = step_boundary(parent, store.head("parent")[0] // 2 + 7)
    child, point = fork_run(open_run(store, "parent"), fork_seq, agent_name=agent.name, new_id="child")
    before = len([r for r in store.rows("child", 1, fork_seq) if r.kind == "agent_replied"])
    assert 0 < before < len(oracle_replies)
    with ChatServer(as_text_answers(oracle_replies[before:])) as server:
        child.session(llm_agent(server)).run()
    after = len([r for r in store.rows("child", fork_seq + 1) if r.kind == "agent_replied"])
    assert len(server.requests) == after == len(oracle_replies) - before
    first = server.requests[0]["messages"]
    assert first[-1]["role"] == "user"  # the chat of the task open at the fork, as the model last saw it
    assert store.head("child") == store.head("parent")
    store.close()


def test_forking_with_the_recording_of_the_parent_replays_the_rest(llm_run: Run) -> None:
    store = llm_run.store
    child, point = fork_run(open_run(store, "model"), 1_000, agent_name="recorded:model", new_id="model-tail")
    child.session(recorded_agent(store, "model")).run()
    assert point.seq <= 1_000 and events(store, "model-tail") == events(store, "model")
    assert store.agent_links("model-tail") == {point.seq + 1: "recorded:model"}


def test_a_missing_recording_is_a_clear_error() -> None:
    from campus.kernel.store import StoreError

    with pytest.raises(StoreError, match="no run named 'ghost'"):
        recorded_agent(MemoryStore(), "ghost")

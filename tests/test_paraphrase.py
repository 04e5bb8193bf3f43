"""The optional paraphrase of people's replies: a real openai client against a local server rewords them, the
words are recorded, and replay and verify read them from the log without the server."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from campus.agents import make_agent
from campus.agents.chat import ChatClient
from campus.agents.paraphrase import Paraphraser, make_paraphraser
from campus.cli.main import app
from campus.events import ClueRevealed, ReplyParaphrased, ToolCalled, ToolResult
from campus.kernel.store import MemoryStore
from campus.kernel.tasks import events_of
from campus.kernel.transcript import task_memories
from campus.replays.verify import verify
from campus.scenarios.play import new_run
from campus.scenarios.term import generate_term
from campus.world.index import WorldIndex
from tests.chat_server import Answer, ChatServer, error, text


def reword(request: dict[str, Any]) -> Answer:
    """A model that says the same thing its own way: the facts kept, the words changed."""
    return text(f"Well, let me tell you. {request['messages'][-1]['content']}")


def test_a_paraphrased_day_is_recorded_and_verifies_without_the_model(world: WorldIndex) -> None:
    term = generate_term(world, 0, 0.05)
    day = next(task for task in term.tasks if task.scenario == "busy_days")
    term = msgspec.structs.replace(term, tasks=(day,), rules=())
    run = new_run(MemoryStore(), world, term, agent_name="oracle", seed=0)
    with ChatServer(respond=reword) as server:
        paraphrase = Paraphraser(ChatClient(base_url=server.url, api_key="none"), "script-model")
        run.session(make_agent("oracle", term, world), paraphrase=paraphrase).run()
    said = events_of(run.store, run.branch.id, ReplyParaphrased)
    asked = [e.call_id for e in events_of(run.store, run.branch.id, ToolCalled) if e.tool == "people.ask"]
    assert [e.call_id for e in said] == asked and len(said) >= 6
    assert len(server.requests) == sum(e.text.count(' says: "') for e in said)
    assert all(request["messages"][0]["role"] == "system" and "Keep every fact" in request["messages"][0]["content"]
               for request in server.requests)
    results = {e.call_id: e.message for e in events_of(run.store, run.branch.id, ToolResult)}
    for paraphrased in said:
        template = results[paraphrased.call_id]
        assert paraphrased.text != template and paraphrased.text.count("\n") == template.count("\n")
        assert paraphrased.text.replace('says: "Well, let me tell you. ', 'says: "') == template  # only the quotes changed
    (memory,) = task_memories(run.store, run.branch.id, 10**9)
    chat = "\n".join(turn.content for turn in memory.messages)
    assert chat.count("Well, let me tell you.") == len(server.requests)
    assert not any(results[e.call_id] in chat for e in said)  # shown instead of the template
    (ended,) = run.ended_tasks()
    assert ended.outcome == "success" and len(events_of(run.store, run.branch.id, ClueRevealed)) >= 6
    assert verify(run, deep=True).ok  # the server is gone: the deep replay tells the recorded words again

    moved = MemoryStore()
    again = new_run(moved, world, term, agent_name="oracle", seed=0)
    again.session(make_agent("oracle", term, world), paraphrase=lambda call_id, message: "x" if call_id == "call-1" else None).run()
    assert [e.call_id for e in events_of(moved, again.branch.id, ReplyParaphrased)] == []  # call-1 is no one's reply


def test_the_cli_records_the_paraphrase_and_verifies_without_the_server(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    cli = CliRunner()
    with ChatServer(respond=reword) as server:
        made = cli.invoke(app, ["run", "--db", db, "--seed", "0", "--scale", "0.05", "--paraphrase-model", "script-model",
                                "--paraphrase-base-url", server.url, "--json"])
    assert made.exit_code == 0, made.output
    run_id = json.loads(made.stdout)["run"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM events WHERE kind = 'reply_paraphrased'").fetchone()[0] >= 6
    verified = cli.invoke(app, ["verify", run_id, "--db", db, "--deep", "--json"])
    assert verified.exit_code == 0 and json.loads(verified.stdout)["ok"], verified.output
    plain = cli.invoke(app, ["run", "--db", db, "--seed", "0", "--scale", "0.05", "--name", "plain", "--json"])
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM events WHERE kind = 'reply_paraphrased' AND branch = 'plain'").fetchone()[0] == 0
    assert plain.exit_code == 0


def test_a_paraphrase_model_that_fails_mid_step_leaves_the_step_out_and_a_resume_must_name_it_again(tmp_path: Path) -> None:
    """The paraphraser's failure was taken for the agent's (a decision not made), so the step was committed with the
    person's reply and without its rewording; a resume without --paraphrase-model went on un-reworded. Now the step is
    left out (the agent is asked again on resume) and such a resume is refused."""
    db = str(tmp_path / "runs.db")
    cli = CliRunner()
    served = {"count": 0}

    def reword_twice(request: dict[str, Any]) -> Answer:
        served["count"] += 1
        return reword(request) if served["count"] <= 2 else error(400)  # not retried

    with ChatServer(respond=reword_twice) as server:
        stopped = cli.invoke(app, ["run", "--db", db, "--seed", "0", "--scale", "0.05", "--paraphrase-model",
                                   "script-model", "--paraphrase-base-url", server.url, "--json"])
    assert stopped.exit_code == 2 and "the paraphrase model could not reword a reply" in stopped.stderr, stopped.output
    with sqlite3.connect(db) as conn:
        kinds = [kind for (kind,) in conn.execute("SELECT kind FROM events WHERE branch = 'oracle-s0' ORDER BY seq")]
        said = conn.execute("SELECT count(*) FROM events WHERE kind = 'reply_paraphrased'").fetchone()[0]
        asked = conn.execute("SELECT count(*) FROM events WHERE kind = 'tool_called' AND payload LIKE '%people.ask%'"
                             ).fetchone()[0]
    assert said == asked >= 1 and kinds[-1] != "tool_result"  # every person's reply kept is a reworded one
    refused = cli.invoke(app, ["run", "--db", db, "--resume", "oracle-s0"])
    assert refused.exit_code == 2 and "give --paraphrase-model" in refused.stderr
    with ChatServer(respond=reword) as server:
        resumed = cli.invoke(app, ["run", "--db", db, "--resume", "oracle-s0", "--paraphrase-model", "script-model",
                                   "--paraphrase-base-url", server.url, "--json"])
    assert resumed.exit_code == 0 and json.loads(resumed.stdout)["finished"], resumed.output
    verified = cli.invoke(app, ["verify", "oracle-s0", "--db", db, "--json"])
    assert verified.exit_code == 0, verified.output


def test_an_env_episode_can_have_people_reworded(world: WorldIndex) -> None:
    """``Env(paraphrase=...)``: the observations carry the reworded replies and the run verifies without the model."""
    from campus.env import Env

    with ChatServer(respond=reword) as server:
        env = Env(seed=0, scale=0.05, world=world, paraphrase=Paraphraser(ChatClient(base_url=server.url, api_key="none"),
                                                                          "script-model"))
        env.reset()
        oracle = make_agent("oracle", env.run.term, world)
        reworded = 0
        while reworded < 2:
            view = env.view()
            assert view is not None
            observation = env.step(oracle.act(view))[0]
            reworded += "Well, let me tell you." in observation
    said = events_of(env.run.store, env.run.branch.id, ReplyParaphrased)
    assert len(said) == 2 == len(server.requests)
    assert verify(env.run, deep=True).ok
    env.close()


@pytest.mark.parametrize(("args", "message"), [(["--paraphrase-base-url", "http://127.0.0.1:9/v1"], "goes with --paraphrase-model"),
                                               (["--paraphrase-model", "openai/"], "needs a model name")])
def test_bad_paraphrase_options_are_one_line_errors(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["run", "--db", str(tmp_path / "runs.db"), "--scale", "0.05", *args])
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "runs.db").exists()


def test_a_provider_without_its_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        make_paraphraser("openai/gpt-4.1-mini")


def test_verify_refuses_a_paraphrase_that_follows_no_persons_reply(world: WorldIndex) -> None:
    from campus.replays.fork import fork_run

    term = generate_term(world, 0, 0.05)
    day = next(task for task in term.tasks if task.scenario == "busy_days")
    term = msgspec.structs.replace(term, tasks=(day,), rules=())
    run = new_run(MemoryStore(), world, term, agent_name="oracle", seed=0)
    run.session(make_agent("oracle", term, world)).run(max_steps=5)
    rows = run.store.rows(run.branch.id)
    mailed = next(row for row in reversed(rows) if row.kind == "tool_result" and "Email sent" in row.payload)
    call_id = json.loads(mailed.payload)["call_id"]
    fork, point = fork_run(run, mailed.seq, agent_name="oracle", new_id="tampered")
    said = ReplyParaphrased(task_id=day.id, call_id=call_id, text="Sent, as you asked.")  # an email is no one's words
    fork.store.lease(fork.branch.id)
    fork.store.append(fork.branch.id, [(mailed.t, said, None)], expect=point.seq)
    fork.store.release(fork.branch.id)
    report = verify(fork)
    assert verify(run).ok and not report.ok and report.mismatch is not None
    assert "no paraphrase here" in str(report.mismatch.expected)

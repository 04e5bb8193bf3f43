"""The prompt is part of the record: the request's hash beside each reply, a tools-mode prompt without the
text-protocol manual, one spelling of each tool, and token and latency totals per run and task."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from campus.agents.llm import TOOLS_MODE_INSTRUCTIONS, LLMConfig, call_messages, request_hash
from campus.cli.main import app
from campus.kernel.agent import Turn
from campus.kernel.store import SQLiteStore
from campus.scenarios.play import new_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex
from tests.chat_server import ChatServer, text, tool_call
from tests.llm_support import SCALE, as_text_answers, as_tool_calls, llm_agent
from tests.test_llm_agent import first_view

pytest_plugins = ["tests.llm_fixtures"]


def test_the_hash_of_the_exact_request_is_kept_beside_the_reply(world: WorldIndex, short_term: Term) -> None:
    view = first_view(world, short_term)
    with ChatServer([text("<action>Answer: A</action>"), tool_call("finish", {})]) as server:
        text_agent, tools_agent = llm_agent(server), llm_agent(server, mode="tools")
        text_agent.act(view)
        tools_agent.act(view)
    for agent, received in zip((text_agent, tools_agent), server.requests):
        assert agent.last_meta is not None and agent.last_meta["request_sha256"] == request_hash(received)
    assert text_agent.last_meta["request_sha256"] != tools_agent.last_meta["request_sha256"]  # type: ignore[index]


def test_tools_mode_has_its_own_instructions_instead_of_the_text_protocol_manual(world: WorldIndex, short_term: Term) -> None:
    view = first_view(world, short_term)
    with ChatServer([tool_call("finish", {}), text("<action>Action: finish()</action>")]) as server:
        llm_agent(server, mode="tools").act(view)
        llm_agent(server).act(view)
    tools_system, text_system = (request["messages"][0]["content"] for request in server.requests)
    assert tools_system.startswith(TOOLS_MODE_INSTRUCTIONS)
    assert "<action>" not in tools_system and "Action:" not in tools_system and view.prompt not in tools_system
    assert text_system.startswith(view.prompt) and "<action>" in text_system


def test_tools_mode_shows_each_tool_by_its_function_name_in_what_the_campus_says() -> None:
    turns = (Turn("user", "Go to the library."), Turn("assistant", "thinking"),
             Turn("user", "Unknown tool calendar.add_events; did you mean calendar.add_event? "
                          "See also map.find_building_id, email.send_email and xcalendar.add_event."))
    messages = call_messages(turns, frozenset({"calendar__add_event", "map__find_building_id", "finish"}))
    assert messages[2]["content"] == ("Unknown tool calendar.add_events; did you mean calendar__add_event? "
                                      "See also map__find_building_id, email.send_email and xcalendar.add_event.")


def test_score_and_runs_total_a_model_runs_tokens_and_latency_per_run_and_per_task(
        tmp_path: Path, oracle_replies: list[str]) -> None:
    db = str(tmp_path / "runs.db")
    runner = CliRunner()
    with ChatServer(as_text_answers(oracle_replies)) as server:
        played = runner.invoke(app, ["run", "--db", db, "--scale", str(SCALE), "--agent", "llm", "--model", "m",
                                     "--base-url", server.url, "--json"], env={"OPENAI_API_KEY": None})
    assert played.exit_code == 0, played.output
    run_id = json.loads(played.stdout)["run"]
    scored = json.loads(runner.invoke(app, ["score", run_id, "--db", db, "--json"]).stdout)
    total, by_task = scored["usage"]["total"], scored["usage"]["by_task"]
    replies = len(oracle_replies)
    assert (total["replies"], total["prompt_tokens"], total["completion_tokens"]) == (replies, 11 * replies, 7 * replies)
    assert total["latency_s"] > 0 and sum(task["replies"] for task in by_task.values()) == replies
    assert len(by_task) > 1 and all(task["prompt_tokens"] == 11 * task["replies"] for task in by_task.values())
    listed = json.loads(runner.invoke(app, ["runs", "--db", db, "--json"]).stdout)
    assert listed[0]["tokens"] == 18 * replies
    shown = runner.invoke(app, ["score", run_id, "--db", db]).stdout
    assert f"{replies} replies: {11 * replies:,} prompt + {7 * replies:,} completion tokens" in shown


def test_verify_deep_rebuilds_every_request_and_finds_one_the_spec_would_not_have_sent(
        tmp_path: Path, world: WorldIndex, short_term: Term, oracle_replies: list[str]) -> None:
    db = str(tmp_path / "runs.db")
    runner = CliRunner()
    with ChatServer(as_tool_calls(oracle_replies)) as server:
        played = runner.invoke(app, ["run", "--db", db, "--scale", str(SCALE), "--agent", "llm", "--model", "m", "--mode",
                                     "tools", "--memory", "history", "--base-url", server.url, "--json"],
                               env={"OPENAI_API_KEY": None})
    assert played.exit_code == 0, played.output
    run_id = json.loads(played.stdout)["run"]
    verified = runner.invoke(app, ["verify", run_id, "--db", db, "--deep", "--json"])
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.stdout)["prompts"] == {"checked": len(oracle_replies), "mismatch": None, "skipped": None}

    store = SQLiteStore(db)
    recorded_as = LLMConfig(model="m", base_url="http://127.0.0.1:9/v1", variant="vanilla").spec()
    run = new_run(store, world, short_term, agent_name=recorded_as, seed=0, branch_id="misrecorded")
    with ChatServer(as_text_answers(oracle_replies[:5])) as server:
        run.session(llm_agent(server, variant="proactive")).run(max_steps=5)
    store.close()
    caught = runner.invoke(app, ["verify", "misrecorded", "--db", db, "--deep"])
    assert caught.exit_code == 1 and "prompt mismatch in misrecorded: reply 1" in caught.stderr, caught.output

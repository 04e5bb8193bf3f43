"""The prompt is part of the record: the request's hash beside each reply, a tools-mode prompt without the
text-protocol manual, one spelling of each tool, and token and latency totals per run and task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from typer.testing import CliRunner

from campus.agents.llm import TOOLS_MODE_INSTRUCTIONS, LLMConfig, call_messages, request_hash
from campus.cli.main import app
from campus.kernel.agent import Turn
from campus.kernel.store import SQLiteStore
from campus.replays.prices import PRICES, Price, cost_usd, load_prices, price_for
from campus.replays.usage import Usage
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

    assert scored["cost"] == {"usd": None, "price": None, "by_task": {task: None for task in by_task}}
    assert "cost unknown: no price for m (give one with --prices FILE)" in shown
    prices = tmp_path / "prices.toml"
    prices.write_text('[m]\ninput = 2.0\noutput = 8.0\n["openai/gpt-4.1"]\ninput = 1.0\noutput = 1.0\n')
    priced = json.loads(runner.invoke(app, ["score", run_id, "--db", db, "--prices", str(prices), "--json"]).stdout)["cost"]
    assert priced["usd"] == round(replies * (11 * 2.0 + 7 * 8.0) / 1e6, 6) and priced["price"] == {"input": 2.0, "output": 8.0}
    assert all(priced["by_task"][task] == round(spent["replies"] * 78 / 1e6, 6) for task, spent in by_task.items())
    assert f"cost ${replies * 78 / 1e6:.4f} (m at $2 in / $8 out per 1M tokens)" in runner.invoke(
        app, ["score", run_id, "--db", db, "--prices", str(prices)]).stdout
    listed = json.loads(runner.invoke(app, ["runs", "--db", db, "--prices", str(prices), "--json"]).stdout)
    assert listed[0]["cost_usd"] == priced["usd"]


def test_the_price_table_reads_toml_or_json_and_refuses_a_bad_file_in_one_line(tmp_path: Path) -> None:
    toml_file, json_file = tmp_path / "p.toml", tmp_path / "p.json"
    toml_file.write_text('["vllm/Qwen/Qwen3-8B"]\ninput = 0.0\noutput = 0.0\n["openai/gpt-4.1"]\ninput = 3\noutput = 9\n')
    json_file.write_text('{"ollama/llama3.1": {"input": 0.5, "output": 1.5}}')
    table = load_prices(toml_file)
    assert table["vllm/Qwen/Qwen3-8B"] == Price(0.0, 0.0) and table["openai/gpt-4.1"] == Price(3.0, 9.0)
    assert table["openai/gpt-4o"] == PRICES["openai/gpt-4o"] and load_prices(json_file)["ollama/llama3.1"] == Price(0.5, 1.5)
    assert price_for(table, LLMConfig(model="gpt-4.1").price_key()) == Price(3.0, 9.0)  # OpenAI's own URL
    assert price_for(table, LLMConfig(model="x", provider="ollama").price_key()) is None
    assert cost_usd(Usage(1, 1_000_000, 500_000), Price(3.0, 9.0)) == 7.5 and cost_usd(Usage(1, 10, 10), None) is None
    bad = {"broken.toml": "[m\ninput = 1", "broken.json": "{", "negative.json": '{"m": {"input": -1, "output": 1}}',
           "extra.json": '{"m": {"input": 1, "output": 1, "currency": "EUR"}}', "flat.json": '{"m": 2.0}',
           "endless.json": '{"m": {"input": Infinity, "output": 1}}', "deep.json": "[" * 5000 + "]" * 5000,
           "deep.toml": "a = " + "[" * 5000 + "]" * 5000, "long.json": '{"m": {"input": ' + "9" * 5000 + ', "output": 1}}'}
    runner = CliRunner()
    for name, text in bad.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(ValueError, match=name):
            load_prices(tmp_path / name)
        result = runner.invoke(app, ["runs", "--db", str(tmp_path / "none.db"), "--prices", str(tmp_path / name)])
        assert result.exit_code == 2 and result.stderr.startswith("error:") and len(result.stderr.strip().splitlines()) == 1
    missing = runner.invoke(app, ["runs", "--prices", str(tmp_path / "nowhere.toml")])
    assert missing.exit_code == 2 and "cannot read the price file" in missing.stderr
    assert not (tmp_path / "none.db").exists()


def test_prompt_rebuilds_the_exact_request_a_step_sent_and_checks_it_against_the_stored_hash(
        tmp_path: Path, world: WorldIndex, short_term: Term, oracle_replies: list[str]) -> None:
    db = str(tmp_path / "runs.db")
    store = SQLiteStore(db)
    spec = LLMConfig(model="script-model", base_url="http://127.0.0.1:9/v1", mode="tools", memory="history").spec()
    run = new_run(store, world, short_term, agent_name=spec, seed=0, branch_id="model")
    with ChatServer(as_tool_calls(oracle_replies[:9])) as server:
        run.session(llm_agent(server, mode="tools", memory="history")).run(max_steps=9)
    replied = [r for r in store.rows("model") if r.kind == "agent_replied"]
    tasks = [json.loads(r.payload)["task_id"] for r in replied]
    task = tasks[0]
    reply = [i for i, t in enumerate(tasks) if t == task][4]
    misrecorded = new_run(store, world, short_term, agent_name=LLMConfig(model="script-model", base_url="http://127.0.0.1:9/v1",
                                                                         variant="vanilla").spec(), seed=0, branch_id="misrecorded")
    with ChatServer(as_text_answers(oracle_replies[:2])) as other:
        misrecorded.session(llm_agent(other, variant="proactive")).run(max_steps=2)
    store.close()
    runner = CliRunner()
    shown = runner.invoke(app, ["prompt", "model", "--task", task, "--step", "5", "--db", db, "--json"])
    assert shown.exit_code == 0, shown.output
    rebuilt = json.loads(shown.stdout)
    sent = server.requests[reply]
    assert rebuilt["request"]["messages"] == sent["messages"] and rebuilt["request"]["tools"] == sent["tools"]
    assert rebuilt["sha256"] == rebuilt["recorded_sha256"] == request_hash(sent) and rebuilt["matches"] is True
    assert rebuilt["reply"] == reply + 1
    text = runner.invoke(app, ["prompt", "model", "--task", task, "--step", "5", "--db", db])
    assert text.exit_code == 0 and "matches the hash stored beside the reply" in text.stdout
    assert sent["messages"][-1]["role"] in text.stdout and request_hash(sent) in text.stdout
    caught = runner.invoke(app, ["prompt", "misrecorded", "--task", task, "--step", "1", "--db", db])
    assert caught.exit_code == 1 and "differs from the hash stored beside the reply" in caught.stderr
    for args, says in ((["--task", task, "--step", "99"], "has steps 1 to"), (["--task", "no-such", "--step", "1"], "never replied")):
        refused = runner.invoke(app, ["prompt", "model", *args, "--db", db])
        assert refused.exit_code == 2 and says in refused.stderr and len(refused.stderr.strip().splitlines()) == 1


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

"""`campus run/fork --agent llm` and `--agent recorded:RUN` against a local chat-completions server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from campus.agents.variants import load_variant
from campus.cli.main import app
from campus.kernel.store import SQLiteStore
from tests.chat_server import ChatServer
from tests.llm_support import SCALE, as_text_answers, as_tool_calls

pytest_plugins = ["tests.llm_fixtures"]  # the short term and the oracle's script

KEY = "sk-cli-secret-0042"
CLEAN_ENV = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None, "CAMPUS_MODEL": None}


def campus(*args: str, env: dict[str, str | None] | None = None):
    result = CliRunner().invoke(app, list(args), env=CLEAN_ENV | (env or {}))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def llm_run(db: Path, server: ChatServer, *extra: str):
    return campus("run", "--db", str(db), "--scale", str(SCALE), "--json", "--agent", "llm", "--model", "script-model",
                  "--base-url", server.url, "--api-key", KEY, *extra)


def test_run_with_a_model_scores_what_the_oracle_scored_and_stores_no_key(tmp_path: Path, oracle_replies: list[str]) -> None:
    db = tmp_path / "runs.db"
    with ChatServer(as_text_answers(oracle_replies), api_key=KEY) as server:
        result = llm_run(db, server)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["run"] == "llm-script-model-s0" and report["finished"]
    assert report["scorecard"]["stugpa"]["total"] == 100.0
    assert report["agent"].startswith("llm:model=script-model;base_url=http://127.0.0.1:") and ";mode=text;" in report["agent"]
    assert len(server.requests) == len(oracle_replies)
    SQLiteStore(db).close()  # checkpoint the WAL into the file before reading its bytes
    assert KEY.encode() not in db.read_bytes()
    scored = campus("score", report["run"], "--db", str(db), "--json", env={"OPENAI_API_KEY": None})
    assert scored.exit_code == 0 and json.loads(scored.stdout)["matches"]


def test_bad_credentials_exit_2_with_one_line(tmp_path: Path, oracle_replies: list[str]) -> None:
    with ChatServer(as_text_answers(oracle_replies), api_key=KEY) as server:
        result = campus("run", "--db", str(tmp_path / "runs.db"), "--scale", str(SCALE), "--agent", "llm",
                        "--model", "m", "--base-url", server.url, "--api-key", "sk-wrong")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "refused the API key (401)" in lines[0] and "Traceback" not in result.output
    assert len(server.requests) == 1


def test_an_unreachable_endpoint_exits_2(tmp_path: Path) -> None:
    with ChatServer() as server:
        url = server.url
    result = campus("run", "--db", str(tmp_path / "runs.db"), "--scale", str(SCALE), "--agent", "llm", "--model", "m",
                    "--base-url", url, "--retries", "0")
    assert result.exit_code == 2 and "cannot reach the model endpoint" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("args", "message"), [
    (("--agent", "oracle", "--model", "m"), "--model is for --agent llm only"),
    (("--agent", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--variant", "fancy"),
     "unknown prompt variant 'fancy'; choose one of: all-in-one, proactive, skill, vanilla"),
    (("--agent", "llm", "--base-url", "http://127.0.0.1:9/v1"), "needs a model: pass --model or set CAMPUS_MODEL"),
    (("--agent", "llm", "--model", "gpt-x"), "no API key for OpenAI: pass --api-key or set OPENAI_API_KEY"),
    (("--agent", "recorded:nothing-here"), "no run named 'nothing-here'"),
])
def test_bad_agent_options_are_clear_errors_that_change_nothing(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    db = tmp_path / "runs.db"
    scale = () if args[1].startswith("recorded:") else ("--scale", str(SCALE))  # a replay takes its run's scale
    result = campus("run", "--db", str(db), *scale, *args)
    assert result.exit_code == 2 and message in result.stderr, result.output
    if db.exists():
        listed = campus("runs", "--db", str(db), "--json")
        assert json.loads(listed.stdout) == []


def test_a_resume_that_would_change_the_agent_is_refused_and_one_that_names_it_again_keeps_its_endpoint(
        tmp_path: Path, oracle_replies: list[str]) -> None:
    """Options given again on a resume override the stored spec only where they leave the same agent: another
    variant, model or sampling setting would record replies the run's spec cannot rebuild (verify --deep failed on
    such an honest run), so it is refused; naming the same provider's model again keeps the run's own endpoint
    (it used to fall back to the provider's URL)."""
    db = tmp_path / "runs.db"
    with ChatServer(as_text_answers(oracle_replies), api_key=KEY) as server:
        started = campus("run", "--db", str(db), "--scale", str(SCALE), "--json", "--agent", "llm", "--model",
                         "openai/script-model", "--base-url", server.url, "--api-key", KEY, "--max-steps", "3")
        assert started.exit_code == 0, started.output
        run_id, events = json.loads(started.stdout)["run"], json.loads(started.stdout)["events"]
        for option, value in (("--variant", "proactive"), ("--model", "openai/other-model"), ("--temperature", "0.5")):
            refused = campus("run", "--db", str(db), "--resume", run_id, "--json", option, value, "--api-key", KEY)
            assert refused.exit_code == 2, refused.output
            assert f"{option} would change the agent of run {run_id}" in refused.stderr
            assert f"campus fork {run_id}" in refused.stderr
        assert len(server.requests) == 3
        again = campus("run", "--db", str(db), "--resume", run_id, "--json", "--model", "openai/script-model",
                       "--api-key", KEY, "--max-steps", "2")
        assert again.exit_code == 0, again.output
        assert len(server.requests) == 5
    resumed = json.loads(again.stdout)
    assert resumed["agent"] == json.loads(started.stdout)["agent"] and resumed["events"] > events
    verified = campus("verify", run_id, "--db", str(db), "--deep", "--json")
    assert verified.exit_code == 0, verified.output


@pytest.mark.slow
def test_resume_rebuilds_the_same_agent_and_fork_asks_only_after_the_fork(tmp_path: Path, oracle_replies: list[str]) -> None:
    db = tmp_path / "runs.db"
    settings = ("--mode", "tools", "--variant", "skill", "--memory", "history", "--memory-tokens", "500", "--temperature", "0")
    with ChatServer(as_tool_calls(oracle_replies)[:60], api_key=KEY) as first:
        started = llm_run(db, first, *settings, "--max-steps", "60")
    assert started.exit_code == 0, started.output
    run_id = json.loads(started.stdout)["run"]
    with ChatServer(as_tool_calls(oracle_replies)[60:], api_key=KEY) as second:
        resumed = campus("run", "--db", str(db), "--resume", run_id, "--json", "--base-url", second.url, "--api-key", KEY)
    assert resumed.exit_code == 0, resumed.output
    report = json.loads(resumed.stdout)
    assert report["finished"] and report["scorecard"]["stugpa"]["total"] == 100.0
    assert len(second.requests) == len(oracle_replies) - 60
    sent = second.requests[0]
    assert sent["temperature"] == 0 and {f["function"]["name"] for f in sent["tools"]} >= {"answer", "finish"}
    system = sent["messages"][0]["content"]
    assert load_variant("skill") in system and "## What you remember" in system
    assert report["agent"] == json.loads(started.stdout)["agent"]

    with ChatServer(as_tool_calls(oracle_replies)[150:], api_key=KEY) as third:
        forked = campus("fork", run_id, "--db", str(db), "--at-step", str(report["events"]), "--json", "--base-url", third.url,
                        "--api-key", KEY, "--name", "tail")
        assert forked.exit_code == 0 and third.requests == [], forked.output  # forked at the end: nothing left to ask
        at = _seq_before_reply(db, run_id, 150)
        forked = campus("fork", run_id, "--db", str(db), "--at-step", str(at), "--json", "--base-url", third.url,
                        "--api-key", KEY)
    assert forked.exit_code == 0, forked.output
    child = json.loads(forked.stdout)
    assert child["fork_seq"] == at and len(third.requests) == len(oracle_replies) - 150

    ignored = campus("run", "--db", str(db), "--agent", f"recorded:{run_id}", "--json", "--seed", "9")
    assert ignored.exit_code == 2 and "--seed cannot be used with --agent recorded:" in ignored.stderr  # it was ignored
    replayed = campus("run", "--db", str(db), "--agent", f"recorded:{run_id}", "--json")
    assert replayed.exit_code == 0, replayed.output
    again = json.loads(replayed.stdout)
    assert again["seed"] == 0
    refork = campus("fork", run_id, "--db", str(db), "--at-step", str(at), "--agent", f"recorded:{run_id}", "--json")
    assert refork.exit_code == 0
    # each agent spec (another server, a recording) is bound into its chain, so the runs hold the same events, not hashes
    events = SQLiteStore(db)
    try:
        original = [(r.t, r.payload) for r in events.rows(run_id)]
        for other in (child["run"], again["run"], json.loads(refork.stdout)["run"]):
            assert [(r.t, r.payload) for r in events.rows(other)] == original, other
    finally:
        events.close()


def _seq_before_reply(db: Path, run_id: str, index: int) -> int:
    store = SQLiteStore(db)
    try:
        replies = [r.seq for r in store.rows(run_id) if r.kind == "agent_replied"]
        return replies[index] - 1
    finally:
        store.close()


def test_help_says_where_the_key_comes_from_and_what_the_modes_are() -> None:
    result = campus("run", "--help")
    text = " ".join(result.stdout.replace("\u2502", " ").split())  # unwrap rich's boxed columns
    for needle in ("OPENAI_API_KEY", "CAMPUS_MODEL", "OPENAI_BASE_URL", "native function calling", "recorded:RUN",
                   "scratchpad", "Never stored"):
        assert needle in text, needle
    assert "--base-url" in campus("fork", "--help").stdout

"""Runs stay clean: names, no litter from a model that never answered, errors that say how to go on, a true `runs` table."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from campus.cli.main import app
from campus.lab.lifelong import probe_count
from tests.chat_server import ChatServer
from tests.llm_support import SCALE, as_text_answers

pytest_plugins = ["tests.llm_fixtures"]

KEY = "sk-clean-runs"
CLEAN_ENV = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None, "CAMPUS_MODEL": None}


def campus(*args: str):
    result = CliRunner().invoke(app, list(args), env=CLEAN_ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def runs(db: Path, *extra: str) -> list[dict]:
    listed = campus("runs", "--db", str(db), "--json", *extra)
    assert listed.exit_code == 0, listed.output
    return json.loads(listed.stdout)


def model_run(db: Path, server: ChatServer, key: str, *extra: str):
    return campus("run", "--db", str(db), "--scale", str(SCALE), "--json", "--agent", "llm", "--model", "script-model",
                  "--base-url", server.url, "--api-key", key, "--retries", "0", *extra)


def test_a_model_that_never_answers_leaves_no_visible_run_and_the_retry_plays_into_the_same_one(
        tmp_path: Path, oracle_replies: list[str]) -> None:
    db = tmp_path / "runs.db"
    with ChatServer(as_text_answers(oracle_replies), api_key=KEY) as server:
        for _ in range(3):
            failed = model_run(db, server, "sk-wrong")
            assert failed.exit_code == 2
            [line] = failed.stderr.strip().splitlines()
            assert "run llm-script-model-s0 has no reply yet" in line and "the same command plays into it again" in line
        assert runs(db) == []
        assert [(r["run"], r["status"]) for r in runs(db, "--all")] == [("llm-script-model-s0", "abandoned")]
        played = model_run(db, server, KEY)
    assert played.exit_code == 0, played.output
    assert json.loads(played.stdout)["run"] == "llm-script-model-s0"
    [row] = runs(db, "--all")
    assert row["status"] == "finished" and row["stugpa"] == 100.0 and row["scale"] == SCALE


def test_an_error_mid_run_names_the_run_and_the_exact_resume_command(tmp_path: Path, oracle_replies: list[str]) -> None:
    db = tmp_path / "runs.db"
    with ChatServer(as_text_answers(oracle_replies[:30]), api_key=KEY) as server:
        failed = model_run(db, server, KEY, "--name", "mine")
    assert failed.exit_code == 2
    [line] = failed.stderr.strip().splitlines()
    [row] = runs(db)
    assert row["run"] == "mine" and row["status"] == "stopped" and row["status_text"] == f"stopped at step {row['events']}"
    command = f"campus run --db {db} --resume mine"
    assert f"(run mine stopped at step {row['events']}; continue it with: {command})" in line
    with ChatServer(as_text_answers(oracle_replies[30:]), api_key=KEY) as server:
        resumed = campus(*command.split()[1:], "--json", "--base-url", server.url, "--api-key", KEY)
    assert resumed.exit_code == 0 and json.loads(resumed.stdout)["finished"], resumed.output


def test_runs_shows_status_agent_scale_score_and_a_forks_parent_apart_from_its_own_name(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    assert campus("run", "--db", db, "--scale", "0.05", "--name", "first", "--json").exit_code == 0
    assert campus("run", "--db", db, "--scale", "0.05", "--name", "first").exit_code == 2  # the name is taken
    assert campus("fork", "first", "--db", db, "--at-step", "40", "--agent", "noop", "--json").exit_code == 0
    rows = {r["run"]: r for r in runs(Path(db))}
    assert rows["first"]["status"] == "finished" and rows["first"]["scale"] == 0.05 and rows["first"]["stugpa"] == 100.0
    [fork] = [r for r in rows.values() if r["parent"] is not None]
    assert fork["parent"] == "first" and fork["fork_seq"] <= 40 and fork["agent"] == "noop"
    assert rows["first"]["parent"] is None and rows["first"]["fork_seq"] is None
    table = campus("runs", "--db", db)
    assert table.exit_code == 0 and table.stdout.splitlines()[0].count("┳") == 11  # 12 columns, however narrow


def test_lifelong_says_how_many_branches_and_asks_for_yes_above_the_threshold(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    assert campus("run", "--db", str(db), "--scale", "0.05", "--agent", "stateless").exit_code == 0
    refused = campus("lifelong", "stateless-s0", "--db", str(db), "--blocks", "10")
    assert refused.exit_code == 2 and "makes 65 probe branches" in refused.stderr and "--yes" in refused.stderr
    assert len(runs(db, "--all")) == 1
    assert probe_count(50) == 1325 and probe_count(3) == 9

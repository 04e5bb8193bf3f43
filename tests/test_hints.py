"""Counterfactual hints: a fork told a rung of a busy day's hint ladder, and what the hint unlocked."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from campus.cli.main import app

SMALL = ["--seed", "3", "--scale", "0.2"]
"""Two busy days: the smallest term with one."""


def _first_busy_reply(db: str) -> int:
    with sqlite3.connect(db) as conn:
        released = conn.execute("SELECT min(seq) FROM events WHERE kind = 'task_released' AND payload LIKE '%busy-w%'").fetchone()[0]
        return int(conn.execute("SELECT min(seq) FROM events WHERE kind = 'agent_replied' AND seq > ?", (released,)).fetchone()[0])


def test_hints_on_a_guesser_unlock_their_rungs_and_the_forks_verify(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    cli = CliRunner()
    made = cli.invoke(app, ["run", "--db", db, "--agent", "guesser", *SMALL, "--json"])
    assert made.exit_code == 0, made.output
    run_id, at = json.loads(made.stdout)["run"], str(_first_busy_reply(db))
    unlocked = {}
    for level in ("1", "2", "3"):
        forked = cli.invoke(app, ["fork", run_id, "--db", db, "--at-step", at, "--hint-level", level, "--name", f"h{level}", "--json"])
        assert forked.exit_code == 0, forked.output
        hint = json.loads(forked.stdout)["hint"]
        assert hint["errands"] == ["e2-1", "e2-2", "e2-3"] and hint["text"].startswith(f"Hint (level {level}):\n[e2-1] ")
        report = json.loads(cli.invoke(app, ["diff", run_id, f"h{level}", "--db", db, "--json"]).stdout)
        (only,) = report["hints"]
        assert only["task_id"] == "busy-w2" and only["lost"] == []
        unlocked[level] = set(only["unlocked"])
        verified = cli.invoke(app, ["verify", f"h{level}", "--db", db, "--deep", "--json"])
        assert verified.exit_code == 0 and json.loads(verified.stdout)["ok"], verified.output
    assert unlocked["1"] == set()
    done = {"e2-1/reported_on_time", "e2-2/reported_on_time", "e2-3/reported_on_time"}  # a report counts once it is done
    assert unlocked["2"] == {"e2-1/asked_shelf", "e2-1/email_sent", "e2-2/asked_time", "e2-2/calendar_entry",
                             "e2-3/asked_building", "e2-3/asked_number", "e2-3/email_sent"} | done
    assert unlocked["3"] == {"e2-1/email_sent", "e2-2/calendar_entry", "e2-3/email_sent"} | done  # told, not asked
    shown = cli.invoke(app, ["diff", run_id, "h2", "--db", db])
    assert "level 2 hint in busy-w2: unlocked e2-1/asked_shelf" in shown.stdout


def test_a_free_hint_is_told_where_the_fork_starts_and_bad_hints_change_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    cli = CliRunner()
    run_id = json.loads(cli.invoke(app, ["run", "--db", db, "--agent", "guesser", *SMALL, "--json"]).stdout)["run"]
    at = str(_first_busy_reply(db))
    told = cli.invoke(app, ["fork", run_id, "--db", db, "--at-step", at, "--hint", "Ask before you guess.", "--name", "free",
                            "--max-steps", "0", "--json"])
    assert told.exit_code == 0 and json.loads(told.stdout)["hint"] == {"level": 0, "errands": [], "text": "Ask before you guess."}
    with sqlite3.connect(db) as conn:
        branches = conn.execute("SELECT count(*) FROM branches").fetchone()[0]
        kinds = [k for (k,) in conn.execute("SELECT kind FROM events WHERE branch = 'free'")]
    assert kinds == ["hint_given"]
    for bad, message in ((["--hint", "x", "--hint-level", "2"], "not both"), (["--hint-level", "2", "--at-step", "1"], "no task is open"),
                         (["--hint", "   "], "empty"), (["--hint-level", "4"], "--hint-level")):
        args = bad if "--at-step" in bad else [*bad, "--at-step", at]
        refused = cli.invoke(app, ["fork", run_id, "--db", db, *args])
        assert refused.exit_code == 2 and message in refused.output and "Traceback" not in refused.output
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM branches").fetchone()[0] == branches


def test_a_hint_told_mid_errand_reaches_the_errand_in_hand(tmp_path: Path) -> None:
    """A fork between the guesser's (guessed) answer and its report of the same errand: the hint names that errand,
    the guesser's next turn sees it and does the errand again the way the hint says, before reporting it."""
    db = str(tmp_path / "runs.db")
    cli = CliRunner()
    run_id = json.loads(cli.invoke(app, ["run", "--db", db, "--agent", "guesser", *SMALL, "--json"]).stdout)["run"]
    with sqlite3.connect(db) as conn:
        released = conn.execute("SELECT min(seq) FROM events WHERE kind = 'task_released' AND payload LIKE '%busy-w%'").fetchone()[0]
        at, payload = conn.execute("SELECT seq, payload FROM events WHERE kind = 'agent_replied' AND seq > ? AND payload LIKE "
                                   "'%report_done%' ORDER BY seq LIMIT 1", (released,)).fetchone()
    in_hand = payload.split('errand_id=\\"', 1)[1].split("\\", 1)[0]
    unlocked = {}
    for level in ("2", "3"):
        forked = cli.invoke(app, ["fork", run_id, "--db", db, "--at-step", str(at), "--hint-level", level, "--name", f"h{level}", "--json"])
        assert forked.exit_code == 0, forked.output
        assert in_hand in json.loads(forked.stdout)["hint"]["errands"]
        (only,) = json.loads(cli.invoke(app, ["diff", run_id, f"h{level}", "--db", db, "--json"]).stdout)["hints"]
        unlocked[level] = {key for key in only["unlocked"] if key.startswith(f"{in_hand}/")}
        verified = cli.invoke(app, ["verify", f"h{level}", "--db", db, "--deep", "--json"])
        assert verified.exit_code == 0 and json.loads(verified.stdout)["ok"], verified.output
    answer = {key for key in unlocked["2"] if not key.split("/")[1].startswith("asked_")}
    assert f"{in_hand}/reported_on_time" in answer  # a report counts once the errand is done
    assert len(answer) == 2 and unlocked["3"] == answer and len(unlocked["2"]) >= 3

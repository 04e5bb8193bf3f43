"""The command line, end to end in real processes: run, replay, fork, verify, diff, export, import."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def campus(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "campus.cli.main", *args], cwd=cwd, capture_output=True, text=True,
                            env=os.environ | {"PYTHONPATH": str(ROOT)}, timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"campus {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result


def as_json(result: subprocess.CompletedProcess) -> dict:
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A directory where `campus run` with no arguments has run once (the oracle)."""
    path = tmp_path_factory.mktemp("cli")
    first = campus("run", cwd=path)
    assert "campus_exploration" in first.stdout and (path / "runs.db").exists()
    return path


def test_default_run_is_the_oracle_solving_everything(workdir: Path) -> None:
    report = as_json(campus("run", "--json", "--db", "second.db", cwd=workdir))
    assert set(report) >= {"run", "events", "final_hash", "scorecard"}
    card = report["scorecard"]
    assert len(card["by_scenario"]) == 12 and all(row["success_rate"] == 1.0 for row in card["by_scenario"].values())
    assert card["busy_days"]["sr"] == card["busy_days"]["cs"] == 1.0 and card["busy_days"]["days"] == 12
    assert card["stugpa"]["total"] == 100.0 and card["ltrr"] == 1.0 and card["pis"] == 1.0 and card["drs"] == 1.0
    assert card["by_scenario"]["disruptions"]["tasks"] == 360
    assert report["run"] == "oracle-s0" and report["events"] > 1000 and len(report["final_hash"]) == 64


def test_noop_solves_nothing(workdir: Path) -> None:
    report = as_json(campus("run", "--agent", "noop", "--json", cwd=workdir))
    assert report["scorecard"]["by_scenario"]["campus_exploration"]["succeeded"] == 0
    assert report["run"] == "noop-s0"


def test_same_seed_same_hash_in_separate_processes(workdir: Path, tmp_path: Path) -> None:
    hashes = {as_json(campus("run", "--json", "--seed", "5", "--db", str(tmp_path / f"{i}.db"), cwd=tmp_path))["final_hash"] for i in range(2)}
    assert len(hashes) == 1
    other = as_json(campus("run", "--json", "--seed", "6", "--db", str(tmp_path / "other.db"), cwd=tmp_path))["final_hash"]
    assert other not in hashes


def test_replay_by_step_and_time(workdir: Path) -> None:
    state = as_json(campus("replay", "oracle-s0", "--step", "200", "--json", cwd=workdir))
    assert state["seq"] == 200 and len(state["state_hash"]) == 64 and state["location"]["id"].startswith("B")
    at = as_json(campus("replay", "oracle-s0", "--at", "Week 0, Tuesday 10:00", "--json", cwd=workdir))
    assert at["time"] <= "Week 0, Tuesday 10:00" and at["time"].startswith("Week 0, Tuesday")
    bad = campus("replay", "oracle-s0", "--at", "someday", cwd=workdir, check=False)
    assert bad.returncode == 2 and "Week 3, Tuesday 10:00" in bad.stderr


def test_fork_then_diff(workdir: Path) -> None:
    forked = as_json(campus("fork", "oracle-s0", "--at-step", "400", "--agent", "noop", "--json", cwd=workdir))
    assert forked["parent"] == "oracle-s0" and forked["fork_seq"] <= 400
    diff = as_json(campus("diff", "oracle-s0", forked["run"], "--json", cwd=workdir))
    seq = diff["first_divergence"]["seq"]
    assert seq > forked["fork_seq"]  # at once, unless the oracle's own next replies were also "finish"
    assert diff["first_divergence"]["a"] != diff["first_divergence"]["b"]
    assert diff["outcome_flips"] and set(diff["state_diff"]) >= {"geography", "calendar", "email"}
    same = as_json(campus("diff", "oracle-s0", "oracle-s0", "--json", cwd=workdir))
    assert same["first_divergence"] is None and same["outcome_flips"] == []
    text = campus("diff", "oracle-s0", forked["run"], cwd=workdir).stdout
    assert f"first divergence at seq {seq}" in text


def test_fork_at_a_time_with_an_injected_reply(workdir: Path) -> None:
    forked = as_json(campus("fork", "oracle-s0", "--at", "Week 1, Monday 12:00", "--reply", "<action>Action: finish()</action>",
                            "--name", "what-if", "--json", cwd=workdir))
    assert forked["run"] == "what-if"
    assert campus("verify", "what-if", cwd=workdir).returncode == 0


def test_verify_and_tamper(workdir: Path, tmp_path: Path) -> None:
    ok = campus("verify", "oracle-s0", "--json", cwd=workdir)
    assert as_json(ok)["ok"] is True
    copy = tmp_path / "tampered.db"
    source = sqlite3.connect(workdir / "runs.db")
    source.execute(f"VACUUM INTO '{copy}'")
    source.close()
    conn = sqlite3.connect(copy)
    conn.execute("DROP TRIGGER events_append_only_update")
    seq = conn.execute("SELECT seq FROM events WHERE branch = 'oracle-s0' AND kind = 'walked' ORDER BY seq LIMIT 1 OFFSET 5").fetchone()[0]
    conn.execute("UPDATE events SET payload = replace(payload, '\"B', '\"X') WHERE branch = 'oracle-s0' AND seq = ?", (seq,))
    conn.commit()
    conn.close()
    bad = campus("verify", "oracle-s0", "--db", str(copy), cwd=workdir, check=False)
    assert bad.returncode == 1 and f"at seq {seq}" in bad.stderr


def test_export_and_import(workdir: Path, tmp_path: Path) -> None:
    target = tmp_path / "run.jsonl"
    campus("export", "oracle-s0", "-o", str(target), cwd=workdir)
    imported = as_json(campus("import", str(target), "--db", str(tmp_path / "copy.db"), "--json", cwd=workdir))
    original = as_json(campus("run", "--resume", "oracle-s0", "--json", cwd=workdir))
    assert imported["final_hash"] == original["final_hash"] and imported["scorecard"] == original["scorecard"]
    lines = target.read_text().splitlines()
    lines[20] = lines[20].replace('"hash":"', '"hash":"0', 1)
    target.write_text("\n".join(lines))
    refused = campus("import", str(target), "--db", str(tmp_path / "bad.db"), cwd=workdir, check=False)
    assert refused.returncode == 2 and "line 21" in refused.stderr


def test_errors_are_one_line_and_exit_2(workdir: Path, tmp_path: Path) -> None:
    for args in (["replay", "ghost", "--step", "1"], ["verify", "x", "--db", str(tmp_path / "none.db")],
                 ["run", "--agent", "superhuman"], ["replay", "oracle-s0", "--step", "99999999"]):
        result = campus(*args, cwd=workdir, check=False)
        assert result.returncode == 2 and result.stderr.startswith("error:") and "Traceback" not in result.stderr
    assert "replay" in campus("--help", cwd=workdir).stdout


SLOW_RUN = textwrap.dedent("""
    import sys, time
    from campus.agents.oracle import OracleAgent
    from campus.kernel.store import SQLiteStore
    from campus.scenarios.play import new_run
    from campus.scenarios.term import generate_term
    from campus.world.generate import generate_world
    from campus.world.index import WorldIndex

    class Slow(OracleAgent):
        def act(self, view):
            time.sleep(0.004)
            return super().act(view)

    world = WorldIndex(generate_world(0))
    term = generate_term(world, 0)
    run = new_run(SQLiteStore(sys.argv[1]), world, term, agent_name="oracle", seed=0)
    run.session(Slow(term, world)).run()
""")


@pytest.mark.slow
def test_sigkill_mid_term_loses_only_the_step_in_flight(workdir: Path, tmp_path: Path) -> None:
    db = tmp_path / "killed.db"
    process = subprocess.Popen([sys.executable, "-c", SLOW_RUN, str(db)], cwd=ROOT, env=os.environ | {"PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 60
    seen = 0
    while time.monotonic() < deadline and seen < 300:
        time.sleep(0.05)
        if db.exists():
            try:
                seen = sqlite3.connect(db).execute("SELECT count(*) FROM events").fetchone()[0]
            except sqlite3.OperationalError:
                pass
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert seen >= 300, "the run should have been killed mid-term"
    killed_at = sqlite3.connect(db).execute("SELECT count(*) FROM events").fetchone()[0]
    assert killed_at < 1700
    assert campus("verify", "oracle-s0", "--db", str(db), cwd=tmp_path).returncode == 0
    resumed = as_json(campus("run", "--resume", "oracle-s0", "--db", str(db), "--json", cwd=tmp_path))
    clean = as_json(campus("run", "--db", str(tmp_path / "clean.db"), "--json", cwd=tmp_path))
    assert resumed["final_hash"] == clean["final_hash"] and resumed["events"] == clean["events"]
    assert resumed["scorecard"]["total"]["success_rate"] == 1.0


def test_world_generate_reports_the_whole_campus_identically_in_two_processes(tmp_path: Path) -> None:
    first, second = (as_json(campus("world", "generate", "--seed", "3", "--json", cwd=tmp_path)) for _ in range(2))
    assert first == second and len(first["hash"]) == 64
    size = first["counts"]
    assert size["buildings"] >= 150 and size["seats"] >= 2500 and size["courses"] >= 220
    assert size["advisors"] >= 1000 and size["clubs"] >= 100 and size["books"] >= 390 and size["texts"] >= 11
    assert as_json(campus("world", "generate", "--seed", "4", "--json", cwd=tmp_path))["hash"] != first["hash"]
    old = as_json(campus("world", "generate", "--seed", "3", "--generator", "1", "--json", cwd=tmp_path))
    assert old["generator"] == 1 and first["generator"] == 3 and old["hash"] != first["hash"]
    assert old["counts"]["courses"] == size["courses"] - 30  # three sections of the ten compulsory courses, not six
    timed = as_json(campus("world", "generate", "--seed", "3", "--generator", "2", "--json", cwd=tmp_path))
    assert timed["counts"] == size and timed["hash"] not in (old["hash"], first["hash"])  # six at six times, not two
    refused = campus("world", "generate", "--generator", "4", cwd=tmp_path, check=False)
    assert refused.returncode == 2 and "no world generator 4" in refused.stderr and "Traceback" not in refused.stderr


def test_score_reproduces_the_runs_scorecard(workdir: Path) -> None:
    recorded = as_json(campus("runs", "--json", cwd=workdir))
    scored = as_json(campus("score", "oracle-s0", "--json", cwd=workdir))
    assert scored["matches"] is True and scored["changed"] == []
    assert scored["scorecard"] == scored["recorded"]
    assert scored["scorecard"]["stugpa"]["total"] == 100.0
    assert any(r["run"] == "oracle-s0" for r in (recorded if isinstance(recorded, list) else recorded["runs"]))
    text = campus("score", "oracle-s0", cwd=workdir).stdout
    assert "scorecard reproduced" in text and "StuGPA 100.00" in text
    missing = campus("score", "nope", cwd=workdir, check=False)
    assert missing.returncode == 2 and "nope" in missing.stderr


@pytest.mark.parametrize("args", [("score", "oracle-s0"), ("replay", "oracle-s0", "--step", "5", "--json"), ("runs",)])
def test_a_reader_that_closes_the_output_early_gets_141_not_a_verdict(workdir: Path, args: tuple[str, ...]) -> None:
    """``campus score RUN | head`` exited 1, what score says when a scorecard changed: rich's and typer's answer to a
    closed pipe. Now 141, as a shell reports a process SIGPIPE ended, with nothing on stderr."""
    process = subprocess.Popen([sys.executable, "-m", "campus.cli.main", *args], cwd=workdir, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    complaint = process.stderr.read()
    assert process.wait(timeout=300) == 141 and complaint == b""


def test_term_generate_reports_every_scenario(tmp_path: Path) -> None:
    report = as_json(campus("term", "generate", "--scale", "0.1", "--json", "-o", str(tmp_path / "t.json"), cwd=tmp_path))
    assert len(report["by_scenario"]) == 12 and report["total"]["tasks"] > 100 and report["by_scenario"]["busy_days"]["tasks"] == 1
    assert report["by_scenario"]["disruptions"]["tasks"] == 36
    plain = as_json(campus("term", "generate", "--scale", "0.1", "--no-busy-days", "--json", cwd=tmp_path))
    assert "busy_days" not in plain["by_scenario"] and plain["total"]["tasks"] == report["total"]["tasks"] - 1
    assert (tmp_path / "t.json").stat().st_size > 1000
    bad = campus("term", "generate", "--scale", "5", cwd=tmp_path, check=False)
    assert bad.returncode == 2 and "does not fit" in bad.stderr


def test_lifelong_probes_a_run_and_reports_the_matrix(tmp_path: Path) -> None:
    campus("run", "--agent", "stateless", "--scale", "0.2", "--seed", "3", "--json", cwd=tmp_path)
    report = as_json(campus("lifelong", "stateless-s3", "--blocks", "3", "--per-block", "4", "--json", cwd=tmp_path))
    assert len(report["matrix"]) == 4 and all(len(row) == 3 for row in report["matrix"])
    assert [row.count(None) for row in report["matrix"]] == [0, 2, 1, 0]
    assert len(report["probes"]) == 9 and report["blocks"] == 3
    for key in ("aip", "fgt", "bwt", "fwt"):
        assert report[key] is None or -1.0 <= report[key] <= 1.0
    runs = as_json(campus("runs", "--json", cwd=tmp_path))
    assert {p["branch"] for p in report["probes"]} <= {r["run"] for r in runs}
    unknown = campus("lifelong", "stateless-s3", "--agent", "nobody", cwd=tmp_path, check=False)
    assert unknown.returncode == 2 and "unknown agent" in unknown.stderr


def test_disruptions_are_on_by_default_scored_as_drs_and_stale_fails_them(tmp_path: Path) -> None:
    plain = as_json(campus("run", "--scale", "0.05", "--no-disruptions", "--json", cwd=tmp_path))
    assert "drs" not in plain["scorecard"] and "disruptions" not in plain["scorecard"]["by_scenario"]
    oracle = as_json(campus("run", "--scale", "0.05", "--json", cwd=tmp_path))
    stale = as_json(campus("run", "--scale", "0.05", "--agent", "stale", "--json", cwd=tmp_path))
    assert oracle["scorecard"]["drs"] == 1.0 and stale["scorecard"]["drs"] == 0.0
    assert sum(cell["tasks"] for cell in oracle["scorecard"]["stt"].values()) == 36  # one per cell at this scale
    assert campus("verify", stale["run"], cwd=tmp_path).returncode == 0
    for flag in ("--disruptions", "--no-disruptions"):
        refused = campus("run", "--resume", stale["run"], flag, cwd=tmp_path, check=False)
        assert refused.returncode == 2 and "--disruptions/--no-disruptions" in refused.stderr

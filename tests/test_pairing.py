"""`diff` and `report --vs` refuse runs whose tasks do not pair (other world, term, scale or rules) unless --force."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from campus.cli.main import app


def campus(*args: str):
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "300"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_runs_of_other_worlds_terms_or_rules_are_refused_and_force_warns_on_top(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    for name, extra in (("a", ()), ("same", ("--agent", "noop")), ("seed1", ("--seed", "1")),
                        ("bigger", ("--scale", "0.06")), ("rounds", ("--rounds", "7"))):
        assert campus("run", "--db", db, "--scale", "0.05", "--name", name, *extra).exit_code == 0
    paired = campus("diff", "a", "same", "--db", db, "--json")
    assert paired.exit_code == 0 and "warning" not in json.loads(paired.stdout)
    for other, what in (("seed1", "world "), ("bigger", "term term-0-x0.05"), ("rounds", "rules round_limit")):
        refused = campus("diff", "a", other, "--db", db)
        [line] = refused.stderr.strip().splitlines()
        assert refused.exit_code == 2 and refused.stdout == "", refused.output
        assert f"a and {other} are not runs of the same world, term and rules" in line and what in line and "--force" in line
    reported = campus("report", "a", "--vs", "bigger", "--db", db, "--html", str(tmp_path / "r.html"))
    assert reported.exit_code == 2 and "--force" in reported.stderr and not (tmp_path / "r.html").exists()
    forced = campus("diff", "a", "seed1", "--db", db, "--force")
    assert forced.exit_code == 0 and forced.stdout.startswith("WARNING: compared with --force: a and seed1")
    as_json = json.loads(campus("diff", "a", "seed1", "--db", db, "--force", "--json").stdout)
    assert as_json["warning"].startswith("compared with --force")


def test_report_writes_a_runs_tasks_and_tool_calls_as_csv(tmp_path: Path) -> None:
    import csv

    db = str(tmp_path / "runs.db")
    played = json.loads(campus("run", "--db", db, "--scale", "0.05", "--json").stdout)
    written = json.loads(campus("report", played["run"], "--db", db, "--csv", str(tmp_path / "out"), "--json").stdout)
    with open(tmp_path / "out" / "tasks.csv", encoding="utf-8") as handle:
        tasks = list(csv.DictReader(handle))
    with open(tmp_path / "out" / "tool_calls.csv", encoding="utf-8") as handle:
        calls = list(csv.DictReader(handle))
    assert written["html"] is None and written["csv"] == {"tasks": len(tasks), "tool_calls": len(calls)}
    assert sum(t["outcome"] != "unscored" for t in tasks) == played["scorecard"]["total"]["tasks"]
    assert {t["outcome"] for t in tasks} <= {"success", "unscored"} and len({t["task_id"] for t in tasks}) == len(tasks)
    assert calls and all(json.loads(c["args"]) is not None and c["status"] for c in calls)
    assert [int(c["seq"]) for c in calls] == sorted(int(c["seq"]) for c in calls)
    nothing = campus("report", played["run"], "--db", db)
    assert nothing.exit_code == 2 and "--html FILE, --csv DIR or both" in nothing.stderr

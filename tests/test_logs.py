"""Operator logs: structlog lines on stderr, bound to the run, agent, seq and simulated time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _stderr_lines(*args: str, cwd: Path) -> tuple[list[str], str]:
    result = subprocess.run([sys.executable, "-m", "campus.cli.main", *args], cwd=cwd, capture_output=True, text=True,
                            env=os.environ | {"PYTHONPATH": str(ROOT)}, timeout=300, check=True)
    return result.stderr.splitlines(), result.stdout


def test_json_logs_name_the_run_seq_and_time(tmp_path: Path) -> None:
    lines, stdout = _stderr_lines("--log-json", "-vv", "run", "--scale", "0.05", "--json", cwd=tmp_path)
    records = [json.loads(line) for line in lines]
    summary = json.loads(stdout)
    started = [r for r in records if r["event"] == "session started"]
    ended = [r for r in records if r["event"] == "task ended"]
    assert len(started) == 1 and started[0]["resumed"] is False and started[0]["level"] == "info"
    assert len(ended) == summary["scorecard"]["total"]["tasks"] + sum(r["outcome"] == "unscored" for r in ended)
    assert all(r["run"] == summary["run"] and r["agent"] == "oracle" for r in records)
    assert all(isinstance(r["seq"], int) and r["time"].startswith("Week ") for r in records)
    seqs = [r["seq"] for r in ended]
    assert seqs == sorted(seqs) and seqs[-1] < summary["events"]
    assert records[-1]["event"] == "term complete"


def test_default_level_is_quiet_and_v_is_readable(tmp_path: Path) -> None:
    quiet, _ = _stderr_lines("run", "--scale", "0.05", "--json", cwd=tmp_path)
    assert quiet == []
    some, _ = _stderr_lines("-v", "run", "--scale", "0.05", "--seed", "1", "--json", cwd=tmp_path)
    assert any("session started" in line and "run=oracle-s1" in line for line in some)
    assert not any("task ended" in line for line in some)


def test_debug_enabled_follows_the_configured_level_and_assumes_yes_when_it_cannot_tell() -> None:
    import logging

    import structlog

    from campus.kernel import logs

    try:
        logs.configure(level=logging.DEBUG)
        assert logs.debug_enabled()
        logs.configure(level=logging.INFO)
        assert not logs.debug_enabled()
        structlog.configure(wrapper_class=structlog.BoundLogger)  # a program's own configuration, with no level filter
        assert logs.debug_enabled()
    finally:
        structlog.reset_defaults()
        logs.configure()
    assert not logs.debug_enabled()  # the kernel's default: warnings only

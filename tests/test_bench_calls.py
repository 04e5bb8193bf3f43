"""The 12-call workload of ``campus bench calls`` at a tiny size: its draw succeeds call for call and its report has every row.

No timing is asserted: the benchmark prints figures, this only checks what it measures and how it reports it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from campus.cli.main import app
from campus.kernel.store import MemoryStore
from campus.lab import bench_calls
from campus.lab.pace import QUIET_S
from tests.conftest import SHARED
from campus.world.index import WorldIndex

STULIFE = SHARED / "stulife"


def test_the_draw_is_twelve_calls_a_round_and_every_call_succeeds(world: WorldIndex) -> None:
    workload = bench_calls.draw_workload(world, rounds=13)
    assert [len(block) for block in workload.blocks] == [120, 36]
    tools = Counter(call.split("(", 1)[0] for block in workload.blocks for call in block)
    assert len(tools) == 12 and set(tools.values()) == {13}
    store = MemoryStore()
    result = bench_calls.drive(store, world, workload)
    assert result["calls"] == 156 and bench_calls.failed_calls(store) == 0
    assert len(store.branches()) == 2 + 2  # an empty base per block length, a fork per block


def test_the_draw_is_the_same_for_the_same_seed(world: WorldIndex) -> None:
    assert bench_calls.draw_workload(world, rounds=3) == bench_calls.draw_workload(world, rounds=3)


def test_bench_calls_reports_every_figure_on_the_published_campus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not (STULIFE / "campus_data.json").exists():
        pytest.skip(f"the StuLife data is not at {STULIFE}")
    result = CliRunner().invoke(app, ["bench", "calls", "--world", f"stulife:{STULIFE}", "--rounds", "2", "--repeats", "2",
                                      "--dir", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [row["met"] is not None for row in report["rows"]] == [True, True, True, False, False]
    figures = report["figures"]
    assert figures["sqlite"]["calls"] == figures["memory"]["calls"] == 24 and figures["sqlite"]["repeats"] == 2
    assert set(figures["alone"]) == {"find_optimal_path", "query_availability", "view_schedule"}
    assert list(tmp_path.iterdir()) == []
    pace = report["pace"]  # the machine's pace around the figures (its values are timing: only their shape is asserted)
    assert pace["before_s"] > 0 and pace["after_s"] > 0 and pace["quiet_s"] == QUIET_S
    assert pace["slowdown"] == round(max(pace["before_s"], pace["after_s"]) / QUIET_S, 2)
    monkeypatch.chdir(tmp_path)  # the default world is the shared data beside the checkout, wherever the command runs
    text = CliRunner().invoke(app, ["bench", "calls", "--rounds", "1", "--repeats", "1"], env={"COLUMNS": "400"})
    assert text.exit_code == 0 and "machine pace: sum(range(3e7)) took" in text.stdout, text.output
    assert "campus tool-call benchmark on stulife" in text.stdout


def test_bench_calls_names_a_missing_world_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["bench", "calls", "--world", f"stulife:{tmp_path / 'none'}", "--rounds", "1"])
    assert result.exit_code == 2 and "not a directory" in result.output and "Traceback" not in result.output

"""Smoke tests for lab.bench: the workload is valid and every measurement runs (no timing asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from campus.events import Walked
from campus.kernel.history import full_fold, state_at
from campus.kernel.runner import SNAPSHOT_EVERY
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.lab import bench, pace
from campus.scenarios.play import new_run
from campus.world.index import WorldIndex


SMALL = {"TEMPLATE_SEEDS": (0, 1), "TEMPLATE_SCALE": 0.3, "APPEND_STEPS": 2_000, "APPEND_ROUNDS": 1, "SEEK_SAMPLES": 60, "SEEK_PARTS_SAMPLES": 20,
         "COLD_SEEKS": 5, "FORK_SAMPLES": 40, "DIVERGE_SAMPLES": 40, "VERIFY_REPEATS": 1}
"""The bench's sample counts and terms cut down for its smoke tests: the same code on less (two oracle runs still make seams)."""


def _small(patch: pytest.MonkeyPatch) -> None:
    for name, value in SMALL.items():
        assert hasattr(bench, name), name
        patch.setattr(bench, name, value)


@pytest.fixture(scope="module")
def templates(world: WorldIndex, tmp_path_factory: pytest.TempPathFactory) -> list[bench.Template]:
    with pytest.MonkeyPatch.context() as patch:
        _small(patch)
        made, _ = bench.play_templates(world, tmp_path_factory.mktemp("bench") / "terms.db")
    assert len(made) == len(SMALL["TEMPLATE_SEEDS"])
    return made


def test_long_branch_is_a_valid_stream_with_snapshots(world: WorldIndex, templates: list[bench.Template], tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "long.db")
    long = new_run(store, world, templates[0].term, agent_name="bench", seed=0, branch_id="long")
    events = sum(len(t.records) for t in templates) + 3 * SNAPSHOT_EVERY  # crosses every template seam
    built = bench.build_long_branch(long, templates, events)
    assert built["events"] == built["checked_events"] == events
    projection = long.kernel.projection
    snapshots = store.conn.execute("SELECT count(*) FROM snapshots").fetchone()[0]
    assert snapshots == events // SNAPSHOT_EVERY
    seq = events - 7
    seeked, folded = state_at(long.kernel, store, "long", seq), full_fold(long.kernel, store, "long", seq)
    assert projection.state_hash(seeked) == projection.state_hash(folded)
    store.close()


def test_stream_check_rejects_a_walk_from_elsewhere(world: WorldIndex, templates: list[bench.Template]) -> None:
    kernel = templates[0].run.kernel
    state = kernel.projection.initial()
    check = bench.StreamCheck(world)
    check.open_call = "call-1"
    elsewhere = next(b for b in sorted(world.buildings) if b != state.geography.location)
    with pytest.raises(bench.StreamError, match="walk from"):
        check(state, 0, Walked(path=[elsewhere, state.geography.location], depart=0, arrive=1))


def test_tool_cycle_agent_uses_every_tool_without_a_failure(world: WorldIndex) -> None:
    term = bench.tool_term(world, tasks=2, rounds=14)
    result = bench._drive_tools(MemoryStore(), world, term)
    assert result["finished"] and result["tool_calls"] == 28 and result["errors"] == 0


@pytest.mark.slow
def test_run_kernel_bench_reports_every_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _small(monkeypatch)
    report = bench.run_kernel_bench(10_000, str(tmp_path))
    assert {"python", "sqlite", "cpu_count", "platform"} <= report["machine"].keys()
    for row in report["rows"]:
        assert all(isinstance(row[key], str) for key in ("measure", "value", "target"))
    assert sum(row["met"] is not None for row in report["rows"]) == 12  # every target of the issues (memory from 18)
    figures = report["figures"]
    assert figures["fold"]["states_agree"] and figures["tools"]["sqlite"]["errors"] == 0
    assert figures["diverge"]["near_start"]["fork_events"] == figures["build"]["events"]
    assert figures["seek"]["again"]["p99_ms"] > 0
    read_side = {k: v for k, v in figures.items() if k not in ("append", "fork", "diverge", "verify", "tools")}
    assert [row["measure"][:3] for row in bench.table_rows(read_side) if row["met"] is not None] == ["2a.", "2b.", "3. ", "pea"]
    msgspec.json.encode(report)  # the --json output
    assert list(tmp_path.iterdir()) == []  # the scratch dir is gone


def test_bench_memory_builds_a_run_that_verify_and_score_accept(tmp_path) -> None:
    from campus.lab.bench_memory import measure_memory

    report = measure_memory(3_000, str(tmp_path))
    assert 2_000 <= report["events"] <= 4_000
    for name in ("verify", "score"):
        assert report[name]["exit"] == 0 and report[name]["stderr"] == "", report[name]
        assert 20 < report[name]["peak_rss_mb"] < report["target_mb"]


def test_bench_startup_times_both_commands_and_judges_them_on_the_median_wall(tmp_path: Path) -> None:
    from campus.lab.bench_startup import TARGETS, _figure, measure_startup

    report = measure_startup(repeats=1, directory=str(tmp_path))
    for name in ("help", "run"):
        row = report[name]
        assert row["cpu_s"] > 0 and row["wall_range_s"] == [row["wall_s"], row["wall_s"]]
        assert row["target_s"] == TARGETS[name] and isinstance(row["met"], bool)  # the verdict itself is timing: not asserted
    assert _figure([(0.5, 0.1), (0.2, 0.1), (0.25, 0.1)], 0.3)["met"] is True
    assert _figure([(0.3004, 0.1)], 0.3) == {"wall_s": 0.3, "wall_range_s": [0.3, 0.3], "cpu_s": 0.1, "target_s": 0.3, "met": True}
    assert _figure([(0.5, 0.1), (0.4, 0.1), (0.25, 0.1)], 0.3)["met"] is False


def test_bench_term_plays_the_term_it_is_told(tmp_path: Path) -> None:
    from campus.lab.bench_term import measure_full_term

    default = measure_full_term(0, 0.02, str(tmp_path))
    plain = measure_full_term(0, 0.02, str(tmp_path), disruptions=False, busy_days=False)
    assert (default["disruptions"], default["busy_days"], plain["disruptions"], plain["busy_days"]) == (True, True, False, False)
    assert plain["tasks"] < default["tasks"] and plain["success_rate"] == default["success_rate"] == 1.0
    assert default["met"] is None and plain["met"] is None  # the targets are for the full term


def test_bench_term_prints_its_figures_and_judges_only_a_full_default_term(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from campus.cli.main import app

    monkeypatch.setattr(pace, "WORK", 1_000)  # the pace's loop, shortened: its figure is not what this checks
    text = CliRunner().invoke(app, ["bench", "term", "--scale", "0.02", "--dir", str(tmp_path), "--repeats", "1"])
    assert text.exit_code == 0, text.output
    assert "target <= 0.4 s wall: for a full default term" in text.output and "machine pace" in text.output
    assert "(median of 1, " in text.output  # several plays: test_bench_term_plays_each_repetition_in_a_fresh_process...
    result = CliRunner().invoke(app, ["bench", "term", "--scale", "0.02", "--dir", str(tmp_path), "--json", "--repeats", "1"])
    report = json.loads(result.stdout)
    assert report["met"] is None and report["pace"]["quiet_s"] == pace.QUIET_S and report["tasks"] > 0
    assert report["repeats"] == 1 and report["play_seconds_range"] == [report["play_seconds"]] * 2
    refused = CliRunner().invoke(app, ["bench", "term", "--scale", "0.02", "--repeats", "0"])
    assert refused.exit_code == 2 and "--repeats" in refused.output and list(tmp_path.iterdir()) == []


def test_bench_term_plays_each_repetition_in_a_fresh_process_to_the_same_head(tmp_path: Path) -> None:
    from campus.lab.bench_term import measure_full_term

    here = measure_full_term(0, 0.02, str(tmp_path))
    apart = measure_full_term(0, 0.02, str(tmp_path), repeats=2)
    assert apart["repeats"] == 2 and apart["head"] == here["head"] and apart["events"] == here["events"]
    assert len(apart["play_seconds_range"]) == 2 and apart["met"] is None and apart["peak_rss_mb"] > 0
    assert list(tmp_path.iterdir()) == []  # each play's scratch file is gone


def test_several_plays_give_the_median_the_range_and_the_largest_peak_or_refuse_different_heads() -> None:
    from campus.lab.bench_term import TARGET_MB, median_of

    play = {"seed": 0, "scale": 1.0, "disruptions": True, "busy_days": True, "events": 100, "tool_calls": 40,
            "head": "a" * 64, "repeats": 1, "generate_seconds": 0.5, "play_seconds": 0.3, "play_seconds_range": [0.3, 0.3],
            "play_cpu_seconds": 0.3, "peak_rss_mb": 100.0}
    plays = [play, {**play, "play_seconds": 0.1, "play_cpu_seconds": 0.2, "peak_rss_mb": TARGET_MB + 1},
             {**play, "play_seconds": 0.5, "play_cpu_seconds": 0.4, "generate_seconds": 0.7}]
    report = median_of(plays)
    assert (report["repeats"], report["play_seconds"], report["play_seconds_range"]) == (3, 0.3, [0.1, 0.5])
    assert (report["play_cpu_seconds"], report["generate_seconds"], report["peak_rss_mb"]) == (0.3, 0.5, TARGET_MB + 1)
    assert report["tool_calls_per_s"] == round(40 / 0.3) and report["met"] == {"seconds": True, "peak_mb": False}
    with pytest.raises(RuntimeError, match="2 different heads"):
        median_of([play, {**play, "head": "b" * 64}])


def test_bench_term_judges_each_target_on_the_figure_it_prints() -> None:
    from campus.lab.bench_term import TARGET_MB, TARGET_SECONDS, verdicts

    assert verdicts(TARGET_SECONDS, TARGET_MB) == {"seconds": True, "peak_mb": True}
    assert verdicts(TARGET_SECONDS + 0.001, TARGET_MB + 0.1) == {"seconds": False, "peak_mb": False}
    assert verdicts(0.2, TARGET_MB + 0.1) == {"seconds": True, "peak_mb": False}


def test_pace_wraps_a_report_with_the_work_timed_before_and_after(monkeypatch: pytest.MonkeyPatch) -> None:
    assert pace.pace(repeats=1) > 0  # the real work: CPU time, whatever this machine's pace
    order: list[str] = []
    readings = iter([0.5, 0.7])

    def timed() -> float:
        order.append("pace")
        return next(readings)

    def measure() -> dict[str, int]:
        order.append("measure")
        return {"figure": 1}

    monkeypatch.setattr(pace, "pace", timed)
    report = pace.paced(measure)
    assert order == ["pace", "measure", "pace"]
    assert report == {"figure": 1, "pace": {"before_s": 0.5, "after_s": 0.7, "quiet_s": pace.QUIET_S,
                                            "slowdown": round(0.7 / pace.QUIET_S, 2)}}
    said = pace.describe(report["pace"])
    assert "0.50 s of CPU before, 0.70 s after" in said and f"{0.7 / pace.QUIET_S:.1f}x" in said


@pytest.mark.parametrize("command", ["kernel", "calls", "memory", "term", "startup"])
def test_every_bench_refuses_a_scratch_dir_it_cannot_use_before_any_work(command: str, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from campus.cli.main import app

    a_file = tmp_path / "file"
    a_file.write_text("mine")
    for where in (tmp_path / "missing", a_file):
        result = CliRunner().invoke(app, ["bench", command, "--dir", str(where)])
        assert result.exit_code == 2 and "Invalid value for '--dir'" in result.output, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"] and a_file.read_text() == "mine"

"""`campus sweep` end to end in real processes: worker processes writing one SQLite file, resuming
after interruptions, and a comparison table whose numbers are the statistics of the stored runs."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from functools import lru_cache
from pathlib import Path

import msgspec
import pytest

from campus.agents import make_agent
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.reports.comparison import METRICS
from campus.reports.stats import estimate, paired_difference
from campus.lab.sweep import is_finished, parse_seeds
from campus.scenarios.play import new_run, open_run
from campus.scenarios.scorecard import scorecard
from campus.scenarios.term import generate_term
from campus.world.generate import generate_world
from campus.world.index import WorldIndex

ROOT = Path(__file__).resolve().parents[1]
SCALE = 0.05
AGENTS = ("noop", "diligent")


def sweep_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "campus.cli.main", "sweep", *args]


def campus_sweep(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(sweep_command(*args), cwd=cwd, capture_output=True, text=True,
                            env=os.environ | {"PYTHONPATH": str(ROOT)}, timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"campus sweep {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result


def sweep_json(db: Path, seeds: str, *extra: str, scale: float = SCALE) -> dict:
    args = [a for agent in AGENTS for a in ("--agent", agent)]
    result = campus_sweep(*args, "--seeds", seeds, "--workers", "2", "--scale", str(scale), "--db", str(db),
                          "--json", *extra, cwd=db.parent)
    return json.loads(result.stdout)


@lru_cache(maxsize=None)
def inputs(seed: int, scale: float) -> tuple[WorldIndex, object]:
    world = WorldIndex(generate_world(seed))
    return world, generate_term(world, seed, scale)


@lru_cache(maxsize=None)
def alone(agent: str, seed: int, scale: float = SCALE) -> str:
    """The final hash of the same run played by itself, in this process, in memory."""
    world, term = inputs(seed, scale)
    run = new_run(MemoryStore(), world, term, agent_name=agent, seed=seed)
    run.session(make_agent(agent, term, world)).run()
    return run.store.head(run.branch.id)[1]


def event_counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT branch, count(*) FROM events GROUP BY branch"))


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """2 agents x 3 seeds on 2 workers into one file."""
    db = tmp_path_factory.mktemp("sweep") / "runs.db"
    return db, sweep_json(db, "1-3")


# ---------------------------------------------------------------- seeds


def test_seed_lists() -> None:
    assert parse_seeds("1-20") == list(range(1, 21))
    assert parse_seeds("3") == [3]
    assert parse_seeds("1,4,7") == [1, 4, 7]
    assert parse_seeds("9, 1-3") == [1, 2, 3, 9]
    assert parse_seeds("0-0") == [0]
    assert parse_seeds(f"{2**63 - 1}") == [2**63 - 1] and len(parse_seeds("0-99999")) == 100_000


@pytest.mark.parametrize("spec", ["", "a", "1-", "-3", "5-1", "1,,2", "1-3,2", "1.5", "1-2-3", "0-99999999999",
                                  "0-50000,60000-110000", f"{2**63}", f"5-{2**63}", "\u0663", "1_0", "+3", "1-\u0663"])
def test_bad_seed_lists_are_refused(spec: str) -> None:
    with pytest.raises(ValueError, match="bad seed list"):
        parse_seeds(spec)


def test_a_backwards_range_is_named_as_such() -> None:
    with pytest.raises(ValueError, match="ends below where it starts"):
        parse_seeds("5-2")


def test_bad_options_are_one_line_errors_and_write_nothing(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    for args in (["--agent", "noop", "--seeds", "3-1"], ["--agent", "superhuman", "--seeds", "1"],
                 ["--agent", "noop", "--agent", "noop", "--seeds", "1"], ["--agent", "noop", "--seeds", "1", "--scale", "0"],
                 ["--agent", "noop", "--seeds", "1", "--db", ":memory:"],
                 ["--agent", "noop", "--seeds", "1", "--scale", "0.01", "--ray", "nowhere"]):  # fails once the file is made
        result = campus_sweep("--db", str(db), *args, cwd=tmp_path, check=False)
        assert result.returncode == 2 and result.stderr.startswith("error:"), result.stderr
        assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not db.exists()


# ---------------------------------------------------------------- runs


def test_every_run_is_stored_finished_and_equal_to_the_run_played_alone(swept: tuple[Path, dict]) -> None:
    db, report = swept
    expected = {f"{agent}-s{seed}" for agent in AGENTS for seed in (1, 2, 3)}
    assert {run["run"] for run in report["runs"]} == expected
    assert all(run["action"] == "new" and run["finished"] for run in report["runs"])
    store = SQLiteStore(db)
    try:
        assert {b.id for b in store.branches()} == expected
        for run in report["runs"]:
            assert is_finished(store, run["run"])
            assert store.head(run["run"]) == (run["events"], run["final_hash"])
            assert run["final_hash"] == alone(run["agent"], run["seed"]), run["run"]
    finally:
        store.close()


def test_the_table_is_the_statistics_of_the_stored_scorecards(swept: tuple[Path, dict]) -> None:
    db, report = swept
    store = SQLiteStore(db)
    try:
        cards = {(run["agent"], run["seed"]): json.loads(msgspec.json.encode(scorecard(stored.term, stored.ended_tasks())))
                 for run in report["runs"] for stored in [open_run(store, run["run"])]}  # as JSON: intervals are lists
    finally:
        store.close()
    assert {(r["agent"], r["seed"]): r["scorecard"] for r in report["runs"]} == cards
    read = {"stugpa": lambda c: c["stugpa"]["total"], "ltrr": lambda c: c["ltrr"], "pis": lambda c: c["pis"],
            "success_rate": lambda c: c["total"]["success_rate"], "avg_turns": lambda c: c["avg_turns"]}
    values = {(agent, key): {seed: f(cards[agent, seed]) for seed in (1, 2, 3) if f(cards[agent, seed]) is not None}
              for agent in AGENTS for key, f in read.items()}
    for (agent, key), by_seed in values.items():
        expected = estimate(list(by_seed.values()))
        shown = report["summary"][agent][key]
        assert (shown["n"], shown["mean"], shown["low"], shown["high"]) == (expected.n, expected.mean, expected.low, expected.high)
    [pair] = report["paired"]
    assert (pair["a"], pair["b"]) == AGENTS
    for key in read:
        expected_pair = paired_difference(values["noop", key], values["diligent", key])
        shown_pair = pair["metrics"][key]
        assert shown_pair["exceeds_noise"] == expected_pair.exceeds_noise
        assert (shown_pair["n"], shown_pair["difference"]["mean"], shown_pair["difference"]["low"]) == (
            expected_pair.n, expected_pair.difference.mean, expected_pair.difference.low)
    assert report["summary"]["diligent"]["stugpa"]["mean"] > report["summary"]["noop"]["stugpa"]["mean"]
    assert report["summary"]["noop"]["avg_turns"]["n"] == 0  # the no-op agent succeeds at nothing


def test_running_the_sweep_again_keeps_every_run_and_prints_the_table(swept: tuple[Path, dict]) -> None:
    db, report = swept
    before = event_counts(db)
    args = [a for agent in AGENTS for a in ("--agent", agent)]
    text = campus_sweep(*args, "--seeds", "1-3", "--workers", "2", "--scale", str(SCALE), "--db", str(db), cwd=db.parent).stdout
    assert event_counts(db) == before
    assert "6 runs: 0 played, 0 continued, 6 kept" in text
    gpa = report["summary"]["diligent"]["stugpa"]
    assert f"{gpa['mean']:.2f} ± {gpa['half_width']:.2f}" in text
    row = next(line for line in text.splitlines() if "success rate" in line)
    difference = report["paired"][0]["metrics"]["success_rate"]
    shown = rf"\+{difference['difference']['mean'] * 100:.1f} ± {difference['difference']['half_width'] * 100:.1f}"
    marker = r" \*" if difference["exceeds_noise"] else r" │"  # the star marks exactly a difference beyond the noise
    assert re.search(shown + marker, row), row
    starred = {line.split("│")[1].strip() for line in text.splitlines() if line.rstrip().endswith("* │")}
    titles = {metric.key: metric.title for metric in METRICS}
    beyond = {titles[key] for key, pair in report["paired"][0]["metrics"].items() if pair["exceeds_noise"]}
    assert starred == beyond


def test_a_stored_run_made_differently_is_a_conflict_and_nothing_is_played(swept: tuple[Path, dict]) -> None:
    db, _ = swept
    before = event_counts(db)
    result = campus_sweep("--agent", "noop", "--seeds", "1-4", "--scale", "0.1", "--db", str(db), cwd=db.parent, check=False)
    assert result.returncode == 2 and "noop-s1" in result.stderr and "term-1-x0.1" in result.stderr
    assert event_counts(db) == before


def test_interrupted_and_missing_runs_are_completed_and_finished_ones_untouched(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    world, term = inputs(2, SCALE)
    store = SQLiteStore(db)
    partial = new_run(store, world, term, agent_name="diligent", seed=2, branch_id="diligent-s2")
    partial.session(make_agent("diligent", term, world)).run(max_steps=40)
    assert not is_finished(store, "diligent-s2") and store.head("diligent-s2")[0] > 40
    store.close()

    first = sweep_json(db, "1-2")
    actions = {run["run"]: run["action"] for run in first["runs"]}
    assert actions == {"noop-s1": "new", "diligent-s1": "new", "noop-s2": "new", "diligent-s2": "resume"}
    assert all(run["finished"] and run["final_hash"] == alone(run["agent"], run["seed"]) for run in first["runs"])

    before = event_counts(db)
    second = sweep_json(db, "1-3")
    actions = {run["run"]: run["action"] for run in second["runs"]}
    assert actions == {name: "keep" for name in before} | {"noop-s3": "new", "diligent-s3": "new"}
    after = event_counts(db)
    assert {name: after[name] for name in before} == before
    hashes = {run["run"]: run["final_hash"] for run in second["runs"]}
    assert all(hashes[run["run"]] == run["final_hash"] for run in first["runs"])
    assert hashes["noop-s3"] == alone("noop", 3) and hashes["diligent-s3"] == alone("diligent", 3)


# ---------------------------------------------------------------- killed and interrupted sweeps

LONG_SCALE = 1.0
LONG_SEEDS = "2,4"
"""Seeds whose default terms fit at the first draw of placements (``ATTEMPTS``), so both workers begin playing
together. Seed 2's term with busy days needed a second draw: its worker started ~0.6 s of CPU later, and with
runs of about a second each the two workers were never caught mid-run at once (seed 3's, a third since the course
steps that need memory, 1.8 s later). On world generator 2's campuses seed 1's needed a second draw; since course
demand moves for whole courses seeds 3 and 6 needed one; on world generator 3's campuses seeds 1, 3 and 6 need more,
and seeds 0, 2, 4, 5 and 7 fit at the first."""


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def workers_of(pid: int) -> list[int]:
    found = []
    for child in children(pid):
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(child)
        except FileNotFoundError:
            pass
    return found


def alive(pid: int) -> bool:
    try:
        return b"State:\tZ" not in Path(f"/proc/{pid}/status").read_bytes()
    except FileNotFoundError:
        return False


def in_progress(db: Path) -> list[str]:
    """Runs with events whose last event does not end the run."""
    with sqlite3.connect(db) as conn:
        last = conn.execute("SELECT branch, kind FROM events AS e WHERE seq = (SELECT max(seq) FROM events WHERE branch = e.branch)")
        return [branch for branch, kind in last if kind != "run_ended"]


def long_sweep_args(db: Path) -> list[str]:
    """The diligent agent first, so both workers begin with a run of about a second."""
    agents = [a for agent in reversed(AGENTS) for a in ("--agent", agent)]
    return [*agents, "--seeds", LONG_SEEDS, "--workers", "2", "--scale", str(LONG_SCALE), "--db", str(db)]


def _interruptible() -> None:
    """Ctrl-C as a terminal gives it, whoever started the tests: a shell that runs them in the background
    (``make test &`` in a script) ignores SIGINT, the sweep would inherit that, and Python then never raises
    KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_long_sweep(directory: Path, attempts: int = 8) -> tuple[subprocess.Popen, list[int], Path]:
    """A sweep caught while both workers are in the middle of a run. Whole runs take well under a
    second here, so a poll can miss the moment (three misses in a row were seen on a loaded machine):
    then the sweep is started again on a new file."""
    for attempt in range(attempts):
        db = directory / f"runs-{attempt}.db"
        process = subprocess.Popen(sweep_command(*long_sweep_args(db)), cwd=directory,
                                   env=os.environ | {"PYTHONPATH": str(ROOT)}, start_new_session=True,
                                   preexec_fn=_interruptible, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while process.poll() is None:
            workers = workers_of(process.pid)
            if len(workers) == 2 and db.exists() and len(in_progress(db)) == 2:
                return process, workers, db
            time.sleep(0.01)
        process.communicate()
    raise AssertionError(f"no sweep of {attempts} was caught with both workers mid-run")


def finish_and_check(db: Path) -> None:
    """After a stopped sweep: some run was cut short; the same sweep completes every run exactly."""
    store = SQLiteStore(db)
    cut_short = [b.id for b in store.branches() if not is_finished(store, b.id)]
    store.close()
    assert cut_short, "the sweep should have been stopped mid-run"
    report = json.loads(campus_sweep(*long_sweep_args(db), "--json", cwd=db.parent).stdout)
    runs = {run["run"]: run for run in report["runs"]}
    assert len(runs) == 4 and all(run["finished"] for run in runs.values())
    for name in cut_short:
        assert runs[name]["action"] == "resume"
        assert runs[name]["final_hash"] == alone(runs[name]["agent"], runs[name]["seed"], LONG_SCALE)


needs_proc = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="finds worker processes through /proc")


@pytest.mark.slow
@needs_proc
def test_a_killed_worker_stops_the_sweep_and_the_next_sweep_completes_it(tmp_path: Path) -> None:
    process, workers, db = start_long_sweep(tmp_path)
    os.kill(workers[0], signal.SIGKILL)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 2 and f"worker process {workers[0]} stopped" in stderr
    assert not alive(workers[1])
    finish_and_check(db)


@pytest.mark.slow
@needs_proc
def test_ctrl_c_stops_the_workers_and_the_next_sweep_completes_it(tmp_path: Path) -> None:
    process, workers, db = start_long_sweep(tmp_path)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and "interrupted" in stderr and "Traceback" not in stderr
    assert not any(alive(worker) for worker in workers)
    finish_and_check(db)


@pytest.mark.slow
@needs_proc
def test_workers_of_a_killed_sweep_stop_by_themselves(tmp_path: Path) -> None:
    process, workers, db = start_long_sweep(tmp_path)
    process.kill()
    process.communicate(timeout=60)
    deadline = time.monotonic() + 30
    while any(alive(worker) for worker in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(worker) for worker in workers)
    finish_and_check(db)


def test_a_run_that_fails_in_a_worker_stops_the_sweep_with_its_reason(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    result = campus_sweep("--agent", "noop", "--seeds", "1", "--scale", "2", "--db", str(db), cwd=tmp_path, check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: run noop-s1 failed: ValueError: a term at scale 2 does not fit")
    assert not db.exists()  # no run was made, so the database the sweep made is gone again


def test_a_sweep_plays_any_agent_the_registry_knows(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    world, term = inputs(1, SCALE)
    store = SQLiteStore(db)
    played = new_run(store, world, term, agent_name="diligent", seed=1, branch_id="played")
    played.session(make_agent("diligent", term, world)).run()
    store.close()
    result = campus_sweep("--agent", "recorded:played", "--seeds", "1", "--scale", str(SCALE), "--db", str(db),
                          "--workers", "1", "--json", cwd=tmp_path)
    (run,) = json.loads(result.stdout)["runs"]
    assert (run["run"], run["agent"], run["action"], run["finished"]) == ("recorded-played-s1", "recorded-played", "new", True)
    store = SQLiteStore(db)
    try:  # the same events; the hashes differ, since the chain binds who played (recorded:played)
        assert [(r.t, r.payload) for r in store.rows(run["run"])] == [(r.t, r.payload) for r in store.rows("played")]
        assert run["final_hash"] == store.head(run["run"])[1] != store.head("played")[1]
    finally:
        store.close()


def test_two_settings_of_one_model_are_two_agents_and_another_endpoint_is_the_same_one() -> None:
    """Two prompt variants of one model had one label ("agents must differ: llm-m, llm-m"), so a sweep could not
    compare them; a run moved to another endpoint (a server restarted on another port) was "not this sweep's run",
    where a resume may change the endpoint."""
    from campus.agents.llm import LLMConfig
    from campus.lab.sweep import AgentSpec, SweepConflict, SweepSettings, plan_sweep

    def spec(**fields: object) -> AgentSpec:
        config = LLMConfig(model="m", base_url="http://127.0.0.1:9000/v1").__replace__(**fields)  # type: ignore[attr-defined]
        return AgentSpec(config.spec(), config.short_name())

    vanilla, proactive = spec(), spec(variant="proactive")
    assert (vanilla.label, proactive.label) == ("llm-m", "llm-m-proactive")
    assert spec(mode="tools", temperature=0.2, variant="all-in-one", memory="scratchpad").label == "llm-m-all-in-one-tools-temp0-2"
    assert spec(base_url="http://localhost:9001/v1").label == "llm-m"
    world, term = inputs(1, SCALE)
    store = MemoryStore()
    settings = SweepSettings(db=":memory:", scale=SCALE)
    new_run(store, world, term, agent_name=vanilla.name, seed=1, branch_id="llm-m-s1")
    [planned] = plan_sweep(store, [spec(base_url="http://localhost:9001/v1")], [1], settings)
    assert (planned.run_id, planned.action) == ("llm-m-s1", "resume")
    assert [p.run_id for p in plan_sweep(store, [vanilla, proactive], [1], settings)] == ["llm-m-s1", "llm-m-proactive-s1"]
    with pytest.raises(SweepConflict, match=r"agent temperature: stored None, sweep 0\.5\)"):
        plan_sweep(store, [AgentSpec(spec(temperature=0.5).name, "llm-m")], [1], settings)


def test_a_recording_asked_to_play_another_seed_or_a_run_not_there_is_refused_before_playing(tmp_path: Path) -> None:
    """Both failed in a worker mid-sweep, leaving a run behind and saying the same command would continue."""
    db = tmp_path / "runs.db"
    world, term = inputs(1, SCALE)
    store = SQLiteStore(db)
    new_run(store, world, term, agent_name="diligent", seed=1, branch_id="played").session(make_agent("diligent", term, world)).run()
    store.close()
    before = db.read_bytes()
    for args, message in ((("--agent", "recorded:played", "--seeds", "1-2", "--scale", str(SCALE)),
                           f"recorded:played replays run played on its own seed and scale: sweep it with --seeds 1 --scale {SCALE:g}"),
                          (("--agent", "recorded:played", "--seeds", "1", "--scale", "0.3"), "--seeds 1 --scale"),
                          (("--agent", "recorded:ghost", "--agent", "noop", "--seeds", "1", "--scale", str(SCALE)),
                           "no run named 'ghost'")):
        result = campus_sweep(*args, "--db", str(db), "--workers", "1", cwd=tmp_path, check=False)
        assert result.returncode == 2 and message in result.stderr, result.stderr
    assert db.read_bytes() == before
    elsewhere = campus_sweep("--agent", "recorded:played", "--seeds", "1", "--db", str(tmp_path / "none.db"),
                             cwd=tmp_path, check=False)
    assert elsewhere.returncode == 2 and "no database at" in elsewhere.stderr and not (tmp_path / "none.db").exists()


def test_no_busy_days_plays_the_term_without_them_and_a_stored_run_with_them_is_a_conflict(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    campus_sweep("--agent", "noop", "--seeds", "1", "--scale", "0.02", "--no-busy-days", "--db", str(db), "--json", cwd=tmp_path)
    store = SQLiteStore(db)
    term = open_run(store, "noop-s1").term
    store.close()
    world, _ = inputs(1, 0.02)
    assert term.hash == generate_term(world, 1, 0.02, busy=False).hash != generate_term(world, 1, 0.02).hash
    before = event_counts(db)
    result = campus_sweep("--agent", "noop", "--seeds", "1", "--scale", "0.02", "--db", str(db), cwd=tmp_path, check=False)
    assert result.returncode == 2 and "busy_days: stored False, sweep True" in result.stderr
    assert event_counts(db) == before


def test_a_ray_task_plays_the_term_the_settings_choose(tmp_path: Path) -> None:
    """``play_remote`` (the body of a Ray task, called here without Ray) passes ``busy_days`` to the run it makes."""
    from campus.cli.sweep import build_agent
    from campus.lab.ray_sweep import play_remote
    from campus.lab.sweep import AgentSpec, PlannedRun, SweepSettings
    from campus.replays.export import import_lines

    settings = SweepSettings(db=str(tmp_path / "unused.db"), scale=0.02, busy_days=False)
    lines = play_remote(settings, PlannedRun("noop-s1", AgentSpec("noop"), 1, "new"), build_agent, None)
    term = import_lines(MemoryStore(), lines).term
    assert not any(task.scenario == "busy_days" for task in term.tasks) and any(task.scenario == "disruptions" for task in term.tasks)

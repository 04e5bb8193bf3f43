"""A log that cannot lie: one writer per run, failures that are reported, files that are campus's or left alone, atomic import."""

from __future__ import annotations

import gc
import hashlib
import io
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from campus.events import chain_hash
from campus.kernel.runner import SessionError
from campus.kernel.store import APPLICATION_ID, BranchInfo, MemoryStore, SQLiteStore, StoreError
from campus.replays.export import ExportFormatError, export_lines, import_lines
from campus.replays.verify import verify
from campus.scenarios.play import new_run, open_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex
from tests.conftest import play
from tests.test_store_conformance import root, walks
from tests.test_sweep import _interruptible

ROOT = Path(__file__).resolve().parents[1]
ENV = os.environ | {"PYTHONPATH": str(ROOT)}
SLOW_AGENT = """
import sys, time
from campus.kernel import runner
asked = runner.Session._ask_agent
def slowly(self):
    time.sleep(0.003)
    return asked(self)
runner.Session._ask_agent = slowly
from campus.cli.main import main
sys.argv = ["campus", *sys.argv[1:]]
main()
"""


def campus(*args: str, cwd: Path, script: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", script, *args] if script else [sys.executable, "-m", "campus.cli.main", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=ENV, timeout=300)


def one_error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def chain_holds(store: SQLiteStore, branch: str) -> bool:
    prev = store.branch(branch).genesis
    for row in store.rows(branch):
        prev = chain_hash(prev, row.t, row.payload.encode())
        if prev != row.hash:
            return False
    return True


# ---------------------------------------------------------------- one writer per branch


def test_a_second_writer_is_refused_and_cannot_retry_onto_the_first(tmp_path: Path) -> None:
    first, second = SQLiteStore(tmp_path / "log.db"), SQLiteStore(tmp_path / "log.db")
    root(first)
    first.append("main", walks(3))
    assert second.head("main")[0] == 3
    first.append("main", walks(2, start=3))
    for _ in range(2):  # the refused writer must not succeed by trying again against the new head
        with pytest.raises(StoreError, match="another writer"):
            second.append("main", walks(4, start=100))
    assert first.head("main")[0] == 5 and chain_holds(first, "main")
    assert [r.t for r in SQLiteStore(tmp_path / "log.db").rows("main")] == [0, 1, 2, 3, 4]
    with pytest.raises(StoreError, match="after seq 2"):
        first.append("main", walks(1), expect=2)
    first.close()
    second.close()


def test_a_lease_names_its_holder_and_is_released_on_close(tmp_path: Path) -> None:
    first, second = SQLiteStore(tmp_path / "log.db"), SQLiteStore(tmp_path / "log.db")
    root(first)
    first.lease("main")
    with pytest.raises(StoreError, match=f"run main is being written by pid {os.getpid()} on {socket.gethostname()}"):
        second.lease("main")
    with pytest.raises(StoreError, match="being written by pid"):
        second.append("main", walks(1))
    first.append("main", walks(1))
    first.close()
    second.lease("main")
    second.append("main", walks(1, start=1))
    assert chain_holds(second, "main") and second.head("main")[0] == 2
    second.close()


def test_the_lease_of_a_dead_process_is_taken_over_but_not_a_live_ones(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    store = SQLiteStore(tmp_path / "log.db")
    root(store)
    store.conn.execute("INSERT INTO leases VALUES ('main', ?, ?, 'dead')", (gone.pid, socket.gethostname()))
    store.lease("main")
    assert store.conn.execute("SELECT pid, token FROM leases").fetchall() == [(os.getpid(), store._token)]
    store.close()
    assert store_leases(tmp_path / "log.db") == []
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])  # killed, never reaped: still a pid, not a writer
    while b"State:\tZ" not in Path(f"/proc/{zombie.pid}/status").read_bytes():
        time.sleep(0.01)
    store = SQLiteStore(tmp_path / "log.db")
    store.conn.execute("INSERT INTO leases VALUES ('main', ?, ?, 'zombie')", (zombie.pid, socket.gethostname()))
    store.lease("main")
    store.close()
    zombie.wait()
    other = SQLiteStore(tmp_path / "log.db")
    other.conn.execute("INSERT INTO leases VALUES ('main', 1, 'elsewhere', 'remote')")
    with pytest.raises(StoreError, match="being written by pid 1 on elsewhere"):
        other.lease("main")
    other.close()


def store_leases(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT branch, pid FROM leases").fetchall()


def test_a_session_takes_the_lease_of_the_branch_it_plays(tmp_path: Path, world: WorldIndex, small_term: Term) -> None:
    store = SQLiteStore(tmp_path / "log.db")
    run = new_run(store, world, small_term, agent_name="noop", seed=0, branch_id="r")
    from campus.agents import make_agent

    run.session(make_agent("noop", small_term, world)).run(max_steps=3)
    other = SQLiteStore(tmp_path / "log.db")
    with pytest.raises(StoreError, match="run r is being written by pid"):
        open_run(other, "r").session(make_agent("noop", small_term, world))
    store.close()
    open_run(other, "r").session(make_agent("noop", small_term, world)).run()
    assert verify(open_run(other, "r")).ok
    other.close()


@pytest.mark.slow  # three CLI processes and a verify, ~10 s
def test_two_resumes_of_one_run_one_plays_the_other_names_the_holder(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    assert campus("run", "--db", str(db), "--scale", "0.3", "--max-steps", "30", cwd=tmp_path).returncode == 0
    first = subprocess.Popen([sys.executable, "-c", SLOW_AGENT, "run", "--db", str(db), "--resume", "oracle-s0", "--json"],
                             cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not store_leases(db) and first.poll() is None:
        time.sleep(0.02)
    second = campus("run", "--db", str(db), "--resume", "oracle-s0", cwd=tmp_path)
    out, errors = first.communicate(timeout=300)
    assert first.returncode == 0, errors
    held = one_error_line(second)
    assert f"run oracle-s0 is being written by pid {first.pid} on {socket.gethostname()}" in held
    assert "continue it with" not in held and "stopped at step" not in held  # it is not stopped: it is being played
    alone = campus("run", "--db", str(tmp_path / "alone.db"), "--scale", "0.3", "--json", cwd=tmp_path)
    assert json.loads(out)["final_hash"] == json.loads(alone.stdout)["final_hash"]
    assert campus("verify", "oracle-s0", "--db", str(db), cwd=tmp_path).returncode == 0
    assert store_leases(db) == []


# ---------------------------------------------------------------- errors inside a run


def test_an_error_inside_the_session_is_raised_after_the_whole_steps_are_committed(
    tmp_path: Path, world: WorldIndex, small_term: Term, monkeypatch: pytest.MonkeyPatch
) -> None:
    from campus.agents import make_agent

    calls = {"n": 0}
    evaluate = Term.evaluate

    def failing(self, *args):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyError("broken evaluator")
        return evaluate(self, *args)

    store = SQLiteStore(tmp_path / "log.db")
    run = new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="r")
    monkeypatch.setattr(Term, "evaluate", failing)
    session = run.session(make_agent("oracle", small_term, world), commit_delay=3600)
    with pytest.raises(SessionError, match=r"run r stopped after seq (\d+) .*KeyError: 'broken evaluator'") as raised:
        session.run()
    with pytest.raises(SessionError):
        session.run()  # a failed session stays failed
    head = store.head("r")[0]
    assert f"after seq {head} " in str(raised.value)
    scored = [e for e in open_run(store, "r").ended_tasks() if e.outcome != "unscored"]
    assert 0 < head < session.state.seq and len(scored) == 3
    monkeypatch.setattr(Term, "evaluate", evaluate)
    store.close()
    again = SQLiteStore(tmp_path / "log.db")
    open_run(again, "r").session(make_agent("oracle", small_term, world)).run()
    alone = play(MemoryStore(), world, small_term, "oracle")
    assert again.head("r") == alone.store.head(alone.branch.id)
    assert verify(open_run(again, "r")).ok
    again.close()


def _resumed_in_this_process(path: Path, world: WorldIndex, term: Term) -> None:
    """Run "r" of ``path``, its lease left by a store of this process, resumed here by a new store: it ends at the
    hash of an uninterrupted run, verifies, and leaves no lease."""
    from campus.agents import make_agent

    again = SQLiteStore(path)
    open_run(again, "r").session(make_agent("oracle", term, world)).run()
    alone = play(MemoryStore(), world, term, "oracle")
    assert again.head("r") == alone.store.head(alone.branch.id)
    assert verify(open_run(again, "r")).ok
    again.close()
    assert store_leases(path) == []


def test_a_full_disk_stops_the_run_at_a_commit_and_this_process_resumes_it(
    tmp_path: Path, world: WorldIndex, small_term: Term
) -> None:
    """SQLite's page limit fails a write as a full disk does (SQLITE_FULL). The store then could not release its
    lease (the release is a write too) and its close raised over the session's own error; now it closes, and the
    lease it leaves, which no open store of this process holds, is taken over by the next one."""
    from campus.agents import make_agent

    path = tmp_path / "log.db"
    store = SQLiteStore(path)
    run = new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="r")
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages + 8}")
    with pytest.raises(SessionError, match="database or disk is full"):
        run.session(make_agent("oracle", small_term, world)).run()
    store.conn.execute("PRAGMA query_only = 1")  # the disk still full: no write gets through, the release neither
    store.close()
    assert store_leases(path) == [("r", os.getpid())]
    _resumed_in_this_process(path, world, small_term)


def test_a_store_collected_unclosed_leaves_its_run_to_the_next_store_of_the_process(
    tmp_path: Path, world: WorldIndex, small_term: Term
) -> None:
    """A notebook cell that fails drops its store without closing it: the lease row stays, but no open store of the
    process holds it, so the same process resumes the run (before, only a new process could). Not for the stores
    alive when the process's first session starts: ``runner._settle_heap`` hides them from the cyclic collector, and a
    session left mid-run is a cycle, so such a store lives (and holds its lease) until the process ends."""
    from campus.agents import make_agent

    settle = new_run(MemoryStore(), world, small_term, agent_name="noop", seed=0)
    settle.session(make_agent("noop", small_term, world)).run(max_steps=1)  # the process's first session, if it is
    path = tmp_path / "log.db"
    store = SQLiteStore(path)
    run = new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="r")
    run.session(make_agent("oracle", small_term, world)).run(max_steps=5)
    del run, store
    gc.collect()
    assert store_leases(path) == [("r", os.getpid())]
    _resumed_in_this_process(path, world, small_term)


def test_a_full_disk_under_a_command_is_one_line_saying_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import typer

    from campus.cli.common import open_db

    path = tmp_path / "full.db"
    SQLiteStore(path).close()
    with pytest.raises(typer.Exit), open_db(str(path)) as store:
        assert isinstance(store, SQLiteStore)
        store.conn.execute("PRAGMA max_page_count = 1")
        store.put_blob("world", "0" * 64, b"x" * 100_000)
    error = capsys.readouterr().err
    assert f"no room left to write {path}" in error and "damaged" not in error, error


def test_a_full_disk_under_a_run_and_a_read_only_file_are_said_so(tmp_path: Path, world: WorldIndex, small_term: Term,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A run stopped by a full disk printed SQLite's OperationalError as its reason; a file this user may only read was
    called damaged when the first write failed; a missing folder was called a permissions problem."""
    import typer

    from campus.agents import make_agent
    from campus.cli.common import open_db
    from campus.cli.main import _play

    path = tmp_path / "log.db"
    store = SQLiteStore(path)
    run = new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="r")
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages + 64}")
    with pytest.raises(typer.Exit):
        _play(run, make_agent("oracle", small_term, world), str(path), show_progress=False)
    store.conn.execute("PRAGMA max_page_count = 1000000")
    store.close()
    error = capsys.readouterr().err
    assert f"no room left to write {path}: nothing past the last commit was written" in error, error
    # how far it got depends on how the wall clock grouped the commits: stopped at a step, or before the first reply
    assert "OperationalError" not in error and ("--resume r" in error or "plays into it again" in error), error

    with pytest.raises(typer.Exit), open_db(str(path)):
        with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as reader:  # what a file only readable gives
            reader.execute("CREATE TABLE z (a)")
    error = capsys.readouterr().err
    assert f"cannot write {path}" in error and "permissions problem" in error and "is damaged" not in error, error

    missing = tmp_path / "nowhere" / "x.db"
    with pytest.raises(typer.Exit), open_db(str(missing), must_exist=False):
        pass
    error = capsys.readouterr().err
    assert f"the folder {missing.parent} does not exist" in error and "permissions" not in error, error


def test_ctrl_c_stops_a_run_with_one_line_naming_how_to_go_on_and_the_resume_ends_where_a_whole_run_does(
    tmp_path: Path,
) -> None:
    """Interrupted, the command said nothing (exit 130 alone)."""
    db = tmp_path / "runs.db"
    player = subprocess.Popen([sys.executable, "-c", SLOW_AGENT, "run", "--db", str(db), "--scale", "0.3"], cwd=tmp_path,
                              env=ENV, preexec_fn=_interruptible, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while player.poll() is None and not _playing(db):
        time.sleep(0.02)
    time.sleep(0.3)
    player.send_signal(signal.SIGINT)
    _, errors = player.communicate(timeout=300)
    assert player.returncode == 130, errors
    assert re.fullmatch(r"error: interrupted \(run oracle-s0 stopped at step \d+; continue it with: campus run --db \S+ "
                        r"--resume oracle-s0\)", errors.strip()), errors
    resumed = campus("run", "--db", str(db), "--resume", "oracle-s0", "--json", cwd=tmp_path)
    alone = campus("run", "--db", str(tmp_path / "alone.db"), "--scale", "0.3", "--json", cwd=tmp_path)
    assert json.loads(resumed.stdout)["final_hash"] == json.loads(alone.stdout)["final_hash"]


def _playing(db: Path) -> bool:
    """Whether a run in ``db`` has a writer (the file and its tables may not be there yet)."""
    try:
        return bool(store_leases(db))
    except sqlite3.Error:
        return False


def test_a_failing_evaluator_ends_the_command_with_exit_2_naming_run_and_seq(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import sys
        from campus.scenarios.task import Term
        evaluate, calls = Term.evaluate, []
        def failing(self, *args):
            calls.append(1)
            if len(calls) == 6:
                raise ValueError("evaluator broke")
            return evaluate(self, *args)
        Term.evaluate = failing
        from campus.cli.main import main
        sys.argv = ["campus", *sys.argv[1:]]
        main()
    """)
    db = str(tmp_path / "runs.db")
    failed = campus("run", "--db", db, "--scale", "0.1", cwd=tmp_path, script=script)
    line = one_error_line(failed)
    assert "run oracle-s0 stopped after seq" in line and "evaluator broke" in line
    seq = int(line.split("after seq ")[1].split()[0])
    listed = json.loads(campus("runs", "--db", db, "--json", cwd=tmp_path).stdout)
    assert listed[0]["events"] == seq
    assert campus("verify", "oracle-s0", "--db", db, cwd=tmp_path).returncode == 0
    resumed = campus("run", "--db", db, "--resume", "oracle-s0", "--json", cwd=tmp_path)
    alone = campus("run", "--db", str(tmp_path / "alone.db"), "--scale", "0.1", "--json", cwd=tmp_path)
    assert json.loads(resumed.stdout)["final_hash"] == json.loads(alone.stdout)["final_hash"]


# ---------------------------------------------------------------- files that are not campus's


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_another_applications_sqlite_file_is_refused_and_left_byte_for_byte(tmp_path: Path) -> None:
    foreign = tmp_path / "notes.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("PRAGMA journal_mode=delete")
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        conn.execute("INSERT INTO notes (body) VALUES ('mine')")
    conn.close()
    before = digest(foreign)
    for args in (("runs",), ("run", "--scale", "0.05"), ("import", str(foreign))):
        line = one_error_line(campus(*args, "--db", str(foreign), cwd=tmp_path))
        assert f"{foreign} is not a campus database" in line
    assert digest(foreign) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]
    with pytest.raises(StoreError, match="tables: notes"):
        SQLiteStore(foreign)


def test_a_directory_and_a_garbage_file_get_one_line(tmp_path: Path) -> None:
    assert f"{tmp_path} is a directory" in one_error_line(campus("runs", "--db", str(tmp_path), cwd=tmp_path))
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database at all\n" * 200)
    before = digest(garbage)
    line = one_error_line(campus("run", "--db", str(garbage), "--scale", "0.05", cwd=tmp_path))
    assert str(garbage) in line and digest(garbage) == before


def test_a_fork_of_a_fork_made_before_its_fork_point_verifies_and_replays(tmp_path: Path) -> None:
    """``early`` forks ``late`` at a step before ``late`` left the run: its events are the run's up to there and its
    own, which verify re-executes (the run's later events were read in between, and verify failed a sound run)."""
    db = str(tmp_path / "runs.db")
    assert campus("run", "--db", db, "--scale", "0.02", "--max-steps", "120", cwd=tmp_path).returncode == 0
    for parent, at, name in (("oracle-s0", "300", "late"), ("late", "100", "early")):
        forked = campus("fork", parent, "--at-step", at, "--agent", "oracle", "--max-steps", "20", "--name", name,
                        "--db", db, "--json", cwd=tmp_path)
        assert forked.returncode == 0, forked.stderr
    store = SQLiteStore(db)
    early, run = store.branch("early"), store.rows("oracle-s0")
    assert 0 < early.fork_seq < store.branch("late").fork_seq
    rows = store.rows("early")
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1)) and rows[:early.fork_seq] == run[:early.fork_seq]
    assert chain_holds(store, "early")
    store.close()
    checked = campus("verify", "early", "--deep", "--db", db, "--json", cwd=tmp_path)
    assert checked.returncode == 0 and json.loads(checked.stdout)["ok"], checked.stdout + checked.stderr


def test_a_lineage_that_loops_is_one_error_line_not_a_hang(tmp_path: Path, world: WorldIndex, small_term: Term) -> None:
    """No command makes a run its own ancestor; a file where one is (edited by hand, or crafted) is refused."""
    db = tmp_path / "runs.db"
    store = SQLiteStore(db)
    play(store, world, small_term, "oracle")
    store.fork("oracle-s0", 20, "b", agent="oracle")
    store.close()
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER branches_append_only_update")
        conn.execute("UPDATE branches SET parent = 'b', fork_seq = 10 WHERE id = 'oracle-s0'")
    conn.close()
    for args in (("runs",), ("verify", "b"), ("export", "b", "-o", str(tmp_path / "b.jsonl"))):
        line = one_error_line(campus(*args, "--db", str(db), cwd=tmp_path))
        assert "is damaged: its lineage comes back to" in line, (args, line)
    assert not (tmp_path / "b.jsonl").exists()


@pytest.mark.parametrize("seed", [-1, 2**63])
def test_a_seed_no_run_can_store_is_refused_before_anything_is_written(tmp_path: Path, world: WorldIndex,
                                                                         small_term: Term, seed: int) -> None:
    """A seed beyond a SQLite integer raised OverflowError with a traceback, after the world and term were stored."""
    store = SQLiteStore(tmp_path / "runs.db")
    with pytest.raises(ValueError, match=f"seed {seed} is outside 0..{2**63 - 1}"):
        new_run(store, world, small_term, agent_name="oracle", seed=seed)
    assert store.branches() == [] and store.conn.execute("SELECT count(*) FROM blobs").fetchone() == (0,)
    store.close()
    refused = campus("run", "--seed", str(seed), "--scale", "0.02", "--db", str(tmp_path / "cli.db"), cwd=tmp_path)
    assert refused.returncode == 2 and "Invalid value for '--seed'" in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "cli.db").exists()


def test_a_campus_database_made_before_the_stamp_still_opens(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = SQLiteStore(path)
    root(store)
    store.append("main", walks(2))
    store.conn.execute("DROP TABLE leases")
    store.conn.execute("PRAGMA application_id=0")
    store.close()
    again = SQLiteStore(path)
    assert again.head("main")[0] == 2
    assert again.conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    again.close()
    with sqlite3.connect(path) as conn:  # unstamped, campus's tables are recognised only as they are
        conn.execute("CREATE TABLE extra (x)")
        conn.execute("PRAGMA application_id=0")
    conn.close()
    with pytest.raises(StoreError, match="not a campus database"):
        SQLiteStore(path)


# ---------------------------------------------------------------- import


@pytest.fixture(scope="module")
def exported(world: WorldIndex, small_term: Term) -> list[str]:
    return list(export_lines(play(MemoryStore(), world, small_term, "oracle")))


def test_an_import_that_fails_while_writing_leaves_no_run(tmp_path: Path, exported: list[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from campus.kernel import store as store_module

    insert = store_module._insert_rows

    def half_then_fail(conn, rows):
        insert(conn, rows[: len(rows) // 2])
        raise sqlite3.OperationalError("disk I/O error")

    store = SQLiteStore(tmp_path / "log.db")
    monkeypatch.setattr(store_module, "_insert_rows", half_then_fail)
    with pytest.raises(sqlite3.OperationalError):
        import_lines(store, exported)
    monkeypatch.setattr(store_module, "_insert_rows", insert)
    store.close()
    again = SQLiteStore(tmp_path / "log.db")
    assert again.branches() == [] and again.conn.execute("SELECT count(*) FROM events").fetchone() == (0,)
    run = import_lines(again, exported)
    assert verify(run).ok
    same = import_lines(again, exported)  # the same run again is no new run (it was stored as oracle-s0-2, -3, ...)
    assert same.branch.id == run.branch.id and len(again.branches()) == 1
    named = import_lines(again, exported, branch_id="kept-apart")
    assert named.branch.id == "kept-apart" and len(again.branches()) == 2
    again.close()


def edited(lines: list[str], index: int, edit: Callable[[dict], object]) -> list[str]:
    line = json.loads(lines[index])
    edit(line)
    return [*lines[:index], json.dumps(line), *lines[index + 1:]]


@pytest.mark.parametrize("damage, message", [
    (lambda lines: lines[:-3], "ends at line 50 without its end line"),
    (lambda lines: lines[:1], "no events after its header"),
    (lambda lines: lines[:1] + lines[-1:], "no events after its header"),
    (lambda lines: [lines[0].replace('"branch":', '"branchless":', 1)] + lines[1:], r"line 1: the header is incomplete .*branch"),
    (lambda lines: lines[:4] + [lines[4].replace('"t":', '"t":null,"x":', 1)] + lines[5:], r"line 5 is not a valid event .*\$\.t"),
    (lambda lines: lines[:4] + [lines[4].replace('"hash":', '"nohash":', 1)] + lines[5:], "line 5 is not a valid event"),
    (lambda lines: lines + lines[-1:], "follows the end of the export"),
    (lambda lines: lines[:-1] + ['{"end": {"events": 3, "head": "x"}}'], "the end line promises 3 events"),
    (lambda lines: edited(lines, 4, lambda line: line.update(kind="day_started")),
     "line 5 .*says kind 'day_started' of an event of kind"),
    (lambda lines: edited(lines, 4, lambda line: line["event"].update(kind=["day_started"])), "line 5 is not a valid event"),
    (lambda lines: edited(lines, 4, lambda line: line.update(event=[1, 2])), "line 5 is not a valid event"),
    (lambda lines: edited(lines, 0, lambda line: line["term"].update(world_changes=[True])), "line 1: the world or term is not valid"),
    (lambda lines: edited(lines, 0, lambda line: line["term"].update(tasks=7)), "line 1: the world or term is not valid"),
    (lambda lines: lines[:4] + ['{"event": ' + "[" * 5000 + "]" * 5000 + "}"] + lines[5:], "line 5 is not a valid event"),
    (lambda lines: ["[" * 5000 + "]" * 5000] + lines[1:], "line 1 is not a campus export header"),
])
def test_damaged_exports_are_refused_with_the_line(exported: list[str], damage, message: str) -> None:
    cut = damage(exported[:52] + ['{"end": ' + json.dumps({"events": 51, "head": json.loads(exported[51])["hash"]}) + "}"])
    store = MemoryStore()
    with pytest.raises(ExportFormatError, match=message):
        import_lines(store, cut)
    assert store.branches() == []


def test_a_cut_file_is_refused_by_the_command_without_a_traceback(tmp_path: Path, exported: list[str]) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_text("\n".join(exported[:-1]) + "\n")
    line = one_error_line(campus("import", str(path), "--db", str(tmp_path / "runs.db"), cwd=tmp_path))
    assert f"ends at line {len(exported) - 1} without its end line" in line
    assert SQLiteStore(tmp_path / "runs.db").branches() == []


def test_an_export_written_before_the_end_line_still_imports(exported: list[str]) -> None:
    old = [exported[0].replace("campus-log/2", "campus-log/1", 1), *exported[1:-1]]
    assert verify(import_lines(MemoryStore(), old)).ok


# ---------------------------------------------------------------- fork --reply


@pytest.mark.slow  # a run and a killed process, ~3 s
def test_a_fork_with_an_injected_reply_killed_before_its_commit_leaves_no_fork(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    assert campus("run", "--db", str(db), "--scale", "0.05", cwd=tmp_path).returncode == 0
    script = textwrap.dedent("""
        import os, signal, sys
        from campus.kernel.store import SQLiteStore
        from campus.replays.fork import InjectedReply, fork_run
        from campus.scenarios.play import open_run

        class Killed:
            name = "oracle"
            def act(self, view):
                os.kill(os.getpid(), signal.SIGKILL)

        store = SQLiteStore(sys.argv[1])
        child, _ = fork_run(open_run(store, "oracle-s0"), 200, agent_name="oracle", new_id="what-if", deferred=True)
        child.session(InjectedReply("<action>Answer: A</action>", Killed()), commit_delay=3600).run()
    """)
    killed = subprocess.run([sys.executable, "-c", script, str(db)], cwd=tmp_path, env=ENV, capture_output=True, timeout=120)
    assert killed.returncode == -9
    store = SQLiteStore(db)
    assert [b.id for b in store.branches()] == ["oracle-s0"]  # no fork without the step that carries its reply
    store.close()


class _LateSighted(MemoryStore):
    """A store whose list of runs misses the ones made since a moment ago, as a process's does while another
    process starts a run of the same name."""

    def __init__(self) -> None:
        super().__init__()
        self.unseen: set[str] = set()

    def branch_ids(self) -> list[str]:
        ids = [i for i in super().branch_ids() if i not in self.unseen]
        self.unseen.clear()
        return ids

    def branches(self) -> list[BranchInfo]:
        return [self.branch(i) for i in self.branch_ids()]


def test_a_run_named_like_one_made_a_moment_ago_takes_the_next_name(world: WorldIndex, small_term: Term) -> None:
    """Three `campus run` of one agent and seed at once: one failed with "a branch named 'noop-s1-11' already exists"
    (each picked the same free name). A name the run chose itself is chosen again; a name it was given is not."""
    store = _LateSighted()
    first = new_run(store, world, small_term, agent_name="noop", seed=0)
    store.unseen.add(first.branch.id)
    second = new_run(store, world, small_term, agent_name="noop", seed=0)
    assert (first.branch.id, second.branch.id) == ("noop-s0", "noop-s0-2")
    with pytest.raises(StoreError, match="already exists"):
        new_run(store, world, small_term, agent_name="noop", seed=0, branch_id="noop-s0")

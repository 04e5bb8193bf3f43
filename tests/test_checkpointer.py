"""The checkpointer: a writer's commits are copied into the database file on a thread of its own."""

from __future__ import annotations

import gc
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from campus.kernel import checkpointer
from campus.kernel.store import SQLiteStore
from tests.test_store_conformance import root, walks

ROWS = 1_000
"""Rows per append: each counts ~200 bytes, so eight appends (~1.6 MB) stay far below the writer's own checkpoint
(``BACKSTOP_PAGES``)."""


def _filled(path: Path, appends: int = 8) -> SQLiteStore:
    store = SQLiteStore(path)
    root(store)
    for number in range(appends):
        store.append("main", walks(ROWS, number * ROWS))
    return store


def _events_in_the_file_alone(path: Path, copy: Path) -> int:
    """The events the database file holds without its WAL (a copy of the file alone, opened on its own; until a first
    checkpoint the file holds not even the tables)."""
    shutil.copyfile(path, copy)
    conn = sqlite3.connect(copy)
    try:
        if conn.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'events'").fetchone()[0] == 0:
            return 0
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        conn.close()


def test_commits_reach_the_database_file_without_the_writers_own_checkpoint(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checkpointer, "EVERY_BYTES", 256 << 10)
    path = tmp_path / "log.db"
    store = _filled(path)
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    assert pages < checkpointer.BACKSTOP_PAGES / 4, "the writer itself must have had no reason to checkpoint"
    copier = store._checkpointer
    assert copier is not None
    deadline = time.monotonic() + 60
    while copier.checkpoints == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    copier.stop()
    assert copier.checkpoints >= 1
    copied = _events_in_the_file_alone(path, tmp_path / "alone.db")
    assert copied >= ROWS, f"the file alone holds {copied} events"  # at least the append that woke the thread
    assert store.head("main")[0] == 8 * ROWS
    store.close()


def test_without_the_thread_the_file_alone_holds_nothing_yet(tmp_path: Path) -> None:
    """The test above measures the thread: with no checkpointer, the same commits are all still in the WAL."""
    path = tmp_path / "log.db"
    store = SQLiteStore(path)
    store._checkpointer = _Idle()  # type: ignore[assignment]
    root(store)
    for number in range(8):
        store.append("main", walks(ROWS, number * ROWS))
    assert _events_in_the_file_alone(path, tmp_path / "alone.db") == 0
    store.close()


class _Idle:
    def nudge(self, written: int) -> None:
        pass

    def stop(self) -> None:
        pass


def test_close_ends_the_thread_and_removes_the_wal(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    store = _filled(path, appends=2)
    copier = store._checkpointer
    assert copier is not None and copier._thread is not None and copier._thread.is_alive()
    store.close()
    assert not copier._thread.is_alive()
    assert not Path(f"{path}-wal").exists()
    again = SQLiteStore(path, read_only=True)
    assert again.head("main")[0] == 2 * ROWS
    again.close()


def test_a_store_dropped_unclosed_ends_its_thread(tmp_path: Path) -> None:
    store = _filled(tmp_path / "log.db", appends=1)
    assert store._checkpointer is not None
    thread = store._checkpointer._thread
    assert thread is not None and thread.is_alive()
    del store
    gc.collect()
    assert not thread.is_alive()


def test_with_no_thread_to_be_had_the_writer_checkpoints_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(checkpointer.threading.Thread, "start", refuse)
    path = tmp_path / "log.db"
    store = _filled(path, appends=3)
    assert store._checkpointer is not None and store._checkpointer._thread is None
    store.close()
    assert not Path(f"{path}-wal").exists()
    again = SQLiteStore(path, read_only=True)
    assert again.head("main")[0] == 3 * ROWS
    again.close()


def test_the_thread_opens_the_file_the_store_opened_wherever_the_process_has_moved(tmp_path: Path,
                                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A store opened by a relative path, then the working directory changed: the thread still copies into that file
    and makes no database where the process now is."""
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(home)
    store = SQLiteStore("log.db")
    monkeypatch.chdir(elsewhere)
    root(store)
    monkeypatch.setattr(checkpointer, "EVERY_BYTES", 1)  # one checkpoint, after the append
    store.append("main", walks(ROWS))
    copier = store._checkpointer
    assert copier is not None and copier.path == str(home / "log.db")
    deadline = time.monotonic() + 60
    while copier.checkpoints == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    copier.stop()
    assert copier.checkpoints >= 1
    assert list(elsewhere.iterdir()) == []
    assert _events_in_the_file_alone(home / "log.db", tmp_path / "alone.db") == ROWS
    store.close()


def test_a_database_put_where_the_store_s_file_was_is_left_alone(tmp_path: Path) -> None:
    """The store's file moved away and another program's database, its WAL holding a commit, put in its place before
    the store's first commit: the thread does not checkpoint that database (its WAL keeps the commit, its file stays
    as it was), and the store goes on writing to its own file."""
    path, moved = tmp_path / "log.db", tmp_path / "moved.db"
    store = SQLiteStore(path)
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{path}{suffix}").exists():
            Path(f"{path}{suffix}").rename(f"{moved}{suffix}")
    other = sqlite3.connect(path)
    other.execute("PRAGMA journal_mode=WAL")
    other.execute("PRAGMA wal_autocheckpoint=0")
    other.execute("CREATE TABLE notes (text TEXT)")
    other.execute("INSERT INTO notes VALUES ('theirs')")
    other.commit()
    before = path.read_bytes(), Path(f"{path}-wal").read_bytes()
    root(store)
    store.append("main", walks(ROWS))
    copier = store._checkpointer
    assert copier is not None and copier._thread is not None
    copier._thread.join(timeout=60)
    assert not copier._thread.is_alive(), "the thread ends at once on a file that is not the store's"
    assert (path.read_bytes(), Path(f"{path}-wal").read_bytes()) == before
    other.close()
    store.close()

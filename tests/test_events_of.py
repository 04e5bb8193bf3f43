"""``events_of``: one kind's events of a branch, read in one pass without the file's memory map."""

from __future__ import annotations

from typing import Any

from campus.events import DayStarted, TimeAnnounced
from campus.kernel.store import BranchInfo, EventStore, SQLiteStore
from campus.kernel.tasks import events_of


def test_one_kinds_events_of_a_fork_up_to_a_seq(store: EventStore) -> None:
    store.create_branch(BranchInfo(id="main", parent=None, fork_seq=0, genesis="g" * 64, agent="test", world_hash="w", term_hash="t"))
    store.append("main", [(i, DayStarted(day=i, home="B1") if i % 3 == 0 else TimeAnnounced(label=str(i)), None)
                          for i in range(12)])
    store.fork("main", 7, "child", agent="other")
    store.append("child", [(50, DayStarted(day=50, home="B1"), None)])
    assert [e.day for e in events_of(store, "child", DayStarted)] == [0, 3, 6, 50]
    assert [e.day for e in events_of(store, "main", DayStarted, upto=7)] == [0, 3, 6]


def test_the_pass_leaves_the_memory_map_as_it_was(sqlite_store: SQLiteStore) -> None:
    """A full pass through the map keeps every page it touched resident (20 MB of a default term's 29k rows,
    counted in the process's memory); the map is back for the reads that follow."""
    sqlite_store.create_branch(BranchInfo(id="main", parent=None, fork_seq=0, genesis="g" * 64, agent="test", world_hash="w", term_hash="t"))
    sqlite_store.append("main", [(0, DayStarted(day=0, home="B1"), None)])
    before = sqlite_store.conn.execute("PRAGMA mmap_size").fetchone()[0]
    seen: list[int] = []
    scan = sqlite_store.scan

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(sqlite_store.conn.execute("PRAGMA mmap_size").fetchone()[0])
        return scan(*args, **kwargs)

    sqlite_store.scan = watched  # type: ignore[method-assign]
    assert [e.day for e in events_of(sqlite_store, "main", DayStarted)] == [0]
    assert before > 0 and seen == [0]
    assert sqlite_store.conn.execute("PRAGMA mmap_size").fetchone()[0] == before

"""One contract, two stores: every test here runs against the in-memory and the SQLite log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.events import Walked, canonical, chain_hash
from campus.kernel.store import BranchInfo, EventStore, SQLiteStore, StoreError


def root(store: EventStore, branch_id: str = "main") -> BranchInfo:
    return store.create_branch(BranchInfo(id=branch_id, parent=None, fork_seq=0, genesis="g" * 64, agent="test", world_hash="w", term_hash="t"))


def walks(n: int, start: int = 0) -> list[tuple[int, Walked, None]]:
    return [(start + i, Walked(path=[f"B{i:03d}", f"B{i + 1:03d}"], depart=start + i, arrive=start + i + 1), None) for i in range(n)]


def test_append_chains_hashes_from_the_genesis(store: EventStore) -> None:
    root(store)
    seq, head = store.append("main", walks(3))
    rows = store.rows("main")
    assert seq == 3 and [r.seq for r in rows] == [1, 2, 3]
    prev = "g" * 64
    for row in rows:
        prev = chain_hash(prev, row.t, row.payload.encode())
        assert row.hash == prev
    assert head == prev == store.hash_at("main", 3)
    assert store.hash_at("main", 0) == "g" * 64
    assert rows[0].payload == canonical(walks(1)[0][1]).decode()


def test_empty_append_changes_nothing(store: EventStore) -> None:
    root(store)
    assert store.append("main", []) == (0, "g" * 64)
    assert store.rows("main") == []


def test_rows_by_range_and_time(store: EventStore) -> None:
    root(store)
    store.append("main", walks(10, start=100))
    assert [r.seq for r in store.rows("main", 4, 6)] == [4, 5, 6]
    assert store.seq_at_time("main", 104) == 5
    assert store.seq_at_time("main", 99) == 0
    assert store.seq_at_time("main", 10_000) == 10


def test_fork_shares_the_prefix_and_appends_after_it(store: EventStore) -> None:
    root(store)
    store.append("main", walks(5))
    child = store.fork("main", 3, "child", agent="other")
    assert child.parent == "main" and child.fork_seq == 3 and child.genesis == "g" * 64
    assert store.head("child") == (3, store.hash_at("main", 3))
    store.append("child", walks(2, start=50))
    assert [r.seq for r in store.rows("child")] == [1, 2, 3, 4, 5]
    assert store.rows("child")[3].t == 50
    assert store.hash_at("child", 2) == store.hash_at("main", 2)
    assert store.hash_at("child", 4) != store.hash_at("main", 4)
    assert len(store.rows("main")) == 5


def test_fork_of_a_fork_reads_three_segments(store: EventStore) -> None:
    root(store)
    store.append("main", walks(4))
    store.fork("main", 2, "b", agent="x")
    store.append("b", walks(3, start=20))
    store.fork("b", 4, "c", agent="y")
    store.append("c", walks(1, start=90))
    assert [r.t for r in store.rows("c")] == [0, 1, 20, 21, 90]
    assert store.hash_at("c", 4) == store.hash_at("b", 4)
    assert store.owner_of("c", 1) == "main" and store.owner_of("c", 3) == "b"  # type: ignore[attr-defined]


def test_a_fork_of_a_fork_before_its_fork_point_reads_the_grandparent_up_to_it(store: EventStore) -> None:
    """``c`` forks ``b`` at 2, below where ``b`` left ``main`` (4): ``c`` holds main's 1..2 and its own, nothing of
    ``b``'s; its ancestors' pieces once ran to ``b``'s fork point, so main's 3..4 were read before ``c``'s 3.."""
    root(store)
    store.append("main", walks(6))
    store.fork("main", 4, "b", agent="x")
    store.append("b", walks(2, start=40))
    store.fork("b", 2, "c", agent="y")
    assert store.head("c") == (2, store.hash_at("main", 2))
    store.append("c", walks(3, start=90))
    assert [r.t for r in store.rows("c")] == [0, 1, 90, 91, 92]
    assert [r.t for r in store.rows("c", 2, 4)] == [1, 90, 91]
    if isinstance(store, SQLiteStore):  # the fold's and the batched readers' ranges
        assert [(r.seq, r.t) for batch in store.iter_rows("c", batch=2) for r in batch] == [(1, 0), (2, 1), (3, 90), (4, 91), (5, 92)]
        assert [len(batch) for batch in store.scan("c", 1, 5, ["walked"], batch=2)] == [2, 2, 1]
    assert store.owner_of("c", 2) == "main" and store.owner_of("c", 3) == "c"  # type: ignore[attr-defined]
    prev = "g" * 64
    for row in store.rows("c"):
        prev = chain_hash(prev, row.t, row.payload.encode())
        assert row.hash == prev
    assert store.head("c") == (5, prev)


def test_fork_at_zero_starts_from_the_genesis(store: EventStore) -> None:
    root(store)
    store.append("main", walks(2))
    store.fork("main", 0, "fresh", agent="x")
    assert store.head("fresh") == (0, "g" * 64)
    assert store.rows("fresh") == []


@pytest.mark.parametrize("at", [-1, 6])
def test_fork_outside_the_branch_is_refused(store: EventStore, at: int) -> None:
    root(store)
    store.append("main", walks(5))
    with pytest.raises(StoreError, match="cannot fork"):
        store.fork("main", at, "child", agent="x")
    with pytest.raises(StoreError):
        store.branch("child")


def test_duplicate_and_unknown_branches(store: EventStore) -> None:
    root(store)
    with pytest.raises(StoreError, match="already exists"):
        root(store)
    with pytest.raises(StoreError, match="no run"):
        store.append("ghost", walks(1))
    with pytest.raises(StoreError, match="no run"):
        store.rows("ghost")
    store.append("main", walks(1))
    with pytest.raises(StoreError, match="already exists"):
        store.fork("main", 1, "main", agent="x")
    with pytest.raises(StoreError):
        store.hash_at("main", 2)


def test_snapshots_are_found_through_the_lineage_and_can_be_dropped(store: EventStore) -> None:
    root(store)
    store.append("main", walks(10))
    store.put_snapshot("main", 4, b"four", "h4")
    store.put_snapshot("main", 8, b"eight", "h8")
    store.fork("main", 6, "child", agent="x")
    store.append("child", walks(4, start=30))
    assert store.snapshot_at_or_before("main", 9).seq == 8  # type: ignore[union-attr]
    assert store.snapshot_at_or_before("child", 9).seq == 4  # type: ignore[union-attr]
    assert store.snapshot_at_or_before("main", 3) is None
    store.put_snapshot("child", 9, b"nine", "h9")
    assert store.snapshot_at_or_before("child", 10).state == b"nine"  # type: ignore[union-attr]
    assert store.snapshot_at_or_before("main", 10).seq == 8  # type: ignore[union-attr]
    store.drop_snapshots()
    assert store.snapshot_at_or_before("child", 10) is None


def test_blobs_are_content_addressed(store: EventStore) -> None:
    store.put_blob("world", "abc", b"data")
    store.put_blob("world", "abc", b"other")
    assert store.get_blob("abc") == b"data"
    with pytest.raises(StoreError, match="no stored"):
        store.get_blob("missing")


def test_branches_are_listed_in_creation_order(store: EventStore) -> None:
    root(store, "z")
    root(store, "a")
    store.fork("z", 0, "m", agent="x")
    assert [b.id for b in store.branches()] == ["z", "a", "m"]


# ------------------------------------------------------------------ SQLite only


def test_sqlite_refuses_updates_and_deletes(sqlite_store: SQLiteStore) -> None:
    root(sqlite_store)
    sqlite_store.append("main", walks(2))
    sqlite_store.put_blob("world", "w" * 64, b"{}")
    for statement in ("UPDATE events SET t = 5", "DELETE FROM events", "UPDATE branches SET agent = 'x'", "DELETE FROM branches",
                      "UPDATE blobs SET data = x'00'", "DELETE FROM blobs"):  # a stored world could be deleted
        with pytest.raises(sqlite3.IntegrityError, match="append-only|cannot"):
            sqlite_store.conn.execute(statement)
    assert [r.t for r in sqlite_store.rows("main")] == [0, 1]


def test_sqlite_is_wal_and_survives_reopening(tmp_path) -> None:
    path = tmp_path / "log.db"
    first = SQLiteStore(path)
    assert first.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    root(first)
    first.append("main", walks(3))
    first.fork("main", 2, "child", agent="x")
    first.close()
    second = SQLiteStore(path)
    assert second.head("main")[0] == 3 and second.head("child")[0] == 2
    assert second.rows("main")[2].payload == canonical(walks(3)[2][1]).decode()
    assert second.branch("main").world_hash == "w"


def test_sqlite_payloads_are_queryable_with_json_functions(sqlite_store: SQLiteStore) -> None:
    root(sqlite_store)
    sqlite_store.append("main", walks(3))
    found = sqlite_store.conn.execute(
        "SELECT json_extract(payload, '$.path[1]') FROM events WHERE kind = 'walked' AND seq = 2"
    ).fetchone()[0]
    assert found == "B002"


def test_sqlite_append_is_one_transaction(sqlite_store: SQLiteStore) -> None:
    root(sqlite_store)
    assert sqlite_store.head("main")[0] == 0
    # A trigger refusing seq 2 makes the second row of the next append fail mid-way.
    sqlite_store.conn.execute("CREATE TEMP TRIGGER refuse_two BEFORE INSERT ON events WHEN NEW.seq = 2 "
                              "BEGIN SELECT RAISE(ABORT, 'refused'); END")
    with pytest.raises(sqlite3.IntegrityError):
        sqlite_store.append("main", walks(3))
    seqs = [r[0] for r in sqlite_store.conn.execute("SELECT seq FROM events WHERE branch = 'main' ORDER BY seq")]
    assert seqs == [], "the first row of the failed append must have been rolled back"


def test_scan_reads_only_the_kinds_asked_for_through_the_lineage(store: EventStore) -> None:
    from campus.events import EmailSent

    root(store)
    mixed = [(i, EmailSent(email_id=f"m{i}", to="a@b.edu", subject="s", body="b") if i % 3 == 0
              else walks(1, start=i)[0][1], None) for i in range(12)]
    store.append("main", mixed)
    store.fork("main", 7, "child", agent="x")
    store.append("child", [(50, EmailSent(email_id="late", to="a@b.edu", subject="s", body="b"), None)])
    found = [pair for batch in store.scan("child", 2, 8, ["email_sent"]) for pair in batch]
    assert [kind for kind, _ in found] == ["email_sent"] * 3
    assert [canonical_id(p) for _, p in found] == ["m3", "m6", "late"]  # seqs 4 and 7 of main, 8 of the child
    everything = [p for batch in store.scan("child", 1, 8, ["email_sent", "walked"]) for _, p in batch]
    assert len(everything) == 8 and canonical_id(everything[-1]) == "late"


def canonical_id(payload: str) -> str:
    import json

    return json.loads(payload)["email_id"]


def _seq_at_time_by_scan(store: SQLiteStore, branch_id: str, t: int) -> int:
    """``seq_at_time`` the way it was: the largest seq at or before ``t`` in each segment, by SQL over every row."""
    best = 0
    for owner, lower, upper in store.segments(branch_id):
        row = store.conn.execute("SELECT max(seq) FROM events WHERE branch = ? AND t <= ? AND seq BETWEEN ? AND ?",
                                 (owner, t, lower, upper if upper is not None else 2**62)).fetchone()
        if row[0] is not None:
            best = max(best, row[0])
    return best


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.integers(0, 3), min_size=0, max_size=40), cut=st.integers(0, 40), more=st.lists(st.integers(0, 3), max_size=10),
       index=st.booleans())
def test_seq_at_time_by_binary_search_is_the_scan(tmp_path_factory: pytest.TempPathFactory, steps: list[int], cut: int,
                                                 more: list[int], index: bool) -> None:
    """Times that stand still or move on (a lineage's never go back), a fork and its own rows; a file made with the old
    index on time answers the same."""
    store = SQLiteStore(tmp_path_factory.mktemp("seek") / "log.db")
    if index:
        store.conn.execute("CREATE INDEX events_by_time ON events (branch, t, seq)")
    root(store)
    times = [sum(steps[: i + 1]) + 5 for i in range(len(steps))]
    store.append("main", [(t, walks(1)[0][1], None) for t in times])
    at = min(cut, len(times))
    store.fork("main", at, "child", agent="test")
    start = times[at - 1] if at else 5
    store.append("child", [(start + sum(more[: i + 1]), walks(1)[0][1], None) for i in range(len(more))])
    for branch in ("main", "child"):
        for t in range(0, (times[-1] if times else 5) + 40):
            assert store.seq_at_time(branch, t) == _seq_at_time_by_scan(store, branch, t)
    store.close()


def test_seq_at_time_over_a_gap_is_a_store_error(tmp_path: Path) -> None:
    """A row deleted behind the triggers' back: the search names the hole instead of failing on a missing row."""
    store = SQLiteStore(tmp_path / "log.db")
    root(store)
    store.append("main", walks(10, start=100))
    store.conn.execute("DROP TRIGGER events_append_only_delete")
    store.conn.execute("DELETE FROM events WHERE branch = 'main' AND seq = 5")
    with pytest.raises(StoreError, match="no event at seq 5"):
        store.seq_at_time("main", 104)
    store.close()

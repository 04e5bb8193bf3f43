"""A joined scan (``SQLiteStore.scan_joined``) gives what reading every row and picking in Python gives."""

from __future__ import annotations

import msgspec
import pytest

from campus.events import AgentReplied, ToolCalled, ToolResult
from campus.kernel.store import DECODED, Record, SQLiteStore, counted_mark
from tests.test_store_conformance import root, walks


def _mixed(count: int) -> list[Record]:
    records: list[Record] = []
    for i in range(count):
        records.append((i, AgentReplied(task_id="t", text=f"reply {i}"), None))
        records.append((i, ToolCalled(call_id=f"c{i}", task_id="t", tool="x.y", args={"n": i}), None))
        records.append((i, ToolResult(call_id=f"c{i}", status="ok", message=f"result {i}"), None))
        records.extend(walks(i % 3, start=i))
    return records


def _picked(store: SQLiteStore, branch: str, start: int, stop: int, decoded: list[str], counted: list[str]) -> tuple[list, str]:
    """The oracle: every row read, the decoded kinds' payloads kept, one mark per decoded or counted event."""
    rows = [r for r in store.rows(branch, start, stop) if r.kind in decoded or r.kind in counted]
    marks = "".join(DECODED if r.kind in decoded else counted_mark(counted.index(r.kind)) for r in rows)
    return [msgspec.json.decode(r.payload) for r in rows if r.kind in decoded], marks


@pytest.mark.parametrize(("decoded", "counted"), [
    (["walked"], ["agent_replied", "tool_called"]),
    (["walked", "tool_called"], []),
    ([], ["agent_replied"]),
    (["tool_result"], ["walked", "tool_called", "agent_replied"]),
])
def test_a_joined_scan_matches_picking_from_every_row_across_a_fork_and_batches(tmp_path, decoded: list[str], counted: list[str]) -> None:
    store = SQLiteStore(tmp_path / "log.db")
    root(store)
    store.append("main", _mixed(40))
    store.fork("main", 57, "child", agent="x")
    store.append("child", _mixed(30))
    head = store.head("child")[0]
    for start, stop in [(1, head), (50, 60), (58, 58), (3, 2)]:
        joined = list(store.scan_joined("child", start, stop, decoded, counted, batch=7))
        payloads = [event for batch in joined for event in msgspec.json.decode(batch.payloads)]
        assert (payloads, "".join(batch.marks for batch in joined)) == _picked(store, "child", start, stop, decoded, counted)
    store.close()


def test_the_scan_makes_its_kinds_table_again_after_a_rollback_took_it_and_never_writes_it_to_the_file(tmp_path) -> None:
    store = SQLiteStore(tmp_path / "log.db")
    root(store)
    store.append("main", _mixed(10))
    head = store.head("main")[0]
    expected = _picked(store, "main", 1, head, ["walked"], ["agent_replied"])
    store.conn.execute("BEGIN")
    first = list(store.scan_joined("main", 1, head, ["walked"], ["agent_replied"]))
    store.conn.execute("ROLLBACK")  # the temporary table made inside the transaction is gone with it
    again = list(store.scan_joined("main", 1, head, ["walked"], ["agent_replied"]))
    for joined in (first, again):
        assert ([e for b in joined for e in msgspec.json.decode(b.payloads)], "".join(b.marks for b in joined)) == expected
    store.close()
    import sqlite3
    conn = sqlite3.connect(tmp_path / "log.db")
    assert not [n for (n,) in conn.execute("SELECT name FROM sqlite_master") if "mark" in n]
    conn.close()


def test_after_a_rollback_two_pairs_of_kind_lists_never_share_a_marks_table(tmp_path) -> None:
    """The table of one pair of kind lists, lost with a rolled-back transaction, is made again under a name no other
    pair holds: each pair's scan still picks and marks by its own kinds."""
    store = SQLiteStore(tmp_path / "log.db")
    root(store)
    store.append("main", _mixed(10))
    head = store.head("main")[0]
    first, second = (["walked"], ["agent_replied"]), (["agent_replied"], ["walked"])

    def scan(pair: tuple[list[str], list[str]]) -> tuple[list, str]:
        joined = list(store.scan_joined("main", 1, head, *pair))
        return [e for b in joined for e in msgspec.json.decode(b.payloads)], "".join(b.marks for b in joined)

    store.conn.execute("BEGIN")
    scan(first)
    store.conn.execute("ROLLBACK")
    assert scan(first) == _picked(store, "main", 1, head, *first)
    assert scan(second) == _picked(store, "main", 1, head, *second)
    assert scan(first) == _picked(store, "main", 1, head, *first)
    store.close()

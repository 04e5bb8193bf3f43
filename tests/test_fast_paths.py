"""The shortcuts on the hot paths give exactly what the plain way gives.

Each test sets a fast path against the slow one it replaces: the canonical encoder's
``.0`` test against always normalising, the multi-row SQLite insert against one row at a
time, a fold's counted kinds (no payload) against decoding everything, the parsers'
memory against parsing again.
"""

from __future__ import annotations

import sqlite3

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.events import KINDS, AgentReplied, CalendarTime, ToolCalled, ToolResult, canonical
from campus.events.codec import _ENCODER, _NORMALISER
from campus.kernel.history import full_fold
from campus.kernel.store import EventStore, MemoryStore, SQLiteStore
from campus.scenarios.play import Run
from campus.subsystems.calendar import parse_day, parse_slot, parse_time
from tests.test_store_conformance import root, walks


def _always_normalised(value: object) -> bytes:
    """The canonical form the long way: decode, integral floats to integers, encode again."""
    return _ENCODER.encode(_NORMALISER.decode(_ENCODER.encode(value)))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12) | st.sampled_from(["1.0", "v2.0 beta", "x.0", "-0.0", "3e5", "10:00"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(args=st.dictionaries(st.text(max_size=8), JSON, max_size=5), text=st.text(max_size=40))
def test_the_dot_zero_test_gives_the_fully_normalised_encoding(args: dict, text: str) -> None:
    for event in (
        ToolCalled(call_id="call-1", task_id="t", tool="x.y", args=args),
        ToolResult(call_id="call-1", status="ok", message=text, data=args or None),
        AgentReplied(task_id="t", text=text),
    ):
        assert canonical(event) == _always_normalised(event)


@given(st.integers(-(2**53) + 1, 2**53 - 1))
def test_msgspec_writes_every_integral_float_in_range_with_dot_zero(number: int) -> None:
    assert b".0" in msgspec.json.encode(float(number))


def test_integral_floats_in_text_are_left_alone_and_numbers_are_not() -> None:
    event = ToolCalled(call_id="c", task_id="t", tool="x.y", args={"note": "version 2.0", "n": 2.0, "z": -0.0})
    assert canonical(event) == b'{"args":{"n":2,"note":"version 2.0","z":0},"call_id":"c","kind":"tool_called","positional":[],"task_id":"t","tool":"x.y"}'


@pytest.mark.parametrize("count", [1, 31, 32, 33, 64, 65, 100])
def test_multi_row_inserts_store_what_one_row_at_a_time_would(tmp_path, count: int) -> None:
    sqlite, memory = SQLiteStore(tmp_path / "log.db"), MemoryStore()
    for store in (sqlite, memory):
        root(store)
        store.append("main", walks(count))
        store.append("main", walks(3, start=count))
    assert sqlite.rows("main") == memory.rows("main")
    assert [r.seq for r in sqlite.rows("main")] == list(range(1, count + 4))
    assert sqlite.head("main") == memory.head("main")
    sqlite.close()


def test_a_failed_multi_row_insert_writes_nothing(tmp_path) -> None:
    store = SQLiteStore(tmp_path / "log.db")
    root(store)
    store.append("main", walks(5))
    store.conn.execute("CREATE TRIGGER refuse_38 BEFORE INSERT ON events WHEN NEW.seq = 38 "
                       "BEGIN SELECT RAISE(ABORT, 'refused'); END")
    head = store.head("main")
    with pytest.raises(sqlite3.IntegrityError):
        store.append("main", walks(40))  # rows 6-37 in one statement, then 38-45: the second fails
    assert [r.seq for r in store.rows("main")] == [1, 2, 3, 4, 5]
    assert store.head("main") == head
    store.close()


def test_the_file_is_read_without_a_memory_map(tmp_path) -> None:
    store = SQLiteStore(tmp_path / "log.db")
    assert store.conn.execute("PRAGMA mmap_size").fetchone()[0] == 0
    store.close()


def test_counted_kinds_come_without_their_payload(store: EventStore) -> None:
    root(store)
    store.append("main", [(0, AgentReplied(task_id="t", text="hello"), None), *walks(2, start=1)])
    plain = [pair for batch in store.scan("main", 1, 3, ["agent_replied", "walked"]) for pair in batch]
    counted = [pair for batch in store.scan("main", 1, 3, ["agent_replied", "walked"], counted=["agent_replied"]) for pair in batch]
    assert [kind for kind, _ in counted] == [kind for kind, _ in plain] == ["agent_replied", "walked", "walked"]
    assert counted[0][1] is None and plain[0][1] is not None and counted[1:] == plain[1:]


def test_a_fold_with_counted_kinds_matches_applying_every_event(oracle_full: Run) -> None:
    run = oracle_full
    projection = run.kernel.projection
    assert set(projection.counted_kinds) >= {"agent_replied", "tool_called", "time_announced"}
    head = run.store.head(run.branch.id)[0]
    for stop in (head // 3, head):
        rows = run.store.rows(run.branch.id, 1, stop)
        one_by_one = projection.initial()
        for row in rows:
            projection.apply(one_by_one, row.seq, row.t, msgspec.json.decode(row.payload, type=KINDS[row.kind]))
        folded = full_fold(run.kernel, run.store, run.branch.id, stop)
        assert projection.encode(folded) == projection.encode(one_by_one)


def test_remembered_parses_equal_fresh_ones() -> None:
    for text in ("Week 1-18, Mon, 14:00-16:50", "Week 3, Tuesday, 09:00-10:00", "Week 3, Funday, 09:00-10:00"):
        first, again = parse_time(text), parse_time.__wrapped__(text)
        assert first == again and parse_time(text) is first
    assert isinstance(parse_time("Week 1, Monday, 10:00-11:00"), CalendarTime)
    assert isinstance(parse_time("no time at all"), str)
    assert parse_day("Week 2, Sunday") == parse_day.__wrapped__("Week 2, Sunday") == 20
    assert parse_slot("09:15-10:00") == (555, 600) and parse_slot("10:00-09:00") is None

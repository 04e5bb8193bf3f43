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
from campus.kernel.store import JOINED_BATCH, EventStore, MemoryStore, SQLiteStore
from campus.scenarios.play import Run
from campus.subsystems.calendar import parse_day, parse_slot, parse_time
from tests.conftest import play
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


def test_a_joined_scan_gives_the_decoded_payloads_and_one_mark_per_event_through_the_lineage(store: EventStore) -> None:
    root(store)
    store.append("main", [(0, AgentReplied(task_id="t", text="hello"), None), *walks(3, start=1),
                          (9, ToolCalled(call_id="c", task_id="t", tool="x.y", args={}), None)])
    store.fork("main", 3, "child", agent="x")
    store.append("child", [(20, AgentReplied(task_id="t", text="again"), None), *walks(1, start=20)])
    joined = list(store.scan_joined("child", 1, 5, ["walked"], ["agent_replied", "tool_called"]))
    marks = "".join(batch.marks for batch in joined)
    walked = [event for batch in joined for event in msgspec.json.decode(batch.payloads)]
    rows = store.rows("child", 1, 5)
    assert marks == "a..a." and [r.kind for r in rows] == ["agent_replied", "walked", "walked", "agent_replied", "walked"]
    assert walked == [msgspec.json.decode(r.payload) for r in rows if r.kind == "walked"]
    assert [b.marks for b in store.scan_joined("main", 2, 1, ["walked"], [])] in ([], [""])


@pytest.mark.parametrize("agent", ["oracle", "stateless", "dawdler"])
def test_a_joined_fold_matches_applying_every_event(world, small_term, agent: str, tmp_path) -> None:
    """The fold from the store (joined batches, counted kinds by their marks, world changes routed to the
    domains that declare them) gives the state of applying every decoded event with every reducer."""
    run = play(SQLiteStore(tmp_path / "log.db"), world, small_term, agent)
    projection = run.kernel.projection
    assert set(projection.counted_kinds) >= {"agent_replied", "tool_called", "time_announced"}
    head = run.store.head(run.branch.id)[0]
    assert head > JOINED_BATCH, "the fold must cross batches"
    for stop in (head // 3, head):
        rows = run.store.rows(run.branch.id, 1, stop)
        one_by_one = projection.initial()
        for row in rows:
            projection.apply(one_by_one, row.seq, row.t, msgspec.json.decode(row.payload, type=KINDS[row.kind]))
        folded = full_fold(run.kernel, run.store, run.branch.id, stop)
        assert projection.encode(folded) == projection.encode(one_by_one)
    run.store.close()


def test_a_fold_of_the_default_term_matches_applying_every_event(oracle_full: Run) -> None:
    run = oracle_full
    projection = run.kernel.projection
    head = run.store.head(run.branch.id)[0]
    one_by_one = projection.initial()
    for row in run.store.rows(run.branch.id):
        projection.apply(one_by_one, row.seq, row.t, msgspec.json.decode(row.payload, type=KINDS[row.kind]))
    assert projection.encode(full_fold(run.kernel, run.store, run.branch.id, head)) == projection.encode(one_by_one)


def test_one_projection_folds_each_state_into_its_own_parts(oracle_full: Run) -> None:
    """``fold_range``'s plan is shared by every fold of a projection; each fold binds it to its own state's
    parts: folding a second state (from another start) leaves the first as it was, and both equal ``apply``."""
    run = oracle_full
    projection = run.kernel.projection
    head = run.store.head(run.branch.id)[0]
    cut = head // 2
    rows = run.store.rows(run.branch.id, 1, head)
    expected = {}
    one_by_one = projection.initial()
    for row in rows:
        projection.apply(one_by_one, row.seq, row.t, msgspec.json.decode(row.payload, type=KINDS[row.kind]))
        if row.seq in (cut, head):
            expected[row.seq] = projection.encode(one_by_one)
    first = projection.fold_range(projection.initial(), run.store, run.branch.id, 1, cut)
    second = projection.fold_range(projection.initial(), run.store, run.branch.id, 1, cut)
    projection.fold_range(second, run.store, run.branch.id, cut + 1, head)
    assert projection.encode(first) == expected[cut] != expected[head] == projection.encode(second)


def test_remembered_parses_equal_fresh_ones() -> None:
    for text in ("Week 1-18, Mon, 14:00-16:50", "Week 3, Tuesday, 09:00-10:00", "Week 3, Funday, 09:00-10:00"):
        first, again = parse_time(text), parse_time.__wrapped__(text)
        assert first == again and parse_time(text) is first
    assert isinstance(parse_time("Week 1, Monday, 10:00-11:00"), CalendarTime)
    assert isinstance(parse_time("no time at all"), str)
    assert parse_day("Week 2, Sunday") == parse_day.__wrapped__("Week 2, Sunday") == 20
    assert parse_slot("09:15-10:00") == (555, 600) and parse_slot("10:00-09:00") is None


def test_a_fold_decodes_a_kind_into_only_the_fields_its_reducers_read(oracle_full: Run) -> None:
    from campus.kernel.projection import Domain, Projection, reads

    projection = oracle_full.kernel.projection
    lean = projection._lean["task_released"]
    assert set(lean.__struct_fields__) == {"task_id", "withheld"} and lean.__struct_config__.tag == "task_released"
    assert projection._lean["world_changed"] is KINDS["world_changed"], "its reducers read the whole event"
    event = msgspec.json.decode(canonical(KINDS["task_released"](task_id="t1", scenario="s", observation="x" * 500, systems=["map"])), type=lean)
    assert (event.task_id, event.withheld) == ("t1", False)

    class Part(msgspec.Struct):
        seen: str = ""

    typo = Domain(name="typo", state_type=Part, initial=lambda world: Part(),
                  reducers={KINDS["task_released"]: reads("task")(lambda part, event: None)})
    with pytest.raises(ValueError, match="does not have: \\['task'\\]"):
        Projection([typo], world=None)

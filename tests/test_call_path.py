"""The tool-call path's fast paths (issue 18) against the slow paths they replace."""

from __future__ import annotations

import gc
import hashlib
from typing import Any

import msgspec
import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

import campus.kernel.runner as runner
from campus.events import KINDS, AgentReplied, ToolCalled, ToolResult, canonical, chain_hash
from campus.agents import make_agent
from campus.events.codec import canonical_many
from campus.kernel.agent import AgentUnavailable, AgentView, Reply
from campus.kernel.clock import Clock, UrgentTimeout
from campus.kernel.store import MemoryStore
from campus.kernel.tools import bind_arguments, bind_texts, text_rules
from campus.scenarios.play import new_run
from campus.subsystems import DOMAINS
from campus.world.index import WorldIndex
from tests.conftest import play
from tests.test_fast_paths import JSON

_TOOLS = [tool for domain in DOMAINS for tool in domain.tools]


def test_the_first_session_hides_the_heap_from_the_cyclic_collector(world: WorldIndex, small_term,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    gc.unfreeze()
    monkeypatch.setattr(runner, "_heap_settled", False)
    try:
        play(MemoryStore(), world, small_term, "noop")
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the imported modules and the world at least
        play(MemoryStore(), world, small_term, "noop")
        assert gc.get_freeze_count() == frozen  # only once per process
    finally:
        gc.unfreeze()


_CHOICES = sorted({choice for tool in _TOOLS for p in tool.params for choice in p.enum or ()})
_VALUES = st.text(max_size=12) | st.sampled_from(_CHOICES) | st.text(st.characters(max_codepoint=127), min_size=90, max_size=260) | st.integers() \
    | st.none() | st.booleans() | st.lists(st.text(max_size=3), max_size=2)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_binding_plain_texts_gives_what_full_binding_gives(data: st.DataObject) -> None:
    tool = data.draw(st.sampled_from(_TOOLS))
    names = [p.name for p in tool.params]
    keys = st.sampled_from(names) | st.sampled_from(["x", "seat", "Room"]) if names else st.just("x")
    args = data.draw(st.dictionaries(keys, _VALUES, max_size=len(names) + 1))
    fast = bind_texts(text_rules(tool), args)
    if fast is not None:
        assert fast == bind_arguments(tool, args)
        assert list(fast) == list(bind_arguments(tool, args))  # handlers see the same order


def test_plain_text_calls_take_the_one_pass_binding() -> None:
    tool = next(t for t in _TOOLS if t.name == "reservation.make_booking")
    args = {"location_id": "B001", "item_name": "Hall", "date": "Week 2, Monday", "time_slot": "10:00-11:00"}
    assert bind_texts(text_rules(tool), args) == args
    assert bind_texts(text_rules(tool), args | {"seat_id": "caf\u00e9"}) is None
    assert bind_texts(text_rules(tool), {"location_id": "B001"}) is None  # required ones missing: the full binding says which
    by = next(t for t in _TOOLS if t.name == "data_system.query_by_identifier")
    assert bind_texts(text_rules(by), {"identifier": "A1", "by": "id", "entity_type": "advisor"}) is not None
    assert bind_texts(text_rules(by), {"identifier": "A1", "by": "nickname", "entity_type": "advisor"}) is None


def test_the_clock_skips_only_when_nothing_is_due_until_the_end() -> None:
    clock = Clock(initial_time=100)
    assert clock.skip(5) and clock.now == 105  # nothing scheduled at all
    UrgentTimeout(clock, 10)  # due at 115
    assert clock.skip(9) and clock.now == 114
    assert not clock.skip(1) and clock.now == 114  # due at the very minute the skip would end: SimPy runs it first
    assert not clock.skip(30) and clock.now == 114
    clock.step()
    assert clock.now == 115 and clock.skip(30) and clock.now == 145


def test_the_clock_peeks_as_simpy_does_with_and_without_events() -> None:
    clock, plain = Clock(initial_time=100), simpy.Environment(initial_time=100)
    assert clock.peek() == plain.peek() == simpy.core.Infinity
    for env in (clock, plain):
        UrgentTimeout(env, 10)
        env.timeout(3)
    assert clock.peek() == plain.peek() == 103
    for env in (clock, plain):
        env.step()
    assert clock.peek() == plain.peek() == 110
    for env in (clock, plain):
        env.step()
    assert clock.peek() == plain.peek() == simpy.core.Infinity


def test_calendar_clock_labels_from_the_table_are_the_formatted_ones() -> None:
    from campus.subsystems.calendar import _clock

    assert [_clock(m) for m in range(0, 24 * 60 + 61)] == [f"{m // 60:02d}:{m % 60:02d}" for m in range(0, 24 * 60 + 61)]


def test_the_remembered_idle_times_are_the_computed_ones() -> None:
    from campus.subsystems.reservation import CLOSE, OPEN, _idle, _spans, _within, free_windows

    for earliest in range(OPEN - 60, CLOSE + 30, 45):
        for low, high in ((OPEN, CLOSE), (OPEN + 120, CLOSE - 60), (CLOSE - 30, CLOSE)):
            windows = _within(free_windows((), earliest), low, high)
            assert _idle(earliest, low, high) == (tuple(windows), tuple(_spans(windows)), ", ".join(_spans(windows)))


def _chain_hash_in_parts(prev: str, t: int, payload: bytes) -> str:
    digest = hashlib.sha256(prev.encode("ascii"))
    digest.update(b"|%d|" % t)
    digest.update(payload)
    return digest.hexdigest()


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.dictionaries(st.text(max_size=8), JSON, max_size=4), max_size=6), text=st.text(max_size=30))
def test_encodings_searched_together_are_each_ones_canonical_form(values: list[dict], text: str) -> None:
    events = [event for args in values for event in (
        ToolCalled(call_id="call-1", task_id="t", tool="x.y", args=args),
        ToolResult(call_id="call-1", status="ok", message=text, data=args or None),
        AgentReplied(task_id="t", text=text),
    )]
    assert canonical_many(events) == [canonical(event) for event in events]


@given(prev=st.text("0123456789abcdef", min_size=64, max_size=64), t=st.integers(-(2**40), 2**40),
       payload=st.binary(max_size=200))
def test_the_chain_hash_of_one_buffer_is_the_hash_of_its_parts(prev: str, t: int, payload: bytes) -> None:
    assert chain_hash(prev, t, payload) == _chain_hash_in_parts(prev, t, payload)


def test_a_bound_apply_gives_the_state_of_projection_apply(world: WorldIndex, small_term) -> None:
    run = play(MemoryStore(), world, small_term, "oracle")
    projection = run.kernel.projection
    plain, bound = projection.initial(), projection.initial()
    apply = projection.applier(bound)
    for row in run.store.rows(run.branch.id):
        event = msgspec.json.decode(row.payload, type=KINDS[row.kind])
        projection.apply(plain, row.seq, row.t, event)
        apply(row.seq, row.t, event)
    assert projection.encode(bound) == projection.encode(plain)


@given(st.text(max_size=40))
def test_ascii_text_is_safe_as_it_is(text: str) -> None:
    from campus.kernel.admit import safe_text

    expected = text if text.isascii() else text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if not text.isascii():
        try:
            text.encode("utf-8")
            expected = text
        except UnicodeEncodeError:
            pass
    assert safe_text(text) == expected


def test_rows_made_without_the_named_tuple_constructor_are_rows() -> None:
    from campus.events import Walked
    from campus.kernel.store import BranchInfo, Row

    store = MemoryStore()
    store.create_branch(BranchInfo(id="b", parent=None, fork_seq=0, genesis="0" * 64, agent="a"),
                        [(5, Walked(path=["B1", "B2"], depart=5, arrive=8), None)])
    store.append("b", [(9, Walked(path=["B2"], depart=9, arrive=9), '{"m":1}')])
    rows = store.rows("b")
    assert all(type(row) is Row for row in rows)
    assert [tuple(row) for row in rows] == [Row(*row) for row in rows]
    assert (rows[1].seq, rows[1].t, rows[1].kind, rows[1].meta) == (2, 9, "walked", '{"m":1}')


class _Flaky:
    """An agent that is unavailable at every third ask and interrupted at every fifth other one (before its inner
    agent sees the view)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.asks = inner, inner.name, 0

    def act(self, view: AgentView) -> Reply:
        self.asks += 1
        if self.asks % 3 == 0:
            raise AgentUnavailable("not now")
        if self.asks % 5 == 0:
            raise KeyboardInterrupt
        return self.inner.act(view)


def test_replies_asked_in_the_student_or_by_the_driver_make_the_same_log(world: WorldIndex, small_term) -> None:
    """The student asks for a reply itself when nothing else is due; stopping every few steps (max_steps) and
    an agent that is sometimes unavailable or interrupted send other asks through the driver and its SimPy event."""
    whole = play(MemoryStore(), world, small_term, "oracle")
    stepped = new_run(MemoryStore(), world, small_term, agent_name="oracle", seed=0)
    session = stepped.session(_Flaky(make_agent("oracle", small_term, world)))
    stops = 0
    while not session.finished:
        try:
            session.run(max_steps=2)
        except (AgentUnavailable, KeyboardInterrupt):
            stops += 1
    assert stops > 10
    assert stepped.store.head(stepped.branch.id) == whole.store.head(whole.branch.id)


def test_an_absent_meta_is_stored_as_null(tmp_path) -> None:
    from campus.events import Walked
    from campus.kernel.store import BranchInfo, SQLiteStore

    store = SQLiteStore(tmp_path / "log.db")
    store.create_branch(BranchInfo(id="b", parent=None, fork_seq=0, genesis="0" * 64, agent="a"))
    store.append("b", [(t, Walked(path=["B1"], depart=t, arrive=t), None if t % 2 else '{"m":1}') for t in range(40)])
    assert [row.meta for row in store.rows("b")] == [None if t % 2 else '{"m":1}' for t in range(40)]
    nulls = store.conn.execute("SELECT count(*) FROM events WHERE meta IS NULL").fetchone()[0]
    assert nulls == 20
    store.close()


def test_rows_without_meta_leave_the_column_null_and_read_as_the_memory_log(tmp_path) -> None:
    """A batch with no meta goes in through the six-column insert (grouped and single rows): the same rows as the
    in-memory log's, the absent meta stored as NULL; a batch with one meta goes in through the seven-column one."""
    from campus.events import Walked
    from campus.kernel.store import BranchInfo, SQLiteStore

    batches = [[(t, Walked(path=["B1", f"B{t}"], depart=t, arrive=t + 1), None) for t in range(start, start + size)]
               for start, size in ((0, 70), (70, 1), (71, 33))]
    batches.append([(200, Walked(path=["B2"], depart=200, arrive=200), None), (201, Walked(path=["B3"], depart=201, arrive=202), '{"m":2}')])
    stores = [SQLiteStore(tmp_path / "log.db"), MemoryStore()]
    for store in stores:
        store.create_branch(BranchInfo(id="b", parent=None, fork_seq=0, genesis="0" * 64, agent="a"))
        for batch in batches:
            store.append("b", batch)
    sqlite_rows, memory_rows = (store.rows("b") for store in stores)
    assert len(sqlite_rows) == 106 and sqlite_rows == memory_rows
    assert [row.meta for row in sqlite_rows].count(None) == 105
    assert stores[0].conn.execute("SELECT count(*) FROM events WHERE meta IS NULL").fetchone()[0] == 105
    stores[0].close()


def test_a_lazy_view_is_the_view_made_with_a_message_builder() -> None:
    from campus.kernel.agent import AgentView, Turn, lazy_view

    built: list[int] = []

    def build() -> tuple[Turn, ...]:
        built.append(1)
        return (Turn("user", "hello"),)

    fast = lazy_view("t1", 420, "prompt", (), build)
    assert built == []
    assert fast == AgentView(task_id="t1", now=420, prompt="prompt", tools=(), messages=build)
    assert fast.messages == (Turn("user", "hello"),) and fast.messages is fast.messages
    assert (fast.task_id, fast.now, fast.prompt, fast.tools) == ("t1", 420, "prompt", ()) and len(built) == 2
    assert fast != lazy_view("t1", 421, "prompt", (), build)

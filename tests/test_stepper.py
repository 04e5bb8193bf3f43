"""Driving a session by pushing replies: the log must equal the one an agent object produces."""

from __future__ import annotations

import pytest

from campus.agents.oracle import OracleAgent
from campus.events import AgentReplied, StructuredCall, ToolCalled, decode_events
from campus.kernel.store import EventStore
from campus.scenarios.play import new_run, open_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex


def test_pushed_replies_give_the_same_log_as_the_agent(store: EventStore, world: WorldIndex, small_term: Term) -> None:
    seed = small_term.seed  # the seat draw its library tasks were made on: the oracle solves every task
    new_run(store, world, small_term, agent_name="oracle", seed=seed, branch_id="pulled").session(
        OracleAgent(small_term, world)).run()
    oracle = OracleAgent(small_term, world)
    stepper = new_run(store, world, small_term, agent_name="oracle", seed=seed, branch_id="pushed").stepper()
    ended = []
    view = stepper.view()
    while view is not None:
        result = stepper.step(oracle.act(view))
        ended.extend(result.ended)
        view = result.view
    assert stepper.finished
    assert store.head("pushed") == store.head("pulled")
    assert [e.task_id for e in ended] == [t.id for t in small_term.tasks]
    assert all(e.outcome in ("success", "unscored") for e in ended)


def test_every_step_is_committed_so_a_new_stepper_continues(tmp_path, world: WorldIndex, small_term: Term) -> None:
    from campus.kernel.store import SQLiteStore

    path = tmp_path / "log.db"
    store = SQLiteStore(path)
    stepper = new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="r").stepper()
    oracle = OracleAgent(small_term, world)
    for _ in range(30):
        stepper.step(oracle.act(stepper.view()))
    waiting = stepper.view()
    head = store.head("r")
    store.close()  # the writer lets go of the run, as a process that ends does
    other = SQLiteStore(path)
    assert other.head("r") == head
    again = open_run(other, "r").stepper()
    assert again.view() == waiting
    other.close()


def test_a_finished_stepper_refuses_more_replies(store: EventStore, world: WorldIndex, small_term: Term) -> None:
    stepper = new_run(store, world, small_term, agent_name="noop", seed=0).stepper()
    while stepper.view() is not None:
        stepper.step("<action>Action: finish()</action>")
    with pytest.raises(RuntimeError, match="term is over"):
        stepper.step("<action>Action: finish()</action>")


def test_a_structured_call_and_bad_reply_types(store: EventStore, world: WorldIndex, small_term: Term) -> None:
    stepper = new_run(store, world, small_term, agent_name="x", seed=0).stepper()
    before = store.head(stepper.session.branch.id)
    with pytest.raises(TypeError):
        stepper.step(42)  # type: ignore[arg-type]
    assert store.head(stepper.session.branch.id) == before
    result = stepper.step(StructuredCall(name="calendar__view_schedule", arguments={"calendar_id": "self", "date": "Week 0, Monday"}))
    assert result.view is not None and not result.ended
    call = StructuredCall(name="calendar.view_schedule", arguments={"calendar_id": "self", "date": "Week 0, Monday"})
    assert result.view.messages[-2].call == call
    assert result.view.messages[-2].content == 'calendar.view_schedule({"calendar_id":"self","date":"Week 0, Monday"})'
    replied, called = result.events[0], result.events[1]
    assert isinstance(replied, AgentReplied) and replied.call == call
    assert isinstance(called, ToolCalled) and called.tool == "calendar.view_schedule"
    head = store.head(stepper.session.branch.id)[0]
    logged = decode_events([r.payload for r in store.rows(stepper.session.branch.id, head - len(result.events) + 1, head)])
    assert logged == list(result.events)
    assert "Week 0, Monday" in result.view.messages[-1].content

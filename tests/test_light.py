"""The LIGHT-style memory: documents per step, the projected scratchpad, the ablation switches on the
rendered prompt, and a model-backed agent using it end to end against the local test server."""

from __future__ import annotations

import pytest

from campus.agents.light import LightMemory, LightSwitches, Projection, steps_of
from campus.agents.memory import make_memory
from campus.events import (
    AgentReplied, Booked, CalendarEventAdded, CalendarTime, EmailSent, TaskEnded, TaskReleased, ToolCalled, ToolResult,
)
from campus.kernel.agent import AgentView, Reply, TaskMemory, Turn
from campus.kernel.store import MemoryStore
from campus.kernel.transcript import task_memories
from campus.lab.probing import probe_run
from campus.scenarios.play import Run, new_run, open_run
from campus.scenarios.probe_answers import render
from campus.scenarios.probes import probe_of
from campus.scenarios.task import Term
from campus.world.index import WorldIndex
from tests.chat_server import ChatServer, text
from tests.llm_support import llm_agent

pytest_plugins = ["tests.llm_fixtures"]  # the short term and the oracle's script

WEEK = 7 * 24 * 60


def booking(task_id: str, room: str, day: int, released: int) -> TaskMemory:
    """A task that booked ``room`` at library B021 and emailed about it."""
    events = (
        TaskReleased(task_id=task_id, scenario="library_study", observation="Book a room.", systems=["reservation"]),
        AgentReplied(task_id=task_id, text="<action>Action: reservation.book(...)</action>"),
        ToolCalled(call_id="call-1", task_id=task_id, tool="reservation.book", args={"location_id": "B021", "room": room}),
        Booked(booking_id=f"bk-{task_id}", task_id=task_id, location_id="B021", room_id=room, item_name="Study Hall",
               day=day, start=600, end=660),
        ToolResult(call_id="call-1", status="ok", message=f"Booked {room} in Summit Library (B021).", minutes=1),
        AgentReplied(task_id=task_id, text="<action>Action: email.send_email(...)</action>"),
        EmailSent(email_id=f"mail-{task_id}", to="club@lau.edu", subject=f"Room {room} booked", body="See you there."),
        ToolResult(call_id="call-2", status="ok", message="Email sent.", minutes=1),
        AgentReplied(task_id=task_id, text="<action>Action: finish()</action>"),
        TaskEnded(task_id=task_id, outcome="success", reason="finish", turns=3),
    )
    return TaskMemory(task_id=task_id, scenario="library_study", released=released, messages=(), events=events)


def seminar(task_id: str, released: int, week: int) -> TaskMemory:
    events = (
        TaskReleased(task_id=task_id, scenario="advisor", observation="Note the seminar.", systems=["calendar"]),
        AgentReplied(task_id=task_id, text="<action>Action: calendar.add_event(...)</action>"),
        CalendarEventAdded(calendar_id="self", event_id=f"evt-{task_id}", title=f"Seminar {task_id}", location="B012",
                           time=CalendarTime(first_week=week, last_week=week, weekday=1, start=840, end=900)),
        TaskEnded(task_id=task_id, outcome="success", reason="finish", turns=1),
    )
    return TaskMemory(task_id=task_id, scenario="advisor", released=released, messages=(), events=events)


def view(question: str, now: int = 3 * WEEK) -> AgentView:
    return AgentView(task_id="now", now=now, prompt="", messages=(Turn("user", question),), tools=())


def test_one_document_per_step_with_the_payloads_as_key_value_lines() -> None:
    docs = steps_of(booking("lib-1", "310", 20, 20 * 1440))
    assert len(docs) == 2  # the finish step produced nothing to keep
    first = docs[0].splitlines()
    assert first[0] == "task: lib-1 (library_study, Week 2, Sunday 00:00)"
    assert "event: booked" in first and "room_id: 310" in first and "day: 20" in first and "args.room: 310" in first
    assert not any(line.startswith(("call_id:", "task_id:")) for line in first)
    assert "subject: Room 310 booked" in docs[1]


def test_the_scratchpad_keeps_the_previous_value_and_the_open_commitments() -> None:
    pad = Projection()
    for past in (booking("lib-1", "310", 20, 20 * 1440), booking("lib-2", "East Wing", 30, 30 * 1440),
                 seminar("adv-1", 10, week=1), seminar("adv-2", 11, week=5)):
        pad.fold(past)
    value, previous = pad.latest[("library B021", "latest booking")]
    assert value.startswith("East Wing, Week 4") and previous is not None and previous.startswith("310, Week 2")
    assert pad.latest[("club@lau.edu", "last email subject")] == ("Room East Wing booked", "Room 310 booked")
    assert pad.commitments(now=3 * WEEK) == ["Week 5, Tuesday, 14:00-15:00: Seminar adv-2 at B012"]
    assert pad.dated[0] == "Week 2, Sunday: booked 310 at B021 for Week 2, Sunday 10:00-11:00"


def recalled(spec: str, budget: int = 4_000) -> str:
    memory = make_memory(spec, budget)
    for number in range(12):
        memory.remember(booking(f"lib-{number}", f"{300 + number}", 20 + number, (20 + number) * 1440))
    return memory.recall(view("Which room did you book at Summit Library B021? Room 305?"))


def test_each_ablation_switch_removes_its_part_of_the_prompt() -> None:
    whole = recalled("light")
    assert "### Retrieved steps" in whole and "### Your latest steps" in whole and "### Scratchpad" in whole
    assert whole.index("### Retrieved") < whole.index("### Your latest") < whole.index("### Scratchpad")
    for part, heading in (("retrieval", "### Retrieved steps"), ("working", "### Your latest steps"),
                          ("scratchpad", "### Scratchpad")):
        ablated = recalled(f"light:{part}=off")
        assert heading not in ablated and ablated != whole
    assert recalled("light:retrieval=off,working=off,scratchpad=off") == ""


def test_k_bounds_the_retrieved_steps() -> None:
    shown = {k: recalled(f"light:k={k},working=off,scratchpad=off", budget=100_000).count("task: ") for k in (5, 10, 15, 20)}
    assert shown == {5: 5, 10: 10, 15: 15, 20: 20}


def test_working_memory_is_newest_first_within_its_budget() -> None:
    shown = recalled("light:retrieval=off,scratchpad=off", budget=300)
    tasks = [line.split()[1] for line in shown.splitlines() if line.startswith("task: ")]
    assert tasks[:2] == ["lib-11", "lib-11"] and "lib-0" not in tasks and len(tasks) < 24


@pytest.mark.parametrize("spec, complaint", [("light:k=7", "k must be one of 5, 10, 15, 20"),
                                             ("light:filter=on", "cannot read 'filter=on'"),
                                             ("light:working=maybe", "cannot read 'working=maybe'")])
def test_bad_switches_are_refused_in_one_line(spec: str, complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint):
        make_memory(spec)
    assert LightSwitches.parse("light:k=5,retrieval=off") == LightSwitches(retrieval=False, top_k=5)


def test_the_prompt_a_model_is_shown_follows_the_switches(world: WorldIndex, short_term: Term, oracle_run: Run) -> None:
    """The memory section of the rendered request, for the same past, with each part switched off."""
    past = list(task_memories(oracle_run.store, oracle_run.branch.id, oracle_run.store.head(oracle_run.branch.id)[0] // 2))
    systems = {}
    with ChatServer() as server:
        for spec in ("light", "light:retrieval=off", "light:working=off", "light:scratchpad=off"):
            agent = llm_agent(server, memory=spec)
            for task in past:
                agent.remember(task)
            systems[spec] = agent.request(view("Which library did you book a seat in last?"))["messages"][0]["content"]
    assert "## What you remember" in systems["light"] and "### Scratchpad" in systems["light"]
    assert "### Retrieved steps" not in systems["light:retrieval=off"] and "### Retrieved steps" in systems["light"]
    assert "### Your latest steps" not in systems["light:working=off"]
    assert "### Scratchpad" not in systems["light:scratchpad=off"] and "Latest values:" in systems["light"]


@pytest.mark.slow
def test_a_model_with_light_memory_plays_the_term_and_rebuilds_the_same_prompts_after_a_resume(
        world: WorldIndex, short_term: Term, oracle_replies: list[str]) -> None:
    store = MemoryStore()
    with ChatServer([text(r) for r in oracle_replies]) as whole_server:
        agent = llm_agent(whole_server, memory="light:k=5")
        whole = new_run(store, world, short_term, agent_name=agent.name, seed=0, branch_id="whole")
        whole.session(agent).run()
    later = [r["messages"][0]["content"] for r in whole_server.requests[60:]]
    assert all("### Scratchpad" in system and "### Your latest steps" in system for system in later)

    stop = 97
    with ChatServer([text(r) for r in oracle_replies[:stop]]) as first:
        agent = llm_agent(first, memory="light:k=5")
        new_run(store, world, short_term, agent_name=agent.name, seed=0, branch_id="split").session(agent).run(max_steps=stop)
    with ChatServer([text(r) for r in oracle_replies[stop:]]) as second:
        open_run(store, "split").session(llm_agent(second, memory="light:k=5")).run()
    assert second.requests == whole_server.requests[stop:]  # memory is a function of the log
    # each server has its own address, so each run records another agent spec (bound in its chain): compare events
    assert [(r.t, r.payload) for r in store.rows("split")] == [(r.t, r.payload) for r in store.rows("whole")]


def test_a_model_with_light_memory_answers_probes_in_a_fork(world: WorldIndex, oracle_run: Run) -> None:
    """End to end: the model is asked each probe with its memory in the prompt, and its words are scored."""
    class Scripted:
        """Replies as a model would, with the right answer to every probe (read from the fork's term)."""

        def __init__(self, fork: Run, server: ChatServer) -> None:
            asked = fork.term.tasks[len(oracle_run.term.tasks):]  # the notes planted first, then the questions
            answers = [f"<action>Answer: {render(probe_of(task).answer)}</action>" if task.id.startswith("probe-")
                       else "<action>Action: finish()</action>" for task in asked]
            server.extend([text(a) for a in answers])
            self.agent = llm_agent(server, memory="light")
            self.name = self.agent.name

        def act(self, view: AgentView) -> Reply:
            return self.agent.act(view)

        def remember(self, past: TaskMemory) -> None:
            self.agent.remember(past)

    with ChatServer() as server:
        report = probe_run(oracle_run, lambda fork: Scripted(fork, server), "llm-light", per_ability=1)
    assert report.overall == 1.0
    asked = [r for r in server.requests if "A question about your own past" in r["messages"][-1]["content"]]
    assert len(asked) == sum(len(p.asked) for p in report.points)
    assert all("### Scratchpad" in r["messages"][0]["content"] for r in asked)

"""Memory modules of the model-backed agent: budgets, retrieval, and a notepad rebuilt from the log."""

from __future__ import annotations

import pytest

from campus.agents.memory import (
    HistoryMemory,
    RetrievalMemory,
    Scratchpad,
    estimate_tokens,
    make_memory,
)
from campus.kernel.agent import AgentView, TaskMemory, Turn
from campus.kernel.parse import Answer, Call, Finish, parse_reply
from campus.kernel.store import MemoryStore
from campus.scenarios.play import new_run, open_run
from campus.scenarios.task import Term
from tests.chat_server import ChatServer, text, tool_call
from tests.llm_support import llm_agent
from campus.world.index import WorldIndex

pytest_plugins = ["tests.llm_fixtures"]  # the short term and the oracle's script


def task(task_id: str, *turns: tuple[str, str], released: int = 600) -> TaskMemory:
    return TaskMemory(task_id=task_id, scenario="test", released=released,
                      messages=tuple(Turn(role, content) for role, content in turns))


def view(*user_texts: str) -> AgentView:
    return AgentView(task_id="now", now=0, prompt="", messages=tuple(Turn("user", t) for t in user_texts), tools=())


# ---------------------------------------------------------------- history


def test_history_shows_the_newest_whole_tasks_that_fit_the_budget() -> None:
    memory = HistoryMemory(budget=200)
    for number in range(6):
        memory.remember(task(f"t{number}", ("user", f"question {number} " + "x" * 200), ("assistant", f"reply {number}")))
    shown = memory.recall(view("anything"))
    blocks = shown.split("\n\n")[1:]
    assert [b.split()[2] for b in blocks] == ["t5", "t4"]  # newest first, and only whole tasks
    costs = [estimate_tokens(b) for b in blocks]
    assert sum(costs) <= 200 < sum(costs) + costs[-1]  # a third task (as long as these) would not fit
    assert "question 5" in shown and "reply 4" in shown and "t3" not in shown


def test_history_never_cuts_a_task_and_is_empty_when_nothing_fits() -> None:
    memory = HistoryMemory(budget=10)
    memory.remember(task("big", ("user", "y" * 400)))
    assert memory.recall(view("q")) == ""
    assert HistoryMemory().recall(view("q")) == ""


# ---------------------------------------------------------------- bm25


def test_bm25_finds_the_past_task_relevant_to_the_current_one() -> None:
    memory = RetrievalMemory(budget=2_000, top_k=2)
    memory.remember(task("club-1", ("user", "Join the chess club and email its president."),
                         ("assistant", "<action>Action: email.send_email(to=\"chess@campus.edu\")</action>"),
                         ("user", "Email sent.")))
    memory.remember(task("lib-2", ("user", "Find the book Marine Zoology Fundamentals and book a seat where it is kept."),
                         ("assistant", "<action>Action: data_system.search_books(title=\"Marine Zoology Fundamentals\")</action>"),
                         ("user", "Marine Zoology Fundamentals is in the Harbour Library, shelf Z3.")))
    memory.remember(task("walk-3", ("user", "Walk to the stadium avoiding stairs."), ("assistant", "finish()")))
    recalled = memory.recall(view("Current time: Week 5", "You need the zoology book again: which library keeps it?"))
    first = recalled.split("\n\n")[1]
    assert "lib-2" in first and "Harbour Library" in recalled
    assert "club-1" not in recalled and "walk-3" not in recalled


def test_bm25_recalls_nothing_without_a_past_or_a_matching_word() -> None:
    memory = RetrievalMemory()
    assert memory.recall(view("zoology")) == ""
    for number in range(3):
        memory.remember(task(f"t{number}", ("user", f"alpha beta {number}")))
    assert memory.recall(view("zoology")) == ""


# ---------------------------------------------------------------- scratchpad


def test_the_scratchpad_keeps_commitments_and_facts_and_forgets_on_request() -> None:
    pad = Scratchpad()
    pad.remember(task("a", ("user", "hi <note>Fact: not mine</note>"),
                      ("assistant", "<note>Commitment: seminar Week 2, Tuesday 14:00 in B012</note>\n<action>Action: finish()</action>")))
    pad.remember(task("b", ("assistant", "<NOTE>the chess club meets on Fridays</NOTE><note>Fact: advisor is Dr. Vale</note>"
                                         "<action>Answer: A</action>")))
    shown = pad.recall(view("q"))
    assert "Commitments:\n[1] seminar Week 2, Tuesday 14:00 in B012 (noted in a)" in shown
    assert "[2] the chess club meets on Fridays (noted in b)" in shown and "[3] advisor is Dr. Vale" in shown
    assert "not mine" not in shown  # only the agent's own replies write the notepad
    pad.remember(task("c", ("assistant", "<forget>1</forget><forget>9</forget><action>Action: finish()</action>")))
    assert "seminar" not in pad.recall(view("q")) and "Commitments" not in pad.recall(view("q"))
    assert Scratchpad().recall(view("q")) == "Your notepad is empty."


def test_the_scratchpad_shows_the_newest_notes_within_its_budget() -> None:
    pad = Scratchpad(budget=30)
    pad.remember(task("a", *[("assistant", f"<note>Fact: note number {n} is here</note>") for n in range(10)]))
    shown = pad.recall(view("q"))
    assert "note number 9" in shown and "note number 0" not in shown and "older entries are not shown" in shown


def test_a_reply_with_notes_still_reads_as_its_action() -> None:
    action = '<action>Action: calendar.add_event(calendar_id="self", event_title="Seminar", location="B012", time="Week 2, Tuesday, 14:00-15:00")</action>'
    plain = parse_reply(action)
    assert isinstance(plain, Call)
    for reply in (f"<note>Commitment: seminar</note>\n{action}",
                  f"{action}\n<note>Fact: Action: this is not a call()</note>",
                  f"<note>Answer: C is what I think\nAction: finish()</note>\n{action}<forget>2</forget>"):
        assert parse_reply(reply) == plain
    assert parse_reply("<note>Fact: x</note><action>Answer: D</action>") == Answer(value="D")
    assert parse_reply("<note>done</note>\n<action>Action: finish()</action>") == Finish()


def test_unknown_memory_names_the_choices() -> None:
    with pytest.raises(ValueError, match="none, history, bm25, scratchpad"):
        make_memory("vectors")


# ---------------------------------------------------------------- in a session


def noted(replies: list[str]) -> list[str]:
    """The oracle's replies with notes: a fact every 7th reply, a commitment every 11th, some forgotten."""
    out = []
    for number, reply in enumerate(replies):
        notes = ""
        if number % 7 == 0:
            notes += f"<note>Fact: reply {number} was {reply[:30]}</note>\n"
        if number % 11 == 0:
            notes += f"<note>Commitment: come back after reply {number}</note>\n"
        if number % 13 == 5:
            notes += f"<forget>{number // 5}</forget>\n"
        out.append(notes + reply)
    return out


@pytest.mark.slow
def test_the_scratchpad_is_rebuilt_identically_after_a_resume(world: WorldIndex, short_term: Term, oracle_replies: list[str]) -> None:
    replies = noted(oracle_replies)
    store = MemoryStore()
    with ChatServer([text(r) for r in replies]) as whole_server:
        agent = llm_agent(whole_server, memory="scratchpad")
        new_run(store, world, short_term, agent_name=agent.name, seed=0, branch_id="whole").session(agent).run()
    whole_pad = agent.memory.recall(view("q"))  # type: ignore[attr-defined]
    assert "Commitment:" not in whole_pad and "Commitments:" in whole_pad and "Facts:" in whole_pad

    stop = 137
    with ChatServer([text(r) for r in replies[:stop]]) as first:
        agent = llm_agent(first, memory="scratchpad")
        new_run(store, world, short_term, agent_name=agent.name, seed=0, branch_id="split").session(agent).run(max_steps=stop)
    with ChatServer([text(r) for r in replies[stop:]]) as second:
        resumed = llm_agent(second, memory="scratchpad")
        open_run(store, "split").session(resumed).run()
    assert resumed.memory.recall(view("q")) == whole_pad  # type: ignore[attr-defined]
    assert second.requests == whole_server.requests[stop:]  # the same prompts, notepad included, after the resume
    # each server has its own address, so each run records another agent spec (bound in its chain): compare events
    assert [(r.t, r.payload) for r in store.rows("split")] == [(r.t, r.payload) for r in store.rows("whole")]
    later = [r["messages"][0]["content"] for r in whole_server.requests[50:]]
    assert all("[2] come back after reply 0 (noted in regulations-001)" in system for system in later)
    assert not any("reply 0 was" in system for system in later)  # note 1, dropped by <forget>1</forget> at reply 5


def test_notes_written_beside_a_function_call_are_recorded(world: WorldIndex, short_term: Term) -> None:
    from tests.test_llm_agent import first_view

    args = {"calendar_id": "self", "event_title": "Seminar", "location": "B012", "time": "Week 2, Tuesday, 14:00-15:00"}
    answer = tool_call("calendar__add_event", args, content="<note>Commitment: seminar on Tuesday</note>")
    with ChatServer([answer, answer]) as server:
        with_pad = llm_agent(server, mode="tools", memory="scratchpad")
        without = llm_agent(server, mode="tools")
        reply = with_pad.act(first_view(world, short_term))
        plain = without.act(first_view(world, short_term))
    assert isinstance(reply, str) and reply.startswith("<note>Commitment: seminar on Tuesday</note>\n<action>")
    assert parse_reply(reply) == Call(name="calendar.add_event", args=args)
    assert not isinstance(plain, str)

"""The persistent-agent mode: an agent's own memory across tasks, rebuilt from the log on resume and fork."""

from __future__ import annotations

from campus.agents.oracle import OracleAgent
from campus.kernel.agent import AgentView, Reply, TaskMemory
from campus.kernel.store import EventStore
from campus.replays.fork import fork_run
from campus.scenarios.play import new_run, open_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex


class Remembering(OracleAgent):
    """The oracle, keeping every ended task and checking each one against the chat it last saw."""

    def __init__(self, term: Term, world: WorldIndex) -> None:
        super().__init__(term, world)
        self.memories: list[TaskMemory] = []
        self.last_view: AgentView | None = None

    def act(self, view: AgentView) -> Reply:
        self.last_view = view
        return super().act(view)

    def remember(self, past: TaskMemory) -> None:
        self.memories.append(past)


def _fresh(term: Term, world: WorldIndex) -> Remembering:
    return Remembering(term, world)


def test_every_ended_task_is_remembered_in_order_with_its_chat(store: EventStore, world: WorldIndex, small_term: Term) -> None:
    agent = _fresh(small_term, world)
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    run.session(agent).run()
    assert [m.task_id for m in agent.memories] == [t.id for t in small_term.tasks]
    last = agent.memories[-1]
    seen = agent.last_view
    assert seen is not None and seen.task_id == last.task_id
    assert last.messages[: len(seen.messages)] == seen.messages
    assert last.messages[-1].role == "assistant"
    assert all(m.messages[0].role == "user" and "Current time:" in m.messages[0].content for m in agent.memories)
    releases = [m.released for m in agent.memories]
    assert releases == sorted(releases)
    assert all(m.released >= t.release for m, t in zip(agent.memories, small_term.tasks))


def test_a_resumed_session_rebuilds_the_same_memory(store: EventStore, world: WorldIndex, small_term: Term) -> None:
    whole = _fresh(small_term, world)
    new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="whole").session(whole).run()

    first = _fresh(small_term, world)
    new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="split").session(first).run(max_steps=57)
    stopped_with = list(first.memories)
    second = _fresh(small_term, world)
    session = open_run(store, "split").session(second)
    assert second.memories == stopped_with and stopped_with
    session.run()
    assert second.memories == whole.memories
    assert store.head("split") == store.head("whole")


def test_a_fork_remembers_the_parents_past_up_to_the_fork(store: EventStore, world: WorldIndex, small_term: Term) -> None:
    parent_agent = _fresh(small_term, world)
    parent = new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="parent")
    parent.session(parent_agent).run()
    head = store.head("parent")[0]
    child, point = fork_run(open_run(store, "parent"), head // 2, agent_name="oracle", new_id="child")
    child_agent = _fresh(small_term, world)
    child.session(child_agent)
    ended_before_fork = len(child_agent.memories)
    assert 0 < ended_before_fork < len(parent_agent.memories)
    assert child_agent.memories == parent_agent.memories[:ended_before_fork]


def test_remembering_changes_nothing_in_the_log(store: EventStore, world: WorldIndex, small_term: Term) -> None:
    new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="plain").session(OracleAgent(small_term, world)).run()
    new_run(store, world, small_term, agent_name="oracle", seed=0, branch_id="remembering").session(_fresh(small_term, world)).run()
    assert store.head("plain") == store.head("remembering")

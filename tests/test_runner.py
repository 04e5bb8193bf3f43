"""The session loop on the clock: releases, turns, round limits, gating, untrusted agents."""

from __future__ import annotations

from typing import Any

import pytest

from campus.events import (
    ActionRejected,
    AgentReplied,
    DayStarted,
    InstructionRevealed,
    RunStarted,
    TaskEnded,
    TaskReleased,
    ToolResult,
    decode_events,
)
from campus.kernel.agent import AgentView
from campus.kernel.clock import DAY_START, day_of, parse_moment
from campus.kernel.runner import OPENS
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.scenarios.play import Run, RunSpec, new_run, start_run
from campus.scenarios.task import Task, Term
from tests.conftest import play


def log(run) -> list:
    return decode_events([r.payload for r in run.store.rows(run.branch.id)])


def rows(run):
    return run.store.rows(run.branch.id)


class Script:
    """Replies from a list, then finishes; records what it was shown."""

    name = "script"

    def __init__(self, replies: list[Any]) -> None:
        self.replies = list(replies)
        self.views: list[AgentView] = []

    def act(self, view: AgentView) -> Any:
        self.views.append(view)
        return self.replies.pop(0) if self.replies else "<action>Action: finish()</action>"


def one_task_term(world, **overrides) -> Term:
    task = Task(
        id="only", scenario="test", phase="test", release=parse_moment("Week 0, Monday 09:00"),
        instruction="Do the thing.", systems=("map", "geography", "calendar"), evaluator="parts",
        ground_truth={"parts": [{"check": "walk", "route": [world.home, sorted(world.graph.adj[world.home])[0]]}]},
    )
    return Term(name="one", seed=0, world_hash=world.hash, tasks=(Task(**{**_fields(task), **overrides}),))


def _fields(task: Task) -> dict:
    return {f: getattr(task, f) for f in task.__struct_fields__}


def test_every_task_ends_once_and_noop_fails_every_scored_one(term, noop_full) -> None:
    outcomes = [e for e in log(noop_full) if isinstance(e, TaskEnded)]
    assert [e.task_id for e in outcomes] == [t.id for t in term.tasks]
    assert all(e.outcome == ("unscored" if term.by_id[e.task_id].flags.delivery_only else "failure") for e in outcomes)


def test_tasks_are_released_at_their_time_never_earlier(world, term, oracle_full) -> None:
    run = oracle_full
    released = {}
    for row, event in zip(rows(run), log(run)):
        if isinstance(event, TaskReleased):
            released[event.task_id] = row.t
    for task in term.tasks:
        assert released[task.id] >= task.release
    assert sum(released[t.id] == t.release for t in term.tasks) > 60


def test_days_start_at_six_with_the_student_at_home(world, term, oracle_full) -> None:
    run = oracle_full
    starts = [(row.t, e) for row, e in zip(rows(run), log(run)) if isinstance(e, DayStarted)]
    assert [e.day for _, e in starts] == list(range(len(starts)))
    assert all(t == e.day * 1440 + DAY_START and e.home == world.home for t, e in starts)
    first_of_day = {}
    for row, event in zip(rows(run), log(run)):
        if isinstance(event, TaskReleased):
            first_of_day.setdefault(day_of(row.t), event.observation)
    assert all(obs.startswith("Current date: Week") and world.name_of(world.home) in obs for obs in first_of_day.values())


def test_observations_never_contain_ground_truth(world, term, noop_full) -> None:
    run = noop_full
    released = {e.task_id: e.observation for e in log(run) if isinstance(e, TaskReleased)}
    # a self-motivated task shows its text at once only to a student already at its place
    withheld = {e.task_id: e.withheld or not term.by_id[e.task_id].instruction
                for e in log(run) if isinstance(e, TaskReleased)}
    shown = "\n".join(released.values())
    for task in term.tasks:
        if not task.flags.delivery_only:
            for part in task.ground_truth.get("parts", ()):
                if "route" in part:
                    assert " -> ".join(part["route"]) not in shown
        if task.flags.self_motivated and withheld[task.id]:  # it says nothing but the date and time, and when it is due
            lines = released[task.id].splitlines()
            assert lines and all(line.startswith(("Current date:", "Current time:", OPENS)) for line in lines), lines


def _commits(world, term, path, **options) -> tuple[Run, list[int]]:
    store = SQLiteStore(path)
    run = new_run(store, world, term, agent_name="oracle", seed=0)
    commits: list[int] = []
    original = store.append

    def counting(branch_id, records, **options):
        commits.append(len(records))
        return original(branch_id, records, **options)

    store.append = counting  # type: ignore[method-assign]
    from campus.agents import make_agent

    run.session(make_agent("oracle", term, world), **options).run()
    return run, commits


def test_each_step_is_one_transaction_without_group_commit(world, term, tmp_path) -> None:
    run, commits = _commits(world, term, tmp_path / "steps.db", commit_delay=0)
    replies = sum(isinstance(e, AgentReplied) for e in log(run))
    assert len(commits) == replies + 1  # one per agent step, plus the final commit after the last step


def test_group_commit_batches_whole_steps_and_changes_nothing_in_the_log(world, term, tmp_path) -> None:
    single, _ = _commits(world, term, tmp_path / "single.db", commit_delay=0)
    grouped, commits = _commits(world, term, tmp_path / "grouped.db", commit_delay=float("inf"))
    assert single.store.head(single.branch.id) == grouped.store.head(grouped.branch.id)
    assert len(commits) < 5  # a fast agent: everything in a few transactions
    events = log(grouped)
    boundaries = [sum(commits[: i + 1]) for i in range(len(commits) - 1)]
    assert all(isinstance(events[b], AgentReplied) for b in boundaries)  # each commit ends right before a reply


def test_round_limit_ends_a_task(world) -> None:
    term = one_task_term(world, round_limit=3)
    run = new_run(MemoryStore(), world, term, agent_name="script", seed=0)
    agent = Script(["<action>Action: geography.get_current_location()</action>"] * 10)
    run.session(agent).run()
    ended = [e for e in log(run) if isinstance(e, TaskEnded)]
    assert len(ended) == 1 and ended[0].reason == "round limit" and ended[0].turns == 3


def test_a_view_read_late_shows_the_conversation_as_it_was_when_given(world) -> None:
    """The view's messages are built when first read: read at once, or after the run in any order, they are the
    same (a view never shows what happened after it was given)."""
    replies = ["<action>Action: geography.get_current_location()</action>", "hello",
               "<action>Action: calendar.view_schedule(calendar_id=\"self\", date=\"Week 0, Monday\")</action>"] * 3

    class Eager(Script):
        def act(self, view):
            self.read = [*getattr(self, "read", []), view.messages]
            return super().act(view)

    eager, late = Eager(replies), Script(replies)
    for agent in (eager, late):
        new_run(MemoryStore(), world, one_task_term(world, round_limit=12), agent_name="script", seed=0).session(agent).run()
    shown = [view.messages for view in reversed(late.views)][::-1]
    assert shown == eager.read and len(shown) == 10
    assert [len(m) for m in shown] == sorted(len(m) for m in shown) and len(shown[-1]) > len(shown[0])


def test_invalid_and_hostile_replies_are_observations(world) -> None:
    class Hostile(Script):
        def act(self, view):
            reply = super().act(view)
            if reply == "raise":
                raise RuntimeError("agent bug")
            return reply

    junk = ["", "hello", "<action>Action: calendar.add_event(calendar_id=self)</action>", "x" * 1_000_000,
            "<action>Action: nope.tool()</action>", 42, "raise", "<action>Action: geography.walk_to(path_info={'path': ['B001']})</action>"]
    run = new_run(MemoryStore(), world, one_task_term(world, round_limit=20), agent_name="hostile", seed=0)
    run.session(Hostile(junk)).run()
    events = log(run)
    rejected = [e for e in events if isinstance(e, ActionRejected)]
    errors = [e for e in events if isinstance(e, ToolResult) and e.status == "error"]
    assert len(rejected) + len(errors) == len(junk)
    assert all(e.message.isascii() and len(e.message) < 2000 for e in rejected + errors)
    from campus.events import Walked

    assert not any(isinstance(e, Walked) for e in events)
    assert sum(isinstance(e, AgentReplied) for e in events) == len(junk) + 1


def test_required_place_withholds_the_instruction_until_arrival(world) -> None:
    place = sorted(world.graph.adj[world.home])[0]
    term = one_task_term(world, required_place=place)
    agent = Script([f"<action>Action: geography.walk_to(path_info={{'path': ['{world.home}', '{place}']}})</action>"])
    run = new_run(MemoryStore(), world, term, agent_name="script", seed=0)
    run.session(agent).run()
    released = next(e for e in log(run) if isinstance(e, TaskReleased))
    assert released.withheld and "Do the thing." not in released.observation
    revealed = [e for e in log(run) if isinstance(e, InstructionRevealed)]
    assert len(revealed) == 1 and revealed[0].text == "Do the thing."
    assert "Do the thing." in agent.views[-1].messages[-1].content


def test_walking_takes_time_and_other_calls_a_minute(world) -> None:
    neighbour = sorted(world.graph.adj[world.home])[0]
    minutes = world.graph[world.home][neighbour]["minutes"]
    agent = Script([
        "<action>Action: geography.get_current_location()</action>",
        f"<action>Action: geography.walk_to(path_info={{'path': ['{world.home}', '{neighbour}']}})</action>",
        "<action>Action: map.get_building_details(building_id='B999')</action>",
    ])
    run = new_run(MemoryStore(), world, one_task_term(world), agent_name="script", seed=0)
    run.session(agent).run()
    times = [view.now for view in agent.views]
    assert times[1] - times[0] == 1 and times[2] - times[1] == minutes and times[3] == times[2]


def test_agent_sees_the_prompt_and_only_its_task(world, small_term) -> None:
    agent = Script([])
    run = new_run(MemoryStore(), world, small_term, agent_name="script", seed=0)
    run.session(agent).run()
    first = agent.views[0]
    systems = small_term.by_id[first.task_id].systems
    assert "<action>Answer: B</action>" in first.prompt and "calendar.add_event" in first.prompt
    assert "email.send_email" not in first.prompt and "email" not in systems
    walking = next(view for view in agent.views if "geography" in small_term.by_id[view.task_id].systems)
    assert "geography.walk_to" in walking.prompt
    assert all(len(view.messages) == 1 for view in agent.views)
    assert first.messages[0].role == "user" and first.messages[0].content.startswith("Current date")


def test_run_started_is_first_and_run_ended_last(world, small_term) -> None:
    run = play(MemoryStore(), world, small_term, "noop")
    events = log(run)
    assert isinstance(events[0], RunStarted) and events[0].term_hash == small_term.hash
    assert type(events[-1]).__name__ == "RunEnded"
    again = run.session(Script([])).run()
    assert again.seq == len(events), "a finished run plays nothing more"


@pytest.mark.parametrize("steps", [0, 1, 7, 40])
def test_stopping_and_resuming_gives_the_same_log(world, small_term, steps) -> None:
    from campus.agents import make_agent

    whole = play(MemoryStore(), world, small_term, "oracle")
    store = MemoryStore()
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    run.session(make_agent("oracle", small_term, world)).run(max_steps=steps)
    run.session(make_agent("oracle", small_term, world)).run()
    assert store.head(run.branch.id) == whole.store.head(whole.branch.id)


def test_structured_calls_are_accepted(world) -> None:
    from campus.events import StructuredCall, ToolCalled

    agent = Script([
        StructuredCall(name="geography__get_current_location", arguments={}, id="call_abc"),
        StructuredCall(name="map.find_building_id", arguments={"building_name": world.name_of(world.home)}),
        StructuredCall(name="answer", arguments={"answer": "B"}),
    ])
    run = new_run(MemoryStore(), world, one_task_term(world), agent_name="script", seed=0)
    run.session(agent).run()
    events = log(run)
    called = [e.tool for e in events if isinstance(e, ToolCalled)]
    assert called == ["geography.get_current_location", "map.find_building_id"]
    replied = [e for e in events if isinstance(e, AgentReplied)]
    assert replied[0].call.id == "call_abc" and replied[0].text is None
    from campus.events import Answered

    assert [e.answer for e in events if isinstance(e, Answered)] == ["B"]


def test_one_session_can_be_run_in_instalments(world, small_term) -> None:
    from campus.agents import make_agent

    whole = play(MemoryStore(), world, small_term, "oracle")
    run = new_run(MemoryStore(), world, small_term, agent_name="oracle", seed=0)
    session = run.session(make_agent("oracle", small_term, world))
    for _ in range(2000):
        session.run(max_steps=3)
        if session.finished:
            break
    assert session.finished
    assert run.store.head(run.branch.id) == whole.store.head(whole.branch.id)


def test_world_changes_fire_at_their_time_before_a_task_at_the_same_minute(world) -> None:
    from campus.events import AdvisorAvailability, Popularity, Span
    from campus.kernel.schedule import Trigger

    release = parse_moment("Week 0, Monday 09:00")
    change = AdvisorAvailability(advisor_id="T0001", day=0, slots=(Span(start=13 * 60, end=14 * 60),))
    base = one_task_term(world)
    term = Term(name="t", seed=0, world_hash=world.hash, tasks=base.tasks, world_changes=(
        Trigger(id="early", t=release - 30, change=Popularity(code="XX1", value=1)),
        Trigger(id="same-minute", t=release, change=change),
    ))
    agent = Script(['<action>Action: calendar.query_advisor_availability(advisor_id="T0001", date="Week 0, Monday")</action>'])
    run = new_run(MemoryStore(), world, term, agent_name="script", seed=0)
    run.session(agent).run()
    timeline = [(row.t, type(e).__name__, getattr(e, "change_id", "")) for row, e in zip(rows(run), log(run))]
    fired = [(t, cid) for t, kind, cid in timeline if kind == "WorldChanged"]
    assert fired == [(release - 30, "early"), (release, "same-minute")]
    names = [kind for _, kind, _ in timeline]
    assert names.index("WorldChanged", names.index("WorldChanged") + 1) < names.index("TaskReleased")
    assert "13:00-14:00" in agent.views[1].messages[-1].content


def test_the_runs_round_limit_applies_where_a_task_sets_none(world) -> None:
    looping = ["<action>Action: geography.get_current_location()</action>"] * 50
    for rounds, task_limit, expected in ((4, None, 4), (4, 2, 2), (30, None, 30)):
        run = new_run(MemoryStore(), world, one_task_term(world, round_limit=task_limit), agent_name="s", seed=0, round_limit=rounds)
        run.session(Script(list(looping))).run()
        ended = next(e for e in log(run) if isinstance(e, TaskEnded))
        assert (ended.reason, ended.turns) == ("round limit", expected)


class Lingerer:
    """Looks where it is, forever: every task ends at its round limit."""

    name = "lingerer"

    def act(self, view: AgentView) -> str:
        return "<action>Action: geography.get_current_location()</action>"


@pytest.mark.parametrize("rounds", [3, 99])
def test_a_tasks_own_round_limit_wins_and_rounds_applies_to_the_others(world, rounds: int) -> None:
    """What ``campus run --rounds N`` plays (``RunSpec.round_limit``): a task with its own limit keeps it,
    whether N is below or above it; every other task gets N."""
    run = start_run(MemoryStore(), RunSpec(seed=0, scale=0.02, agent="lingerer", round_limit=rounds))
    run.session(Lingerer()).run()
    limits = {task.id: task.round_limit for task in run.term.tasks}
    ended = [e for e in log(run) if isinstance(e, TaskEnded)]
    assert len(ended) == len(limits) and {e.reason for e in ended} == {"round limit"}
    assert {e.task_id: e.turns for e in ended} == {task_id: own or rounds for task_id, own in limits.items()}
    assert 0 < sum(own is not None for own in limits.values()) < len(limits)

"""A plan carried from turn to turn (``LivePlan``) answers as the plan replayed from the start (``replay_turns``)."""

from __future__ import annotations

from campus.agents.plans import FINISH, LivePlan, replay_turns, run_plan
from campus.world.index import WorldIndex


def test_a_live_plan_replies_as_the_replay_from_the_start(world: WorldIndex) -> None:
    first, second, third = sorted(world.buildings)[:3]
    steps = (f"goto:{third}", 'call:calendar.view_schedule(calendar_id="self", date="Week 1, Monday")', "answer:B")
    here = f"You are at Somewhere ({first})."
    elsewhere = f"You are at Elsewhere ({second})."
    views = [("t1", []), ("t1", [here]), ("t1", [here, "walked"]), ("t1", [here, "walked", "schedule"]),
             ("t1", [here, "walked", "schedule", "answered", "more"]),
             ("t1", [elsewhere]), ("t1", []), ("t2", [elsewhere]), ("t2", [elsewhere, "walked"])]
    live: tuple[str, LivePlan] | None = None
    replies = []
    for task_id, seen in views:
        if live is None or live[0] != task_id or not live[1].follows(seen):
            live = (task_id, LivePlan(run_plan(steps, world)))
        reply = live[1].after(seen)
        assert reply == replay_turns(run_plan(steps, world), seen)
        replies.append(reply)
    assert replies[4] == FINISH and replies[1] != replies[5]

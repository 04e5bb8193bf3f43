"""Campus Exploration: walk a senior student's route, now or at a time given days earlier.

Each route starts at a source building, passes zero to two waypoints in order and ends at
a target, optionally under walkway constraints (covered, step-free, quiet, lit, indoor).
The ground truth is the multi-leg route of the same penalised Dijkstra the agent can call
(``map.find_optimal_path``), one leg per stop.

Two variants, after the StuLife paper (appendix H.1):

- *immediate*: the instruction gives the route and says to walk it right away;
- *scheduled*: a delivery task gives the route and a later time (run, not scored), and an
  execution task at that time says nothing but the time — the student must have written the
  route down (its calendar) and act on it. Execution tasks are long-term-memory and
  self-motivated tasks.

A quarter of the scheduled challenges are changed by a later message (the target moves);
their execution is judged on the new route, and their ``stale`` plan walks the old one.

Conditions are drawn only where they change the route (``conditions_matter``): no least-cost walk without them is
one with them, so a student who ignores them fails. A challenge's new target is one where its conditions still
matter, and where none is the challenge is not changed (it once fell back to any target: ``shortcut`` passed such an
amended walk with conditions on published seed 9).

Success is judged on the path actually walked during the task: the buildings the student
walked through must end with one of the task's optimal routes — every walk from the source
through the waypoints in order to the target whose penalised cost under the constraints is
the least (``routes``; the task names stops and conditions, never the path, so an equally
cheap route is as good). Walking to the source first is fine; a dearer route is not.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Sequence
from typing import Any

import msgspec

from campus.kernel.clock import MINUTES_PER_DAY, clock_label, date_label
from campus.kernel.schedule import Trigger
from campus.scenarios.context import TermContext
from campus.scenarios.task import Flags, Task
from campus.scenarios.timeline import SLACK
from campus.world.index import WorldIndex

SCENARIO = "campus_exploration"
PHASE = "daily_campus"
SYSTEMS = ("map", "geography", "calendar")

CONSTRAINT_PHRASES: dict[tuple[str, str], str] = {
    ("rain_exposure", "Covered"): "it is pouring, so keep to covered walkways",
    ("accessibility", "Wheelchair"): "a friend in a wheelchair is coming along, so the route must be step-free",
    ("congestion", "Low"): "avoid the crowds and keep to quiet walkways",
    ("illumination", "Good"): "it will be dark, so stay on well-lit walkways",
    ("path_type", "Indoor"): "stay indoors wherever you can",
}


def generate(ctx: TermContext, *, immediate: int | None = None, scheduled: int | None = None) -> tuple[list[Task], list[Trigger]]:
    """Exploration tasks: ``immediate`` single tasks and ``scheduled`` delivery/execution pairs
    (by default the paper's 26 and 25, scaled); exploration changes nothing in the world.

    They are placed in the free hours of weeks 0-3 (each keeping its walk free); an execution comes one
    to seven days after its delivery. Ids follow release order (``exploration-001`` first).
    """
    world, rng = ctx.world, ctx.rng("exploration")
    immediate = ctx.count(26) if immediate is None else immediate
    scheduled = ctx.count(25) if scheduled is None else scheduled
    jobs = ["immediate"] * immediate + ["scheduled"] * scheduled
    rng.shuffle(jobs)
    drafts: list[tuple[int, str, str, dict[str, Any], int | None]] = []
    executions: dict[int, int] = {}
    for number, job in enumerate(jobs):
        stops, constraints = _pick_route(world, rng)
        busy = walking_minutes(world, stops, constraints)
        first_minutes = busy if job == "immediate" else DELIVERY_MINUTES
        when = ctx.timeline.place(rng, _candidates(0, LAST_DAY), first_minutes, f"exploration {number}")
        truth = _truth(world, stops, constraints)
        if job == "immediate":
            drafts.append((when, "immediate", _immediate_text(world, stops, constraints), truth, None))
            continue
        first = when // MINUTES_PER_DAY + 1
        at = ctx.timeline.place(rng, _candidates(first, first + 6), busy, f"exploration {number} (execution)")
        slot = f"{date_label(at // MINUTES_PER_DAY)}, {clock_label(at)}-{clock_label(at + 60)}"
        drafts.append((when, "delivery", _delivery_text(world, stops, constraints, at), truth | {"time": slot}, number))
        executions[number] = len(drafts)
        drafts.append((at, "execution", "", truth, number))
    stale = _amend(ctx, rng, drafts, executions)
    drafts.sort(key=lambda draft: draft[0])
    ids = [f"exploration-{rank:03d}" for rank in range(1, len(drafts) + 1)]
    partner: dict[tuple[str, int | None], str] = {
        (kind, pair): ids[i] for i, (_, kind, _, _, pair) in enumerate(drafts) if pair is not None
    }
    tasks = []
    for task_id, (when, kind, text, truth, pair) in zip(ids, drafts):
        if kind == "delivery":
            tasks.append(_delivery(task_id, when, text, truth, partner[("execution", pair)]))
        else:
            walk = _walk(world, task_id, when, text, truth, execution=kind == "execution")
            tasks.append(msgspec.structs.replace(walk, stale=stale[pair]) if pair in stale else walk)
    return tasks, []


def _amend(ctx: TermContext, rng: random.Random, drafts: list, executions: dict[int, int]) -> dict[int, tuple[str, ...]]:
    """Move the target of some scheduled challenges by a message between delivery and execution
    (placed after every challenge, in the time left); returns the stale plan of each changed pair."""
    world, stale = ctx.world, {}
    for number, index in executions.items():
        at, kind, text, old, _ = drafts[index]
        if rng.random() >= AMENDED_SHARE:
            continue
        delivered = next(d[0] for d in drafts if d[1] == "delivery" and d[4] == number)
        change = _amendment_slot(ctx, rng, delivered + DELIVERY_MINUTES, at, number)
        if change is None:
            continue
        targets = [b for b in sorted(world.buildings) if b not in old["stops"]]
        rng.shuffle(targets)
        target = next((b for b in targets if conditions_matter(world, [*old["stops"][:-1], b], old["constraints"])), None)
        if target is None:  # no new target keeps its conditions from being ignored: the walk stays as it is (the slot
            continue        # reserved for the message stays empty)
        truth = _truth(world, [*old["stops"][:-1], target], old["constraints"])
        drafts[index] = (at, kind, text, truth, number)
        slot = f"{date_label(at // MINUTES_PER_DAY)}, {clock_label(at)}-{clock_label(at + 60)}"
        drafts.append((change, "delivery", _amendment_text(world, old["stops"][-1], target, at), truth | {"time": slot}, number))
        stale[number] = _walk_plan(world, old["stops"], old["constraints"])
    return stale


AMENDED_SHARE = 0.25
"""Share of scheduled challenges whose target is changed by a later message (their stale plan walks the old route)."""


def _truth(world: WorldIndex, stops: list[str], constraints: dict[str, str]) -> dict[str, Any]:
    return {"route": world.route_through(stops, constraints).path, "routes": optimal_routes(world, stops, constraints),
            "stops": stops, "constraints": constraints}


MAX_ROUTES = 64
"""At most this many equally cheap routes are listed for one walk (the planned one always first)."""


def optimal_routes(world: WorldIndex, stops: Sequence[str], constraints: dict[str, str]) -> list[list[str]]:
    """Every least-cost walk through ``stops`` in order (each leg any of its least-cost paths), the planned one first."""
    legs = [world.best_paths(a, b, constraints) for a, b in zip(stops, stops[1:])]
    planned = world.route_through(stops, constraints).path
    routes = [planned]
    for combination in itertools.product(*legs):
        route = [*combination[0], *(node for leg in combination[1:] for node in leg[1:])]
        if route != planned:
            routes.append(route)
        if len(routes) >= MAX_ROUTES:
            break
    return routes


def _amendment_slot(ctx: TermContext, rng: random.Random, after: int, before: int, number: int) -> int | None:
    """A free half hour strictly between the delivery and the execution, or None."""
    candidates = ctx.timeline.free_among((t for t in range(after, before - AMENDMENT_MINUTES, 30)
                                          if 7 * 60 <= t % MINUTES_PER_DAY <= 21 * 60), AMENDMENT_MINUTES)
    if not candidates:
        return None
    return ctx.timeline.reserve(rng.choice(candidates), AMENDMENT_MINUTES, f"exploration {number} (change)")


AMENDMENT_MINUTES = 30


LAST_DAY = 27
"""Challenges are handed out in Weeks 0-3."""
DELIVERY_MINUTES = 20
"""Minutes a delivery (noting the challenge in the calendar, a few minutes for the oracle) keeps free."""
CALL_MINUTES = 10
"""Minutes a walk task keeps free for its tool calls, beyond the walking."""
HOURS = tuple(7.5 + h / 2 for h in range(27))


def walking_minutes(world: WorldIndex, stops: list[str], constraints: dict[str, str]) -> int:
    """What a walk task keeps free: the oracle reaching the first stop from the farthest building, the route and
    the calls, and ``SLACK``."""
    reach = max(world.route(stops[0], building).minutes for building in world.buildings)
    return reach + world.route_through(stops, constraints).minutes + CALL_MINUTES + SLACK


def _candidates(first_day: int, last_day: int) -> list[int]:
    return [day * MINUTES_PER_DAY + round(hour * 60) for day in range(first_day, last_day + 1) for hour in HOURS]


ROUTE_DRAWS = 30
"""Routes drawn for a walk with conditions before it goes without them (``_pick_route``)."""


def _pick_route(world: WorldIndex, rng: random.Random) -> tuple[list[str], dict[str, str]]:
    """Stops (a source, up to two waypoints, a target) and up to two conditions, drawn until the conditions change the
    route (``conditions_matter``). Conditions are soft (an unmet one adds half its walkway's minutes), so drawn at
    random they seldom did: the plain shortest route was an accepted answer for 101 of the 112 walks with conditions
    of generated seeds 0-3, and a student who ignored every condition passed 127 of 153 walks of seeds 0-2 where one
    who kept them passed 135."""
    ids = sorted(world.buildings)
    waypoints = rng.choice((0, 1, 1, 2, 2))
    wanted = rng.choice((0, 0, 1, 1, 2))
    for _ in range(ROUTE_DRAWS):
        drawn = rng.sample(ids, 2 + waypoints)
        stops = [drawn[0], *drawn[2:], drawn[1]]
        constraints = dict(sorted(rng.sample(sorted(CONSTRAINT_PHRASES), wanted)))
        if conditions_matter(world, stops, constraints):
            return stops, constraints
    return stops, {}


def conditions_matter(world: WorldIndex, stops: Sequence[str], constraints: dict[str, str]) -> bool:
    """Whether no least-cost walk through ``stops`` without conditions is one under ``constraints`` (true when there
    are none): a student who ignores them must fail."""
    if not constraints:
        return True
    plain = {tuple(route) for route in optimal_routes(world, stops, {})}
    return not plain & {tuple(route) for route in optimal_routes(world, stops, constraints)}


def _walk(world: WorldIndex, task_id: str, release: int, text: str, truth: dict[str, Any], *, execution: bool) -> Task:
    return Task(
        id=task_id, scenario=SCENARIO, phase=PHASE, release=release, instruction=text, systems=SYSTEMS,
        evaluator="parts",
        ground_truth={"parts": [{"check": "walk", "route": truth["route"], "routes": truth["routes"]}], "stops": truth["stops"]},
        flags=Flags(long_term=execution, self_motivated=execution, commitment=execution),
        solution=_walk_plan(world, truth["stops"], truth["constraints"]),
    )


def _walk_plan(world: WorldIndex, stops: list[str], constraints: dict[str, str]) -> tuple[str, ...]:
    plan = [f"goto:{stops[0]}"]
    for a, b in zip(stops, stops[1:]):
        plan.append(
            f'call:map.find_optimal_path(source_building_id="{a}", target_building_id="{b}", constraints={constraints!r})'
        )
        plan.append("walk:" + ",".join(world.route(a, b, constraints).path))
    return tuple(plan)


def _delivery(task_id: str, release: int, text: str, note: dict[str, Any], executed_by: str) -> Task:
    event = (
        f'calendar.add_event(calendar_id="self", event_title="Campus challenge", location={json.dumps(note["stops"][0])}, '
        f'time={json.dumps(note["time"])}, description={json.dumps(text)})'
    )
    return Task(
        id=task_id, scenario=SCENARIO, phase=PHASE, release=release, instruction=text, systems=SYSTEMS,
        evaluator="parts", ground_truth={"parts": []}, flags=Flags(delivery_only=True),
        solution=(f"call:{event}",), follow_up=(executed_by,),
    )


def _route_sentence(world: WorldIndex, stops: Sequence[str], constraints: dict[str, str]) -> str:
    source, *waypoints, target = stops
    sentence = f"start at {world.name_of(source)} and walk to {world.name_of(target)}"
    if len(waypoints) == 1:
        sentence += f", passing {world.name_of(waypoints[0])} on the way"
    elif waypoints:
        sentence += f", passing {world.name_of(waypoints[0])} and then {world.name_of(waypoints[1])}, in that order"
    phrases = [CONSTRAINT_PHRASES[item] for item in constraints.items()]
    if phrases:
        sentence += ". Also, " + " and ".join(phrases)
    return sentence


def _immediate_text(world: WorldIndex, stops: Sequence[str], constraints: dict[str, str]) -> str:
    return (
        "Hey! A senior student here with a campus challenge, to do right now: "
        f"{_route_sentence(world, stops, constraints)}. "
        "If you are not at the start yet, get there first. Plan every leg with the map, then walk it. Good luck!"
    )


def _amendment_text(world: WorldIndex, old: str, new: str, at: int) -> str:
    return (
        f"Quick change to the campus challenge for {date_label(at // MINUTES_PER_DAY)} at {clock_label(at)}: "
        f"do not finish at {world.name_of(old)}; finish at {world.name_of(new)} instead. Start, waypoints and "
        "conditions stay as they were. Update your notes."
    )


def _delivery_text(world: WorldIndex, stops: Sequence[str], constraints: dict[str, str], at: int) -> str:
    return (
        f"Hey! A senior student here with a campus challenge for later: on {date_label(at // MINUTES_PER_DAY)} "
        f"at {clock_label(at)}, {_route_sentence(world, stops, constraints)}. "
        "Plan every leg with the map when the time comes. Nobody will remind you, so note it down now."
    )

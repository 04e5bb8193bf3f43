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

Success is judged on the path actually walked during the task: the buildings the student
walked through must end with exactly the expected route. Walking to the source first is
fine; a different route between the stops is not.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from events import Event, Walked
from kernel.clock import MINUTES_PER_DAY, clock_label, date_label
from scenarios.rng import stream
from scenarios.task import Flags, Task, evaluator
from world.index import WorldIndex

SCENARIO = "campus_exploration"
PHASE = "daily_campus"
SYSTEMS = ("map", "geography", "calendar")
SLOT_HOURS = (9, 11, 14, 16, 19)

CONSTRAINT_PHRASES: dict[tuple[str, str], str] = {
    ("rain_exposure", "Covered"): "it is pouring, so keep to covered walkways",
    ("accessibility", "Wheelchair"): "a friend in a wheelchair is coming along, so the route must be step-free",
    ("congestion", "Low"): "avoid the crowds and keep to quiet walkways",
    ("illumination", "Good"): "it will be dark, so stay on well-lit walkways",
    ("path_type", "Indoor"): "stay indoors wherever you can",
}


def generate(world: WorldIndex, seed: int, *, immediate: int = 26, scheduled: int = 25, first_day: int = 0) -> list[Task]:
    """Exploration tasks in release order: ``immediate`` single tasks and ``scheduled`` pairs.

    Ids follow release order (``exploration-001`` is the first task released); a delivery
    task and its execution task name each other in their ground truth.
    """
    rng = stream(seed, "exploration")
    jobs = ["immediate"] * immediate + ["scheduled"] * scheduled
    rng.shuffle(jobs)
    taken: set[int] = set()
    drafts: list[tuple[int, str, str, dict[str, Any], int | None]] = []
    for number, job in enumerate(jobs):
        slot = _first_free(taken, 0)
        stops, constraints = _pick_route(world, rng)
        route = world.route_through(stops, constraints).path
        truth = {"route": route, "stops": stops, "constraints": constraints}
        when = _slot_time(slot, first_day)
        if job == "immediate":
            drafts.append((when, "immediate", _immediate_text(world, stops, constraints), truth, None))
            continue
        at = _slot_time(_first_free(taken, slot + rng.randint(1, 7)), first_day)
        note = truth | {"time": f"{date_label(at // MINUTES_PER_DAY)}, {clock_label(at)}-{clock_label(at + 60)}"}
        drafts.append((when, "delivery", _delivery_text(world, stops, constraints, at), note, number))
        drafts.append((at, "execution", "", truth, number))
    drafts.sort(key=lambda draft: draft[0])
    ids = [f"exploration-{rank:03d}" for rank in range(1, len(drafts) + 1)]
    partner = {(kind, pair): ids[i] for i, (_, kind, _, _, pair) in enumerate(drafts) if pair is not None}
    tasks = []
    for task_id, (when, kind, text, truth, pair) in zip(ids, drafts):
        if kind == "delivery":
            truth = truth | {"executed_by": partner[("execution", pair)]}
        elif kind == "execution":
            truth = truth | {"delivered_by": partner[("delivery", pair)]}
        tasks.append(_task(task_id, when, text, truth, delivery=kind == "delivery", memory=kind == "execution"))
    return tasks


def _first_free(taken: set[int], start: int) -> int:
    slot = start
    while slot in taken:
        slot += 1
    taken.add(slot)
    return slot


def _slot_time(slot: int, first_day: int) -> int:
    day, index = divmod(slot, len(SLOT_HOURS))
    return (first_day + day) * MINUTES_PER_DAY + SLOT_HOURS[index] * 60


def _pick_route(world: WorldIndex, rng: random.Random) -> tuple[list[str], dict[str, str]]:
    ids = sorted(world.buildings)
    waypoints = rng.choice((0, 1, 1, 2, 2))
    stops = rng.sample(ids, 2 + waypoints)
    stops = [stops[0], *stops[2:], stops[1]]
    wanted = rng.choice((0, 0, 1, 1, 2))
    chosen = rng.sample(sorted(CONSTRAINT_PHRASES), wanted)
    constraints = dict(sorted(chosen))
    return stops, constraints


def _task(task_id: str, release: int, text: str, truth: dict[str, Any], *, delivery: bool = False, memory: bool = False) -> Task:
    return Task(
        id=task_id,
        scenario=SCENARIO,
        phase=PHASE,
        release=release,
        instruction=text,
        systems=SYSTEMS,
        evaluator="walk_route",
        ground_truth=truth,
        flags=Flags(delivery_only=delivery, long_term=memory, self_motivated=memory),
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


def _delivery_text(world: WorldIndex, stops: Sequence[str], constraints: dict[str, str], at: int) -> str:
    return (
        f"Hey! A senior student here with a campus challenge for later: on {date_label(at // MINUTES_PER_DAY)} "
        f"at {clock_label(at)}, {_route_sentence(world, stops, constraints)}. "
        "Plan every leg with the map when the time comes. Nobody will remind you, so note it down now."
    )


@evaluator("walk_route")
def walked_route(task: Task, state: Any, events: Sequence[Event]) -> tuple[bool, str]:
    """Success when the buildings walked during the task end with exactly the expected route."""
    expected: list[str] = task.ground_truth["route"]
    trail: list[str] = []
    for event in events:
        if isinstance(event, Walked):
            trail.extend(event.path if not trail else event.path[1:])
    if not trail:
        return False, "did not walk"
    if trail[-len(expected):] == expected:
        return True, f"walked the route ({len(expected) - 1} walkways)"
    return False, f"walked {' -> '.join(trail[-12:])}; expected {' -> '.join(expected)}"

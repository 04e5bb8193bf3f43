"""Controls that read the term like the oracle: checks on the generators, not controls of the metrics.

- **stale** follows each task's ``stale`` plan where there is one (a student who missed the
  latest change: popularity news, a moved seat or slot, a revised rule; on a disruption task,
  the plan stated in the instruction, made before the trigger) and the oracle's plan
  elsewhere; every task with a stale plan must fail.
- **abstainer** reports every disruption task infeasible (naming the library when the goal
  could still be met) and is the oracle elsewhere: it must fail every solvable disruption task
  and pass every impossible one.
- **hedger** never looks: on a disruption task it carries out the plan in the instruction with each booking moved to
  the other end of the hour's window (a plan for the evening's first hour books its last, and the reverse), and is
  the oracle elsewhere. It must fail every disruption task: a change that left one end of the evening open (a room
  opening later, or closing early) would let a student who never looks pass it.
- **hasty** never looks either: it reports every disruption task infeasible the moment it is shown, naming what
  blocks it where the task's text names that (the planned room, seat or walkway), and is the oracle elsewhere. It
  must fail every disruption task: a judge that took the right names for a diagnosis would let it pass most
  impossible ones.
- **smearer** missed every "the time moved" message of the clubs and advisors, as ``stale`` did, but hedges: each
  booking of the plan it kept is made at every other start of the day the room allows first (same room, same length),
  and each club-calendar entry at every half hour too, comparing nothing. It must fail every club and advisor task
  with a stale plan: a judge that took any booking or entry among many would let it pass half of them.
- **shortcut** walks every exploration leg by the plain shortest route, ignoring the walk's conditions (covered,
  step-free, quiet, lit, indoors), and is the oracle elsewhere. It must fail every walk with conditions and pass every
  other: conditions that left the plain route an answer would let a student who never reads them pass.
- **optimist** never abstains: on an impossible disruption task it carries out the plan in the
  instruction as if the goal could be met, and is the oracle elsewhere: it must fail every
  impossible task and pass every solvable one.

The controls of the metrics, which see only what any agent sees, are in ``agents/controls.py``.
"""

from __future__ import annotations

import json
import re

from campus.kernel.agent import AgentView, Reply
from campus.kernel.clock import clock_label
from campus.scenarios.advisors import SCENARIO as ADVISORS
from campus.scenarios.clubs import SCENARIO as CLUBS
from campus.scenarios.disruptions import SCENARIO as DISRUPTIONS, spelled
from campus.scenarios.exploration import SCENARIO as EXPLORATION
from campus.scenarios.task import Task, Term
from campus.world.index import WorldIndex

from campus.agents.plans import replay_plan, run_plan


class _Scripted:
    """A control that carries out a plan of the term's for each task (``plan``)."""

    name: str

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.term = term
        self.world = world

    def act(self, view: AgentView) -> Reply:
        return replay_plan(run_plan(self.plan(self.term.by_id[view.task_id]), self.world), view)

    def plan(self, task: Task) -> tuple[str, ...]:
        raise NotImplementedError


class StaleAgent(_Scripted):
    name = "stale"

    def plan(self, task: Task) -> tuple[str, ...]:
        return task.stale if task.stale is not None else task.solution


def _impossible(task: Task) -> bool:
    return task.scenario == DISRUPTIONS and not task.ground_truth["solvable"]


class AbstainerAgent(_Scripted):
    name = "abstainer"

    def plan(self, task: Task) -> tuple[str, ...]:
        if task.scenario == DISRUPTIONS and task.ground_truth["solvable"]:
            library = task.ground_truth["libraries"][0]
            return (task.solution[0], f'call:task.report_infeasible(reason="the plan no longer works", blocked_by=["{library}"])')
        return task.solution


class OptimistAgent(_Scripted):
    name = "optimist"

    def plan(self, task: Task) -> tuple[str, ...]:
        return task.stale if _impossible(task) and task.stale is not None else task.solution


class HedgerAgent(_Scripted):
    name = "hedger"

    def plan(self, task: Task) -> tuple[str, ...]:
        return hedged(task) if task.scenario == DISRUPTIONS and task.stale is not None else task.solution


class HastyAgent(_Scripted):
    name = "hasty"

    def plan(self, task: Task) -> tuple[str, ...]:
        return hasty(task) if task.scenario == DISRUPTIONS else task.solution


def hasty(task: Task) -> tuple[str, ...]:
    """A report of infeasibility naming every entity that blocks the task and that its text names, with no look."""
    text = spelled(task.instruction)
    named = sorted(name for name in task.ground_truth["blockers"] if name in text)
    return (f'call:task.report_infeasible(reason="the plan no longer works", blocked_by={json.dumps(named)})',)


class SmearerAgent(_Scripted):
    name = "smearer"

    def plan(self, task: Task) -> tuple[str, ...]:
        if task.stale is None or task.scenario not in (CLUBS, ADVISORS):
            return task.solution
        return tuple(call for step in task.stale for call in smeared(step))


DAY_FROM, DAY_TO = 8 * 60, 22 * 60
_CALENDAR_TIME = re.compile(r'time="(Week \d+, \w+), (\d\d):(\d\d)-(\d\d):(\d\d)"')


def smeared(step: str) -> list[str]:
    """A club or advisor booking at every start of the day from ``DAY_FROM`` that keeps its length and misses its own
    slot, and then at its own; a club-calendar entry at every half hour, and then at its own time; any other step as
    it is."""
    booking, entry = _SLOT.search(step), _CALENDAR_TIME.search(step)
    if "make_booking" in step and booking is not None:
        start, end = int(booking[1]) * 60 + int(booking[2]), int(booking[3]) * 60 + int(booking[4])
        length = end - start
        others = [s for s in range(start % length, DAY_TO - length + 1, length)
                  if s >= DAY_FROM and (s + length <= start or s >= end)]
        return [_SLOT.sub(f'time_slot="{clock_label(s)}-{clock_label(s + length)}"', step) for s in others] + [step]
    if "calendar.add_event" in step and 'calendar_id="club_' in step and entry is not None:
        start, end = int(entry[2]) * 60 + int(entry[3]), int(entry[4]) * 60 + int(entry[5])
        length = end - start
        times = [s for s in range(9 * 60, 20 * 60 - length + 1, 30) if s != start]
        return [_CALENDAR_TIME.sub(f'time="{entry[1]}, {clock_label(s)}-{clock_label(s + length)}"', step)
                for s in times] + [step]
    return [step]


class ShortcutAgent(_Scripted):
    name = "shortcut"

    def plan(self, task: Task) -> tuple[str, ...]:
        if task.scenario != EXPLORATION:
            return task.solution
        return tuple(self._plain(step) if step.startswith("walk:") else step for step in task.solution)

    def _plain(self, step: str) -> str:
        path = step[len("walk:"):].split(",")
        return "walk:" + ",".join(self.world.route(path[0], path[-1], {}).path)


def conditioned(task: Task) -> bool:
    """Whether an exploration walk carries conditions (its plan asks the map for a route under some)."""
    return any("find_optimal_path" in step and "constraints={}" not in step for step in task.solution)


_SLOT = re.compile(r'time_slot="(\d\d):(\d\d)-(\d\d):(\d\d)"')


def hedged(task: Task) -> tuple[str, ...]:
    """The plan in a disruption task's instruction, each booking moved to the other end of the window it is in (the
    windows the instruction states)."""
    windows = task.ground_truth["windows"]

    def moved(found: re.Match[str]) -> str:
        start, end = int(found[1]) * 60 + int(found[2]), int(found[3]) * 60 + int(found[4])
        low, high = next((lo, hi) for lo, hi in windows if lo <= start < hi)
        length = end - start
        new = high - length if start == low else low
        return f'time_slot="{clock_label(new)}-{clock_label(new + length)}"'

    return tuple(_SLOT.sub(moved, step) if "make_booking" in step else step for step in task.stale or ())

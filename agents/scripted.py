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
from campus.scenarios.disruptions import SCENARIO as DISRUPTIONS, spelled
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

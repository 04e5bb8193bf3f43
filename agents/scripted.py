"""Scripted controls: they share the oracle's understanding of each task and differ in memory.

They exist to check that the metrics measure what they claim (noop < stateless < diligent <
oracle on PIS and StuGPA), so each differs from the oracle in one documented way:

- **stateless** does what an instruction in front of it says (the task's plan) and nothing
  else: it never looks at its calendar, so a task that shows only the time, or withholds its
  instruction until the student is somewhere, finds it doing nothing. A question that needs
  something taught before this task gets a guess (``A``).
- **diligent** does the same, and when a task shows only the time it reads today's calendar:
  if an entry is due (starting within the hour, or under way) it goes to the entry's
  building and, once the task's instruction is in front of it, carries it out. What it knows
  later is exactly what it wrote down earlier.
- **stale** follows each task's ``stale`` plan where there is one (a student who missed the
  latest change) and the oracle's plan elsewhere; every task with a stale plan must fail.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kernel.agent import AgentView, Reply
from kernel.clock import MINUTES_PER_DAY, date_label, parse_moment
from scenarios.task import Task, Term
from world.index import WorldIndex

from agents.plans import FINISH, Plan, action, replay_plan, run_plan

GUESS = "A"
DUE_BEFORE = 60
"""Minutes before an entry's start from which the diligent student acts on it."""

_ENTRY = re.compile(r"^- \[evt_\d+\] (\d\d):(\d\d)-(\d\d):(\d\d) .*?(?: at (.+?))? \(Week", re.MULTILINE)
_BUILDING = re.compile(r"\b([A-Z]\d{3})\b")
_NOW = re.compile(r"Current time: (.+)")


def _visible(task: Task, view: AgentView) -> bool:
    """Whether the task's instruction has been shown in this task's conversation."""
    return bool(task.instruction) and any(task.instruction in m.content for m in view.messages if m.role == "user")


def _from_memory(task: Task) -> tuple[str, ...]:
    """The plan without knowledge from earlier tasks: an answer that needs it becomes a guess."""
    if not task.flags.long_term:
        return task.solution
    return tuple(f"answer:{GUESS}" if step.startswith("answer:") else step for step in task.solution)


class StatelessAgent:
    name = "stateless"

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.term = term
        self.world = world

    def act(self, view: AgentView) -> Reply:
        task = self.term.by_id[view.task_id]
        if not _visible(task, view):
            return FINISH
        return replay_plan(run_plan(_from_memory(task), self.world), view)


class DiligentAgent:
    name = "diligent"

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.term = term
        self.world = world

    def act(self, view: AgentView) -> Reply:
        task = self.term.by_id[view.task_id]
        first = view.messages[0].content if view.messages else ""
        if task.instruction and task.instruction in first:
            return replay_plan(run_plan(_from_memory(task), self.world), view)
        return replay_plan(self._from_calendar(task, view), view)

    def _from_calendar(self, task: Task, view: AgentView) -> Plan:
        """Read today's calendar as of the time the task was announced (the plan is replayed every turn)."""
        start = _announced(view)
        seen = yield action(f'calendar.view_schedule(calendar_id="self", date="{date_label(start // MINUTES_PER_DAY)}")')
        place = due_place(seen or "", start % MINUTES_PER_DAY)
        if place is None:
            yield FINISH
            return
        steps = [step for step in _from_memory(task) if not step.startswith("goto:")] if task.required_place else list(_from_memory(task))
        if task.required_place:
            yield from _walk_then(self.world, place, task, steps)
        else:
            yield from run_plan(steps, self.world)


def _announced(view: AgentView) -> int:
    """The time the task's first message announced (``Current time: ...``)."""
    found = _NOW.search(view.messages[0].content if view.messages else "")
    return parse_moment(found.group(1)) if found else view.now


def _walk_then(world: WorldIndex, place: str, task: Task, steps: Sequence[str]) -> Plan:
    """Go to the calendar's building; carry on only if that revealed the task's instruction."""
    inner = run_plan([f"goto:{place}"], world)
    step, seen = next(inner), ""
    while step != FINISH:
        seen = yield step
        step = inner.send(seen)
    if task.instruction not in (seen or ""):
        yield FINISH
        return
    yield from run_plan(steps, world)


def due_place(schedule: str, minute: int) -> str | None:
    """The building of the calendar entry due at ``minute`` of the day, from ``view_schedule`` text.

    Among the entries due (starting within the hour, or under way), the one starting last
    wins: with back-to-back classes the next one matters, not the one ending.
    """
    due: list[tuple[int, str]] = []
    for match in _ENTRY.finditer(schedule):
        start = int(match.group(1)) * 60 + int(match.group(2))
        end = int(match.group(3)) * 60 + int(match.group(4))
        building = _BUILDING.search(match.group(5) or "")
        if start - DUE_BEFORE <= minute <= end and building is not None:
            due.append((start, building.group(1)))
    return max(due)[1] if due else None


class StaleAgent:
    name = "stale"

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.term = term
        self.world = world

    def act(self, view: AgentView) -> Reply:
        task = self.term.by_id[view.task_id]
        plan = task.stale if task.stale is not None else task.solution
        return replay_plan(run_plan(plan, self.world), view)

"""The task system: ``task.report_infeasible``, the honest way to abstain.

An agent that finds a goal cannot be met says so, naming what blocks it. The call records
an ``InfeasibleReported`` fact and changes nothing else; whether abstaining was right is the
scenario judge's business, read from the log after the task ends.
"""

from __future__ import annotations

from typing import Any

import msgspec

from campus.events import InfeasibleReported
from campus.kernel.projection import Domain
from campus.kernel.tools import Outcome, Param, Refuse, ToolDecl, ok

MAX_BLOCKERS = 20


class TaskSystemState(msgspec.Struct, kw_only=True):
    reports: int = 0


def _reported(part: TaskSystemState, event: InfeasibleReported) -> None:
    part.reports += 1


def report_infeasible(view: Any, args: dict[str, Any]) -> Outcome:
    reason = " ".join(args["reason"].split())
    if not reason:
        raise Refuse("Give a reason: say what you checked and why the goal cannot be met.")
    blocked = args["blocked_by"]
    if not all(isinstance(item, str) and item.strip() for item in blocked) or len(blocked) > MAX_BLOCKERS:
        raise Refuse(f"blocked_by must be a list of up to {MAX_BLOCKERS} entity ids (seats, rooms, walkways, ...).")
    fact = InfeasibleReported(task_id=view.task_id, reason=reason, blocked_by=[b.strip() for b in blocked])
    return ok("Reported: this task cannot be done as asked. End the task with finish().", [fact])


REPORT_INFEASIBLE = ToolDecl(
    name="task.report_infeasible",
    system="task",
    description=(
        "Say that the task's goal cannot be met, after checking every alternative. Name the entities that block it "
        "(seat ids, room ids, walkways as 'B001-B002', ...). Do not report this for a task you can still do."
    ),
    params=(
        Param(name="reason", type="string", description="What you checked and why it cannot be done.", max_length=2000),
        Param(name="blocked_by", type="array", items="string", description="Ids of the entities that block the goal."),
    ),
    handler=report_infeasible,
    mutates=True,
    example='task.report_infeasible(reason="every seat with a projector is gone", blocked_by=["<<seat>>"])',
)


TASKS = Domain(
    name="tasks",
    state_type=TaskSystemState,
    initial=lambda world: TaskSystemState(),
    reducers={InfeasibleReported: _reported},
    tools=(REPORT_INFEASIBLE,),
)

"""The oracle: solves every task through the tools, reading ground truth through a back door.

It is the proof that every generated task is solvable. Its only privilege is the term it
is built with; it sees the world only through tool results like any other agent. Every
reply is a pure function of the view (which task, what has been said so far), so a run
resumed in a fresh process continues exactly as it would have.
"""

from __future__ import annotations

import json
import re

from kernel.agent import AgentView, Reply
from scenarios.task import Task, Term
from world.index import WorldIndex

_LOCATION = re.compile(r"You are at .*\((\w+)\)\.")
FINISH = "<action>Action: finish()</action>"


class OracleAgent:
    name = "oracle"

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.term = term
        self.world = world

    def act(self, view: AgentView) -> Reply:
        task = self.term.by_id[view.task_id]
        said = [m.content for m in view.messages if m.role == "assistant"]
        if task.flags.delivery_only:
            return _note_delivery(task) if not said else FINISH
        if task.evaluator == "walk_route":
            return self._explore(task, view, len(said))
        return FINISH

    def _explore(self, task: Task, view: AgentView, step: int) -> Reply:
        if step == 0:
            return "<action>Action: geography.get_current_location()</action>"
        here = _LOCATION.search(_first_result(view))
        if here is None:
            return FINISH
        actions = self._route_actions(task, here.group(1))
        return actions[step - 1] if step - 1 < len(actions) else FINISH

    def _route_actions(self, task: Task, here: str) -> list[str]:
        truth = task.ground_truth
        stops: list[str] = truth["stops"]
        legs = [(here, stops[0], {})] if here != stops[0] else []
        legs += [(a, b, truth["constraints"]) for a, b in zip(stops, stops[1:])]
        actions = []
        for a, b, constraints in legs:
            path = self.world.route(a, b, constraints).path
            actions.append(
                f'<action>Action: map.find_optimal_path(source_building_id="{a}", target_building_id="{b}", '
                f"constraints={constraints!r})</action>"
            )
            actions.append(f"<action>Action: geography.walk_to(path_info={{'path': {path!r}}})</action>")
        return actions


def _first_result(view: AgentView) -> str:
    """What the task's first tool call returned (the message after the first reply)."""
    roles = [m.role for m in view.messages]
    first_reply = roles.index("assistant")
    return view.messages[first_reply + 1].content if first_reply + 1 < len(roles) else ""


def _note_delivery(task: Task) -> str:
    truth = task.ground_truth
    return (
        '<action>Action: calendar.add_event(calendar_id="self", event_title="Campus challenge", '
        f'location={json.dumps(truth["stops"][0])}, time={json.dumps(truth["time"])}, '
        f"description={json.dumps(task.instruction)})</action>"
    )

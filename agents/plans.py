"""Carrying out a task's plan (``Task.solution``) through the tools, one reply per turn.

A plan is data in the term, a tuple of steps:

- ``call:<tool call>`` — make this call, e.g. ``call:calendar.view_schedule(calendar_id="self", date="Week 1, Monday")``;
- ``walk:<B1>,<B2>,...`` — walk exactly this path (it must start where the student is);
- ``goto:<building id>`` — ask where the student is and, unless already there, walk the
  shortest unconstrained route there;
- ``route:<building id>`` — ask where the student is and, unless already there, ask the map
  for the fastest route there as the walkways are now (closed ones left out) and walk it;
- ``arrive:<building id>@<minute>`` — ask where the student is and, unless already there, wait until
  ``ARRIVE_BEFORE`` minutes plus the walk before that absolute minute, then walk the shortest
  unconstrained route there;
- ``attend:<building id>@<minute>`` — ``goto`` the building, then wait there for what is handed out from that
  absolute minute (``scenarios.task.AT_START``): one wait to the minute after a walk (whose result tells the time),
  otherwise waits of ``ATTEND_WAIT`` minutes until it is handed out;
- ``answer:<letter>`` — answer and end the task.

A plan ends with ``finish()`` unless it answered. Replies are a pure function of the plan
and of the results seen so far in this task (``replay_plan`` re-runs the plan over the
transcript), so an agent built on it resumes in a fresh process exactly where it stopped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Sequence

from campus.kernel.agent import AgentView
from campus.kernel.clock import label, parse_moment
from campus.world.index import WorldIndex

FINISH = "<action>Action: finish()</action>"
LOCATE = "<action>Action: geography.get_current_location()</action>"
_LOCATION = re.compile(r"You are at .*\((\w+)\)\.")
_PATH = re.compile(r'geography\.walk_to\(path_info=(\{"path": \[[^\]]*\]\})\)')

Plan = Generator[str, str, None]

ARRIVE_BEFORE = 10
"""Minutes before an appointment at which an ``arrive`` step means to be there."""
ATTEND_WAIT, ATTEND_WAITS = 10, 12
"""Minutes of each wait of an ``attend`` step that does not know the time (it was already there), and at most how
many."""
_IT_IS = re.compile(r"\bIt is (Week \d+, \w+ \d\d:\d\d)\.")


def told_time(seen: str) -> int | None:
    """The simulated minute a result says it is ("... It is Week 3, Monday 09:31."; a walk's does), if it says."""
    found = _IT_IS.search(seen)
    return parse_moment(found.group(1)) if found else None


def action(call: str) -> str:
    return f"<action>Action: {call}</action>"


def quoted(text: str) -> str:
    """A text as a tool call's string argument (JSON, non-ASCII kept)."""
    return json.dumps(text, ensure_ascii=False)


def walk_action(path: Sequence[str]) -> str:
    return action(f"geography.walk_to(path_info={json.dumps({'path': list(path)})})")


def run_plan(steps: Sequence[str], world: WorldIndex) -> Plan:
    """Yield one reply per turn; each ``send`` is the text the previous reply produced."""
    for step in steps:
        kind, _, arg = step.partition(":")
        if kind == "call":
            yield action(arg)
        elif kind == "walk":
            yield walk_action(arg.split(","))
        elif kind == "goto":
            seen = yield LOCATE
            here = _LOCATION.search(seen or "")
            if here is not None and here.group(1) != arg:
                yield walk_action(world.route(here.group(1), arg, {}).path)
        elif kind == "route":
            seen = yield LOCATE
            here = _LOCATION.search(seen or "")
            if here is not None and here.group(1) != arg:
                shown = yield action(f'map.find_optimal_path(source_building_id="{here.group(1)}", target_building_id="{arg}")')
                found = _PATH.search(shown or "")
                if found is not None:
                    yield walk_action(json.loads(found.group(1))["path"])
        elif kind == "arrive":
            building, _, at = arg.partition("@")
            seen = yield LOCATE
            here = _LOCATION.search(seen or "")
            if here is not None and here.group(1) != building:
                route = world.route(here.group(1), building, {})
                yield action(f'errands.wait_until(time="{label(int(at) - route.minutes - ARRIVE_BEFORE)}")')
                yield walk_action(route.path)
        elif kind == "attend":
            yield from _attend(*arg.partition("@")[::2], world)
        elif kind == "answer":
            yield f"<action>Answer: {arg}</action>"
            return
        else:
            raise ValueError(f"unknown plan step {step!r}")
    yield FINISH


def _attend(building: str, at: str, world: WorldIndex) -> Plan:
    seen = yield LOCATE
    here = _LOCATION.search(seen or "")
    if here is None:
        return
    if here.group(1) != building:
        seen = yield walk_action(world.route(here.group(1), building, {}).path)
        told = told_time(seen or "")
        early = int(at) - told if told is not None else 0
        if early > 0:
            yield action(f"calendar.wait(minutes={early})")
        return
    for _ in range(ATTEND_WAITS):
        if "\n\n" in (seen or ""):  # handed out with the last result
            return
        seen = yield action(f"calendar.wait(minutes={ATTEND_WAIT})")


def replay_plan(plan: Plan, view: AgentView) -> str:
    """The reply ``plan`` gives after the results already in ``view`` (``FINISH`` once it is done)."""
    return replay_turns(plan, results(view))


def replay_turns(plan: Plan, seen_so_far: Sequence[str]) -> str:
    """The reply ``plan`` gives after being sent ``seen_so_far``, one result per earlier reply."""
    try:
        reply = next(plan)
        for seen in seen_so_far:
            reply = plan.send(seen)
    except StopIteration:
        return FINISH
    return reply


class LivePlan:
    """``replay_turns`` kept between turns: the plan is sent only the results it has not seen yet, so a task of
    n turns costs n steps of the plan instead of n²/2, with the same reply as a replay from the start."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.sent: list[str] = []
        self.reply: str | None = None

    def follows(self, seen_so_far: Sequence[str]) -> bool:
        """Whether ``seen_so_far`` continues what the plan was sent."""
        return len(seen_so_far) >= len(self.sent) and list(seen_so_far[:len(self.sent)]) == self.sent

    def after(self, seen_so_far: Sequence[str]) -> str:
        """The reply after ``seen_so_far``, which must continue what the plan was sent (``follows``)."""
        try:
            if self.reply is None:
                self.reply = next(self.plan)
            for seen in seen_so_far[len(self.sent):]:
                self.sent.append(seen)
                self.reply = self.plan.send(seen)
        except StopIteration:
            self.reply = FINISH
        return self.reply


def results(view: AgentView) -> list[str]:
    """What each of the agent's replies in this task produced (the message after it)."""
    out: list[str] = []
    messages = view.messages
    for index, message in enumerate(messages):
        if message.role == "assistant":
            follow = messages[index + 1].content if index + 1 < len(messages) else ""
            out.append(follow)
    return out

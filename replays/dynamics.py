"""The dynamics gap (STT-Arena's Fig. 5) for one run, by a static twin.

The twin is a new root branch on the run's world, term and seed with every trigger rule
disabled (``new_run(..., triggers=False)``), so nothing changes mid-task. The same agent plays
it: wherever the twin shows the agent exactly what the run showed it at a decision (same task,
same conversation so far), the run's recorded reply is given again; elsewhere the agent itself
answers. A scripted agent is deterministic, so for it the two are the same; a model agent is
asked only where the conversations part.

Per task with a trigger rule: solved in the twin (static) and in the run (dynamic). A task
solved static but not dynamic is one the disruption cost. Impossible tasks keep their judge in
the twin (abstaining still passes), so their gap is the agent's alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from campus.events import AgentReplied
from campus.kernel.agent import Agent, AgentUnavailable, AgentView, Reply, Turn, is_persistent
from campus.kernel.tasks import iter_tasks
from campus.kernel.transcript import CONVERSATION_KINDS, add_turn
from campus.kernel.triggers import AfterOpen, Rule, TaskIs
from campus.replays.status import run_status
from campus.scenarios.play import Run, new_run, unique_branch_id

_KEY = msgspec.json.Encoder(order="sorted")


def _key(task_id: str, messages: tuple[Turn, ...]) -> bytes:
    return _KEY.encode([task_id, messages])


def recorded_replies(run: Run) -> dict[bytes, Reply]:
    """Every reply of ``run`` keyed by the task and the conversation the agent had been shown before it."""
    replies: dict[bytes, Reply] = {}
    for task in iter_tasks(run.store, run.branch.id, kinds=CONVERSATION_KINDS):
        turns: list[Turn] = []
        for _, _, event in task.events:
            if isinstance(event, AgentReplied):
                reply = event.call if event.call is not None else event.text
                if reply is not None:
                    replies.setdefault(_key(task.task_id, tuple(turns)), reply)
            add_turn(turns, event)
    return replies


class ReplayWhereSame:
    """The run's recorded reply where the conversation is the same, else ``agent`` (None: stop there)."""

    def __init__(self, replies: dict[bytes, Reply], agent: Agent | None, name: str) -> None:
        self.replies = replies
        self.agent = agent
        self.name = name
        self.reused = 0
        self.asked = 0
        if agent is not None and is_persistent(agent):
            self.remember = agent.remember  # type: ignore[attr-defined]

    def act(self, view: AgentView) -> Reply:
        recorded = self.replies.get(_key(view.task_id, view.messages))
        if recorded is not None:
            self.reused += 1
            return recorded
        if self.agent is None:
            raise AgentUnavailable(f"the static twin left the recording in task {view.task_id} and no agent "
                                   "was given to go on")
        self.asked += 1
        return self.agent.act(view)


def disrupted_tasks(rules: list[Rule]) -> set[str]:
    """The tasks a trigger rule names (``TaskIs`` in its activation, or the task it is timed from)."""
    found: set[str] = set()
    for rule in rules:
        if isinstance(rule.activation, AfterOpen):
            found.add(rule.activation.task_id)
        found.update(p.task_id for p in getattr(rule.activation, "where", ()) if isinstance(p, TaskIs))
    return found


@dataclass
class Dynamics:
    run: str
    twin: str
    tasks: list[dict[str, Any]] = field(default_factory=list)
    """Per task with a rule: ``task_id``, its ``cell`` (sub-type/level), ``static`` and ``dynamic`` (solved or not)."""
    totals: dict[str, int] = field(default_factory=dict)
    replies: dict[str, int] = field(default_factory=dict)
    """``reused`` recorded replies and replies the agent was ``asked`` for in the twin."""


def dynamics(run: Run, agent: Agent | None, twin_id: str | None = None) -> Dynamics:
    """Play the static twin of ``run`` and compare every disrupted task's outcome."""
    if run.branch.config.get("triggers", True) is False:
        raise ValueError(f"run {run.branch.id} was played with triggers disabled: it is a static twin already")
    tasks = disrupted_tasks(run.term.trigger_rules())
    if not tasks:
        raise ValueError(f"run {run.branch.id} has no trigger rules in its term (a term without disruptions); "
                         "there is no dynamics gap to measure")
    status = run_status(run.store, run.branch.id)
    if status.state != "finished":
        raise ValueError(f"run {run.branch.id} is {status}: its disrupted tasks after that were never played, so "
                         "the gap would count them as lost; finish it first (campus run --resume)")
    twin = new_run(run.store, run.world, run.term, agent_name=run.branch.agent, seed=run.branch.seed,
                   round_limit=run.branch.config["round_limit"], triggers=False,
                   branch_id=twin_id or unique_branch_id(run.store, f"{run.branch.id}~static"))
    player = ReplayWhereSame(recorded_replies(run), agent, run.branch.agent)
    twin.session(player).run()
    dynamic = {e.task_id: e.outcome == "success" for e in run.ended_tasks()}
    static = {e.task_id: e.outcome == "success" for e in twin.ended_tasks()}
    rows: list[dict[str, Any]] = [{"task_id": task.id, "cell": _cell(task.ground_truth), "static": static.get(task.id, False),
             "dynamic": dynamic.get(task.id, False)} for task in run.term.tasks if task.id in tasks]
    totals = {
        "tasks": len(rows),
        "solved_static": sum(r["static"] for r in rows),
        "solved_dynamic": sum(r["dynamic"] for r in rows),
        "lost_to_dynamics": sum(r["static"] and not r["dynamic"] for r in rows),
        "only_dynamic": sum(r["dynamic"] and not r["static"] for r in rows),
    }
    return Dynamics(run=run.branch.id, twin=twin.branch.id, tasks=rows, totals=totals,
                    replies={"reused": player.reused, "asked": player.asked})


def _cell(truth: Any) -> str:
    if isinstance(truth, dict) and "sub_type" in truth and "level" in truth:
        return f"{truth['sub_type']}/{truth['level']}"
    return ""

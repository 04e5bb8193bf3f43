"""The oracle: solves every task through the tools, reading ground truth through a back door.

It is the proof that every generated task is solvable. Its only privilege is the term it
is built with (each task's ``solution``); it sees the world only through tool results like
any other agent. Every reply is a pure function of the view, so a run resumed in a fresh
process continues exactly as it would have.
"""

from __future__ import annotations

from campus.kernel.agent import AgentView, Reply
from campus.scenarios.task import Term
from campus.world.index import WorldIndex

from campus.agents.plans import LivePlan, results, run_plan


class OracleAgent:
    name = "oracle"

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.term = term
        self.world = world
        self.live: tuple[str, LivePlan] | None = None
        """The open task's id and plan, carried from turn to turn while the views continue one another."""

    def act(self, view: AgentView) -> Reply:
        seen = results(view)
        if self.live is None or self.live[0] != view.task_id or not self.live[1].follows(seen):
            self.live = (view.task_id, LivePlan(run_plan(self.term.by_id[view.task_id].solution, self.world)))
        return self.live[1].after(seen)

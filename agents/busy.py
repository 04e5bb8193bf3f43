"""Scripted controls of the busy days: on a busy day each plays a plan the errand generator writes
(like ``stale``, they are scripted from the term, not blind readers); elsewhere they play the oracle's.

- **guesser** never asks anyone: each errand in the oracle's order, without the questions, with a
  wrong value where the clue's payload belongs. It must fail exactly the clue-dependent checkpoints.
- **fifo** does the errands in the order they arrive, each as soon as it is posted, and never goes to
  an appointment. It must fail exactly the appointments.
"""

from __future__ import annotations

from campus.kernel.agent import AgentView, Reply
from campus.scenarios.busy_days import SCENARIO
from campus.scenarios.task import Term
from campus.world.index import WorldIndex

from campus.agents.plans import replay_plan, run_plan


class BusyPlanAgent:
    name = ""

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.term = term
        self.world = world

    def act(self, view: AgentView) -> Reply:
        task = self.term.by_id[view.task_id]
        plan = task.ground_truth["plans"][self.name] if task.scenario == SCENARIO else task.solution
        return replay_plan(run_plan(plan, self.world), view)


class GuesserAgent(BusyPlanAgent):
    name = "guesser"


class FifoAgent(BusyPlanAgent):
    name = "fifo"

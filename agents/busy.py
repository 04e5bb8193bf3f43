"""Scripted controls of the busy days: on a busy day each plays a plan the errand generator writes
(like ``stale``, they are scripted from the term, not blind readers); elsewhere they play the oracle's.

- **guesser** never asks anyone: each errand in the oracle's order, without the questions, with a
  wrong value where the clue's payload belongs. It must fail exactly the clue-dependent checkpoints.
- **fifo** does the errands in the order they arrive, each as soon as it is posted, and never goes to
  an appointment. It must fail exactly the appointments.
- **learner** guesses every errand of a kind it has had no mentor feedback on, and does the errands
  it was told about properly: its memory is the ``[title]`` lines of every ``mentor_feedback`` it
  received (rebuilt from the log on resume, like any persistent agent's). Its same-checkpoint
  recurrence is 0.
- **forgetful** is the learner with no memory: it never takes feedback in, so it misses the same
  checkpoints again (recurrence 1).
"""

from __future__ import annotations

import re

from campus.kernel.agent import AgentView, Reply, TaskMemory
from campus.scenarios.busy_days import SCENARIO, compose
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


_FEEDBACK_TITLE = re.compile(r"^- \[([^\]]+)\]", re.MULTILINE)
FEEDBACK_HEADER = "Mentor feedback on today"


class LearnerAgent:
    name = "learner"

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.term = term
        self.world = world
        self.told: set[str] = set()
        """Titles of errands a mentor has given feedback on."""

    def remember(self, past: TaskMemory) -> None:
        for turn in past.messages:
            if turn.role == "user" and FEEDBACK_HEADER in turn.content:
                self.told.update(_FEEDBACK_TITLE.findall(turn.content.split(FEEDBACK_HEADER, 1)[1]))

    def act(self, view: AgentView) -> Reply:
        task = self.term.by_id[view.task_id]
        if task.scenario != SCENARIO:
            return replay_plan(run_plan(task.solution, self.world), view)
        plan = compose(task.ground_truth["errands"], guess=lambda errand: errand["title"] not in self.told)
        return replay_plan(run_plan(plan, self.world), view)


class ForgetfulAgent(LearnerAgent):
    name = "forgetful"

    def remember(self, past: TaskMemory) -> None:
        """Feedback is received and not kept."""

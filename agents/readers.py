"""Readers that bound the memory-probe score: they answer a probe from part of the log, with no model.

Each reads the probe from the term (the task's ground truth names the probe and the branch
it is about) and answers it with the probe's own answer function over what it may see of
the log up to the question, plus the notes planted in the fork just before (kept as they
end, like any persistent agent's memory; all but ``no-memory`` keep them):

- ``oracle-reader``: all of it (the upper bound: 100 % on every ability);
- ``recent-only``: only the events of its last ``RECENT_STEPS`` agent steps, so it decays with
  the distance to the evidence;
- ``no-memory``: nothing, so it says "no record" to everything: right on abstention probes,
  wrong on their answerable twins and on every other ability.

On any task that is not a probe they finish at once.
"""

from __future__ import annotations

from dataclasses import replace

from campus.agents import READERS
from campus.events import decode_events
from campus.kernel.agent import AgentView, Reply, TaskMemory
from campus.kernel.store import EventStore
from campus.scenarios.probe_answers import render
from campus.scenarios.probes import FACT_KINDS, PLANT_TASK, PROBE_TASK, Logged, Past, answer_of, probe_of
from campus.scenarios.task import Term

RECENT_STEPS = 100
"""Agent steps (replies) ``recent-only`` sees back from the question."""
FINISH = "<action>Action: finish()</action>"


class Reader:
    def __init__(self, name: str, store: EventStore, term: Term, recent_steps: int = RECENT_STEPS) -> None:
        if name not in READERS:
            raise ValueError(f"unknown reader {name!r}; readers: {', '.join(READERS)}")
        self.name = name
        self.store = store
        self.term = term
        self.recent_steps = recent_steps
        self._seen: dict[tuple[str, int], Past] = {}
        self.planted: dict[str, int] = {}

    def act(self, view: AgentView) -> Reply:
        task = self.term.by_id.get(view.task_id)
        if task is None or not task.id.startswith(PROBE_TASK):
            return FINISH
        probe = probe_of(task)
        past = self._past(str(task.ground_truth["branch"]), probe.asked_at_seq)
        if self.name != "no-memory":
            past = replace(past, planted=self.planted)
        answer, _, _ = answer_of(probe.query, past)
        return f"<action>Answer: {render(answer)}</action>"

    def remember(self, past: TaskMemory) -> None:
        """The notes planted in the fork are its recent past: every reader with a memory keeps them."""
        if past.task_id.startswith(PLANT_TASK):
            self.planted[past.task_id] = 0

    def _past(self, branch: str, upto: int) -> Past:
        key = (branch, upto)
        if key not in self._seen:
            self._seen[key] = Past() if self.name == "no-memory" else Past.of(self._visible(branch, upto))
        return self._seen[key]

    def _visible(self, branch: str, upto: int) -> list[Logged]:
        rows = self.store.rows(branch, 1, upto)
        if self.name == "recent-only":
            replies = [row.seq for row in rows if row.kind == "agent_replied"]
            first = replies[-self.recent_steps] if len(replies) >= self.recent_steps else 1
            rows = [row for row in rows if row.seq >= first]
        rows = [row for row in rows if row.kind in FACT_KINDS]
        return [(row.seq, row.t, event) for row, event in zip(rows, decode_events([row.payload for row in rows]))]

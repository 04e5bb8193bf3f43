"""Replaying a branch's recorded replies: exact reproduction without the original agent or its API key.

Every reply an agent gives is in the log verbatim (``AgentReplied``: text or structured call).
A ``RecordedAgent`` gives those replies back in order, one per decision, checking that each was
given in the same task the session is now in. Played on the branch's world, term and seed, it
reproduces the branch's hash chain event for event (``verify --deep`` relies on it); on a fork
or a resume it carries on from the replies the branch already has.

Which recorded reply comes next is worked out from what the agent has been shown, never from a
counter of its own: the replies of every ended task (the session passes each one to
``remember``, live and again on resume or fork) plus the replies already in the current task's
chat. So the same branch always continues at the same reply, however it was reached.
"""

from __future__ import annotations

from campus.events import AgentReplied
from campus.kernel.agent import AgentUnavailable, AgentView, Reply, TaskMemory, Turn
from campus.kernel.store import EventStore
from campus.kernel.tasks import events_of


class RecordingError(AgentUnavailable):
    """The recording has no reply for this decision (it ran out, or the runs went apart)."""


class RecordedFailure(Exception):
    """The recorded agent failed at this point: raised so the session records the same empty reply."""


class RecordedAgent:
    def __init__(self, source: str, replies: list[AgentReplied]) -> None:
        self.source = source
        self.replies = replies
        self.name = f"recorded:{source}"
        self.ended_replies = 0
        """Replies given in the tasks that have ended on the branch being played."""

    def remember(self, past: TaskMemory) -> None:
        self.ended_replies += _replies_in(past.messages)

    def act(self, view: AgentView) -> Reply:
        position = self.ended_replies + _replies_in(view.messages)
        if position >= len(self.replies):
            raise RecordingError(f"the recording of {self.source} ran out: it has {len(self.replies)} replies "
                                 f"and this run needs another one in task {view.task_id}")
        recorded = self.replies[position]
        if recorded.task_id != view.task_id:
            raise RecordingError(f"the run has left the recording of {self.source}: reply {position + 1} "
                                 f"was given in task {recorded.task_id}, but this run is in task {view.task_id}")
        if recorded.call is not None:
            return recorded.call
        if recorded.text is None:
            raise RecordedFailure(f"{self.source} gave no reply here")
        return recorded.text


def _replies_in(turns: tuple[Turn, ...]) -> int:
    """Every reply is one assistant turn of its task's chat (a tool result or a rejection always follows it)."""
    return sum(1 for turn in turns if turn.role == "assistant")


def replies_of(store: EventStore, branch_id: str) -> list[AgentReplied]:
    return events_of(store, branch_id, AgentReplied)

"""Fork: a what-if branch that shares its parent's past and continues differently.

A fork is one row in the store. It can only start where the parent was waiting for the
agent (a step boundary): a requested position inside a step moves back to the boundary
before it, and the answer says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from campus.kernel.agent import Agent, AgentView, Reply, is_persistent
from campus.scenarios.play import Run, open_run, unique_branch_id


@dataclass(frozen=True)
class ForkPoint:
    requested: int
    seq: int


def step_boundary(run: Run, seq: int) -> int:
    """The last position at or before ``seq`` where the run was waiting for the agent.

    Those are the positions just before an agent reply, and the end of the log.
    """
    head = run.store.head(run.branch.id)[0]
    if seq >= head:
        return head
    window = 64
    while True:
        start = max(1, seq + 1 - window)
        for row in reversed(run.store.rows(run.branch.id, start, seq + 1)):
            if row.kind == "agent_replied":
                return row.seq - 1
        if start == 1:
            return 0
        window *= 4


def fork_run(
    run: Run, seq: int, *, agent_name: str, new_id: str | None = None, deferred: bool = False
) -> tuple[Run, ForkPoint]:
    """Create the branch (nothing is played yet); the caller continues it with a session.

    ``deferred``: the branch is written with its first committed step, not before (see
    ``EventStore.fork``) — for a fork whose first reply is injected, which a resume could not
    give again.
    """
    point = ForkPoint(requested=seq, seq=step_boundary(run, seq))
    branch_id = new_id or unique_branch_id(run.store, f"{run.branch.id}@{point.seq}")
    run.store.fork(run.branch.id, point.seq, branch_id, agent=agent_name, label=f"fork of {run.branch.id} at {point.seq}",
                   deferred=deferred)
    return open_run(run.store, branch_id), point


class InjectedReply:
    """Answers the first decision with a fixed reply, then hands over to another agent."""

    def __init__(self, reply: str, then: Agent) -> None:
        self.reply: str | None = reply
        self.then = then
        self.name = then.name
        if is_persistent(then):  # the agent taking over still gets the branch's past tasks
            self.remember = then.remember  # type: ignore[attr-defined]

    def act(self, view: AgentView) -> Reply:
        if self.reply is not None:
            reply, self.reply = self.reply, None
            return reply
        return self.then.act(view)

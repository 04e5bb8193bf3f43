"""Calling one domain's tools the way the dispatcher does, with the kernel's invariants checked."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import msgspec

from campus.kernel.engine import ToolView
from campus.kernel.projection import Domain
from campus.kernel.tools import Outcome, bind_arguments


def encoded(part: Any) -> bytes:
    return msgspec.json.encode(part)


class DomainHarness:
    """One domain's state part; every call checks that handlers never mutate what they read,
    that messages are ASCII, and that failures and read-only tools produce no facts."""

    def __init__(self, domain: Domain, world: Any = None) -> None:
        self.domain = domain
        self.campus = world
        self.part = domain.initial(world)
        self.tools = {t.name: t for t in domain.tools}

    def view(self, part: Any = None) -> ToolView:
        state = SimpleNamespace(**{self.domain.name: self.part if part is None else part})
        return ToolView(world=self.campus, state=state, task_id="t", now=600, seed=0)

    def apply(self, facts: Any, part: Any = None) -> None:
        for fact in facts:
            self.domain.reducers[type(fact)](self.part if part is None else part, fact)

    def call(self, name: str, **args: Any) -> Outcome:
        tool = self.tools[name]
        bound = bind_arguments(tool, args)
        assert not isinstance(bound, str), bound
        before = encoded(self.part)
        outcome = tool.call(self.view(), bound)
        assert encoded(self.part) == before, "a handler mutated the state it reads"
        assert outcome.result.message.isascii()
        if not outcome.result.ok or not tool.mutates:
            assert outcome.facts == ()
        self.apply(outcome.facts)
        return outcome

    def ok(self, name: str, **args: Any) -> Outcome:
        outcome = self.call(name, **args)
        assert outcome.result.ok, outcome.result.message
        return outcome

    def fail(self, name: str, **args: Any) -> str:
        before = encoded(self.part)
        outcome = self.call(name, **args)
        assert not outcome.result.ok, outcome.result.message
        assert outcome.facts == () and encoded(self.part) == before
        return outcome.result.message


def acting_step(run: Any, near: int) -> int:
    """The first step boundary at or after seq ``near`` whose next reply is an action, not ``finish()``:
    a no-op agent forked there diverges at once (a fork where the run itself finished would not)."""
    from campus.events import AgentReplied, decode_event

    head = run.store.head(run.branch.id)[0]
    for row in run.store.rows(run.branch.id, near + 1, head):
        if row.kind == "agent_replied":
            reply = decode_event(row.payload)
            if isinstance(reply, AgentReplied) and reply.text and "finish()" not in reply.text:
                return row.seq - 1
    raise AssertionError(f"no acting reply after seq {near}")

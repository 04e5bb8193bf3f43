"""Calling one domain's tools the way the dispatcher does, with the kernel's invariants checked."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import msgspec

from kernel.engine import ToolView
from kernel.projection import Domain
from kernel.tools import Outcome, bind_arguments


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
        outcome = tool.handler(self.view(), bound)
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

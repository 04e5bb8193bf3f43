"""Driving a session from outside: the caller is the agent.

The session normally asks its agent for each reply. An MCP client, a Gym-style training loop
or any other caller that wants to *push* replies instead gets a ``Stepper``: it shows the
view the session is waiting on, takes one reply, plays the world on to the next decision,
and reports the tasks that ended on the way. Every step is committed before it returns, so
whatever drives the stepper, the log is the same as if an agent object had given the replies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from campus.events import Event, StructuredCall, TaskEnded
from campus.kernel.admit import admit
from campus.kernel.agent import Agent, AgentView, Reply
from campus.kernel.runner import Session

OnTaskEnd = Callable[[Any, TaskEnded], None]


class StepResult(msgspec.Struct, frozen=True, kw_only=True):
    view: AgentView | None
    """What the session waits on now; ``None`` once the term is over."""
    ended: tuple[TaskEnded, ...]
    """The tasks that ended during this step (usually none or one)."""
    events: tuple[Event, ...] = ()
    """Every event the step played, in log order (the reply first)."""
    refused: str | None = None
    """Why the reply was refused before anything was played or recorded (a structured call
    whose arguments the log cannot hold: not a JSON object, NaN or infinite numbers, ...)."""


class _Slot:
    """The agent seat of the session, filled with one reply at a time by the stepper."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.reply: Reply | None = None
        self.last_meta: Any = None
        """What the caller said about the reply it gave (usage, latency), kept beside it as an agent's is."""

    def act(self, view: AgentView) -> Reply:
        reply, self.reply = self.reply, None
        if reply is None:
            raise RuntimeError("the stepper asked for a reply it was not given")
        return reply


class Stepper:
    def __init__(self, open_session: Callable[[Agent, OnTaskEnd], Session], agent_name: str) -> None:
        self._slot = _Slot(agent_name)
        self._ended: list[TaskEnded] = []
        self.session = open_session(self._slot, lambda state, ended: self._ended.append(ended))
        self.session.run(max_steps=0)

    @property
    def finished(self) -> bool:
        return self.session.finished

    @property
    def state(self) -> Any:
        return self.session.state

    def view(self) -> AgentView | None:
        return None if self.finished else self.session.view()

    def step(self, reply: Reply, meta: Any = None) -> StepResult:
        """Give the waiting task ``reply`` and play on to the next decision. ``meta`` is what the caller says about
        the reply (``{"prompt_tokens": ..., "completion_tokens": ..., "latency_s": ...}``), stored beside it outside
        the hash chain as an agent's ``last_meta`` is (``campus score`` and ``campus runs`` total it)."""
        if self.finished:
            raise RuntimeError("the term is over; there is nothing to reply to")
        if not isinstance(reply, (str, StructuredCall)):
            raise TypeError(f"a reply is text or a StructuredCall, not {type(reply).__name__}")
        if isinstance(reply, StructuredCall):
            problem = admit(reply).problem
            if problem is not None:
                return StepResult(view=self.view(), ended=(),
                                  refused=f"Invalid action: {problem}. Nothing was done and no reply was used.")
        self._slot.reply, self._slot.last_meta = reply, meta
        try:
            events = self.session.play(max_steps=1)
        finally:
            self._slot.last_meta = None
        ended, self._ended = tuple(self._ended), []
        return StepResult(view=self.view(), ended=ended, events=tuple(events))

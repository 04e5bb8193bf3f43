"""The agent boundary: what an agent is shown and what it may reply.

Scripted and model-backed agents implement the same protocol. An agent sees only the
conversation of the current task (the StuLife protocol: each task is a fresh chat) and the
tools it may use; whatever it needs later must be written into the world.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, Union

import msgspec

from campus.events import Event, StructuredCall
from campus.kernel.tools import ToolDecl

Reply = Union[str, StructuredCall]


class Turn(msgspec.Struct, frozen=True):
    role: str
    content: str
    call: StructuredCall | None = None
    """The native function call an assistant turn made (``content`` is its text rendering)."""


class AgentView:
    """What the agent is shown for one reply: the task, the time, the system prompt, the task's conversation so far
    and the tools it may call. The session gives ``messages`` as a function, called when an agent first reads
    them (an agent that replies from a script never builds them)."""

    __slots__ = ("task_id", "now", "prompt", "tools", "_messages", "_build")

    def __init__(self, *, task_id: str, now: int, prompt: str, tools: tuple[ToolDecl, ...],
                 messages: tuple[Turn, ...] | Callable[[], tuple[Turn, ...]]) -> None:
        self.task_id = task_id
        self.now = now
        self.prompt = prompt
        self.tools = tools
        self._messages: tuple[Turn, ...] | None = None
        self._build: Callable[[], tuple[Turn, ...]] | None = None
        if callable(messages):
            self._build = messages
        else:
            self._messages = messages

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AgentView):
            return NotImplemented
        return (self.task_id, self.now, self.prompt, self.tools, self.messages) == \
            (other.task_id, other.now, other.prompt, other.tools, other.messages)

    __hash__ = None  # type: ignore[assignment]

    @property
    def messages(self) -> tuple[Turn, ...]:
        if self._messages is None:
            assert self._build is not None
            self._messages, self._build = self._build(), None
        return self._messages


def lazy_view(task_id: str, now: int, prompt: str, tools: tuple[ToolDecl, ...], build: Callable[[], tuple[Turn, ...]]) -> AgentView:
    """``AgentView(..., messages=build)``, made the way the session makes one every turn: without the keyword call
    into ``__init__`` (a quarter of a scripted turn's view)."""
    view: AgentView = _new(AgentView)
    view.task_id = task_id
    view.now = now
    view.prompt = prompt
    view.tools = tools
    view._messages = None
    view._build = build
    return view


_new = object.__new__


class TaskMemory(msgspec.Struct, frozen=True, kw_only=True):
    """One ended task as its agent lived it: what a persistent agent may keep across tasks."""

    task_id: str
    scenario: str
    released: int
    """The simulated minute the task began."""
    messages: tuple[Turn, ...]
    events: tuple[Event, ...] = ()
    """Every event of the task, from its release to its end (the typed record a memory may fold)."""


class Agent(Protocol):
    name: str

    def act(self, view: AgentView) -> Reply: ...


class PersistentAgent(Agent, Protocol):
    """An agent that keeps its own memory across tasks (the persistent-agent mode).

    The session calls ``remember`` with every task's conversation once the task has ended. A
    session that starts on a branch with ended tasks (a resume or a fork) first calls it once
    per ended task, in order, so the memory is rebuilt from the log rather than copied: the
    same branch always leaves the agent with the same memory.
    """

    def remember(self, past: TaskMemory) -> None: ...


class AgentUnavailable(Exception):
    """The agent cannot reply at all (bad credentials, an unreachable model, a recording that ran out).

    Unlike any other exception from ``act`` (an untrusted agent's failure, recorded as an
    unreadable reply), this one stops the session: the steps before it are committed, nothing is
    recorded for the reply that could not be had, and the run can be resumed later.
    """


def is_persistent(agent: Any) -> bool:
    return callable(getattr(agent, "remember", None))


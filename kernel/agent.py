"""The agent boundary: what an agent is shown and what it may reply.

Scripted and model-backed agents implement the same protocol. An agent sees only the
conversation of the current task (the StuLife protocol: each task is a fresh chat) and the
tools it may use; whatever it needs later must be written into the world.
"""

from __future__ import annotations

from typing import Any, Protocol, Union

import msgspec

from events import StructuredCall
from kernel.tools import ToolDecl

Reply = Union[str, StructuredCall]


class Turn(msgspec.Struct, frozen=True):
    role: str
    content: str


class AgentView(msgspec.Struct, frozen=True, kw_only=True):
    task_id: str
    now: int
    prompt: str
    messages: tuple[Turn, ...]
    tools: tuple[ToolDecl, ...]


class Agent(Protocol):
    name: str

    def act(self, view: AgentView) -> Reply: ...


def reply_meta(agent: Any) -> str | None:
    """Metadata an agent reports about its last reply (usage, latency), kept outside the hash."""
    meta = getattr(agent, "last_meta", None)
    return msgspec.json.encode(meta).decode() if meta else None

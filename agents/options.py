"""``AgentOptions``: a model-backed agent's settings given apart from its spec (``--model``, ``--base-url``, ...).

Apart from ``agents.registry`` so that a command can declare its options without loading the agents.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from campus.agents.chat import DEFAULT_RETRIES, DEFAULT_TIMEOUT

MEMORIES = ("none", "history", "bm25", "scratchpad", "light")
"""What a model-backed agent may carry between tasks (``agents.memory``)."""


@dataclass(frozen=True)
class AgentOptions:
    """Settings of a model-backed agent given apart from its spec; ``None`` means not given."""

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    mode: str | None = None
    variant: str | None = None
    memory: str | None = None
    memory_tokens: int | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    retries: int = DEFAULT_RETRIES
    timeout: float = DEFAULT_TIMEOUT

    def given(self) -> list[str]:
        """The options that were given (``retries`` and ``timeout`` have defaults, so they never count)."""
        return [f.name for f in fields(self) if f.name not in _CLIENT_ONLY and getattr(self, f.name) is not None]


_CLIENT_ONLY = ("retries", "timeout")

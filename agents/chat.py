"""One chat-completions request to an OpenAI-compatible endpoint, with clear one-line errors.

Uses the official ``openai`` client (the ``llm`` extra), so any server that speaks the protocol
works: OpenAI, vLLM, Ollama, llama.cpp, a proxy, the providers of ``agents.providers``. Retries
and the timeout are the client's own (``max_retries``, ``timeout``): it tries rate limits (429),
server errors (5xx), 408/409, timeouts and refused connections again with exponential backoff,
honouring the server's Retry-After. Anything that cannot succeed (bad credentials, an unknown
model, a rejected request, a reply that is not a chat completion) raises ``ChatError`` with a
one-line message.

A reasoning model's thinking (``reasoning_content``, ``reasoning``, or a ``<think>...</think>``
block at the start of the text) is split from the reply before anything parses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from campus.kernel.agent import AgentUnavailable

OPENAI_URL = "https://api.openai.com/v1"
DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 4

_THINK = re.compile(r"^\s*(?:<think>(?P<closed>.*?)</think>|(?P<open>(?:(?!<think>).)*?)</think>)", re.DOTALL)


class ChatError(AgentUnavailable):
    """The endpoint cannot give a reply: the message says why in one line."""


@dataclass(frozen=True)
class ToolCall:
    id: str | None
    name: str
    arguments: str


@dataclass(frozen=True)
class Completion:
    content: str | None
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str | None
    model: str | None
    usage: dict[str, int] = field(default_factory=dict)
    reasoning: str | None = None
    attempts: int = 1


class ChatClient:
    def __init__(self, *, base_url: str, api_key: str, retries: int = DEFAULT_RETRIES,
                 timeout: float = DEFAULT_TIMEOUT, key_hint: str = "OPENAI_API_KEY") -> None:
        try:
            import openai
        except ImportError as error:
            raise ChatError("the llm agent needs the openai package: pip install 'campus[llm]'") from error
        if not timeout > 0:
            raise ValueError(f"the timeout must be positive, not {timeout:g}")
        self._openai = openai
        self.base_url = base_url
        self.retries = retries
        self.key_hint = key_hint
        self._client = openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=retries, timeout=timeout)

    def complete(self, request: dict[str, Any]) -> Completion:
        """One completion for ``request`` (the keyword arguments of ``chat.completions.create``)."""
        openai = self._openai
        try:
            raw = self._client.chat.completions.with_raw_response.create(**request)
            response = raw.parse()
        except (openai.APIConnectionError, openai.APIStatusError) as error:  # timeouts are connection errors
            raise self._explain(error) from None
        except (openai.APIResponseValidationError, ValueError) as error:  # ValueError: a body that is not JSON
            raise ChatError(f"{self._where()} did not return a chat completion: {_one_line(str(error))}") from None
        return self._read(response, attempts=raw.retries_taken + 1)

    def _where(self) -> str:
        return f"the model endpoint {self.base_url}"

    def _explain(self, error: Exception) -> ChatError:
        openai = self._openai
        retried = isinstance(error, openai.APIConnectionError) or _retryable_status(getattr(error, "status_code", 0))
        tried = f" (gave up after {self.retries + 1} attempts)" if retried and self.retries else ""
        if isinstance(error, openai.APITimeoutError):
            return ChatError(f"{self._where()} did not answer in time{tried}")
        if isinstance(error, openai.APIConnectionError):
            cause = error.__cause__ or error.__context__ or error
            return ChatError(f"cannot reach {self._where()}: {_one_line(str(cause)) or type(cause).__name__}{tried}")
        status = error.status_code  # type: ignore[attr-defined]
        detail = _one_line(getattr(error, "message", "") or str(error))
        if status in (401, 403):
            return ChatError(f"{self._where()} refused the API key ({status}): {detail}. "
                             f"Pass --api-key or set {self.key_hint}")
        if status == 404:
            return ChatError(f"{self._where()} has no such model or path (404): {detail}")
        return ChatError(f"{self._where()} answered {status}: {detail}{tried}")

    def _read(self, response: Any, attempts: int) -> Completion:
        try:
            choice = response.choices[0]
            message = choice.message
            content = message.content
            calls = tuple(
                ToolCall(id=call.id, name=call.function.name, arguments=call.function.arguments or "")
                for call in (message.tool_calls or ())
            )
        except (AttributeError, IndexError, KeyError, TypeError) as error:
            raise ChatError(f"{self._where()} did not return a chat completion "
                            f"({type(error).__name__}: {_one_line(str(error))})") from None
        if content is not None and not isinstance(content, str):
            raise ChatError(f"{self._where()} returned a message whose content is not text")
        if any(not isinstance(c.name, str) or not isinstance(c.arguments, str) for c in calls):
            raise ChatError(f"{self._where()} returned a tool call without a name or arguments")
        content, thought = split_reasoning(content)
        given = getattr(message, "reasoning_content", None) or getattr(message, "reasoning", None)
        reasoning = "\n".join(part for part in (given if isinstance(given, str) else None, thought) if part) or None
        return Completion(content=content, tool_calls=calls, finish_reason=getattr(choice, "finish_reason", None),
                          model=getattr(response, "model", None), usage=_usage(getattr(response, "usage", None)),
                          reasoning=reasoning, attempts=attempts)


def split_reasoning(content: str | None) -> tuple[str | None, str | None]:
    """The reply without a leading ``<think>...</think>`` block (or text closed by a bare ``</think>``), and that block."""
    if content is None:
        return None, None
    found = _THINK.match(content)
    if found is None:
        return content, None
    thought = (found.group("closed") if found.group("closed") is not None else found.group("open")).strip()
    return content[found.end():].lstrip(), thought or None


def _retryable_status(status: int) -> bool:
    return status in (408, 409, 429) or status >= 500


def _usage(usage: Any) -> dict[str, int]:
    """The counts a server reported that can be counts (a server may send anything: true, -5, 10**30)."""
    names = ("prompt_tokens", "completion_tokens", "total_tokens")
    return {name: value for name in names if type(value := getattr(usage, name, None)) is int and 0 <= value < 2**63}


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."

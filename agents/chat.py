"""One chat-completions request to an OpenAI-compatible endpoint, with bounded retries and clear errors.

Uses the official ``openai`` client (the ``llm`` extra), so any server that speaks the protocol
works: OpenAI, vLLM, Ollama, llama.cpp, a proxy. The client's own retries are switched off and
replaced by a loop that can be reasoned about: rate limits (429), server errors (5xx), 408/409,
timeouts and refused connections are tried again after 1, 2, 4, ... times ``backoff`` seconds
(or the server's Retry-After, capped at ``MAX_DELAY``), at most ``retries`` times. Anything that
cannot succeed by retrying (bad credentials, an unknown model, a rejected request, a reply that
is not a chat completion) raises ``ChatError`` at once, with a one-line message.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from campus.kernel.agent import AgentUnavailable

OPENAI_URL = "https://api.openai.com/v1"
RETRY_STATUS = frozenset({408, 409, 429})
MAX_DELAY = 60.0
"""The longest wait between two attempts, whatever the server asks for."""


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


class ChatClient:
    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        retries: int = 4,
        backoff: float = 1.0,
        timeout: float = 120.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        try:
            import openai
        except ImportError as error:
            raise ChatError("the llm agent needs the openai package: pip install 'campus[llm]'") from error
        self._openai = openai
        self.base_url = base_url
        self.retries = retries
        self.backoff = backoff
        self.sleep = sleep
        self.attempts = 0
        """Attempts the last ``complete`` took."""
        self._client = openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout)

    def complete(self, request: dict[str, Any]) -> Completion:
        """One completion for ``request`` (the keyword arguments of ``chat.completions.create``)."""
        openai = self._openai
        self.attempts = 0
        while True:
            self.attempts += 1
            try:
                response = self._client.chat.completions.create(**request)
            except (openai.APIConnectionError, openai.APIStatusError) as error:  # timeouts are connection errors
                if not self._retryable(error) or self.attempts > self.retries:
                    raise self._explain(error) from None
                self.sleep(self._delay(error))
                continue
            except (openai.APIResponseValidationError, ValueError) as error:  # ValueError: a body that is not JSON
                raise ChatError(f"{self._where()} did not return a chat completion: {_one_line(str(error))}") from None
            return self._read(response)

    # ------------------------------------------------------------ errors and retries

    def _retryable(self, error: Exception) -> bool:
        if isinstance(error, self._openai.APIConnectionError):
            return True
        status = error.status_code  # type: ignore[attr-defined]
        return status in RETRY_STATUS or status >= 500

    def _delay(self, error: Exception) -> float:
        wait = self.backoff * 2 ** (self.attempts - 1)
        response = getattr(error, "response", None)
        asked = _retry_after(response.headers) if response is not None else None
        return min(MAX_DELAY, asked if asked is not None else wait)

    def _where(self) -> str:
        return f"the model endpoint {self.base_url}"

    def _explain(self, error: Exception) -> ChatError:
        openai = self._openai
        tried = f" (gave up after {self.attempts} attempts)" if self.attempts > 1 else ""
        if isinstance(error, openai.APITimeoutError):
            return ChatError(f"{self._where()} did not answer in time{tried}")
        if isinstance(error, openai.APIConnectionError):
            cause = error.__cause__ or error.__context__ or error
            return ChatError(f"cannot reach {self._where()}: {_one_line(str(cause)) or type(cause).__name__}{tried}")
        status = error.status_code  # type: ignore[attr-defined]
        detail = _one_line(getattr(error, "message", "") or str(error))
        if status in (401, 403):
            return ChatError(f"{self._where()} refused the API key ({status}): {detail}. "
                             "Pass --api-key or set OPENAI_API_KEY")
        if status == 404:
            return ChatError(f"{self._where()} has no such model or path (404): {detail}")
        return ChatError(f"{self._where()} answered {status}: {detail}{tried}")

    # ------------------------------------------------------------ the response

    def _read(self, response: Any) -> Completion:
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
        return Completion(content=content, tool_calls=calls, finish_reason=getattr(choice, "finish_reason", None),
                          model=getattr(response, "model", None), usage=_usage(getattr(response, "usage", None)))


def _usage(usage: Any) -> dict[str, int]:
    names = ("prompt_tokens", "completion_tokens", "total_tokens")
    return {name: value for name in names if isinstance(value := getattr(usage, name, None), int)}


def _retry_after(headers: Any) -> float | None:
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is not None:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                return None  # an HTTP date: fall back to our own backoff
    return None


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."

"""A model-backed agent: any OpenAI-compatible chat model plays the term.

Two modes:

- ``text`` (the StuLife protocol): the system prompt is the task's instructions, followed by
  the prompt variant and the memory; the chat is the task's conversation; the model's text is
  the reply, read by the kernel's parser (``<action>Action: ...</action>``).
- ``tools`` (native function calling): the task's tools are offered as functions (from their
  declarations' OpenAI schemas) together with ``answer`` and ``finish``; a function call becomes
  a ``StructuredCall`` under the tool's dotted name, and a reply without one is read as text.
  Earlier calls in the task (carried as data in the chat's turns) are shown back to the model as
  calls with their results.

Token usage, latency, attempts and a reasoning model's thinking (split from its reply by the
client) go to ``last_meta``, which the kernel keeps outside the hash chain. The API key is held by the client only: it is never part of the agent's spec, its name
or its metadata.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import msgspec

from campus.agents.chat import OPENAI_URL, ChatClient, Completion
from campus.agents.memory import DEFAULT_BUDGET, Memory, make_memory
from campus.agents.providers import PROVIDERS, TokenLimit, provider_of
from campus.agents.variants import DEFAULT_VARIANT, default_memory, load_variant
from campus.events import StructuredCall
from campus.kernel.admit import safe_text
from campus.kernel.agent import AgentView, Reply, TaskMemory, Turn
from campus.kernel.tools import from_wire_name, openai_tools, wire_name

MODES = ("text", "tools")

TOOLS_MODE_INSTRUCTIONS = """\
You are a student at a university, living through the term one task at a time. You change the \
world only by calling the functions offered to you. A sentence written as "I ..." is your own \
thought at that moment: act on it. Be at the right place at the right time, and write down in \
the world what you will need later (your calendar holds your commitments): every task starts \
a fresh conversation.

Call exactly one function per reply: a tool; `answer` with the letter of your choice, for a \
multiple-choice question, or with the answer itself when a question asks for a number or words; or \
`finish`, once everything the task asks is done. Each result says \
what happened. Walking takes the minutes of the path walked, any other call one minute, and a \
call that fails changes nothing and takes no time."""
"""The system prompt's opening in tools mode, in place of the task's text-protocol manual and tool
list (the functions' schemas carry the tools)."""

SESSION_FUNCTIONS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "answer", "description": "Answer the question in front of you; this ends the task.",
        "parameters": {"type": "object", "properties": {"letter": {
            "type": "string", "description": "The letter of your choice, e.g. B; or, when the task asks for an "
                                            "answer in words, your answer."}},
                       "required": ["letter"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "finish", "description": "Say that everything the task asks is done; this ends the task.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False}}},
]


class LLMConfig(msgspec.Struct, frozen=True, kw_only=True):
    """What defines a model-backed agent; stored (as ``spec()``) as the run's agent, without the key."""

    model: str
    base_url: str = OPENAI_URL
    mode: str = "text"
    variant: str = DEFAULT_VARIANT
    memory: str = "none"
    memory_tokens: int = DEFAULT_BUDGET
    temperature: float | None = None
    max_tokens: int | None = None
    provider: str | None = None
    """The provider prefix the model was named with (``openai`` for ``openai/gpt-4.1``), if any."""

    def check(self) -> LLMConfig:
        """The config itself, or ``ValueError`` saying what is wrong with it."""
        if not self.model:
            raise ValueError("the llm agent needs a model: pass --model or set CAMPUS_MODEL")
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; choose one of: {', '.join(MODES)}")
        if urlsplit(self.base_url).scheme not in ("http", "https"):
            raise ValueError(f"the base URL must start with http:// or https://, not {self.base_url!r}")
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise ValueError(f"temperature must be between 0 and 2, not {self.temperature}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"max tokens must be at least 1, not {self.max_tokens}")
        provider_of(self.provider)
        load_variant(self.variant)
        make_memory(self.memory, self.memory_tokens)
        return self

    def spec(self) -> str:
        """``llm:model=...;mode=...;...``: readable, and enough to rebuild the agent on resume."""
        fields = msgspec.structs.asdict(self) | {"base_url": public_url(self.base_url)}
        parts = [f"{name}={quote(str(value), safe=':/@.-_~+')}" for name, value in fields.items() if value is not None]
        return "llm:" + ";".join(parts)

    @classmethod
    def from_spec(cls, spec: str) -> LLMConfig:
        if not spec.startswith("llm:"):
            raise ValueError(f"{spec!r} is not an llm agent spec")
        fields: dict[str, Any] = {}
        for part in filter(None, spec[len("llm:") :].split(";")):
            name, _, value = part.partition("=")
            fields[name] = unquote(value)
        try:
            return msgspec.convert(fields, cls, strict=False)
        except msgspec.ValidationError as error:
            raise ValueError(f"cannot read the agent spec {spec!r}: {error}") from None

    def short_name(self) -> str:
        """What runs of this agent are named after: the model, then each setting that is not its default (two prompt
        variants of one model are two agents, not two trials of one; ``llm-noisy-proactive``, not ``llm-noisy-s0-2``).
        The endpoint is left out: it says where the model is served, not what it is asked."""
        named = [f"llm-{self.provider}-{self.model}" if self.provider else f"llm-{self.model}"]
        named += [self.variant] if self.variant != DEFAULT_VARIANT else []
        named += [self.mode] if self.mode != "text" else []
        named += [f"mem-{self.memory}"] if self.memory != default_memory(self.variant) else []
        named += [f"budget{self.memory_tokens}"] if self.memory_tokens != DEFAULT_BUDGET else []
        named += [f"temp{self.temperature:g}"] if self.temperature is not None else []
        named += [f"max{self.max_tokens}"] if self.max_tokens is not None else []
        return "-".join(named)

    def price_key(self) -> str:
        """How a price table names this model: ``provider/model``, ``openai/...`` for OpenAI's own URL, else the bare name."""
        if self.provider:
            return f"{self.provider}/{self.model}"
        return f"openai/{self.model}" if public_url(self.base_url) == OPENAI_URL else self.model

    def token_limit(self) -> TokenLimit:
        """What the server calls the reply-length limit: OpenAI's own API wants ``max_completion_tokens``."""
        provider = provider_of(self.provider)
        if provider is None and public_url(self.base_url) == OPENAI_URL:
            provider = PROVIDERS["openai"]
        return provider.token_limit if provider is not None else "max_tokens"


def public_url(url: str) -> str:
    """The URL without user name, password, query or fragment (anything secret-like is not stored)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


class LLMAgent:
    """Asks the model for one reply per view; remembers ended tasks through its memory module."""

    def __init__(self, config: LLMConfig, client: ChatClient, memory: Memory | None = None) -> None:
        self.config = config.check()
        self.client = client
        self.memory = memory if memory is not None else make_memory(config.memory, config.memory_tokens)
        self.variant = load_variant(config.variant)
        self.name = config.spec()
        self.last_meta: dict[str, Any] | None = None

    def act(self, view: AgentView) -> Reply:
        request = self.request(view)
        begun = time.perf_counter()
        completion = self.client.complete(request)
        latency = time.perf_counter() - begun
        reply, dropped = self.reply(completion)
        self.last_meta = {"model": completion.model or self.config.model, **completion.usage,
                          "latency_s": round(latency, 4), "attempts": completion.attempts,
                          "finish_reason": completion.finish_reason, "request_sha256": request_hash(request)}
        if completion.reasoning:
            self.last_meta["reasoning"] = completion.reasoning
        if dropped:
            self.last_meta["dropped_tool_calls"] = dropped
        return reply

    def remember(self, past: TaskMemory) -> None:
        self.memory.remember(past)

    # ------------------------------------------------------------ the request

    def request(self, view: AgentView) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` for this view."""
        return build_request(self.config, self.variant, self.memory, view)

    # ------------------------------------------------------------ the reply

    def reply(self, completion: Completion) -> tuple[Reply, int]:
        """The reply for the kernel, and how many extra tool calls were dropped (one action per reply)."""
        content = completion.content or ""
        if not completion.tool_calls:
            return content, 0
        call = completion.tool_calls[0]
        dropped = len(completion.tool_calls) - 1
        arguments = _json_object(call.arguments)
        if arguments is None:  # not a JSON object: keep it verbatim as text, so the kernel explains the problem
            return f"{content}\n{call.name}({call.arguments})".strip(), dropped
        if self.memory.name == "scratchpad" and re.search(r"<(note|forget)>", content, re.IGNORECASE):
            as_text = call_as_text(call.name, arguments)
            if as_text is not None:  # keep the notes in the record: the call is written in the text protocol
                return f"{content.strip()}\n{as_text}", dropped
        return StructuredCall(name=from_wire_name(call.name), arguments=arguments, id=call.id), dropped


def build_request(config: LLMConfig, variant: str, memory: Memory, view: AgentView) -> dict[str, Any]:
    """The keyword arguments of ``chat.completions.create`` for ``view``: a function of the config, the
    variant's text, what the memory holds and the view, so the request of any recorded step can be rebuilt."""
    tools_mode = config.mode == "tools"
    system = system_prompt(view, variant, tools_mode=tools_mode, memory=memory)
    functions = openai_tools(view.tools) + SESSION_FUNCTIONS if tools_mode else []
    names = frozenset(f["function"]["name"] for f in functions)
    chat = call_messages(view.messages, names) if tools_mode else plain_messages(view.messages)
    request: dict[str, Any] = {"model": config.model, "messages": [{"role": "system", "content": system}, *chat]}
    if tools_mode:
        request["tools"] = functions
    if config.temperature is not None:
        request["temperature"] = config.temperature
    if config.max_tokens is not None:
        request[config.token_limit()] = config.max_tokens
    return request


def system_prompt(view: AgentView, variant: str, *, tools_mode: bool = False, memory: Memory | None = None) -> str:
    """The task's instructions (in tools mode, ``TOOLS_MODE_INSTRUCTIONS``), the variant's working habits
    and what the memory recalls for this view."""
    return "\n\n".join(filter(None, (
        TOOLS_MODE_INSTRUCTIONS if tools_mode else view.prompt, "## How you work\n" + variant,
        memory.guidance if memory else "", _section("What you remember", memory.recall(view) if memory else ""),
    )))


def request_hash(request: dict[str, Any]) -> str:
    """sha256 of the request as canonical JSON (sorted keys): the exact messages, tools and settings sent."""
    return hashlib.sha256(_SORTED.encode(request)).hexdigest()


def _section(title: str, body: str) -> str:
    return f"## {title}\n{body}" if body else ""


def _json_object(text: str) -> dict[str, Any] | None:
    if not text.strip():
        return {}
    try:
        value = msgspec.json.decode(safe_text(text))  # a lone surrogate (sent as an escape) is data, as in a reply
    except (msgspec.DecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def plain_messages(turns: tuple[Turn, ...]) -> list[dict[str, Any]]:
    return [{"role": t.role, "content": t.content or "(no reply)"} for t in turns]


_SORTED = msgspec.json.Encoder(order="sorted")


def call_messages(turns: tuple[Turn, ...], functions: frozenset[str]) -> list[dict[str, Any]]:
    """The chat with each earlier function call shown as a call, and the message after it as its result.

    A turn's structured call becomes an assistant tool call under its wire name (ids are numbered
    per task, so the messages are a function of the view), and the user turn that follows becomes
    the ``tool`` message answering it. A call of a function not offered now is shown as its text.
    """
    messages: list[dict[str, Any]] = []
    pending: str | None = None
    spell = _wire_speller(functions)
    for turn in turns:
        if pending is not None and turn.role == "user":
            messages.append({"role": "tool", "tool_call_id": pending, "content": spell(turn.content)})
            pending = None
            continue
        if turn.call is not None and wire_name(turn.call.name) in functions:
            pending = f"call_{len(messages)}"
            function = {"name": wire_name(turn.call.name), "arguments": _SORTED.encode(turn.call.arguments).decode()}
            messages.append({"role": "assistant", "content": None,
                             "tool_calls": [{"id": pending, "type": "function", "function": function}]})
        else:
            messages.append({"role": turn.role, "content": spell(turn.content) if turn.role == "user" else
                             turn.content or "(no reply)"})
    return messages


def _wire_speller(functions: frozenset[str]) -> Callable[[str], str]:
    """Rewrites the dotted tool names in what the campus says (``calendar.add_event``) as the functions'
    names (``calendar__add_event``), so a tools-mode model meets one spelling of each tool."""
    dotted = {from_wire_name(name): name for name in functions if "__" in name}
    if not dotted:
        return lambda text: text or "(no reply)"
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, sorted(dotted, key=len, reverse=True))) + r")(?![\w])")
    return lambda text: pattern.sub(lambda found: dotted[found.group(1)], text) if text else "(no reply)"


def call_as_text(name: str, arguments: dict[str, Any]) -> str | None:
    """A function call in the text protocol, read back by the parser as the same action (None if it cannot be)."""
    if name == "finish" and not arguments:
        return "<action>Action: finish()</action>"
    if name == "answer":
        given = arguments.get("letter", arguments.get("answer"))
        words = str(given).strip() if isinstance(given, (str, int, float)) and not isinstance(given, bool) else ""
        if len(arguments) == 1 and words and "<" not in words:  # a letter, or an answer in words (read as such)
            return f"<action>Answer: {words}</action>"
        return None
    if not all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) for key in arguments):
        return None
    args = ", ".join(f"{key}={msgspec.json.encode(value).decode()}" for key, value in arguments.items())
    return f"<action>Action: {from_wire_name(name)}({args})</action>"

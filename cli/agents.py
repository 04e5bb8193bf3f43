"""Choosing the agent of ``campus run`` and ``campus fork``: built-in, model-backed or recorded.

- a built-in name (``oracle``, ``noop``, ...);
- ``llm``: a chat model over the OpenAI protocol, configured by the options below. The run
  records the agent as its spec (``llm:model=...;mode=...;...``, never the key), so
  ``--resume`` and ``fork`` rebuild the same agent; options given again override the spec;
- ``recorded:RUN``: RUN's recorded replies, in order (see ``agents.recorded``).

The options are added to a command by ``with_agent_options`` and reach it as one
``AgentOptions`` value, so the commands stay short.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import typer

from agents import BUILTIN, make_agent
from agents.chat import OPENAI_URL, ChatClient
from agents.llm import LLMAgent, LLMConfig
from agents.memory import DEFAULT_BUDGET, MEMORIES
from agents.recorded import PREFIX, recorded_agent
from agents.variants import DEFAULT_VARIANT, default_memory, variant_names
from kernel.agent import Agent
from kernel.store import EventStore
from scenarios.play import Run, new_run, open_run, slug, unique_branch_id
from scenarios.task import Term
from world.index import WorldIndex

AGENT_HELP = (f"Who plays: a built-in agent ({', '.join(BUILTIN)}), 'llm' (a chat model; see the model options), "
              "or 'recorded:RUN' (RUN's recorded replies, in order: a new run plays on RUN's world, term and seed).")

KEY_PLACEHOLDER = "not-needed"
"""Sent as the key to a server other than OpenAI's when no key is given (vLLM and Ollama ignore it)."""


@dataclass(frozen=True)
class AgentOptions:
    """The model options as given on the command line; ``None`` means not given."""

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    mode: str | None = None
    variant: str | None = None
    memory: str | None = None
    memory_tokens: int | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    retries: int = 4

    def given(self) -> list[str]:
        """The model options that were given (``retries`` has a default, so it never counts)."""
        return [f.name for f in fields(self) if f.name != "retries" and getattr(self, f.name) is not None]


_OPTIONS: dict[str, tuple[type, Any]] = {
    "model": (str, typer.Option(None, "--model", rich_help_panel="Model-backed agents (--agent llm)",
                                help="Model name as the server knows it. Default: $CAMPUS_MODEL.")),
    "base_url": (str, typer.Option(None, "--base-url", rich_help_panel="Model-backed agents (--agent llm)",
                                   help=f"The OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (vLLM) or "
                                        f"http://localhost:11434/v1 (Ollama). Default: $OPENAI_BASE_URL, else {OPENAI_URL}.")),
    "api_key": (str, typer.Option(None, "--api-key", rich_help_panel="Model-backed agents (--agent llm)", show_default=False,
                                  help="API key. Default: $OPENAI_API_KEY; a server other than OpenAI's may need none. "
                                       "Never stored in the database.")),
    "mode": (str, typer.Option(None, "--mode", rich_help_panel="Model-backed agents (--agent llm)",
                               help="'text': the model writes StuLife actions (<action>Action: tool(...)</action>), "
                                    "as in the paper; 'tools': native function calling with the tools' schemas "
                                    "(plus answer and finish). Default: text.")),
    "variant": (str, typer.Option(None, "--variant", rich_help_panel="Model-backed agents (--agent llm)",
                                  help=f"Prompt variant (context engineering after the paper): {', '.join(variant_names())}. "
                                       f"Default: {DEFAULT_VARIANT}.")),
    "memory": (str, typer.Option(None, "--memory", rich_help_panel="Model-backed agents (--agent llm)",
                                 help=f"What the agent carries between tasks: {', '.join(MEMORIES)}. 'none' is the "
                                      "paper's isolated tasks; 'history' recent transcripts; 'bm25' retrieved passages "
                                      "of past tasks; 'scratchpad' notes the model keeps with <note>...</note>. "
                                      "Default: none (scratchpad for --variant all-in-one, as in the paper).")),
    "memory_tokens": (int, typer.Option(None, "--memory-tokens", min=1, rich_help_panel="Model-backed agents (--agent llm)",
                                        help="Token budget of the memory section (estimated as characters / 4). Default: 4000.")),
    "temperature": (float, typer.Option(None, "--temperature", rich_help_panel="Model-backed agents (--agent llm)",
                                        help="Sampling temperature. Default: the server's.")),
    "max_tokens": (int, typer.Option(None, "--max-tokens", min=1, rich_help_panel="Model-backed agents (--agent llm)",
                                     help="Longest reply, in tokens. Default: the server's.")),
    "retries": (int, typer.Option(4, "--retries", min=0, rich_help_panel="Model-backed agents (--agent llm)",
                                  help="Retries on rate limits (429), server errors (5xx), timeouts and refused "
                                       "connections, with exponential backoff; then the run stops with an error and "
                                       "can be resumed.")),
}


def with_agent_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command the model options; they reach it together as its ``agent_options`` argument."""
    signature = inspect.signature(command, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.name != "agent_options"]
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=kind)
             for name, (kind, option) in _OPTIONS.items()]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        options = AgentOptions(**{name: kwargs.pop(name) for name in _OPTIONS})
        return command(*args, agent_options=options, **kwargs)

    wrapper.__signature__ = signature.replace(parameters=kept + added)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in kept + added} | {"return": signature.return_annotation}
    return wrapper


# ---------------------------------------------------------------- building agents


def build_agent(name: str, options: AgentOptions, *, store: EventStore, term: Term, world: WorldIndex) -> tuple[Agent, str]:
    """The agent called ``name``, and the name its run records (an llm agent's spec, without the key).

    Raises ``ValueError`` (or ``StoreError`` for a recording that is not there) with a one-line message.
    """
    if name == "llm" or name.startswith("llm:"):
        config = llm_config(name, options)
        client = ChatClient(base_url=config.base_url, api_key=api_key(options, config.base_url), retries=options.retries)
        return LLMAgent(config, client), config.spec()
    if options.given():
        flags = ", ".join("--" + option.replace("_", "-") for option in options.given())
        raise ValueError(f"{flags} only apply to --agent llm, not to {name!r}")
    if name.startswith(PREFIX):
        return recorded_agent(store, name[len(PREFIX) :]), name
    return make_agent(name, term, world), name


def llm_config(name: str, options: AgentOptions) -> LLMConfig:
    """The config from the options, over the stored spec (resume, fork), over the environment."""
    stored = LLMConfig.from_spec(name) if name.startswith("llm:") else None

    def pick(option: str, environment: str | None = None, default: Any = None) -> Any:
        given = getattr(options, option)
        if given is not None:
            return given
        if stored is not None:
            return getattr(stored, option)
        return (os.environ.get(environment) if environment else None) or default

    variant = pick("variant", default=DEFAULT_VARIANT)
    config = LLMConfig(
        model=pick("model", "CAMPUS_MODEL", default=""),
        base_url=pick("base_url", "OPENAI_BASE_URL", default=OPENAI_URL),
        mode=pick("mode", default="text"),
        variant=variant,
        memory=pick("memory", default=default_memory(variant)),
        memory_tokens=pick("memory_tokens", default=DEFAULT_BUDGET),
        temperature=pick("temperature"),
        max_tokens=pick("max_tokens"),
    )
    return config.check()


def api_key(options: AgentOptions, base_url: str) -> str:
    key = options.api_key or os.environ.get("OPENAI_API_KEY")
    if key:
        return key
    if base_url.rstrip("/") == OPENAI_URL:
        raise ValueError("no API key for OpenAI: pass --api-key or set OPENAI_API_KEY")
    return KEY_PLACEHOLDER


def new_branch_id(store: EventStore, agent_name: str, seed: int) -> str:
    """A short run name: ``llm-MODEL-sSEED`` for a model rather than its whole spec."""
    short = LLMConfig.from_spec(agent_name).short_name() if agent_name.startswith("llm:") else agent_name
    return unique_branch_id(store, f"{slug(short)}-s{seed}")


def is_recorded(name: str) -> bool:
    return name.startswith(PREFIX)


def replay_run(store: EventStore, name: str, options: AgentOptions) -> tuple[Run, Agent]:
    """A new run playing RUN's recorded replies on RUN's world, term, seed and rules."""
    source = open_run(store, name[len(PREFIX) :])
    agent, agent_name = build_agent(name, options, store=store, term=source.term, world=source.world)
    run = new_run(store, source.world, source.term, agent_name=agent_name, seed=source.branch.seed,
                  round_limit=source.branch.config["round_limit"], branch_id=new_branch_id(store, agent_name, source.branch.seed))
    return run, agent

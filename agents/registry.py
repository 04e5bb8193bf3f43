"""Which agent a name means, for ``run``, ``fork``, ``sweep``, ``lifelong`` and the tests.

- a built-in name (``oracle``, the controls ``noop``, ``stateless``, ``diligent``, ``stale``, the
  adversaries ``testwise``, ``optionsonly``, ``dawdler``, ``absent``, ``libguess`` (library seats booked without
  looking the library up), ``dodger`` (disruption tasks met by booking around the plan without looking), and the disruption controls ``abstainer``, ``optimist``; ``agents.BUILTIN``);
- ``llm``, ``llm:PROVIDER/MODEL`` or ``llm:model=...;mode=...;...`` (``LLMConfig``'s spec): a chat model over the
  OpenAI protocol. Options given now override the spec, which overrides the environment; the
  run records the resulting spec (never the key), so resuming and forking rebuild the same agent;
- ``recorded:RUN``: RUN's recorded replies, in order (see ``agents.recorded``);
- a memory-probe reader (``oracle-reader``, ``recent-only`` or ``recent-only:N``, ``no-memory``; ``agents.readers``),
  which answers probes and check-ins from the stored log and plays any other task as the oracle does.
"""

from __future__ import annotations

import os
from typing import Any

from campus.agents import BUILTIN, READERS, make_agent
from campus.agents.chat import OPENAI_URL, ChatClient
from campus.agents.llm import LLMAgent, LLMConfig
from campus.agents.memory import DEFAULT_BUDGET
from campus.agents.options import AgentOptions
from campus.agents.readers import Reader, reader_spec
from campus.agents.providers import provider_of, split_model
from campus.agents.recorded import PREFIX, recorded_agent
from campus.agents.variants import DEFAULT_VARIANT, default_memory
from campus.kernel.agent import Agent
from campus.kernel.store import EventStore
from campus.scenarios.play import Run, RunSpec, open_run, start_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex

INSPECT = "inspect:"
"""How the agent of a run an inspect_ai evaluation played is recorded: ``inspect:MODEL``."""
KEY_PLACEHOLDER = "not-needed"
"""Sent as the key to a server other than OpenAI's when no key is given (vLLM and Ollama ignore it)."""


def is_llm(name: str) -> bool:
    return name == "llm" or name.startswith("llm:")


def recorded_source(name: str) -> str | None:
    """The run whose replies ``recorded:RUN`` replays; ``None`` for any other name."""
    return name[len(PREFIX):] if name.startswith(PREFIX) else None


def check_name(name: str, options: AgentOptions = AgentOptions()) -> str:
    """The name a run of this agent records; raises ``ValueError`` for a name no agent has, without building one."""
    if is_llm(name):
        return llm_config(name, options).spec()
    if options.given():
        given = options.given()
        flags = ", ".join("--" + option.replace("_", "-") for option in given)
        raise ValueError(f"{flags} {'is' if len(given) == 1 else 'are'} for --agent llm only, not for {name!r}")
    if recorded_source(name) or name in BUILTIN or reader_spec(name):
        return name
    raise ValueError(f"unknown agent {name!r}; use a built-in agent ({', '.join(BUILTIN)}), a probe reader "
                     f"({', '.join(READERS)}, recent-only:N), llm:SPEC or recorded:RUN")


def resolve(name: str, options: AgentOptions = AgentOptions(), *, store: EventStore, term: Term,
            world: WorldIndex, branch: str | None = None) -> tuple[Agent, str]:
    """The agent called ``name``, and the name its run records; ``branch`` is the branch it will play (a
    probe reader reads a check-in's past from it).

    Raises ``ValueError`` (or ``StoreError`` for a recording that is not there) with a one-line message.
    """
    recorded = check_name(name, options)
    if is_llm(name):
        config = llm_config(name, options)
        key, hint = api_key(options, config)
        client = ChatClient(base_url=config.base_url, api_key=key, retries=options.retries, timeout=options.timeout,
                            key_hint=hint)
        return LLMAgent(config, client), recorded
    source = recorded_source(name)
    if source is not None:
        return recorded_agent(store, source), recorded
    reader = reader_spec(name)
    if reader is not None:
        return Reader(reader[0], store, term, world, branch=branch, recent_steps=reader[1]), recorded
    return make_agent(name, term, world), recorded


def playing(agent: Agent, branch: str) -> Agent:
    """``agent``, told the branch it plays once that branch exists (a probe reader reads a check-in's past there)."""
    if isinstance(agent, Reader):
        agent.branch = branch
    return agent


def plays_itself(name: str) -> bool:
    """Whether campus runs the agent a run records as ``name`` (a built-in, a reader, a model, a recording), as
    opposed to one that drove the run from outside (an MCP client, ``Env``, inspect_ai)."""
    try:
        check_name(name)
    except ValueError:
        return False
    return True


def steps_from_outside(name: str) -> bool:
    """Whether ``name`` is an agent that pushes replies through the stepper from outside (an MCP client's or
    ``Env``'s name): the runs an MCP client may continue or start under that name."""
    return not plays_itself(name) and not name.startswith(INSPECT)


def llm_config(name: str, options: AgentOptions) -> LLMConfig:
    """The config from the options, over the stored spec (resume, fork), over the environment.

    A model named with a provider prefix (``openai/gpt-4.1``) is sent without it, to the provider's
    endpoint unless ``--base-url`` names another. ``llm:openai/gpt-4.1`` is short for ``llm --model
    openai/gpt-4.1`` (so a sweep can name models).
    """
    shorthand = name[len("llm:"):] if name.startswith("llm:") and "=" not in name else None
    stored = LLMConfig.from_spec(name) if name.startswith("llm:") and shorthand is None else None
    if options.model is not None or shorthand:
        provider_name, model = split_model(options.model or shorthand or "")
    elif stored is not None:
        provider_name, model = stored.provider, stored.model
    else:
        provider_name, model = split_model(os.environ.get("CAMPUS_MODEL") or "")
    provider = provider_of(provider_name)

    def pick(option: str, environment: str | None = None, default: Any = None) -> Any:
        given = getattr(options, option)
        if given is not None:
            return given
        if stored is not None:
            return getattr(stored, option)
        return (os.environ.get(environment) if environment else None) or default

    variant = pick("variant", default=DEFAULT_VARIANT)
    renamed = stored is None or (provider_name, model) != (stored.provider, stored.model)
    named_now = provider is not None and stored is None or options.model is not None and renamed
    base_url = options.base_url or (provider.base_url if named_now and provider else None)
    config = LLMConfig(
        model=model,
        provider=provider_name,
        base_url=base_url or pick("base_url", "OPENAI_BASE_URL", default=OPENAI_URL),
        mode=pick("mode", default="text"),
        variant=variant,
        memory=pick("memory", default=default_memory(variant)),
        memory_tokens=pick("memory_tokens", default=DEFAULT_BUDGET),
        temperature=pick("temperature"),
        max_tokens=pick("max_tokens"),
    )
    return config.check()


_SHAPING = {"model": "--model", "provider": "--model", "mode": "--mode", "variant": "--variant", "memory": "--memory",
            "memory_tokens": "--memory-tokens", "temperature": "--temperature", "max_tokens": "--max-tokens"}
"""The spec's fields that shape what a model is sent (its endpoint does not), with the option that sets each."""


def agent_differences(stored: str, now: str) -> dict[str, tuple[Any, Any]]:
    """What makes agent ``now`` another than ``stored``, field by field (``{field: (stored's, now's)}``): for two model
    specs, the settings that shape the requests, not the endpoint; for other agents, the names."""
    if stored == now:
        return {}
    if not (stored.startswith("llm:") and now.startswith("llm:")):
        return {"agent": (stored, now)}
    before, after = LLMConfig.from_spec(stored), LLMConfig.from_spec(now)
    return {name: (getattr(before, name), getattr(after, name)) for name in _SHAPING
            if getattr(before, name) != getattr(after, name)}


def changed_options(stored: str, now: str) -> list[str]:
    """The options that make ``now`` another agent than the run's ``stored`` one: a run resumed under them would
    record replies its spec cannot rebuild (``verify --deep``, ``campus prompt``) and price them as the old model's."""
    if not is_llm(stored):
        return []
    return list(dict.fromkeys(_SHAPING[name] for name in agent_differences(stored, now) if name in _SHAPING))


def api_key(options: AgentOptions, config: LLMConfig) -> tuple[str, str]:
    """The key to send, and the variable that holds it (named in errors about it)."""
    provider = provider_of(config.provider)
    variable = provider.key_variable if provider is not None else "OPENAI_API_KEY"
    key = options.api_key or (os.environ.get(variable) if variable else None)
    if key:
        return key, variable or "--api-key"
    if variable is not None and (provider is not None or config.base_url.rstrip("/") == OPENAI_URL):
        who = config.provider or "OpenAI"
        raise ValueError(f"no API key for {who}: pass --api-key or set {variable}")
    return KEY_PLACEHOLDER, variable or "--api-key"


def run_label(name: str) -> str:
    """What a run id is made from: a model's short name rather than its whole spec."""
    return LLMConfig.from_spec(name).short_name() if name.startswith("llm:") else name


def replay_run(store: EventStore, name: str, options: AgentOptions = AgentOptions()) -> tuple[Run, Agent]:
    """A new run playing ``recorded:RUN``'s replies on RUN's world, term, seed and rules."""
    source = open_run(store, name[len(PREFIX):])
    agent, recorded = resolve(name, options, store=store, term=source.term, world=source.world)
    spec = RunSpec(seed=source.branch.seed, agent=recorded, round_limit=source.branch.config["round_limit"],
                   label=run_label(recorded))
    return start_run(store, spec, inputs=(source.world, source.term)), agent

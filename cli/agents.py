"""The model options of ``campus run`` and ``campus fork`` (``--model``, ``--base-url``, ...).

They are added to a command by ``with_agent_options`` and reach it as one ``AgentOptions``
value, so the commands stay short; which agent a name means is ``agents.registry``'s.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import typer

from campus.agents import BUILTIN
from campus.agents.chat import DEFAULT_RETRIES, DEFAULT_TIMEOUT, OPENAI_URL
from campus.agents.options import MEMORIES, AgentOptions
from campus.agents.providers import PROVIDERS
from campus.agents.variants import DEFAULT_VARIANT, variant_names

AGENT_HELP = (f"Who plays: a built-in agent ({', '.join(BUILTIN)}), 'llm' (a chat model; see the model options), "
              "or 'recorded:RUN' (RUN's recorded replies, in order: a new run plays on RUN's world, term and seed).")

_OPTIONS: dict[str, tuple[type, Any]] = {
    "model": (str, typer.Option(None, "--model", rich_help_panel="Model-backed agents (--agent llm)",
                                help=f"PROVIDER/MODEL (providers: {', '.join(PROVIDERS)}; e.g. openai/gpt-4.1, "
                                     "vllm/Qwen/Qwen3-8B), which picks the endpoint and key variable, or a model "
                                     "name as the --base-url server knows it. Default: $CAMPUS_MODEL.")),
    "base_url": (str, typer.Option(None, "--base-url", rich_help_panel="Model-backed agents (--agent llm)",
                                   help=f"The OpenAI-compatible endpoint, e.g. http://gpu-box:8000/v1; wins over the "
                                        f"provider's. Default: the provider's, else $OPENAI_BASE_URL, else {OPENAI_URL}.")),
    "api_key": (str, typer.Option(None, "--api-key", rich_help_panel="Model-backed agents (--agent llm)", show_default=False,
                                  help="API key. Default: the provider's variable ($OPENAI_API_KEY, $ANTHROPIC_API_KEY, ...); "
                                       "vllm, ollama and other local servers need none. "
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
                                      "of past tasks; 'scratchpad' notes the model keeps with <note>...</note>; 'light' BEAM's LIGHT "
                                      "(BM25 over past steps, working memory, a scratchpad projected from the log; "
                                      "ablations as light:k=5|10|15|20,retrieval=off,working=off,scratchpad=off). "
                                      "Default: none (scratchpad for --variant all-in-one, as in the paper).")),
    "memory_tokens": (int, typer.Option(None, "--memory-tokens", min=1, rich_help_panel="Model-backed agents (--agent llm)",
                                        help="Token budget of the memory section (estimated as characters / 4). Default: 4000.")),
    "temperature": (float, typer.Option(None, "--temperature", rich_help_panel="Model-backed agents (--agent llm)",
                                        help="Sampling temperature. Default: the server's.")),
    "max_tokens": (int, typer.Option(None, "--max-tokens", min=1, rich_help_panel="Model-backed agents (--agent llm)",
                                     help="Longest reply, in tokens. Default: the server's.")),
    "retries": (int, typer.Option(DEFAULT_RETRIES, "--retries", min=0, rich_help_panel="Model-backed agents (--agent llm)",
                                  help="Retries on rate limits (429), server errors (5xx), timeouts and refused "
                                       "connections, with the openai client's exponential backoff; then the run stops "
                                       "with an error and can be resumed.")),
    "timeout": (float, typer.Option(DEFAULT_TIMEOUT, "--timeout", min=0.001, rich_help_panel="Model-backed agents (--agent llm)",
                                    help="Seconds to wait for one reply before it counts as a timeout (and is retried).")),
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

"""Model names with a provider prefix (``openai/gpt-4.1``, ``vllm/Qwen/Qwen3-8B``) and where they are served.

Every provider here speaks the OpenAI chat-completions protocol at its base URL; the table says
which environment variable holds its key and what it calls the reply-length limit. A name
whose first segment is not a provider (``Qwen/Qwen3-8B``, ``script-model``) is sent as it is,
to ``--base-url``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TokenLimit = Literal["max_tokens", "max_completion_tokens"]


@dataclass(frozen=True)
class Provider:
    base_url: str
    key_variable: str | None
    """``None``: a local server that needs no key."""
    token_limit: TokenLimit = "max_tokens"


PROVIDERS: dict[str, Provider] = {
    "openai": Provider("https://api.openai.com/v1", "OPENAI_API_KEY", "max_completion_tokens"),
    "anthropic": Provider("https://api.anthropic.com/v1", "ANTHROPIC_API_KEY"),
    "gemini": Provider("https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY"),
    "openrouter": Provider("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    "together": Provider("https://api.together.xyz/v1", "TOGETHER_API_KEY"),
    "groq": Provider("https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    "deepseek": Provider("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
    "mistral": Provider("https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
    "fireworks": Provider("https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY"),
    "vllm": Provider("http://localhost:8000/v1", None),
    "ollama": Provider("http://localhost:11434/v1", None),
}


def split_model(name: str) -> tuple[str | None, str]:
    """``("openai", "gpt-4.1")`` for ``openai/gpt-4.1``; ``(None, name)`` when the name has no known provider."""
    prefix, slash, rest = name.partition("/")
    if slash and rest and prefix in PROVIDERS:
        return prefix, rest
    return None, name


def provider_of(name: str | None) -> Provider | None:
    if name is None:
        return None
    try:
        return PROVIDERS[name]
    except KeyError:
        raise ValueError(f"unknown provider {name!r}; choose one of: {', '.join(PROVIDERS)}") from None

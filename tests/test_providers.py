"""Models named by provider (``openai/gpt-4.1``): endpoint, key variable, the reply-length field, and the spec."""

from __future__ import annotations

import pytest

from campus.agents.llm import LLMConfig
from campus.agents.providers import PROVIDERS, split_model
from campus.agents.options import AgentOptions
from campus.agents.registry import api_key, llm_config, run_label
from campus.kernel.agent import AgentView
from tests.chat_server import ChatServer, text
from tests.llm_support import llm_agent

NO_KEYS = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "CAMPUS_MODEL"] + [p.key_variable for p in PROVIDERS.values() if p.key_variable]


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NO_KEYS:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(("name", "split"), [
    ("openai/gpt-4.1", ("openai", "gpt-4.1")),
    ("vllm/Qwen/Qwen3-8B", ("vllm", "Qwen/Qwen3-8B")),
    ("Qwen/Qwen3-8B", (None, "Qwen/Qwen3-8B")),
    ("script-model", (None, "script-model")),
    ("openai/", (None, "openai/")),
])
def test_a_provider_prefix_is_split_only_when_it_names_a_provider(name: str, split: tuple[str | None, str]) -> None:
    assert split_model(name) == split


def test_a_provider_picks_its_endpoint_and_the_spec_rebuilds_the_same_agent() -> None:
    config = llm_config("llm", AgentOptions(model="groq/llama-3.3-70b"))
    assert (config.provider, config.model, config.base_url) == ("groq", "llama-3.3-70b", PROVIDERS["groq"].base_url)
    assert LLMConfig.from_spec(config.spec()) == config
    assert llm_config(config.spec(), AgentOptions()) == config
    assert run_label(config.spec()) == "llm-groq-llama-3.3-70b"


def test_base_url_wins_over_the_provider_and_a_shorthand_spec_names_a_model() -> None:
    config = llm_config("llm", AgentOptions(model="vllm/Qwen/Qwen3-8B", base_url="http://gpu:8000/v1"))
    assert config.base_url == "http://gpu:8000/v1" and config.model == "Qwen/Qwen3-8B"
    assert llm_config("llm:ollama/llama3.1", AgentOptions()).base_url == PROVIDERS["ollama"].base_url


def test_each_provider_asks_for_its_own_key_and_local_servers_need_none(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=r"^no API key for anthropic: pass --api-key or set ANTHROPIC_API_KEY$"):
        api_key(AgentOptions(), llm_config("llm", AgentOptions(model="anthropic/claude-sonnet-4")))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    assert api_key(AgentOptions(), llm_config("llm", AgentOptions(model="anthropic/claude-sonnet-4"))) == ("sk-ant", "ANTHROPIC_API_KEY")
    assert api_key(AgentOptions(), llm_config("llm", AgentOptions(model="ollama/llama3.1")))[0] == "not-needed"


def test_openai_gets_max_completion_tokens_and_other_servers_max_tokens(view: AgentView) -> None:
    with ChatServer([text("<action>Answer: A</action>")] * 2) as server:
        llm_agent(server, max_tokens=64, provider="openai").act(view)
        llm_agent(server, max_tokens=64).act(view)
    first, second = server.requests
    assert first["max_completion_tokens"] == 64 and "max_tokens" not in first
    assert second["max_tokens"] == 64 and "max_completion_tokens" not in second


def test_an_unknown_provider_in_a_spec_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"unknown provider 'acme'; choose one of: openai, "):
        llm_config("llm:model=m;provider=acme", AgentOptions())


@pytest.fixture
def view() -> AgentView:
    return AgentView(task_id="t-1", now=0, prompt="You are a student.", messages=(), tools=())

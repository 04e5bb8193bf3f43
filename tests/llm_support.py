"""Helpers for the model-backed agent tests: the oracle's replies as a model's script, an agent on a test server."""

from __future__ import annotations

from typing import Any

from campus.agents.chat import ChatClient
from campus.agents.llm import LLMAgent, LLMConfig
from campus.kernel.parse import Answer as ParsedAnswer, Call, Finish, Invalid, parse_reply
from tests.chat_server import Answer, ChatServer, text, tool_call

SCALE = 0.05


def as_text_answers(replies: list[str]) -> list[Answer]:
    return [text(reply) for reply in replies]


def as_tool_calls(replies: list[str]) -> list[Answer]:
    """The same replies as native function calls (what a tools-mode model would send)."""
    answers = []
    for number, reply in enumerate(replies):
        action = parse_reply(reply)
        if isinstance(action, Invalid):  # an answer in words (a number), which a letter question would refuse
            action = parse_reply(reply, free_answer=True)
        call_id = f"call_{number}"
        if isinstance(action, Call):
            assert not action.positional
            answers.append(tool_call(action.name.replace(".", "__"), action.args, call_id))
        elif isinstance(action, ParsedAnswer):
            answers.append(tool_call("answer", {"letter": action.value}, call_id))
        else:
            assert isinstance(action, Finish), reply
            answers.append(tool_call("finish", {}, call_id))
    return answers


def llm_agent(server: ChatServer, *, api_key: str = "sk-test", retries: int = 2, **config: Any) -> LLMAgent:
    client = ChatClient(base_url=server.url, api_key=api_key, retries=retries)
    return LLMAgent(LLMConfig(model="script-model", base_url=server.url, **config), client)

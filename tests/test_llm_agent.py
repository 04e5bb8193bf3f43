"""The LLM agent through the real openai client against a real local chat-completions server."""

from __future__ import annotations

import json
import re

import msgspec
import pytest
from jsonschema import Draft202012Validator

from campus.agents import make_agent
from campus.agents.chat import ChatClient, ChatError
from campus.agents.llm import SESSION_FUNCTIONS, LLMConfig, call_as_text, call_messages, public_url
from campus.agents.variants import load_variant, variant_names
from campus.events import StructuredCall
from campus.kernel.agent import AgentView, Turn
from campus.kernel.parse import parse_reply, parse_structured
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.kernel.tools import from_wire_name
from campus.scenarios.play import new_run, open_run
from campus.replays.verify import verify
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import Term
from tests.chat_server import Answer, ChatServer, completion, error, text, tool_call
from campus.kernel.recorded import replies_of
from tests.llm_support import as_text_answers, as_tool_calls, llm_agent
from campus.world.index import WorldIndex

pytest_plugins = ["tests.llm_fixtures"]  # the short term and the oracle's script

KEY = "sk-test-very-secret-key"


def first_view(world: WorldIndex, term: Term) -> AgentView:
    run = new_run(MemoryStore(), world, term, agent_name="probe", seed=0)
    session = run.session(_Probe())
    session.run(max_steps=0)
    return session.view()


class _Probe:
    name = "probe"

    def act(self, view: AgentView) -> str:
        return "<action>Action: finish()</action>"


# ---------------------------------------------------------------- one request


def test_text_mode_sends_the_task_prompt_variant_and_chat_and_returns_the_text(world: WorldIndex, short_term: Term) -> None:
    view = first_view(world, short_term)
    with ChatServer([text("<action>Answer: B</action>")], api_key=KEY) as server:
        agent = llm_agent(server, api_key=KEY, variant="proactive", temperature=0.2, max_tokens=300)
        reply = agent.act(view)
    assert reply == "<action>Answer: B</action>"
    [sent] = server.requests
    system, *chat = sent["messages"]
    assert system["role"] == "system" and system["content"].startswith(view.prompt)
    assert load_variant("proactive") in system["content"]
    assert chat == [{"role": t.role, "content": t.content} for t in view.messages]
    assert sent["model"] == "script-model" and sent["temperature"] == 0.2 and sent["max_tokens"] == 300
    assert "tools" not in sent
    meta = agent.last_meta
    assert meta is not None and meta["prompt_tokens"] == 11 and meta["completion_tokens"] == 7 and meta["attempts"] == 1
    assert meta["latency_s"] > 0 and KEY not in json.dumps(meta) and KEY not in agent.name


def test_tools_mode_offers_every_tool_and_turns_a_call_into_a_structured_call(world: WorldIndex, short_term: Term) -> None:
    view = first_view(world, short_term)
    arguments = {"calendar_id": "self", "event_title": "Study", "location": "B076", "time": "Week 0, Monday, 10:00-10:50"}
    with ChatServer([tool_call("calendar__add_event", arguments, "call_abc")]) as server:
        agent = llm_agent(server, mode="tools")
        reply = agent.act(view)
    assert reply == StructuredCall(name="calendar.add_event", arguments=arguments, id="call_abc")
    offered = {f["function"]["name"] for f in server.requests[0]["tools"]}
    assert offered == {t.name.replace(".", "__") for t in view.tools} | {"answer", "finish"}
    assert len(offered) == len(view.tools) + 2


def test_tools_mode_reads_plain_text_as_a_text_reply_and_keeps_bad_arguments_verbatim(world: WorldIndex, short_term: Term) -> None:
    view = first_view(world, short_term)
    script = [text("<action>Action: finish()</action>"), tool_call("calendar__add_event", "{not json")]
    with ChatServer(script) as server:
        agent = llm_agent(server, mode="tools")
        assert agent.act(view) == "<action>Action: finish()</action>"
        kept = agent.act(view)
    assert kept == "calendar__add_event({not json)"
    assert parse_reply(kept).__class__.__name__ == "Invalid"


def test_tools_mode_shows_earlier_calls_back_as_calls_with_their_results() -> None:
    found = StructuredCall(name="map.find_building_id", arguments={"building_name": "Library"})
    turns = (
        Turn("user", "Current time: Week 0, Monday 09:00\nGo to the library."),
        Turn("assistant", "(shown to text-mode readers only)", found),
        Turn("user", "Library is B001."),
        Turn("assistant", "I will think first."),
        Turn("user", "Invalid action: no 'Action:' found."),
    )
    messages = call_messages(turns, frozenset({"map__find_building_id", "answer", "finish"}))
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "user"]
    call = messages[1]["tool_calls"][0]
    assert call["function"] == {"name": "map__find_building_id", "arguments": '{"building_name":"Library"}'}
    assert messages[2] == {"role": "tool", "tool_call_id": call["id"], "content": "Library is B001."}
    unknown = call_messages(turns, frozenset({"finish"}))
    assert [m["role"] for m in unknown] == ["user", "assistant", "user", "assistant", "user"]
    rendered_only = (turns[0], Turn("assistant", 'map__find_building_id({"building_name":"Library"})'), turns[2])
    assert [m["role"] for m in call_messages(rendered_only, frozenset({"map__find_building_id"}))] == ["user", "assistant", "user"]


def test_a_function_call_written_as_text_reads_back_as_the_same_action(oracle_replies: list[str]) -> None:
    for answer in as_tool_calls(oracle_replies):
        call = json.loads(answer.body)["choices"][0]["message"]["tool_calls"][0]["function"]
        arguments = json.loads(call["arguments"])
        written = call_as_text(call["name"], arguments)
        assert written is not None
        words = call["name"] == "answer" and not re.fullmatch(r"[A-Za-z]", arguments["letter"])  # a protocol's value
        assert parse_reply(written, free_answer=words) == parse_structured(from_wire_name(call["name"]), arguments,
                                                                           free_answer=words)
    tricky = {"body": 'He said "hi"\\n\ttabbed\nline two, {braces} (parens) \u00e9', "n": 3, "flag": True, "none": None,
              "items": [1, 2.5, "x"], "nested": {"a": [False]}}
    assert parse_reply(call_as_text("email__send_email", tricky)) == parse_structured("email.send_email", tricky)  # type: ignore[arg-type]


# ---------------------------------------------------------------- retries and errors


def test_a_rate_limit_and_server_errors_are_retried_by_the_client_honouring_retry_after() -> None:
    fast = {"retry-after-ms": "5"}
    script = [error(429, headers=fast), error(503, headers=fast), error(500, headers=fast), text("done")]
    with ChatServer(script) as server:
        client = ChatClient(base_url=server.url, api_key="k", retries=3)
        got = client.complete({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert got.content == "done" and got.attempts == 4 and len(server.requests) == 4


def test_retries_are_bounded_and_the_last_error_is_named() -> None:
    with ChatServer([error(429, headers={"retry-after-ms": "1"})] * 5) as server:
        client = ChatClient(base_url=server.url, api_key="k", retries=2)
        with pytest.raises(ChatError, match=r"answered 429: .*gave up after 3 attempts"):
            client.complete({"model": "m", "messages": []})
    assert len(server.requests) == 3


def test_a_timeout_is_the_clients_own_and_a_clear_error() -> None:
    slow = Answer(200, text("late").body, delay=0.5)
    with ChatServer([slow]) as server:
        client = ChatClient(base_url=server.url, api_key="k", retries=0, timeout=0.05)
        with pytest.raises(ChatError, match=r"did not answer in time$"):
            client.complete({"model": "m", "messages": []})


@pytest.mark.parametrize(("content", "reasoning_content", "reply", "reasoning"), [
    ("<think>plan the walk</think>\n<action>Answer: B</action>", None, "<action>Answer: B</action>", "plan the walk"),
    ("weigh the options</think><action>Answer: C</action>", None, "<action>Answer: C</action>", "weigh the options"),
    ("<action>Answer: A</action>", "the server split it", "<action>Answer: A</action>", "the server split it"),
    ("<action>Answer: A</action> <think>not leading</think>", None, "<action>Answer: A</action> <think>not leading</think>", None),
])
def test_reasoning_is_split_from_the_reply_and_kept_in_meta(world: WorldIndex, short_term: Term, content: str,
                                                            reasoning_content: str | None, reply: str, reasoning: str | None) -> None:
    answer = completion(content)
    if reasoning_content is not None:
        body = json.loads(answer.body)
        body["choices"][0]["message"]["reasoning_content"] = reasoning_content
        answer = Answer(200, json.dumps(body).encode())
    with ChatServer([answer]) as server:
        agent = llm_agent(server)
        got = agent.act(first_view(world, short_term))
    assert got == reply
    assert agent.last_meta is not None and agent.last_meta.get("reasoning") == reasoning


@pytest.mark.parametrize("body", [b"<html>bad gateway</html>", b'{"id": "x"}', b'{"choices": []}',
                                  b'{"choices": [{"message": {"content": 5}}]}'])
def test_a_malformed_response_is_a_clear_error_and_not_retried(body: bytes) -> None:
    with ChatServer([Answer(200, body)] * 3) as server:
        client = ChatClient(base_url=server.url, api_key="k", retries=2)
        with pytest.raises(ChatError) as raised:
            client.complete({"model": "m", "messages": []})
    message = str(raised.value)
    assert ("did not return a chat completion" in message or "not text" in message) and "\n" not in message
    assert len(server.requests) == 1


def test_bad_credentials_and_an_unreachable_endpoint_are_one_line_errors() -> None:
    with ChatServer([text("never")], api_key=KEY) as server:
        client = ChatClient(base_url=server.url, api_key="sk-wrong", retries=3)
        with pytest.raises(ChatError, match=r"refused the API key \(401\).*OPENAI_API_KEY"):
            client.complete({"model": "m", "messages": []})
        assert len(server.requests) == 1
        url = server.url
    client = ChatClient(base_url=url, api_key="k", retries=1)
    with pytest.raises(ChatError, match=r"cannot reach the model endpoint .* \(gave up after 2 attempts\)") as raised:
        client.complete({"model": "m", "messages": []})
    assert "\n" not in str(raised.value)


def test_an_endpoint_failure_stops_the_run_at_a_step_boundary_and_resume_goes_on(
        world: WorldIndex, short_term: Term, oracle_replies: list[str], oracle_run, tmp_path) -> None:
    store = SQLiteStore(tmp_path / "runs.db")
    agent_spec = LLMConfig(model="script-model").spec()
    run = new_run(store, world, short_term, agent_name=agent_spec, seed=0, branch_id="interrupted")
    with ChatServer(as_text_answers(oracle_replies[:40]) + [error(401)]) as server:
        with pytest.raises(ChatError, match="401"):
            run.session(llm_agent(server)).run()
    assert len(replies_of(store, "interrupted")) == 40
    with ChatServer(as_text_answers(oracle_replies[40:])) as server:
        open_run(store, "interrupted").session(llm_agent(server)).run()
        assert len(server.requests) == len(oracle_replies) - 40
    oracle_events = [(r.seq, r.t, r.payload) for r in oracle_run.store.rows(oracle_run.branch.id)]
    assert [(r.seq, r.t, r.payload) for r in store.rows("interrupted")] == oracle_events  # the oracle's replies, its events
    assert [r.text for r in replies_of(store, "interrupted")] == oracle_replies
    store.close()


def test_a_completion_holding_what_utf8_cannot_carry_or_counts_that_are_no_counts_plays_on(
        world: WorldIndex, short_term: Term, tmp_path) -> None:
    """A lone surrogate sent as a JSON escape (in the model's name, the finish reason, a call's arguments text) is data,
    as in a reply's text; usage that cannot be a count ("many", -5, 10**30) is not counted. The run goes on and verifies."""
    arguments = '{"calendar_id": "self", "event_title": "\ud800 Study", "location": "B076", "time": "Week 0, Monday, 10:00-10:50"}'
    odd = json.loads(tool_call("calendar__add_event", arguments).body)
    odd["model"], odd["choices"][0]["finish_reason"] = "m\ud800", "\udfff"
    odd["usage"] = {"prompt_tokens": "many", "completion_tokens": -5, "total_tokens": 10**30}
    store = SQLiteStore(tmp_path / "odd.db")
    run = new_run(store, world, short_term, agent_name=LLMConfig(model="script-model", mode="tools").spec(), seed=0)
    with ChatServer([Answer(200, json.dumps(odd).encode())] * 2) as server:
        run.session(llm_agent(server, mode="tools")).run(max_steps=2)
    calls = [r.call for r in replies_of(store, run.branch.id)]
    assert [c.arguments["event_title"] if c else None for c in calls] == ["\ufffd Study"] * 2
    metas = [msgspec.json.decode(r.meta) for r in store.rows(run.branch.id) if r.kind == "agent_replied"]
    assert [(m["model"], m["finish_reason"]) for m in metas] == [("m\ufffd", "\ufffd")] * 2
    assert not {"prompt_tokens", "completion_tokens", "total_tokens"} & {key for m in metas for key in m}
    assert verify(open_run(store, run.branch.id)).ok
    store.close()


# ---------------------------------------------------------------- a whole term through HTTP


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["text", "tools"])
def test_a_short_term_through_the_endpoint_scores_what_the_oracle_scored(
        mode: str, world: WorldIndex, short_term: Term, oracle_replies: list[str], oracle_run) -> None:
    script = as_text_answers(oracle_replies) if mode == "text" else as_tool_calls(oracle_replies)
    store = MemoryStore()
    agent = None
    with ChatServer(script, api_key=KEY) as server:
        agent = llm_agent(server, api_key=KEY, mode=mode)
        run = new_run(store, world, short_term, agent_name=agent.name, seed=0)
        run.session(agent).run()
    assert len(server.requests) == len(oracle_replies)
    card = scorecard(short_term, run.ended_tasks())
    assert card == scorecard(short_term, oracle_run.ended_tasks())
    assert card["stugpa"]["total"] == 100.0
    rows = [r for r in store.rows(run.branch.id) if r.kind == "agent_replied"]
    metas = [msgspec.json.decode(r.meta) for r in rows]
    assert all(m["total_tokens"] == 18 and m["latency_s"] > 0 and m["model"] == "script-model" for m in metas)
    assert not any(KEY in (r.meta or "") + r.payload for r in store.rows(run.branch.id))
    if mode == "tools":
        calls = replies_of(store, run.branch.id)
        assert sum(r.call is not None for r in calls) == len(oracle_replies)


# ---------------------------------------------------------------- config and variants


def test_the_spec_rebuilds_the_config_without_the_key_or_url_secrets() -> None:
    config = LLMConfig(model="llama3.1:8b", base_url="http://alice:s3cr3t@localhost:11434/v1/?sig=abc123", mode="tools",
                       variant="skill", memory="bm25", memory_tokens=900, temperature=0.5, max_tokens=64)
    spec = config.spec()
    assert spec.startswith("llm:model=llama3.1:8b;") and not any(secret in spec for secret in ("s3cr3t", "abc123", "alice"))
    again = LLMConfig.from_spec(spec)
    assert again == msgspec.structs.replace(config, base_url="http://localhost:11434/v1")
    assert public_url("https://api.openai.com/v1/") == "https://api.openai.com/v1"


def test_variants_are_files_and_an_unknown_one_names_the_choices() -> None:
    assert set(variant_names()) == {"vanilla", "proactive", "skill", "all-in-one"}
    texts = {name: load_variant(name) for name in variant_names()}
    assert len(set(texts.values())) == 4 and all(texts.values())
    assert "calendar" in texts["all-in-one"].lower() and len(texts["vanilla"]) < len(texts["proactive"])
    with pytest.raises(ValueError, match="all-in-one, proactive, skill, vanilla"):
        load_variant("clever")


@pytest.mark.parametrize(("field", "value", "message"), [
    ("mode", "json", "unknown mode 'json'; choose one of: text, tools"),
    ("memory", "vector", "unknown memory 'vector'; choose one of: none, history, bm25, scratchpad"),
    ("variant", "x", "unknown prompt variant 'x'"),
    ("base_url", "localhost:8000", "must start with http"),
    ("temperature", 3.0, "between 0 and 2"),
    ("model", "", "needs a model"),
])
def test_a_bad_config_is_a_clear_error(field: str, value: object, message: str) -> None:
    fields = {"model": "m"} | {field: value}
    with pytest.raises(ValueError, match=message):
        LLMConfig(**fields).check()  # type: ignore[arg-type]


def test_session_functions_are_valid_function_schemas() -> None:
    assert [f["function"]["name"] for f in SESSION_FUNCTIONS] == ["answer", "finish"]
    for function in SESSION_FUNCTIONS:
        Draft202012Validator.check_schema(function["function"]["parameters"])
    Draft202012Validator(SESSION_FUNCTIONS[0]["function"]["parameters"]).validate({"letter": "B"})


@pytest.mark.parametrize("mode", ["text", "tools"])
def test_a_busy_day_reaches_the_model_as_one_growing_conversation(mode: str, world: WorldIndex, short_term: Term) -> None:
    """The day's brief, every call's result and what interrupts it (later errands, reminders, the follow-up handed out
    by an answer) go to the model in one chat that grows turn by turn; nothing in the caller knows it is a busy day."""
    day = next(task for task in short_term.tasks if task.scenario == "busy_days")
    term = msgspec.structs.replace(short_term, tasks=(day,), rules=())
    oracle = new_run(MemoryStore(), world, term, agent_name="oracle", seed=0)
    oracle.session(make_agent("oracle", term, world)).run()
    replies = [r.text or "" for r in replies_of(oracle.store, oracle.branch.id)]
    script = as_text_answers(replies) if mode == "text" else as_tool_calls(replies)
    with ChatServer(script) as server:
        run = new_run(MemoryStore(), world, term, agent_name="llm", seed=0)
        run.session(llm_agent(server, mode=mode)).run()
    chats = [request["messages"][1:] for request in server.requests]  # after the system prompt
    assert len(chats) == len(replies) > 20 and "A busy day." in chats[0][0]["content"]
    for before, after in zip(chats, chats[1:]):
        assert after[:len(before)] == before and len(after) == len(before) + 2
    told = "\n".join(str(message["content"]) for message in chats[-1] if message["role"] in ("user", "tool"))
    for said in ("Reminder: ", "New errand [", "also hands you an errand"):
        assert said in told, said
    (ended,) = run.ended_tasks()
    assert ended.outcome == "success"

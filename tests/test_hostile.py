"""Hostile input at the agent boundary: whatever is pushed (text, structured calls, MCP lines), no
exception escapes, a refused or failed call changes nothing, what is dispatched is what is stored,
and the run always verifies."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.env import Env
from campus.env.mcp_server import malformed
from campus.events import AgentReplied, StructuredCall, ToolCalled, ToolResult, decode_event
from campus.agents import make_agent
from campus.kernel.admit import MAX_INT_BITS, MAX_NAME, META_LIMIT, REPLY_LIMIT, admit, admit_meta
from campus.kernel.recorded import replies_of
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.replays.verify import verify
from campus.scenarios.play import new_run, open_run
from campus.scenarios.task import Term
from campus.scenarios.term import generate_term
from campus.world.index import WorldIndex

@pytest.fixture
def env(world: WorldIndex) -> Env:
    made = Env(seed=3, scale=0.2, world=world)
    made.reset()
    return made


def rows_of(env: Env) -> list[Any]:
    return env.run.store.rows(env.run.branch.id)


@pytest.mark.parametrize("number", ["25.0", "1e5", "-0.0", "2E+1"])
def test_what_is_dispatched_is_what_is_stored(env: Env, number: str) -> None:
    env.step(f'<action>Action: calendar.add_event(calendar_id={number}, event_title="x", location="y", time="z")</action>')
    env.step(StructuredCall(name="calendar.add_event", arguments={"calendar_id": float(number), "event_title": "x"}))
    report = verify(env.run, deep=True)
    assert report.ok, report.mismatch


def test_a_lone_surrogate_is_data_and_the_env_goes_on(env: Env) -> None:
    observation, *_ = env.step("\ud800 <action>Action: finish()</action> \udfff")
    assert "over" in observation
    env.step(StructuredCall(name="calendar.add_event", arguments={"calendar_id": "\udc00", "\ud801": 1}))
    env.step("<action>Action: finish()</action>")
    texts = [decode_event(r.payload) for r in rows_of(env)]
    assert any(isinstance(e, AgentReplied) and e.text and "\ufffd" in e.text for e in texts)
    assert verify(env.run, deep=True).ok


@pytest.mark.parametrize("arguments", [[1, 2], 3, "[1]", "{not json", {"a": float("nan")}, {"a": [float("inf")]},
                                       {1: "a"}, {"a": object()}, {"a": "x" * (REPLY_LIMIT + 1)}, {"a": [10**5000]},
                                       {"a": 2**(MAX_INT_BITS + 1)}])
def test_malformed_structured_arguments_are_refused_before_anything_is_committed(env: Env, arguments: Any) -> None:
    head = env.final_hash()
    observation, reward, terminated, truncated, info = env.step(StructuredCall(name="calendar.add_event", arguments=arguments))
    assert observation.startswith("Invalid action:") and "Nothing was done" in observation
    assert env.final_hash() == head
    assert verify(env.run).ok


def test_a_call_id_longer_than_a_tool_name_may_be_is_refused(env: Env) -> None:
    """A call's id is hashed into the log with the call: 30 MB ids made a 96 MB database from three calls."""
    head = env.final_hash()
    observation, *_ = env.step(StructuredCall(name="calendar.view_schedule", arguments={}, id="i" * (MAX_NAME + 1)))
    assert observation.startswith("Invalid action:") and f"at most {MAX_NAME} characters" in observation
    assert env.final_hash() == head
    env.step(StructuredCall(name="calendar.view_schedule", arguments={}, id="i" * MAX_NAME))
    assert env.final_hash() != head and verify(env.run).ok


def test_metadata_is_kept_within_its_limit() -> None:
    """A reasoning model's 3 MB of thinking went whole into the row's meta; texts in it are cut as a reply is, and
    metadata still too long is replaced by a note of its length."""
    small = {"usage": {"prompt_tokens": 10}, "latency_s": 0.5}
    assert admit_meta(small) == msgspec.json.encode(small).decode()
    thought = admit_meta({"usage": {"prompt_tokens": 10}, "reasoning": "t" * 3_000_000})
    assert thought is not None and len(thought) <= META_LIMIT
    kept = msgspec.json.decode(thought)
    assert kept["usage"] == {"prompt_tokens": 10} and kept["reasoning"].endswith("of 3000000 characters]")
    crowded = admit_meta({f"k{i}": "v" * 1000 for i in range(1000)})
    assert crowded is not None and len(crowded) <= META_LIMIT and "characters as JSON" in msgspec.json.decode(crowded)["cut"]


def test_the_longest_whole_number_admitted_is_stored_and_verifies(env: Env) -> None:
    largest = 2**MAX_INT_BITS - 1
    assert len(str(largest)) <= 4_000 < len(str(2**(MAX_INT_BITS + 1)))
    observation, *_ = env.step(StructuredCall(name="calendar.add_event", arguments={"calendar_id": -largest}))
    assert "must be a string, not an integer" in observation
    stored = [e for e in map(decode_event, (r.payload for r in rows_of(env))) if isinstance(e, ToolCalled)]
    assert stored[-1].args == {"calendar_id": -largest}
    assert verify(env.run, deep=True).ok


@pytest.mark.parametrize("arguments", ['{"calendar_id": "self"}', None, "  "])
def test_structured_arguments_as_json_text_or_none_are_read_as_an_object(env: Env, arguments: Any) -> None:
    env.step(StructuredCall(name="calendar.add_event", arguments=arguments))
    calls = [e for e in map(decode_event, (r.payload for r in rows_of(env))) if isinstance(e, AgentReplied) and e.call]
    assert isinstance(calls[-1].call.arguments, dict)
    assert verify(env.run, deep=True).ok


def test_a_long_reply_is_cut_with_a_marker_and_its_length_in_meta(env: Env) -> None:
    env.step("x" * (3 * REPLY_LIMIT))
    row = next(r for r in reversed(rows_of(env)) if r.kind == "agent_replied")
    replied = decode_event(row.payload)
    assert isinstance(replied, AgentReplied) and replied.text is not None
    assert len(replied.text) <= REPLY_LIMIT and replied.text.endswith(f"of {3 * REPLY_LIMIT} characters]")
    assert msgspec.json.decode(row.meta)["reply_chars"] == 3 * REPLY_LIMIT
    assert "reply cut" in env.view().messages[-2].content
    assert verify(env.run, deep=True).ok


class _Sly(str):
    """Text whose methods are an agent's own code."""

    def isascii(self) -> bool:
        raise RuntimeError("not telling")

    def __str__(self) -> str:
        raise RuntimeError("not telling")


def test_a_reply_of_a_str_subclass_is_read_as_the_plain_text_it_holds(env: Env) -> None:
    observation, *_ = env.step(_Sly("<action>Action: calendar.view_schedule(calendar_id=\"self\")</action>"))
    assert not observation.startswith("Invalid action")
    replies = [e for e in map(decode_event, (r.payload for r in rows_of(env))) if isinstance(e, AgentReplied)]
    assert replies[-1].text == '<action>Action: calendar.view_schedule(calendar_id="self")</action>'
    assert verify(env.run, deep=True).ok


class _SlyDict(dict):
    def items(self) -> Any:
        raise RuntimeError("not telling")

    def __iter__(self) -> Any:
        raise RuntimeError("not telling")


class _Rehashed:
    """A key whose hash works once (when it went into its object) and never again."""

    hashed = False

    def __hash__(self) -> int:
        if self.hashed:
            raise RuntimeError("not telling")
        self.hashed = True
        return 1


class _SlyList(list):
    def __iter__(self) -> Any:
        raise RuntimeError("not telling")


class _SlyInt(int):
    def bit_length(self) -> int:
        raise RuntimeError("not telling")


class _SlyFloat(float):
    def __repr__(self) -> str:
        raise RuntimeError("not telling")


def test_a_structured_call_built_of_subclasses_is_read_as_the_plain_values_they_hold(env: Env) -> None:
    """Each of these raised out of ``Env.step`` (or stopped an agent object's session): admission ran their methods."""
    plain = {"calendar_id": "self", "event_title": "Study", "location": "B076", "time": "Week 0, Monday, 10:00-10:50"}
    sly = _SlyDict({_Sly("calendar_id"): _Sly("self"), "event_title": "Study", "location": "B076",
                    "time": "Week 0, Monday, 10:00-10:50", "tags": _SlyList([_SlyInt(3), _SlyFloat(2.5), (1, _Sly("x"))])})
    observation, *_ = env.step(StructuredCall(name=_Sly("calendar.add_event"), arguments=sly, id=_Sly("c1")))
    assert "has no parameter 'tags'" in observation  # read, then refused by the tool's own check
    calls = [e for e in map(decode_event, (r.payload for r in rows_of(env))) if isinstance(e, AgentReplied) and e.call]
    assert calls[-1].call == StructuredCall(name="calendar.add_event", arguments=plain | {"tags": [3, 2.5, [1, "x"]]}, id="c1")
    observation, *_ = env.step(StructuredCall(name="calendar.add_event", arguments=_SlyDict(plain)))
    assert not observation.startswith("Invalid action") and "has no parameter" not in observation
    nameless = _SlyDict()
    nameless[_Rehashed()] = 1
    observation, *_ = env.step(StructuredCall(name="calendar.add_event", arguments={"calendar_id": nameless}))
    assert observation.startswith("Invalid action: an argument name is not text")
    assert verify(env.run, deep=True).ok


def test_admitting_is_idempotent() -> None:
    for reply in ["\ud800x", "y" * (REPLY_LIMIT + 5), StructuredCall(name="a.b", arguments={"z": 1.0, "a": [-0.0]})]:
        once = admit(reply).reply
        assert admit(once).reply == once


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
tool_names = st.sampled_from(["calendar.add_event", "calendar__add_event", "map.find_building_id", "finish", "answer",
                              "geography.walk_to", "nope", "", "\ud800"])
replies = st.one_of(
    st.text(max_size=200),
    st.builds(lambda name, args: f"<action>Action: {name}({args})</action>", tool_names, st.text(max_size=60)),
    st.builds(StructuredCall, name=tool_names, arguments=st.dictionaries(st.text(max_size=8), json_values, max_size=4)),
    st.builds(StructuredCall, name=tool_names, arguments=st.one_of(st.none(), st.text(max_size=40), st.lists(st.integers()))),
)


@pytest.fixture(scope="module")
def small_env(world: WorldIndex) -> Env:
    """One env for every example below: each ``reset`` starts a fresh run in a fresh store, on the term made once."""
    return Env(seed=3, scale=0.05, world=world)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(replies, min_size=1, max_size=6))
def test_nothing_pushed_at_the_env_escapes_or_breaks_the_log(small_env: Env, pushed: list[Any]) -> None:
    env = small_env
    env.reset()
    assert [row.kind for row in rows_of(env)] == ["run_started", "day_started", "time_announced", "task_released"]  # fresh
    for reply in pushed:
        before = len(rows_of(env))
        observation, *_, info = env.step(reply)
        assert isinstance(observation, str)
        new = [decode_event(r.payload) for r in rows_of(env)[before:]]
        results = [e for e in new if isinstance(e, ToolResult)]
        if results and results[0].status != "ok":  # a failed call: nothing between the call and its result
            call = next(i for i, e in enumerate(new) if isinstance(e, ToolCalled))
            assert isinstance(new[call + 1], ToolResult)
        if info["task"] is None:
            break
    report = verify(env.run, deep=True)
    assert report.ok, report.mismatch


@pytest.mark.parametrize("line", [
    "not json",
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"observe","arguments":{"x":"\\ud800"}}}',
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"observe","arguments":{"x":' + "1" * 5000 + "}}}",
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"x":' + "[" * 5000 + "]" * 5000 + "}}}",
])
def test_every_malformed_mcp_line_gets_a_json_rpc_error(line: str) -> None:
    error = malformed(line)
    assert error is not None and error.error.code in (-32700, -32600)
    assert error.id == (None if line == "not json" else 7)
    assert malformed('{"jsonrpc":"2.0","id":1,"method":"ping"}') is None


@pytest.mark.parametrize("request_id", ['{"a":1}', "[1]", "true", "1.5", "null", "1e2"])
def test_a_request_whose_id_is_no_string_or_integer_gets_an_error_not_silence(request_id: str) -> None:
    """The SDK reads such a request as a notification and answers nothing, so the client waited for ever."""
    line = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"observe","arguments":{}}}' % request_id
    error = malformed(line)
    assert error is not None and error.error.code == -32600 and error.id is None and "an id is" in error.error.message
    assert malformed('{"jsonrpc":"2.0","method":"notifications/initialized"}') is None
    assert malformed('{"jsonrpc":"2.0","method":"notifications/x","params":{"id":{"a":1}}}') is None


def test_the_mcp_server_answers_a_malformed_line_and_serves_on(tmp_path: Path) -> None:
    # Unbuffered, so readline takes one line off the pipe and select sees the rest: a buffered reader
    # could swallow all three answers at once and leave select waiting on an empty pipe.
    process = subprocess.Popen([sys.executable, "-m", "campus.cli.main", "mcp", "--db", str(tmp_path / "m.db"), "--scale", "0.05"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=tmp_path, bufsize=0)
    assert process.stdin is not None and process.stdout is not None
    try:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        for message in [json.dumps(initialize), '{"jsonrpc":"2.0","method":"notifications/initialized"}', "not json",
                        '{"jsonrpc":"2.0","id":2,"method":"ping"}']:
            process.stdin.write(message.encode() + b"\n")
        process.stdin.flush()
        answers = []
        while len(answers) < 3 and select.select([process.stdout], [], [], 60)[0]:
            answers.append(json.loads(process.stdout.readline()))
        assert [a.get("id") for a in answers] == [1, None, 2]
        assert answers[1]["error"]["code"] == -32700
    finally:
        process.kill()
        process.wait()


class _Odd:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def _looping() -> dict[str, Any]:
    meta: dict[str, Any] = {"tokens": 3}
    meta["self"] = meta
    return meta


class _MetaAgent:
    """The oracle's replies, each with metadata an agent may well hold: what JSON cannot say, text UTF-8 cannot carry."""

    name = "meta-agent"

    def __init__(self, replies: list[str], meta: Any) -> None:
        self.replies, self.meta, self.last_meta = iter(replies), meta, None

    def act(self, view: Any) -> str:
        self.last_meta = self.meta
        return next(self.replies)


@pytest.fixture(scope="module")
def oracle_script(world: WorldIndex) -> tuple[Term, list[str]]:
    term = generate_term(world, 3, scale=0.05)
    oracle = new_run(MemoryStore(), world, term, agent_name="oracle", seed=3)
    oracle.session(make_agent("oracle", term, world)).run()
    return term, [r.text or "" for r in replies_of(oracle.store, oracle.branch.id)]


@pytest.mark.parametrize("meta", [{"model": "\ud800"}, {"tags": {1, 2}, "at": object()}, {"x": _Odd()}, {b"k": b"v"},
                                  _looping(), ["a", "\udfff"], "\ud800", 7])
def test_an_agents_odd_metadata_is_kept_as_json_and_the_run_goes_on(world: WorldIndex, oracle_script: tuple[Term, list[str]],
                                                                    meta: Any, tmp_path: Path) -> None:
    term, replies = oracle_script
    plain = new_run(MemoryStore(), world, term, agent_name="meta-agent", seed=3)
    plain.session(_MetaAgent(replies, None)).run()  # type: ignore[arg-type]
    store = SQLiteStore(tmp_path / "meta.db")
    run = new_run(store, world, term, agent_name="meta-agent", seed=3)
    run.session(_MetaAgent(replies, meta)).run()  # type: ignore[arg-type]
    assert store.head(run.branch.id) == plain.store.head(plain.branch.id)  # every reply played; the metadata is outside the chain
    metas = [row.meta for row in store.rows(run.branch.id) if row.kind == "agent_replied"]
    assert len(metas) == len(replies) and all(isinstance(msgspec.json.decode(m), (dict, list, str, int)) for m in metas)
    assert verify(open_run(store, run.branch.id)).ok
    store.close()

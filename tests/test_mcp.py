"""`campus mcp` driven by the MCP SDK's real stdio client, in a real subprocess, through whole short terms.

The strong check: the oracle's replies, turned into MCP tool calls and sent through the client,
give the very same log (final hash) as the same calls pushed straight into a session, and the
oracle's scorecard. Bad arguments give an error result and leave the log as it was.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from campus.agents.oracle import OracleAgent
from campus.env.driver import TERM_OVER, Driver
from campus.env.mcp_server import Play
from campus.events import StructuredCall
from campus.kernel.agent import AgentView
from campus.kernel.parse import Answer, Call, Finish, Invalid, parse_reply
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.kernel.tools import wire_name
from campus.replays.verify import verify
from campus.scenarios.play import new_run, open_run
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import Term
from campus.scenarios.term import generate_term
from campus.world.index import WorldIndex

ROOT = Path(__file__).resolve().parents[1]
SCALE = 0.05

Session = Callable[[ClientSession], Awaitable[Any]]


def serve(db: Path, *args: str, script: Session) -> Any:
    """Spawn `campus mcp --db DB ARGS` and run ``script`` against it through the SDK's stdio client."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "campus.cli.main", "mcp", "--db", str(db), *args],
                                   cwd=str(db.parent), env={"PYTHONPATH": str(ROOT)})

    async def main() -> Any:
        async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await script(session)

    return anyio.run(main)


def as_mcp_call(reply: str) -> tuple[str, dict[str, Any]]:
    """An oracle text reply as the MCP tool call that says the same thing."""
    action = parse_reply(reply)
    if isinstance(action, Invalid):  # not a letter: a protocol's value, answered in words
        return "answer", {"answer": parse_reply(reply, free_answer=True).value}  # type: ignore[union-attr]
    if isinstance(action, Call):
        assert not action.positional, reply
        return wire_name(action.name), dict(action.args)
    if isinstance(action, Answer):
        return "answer", {"letter": action.value}
    assert isinstance(action, Finish), reply
    return "finish", {}


class OracleAsCalls:
    """The oracle, replying with the structured calls an MCP client sends; it keeps what it sent."""

    name = "oracle"

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.oracle = OracleAgent(term, world)
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def act(self, view: AgentView) -> StructuredCall:
        name, arguments = as_mcp_call(self.oracle.act(view))  # type: ignore[arg-type]
        self.sent.append((name, arguments))
        return StructuredCall(name=name, arguments=arguments)


@pytest.fixture(scope="module")
def short_term(world: WorldIndex) -> Term:
    return generate_term(world, 0, SCALE)  # what `campus mcp --seed 0 --scale 0.05` plays


@pytest.fixture(scope="module")
def oracle_calls(world: WorldIndex, short_term: Term) -> dict[str, Any]:
    """The oracle's calls pushed straight into a session: the log an MCP client must reproduce."""
    store = MemoryStore()
    agent = OracleAsCalls(short_term, world)
    run = new_run(store, world, short_term, agent_name="mcp", seed=0)  # the agent an MCP run records (bound in its chain)
    run.session(agent).run()
    text_run = new_run(store, world, short_term, agent_name="oracle", seed=0, branch_id="text")
    text_run.session(OracleAgent(short_term, world)).run()
    return {"calls": agent.sent, "hash": store.head(run.branch.id)[1], "card": scorecard(short_term, run.ended_tasks()),
            "text_card": scorecard(short_term, text_run.ended_tasks())}


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def test_a_client_plays_the_term_and_the_log_equals_the_direct_run(tmp_path: Path, world: WorldIndex,
                                                                   short_term: Term, oracle_calls: dict[str, Any]) -> None:
    db = tmp_path / "runs.db"
    calls = oracle_calls["calls"]
    seen: dict[str, Any] = {}

    async def script(session: ClientSession) -> None:
        listing = (await session.list_tools()).tools
        seen["tools"] = {tool.name: tool for tool in listing}
        first = await session.call_tool("observe", {})
        seen["first"] = (first.is_error, text_of(first), first.structured_content)
        bad = [
            await session.call_tool("calendar__view_schedule", {"calendar_id": 3}),
            await session.call_tool("calendar__view_schedule", {"calendar": "self"}),
            await session.call_tool("answer", {"letter": "BB"}),
            await session.call_tool("finish", {"now": True}),
            await session.call_tool("teleport", {}),
        ]
        seen["bad"] = [(r.is_error, text_of(r)) for r in bad]
        seen["after_bad"] = text_of(await session.call_tool("observe", {}))
        results = []
        for index, (name, arguments) in enumerate(calls):
            results.append(await session.call_tool(name, arguments))
            if index >= len(calls) // 2 and "middle" not in seen and not results[-1].structured_content["tasks_ended"]:
                seen["middle"] = text_of(await session.call_tool("observe", {}))  # inside a task, past its first reply
            if "Reminder: " in text_of(results[-1]) and "busy" not in seen:
                seen["busy"] = text_of(await session.call_tool("observe", {}))  # the busy day, interrupted
        seen["results"] = results
        seen["over"] = text_of(await session.call_tool("observe", {}))
        late = await session.call_tool("finish", {})
        seen["late"] = (late.is_error, text_of(late))

    serve(db, "--seed", "0", "--scale", str(SCALE), script=script)

    kernel_tools = new_run(MemoryStore(), world, short_term, agent_name="x", seed=0).kernel.tools.values()
    tools = seen["tools"]
    assert set(tools) == {wire_name(t.name) for t in kernel_tools} | {"observe", "answer", "finish"}
    for decl in kernel_tools:
        listed = tools[wire_name(decl.name)]
        assert listed.input_schema == decl.json_schema()
        assert listed.annotations.read_only_hint is (not decl.mutates)
        assert listed.annotations.destructive_hint is decl.mutates
    assert tools["observe"].annotations.read_only_hint is True
    answer_schema = tools["answer"].input_schema
    assert set(answer_schema["properties"]) == {"letter", "answer"} and answer_schema["maxProperties"] == 1

    is_error, first, status = seen["first"]
    first_task = short_term.tasks[0]
    assert not is_error and "Task 1 - Week 0, Monday" in first and "calendar__add_event" in first
    assert first_task.id not in first
    assert status == {"run": "mcp-s0", "task": 1, "time": "Week 0, Monday 07:00", "tasks_ended": 0, "term_over": False}
    assert all(is_error for is_error, _ in seen["bad"])
    assert "argument 'calendar_id' must be a string" in seen["bad"][0][1]
    assert "has no parameter 'calendar'" in seen["bad"][1][1]
    assert "single option letter" in seen["bad"][2][1] and "takes no arguments" in seen["bad"][3][1]
    assert "no tool named 'teleport'" in seen["bad"][4][1]
    assert seen["after_bad"] == first  # nothing was recorded, no reply was used
    assert "> You: " in seen["middle"]

    results = seen["results"]
    assert not any(r.is_error for r in results)  # the oracle never makes a failing call
    assert results[-1].structured_content["term_over"] is True and TERM_OVER in text_of(results[-1])
    assert sum(r.structured_content["tasks_ended"] for r in results) == len(short_term.tasks)
    assert not any(task.id in text_of(r) for r in results for task in short_term.tasks)
    assert sum("is over" in text_of(r) for r in results) == len(short_term.tasks)
    assert seen["over"].startswith(TERM_OVER)
    opened = next(i for i, r in enumerate(results) if "A busy day." in text_of(r))
    closed = next(i for i, r in enumerate(results) if i > opened and r.structured_content["tasks_ended"])
    day = [text_of(r) for r in results[opened + 1:closed + 1]]
    assert len({r.structured_content["task"] for r in results[opened:closed]}) == 1  # one task, one conversation
    for said in ("Reminder: ", "New errand [", "also hands you an errand", "Mentor feedback on today"):
        assert any(said in text for text in day), said
    assert "A busy day." in seen["busy"] and seen["busy"].index("A busy day.") < seen["busy"].index("Reminder: ")
    assert seen["late"] == (True, TERM_OVER)

    store = SQLiteStore(db)
    try:
        run = open_run(store, "mcp-s0")
        assert store.head("mcp-s0")[1] == oracle_calls["hash"]
        card = scorecard(run.term, run.ended_tasks())
        assert card == oracle_calls["card"] == oracle_calls["text_card"]
        assert card["stugpa"]["total"] == 100.0
        replied = store.conn.execute(
            "SELECT json_extract(payload, '$.call.name'), json_extract(payload, '$.text') FROM events "
            "WHERE branch = 'mcp-s0' AND kind = 'agent_replied' ORDER BY seq").fetchall()
        assert [name for name, _ in replied] == [name.replace("__", ".") for name, _ in calls]  # dotted in the log
        assert all(text is None for _, text in replied)
        assert verify(run).ok
    finally:
        store.close()


@pytest.mark.slow  # two server processes, ~3-5 s
def test_unavailable_tools_are_recorded_refusals_and_a_run_resumes(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    seen: dict[str, Any] = {}

    async def first_visit(session: ClientSession) -> None:
        refused = await session.call_tool("email__send_email", {"to": "a@b.c", "subject": "s", "body": "b"})
        seen["refused"] = (refused.is_error, text_of(refused))
        seen["looked"] = await session.call_tool("calendar__view_schedule", {"calendar_id": "self", "date": "Week 0, Monday"})
        seen["observed"] = text_of(await session.call_tool("observe", {}))

    async def second_visit(session: ClientSession) -> None:
        seen["resumed"] = text_of(await session.call_tool("observe", {}))
        seen["finished"] = await session.call_tool("finish", {})

    serve(db, "--seed", "1", "--scale", str(SCALE), "--agent-name", "probe", script=first_visit)
    serve(db, "--resume", "probe-s1", script=second_visit)

    is_error, text = seen["refused"]
    assert is_error and "email__send_email is not available in this task" in text
    assert not seen["looked"].is_error
    assert " - 2 of " in seen["observed"]  # the refused call spent a reply, like any agent's
    assert seen["resumed"] == seen["observed"]
    assert '> You: email__send_email({"body":"b","subject":"s","to":"a@b.c"})' in seen["resumed"]
    assert "is over (you finished it)" in text_of(seen["finished"])

    store = SQLiteStore(db)
    try:
        run = open_run(store, "probe-s1")
        assert run.branch.agent == "probe"
        kinds = [row.kind for row in store.rows("probe-s1")]
        assert kinds.count("agent_replied") == 3 and kinds.count("tool_called") == 2
        assert [e.reason for e in run.ended_tasks()] == ["finish"]
        assert verify(run).ok
    finally:
        store.close()


def test_bad_arguments_change_nothing(world: WorldIndex, short_term: Term) -> None:
    """Every way of calling wrongly, in process: an error result, the same head, the same turn count."""
    driver = Driver(new_run(MemoryStore(), world, short_term, agent_name="mcp", seed=0))
    play = Play(driver)
    head = driver.head()
    wrong: list[tuple[str, dict[str, Any] | None]] = [
        ("calendar__view_schedule", {}),
        ("calendar__view_schedule", {"calendar_id": ["self"], "date": "Week 0, Monday"}),
        ("calendar__add_event", {"calendar_id": "self", "event_title": "x" * 30_000, "location": "B1", "time": "t"}),
        ("calendar__add_event", {"calendar_id": "self", "event_title": "caf\u00e9", "location": "B1", "time": "t"}),
        ("map__find_building_id", {"building_name": None}),
        ("answer", None),
        ("answer", {"letter": 2}),
        ("answer", {"letter": "B", "why": "sure"}),
        ("answer", {"letter": "?"}),
        ("finish", {"x": 1}),
        ("observe", {"verbose": True}),
        ("map.find_building_id", {"building_name": "Library"}),
        ("", {}),
    ]
    for name, arguments in wrong:
        reply = play.call(name, arguments)
        assert reply.is_error, (name, arguments)
        assert driver.head() == head and driver.turns() == 0, (name, arguments)
    answered = play.call("answer", {"letter": "b"})
    assert driver.head()[0] > head[0]
    assert "Task 1 is over (you answered)" in answered.text and "New task (task 2):" in answered.text


def test_the_command_fails_clearly(tmp_path: Path) -> None:
    import subprocess

    def campus_mcp(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "campus.cli.main", "mcp", *args], cwd=tmp_path, capture_output=True,
                              text=True, env=os.environ | {"PYTHONPATH": str(ROOT)}, timeout=60, stdin=subprocess.DEVNULL)

    missing = campus_mcp("--db", "none.db", "--resume", "r")
    assert missing.returncode == 2 and "no database at none.db" in missing.stderr and missing.stdout == ""
    bad_world = campus_mcp("--world", "elsewhere")
    assert bad_world.returncode == 2 and "unknown world 'elsewhere'" in bad_world.stderr
    assert not (tmp_path / "runs.db").exists()


def test_a_run_goes_on_only_with_the_kind_of_agent_that_played_it(tmp_path: Path, world: WorldIndex,
                                                                   short_term: Term) -> None:
    """An MCP client resuming a model's or the oracle's run wrote its calls under that agent's name (a run of mixed
    agents that claimed to be one); ``campus run --resume`` and ``fork`` of a client's run said "unknown agent". Each
    is refused now with what continues the run, and nothing is written."""
    from typer.testing import CliRunner

    from campus.cli.main import app

    db = tmp_path / "runs.db"
    store = SQLiteStore(db)
    try:
        for agent in ("oracle", "mcp", "inspect:openai/m"):
            run = new_run(store, world, short_term, agent_name=agent, seed=0, branch_id=agent.replace(":", "-").replace("/", "-"))
            if agent == "oracle":
                run.session(OracleAgent(short_term, world)).run(max_steps=5)
        heads = {branch.id: store.head(branch.id) for branch in store.branches()}
    finally:
        store.close()

    def campus(*args: str) -> Any:
        result = CliRunner().invoke(app, [*args, "--db", str(db)])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        return result

    cases = [
        (("mcp", "--resume", "oracle"), "run oracle is played by 'oracle' (campus runs it)"),
        (("mcp", "--resume", "inspect-openai-m"), "is played by 'inspect:openai/m' (inspect_ai runs it)"),
        (("mcp", "--resume", "mcp", "--seed", "3", "--scale", "0.5"), "--seed, --scale cannot be used with --resume"),
        (("mcp", "--agent-name", "oracle"), "--agent-name 'oracle' is the name of an agent campus plays itself"),
        (("run", "--resume", "mcp"), "an agent campus does not run itself: continue it with: campus mcp --db"),
        (("run", "--resume", "inspect-openai-m"), "an inspect_ai evaluation does not resume a run"),
        (("fork", "mcp", "--at-step", "0"), "name the agent that continues the fork with --agent"),
    ]
    for args, message in cases:
        result = campus(*args)
        assert result.exit_code == 2 and message in result.stderr, (args, result.output)
    store = SQLiteStore(db)
    try:
        assert {branch.id: store.head(branch.id) for branch in store.branches()} == heads
    finally:
        store.close()
    handed = campus("fork", "mcp", "--at-step", "0", "--agent", "noop", "--json")
    assert handed.exit_code == 0, handed.output


# ---------------------------------------------------------------- typed answers to questions about the past


def typed(answer: Any) -> Any:
    """A probe's answer as a client would send it typed: a number, a boolean, a list, a day or id as text."""
    from campus.scenarios.probe_answers import Items, Number, YesNo, render

    if isinstance(answer, Number):
        return answer.value
    if isinstance(answer, YesNo):
        return answer.value
    if isinstance(answer, Items):
        return list(answer.values)
    return render(answer)


def before_check_in(store: Any, world: WorldIndex) -> tuple[Any, Term]:
    """A run recorded as an MCP client's, played by the oracle reader up to its first check-in, which waits for
    its answer; and the term."""
    from campus.agents.registry import playing, resolve

    term = generate_term(world, 0, 0.1, check_ins=True)
    run = new_run(store, world, term, agent_name="mcp", seed=0)
    reader = playing(resolve("oracle-reader", store=store, term=term, world=world)[0], run.branch.id)
    session = run.session(reader)
    while not session.finished and not session.view().task_id.startswith("check-in"):
        session.run(max_steps=1)
    return run, term


def check_in_answers(run: Any) -> list[Any]:
    """The typed answers to the waiting check-in, drawn from the log as the term draws them."""
    from campus.events import TaskReleased, decode_events
    from campus.kernel.schedule import Prefix
    from campus.lab.probing import log_prefix
    from campus.scenarios.check_ins import probes_of

    rows = run.store.rows(run.branch.id)
    release = next(row for row in reversed(rows) if row.kind == "task_released")
    event = decode_events([release.payload])[0]
    assert isinstance(event, TaskReleased)
    prefix = Prefix(log_prefix(run, release.seq - 1), release.seq, release.t, run.world.describe, run.world)
    return [typed(p.answer) for p in probes_of(run.term.by_id[event.task_id], run.term.seed, prefix)]


def test_a_question_about_the_past_takes_typed_answers_and_refuses_a_letter(world: WorldIndex) -> None:
    run, _ = before_check_in(MemoryStore(), world)
    play = Play(Driver(open_run(run.store, run.branch.id)))
    head = play.driver.head()
    for wrong in ({"letter": "B"}, {"answer": []}, {"answer": {"a": 1}}, {"answer": " "}, {"answer": [[[1]]]},
                  {"answer": "x", "letter": "B"}):
        reply = play.call("answer", wrong)
        assert reply.is_error and "answered in words" in reply.text and play.driver.head() == head, wrong
    assert play._words([3.0, True, ["B012", "B013"], "no record"]) == "1: 3\n2: yes\n3: B012; B013\n4: no record"


def test_a_client_answers_a_check_in_with_typed_values(tmp_path: Path, world: WorldIndex) -> None:
    db = tmp_path / "runs.db"
    store = SQLiteStore(db)
    run, term = before_check_in(store, world)
    answers = check_in_answers(run)
    store.close()
    assert len(answers) >= 3 and any(not isinstance(a, str) for a in answers)
    seen: dict[str, Any] = {}

    async def script(session: ClientSession) -> None:
        seen["question"] = text_of(await session.call_tool("observe", {}))
        result = await session.call_tool("answer", {"answer": answers})
        seen["answered"] = (result.is_error, text_of(result))

    serve(db, "--resume", run.branch.id, script=script)
    assert "check-in" in seen["question"] and seen["answered"][0] is False and "you answered" in seen["answered"][1]
    store = SQLiteStore(db)
    try:
        resumed = open_run(store, run.branch.id)
        (ended,) = [e for e in resumed.ended_tasks() if e.task_id.startswith("check-in")][:1]
        assert ended.outcome == "success" and set(ended.marks.values()) == {1000}
        assert verify(resumed).ok
    finally:
        store.close()


def test_the_command_chooses_the_term_as_campus_run_does(tmp_path: Path, world: WorldIndex) -> None:
    db = tmp_path / "runs.db"

    async def look(session: ClientSession) -> None:
        await session.call_tool("observe", {})

    serve(db, "--seed", "0", "--scale", "0.02", "--no-busy-days", script=look)
    store = SQLiteStore(db)
    try:
        assert open_run(store, "mcp-s0").term.hash == generate_term(world, 0, 0.02, busy=False).hash != generate_term(world, 0, 0.02).hash
    finally:
        store.close()


def test_a_served_run_can_have_people_reworded_and_verifies_without_the_model(tmp_path: Path,
                                                                             oracle_calls: dict[str, Any]) -> None:
    """`campus mcp --paraphrase-model`: the client reads the reworded replies, the log keeps them, and verify tells
    them again with the model gone. The script stops after the first two reworded replies."""
    from tests.chat_server import ChatServer
    from tests.test_paraphrase import reword

    db = tmp_path / "runs.db"
    shown: list[str] = []

    async def script(session: ClientSession) -> None:
        for name, arguments in oracle_calls["calls"]:
            said = text_of(await session.call_tool(name, arguments))
            if "Well, let me tell you." in said:
                shown.append(said)
                if len(shown) == 2:
                    return

    with ChatServer(respond=reword) as server:
        serve(db, "--seed", "0", "--scale", str(SCALE), "--paraphrase-model", "script-model",
              "--paraphrase-base-url", server.url, script=script)
    assert len(shown) == 2
    store = SQLiteStore(db)
    try:
        recorded = [text for (text,) in store.conn.execute(
            "SELECT json_extract(payload, '$.text') FROM events WHERE branch = 'mcp-s0' AND kind = 'reply_paraphrased' "
            "ORDER BY seq")]
        assert len(recorded) == 2 and all(text in said for text, said in zip(recorded, shown))
        assert verify(open_run(store, "mcp-s0"), deep=True).ok
    finally:
        store.close()

"""The MCP face of a run: any MCP client plays the term as the student (``campus mcp``).

Tools: every campus tool under its wire name (``calendar__add_event``: MCP clients hand tool names
to model APIs that refuse dots), with the input schema of its declaration and read-only /
destructive hints from its ``mutates`` flag; plus ``observe`` (the current task so far), ``answer``
(``letter`` for a multiple-choice question; ``answer``, typed, for a question answered in words)
and ``finish``. Every call except ``observe`` is one reply pushed through the stepper
as a ``StructuredCall`` under the tool's dotted name with the arguments the client sent, so it lands in the log like
any other agent's reply; its result is the text the student then sees (and, when the task ends,
the opening of the next one).

The tool list is the same for the whole term. Clients differ in whether and when they re-read
a list after ``notifications/tools/list_changed`` (many read it once per session, and from the
2026-07-28 protocol on changes travel only on ``subscriptions/listen`` streams), so a list that
changed per task would break the clients most people use. A call to a campus tool that the
current task does not offer is refused by the kernel, as for every agent, and ``observe`` names
the tools of the task. Arguments that do not fit a tool's schema get an error result before
anything is pushed: the log does not change and no turn is spent.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

import msgspec

from campus.events import StructuredCall
from campus.kernel.admit import canonical_arguments
from campus.kernel.clock import label
from campus.kernel.tools import ToolDecl, bind_arguments, mcp_tools, wire_name

from campus.env.driver import TERM_OVER, Driver, conversation

SERVER_NAME = "campus"

INSTRUCTIONS = """\
You are a student living through a university term on a simulated campus. Tasks arrive one at a
time; each is a fresh conversation. Call `observe` to read the current task (its messages, the
simulated time and the tools it allows). Act with the campus tools; every call takes simulated
time and is recorded. Answer a multiple-choice question with `answer` (one letter); a question
asking for a number (a protocol's value) takes `answer` with the number, and one about your own
past `answer` in words or typed (a number, a day, an id, a list, yes/no as true/false, or "no
record"), and a check-in's questions a list with one answer each. Call
`finish` when a task is done. Nothing you learn is kept for you between tasks: write what you
will need later into the campus itself (your calendar, for instance)."""

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
_LETTER = re.compile(r"[A-Za-z]")

SESSION_TOOLS: list[dict[str, Any]] = [
    {
        "name": "observe",
        "title": "Observe the current task",
        "description": "Show the current task as you see it now: its messages so far, the simulated time, "
        "how many replies you have used and which tools it allows. Changes nothing and costs no time.",
        "inputSchema": _EMPTY_SCHEMA,
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    },
    {
        "name": "answer",
        "title": "Answer the question",
        "description": "Answer the current task's question; this ends the task. A multiple-choice question takes "
        "letter. A question asking for a number (a protocol's value) takes answer: the number. A question about "
        "your own past takes answer: a number, a day such as \"Week 2, Monday\", an id "
        "exactly as written, a list of items, true or false for yes or no, or \"no record\" when you have none. A "
        "check-in asking several questions takes answer as a list with one answer per question, in their order "
        "(or as text, one numbered line each).",
        "inputSchema": {
            "type": "object",
            "properties": {
                "letter": {"type": "string", "description": "The option letter, e.g. B.", "pattern": "^[A-Za-z]$"},
                "answer": {"description": "A typed answer (see the tool's description).",
                           "type": ["string", "number", "boolean", "array"],
                           "items": {"type": ["string", "number", "boolean", "array"]}},
            },
            "minProperties": 1,
            "maxProperties": 1,
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False},
    },
    {
        "name": "finish",
        "title": "Finish the task",
        "description": "Say that you are done with the current task. This ends the task; the next one follows.",
        "inputSchema": _EMPTY_SCHEMA,
        "annotations": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False},
    },
]


class ToolReply(msgspec.Struct, frozen=True, kw_only=True):
    text: str
    is_error: bool = False
    data: dict[str, Any] | None = None
    """Where the run stands after the call (structured content for scripted clients)."""


def tool_list(tools: list[ToolDecl]) -> list[dict[str, Any]]:
    """``tools/list`` entries: the campus tools under their wire names, then the session tools."""
    listed = [entry | {"name": wire_name(tool.name)} for tool, entry in zip(tools, mcp_tools(tools))]
    return listed + SESSION_TOOLS


class Play:
    """What each MCP call does to the run, apart from the protocol."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.tools = {wire_name(tool.name): tool for tool in driver.run.kernel.tools.values()}
        self.listing = tool_list(list(driver.run.kernel.tools.values()))

    def call(self, name: str, arguments: dict[str, Any] | None) -> ToolReply:
        arguments = arguments or {}
        if name == "observe":
            return self._refused("observe takes no arguments.") if arguments else self.observe()
        if name not in self.tools and name not in ("answer", "finish"):
            return self._refused(f"There is no tool named {ascii(name[:60])}. Call observe to see the tools of this task.")
        if self.driver.finished:
            return ToolReply(text=TERM_OVER, is_error=True, data=self._status(0))
        stored = canonical_arguments(arguments)
        if isinstance(stored, str):
            return self._refused(f"Invalid arguments for {name}: {stored}. Nothing was done and no reply was used.")
        arguments = stored[0]
        problem = self._check(name, arguments)
        if problem:
            return self._refused(f"Invalid arguments for {name}: {problem} Nothing was done and no reply was used.")
        if name == "answer" and "answer" in arguments:
            arguments = {"answer": self._words(arguments["answer"])}
        dotted = self.tools[name].name if name in self.tools else name
        pushed = self.driver.push(StructuredCall(name=dotted, arguments=arguments))
        return ToolReply(text=pushed.text, is_error=pushed.failed, data=self._status(len(pushed.ended)))

    def observe(self) -> ToolReply:
        view = self.driver.view()
        if view is None:
            return ToolReply(text=f"{TERM_OVER} (run {self.driver.branch_id})", data=self._status(0))
        offered = ", ".join(wire_name(tool.name) for tool in view.tools)
        header = (
            f"Task {self.driver.task_number()} - {label(view.now)} - {self.driver.turns()} of {self.driver.round_limit()} replies used.\n"
            f"Tools of this task: {offered or 'none'}; and answer, finish. Other campus tools are refused in this task."
        )
        return ToolReply(text=header + "\n\n" + conversation(view.messages), data=self._status(0))

    def _check(self, name: str, arguments: dict[str, Any]) -> str | None:
        if name == "finish":
            return "finish takes no arguments." if arguments else None
        if name == "answer":
            card = self.driver.card()
            if card is not None and card.answers == "text":
                given = arguments.get("answer")
                if set(arguments) != {"answer"} or not _typed(given) or not self._words(given).strip():
                    return ("this question is answered in words: answer takes one argument, answer (a number, a day, an "
                            'id, a list, true or false, or "no record"; a list with one answer each for a check-in).')
                return None
            letter = arguments.get("letter")
            if set(arguments) != {"letter"} or not isinstance(letter, str) or not _LETTER.fullmatch(letter):
                return 'answer takes one argument, letter, a single option letter such as "B".'
            return None
        bound = bind_arguments(self.tools[name], arguments, wire=True)
        return bound if isinstance(bound, str) else None

    def _words(self, given: Any) -> str:
        """A typed answer as the text protocol reads it; a list answering a check-in is one numbered line per question."""
        card = self.driver.card()
        if card is not None and card.composed and isinstance(given, list):
            return "\n".join(f"{n}: {_said(item)}" for n, item in enumerate(given, start=1))
        return _said(given)

    def _refused(self, text: str) -> ToolReply:
        return ToolReply(text=text, is_error=True, data=self._status(0))

    def _status(self, ended: int) -> dict[str, Any]:
        """What the client sees besides the text: never a task id (it names the scenario) or an outcome."""
        view = self.driver.view()
        return {
            "run": self.driver.branch_id,
            "task": self.driver.task_number() if view else None,
            "time": label(self.driver.now()),
            "tasks_ended": ended,
            "term_over": view is None,
        }


def _typed(value: Any, depth: int = 0) -> bool:
    """A string, number, boolean, or a list of those (one level of lists inside, for a check-in's list answers)."""
    if isinstance(value, list):
        return depth < 2 and bool(value) and all(_typed(item, depth + 1) for item in value)
    return isinstance(value, (str, int, float, bool))


def _said(value: Any) -> str:
    """One typed answer in the text protocol's words: yes/no for a boolean, a whole number without ".0",
    items separated by semicolons."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return "; ".join(_said(item) for item in value)
    return str(value).strip()


def build_server(play: Play) -> Any:
    """The SDK's low-level server over ``play`` (the low-level API takes our JSON schemas as they are)."""
    from mcp import types
    from mcp.server.lowlevel import Server

    tools = [types.Tool.model_validate(entry) for entry in play.listing]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        # One step takes milliseconds and never awaits, so calls run one at a time in arrival order.
        reply = play.call(params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(text=reply.text)], structured_content=reply.data,
                                    is_error=reply.is_error)

    return Server(SERVER_NAME, version=_version(), instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call_tool)


async def serve_stdio(driver: Driver, lines: AsyncIterable[str] | None = None) -> None:
    """Serve ``driver``'s run on stdin (or ``lines``) and stdout until the client closes the connection."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(Play(driver))
    source = lines if lines is not None else anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    guarded = GuardedLines(source)
    async with stdio_server(stdin=guarded) as (read_stream, write_stream):  # type: ignore[arg-type]
        guarded.answer_on(write_stream)
        await server.run(read_stream, write_stream, server.create_initialization_options())


class GuardedLines:
    """The client's lines, minus those the SDK cannot read, each of which is answered with a JSON-RPC error.

    The SDK drops a line it cannot parse (not JSON, a lone surrogate, a number or a nesting
    too big for its parser) without a word, and the client waits for ever. Here every such line
    gets an error response (``-32700``, or ``-32600`` for JSON that is not a JSON-RPC message, or a request whose id is
    neither text nor a whole number, which the SDK would take for a notification and leave unanswered) under the
    request's id when one can be read, else ``null``."""

    def __init__(self, source: AsyncIterable[str]) -> None:
        import anyio

        self.source = source
        self._ready = anyio.Event()
        self._write: Any = None

    def answer_on(self, write_stream: Any) -> None:
        self._write = write_stream
        self._ready.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        from mcp.shared.message import SessionMessage

        async for line in self.source:
            if not line.strip():
                continue
            error = malformed(line)
            if error is None:
                yield line
                continue
            await self._ready.wait()
            await self._write.send(SessionMessage(error))


_ID = re.compile(r'"id"\s*:\s*(-?\d{1,15}(?![\d.eE])|"(?:[^"\\]|\\.){0,200}")')


def malformed(line: str) -> Any:
    """The JSON-RPC error answering ``line``, or ``None`` if the SDK can read it."""
    import json

    import mcp_types as types

    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as error:
        problem = " ".join(str(error).split())[:300]
    else:
        if not isinstance(message, types.JSONRPCNotification) or '"id"' not in line or "id" not in json.loads(line):
            return None
        # a request whose id is neither text nor a whole number reads as a notification, which nothing answers
        return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
            code=-32600, message="Invalid request: an id is a string or an integer"))
    code, what = (-32700, "Parse error") if "Invalid JSON" in problem else (-32600, "Invalid request")
    found = _ID.search(line[:100_000])
    request_id: int | str | None = None
    if found is not None:
        try:
            request_id = json.loads(found[1])
        except ValueError:
            request_id = None
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=f"{what}: {problem}"))


def serve(driver: Driver) -> None:
    """Serve until the client disconnects; operator logs go to stderr, since stdout is the protocol's."""
    import anyio
    import structlog

    from campus.kernel.logs import configure

    if not structlog.is_configured():  # the command line configures them (--log-json, -v) before this
        configure()
    anyio.run(serve_stdio, driver)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("campus")
    except PackageNotFoundError:
        return "0"

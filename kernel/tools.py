"""Tools: one declaration each, and everything derived from it.

A ``ToolDecl`` names a tool (``calendar.add_event``), its system, its parameters, whether it
changes the world, and its handler. From the declaration come the StuLife text-prompt
section, OpenAI and Anthropic tool schemas and MCP ``tools/list`` entries, and argument
validation: a handler only ever sees arguments of the declared names and types.

A handler is a pure function ``(view, args) -> Outcome``: it reads the current state
through ``view`` and returns the domain facts it produced and the result the agent sees.
A failed call returns no facts, so it changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from campus.events import Event, ToolResult

JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}

MAX_STRING = 20_000
"""The longest string argument any tool accepts (an email body fits; a 1 MB paste does not)."""


class Param(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    type: str
    description: str
    required: bool = True
    enum: tuple[str, ...] | None = None
    items: str | None = None
    max_length: int = MAX_STRING

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "description": self.description}
        if self.enum is not None:
            out["enum"] = list(self.enum)
        if self.items is not None:
            out["items"] = {"type": self.items}
        if self.type == "string":
            out["maxLength"] = self.max_length
        return out


class Result(msgspec.Struct, frozen=True, kw_only=True):
    ok: bool
    message: str
    data: dict[str, Any] | None = None


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    result: Result
    facts: tuple[Event, ...] = ()
    minutes: int | None = None
    """Simulated minutes the call took; ``None`` means the tool's declared cost."""


Handler = Callable[[Any, dict[str, Any]], Outcome]


class Refuse(Exception):
    """A handler refusing the call: ``message`` is what the agent is told, and nothing changes.

    Raised anywhere under a handler, it becomes the same failed result ``fail(message)`` gives."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ToolDecl(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    system: str
    description: str
    params: tuple[Param, ...]
    handler: Handler
    mutates: bool = False
    example: str = ""
    minutes: int = 1
    """Simulated minutes a successful call takes, unless its outcome says otherwise."""
    spoken: bool = False
    """Its result is a person's words, which a session with a paraphraser may reword (``ReplyParaphrased``)."""

    def call(self, view: Any, args: dict[str, Any]) -> Outcome:
        """The handler's outcome, with a ``Refuse`` raised under it turned into a failed call."""
        try:
            return self.handler(view, args)
        except Refuse as refusal:
            return fail(refusal.message)

    def json_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {p.name: p.schema() for p in self.params},
            "required": [p.name for p in self.params if p.required],
            "additionalProperties": False,
        }

    def signature(self, wire: bool = False) -> str:
        parts = [f"{p.name}: {_PY_TYPES[p.type]}" + ("" if p.required else " = None") for p in self.params]
        return f"{self.shown(wire)}({', '.join(parts)})"

    def shown(self, wire: bool) -> str:
        """The name as the caller knows it: the wire name for a native function call, else the dotted one."""
        return wire_name(self.name) if wire else self.name


_PY_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "object": "dict", "array": "list"}


_PLACEHOLDER = re.compile(r"<<(\w+)>>")


def with_examples(tool: ToolDecl, values: Mapping[str, str]) -> ToolDecl:
    """The declaration with every ``<<name>>`` in its texts replaced by a value from this world,
    so examples shown to agents name things that exist (unknown placeholders are left as they are)."""

    def fill(text: str) -> str:
        return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)

    params = tuple(msgspec.structs.replace(p, description=fill(p.description)) for p in tool.params)
    return msgspec.structs.replace(tool, description=fill(tool.description), example=fill(tool.example), params=params)


def ok(message: str, facts: Sequence[Event] = (), data: dict[str, Any] | None = None, minutes: int | None = None) -> Outcome:
    return Outcome(result=Result(ok=True, message=message, data=data), facts=tuple(facts), minutes=minutes)


def result_event(call_id: str, outcome: Outcome) -> ToolResult:
    """The event recording what a call returned. The runner and ``verify`` both use it, so a
    re-executed call is compared with exactly what the run recorded."""
    return ToolResult(
        call_id=call_id, status="ok" if outcome.result.ok else "error", message=outcome.result.message,
        data=outcome.result.data, minutes=outcome.minutes or 0,
    )


def fail(message: str) -> Outcome:
    """A failed call: no facts, no time spent."""
    return Outcome(result=Result(ok=False, message=message), minutes=0)


# ------------------------------------------------------------------ dialects


def openai_tools(tools: Sequence[ToolDecl]) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": wire_name(t.name), "description": t.description, "parameters": t.json_schema()}}
        for t in tools
    ]


def mcp_tools(tools: Sequence[ToolDecl]) -> list[dict[str, Any]]:
    return [
        {
            "name": t.name,
            "title": t.name,
            "description": t.description,
            "inputSchema": t.json_schema(),
            "annotations": {
                "readOnlyHint": not t.mutates,
                "destructiveHint": t.mutates,
                "idempotentHint": not t.mutates,
                "openWorldHint": False,
            },
        }
        for t in tools
    ]


def wire_name(name: str) -> str:
    """OpenAI and Anthropic names may not contain dots: ``map.find_building_id`` → ``map__find_building_id``."""
    return name.replace(".", "__")


def from_wire_name(name: str) -> str:
    return name.replace("__", ".")


def prompt_section(tools: Sequence[ToolDecl], system_titles: Mapping[str, str]) -> str:
    """The tool list of the StuLife text prompt, grouped by system, in declaration order."""
    lines: list[str] = []
    current = None
    for tool in tools:
        if tool.system != current:
            current = tool.system
            lines.append(f"\n## {system_titles.get(current, current)}")
        lines.append(f"\n`{tool.signature()}`")
        lines.append(f"Description: {tool.description}")
        for p in tool.params:
            need = "required" if p.required else "optional"
            choices = f" One of: {', '.join(p.enum)}." if p.enum else ""
            lines.append(f"- {p.name} ({need}): {p.description}{choices}")
        if tool.example:
            lines.append(f"Example: <action>Action: {tool.example}</action>")
    return "\n".join(lines).strip()


# ------------------------------------------------------------------ validation


def bind_arguments(
    tool: ToolDecl, args: Mapping[str, Any], positional: Sequence[Any] = (), *, wire: bool = False
) -> dict[str, Any] | str:
    """Map positional arguments onto parameters and check names and types.

    Returns the bound arguments, or an error message that says how to call the tool, naming it
    by its wire name if ``wire`` (the caller made a native function call).
    """
    names = [p.name for p in tool.params]
    name = tool.shown(wire)
    if len(positional) > len(names):
        return f"{name} takes at most {len(names)} argument(s) but got {len(positional)}. Call it as {tool.signature(wire)}."
    bound: dict[str, Any] = dict(zip(names, positional))
    for key, value in args.items():
        if key in bound:
            return f"argument '{key}' was given twice. Call it as {tool.signature(wire)}."
        bound[key] = value
    unknown = [k for k in bound if k not in names]
    if unknown:
        return f"{name} has no parameter '{min(unknown)}'. Call it as {tool.signature(wire)}."
    for param in tool.params:
        if param.name not in bound or bound[param.name] is None:
            if param.required:
                return f"{name} needs '{param.name}' ({param.description}). Call it as {tool.signature(wire)}."
            bound.pop(param.name, None)
            continue
        problem = _check_value(param, bound[param.name])
        if problem:
            return f"argument '{param.name}' {problem}. Call it as {tool.signature(wire)}."
    return bound


class TextRules(msgspec.Struct, frozen=True):
    """What ``bind_texts`` needs of a tool: its required parameters, and for each of its text parameters
    the longest value and the choices, if it has fixed ones."""

    required: frozenset[str]
    texts: dict[str, tuple[int, frozenset[str] | None]]


def text_rules(tool: ToolDecl) -> TextRules:
    return TextRules(frozenset(p.name for p in tool.params if p.required),
                     {p.name: (p.max_length, None if p.enum is None else frozenset(p.enum))
                      for p in tool.params if p.type == "string"})


def bind_texts(rules: TextRules, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """``bind_arguments`` for the common call (keyword arguments only, every one a short ASCII text for a
    text parameter, one of its choices if it has any, every required one given): the same bound arguments,
    checked in one pass. None for any other call, which ``bind_arguments`` then binds or refuses."""
    texts = rules.texts
    for key, value in args.items():
        rule = texts.get(key)
        if rule is None or type(value) is not str or len(value) > rule[0] or not value.isascii() \
                or (rule[1] is not None and value not in rule[1]):
            return None
    if not rules.required <= args.keys():
        return None
    return dict(args)


def _check_value(param: Param, value: Any) -> str | None:
    expected = JSON_TYPES[param.type]
    if isinstance(value, bool) and bool not in expected:
        return f"must be {_article(param.type)}, not true/false"
    if not isinstance(value, expected):
        return f"must be {_article(param.type)}, not {_json_kind(value)}"
    if isinstance(value, str):
        if len(value) > param.max_length:
            return f"is too long ({len(value)} characters; at most {param.max_length})"
        if not value.isascii():
            bad = next(c for c in value if not c.isascii())
            return f"contains the non-ASCII character {ascii(bad)}; write it in plain ASCII"
        if param.enum is not None and value not in param.enum:
            return f"must be one of {', '.join(param.enum)}"
        if len(value) <= MAX_STRING:
            return None  # what _check_nested would find in a string is checked above
    return _check_nested(value)


def _check_nested(value: Any, depth: int = 0) -> str | None:
    if depth > 8:
        return "is nested too deeply"
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            return f"holds a string that is too long (at most {MAX_STRING} characters)"
        if not value.isascii():
            return "contains non-ASCII text; write it in plain ASCII"
    elif isinstance(value, dict):
        for key, item in value.items():
            problem = _check_nested(key, depth + 1) or _check_nested(item, depth + 1)
            if problem:
                return problem
    elif isinstance(value, list):
        if len(value) > 1000:
            return "holds a list that is too long (at most 1000 items)"
        for item in value:
            problem = _check_nested(item, depth + 1)
            if problem:
                return problem
    return None


def _article(type_name: str) -> str:
    return {"integer": "an integer", "object": "an object ({...})", "array": "a list ([...])"}.get(type_name, f"a {type_name}")


def _json_kind(value: Any) -> str:
    for name, types in JSON_TYPES.items():
        if isinstance(value, types) and not isinstance(value, bool):
            return _article(name)
    return "true/false" if isinstance(value, bool) else "null"

"""What of a reply the log stores, decided once, before anything is recorded or dispatched.

Every reply — an agent object's, one pushed by ``Env`` or the MCP server, a recorded one played
again — goes through ``admit`` inside the session, so what a tool call is dispatched with is
exactly what a resume, a fork or ``verify`` reads back from the log:

- text is data, whatever it holds: lone surrogates (which UTF-8 cannot carry) become U+FFFD,
  and a reply longer than ``REPLY_LIMIT`` characters is cut, with a marker the agent sees in its
  conversation; the full length goes into the row's ``meta``;
- a structured call's arguments are a JSON object of JSON values, written canonically: keys
  sorted, ``25.0`` as ``25``, ``-0.0`` as ``0``, tuples as lists, text made safe as above.
  Arguments given as JSON text are decoded, ``None`` means none. NaN, infinities, whole numbers
  past ``MAX_INT_BITS``, values JSON has no word for, objects nested deeper than ``MAX_DEPTH`` and
  arguments longer than ``REPLY_LIMIT`` are refused: such a call is not admitted at all;
- what an agent says about its reply (``last_meta``: usage, latency) goes into the row's ``meta``
  as JSON whatever it holds (``admit_meta``), within ``META_LIMIT``: an agent's odd metadata never stops a session.

Admitting an admitted reply changes nothing, so replaying the log admits the same replies.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from campus.events import StructuredCall, canonical
from campus.kernel.agent import Reply

REPLY_LIMIT = 65_536
"""The most characters of a reply (or of a structured call's JSON arguments) the log keeps."""

MAX_DEPTH = 32
"""How deeply lists and objects may nest inside one argument."""

MAX_NAME = 200
"""The longest tool name, and call id, a structured call may have."""

META_LIMIT = 4 * REPLY_LIMIT
"""The most characters of JSON a row's ``meta`` keeps: longer texts in it (a reasoning model's thinking) are cut as a
reply is, and metadata still longer is replaced by a note of its length."""

MAX_INT_BITS = 13_287
"""The longest whole number an argument may be (every number of 4,000 digits fits): Python writes no integer of more
than 4,300 digits as text by default, and a bound of our own keeps what is admitted the same in a process that
raises that limit."""

_MARK = "\n[... reply cut at {kept} of {total} characters]"


class Admitted(msgspec.Struct, frozen=True, kw_only=True):
    reply: Reply | None
    """What the log stores; ``None`` when the reply was refused."""
    problem: str | None = None
    """Why it was refused (one line, ASCII), for the caller and the row's ``meta``."""
    length: int | None = None
    """The length of a text reply that was cut."""


def safe_text(text: str) -> str:
    """``text`` as valid UTF-8 can carry it: a lone surrogate becomes U+FFFD (a split pair is joined)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def capped(text: str) -> tuple[str, int | None]:
    """The text as stored, and its full length if it was cut (the cut text is itself within the limit)."""
    if len(text) <= REPLY_LIMIT:
        return text, None
    kept = REPLY_LIMIT - 100
    return text[:kept] + _MARK.format(kept=kept, total=len(text)), len(text)


def admit(reply: Reply | None) -> Admitted:
    if reply is None:
        return Admitted(reply=None)
    if isinstance(reply, str):
        plain = reply if type(reply) is str else str.__str__(reply)  # a subclass's own methods are the agent's code
        text, length = capped(safe_text(plain))
        return Admitted(reply=text, length=length)
    if isinstance(reply, StructuredCall):
        return _admit_call(reply)
    return Admitted(reply=None, problem=f"a reply is text or a StructuredCall, not {type(reply).__name__}")


def _admit_call(call: StructuredCall) -> Admitted:
    name, call_id, arguments = _builtin(call.name, 0), _builtin(call.id, 0), _builtin(call.arguments, 0)
    if not isinstance(name, str) or not name or len(name) > MAX_NAME:
        return Admitted(reply=None, problem=f"a tool name is text of 1 to {MAX_NAME} characters")
    if call_id is not None and (not isinstance(call_id, str) or len(call_id) > MAX_NAME):
        return Admitted(reply=None, problem=f"a call id is text of at most {MAX_NAME} characters")
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        arguments = {}
    elif isinstance(arguments, str):
        if len(arguments) > REPLY_LIMIT:
            return Admitted(reply=None, problem=f"the arguments are longer than {REPLY_LIMIT} characters")
        try:
            arguments = msgspec.json.decode(safe_text(arguments))
        except (msgspec.DecodeError, RecursionError):
            return Admitted(reply=None, problem="the arguments are not valid JSON; send a JSON object such as {\"x\": 1}")
    if not isinstance(arguments, dict):
        return Admitted(reply=None, problem=f"the arguments must be a JSON object, not {type(arguments).__name__}")
    args = canonical_arguments(arguments)
    if isinstance(args, str):
        return Admitted(reply=None, problem=args)
    if len(canonical(args[0])) > REPLY_LIMIT:
        return Admitted(reply=None, problem=f"the arguments are longer than {REPLY_LIMIT} characters as JSON")
    return Admitted(reply=StructuredCall(name=safe_text(name), arguments=args[0],
                                         id=None if call_id is None else safe_text(call_id)))


_NAMELESS: dict[Any, Any] = {0: None}
"""What ``_builtin`` puts in place of an object with a name that is not text, for ``_unstorable`` to refuse as such."""


def _builtin(value: Any, level: int) -> Any:
    """``value`` with every instance of a subclass of a JSON type (text, numbers, lists, objects) copied into the type
    itself through the type's own methods, so none of an agent's methods runs after this; what lies deeper than
    ``MAX_DEPTH`` is left for ``_unstorable`` to refuse, and anything else is left for it to name."""
    kind = type(value)
    if value is None or kind is str or kind is bool or kind is int or kind is float:
        return value
    if level > MAX_DEPTH + 1:
        return value
    if isinstance(value, dict):
        if not all(isinstance(name, str) for name in dict.keys(value)):
            return _NAMELESS  # hashing its own keys again would run their code
        return {str.__str__(name): _builtin(child, level + 1) for name, child in dict.items(value)}
    if isinstance(value, list):
        return [_builtin(child, level + 1) for child in list.copy(value)]
    if isinstance(value, tuple):
        return [_builtin(child, level + 1) for child in tuple.__getitem__(value, slice(None))]
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    return value


def admit_meta(meta: Any) -> str | None:
    """An agent's metadata about its last reply as the row's ``meta`` (JSON), or None when it gave none: text made
    safe as in a reply, values JSON has no word for written as their ``repr``, nesting past ``MAX_DEPTH`` cut."""
    if meta is None or (isinstance(meta, (dict, list, tuple, str)) and not meta):
        return None
    try:
        text = msgspec.json.encode(meta).decode()
    except (TypeError, ValueError, OverflowError, RecursionError):  # a lone surrogate's UnicodeEncodeError is a ValueError
        text = msgspec.json.encode(_described(meta, 0)).decode()
    if len(text) <= META_LIMIT:
        return text
    cut = msgspec.json.encode(_described(meta, 0, cut=True)).decode()
    if len(cut) <= META_LIMIT:
        return cut
    return msgspec.json.encode({"cut": f"the metadata was {len(text)} characters as JSON; the log keeps at most "
                                       f"{META_LIMIT}"}).decode()


def _described(value: Any, level: int, cut: bool = False) -> Any:
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return capped(safe_text(value))[0] if cut else safe_text(value)
    if level >= MAX_DEPTH:
        return "..."
    if isinstance(value, dict):
        return {safe_text(name if isinstance(name, str) else _repr(name))[:MAX_NAME]: _described(child, level + 1, cut)
                for name, child in value.items()}
    if isinstance(value, (list, tuple)):
        return [_described(child, level + 1, cut) for child in value]
    return safe_text(_repr(value))


def _repr(value: Any) -> str:
    try:
        return repr(value)[:200]
    except Exception:
        return f"<{type(value).__name__}>"


def canonical_arguments(args: dict[str, Any], positional: list[Any] | tuple[Any, ...] = ()) -> tuple[dict[str, Any], list[Any]] | str:
    """The arguments as the log stores them, or why they cannot be stored (one line, ASCII)."""
    problem = _unstorable([args, positional])
    if problem is not None:
        return problem
    try:
        raw = canonical([args, positional])
    except UnicodeEncodeError:
        raw = canonical(_safe_copy([args, positional]))
    stored, listed = msgspec.json.decode(raw)
    return stored, listed


def _unstorable(value: Any) -> str | None:
    """Why a value cannot be stored as JSON faithfully (checked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, -1)]
    while stack:
        value, level = stack.pop()
        if value is None or isinstance(value, (str, bool)):
            continue
        if isinstance(value, int):
            if value.bit_length() > MAX_INT_BITS:
                return "an argument is a whole number too long to store (at most about 4,000 digits); write it as text"
            continue
        if isinstance(value, float):
            if not math.isfinite(value):
                return f"an argument is {value!r}; numbers must be finite"
        elif isinstance(value, (dict, list, tuple)):
            if level > MAX_DEPTH:
                return f"the arguments are nested more than {MAX_DEPTH} levels deep"
            if isinstance(value, dict):
                if not all(isinstance(name, str) for name in value):
                    return "an argument name is not text"
                stack.extend((child, level + 1) for child in value.values())
            else:
                stack.extend((child, level + 1) for child in value)
        else:
            return f"an argument is a {type(value).__name__}; use text, numbers, true/false, null, lists and objects"
    return None


def _safe_copy(value: Any) -> Any:
    """``value`` with every text made safe (its depth is already bounded)."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_text(name): _safe_copy(child) for name, child in value.items()}
    if isinstance(value, (list, tuple)):
        return [_safe_copy(child) for child in value]
    return value

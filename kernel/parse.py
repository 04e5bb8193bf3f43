"""Turn an agent's reply into exactly one action: a tool call, an answer, finish, or Invalid.

Agent text is untrusted, so it is never evaluated. Argument values are read by a small
hand-written recursive-descent parser whose nesting is capped at ``MAX_DEPTH``. Every regular
expression is anchored or line-bounded and uses possessive quantifiers, so parsing takes time
linear in the length of the reply, and it never raises.

Grammar of a text reply (tags and keywords are case-insensitive)::

    reply    := ... "<action>" block "</action>" ...   the first block; unclosed: to the end
              | block                                  no tag at all: the whole reply
    block    := ... ( "Action:" call | "Answer:" answer ) ...
                    on the first line that starts with "Action:" or "Answer:" after
                    whitespace and markdown decoration (` * > # -). Inside a tag the block
                    may also start directly with a call; without a tag a line holding only
                    "finish()" means finish.
    answer   := [ "**" | "[" | "(" | "`" | "*" ] LETTER
                    LETTER is A-Z or a-z, followed by end of line or a non-alphanumeric
    call     := NAME "(" [ argument { "," argument } [ "," ] ] ")"   text after ")" is ignored
    NAME     := IDENT { "." IDENT }         IDENT := [A-Za-z_][A-Za-z0-9_]*
    argument := value | IDENT "=" value     positional arguments come first, keys are unique
    values   := [ value { "," value } [ "," ] ]
    value    := string { string }           adjacent strings are concatenated
              | number | True | False | None | true | false | null
              | "[" values "]"              a list
              | "(" values ")"              a tuple, read as a list; "(x)" is just x
              | "{" [ string ":" value { "," string ":" value } [ "," ] ] "}"
    string   := '...' | "..." | '''...''' | \"\"\"...\"\"\"
                    raw newlines are allowed in all four. Escapes as in Python:
                    \\n \\t \\r \\\\ \\' \\" \\a \\b \\f \\v \\ooo \\xXX \\uXXXX \\UXXXXXXXX
                    and backslash-newline; a \\uD8xx\\uDCxx pair is one character (as in
                    JSON); unknown escapes such as \\d keep their backslash.
    number   := ["-"] DIGITS ["." DIGITS] [("e" | "E") ["+" | "-"] DIGITS]
                    an int unless it has a "." or an exponent

A call named ``finish`` (any case) without arguments is :class:`Finish`. Windows line endings
are read as ``\\n``. Anything else is :class:`Invalid`, whose ASCII message says what was wrong
and how to write it instead, quoting at most a few dozen characters of the reply.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import msgspec

from campus.kernel.admit import MAX_DEPTH, canonical_arguments

_MAX_NUMBER_LENGTH = 100
_ECHO = 20
_ECHO_NAME = 40


class Call(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    args: dict[str, Any] = {}
    positional: list[Any] = []


class Answer(msgspec.Struct, frozen=True, kw_only=True):
    value: str
    """The letter of a multiple-choice answer, or the text of a free answer (``free_answer``)."""


class Finish(msgspec.Struct, frozen=True, kw_only=True):
    pass


class Invalid(msgspec.Struct, frozen=True, kw_only=True):
    message: str


Parsed = Call | Answer | Finish | Invalid

# ---------------------------------------------------------------- messages

_CALL_EXAMPLE = (
    '<action>Action: calendar.add_event(calendar_id="self", event_title="Study")</action>'
)
_JSON_EXAMPLE = 'Send a JSON object like {"building_name": "Library"}.'
_LITERALS = "quoted text, numbers, True/False/None, lists and dicts"

_NO_ACTION = Invalid(
    message="Invalid action: no 'Action:' or 'Answer:' found. Reply with exactly one action, "
    "for example <action>Action: geography.get_current_location()</action>, "
    "<action>Answer: B</action> or <action>Action: finish()</action>."
)
_BAD_ANSWER = Invalid(
    message="Invalid action: 'Answer:' must be followed by a single letter. "
    "Reply like <action>Answer: B</action>."
)
_BAD_STRUCTURED_ANSWER = Invalid(
    message='Invalid action: answer needs a single letter, like {"letter": "B"}.'
)
_EMPTY_FREE_ANSWER = Invalid(
    message="Invalid action: 'Answer:' must be followed by your answer. "
    "Reply like <action>Answer: 3</action>."
)
_BAD_STRUCTURED_FREE_ANSWER = Invalid(
    message='Invalid action: answer needs your answer as text, like {"answer": "3"}.'
)
_FINISH_WITH_ARGUMENTS = Invalid(
    message="Invalid action: finish() takes no arguments. "
    "Reply <action>Action: finish()</action> when you are done."
)


def _escaped(text: str, limit: int = _ECHO) -> str:
    """At most ``limit`` characters of agent text, ASCII-escaped, safe to put in a message."""
    shown = ascii(text[:limit])[1:-1]
    return shown if len(text) <= limit else shown + "..."


def _call_error(detail: str) -> Invalid:
    return Invalid(message=f"Invalid action: {detail}. A call looks like {_CALL_EXAMPLE}.")


class _Reject(Exception):
    """Stops parsing a call; carries the Invalid to return."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.invalid = _call_error(detail)


# ---------------------------------------------------------------- lexical patterns

_NAME_PATTERN = r"[A-Za-z_][A-Za-z0-9_]*+(?:\.[A-Za-z_][A-Za-z0-9_]*+)*+"
_NAME = re.compile(_NAME_PATTERN)

_OPEN_TAG = re.compile(r"<action>", re.IGNORECASE | re.ASCII)
_CLOSE_TAG = re.compile(r"</action>", re.IGNORECASE | re.ASCII)

_LINE_START = r"^(?:[^\S\n]|[`*>#-])*+"
_DIRECTIVE = r"(?P<action>action:)|(?P<answer>answer:)"
_TAGGED_DIRECTIVE = re.compile(
    rf"{_LINE_START}(?:{_DIRECTIVE})", re.IGNORECASE | re.MULTILINE
)
_UNTAGGED_DIRECTIVE = re.compile(
    rf"{_LINE_START}(?:{_DIRECTIVE}|(?P<finish>finish\(\)(?:[^\S\n]|[`*])*+$))",
    re.IGNORECASE | re.MULTILINE,
)
_BARE_CALL = re.compile(rf"(?:\s|[`*>#-])*+(?P<name>{_NAME_PATTERN})\s*+\(")
_ACTION_CALL = re.compile(rf"(?:\s|[`*])*+(?P<name>{_NAME_PATTERN})\s*+(?P<paren>\()?")
_ANSWER_LETTER = re.compile(r"[^\S\n]*+(?:\*\*|[\[(`*])?[^\S\n]*+([A-Za-z])")

_SPACES = re.compile(r"\s*+")
_KEYWORD = re.compile(r"(?P<key>[A-Za-z_][A-Za-z0-9_]*+)\s*+=(?!=)")
_WORD = re.compile(r"[^\W\d]\w*+(?:\.[^\W\d]\w*+)*+")
_NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_STRING = {
    '"""': re.compile(r'"""((?:[^"\\]++|\\.|"(?!""))*+)"""', re.DOTALL),
    "'''": re.compile(r"'''((?:[^'\\]++|\\.|'(?!''))*+)'''", re.DOTALL),
    '"': re.compile(r'"((?:[^"\\]++|\\.)*+)"', re.DOTALL),
    "'": re.compile(r"'((?:[^'\\]++|\\.)*+)'", re.DOTALL),
}
_ESCAPE = re.compile(
    r"\\(?:u(?P<high>[dD][89abAB][0-9a-fA-F]{2})\\u(?P<low>[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|x(?P<x>[0-9a-fA-F]{2})|u(?P<u>[0-9a-fA-F]{4})|U(?P<U>[0-9a-fA-F]{8})"
    r"|(?P<octal>[0-7]{1,3})|(?P<char>.))",
    re.DOTALL,
)
_SIMPLE_ESCAPES = {
    "\n": "",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
}
_CONSTANTS: dict[str, Any] = {
    "True": True,
    "true": True,
    "False": False,
    "false": False,
    "None": None,
    "null": None,
}


def _skip_spaces(text: str, pos: int) -> int:
    return _SPACES.match(text, pos).end()  # type: ignore[union-attr]  # "\s*+" always matches


def _unescape_one(match: re.Match[str]) -> str:
    if match["high"]:
        high, low = int(match["high"], 16) - 0xD800, int(match["low"], 16) - 0xDC00
        return chr(0x10000 + (high << 10) + low)
    digits = match["x"] or match["u"] or match["U"]
    if digits:
        code = int(digits, 16)
        return chr(code) if code <= 0x10FFFF else match[0]
    if match["octal"]:
        return chr(int(match["octal"], 8))
    return _SIMPLE_ESCAPES.get(match["char"], match[0])


def _unescape(body: str) -> str:
    return _ESCAPE.sub(_unescape_one, body) if "\\" in body else body


# ---------------------------------------------------------------- text replies


def parse_reply(text: str, *, free_answer: bool = False, strict: bool = True) -> Parsed:
    """The one action in an agent's reply text; Invalid (never an exception) if there is none.

    ``free_answer``: the task asks for an answer in words, so ``Answer:`` takes the rest of
    the block (whitespace trimmed) instead of one letter. ``strict`` (rules 3 on): a keyword given twice is refused
    on every path; before, ``_literal_call`` took ``f(a="x", a="y", "b": "z")`` as ``f(a="y", b="z")``, which the full
    parser refuses (a red-team's find), and runs of rules 1 and 2 are read as they were played."""
    return _tagged_plain_call(text) or _read_reply(text, free_answer, strict)


_PLAIN_PAIR = r'\s*+[A-Za-z_][A-Za-z0-9_]*+\s*+=\s*+"[^"\\\n<]*+"\s*+'
_TAGGED_PLAIN_CALL = re.compile(rf"Action: (?P<name>{_NAME_PATTERN})(?P<args>\((?:{_PLAIN_PAIR},)*+(?:{_PLAIN_PAIR})?+\))")
"""Possessive throughout: each pair ends at its closing quote and each repeat at its comma, so nothing is read twice."""


def _tagged_plain_call(text: str) -> Call | None:
    """The commonest reply, read with one search and two matches: the first tag opens ``Action: name(key="text", ...)``
    with plain ASCII text holding no quote, backslash, newline or '<' (so no closing tag either). None for anything
    else, which ``_read_reply`` then reads; where this answers, that gives the same call (a property test checks it)."""
    opening = _OPEN_TAG.search(text)
    if opening is None:
        return None
    match = _TAGGED_PLAIN_CALL.match(text, opening.end())
    if match is None or match["name"].lower() == "finish" or not match["args"].isascii():
        return None
    pairs = _SIMPLE_PAIR.findall(text, match.start("args"), match.end())
    args = dict(sorted(pairs))
    return Call(name=match["name"], args=args, positional=[]) if len(args) == len(pairs) else None


def _read_reply(text: str, free_answer: bool, strict: bool = True) -> Parsed:
    text = text.replace("\r\n", "\n")
    opening = _OPEN_TAG.search(text)
    if opening is None:
        return _parse_block(text, tagged=False, free_answer=free_answer, strict=strict)
    closing = _CLOSE_TAG.search(text, opening.end())
    end = len(text) if closing is None else closing.start()
    block = text[opening.end() : end]
    if (action := _BLOCK_ACTION.match(block)) is not None:
        try:
            return _call_or_finish(block, action["name"], action.end() - 1, strict)
        except _Reject as reject:
            return reject.invalid
    return _parse_block(block, tagged=True, free_answer=free_answer, strict=strict)


_BLOCK_ACTION = re.compile(rf"Action: (?P<name>{_NAME_PATTERN})\(")
"""A tag's block that starts ``Action: name(``: ``_parse_block`` finds no bare call there (a name ends at the colon),
takes the directive at its start and reads the call whose parenthesis follows the name, which this reads at once."""


def _parse_block(block: str, *, tagged: bool, free_answer: bool, strict: bool = True) -> Parsed:
    try:
        if tagged and (bare := _BARE_CALL.match(block)):
            return _call(block, bare["name"], bare.end() - 1, strict)
        directive = (_TAGGED_DIRECTIVE if tagged else _UNTAGGED_DIRECTIVE).search(block)
        if directive is None:
            return _NO_ACTION
        if directive["answer"] and free_answer:
            words = block[directive.end() :].strip()
            return Answer(value=words) if words else _EMPTY_FREE_ANSWER
        if directive["answer"]:
            letter = _answer_letter(block, directive.end())
            return _BAD_ANSWER if letter is None else Answer(value=letter)
        if directive["action"]:
            return _parse_action(block, directive.end(), strict)
        return Finish()
    except _Reject as reject:
        return reject.invalid


def _answer_letter(text: str, pos: int) -> str | None:
    """The upper-cased letter of an answer written at ``pos``, or None."""
    match = _ANSWER_LETTER.match(text, pos)
    if match is None or text[match.end() : match.end() + 1].isalnum():
        return None
    return match[1].upper()


def _parse_action(block: str, pos: int, strict: bool) -> Parsed:
    """The call after an ``Action:`` prefix that ends at ``pos``."""
    match = _ACTION_CALL.match(block, pos)
    if match is None:
        raise _Reject(
            "'Action:' must be followed by a tool call such as geography.get_current_location()"
        )
    if match["paren"] is None:
        name = _escaped(match["name"], _ECHO_NAME)
        raise _Reject(
            f"the call '{name}' has no argument list; write it with parentheses, like {name}()"
        )
    return _call(block, match["name"], match.end() - 1, strict)


def _call(block: str, name: str, pos: int, strict: bool = True) -> Parsed:
    """The call whose argument list opens at ``pos``: a fast path when one applies, else the full parser."""
    return (_simple_call(block, name, pos) or _literal_call(block, name, pos, strict)
            or _CallParser(block, name, pos).parse())


def _call_or_finish(block: str, name: str, pos: int, strict: bool = True) -> Parsed:
    """``_call``, with ``finish()`` (what ends most tasks) read without the full parser."""
    if block.startswith("()", pos) and name.lower() == "finish":
        return _FINISHED
    return _call(block, name, pos, strict)


_FINISHED = Finish()


_SIMPLE_ARGS = re.compile(
    r'\((?:\s*+[A-Za-z_][A-Za-z0-9_]*+\s*+=\s*+"[^"\\\n]*+"\s*+,)*+(?:\s*+[A-Za-z_][A-Za-z0-9_]*+\s*+=\s*+"[^"\\\n]*+"\s*+)?+\)'
)
"""Possessive throughout, as ``_TAGGED_PLAIN_CALL``: giving back can never make it match (a pair ends at its closing
quote, a repeat at its comma), and a failed match (a call with a list, say) gave back character by character."""
_SIMPLE_PAIR = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"([^"\\\n]*)"')


def _simple_call(block: str, name: str, pos: int) -> Parsed | None:
    """Most calls are ``name(key="text", ...)`` with plain strings: read those with two regexes.

    Returns None (use the full parser) for anything else, including a repeated keyword, so
    both paths give the same result wherever this one answers (a property test checks it).
    """
    if name.lower() == "finish":
        return None
    match = _SIMPLE_ARGS.match(block, pos)
    if match is None:
        return None
    pairs = _SIMPLE_PAIR.findall(block, pos, match.end())
    args = dict(pairs)
    if len(args) != len(pairs):
        return None
    if block[pos : match.end()].isascii():  # ASCII values are stored as they are, keys in canonical order
        return Call(name=name, args=dict(sorted(pairs)), positional=[])
    return _stored_call(name, args, [])


_LITERAL_ARGS = re.compile(
    r"""\(((?:\s|[A-Za-z_][A-Za-z0-9_]*+\s*+=(?!=)|'[^'"\\\n=]*+'|"[^'"\\\n=]*+"|[\[\]{},:])*+)\)"""
)
_IDENTIFIER_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
_JSON_OBJECT = msgspec.json.Decoder(dict[str, Any])


def _keyed(inner: str) -> tuple[list[str], str]:
    """The keywords of ``_LITERAL_ARGS``'s arguments, and the arguments as one JSON object: each ``name=`` written
    ``"name":`` and every quote double. Their texts hold no '=', so each '=' ends a keyword, the name right before
    it (spaces between): read with string methods, which cost a fraction of a regular expression's scan."""
    pieces = inner.replace("'", '"').split("=")
    keys: list[str] = []
    out = ["{"]
    for piece in pieces[:-1]:
        head = piece.rstrip()
        cut = len(head.rstrip(_IDENTIFIER_CHARS))
        keys.append(head[cut:])
        out += (head[:cut], '"', head[cut:], '":')
    out += (pieces[-1], "}")
    return keys, "".join(out)


def _unquoted(text: str) -> str:
    """``text`` without its double-quoted strings (none of which holds a quote)."""
    return "".join(text.split('"')[0::2])


def _literal_call(block: str, name: str, pos: int, strict: bool = True) -> Parsed | None:
    """Calls whose keyword arguments are plain quoted ASCII text and lists and dicts of it (``walk_to``'s
    ``path_info={'path': ['B001', 'B002']}``): rewritten as one JSON object and decoded at once.

    Text here holds no quote, backslash, newline or '=', so every quote is a string's own and every
    ``name=`` a keyword. Returns None (use the full parser) for anything else: other values, a repeated
    keyword or dict key, a trailing comma, more brackets than the full parser nests."""
    match = _LITERAL_ARGS.match(block, pos)
    if match is None or name.lower() == "finish":
        return None
    inner = match[1]
    keys, as_json = _keyed(inner)
    if not keys or not inner.isascii() or inner.count("[") + inner.count("{") > MAX_DEPTH:
        return None
    try:
        args = _JSON_OBJECT.decode(as_json)
    except msgspec.DecodeError:
        return None
    if len(args) != len(keys) or (strict and len(set(keys)) != len(keys)):  # a keyword given twice, or one inside a value
        return None
    if "{" not in inner:
        return Call(name=name, args=dict(sorted(args.items())), positional=[])
    stored = _SORTED.encode(args)  # ASCII text needs no other canonical change than sorted keys
    if _unquoted(stored.decode()).count(":") != len(keys) + _unquoted(inner.replace("'", '"')).count(":"):
        return None  # a dict key given twice: the decoded dict kept one, so it has fewer keys than the text
    return Call(name=name, args=_JSON_OBJECT.decode(stored), positional=[])


_SORTED = msgspec.json.Encoder(order="sorted")


class _CallParser:
    """Recursive descent over one call's parenthesised argument list, from its '('.

    Every bracket being read (the call's own parenthesis first) is on ``_open``; its length
    bounds the recursion at ``MAX_DEPTH`` levels of nesting inside an argument.
    """

    def __init__(self, text: str, name: str, pos: int) -> None:
        self._text = text
        self._name = name
        self._pos = pos
        self._open: list[str] = []
        self._args: dict[str, Any] = {}
        self._positional: list[Any] = []
        self._label = ""  # the argument being read, as messages name it
        self._key = ""  # its keyword, escaped; "" for a positional argument
        self._ended_with_string = False

    def parse(self) -> Parsed:
        self._container("(", ")", self._argument)
        if self._name.lower() != "finish":
            return _stored_call(self._name, self._args, self._positional)
        return _FINISH_WITH_ARGUMENTS if self._args or self._positional else Finish()

    # -------------------------------------------------------- structure

    def _peek(self) -> str:
        """The next non-space character ("" at the end), skipping the spaces before it."""
        char = self._text[self._pos : self._pos + 1]
        if char.isspace():
            self._pos = _skip_spaces(self._text, self._pos)
            char = self._text[self._pos : self._pos + 1]
        return char

    def _container(
        self, opener: str, closer: str, item: Callable[[], Any]
    ) -> tuple[list[Any], bool]:
        """The items of a bracketed, comma-separated sequence, and whether a comma ended it."""
        if len(self._open) > MAX_DEPTH:
            raise self._bad(
                f"is nested more than {MAX_DEPTH} levels deep; use flatter lists and dicts"
            )
        self._open.append(opener)
        self._pos += 1
        items: list[Any] = []
        comma = False
        while (char := self._peek()) != closer:
            if char == "":
                raise self._unclosed()
            items.append(item())
            comma = self._separator(closer)
            if not comma:
                break
        self._pos += 1
        self._open.pop()
        return items, comma

    def _separator(self, closer: str) -> bool:
        """Consume a ',' (True) or stand before ``closer`` (False); anything else is an error."""
        char = self._peek()
        if char == ",":
            self._pos += 1
            return True
        if char == closer:
            return False
        raise self._unexpected(char)

    def _argument(self) -> None:
        key = self._keyword()
        if key is None:
            number = len(self._positional) + 1
            if self._args:
                raise _Reject(
                    f"positional argument {number} comes after keyword arguments; "
                    "put positional arguments first or give it a name"
                )
            self._label, self._key = f"positional argument {number}", ""
            self._positional.append(self._value())
            return
        self._key = _escaped(key)
        self._label = f"argument '{self._key}'"
        if key in self._args:
            raise self._bad("is given more than once; give each argument once")
        self._args[key] = self._value()

    def _keyword(self) -> str | None:
        match = _KEYWORD.match(self._text, self._pos)
        if match is None:
            return None
        self._pos = match.end()
        return match["key"]

    # -------------------------------------------------------- values

    def _value(self) -> Any:
        value = self._literal()
        self._ended_with_string = isinstance(value, str)
        return value

    def _literal(self) -> Any:
        char = self._peek()
        if char in ('"', "'"):
            return self._strings()
        if char == "[":
            return self._container("[", "]", self._value)[0]
        if char == "(":
            items, comma = self._container("(", ")", self._value)
            return items[0] if len(items) == 1 and not comma else items
        if char == "{":
            return dict(self._container("{", "}", self._pair)[0])
        if number := _NUMBER.match(self._text, self._pos):
            return self._number(number[0])
        if word := _WORD.match(self._text, self._pos):
            return self._word(word)
        if char == "":
            raise self._unclosed()
        if char in (",", ")", "]", "}", ":"):
            raise self._bad("is missing its value")
        raise self._bad(f"has {ascii(char)} where a value should start; use {_LITERALS}")

    def _pair(self) -> tuple[str, Any]:
        key = self._value()
        char = self._peek()
        if char == ":" and isinstance(key, str):
            self._pos += 1
            return key, self._value()
        if char == ":":
            raise self._bad('has a dict key that is not quoted text; write keys like {"key": 1}')
        if char in (",", "}"):
            raise self._bad('contains a set; use a list like [1, 2] or a dict like {"key": 1}')
        raise self._unexpected(char)

    def _strings(self) -> str:
        parts = [self._string()]
        while self._peek() in ('"', "'"):
            parts.append(self._string())
        return "".join(parts)

    def _string(self) -> str:
        triple = self._text[self._pos : self._pos + 3]
        quote = triple if triple in _STRING else triple[0]
        match = _STRING[quote].match(self._text, self._pos)
        if match is None:
            raise self._bad(
                f"has a string that is never closed; close it with a matching {quote} quote"
            )
        self._pos = match.end()
        return _unescape(match[1])

    def _number(self, token: str) -> int | float:
        if len(token) > _MAX_NUMBER_LENGTH:
            raise self._bad(
                f"has a number longer than {_MAX_NUMBER_LENGTH} characters; put it in quotes"
            )
        self._pos += len(token)
        if "." not in token and "e" not in token and "E" not in token:
            return int(token)
        value = float(token)
        if not math.isfinite(value):
            raise self._bad("has a number too large for a float; put it in quotes")
        return value

    def _word(self, match: re.Match[str]) -> Any:
        word = match[0]
        if word in _CONSTANTS:
            self._pos = match.end()
            return _CONSTANTS[word]
        shown = _escaped(word)
        if self._text.startswith("(", _skip_spaces(self._text, match.end())):
            raise self._bad(
                f"contains a function call '{shown}(...)'; only {_LITERALS} are allowed"
            )
        at_top = self._key and len(self._open) == 1
        example = f'{self._key}="{shown}"' if at_top else f'"{shown}"'
        raise self._bad(f"has an unquoted value '{shown}'; put text in quotes, like {example}")

    # -------------------------------------------------------- errors

    def _bad(self, problem: str) -> _Reject:
        """A problem with the argument being read."""
        return _Reject(f"{self._label} {problem}")

    def _unclosed(self) -> _Reject:
        if len(self._open) == 1:
            name = _escaped(self._name, _ECHO_NAME)
            return _Reject(f"the call '{name}' is missing its closing parenthesis ')'")
        return self._bad(f"has a '{self._open[-1]}' that is never closed")

    def _unexpected(self, char: str) -> _Reject:
        """The error for ``char`` standing right after a complete value."""
        if char == "":
            return self._unclosed()
        if self._ended_with_string and (char in ('"', "'") or char.isalnum()):
            return self._bad(
                f"has {ascii(char)} right after a closing quote; "
                'escape quotes inside text as \\" or wrap the text in triple quotes'
            )
        return self._bad(
            f"has {ascii(char)} after a value; separate values with commas "
            f"and use only {_LITERALS}, not expressions"
        )


def _stored_call(name: str, args: dict[str, Any], positional: list[Any]) -> Call | Invalid:
    """The call with its arguments as the log stores them (canonical), or Invalid if JSON cannot hold them."""
    try:
        msgspec.json.encode([args, positional])
    except UnicodeEncodeError:
        return _call_error(
            "the arguments contain an unpaired surrogate such as \\ud800; "
            "write the character itself"
        )
    except (msgspec.EncodeError, TypeError, ValueError, RecursionError) as error:
        return _call_error(
            f"the arguments cannot be stored as JSON ({_escaped(str(error), 80)}); "
            f"use {_LITERALS}"
        )
    stored = canonical_arguments(args, positional)
    if isinstance(stored, str):
        return _call_error(f"{stored}; use {_LITERALS}")
    return Call(name=name, args=stored[0], positional=stored[1])


# ---------------------------------------------------------------- structured calls


def parse_structured(name: str, arguments: dict[str, Any] | str | None, *, free_answer: bool = False) -> Parsed:
    """The action of a native function call: a name and a dict, JSON text or None.

    ``free_answer``: ``answer`` takes its ``answer`` (or ``text``, or ``letter``) argument as words."""
    if _NAME.fullmatch(name) is None:
        return Invalid(
            message=f"Invalid action: '{_escaped(name, _ECHO_NAME)}' is not a valid tool name; "
            "use a function name like calendar__add_event."
        )
    if name.lower() == "finish":
        return Finish()
    args = _structured_arguments(arguments)
    if isinstance(args, Invalid):
        return args
    if name.lower() == "answer":
        value = args.get("answer", args.get("text", args.get("letter")))
        if free_answer:
            words = str(value).strip() if isinstance(value, (str, int, float)) and not isinstance(value, bool) else ""
            return Answer(value=words) if words else _BAD_STRUCTURED_FREE_ANSWER
        letter = _answer_letter(value, 0) if isinstance(value, str) else None
        return _BAD_STRUCTURED_ANSWER if letter is None else Answer(value=letter)
    return _stored_call(name, args, [])


_JSON_KINDS: dict[type, str] = {
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def _structured_arguments(arguments: dict[str, Any] | str | None) -> dict[str, Any] | Invalid:
    """The arguments as a fresh dict; None and blank JSON text mean no arguments."""
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}
    if isinstance(arguments, str):
        try:
            arguments = msgspec.json.decode(arguments)
        except (msgspec.DecodeError, UnicodeError, RecursionError) as error:
            return Invalid(
                message="Invalid action: arguments are not valid JSON: "
                f"{_escaped(str(error), 80)}. {_JSON_EXAMPLE}"
            )
    if not isinstance(arguments, dict):
        kind = _JSON_KINDS.get(type(arguments), "that")
        return Invalid(
            message=f"Invalid action: the arguments must be a JSON object, not {kind}. "
            + _JSON_EXAMPLE
        )
    if _too_deep(arguments):
        return Invalid(
            message=f"Invalid action: the arguments are nested more than {MAX_DEPTH} levels "
            "deep; use flatter lists and objects."
        )
    return dict(arguments)


def _too_deep(arguments: dict[str, Any]) -> bool:
    """Whether an argument nests lists/dicts more than MAX_DEPTH levels (without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1) for value in arguments.values()]
    while stack:
        value, level = stack.pop()
        if not isinstance(value, (dict, list, tuple)):
            continue
        if level > MAX_DEPTH:
            return True
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, level + 1) for child in children)
    return False

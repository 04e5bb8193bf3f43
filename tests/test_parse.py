"""Tests for kernel.parse: every accepted form, every rejection, fuzzing, round trips, speed."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from campus.kernel.admit import canonical_arguments
from campus.kernel.parse import (
    MAX_DEPTH,
    Answer,
    Call,
    Finish,
    Invalid,
    Parsed,
    parse_reply,
    parse_structured,
)


def call_of(text: str) -> Call:
    result = parse_reply(text)
    assert isinstance(result, Call), result
    return result


def message_of(result: Parsed) -> str:
    assert isinstance(result, Invalid), result
    assert result.message.isascii(), result.message
    assert result.message.startswith("Invalid action: ")
    return result.message


def assert_well_formed(result: Parsed) -> None:
    assert isinstance(result, (Call, Answer, Finish, Invalid))
    if isinstance(result, Invalid):
        assert result.message.isascii()
        assert len(result.message) < 600
    if isinstance(result, Answer):
        assert len(result.value) == 1 and "A" <= result.value <= "Z"


# ---------------------------------------------------------------- accepted forms: calls


def test_stulife_call_with_keyword_arguments() -> None:
    text = (
        '<action>Action: calendar.add_event(calendar_id="self", event_title="Study", '
        'location="B001", time="Week 1, Monday, 10:00-11:00")</action>'
    )
    assert parse_reply(text) == Call(
        name="calendar.add_event",
        args={
            "calendar_id": "self",
            "event_title": "Study",
            "location": "B001",
            "time": "Week 1, Monday, 10:00-11:00",
        },
    )


def test_call_without_arguments() -> None:
    assert parse_reply("<action>Action: geography.get_current_location()</action>") == Call(
        name="geography.get_current_location"
    )


def test_nested_dict_and_list_argument() -> None:
    text = "<action>Action: geography.walk_to(path_info={'path': ['B083', 'B142', 'B001']})"
    assert call_of(text + "</action>").args == {"path_info": {"path": ["B083", "B142", "B001"]}}


def test_positional_arguments_come_in_order_before_keywords() -> None:
    call = call_of('<action>Action: map.find_building_id("Library", 2, floor=3)</action>')
    assert call.positional == ["Library", 2]
    assert call.args == {"floor": 3}


def test_json_and_python_literals() -> None:
    call = call_of("Action: x.y(a=true, b=false, c=null, d=True, e=False, f=None)")
    assert call.args == {"a": True, "b": False, "c": None, "d": True, "e": False, "f": None}
    assert all(type(call.args[key]) is bool for key in "abde")


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("3", 3),
        ("-2", -2),
        ("0", 0),
        ("2.5", 2.5),
        ("-0.75", -0.75),
        ("1e3", 1000),
        ("-1.5e-3", -0.0015),
        ("2E+2", 200),
        (".5", 0.5),
        ("5.", 5),
        ("25.0", 25),
        ("-0.0", 0),
        ("1e5", 100000),
    ],
)
def test_numbers(literal: str, expected: int | float) -> None:
    """A number is read as the log stores it: an integral float is that integer (``25.0`` is ``25``)."""
    value = call_of(f"Action: x.y(n={literal})").args["n"]
    assert value == expected
    assert type(value) is type(expected)


def test_tuples_become_lists_and_parentheses_just_group() -> None:
    call = call_of("Action: x.y(a=(1, 2), b=(1,), c=(), d=(7), e=[(1, [2]), {'k': (3,)}])")
    assert call.args == {"a": [1, 2], "b": [1], "c": [], "d": 7, "e": [[1, [2]], {"k": [3]}]}


def test_trailing_commas_whitespace_and_newlines_between_tokens() -> None:
    text = "Action: x.y (\n    a = 1 ,\n    b = [ 1 , 2 , ] ,\n    c = { 'k' : 'v' , } ,\n)"
    assert call_of(text).args == {"a": 1, "b": [1, 2], "c": {"k": "v"}}


def test_text_after_the_closing_parenthesis_is_ignored() -> None:
    assert call_of("Action: x.y(a=1) and then I will check ) the result").args == {"a": 1}


def test_multi_line_block_with_multi_line_string_arguments() -> None:
    text = (
        "I should email the professor.\n"
        "<action>\n"
        "Action: email.send_email(\n"
        '    to="prof@univ.edu",\n'
        '    subject="Question about "\n'
        '            "the homework",\n'
        '    body="Dear Professor,\n'
        "\n"
        "I have a question.\n"
        '    Best,\n    Alex"\n'
        ")\n"
        "</action>\n"
        "I will wait for the reply."
    )
    assert parse_reply(text) == Call(
        name="email.send_email",
        args={
            "to": "prof@univ.edu",
            "subject": "Question about the homework",
            "body": "Dear Professor,\n\nI have a question.\n    Best,\n    Alex",
        },
    )


def test_triple_quoted_strings() -> None:
    body = '"""He said "hi"\nand \'left\'."""'
    note = "'''it's \"ok\"'''"
    call = call_of(f"<action>Action: email.send(body={body}, note={note})</action>")
    assert call.args == {"body": "He said \"hi\"\nand 'left'.", "note": 'it\'s "ok"'}


def test_triple_quote_ends_at_the_first_three_quotes() -> None:
    assert call_of('Action: x.y(a="""x""""")').args == {"a": "x"}
    assert call_of('Action: x.y(a="""a""" "b")').args == {"a": "ab"}
    assert call_of('Action: x.y(a=""""a""")').args == {"a": '"a'}


@pytest.mark.parametrize(
    ("escaped", "expected"),
    [
        (r"a\nb", "a\nb"),
        (r"a\tb", "a\tb"),
        (r"a\rb", "a\rb"),
        (r"a\\b", "a\\b"),
        (r"a\'b", "a'b"),
        (r"a\"b", 'a"b'),
        (r"caf\u00e9", "caf\u00e9"),
        (r"\x41\x42", "AB"),
        (r"\U0001F600", "\U0001f600"),
        (r"\ud83d\ude00", "\U0001f600"),
        (r"\0", "\0"),
        (r"\101", "A"),
        (r"C:\data\go", "C:\\data\\go"),
        (r"\xZZ", "\\xZZ"),
        ("line one \\\nline two", "line one line two"),
    ],
)
def test_escapes(escaped: str, expected: str) -> None:
    assert call_of(f'Action: x.y(s="{escaped}")').args["s"] == expected


def test_raw_newlines_are_allowed_in_every_kind_of_string() -> None:
    text = "Action: x.y(a='1\n2', b=\"3\n4\", c='''5\n6''', d=\"\"\"7\n8\"\"\")"
    assert call_of(text).args == {"a": "1\n2", "b": "3\n4", "c": "5\n6", "d": "7\n8"}


def test_windows_line_endings() -> None:
    text = 'Thinking...\r\n<action>\r\nAction: x.y(body="a\r\nb")\r\n</action>\r\n'
    assert call_of(text).args == {"body": "a\nb"}
    assert parse_reply("done\r\nfinish()\r\n") == Finish()


def test_non_ascii_text_in_strings() -> None:
    call = call_of('Action: x.y(place="图书馆", note="naïve ☕")')
    assert call.args == {"place": "图书馆", "note": "naïve ☕"}


def test_nesting_up_to_the_limit_is_accepted() -> None:
    value = call_of("Action: x.y(a=" + "[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH + ")").args["a"]
    for _ in range(MAX_DEPTH):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == 1


# ---------------------------------------------------------------- accepted forms: the block


def test_reasoning_before_and_after_the_block() -> None:
    text = "The library is B083, so I go.\n<action>Action: x.y(a=1)</action>\nThat should work."
    assert call_of(text).args == {"a": 1}


def test_only_the_first_block_is_used() -> None:
    text = "<action>Answer: C</action> on second thought <action>Answer: D</action>"
    assert parse_reply(text) == Answer(value="C")


def test_the_first_action_or_answer_line_in_the_block_wins() -> None:
    text = "<action>\nI think so.\nAnswer: A\nAction: x.y()\n</action>"
    assert parse_reply(text) == Answer(value="A")


@pytest.mark.parametrize(
    "text",
    [
        "<ACTION>Action: x.y(a=1)</ACTION>",
        "<Action>ACTION: x.y(a=1)</aCtIoN>",
        "<action>action: x.y(a=1)</action>",
    ],
)
def test_tags_and_prefix_are_case_insensitive(text: str) -> None:
    assert call_of(text) == Call(name="x.y", args={"a": 1})


def test_a_block_without_closing_tag_runs_to_the_end() -> None:
    assert call_of("Ok.\n<action>\nAction: x.y(a=[1,\n2])\nmore text").args == {"a": [1, 2]}


def test_without_tags_the_whole_reply_is_searched_line_by_line() -> None:
    text = "Let me look it up.\nAction: map.find_building_id(building_name='Library')\nDone."
    assert call_of(text).args == {"building_name": "Library"}


def test_action_prefix_must_start_a_line() -> None:
    assert "no 'Action:'" in message_of(parse_reply("I will take Action: x.y()"))


@pytest.mark.parametrize(
    "text",
    [
        '<action>map.find_building_id(building_name="X")</action>',
        '<action>\n   map.find_building_id (building_name="X")\n</action>',
        '<action>`map.find_building_id(building_name="X")`</action>',
    ],
)
def test_inside_a_tag_the_action_prefix_is_optional(text: str) -> None:
    assert call_of(text) == Call(name="map.find_building_id", args={"building_name": "X"})


def test_a_string_argument_cannot_hijack_the_bare_call() -> None:
    text = '<action>email.send(body="thanks\nAnswer: B")</action>'
    assert call_of(text).args == {"body": "thanks\nAnswer: B"}


@pytest.mark.parametrize(
    "text",
    [
        "**Action:** `geography.get_current_location()`",
        "- Action: geography.get_current_location()",
        "> Action: geography.get_current_location()",
        "```\nAction: geography.get_current_location()\n```",
        "  `Action: geography.get_current_location()`",
        "### Action:\ngeography.get_current_location()",
    ],
)
def test_markdown_decoration_is_stripped(text: str) -> None:
    assert parse_reply(text) == Call(name="geography.get_current_location")


# ---------------------------------------------------------------- accepted forms: answer, finish


@pytest.mark.parametrize(
    "text",
    [
        "<action>Answer: B</action>",
        "<action>Answer: b</action>",
        "<action>Answer:B</action>",
        "<action>Answer: B.</action>",
        "<action>Answer: [B]</action>",
        "<action>Answer: (B)</action>",
        "<action>Answer: **B**</action>",
        "<action>Answer: B. Because the rule says so.</action>",
        "<action>answer: b</action>",
        "**Answer:** B",
        "Answer: B",
        "Reasoning first.\nAnswer: B\nMore reasoning.",
    ],
)
def test_answers(text: str) -> None:
    assert parse_reply(text) == Answer(value="B")


@pytest.mark.parametrize(
    "text",
    [
        "<action>Action: finish()</action>",
        "<action>finish()</action>",
        "<action>Action: FINISH()</action>",
        "<action>Action: Finish( )</action>",
        "Action: finish()",
        "All tasks are done.\nfinish()",
        "All tasks are done.\n   finish()   \n",
    ],
)
def test_finish(text: str) -> None:
    assert parse_reply(text) == Finish()


def test_finish_inside_prose_is_not_finish() -> None:
    assert isinstance(parse_reply("I will call finish() now."), Invalid)


def test_a_call_named_like_finish_is_a_call() -> None:
    assert parse_reply("<action>Action: finish_task()</action>") == Call(name="finish_task")


# ---------------------------------------------------------------- rejections


def test_no_action_found() -> None:
    message = message_of(parse_reply("I am not sure what to do."))
    assert "no 'Action:' or 'Answer:' found" in message
    assert "<action>Action: geography.get_current_location()</action>" in message
    assert "<action>Answer: B</action>" in message
    assert "<action>Action: finish()</action>" in message


@pytest.mark.parametrize(
    "text", ["", "   \n  ", "<action></action>", "<action>  </action>", "<action>Finish</action>"]
)
def test_empty_or_meaningless_replies(text: str) -> None:
    assert "no 'Action:' or 'Answer:' found" in message_of(parse_reply(text))


@pytest.mark.parametrize(
    "text",
    [
        "<action>Answer: Because</action>",
        "<action>Answer: BC</action>",
        "<action>Answer:</action>",
        "<action>Answer: 3</action>",
        "<action>Answer: Bé</action>",
        "Answer:\nB",
    ],
)
def test_answer_must_be_a_single_letter(text: str) -> None:
    message = message_of(parse_reply(text))
    assert "single letter" in message
    assert "<action>Answer: B</action>" in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Action: x.y(a="b"', "the call 'x.y' is missing its closing parenthesis"),
        ("Action: x.y(", "the call 'x.y' is missing its closing parenthesis"),
        ("Action: x.y(a=", "the call 'x.y' is missing its closing parenthesis"),
        ("<action>Action: x.y(a=1, </action>", "the call 'x.y' is missing its closing parenthesis"),
        ("Action: x.y", "has no argument list; write it with parentheses, like x.y()"),
        ("Action: finish", "has no argument list; write it with parentheses, like finish()"),
        ("Action: 42", "'Action:' must be followed by a tool call"),
        ("Action:", "'Action:' must be followed by a tool call"),
        (
            'Action: calendar.add_event(calendar_id=self, event_title="Study")',
            "argument 'calendar_id' has an unquoted value 'self'; "
            'put text in quotes, like calendar_id="self"',
        ),
        (
            "Action: x.y(a=[1, B083])",
            "argument 'a' has an unquoted value 'B083'; put text in quotes, like \"B083\"",
        ),
        ("Action: x.y(self)", "positional argument 1 has an unquoted value 'self'"),
        ("Action: x.y(a=1+2)", "argument 'a' has '+' after a value"),
        ("Action: x.y(a=1 b=2)", "argument 'a' has 'b' after a value; separate values with commas"),
        ("Action: x.y(a=-x)", "argument 'a' has '-' where a value should start"),
        ("Action: x.y(a=str(1))", "argument 'a' contains a function call 'str(...)'"),
        ('Action: x.y(a="b".upper())', "argument 'a' has '.' after a value"),
        ("Action: x.y(a={1, 2})", "argument 'a' contains a set; use a list like [1, 2]"),
        ("Action: x.y(a={'b'})", "argument 'a' contains a set"),
        ("Action: x.y(a={1: 2})", "argument 'a' has a dict key that is not quoted text"),
        ("Action: x.y(a={b: 2})", "argument 'a' has an unquoted value 'b'"),
        ("Action: x.y(a=1, 2)", "positional argument 1 comes after keyword arguments"),
        ("Action: x.y(a=1, a=2)", "argument 'a' is given more than once"),
        ('Action: x.y(a="abc)', "argument 'a' has a string that is never closed"),
        ('Action: x.y(a="""abc")', "argument 'a' has a string that is never closed"),
        ("Action: x.y(a=[1, 2)", "argument 'a' has ')' after a value"),
        ("Action: x.y(a=[1, 2", "argument 'a' has a '[' that is never closed"),
        ("Action: x.y(a={'k': 1", "argument 'a' has a '{' that is never closed"),
        ("Action: x.y(a=)", "argument 'a' is missing its value"),
        ("Action: x.y(1,,2)", "positional argument 2 is missing its value"),
        ('Action: x.y(body="He said "hi" to me")', "right after a closing quote; escape quotes"),
        ("Action: x.y(a=" + "1" * 101 + ")", "argument 'a' has a number longer than 100"),
        ("Action: x.y(a=1e999)", "argument 'a' has a number too large for a float"),
        ("Action: x.y(a=0x1F)", "argument 'a' has 'x' after a value"),
        ('Action: x.y(a="\\ud800")', "unpaired surrogate"),
        ("Action: x.y(a=" + "[" * 33 + "]" * 33 + ")", "argument 'a' is nested more than 32"),
    ],
)
def test_call_rejections_say_what_is_wrong(text: str, expected: str) -> None:
    message = message_of(parse_reply(text))
    assert expected in message
    assert "A call looks like <action>Action: " in message


def test_finish_with_arguments_is_rejected() -> None:
    message = message_of(parse_reply("<action>Action: finish(reason='done')</action>"))
    assert "finish() takes no arguments" in message
    assert "<action>Action: finish()</action>" in message


def test_messages_quote_little_of_the_reply_and_stay_ascii() -> None:
    name, key, word = "n" * 10_000, "k" * 10_000, "é" + "w" * 10_000
    message = message_of(parse_reply(f"Action: {name}.tool({key}={word})"))
    assert "\\xe9" in message
    assert all(letter * 41 not in message for letter in "nkw")
    assert len(message) < 400
    assert "n" * 41 not in message_of(parse_reply(f"Action: {name}"))


# ---------------------------------------------------------------- never raises

syntax_soup = st.text(
    st.sampled_from(list("\"'\\()[]{},=:-+.eE0123456789 \n\tabxyzTNrueFalsNon_*`<>/é")),
    max_size=80,
) | st.text(max_size=80)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parse_reply_never_raises_on_any_text(text: str) -> None:
    assert_well_formed(parse_reply(text))


@settings(max_examples=300, deadline=None)
@given(syntax_soup, st.sampled_from(["", ")", ")</action>", "</action>"]))
def test_parse_reply_never_raises_inside_a_call(arguments: str, ending: str) -> None:
    assert_well_formed(parse_reply("<action>Action: x.y(" + arguments + ending))


@settings(max_examples=200, deadline=None)
@given(syntax_soup)
def test_parse_reply_never_raises_after_a_prefix(text: str) -> None:
    for prefix in ("Action: ", "Answer: ", "<action>", "<action>x.y(a=["):
        assert_well_formed(parse_reply(prefix + text))


# ---------------------------------------------------------------- round trips

identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
dotted_names = (
    st.lists(identifiers, min_size=1, max_size=3)
    .map(".".join)
    .filter(lambda name: name.lower() != "finish")
)
scalars = (
    st.text(max_size=20)
    | st.sampled_from(["it's", 'say "hi"', "back\\slash", "two\nlines", "\\u0041", "'''", '"""'])
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.booleans()
    | st.none()
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def render(value: Any) -> str:
    """``value`` written as a Python literal, the way an agent would."""
    if isinstance(value, list):
        return "[" + ", ".join(render(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key!r}: {render(item)}" for key, item in value.items()) + "}"
    return repr(value)


def typed(value: Any) -> Any:
    """``value`` with every leaf tagged by its type, so True != 1 and floats compare by repr."""
    if isinstance(value, list):
        return ["list", [typed(item) for item in value]]
    if isinstance(value, dict):
        return ["dict", {key: typed(item) for key, item in value.items()}]
    return [type(value).__name__, repr(value)]


@settings(max_examples=150, deadline=None)
@given(
    dotted_names,
    st.lists(json_values, max_size=3),
    st.dictionaries(identifiers, json_values, max_size=5),
    st.sampled_from([", ", ",", ",\n    ", " ,\n"]),
)
def test_rendered_calls_round_trip(
    name: str, positional: list[Any], args: dict[str, Any], comma: str
) -> None:
    rendered = comma.join(
        [render(value) for value in positional]
        + [f"{key}={render(value)}" for key, value in args.items()]
    )
    assume("</action>" not in rendered.lower())
    result = call_of(f"Thinking.\n<action>Action: {name}({rendered})</action>\n")
    assert result.name == name
    stored = canonical_arguments(args, positional)
    assert not isinstance(stored, str)
    assert typed(result.positional) == typed(stored[1])
    assert typed(result.args) == typed(stored[0])


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    st.sampled_from(["", ".", ")", "]", "**", " - it is", "\nmore"]),
)
def test_any_letter_is_an_answer(letter: str, tail: str) -> None:
    assert parse_reply(f"<action>Answer: {letter}{tail}</action>") == Answer(value=letter.upper())


# ---------------------------------------------------------------- size and speed


def test_a_one_megabyte_string_argument_is_read_whole() -> None:
    body = 'Lorem ipsum "dolor" sit\namet, \\n consectetur. ' * 22_000
    assert len(body) > 1_000_000
    literal = body.replace("\\", "\\\\").replace('"', '\\"')
    result = parse_reply(f'<action>Action: email.send(to="a@b.c", body="{literal}")</action>')
    assert result == Call(name="email.send", args={"to": "a@b.c", "body": body})


def test_deep_brackets_are_rejected_without_recursion_error() -> None:
    result = parse_reply("<action>Action: x.y(a=" + "[" * 100_000)
    assert "nested more than 32 levels deep" in message_of(result)
    assert isinstance(parse_reply("[" * 100_000), Invalid)
    assert isinstance(parse_reply("<action>x.y(" + "{'a': " * 100_000), Invalid)
    assert isinstance(parse_reply("<action>x.y(" + "(" * 100_000), Invalid)


def test_a_megabyte_of_random_junk_is_well_formed() -> None:
    rng = random.Random(20240601)
    alphabet = "\"'\\()[]{},=:-.0123456789 \n\tabcxyz_*`<>/éß☕"
    junk = "".join(rng.choice(alphabet) for _ in range(1_000_000))
    for text in (junk, "<action>Action: x.y(" + junk, "Answer: " + junk):
        result = parse_reply(text)
        assert_well_formed(result)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("\n" * 1_000_000, id="newlines"),
        pytest.param(" " * 1_000_000, id="spaces"),
        pytest.param("*" * 1_000_000 + "x", id="decoration"),
        pytest.param("Answer:" + " " * 1_000_000, id="answer-spaces"),
        pytest.param("<action>" + " " * 1_000_000 + "x", id="block-spaces"),
        pytest.param("<action>" * 100_000, id="many-tags"),
        pytest.param('Action: x.y(a="' + "\\" * 1_000_001, id="backslashes"),
        pytest.param('Action: x.y(a="' + "a" * 1_000_000, id="unclosed-string"),
        pytest.param("Action: x.y(a='''" + "''" + "a" * 1_000_000, id="unclosed-triple"),
        pytest.param("Action: x.y(a=" + '"a" ' * 250_000 + ")", id="concatenation"),
        pytest.param("Action: x.y(a=[" + "1," * 500_000 + "])", id="long-list"),
        pytest.param("Action: " + "a." * 500_000 + "(", id="long-name"),
        pytest.param("Action: x.y(" + "a" * 1_000_000, id="long-word"),
        pytest.param("Action: x.y(a=" + "9" * 1_000_000 + ")", id="long-number"),
    ],
)
def test_adversarial_megabyte_inputs_are_well_formed(text: str) -> None:
    result = parse_reply(text)
    assert_well_formed(result)


# ---------------------------------------------------------------- structured calls


def test_structured_dict_arguments() -> None:
    arguments = {"building_name": "Library", "floors": [1, 2]}
    result = parse_structured("map.find_building_id", arguments)
    assert result == Call(
        name="map.find_building_id", args={"building_name": "Library", "floors": [1, 2]}
    )
    arguments["building_name"] = "Gym"
    assert isinstance(result, Call) and result.args["building_name"] == "Library"


def test_structured_json_arguments() -> None:
    result = parse_structured("calendar.add_event", '{"calendar_id": "self", "n": 2.5, "ok": true}')
    assert result == Call(
        name="calendar.add_event", args={"calendar_id": "self", "n": 2.5, "ok": True}
    )


@pytest.mark.parametrize("arguments", [None, "", "  ", "{}", {}])
def test_structured_without_arguments(arguments: Any) -> None:
    assert parse_structured("geography.get_current_location", arguments) == Call(
        name="geography.get_current_location"
    )


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param("{bad", id="truncated"),
        pytest.param('{"a": }', id="missing-value"),
        pytest.param("{'a': 1}", id="python-quotes"),
        pytest.param('{"a": "\\ud800"}', id="lone-surrogate"),
        pytest.param("[" * 100_000, id="deep"),
    ],
)
def test_structured_bad_json(arguments: str) -> None:
    message = message_of(parse_structured("x.y", arguments))
    assert "arguments are not valid JSON" in message
    assert '{"building_name": "Library"}' in message


@pytest.mark.parametrize(
    ("arguments", "kind"),
    [("[1, 2]", "an array"), ('"text"', "a string"), ("3", "a number"), ("null", "null")],
)
def test_structured_json_that_is_not_an_object(arguments: str, kind: str) -> None:
    message = message_of(parse_structured("x.y", arguments))
    assert f"must be a JSON object, not {kind}" in message


def test_structured_nesting_limit() -> None:
    deep: Any = 1
    for _ in range(MAX_DEPTH):
        deep = [deep]
    assert isinstance(parse_structured("x.y", {"a": deep}), Call)
    assert "nested more than 32 levels" in message_of(parse_structured("x.y", {"a": [deep]}))
    deep_json = '{"a": ' + "[" * 40 + "]" * 40 + "}"
    assert "nested more than 32 levels" in message_of(parse_structured("x.y", deep_json))


def test_structured_unstorable_values() -> None:
    assert "unpaired surrogate" in message_of(parse_structured("x.y", {"a": "\ud800"}))
    assert "cannot be stored as JSON" in message_of(parse_structured("x.y", {"a": object()}))


@pytest.mark.parametrize("name", ["", "x y", "x.", ".x", "1x", "x-y", "x.y()", "tool\n"])
def test_structured_invalid_names(name: str) -> None:
    assert "is not a valid tool name" in message_of(parse_structured(name, {}))


@pytest.mark.parametrize(
    ("name", "arguments"), [("finish", None), ("FINISH", "{}"), ("Finish", {"reason": "done"})]
)
def test_structured_finish(name: str, arguments: Any) -> None:
    assert parse_structured(name, arguments) == Finish()


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("answer", {"answer": "B"}),
        ("ANSWER", {"letter": "b"}),
        ("Answer", '{"letter": "B."}'),
        ("answer", {"answer": "[B]"}),
    ],
)
def test_structured_answer(name: str, arguments: Any) -> None:
    assert parse_structured(name, arguments) == Answer(value="B")


@pytest.mark.parametrize(
    "arguments",
    [None, {}, {"answer": "Because"}, {"letter": "BC"}, {"answer": 2}, {"choice": "B"}],
)
def test_structured_bad_answer(arguments: Any) -> None:
    assert "single letter" in message_of(parse_structured("answer", arguments))


_KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
_PLAIN = st.text(st.characters(blacklist_characters='"\\\n', blacklist_categories=("Cs",)), max_size=30) | st.text(
    st.characters(max_codepoint=127, blacklist_characters='"\\\n'), max_size=30)


def _full_parse(block: str, name: str) -> Any:
    """What the full parser (the fast paths' test oracle) makes of a call block: a call or the refusal."""
    from campus.kernel.parse import _CallParser, _Reject

    try:
        return _CallParser(block, name, len(name)).parse()
    except _Reject as reject:
        return reject.invalid


@given(
    name=st.sampled_from(["calendar.add_event", "email.send_email", "finish", "x"]),
    pairs=st.lists(st.tuples(_KEYS, _PLAIN), max_size=5),
    spaces=st.sampled_from(["", " ", "  \t"]),
    tail=st.sampled_from(["", ")", " trailing words", ", x=1)"]),
)
def test_the_fast_path_agrees_with_the_full_parser(name: str, pairs: list, spaces: str, tail: str) -> None:
    from campus.kernel.parse import _simple_call

    inner = f",{spaces}".join(f'{key}{spaces}={spaces}"{value}"' for key, value in pairs)
    block = f"{name}({spaces}{inner}{spaces}){tail}"
    fast = _simple_call(block, name, len(name))
    if fast is None:
        return
    full = _full_parse(block, name)
    assert fast == full
    if isinstance(fast, Call):  # the same arguments in the same order, as handlers and messages see them
        assert isinstance(full, Call) and list(fast.args.items()) == list(full.args.items())


def test_the_fast_path_takes_plain_calls_and_leaves_the_rest() -> None:
    from campus.kernel.parse import _simple_call

    plain = 'email.send_email(to="a@b.edu", subject="Hi", body="Text, with = signs")'
    assert _simple_call(plain, "email.send_email", len("email.send_email")) is not None
    for other in ('x(a="1", a="2")', 'x(a="line\\nbreak")', "x(a=1)", "x('single')"):
        assert _simple_call(other, "x", 1) is None, other


_TEXT = st.text(st.sampled_from(list("abB0 :-_.") + ["'", '"', "=", "\\", "\n", "é", ")", "{", "["]), max_size=6)


def _render(value: Any, draw: Any) -> str:
    """A Python-literal spelling of ``value`` with drawn quotes, spaces and the odd trailing comma."""
    space = draw(st.sampled_from(["", " ", "\n  "]))
    if isinstance(value, str):
        quote = draw(st.sampled_from(["'", '"']))
        return f"{quote}{value}{quote}"
    comma = draw(st.sampled_from(["", "", ","]))
    if isinstance(value, _Pairs):
        return "{" + f",{space}".join(f"{_render(k, draw)}:{space}{_render(v, draw)}" for k, v in value) + comma + "}"
    return "[" + f",{space}".join(_render(item, draw) for item in value) + comma + "]"


class _Pairs(list):  # type: ignore[type-arg]
    """A dict literal's (key, value) pairs, in order, repeats allowed."""


_VALUE = st.recursive(_TEXT, lambda inner: st.lists(inner, max_size=3) | st.lists(st.tuples(_TEXT, inner), max_size=3).map(_Pairs),
                      max_leaves=8)


@given(data=st.data(), pairs=st.lists(st.tuples(_KEYS, _VALUE), min_size=1, max_size=3),
       name=st.sampled_from(["geography.walk_to", "x", "finish"]))
def test_the_literal_fast_path_agrees_with_the_full_parser(data: Any, pairs: list, name: str) -> None:
    from campus.kernel.parse import _literal_call

    spaces = [data.draw(st.sampled_from(["", " ", "\n ", "\t"])) for _ in range(2)]
    inner = ", ".join(f"{key}{spaces[0]}={spaces[1]}{_render(value, data.draw)}" for key, value in pairs)
    block = f"{name}({inner}){data.draw(st.sampled_from(['', ' tail', ')']))}"
    fast = _literal_call(block, name, len(name))
    if fast is None:
        return
    full = _full_parse(block, name)
    assert fast == full
    assert isinstance(fast, Call) and isinstance(full, Call) and list(fast.args.items()) == list(full.args.items())


def test_the_literal_fast_path_takes_plain_nested_text_and_leaves_the_rest() -> None:
    from campus.kernel.parse import _literal_call

    walk = "geography.walk_to(path_info={'path': ['B083', 'B142'], 'via': \"B001\"})"
    assert _literal_call(walk, "geography.walk_to", len("geography.walk_to")) == \
        Call(name="geography.walk_to", args={"path_info": {"path": ["B083", "B142"], "via": "B001"}}, positional=[])
    assert _literal_call("x(b = ['B1'],\n a\t='B: 2')", "x", 1) == Call(name="x", args={"a": "B: 2", "b": ["B1"]}, positional=[])
    for other in ("x(a={'k': 1})", "x(a={'k': 'v', 'k': 'w'})", "x(a='1', a='2')", "x(a={k='v'})", "x(a=['v',])",
                  "x(a='it\"s')", "x(a='x=y')", "x(a='x' 'y')", "x(a='caf\u00e9')", "x()", "x(a=" + "[" * 40 + "]" * 40 + ")"):
        assert _literal_call(other, "x", 1) is None, other


_AROUND = st.lists(st.sampled_from(["a", " ", "\n", "\r\n", "<action>", "<ACTION>", "</action>", "Action: ", '"', "(", ")"]),
                   max_size=4).map("".join)


@settings(max_examples=400, deadline=None)
@given(
    before=_AROUND,
    name=st.sampled_from(["calendar.add_event", "email.send_email", "finish", "Finish", "x"]),
    pairs=st.lists(st.tuples(_KEYS, _PLAIN | st.sampled_from(["</action>", "a<b", "x\r", "é"])), max_size=4),
    spaces=st.sampled_from(["", " ", "\r\n "]),
    after=_AROUND,
)
def test_the_tagged_reply_fast_path_reads_what_the_whole_reader_reads(before: str, name: str, pairs: list, spaces: str,
                                                                         after: str) -> None:
    from campus.kernel.parse import _read_reply, _tagged_plain_call

    inner = f",{spaces}".join(f'{key}{spaces}={spaces}"{value}"' for key, value in pairs)
    text = f"{before}<action>Action: {name}({spaces}{inner}{spaces}){after}"
    fast = _tagged_plain_call(text)
    if fast is None:
        return
    slow = _read_reply(text, False)
    assert fast == slow
    assert isinstance(slow, Call) and list(fast.args.items()) == list(slow.args.items())


def test_the_tagged_reply_fast_path_takes_the_bench_replies_and_leaves_the_rest() -> None:
    from campus.kernel.parse import _tagged_plain_call

    assert _tagged_plain_call('I will.\n<action>Action: draft.add_course(section_id="CS101-1")</action>') == \
        Call(name="draft.add_course", args={"section_id": "CS101-1"})
    for other in ("<action>Action: finish()</action>", '<action>Action: x(a="</action>")</action>',
                  '<action>Action: x(a="1", a="2")</action>', "<action>Action: x(p={'path': ['B1']})</action>",
                  '<action> Action: x(a="1")</action>', 'Action: x(a="1")'):
        assert _tagged_plain_call(other) is None, other


@settings(max_examples=400, deadline=None)
@given(
    name=st.sampled_from(["finish", "Finish", "FINISH", "finish_task", "geography.walk_to", "x"]),
    inner=st.lists(st.sampled_from(["", " ", "a='v'", 'b="w"', "c=['B1', 'B2']", "d={'k': 'v'}", "1", ",", ")", "(", "=",
                                    "e=True", '"x\\"y"', "\n"]), max_size=4).map("".join),
    after=st.sampled_from(["", " tail", ")", "\n", "</action> more"]),
    free_answer=st.booleans(),
)
def test_a_block_opening_with_action_reads_as_the_block_reader_reads_it(name: str, inner: str, after: str,
                                                                        free_answer: bool) -> None:
    """``_read_reply`` takes a tag's block that opens ``Action: name(`` straight to the call (``finish()`` at once);
    ``_parse_block``, which it skips, reads every such block the same."""
    from campus.kernel.parse import _parse_block, _read_reply

    block = f"Action: {name}({inner}{after}"
    text = f"I will.\n<action>{block}</action>"
    assert _read_reply(text, free_answer) == _parse_block(block.split("</action>")[0], tagged=True, free_answer=free_answer)


def test_finish_is_read_at_once_and_anything_else_named_so_is_not() -> None:
    from campus.kernel.parse import _read_reply

    assert _read_reply("<action>Action: finish()</action>", False) == Finish()
    assert _read_reply("<action>Action: Finish() now</action>", False) == Finish()
    assert isinstance(_read_reply("<action>Action: finish(reason='x')</action>", False), Invalid)
    assert _read_reply("<action>Action: finish_task()</action>", False) == Call(name="finish_task")


DOUBLED = '<action>Action: map.find_building_id(building_name="x", building_name="Lakeside Dormitory", "zone": "z")</action>'
"""A keyword given twice beside a bare ``"key": value`` pair: the literal fast path's key count balanced (a red-team's
find), so it read a call the full parser refuses."""


def test_a_keyword_given_twice_is_refused_on_every_path_under_rules_3() -> None:
    refused = parse_reply(DOUBLED)
    assert isinstance(refused, Invalid) and "given more than once" in refused.message
    assert parse_reply(DOUBLED, strict=False) == Call(name="map.find_building_id",
                                                      args={"building_name": "Lakeside Dormitory", "zone": "z"}, positional=[])


@pytest.mark.parametrize("rules", [2, 3])
def test_a_run_reads_a_doubled_keyword_under_its_own_rules_and_verifies(rules: int) -> None:
    from campus.events import AgentReplied, ToolCalled
    from campus.kernel.runner import run_config
    from campus.kernel.store import MemoryStore
    from campus.kernel.tasks import events_of
    from campus.replays.verify import verify
    from campus.scenarios.play import RunSpec, load_inputs, new_run
    from campus.scenarios.rounds import DEFAULT_ROUND_LIMIT

    class Doubler:
        name = "doubler"

        def __init__(self) -> None:
            self.said = False

        def act(self, view: Any) -> str:
            reply, self.said = ("<action>Action: finish()</action>" if self.said else DOUBLED), True
            return reply

    world, term = load_inputs(RunSpec(scale=0.02))  # rules 2 and 3 draw alike, so one term serves both
    store = MemoryStore()
    run = new_run(store, world, term, agent_name="doubler", seed=0, rules=run_config(DEFAULT_ROUND_LIMIT, rules=rules))
    run.session(Doubler()).run()
    assert any(e.text == DOUBLED for e in events_of(store, run.branch.id, AgentReplied))
    called = [e for e in events_of(store, run.branch.id, ToolCalled) if e.tool == "map.find_building_id"]
    assert len(called) == (1 if rules == 2 else 0)  # rules 2 read it as a call, as it always did
    report = verify(run)
    assert report.ok, report.mismatch

"""The email subsystem: sending, address checks, failures that change nothing, fuzzing.

Handlers are called directly through a small harness (no runner): arguments are bound with
the kernel's ``bind_arguments`` as the dispatcher does, and facts are applied with the
domain's reducers.
"""

from __future__ import annotations

import ast
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.events import EmailSent
from campus.kernel.engine import ToolView
from campus.kernel.projection import Projection
from campus.kernel.tools import Outcome, bind_arguments
from tests.harness import DomainHarness, encoded
from campus.subsystems.email import EMAIL, EMAIL_TOOLS, EmailState, Mail, address_problem

SEND = EMAIL_TOOLS[0]


def make_view(part: EmailState) -> ToolView:
    return DomainHarness(EMAIL).view(part)


def apply(part: EmailState, facts: Any) -> None:
    DomainHarness(EMAIL).apply(facts, part)


class Harness(DomainHarness):
    """One email part; ``send``/``ok``/``fail`` call email.send_email."""

    def __init__(self) -> None:
        super().__init__(EMAIL)

    def send(self, **args: Any) -> Outcome:
        return self.call(SEND.name, **args)

    def ok(self, **args: Any) -> Outcome:  # type: ignore[override]
        return super().ok(SEND.name, **args)

    def fail(self, **args: Any) -> str:  # type: ignore[override]
        return super().fail(SEND.name, **args)


@pytest.fixture
def h() -> Harness:
    return Harness()


GOOD = {"to": "advisor@university.edu", "subject": "Meeting request", "body": "Could we meet on Monday?"}


# ------------------------------------------------------------------ success


def test_send_email_message_data_fact_and_state(h: Harness) -> None:
    outcome = h.ok(to="  advisor@university.edu ", subject=" Meeting request ", body="\n Could we meet?\nThanks. \n")
    assert outcome.result.message == "Email sent to advisor@university.edu with subject 'Meeting request'."
    assert outcome.result.data == {"email_id": "mail_1", "to": "advisor@university.edu"}
    assert outcome.facts == (
        EmailSent(email_id="mail_1", to="advisor@university.edu", subject="Meeting request", body="Could we meet?\nThanks."),
    )
    assert h.part.sent == [Mail(email_id="mail_1", to="advisor@university.edu", cc="", subject="Meeting request", body="Could we meet?\nThanks.")]
    assert h.part.next_email == 2


def test_email_ids_are_sequential(h: Harness) -> None:
    ids = [h.ok(**GOOD).result.data["email_id"] for _ in range(3)]
    assert ids == ["mail_1", "mail_2", "mail_3"]
    assert [m.email_id for m in h.part.sent] == ids


def test_cc_is_normalised_and_mentioned(h: Harness) -> None:
    outcome = h.ok(**GOOD, cc=" a.b@uni.edu,c+d@dept.uni.edu ,  e_f@x-y.org ")
    assert outcome.result.message == (
        "Email sent to advisor@university.edu (cc: a.b@uni.edu, c+d@dept.uni.edu, e_f@x-y.org) with subject 'Meeting request'."
    )
    assert outcome.facts[0].cc == "a.b@uni.edu, c+d@dept.uni.edu, e_f@x-y.org"
    assert h.part.sent[0].cc == "a.b@uni.edu, c+d@dept.uni.edu, e_f@x-y.org"


@pytest.mark.parametrize("cc", ["", "   "])
def test_blank_cc_means_no_cc(h: Harness, cc: str) -> None:
    outcome = h.ok(**GOOD, cc=cc)
    assert "cc" not in outcome.result.message
    assert h.part.sent[0].cc == ""


def test_null_cc_is_dropped_by_binding(h: Harness) -> None:
    assert h.ok(**GOOD, cc=None).facts[0].cc == ""


def test_subject_limit_is_inclusive(h: Harness) -> None:
    assert h.ok(to=GOOD["to"], subject="s" * 200, body="b").facts[0].subject == "s" * 200


# ------------------------------------------------------------------ failures


@pytest.mark.parametrize(
    "to",
    [
        "advisor",
        "advisor@",
        "@university.edu",
        "advisor@university",
        "advisor@@university.edu",
        "a@b@university.edu",
        "advisor @university.edu",
        "advisor@univ ersity.edu",
        "advisor@university.e",
        "advisor@university.123",
        "advisor@-university.edu",
        "advisor@university-.edu",
        "advisor@university..edu",
        ".advisor@university.edu",
        "ad..visor@university.edu",
        "advisor.@university.edu",
        "advisor@.edu",
        '"advisor"@university.edu',
        "",
        "   ",
    ],
)
def test_bad_to_addresses_fail(h: Harness, to: str) -> None:
    message = h.fail(**{**GOOD, "to": to})
    assert "'to'" in message and "advisor@university.edu" in message


@pytest.mark.parametrize("to", ["a@x.edu, b@x.edu", "a@x.edu;b@x.edu", "a@x.edu,"])
def test_to_takes_one_address(h: Harness, to: str) -> None:
    assert "put further recipients in 'cc'" in h.fail(**{**GOOD, "to": to})


@pytest.mark.parametrize(
    ("cc", "fragment"),
    [
        ("a@x.edu; b@x.edu", "commas, not semicolons"),
        ("a@x.edu,,b@x.edu", "is empty"),
        ("a@x.edu,", "is empty"),
        ("a@x.edu, nobody", "('nobody')"),
        ("a@x.edu b@x.edu", "contains spaces"),
    ],
)
def test_bad_cc_fails(h: Harness, cc: str, fragment: str) -> None:
    message = h.fail(**GOOD, cc=cc)
    assert "'cc'" in message and fragment in message


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("subject", "", "The subject is empty"),
        ("subject", "  \n ", "The subject is empty"),
        ("subject", "Hello\nWorld", "single line"),
        ("body", "", "The body is empty"),
        ("body", " \n\t ", "The body is empty"),
    ],
)
def test_bad_subject_or_body_fails(h: Harness, field: str, value: str, fragment: str) -> None:
    assert fragment in h.fail(**{**GOOD, field: value})


def test_length_limits_in_declaration_and_handler(h: Harness) -> None:
    problem = bind_arguments(SEND, {**GOOD, "subject": "s" * 201})
    assert isinstance(problem, str) and "at most 200" in problem
    outcome = SEND.call(make_view(h.part), {**GOOD, "subject": "s" * 201})
    assert not outcome.result.ok and outcome.facts == () and "at most 200" in outcome.result.message
    long_address = "a" * 250 + "@x.edu"
    assert address_problem(long_address) is not None and "too long" in address_problem(long_address)


def test_non_ascii_addresses_are_refused() -> None:
    assert address_problem("jos\u00e9@university.edu") == "contains non-ASCII characters"
    problem = bind_arguments(SEND, {**GOOD, "to": "jos\u00e9@university.edu"})
    assert isinstance(problem, str) and "ASCII" in problem


@pytest.mark.parametrize("address", ["a@b.co", "first.last@dept.uni.edu", "o'neil+tag@x-y.org", "A_B%c@EXAMPLE.COM", "1@2.io"])
def test_valid_addresses(address: str) -> None:
    assert address_problem(address) is None


@pytest.mark.parametrize(
    "text",
    ["a" * 20000, "a@" + "b." * 9000 + "!", "a." * 10000 + "@x.edu", "a@" + "b-" * 10000, "@" * 20000],
)
def test_long_hostile_addresses_are_refused(text: str) -> None:
    assert address_problem(text) is not None


# ------------------------------------------------------------------ determinism, folding, declarations


def script(h: Harness) -> list[str]:
    return [
        h.ok(**GOOD).result.message,
        h.fail(**{**GOOD, "to": "bad"}),
        h.ok(**GOOD, cc="x@y.edu").result.message,
        h.ok(to="club@university.edu", subject="Join", body="Hello").result.message,
    ]


def test_same_calls_give_identical_state_and_messages() -> None:
    first, second = Harness(), Harness()
    assert script(first) == script(second)
    assert encoded(first.part) == encoded(second.part)
    assert [m.email_id for m in first.part.sent] == ["mail_1", "mail_2", "mail_3"]


def test_projection_fold_and_snapshot_round_trip() -> None:
    h = Harness()
    facts = [*h.ok(**GOOD).facts, *h.ok(**GOOD, cc="x@y.edu").facts]
    projection = Projection([EMAIL], None)
    state = projection.fold(projection.initial(), facts, 2, 0)
    assert encoded(state.email) == encoded(h.part)
    assert msgspec.json.decode(encoded(h.part), type=EmailState) == h.part


def test_declaration() -> None:
    assert [t.name for t in EMAIL_TOOLS] == ["email.send_email"]
    assert EMAIL.name == "email" and EMAIL.tools == EMAIL_TOOLS
    assert SEND.system == "email" and SEND.mutates and SEND.minutes == 1
    assert [p.name for p in SEND.params] == ["to", "subject", "body", "cc"]
    assert [p.required for p in SEND.params] == [True, True, True, False]
    assert SEND.description.isascii() and all(p.description.isascii() for p in SEND.params)


def test_example_is_a_valid_call(h: Harness) -> None:
    call = ast.parse(SEND.example, mode="eval").body
    assert isinstance(call, ast.Call) and ast.unparse(call.func) == SEND.name
    assert h.ok(**{kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}).result.data["email_id"] == "mail_1"


# ------------------------------------------------------------------ fuzzing

PLAUSIBLE = ["advisor@university.edu", "a@b.co", "a@b.co, c@d.org", "bad", "Hello", "", " "]
LONG = st.builds(lambda piece, n: piece * n, st.sampled_from(["a", " ", "@", ".", "\u00e9", "a@b.co,"]), st.integers(100, 21000))
TEXT = st.one_of(st.text(max_size=40), st.sampled_from(PLAUSIBLE), LONG)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=5,
)
ARGS = st.one_of(
    st.fixed_dictionaries(
        {"to": st.sampled_from(PLAUSIBLE), "subject": st.sampled_from(PLAUSIBLE), "body": st.sampled_from(PLAUSIBLE)},
        optional={"cc": st.sampled_from(PLAUSIBLE) | st.none()},
    ),
    st.fixed_dictionaries({"to": TEXT, "subject": TEXT, "body": TEXT}, optional={"cc": TEXT | st.none()}),
    st.dictionaries(st.sampled_from(["to", "subject", "body", "cc", "bcc"]), VALUES, max_size=5),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ARGS)
def test_fuzz_send_email_never_raises_and_failures_change_nothing(args: dict[str, Any]) -> None:
    bound = bind_arguments(SEND, args)
    if isinstance(bound, str):
        return  # the dispatcher answers with this message; the handler is not called
    part = EMAIL.initial(None)
    before = encoded(part)
    outcome = SEND.call(make_view(part), bound)
    assert encoded(part) == before
    assert outcome.result.message and outcome.result.message.isascii()
    if outcome.result.ok:
        assert len(outcome.facts) == 1
        apply(part, outcome.facts)
        assert part.sent[0].to == bound["to"].strip()
    else:
        assert outcome.facts == ()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60), st.text(max_size=60), st.text(max_size=60))
def test_fuzz_handler_directly_with_any_strings(to: str, subject: str, body: str, cc: str) -> None:
    """Even text the dispatcher would refuse (non-ASCII) must not crash the handler."""
    outcome = SEND.call(make_view(EMAIL.initial(None)), {"to": to, "subject": subject, "body": body, "cc": cc})
    assert outcome.result.ok or outcome.facts == ()


@given(st.text(max_size=80))
def test_address_problem_never_raises(text: str) -> None:
    problem = address_problem(text)
    assert problem is None or isinstance(problem, str)
    if problem is None:
        assert text.count("@") == 1 and text.isascii() and " " not in text

"""Typed answers of memory probes: how each kind is written, read back and scored, with no judge.

An expected answer is one of seven kinds: a number, a date (a day of the term), an id, a list
(ordered or not), yes/no, "no record" (the thing asked about never happened), or a word the
answer must end with. An agent's
answer is text; it is read in the kind expected, after normalisation (case, whitespace, quotes
and trailing punctuation; ``12 days`` reads as 12; ``week 3 tue`` as Week 3, Tuesday), and
scored:

- number, date, id, yes/no: 1 when equal, else 0;
- an ordered list (event ordering): Kendall's tau-b between the true order and the agent's,
  over the union of both lists with items the agent left out tied last (BEAM's convention),
  normalised to [0, 1] as (tau + 1) / 2; coverage (the F1 of the items named) is reported apart; under ``strict``
  (generator version 6 on) the items named that the truth does not hold are left out of the ranking;
- an unordered list (summarization): the F1 of precision and recall over the key facts (a version-5 summary's
  items that another week holds too count neither way);
- "no record": 1 when the agent said so;
- ends-with (instruction following): 1 when the answer ends with the word a standing
  instruction asked for, whatever else it says.

An answer that says "no record" where there was one scores 0 and counts as an abstention (the
over-abstention the answerable twins measure); an id answer equal to a superseded value counts
as *stale*, the knowledge-update failure class.
"""

from __future__ import annotations

import math
import re
from typing import Literal, Union

import msgspec

from campus.kernel.clock import TimeFormatError, date_label, day_of, parse_moment

NO_RECORD = "no record"

AnswerKind = Literal["number", "date", "id", "list", "yes_no", "no_record", "ends_with"]


class Number(msgspec.Struct, frozen=True, tag="number"):
    value: float


class Date(msgspec.Struct, frozen=True, tag="date"):
    day: int
    """The absolute day index of the term."""


class Id(msgspec.Struct, frozen=True, tag="id"):
    value: str


class Items(msgspec.Struct, frozen=True, tag="list", omit_defaults=True):
    values: list[str]
    ordered: bool
    strict: bool = False
    """An ordered list whose score leaves out the items the agent named that the truth does not hold (probe generator
    version 6 on): tied last in the truth's ranking and last in the agent's, each such item made a concordant pair with
    every true one, so an answer padded with made-up ids scored 82 % where the question's own order scores 50 %."""


class YesNo(msgspec.Struct, frozen=True, tag="yes_no"):
    value: bool


class NoRecord(msgspec.Struct, frozen=True, tag="no_record"):
    pass


class EndsWith(msgspec.Struct, frozen=True, tag="ends_with"):
    """Instruction following: whatever else it says, the answer must end with this word."""

    value: str


Answer = Union[Number, Date, Id, Items, YesNo, NoRecord, EndsWith]


class Score(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    value: float
    """In [0, 1]; the ability's score is the mean of these."""
    abstained: bool = False
    stale: bool = False
    tau: float | None = None
    """Ordering: Kendall's tau-b in [-1, 1]."""
    coverage: float | None = None
    """Ordering: the F1 of the items named, whatever their order."""
    precision: float | None = None
    recall: float | None = None


def kind_of(answer: Answer) -> AnswerKind:
    tag = type(answer).__struct_config__.tag
    assert isinstance(tag, str)
    return tag  # type: ignore[return-value]


def render(answer: Answer) -> str:
    """The answer as an agent would write it (what the oracle reader says)."""
    if isinstance(answer, Number):
        return str(int(answer.value)) if answer.value.is_integer() else f"{answer.value:g}"
    if isinstance(answer, Date):
        return date_label(answer.day)
    if isinstance(answer, Id):
        return answer.value
    if isinstance(answer, Items):
        return "; ".join(answer.values)
    if isinstance(answer, YesNo):
        return "yes" if answer.value else "no"
    if isinstance(answer, EndsWith):
        return answer.value
    return NO_RECORD


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_EDGES = " \t\n\"'`*.,;:!()[]"
_SEPARATORS = re.compile(r"\s*(?:;|\n|->|→|>)\s*")
_YES = frozenset({"yes", "y", "true"})
_NO = frozenset({"no", "n", "false"})


def norm(text: str) -> str:
    """Case folded, whitespace collapsed, quotes and punctuation trimmed at both ends."""
    return " ".join(text.split()).casefold().strip(_EDGES)


def says_no_record(text: str) -> bool:
    return NO_RECORD in norm(text)


def split_items(text: str) -> list[str]:
    """A list written with ``;``, new lines or arrows; with none of those, with commas."""
    parts = _SEPARATORS.split(text) if _SEPARATORS.search(text) else text.split(",")
    return [item for item in (norm(re.sub(r"^\s*(?:\d+[.)]|[-*])\s+", "", part)) for part in parts) if item]


def read_number(text: str) -> float | None:
    found = _NUMBER.search(text)
    return float(found[0]) if found else None


def read_date(text: str) -> int | None:
    words = norm(text)
    found = re.search(r"week\s*\d+\s*,?\s*[a-z]+", words)
    if found is None:
        return None
    try:
        return day_of(parse_moment(found[0]))
    except TimeFormatError:
        return None


def read_yes_no(text: str) -> bool | None:
    first = norm(text).split(" ")[0].strip(_EDGES) if norm(text) else ""
    return True if first in _YES else False if first in _NO else None


def score(expected: Answer, text: str, distractors: tuple[str, ...] = ()) -> Score:
    """How well ``text`` answers a probe whose answer is ``expected``. ``distractors``: for an id, superseded values
    (an answer equal to one is *stale*); for an unordered list, items that count neither way, named or not."""
    if isinstance(expected, NoRecord):
        return Score(value=float(says_no_record(text)))
    if says_no_record(text):
        return Score(value=0.0, abstained=True)
    if isinstance(expected, Number):
        got = read_number(text)
        return Score(value=float(got is not None and math.isclose(got, expected.value, abs_tol=1e-6)))
    if isinstance(expected, Date):
        return Score(value=float(read_date(text) == expected.day))
    if isinstance(expected, YesNo):
        return Score(value=float(read_yes_no(text) == expected.value))
    if isinstance(expected, EndsWith):
        return Score(value=float(norm(text).endswith(norm(expected.value))))
    if isinstance(expected, Id):
        said = norm(text)
        right = said == norm(expected.value)
        return Score(value=float(right), stale=not right and said in {norm(value) for value in distractors})
    truth = [norm(value) for value in expected.values]
    said_items = list(dict.fromkeys(split_items(text)))
    if distractors and not expected.ordered:
        aside = {norm(value) for value in distractors}
        said_items = [item for item in said_items if item not in aside]
    precision, recall = _overlap(truth, said_items)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    if not expected.ordered:
        return Score(value=f1, precision=precision, recall=recall)
    ranked = [item for item in said_items if item in truth] if expected.strict else said_items
    tau = kendall_tau_b(truth, ranked) if ranked else -1.0
    return Score(value=(tau + 1) / 2, tau=tau, coverage=f1)


def _overlap(truth: list[str], said: list[str]) -> tuple[float, float]:
    hits = len(set(truth) & set(said))
    return (hits / len(said) if said else 0.0), (hits / len(truth) if truth else 1.0)


def kendall_tau_b(truth: list[str], said: list[str]) -> float:
    """Kendall's tau-b (scipy's) between two rankings of the union of both lists; an item missing
    from a list is tied with the other missing ones after everything it ranks. 0 when either
    ranking is all ties (tau-b is undefined there)."""
    from scipy.stats import kendalltau  # imported here: scipy.stats costs every command that never scores an order

    union = list(dict.fromkeys(truth + said))
    rank_a = [truth.index(item) if item in truth else len(truth) for item in union]
    rank_b = [said.index(item) if item in said else len(said) for item in union]
    if len(union) < 2 or len(set(rank_a)) < 2 or len(set(rank_b)) < 2:
        return 0.0
    return float(kendalltau(rank_a, rank_b, variant="b").statistic)

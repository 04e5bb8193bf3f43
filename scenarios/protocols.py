"""Protocols: made-up rules that turn something printed in a handbook or textbook article into a number.

A lecture teaches a protocol that exists nowhere else (the "Kelunar Protocol") and cites an
article by book, chapter, section and id; the question asks for the protocol's value of that
article, so the student needs both the lecture and the article (``bibliography.view_article``).

Every protocol belongs to a *family*: which quantity stated in the article's body it reads (the
first number written in digits, the last one, the largest one, or the first year named); the
protocol adds its parameter ``k`` to that reading (a family that multiplied gave its false exam
statements away: a value its factor does not divide can be struck out unread). Nothing is read
from the title: the student has to read what the article says. An article is *eligible* for a
family when the reading is unambiguous (a body whose first token with a digit is ``3.5`` or
``3x^2`` has no clean first number); a family is used for a book only when enough of the book's
articles are eligible. The published StuLife texts state few numbers (6 of 152 Academic
Integrity Guidelines articles have a clean first number), so some books teach no protocol.

A protocol may be *revised* once ("from today add 5, not 3"): a ``Rule`` is one version of a
protocol, and a revised rule remembers the parameter it replaced (``old_k``), which is the
answer of a student who missed the revision.

**Answers**: a lecture's or a review's question asks for a protocol's value of an article and takes the number
alone (no options), so it needs both the protocol's parameter (from the lecture) and the article's reading (from the
bibliography). While those questions offered the article's values under the protocol's four *lineup* parameters
(``Rule.lineup``), a student who remembered each parameter but never opened an article read the answer off the
options (the parameter's rank among the four is the value's rank): 89-91 % of lecture questions and 90 % of reviews
on seeds 6-20; and the reading a value question's options revealed carried over to the exams.

**Lineups** still shape the exams' false statements (``exams.compose``): the four parameters of its family every
statement about a protocol is made under, drawn when it is first taught (its parameter, the one a revision will
bring, and others), so a student who pools the statements about a protocol sees each of its four parameters come
up, none of them only in true statements.
"""

from __future__ import annotations

import functools
import json
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from campus.subsystems.information import fold, plain
from campus.world.model import Text

LETTERS = "ABCD"
MIN_ELIGIBLE = 12
"""A family is used for a book only when at least this many of its articles are eligible."""
COMMONEST = 0.03
"""An article is eligible only while its reading backs at most this share of the family's readable articles (two at
least): most of some published books' articles open with "1", and a student who answered every question with the
book's commonest reading plus the parameter, reading nothing, was right on 35 % of the published world's lecture
questions (now 8 %); the exams' false statements, pushed off that one reading, gave the true one away too."""
_PUNCTUATION = ",.;:()[]\"'!?"


@dataclass(frozen=True)
class Cited:
    """An article as the bibliography tools show it, with its place in the book's reading order."""

    book: str
    chapter: str
    section: str
    id: str
    title: str
    body: str
    position: int

    def citation(self) -> str:
        return f"'{self.book}', {self.chapter}, section {self.section}, article {self.id}"

    def short(self) -> str:
        return f"article {self.id} of '{self.book}'"

    def lookup(self) -> str:
        """The oracle's plan step that reads this article."""
        return (
            f"call:bibliography.view_article(identifier={json.dumps(self.id)}, by=\"id\", book_title={json.dumps(self.book)})"
        )


def _clean_int(token: str) -> int | None:
    stripped = token.strip(_PUNCTUATION)
    if stripped.isdigit() and stripped.isascii() and len(stripped) <= 6 and int(stripped) > 0:
        return int(stripped)
    return None


@functools.lru_cache(maxsize=16384)
def _number_tokens(body: str) -> tuple[str, ...]:
    """The body's whitespace-separated tokens that hold a digit (cached: every option of every question reads them)."""
    return tuple(token for token in body.split() if any(char.isdigit() for char in token))


def _clean_numbers(article: Cited) -> list[int] | None:
    """Every number the body writes in digits, or ``None`` when one of them is not a clean integer."""
    tokens = _number_tokens(article.body)
    numbers = [_clean_int(token) for token in tokens]
    return None if any(n is None for n in numbers) else [n for n in numbers if n is not None]


def first_number(article: Cited) -> int | None:
    tokens = _number_tokens(article.body)
    return _clean_int(tokens[0]) if tokens else None


def last_number(article: Cited) -> int | None:
    tokens = _number_tokens(article.body)
    return _clean_int(tokens[-1]) if tokens else None


def largest_number(article: Cited) -> int | None:
    numbers = _clean_numbers(article)
    return max(numbers) if numbers else None


READABLE = range(1, 10**6)
"""The readings a family can take: a clean number, positive and of at most six digits (``_clean_int``)."""
YEARS = range(1000, 2100)


def first_year(article: Cited) -> int | None:
    for token in _number_tokens(article.body):
        value = _clean_int(token)
        if value is not None and value in YEARS and len(token.strip(_PUNCTUATION)) == 4:
            return value
    return None


@dataclass(frozen=True)
class Family:
    key: str
    reading: str
    """What the rule reads, as the lecture says it."""
    measure: Callable[[Cited], int | None]
    params: tuple[int, ...]
    readable: range = READABLE
    """Every reading ``measure`` can give."""

    def apply(self, base: int, k: int) -> int:
        return base + k

    def unapply(self, value: int, k: int) -> int | None:
        """The reading that gives ``value`` under ``k``, if the family could read it from an article (what a student
        who knows the parameter but not the article can check of a stated value)."""
        base = value - k
        return base if base in self.readable else None

    def definition(self, k: int) -> str:
        return f"take {self.reading} and add {k}"


FAMILIES: dict[str, Family] = {
    family.key: family
    for family in (
        Family("first_number", "the first number the article's body text writes in digits (not its title or id)",
               first_number, (3, 4, 5, 6, 7, 8, 9, 12)),
        Family("last_number", "the last number the article's body text writes in digits (not its title or id)",
               last_number, (2, 3, 4, 5, 6, 7, 8, 10)),
        Family("largest_number", "the largest of the numbers the article's body text writes in digits",
               largest_number, (2, 3, 4, 5, 6, 7, 8, 9, 11)),
        Family("first_year", "the first year the article's body text names (a number written with four digits, "
               "from 1000 to 2099)", first_year, (2, 3, 4, 5, 6, 7, 8, 9), YEARS),
    )
}


def book_articles(text: Text) -> list[Cited]:
    """The text's articles in reading order, leaving out ids that occur twice in the book (compared
    as the bibliography tools compare them; ``view_article`` by id would show several)."""
    book = plain(text.title).strip()
    placed = [
        (chapter, section, article)
        for chapter in text.chapters for section in chapter.sections for article in section.articles
    ]
    seen: dict[str, int] = {}
    for _, _, article in placed:
        seen[fold(article.id)] = seen.get(fold(article.id), 0) + 1
    out: list[Cited] = []
    for chapter, section, article in placed:
        if seen[fold(article.id)] > 1:
            continue
        out.append(Cited(
            book=book, chapter=plain(chapter.title).strip(), section=plain(section.title).strip(),
            id=plain(article.id), title=plain(article.title).strip(), body=plain(article.body), position=len(out),
        ))
    return out


def _capped(family: Family, articles: Sequence[Cited]) -> list[int]:
    """The positions of the articles ``family`` can read, at most ``COMMONEST`` of them (at least two) with any one
    reading: the first ones in the book."""
    readings = [(article.position, family.measure(article)) for article in articles]
    readable = [(position, reading) for position, reading in readings if reading is not None]
    cap = max(2, math.ceil(COMMONEST * len(readable)))
    kept: dict[int, int] = {}
    out = []
    for position, reading in readable:
        kept[reading] = kept.get(reading, 0) + 1
        if kept[reading] <= cap:
            out.append(position)
    return out


@dataclass
class Shelf:
    """One book's articles and which of them each family can read."""

    text: Text
    articles: list[Cited] = field(init=False)
    eligible: dict[str, list[int]] = field(init=False)

    def __post_init__(self) -> None:
        self.articles = book_articles(self.text)
        self.eligible = {key: _capped(family, self.articles) for key, family in FAMILIES.items()}

    @property
    def title(self) -> str:
        return plain(self.text.title).strip()

    def families(self) -> list[str]:
        """The families this book has enough eligible articles for."""
        return [key for key, positions in self.eligible.items() if len(positions) >= MIN_ELIGIBLE]

    def fits(self, family: str, article: Cited) -> bool:
        return FAMILIES[family].measure(article) is not None

    def nearest(self, family: str, position: int, avoid: Iterable[str] = (),
                differ: tuple[Rule, Cited] | None = None) -> Cited:
        """The eligible article closest to ``position`` (later ones first on ties), preferably (given
        ``differ = (rule, article)``) with another value under ``rule`` than that article, then not in ``avoid``."""
        avoided = set(avoid)
        ranked = sorted(self.eligible[family], key=lambda p: (abs(p - position), p < position))
        ranked.sort(key=lambda p: (
            differ is not None and differ[0].value(self.articles[p]) == differ[0].value(differ[1]),
            self.articles[p].id in avoided,
        ))
        return self.articles[ranked[0]]


@dataclass(frozen=True)
class Rule:
    """One version of a protocol: its name, family and parameter since a moment."""

    name: str
    family: str
    k: int
    introduced: int
    """When the protocol was first taught (minutes)."""
    since: int
    """When this version took effect (the introduction or the revision)."""
    lineup: tuple[int, ...]
    """The four parameters of its family under which every question about the protocol states its values, ``k``
    among them and ``old_k`` too when it was revised (drawn when it is first taught, with the parameter a revision
    will bring): a student who pools the questions about it sees the same four readings in each."""
    old_k: int | None = None
    """The parameter this version replaced, when it is a revision."""

    def definition(self) -> str:
        return FAMILIES[self.family].definition(self.k)

    def value(self, article: Cited) -> int:
        return self.value_under(self.k, article)

    def stale_value(self, article: Cited) -> int | None:
        return None if self.old_k is None else self.value_under(self.old_k, article)

    def value_under(self, k: int, article: Cited) -> int:
        """What the rule's family gives for ``article`` under parameter ``k`` (its own, its old one or another)."""
        base = FAMILIES[self.family].measure(article)
        if base is None:
            raise ValueError(f"{self.name}: {article.short()} has nothing for {self.family}")
        return FAMILIES[self.family].apply(base, k)


def new_rule(rng: random.Random, name: str, family: str, when: int) -> Rule:
    """A protocol first taught at ``when``: a parameter of ``family`` and a lineup of it and three others."""
    params = list(FAMILIES[family].params)
    rng.shuffle(params)
    lineup = params[:len(LETTERS)]
    return Rule(name=name, family=family, k=rng.choice(lineup), introduced=when, since=when, lineup=tuple(sorted(lineup)))


def revised(rng: random.Random, rule: Rule, when: int) -> Rule:
    """``rule`` from ``when`` on, under another parameter of its lineup."""
    k = rng.choice([k for k in rule.lineup if k != rule.k])
    return Rule(name=rule.name, family=rule.family, k=k, introduced=rule.introduced, since=when, lineup=rule.lineup,
                old_k=rule.k)


@dataclass(frozen=True)
class Choice:
    """A four-option question: the options in letter order, the right letter, the stale letter."""

    options: tuple[str, ...]
    letter: str
    stale_letter: str | None = None

    def text(self) -> str:
        return "\n".join(f"{LETTERS[i]}) {option}" for i, option in enumerate(self.options))


def lay_out(rng: random.Random, right: str, wrong: Sequence[str], stale: str | None = None) -> Choice:
    """Shuffle the right option among three wrong ones (the stale one, if any, among them)."""
    if len({right, *wrong}) != len(LETTERS) or len(wrong) != len(LETTERS) - 1:
        raise ValueError(f"need one right and three distinct wrong options, got {right!r} and {list(wrong)!r}")
    options = [right, *wrong]
    rng.shuffle(options)
    letter = LETTERS[options.index(right)]
    stale_letter = LETTERS[options.index(stale)] if stale is not None else None
    return Choice(options=tuple(options), letter=letter, stale_letter=stale_letter)


_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "gr", "kl", "pr", "st", "tr", "th")
_VOWELS = ("a", "e", "i", "o", "u", "ae", "ou", "y")
_CODAS = ("", "", "n", "r", "l", "s", "th", "x", "m")


def invent_name(rng: random.Random, taken: set[str]) -> str:
    """A made-up proper name (``Brelunath``), not in ``taken``; it is added to ``taken``."""
    while True:
        syllables = rng.choice((2, 2, 3))
        word = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(syllables)) + rng.choice(_CODAS)
        name = word.capitalize()
        if name not in taken and len(name) >= 5:
            taken.add(name)
            return name

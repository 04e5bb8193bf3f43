"""Protocols: made-up rules that turn something printed in a handbook or textbook article into a number.

A lecture teaches a protocol that exists nowhere else (the "Kelunar Protocol") and cites an
article by book, chapter, section and id; the question asks for the protocol's value of that
article, so the student needs both the lecture and the article (``bibliography.view_article``).

Every protocol belongs to a *family*: which quantity stated in the article's body it reads (the
first number written in digits, the last one, the largest one, or the first year named) and how
it combines that reading with the protocol's parameter ``k`` (add or multiply). Nothing is read
from the title: the student has to read what the article says. An article is *eligible* for a
family when the reading is unambiguous (a body whose first token with a digit is ``3.5`` or
``3x^2`` has no clean first number); a family is used for a book only when enough of the book's
articles are eligible. The published StuLife texts state few numbers (6 of 152 Academic
Integrity Guidelines articles have a clean first number), so some books teach no protocol.

A protocol may be *revised* once ("from today add 5, not 3"): a ``Rule`` is one version of a
protocol, and a revised rule remembers the parameter it replaced (``old_k``), which is the
answer of a student who missed the revision.

**Options** (``value_question``): every option is what some taught protocol gives for the cited
article. The wrong ones are the other protocols in force applied to the same article, in a seeded
order, then, when those coincide or run short, a family that fits the article with a parameter
drawn from that family's range. When the protocol was revised, the right value and the replaced
parameter's (the stale student's answer) are a pair of one family's values on one reading, which
a student who sees only the options could pick out; so the other two options are a pair of the
same kind (``decoy_pair``): another protocol's value now and under its old (or another) parameter.
A student who reads the article but forgot the protocol sees four equally protocol-like numbers,
and one who sees only the options cannot tell the right pair from the decoy (the term audit scores
such guesses, ``agents.adversarial.option_guesses``).
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from campus.subsystems.information import fold, plain
from campus.world.model import Text

LETTERS = "ABCD"
MIN_ELIGIBLE = 12
"""A family is used for a book only when at least this many of its articles are eligible."""
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


def first_year(article: Cited) -> int | None:
    for token in _number_tokens(article.body):
        value = _clean_int(token)
        if value is not None and 1000 <= value <= 2099 and len(token.strip(_PUNCTUATION)) == 4:
            return value
    return None


@dataclass(frozen=True)
class Family:
    key: str
    reading: str
    """What the rule reads, as the lecture says it."""
    measure: Callable[[Cited], int | None]
    multiply: bool
    params: tuple[int, ...]

    def apply(self, base: int, k: int, *, multiply: bool | None = None) -> int:
        product = self.multiply if multiply is None else multiply
        return base * k if product else base + k

    @property
    def parameter(self) -> str:
        """What the lecture calls ``k``."""
        return "factor" if self.multiply else "amount added"

    def definition(self, k: int) -> str:
        how = f"multiply it by {k}" if self.multiply else f"add {k}"
        return f"take {self.reading} and {how}"


FAMILIES: dict[str, Family] = {
    family.key: family
    for family in (
        Family("first_number", "the first number the article's body text writes in digits (not its title or id)",
               first_number, False, (3, 4, 5, 6, 7, 8, 9, 12)),
        Family("last_number", "the last number the article's body text writes in digits (not its title or id)",
               last_number, True, (2, 3, 4, 5)),
        Family("largest_number", "the largest of the numbers the article's body text writes in digits",
               largest_number, False, (2, 3, 4, 5, 6, 7, 8, 9, 11)),
        Family("first_year", "the first year the article's body text names (a number written with four digits, "
               "from 1000 to 2099)", first_year, False, (2, 3, 4, 5, 6, 7, 8, 9)),
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


@dataclass
class Shelf:
    """One book's articles and which of them each family can read."""

    text: Text
    articles: list[Cited] = field(init=False)
    eligible: dict[str, list[int]] = field(init=False)

    def __post_init__(self) -> None:
        self.articles = book_articles(self.text)
        self.eligible = {
            key: [a.position for a in self.articles if family.measure(a) is not None]
            for key, family in FAMILIES.items()
        }

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


_ATTEMPTS = 400


def alternatives(rng: random.Random, article: Cited, shelf: Shelf, taught: Sequence[Rule], exclude: Iterable[int]) -> list[int]:
    """Values some taught protocol gives for ``article``, distinct and not in ``exclude``, in a seeded order.

    The protocols in ``taught`` that fit the article come first (shuffled); then draws of a fitting
    family of the book with a parameter from that family's range, so the list is as long as the
    article allows (at least three for any eligible article)."""
    seen = set(exclude)
    out: list[int] = []

    def add(value: int) -> None:
        if value > 0 and value not in seen:
            seen.add(value)
            out.append(value)

    fitting = [r for r in taught if shelf.fits(r.family, article)]
    rng.shuffle(fitting)
    for rule in fitting:
        add(rule.value(article))
    families = [key for key in shelf.families() if shelf.fits(key, article)] or [k for k in FAMILIES if shelf.fits(k, article)]
    # A family's value for each of its parameters, in their order: drawing a value is drawing its parameter (the same
    # draw), worked out once, since most attempts come after every value the article allows is out (some spin all 400).
    values: dict[str, list[int]] = {}
    wanted = len(LETTERS) + 2
    for _ in range(_ATTEMPTS):
        if len(out) >= wanted:
            break
        key = rng.choice(families)
        given = values.get(key)
        if given is None:
            family = FAMILIES[key]
            base = family.measure(article)
            assert base is not None
            given = values[key] = [family.apply(base, k) for k in family.params]
        add(rng.choice(given))
    return out


def revised(rule: Rule, k: int, when: int) -> Rule:
    return Rule(name=rule.name, family=rule.family, k=k, introduced=rule.introduced, since=when, old_k=rule.k)


def new_parameter(rng: random.Random, family: str, old: int | None = None) -> int:
    return rng.choice([k for k in FAMILIES[family].params if k != old])


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


def value_question(rng: random.Random, rule: Rule, article: Cited, shelf: Shelf, taught: Sequence[Rule]) -> Choice:
    """Options for "what is the value of this article": what other taught protocols, or other parameters of a
    fitting family, give for the same article; for a revised rule, the stale value and a ``decoy_pair``."""
    right = rule.value(article)
    stale = rule.stale_value(article)
    others = [r for r in taught if r.name != rule.name]
    if stale is not None and stale != right:
        pair = decoy_pair(rng, article, shelf, others, (right, stale))
        if pair is None:
            raise ValueError(f"{rule.name}: {article.short()} allows no decoy pair beside its stale value")
        return lay_out(rng, str(right), [str(stale), *map(str, pair)], str(stale))
    wrong = alternatives(rng, article, shelf, others, (right,))
    if len(wrong) < len(LETTERS) - 1:
        raise ValueError(f"{rule.name}: {article.short()} allows fewer than three wrong values")
    return lay_out(rng, str(right), [str(m) for m in wrong[:3]])


def decoy_pair(rng: random.Random, article: Cited, shelf: Shelf, taught: Sequence[Rule],
               exclude: Iterable[int]) -> tuple[int, int] | None:
    """Two wrong values for ``article`` shaped like a revised protocol's value now and before: a taught protocol
    that fits the article (revised ones first, in a seeded order) under its parameter and its old one (another of its
    family's, drawn, if it was never revised); else two drawn parameters of a family that fits. Both positive,
    distinct and not in ``exclude``; None if the article allows no such pair."""
    seen = set(exclude)
    fitting = [r for r in taught if shelf.fits(r.family, article)]
    rng.shuffle(fitting)
    fitting.sort(key=lambda r: r.old_k is None)
    for rule in fitting:
        first = rule.value(article)
        if first <= 0 or first in seen:
            continue
        if rule.old_k is not None:
            seconds = [rule.old_k]
        else:
            seconds = [k for k in FAMILIES[rule.family].params if k != rule.k]
            rng.shuffle(seconds)
        for k in seconds:
            second = rule.value_under(k, article)
            if second > 0 and second not in seen and second != first:
                return first, second
    families = [key for key in FAMILIES if shelf.fits(key, article)]
    rng.shuffle(families)
    for key in families:
        drawn = other_values(rng, key, article, (), seen)
        if len(drawn) >= 2:
            return drawn[0], drawn[1]
    return None


def other_values(rng: random.Random, family: str, article: Cited, skip: Iterable[int | None],
                 exclude: Iterable[int]) -> list[int]:
    """``family``'s values for ``article`` under its parameters not in ``skip``, positive, distinct and not in
    ``exclude``, in a seeded order."""
    skipped = set(skip)
    ks = [k for k in FAMILIES[family].params if k not in skipped]
    rng.shuffle(ks)
    seen = set(exclude)
    out: list[int] = []
    base = FAMILIES[family].measure(article)
    assert base is not None
    for k in ks:
        value = FAMILIES[family].apply(base, k)
        if value > 0 and value not in seen:
            seen.add(value)
            out.append(value)
    return out


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

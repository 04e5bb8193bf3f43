"""Information: the bibliography (handbooks and textbooks) and the data system (clubs,
advisors and the library catalogue). Every tool here is read-only; the domain has no state.

Bibliography rules:
- A text is Book > Chapter > Section > Article. Titles match case-insensitively, ignoring
  surrounding whitespace and runs of inner whitespace. Chapter and section titles also match
  without their numbering prefix, or by the prefix alone: "Chapter 1: Search" matches
  "chapter 1: search", "Search" and "Chapter 1"; "1.1 Basics" matches "Basics" and "1.1". A
  full title wins over a shortened one; a shortened one that fits several titles is refused
  with the titles it fits.
- Chapters (and sections in a chapter) that share a title are one node: their contents are
  listed together, so every article stays reachable.
- ``view_article`` finds an article by title or id. Ids such as ``art_1.1.1`` and some titles
  repeat across books: the reference took the first match silently; here, matches in several
  books are refused with every place they occur, and ``book_title`` picks the book. Several
  matches inside one book (a book may hold two versions of a chapter) are all shown, each
  with its place.

Data system rules:
- Clubs are listed by exact category (case-insensitive), with names and ids. Advisors are
  matched on ``area`` (``level="level_1"``) or ``field`` (``level="level_2"``) exactly, or
  without a level by substring over area, field and tags. An unknown category is refused
  with the categories that exist in the data (the reference advertised categories it does
  not have). Long listings show the first 25 by id and say how many more there are.
- Names and ids match case-insensitively; several clubs or advisors with one name are listed
  with their ids instead of one being chosen.
- The catalogue is listed by exact category, naming the library building (or buildings)
  that hold it, or searched by substring over titles or authors (``search_type``; the
  reference prompt called this parameter ``by``).

Everything shown is plain ASCII: typographic characters in the data are transliterated
(an em dash becomes "-", "o" with a circumflex becomes "o", unknown letters become "?"), and
titles are matched in that transliterated form, which is the form agents see.
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import msgspec

from campus.kernel.engine import ToolView
from campus.kernel.projection import Domain
from campus.kernel.tools import Outcome, Param, Refuse, ToolDecl, fail, ok
from campus.world.index import WorldIndex
from campus.world.model import Advisor, Article, Book, Club, Text

MAX_LISTED = 25
"""Listings longer than this show the first ``MAX_LISTED`` and how many more there are."""
MAX_CLUBS = 60
"""Clubs cannot be narrowed below a category, so a category's list is longer (32 in the data)."""
MAX_COPIES = 3
"""Articles shown in full when one book holds several with the same title or id."""
MAX_HINTS = 10

T = TypeVar("T")


class InformationState(msgspec.Struct, kw_only=True):
    """Nothing: the information tools only read the world."""


# ------------------------------------------------------------------ text matching

_TRANSLITERATION = str.maketrans({
    "\u2014": "-", "\u2013": "-", "\u2012": "-", "\u2010": "-", "\u2011": "-", "\u2212": "-",
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u00b4": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2033": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2026": "...", "\u2192": "->", "\u2190": "<-", "\u2194": "<->", "\u21d2": "=>",
    "\u00d7": "x", "\u00f7": "/", "\u2264": "<=", "\u2265": ">=", "\u2260": "!=", "\u2248": "~=",
    "\u00b1": "+/-", "\u221a": "sqrt", "\u221e": "infinity", "\u00b0": " deg", "\u00b7": ".",
    "\u2022": "*", "\u2713": "*", "\u2714": "*", "\u25b6": ">", "\u2500": "-", "\u2502": "|",
    "\u2514": "+", "\u251c": "+", "\u250c": "+", "\u2510": "+", "\u2518": "+", "\u20ac": "EUR",
    "\u00a3": "GBP", "\u00ae": "(R)", "\u00a9": "(C)", "\u2122": "(TM)", "\u00df": "ss",
    "\u00e6": "ae", "\u00c6": "AE", "\u0153": "oe", "\u0152": "OE", "\u00f8": "o", "\u00d8": "O",
    "\u00b5": "u", "\u03bc": "u", "\u03b1": "alpha", "\u03b2": "beta", "\u03b3": "gamma",
    "\u03b4": "delta", "\u03b5": "epsilon", "\u03b8": "theta", "\u03bb": "lambda", "\u03c0": "pi",
    "\u03c3": "sigma", "\u03a3": "Sigma", "\u0398": "Theta", "\u03a9": "Omega", "\u0394": "Delta",
    "\u00a0": " ",
})


@functools.lru_cache(maxsize=65_536)
def plain(text: str) -> str:
    """``text`` in ASCII: typographic characters transliterated, accents dropped, the rest '?'."""
    if text.isascii():
        return text
    out: list[str] = []
    for char in unicodedata.normalize("NFKD", text.translate(_TRANSLITERATION)):
        if char.isascii():
            out.append(char)
        elif unicodedata.category(char) not in ("Mn", "Me", "Cf", "Sk"):
            out.append("?")
    return "".join(out)


@functools.lru_cache(maxsize=65_536)
def fold(text: str) -> str:
    """The form titles, names and ids are compared in."""
    return " ".join(plain(text).split()).casefold()


_NUMBERING = re.compile(r"(?:chapter\s+\d+[a-z]?|\d+(?:\.\d+)*)\.?(?=[\s:.\-]|$)[\s:.\-]*")


def _split_numbering(folded: str) -> tuple[str, str]:
    """``"chapter 1: search"`` -> ``("chapter 1", "search")``; no numbering -> ``("", title)``."""
    match = _NUMBERING.match(folded)
    if match is None or match.end() == len(folded):
        return "", folded
    return match.group(0).rstrip(" :.-"), folded[match.end():]


def _short_forms(title: str) -> tuple[str, ...]:
    """The shortened forms a numbered chapter or section title also matches."""
    number, rest = _split_numbering(fold(title))
    return (rest, number) if number else ()


@dataclass
class _Section:
    title: str
    articles: list[Article] = field(default_factory=list)


@dataclass
class _Chapter:
    title: str
    sections: list[_Section] = field(default_factory=list)


@dataclass
class _Book:
    title: str
    kind: str
    course: str
    chapters: list[_Chapter] = field(default_factory=list)


@dataclass(frozen=True, eq=False)
class _Placed:
    """An article and where it sits."""

    book: _Book
    chapter: _Chapter
    section: _Section
    article: Article

    @property
    def place(self) -> str:
        return f"{self.book.title} > {self.chapter.title} > {self.section.title}"


class _Titled(Protocol):
    title: str


N = TypeVar("N", bound=_Titled)


def _merge(nodes: list[N], title: str, make: Callable[[str], N]) -> N:
    """The node titled ``title`` in ``nodes`` (compared folded), appended if new."""
    key = fold(title)
    for node in nodes:
        if fold(node.title) == key:
            return node
    node = make(plain(title).strip())
    nodes.append(node)
    return node


def _book(text: Text) -> _Book:
    book = _Book(title=plain(text.title).strip(), kind=text.kind, course=plain(text.course))
    for chapter in text.chapters:
        merged_chapter = _merge(book.chapters, chapter.title, _Chapter)
        for section in chapter.sections:
            _merge(merged_chapter.sections, section.title, _Section).articles.extend(section.articles)
    return book


def _pick(nodes: Sequence[N], query: str) -> N | list[N] | None:
    """The node ``query`` names: a full title first, then a shortened form.

    Returns the node, the nodes a shortened form fits when it fits several, or None."""
    key = fold(query)
    exact = [n for n in nodes if fold(n.title) == key]
    if exact:
        return exact[0]
    _, rest = _split_numbering(key)
    short = [n for n in nodes if key in _short_forms(n.title) or (rest != key and fold(n.title) == rest)]
    if len(short) == 1:
        return short[0]
    return short or None


# ------------------------------------------------------------------ the index


class _Index:
    """Lookups over one world's texts, clubs, advisors and books, built once per world."""

    def __init__(self, world: WorldIndex) -> None:
        model = world.world
        self.books = [_book(t) for t in model.texts]
        self.placed = [
            _Placed(b, c, s, a) for b in self.books for c in b.chapters for s in c.sections for a in s.articles
        ]
        self.by_article_id = _group(self.placed, lambda p: fold(p.article.id))
        self.by_article_title = _group(self.placed, lambda p: fold(p.article.title))
        self.clubs = sorted(model.clubs, key=lambda c: c.id)
        self.advisors = sorted(model.advisors, key=lambda a: a.id)
        self.pages: dict[int, str] = {}
        """``id`` of one of ``clubs`` or ``advisors`` -> its ``_club_text`` or ``_advisor_text``, made when first asked."""
        self.entities: dict[tuple[bool, str], dict[str, list[Any]]] = {
            (is_club, by): _group(entities, (lambda e: fold(e.id)) if by == "id" else (lambda e: fold(e.name)))
            for is_club, entities in ((True, self.clubs), (False, self.advisors))
            for by in ("id", "name")
        }
        """(is a club, by id or name) -> folded identifier -> the entities it names, in id order."""
        self.clubs_by_category = _group(self.clubs, lambda c: fold(c.category))
        self.advisor_texts = [(a, fold(a.area), fold(a.field), tuple(fold(t) for t in (a.area, a.field, *a.tags)))
                              for a in self.advisors]
        """Each advisor with its area, its field, and the texts a category is searched for in, folded."""
        self.club_categories = sorted({plain(c.category) for c in self.clubs}, key=str.casefold)
        self.areas = sorted({plain(a.area) for a in self.advisors}, key=str.casefold)
        self.fields = sorted({plain(a.field) for a in self.advisors}, key=str.casefold)
        self.catalogue = sorted(model.books, key=lambda b: (fold(b.category), fold(b.title), b.call_number))
        self.book_categories = sorted({plain(b.category) for b in self.catalogue}, key=str.casefold)
        self.buildings = {b.id: plain(b.name) for b in model.buildings}
        """Building names; the index must not refer to its ``WorldIndex`` (the cache key)."""

    def describe(self, building_id: str) -> str:
        return f"{self.buildings.get(building_id, building_id)} ({building_id})"

    def book(self, title: str) -> _Book | None:
        key = fold(title)
        return next((b for b in self.books if fold(b.title) == key), None)


def _group(items: Iterable[T], key: Callable[[T], str]) -> dict[str, list[T]]:
    groups: dict[str, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


_INDEXES: weakref.WeakKeyDictionary[WorldIndex, _Index] = weakref.WeakKeyDictionary()


def _index(view: ToolView) -> _Index:
    index = _INDEXES.get(view.world)
    if index is None:
        index = _INDEXES[view.world] = _Index(view.world)
    return index


def _quote(text: str, limit: int = 80) -> str:
    """User text echoed back: ASCII, one line, bounded."""
    shown = " ".join(plain(text).split())
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _bounded(lines: list[str], limit: int, narrow: str) -> list[str]:
    if len(lines) <= limit:
        return lines
    return lines[:limit] + [f"... and {len(lines) - limit} more; {narrow}."]


# ------------------------------------------------------------------ bibliography


def _unknown_book(index: _Index, title: str) -> Refuse:
    if not index.books:
        return Refuse("This campus has no handbooks or textbooks.")
    titles = "; ".join(f"'{b.title}'" for b in index.books)
    return Refuse(f"There is no handbook or textbook titled '{_quote(title)}'. Available titles: {titles}.")


def _titles(nodes: Iterable[Any]) -> str:
    return "; ".join(f"'{n.title}'" for n in nodes)


def _resolve_book(index: _Index, args: dict[str, Any]) -> _Book:
    book = index.book(args["book_title"])
    if book is None:
        raise _unknown_book(index, args["book_title"])
    return book


def _resolve_chapter(book: _Book, query: str) -> _Chapter:
    found = _pick(book.chapters, query)
    if found is None:
        raise Refuse(f"'{book.title}' has no chapter '{_quote(query)}'. Its chapters: {_titles(book.chapters)}.")
    if isinstance(found, list):
        raise Refuse(f"'{_quote(query)}' fits several chapters of '{book.title}': {_titles(found)}. Give the full chapter title.")
    return found


def _resolve_section(book: _Book, chapter: _Chapter, query: str) -> _Section:
    found = _pick(chapter.sections, query)
    if found is None:
        raise Refuse(f"'{chapter.title}' of '{book.title}' has no section '{_quote(query)}'. Its sections: {_titles(chapter.sections)}.")
    if isinstance(found, list):
        raise Refuse(f"'{_quote(query)}' fits several sections of '{chapter.title}': {_titles(found)}. Give the full section title.")
    return found


def list_chapters(view: ToolView, args: dict[str, Any]) -> Outcome:
    book = _resolve_book(_index(view), args)
    course = f", the textbook of {book.course}" if book.course else ""
    lines = [f"Book '{book.title}' ({plain(book.kind)}{course}) contains the following chapters:"]
    lines += [f"- {c.title}" for c in book.chapters]
    return ok("\n".join(lines), data={"book": book.title, "chapters": [c.title for c in book.chapters]})


def list_sections(view: ToolView, args: dict[str, Any]) -> Outcome:
    book = _resolve_book(_index(view), args)
    chapter = _resolve_chapter(book, args["chapter_title"])
    lines = [f"Chapter '{chapter.title}' of '{book.title}' contains the following sections:"]
    lines += [f"- {s.title}" for s in chapter.sections]
    return ok("\n".join(lines), data={"book": book.title, "chapter": chapter.title, "sections": [s.title for s in chapter.sections]})


def list_articles(view: ToolView, args: dict[str, Any]) -> Outcome:
    book = _resolve_book(_index(view), args)
    chapter = _resolve_chapter(book, args["chapter_title"])
    section = _resolve_section(book, chapter, args["section_title"])
    lines = [f"Section '{section.title}' of '{book.title}' > '{chapter.title}' contains the following articles:"]
    copies = _group(section.articles, lambda a: f"{plain(a.title)} (id {plain(a.id)})")
    lines += [f"- {entry}" + (f" ({len(same)} versions)" if len(same) > 1 else "") for entry, same in copies.items()]
    lines.append("Read one with bibliography.view_article(identifier=<title>, by=\"title\", book_title=<book>).")
    articles = [{"id": plain(same[0].id), "title": plain(same[0].title)} for same in copies.values()]
    return ok("\n".join(lines), data={"book": book.title, "chapter": chapter.title, "section": section.title, "articles": articles})


def _article_text(placed: _Placed) -> str:
    article = placed.article
    return f"Article: {plain(article.title)} ({placed.place}, id {plain(article.id)})\n\n{plain(article.body)}"


def _article_data(placed: _Placed) -> dict[str, str]:
    return {
        "book": placed.book.title, "chapter": placed.chapter.title, "section": placed.section.title,
        "id": plain(placed.article.id), "title": plain(placed.article.title),
    }


def _not_found(index: _Index, identifier: str, by: str, book: _Book | None) -> Outcome:
    where = f" in '{book.title}'" if book is not None else ""
    if by == "id":
        return fail(
            f"No article{where} has id '{_quote(identifier)}'. Ids look like 'art_1.1.1'; "
            "bibliography.list_articles shows the ids of a section's articles."
        )
    pool = index.placed if book is None else [p for p in index.placed if p.book is book]
    key = fold(identifier)
    titles = list(dict.fromkeys(plain(p.article.title) for p in pool))
    near = [t for t in titles if key and key in t.casefold()] or difflib.get_close_matches(
        plain(identifier), titles, n=3, cutoff=0.6
    )
    hint = f" Titles like it: {'; '.join(repr(t) for t in near[:MAX_HINTS])}." if near else ""
    more = f" ({len(near) - MAX_HINTS} more contain it)" if len(near) > MAX_HINTS else ""
    return fail(
        f"No article{where} is titled '{_quote(identifier)}'.{hint}{more} Titles must match in full "
        "(case does not matter); browse with bibliography.list_chapters, list_sections and list_articles."
    )


def view_article(view: ToolView, args: dict[str, Any]) -> Outcome:
    index = _index(view)
    identifier, by = args["identifier"], args.get("by", "title")
    if not fold(identifier):
        return fail("identifier is empty; give an article's full title, or its id with by=\"id\".")
    book = None
    if "book_title" in args:
        book = index.book(args["book_title"])
        if book is None:
            raise _unknown_book(index, args["book_title"])
    table = index.by_article_id if by == "id" else index.by_article_title
    found = [p for p in table.get(fold(identifier), []) if book is None or p.book is book]
    if not found:
        return _not_found(index, identifier, by, book)
    books = list(dict.fromkeys(p.book.title for p in found))
    if len(books) > 1:
        places = list(dict.fromkeys(f"- {p.place} (id {plain(p.article.id)}, '{plain(p.article.title)}')" for p in found))
        return fail(
            f"The article {by} '{_quote(identifier)}' occurs in {len(books)} books:\n"
            + "\n".join(_bounded(places, MAX_LISTED, "pass book_title to choose one"))
            + f"\nCall again with book_title set to the book you mean, e.g. book_title=\"{books[0]}\"."
        )
    if len(found) == 1:
        return ok(_article_text(found[0]), data=_article_data(found[0]))
    shown = found[:MAX_COPIES]
    parts = [f"'{books[0]}' holds {len(found)} articles with the {by} '{_quote(identifier)}'; each is shown with its place."]
    parts += [_article_text(p) for p in shown]
    if len(found) > len(shown):
        rest = "; ".join(f"{p.place}, id {plain(p.article.id)}" for p in found[len(shown):])
        parts.append(f"Not shown (view them by id): {rest}.")
    return ok("\n\n".join(parts), data={"articles": [_article_data(p) for p in found]})


# ------------------------------------------------------------------ data system: clubs and advisors


def _club_line(club: Club) -> str:
    return f"- {plain(club.name)} ({club.id})"


def _advisor_line(advisor: Advisor) -> str:
    work = f"; works: {_quote(advisor.works[0], 70)}" if advisor.works else ""
    more = f" (+{len(advisor.works) - 1} more)" if len(advisor.works) > 1 else ""
    tags = ", ".join(_quote(t, 60) for t in advisor.tags) or "none"
    return f"- {plain(advisor.name)} ({advisor.id}): {plain(advisor.area)} -> {plain(advisor.field)}; tags: {tags}{work}{more}"


def _list_clubs(index: _Index, category: str) -> Outcome:
    if not index.clubs:
        return fail("This campus has no clubs.")
    key = fold(category)
    clubs = index.clubs_by_category.get(key, [])
    if not clubs:
        return fail(f"There is no club category '{_quote(category)}'. Club categories: {'; '.join(index.club_categories)}.")
    name = plain(clubs[0].category)
    lines = [f"{len(clubs)} club(s) in the category '{name}':"]
    lines += _bounded([_club_line(c) for c in clubs], MAX_CLUBS, "look a club up with data_system.query_by_identifier")
    lines.append("See a club's details and contact email with data_system.query_by_identifier(identifier=<id>, by=\"id\", entity_type=\"club\").")
    return ok("\n".join(lines), data={"category": name, "club_ids": [c.id for c in clubs]})


def _advisors_matching(index: _Index, key: str, level: str | None) -> list[Advisor]:
    if level == "level_1":
        return [a for a, area, _, _ in index.advisor_texts if area == key]
    if level == "level_2":
        return [a for a, _, field, _ in index.advisor_texts if field == key]
    return [a for a, _, _, texts in index.advisor_texts if any(key in text for text in texts)]


def _list_advisors(index: _Index, category: str, level: str | None) -> Outcome:
    if not index.advisors:
        return fail("This campus has no advisors.")
    key = fold(category)
    found = _advisors_matching(index, key, level)
    if not found:
        if level == "level_2":
            known = f"Second-level fields (level='level_2'): {'; '.join(index.fields)}."
        else:
            known = f"First-level areas (level='level_1'): {'; '.join(index.areas)}."
        how = {
            "level_1": "level_1 matches a first-level area exactly",
            "level_2": "level_2 matches a second-level field exactly",
        }.get(level or "", "without a level, the category is searched for in areas, fields and tags")
        return fail(f"No advisor matches '{_quote(category)}' ({how}). {known}")
    matched = {"level_1": "first-level area", "level_2": "second-level field"}.get(level or "", "area, field or tags containing")
    lines = [f"{len(found)} advisor(s) with {matched} '{_quote(category)}' (by id):"]
    lines += _bounded([_advisor_line(a) for a in found], MAX_LISTED, "narrow with level or a more specific category")
    lines.append("See an advisor's email and preferences with data_system.query_by_identifier(identifier=<id>, by=\"id\", entity_type=\"advisor\").")
    return ok("\n".join(lines), data={"count": len(found), "advisor_ids": [a.id for a in found[:MAX_LISTED]]})


def list_by_category(view: ToolView, args: dict[str, Any]) -> Outcome:
    index = _index(view)
    category = args["category"]
    if not fold(category):
        return fail("category is empty; give a club category or an advisor research area.")
    if args["entity_type"] == "club":
        return _list_clubs(index, category)
    return _list_advisors(index, category, args.get("level"))


def _club_text(club: Club) -> str:
    return "\n".join([
        f"Club: {plain(club.name)} ({club.id})",
        f"Category: {plain(club.category)}",
        f"Description: {plain(club.description)}",
        f"Recruitment: {plain(club.recruitment)}",
        f"Contact email: {plain(club.email)}",
    ])


def _advisor_text(advisor: Advisor) -> str:
    lines = [
        f"Advisor: {plain(advisor.name)} ({advisor.id})",
        f"Email: {plain(advisor.email)}",
        f"Research area: {plain(advisor.area)} -> {plain(advisor.field)}",
        f"Tags: {', '.join(plain(t) for t in advisor.tags) or 'none'}",
        "Representative works:",
    ]
    lines += [f"- {plain(w)}" for w in advisor.works] or ["- none listed"]
    preference = " - ".join(plain(p) for p in (advisor.preference, advisor.preference_detail) if p)
    lines.append(f"Preferences: {preference or 'none stated'}")
    if advisor.preference_text:
        lines.append(plain(advisor.preference_text))
    return "\n".join(lines)


def query_by_identifier(view: ToolView, args: dict[str, Any]) -> Outcome:
    index = _index(view)
    identifier, by = args["identifier"], args["by"]
    is_club = args["entity_type"] == "club"
    kind = "club" if is_club else "advisor"
    entities: list[Any] = index.clubs if is_club else index.advisors
    key = fold(identifier)
    if not key:
        return fail(f"identifier is empty; give a {kind}'s full name, or its id with by=\"id\".")
    found = index.entities[is_club, "id" if by == "id" else "name"].get(key, [])
    if not found:
        return _no_entity(entities, identifier, by, kind)
    if len(found) > 1:
        listed = "\n".join(_club_line(e) if is_club else _advisor_line(e) for e in found[:MAX_LISTED])
        return fail(f"{len(found)} {kind}s are named '{_quote(identifier)}':\n{listed}\nCall again with by=\"id\" and one of these ids.")
    entity = found[0]
    text = index.pages.get(id(entity))
    if text is None:
        text = index.pages[id(entity)] = _club_text(entity) if is_club else _advisor_text(entity)
    return ok(text, data={"entity_type": kind, "id": entity.id, "name": plain(entity.name), "email": plain(entity.email)})


def _no_entity(entities: list[Any], identifier: str, by: str, kind: str) -> Outcome:
    if not entities:
        return fail(f"This campus has no {kind}s.")
    if by == "id":
        return fail(f"No {kind} has id '{_quote(identifier)}'. {kind.capitalize()} ids look like '{entities[0].id}'.")
    key = fold(identifier)
    near = [e for e in entities if key and key in fold(e.name)]
    hint = ""
    if near:
        shown = "; ".join(f"{plain(e.name)} ({e.id})" for e in near[:MAX_HINTS])
        more = f" and {len(near) - MAX_HINTS} more" if len(near) > MAX_HINTS else ""
        hint = f" Names containing it: {shown}{more}."
    return fail(f"No {kind} is named '{_quote(identifier)}' (names must match in full; case does not matter).{hint}")


# ------------------------------------------------------------------ data system: library catalogue


def _book_line(book: Book) -> str:
    return f'- "{plain(book.title)}" by {plain(book.author)} ({plain(book.call_number)}, {plain(book.type)}) - {plain(book.collection)}'


def list_books_by_category(view: ToolView, args: dict[str, Any]) -> Outcome:
    index = _index(view)
    category = args["category"]
    if not index.catalogue:
        return fail("This campus library has no catalogue.")
    key = fold(category)
    books = [b for b in index.catalogue if fold(b.category) == key]
    if not books:
        return fail(f"There is no book category '{_quote(category)}'. Categories: {'; '.join(index.book_categories)}.")
    name = plain(books[0].category)
    libraries = sorted({b.library_id for b in books})
    held = " and ".join(index.describe(lib) for lib in libraries)
    where = f"held at {held}" if len(libraries) == 1 else f"held at {len(libraries)} libraries, {held} (see each book's collection)"
    lines = [f"Category '{name}' has {len(books)} book(s), {where}:"]
    lines += _bounded([_book_line(b) for b in books], MAX_LISTED, "find the rest with data_system.search_books")
    return ok("\n".join(lines), data={"category": name, "library_ids": libraries, "count": len(books)})


def search_books(view: ToolView, args: dict[str, Any]) -> Outcome:
    index = _index(view)
    query, search_type = args["query"], args.get("search_type", "title")
    key = fold(query)
    if not key:
        return fail("query is empty; give part of a book's title or author.")
    if not index.catalogue:
        return fail("This campus library has no catalogue.")
    found = [b for b in index.catalogue if key in fold(b.title if search_type == "title" else b.author)]
    if not found:
        other = "author" if search_type == "title" else "title"
        return fail(
            f"No book's {search_type} contains '{_quote(query)}'. Try a shorter query, or search_type=\"{other}\"."
        )
    lines = [f"{len(found)} book(s) whose {search_type} contains '{_quote(query)}':"]
    rows = [f"{_book_line(b)}; category {plain(b.category)}; at {index.describe(b.library_id)}" for b in found]
    lines += _bounded(rows, MAX_LISTED, "use a longer query")
    data = {"count": len(found), "books": [{"title": plain(b.title), "call_number": plain(b.call_number)} for b in found[:MAX_LISTED]]}
    return ok("\n".join(lines), data=data)


# ------------------------------------------------------------------ declarations

_BOOK = Param(
    name="book_title", type="string",
    description="A handbook or textbook title, e.g. 'Student Handbook' (case does not matter).",
)
_CHAPTER = Param(
    name="chapter_title", type="string",
    description="A chapter title as listed; the numbering may be left out ('<<chapter>>' or '<<chapter_bare>>').",
)
_SECTION = Param(
    name="section_title", type="string",
    description="A section title as listed; the numbering may be left out ('<<section>>' or '<<section_bare>>').",
)
_ENTITY = Param(name="entity_type", type="string", description="What to look up.", enum=("club", "advisor"))
_ONLY_TEXTS = "Reads handbooks and textbooks only; the library catalogue is in data_system."

BIBLIOGRAPHY_TOOLS: tuple[ToolDecl, ...] = (
    ToolDecl(
        name="bibliography.list_chapters", system="bibliography", handler=list_chapters,
        description=f"List the chapters of a handbook or textbook. {_ONLY_TEXTS}",
        params=(_BOOK,), example='bibliography.list_chapters(book_title="Student Handbook")',
    ),
    ToolDecl(
        name="bibliography.list_sections", system="bibliography", handler=list_sections,
        description=f"List the sections of one chapter of a handbook or textbook. {_ONLY_TEXTS}",
        params=(_BOOK, _CHAPTER),
        example='bibliography.list_sections(book_title="<<book>>", chapter_title="<<chapter>>")',
    ),
    ToolDecl(
        name="bibliography.list_articles", system="bibliography", handler=list_articles,
        description=f"List the articles (titles and ids) of one section of a handbook or textbook. {_ONLY_TEXTS}",
        params=(_BOOK, _CHAPTER, _SECTION),
        example=(
            'bibliography.list_articles(book_title="<<book>>", chapter_title="<<chapter>>", '
            'section_title="<<section>>")'
        ),
    ),
    ToolDecl(
        name="bibliography.view_article", system="bibliography", handler=view_article,
        description=(
            "Read an article of a handbook or textbook by its full title or its id. Ids such as '<<article_id>>' and some "
            f"titles occur in several books: then pass book_title to choose the book. {_ONLY_TEXTS}"
        ),
        params=(
            Param(name="identifier", type="string", description="The article's full title (case does not matter) or its id."),
            Param(name="by", type="string", description="Whether identifier is a title or an id (default title).", required=False, enum=("title", "id")),
            Param(name="book_title", type="string", description="The book to read it in; needed when the article occurs in several books.", required=False),
        ),
        example='bibliography.view_article(identifier="<<article_id>>", by="id", book_title="<<book>>")',
    ),
)

DATA_SYSTEM_TOOLS: tuple[ToolDecl, ...] = (
    ToolDecl(
        name="data_system.list_by_category", system="data_system", handler=list_by_category,
        description=(
            "List clubs of a category (names and ids), or advisors of a research area (name, id, area -> field, tags, "
            "a representative work). An unknown category is answered with the ones that exist."
        ),
        params=(
            Param(name="category", type="string", description="A club category (e.g. 'Sports & Fitness') or an advisor research area, field or tag."),
            _ENTITY,
            Param(
                name="level", type="string", required=False, enum=("level_1", "level_2"),
                description=(
                    "Advisors only: level_1 matches a first-level area exactly (e.g. 'Engineering'), level_2 a second-level "
                    "field exactly; without it the category is searched for in areas, fields and tags. Ignored for clubs."
                ),
            ),
        ),
        example='data_system.list_by_category(category="Engineering", entity_type="advisor", level="level_1")',
    ),
    ToolDecl(
        name="data_system.query_by_identifier", system="data_system", handler=query_by_identifier,
        description=(
            "Show one club (category, description, recruitment notice, contact email) or advisor (email, research area, "
            "tags, works, preferences) by its full name or its id."
        ),
        params=(
            Param(name="identifier", type="string", description="The full name (case does not matter) or the id, e.g. 'C000' or 'T0001'."),
            Param(name="by", type="string", description="Whether identifier is a name or an id.", enum=("name", "id")),
            _ENTITY,
        ),
        example='data_system.query_by_identifier(identifier="C000", by="id", entity_type="club")',
    ),
    ToolDecl(
        name="data_system.list_books_by_category", system="data_system", handler=list_books_by_category,
        description="List the library catalogue's books of one category and the library building that holds them.",
        params=(Param(name="category", type="string", description="A book category, e.g. 'Computer Science' (case does not matter)."),),
        example='data_system.list_books_by_category(category="Computer Science")',
    ),
    ToolDecl(
        name="data_system.search_books", system="data_system", handler=search_books,
        description="Search the library catalogue for books whose title or author contains the query (case does not matter).",
        params=(
            Param(name="query", type="string", description="Part of a title or an author's name."),
            Param(name="search_type", type="string", description="Search titles or authors (default title).", required=False, enum=("title", "author")),
        ),
        example='data_system.search_books(query="Quantum", search_type="title")',
    ),
)

INFORMATION_TOOLS: tuple[ToolDecl, ...] = BIBLIOGRAPHY_TOOLS + DATA_SYSTEM_TOOLS

INFORMATION = Domain(
    name="information",
    state_type=InformationState,
    initial=lambda world: InformationState(),
    tools=INFORMATION_TOOLS,
)

"""The information subsystem: bibliography and data system tools, on a small hand-built
campus (repeated article ids and titles, numbered titles, duplicate names, categories held by
different libraries) and, when it can be loaded, the published StuLife data."""

from __future__ import annotations

import ast
import importlib
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.kernel.tools import ToolDecl, bind_arguments, prompt_section
from campus.subsystems.information import (
    INFORMATION,
    INFORMATION_TOOLS,
    MAX_LISTED,
    InformationState,
    fold,
    plain,
)
from tests.conftest import SHARED
from tests.harness import DomainHarness, encoded
from campus.world.index import WorldIndex
from campus.world.model import (
    Advisor,
    Article,
    Book,
    BookSection,
    Building,
    Chapter,
    Club,
    Path,
    Text,
    World,
)

TOOLS: dict[str, ToolDecl] = {t.name: t for t in INFORMATION_TOOLS}
STULIFE = SHARED / "stulife"
HANDBOOK, TEXTBOOK = "Student Handbook", "Introduction to Search"


def _section(title: str, *articles: tuple[str, str, str]) -> BookSection:
    return BookSection(title=title, articles=[Article(id=i, title=t, body=b) for i, t, b in articles])


def _texts() -> list[Text]:
    handbook = Text(title=HANDBOOK, kind="handbook", chapters=[
        Chapter(title="Chapter 1: General Provisions", sections=[
            _section("1.1 Purpose and Scope",
                     ("art_1.1.1", "Handbook Objectives", "Follow this handbook."),
                     ("art_1.1.2", "Shared Title", "The handbook's shared article.")),
            _section("1.2 Basics", ("art_1.2.1", "Honors", "Honors in chapter one.")),
            _section("1.3 Basics", ("art_1.3.1", "More Basics", "Second basics section.")),
        ]),
        Chapter(title="Chapter 2: Search", sections=[
            _section("2.1 Basics", ("art_2.1.1", "Honors", "Honors in chapter two.")),
            _section("Appendix", ("art_2.9.1", "Forms", "Forms to fill in.")),
        ]),
        Chapter(title="Chapter 3: Review", sections=[
            _section("3.1 Basics", ("art_3.1.1", "Numbered Review", "Numbered.")),
            _section("Basics", ("art_3.2.1", "Plain Review", "Unnumbered.")),
        ]),
    ])
    textbook = Text(title=TEXTBOOK, kind="textbook", course="Algorithms", chapters=[
        Chapter(title="Chapter 1: Search", sections=[
            _section("1.1 Basics",
                     ("art_1.1.1", "Breadth First", "Version one of BFS."),
                     ("art_1.1.2", "Shared Title", "The textbook's shared article.")),
            _section("1.2 L\u2019H\u00f4pital\u2014Rules", ("art_1.2.1", "L'H\u00f4pital's Rule", "Limits \u2014 0/0 \u2264 \u221e.")),
        ]),
        Chapter(title="Chapter 1: Search", sections=[  # a second version of chapter 1, as in the published data
            _section("1.1 Basics", ("art_1.1.1", "Breadth First", "Version two of BFS.")),
        ]),
    ])
    return [handbook, textbook]


def _clubs() -> list[Club]:
    def club(i: str, name: str, category: str, description: str = "A club.") -> Club:
        email = name.lower().replace(" ", "_") + "@email.com"
        return Club(id=i, name=name, category=category, description=description,
                    recruitment=f"Send your resume to {email}.", email=email)
    return [
        club("C001", "Chess Club", "Academic & Technological"),
        club("C000", "AI Society", "Academic & Technological", "Caf\u00e9 talks \u2014 weekly \u2713"),
        club("C002", "Running Club", "Sports & Fitness"),
        club("C003", "chess club", "Sports & Fitness"),
    ]


def _advisor(i: str, name: str, area: str, field: str, tags: list[str], works: tuple[str, ...] = ("A work",)) -> Advisor:
    return Advisor(id=i, name=name, email=f"{name.lower().replace(' ', '_')}_{i[1:]}@lau.edu", area=area, field=field,
                   tags=tags, works=list(works), preference="Engineering ability",
                   preference_detail="Hands-on experience", preference_text="We like builders.")


def _advisors() -> list[Advisor]:
    many = [_advisor(f"T{100 + k:04d}", f"Teacher {k}", "Education", "Pedagogy", ["Teaching"]) for k in range(30)]
    return list(reversed(many)) + [
        _advisor("T0002", "Alex Kim", "Science", "Physics", ["Quantum optics", "Computer Science"]),
        _advisor("T0001", "Zachary Castro", "Engineering", "Mechanical Engineering", ["Robotics", "CNC"],
                 ("Graphene coatings", "Diamond tools", "Peening")),
        _advisor("T0003", "alex kim", "Engineering", "Computer Science", ["Machine learning"]),
    ]


def _books() -> list[Book]:
    def book(title: str, author: str, call: str, category: str, library: str, kind: str = "Book") -> Book:
        collection = {"B001": "Grand Central Library - Humanities Collection (floor_3)", "B005": "STEM Library - Applied Collection (floor_1)"}[library]
        return Book(title=title, author=author, call_number=call, type=kind, category=category, library_id=library, collection=collection)
    cs = [book(f"Computing Volume {k:02d}", "Dr. Ada Byte", f"CS-{k:03d}", "Computer Science", "B005") for k in range(30)]
    return cs + [
        book("A History of Rome", "Dr. Marcus Thorne", "HIST-101", "History", "B001"),
        book("The Quantum World", "Dr. Evelyn Reed", "PHYS-201", "Physics", "B005", "Thesis"),
        book("Old Maps", "Dr. Marcus Thorne", "ARCH-1", "Archives & Special", "B001", "Journal"),
        book("Old Circuits", "Dr. Ada Byte", "ARCH-2", "Archives & Special", "B005"),
    ]


def _world() -> World:
    buildings = [
        Building(id="B001", name="Grand Central Library", aliases=["GCL"], type="Academic", zone="Quad", amenities={}),
        Building(id="B005", name="STEM Library", aliases=[], type="Academic", zone="Quad", amenities={}),
    ]
    return World(
        name="information-test", seed=None, home="B001", buildings=buildings,
        paths=[Path(source="B001", target="B005", minutes=3, properties={})], complexes=[],
        advisors=_advisors(), clubs=_clubs(), books=_books(), texts=_texts(),
    )


CAMPUS = WorldIndex(_world())


@pytest.fixture
def h() -> DomainHarness:
    return DomainHarness(INFORMATION, CAMPUS)


def text_of(h: DomainHarness, name: str, **args: Any) -> str:
    return h.ok(name, **args).result.message


# ------------------------------------------------------------------ declarations


def test_declarations_names_systems_and_enums() -> None:
    assert list(TOOLS) == [
        "bibliography.list_chapters", "bibliography.list_sections", "bibliography.list_articles",
        "bibliography.view_article", "data_system.list_by_category", "data_system.query_by_identifier",
        "data_system.list_books_by_category", "data_system.search_books",
    ]
    assert {t.system for t in INFORMATION_TOOLS[:4]} == {"bibliography"}
    assert {t.system for t in INFORMATION_TOOLS[4:]} == {"data_system"}
    assert all(not t.mutates and t.minutes == 1 for t in INFORMATION_TOOLS)
    enums = {(t.name, p.name): p.enum for t in INFORMATION_TOOLS for p in t.params if p.enum}
    assert enums == {
        ("bibliography.view_article", "by"): ("title", "id"),
        ("data_system.list_by_category", "entity_type"): ("club", "advisor"),
        ("data_system.list_by_category", "level"): ("level_1", "level_2"),
        ("data_system.query_by_identifier", "by"): ("name", "id"),
        ("data_system.query_by_identifier", "entity_type"): ("club", "advisor"),
        ("data_system.search_books", "search_type"): ("title", "author"),
    }
    assert all("data_system" in t.description for t in INFORMATION_TOOLS[:4])
    assert INFORMATION.name == "information" and INFORMATION.reducers == {}
    assert encoded(INFORMATION.initial(CAMPUS)) == encoded(InformationState()) == b"{}"


def test_prompt_shows_view_article_and_search_type() -> None:
    """Reference defect 10: view_article was missing from the prompt and search_type was misnamed."""
    prompt = prompt_section(INFORMATION_TOOLS, {})
    assert "bibliography.view_article(identifier: str, by: str = None, book_title: str = None)" in prompt
    assert "data_system.search_books(query: str, search_type: str = None)" in prompt
    assert "One of: title, author." in prompt
    assert bind_arguments(TOOLS["data_system.search_books"], {"query": "x", "by": "title"}) == (
        "data_system.search_books has no parameter 'by'. Call it as data_system.search_books(query: str, search_type: str = None)."
    )


@pytest.mark.parametrize("tool", INFORMATION_TOOLS, ids=lambda t: t.name)
def test_every_example_runs(h: DomainHarness, tool: ToolDecl) -> None:
    """Each example, filled with this world's names as the kernel fills it, works as written."""
    from campus.kernel.tools import with_examples
    from campus.subsystems.examples import example_values

    example = with_examples(tool, example_values(h.campus)).example
    call = ast.parse(example, mode="eval").body
    assert isinstance(call, ast.Call) and ast.unparse(call.func) == tool.name
    h.ok(tool.name, **{kw.arg: ast.literal_eval(kw.value) for kw in call.keywords})


# ------------------------------------------------------------------ bibliography: browsing


def test_list_chapters_matches_titles_loosely_and_merges_versions(h: DomainHarness) -> None:
    outcome = h.ok("bibliography.list_chapters", book_title="  introduction TO search ")
    assert outcome.result.message == (
        "Book 'Introduction to Search' (textbook, the textbook of Algorithms) contains the following chapters:\n"
        "- Chapter 1: Search"
    )
    assert outcome.result.data["chapters"] == ["Chapter 1: Search"]
    assert h.ok("bibliography.list_chapters", book_title=HANDBOOK).result.data["chapters"] == [
        "Chapter 1: General Provisions", "Chapter 2: Search", "Chapter 3: Review",
    ]


def test_unknown_book_lists_available_titles(h: DomainHarness) -> None:
    for name, args in [
        ("bibliography.list_chapters", {}),
        ("bibliography.list_sections", {"chapter_title": "x"}),
        ("bibliography.list_articles", {"chapter_title": "x", "section_title": "y"}),
    ]:
        message = h.fail(name, book_title="Linear Algebra", **args)
        assert message == (
            "There is no handbook or textbook titled 'Linear Algebra'. "
            "Available titles: 'Student Handbook'; 'Introduction to Search'."
        )
    assert h.fail("bibliography.view_article", identifier="Honors", book_title="Nope").startswith("There is no handbook")


@pytest.mark.parametrize("chapter", ["Chapter 2: Search", "chapter 2:   search", "Search", " SEARCH ", "Chapter 2"])
def test_chapter_numbering_may_be_left_out_or_given_alone(h: DomainHarness, chapter: str) -> None:
    outcome = h.ok("bibliography.list_sections", book_title=HANDBOOK, chapter_title=chapter)
    assert outcome.result.data["sections"] == ["2.1 Basics", "Appendix"]
    assert outcome.result.message.startswith("Chapter 'Chapter 2: Search' of 'Student Handbook' contains the following sections:\n- 2.1 Basics")


@pytest.mark.parametrize(("chapter", "section", "article"), [
    ("Chapter 1: General Provisions", "1.1 Purpose and Scope", "Handbook Objectives"),
    ("General Provisions", "purpose and scope", "Handbook Objectives"),
    ("Chapter 1", "1.2", "Honors"),
    ("General Provisions", "1.3 basics", "More Basics"),
    ("Search", "Basics", "Honors"),
    ("Search", "9.9 Appendix", "Forms"),
    ("Review", "Basics", "Plain Review"),
    ("Review", "3.1 Basics", "Numbered Review"),
    ("Review", "3.1", "Numbered Review"),
])
def test_section_numbering_may_be_left_out(h: DomainHarness, chapter: str, section: str, article: str) -> None:
    outcome = h.ok("bibliography.list_articles", book_title=HANDBOOK, chapter_title=chapter, section_title=section)
    assert outcome.result.data["articles"][0]["title"] == article


def test_a_full_title_wins_and_a_shortened_one_fitting_several_is_refused(h: DomainHarness) -> None:
    message = h.fail("bibliography.list_articles", book_title=HANDBOOK, chapter_title="Chapter 1", section_title="Basics")
    assert message == (
        "'Basics' fits several sections of 'Chapter 1: General Provisions': '1.2 Basics'; '1.3 Basics'. "
        "Give the full section title."
    )
    assert h.ok("bibliography.list_articles", book_title=HANDBOOK, chapter_title="Review", section_title="basics").result.data["section"] == "Basics"


def test_unknown_chapter_and_section_list_what_exists(h: DomainHarness) -> None:
    assert h.fail("bibliography.list_sections", book_title=HANDBOOK, chapter_title="Chapter 9") == (
        "'Student Handbook' has no chapter 'Chapter 9'. Its chapters: "
        "'Chapter 1: General Provisions'; 'Chapter 2: Search'; 'Chapter 3: Review'."
    )
    assert h.fail("bibliography.list_articles", book_title=HANDBOOK, chapter_title="Search", section_title="2.2 Advanced") == (
        "'Chapter 2: Search' of 'Student Handbook' has no section '2.2 Advanced'. Its sections: '2.1 Basics'; 'Appendix'."
    )
    assert "has no chapter" in h.fail("bibliography.list_articles", book_title=HANDBOOK, chapter_title="", section_title="x")


def test_list_articles_shows_ids_and_counts_versions(h: DomainHarness) -> None:
    message = text_of(h, "bibliography.list_articles", book_title=TEXTBOOK, chapter_title="Search", section_title="Basics")
    assert message.splitlines()[1:3] == ["- Breadth First (id art_1.1.1) (2 versions)", "- Shared Title (id art_1.1.2)"]
    assert "bibliography.view_article" in message.splitlines()[-1]


def test_non_ascii_titles_are_shown_and_matched_in_ascii(h: DomainHarness) -> None:
    sections = h.ok("bibliography.list_sections", book_title=TEXTBOOK, chapter_title="Search").result.data["sections"]
    assert sections == ["1.1 Basics", "1.2 L'Hopital-Rules"]
    listed = h.ok("bibliography.list_articles", book_title=TEXTBOOK, chapter_title="Search", section_title="L'Hopital-Rules")
    assert listed.result.data["articles"] == [{"id": "art_1.2.1", "title": "L'Hopital's Rule"}]
    article = text_of(h, "bibliography.view_article", identifier="l'hopital's rule")
    assert article.endswith("\n\nLimits - 0/0 <= infinity.")


# ------------------------------------------------------------------ bibliography: view_article


def test_view_article_message_format(h: DomainHarness) -> None:
    outcome = h.ok("bibliography.view_article", identifier="handbook objectives")
    assert outcome.result.message == (
        "Article: Handbook Objectives (Student Handbook > Chapter 1: General Provisions > 1.1 Purpose and Scope, id art_1.1.1)"
        "\n\nFollow this handbook."
    )
    assert outcome.result.data == {
        "book": HANDBOOK, "chapter": "Chapter 1: General Provisions", "section": "1.1 Purpose and Scope",
        "id": "art_1.1.1", "title": "Handbook Objectives",
    }


@pytest.mark.parametrize(("identifier", "by"), [("art_1.1.2", "id"), ("Shared Title", "title"), ("ART_1.1.2 ", "id")])
def test_an_article_in_several_books_is_never_chosen_silently(h: DomainHarness, identifier: str, by: str) -> None:
    message = h.fail("bibliography.view_article", identifier=identifier, by=by)
    assert message.startswith(f"The article {by} '{identifier.strip()}' occurs in 2 books:\n")
    assert "- Student Handbook > Chapter 1: General Provisions > 1.1 Purpose and Scope (id art_1.1.2, 'Shared Title')" in message
    assert "- Introduction to Search > Chapter 1: Search > 1.1 Basics (id art_1.1.2, 'Shared Title')" in message
    assert message.endswith('Call again with book_title set to the book you mean, e.g. book_title="Student Handbook".')
    for book, body in [(HANDBOOK, "The handbook's shared article."), ("introduction to search", "The textbook's shared article.")]:
        chosen = h.ok("bibliography.view_article", identifier=identifier, by=by, book_title=book)
        assert chosen.result.message.endswith("\n\n" + body)


def test_by_defaults_to_title(h: DomainHarness) -> None:
    assert "no article" in h.fail("bibliography.view_article", identifier="art_1.1.1", book_title=HANDBOOK).lower()
    assert h.ok("bibliography.view_article", identifier="art_1.1.1", by="id", book_title=HANDBOOK).result.data["title"] == "Handbook Objectives"


def test_several_matches_in_one_book_are_all_shown(h: DomainHarness) -> None:
    versions = h.ok("bibliography.view_article", identifier="art_1.1.1", by="id", book_title=TEXTBOOK).result
    assert versions.message.startswith("'Introduction to Search' holds 2 articles with the id 'art_1.1.1'; each is shown with its place.")
    assert "Version one of BFS." in versions.message and "Version two of BFS." in versions.message
    assert len(versions.data["articles"]) == 2
    honors = h.ok("bibliography.view_article", identifier="Honors").result
    assert "> Chapter 1: General Provisions > 1.2 Basics, id art_1.2.1)\n\nHonors in chapter one." in honors.message
    assert "> Chapter 2: Search > 2.1 Basics, id art_2.1.1)\n\nHonors in chapter two." in honors.message


def test_missing_article_says_what_to_do(h: DomainHarness) -> None:
    by_title = h.fail("bibliography.view_article", identifier="honor")
    assert by_title.startswith("No article is titled 'honor'. Titles like it: 'Honors'.")
    assert "bibliography.list_chapters" in by_title
    close = h.fail("bibliography.view_article", identifier="Handbok Objectives")
    assert "Titles like it: 'Handbook Objectives'." in close
    by_id = h.fail("bibliography.view_article", identifier="art_9.9.9", by="id")
    assert by_id.startswith("No article has id 'art_9.9.9'.") and "list_articles" in by_id
    in_book = h.fail("bibliography.view_article", identifier="Breadth First", book_title=HANDBOOK)
    assert in_book.startswith("No article in 'Student Handbook' is titled 'Breadth First'.")
    assert "identifier is empty" in h.fail("bibliography.view_article", identifier="   ")


# ------------------------------------------------------------------ data system: list_by_category


def test_clubs_by_category_list_names_and_ids(h: DomainHarness) -> None:
    outcome = h.ok("data_system.list_by_category", category=" academic & technological ", entity_type="club")
    assert outcome.result.message.splitlines()[:3] == [
        "2 club(s) in the category 'Academic & Technological':", "- AI Society (C000)", "- Chess Club (C001)",
    ]
    assert outcome.result.data == {"category": "Academic & Technological", "club_ids": ["C000", "C001"]}
    same = h.ok("data_system.list_by_category", category="Academic & Technological", entity_type="club", level="level_1")
    assert same.result.data == outcome.result.data  # level applies to advisors only


def test_unknown_club_category_lists_the_ones_that_exist(h: DomainHarness) -> None:
    """Reference defect 12: categories advertised but absent; every category named here exists."""
    message = h.fail("data_system.list_by_category", category="Arts & Culture", entity_type="club")
    assert message == (
        "There is no club category 'Arts & Culture'. Club categories: Academic & Technological; Sports & Fitness."
    )
    assert "category is empty" in h.fail("data_system.list_by_category", category=" ", entity_type="club")


def test_advisors_by_level(h: DomainHarness) -> None:
    area = h.ok("data_system.list_by_category", category="engineering", entity_type="advisor", level="level_1").result
    assert area.data["advisor_ids"] == ["T0001", "T0003"]
    assert area.message.splitlines()[1] == (
        "- Zachary Castro (T0001): Engineering -> Mechanical Engineering; tags: Robotics, CNC; works: Graphene coatings (+2 more)"
    )
    field = h.ok("data_system.list_by_category", category="Computer Science", entity_type="advisor", level="level_2").result
    assert field.data["advisor_ids"] == ["T0003"]
    assert "No advisor matches 'Physic'" in h.fail("data_system.list_by_category", category="Physic", entity_type="advisor", level="level_2")


def test_advisors_without_level_match_substrings_of_area_field_and_tags(h: DomainHarness) -> None:
    found = h.ok("data_system.list_by_category", category="computer science", entity_type="advisor").result
    assert found.data["advisor_ids"] == ["T0002", "T0003"]  # a tag, and a field
    assert h.ok("data_system.list_by_category", category="robot", entity_type="advisor").result.data["advisor_ids"] == ["T0001"]
    assert h.ok("data_system.list_by_category", category="SCIENCE", entity_type="advisor").result.data["advisor_ids"] == ["T0002", "T0003"]


def test_unknown_advisor_category_lists_areas_or_fields(h: DomainHarness) -> None:
    areas = "First-level areas (level='level_1'): Education; Engineering; Science."
    assert h.fail("data_system.list_by_category", category="Mathematics", entity_type="advisor").endswith(areas)
    assert h.fail("data_system.list_by_category", category="Physics", entity_type="advisor", level="level_1") == (
        f"No advisor matches 'Physics' (level_1 matches a first-level area exactly). {areas}"
    )
    fields = h.fail("data_system.list_by_category", category="Maths", entity_type="advisor", level="level_2")
    assert fields.endswith("Second-level fields (level='level_2'): Computer Science; Mechanical Engineering; Pedagogy; Physics.")


def test_long_advisor_listings_are_bounded_and_sorted_by_id(h: DomainHarness) -> None:
    result = h.ok("data_system.list_by_category", category="Education", entity_type="advisor", level="level_1").result
    lines = result.message.splitlines()
    assert lines[0] == "30 advisor(s) with first-level area 'Education' (by id):"
    assert [line.split("(")[1][:5] for line in lines[1:1 + MAX_LISTED]] == [f"T{100 + k:04d}" for k in range(MAX_LISTED)]
    assert lines[1 + MAX_LISTED] == "... and 5 more; narrow with level or a more specific category."
    assert result.data["count"] == 30 and len(result.data["advisor_ids"]) == MAX_LISTED


# ------------------------------------------------------------------ data system: query_by_identifier


def test_club_by_id_shows_everything_and_the_email(h: DomainHarness) -> None:
    outcome = h.ok("data_system.query_by_identifier", identifier="c000", by="id", entity_type="club")
    assert outcome.result.message == "\n".join([
        "Club: AI Society (C000)",
        "Category: Academic & Technological",
        "Description: Cafe talks - weekly *",
        "Recruitment: Send your resume to ai_society@email.com.",
        "Contact email: ai_society@email.com",
    ])
    assert outcome.result.data == {"entity_type": "club", "id": "C000", "name": "AI Society", "email": "ai_society@email.com"}


def test_advisor_by_name_shows_email_area_works_and_preferences(h: DomainHarness) -> None:
    message = text_of(h, "data_system.query_by_identifier", identifier=" zachary CASTRO", by="name", entity_type="advisor")
    assert message == "\n".join([
        "Advisor: Zachary Castro (T0001)",
        "Email: zachary_castro_0001@lau.edu",
        "Research area: Engineering -> Mechanical Engineering",
        "Tags: Robotics, CNC",
        "Representative works:",
        "- Graphene coatings",
        "- Diamond tools",
        "- Peening",
        "Preferences: Engineering ability - Hands-on experience",
        "We like builders.",
    ])


@pytest.mark.parametrize(("entity_type", "name", "ids"), [("club", "Chess Club", ["C001", "C003"]), ("advisor", "ALEX KIM", ["T0002", "T0003"])])
def test_several_with_one_name_are_listed(h: DomainHarness, entity_type: str, name: str, ids: list[str]) -> None:
    message = h.fail("data_system.query_by_identifier", identifier=name, by="name", entity_type=entity_type)
    assert message.startswith(f"2 {entity_type}s are named '{name}':\n")
    assert all(f"({i})" in message for i in ids)
    assert message.endswith('Call again with by="id" and one of these ids.')
    assert h.ok("data_system.query_by_identifier", identifier=ids[1], by="id", entity_type=entity_type).result.data["id"] == ids[1]


def test_unknown_names_and_ids(h: DomainHarness) -> None:
    assert h.fail("data_system.query_by_identifier", identifier="C999", by="id", entity_type="club") == (
        "No club has id 'C999'. Club ids look like 'C000'."
    )
    assert h.fail("data_system.query_by_identifier", identifier="T0001", by="id", entity_type="club").startswith("No club has id")
    near = h.fail("data_system.query_by_identifier", identifier="club", by="name", entity_type="club")
    assert near.endswith("Names containing it: Chess Club (C001); Running Club (C002); chess club (C003).")
    assert "Names containing" not in h.fail("data_system.query_by_identifier", identifier="Nobody", by="name", entity_type="advisor")
    assert "identifier is empty" in h.fail("data_system.query_by_identifier", identifier="", by="name", entity_type="advisor")


# ------------------------------------------------------------------ data system: library catalogue


def test_books_by_category_name_the_library(h: DomainHarness) -> None:
    outcome = h.ok("data_system.list_books_by_category", category="history")
    assert outcome.result.message == (
        "Category 'History' has 1 book(s), held at Grand Central Library (B001):\n"
        '- "A History of Rome" by Dr. Marcus Thorne (HIST-101, Book) - Grand Central Library - Humanities Collection (floor_3)'
    )
    assert outcome.result.data == {"category": "History", "library_ids": ["B001"], "count": 1}
    split = h.ok("data_system.list_books_by_category", category="ARCHIVES & SPECIAL").result
    assert split.message.startswith(
        "Category 'Archives & Special' has 2 book(s), held at 2 libraries, Grand Central Library (B001) and STEM Library (B005)"
    )


def test_books_by_category_bounded_and_unknown(h: DomainHarness) -> None:
    lines = text_of(h, "data_system.list_books_by_category", category="Computer Science").splitlines()
    assert lines[0] == "Category 'Computer Science' has 30 book(s), held at STEM Library (B005):"
    assert len(lines) == 1 + MAX_LISTED + 1 and lines[-1] == "... and 5 more; find the rest with data_system.search_books."
    assert h.fail("data_system.list_books_by_category", category="Comp") == (
        "There is no book category 'Comp'. Categories: Archives & Special; Computer Science; History; Physics."
    )


def test_search_books_by_title_and_author(h: DomainHarness) -> None:
    quantum = h.ok("data_system.search_books", query="QUANTUM").result
    assert quantum.message == (
        "1 book(s) whose title contains 'QUANTUM':\n"
        '- "The Quantum World" by Dr. Evelyn Reed (PHYS-201, Thesis) - STEM Library - Applied Collection (floor_1); '
        "category Physics; at STEM Library (B005)"
    )
    thorne = h.ok("data_system.search_books", query="thorne", search_type="author").result
    assert [b["call_number"] for b in thorne.data["books"]] == ["ARCH-1", "HIST-101"]
    assert h.fail("data_system.search_books", query="thorne") == (
        "No book's title contains 'thorne'. Try a shorter query, or search_type=\"author\"."
    )
    assert "query is empty" in h.fail("data_system.search_books", query="  ", search_type="author")


def test_search_books_bounded(h: DomainHarness) -> None:
    result = h.ok("data_system.search_books", query="o").result
    lines = result.message.splitlines()
    assert lines[0] == f"{result.data['count']} book(s) whose title contains 'o':" and result.data["count"] > MAX_LISTED
    assert lines[-1] == f"... and {result.data['count'] - MAX_LISTED} more; use a longer query."


def test_an_empty_world_answers_plainly() -> None:
    empty = DomainHarness(INFORMATION, WorldIndex(World(name="e", seed=None, home="B001", buildings=_world().buildings, paths=[], complexes=[])))
    assert empty.fail("bibliography.list_chapters", book_title="x") == "This campus has no handbooks or textbooks."
    assert empty.fail("data_system.list_by_category", category="x", entity_type="club") == "This campus has no clubs."
    assert empty.fail("data_system.list_by_category", category="x", entity_type="advisor") == "This campus has no advisors."
    assert empty.fail("data_system.query_by_identifier", identifier="x", by="id", entity_type="club") == "This campus has no clubs."
    assert empty.fail("data_system.search_books", query="x") == "This campus library has no catalogue."
    assert empty.fail("data_system.list_books_by_category", category="x") == "This campus library has no catalogue."


def test_crowded_listings_are_bounded() -> None:
    clubs = [Club(id=f"C{k:03d}", name=f"Club {k}", category="Sports", description="", recruitment="", email="") for k in range(65)]
    same = [Article(id=f"art_{k}", title="Same", body=f"Copy {k}.") for k in range(5)]
    topics = [Article(id=f"t_{k}", title=f"Topic {k}", body="") for k in range(12)]
    text = Text(title="Crowded", kind="handbook", chapters=[Chapter(title="One", sections=[BookSection(title="All", articles=same + topics)])])
    crowded = DomainHarness(INFORMATION, WorldIndex(msgspec.structs.replace(_world(), clubs=clubs, texts=[text])))
    lines = crowded.ok("data_system.list_by_category", category="sports", entity_type="club").result.message.splitlines()
    assert lines[0] == "65 club(s) in the category 'Sports':" and lines[60] == "- Club 59 (C059)"
    assert lines[61] == "... and 5 more; look a club up with data_system.query_by_identifier."
    copies = crowded.ok("bibliography.view_article", identifier="same").result
    assert [f"Copy {k}." in copies.message for k in range(5)] == [True, True, True, False, False]
    assert copies.message.endswith("Not shown (view them by id): Crowded > One > All, id art_3; Crowded > One > All, id art_4.")
    assert len(copies.data["articles"]) == 5
    assert crowded.ok("bibliography.view_article", identifier="art_4", by="id").result.message.endswith("\n\nCopy 4.")
    hint = crowded.fail("bibliography.view_article", identifier="topic")
    assert "'Topic 9'." in hint and "(2 more contain it)" in hint and "Topic 10" not in hint


# ------------------------------------------------------------------ text folding


@given(st.text(max_size=60))
def test_plain_is_ascii_and_fold_is_stable(text: str) -> None:
    assert plain(text).isascii()
    assert fold(fold(text)) == fold(text) == fold(plain(text))
    if text.isascii():
        assert plain(text) == text


# ------------------------------------------------------------------ fuzzing

PLAUSIBLE = [
    HANDBOOK, TEXTBOOK, "Chapter 1", "Search", "1.1", "Basics", "Honors", "Shared Title", "art_1.1.1", "art_1.1.2",
    "club", "advisor", "name", "id", "title", "author", "level_1", "level_2", "C000", "T0001", "Chess Club",
    "Engineering", "Computer Science", "History", "", " ", "o", "\u00e9",
]
TEXT = st.one_of(st.sampled_from(PLAUSIBLE), st.text(max_size=30), st.builds(lambda s, n: s * n, st.sampled_from(["a", " ", "1."]), st.integers(50, 3000)))
VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), TEXT, st.lists(TEXT, max_size=2))
PARAM_NAMES = sorted({p.name for t in INFORMATION_TOOLS for p in t.params} | {"bogus"})


def _args(tool: ToolDecl) -> st.SearchStrategy[dict[str, Any]]:
    typed = st.fixed_dictionaries(
        {p.name: (st.sampled_from(p.enum) if p.enum else TEXT) for p in tool.params if p.required},
        optional={p.name: (st.sampled_from(p.enum) if p.enum else TEXT) | st.none() for p in tool.params if not p.required},
    )
    return typed | st.dictionaries(st.sampled_from(PARAM_NAMES), VALUES, max_size=4)


def _check(tool: ToolDecl, args: dict[str, Any], harness: DomainHarness) -> None:
    before = encoded(harness.part)
    outcome = tool.call(harness.view(), args)
    assert outcome.facts == ()
    assert outcome.result.message and outcome.result.message.isascii()
    assert encoded(harness.part) == before


@pytest.mark.parametrize("tool", INFORMATION_TOOLS, ids=lambda t: t.name)
def test_fuzz_through_the_dispatcher_never_raises(tool: ToolDecl) -> None:
    harness = DomainHarness(INFORMATION, CAMPUS)

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(_args(tool))
    def run(args: dict[str, Any]) -> None:
        bound = bind_arguments(tool, args)
        if not isinstance(bound, str):
            _check(tool, bound, harness)

    run()


@pytest.mark.parametrize("tool", INFORMATION_TOOLS, ids=lambda t: t.name)
def test_fuzz_handler_with_any_strings(tool: ToolDecl) -> None:
    """Text the dispatcher would refuse (non-ASCII) must not crash a handler either."""
    harness = DomainHarness(INFORMATION, CAMPUS)
    values = {p.name: (st.sampled_from(p.enum) if p.enum else st.text(max_size=40)) for p in tool.params}

    @settings(max_examples=60, deadline=None)
    @given(st.fixed_dictionaries(values))
    def run(args: dict[str, Any]) -> None:
        _check(tool, args, harness)

    run()


# ------------------------------------------------------------------ the published data


@pytest.fixture(scope="module")
def stulife() -> DomainHarness:
    loader = getattr(importlib.import_module("campus.world.stulife"), "load_stulife", None)
    if loader is None:
        pytest.skip("campus.world.stulife.load_stulife does not exist yet (the StuLife importer is written separately)")
    if not (STULIFE / "campus_data.json").exists():
        pytest.skip(f"the StuLife data is not at {STULIFE}")
    loaded = loader(STULIFE)
    world = loaded[0] if isinstance(loaded, tuple) else loaded
    return DomainHarness(INFORMATION, WorldIndex(world))


def test_published_bibliography_is_browsable_and_ascii(stulife: DomainHarness) -> None:
    texts = stulife.campus.world.texts
    assert len(texts) >= 10
    viewed = 0
    for text in texts:
        chapters = stulife.ok("bibliography.list_chapters", book_title=text.title).result.data["chapters"]
        for chapter in chapters:
            sections = stulife.ok("bibliography.list_sections", book_title=text.title, chapter_title=chapter).result.data["sections"]
            for section in sections:
                listed = stulife.ok("bibliography.list_articles", book_title=text.title, chapter_title=chapter, section_title=section)
                for article in listed.result.data["articles"]:
                    stulife.ok("bibliography.view_article", identifier=article["title"], book_title=text.title)
                    viewed += 1
    assert viewed >= 2000


def test_published_article_ids_repeat_across_books(stulife: DomainHarness) -> None:
    message = stulife.fail("bibliography.view_article", identifier="art_1.1.1", by="id")
    assert "occurs in" in message and "book_title" in message
    book = next(t.title for t in stulife.campus.world.texts if "handbook" in t.title.lower())
    assert stulife.ok("bibliography.view_article", identifier="art_1.1.1", by="id", book_title=book).result.data["id"] == "art_1.1.1"


def test_published_categories_that_exist_work_and_advertised_ones_are_corrected(stulife: DomainHarness) -> None:
    message = stulife.fail("data_system.list_by_category", category="Arts & Culture", entity_type="club")
    assert "Arts & Cultural" in message
    categories = message.split("Club categories: ")[1].rstrip(".").split("; ")
    assert sum(len(stulife.ok("data_system.list_by_category", category=c, entity_type="club").result.data["club_ids"]) for c in categories) == 101
    engineering = stulife.ok("data_system.list_by_category", category="Engineering", entity_type="advisor", level="level_1").result
    assert engineering.data["count"] == 392
    assert "... and 367 more; narrow with level or a more specific category." in engineering.message
    for category in ("History", "Computer Science", "General Journals"):
        assert stulife.ok("data_system.list_books_by_category", category=category).result.data["count"] > 0


def test_every_club_s_and_advisor_s_page_is_the_one_made_afresh(h: DomainHarness) -> None:
    """A page is made once per entity and kept; asked again (the kept one), it is still the one its text function makes."""
    from campus.subsystems.information import _advisor_text, _club_text

    model = h.campus.world
    for _ in range(2):
        for entity_type, entities, text in (("club", model.clubs, _club_text), ("advisor", model.advisors, _advisor_text)):
            for entity in entities:
                found = h.ok("data_system.query_by_identifier", identifier=entity.id, by="id", entity_type=entity_type)
                assert found.result.message == text(entity)
    assert model.clubs and model.advisors

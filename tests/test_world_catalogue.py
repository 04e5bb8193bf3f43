"""The generated catalogue: libraries and seats, courses, advisors, clubs, books and texts.

Every test reads the world as data only; each property the generators' docstrings promise
is checked at scale 1, and the structural ones again at other scales and seeds.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import SHARED
from campus.world.gen_common import snake
from campus.world.gen_courses import COMPULSORY_1, COMPULSORY_2, THEMES
from campus.world.gen_library import PUBLIC_ROOMS, STUDY_ROOMS, amenity_of, is_library
from campus.world.gen_people import AREAS
from campus.world.gen_texts import TEXTBOOKS, Fact, article_facts
from campus.world.generate import generate_world
from campus.world.model import SEAT_FEATURES, Building, CourseSection, Seat, World

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUB_CATEGORIES = {
    "Academic & Technological", "Sports & Fitness", "Arts & Cultural", "Social Practice",
    "Volunteering & Public Welfare",
}
HANDBOOKS = ("Student Handbook", "Academic Integrity Guidelines", "Academic Programs Guide")
TIME = re.compile(r"(\d\d):00-(\d\d):00")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
BASE_CODE = re.compile(r"[A-Z]{4}\d{10}")
CALL_NUMBER = re.compile(r"[A-Z]{2,5}-\d{3}\.[A-Z]\d")
SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


@pytest.fixture(scope="module")
def world() -> World:
    return generate_world(0)


@pytest.fixture(scope="module")
def double() -> World:
    return generate_world(0, 2.0)


def buildings_of(world: World) -> dict[str, Building]:
    return {b.id: b for b in world.buildings}


def seats_of(world: World) -> list[Seat]:
    return [s for lib in world.libraries for r in lib.rooms for s in r.seats]


def all_articles(world: World):
    for text in world.texts:
        for c, chapter in enumerate(text.chapters, 1):
            for s, section in enumerate(chapter.sections, 1):
                for n, article in enumerate(section.articles, 1):
                    yield text, c, s, n, article


def base(code: str) -> str:
    return code.split("(")[0]


# --------------------------------------------------------------------------------------
# invariants at any seed and scale
# --------------------------------------------------------------------------------------


def assert_catalogue_valid(world: World) -> None:
    by_id = buildings_of(world)
    assert world.encoded.isascii()

    # libraries: rooms come from the map, seats are unique and well formed
    libraries = [b.id for b in world.buildings if is_library(b)]
    assert [lib.building_id for lib in world.libraries] == libraries
    seat_ids = [s.id for s in seats_of(world)]
    assert len(seat_ids) == len(set(seat_ids))
    for lib in world.libraries:
        building = by_id[lib.building_id]
        room_ids = [r.id for r in lib.rooms]
        assert len(room_ids) == len(set(room_ids)), lib.building_id
        claimed = [(r.floor, amenity_of(r)) for r in lib.rooms]
        assert len(claimed) == len(set(claimed))
        for room in lib.rooms:
            assert amenity_of(room) in building.amenities[room.floor], (lib.building_id, room)
            assert room.name in STUDY_ROOMS or room.name in PUBLIC_ROOMS
            assert room.kind == ("StudyArea" if room.name in STUDY_ROOMS else "PublicArea")
            assert bool(room.seats) == (room.kind == "StudyArea")
            width = max(3, len(str(len(room.seats))))
            assert [s.id for s in room.seats] == [
                f"{lib.building_id}-{room.id}-S{i:0{width}d}" for i in range(1, len(room.seats) + 1)]
            for seat in room.seats:
                assert 2 <= len(seat.features) <= 9 and len(set(seat.features)) == len(seat.features)
                assert sorted(seat.features, key=SEAT_FEATURES.index) == seat.features
        named = {(f, a) for f, items in building.amenities.items() for a in items
                 if re.sub(r" (\([^()]*\)|B?\d+)$", "", a) in {*STUDY_ROOMS, *PUBLIC_ROOMS}}
        assert named == set(claimed), lib.building_id  # every bookable amenity is a room

    # books: one library and one collection per category
    homes = defaultdict(set)
    for book in world.books:
        homes[book.category].add((book.library_id, book.collection))
        assert CALL_NUMBER.fullmatch(book.call_number), book
        assert book.type in ("Book", "Thesis", "Journal")
    assert all(len(places) == 1 for places in homes.values()), homes
    for (library_id, collection), in homes.values():
        building = by_id[library_id]
        assert is_library(building)
        floor = re.fullmatch(rf"{re.escape(building.name)} - [A-Za-z ]+ Collection \((\w+)\)", collection)
        assert floor and floor[1] in building.amenities, collection
    assert len({b.call_number for b in world.books}) == len(world.books)
    assert len({b.title.lower() for b in world.books}) == len(world.books)
    if not libraries:
        assert not world.books and not world.libraries

    # courses
    codes = [c.code for c in world.courses]
    assert len(codes) == len(set(codes))
    advisor_names = {a.name for a in world.advisors}
    for section in world.courses:
        match = TIME.fullmatch(section.time)
        assert match and int(match[1]) in (8, 10, 14, 16, 19) and int(match[2]) == int(match[1]) + 2
        assert 1 <= len(section.days) <= 3 and len(set(section.days)) == len(section.days)
        assert set(section.days) <= set(WEEKDAYS)
        assert (section.first_week, section.last_week) in ((1, 18), (1, 16))
        assert by_id[section.building_id].type == "Academic"
        assert not is_library(by_id[section.building_id]) or not any(
            b.type == "Academic" and not is_library(b) for b in world.buildings)
        assert any(section.room in items for items in by_id[section.building_id].amenities.values())
        assert 0 <= section.popularity <= 99 and section.seats > 0 and 1 <= section.credits <= 5
        assert section.instructor in advisor_names
        assert BASE_CODE.fullmatch(base(section.code))
        assert section.description.endswith(".") and len(SENTENCE_END.findall(section.description)) == 1
    first_of = {}
    for section in world.courses:  # sections of one course agree
        key = (section.semester, section.name)
        shape = (base(section.code), section.credits, section.compulsory, section.prerequisites,
                 section.description, section.last_week)
        assert first_of.setdefault(key, shape) == shape

    # advisors and clubs
    ids = [a.id for a in world.advisors]
    width = max(4, len(str(len(ids))))
    assert ids == [f"T{i:0{width}d}" for i in range(1, len(ids) + 1)]
    assert len({a.email for a in world.advisors}) == len(ids)
    club_ids = [c.id for c in world.clubs]
    assert club_ids == [f"C{i:03d}" for i in range(len(club_ids))]
    assert len({c.name.lower() for c in world.clubs}) == len(club_ids)
    assert len({c.email for c in world.clubs}) == len(club_ids)
    assert {c.category for c in world.clubs} <= CLUB_CATEGORIES


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=-(2**40), max_value=2**40),
       scale=st.sampled_from([0.01, 0.1, 0.3, 0.7, 1.0, 1.6]))
def test_any_seed_and_scale_is_valid(seed: int, scale: float) -> None:
    assert_catalogue_valid(generate_world(seed, scale))


def test_default_and_double_worlds_are_valid(world: World, double: World) -> None:
    assert_catalogue_valid(world)
    assert_catalogue_valid(double)


def test_a_tiny_campus_without_libraries_has_no_catalogue_of_books() -> None:
    tiny = generate_world(3, 0.01)
    assert not any(is_library(b) for b in tiny.buildings)
    assert tiny.libraries == [] and tiny.books == []
    assert tiny.courses and tiny.advisors and tiny.clubs and len(tiny.texts) == 11
    assert_catalogue_valid(tiny)


# --------------------------------------------------------------------------------------
# counts
# --------------------------------------------------------------------------------------


def course_counts(world: World) -> Counter:
    return Counter((c.semester, c.compulsory) for c in world.courses)


def test_counts_at_scale_1(world: World) -> None:
    assert len(world.libraries) == 12
    rooms = [r for lib in world.libraries for r in lib.rooms]
    study = [r for r in rooms if r.kind == "StudyArea"]
    assert 55 <= len(rooms) <= 95 and 0.3 <= len(study) / len(rooms) <= 0.6
    assert len(seats_of(world)) >= 2500
    assert course_counts(world) == {(1, True): 60, (1, False): 180, (2, True): 16}
    assert len(world.courses) >= 256
    assert len(world.advisors) == 1000 and len(world.clubs) == 101
    assert len(world.books) >= 395 and len(world.texts) == 11


def test_counts_at_scale_2(world: World, double: World) -> None:
    assert len(double.libraries) == 24
    assert len(seats_of(double)) >= 2 * 2500
    assert course_counts(double) == {(1, True): 60, (1, False): 360, (2, True): 16}
    assert len(double.advisors) == 2000 and len(double.clubs) == 202
    assert len(double.books) >= 2 * 395
    assert double.texts == world.texts  # texts depend on the seed only


# --------------------------------------------------------------------------------------
# libraries and seats
# --------------------------------------------------------------------------------------


def test_room_names_and_ids_come_from_the_map(world: World) -> None:
    rooms = [r for lib in world.libraries for r in lib.rooms]
    assert {"West Wing", "East Wing", "North Wing", "South Wing"} & {r.id for r in rooms}
    assert any(re.fullmatch(r"\d{3}", r.id) for r in rooms)
    assert any(r.name == "Group Study Room" for r in rooms)  # added to the map as well
    for room in rooms:
        label = amenity_of(room)
        assert label.startswith(room.name)


def test_seat_features_make_requirements_selective(world: World) -> None:
    """A 2-feature requirement fits a handful of a room's seats, a 3-feature one a few."""
    pair_shares, triple_shares = [], []
    for lib in world.libraries:
        for room in lib.rooms:
            if not room.seats:
                continue
            held = [set(s.features) for s in room.seats]
            present = sorted({f for s in held for f in s})
            pairs = list(combinations(present, 2))
            triples = list(combinations(present, 3))
            pair_shares.append(sum(sum(set(p) <= s for s in held) for p in pairs) / len(pairs) / len(held))
            triple_shares.append(sum(sum(set(t) <= s for s in held) for t in triples[::7]) / len(triples[::7]) / len(held))
            assert max(sum(set(p) <= s for s in held) for p in pairs) < 0.5 * len(held)
    mean_pair = sum(pair_shares) / len(pair_shares)
    mean_triple = sum(triple_shares) / len(triple_shares)
    assert 0.03 <= mean_pair <= 0.2, mean_pair
    assert 0.003 <= mean_triple <= 0.06, mean_triple
    counts = Counter(len(s.features) for s in seats_of(world))
    assert set(counts) == set(range(2, 10))
    assert 4 <= sum(k * n for k, n in counts.items()) / sum(counts.values()) <= 6
    assert set(SEAT_FEATURES) == {f for s in seats_of(world) for f in s.features}


# --------------------------------------------------------------------------------------
# books
# --------------------------------------------------------------------------------------


def test_book_catalogue_shape(world: World) -> None:
    categories = Counter(b.category for b in world.books)
    assert 25 <= len(categories) <= 32
    assert Counter(b.type for b in world.books) == {"Book": 320, "Thesis": 43, "Journal": 32}
    assert len({b.library_id for b in world.books}) >= 6  # the collections are spread over the campus
    homes = {b.category: (b.library_id, b.collection) for b in world.books}
    libraries = [b for b in world.buildings if is_library(b)]

    def named_after(library: Building, category: str) -> bool:
        fits = [c for c in categories if library.name == f"{c} Library" or library.name.endswith(f" {c} Library")]
        return bool(fits) and max(fits, key=len) == category

    checked = 0
    for category in categories:
        own = [lib for lib in libraries if named_after(lib, category)]
        if own:  # a library named after a category holds it in a collection of its own
            checked += 1
            assert homes[category] == (own[0].id, f"{own[0].name} - {category} Collection "
                                       + homes[category][1].rsplit(" ", 1)[1])
    assert checked >= 1


# --------------------------------------------------------------------------------------
# courses
# --------------------------------------------------------------------------------------


def sections_by_course(world: World, semester: int, compulsory: bool) -> dict[str, list[CourseSection]]:
    grouped: dict[str, list[CourseSection]] = defaultdict(list)
    for c in world.courses:
        if c.semester == semester and c.compulsory == compulsory:
            grouped[c.name].append(c)
    return grouped


def clash(a: CourseSection, b: CourseSection) -> bool:
    ta, tb = TIME.fullmatch(a.time), TIME.fullmatch(b.time)
    assert ta and tb
    return bool(set(a.days) & set(b.days)) and ta[1] == tb[1]


def test_course_structure(world: World) -> None:
    first = sections_by_course(world, 1, True)
    assert list(first) == [spec.name for spec in COMPULSORY_1]
    second = sections_by_course(world, 2, True)
    assert list(second) == [spec.name for spec in COMPULSORY_2]
    for grouped, count in ((first, 6), (second, 2)):
        for sections in grouped.values():
            root = sections[0].code
            assert [s.code for s in sections] == [root] + [f"{root}({k})" for k in range(2, count + 1)]
    electives = [c for c in world.courses if not c.compulsory]
    assert all(c.semester == 1 for c in electives)
    by_theme = Counter(c.code[:4] for c in electives)
    assert by_theme == {theme.prefix: 30 for theme in THEMES}
    names = {c.name for c in electives}
    assert 100 <= len(names) <= 150 and not names & set(first) and not names & set(second)
    credits = Counter(c.credits for c in world.courses)
    assert credits[2] > 0.6 * len(world.courses) and {1, 3, 4, 5} <= set(credits)
    short = sum(c.last_week == 16 for c in world.courses)
    assert 5 <= short <= 0.15 * len(world.courses)
    assert Counter(len(c.days) for c in world.courses).keys() == {1, 2, 3}


def test_prerequisites_name_semester_1_compulsory_courses(world: World) -> None:
    first = set(sections_by_course(world, 1, True))
    for section in world.courses:
        if section.semester == 2:
            assert 1 <= len(section.prerequisites) <= 3 and set(section.prerequisites) <= first
        else:
            assert section.prerequisites == []
    deep = next(c for c in world.courses if c.name == "Deep Learning")
    assert deep.prerequisites == ["Calculus I", "Linear Algebra", "Programming Fundamentals"]


def test_popularity_distribution(world: World) -> None:
    first = [c.popularity for c in world.courses if c.semester == 1]
    low = sum(p < 85 for p in first) / len(first)
    mid = sum(85 <= p <= 94 for p in first) / len(first)
    high = sum(p >= 95 for p in first) / len(first)
    assert 0.6 <= low <= 0.72 and 0.22 <= mid <= 0.35 and 0.03 <= high <= 0.08


def test_compulsory_section_sets_never_clash(world: World) -> None:
    for semester, compulsory in ((1, True), (2, True)):
        grouped = sections_by_course(world, semester, compulsory)
        for k in range(max(map(len, grouped.values()))):
            kth = [s[k] for s in grouped.values() if len(s) > k]
            for a, b in combinations(kth, 2):
                assert not clash(a, b), (a.code, b.code)
            assert all(s.time != "19:00-21:00" for s in kth)


def test_no_room_is_double_booked(world: World) -> None:
    seen: dict[tuple, str] = {}
    for c in world.courses:
        for day in c.days:
            key = (c.semester, c.building_id, c.room, day, c.time)
            assert key not in seen, (seen[key], c.code)
            seen[key] = c.code


# --------------------------------------------------------------------------------------
# advisors and clubs
# --------------------------------------------------------------------------------------


def test_advisors(world: World) -> None:
    field_area = {f: a.name for a in AREAS for f in a.fields}
    areas = Counter(a.area for a in world.advisors)
    assert set(areas) == {a.name for a in AREAS} and len(areas) == 12
    assert areas.most_common(1)[0][0] == "Engineering"
    assert 38 <= len(field_area) <= 45 and len({a.field for a in world.advisors}) >= 38
    for advisor in world.advisors:
        first, last = advisor.name.split()
        assert advisor.email == f"{first.lower()}_{last.lower()}_{advisor.id[1:]}@lau.edu"
        assert field_area[advisor.field] == advisor.area
        assert len(advisor.tags) == 3 == len(set(advisor.tags))
        assert len(advisor.works) == 3 == len(set(advisor.works))
        assert advisor.preference and advisor.preference_detail
        assert advisor.preference.lower() in advisor.preference_text
        assert advisor.preference_detail[1:] in advisor.preference_text
    assert len({a.name for a in world.advisors}) == len(world.advisors)


def test_clubs(world: World) -> None:
    assert {c.category for c in world.clubs} == CLUB_CATEGORIES
    assert Counter(c.category for c in world.clubs)["Academic & Technological"] == 32
    for club in world.clubs:
        assert club.email == f"{snake(club.name)}@email.com"
        assert f" {club.email} " in club.recruitment  # never glued to punctuation
        assert club.name in club.description and club.description.endswith(".")


# --------------------------------------------------------------------------------------
# texts
# --------------------------------------------------------------------------------------


def test_text_titles_kinds_and_courses(world: World) -> None:
    titles = [t.title for t in world.texts]
    assert titles[:3] == list(HANDBOOKS)
    assert all(t.kind == "handbook" and t.course == "" for t in world.texts[:3])
    textbooks = world.texts[3:]
    assert len(textbooks) == 8 and all(t.kind == "textbook" for t in textbooks)
    core = [spec.name for spec in COMPULSORY_1 if spec.core]
    assert [t.course for t in textbooks] == core == [spec.course for spec in TEXTBOOKS]
    assert len(set(titles)) == len(titles)


def test_text_structure(world: World) -> None:
    for text in world.texts:
        assert 5 <= len(text.chapters) <= 8, text.title
        for c, chapter in enumerate(text.chapters, 1):
            assert chapter.title.startswith(f"Chapter {c}: ")
            assert 2 <= len(chapter.sections) <= 4
            for s, section in enumerate(chapter.sections, 1):
                assert section.title.startswith(f"{c}.{s} ")
                assert 3 <= len(section.articles) <= 5
                assert [a.id for a in section.articles] == [
                    f"art_{c}.{s}.{n}" for n in range(1, len(section.articles) + 1)]


def test_article_facts_are_stated_verbatim(world: World) -> None:
    stated: dict[tuple[str, str], str] = {}
    count = 0
    for text, c, s, n, article in all_articles(world):
        facts = article_facts(world.seed, text.title, c, s, n)
        assert facts and all(isinstance(f, Fact) for f in facts)
        assert 2 <= len(SENTENCE_END.findall(article.body)) <= 5, article.body
        for fact in facts:
            boundary = rf"(?<![\w.-]){re.escape(fact.value)}(?![\w-]|\.\d)"
            assert re.search(boundary, article.body), (fact, article.body)
            assert stated.setdefault((fact.subject, fact.relation), fact.value) == fact.value, fact
            count += 1
    assert count > 1000
    numeric = sum(any(ch.isdigit() for ch in v) for v in stated.values())
    assert numeric > 0.6 * len(stated)  # most facts are checkable values


def test_rule_values_depend_on_the_seed(world: World) -> None:
    other = generate_world(1)
    first = {(f.subject, f.relation): f.value for t, c, s, n, _ in all_articles(world)
             for f in article_facts(0, t.title, c, s, n)}
    second = {(f.subject, f.relation): f.value for t, c, s, n, _ in all_articles(other)
              for f in article_facts(1, t.title, c, s, n)}
    shared = [k for k in set(first) & set(second) if k[1] != "is defined as"]
    assert len(shared) > 20
    assert sum(first[k] != second[k] for k in shared) > 0.2 * len(shared)


def test_article_facts_rejects_unknown_places(world: World) -> None:
    title = world.texts[0].title
    for place in ((0, 1, 1), (99, 1, 1), (1, 99, 1), (1, 1, 99)):
        with pytest.raises(ValueError):
            article_facts(0, title, *place)
    with pytest.raises(KeyError):
        article_facts(0, "No Such Book", 1, 1, 1)


# --------------------------------------------------------------------------------------
# determinism and speed
# --------------------------------------------------------------------------------------


def test_same_catalogue_in_two_processes() -> None:
    code = (
        "import hashlib; from campus.world.generate import generate_world; "
        "print(hashlib.sha256(generate_world(5, 1.0).encoded).hexdigest(), "
        "hashlib.sha256(generate_world(5, 0.5).encoded).hexdigest())"
    )
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                                capture_output=True, text=True, check=True)
        outputs.append(result.stdout.split())
    assert outputs[0] == outputs[1] and len(outputs[0]) == 2
    assert generate_world(5).encoded == generate_world(5).encoded


# --------------------------------------------------------------------------------------
# the published data (read-only; skipped when absent)
# --------------------------------------------------------------------------------------


@pytest.mark.skipif(not (SHARED / "stulife" / "campus_data.json").exists(),
                    reason="the published StuLife data is not in the shared directory")
def test_vocabularies_match_the_published_data(world: World) -> None:
    data = json.loads((SHARED / "stulife" / "campus_data.json").read_text())
    assert {c["category"] for c in data["clubs"]} == CLUB_CATEGORIES
    assert {a["research_area"]["level_1"] for a in data["advisors"]} == {a.name for a in AREAS}
    published = {f for lib in data["library_seats"]["libraries"] for rooms in lib["internal_amenities"].values()
                 for room in rooms for seat in room.get("seats", []) for f in seat["features"]}
    assert published == set(SEAT_FEATURES)
    assert len(world.advisors) >= len(data["advisors"]) and len(world.clubs) >= len(data["clubs"])
    assert len(world.books) >= len(data["library_books"])
    assert len(seats_of(world)) >= 2500

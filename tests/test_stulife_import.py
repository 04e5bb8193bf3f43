"""The StuLife importer: counts, quirks reported, mapped values, determinism, the CLI and a run on the import."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from campus.cli.main import app
from campus.kernel.clock import MINUTES_PER_DAY
from tests.conftest import SHARED
from tests.scenario_play import play_tasks
from tests.test_cli import as_json, campus
from campus.scenarios.term import generate_term
from campus.world.routes import edge_cost
from campus.world.index import WorldIndex
from campus.world.model import SEAT_FEATURES, World
from campus.world.stulife import (
    ARTICLE_LIMIT,
    DEFAULT_POPULARITY,
    DEFAULT_SEATS,
    ImportReport,
    _ASCII_TABLE,
    StuLifeDataError,
    load_stulife,
    to_ascii,
)

STULIFE = SHARED / "stulife"
needs_data = pytest.mark.skipif(not (STULIFE / "campus_data.json").is_file(),
                                reason=f"the published StuLife data is not at {STULIFE}")


@pytest.fixture(scope="module")
def imported() -> tuple[World, ImportReport]:
    if not (STULIFE / "campus_data.json").is_file():
        pytest.skip(f"the published StuLife data is not at {STULIFE}")
    return load_stulife(STULIFE)


@pytest.fixture(scope="module")
def world(imported: tuple[World, ImportReport]) -> World:
    return imported[0]


@pytest.fixture(scope="module")
def notes(imported: tuple[World, ImportReport]) -> str:
    return "\n".join(imported[1].notes)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


# ---------------------------------------------------------------- counts and shape


def test_counts_match_the_published_data(imported: tuple[World, ImportReport]) -> None:
    world, report = imported
    assert report.counts == report.counts | {
        "buildings": 155, "walkways": 155, "complexes": 5, "courses": 226, "clubs": 101, "advisors": 1000, "books": 395,
        "seats": 2605, "rooms": 72, "study_rooms": 29, "public_rooms": 43, "libraries": 14, "texts": 11,
    }
    rooms = [room for library in world.libraries for room in library.rooms]
    assert all(bool(room.seats) == (room.kind == "StudyArea") for room in rooms)
    assert sum(c.semester == 1 for c in world.courses) == 210 and sum(c.compulsory for c in world.courses) == 46


def test_every_string_is_ascii_and_every_seat_unique(world: World) -> None:
    assert all(s.isascii() for s in _strings(msgspec.to_builtins(world)))
    seats = [seat for library in world.libraries for room in library.rooms for seat in room.seats]
    assert len({seat.id for seat in seats}) == 2605
    assert all(set(seat.features) <= set(SEAT_FEATURES) and seat.features for seat in seats)


def test_textbooks_have_the_published_structure(world: World) -> None:
    published = {  # stulife.md section 13.7: chapters, sections, articles
        "Student Handbook": (12, 24, 192), "Academic Integrity Guidelines": (7, 19, 152),
        "A Panorama of Computing: From Bits to Artificial Intelligence": (12, 19, 95),
        "Linear Algebra and Its Applications": (11, 53, 330), "Mathematical Analysis": (10, 44, 220),
        "Military Theory and National Defense": (8, 32, 160), "Programming for Everyone": (12, 45, 229),
        "Innovation and Entrepreneurship": (13, 52, 260), "Mental Health and Wellness": (12, 48, 240),
        "Advanced Programming Concepts": (12, 46, 230),
    }
    texts = {t.title: t for t in world.texts}
    for title, (chapters, sections, articles) in published.items():
        text = texts[title]
        assert len(text.chapters) == chapters, title
        assert sum(len(c.sections) for c in text.chapters) == sections, title
        assert sum(len(s.articles) for c in text.chapters for s in c.sections) == articles, title
        assert len({c.title for c in text.chapters}) == chapters, f"{title}: chapter titles must be unique"
    assert [t.kind for t in world.texts] == ["handbook"] * 3 + ["textbook"] * 8
    names = {c.name for c in world.courses}
    assert all(t.course in names for t in world.texts if t.kind == "textbook")
    assert texts["Advanced Programming Concepts"].course == "Programming"


def test_programs_guide_is_one_chapter_per_program_with_short_unique_articles(world: World) -> None:
    guide = next(t for t in world.texts if t.title == "Academic Programs Guide")
    assert len(guide.chapters) == 7 and guide.chapters[0].title == "Chapter 1: Computer Science and Technology Major"
    assert [s.title for s in guide.chapters[0].sections] == ["I. Guiding Ideology", "II. Training Objectives",
                                                             "III. Graduation Requirements"]
    articles = [a for c in guide.chapters for s in c.sections for a in s.articles]
    assert all(0 < len(a.body) <= ARTICLE_LIMIT for a in articles)
    assert len({a.id for a in articles}) == len(articles) == len({a.title for a in articles})
    assert len(guide.chapters[5].sections) >= 5  # the dual degree has no level-3 headings: its headings make sections
    assert any("Observation Point 1-1" in a.body for a in articles)  # tables are rendered, not dropped


# ---------------------------------------------------------------- mapped values


def test_spot_checks(world: World) -> None:
    index = WorldIndex(world)
    assert index.names["lakeside dormitory"][0] == "B083" == world.home
    club = next(c for c in world.clubs if c.id == "C000")
    assert club.email == "artificial_intelligence_innovation_society@email.com" and club.email in club.recruitment
    assert all(c.email.endswith("@email.com") for c in world.clubs)
    advisor = next(a for a in world.advisors if a.id == "T0001")
    assert (advisor.name, advisor.email, advisor.area, advisor.field) == (
        "Zachary Castro", "zachary_castro_0001@lau.edu", "Engineering", "Mechanical and Industrial Engineering")
    assert len(advisor.tags) == 3 and advisor.preference == "Engineering ability"
    assert advisor.preference_detail == "Practical experience in manufacturing equipment"
    assert next(a for a in world.advisors if a.id == "T0584").preference_detail.startswith("Published papers; ")


def test_courses_take_popularity_seats_and_blank_times_from_the_combined_files(world: World) -> None:
    section = {(c.code, c.semester): c for c in world.courses}
    ideology = section["SHK003111016", 1]
    assert (ideology.popularity, ideology.seats, ideology.time, ideology.building_id) == (88, 35, "14:00-16:50", "B003")
    assert ideology.instructor == "Dr. Evelyn Reed" and ideology.compulsory and ideology.credits == 3
    assert section["WXK003111107", 1].popularity == 70 and section["WXK003111107", 2].popularity == 65
    analysis = section["COMS0031121013", 1]
    assert analysis.time == "10:00-11:50" and analysis.popularity == 98 and analysis.days == ["Monday", "Wednesday", "Friday"]
    deep = next(c for c in world.courses if c.name == "Deep Learning")
    assert deep.semester == 2 and deep.prerequisites == ["Mathematical Analysis I", "Linear Algebra", "Programming"]
    names = {c.name for c in world.courses}
    assert all(p in names for c in world.courses for p in c.prerequisites)


def test_rooms_and_books(world: World) -> None:
    library = next(lib for lib in world.libraries if lib.building_id == "B001")
    west = next(room for room in library.rooms if room.id == "West Wing")
    assert (west.name, west.floor, west.kind, len(west.seats)) == ("Quiet Study Zone", "floor_2", "StudyArea", 34)
    assert west.seats[-1].id == "B001-West Wing-S001-2"
    buildings = {b.id: b for b in world.buildings}
    for lib in world.libraries:
        for room in lib.rooms:
            amenities = buildings[lib.building_id].amenities[room.floor]
            assert room.name in amenities or f"{room.name} ({room.id})" in amenities
    law = next(b for b in world.books if b.collection.startswith("Blackstone School of Law"))
    assert law.library_id == "B007"
    stem = [b for b in world.books if b.collection == "STEM Library - Pure & Life Sciences Collection (floor_2)"]
    assert len(stem) == 80 and {b.library_id for b in stem} == {"B042"}
    assert all(b.library_id for b in world.books)


# ---------------------------------------------------------------- the report


def test_report_names_every_quirk(notes: str) -> None:
    for needle in (
        "'room_name (room_id)' form", "Quiet Study Zone (West Wing)",  # map amenities vs seat rooms
        "'popularity' is null for all 226", "combined_courses_s1.json",  # popularity
        "ids occur in more than one book",  # shared article ids
        "wrap the book in a one-element list",  # list-wrapped handbooks
        "'B001-West Wing-S001-2'", "'B001-East Wing-S001-2'", "'B042-201-210-S001-2'",  # duplicated seats
        "strings transliterated to ASCII", "were dropped",  # non-ASCII
        "'Archives & Special' is held in 2 locations", "'General Journals' is held in 2 locations",
        "course codes used in both semesters: WXK003111107", "COMS0031121013: time",
        "chapter 'Chapter 1: Systems of Linear Equations and Matrices' appears again",
        "not imported (no place in the world model)",
    ):
        assert needle in notes, needle
    assert notes.isascii()


def _copy_layout(directory: Path, **replaced: object) -> Path:
    """A data directory linking to the published files, some replaced by the given JSON (or text, for a string)."""
    directory.mkdir(exist_ok=True)
    for source in STULIFE.iterdir():
        if source.name not in replaced:
            (directory / source.name).symlink_to(source)
    for name, content in replaced.items():
        (directory / name).write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return directory


@needs_data
def test_unmatched_rooms_missing_emails_and_missing_popularity_are_reported(tmp_path: Path) -> None:
    data = json.loads((STULIFE / "campus_data.json").read_text(encoding="utf-8"))
    data["library_seats"]["libraries"][0]["internal_amenities"]["floor_1"][0]["room_name"] = "Broom Cupboard"
    data["clubs"][5]["recruitment_info"] = "Ask at the stand."
    s2 = json.loads((STULIFE / "combined_courses_s2.json").read_text(encoding="utf-8"))
    dropped = s2["all_courses"].pop(0)["course_code"]
    world, report = load_stulife(_copy_layout(tmp_path, **{"campus_data.json": data, "combined_courses_s2.json": s2}))
    text = "\n".join(report.notes)
    assert "'Broom Cupboard' (room_id 'MAIN_LOBBY_&_CIRCULATION_DESK') matches no amenity" in text
    assert "the map's amenity 'Main Lobby & Circulation Desk' has no room in the seat data" in text
    assert "club C005" in text and next(c for c in world.clubs if c.id == "C005").email == ""
    assert f"1 sections have no combined-file entry ({dropped})" in text
    section = next(c for c in world.courses if c.code == dropped and c.semester == 2)
    assert (section.popularity, section.seats) == (DEFAULT_POPULARITY, DEFAULT_SEATS)
    assert report.counts["rooms"] == 72 and report.counts["clubs"] == 101


@needs_data
def test_missing_and_broken_files_are_one_error(tmp_path: Path) -> None:
    with pytest.raises(StuLifeDataError, match="not a directory"):
        load_stulife(tmp_path / "nowhere")
    with pytest.raises(StuLifeDataError, match="map_v1.5.json does not exist"):
        load_stulife(STULIFE / "books")
    with pytest.raises(StuLifeDataError, match=r"^courses.json: courses\[0\] \(course_code 'X'\): field 'schedule' is missing$"):
        load_stulife(_copy_layout(tmp_path / "shape", **{"courses.json": {"courses": [{"course_code": "X"}]}}))
    with pytest.raises(StuLifeDataError, match="campus_data.json is not valid JSON"):
        load_stulife(_copy_layout(tmp_path / "json", **{"campus_data.json": "{not json"}))
    with pytest.raises(StuLifeDataError, match="campus_data.json nests lists or objects too deeply"):
        load_stulife(_copy_layout(tmp_path / "deep", **{"campus_data.json": "[" * 5000 + "]" * 5000}))
    courses = (STULIFE / "courses.json").read_text(encoding="utf-8")
    assert '"credits": 3' in courses
    for number, why in (("NaN", "NaN is not a JSON number"), ("1e400", "1e400 is too large for a float"),
                        ("9" * 5000, "Exceeds the limit")):  # each crashed the import (OverflowError, ValueError)
        edited = courses.replace('"credits": 3', f'"credits": {number}', 1)
        with pytest.raises(StuLifeDataError, match=f"courses.json is not valid JSON: .*{why}"):
            load_stulife(_copy_layout(tmp_path / f"number-{len(number)}", **{"courses.json": edited}))
    aliased = json.loads((STULIFE / "map_v1.5.json").read_text(encoding="utf-8"))
    aliased["nodes"][2]["aliases"] = [{"a": 1}]  # read as a name before the world's types are checked
    with pytest.raises(StuLifeDataError, match=r"^map_v1.5.json: nodes\[2\] \(id '\w+'\): field 'aliases\[0\]' is an object, not a text$"):
        load_stulife(_copy_layout(tmp_path / "alias", **{"map_v1.5.json": aliased}))
    catalogue = json.loads((STULIFE / "courses.json").read_text(encoding="utf-8"))
    catalogue["courses"][0]["course_code"] = 1.5  # read by the import's notes before the world's types are checked
    with pytest.raises(StuLifeDataError, match=r"^courses.json: courses\[0\]: field 'course_code' is the number 1.5, not a text$"):
        load_stulife(_copy_layout(tmp_path / "code", **{"courses.json": catalogue}))
    mental = json.loads((STULIFE / "books" / "mental.json").read_text(encoding="utf-8"))
    (mental[0] if isinstance(mental, list) else mental)["content"][0]["content"][0]["content"][0]["title"] = ["a", "list"]
    titled = _without_mental(tmp_path / "title")
    (titled / "books" / "mental.json").write_text(json.dumps(mental), encoding="utf-8")
    with pytest.raises(StuLifeDataError, match=r"^books/mental.json: (\[0\]\.)?content\[0\].content\[0\].content\[0\] \(id '[^']+'\): "
                                               "field 'title' is a list, not a text$"):
        load_stulife(titled)
    with pytest.raises(StuLifeDataError, match="mental.json does not exist"):
        load_stulife(_without_mental(tmp_path / "partial"))


def _without_mental(directory: Path) -> Path:
    """A data directory whose books/ links to every published book but mental.json."""
    layout = _copy_layout(directory)
    (layout / "books").unlink()
    (layout / "books").mkdir()
    for book in (STULIFE / "books").glob("*.json"):
        if book.name != "mental.json":
            (layout / "books" / book.name).symlink_to(book)
    return layout


# ---------------------------------------------------------------- ASCII


def test_to_ascii_table_and_nfkd() -> None:
    assert all(value.isascii() for value in _ASCII_TABLE.values())  # what the table gives needs no NFKD after it
    assert to_ascii("It\u2019s a \u201cr\u00e9sum\u00e9\u201d \u2014 1\u20132 \u2026") == ("It's a \"resume\" -- 1-2 ...", "")
    assert to_ascii("x \u2264 \u03b1 \u2192 \u00b5s \u2460") == ("x <= alpha -> us (1)", "")
    assert to_ascii("*shi* (\u52e2) and \U0001f44d") == ("*shi* and ", "\u52e2\U0001f44d")


@given(st.text())
def test_to_ascii_is_total_and_ascii(text: str) -> None:
    result, lost = to_ascii(text)
    assert result.isascii() and all(not c.isascii() for c in lost)
    if text.isascii():
        assert result == text and lost == ""


def _ascii_by_characters(text: str) -> tuple[str, str]:
    """``to_ascii`` as it read every character: the table through ``str.translate``, then NFKD for what is left."""
    kept, lost = [], []
    for char in text.translate(str.maketrans(_ASCII_TABLE)):
        folded = char if char.isascii() else "".join(c for c in unicodedata.normalize("NFKD", char) if c.isascii())
        (kept if folded else lost).append(folded or char)
    result = "".join(kept)
    return (re.sub(r" ?\( *\)", "", result) if lost else result), "".join(lost)


@given(st.text(alphabet=st.sampled_from([*_ASCII_TABLE, "a", " ", "(", ")", "\u00e9", "\u0301", "\ufb01", "\u52e2",
                                         "\U0001f44d", "\u00c5"])) | st.text())
def test_to_ascii_reads_only_the_characters_outside_ascii_and_agrees_with_reading_them_all(text: str) -> None:
    assert to_ascii(text) == _ascii_by_characters(text)


# ---------------------------------------------------------------- determinism and the command line


@needs_data
def test_cli_json_is_deterministic_across_processes(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = []
    for hash_seed in ("1", "2"):  # different string hashing in each process
        monkeypatch.setenv("PYTHONHASHSEED", hash_seed)
        runs.append(as_json(campus("world", "import-stulife", str(STULIFE), "--json", cwd=tmp_path)))
    assert runs[0] == runs[1]
    assert runs[0]["hash"] == world.hash and runs[0]["name"] == "stulife"
    assert runs[0]["counts"]["seats"] == 2605 and any("popularity" in note for note in runs[0]["report"])


@needs_data
def test_cli_text_summary_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("campus.kernel.logs.configure", lambda **_: None)  # in-process: keep the global log setup alone
    runner = CliRunner()
    text = runner.invoke(app, ["world", "import-stulife", str(STULIFE)])
    assert text.exit_code == 0
    assert "155 buildings" in text.stdout and "2605 seats" in text.stdout and "- duplicate seat id" in text.stdout
    for args in (["world", "import-stulife", str(tmp_path / "none")], ["world", "import-stulife", str(STULIFE / "books")],
                 ["run", "--world", "stulife:" + str(tmp_path / "none")], ["run", "--world", "mars"],
                 ["run", "--world", "generated", "--resume", "oracle-s0"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and result.stderr.startswith("error:") and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "runs.db").exists()


@needs_data
def test_oracle_solves_every_exploration_task_on_the_stulife_map(tmp_path: Path) -> None:
    report = as_json(campus("run", "--world", f"stulife:{STULIFE}", "--json", cwd=tmp_path))
    exploration = report["scorecard"]["by_scenario"]["campus_exploration"]
    assert exploration == exploration | {"tasks": 51, "succeeded": 51, "success_rate": 1.0}
    assert campus("verify", report["run"], cwd=tmp_path).returncode == 0


@needs_data
def test_every_equally_cheap_route_of_a_scored_walk_passes(world: World) -> None:
    """On the published map some legs have two least-cost paths; walking any of them succeeds, a dearer one fails."""
    index = WorldIndex(world)
    walks = [t for t in generate_term(index, seed=0).tasks if t.ground_truth.get("parts")
             and t.ground_truth["parts"][0]["check"] == "walk"]
    tied = [t for t in walks if len(t.ground_truth["parts"][0]["routes"]) > 1]
    assert len(walks) == 51 and len(tied) >= 10
    tasks, dearer = [], []
    for task in tied:
        stops, constraints = task.ground_truth["stops"], {}
        planned = [s for s in task.solution if s.startswith("call:map.find_optimal_path")]
        constraints = json.loads(planned[0].split("constraints=")[1].rstrip(")").replace("'", '"')) if planned else {}
        best = sum(index.route(a, b, constraints).cost for a, b in zip(stops, stops[1:]))
        for n, route in enumerate(task.ground_truth["parts"][0]["routes"]):
            assert route[0] == stops[0] and route[-1] == stops[-1]
            assert sum(edge_cost(index.graph[a][b], constraints) for a, b in zip(route, route[1:])) == best
            # each on its own day, at the task's time: played back to back, long walks drifted into the next day's start,
            # which sends the student home mid-task
            alternative = msgspec.structs.replace(task, id=f"{task.id}-{n}", instruction="Walk.",
                                                  release=task.release + n * MINUTES_PER_DAY,
                                                  solution=(f"goto:{stops[0]}", "walk:" + ",".join(route)))
            tasks.append(alternative)
    ended = play_tasks(index, tasks)
    assert {t.id: ended[t.id].detail for t in tasks if ended[t.id].outcome != "success"} == {}
    for task in walks:
        stops, accepted = task.ground_truth["stops"], task.ground_truth["parts"][0]["routes"]
        for detour in sorted(index.graph.adj[stops[0]]):
            longer = [stops[0], *index.route_through([detour, *stops[1:]]).path]
            if longer not in accepted and stops[0] not in longer[1:]:
                dearer.append(msgspec.structs.replace(task, id="dearer", instruction="Walk.",
                                                      solution=(f"goto:{stops[0]}", "walk:" + ",".join(longer))))
                break
        if dearer:
            break
    assert play_tasks(index, dearer)["dearer"].outcome == "failure"

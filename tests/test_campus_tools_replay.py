"""Every subsystem's tools in one recorded run on the published campus: verify re-executes them all."""

from __future__ import annotations

import pytest

from events import Booked, DraftAdded, PassAssigned, Registered, ToolResult, decode_events
from kernel.clock import parse_moment
from kernel.store import MemoryStore
from replays.verify import verify
from scenarios.play import new_run
from scenarios.task import Task, Term
from subsystems.reservation import seat_drawn_open
from tests.conftest import SHARED
from tests.test_runner import Script
from world.index import WorldIndex

STULIFE = SHARED / "stulife"


@pytest.fixture(scope="module")
def stulife_world() -> WorldIndex:
    if not (STULIFE / "campus_data.json").exists():
        pytest.skip(f"the StuLife data is not at {STULIFE}")
    from world.stulife import load_stulife

    return WorldIndex(load_stulife(STULIFE)[0])


def test_a_run_using_every_subsystem_verifies(stulife_world: WorldIndex) -> None:
    world = stulife_world
    library = world.world.libraries[0]
    study = next(room for room in library.rooms if room.kind == "StudyArea")
    seat = next(s.id for s in study.seats if seat_drawn_open(0, "Week 1, Tuesday", s.id))
    s1 = [c for c in world.world.courses if c.semester == 1]
    replies = [
        f'<action>Action: reservation.query_availability(location_id="{library.building_id}", date="Week 1, Tuesday")</action>',
        f'<action>Action: reservation.make_booking(location_id="{library.building_id}", item_name="{study.name} ({study.id})", '
        f'date="Week 1, Tuesday", time_slot="14:00-16:00", seat_id="{seat}")</action>',
        '<action>Action: bibliography.list_chapters(book_title="Student Handbook")</action>',
        f'<action>Action: bibliography.view_article(identifier="{world.world.texts[0].chapters[0].sections[0].articles[0].title}", by="title", book_title="Student Handbook")</action>',
        '<action>Action: data_system.list_by_category(category="Sports & Fitness", entity_type="club")</action>',
        '<action>Action: data_system.query_by_identifier(identifier="T0001", by="id", entity_type="advisor")</action>',
        '<action>Action: data_system.search_books(query="Quantum", search_type="title")</action>',
        '<action>Action: course_selection.browse_courses(filters={"semester": 1, "type": "Compulsory"})</action>',
        f'<action>Action: draft.add_course(section_id="{s1[0].code}")</action>',
        f'<action>Action: draft.assign_pass(section_id="{s1[0].code}", pass_type="B-Pass")</action>',
        "<action>Action: draft.view()</action>",
        "<action>Action: registration.submit_draft()</action>",
        '<action>Action: email.send_email(to="club@email.com", subject="Joining", body="Hello!")</action>',
    ]
    task = Task(
        id="everything", scenario="test", phase="test", release=parse_moment("Week 1, Monday 09:00"),
        instruction="Use every system.", evaluator="walk_route", ground_truth={"route": [world.home, "B142"]},
        systems=("map", "geography", "calendar", "email", "reservation", "bibliography", "data_system",
                 "course_selection", "draft", "registration"),
    )
    term = Term(name="everything", seed=0, world_hash=world.hash, tasks=(task,))
    run = new_run(MemoryStore(), world, term, agent_name="script", seed=0, round_limit=40)
    run.session(Script(replies)).run()
    events = decode_events([r.payload for r in run.store.rows(run.branch.id)])
    results = [e for e in events if isinstance(e, ToolResult)]
    assert len(results) == len(replies)
    failed = {i: r.message for i, r in enumerate(results) if r.status != "ok"}
    assert set(failed) == {11}, failed  # only submitting a one-course draft is refused
    assert "8 courses" in failed[11]
    assert sum(isinstance(e, Booked) for e in events) == 1
    assert sum(isinstance(e, (DraftAdded, PassAssigned)) for e in events) == 2
    assert not any(isinstance(e, Registered) for e in events)
    report = verify(run, deep=True)
    assert report.ok and report.tool_calls == len(replies), report.mismatch

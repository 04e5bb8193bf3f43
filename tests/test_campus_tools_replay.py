"""Every tool of the kernel in one recorded run on the published campus: verify re-executes them all."""

from __future__ import annotations

import pytest

from campus.events import RULES_VERSION, Booked, DraftAdded, PassAssigned, Registered, ToolCalled, ToolResult, decode_events
from campus.kernel.clock import parse_moment
from campus.kernel.store import MemoryStore
from campus.replays.verify import verify
from campus.scenarios.play import new_run
from campus.scenarios.task import Task, Term
from campus.subsystems.calendar import parse_day
from campus.subsystems.reservation import drawn_open, libraries
from tests.conftest import SHARED
from tests.test_runner import Script
from campus.world.index import WorldIndex

STULIFE = SHARED / "stulife"


@pytest.fixture(scope="module")
def stulife_world() -> WorldIndex:
    if not (STULIFE / "campus_data.json").exists():
        pytest.skip(f"the StuLife data is not at {STULIFE}")
    from campus.world.stulife import load_stulife

    return WorldIndex(load_stulife(STULIFE)[0])


def test_a_run_using_every_subsystem_verifies(stulife_world: WorldIndex) -> None:
    world = stulife_world
    library = world.world.libraries[0]
    study = next(room for room in library.rooms if room.kind == "StudyArea")
    place = libraries(world).by_id[library.building_id.casefold()]
    day = parse_day("Week 1, Tuesday")
    assert isinstance(day, int)
    seat = drawn_open(place, study, 0, day, RULES_VERSION)[0].id
    s1 = [c for c in world.world.courses if c.semester == 1]
    chapter = next(t for t in world.world.texts if t.title == "Student Handbook").chapters[0]
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
        f'<action>Action: draft.remove_course(section_id="{s1[0].code}")</action>',
        f'<action>Action: bibliography.list_sections(book_title="Student Handbook", chapter_title="{chapter.title}")</action>',
        f'<action>Action: bibliography.list_articles(book_title="Student Handbook", chapter_title="{chapter.title}", section_title="{chapter.sections[0].title}")</action>',
        '<action>Action: data_system.list_books_by_category(category="Computer Science")</action>',
        '<action>Action: calendar.add_event(calendar_id="self", event_title="Study", location="B001", time="Week 1, Tuesday, 14:00-16:00")</action>',
        '<action>Action: calendar.view_schedule(calendar_id="self", date="Week 1, Tuesday")</action>',
        '<action>Action: calendar.update_event(calendar_id="self", event_id="evt_1", new_details={"location": "B005"})</action>',
        '<action>Action: calendar.remove_event(calendar_id="self", event_id="evt_1")</action>',
        '<action>Action: calendar.query_advisor_availability(advisor_id="T0001", date="Week 1, Tuesday")</action>',
        '<action>Action: map.find_building_id(building_name="Lakeside Dormitory")</action>',
        '<action>Action: map.get_building_details(building_id="B001")</action>',
        '<action>Action: map.find_room_location(room_query="Study")</action>',
        '<action>Action: map.query_buildings_by_property(building_type="Academic")</action>',
        '<action>Action: map.get_building_complex_info(building_id="B007")</action>',
        "<action>Action: map.list_valid_query_properties()</action>",
        '<action>Action: map.find_optimal_path(source_building_id="B083", target_building_id="B001")</action>',
        "<action>Action: geography.walk_to(path_info={'path': ['B083', 'B142', 'B001']})</action>",
        "<action>Action: geography.get_current_location()</action>",
        "<action>Action: calendar.wait(minutes=5)</action>",
        '<action>Action: task.report_infeasible(reason="nothing blocks this; the call is tried", blocked_by=["B001"])</action>',
        '<action>Action: people.ask(person_id="HELPDESK", question="Who knows the door code?")</action>',
        "<action>Action: errands.inbox()</action>",
        '<action>Action: errands.wait_until(time="Week 1, Monday 12:00")</action>',
        '<action>Action: errands.report_done(errand_id="e1-1")</action>',
    ]
    task = Task(
        id="everything", scenario="test", phase="test", release=parse_moment("Week 1, Monday 09:00"),
        instruction="Use every system.", evaluator="parts", ground_truth={"parts": [{"check": "walk", "route": [world.home, "B142"]}]},
        systems=("map", "geography", "calendar", "email", "reservation", "bibliography", "data_system",
                 "course_selection", "draft", "registration", "task", "people", "errands"),
    )
    term = Term(name="everything", seed=0, world_hash=world.hash, tasks=(task,))
    run = new_run(MemoryStore(), world, term, agent_name="script", seed=0, round_limit=60)
    run.session(Script(replies)).run()
    events = decode_events([r.payload for r in run.store.rows(run.branch.id)])
    results = [e for e in events if isinstance(e, ToolResult)]
    assert len(results) == len(replies)
    failed = {i: r.message for i, r in enumerate(results) if r.status != "ok"}
    assert set(failed) == {11, len(replies) - 1}, failed  # submitting a one-course draft, reporting an errand never given
    assert "8 courses" in failed[11] and "no errand" in failed[len(replies) - 1]
    assert sum(isinstance(e, Booked) for e in events) == 1
    assert sum(isinstance(e, (DraftAdded, PassAssigned)) for e in events) == 2
    called = {e.tool for e in events if isinstance(e, ToolCalled)}
    assert called == set(run.kernel.tools), set(run.kernel.tools) - called
    assert not any(isinstance(e, Registered) for e in events)
    report = verify(run, deep=True)
    assert report.ok and report.tool_calls == len(replies), report.mismatch

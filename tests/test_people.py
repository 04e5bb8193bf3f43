"""The people domain: who can be asked, the deterministic clue match, conditions, errands and waiting."""

from __future__ import annotations

from typing import Any

import pytest

from campus.events import ClueHeld, ClueRevealed, ErrandAtMeeting, ErrandHandedOut, ErrandHeld, ErrandPosted, ErrandReported, Walked, WorldChanged
from campus.kernel.clock import MINUTES_PER_DAY
from campus.scenarios.play import build_kernel
from campus.subsystems.people import HELPDESK, matches
from campus.world.index import WorldIndex

SYSTEMS = ("people", "errands")
NOW = 14 * MINUTES_PER_DAY + 9 * 60


def _setup(world: WorldIndex, *changes: Any) -> tuple[Any, Any]:
    kernel = build_kernel(world)
    state = kernel.projection.initial()
    for seq, change in enumerate(changes, 1):
        kernel.projection.apply(state, seq, NOW, WorldChanged(change_id=f"c{seq}", change=change))
    return kernel, state


def _call(kernel: Any, state: Any, name: str, **args: Any) -> Any:
    return kernel.dispatch(state, task_id="t", name=name, args=args, systems=SYSTEMS, seed=0)


def _clue(holder: str, condition: str = "always") -> ClueHeld:
    return ClueHeld(clue_id="e1/code", holder=holder, topic="door code", keywords=("door", "code"), condition=condition,  # type: ignore[arg-type]
                    payload="the door code is 4821")


def test_a_question_on_the_topic_reveals_the_clue_as_a_fact(world: WorldIndex) -> None:
    club = world.world.clubs[0].id
    kernel, state = _setup(world, _clue(club))
    told = _call(kernel, state, "people.ask", person_id=club, question="What is the DOOR code, please?")
    assert told.result.ok and "4821" in told.result.message and told.minutes == 5
    assert told.facts == (ClueRevealed(clue_id="e1/code", holder=club, payload="the door code is 4821"),)
    other = _call(kernel, state, "people.ask", person_id=club, question="Where is the room?")
    assert other.result.ok and other.facts == () and "4821" not in other.result.message


def test_only_the_holder_knows_and_the_help_desk_never_does(world: WorldIndex) -> None:
    kernel, state = _setup(world, _clue(world.world.clubs[0].id))
    for person in (world.world.clubs[1].id, world.world.advisors[0].id, HELPDESK):
        asked = _call(kernel, state, "people.ask", person_id=person, question="What is the door code?")
        assert asked.result.ok and asked.facts == () and "can't help" in asked.result.message


def test_an_unknown_person_or_an_empty_question_is_refused(world: WorldIndex) -> None:
    kernel, state = _setup(world)
    assert "Nobody with id" in _call(kernel, state, "people.ask", person_id="Z999", question="code?").result.message
    assert not _call(kernel, state, "people.ask", person_id=HELPDESK, question="  ").result.ok


def test_an_in_person_clue_is_told_only_in_the_holders_building(world: WorldIndex) -> None:
    library = world.world.libraries[0].building_id
    kernel, state = _setup(world, _clue(library, "in_person"))
    away = _call(kernel, state, "people.ask", person_id=library, question="door code?")
    assert away.facts == () and f"come to {library}" in away.result.message
    kernel.projection.apply(state, 9, NOW, Walked(path=[state.geography.location, library], depart=NOW, arrive=NOW + 5))
    assert len(_call(kernel, state, "people.ask", person_id=library, question="door code?").facts) == 1


def test_matching_is_by_whole_words() -> None:
    clue = _clue("C000")
    assert matches(clue, "the CODE?") and not matches(clue, "codes and doors")


def test_errands_are_listed_reported_once_and_late_reports_say_so(world: WorldIndex) -> None:
    posted = ErrandPosted(errand_id="e2-1", title="Door code", text="Find it.", deadline=NOW - 30, priority="high")
    kernel, state = _setup(world, posted)
    listed = _call(kernel, state, "errands.inbox")
    assert "[e2-1] (high priority" in listed.result.message
    done = _call(kernel, state, "errands.report_done", errand_id="e2-1")
    assert done.facts == (ErrandReported(errand_id="e2-1", at=NOW),) and "30 min after its deadline" in done.result.message
    kernel.projection.apply(state, 5, NOW, done.facts[0])
    assert not _call(kernel, state, "errands.report_done", errand_id="e2-1").result.ok
    assert not _call(kernel, state, "errands.report_done", errand_id="nope").result.ok


@pytest.mark.parametrize(("time", "minutes", "ok"), [("Week 2, Monday 10:30", 90, True), ("Week 2, Monday 08:00", 1, True),
                                                      ("Week 2, Tuesday 09:00", 0, False), ("soon", 0, False)])
def test_wait_until_lets_exactly_the_time_pass(world: WorldIndex, time: str, minutes: int, ok: bool) -> None:
    kernel, state = _setup(world)
    state.now = NOW
    waited = _call(kernel, state, "errands.wait_until", time=time)
    assert waited.result.ok is ok and waited.minutes == minutes


def test_a_follow_up_errand_is_handed_out_only_by_telling_its_clue_and_only_once(world: WorldIndex) -> None:
    club = world.world.clubs[0].id
    follow_up = ErrandPosted(errand_id="e1-6", title="Colloquium", text="Tell someone.", deadline=NOW + 300, priority="low")
    kernel, state = _setup(world, _clue(club), ErrandHeld(clue_id="e1/code", errand=follow_up))
    assert "no errands" in _call(kernel, state, "errands.inbox").result.message
    assert "e1-6" not in _call(kernel, state, "people.ask", person_id=club, question="Where do you meet?").result.message
    told = _call(kernel, state, "people.ask", person_id=club, question="What is the door code?")
    assert "also hands you an errand.\nNew errand [e1-6] (low priority, due 14:00): Colloquium: Tell someone." in told.result.message
    for fact in told.facts:
        kernel.projection.apply(state, 10, NOW, fact)
    assert "[e1-6]" in _call(kernel, state, "errands.inbox").result.message
    again = _call(kernel, state, "people.ask", person_id=club, question="What is the door code?")
    assert again.facts == told.facts and "e1-6" not in again.result.message


def test_an_errand_is_handed_out_at_a_meetings_end_to_a_student_waiting_there(world: WorldIndex) -> None:
    building = world.world.buildings[0].id
    errand = ErrandPosted(errand_id="e1-7", title="Colloquium", text="Tell someone.", deadline=NOW + 300, priority="high")
    kernel, state = _setup(world, ErrandAtMeeting(title="advisor meeting", building=building, start=NOW + 15, end=NOW + 60,
                                                  errand=errand))
    state.geography.location = next(b.id for b in world.world.buildings if b.id != building)
    elsewhere = _call(kernel, state, "errands.wait_until", time="Week 2, Monday 10:30")
    assert elsewhere.facts == () and "e1-7" not in elsewhere.result.message
    state.geography.location = building
    early = _call(kernel, state, "errands.wait_until", time="Week 2, Monday 09:30")  # before the meeting ends
    assert early.facts == () and "e1-7" not in early.result.message
    there = _call(kernel, state, "errands.wait_until", time="Week 2, Monday 10:30")
    assert there.facts == (ErrandHandedOut(errand_id="e1-7"),)
    assert "At the end of the advisor meeting, you are handed an errand.\nNew errand [e1-7]" in there.result.message
    kernel.projection.apply(state, 10, NOW, there.facts[0])
    assert "[e1-7]" in _call(kernel, state, "errands.inbox").result.message
    assert _call(kernel, state, "errands.wait_until", time="Week 2, Monday 10:30").facts == ()

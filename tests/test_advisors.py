"""Academic Activity: counts, solvability, controls, selections, meetings, order, determinism and leaks."""

from __future__ import annotations

import random

import msgspec
import pytest

from campus.events import AdvisorAvailability
from campus.kernel.clock import clock_label
from campus.kernel.schedule import Trigger
from campus.scenarios import advisors
from campus.scenarios.context import TermContext
from campus.scenarios.task import ARRIVAL_GRACE, Task
from campus.subsystems.calendar import advisor_availability_problem
from campus.subsystems.information import fold
from tests.scenario_play import play_tasks, scored
from campus.world.index import WorldIndex

SELECT_SYSTEMS = ("data_system", "email")
Generated = tuple[list[Task], list[Trigger]]


@pytest.fixture(scope="module")
def generated(world: WorldIndex) -> Generated:
    return advisors.generate(TermContext(world=world, seed=0))



def selections(tasks: list[Task]) -> list[Task]:
    return [task for task in tasks if task.systems == SELECT_SYSTEMS]


def meetings(tasks: list[Task]) -> list[Task]:
    return [task for task in tasks if task.required_place is not None]


def booking_of(task: Task) -> dict:
    return next(part for part in task.ground_truth["parts"] if part["check"] == "booking")


def test_counts_at_scale_one_match_the_paper(generated: Generated) -> None:
    tasks, _ = generated
    assert len(tasks) >= 72
    assert sum(task.flags.long_term for task in tasks) == 22
    assert sum(task.flags.self_motivated for task in tasks) == 22
    assert len(selections(tasks)) == 7  # five advisors, two of them after a refusal
    assert len(meetings(tasks)) == 11
    assert [task.id for task in tasks] == [f"advisor-{n:03d}" for n in range(1, len(tasks) + 1)]
    assert [task.release for task in tasks] == sorted(task.release for task in tasks)
    assert {task.scenario for task in tasks} == {"academic_activity"}
    assert all(task.flags.counts_toward == "advisor" for task in scored(tasks))


def test_every_trigger_is_a_valid_availability_change(generated: Generated) -> None:
    triggers = generated[1]
    assert len(triggers) == 11 + 11 + 4 + 4  # one per scheduled job and meeting, plus the changes
    changes = [trigger.change for trigger in triggers]
    assert all(isinstance(change, AdvisorAvailability) and advisor_availability_problem(change) is None
               and len(change.slots) == 1 for change in changes)
    assert len({trigger.id for trigger in triggers}) == len(triggers)


def test_oracle_succeeds_on_every_scored_task(world: WorldIndex, generated: Generated) -> None:
    ended = play_tasks(world, *generated, agent="oracle")
    failed = {task.id: ended[task.id].detail for task in scored(generated[0]) if ended[task.id].outcome != "success"}
    assert failed == {}
    assert all(ended[task.id].marks == {"attended": 1} for task in meetings(generated[0]))


def test_noop_fails_every_scored_task(world: WorldIndex, generated: Generated) -> None:
    ended = play_tasks(world, *generated, agent="noop")
    assert {ended[task.id].outcome for task in scored(generated[0])} == {"failure"}


def test_stale_fails_exactly_the_tasks_with_stale_plans(world: WorldIndex, generated: Generated) -> None:
    tasks = generated[0]
    with_stale = {task.id for task in tasks if task.stale is not None}
    assert len(with_stale) == 4 + 4 * 2  # changed scheduled jobs; rebookings and their meetings
    assert sum(task.stale == () for task in meetings(tasks)) == 4
    ended = play_tasks(world, *generated, agent="stale")
    assert {task_id for task_id, end in ended.items() if end.outcome == "failure"} == with_stale


def test_each_selection_has_exactly_one_fit(world: WorldIndex) -> None:
    people = sorted(world.world.advisors, key=lambda advisor: advisor.id)
    for choice in advisors.pick_selections(world, random.Random(7), 5, 2):
        group = [a for a in people if fold(a.field) == fold(choice.field)
                 and any(fold(choice.tag) in fold(text) for text in (a.area, a.field, *a.tags))]
        fits = [a for a in group if fold(a.preference) == fold(choice.first_preference)]
        assert fits == [choice.first]
        if choice.second is not None:
            rest = [a for a in group if a is not choice.first and fold(a.preference) == fold(choice.second_preference)]
            assert rest == [choice.second]
        listed = [a for a in people if fold(choice.tag) in "\n".join(fold(t) for t in (a.area, a.field, *a.tags))]
        assert len(listed) <= 25  # the topic's listing fits on one page


def test_selection_instructions_never_name_the_advisor(world: WorldIndex, generated: Generated) -> None:
    by_email = {advisor.email.casefold(): advisor for advisor in world.world.advisors}
    for task in selections(generated[0]):
        advisor = by_email[task.ground_truth["parts"][0]["to"].casefold()]
        for secret in (advisor.id, advisor.name, advisor.email):
            assert secret.casefold() not in task.instruction.casefold(), task.id


def test_declined_selections_lead_to_a_second_selection(generated: Generated) -> None:
    tasks = generated[0]
    chosen = selections(tasks)
    second = [task for task in chosen if "declined" in task.instruction]
    roots = {task.depends_on[0] for task in tasks if task not in chosen}  # a branch task names its selection first
    assert roots <= {task.id for task in chosen} and len(roots) == 5
    assert {task.id for task in second} <= roots  # the second selection secures the advisor
    refused = [task for task in chosen if task.id not in roots]
    assert len(refused) == len(second) == 2
    for first, again in zip(refused, second):
        assert first.release < again.release
        assert first.ground_truth["parts"][0]["to"] != again.ground_truth["parts"][0]["to"]


def test_a_failed_selection_fails_its_branch(world: WorldIndex, generated: Generated) -> None:
    tasks, triggers = generated
    root = next(task for task in selections(tasks) if "declined" not in task.instruction
                and any(root_dep == task.id for other in tasks for root_dep in other.depends_on))
    wrong = tuple(step.replace("@lau.edu", "@example.edu") for step in root.solution)
    broken = [msgspec.structs.replace(task, solution=wrong) if task.id == root.id else task for task in tasks]
    ended = play_tasks(world, broken, triggers, agent="oracle")
    branch = [task for task in scored(tasks) if root.id in task.depends_on]
    assert len(branch) >= 5
    assert all(ended[task.id].detail == f"prerequisite {root.id} failed" for task in branch)
    rest = [task for task in scored(tasks) if task.id != root.id and root.id not in task.depends_on]
    assert all(ended[task.id].outcome == "success" for task in rest)


def test_bookings_start_at_the_one_free_slot(generated: Generated) -> None:
    tasks, triggers = generated
    needing = [task for task in scored(tasks) if any("query_advisor_availability" in s for s in task.solution)]
    assert len(needing) == 11 + 11 + 4
    for task in needing:
        booking = booking_of(task)
        advisor = task.solution[0].split('advisor_id="')[1].split('"')[0]
        latest = [t.change for t in triggers if t.t <= task.release and isinstance(t.change, AdvisorAvailability)
                  and t.change.advisor_id == advisor and t.change.day == booking["day"]][-1]
        assert latest.slots[0].start == booking["start"]
        assert f"{clock_label(booking['start'])}-{clock_label(booking['end'])}" not in task.instruction


def test_meetings_are_at_the_booked_room_and_start(generated: Generated) -> None:
    tasks = generated[0]
    by_id = {task.id: task for task in tasks}
    for meeting in meetings(tasks):
        assert meeting.instruction == "" and meeting.ground_truth["parts"] == [{"check": "attended"}]
        assert meeting.flags.commitment and meeting.flags.long_term and meeting.flags.self_motivated
        last_booking = booking_of(by_id[meeting.depends_on[-1]])
        assert last_booking["location_id"] == meeting.required_place
        assert meeting.starts is not None and meeting.starts % (24 * 60) == last_booking["start"]
        assert meeting.release == meeting.starts - advisors.LEAD


def test_a_meeting_reached_too_late_is_not_attended(world: WorldIndex, generated: Generated) -> None:
    meeting = meetings(generated[0])[0]
    on_time = play_tasks(world, [meeting])[meeting.id]
    assert (on_time.outcome, on_time.marks) == ("success", {"attended": 1})
    late = msgspec.structs.replace(meeting, release=meeting.starts + ARRIVAL_GRACE + 1)
    ended = play_tasks(world, [late])[meeting.id]
    assert (ended.outcome, ended.marks) == ("failure", {"attended": 0})


def test_components_out_of_order_fail(world: WorldIndex, generated: Generated) -> None:
    task = next(t for t in scored(generated[0]) if t.instruction and len(t.ground_truth["parts"]) == 3
                and not any("query_advisor_availability" in s for s in t.solution))
    assert task.ground_truth["ordered"] is True
    assert play_tasks(world, [task])[task.id].outcome == "success"
    swapped = msgspec.structs.replace(task, solution=(task.solution[2], task.solution[1], task.solution[0]))
    ended = play_tasks(world, [swapped])[task.id]
    assert ended.outcome == "failure" and "not in the order" in ended.detail


def test_generation_is_deterministic(world: WorldIndex) -> None:
    first = advisors.generate(TermContext(world=world, seed=5, scale=0.3))
    again = advisors.generate(TermContext(world=world, seed=5, scale=0.3))
    other = advisors.generate(TermContext(world=world, seed=6, scale=0.3))
    assert msgspec.json.encode(first) == msgspec.json.encode(again)
    assert msgspec.json.encode(first) != msgspec.json.encode(other)


def test_small_scale_keeps_every_kind_and_control(world: WorldIndex) -> None:
    tasks, triggers = advisors.generate(TermContext(world=world, seed=2, scale=0.2))
    assert meetings(tasks) and any(task.stale is not None for task in tasks)
    oracle = play_tasks(world, tasks, triggers, agent="oracle")
    assert all(oracle[task.id].outcome == "success" for task in scored(tasks))
    stale = play_tasks(world, tasks, triggers, agent="stale")
    assert {i for i, end in stale.items() if end.outcome == "failure"} == {t.id for t in tasks if t.stale is not None}

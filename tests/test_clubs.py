"""Club Activity: counts, solvability, the controls, dependencies, order, determinism and leaks."""

from __future__ import annotations

import msgspec
import pytest

from campus.kernel.clock import MINUTES_PER_DAY, clock_label, date_label
from campus.kernel.schedule import Trigger
from campus.scenarios import clubs
from campus.scenarios.context import TermContext
from campus.scenarios.task import Task
from tests.scenario_play import play_tasks, scored
from campus.world.index import WorldIndex

JOIN_SYSTEMS = ("data_system", "email")
Generated = tuple[list[Task], list[Trigger]]


@pytest.fixture(scope="module")
def generated(world: WorldIndex) -> Generated:
    return clubs.generate(TermContext(world=world, seed=0))


@pytest.fixture(scope="module")
def oracle(world: WorldIndex, generated: Generated) -> dict:
    return play_tasks(world, *generated, agent="oracle")



def joins(tasks: list[Task]) -> list[Task]:
    return [task for task in tasks if task.systems == JOIN_SYSTEMS]


def test_counts_at_scale_one_match_the_paper(generated: Generated) -> None:
    tasks, triggers = generated
    assert len(tasks) >= 140
    assert sum(task.flags.long_term for task in tasks) == 45
    assert sum(task.flags.self_motivated for task in tasks) == 45
    assert len(joins(tasks)) == 5
    assert triggers == []
    assert [task.id for task in tasks] == [f"club-{n:03d}" for n in range(1, len(tasks) + 1)]
    assert [task.release for task in tasks] == sorted(task.release for task in tasks)
    assert {task.scenario for task in tasks} == {"club_activity"}
    assert {task.phase for task in tasks} == {"daily_campus"}
    assert all(task.flags.counts_toward == "club" for task in scored(tasks))


def test_tasks_fall_in_weeks_1_to_17_between_8_and_21(generated: Generated) -> None:
    for task in generated[0]:
        assert 1 <= task.release // (7 * MINUTES_PER_DAY) <= 17
        assert 8 * 60 <= task.release % MINUTES_PER_DAY <= 20 * 60


def test_oracle_succeeds_on_every_scored_task(generated: Generated, oracle: dict) -> None:
    tasks = generated[0]
    failed = {task.id: oracle[task.id].detail for task in scored(tasks) if oracle[task.id].outcome != "success"}
    assert failed == {}
    assert all(oracle[task.id].outcome == "unscored" for task in tasks if task.flags.delivery_only)


def test_noop_fails_every_scored_task(world: WorldIndex, generated: Generated) -> None:
    ended = play_tasks(world, *generated, agent="noop")
    assert {ended[task.id].outcome for task in scored(generated[0])} == {"failure"}


def test_stale_fails_exactly_the_jobs_whose_activity_moved(world: WorldIndex, generated: Generated) -> None:
    tasks = generated[0]
    with_stale = {task.id for task in tasks if task.stale is not None}
    assert len(with_stale) == 15  # every third of the 45 scheduled jobs
    ended = play_tasks(world, *generated, agent="stale")
    failed = {task_id for task_id, end in ended.items() if end.outcome == "failure"}
    assert failed == with_stale
    moved = [task for task in tasks if task.flags.delivery_only and "moves to" in task.instruction]
    assert {task.follow_up[0] for task in moved} == with_stale


def _without(tasks: list[Task], *flags: str) -> list[Task]:
    """The tasks with ``flags`` taken out of every part: as terms made before them judge."""
    def plain(task: Task) -> Task:
        parts = [{k: v for k, v in part.items() if k not in flags} for part in task.ground_truth.get("parts", [])]
        return msgspec.structs.replace(task, ground_truth={**task.ground_truth, "parts": parts})
    return [plain(task) for task in tasks]


def test_a_student_who_smears_a_moved_job_over_the_day_fails_it(world: WorldIndex, generated: Generated) -> None:
    """``smearer`` keeps the plan from before the move, as ``stale`` does, but books the room at every other start of
    the day first and enters the club-calendar event at every half hour. While any matching booking or entry passed,
    it passed 11 and 12 of the 27 moved club and advisor tasks of seeds 0 and 1 (full scale); judged on the last
    booking in the room (``last_in_room``) and on every entry with the title (``sole``) it passes none."""
    tasks, triggers = generated
    moved = {task.id for task in tasks if task.stale is not None}
    now = play_tasks(world, tasks, triggers, agent="smearer")
    assert moved and not [task_id for task_id in moved if now[task_id].outcome == "success"]
    assert all(now[task.id].outcome == "success" for task in scored(tasks) if task.id not in moved)
    before = play_tasks(world, _without(tasks, "last_in_room", "sole"), triggers, agent="smearer")
    assert [task_id for task_id in moved if before[task_id].outcome == "success"]


def test_every_later_task_depends_on_its_clubs_joining(generated: Generated) -> None:
    tasks = generated[0]
    by_id = {task.id: task for task in tasks}
    join_ids = {task.id for task in joins(tasks)}
    for task in tasks:
        if task.id in join_ids:
            assert task.depends_on == ()
            continue
        assert len(task.depends_on) == 1 and task.depends_on[0] in join_ids
        assert by_id[task.depends_on[0]].release < task.release
        club_calendars = {part["calendar_id"] for part in task.ground_truth["parts"] if part["check"] == "calendar"}
        club_id = by_id[task.depends_on[0]].solution[1].split('identifier="')[1].split('"')[0]
        assert club_calendars <= {f"club_{club_id.lower()}"}


def test_a_failed_application_fails_that_clubs_later_tasks(world: WorldIndex, generated: Generated) -> None:
    tasks, triggers = generated
    join = joins(tasks)[0]
    wrong = tuple(step.replace("@email.com", "@example.com") for step in join.solution)
    broken = [msgspec.structs.replace(task, solution=wrong) if task.id == join.id else task for task in tasks]
    ended = play_tasks(world, broken, triggers, agent="oracle")
    assert ended[join.id].outcome == "failure"
    later = [task for task in scored(tasks) if task.depends_on == (join.id,)]
    assert len(later) >= 10
    for task in later:
        assert ended[task.id].outcome == "failure"
        assert ended[task.id].detail == f"prerequisite {join.id} failed"
    others = [task for task in scored(tasks) if task.id != join.id and task.depends_on != (join.id,)]
    assert all(ended[task.id].outcome == "success" for task in others)


def test_components_out_of_order_fail_an_ordered_task(world: WorldIndex, generated: Generated) -> None:
    tasks = generated[0]
    ordered = next(task for task in scored(tasks) if task.ground_truth.get("ordered") and task.instruction
                   and len(task.ground_truth["parts"]) == 3)
    assert play_tasks(world, [ordered])[ordered.id].outcome == "success"
    reversed_plan = msgspec.structs.replace(ordered, solution=tuple(reversed(ordered.solution)))
    ended = play_tasks(world, [reversed_plan])[ordered.id]
    assert ended.outcome == "failure"
    assert "not in the order" in ended.detail
    free = next(task for task in scored(tasks) if not task.ground_truth.get("ordered") and task.instruction
                and len(task.ground_truth["parts"]) == 2)
    assert "any order" in free.instruction
    swapped = msgspec.structs.replace(free, solution=tuple(reversed(free.solution)))
    assert play_tasks(world, [swapped])[free.id].outcome == "success"


def test_deliveries_leave_a_calendar_note_at_the_execution_time(generated: Generated) -> None:
    tasks = generated[0]
    by_id = {task.id: task for task in tasks}
    executions = [task for task in tasks if task.flags.long_term]
    assert all(task.instruction == "" and task.flags.commitment and task.flags.self_motivated for task in executions)
    told = {task.follow_up[0]: task for task in tasks if task.flags.delivery_only and "routine job" in task.instruction}
    assert set(told) == {task.id for task in executions}
    for execution_id, delivery in told.items():
        at = by_id[execution_id].release
        note = delivery.solution[-1]
        assert note.startswith('call:calendar.add_event(calendar_id="self"')
        assert f'time="{date_label(at // MINUTES_PER_DAY)}, {clock_label(at)}-' in note
        assert 'location="B' in note
        assert clock_label(at) in delivery.instruction


def test_bookings_never_share_a_room_on_a_date(generated: Generated) -> None:
    booked = [(part["location_id"], part["room_id"], part["day"]) for task in scored(generated[0])
              for part in task.ground_truth["parts"] if part["check"] == "booking"]
    assert len(booked) > 40
    assert len(booked) == len(set(booked))


def test_instructions_never_show_a_contact_address(world: WorldIndex, generated: Generated) -> None:
    tasks = generated[0]
    addresses = {club.email.casefold() for club in world.world.clubs}
    for task in tasks:
        assert not any(address in task.instruction.casefold() for address in addresses), task.id
    for join in joins(tasks):
        club_id = join.solution[1].split('identifier="')[1].split('"')[0]
        club = next(c for c in world.world.clubs if c.id == club_id)
        assert join.ground_truth["parts"][0]["to"] == club.email
        assert club.name not in join.instruction and club_id not in join.instruction


def test_generation_is_deterministic(world: WorldIndex) -> None:
    first = clubs.generate(TermContext(world=world, seed=3, scale=0.3))
    again = clubs.generate(TermContext(world=world, seed=3, scale=0.3))
    other = clubs.generate(TermContext(world=world, seed=4, scale=0.3))
    assert msgspec.json.encode(first[0]) == msgspec.json.encode(again[0])
    assert msgspec.json.encode(first[0]) != msgspec.json.encode(other[0])
    assert len(first[0]) >= 3 * round(45 * 0.3)


def test_small_scale_keeps_a_stale_job_and_every_control(world: WorldIndex) -> None:
    tasks, triggers = clubs.generate(TermContext(world=world, seed=1, scale=0.1))
    stale = {task.id for task in tasks if task.stale is not None}
    assert stale
    oracle = play_tasks(world, tasks, triggers, agent="oracle")
    assert all(oracle[task.id].outcome == "success" for task in scored(tasks))
    ended = play_tasks(world, tasks, triggers, agent="stale")
    assert {task_id for task_id, end in ended.items() if end.outcome == "failure"} == stale

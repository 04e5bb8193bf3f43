"""Library Study: counts, unique seats, timing, and the controls played through the real kernel."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import msgspec
import pytest

from campus.events import SeatAvailability
from campus.kernel.clock import MINUTES_PER_DAY, clock_label, date_label
from campus.kernel.parse import Call, parse_reply
from campus.kernel.schedule import Trigger
from campus.scenarios import library
from campus.scenarios.context import TermContext
from campus.scenarios.task import Task, Term
from campus.scenarios.timeline import Timeline, slots
from campus.subsystems.reservation import MAKE_BOOKING, QUERY_AVAILABILITY, seat_availability_problem
from tests.conftest import SHARED
from tests.scenario_play import play_tasks, scored
from campus.world.index import WorldIndex
from campus.world.stulife import load_stulife

Generated = tuple[list[Task], list[Trigger]]


@pytest.fixture(scope="module")
def generated(world: WorldIndex) -> Generated:
    return library.generate(TermContext(world=world, seed=0))


@pytest.fixture(scope="module")
def oracle_run(world: WorldIndex, generated: Generated) -> dict:
    return play_tasks(world, *generated, agent="oracle")



def booking_part(task: Task) -> dict:
    return next(part for part in task.ground_truth["parts"] if part["check"] == "booking")


def shaped_at(triggers: Sequence[Trigger], t: int) -> dict[tuple[str, str, str], list[str]]:
    """(library, room, date) -> open seats, after every change applied by minute ``t``."""
    state: dict[tuple[str, str, str], list[str]] = {}
    for trigger in sorted(triggers, key=lambda trig: (trig.t, trig.id)):
        if trigger.t <= t:
            change = trigger.change
            assert isinstance(change, SeatAvailability)
            state[(change.building_id, change.room_id, change.day)] = list(change.open_seats)
    return state


def fitting(world: WorldIndex, state: dict, building: str, day: int, features: Sequence[str]) -> list[str]:
    lib = next(lib for lib in world.world.libraries if lib.building_id == building)
    found = []
    for room in lib.rooms:
        if room.kind != "StudyArea":
            continue
        assert (building, room.id, day) in state, f"{building} {room.id} is not shaped on day {day}"
        open_ids = set(state[(building, room.id, day)])
        found += [s.id for s in room.seats if s.id in open_ids and all(f in s.features for f in features)]
    return found


def with_solution(task: Task, solution: Sequence[str]) -> Task:
    return msgspec.structs.replace(task, solution=tuple(solution))


# ------------------------------------------------------------------ shape of the generated tasks


def test_counts_and_flags_match_the_paper(generated: Generated) -> None:
    tasks, _ = generated
    assert len(tasks) >= 151
    deliveries = [t for t in tasks if t.flags.delivery_only]
    executions = [t for t in tasks if t.flags.commitment]
    assert len(deliveries) == len(executions) == 50
    assert sum(t.flags.long_term for t in tasks) == 50 and sum(t.flags.self_motivated for t in tasks) == 50
    assert all(t.flags.long_term and t.flags.self_motivated and t.instruction == "" for t in executions)
    assert all(not (t.flags.long_term or t.flags.self_motivated or t.flags.commitment) for t in deliveries)
    immediate = [t for t in tasks if t.instruction and not t.flags.delivery_only]
    assert len(immediate) == 51 and all(t.flags == library.Flags() for t in immediate)
    assert all(t.scenario == "library_study" and t.phase == "daily_campus" and t.evaluator == "parts" for t in tasks)
    assert all(t.ground_truth == {"parts": []} for t in deliveries)


def test_ids_follow_release_order_and_deliveries_point_at_their_execution(generated: Generated) -> None:
    tasks, _ = generated
    assert [t.id for t in tasks] == [f"library-{n:03d}" for n in range(1, len(tasks) + 1)]
    assert [t.release for t in tasks] == sorted(t.release for t in tasks)
    by_id = {t.id: t for t in tasks}
    followed = [by_id[t.follow_up[0]] for t in tasks if t.flags.delivery_only]
    assert sorted(t.id for t in followed) == sorted(t.id for t in tasks if t.flags.commitment)
    assert all(by_id[d.follow_up[0]].release > d.release for d in tasks if d.flags.delivery_only)


def test_every_world_change_is_valid_and_shapes_seats(world: WorldIndex, generated: Generated) -> None:
    _, triggers = generated
    assert triggers and len({t.id for t in triggers}) == len(triggers)
    assert all(isinstance(t.change, SeatAvailability) for t in triggers)
    assert [seat_availability_problem(t.change, world) for t in triggers] == [None] * len(triggers)


def test_exactly_the_intended_seat_fits_when_the_student_books(world: WorldIndex, generated: Generated) -> None:
    tasks, triggers = generated
    for task in scored(tasks):
        part = booking_part(task)
        state = shaped_at(triggers, task.release)
        found = fitting(world, state, part["location_id"], part["day"], task.ground_truth["features"])
        assert found == part["seat_ids"], task.id


def test_a_library_hosts_at_most_one_booking_per_date(generated: Generated) -> None:
    tasks, _ = generated
    keys = Counter((booking_part(t)["location_id"], booking_part(t)["day"]) for t in scored(tasks))
    assert max(keys.values()) == 1


def test_stale_pairs_move_the_only_fitting_seat_between_delivery_and_execution(world: WorldIndex, generated: Generated) -> None:
    tasks, triggers = generated
    by_id = {t.id: t for t in tasks}
    deliveries = {d.follow_up[0]: d for d in tasks if d.flags.delivery_only}
    stale = [t for t in tasks if t.stale is not None]
    assert all(t.flags.commitment for t in stale)
    assert 15 <= len(stale) <= 35  # a good share of the 50 pairs
    for task in stale:
        part = booking_part(task)
        delivered = deliveries[task.id]
        before = fitting(world, shaped_at(triggers, delivered.release), part["location_id"], part["day"], task.ground_truth["features"])
        assert len(before) == 1 and before != part["seat_ids"], task.id
        old_seat = before[0]
        assert any(old_seat in step for step in task.stale) and not any(old_seat in step for step in by_id[task.id].solution)
        moves = [t for t in triggers if delivered.release < t.t <= task.release and t.id.startswith(task.id + "/")]
        assert moves, task.id


def test_no_seat_shaping_shows_the_answer_before_its_task_is_released(world: WorldIndex, term: Term) -> None:
    """On the default term: a task's shaping applies at its release; the one earlier change is a stale pair's
    decoy at the delivery, under which the answer does not fit."""
    library_tasks = [t for t in scored(term.tasks) if t.scenario == "library_study"]
    triggers = [t for t in term.triggers() if isinstance(t.change, SeatAvailability)]
    assert len(library_tasks) == 101 and triggers
    decoyed = 0
    for task in library_tasks:
        own = [t for t in triggers if t.id.startswith(task.id + "/")]
        early = [t for t in own if t.t < task.release]
        assert own and all(t.t <= task.release for t in own), task.id
        assert task.stale is not None or early == [], task.id
        if early:
            part = booking_part(task)
            before = fitting(world, shaped_at(triggers, task.release - 1), part["location_id"], part["day"],
                             task.ground_truth["features"])
            assert len(before) == 1 and before != part["seat_ids"], task.id
            decoyed += 1
    assert decoyed == sum(t.stale is not None for t in library_tasks) > 0


def test_times_fall_in_weeks_1_to_17_on_the_quarter_hour_grid(generated: Generated) -> None:
    tasks, _ = generated
    by_id = {t.id: t for t in tasks}
    for task in tasks:
        day, minute = divmod(task.release, MINUTES_PER_DAY)
        assert 7 <= day < 18 * 7 and 8 * 60 <= minute <= 21 * 60, task.id
    for task in scored(tasks):
        start, end = booking_part(task)["start"], booking_part(task)["end"]
        release_minute = task.release % MINUTES_PER_DAY
        assert start % 15 == 0 and end % 15 == 0 and 8 * 60 <= start < end <= 22 * 60
        assert booking_part(task)["day"] == task.release // MINUTES_PER_DAY
        if "use" in task.ground_truth:
            assert release_minute < start <= release_minute + 60, task.id
            assert {"check": "location", "building": task.ground_truth["use"]} in task.ground_truth["parts"]
        else:
            assert start >= release_minute + 120, task.id
    gaps = [by_id[d.follow_up[0]].release // MINUTES_PER_DAY - d.release // MINUTES_PER_DAY for d in tasks if d.flags.delivery_only]
    assert sum(gap == 0 for gap in gaps) == 25 and all(0 <= gap <= 6 for gap in gaps)


def test_generation_keeps_out_of_slots_already_reserved(world: WorldIndex) -> None:
    timeline = Timeline()
    for start in slots(range(1, 18), range(5), (8, 10, 14, 16, 19)):
        timeline.reserve(start, 100, "class")
    tasks, _ = library.generate(TermContext(world=world, seed=1, timeline=timeline))
    owners = [owner for _, _, owner in timeline.spans()]
    assert sum(owner.startswith("library") for owner in owners) == len(tasks)
    for task in tasks:
        assert timeline.owner_at(task.release, 1).startswith("library"), task.id


def test_generation_is_deterministic(world: WorldIndex, generated: Generated) -> None:
    again = library.generate(TermContext(world=world, seed=0))
    assert msgspec.json.encode(again) == msgspec.json.encode(generated)
    other = library.generate(TermContext(world=world, seed=5))
    assert msgspec.json.encode(other) != msgspec.json.encode(generated)


# ------------------------------------------------------------------ what the student sees


def test_instructions_never_name_a_seat_and_topics_hide_the_library(world: WorldIndex, generated: Generated) -> None:
    tasks, _ = generated
    seat_ids = {s.id for lib in world.world.libraries for room in lib.rooms for s in room.seats}
    library_names = {world.name_of(lib.building_id) for lib in world.world.libraries}
    for task in tasks:
        assert not re.search(r"S\d{3}\b", task.instruction), task.id
        assert not any(seat in task.instruction for seat in seat_ids), task.id
        assert task.instruction.isascii()
    topical = [t for t in scored(tasks) if t.ground_truth["topic"] != "named" and t.instruction]
    assert topical and all(not any(name in t.instruction for name in library_names) for t in topical)
    kinds = Counter(t.ground_truth["topic"] for t in scored(tasks))
    assert set(kinds) == {"book", "subject", "named"}


def test_deliveries_name_the_execution_time_and_are_noted_in_the_calendar(world: WorldIndex, generated: Generated) -> None:
    tasks, _ = generated
    by_id = {t.id: t for t in tasks}
    for delivery in (t for t in tasks if t.flags.delivery_only):
        execution = by_id[delivery.follow_up[0]]
        when = f"{date_label(execution.release // MINUTES_PER_DAY)} at {clock_label(execution.release)}"
        assert when in delivery.instruction
        (step,) = delivery.solution
        call = parse_reply(f"Action: {step.removeprefix('call:')}")
        assert isinstance(call, Call) and call.name == "calendar.add_event"
        assert call.args["description"] == delivery.instruction and call.args["calendar_id"] == "self"
        assert call.args["time"].startswith(f"{date_label(execution.release // MINUTES_PER_DAY)}, {clock_label(execution.release)}-")
        assert re.fullmatch(r"B\d{3}", call.args["location"])


def test_solution_calls_use_the_tools_parameter_names(generated: Generated) -> None:
    tasks, _ = generated
    declared = {tool.name: {p.name for p in tool.params} for tool in (MAKE_BOOKING, QUERY_AVAILABILITY)}
    required = {p.name for p in MAKE_BOOKING.params if p.required}
    seen = Counter()
    for task in scored(tasks):
        for step in task.solution:
            if not step.startswith("call:reservation."):
                continue
            call = parse_reply(f"Action: {step.removeprefix('call:')}")
            assert isinstance(call, Call) and not call.positional
            assert set(call.args) <= declared[call.name], step
            if call.name == MAKE_BOOKING.name:
                assert required <= set(call.args) and call.args["seat_id"] == booking_part(task)["seat_ids"][0]
            seen[call.name] += 1
    assert seen[MAKE_BOOKING.name] == seen[QUERY_AVAILABILITY.name] == len(scored(tasks))


# ------------------------------------------------------------------ played through the kernel


def test_oracle_succeeds_on_every_scored_task(generated: Generated, oracle_run: dict) -> None:
    tasks, _ = generated
    for task in scored(tasks):
        ended = oracle_run[task.id]
        assert ended.outcome == "success", (task.id, ended.detail)
        assert "unused_bookings" not in ended.marks
    assert all(oracle_run[t.id].outcome == "unscored" for t in tasks if t.flags.delivery_only)


def test_noop_fails_every_scored_task(world: WorldIndex, generated: Generated) -> None:
    ended = play_tasks(world, *generated, agent="noop")
    assert {ended[t.id].outcome for t in scored(generated[0])} == {"failure"}


def test_stale_plan_fails_exactly_the_tasks_that_have_one(world: WorldIndex, generated: Generated) -> None:
    ended = play_tasks(world, *generated, agent="stale")
    tasks = scored(generated[0])
    failed = {t.id for t in tasks if ended[t.id].outcome == "failure"}
    assert failed == {t.id for t in tasks if t.stale is not None}


def test_stateless_misses_its_commitments(world: WorldIndex, generated: Generated) -> None:
    tasks = scored(generated[0])
    stateless = play_tasks(world, *generated, agent="stateless")
    commitments = [t for t in tasks if t.flags.commitment]
    assert commitments and {stateless[t.id].outcome for t in commitments} == {"failure"}


def test_booking_and_not_going_is_an_unused_booking(world: WorldIndex, generated: Generated) -> None:
    tasks, triggers = generated
    task = next(t for t in tasks if "use" in t.ground_truth and t.instruction)
    assert task.solution[-1] == f"goto:{task.ground_truth['use']}"
    lazy = with_solution(task, task.solution[:-1])
    ended = play_tasks(world, [lazy], triggers)[task.id]
    assert ended.outcome == "failure" and ended.detail.startswith("location")
    assert ended.marks.get("unused_bookings") == 1


def test_another_open_seat_fails(world: WorldIndex, generated: Generated) -> None:
    tasks, triggers = generated
    task = next(t for t in scored(tasks) if t.instruction)
    part = booking_part(task)
    opened = shaped_at(triggers, task.release)[(part["location_id"], part["room_id"], part["day"])]
    other = next(seat for seat in opened if seat not in part["seat_ids"])
    wrong = with_solution(task, [step.replace(part["seat_ids"][0], other) for step in task.solution])
    ended = play_tasks(world, [wrong], triggers)[task.id]
    assert ended.outcome == "failure" and ended.detail.startswith("booking: no booking in")


def test_the_last_booking_in_the_library_that_day_is_the_answer(world: WorldIndex, generated: Generated) -> None:
    """There is no cancel tool: the right seat followed by another open one fails (a student who booked every seat a
    listing showed passed), another followed by the right one passes; judged as terms were before ``last``, the first
    passed too."""
    tasks, triggers = generated
    task = next(t for t in scored(tasks) if t.instruction)
    part = booking_part(task)
    assert part["last"] is True
    opened = shaped_at(triggers, task.release)[(part["location_id"], part["room_id"], part["day"])]
    other = next(seat for seat in opened if seat not in part["seat_ids"])
    booking = next(i for i, step in enumerate(task.solution) if "make_booking" in step)
    right = task.solution[booking]
    wrong = right.replace(part["seat_ids"][0], other)
    plans = {"then another": (right, wrong), "another, then it": (wrong, right)}
    played = {name: play_tasks(world, [with_solution(task, (*task.solution[:booking], *pair, *task.solution[booking + 1:]))],
                               triggers)[task.id] for name, pair in plans.items()}
    assert played["then another"].outcome == "failure" and played["another, then it"].outcome == "success"
    before = msgspec.structs.replace(task, ground_truth=task.ground_truth | {"parts": [
        {k: v for k, v in p.items() if k != "last"} for p in task.ground_truth["parts"]]})
    legacy = play_tasks(world, [with_solution(before, (*task.solution[:booking], right, wrong, *task.solution[booking + 1:]))],
                        triggers)[task.id]
    assert legacy.outcome == "success"


def test_booking_at_the_delivery_does_not_count_for_the_execution(world: WorldIndex, generated: Generated) -> None:
    tasks, triggers = generated
    by_id = {t.id: t for t in tasks}
    delivery = next(t for t in tasks if t.flags.delivery_only and by_id[t.follow_up[0]].stale is None)
    execution = by_id[delivery.follow_up[0]]
    booking = next(step for step in execution.solution if "make_booking" in step)
    early = with_solution(delivery, (*delivery.solution, booking))
    ended = play_tasks(world, [early, with_solution(execution, ())], triggers)
    assert ended[execution.id].outcome == "failure"
    again = play_tasks(world, [early, execution], triggers)  # the seat is now taken by the early booking
    assert again[execution.id].outcome == "failure"


def test_published_campus_is_solved_and_the_stale_plans_fail() -> None:
    if not (SHARED / "stulife" / "campus_data.json").is_file():
        pytest.skip(f"the published StuLife data is not at {SHARED / 'stulife'}")
    world = WorldIndex(load_stulife(SHARED / "stulife")[0])
    tasks, triggers = library.generate(TermContext(world=world, seed=2, scale=0.3))
    assert [seat_availability_problem(t.change, world) for t in triggers] == [None] * len(triggers)
    oracle = play_tasks(world, tasks, triggers)
    assert {oracle[t.id].outcome for t in scored(tasks)} == {"success"}
    stale = play_tasks(world, tasks, triggers, agent="stale")
    assert {t.id for t in scored(tasks) if stale[t.id].outcome == "failure"} == {t.id for t in tasks if t.stale is not None} != set()

"""Slack in the term: a slow student is never handed a task late, and every seed generates."""

from __future__ import annotations

import contextlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.agents import make_agent
from campus.kernel.store import open_store
from campus.scenarios.play import new_run
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import Term
from campus.scenarios.term import generate_term
from campus.scenarios.timeline import SLACK, Overlap, Timeline
from campus.world.generate import generate_world
from campus.world.index import WorldIndex
from campus.world.stulife import load_stulife
from tests.conftest import SHARED

EXAMS = ("midterm-", "final-")


def test_a_hold_keeps_flexible_work_out_but_not_a_fixed_appointment() -> None:
    timeline = Timeline()
    timeline.reserve(600, 60, "exam")
    timeline.hold(660, 3 * SLACK, "exam (backlog)")
    assert not timeline.is_free(670, 10)
    with pytest.raises(Overlap):
        timeline.place(random.Random(0), [650, 670, 690], 10, "errand")
    assert timeline.place(random.Random(0), [650, 670, 705], 10, "errand") == 705
    assert timeline.reserve(680, 10, "class") == 680  # a class does not move for a hold


def test_holds_that_touch_merge() -> None:
    timeline = Timeline()
    timeline.hold(100, 20, "a")
    timeline.hold(150, 20, "b")
    timeline.hold(115, 40, "c")
    assert not timeline.is_free(119, 40) and timeline.is_free(170, 5) and timeline.is_free(90, 10)


def _play(world: WorldIndex, term: Term, name: str) -> tuple[dict, dict[str, int]]:
    """The scorecard and, per task, minutes between its scheduled release and the moment it was shown."""
    store = open_store(None)
    run = new_run(store, world, term, agent_name=name, seed=term.seed)
    run.session(make_agent(name, term, world)).run()
    late = {}
    for row in store.rows(run.branch.id):
        if row.kind == "task_released":
            task_id = json.loads(row.payload)["task_id"]
            late[task_id] = row.t - term.by_id[task_id].release
    return scorecard(term, run.ended_tasks()), late


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 4])
def test_a_student_fifteen_minutes_slower_than_the_oracle_is_never_handed_a_task_late(seed: int) -> None:
    world = WorldIndex(generate_world(seed))
    term = generate_term(world, seed)
    oracle, on_time = _play(world, term, "oracle")
    assert oracle["total"]["success_rate"] == 1.0 and max(on_time.values()) == 0
    dawdler, late = _play(world, term, "dawdler")
    assert dawdler["total"]["success_rate"] >= 0.99
    # questions of one exam sitting come minutes apart: only there can a slow student fall behind
    assert {task_id: minutes for task_id, minutes in late.items() if minutes and not task_id.startswith(EXAMS)} == {}


@pytest.mark.slow
@pytest.mark.parametrize("seed", [11, 39])
def test_seeds_that_did_not_fit_generate_the_same_term_every_time(seed: int) -> None:
    world = WorldIndex(generate_world(seed))
    first = generate_term(world, seed)
    assert generate_term(world, seed).hash == first.hash and len(first.tasks) > 1200


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED / "stulife" / "campus_data.json").is_file(), reason="the published StuLife data is absent")
def test_the_published_campus_seed_that_did_not_fit_generates() -> None:
    world = WorldIndex(load_stulife(SHARED / "stulife")[0])
    assert len(generate_term(world, 1).tasks) > 1200


def test_free_means_no_reservation_and_no_hold_meets_the_interval() -> None:
    rng = random.Random(7)
    timeline = Timeline()
    taken: list[tuple[int, int]] = []
    for step in range(120):
        start, minutes = rng.randrange(0, 3000), rng.randrange(1, 60)
        if step % 3 == 0:
            timeline.hold(start, minutes, "hold")
            taken.append((start, start + minutes))
        elif all(e <= start or s >= start + minutes for s, e, _ in timeline.spans()):
            timeline.reserve(start, minutes, "work")
            taken.append((start, start + minutes))
        candidates = rng.sample(range(0, 3100), 80)
        length = rng.randrange(1, 90)
        expected = [c for c in candidates if all(e <= c or s >= c + length for s, e in taken)]
        assert [c for c in candidates if timeline.is_free(c, length)] == expected
        if expected:
            placed = timeline.place(random.Random(step), candidates, length, "flex")
            assert placed in expected
            taken.append((placed, placed + length))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 300), st.integers(0, 40)), max_size=30))
def test_the_union_kept_up_to_date_answers_as_one_built_afresh(ops: list[tuple[bool, int, int]]) -> None:
    """A timeline asked between every change (its merged union updated in place) answers every later question as
    one given the same changes with no question in between (its union merged once, from all of them)."""
    asked, fresh = Timeline(), Timeline()
    for reserve, start, minutes in ops:
        for timeline in (asked, fresh):
            if reserve:
                with contextlib.suppress(Overlap, ValueError):
                    timeline.reserve(start, minutes, "x")
            else:
                timeline.hold(start, minutes, "x")
        asked.is_free(start, 1)
    for minutes in (1, 5, 30):
        assert asked.free_among(range(-10, 360), minutes) == fresh.free_among(range(-10, 360), minutes)
        assert [t for t in range(-10, 360) if asked.is_free(t, minutes)] == fresh.free_among(range(-10, 360), minutes)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 600), st.integers(0, 60)), max_size=30),
       st.integers(-20, 600), st.integers(1, 700), st.sampled_from((1, 5, 15, 30, 45)), st.integers(-3, 90),
       st.sampled_from(("range", "list", "some", "floats", "descending")))
def test_free_among_by_gaps_answers_as_each_candidate_asked(
        ops: list[tuple[bool, int, int]], first: int, span: int, step: int, minutes: int, shape: str) -> None:
    """Ascending ranges and lists of ints are answered a gap at a time (slices between union parts); every shape,
    that path or not, gives exactly the candidates ``is_free`` accepts, in the order given."""
    timeline = Timeline()
    for reserve, start, length in ops:
        if reserve:
            with contextlib.suppress(Overlap, ValueError):
                timeline.reserve(start, length, "x")
        else:
            timeline.hold(start, length, "x")
    steps = range(first, first + span, step)
    candidates = {"range": steps, "list": list(steps), "some": list(steps)[::3] + [first + span] * 2,
                  "floats": [t + 0.5 for t in steps], "descending": list(reversed(steps))}[shape]
    assert timeline.free_among(candidates, minutes) == [t for t in candidates if timeline.is_free(t, minutes)]


def test_a_change_to_the_timeline_is_counted() -> None:
    """``changes`` is what remembered answers (the disruptions' free starts of a day) are keyed on."""
    timeline = Timeline()
    timeline.reserve(600, 60, "a")
    timeline.hold(660, 30, "a (backlog)")
    with pytest.raises(Overlap):
        timeline.reserve(610, 10, "b")
    assert timeline.changes == 2

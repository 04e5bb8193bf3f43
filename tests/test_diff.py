"""The diff report field by field: identical runs, a fork, and two agents on one seed."""

from __future__ import annotations

import pytest

from campus.agents import make_agent
from campus.events import (
    AdvisorAvailability,
    Booked,
    CalendarEventUpdated,
    CalendarTime,
    EventChanges,
    Span,
    Walked,
    WorldChanged,
)
from campus.kernel.store import MemoryStore
from tests.harness import acting_step
from campus.replays.diff import diff_runs, mcnemar_exact, time_labels
from campus.replays.fork import fork_run
from campus.scenarios.scorecard import scorecard
from tests.conftest import play


@pytest.fixture(scope="module")
def pair(world, small_term):
    store = MemoryStore()
    seed = small_term.seed  # the seat draw the library tasks were made on
    return play(store, world, small_term, "oracle", seed=seed), play(store, world, small_term, "noop", seed=seed)


def test_identical_runs(world, small_term) -> None:
    store = MemoryStore()
    a, b = play(store, world, small_term, "diligent"), play(store, world, small_term, "diligent")
    report = diff_runs(a, b)
    assert (report["a"], report["b"], report["identical"], report["first_divergence"]) == (a.branch.id, b.branch.id, True, None)
    assert report["outcome_flips"] == []
    metrics = report["metrics"]
    assert metrics["stugpa"]["a"] == metrics["stugpa"]["b"] and metrics["stugpa"]["delta"] == 0
    assert all(row["delta"] in (0, None) for row in metrics["by_scenario"].values())
    noise = report["noise"]
    assert noise["solved_only_by_a"] == noise["solved_only_by_b"] == 0
    assert noise["p_value"] == 1.0 and noise["exceeds_noise"] is False
    assert noise["paired_tasks"] == sum(not t.flags.delivery_only for t in small_term.tasks)
    assert report["state_diff"]["walks"] == {"added": {}, "removed": {}, "changed": {}}


def test_a_fork_diverges_at_the_fork_and_says_what_was_seen(pair) -> None:
    oracle, _ = pair
    head = oracle.store.head(oracle.branch.id)[0]
    child, point = fork_run(oracle, acting_step(oracle, head // 2), agent_name="noop")
    child.session(make_agent("noop", child.term, child.world)).run()
    report = diff_runs(oracle, child)
    divergence = report["first_divergence"]
    assert divergence["seq"] == point.seq + 1
    assert divergence["a"]["kind"] == divergence["b"]["kind"] == "agent_replied"
    assert divergence["b"]["event"]["text"] == "<action>Action: finish()</action>"
    assert divergence["a"]["event"]["text"] != divergence["b"]["event"]["text"]
    assert [e["seq"] for e in divergence["a_then"]] == list(range(point.seq + 1, point.seq + 5))
    assert divergence["a_then"][0] == divergence["a"] and divergence["time"] == divergence["a"]["time"]
    seen = divergence["seen"]
    assert seen["task_id"] == divergence["a"]["event"]["task_id"]
    assert seen["last_message"] and seen["turns_before"] >= 0
    flipped = {f["task_id"] for f in report["outcome_flips"]}
    assert flipped and all(f["a"] == "success" and f["b"] == "failure" for f in report["outcome_flips"])
    noise = report["noise"]
    assert noise["solved_only_by_a"] == len(flipped) and noise["solved_only_by_b"] == 0
    assert noise["p_value"] == pytest.approx(mcnemar_exact(len(flipped), 0))


def test_two_agents_on_one_seed(pair) -> None:
    oracle, noop = pair
    report = diff_runs(oracle, noop)
    card_a, card_b = scorecard(oracle.term, oracle.ended_tasks()), scorecard(noop.term, noop.ended_tasks())
    metrics = report["metrics"]
    assert metrics["stugpa"] == {"a": card_a["stugpa"]["total"], "b": card_b["stugpa"]["total"],
                                 "delta": round(card_b["stugpa"]["total"] - card_a["stugpa"]["total"], 6)}
    assert metrics["stugpa"]["a"] == 100.0 and metrics["stugpa"]["delta"] < 0
    assert metrics["success_rate"]["a"] == 1.0
    for name, row in card_a["by_scenario"].items():
        assert metrics["by_scenario"][name]["a"] == row["success_rate"]
    assert report["noise"]["exceeds_noise"] is True and report["noise"]["p_value"] < 1e-6
    walks = report["state_diff"]["walks"]
    assert walks["removed"] and not walks["added"] and not walks["changed"], "the oracle walked; the no-op agent never did"
    first_day = next(iter(walks["removed"]))
    assert first_day.startswith("Week ") and walks["removed"][first_day][0] == oracle.world.home
    seen = report["first_divergence"]["seen"]
    assert seen["task_id"] == oracle.term.tasks[0].id and "Current date" in seen["last_message"]
    assert set(report["errors"]) == {"stale_state", "blind_retry", "unverified", "misdiagnosis"}
    assert all(row["delta"] == row["b"] - row["a"] for row in report["errors"].values())


def test_two_agents_diverge_at_their_first_differing_event_not_at_the_genesis(pair) -> None:
    """Each chain binds its agent, so every hash differs; the divergence is still the first differing event."""
    oracle, noop = pair
    rows_a, rows_b = oracle.store.rows(oracle.branch.id), noop.store.rows(noop.branch.id)
    assert oracle.branch.genesis != noop.branch.genesis and rows_a[0].hash != rows_b[0].hash
    first = next(a.seq for a, b in zip(rows_a, rows_b) if (a.t, a.payload) != (b.t, b.payload))
    divergence = diff_runs(oracle, noop)["first_divergence"]
    assert first > 1 and divergence["seq"] == first
    assert divergence["a"]["kind"] == divergence["b"]["kind"] == "agent_replied"


@pytest.mark.parametrize("only_a,only_b,expected", [
    (0, 0, 1.0), (5, 0, 2 / 32), (6, 0, 2 / 64), (3, 3, 1.0), (1, 9, 2 * 11 / 1024), (9, 1, 2 * 11 / 1024),
])
def test_mcnemar_by_hand(only_a: int, only_b: int, expected: float) -> None:
    assert mcnemar_exact(only_a, only_b) == pytest.approx(expected)


def test_times_in_facts_are_labelled_for_people() -> None:
    booked = Booked(booking_id="bk_1", task_id="t", location_id="B001", room_id="101", item_name="Hall", day=33, start=840, end=975)
    assert time_labels(booked) == {"date": "Week 4, Saturday", "time_slot": "14:00-16:15"}
    weekly = CalendarTime(first_week=1, last_week=18, weekday=0, start=840, end=1010)
    moved = CalendarEventUpdated(calendar_id="self", event_id="evt_1", changes=EventChanges(time=weekly))
    assert time_labels(moved) == {"time": "Week 1-18, Monday, 14:00-16:50"}
    assert time_labels(CalendarEventUpdated(calendar_id="self", event_id="evt_1", changes=EventChanges(title="x"))) == {}
    free = AdvisorAvailability(advisor_id="T1", day=1, slots=(Span(start=540, end=600), Span(start=900, end=960)))
    assert time_labels(WorldChanged(change_id="c", change=free)) == {"date": "Week 0, Tuesday", "slots": "09:00-10:00, 15:00-16:00"}
    assert time_labels(Walked(path=["B001"], depart=1, arrive=2)) == {}

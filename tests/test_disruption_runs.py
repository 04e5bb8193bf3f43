"""Disruption tasks played end to end: the oracle and the controls, verify re-deriving every
firing, and forks and static twins across firings; which terms have them."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from campus.cli.main import app
from campus.agents.plans import replay_plan, run_plan
from campus.events import (
    Booked, Event, InfeasibleReported, RoomHours, RoomStatus, SeatFeatures, FeatureLost, TaskEnded, TaskReleased, ToolCalled, ToolResult, TriggerSkipped,
    WorldChanged, decode_events,
)
from campus.kernel.store import BranchInfo, MemoryStore
from campus.replays.fork import fork_run
from campus.replays.verify import verify
from campus.kernel.agent import AgentView
from campus.scenarios.disruptions import DIAGNOSED, FINAL, GROUP, OBSERVED, SCENARIO, fitting, way_out_chance
from campus.subsystems.reservation import libraries
from campus.kernel.clock import MINUTES_PER_DAY, parse_moment
from campus.events import RULES_VERSION
from campus.scenarios.play import Run, new_run, open_run
from campus.scenarios.task import EVALUATORS, Task, Term
from campus.scenarios.term import generate_term
from campus.world.index import WorldIndex
from tests.conftest import play

AGENTS = ("oracle", "stale", "abstainer", "optimist", "hedger", "hasty", "noop", "absent", "dodger")


@pytest.fixture(scope="module")
def disrupted(world: WorldIndex) -> Term:
    return generate_term(world, 0, scale=0.05, disruptions=True)


@pytest.fixture(scope="module")
def runs(world: WorldIndex, disrupted: Term) -> dict[str, Run]:
    return {agent: play(MemoryStore(), world, disrupted, agent) for agent in AGENTS}


def _outcomes(run: Run, term: Term) -> dict[str, tuple[bool, str]]:
    """Disruption task -> (solvable, outcome)."""
    return {e.task_id: (term.by_id[e.task_id].ground_truth["solvable"], e.outcome)
            for e in run.ended_tasks() if term.by_id[e.task_id].scenario == SCENARIO}


def _events(run: Run) -> list[tuple[int, Event]]:
    rows = run.store.rows(run.branch.id)
    return list(zip((r.seq for r in rows), decode_events([r.payload for r in rows])))


def _fired(run: Run) -> list[tuple[int, Event]]:
    return [(seq, e) for seq, e in _events(run)
            if isinstance(e, TriggerSkipped) or (isinstance(e, WorldChanged) and e.rule)]


def test_the_term_has_every_sub_type_and_level(disrupted: Term) -> None:
    cells = Counter((t.ground_truth["sub_type"], t.ground_truth["level"]) for t in disrupted.tasks if t.scenario == SCENARIO)
    assert len(cells) == 9 * 4 and min(cells.values()) >= 1
    assert len(disrupted.rules) == 2 * sum(cells.values())  # each disruption and its undoing


def test_the_oracle_solves_every_task_with_disruptions_on(runs: dict[str, Run], disrupted: Term) -> None:
    ended = runs["oracle"].ended_tasks()
    assert [e.task_id for e in ended if e.outcome == "failure"] == []
    assert len(_outcomes(runs["oracle"], disrupted)) == sum(t.scenario == SCENARIO for t in disrupted.tasks)


def test_stale_fails_every_disruption_task(runs: dict[str, Run], disrupted: Term) -> None:
    outcomes = _outcomes(runs["stale"], disrupted)
    assert outcomes and all(outcome == "failure" for _, outcome in outcomes.values())


def test_the_abstainer_fails_every_solvable_task_and_only_those(runs: dict[str, Run], disrupted: Term) -> None:
    outcomes = _outcomes(runs["abstainer"], disrupted)
    assert all((outcome == "success") == (not solvable) for solvable, outcome in outcomes.values())
    assert {solvable for solvable, _ in outcomes.values()} == {True, False}


def test_an_impossible_task_is_passed_only_by_naming_what_blocks_it(disrupted: Term) -> None:
    """The oracle's report names a blocker and passes; one naming a room, a seat and a walkway (any class, no
    diagnosis), or the right blocker beside the library, fails; so does naming the library alone. The evaluator of
    older terms (``disruption``) still passes the first of those, so their logs verify as they were judged."""
    impossible = [t for t in disrupted.tasks if t.scenario == SCENARIO and not t.ground_truth["solvable"]]
    assert impossible and {t.evaluator for t in impossible} == {OBSERVED}  # FINAL's names and a look (below)

    def passes(task: Task, blocked_by: list[str], evaluator: str = FINAL) -> bool:
        return EVALUATORS[evaluator](task, None, [InfeasibleReported(task_id=task.id, reason="x", blocked_by=blocked_by)]).success

    for task in impossible:
        named = json.loads(task.solution[-1].split("blocked_by=", 1)[1].rstrip(")"))
        library = task.ground_truth["libraries"][0]
        spray = [task.ground_truth["rooms"][0], f"{library}-{task.ground_truth['rooms'][0]}-S001", "B001-B002"]
        loose = named[0].upper().replace("-", " ~ ") if task.ground_truth["blocked_class"] == "walkway" else named[0].upper()
        assert passes(task, named) and passes(task, [f"  {loose} "]), task.id
        assert not passes(task, spray) and not passes(task, [*named, library]) and not passes(task, [library]), task.id
        assert passes(task, spray, "disruption"), task.id
        assert passes(task, named, DIAGNOSED) and not passes(task, spray, DIAGNOSED), task.id


def test_a_report_counts_only_after_a_look_at_what_blocks_it_since_the_change(runs: dict[str, Run],
                                                                             disrupted: Term) -> None:
    """``hasty`` reports every disruption task infeasible the moment it is shown, naming what the task's text names of
    what blocks it. Judged on the names alone (``disruption_final``) it passed most impossible tasks (24 of seed 0's
    36 on the full term); a report now counts only after a look, answered since the task's rule changed the world, at
    the blocking class at one of the goal's libraries (or a path query, for a walkway)."""
    outcomes = _outcomes(runs["hasty"], disrupted)
    assert outcomes and all(outcome == "failure" for _, outcome in outcomes.values())
    by_task: dict[str, list[Event]] = {}
    for _, event in _events(runs["hasty"]):
        if isinstance(event, TaskReleased):
            by_task[event.task_id] = []
        if by_task:
            list(by_task.values())[-1].append(event)
    impossible = [t for t in disrupted.tasks if t.scenario == SCENARIO and not t.ground_truth["solvable"]]
    old = [t.id for t in impossible if EVALUATORS[FINAL](t, None, by_task[t.id]).success]
    assert old and not any(EVALUATORS[OBSERVED](t, None, by_task[t.id]).success for t in impossible)

    task = impossible[0]
    look = "map.find_optimal_path" if task.ground_truth["blocked_class"] == "walkway" else "reservation.query_availability"
    here, elsewhere = {"location_id": task.ground_truth["libraries"][0]}, {"location_id": "B999"}
    named = json.loads(task.solution[-1].split("blocked_by=", 1)[1].rstrip(")"))
    changed = WorldChanged(change_id="c", change=RoomStatus(building_id="B001", room_id="r", day=0, old="open", new="closed"),
                           rule=f"rule-{task.id}")

    def passes(*events: Event) -> bool:
        report = InfeasibleReported(task_id=task.id, reason="x", blocked_by=named)
        return EVALUATORS[OBSERVED](task, None, [*events, report]).success

    def read(args: dict[str, str], status: str = "ok") -> tuple[Event, Event]:
        return ToolCalled(call_id="k", task_id=task.id, tool=look, args=args), ToolResult(call_id="k", status=status, message="")

    assert passes(changed, *read(here)) and passes(*read(here)[:1], changed, *read(here)[1:])  # answered after it
    assert not passes(*read(here), changed) and not passes(changed) and not passes(changed, *read(here, "error"))
    assert task.ground_truth["blocked_class"] == "walkway" or not passes(changed, *read(elsewhere))


def test_a_student_who_never_looks_fails_every_task(runs: dict[str, Run], disrupted: Term) -> None:
    """The hedger books the plan's seat at the other end of the evening and never looks. While a T1 room opened later
    until 22:00 and a T3 room closed early from the morning, that passed every T1 and T3 task; a one-hour band inside
    the evening, clear of the planned hour, leaves neither end open."""
    outcomes = _outcomes(runs["hedger"], disrupted)
    assert outcomes and all(outcome == "failure" for _, outcome in outcomes.values())
    for task in disrupted.tasks:
        if task.scenario == SCENARIO and task.ground_truth["sub_type"] in ("T1", "T3") and task.ground_truth["solvable"]:
            (rule,) = [r for r in disrupted.rules if r.id == f"rule-{task.id}"]
            (change,) = [c for c in rule.mutations if isinstance(c, RoomHours)]
            assert isinstance(change, RoomHours) and change.new.end - change.new.start == 60, task.id
            assert 18 * 60 < change.new.start and change.new.end < 22 * 60, task.id
            planned = 18 * 60 if task.ground_truth["sub_type"] == "T1" else 21 * 60
            assert change.new.end <= planned or change.new.start >= planned + 60, task.id


_BOOKED_SEAT = re.compile(r'make_booking\(location_id="(\w+)".*seat_id="([^"]+)"\)')


def test_a_solvable_task_leaves_one_way_out(world: WorldIndex, disrupted: Term) -> None:
    """With its change, every fitting seat open that date in the way out's library loses the feature, in one change,
    but the seats the oracle ends on (the planned one where only the route breaks): only a look after the change
    finds them."""
    for task in disrupted.tasks:
        truth = task.ground_truth
        if task.scenario != SCENARIO or not truth["solvable"]:
            continue
        library = truth["libraries"][-1]
        place = libraries(world).by_id[library.casefold()]
        day = parse_moment(truth["date"]) // MINUTES_PER_DAY
        open_fitting = {seat.id for _, seat in fitting(place, truth["feature"], day, disrupted.seed, RULES_VERSION)}
        (rule,) = [r for r in disrupted.rules if r.id == f"rule-{task.id}"]
        (swept,) = [c for c in rule.mutations if isinstance(c, FeatureLost)]
        stripped = set(swept.seats) | {c.seat_id for c in rule.mutations if isinstance(c, SeatFeatures)}
        booked = [seat for lib, seat in _BOOKED_SEAT.findall("\n".join(task.solution)) if lib == library]
        assert open_fitting - stripped == set(booked[-len(truth["windows"]):]), task.id
        assert swept.building_id == library and swept.feature == truth["feature"] and not swept.new, task.id


def test_a_student_who_books_around_the_plan_without_looking_is_held_to_chance(runs: dict[str, Run],
                                                                              disrupted: Term, world: WorldIndex) -> None:
    """``dodger`` books a listed fitting seat outside the planned rooms from the next day's listing and never looks at
    the task's date: while each change broke only the plan it passed 429 of 432 solvable tasks (generated seeds 0-3 at
    ``--scale 0.3``). Now it passes about as often as a fitting seat of the way out's library drawn evenly would."""
    solvable = [t for t in disrupted.tasks if t.scenario == SCENARIO and t.ground_truth["solvable"]]
    outcomes = _outcomes(runs["dodger"], disrupted)
    passed = sum(outcomes[t.id][1] == "success" for t in solvable)
    chance = sum(way_out_chance(world, disrupted.seed, RULES_VERSION, t) for t in solvable)
    assert passed <= chance + 3 and chance < len(solvable) / 4
    events = [event for _, event in _events(runs["dodger"])]
    tried = {e.task_id for e in events if isinstance(e, ToolCalled) and e.tool == "reservation.make_booking"}
    booked = {e.task_id for e in events if isinstance(e, Booked)}
    assert tried >= {t.id for t in solvable} and len(booked & tried) >= len(solvable) // 2  # it books, around the plan


class _Appending:
    """The oracle, with ``extra(task)`` carried out after its plan on every solvable disruption task."""

    name = "appending"

    def __init__(self, term: Term, world: WorldIndex, extra: Callable[[Task], list[str]]) -> None:
        self.term, self.world, self.extra = term, world, extra

    def act(self, view: AgentView) -> str:
        task = self.term.by_id[view.task_id]
        steps = task.solution
        if task.scenario == SCENARIO and task.ground_truth["solvable"]:
            steps = (*steps, *self.extra(task))
        return replay_plan(run_plan(steps, self.world), view)


def _judged_as(term: Term, evaluator: str) -> Term:
    return msgspec.structs.replace(term, tasks=tuple(msgspec.structs.replace(t, evaluator=evaluator) if t.scenario == SCENARIO
                                                     else t for t in term.tasks))


def _played(world: WorldIndex, term: Term, agent: Any) -> tuple[dict[str, str], Counter[str]]:
    """Disruption task -> outcome, and how many bookings each task made."""
    run = new_run(MemoryStore(), world, term, agent_name="oracle", seed=0)
    run.session(agent).run()
    booked = decode_events([row.payload for row in run.store.rows(run.branch.id) if row.kind == "booked"])
    return ({e.task_id: e.outcome for e in run.ended_tasks() if term.by_id[e.task_id].scenario == SCENARIO},
            Counter(e.task_id for e in booked if isinstance(e, Booked)))


def _booked_last(world: WorldIndex, term: Term, extra: Callable[[Task], list[str]]) -> tuple[dict[str, str], dict[str, str], set[str]]:
    """Outcomes of the appending oracle under the term's judge and under ``disruption_diagnosed``, and the tasks where
    it booked more than the oracle does."""
    now, counts = _played(world, term, _Appending(term, world, extra))
    before, _ = _played(world, _judged_as(term, DIAGNOSED), _Appending(term, world, extra))
    made = {t.id for t in term.tasks if t.scenario == SCENARIO and counts[t.id] > sum("make_booking" in s for s in t.solution)}
    return now, before, made


def test_only_the_last_booking_counts_and_the_group_hears_of_no_other_seat(world: WorldIndex, disrupted: Term) -> None:
    """There is no cancel tool, so a later booking takes an earlier one's place: a valid booking followed by one
    outside the evening fails, as does an email to the study group naming a seat besides the one booked and the
    planned one (a student who booked a dozen seats and named them all passed half the solvable tasks). Naming the
    planned seat beside the booked one ("not S003 any more: S010") passes. Judged by ``disruption_diagnosed`` (the
    terms before), the same runs pass."""
    def morning(task: Task) -> list[str]:
        last = [s for s in task.solution if "make_booking" in s][-1]
        return [re.sub(r'time_slot="[^"]*"', 'time_slot="08:00-09:00"', last)]

    now, before, made = _booked_last(world, disrupted, morning)
    assert made and all(now[task] == "failure" and before[task] == "success" for task in made)
    assert all(now[task] == "success" for task in now if task not in made and disrupted.by_id[task].ground_truth["solvable"])

    group = [t for t in disrupted.tasks if t.scenario == SCENARIO and t.ground_truth["email_to"] and t.ground_truth["solvable"]]
    assert group

    def mail(body: Callable[[Task, str], str]) -> Callable[[Task], list[str]]:
        def steps(task: Task) -> list[str]:
            booked = re.findall(r'seat_id="([^"]+)"', [s for s in task.solution if "make_booking" in s][-1])[0]
            return [f'call:email.send_email(to="{GROUP}", subject="Study seat", body="{body(task, booked)}")']
        return steps

    def stray(task: Task, booked: str) -> str:
        other = next(s for s in sorted(task.ground_truth["seats"]) if s not in (booked, *task.ground_truth["planned_seats"]))
        return f"Booked {booked}; {other} was free too."

    now, before, _ = _booked_last(world, disrupted, mail(stray))
    assert all(now[t.id] == "failure" and before[t.id] == "success" for t in group)
    now, _, _ = _booked_last(world, disrupted, mail(lambda task, booked: f"Not {task.ground_truth['planned_seats'][0]} any more: {booked}."))
    assert all(now[t.id] == "success" for t in group)


def test_the_optimist_fails_every_impossible_task_and_only_those(runs: dict[str, Run], disrupted: Term) -> None:
    outcomes = _outcomes(runs["optimist"], disrupted)
    assert all((outcome == "success") == solvable for solvable, outcome in outcomes.values())


def test_absent_fails_every_solvable_task_that_needs_a_walk_and_only_those(runs: dict[str, Run], disrupted: Term) -> None:
    """absent keeps the oracle's bookings and answers but takes no step of its route (no goto, walk or route)."""
    outcomes = _outcomes(runs["absent"], disrupted)
    walks = {t.id for t in disrupted.tasks if t.scenario == SCENARIO and t.ground_truth["at_library"]}
    assert walks and all((outcome == "success") == (not solvable or task not in walks)
                         for task, (solvable, outcome) in outcomes.items())


def test_a_disruption_lasts_while_its_task_is_open(runs: dict[str, Run]) -> None:
    """Every firing of the oracle's run is undone right after its task ends (nothing is skipped)."""
    fired = _fired(runs["oracle"])
    assert fired and not any(isinstance(e, TriggerSkipped) for _, e in fired)
    done = Counter(e.rule.removesuffix("-undo") for _, e in fired if isinstance(e, WorldChanged) and e.rule.endswith("-undo"))
    made = Counter(e.rule for _, e in fired if isinstance(e, WorldChanged) and not e.rule.endswith("-undo"))
    assert done == made


# ------------------------------------------------------------------ verify re-derives every firing


@pytest.mark.parametrize("agent", ["oracle", "noop"])
def test_a_run_with_rules_verifies(runs: dict[str, Run], agent: str) -> None:
    kinds = {(type(e).__name__, e.cause == 0) for _, e in _fired(runs[agent])}  # type: ignore[attr-defined]
    if agent == "oracle":  # the clock's firings, and those of reads, bookings and task ends
        assert kinds == {("WorldChanged", True), ("WorldChanged", False)}
    else:  # the noop student finishes at once: only undoing what never fired, skipped
        assert kinds == {("TriggerSkipped", False)}
    report = verify(runs[agent])
    assert report.ok, report.mismatch


Timed = list[tuple[int, int, Event]]
"""(seq, t, event) of every row of a run."""


def _forge(run: Run, edit: Callable[[Timed], Timed]) -> Run:
    """A copy of ``run`` with its events edited and every hash recomputed (a forgery the chain cannot catch)."""
    rows = run.store.rows(run.branch.id)
    events = edit([(r.seq, r.t, e) for r, e in zip(rows, decode_events([r.payload for r in rows]))])
    store = MemoryStore()
    for kind, digest in (("world", run.branch.world_hash), ("term", run.branch.term_hash)):
        store.put_blob(kind, digest, run.store.get_blob(digest))
    store.create_branch(BranchInfo(id="forged", parent=None, fork_seq=0, genesis=run.branch.genesis, agent=run.branch.agent,
                                   world_hash=run.branch.world_hash, term_hash=run.branch.term_hash,
                                   seed=run.branch.seed, config=run.branch.config))
    store.append("forged", [(t, e, None) for _, t, e in events])
    return open_run(store, "forged")


def _flip(change: RoomStatus) -> RoomStatus:
    return msgspec.structs.replace(change, room_id=change.room_id + "x")


@pytest.mark.parametrize("by_clock", [True, False])
def test_an_edited_firing_fails_at_its_seq(runs: dict[str, Run], by_clock: bool) -> None:
    run = runs["oracle"]
    target = next(seq for seq, e in _fired(run) if isinstance(e, WorldChanged) and isinstance(e.change, RoomStatus)
                  and (e.cause == 0) == by_clock)

    def edit(events: Timed) -> Timed:
        return [(seq, t, msgspec.structs.replace(e, change=_flip(e.change)) if seq == target else e)  # type: ignore[attr-defined]
                for seq, t, e in events]

    report = verify(_forge(run, edit))
    assert not report.ok and report.mismatch.seq == target and report.mismatch.check == "rule firing"


@pytest.mark.parametrize("by_clock", [True, False])
def test_a_removed_firing_fails_at_its_seq(runs: dict[str, Run], by_clock: bool) -> None:
    run = runs["noop"] if not by_clock else runs["oracle"]
    kind = WorldChanged if by_clock else TriggerSkipped
    target = next(seq for seq, e in _fired(run) if isinstance(e, kind) and (e.cause == 0) == by_clock)

    def edit(events: Timed) -> Timed:
        return [row for row in events if row[0] != target]

    report = verify(_forge(run, edit))
    assert not report.ok and report.mismatch.seq == target, report.mismatch


def test_an_added_firing_fails_at_its_seq(runs: dict[str, Run]) -> None:
    run = runs["oracle"]
    target = _fired(run)[0][0]

    def edit(events: Timed) -> Timed:
        return events[:target] + [events[target - 1]] + events[target:]  # the same firing twice

    forged = _forge(run, edit)
    report = verify(forged)
    assert not report.ok and report.mismatch.seq == target + 1


@pytest.mark.parametrize("by_clock", [True, False])
def test_a_firing_moved_where_no_rule_fires_fails_the_sequence_check(runs: dict[str, Run], by_clock: bool) -> None:
    """The sequence check of every event's place accepts a firing only where some rule can fire."""
    run = runs["oracle"]
    source = next(seq for seq, e in _fired(run) if (e.cause == 0) == by_clock)  # type: ignore[attr-defined]
    rows = {seq: e for seq, e in _events(run)}
    target = next(seq for seq, e in rows.items() if isinstance(e, TaskReleased) and seq > 1)

    def edit(events: Timed) -> Timed:  # a copy of the firing right after a task's release, at the release's time
        at = next(i for i, row in enumerate(events) if row[0] == target)
        return events[:at + 1] + [(0, events[at][1], rows[source])] + events[at + 1:]

    report = verify(_forge(run, edit))
    assert not report.ok and report.mismatch.seq == target + 1 and report.mismatch.check == "sequence", report.mismatch


# ------------------------------------------------------------------ forks and static twins


def test_a_fork_taken_before_a_firing_fires_it_again(runs: dict[str, Run]) -> None:
    parent = runs["oracle"]
    fired = [seq for seq, e in _fired(parent) if isinstance(e, WorldChanged)]
    target = fired[len(fired) // 2]
    child, point = fork_run(parent, target - 3, agent_name="oracle")
    assert point.seq < target
    from campus.agents import make_agent

    child.session(make_agent("oracle", child.term, child.world)).run()
    assert child.store.hash_at(child.branch.id, target) == parent.store.hash_at(parent.branch.id, target)
    assert child.store.head(child.branch.id) == parent.store.head(parent.branch.id)
    assert verify(child).ok


def test_a_branch_with_triggers_off_never_fires(world: WorldIndex, disrupted: Term) -> None:
    from campus.agents import make_agent

    store = MemoryStore()
    twin = new_run(store, world, disrupted, agent_name="oracle", seed=0, triggers=False)
    assert twin.branch.config["triggers"] is False
    assert twin.branch.genesis != new_run(MemoryStore(), world, disrupted, agent_name="oracle", seed=0).branch.genesis
    twin.session(make_agent("oracle", disrupted, world)).run()
    assert _fired(twin) == []
    assert any(isinstance(e, TaskEnded) for _, e in _events(twin))
    child, _ = fork_run(twin, store.head(twin.branch.id)[0] // 2, agent_name="oracle")
    child.session(make_agent("oracle", disrupted, world)).run()
    assert _fired(child) == [] and verify(child).ok and verify(twin).ok


# ------------------------------------------------------------------ metrics


def test_drs_and_the_stt_cells_are_scored_apart(runs: dict[str, Run], disrupted: Term, world: WorldIndex) -> None:
    from campus.scenarios.scorecard import scorecard, wilson

    cards = {agent: scorecard(disrupted, runs[agent].ended_tasks()) for agent in ("oracle", "stale", "abstainer", "optimist")}
    assert cards["oracle"]["drs"] == 1.0 and cards["stale"]["drs"] == 0.0
    assert len(cards["oracle"]["stt"]) == 36
    for key, cell in cards["abstainer"]["stt"].items():
        assert cell["pass_at_1"] == (1.0 if key.endswith("/impossible") else 0.0)
        assert cell["interval"] == wilson(cell["succeeded"], cell["tasks"])
    assert all(cell["pass_at_1"] == (0.0 if key.endswith("/impossible") else 1.0) for key, cell in cards["optimist"]["stt"].items())
    assert cards["oracle"]["stugpa"] == scorecard(disrupted, runs["optimist"].ended_tasks())["stugpa"]  # not inside StuGPA
    plain = generate_term(world, 0, scale=0.05, disruptions=False)
    assert "drs" not in scorecard(plain, []) and "stt" not in scorecard(plain, [])


def test_the_wilson_interval_contains_the_rate_and_narrows_with_more_tasks() -> None:
    from campus.scenarios.scorecard import wilson

    low, high = wilson(6, 12)
    assert low < 0.5 < high
    assert wilson(60, 120)[1] - wilson(60, 120)[0] < high - low
    assert wilson(0, 5)[0] == 0.0 and wilson(5, 5)[1] == 1.0


# ------------------------------------------------------------------ detectors on the controls


def test_the_stale_state_detector_fires_exactly_on_the_controls_that_act_on_stale_state(runs: dict[str, Run], disrupted: Term) -> None:
    from campus.replays.detectors import blind_retries, by_task, stale_state

    def flagged(agent: str) -> dict[str, bool]:
        tasks = by_task(_events(runs[agent]))
        return {task_id: bool(stale_state(events)) for task_id, events in tasks.items()}

    disruption = {t.id: t.ground_truth["solvable"] for t in disrupted.tasks if t.scenario == SCENARIO}
    assert not any(flagged("oracle").values()) and not any(flagged("abstainer").values())
    stale = flagged("stale")
    assert all(stale[task_id] for task_id in disruption) and not any(v for k, v in stale.items() if k not in disruption)
    optimist = flagged("optimist")
    assert all(optimist[task_id] == (not solvable) for task_id, solvable in disruption.items())
    assert not any(blind_retries(events) for events in by_task(_events(runs["oracle"])).values())


# ------------------------------------------------------------------ a task opened late


def _opened_late(term: Term) -> tuple[Term, str]:
    """``term`` with a medium disruption task released at the minute of the task before it, so it is
    shown only once that task ends, later than its release."""
    tasks = list(term.tasks)
    at = next(i for i, t in enumerate(tasks) if i and t.scenario == SCENARIO and t.ground_truth["level"] == "medium"
              and t.ground_truth["sub_type"] not in ("S2", "ST2") and tasks[i - 1].solution
              and tasks[i - 1].release // 1440 == t.release // 1440)
    tasks[at] = msgspec.structs.replace(tasks[at], release=tasks[at - 1].release)
    return msgspec.structs.replace(term, tasks=tuple(tasks)), tasks[at].id


def test_a_medium_rule_is_timed_from_when_its_task_really_opens(world: WorldIndex, disrupted: Term) -> None:
    late, task_id = _opened_late(disrupted)
    runs = {agent: play(MemoryStore(), world, late, agent) for agent in ("oracle", "stale")}
    events = _events(runs["oracle"])
    opened = next(runs["oracle"].store.rows(runs["oracle"].branch.id, seq, seq + 1)[0].t for seq, e in events
                  if isinstance(e, TaskReleased) and e.task_id == task_id)
    assert opened > late.by_id[task_id].release
    fired = [seq for seq, e in _fired(runs["oracle"]) if isinstance(e, WorldChanged) and e.rule == f"rule-{task_id}"]
    assert fired and {runs["oracle"].store.rows(runs["oracle"].branch.id, s, s + 1)[0].t for s in fired} == {opened + 1}
    outcomes = {agent: {e.task_id: e.outcome for e in run.ended_tasks()}[task_id] for agent, run in runs.items()}
    assert outcomes == {"oracle": "success", "stale": "failure"}
    assert verify(runs["oracle"]).ok and verify(runs["stale"]).ok
    released = next(seq for seq, e in events if isinstance(e, TaskReleased) and e.task_id == task_id)
    child, point = fork_run(runs["oracle"], released, agent_name="oracle")  # resumed with the task open, before the firing
    assert point.seq == released < fired[0]
    from campus.agents import make_agent

    child.session(make_agent("oracle", late, world)).run()
    assert child.store.head(child.branch.id) == runs["oracle"].store.head(runs["oracle"].branch.id)


class _Unchecking:
    """The oracle, except that on solvable disruption tasks it skips the look after its last booking."""

    name = "unchecking"

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.term, self.world = term, world

    def act(self, view):  # type: ignore[no-untyped-def]
        from campus.agents.plans import replay_plan, run_plan

        task = self.term.by_id[view.task_id]
        plan = list(task.solution)
        if task.scenario == SCENARIO and task.ground_truth["solvable"]:
            last = max(i for i, step in enumerate(plan) if "make_booking" in step)
            plan = [step for i, step in enumerate(plan) if not (i > last and "query_availability" in step)]
        return replay_plan(run_plan(plan, self.world), view)


def test_the_verification_and_diagnosis_detectors_fire_exactly_on_the_controls_that_skip_them(
        runs: dict[str, Run], disrupted: Term, world: WorldIndex) -> None:
    from campus.replays.detectors import by_task, misdiagnosis, unverified

    def flagged(run: Run, detector):  # type: ignore[no-untyped-def]
        return {task_id for task_id, events in by_task(_events(run)).items() if detector(events)}

    solvable = {t.id for t in disrupted.tasks if t.scenario == SCENARIO and t.ground_truth["solvable"]}
    for agent in ("oracle", "stale", "optimist", "noop"):
        assert flagged(runs[agent], unverified) == set() and flagged(runs[agent], misdiagnosis) == set(), agent
    assert flagged(runs["abstainer"], misdiagnosis) == solvable  # it blames the library, which no trigger changed
    assert flagged(runs["abstainer"], unverified) == set()
    unchecking = MemoryStore()
    run = new_run(unchecking, world, disrupted, agent_name="unchecking", seed=0)
    run.session(_Unchecking(disrupted, world)).run()
    rebooked = {t.id for t in disrupted.tasks if t.id in solvable and t.ground_truth["sub_type"] != "S2"}
    assert rebooked <= flagged(run, unverified) <= solvable  # S2 keeps its booking unless it was made after a look
    assert flagged(run, misdiagnosis) == set()


# ------------------------------------------------------------------ error modes in score and diff


def test_score_and_diff_count_the_error_modes_per_run(runs: dict[str, Run], disrupted: Term) -> None:
    from campus.replays.diff import error_deltas
    from campus.replays.score import rescore

    disruption = [t for t in disrupted.tasks if t.scenario == SCENARIO]
    solvable = sum(t.ground_truth["solvable"] for t in disruption)
    scored = {agent: rescore(runs[agent]) for agent in ("oracle", "stale", "abstainer")}
    assert all(report.matches for report in scored.values())
    tasks = {agent: {name: row["tasks"] for name, row in report.errors["disruptions"]["detectors"].items()}
             for agent, report in scored.items()}
    assert tasks["oracle"] == {"stale_state": 0, "blind_retry": 0, "unverified": 0, "misdiagnosis": 0}
    assert tasks["stale"]["stale_state"] == len(disruption) and tasks["stale"]["misdiagnosis"] == 0
    assert tasks["abstainer"]["misdiagnosis"] == solvable and tasks["abstainer"]["stale_state"] == 0
    oracle = scored["oracle"].errors
    assert oracle["disruptions"]["tasks"] == len(disruption) and oracle["all"]["tasks"] == len(disrupted.tasks)
    assert oracle["disruptions"]["avg_calls"] > scored["abstainer"].errors["disruptions"]["avg_calls"] >= 2
    errors = error_deltas(runs["oracle"], runs["stale"])
    assert errors["stale_state"] == {"a": 0, "b": len(disruption), "delta": len(disruption)}


def test_the_report_data_counts_each_tasks_firings_while_it_is_open(runs: dict[str, Run], disrupted: Term) -> None:
    from campus.reports.report_data import run_part

    firings = run_part(runs["oracle"])["firings"]
    made = Counter(e.rule.removeprefix("rule-") for _, e in _fired(runs["oracle"])
                   if isinstance(e, WorldChanged) and not e.rule.endswith("-undo"))
    assert firings == dict(made) and set(firings) == {t.id for t in disrupted.tasks if t.scenario == SCENARIO}
    assert run_part(runs["noop"])["firings"] == {}  # it finishes before any change; the undoing comes after the end


@pytest.mark.parametrize("flags, expected", [((), 36), (("--no-disruptions",), 0), (("--no-busy-days",), 36),
                                             (("--no-disruptions", "--no-busy-days"), 0)])
def test_term_generate_has_the_disruptions_unless_told_otherwise(flags: tuple[str, ...], expected: int) -> None:
    result = CliRunner().invoke(app, ["term", "generate", "--scale", "0.05", *flags, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["by_scenario"].get("disruptions", {"tasks": 0})["tasks"] == expected

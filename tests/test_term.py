"""The whole term: counts, the oracle's perfect score, the controls' order, re-scoring by replay."""

from __future__ import annotations

import re

import pytest
import typer

from campus.agents import make_agent
from campus.cli.main import term_app
from campus.events import (AdvisorAvailability, CalendarEntry, CalendarTime, Popularity, SeatAvailability, WorldChange, canonical,
                           content_hash)
from campus.kernel.schedule import Trigger
from campus.kernel.store import MemoryStore
from campus.replays.score import rescore
from campus.scenarios.play import Run, new_run
from campus.scenarios.scorecard import scorecard
from campus.kernel.clock import MINUTES_PER_DAY
from campus.scenarios import advisors
from campus.scenarios.context import TermContext
from campus.scenarios.task import Task
from campus.scenarios.term import ATTEMPTS, PAPER_COUNTS, _generate_all, check_world_changes, generate_term, term_report
from campus.scenarios.timeline import Overlap
from campus.world.index import WorldIndex
from campus.world.stulife import load_stulife
from tests.conftest import SHARED


def _play(world, term, agent: str) -> Run:
    """``agent``'s run of ``term`` with the term's own seed: a library task's seats are the ones the seat draw of the
    seed it was made with opens."""
    run = new_run(MemoryStore(), world, term, agent_name=agent, seed=term.seed)
    run.session(make_agent(agent, term, world)).run()
    return run


@pytest.fixture(scope="module")
def controls(world):
    term = generate_term(world, 5, scale=0.25)
    return term, {agent: _play(world, term, agent) for agent in ("noop", "stateless", "diligent", "oracle", "stale")}


def test_the_default_term_has_at_least_the_papers_counts(term) -> None:
    report = term_report(term)
    for scenario, paper in PAPER_COUNTS.items():
        assert report["by_scenario"][scenario]["tasks"] >= paper, scenario
    assert [t.release for t in term.tasks] == sorted(t.release for t in term.tasks)
    assert len({t.id for t in term.tasks}) == len(term.tasks)


DEFAULT_TERM_HASH = "d9bf375295ebebee54571fe40fade8de20b1294f2725ae93b4dbfd961f5efc23"
"""The default term of seed 0 (see the next test for why it has moved)."""
RULES_1_TERM_HASH = "1557f50b8c127252cb8878ff8747d5eebcfead9e24712e8368ccff9fdecb526c"
"""The same term made for runs under rules version 1 (its disruptions read that version's seat draw)."""
PLAIN_TERM_HASH = "ca1eddcd421c1fc411985909601379f25e94a422d3c5d9a3563caf562ac53173"
"""Seed 0's term without disruptions and busy days (``--no-disruptions --no-busy-days``): the default term before
issues 14 and 15 (and before the decoy pairs of questions about a revised protocol, the number-alone lecture
questions and the course news without the course, which moved it)."""


def test_the_default_term_is_unchanged(world, term) -> None:
    """The default term's hash is pinned: a change to it changes every log, so re-pin it on purpose (schema 2
    changed it from 88b92efa...; issue 12's questions, midterm places, study building, walk ground truth, slack,
    chain judging, roll call and text fixes from 85aa6c92...; issue 13's library shapings at their task's
    release, not days before, from 9c95f0eb...; issues 14 and 15 turn the disruptions and the busy days on by default,
    from 335dc256..., which stays the pin of the term without both; issue 15's errands that arrive inside another part
    of the day, one handed out by a person's answer and one at the end of the advisor meeting, from b9fe442f...;
    issue 18's rules version 2 draws a library room's open seats once per date, which the disruptions read, from
    3c4b8c77...; the decoy pairs beside a revised protocol's right and stale options, and exam statements that
    never repeat an item by chance, from 6e5b8982... (the term made for rules 1 from 3c4b8c77..., the term without
    disruptions and busy days from 335dc256...); the lineups (every question about a protocol offers its values under
    the same four parameters; an exam's true statement drawn after its items) from 92040172... (rules 1 from 23c24e9c..., without
    disruptions and busy days from 6f6fe2a5...); the busy days' clue-dependent checks naming the forms of their answer
    (``forms``, ``sole``: stating every value an answer could be no longer passes) from 26944b14... (rules 1 from
    650de645...; the term without busy days did not move); a lecture's or review's question taking the number alone,
    every protocol adding its parameter, exam false statements the protocol's parameter allows (a revised
    question four revised items, one stale) and no reading backing more than 3 % of a family's eligible articles
    from bfeb5610... (rules 1 from 2087b324..., without disruptions and busy
    days from b8f07c40...); course news that names only the course being advised and never the way demand moved
    from 849c0ea5... (rules 1 from 8ab38ac5..., without disruptions and busy days from db6a9a20...); impossible
    disruption tasks judged by ``disruption_diagnosed``, their blockers' spellings in their ground truth, from
    4c2644b7... (rules 1 from 0766395e...; the term without disruptions did not move); email parts with ``sole``,
    busy-day reports with ``done``, disruption tasks judged by ``disruption_final``, T1 and T3 rooms left one hour
    inside the evening and a library task's booking judged on the last one (``last``), from d3d5ef3c... (rules 1 from bea4442a..., without disruptions and busy days from
    381272e1...); course steps long-term only where memory is needed to pick their section, semester 2's planning
    note with its recommended sections and set-aside steps in both chains, from 69b1d635... (rules 1 from
    3ad0e6e9..., without disruptions and busy days from fbcceef8...); an impossible disruption task's report judged
    only after a look since the change (``disruption_observed``) from 665feeda... (rules 1 from bb728a0f...; the term
    without disruptions did not move); the clubs' and advisors' parts judged on the last booking in a room
    (``last_in_room``), on every club-calendar entry with the title (``sole``) and on every copy of an email
    (``cc_named``) from 130ad30e... (rules 1 from b626b7fe..., without disruptions and busy days from 9a4359f2...);
    exploration conditions drawn only where they change the route from 4fbd195e... (rules 1 from eaaad82e..., without
    disruptions and busy days from cac8b317...); orientation study in two drawn buildings, tasks held at a place from
    their start (``at_start``), library seats from the draw with the last booking anywhere judged (``anywhere``) and
    exam articles cited once per family per course from 7c0b8f69... (rules 1 from 0469e6cd..., without disruptions
    and busy days from 4d773b94...): library tasks shape no seats now but the stale pairs' (and four other libraries
    alike for each)); a solvable disruption leaving one way out (every other fitting seat loses its feature with the
    change, the way out drawn evenly) from dbf006c0... (rules 1 from 2a016de9...; the term without disruptions did not
    move); world generator 2 (six sections per semester-1 compulsory course) from c3c2e3c7... (rules 1 from
    124898a6..., without disruptions and busy days from 407cd624...); course demand moved for whole courses, and the
    sections a long-term course step could mean only those leaving room for the courses still to plan, from
    a151dadd... (rules 1 from a661727d..., without disruptions and busy days from da2e3f80...); world generator 3
    (parallel compulsory sections; a step that refers back says when its section meets where its candidates meet at
    different times) from 28d3a4ba... (rules 1 from 1af1607e..., without disruptions and busy days from 4435c487...)."""
    assert term.hash == DEFAULT_TERM_HASH
    assert generate_term(world, 0, rules_version=1).hash == RULES_1_TERM_HASH
    kinds = [type(trigger.change) for trigger in term.world_changes]
    assert (kinds.count(SeatAvailability), kinds.count(Popularity), kinds.count(AdvisorAvailability)) == (235, 735, 30)
    plain = generate_term(world, 0, disruptions=False, busy=False)
    assert plain.hash == PLAIN_TERM_HASH
    scale_help = next(param.help for param in typer.main.get_command(term_app).commands["generate"].params
                      if param.name == "scale")
    assert f"the default term has {len(term.tasks):,} tasks; {len(plain.tasks):,} without" in str(scale_help)
    kinds = [type(trigger.change) for trigger in plain.world_changes]
    assert (kinds.count(SeatAvailability), kinds.count(Popularity), kinds.count(AdvisorAvailability)) == (219, 735, 30)
    assert len(term.rules) == 720 and sum(task.scenario == "disruptions" for task in term.tasks) == 360
    without = generate_term(world, 0, disruptions=False)
    assert not without.rules
    assert [task for task in term.tasks if task.scenario != "disruptions"] == list(without.tasks)


MONDAY_9 = CalendarTime(first_week=1, last_week=1, weekday=0, start=540, end=600)


def test_a_run_stores_the_bytes_the_world_and_term_are_named_by(world, term) -> None:
    """The bytes made once per world and per term are their canonical encodings, and a new run stores them."""
    assert world.world.encoded == canonical(world.world) and world.hash == content_hash(world.world) == world.world.hash
    assert term.encoded == canonical(term) and term.hash == content_hash(term)
    store = MemoryStore()
    new_run(store, world, term, agent_name="noop", seed=0)
    assert store.get_blob(world.hash) == world.world.encoded and store.get_blob(term.hash) == term.encoded


@pytest.mark.parametrize("change", [
    Popularity(code="NOPE101", value=50),
    Popularity(code="", value=50),
    SeatAvailability(building_id="B999", room_id="West Wing", day=33, open_seats=()),
    AdvisorAvailability(advisor_id="T0001", day=-1, slots=()),
    CalendarEntry(calendar_id="someone@x.edu", title="Busy", location="L", time=MONDAY_9),
])
def test_a_change_its_subsystem_would_ignore_fails_the_term(world, change: WorldChange) -> None:
    with pytest.raises(ValueError, match="^world change bad would be ignored: "):
        check_world_changes(world, [Trigger(id="bad", t=0, change=change)])


def test_the_generated_changes_and_a_calendar_entry_pass_the_check(world, term) -> None:
    entry = CalendarEntry(calendar_id="advisor_T0001", title="Busy", location="L", time=MONDAY_9)
    check_world_changes(world, [*term.world_changes, Trigger(id="entry", t=0, change=entry)])


def test_the_oracle_scores_stugpa_100_and_succeeds_on_every_scenario(term, oracle_full) -> None:
    run = oracle_full
    card = scorecard(term, run.ended_tasks())
    assert {name: row["success_rate"] for name, row in card["by_scenario"].items()} == {name: 1.0 for name in card["by_scenario"]}
    assert set(card["by_scenario"]) == {*PAPER_COUNTS, "busy_days", "disruptions"}
    assert card["stugpa"]["total"] == 100.0 and None not in card["stugpa"]["rates"].values()
    assert card["ltrr"] == 1.0 and card["pis"] == 1.0 and card["drs"] == 1.0


def test_the_controls_are_ordered_on_every_headline_metric(controls) -> None:
    term, runs = controls
    cards = {agent: scorecard(term, run.ended_tasks()) for agent, run in runs.items()}
    order = ("noop", "stateless", "diligent", "oracle")
    read = {"pis": lambda c: c["pis"], "ltrr": lambda c: c["ltrr"], "success": lambda c: c["total"]["success_rate"],
            "stugpa": lambda c: c["stugpa"]["total"]}
    for metric, value in read.items():
        values = [value(cards[agent]) or 0.0 for agent in order]
        assert all(a < b for a, b in zip(values, values[1:])), (metric, values)


def test_the_stale_control_fails_exactly_the_tasks_with_a_stale_plan(controls) -> None:
    term, runs = controls
    outcomes = {event.task_id: event.outcome for event in runs["stale"].ended_tasks()}
    stale = {task.id for task in term.tasks if task.stale is not None}
    assert stale, "the term has tasks with a stale plan"
    assert {task_id for task_id in stale if outcomes[task_id] != "failure"} == set()
    others = {t.id for t in term.tasks if t.stale is None and not t.flags.delivery_only}
    failed_others = {task_id for task_id in others if outcomes[task_id] == "failure"}
    # a task whose prerequisite was a stale failure fails with it; nothing else may
    assert all(any(dep in stale for dep in term.by_id[task_id].depends_on) for task_id in failed_others), failed_others


def test_score_reproduces_every_runs_scorecard_by_replay(controls) -> None:
    _, runs = controls
    for agent, run in runs.items():
        report = rescore(run)
        assert report.matches and not report.changed, agent
        assert report.scorecard == scorecard(run.term, run.ended_tasks())


def test_score_notices_a_judgement_that_no_longer_holds(controls) -> None:
    _, runs = controls
    run = runs["oracle"]
    ended = run.ended_tasks()
    flipped = next(e for e in ended if e.outcome == "success")
    # re-score the run against a term in which that task's plan was judged by a stricter rule
    task = run.term.by_id[flipped.task_id]
    stricter = {"parts": [*task.ground_truth.get("parts", []), {"check": "answer", "letter": "Z"}]}
    import msgspec

    changed = msgspec.structs.replace(task, ground_truth=stricter)
    term = msgspec.structs.replace(run.term, tasks=tuple(changed if t.id == task.id else t for t in run.term.tasks))
    report = rescore(Run(run.store, run.branch, run.world, term, run.kernel))
    assert not report.matches and [c["task_id"] for c in report.changed] == [task.id]


def test_noop_earns_no_stugpa(controls) -> None:
    """No session is held where the day starts, so a student that never acts is present nowhere."""
    term, runs = controls
    card = scorecard(term, runs["noop"].ended_tasks())
    assert card["stugpa"]["total"] == 0.0, card["stugpa"]


def test_every_world_change_kind_has_exactly_one_owning_domain() -> None:
    from typing import get_args

    from campus.events import WorldChange
    from campus.subsystems import DOMAINS

    owners = {kind: [d.name for d in DOMAINS if kind in d.changes] for kind in get_args(WorldChange)}
    assert all(len(names) == 1 for names in owners.values()), owners
# ------------------------------------------------------------------ text glitches found by reading the term


@pytest.mark.parametrize("source, seed", [("generated", 0), ("generated", 1), ("published", 11)])
def test_no_task_is_released_before_a_task_it_depends_on(world, source: str, seed: int) -> None:
    """Published seed 11 had an advisor asking for work before the student had applied to them."""
    if source == "published":
        if not (SHARED / "stulife").is_dir():
            pytest.skip("the StuLife data is not here")
        world = WorldIndex(load_stulife(SHARED / "stulife")[0])
    term = generate_term(world, seed)
    late = [(t.id, d) for t in term.tasks for d in t.depends_on if term.by_id[d].release >= t.release]
    assert late == []


def test_library_reasons_name_no_course_the_student_does_not_take(term) -> None:
    library = [t.instruction for t in term.tasks if t.scenario == "library_study"]
    assert library and not any(re.search(r"\bthe [\w ]+ course\b", text) for text in library)


def test_advisor_errands_do_not_say_preparations_for_a_preparation(term) -> None:
    advisor = [t.instruction for t in term.tasks if t.scenario == "academic_activity"]
    assert advisor and not any(re.search(r"preparations? for (?:the|my) [\w ]*preparation", text) for text in advisor)
    assert not any(re.search(r"\b(\w+) \1\b", text) for text in advisor)  # no doubled word either


def test_a_moved_meeting_moves_from_a_time_kept_free(world) -> None:
    """The first time of a meeting that is later moved was a real plan: nothing else is reserved around it."""
    for attempt in range(ATTEMPTS):
        ctx = TermContext(world=world, seed=0, attempt=attempt)
        made: list[Task] = []
        try:
            _generate_all(ctx, lambda pair: made.extend(pair[0]), busy=True)
            break
        except Overlap:
            continue
    by_id = {t.id: t for t in made}
    moved = [t for t in made if t.scenario == "academic_activity" and t.required_place and len(t.depends_on) == 3]
    assert moved
    spans = ctx.timeline.spans()
    for meeting in moved:
        booking = next(p for p in by_id[meeting.depends_on[1]].ground_truth["parts"] if p["check"] == "booking")
        start = booking["day"] * MINUTES_PER_DAY + booking["start"]
        window = (start - advisors.LEAD, start - advisors.LEAD + advisors.MEETING_MINUTES)
        assert start != meeting.starts
        clash = [owner for s, e, owner in spans if s < window[1] and e > window[0]]
        assert clash == [], (meeting.id, clash)


@pytest.mark.parametrize("scale", [0.0, -1.0, float("nan"), float("inf"), 10.5, 1e9])
def test_a_scale_that_is_not_a_term_is_refused_before_any_drawing(world: WorldIndex, scale: float) -> None:
    from typer.testing import CliRunner

    from campus.cli.main import app
    from campus.scenarios.term import check_scale

    with pytest.raises(ValueError, match="above 0 and at most 10"):
        generate_term(world, 0, scale)  # 1e9 spent minutes drawing before it failed
    for command in (["term", "generate"], ["bench", "term", "--repeats", "1"]):
        result = CliRunner().invoke(app, [*command, "--scale", str(scale)])
        assert result.exit_code == 2 and "at most 10" in result.output, result.output
    check_scale(10.0)  # the largest tried
    check_scale(1e-3)


def test_a_world_with_no_room_for_every_disruption_gets_fewer_and_nothing_else_changes(world, monkeypatch) -> None:
    """Seeds 20, 138 and 143 of the generated worlds had no term: their disruptions never fitted in twelve draws. The
    generator now makes the draws again with one disruption fewer per cell, up to ``THINNING`` times; a failure
    elsewhere is not helped by fewer disruptions and is reported after the first draws, as before. (Two draws per
    round here, at scale 0.25, where two fewer per cell at the paper's scale is 2 instead of 3.)"""
    from campus.kernel.triggers import SUB_TYPES
    from campus.scenarios import disruptions, term as terms

    def cells(made, impossible: bool = False) -> int:  # type: ignore[no-untyped-def]
        return sum(t.scenario == "disruptions" and (t.ground_truth["level"] == "impossible") == impossible
                   for t in made.tasks)

    full = generate_term(world, 0, 0.25)
    assert cells(full) == len(SUB_TYPES) * 3 * 3
    drawn: list[tuple[int, int]] = []

    def crowded_until(fits: int):  # type: ignore[no-untyped-def]
        def draw(ctx, tasks, triggers):  # type: ignore[no-untyped-def]
            drawn.append((ctx.attempt, ctx.thinned))
            if ctx.thinned < fits:
                raise Overlap("disruption-300: no room on the timeline")
            return disruptions.generate(ctx, tasks, triggers)
        return draw

    monkeypatch.setattr(terms, "ATTEMPTS", 2)
    monkeypatch.setattr(terms, "generate_disruptions", crowded_until(2))
    thinned = generate_term(world, 0, 0.25)
    assert drawn == [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2)] and cells(thinned) == len(SUB_TYPES) * 3 * 2
    assert cells(thinned, impossible=True) == cells(full, impossible=True) == len(SUB_TYPES)  # only solvable cells thin
    drawn.clear()
    monkeypatch.setattr(terms, "generate_disruptions", crowded_until(terms.THINNING + 1))
    with pytest.raises(ValueError, match=f"after {2 * (terms.THINNING + 1)} draws .*disruption-300"):
        generate_term(world, 0, 0.25)
    drawn.clear()

    def elsewhere(ctx, add, busy):  # type: ignore[no-untyped-def]
        drawn.append((ctx.attempt, ctx.thinned))
        raise Overlap("course_selection task 80: no free slot")

    monkeypatch.setattr(terms, "_generate_all", elsewhere)
    with pytest.raises(ValueError, match="after 2 draws .*course_selection"):
        generate_term(world, 0, 0.25)
    assert drawn == [(0, 0), (1, 0)]

"""Busy days: the term option, the errand families, and the controls that prove the checkpoints."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import msgspec
import pytest

from campus.agents import make_agent
from campus.agents.busy import GuesserAgent, day
from campus.agents.plans import LOCATE, action
from campus.env.driver import render_events
from campus.events import EmailSent, TaskEnded, TaskReleased, ClueHeld, ClueRevealed, ErrandHandedOut, ErrandHeld, ErrandPosted, ErrandReported, MentorFeedback, Walked, WorldChanged
from campus.kernel.store import MemoryStore
from campus.events.codec import decode_events
from campus.scenarios.busy_days import (BUILDING, EARLY, FAMILIES, LATE, SCENARIO, THREE_DIGITS, _mailed_as, _present, busy_day,
                                        busy_metrics, unexpected)
from campus.kernel.transcript import task_memories
from campus.replays.verify import verify
from tests.test_term import DEFAULT_TERM_HASH
from campus.scenarios.play import RunSpec, start_run
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import Term
from campus.scenarios.disruptions import OVERFLOW_WEEKS
from campus.scenarios.term import generate_term
from campus.scenarios.timeline import WEEK
from campus.world.generate import generate_world
from campus.world.index import WorldIndex


@pytest.fixture(scope="module")
def busy_term(term: Term) -> Term:
    return term


@pytest.fixture(scope="module")
def played(world: WorldIndex, busy_term: Term) -> dict[str, Any]:
    """agent -> busy-day task -> marks, for the oracle and the two busy-day controls; ``chat``: the oracle's first busy day."""
    out: dict[str, Any] = {}
    for name in ("oracle", "guesser", "sprayer", "fifo", "claimer", "learner", "forgetful"):
        store = MemoryStore()
        run = start_run(store, RunSpec(seed=0, agent=name), (world, busy_term))
        run.session(make_agent(name, busy_term, world)).run()
        out[name] = {e.task_id: e.marks for e in run.ended_tasks() if e.task_id.startswith("busy")}
        days = [m for m in task_memories(store, run.branch.id, 10**9) if m.scenario == SCENARIO]
        out[f"{name} chat"] = days[0]
        out[f"{name} run"] = run
        out[f"{name} events"] = {e.task_id: list(e.events) for e in _day_events(run)}
    return out


def _day_events(run: Any) -> list[Any]:
    """Each busy day's ``TaskEnded`` with the events the evaluator judged (those between its release and its end)."""
    days: list[Any] = []
    current: list[Any] | None = None
    for event in decode_events([row.payload for row in run.store.rows(run.branch.id)]):
        if isinstance(event, TaskReleased):
            current = [event] if event.task_id.startswith("busy") else None
        elif current is not None:
            current.append(event)
            if isinstance(event, TaskEnded):
                days.append(SimpleNamespace(task_id=event.task_id, events=current))
                current = None
    return days


def _without_forms(term: Term) -> Term:
    """The term with its busy-day checks as they were before ``forms`` and ``sole``."""
    def bare(errand: dict[str, Any]) -> dict[str, Any]:
        return {**errand, "checkpoints": [{**c, "check": {k: v for k, v in c["check"].items() if k not in ("forms", "sole")}}
                                          for c in errand["checkpoints"]]}
    return msgspec.structs.replace(term, tasks=tuple(
        msgspec.structs.replace(task, ground_truth={**task.ground_truth, "errands": [bare(e) for e in task.ground_truth["errands"]]})
        if task.scenario == SCENARIO else task for task in term.tasks))


def events_with_seq(run: Any, kind: type[Any]) -> list[tuple[int, Any]]:
    """(seq, event) of every event of one kind on the run's branch."""
    rows = [row for row in run.store.rows(run.branch.id) if row.kind == kind.__struct_config__.tag]
    return list(zip((row.seq for row in rows), decode_events([row.payload for row in rows])))


def _checkpoints(term: Term) -> list[tuple[str, dict[str, Any]]]:
    return [(task.id, {**c, "key": f"{e['id']}/{c['name']}", "follow_up": bool(e.get("announced_by")),
                       "at_meeting": bool(e.get("announced_at")),
                       "outcomes_need_clue": any(o.get("needs_clue", False) for o in e["checkpoints"] if o["kind"] == "outcome")})
            for task in term.tasks if task.scenario == SCENARIO for e in task.ground_truth["errands"] for c in e["checkpoints"]]


def _without_done(term: Term) -> Term:
    """The term with its busy-day reports judged as they were before ``done``: a report counted for itself."""
    def bare(errand: dict[str, Any]) -> dict[str, Any]:
        return {**errand, "checkpoints": [{**c, "check": {k: v for k, v in c["check"].items() if k != "done"}}
                                          for c in errand["checkpoints"]]}
    return msgspec.structs.replace(term, tasks=tuple(
        msgspec.structs.replace(task, ground_truth={**task.ground_truth, "errands": [bare(e) for e in task.ground_truth["errands"]]})
        if task.scenario == SCENARIO else task for task in term.tasks))


def test_the_default_term_has_twelve_busy_days_of_fifty_errands_in_eight_families(term: Term) -> None:
    days = [task for task in term.tasks if task.scenario == SCENARIO]
    errands = [e for day in days for e in day.ground_truth["errands"] if e["family"] != "appointment"]
    assert len(days) >= 12 and len(errands) >= 50 and {e["family"] for e in errands} == set(FAMILIES)
    assert term.hash == DEFAULT_TERM_HASH


def test_errands_stream_in_and_the_brief_lists_only_the_first(busy_term: Term) -> None:
    day = next(task for task in busy_term.tasks if task.scenario == SCENARIO)
    releases = sorted({e["release"] for e in day.ground_truth["errands"] if e["family"] != "appointment"})
    assert len(releases) >= 3 and releases[0] == day.release
    later = [e["id"] for e in day.ground_truth["errands"] if e["release"] > day.release and e["family"] != "appointment"]
    assert later and not any(f"[{errand_id}]" in day.instruction for errand_id in later)
    posted = [t for t in busy_term.world_changes if t.id.startswith(f"busy-e{day.id[6:]}-") and isinstance(t.change, ErrandPosted)]
    assert sorted(t.t for t in posted) == sorted(e["release"] for e in day.ground_truth["errands"]
                                                 if e["family"] != "appointment" and not e.get("announced_by")
                                                 and not e.get("announced_at"))


def test_every_busy_day_has_one_follow_up_held_by_a_clue_of_the_brief_and_not_in_it(busy_term: Term) -> None:
    held = {t.change.errand.errand_id: t.change.clue_id for t in busy_term.world_changes if isinstance(t.change, ErrandHeld)}
    for day in (task for task in busy_term.tasks if task.scenario == SCENARIO):
        follow_ups = [e for e in day.ground_truth["errands"] if e.get("announced_by")]
        assert len(follow_ups) == 1 and held[follow_ups[0]["id"]] == follow_ups[0]["announced_by"]
        assert f"[{follow_ups[0]['id']}]" not in day.instruction and follow_ups[0]["announced_by"].split("/")[0] in day.instruction


def test_a_follow_up_reaches_only_a_student_who_asked(busy_term: Term, played: dict[str, Any]) -> None:
    """From the log: the oracle reports each follow-up after the reveal that handed it out; the guesser, never asking,
    is never told of one."""
    follow_ups = {e["id"]: e["announced_by"] for task in busy_term.tasks if task.scenario == SCENARIO
                  for e in task.ground_truth["errands"] if e.get("announced_by")}
    for name in ("oracle", "guesser"):
        run = played[f"{name} run"]
        revealed: dict[str, int] = {}
        for seq, e in events_with_seq(run, ClueRevealed):
            revealed.setdefault(e.clue_id, seq)  # a librarian asked later tells the earlier shelves again
        reported = {e.errand_id: seq for seq, e in events_with_seq(run, ErrandReported) if e.errand_id in follow_ups}
        if name == "oracle":
            assert len(reported) == len(follow_ups) == 12
            assert all(revealed[follow_ups[errand]] < seq for errand, seq in reported.items())
        else:
            assert not reported and not any(clue in revealed for clue in follow_ups.values())
            chat = "\n".join(turn.content for turn in played["guesser chat"].messages)
            assert not any(f"[{errand}]" in chat for errand in follow_ups)


def test_an_errand_handed_out_at_a_meeting_reaches_only_a_student_who_was_there(busy_term: Term, played: dict[str, Any]) -> None:
    """From the log: the oracle is handed each meeting's errand at the meeting's end, in its building, and reports it;
    fifo, never at a meeting, is never told of one."""
    days = [task for task in busy_term.tasks if task.scenario == SCENARIO]
    meetings = {e["id"]: next(a for a in day.ground_truth["errands"] if a["id"] == e["announced_at"])["checkpoints"][0]["check"]
                for day in days for e in day.ground_truth["errands"] if e.get("announced_at")}
    assert len(meetings) == len(days) and not any(f"[{errand}]" in day.instruction for day in days for errand in meetings)
    oracle = played["oracle run"]
    handed = {e.errand_id: seq for seq, e in events_with_seq(oracle, ErrandHandedOut)}
    rows = {row.seq: row for row in oracle.store.rows(oracle.branch.id)}
    assert handed.keys() == meetings.keys()  # each recorded with the wait through the meeting, told as it ends:
    assert all(meetings[errand]["start"] - EARLY <= rows[seq].t <= meetings[errand]["end"] <= rows[seq + 1].t
               and rows[seq + 1].kind == "tool_result" for errand, seq in handed.items())
    reported = {e.errand_id: seq for seq, e in events_with_seq(oracle, ErrandReported)}
    assert all(handed[errand] < reported[errand] for errand in meetings)
    assert not events_with_seq(played["fifo run"], ErrandHandedOut)
    chat = "\n".join(turn.content for turn in played["fifo chat"].messages)
    assert "handed an errand" not in chat and not any(f"[{errand}]" in chat for errand in meetings)


def test_the_oracle_passes_every_checkpoint(busy_term: Term, played: dict[str, Any]) -> None:
    marks = played["oracle"]
    assert all(marks[task][c["key"]] == 1 for task, c in _checkpoints(busy_term))
    assert unexpected(busy_term, "oracle", marks) == [] and unexpected(busy_term, "oracle", {}) != []
    metrics = busy_metrics(busy_term, marks)
    assert metrics is not None and metrics["sr"] == metrics["cs"] == 1.0 and metrics["lateness_minutes"] == 0


def test_the_guesser_fails_exactly_the_clue_dependent_checkpoints(busy_term: Term, played: dict[str, Any]) -> None:
    """... and the report of an errand whose outcome needed a clue: a report claims the errand done."""
    for task, c in _checkpoints(busy_term):
        clue_dependent = c.get("needs_clue", False) or c["check"]["check"] == "revealed" or c["follow_up"]
        reported_undone = c["check"]["check"] == "reported" and c["outcomes_need_clue"]
        assert played["guesser"][task][c["key"]] == int(not clue_dependent and not reported_undone), c["key"]
    assert unexpected(busy_term, "guesser", played["guesser"]) == [] and unexpected(busy_term, "guesser", played["oracle"]) != []


def test_the_sprayer_fails_what_the_guesser_fails_though_it_states_every_value(busy_term: Term, played: dict[str, Any]) -> None:
    """Stating every door code, shelf, limit, building and room, or every evening of next week, finds out nothing:
    the sprayer fails exactly the guesser's checkpoints. Judged as terms were before an errand's checks carried
    ``forms`` and ``sole`` (any email that contains the answer, any entry at the right time), it would pass many."""
    assert played["sprayer"] == played["guesser"]
    assert unexpected(busy_term, "sprayer", played["sprayer"]) == []
    legacy = _without_forms(busy_term)
    nowhere = SimpleNamespace(geography=SimpleNamespace(location=""))  # every busy day starts with a walk
    before = {task.id: busy_day(task, nowhere, played["sprayer events"][task.id]).marks for task in legacy.tasks
              if task.scenario == SCENARIO}
    sprayed = [(task, c["key"]) for task, c in _checkpoints(busy_term) if c.get("needs_clue") and not c["follow_up"]
               and c["check"]["check"] == "email" and c["check"]["contains"] or c["check"].get("sole")]
    assert sum(before[task][key] for task, key in sprayed) >= len(sprayed) // 2
    assert all(played["sprayer"][task][key] == 0 for task, key in sprayed)


def test_a_student_who_reports_every_errand_and_does_none_passes_nothing(busy_term: Term, played: dict[str, Any]) -> None:
    """The claimer reports each errand done the moment it reads it and does nothing else: no checkpoint passes, and
    each errand counts as never reported for its lateness. Judged as terms were before a report claimed the errand
    done, every one of its reports passed: a sixth of the checkpoints' weight, and no lateness but the errands it was
    never handed."""
    marks = played["claimer"]
    assert all(marks[task][c["key"]] == 0 for task, c in _checkpoints(busy_term))
    assert unexpected(busy_term, "claimer", marks) == [] and unexpected(busy_term, "claimer", played["oracle"]) != []
    metrics = busy_metrics(busy_term, marks)
    assert metrics is not None and metrics["cs"] == 0.0 and metrics["late_errands"] == metrics["errands"] - 2 * 12
    legacy = _without_done(busy_term)
    nowhere = SimpleNamespace(geography=SimpleNamespace(location=""))
    before = {task.id: busy_day(task, nowhere, played["claimer events"][task.id]).marks for task in legacy.tasks
              if task.scenario == SCENARIO}
    reports = [(task, c["key"]) for task, c in _checkpoints(busy_term) if c["check"]["check"] == "reported"
               and not c["follow_up"] and not c["at_meeting"]]  # the claimer is handed neither
    assert reports and all(before[task][key] == 1 for task, key in reports)
    old = busy_metrics(legacy, before)
    assert old is not None and old["cs"] > 0.1 and old["late_errands"] == 2 * 12  # only the two it is never handed a day


def test_a_clue_dependent_email_passes_only_when_its_emails_state_the_answer_alone() -> None:
    check = {"check": "email", "to": "mate@campus.edu", "subject": "Poster session", "contains": ["B457", "213"],
             "forms": [BUILDING, THREE_DIGITS]}
    def mail(body: str, to: str = "mate@campus.edu", subject: str = "Poster session") -> EmailSent:
        return EmailSent(email_id="e", to=to, subject=subject, body=body)
    assert _mailed_as(check, [mail("Building B457, room 213.")])
    assert _mailed_as(check, [mail("It is in building B457."), mail("Room 213, see you there!")])
    assert not _mailed_as(check, [mail("Building B457, room 213."), mail("Sorry: building B458, room 213.")])
    assert not _mailed_as(check, [mail("Building B457, room 213 or 214.")])
    assert not _mailed_as(check, [mail("Building B457, room 213.", to="other@campus.edu")])
    assert not _mailed_as(check, [])
    assert _mailed_as(check, [mail("Building B457, room 213."), mail("Building B775, room 105.", to="other@campus.edu")])
    keys = {"check": "email", "to": "keeper@campus.edu", "subject": "Lab key request", "contains": [], "forms": []}
    assert _mailed_as(keys, [mail("A key, please?", to="keeper@campus.edu", subject="Lab key request")])
    assert not _mailed_as(keys, [mail("A key, please?", to=address, subject="Lab key request")
                                 for address in ("keeper@campus.edu", "mentor@campus.edu")])
    legacy = {key: value for key, value in check.items() if key != "forms"}
    assert _mailed_as(legacy, [mail("B456 B457 B458 212 213 214"), mail("x", to="other@campus.edu")])


def test_fifo_misses_exactly_the_appointments(busy_term: Term, played: dict[str, Any]) -> None:
    for task, c in _checkpoints(busy_term):
        assert played["fifo"][task][c["key"]] == int(c["check"]["check"] != "present" and not c["at_meeting"]), c["key"]
    assert unexpected(busy_term, "fifo", played["fifo"]) == []
    card = scorecard(busy_term, [])
    assert card["busy_days"]["cs"] == 0.0 and card["busy_days"]["late_errands"] == card["busy_days"]["errands"] - 2 * 12  # none reported


@pytest.mark.parametrize("agent", ["guesser", "fifo", "learner", "forgetful"])
def test_the_controls_play_a_busy_day_from_what_they_are_shown_alone(world: WorldIndex, agent: str) -> None:
    """Each control plays the same log when the busy days' ground truth and plans are blanked in the term it is given."""
    term = generate_term(world, 3, scale=0.2, busy=True)
    blind = msgspec.structs.replace(term, tasks=tuple(
        msgspec.structs.replace(task, ground_truth={}, solution=()) if task.scenario == SCENARIO else task for task in term.tasks))
    heads = []
    for given in (term, blind):
        store = MemoryStore()
        run = start_run(store, RunSpec(seed=3, scale=0.2, agent=agent, busy_days=True), (world, term))
        run.session(make_agent(agent, given, world)).run()
        heads.append(store.head(run.branch.id)[1])
        assert sum(e.task_id.startswith("busy") for e in run.ended_tasks()) == 2
    assert heads[0] == heads[1]


def test_a_control_finds_out_where_it_is_when_the_brief_does_not_say() -> None:
    """A day that opens after another task of the same day has no "Current date ... You are at" line."""
    brief = ("Current time: Week 3, Sunday 08:00\nA busy day. Today's appointments (be there on time; they come before "
             "any errand):\n- 10:45-11:30 Advisor meeting at Founders Welcome Center (B141)\nYour errands so far:\n"
             "More errands will arrive during the day. Call finish() only once the day's work is over (by 18:00).")
    steps = day(brief, GuesserAgent(Term(name="t", seed=0, world_hash="", tasks=()), None).style())  # type: ignore[arg-type]
    assert next(steps) == LOCATE
    assert steps.send("You are at Mathematics Library (B001).") == action('errands.wait_until(time="Week 3, Sunday 08:30")')
    assert steps.send("You waited until Week 3, Sunday 09:45.") == action(
        'map.find_optimal_path(source_building_id="B001", target_building_id="B141")')


def test_no_one_holds_two_clues_on_one_topic(busy_term: Term) -> None:
    held = [(t.change.holder, t.change.topic) for t in busy_term.world_changes if isinstance(t.change, ClueHeld)]
    assert len(held) > 40 and len(set(held)) == len(held)


def test_no_librarian_holds_two_copies_of_one_title_on_seed_3() -> None:
    """Seed 3's default term drew one title twice for Theater Library's reserved copies (weeks 3 and 7), so the
    librarian's answer named two shelves; the shelf errand now draws its book again on a repeat."""
    term = generate_term(WorldIndex(generate_world(3)), 3)
    held = [(t.change.holder, t.change.topic) for t in term.world_changes if isinstance(t.change, ClueHeld)]
    assert len(held) > 40 and len(set(held)) == len(held)


@pytest.mark.parametrize(("arrive", "leave", "kept"), [(-EARLY, None, True), (-EARLY - 1, None, False), (LATE, None, True),
                                                       (LATE + 1, None, False), (0, 30, False), (0, 45, True)])
def test_an_appointment_needs_arrival_within_the_tolerances_and_staying_to_the_end(arrive: int, leave: int | None,
                                                                                    kept: bool) -> None:
    start = 600
    events: list[Any] = [Walked(path=["H", "X"], depart=start + arrive - 10, arrive=start + arrive)]
    if leave is not None:
        events.append(Walked(path=["X", "H"], depart=start + leave, arrive=start + leave + 10))
    assert _present(events, "H", {"building": "X", "start": start, "end": start + 45}) is kept


def test_later_errands_and_reminders_reach_the_day_conversation_when_they_happen(played: dict[str, Any]) -> None:
    said = [turn.content for turn in played["oracle chat"].messages if turn.role == "user"]
    assert "Reminder: Advisor meeting" not in said[0] and "New errand" not in said[0]
    reminder = next(i for i, text in enumerate(said) if "Reminder: Advisor meeting" in text)
    errand = next(i for i, text in enumerate(said) if text.startswith("New errand ["))
    assert 0 < reminder < errand


def test_the_mentor_ends_each_day_with_the_missed_checkpoints_feedback(played: dict[str, Any]) -> None:
    assert played["oracle chat"].messages[-1].content.endswith("handled well.")
    said = played["guesser chat"].messages[-1].content
    assert said.startswith("Mentor feedback on today:") and "- [" in said and "Ask " in said


def test_feedback_is_learned_by_the_learner_and_lost_on_the_forgetful(busy_term: Term, played: dict[str, Any]) -> None:
    learner, forgetful = busy_metrics(busy_term, played["learner"]), busy_metrics(busy_term, played["forgetful"])
    assert learner is not None and forgetful is not None
    assert learner["recurrence"] == 0 and forgetful["recurrence"] == 1
    assert all(delta >= 0 for delta in learner["delta_cs"].values()) and max(learner["delta_cs"].values()) > 0
    assert set(forgetful["delta_cs"].values()) == {0.0} and learner["cs"] > forgetful["cs"]


def test_the_second_day_of_a_pair_repeats_the_families_with_new_values(busy_term: Term) -> None:
    days = [task for task in busy_term.tasks if task.scenario == SCENARIO]
    for first, second in zip(days[::2], days[1::2]):
        one, two = ([e for e in day.ground_truth["errands"] if e["family"] != "appointment"] for day in (first, second))
        assert sorted(e["family"] for e in one) == sorted(e["family"] for e in two)
        assert {tuple(e["plan"]) for e in one}.isdisjoint({tuple(e["plan"]) for e in two})


def test_env_and_mcp_steps_show_notices_and_feedback_like_the_conversation() -> None:
    posted = ErrandPosted(errand_id="e2-4", title="Colloquium", text="Tell them.", deadline=10 * 60, priority="high")
    shown = render_events([WorldChanged(change_id="busy-e2-4", change=posted), MentorFeedback(task_id="busy-w2", text="Well done.")], 1)
    assert shown == "New errand [e2-4] (high priority, due 10:00): Colloquium: Tell them.\n\nWell done."


def test_busy_days_and_disruptions_fit_in_one_term_and_the_disruption_term_keeps_its_weeks(world: WorldIndex, term: Term) -> None:
    both = term  # the default term has both
    scenarios = [task.scenario for task in both.tasks]
    assert scenarios.count(SCENARIO) == 12 and scenarios.count("disruptions") == 360
    alone = generate_term(world, 0, disruptions=True, busy=False)
    overflow = [task for task in both.tasks if task.scenario == "disruptions" and task.release >= OVERFLOW_WEEKS[0] * WEEK]
    assert overflow and max(task.release for task in overflow) < (OVERFLOW_WEEKS[-1] + 1) * WEEK
    # the busy days' whole days push disruptions into the overflow weeks: a term without them sends fewer there
    assert sum(task.release >= OVERFLOW_WEEKS[0] * WEEK for task in alone.tasks if task.scenario == "disruptions") \
        < len(overflow) / 4


def test_a_smaller_term_has_proportionally_fewer_busy_days(world: WorldIndex) -> None:
    small = generate_term(world, 3, scale=0.2, busy=True, disruptions=False)
    assert sum(task.scenario == SCENARIO for task in small.tasks) == 2


@pytest.mark.parametrize("agent", ["oracle", "guesser"])
def test_a_run_with_busy_days_verifies_deeply_feedback_included(played: dict[str, Any], agent: str) -> None:
    report = verify(played[f"{agent} run"], deep=True)
    assert report.ok, report.mismatch

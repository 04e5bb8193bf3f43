"""The parts evaluator's edge cases, played through the real kernel.

Each test gives one task a ground truth and a plan; the oracle carries out the plan, so a
plan that deviates from the ground truth in one detail must fail on exactly that detail.
"""

from __future__ import annotations

import msgspec

from campus.agents import make_agent
from campus.events import InstructionRevealed, TaskReleased, Walked, decode_events
from campus.kernel.runner import OPENS
from campus.kernel.store import MemoryStore
from campus.replays.verify import verify
from campus.scenarios.play import new_run
from campus.scenarios.task import ARRIVAL_GRACE, AT_START, Flags, Task
from campus.scenarios.timeline import at
from tests.scenario_play import play_tasks, term_of

SYSTEMS = ("map", "geography", "calendar", "email", "course_selection", "draft", "registration")
MAIL = {"check": "email", "to": "Prof.Lee@lau.edu", "subject": "Meeting  request", "body": "Could we meet on Friday?"}


def one(task_id: str, parts: list, plan: tuple[str, ...], *, release: int = at(0, 0, 9), ordered: bool = False,
        **fields: object) -> Task:
    return Task(id=task_id, scenario="checks", phase="test", release=release, instruction="Do it.", systems=SYSTEMS,
                evaluator="parts", ground_truth={"parts": parts, "ordered": ordered}, solution=plan, **fields)  # type: ignore[arg-type]


def send(to: str, subject: str, body: str) -> str:
    return f'call:email.send_email(to="{to}", subject="{subject}", body="{body}")'


def outcome(world, *tasks: Task) -> dict[str, tuple[str, str]]:
    return {k: (e.outcome, e.detail) for k, e in play_tasks(world, list(tasks)).items()}


def test_email_recipient_case_subject_spacing_and_body_containment(world) -> None:
    ok = one("ok", [MAIL], (send("prof.lee@LAU.edu", "meeting request", "Dear Prof. Lee, could  we meet on friday? Thanks"),))
    wrong_subject = one("subject", [MAIL], (send("prof.lee@lau.edu", "Meeting", "Could we meet on Friday?"),),
                        release=at(0, 0, 10))
    changed_word = one("body", [MAIL], (send("prof.lee@lau.edu", "Meeting request", "Could we meet on Monday?"),),
                       release=at(0, 0, 11))
    result = outcome(world, ok, wrong_subject, changed_word)
    assert result["ok"][0] == "success"
    assert result["subject"][0] == "failure" and result["body"][0] == "failure"


def test_a_sole_email_fails_when_its_subject_also_went_to_someone_else(world) -> None:
    """Under ``sole`` the task's subject may go only to the addresses its email parts name: writing to every advisor
    who might be meant no longer finds the one who is. Another subject to someone else is fine, and a part without
    ``sole`` (the terms before it) passes the canvassed emails as it always did."""
    sole = {**MAIL, "sole": True}
    canvassed = (send("someone@lau.edu", "Meeting request", "Could we meet on Friday?"),
                 send("prof.lee@lau.edu", "Meeting request", "Could we meet on Friday?"))
    other = (send("someone@lau.edu", "Thanks", "See you."), send("prof.lee@lau.edu", "Meeting request", "Could we meet on Friday?"))
    two = [sole, {**sole, "to": "someone@lau.edu"}]
    result = outcome(world, one("canvassed", [sole], canvassed), one("other", [sole], other, release=at(0, 0, 10)),
                     one("legacy", [MAIL], canvassed, release=at(0, 0, 11)), one("both", two, canvassed, release=at(0, 0, 12)))
    assert result["canvassed"] == ("failure", "email: the email with this subject also went to someone@lau.edu")
    assert result["other"][0] == result["legacy"][0] == result["both"][0] == "success"


def test_a_copy_counts_as_a_recipient_under_cc_named(world) -> None:
    """Under ``cc_named`` an email's copies (``cc``) must go to addresses the task's email parts name, as its recipient
    must under ``sole``: the canvasser's extra addresses moved into ``cc`` of its one right email passed every email
    task. A copy to a named address is fine, and a part without ``cc_named`` passes the copy as it always did."""
    strict = {**MAIL, "sole": True, "cc_named": True}
    copied = ('call:email.send_email(to="prof.lee@lau.edu", subject="Meeting request", body="Could we meet on Friday?", '
              'cc="someone@lau.edu, other@lau.edu")',)
    named = [strict, {**strict, "to": "someone@lau.edu", "body": ""}]
    to_named = ('call:email.send_email(to="prof.lee@lau.edu", subject="Meeting request", body="Could we meet on Friday?", '
                'cc="someone@lau.edu")',)
    result = outcome(world, one("copied", [strict], copied), one("legacy", [{**MAIL, "sole": True}], copied, release=at(0, 0, 10)),
                     one("named", named[:1], to_named, release=at(0, 0, 11)))
    assert result["copied"] == ("failure", "email: the email with this subject also went to other@lau.edu, someone@lau.edu")
    assert result["legacy"][0] == "success" and result["named"][0] == "failure"
    both = outcome(world, one("both", named, to_named + (send("someone@lau.edu", "Meeting request", "x"),)))
    assert both["both"][0] == "success", both


def test_a_sole_calendar_entry_fails_beside_the_same_title_at_another_time(world) -> None:
    """Under ``sole`` every entry of the task in that calendar with the title is at the time and place: an entry at
    every half hour no longer finds the one that is meant. Without it (the terms before) the right one among them passes."""
    part = {"check": "calendar", "calendar_id": "self", "title": "Study group", "location": "B001",
            "time": {"first_week": 1, "last_week": 1, "weekday": 0, "start": 540, "end": 600}}
    spread = tuple(f'call:calendar.add_event(calendar_id="self", event_title="Study group", location="B001", '
                   f'time="Week 1, Monday, {hour:02d}:00-{hour + 1:02d}:00")' for hour in (8, 9, 10))
    result = outcome(world, one("sole", [{**part, "sole": True}], spread), one("any", [part], spread, release=at(0, 0, 10)),
                     one("right", [{**part, "sole": True}], spread[1:2], release=at(0, 0, 11)))
    assert result["sole"] == ("failure", "calendar: 'Study group' entered in self at another time or place as well")
    assert result["any"][0] == result["right"][0] == "success"


def test_quoted_text_ignores_trailing_punctuation_but_not_words(world) -> None:
    mail = {"check": "email", "to": "prof.lee@lau.edu", "subject": "Meeting request", "body": "Could we meet on Friday? Thanks."}
    event = {"check": "calendar", "calendar_id": "self", "title": "Review: chapter 3", "location": "Room (204)",
             "time": {"first_week": 1, "last_week": 1, "weekday": 0, "start": 540, "end": 600}}
    loose_mail = one("mail", [mail], (send("prof.lee@lau.edu", "Meeting request.", "could we meet on Friday?  Thanks"),))
    loose_event = one("event", [event], ('call:calendar.add_event(calendar_id="self", event_title="Review chapter 3", '
                                         'location="Room 204", time="Week 1, Monday, 09:00-10:00")',), release=at(0, 0, 10))
    other_word = one("word", [mail], (send("prof.lee@lau.edu", "Meeting request", "Could we meet on Monday? Thanks."),),
                     release=at(0, 0, 11))
    other_room = one("room", [event], ('call:calendar.add_event(calendar_id="self", event_title="Review: chapter 3", '
                                       'location="Room 205", time="Week 1, Monday, 09:00-10:00")',), release=at(0, 0, 12))
    result = outcome(world, loose_mail, loose_event, other_word, other_room)
    assert result["mail"][0] == "success" and result["event"][0] == "success", result
    assert result["word"][0] == "failure" and result["room"][0] == "failure"


def test_an_email_sent_in_an_earlier_task_does_not_count(world) -> None:
    earlier = one("earlier", [MAIL], (send("prof.lee@lau.edu", "Meeting request", "Could we meet on Friday?"),))
    later = one("later", [MAIL], (), release=at(0, 0, 10))
    result = outcome(world, earlier, later)
    assert result["earlier"][0] == "success" and result["later"] == ("failure", "email: no email sent")


def test_calendar_compares_parsed_times_and_needs_the_event_added_in_this_task(world) -> None:
    part = {"check": "calendar", "calendar_id": "self", "title": "Study group", "location": "B001",
            "time": {"first_week": 1, "last_week": 1, "weekday": 0, "start": 540, "end": 600}}
    add = 'call:calendar.add_event(calendar_id="self", event_title="study  group", location="b001", time="week 1, monday, 9:00-10:00")'
    wrong_hour = 'call:calendar.add_event(calendar_id="self", event_title="Study group", location="B001", time="Week 1, Monday, 10:00-11:00")'
    first = one("first", [part], (add,))
    again = one("again", [part], (), release=at(0, 0, 10))
    hour = one("hour", [part], (wrong_hour,), release=at(0, 0, 11))
    result = outcome(world, first, again, hour)
    assert result["first"][0] == "success"
    assert result["again"][0] == "failure" and result["hour"][0] == "failure"


def test_answer_letter_case_and_missing_answer(world) -> None:
    part = [{"check": "answer", "letter": "C"}]
    result = outcome(world, one("lower", part, ("answer:c",)), one("none", part, (), release=at(0, 0, 10)),
                     one("wrong", part, ("answer:B",), release=at(0, 0, 11)))
    assert result["lower"][0] == "success"
    assert result["none"] == ("failure", "answer: no answer given")
    assert result["wrong"] == ("failure", "answer: answered B")


def test_attendance_on_time_late_and_absent(world) -> None:
    place = "B056"  # four minutes from the dormitory
    def lecture(task_id: str, starts: int, plan: tuple[str, ...]) -> Task:
        return one(task_id, [{"check": "attended"}, {"check": "answer", "letter": "A"}], plan, release=starts - 30,
                   required_place=place, starts=starts, flags=Flags(counts_toward="class"))
    on_time = lecture("on-time", at(1, 0, 9), (f"goto:{place}", "answer:A"))
    # released 30 minutes before the start; 45 calls of one minute each before walking make the student late
    dawdle = tuple('call:calendar.view_schedule(calendar_id="self", date="Week 1, Tuesday")' for _ in range(30 + ARRIVAL_GRACE + 5))
    late = lecture("late", at(1, 1, 9), (*dawdle, f"goto:{place}", "answer:A"))
    absent = lecture("absent", at(1, 2, 9), ())
    ended = play_tasks(world, [on_time, late, absent], rounds=80)
    assert ended["on-time"].outcome == "success" and ended["on-time"].marks == {"attended": 1}
    assert ended["late"].outcome == "failure" and ended["late"].marks == {"attended": 0}
    assert ended["absent"].outcome == "failure" and ended["absent"].marks == {"attended": 0}


def test_ordered_parts_work_with_walking(world) -> None:
    parts = [MAIL, {"check": "location", "building": "B056"}]
    mail = send("prof.lee@lau.edu", "Meeting request", "Could we meet on Friday?")
    in_order = one("in-order", parts, (mail, "goto:B056"), ordered=True)
    reversed_ = one("reversed", parts, ("goto:B074", mail, "goto:B056", ), ordered=True, release=at(0, 1, 9))
    walked_first = one("walked-first", parts, ("goto:B056", mail), ordered=True, release=at(0, 2, 9))
    unordered = one("unordered", parts, ("goto:B056", mail), release=at(0, 3, 9))
    result = outcome(world, in_order, reversed_, walked_first, unordered)
    assert result["in-order"][0] == "success" and result["reversed"][0] == "success"
    assert result["walked-first"] == ("failure", "every part holds, but not in the order required")
    assert result["unordered"][0] == "success"


def test_a_failed_prerequisite_fails_its_dependants_without_judging_them(world) -> None:
    first = one("apply", [MAIL], ())
    later = one("later", [{"check": "answer", "letter": "A"}], ("answer:A",), release=at(0, 0, 10), depends_on=("apply",))
    result = outcome(world, first, later)
    assert result["later"] == ("failure", "prerequisite apply failed")


def test_draft_must_match_exactly(world) -> None:
    add = 'call:draft.add_course(section_id="{}")'
    exact = {"check": "draft", "sections": {"MATH0015000001": "B-Pass"}}
    plan = (add.format("MATH0015000001"), 'call:draft.assign_pass(section_id="MATH0015000001", pass_type="B-Pass")')
    extra = (add.format("COMS0014000003"),)
    result = outcome(world, one("exact", [exact], plan), one("extra", [exact], extra, release=at(0, 0, 10)))
    assert result["exact"][0] == "success"
    assert result["extra"][0] == "failure" and "extra ['COMS0014000003']" in result["extra"][1]


def test_a_scoped_draft_check_sees_only_its_sections_and_needs_the_removal_in_this_task(world) -> None:
    add = 'call:draft.add_course(section_id="{}")'
    give = 'call:draft.assign_pass(section_id="{}", pass_type="B-Pass")'
    first, other = "MATH0015000001", "COMS0014000003"
    scoped = {"check": "draft", "sections": {first: "B-Pass"}, "scope": [first]}
    dropped = {"check": "draft", "sections": {}, "scope": [other], "removed": [other]}
    both = one("both", [scoped], (add.format(first), give.format(first), add.format(other)))
    drop = one("drop", [dropped], ('call:draft.remove_course(section_id="COMS0014000003")',), release=at(0, 0, 10))
    again = one("again", [dropped], (), release=at(0, 0, 11))
    result = outcome(world, both, drop, again)
    assert result["both"][0] == "success"  # the other section is outside this step's scope
    assert result["drop"][0] == "success"
    assert result["again"] == ("failure", "draft: not removed in this task: ['COMS0014000003']")


def _held(task: Task) -> Task:
    return msgspec.structs.replace(task, ground_truth=task.ground_truth | {AT_START: True})


def test_held_at_start_a_student_must_be_there_at_the_start_or_on_the_way_then(world) -> None:
    """Under ``AT_START`` a walk that reached the place before the start counts only if the student stayed, and a late
    arrival only by a walk set out before the start: a student searching building after building attended 46-63 of
    128 class sessions of seed 0 at ``--scale 0.3`` when any walk that ended there in time counted, and one that
    waited at one building for the start and, shown nothing, stepped to another attended 77 of 160 held tasks."""
    place, other = "B056", "B066"  # 4 and 5 minutes from the dormitory, 1 minute apart
    def lecture(task_id: str, starts: int, plan: tuple[str, ...]) -> Task:
        return one(task_id, [{"check": "attended"}], plan, release=starts - 30, required_place=place, starts=starts,
                   flags=Flags(counts_toward="class"))
    def waited(minutes: int) -> str:
        return f"call:calendar.wait(minutes={minutes})"
    home = world.home
    plans = {
        "stays": (f"goto:{place}",),
        "passes through": (f"goto:{place}", f"goto:{home}"),
        "on the way at the start": (waited(27), f"goto:{place}"),  # sets out 2 minutes before, 4 minutes' walk
        "sets out after the start": (waited(32), f"goto:{place}"),  # there 6 minutes after the start
        "late, by another building": (waited(30), f"goto:{other}", f"goto:{place}"),
        "via another building, there by the start": (waited(22), f"goto:{other}", f"goto:{place}"),
    }
    days = {name: at(1, day, 9) for day, name in enumerate(plans)}
    now = play_tasks(world, [_held(lecture(name, days[name], plan)) for name, plan in plans.items()], rounds=20)
    assert {name: now[name].marks["attended"] for name in plans} == {
        "stays": 1, "passes through": 0, "on the way at the start": 1, "sets out after the start": 0,
        "late, by another building": 0, "via another building, there by the start": 1}
    before = play_tasks(world, [lecture(name, days[name], plan) for name, plan in plans.items()], rounds=20)
    assert {name for name in plans if before[name].marks["attended"]} == {
        "stays", "passes through", "on the way at the start", "sets out after the start", "late, by another building",
        "via another building, there by the start"}


def test_held_at_start_the_text_is_handed_out_from_the_start_and_verify_agrees(world) -> None:
    """Arriving early shows nothing but when the task is due (the same line wherever the student is); a wait past the
    start hands the text out, and verify re-checks when it may be."""
    place, starts = "B056", at(1, 0, 9)
    lecture = _held(Task(id="lecture", scenario="checks", phase="test", release=starts - 30, instruction="The lecture.",
                         systems=SYSTEMS, evaluator="parts", ground_truth={"parts": [{"check": "attended"}]},
                         required_place=place, starts=starts, flags=Flags(counts_toward="class"),
                         solution=(f"goto:{place}", "call:calendar.wait(minutes=20)", "call:calendar.wait(minutes=20)")))
    store = MemoryStore()
    run = new_run(store, world, term_of(world, [lecture]), agent_name="oracle", seed=0, round_limit=10)
    run.session(make_agent("oracle", run.term, world)).run()
    rows = store.rows(run.branch.id, 1, store.head(run.branch.id)[0])
    timed = [(row.t, event) for row, event in zip(rows, decode_events([row.payload for row in rows]))]
    released = next(event for _, event in timed if isinstance(event, TaskReleased))
    assert released.withheld and "The lecture." not in released.observation
    assert f"{OPENS}09:00" in released.observation and place not in released.observation
    shown = [t for t, event in timed if isinstance(event, InstructionRevealed)]
    walked = [event for _, event in timed if isinstance(event, Walked)]
    assert walked and walked[-1].arrive + 20 < starts and shown == [walked[-1].arrive + 40]  # after the second wait
    assert verify(run).ok

"""Regulations Learning and Core Course Instruction: study sessions and classes with a question each.

**Regulations Learning** (``regulations_learning``). At Week 0, Monday 07:00 a welcome message
(delivered, not scored) asks the student to put its study sessions in its own calendar:
"Student Handbook Study" at 10:00 and 16:00 every day of Week 0, "Academic Norms Study" at
19:00 every day of Week 0 and at 16:00 and 19:00 every day of Week 19, 50 minutes each, the
handbook sessions in one academic building and the norms sessions in another (never the
dormitory; the location is the building id). The oracle adds one event per session (the
calendar repeats an event weekly only, so 35 calls). Each session holds two tasks: the
session's lecture with a question (withheld until the student is in the building, and from the
session's start only in terms made since 2026-11-29: ``scenarios.task.AT_START``) and a
second question right after it. Handbook sessions read the Student Handbook, norms sessions the
Academic Integrity Guidelines (any handbook when a world lacks those titles; a world without
handbook articles has no regulations tasks).
Before the first session a roll call is held there (scored, self-motivated: it shows only the
time unless the student is in the building, and needs only presence); fifteen minutes before it
(earlier when the walk takes longer) a delivery sends the student over ("head over now"). It is
the one self-motivated task a student without notes reaches by doing what it is told, so a
memoryless student earns a little initiative credit, and one that keeps notes and reads them
earns more.

**Core Course Instruction** (``course_instruction``). Every class meeting of each timetabled
section (its days, its weeks, never the midterm week) is a session in the section's building;
each course has 52 tasks at scale 1: one per meeting, and further questions in the same
meeting when the course meets fewer times (they are spread evenly; a course meeting more often
has tasks in an even selection of its meetings, and every meeting is still reserved). A course
without a textbook (``text.course == section.name``) gets no tasks.

**What a session teaches** (``scenarios.protocols``): a made-up protocol that turns something
printed in an article into a number, and a citation of that article (book, chapter, section,
id). The question asks for the protocol's value of the article and takes the number alone (no
options: evaluator ``parts_in_words``), so the student must read the article with
``bibliography.view_article`` and apply the lecture's rule; every answer is computed. The kinds
of question:

- *teach*: a new protocol, defined in the lecture, applied to the cited article;
- *revise*: the lecture changes the parameter of a protocol taught on an earlier day ("from
  today add 5, not 3") and restates it; from then on every question uses the new rule;
- *practice* (a later question of the same session): today's protocol on another article;
- *review*: a protocol taught on an earlier day (for courses at least a week earlier; the
  version in force), named but not explained, on a new article. These are the long-term
  tasks (23 of 70 in regulations, about 129 of 416 in courses, as in the paper).

**Judged**: the first task of a session has ground truth ``attended`` + ``answer`` and counts
toward ``class`` (attendance, a commitment the student keeps through its calendar); later
questions of a session have ``answer`` only and count toward nothing, though they too need the
student in the building (``required_place``, shown at once to a student who is there) and so
carry an ``attended`` mark. Every task is self-motivated. The ground truth also keeps the
``item`` the answer was computed from (protocol, family, parameter, book, article, value); the
agent never sees ground truth.

**Stale variant**: every review of a revised protocol carries a ``stale`` plan that answers
with the value under the replaced parameter; a student who missed the revision fails exactly
those tasks.

**Timing**: a session's first task is released 45 minutes before the start (later when the
time before it is taken, e.g. by the previous class), later questions are spread over the
class; each session reserves the timeline from its release to its class end, cut short so
the next class's release keeps its 45 minutes. A clash raises ``Overlap``.

Use: ``generate_regulations(ctx) -> (tasks, triggers)`` and ``generate_courses(ctx) -> Taught``
(``tasks``, ``triggers`` and the ``syllabi`` that ``scenarios.exams.generate`` needs).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from msgspec.structs import replace

from campus.kernel.clock import DAYS, MINUTES_PER_DAY, clock_label, date_label
from campus.kernel.schedule import Trigger
from campus.scenarios.context import TermContext
from campus.scenarios.protocols import FAMILIES, Cited, Rule, Shelf, invent_name, new_rule, revised
from campus.scenarios.task import Flags, Task
from campus.scenarios.timeline import SLACK, WEEK, Overlap, Timeline, at
from campus.world.graph import distances
from campus.world.model import CourseSection

REGULATIONS = "regulations_learning"
COURSES = "course_instruction"
PHASE = "in_class"
SYSTEMS = ("bibliography", "calendar", "geography", "map")

LEAD = 45
"""Minutes before a session's start at which its first task is released."""
FOLLOW_UP = 5
"""Minutes reserved for each further question of a session."""
SESSION_MINUTES = 50
WELCOME_AT = at(0, 0, 7)
WELCOME_MINUTES = 60
WELCOME_ROUNDS = 60
ROLL_CALL_MINUTES = 15
"""The orientation roll call's slot, just before the first study session's release; the nudge comes one slot earlier,
or earlier still when the walk from the dormitory takes longer."""
NUDGE_SLACK = 5
"""Minutes the nudge leaves beyond the walk, for the calls around it: the roll call is released when the nudge's
task has ended."""

REGULATION_TASKS, REGULATION_REVIEWS = 70, 23
COURSE_TASKS, COURSE_REVIEW_SHARE = 52, 129 / 416
REVISIONS = 3
MIDTERM_WEEK = 10

HANDBOOK_STUDY = "Student Handbook Study"
NORMS_STUDY = "Academic Norms Study"
HANDBOOK_TITLES = {HANDBOOK_STUDY: "Student Handbook", NORMS_STUDY: "Academic Integrity Guidelines"}
STUDY_TIMES: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    (HANDBOOK_STUDY, 0, (10, 16)),
    (NORMS_STUDY, 0, (19,)),
    (NORMS_STUDY, 19, (16, 19)),
)
"""(session title, week, start hours) — every day of the week."""


# ------------------------------------------------------------------ meetings and their times


@dataclass(frozen=True)
class Meeting:
    """One session: when, where, which book it reads, and how it introduces itself."""

    start: int
    end: int
    building: str
    book: str
    title: str
    """The study series or the course name."""
    header: str
    scope: int
    """Which plan the meeting belongs to (a course's index; 0 for regulations)."""

    @property
    def day(self) -> int:
        return self.start // MINUTES_PER_DAY


@dataclass(frozen=True)
class Session:
    """A meeting with its task releases: the first (attendance) task, then any further questions."""

    meeting: Meeting
    releases: tuple[int, ...]


def spread(total: int, slots: int) -> list[int]:
    """``total`` tasks over ``slots`` sessions as evenly as possible (earliest first on ties)."""
    if slots <= 0:
        return []
    counts = [total // slots] * slots
    extra = total % slots
    for j in range(extra):
        counts[j * slots // extra] += 1
    return counts


def book_times(timeline: Timeline, meetings: Sequence[Meeting], counts: Sequence[int], owner: str) -> list[Session]:
    """Reserve every meeting (in start order) and place its tasks; meetings with no task are reserved too."""
    order = sorted(range(len(meetings)), key=lambda i: (meetings[i].start, i))
    booked: dict[int, Session] = {}
    for rank, i in enumerate(order):
        meeting, count = meetings[i], counts[i]
        after = [meetings[j].start for j in order[rank + 1:] if meetings[j].start > meeting.start]
        limit = meeting.end if not after else min(meeting.end, after[0] - LEAD)
        end = max(limit, meeting.start + max(1, count) * FOLLOW_UP)
        release = _release(timeline, meeting.start)
        name = f"{owner}: {meeting.header}"
        if release >= meeting.start:
            raise Overlap(f"{name} clashes with {timeline.owner_at(meeting.start - LEAD, LEAD)}")
        timeline.reserve(release, end - release, name)
        if count > 1:
            timeline.hold(end, (count - 1) * SLACK, f"{name} (backlog)")
        step = (end - meeting.start) // max(1, count)
        releases = (release, *(meeting.start + j * step for j in range(1, count))) if count else ()
        booked[i] = Session(meeting, releases)
    return [booked[i] for i in range(len(meetings))]


def _release(timeline: Timeline, start: int) -> int:
    """``start - LEAD``, or the end of whatever is reserved in that lead time."""
    release = start - LEAD
    for begin, end, _ in timeline.spans():
        if begin < start and end > release:
            release = max(release, end)
    return release


def class_meetings(section: CourseSection) -> list[tuple[int, int, int]]:
    """Every meeting of a section as ``(week, weekday, start minute of day)``, in time order."""
    start = class_span(section)[0]
    days = sorted(DAYS.index(day.strip().capitalize()) for day in section.days if day.strip().capitalize() in DAYS)
    return [(week, day, start) for week in range(section.first_week, section.last_week + 1) for day in days]


def class_span(section: CourseSection) -> tuple[int, int]:
    """Start and end minute of day of the section's class time ``HH:MM-HH:MM``."""
    begin, _, finish = section.time.partition("-")
    return _clock(begin), _clock(finish)


def midterm_week(section: CourseSection) -> int:
    """Week 10, or the middle of the section's weeks when it does not meet in week 10."""
    if section.first_week <= MIDTERM_WEEK <= section.last_week:
        return MIDTERM_WEEK
    return (section.first_week + section.last_week) // 2


def _clock(text: str) -> int:
    hours, _, minutes = text.strip().partition(":")
    return int(hours) * 60 + int(minutes)


# ------------------------------------------------------------------ planning what each task asks


@dataclass(frozen=True)
class Lesson:
    """One planned question: its kind, the rule in force, the article."""

    kind: str
    rule: Rule
    article: Cited
    release: int
    meeting: Meeting
    first: bool


@dataclass
class _Plan:
    """The walk through one scope's sessions: the protocols taught so far and what was used."""

    rng: random.Random
    shelves: dict[str, Shelf]
    gap_days: int
    names: set[str]
    rules: dict[str, Rule] = field(default_factory=dict)
    history: list[Rule] = field(default_factory=list)
    reviewed: set[str] = field(default_factory=set)
    """Revised protocols already reviewed since their revision."""
    used: set[tuple[str, str]] = field(default_factory=set)


def plan_scope(
    rng: random.Random, booked: Sequence[Session], shelves: dict[str, Shelf], *, reviews: int, revisions: int,
    gap_days: int, names: set[str],
) -> tuple[list[Lesson], list[Rule]]:
    """The questions of one scope's sessions (in time order) and every protocol version taught."""
    slots = [(b, j) for b in booked for j in range(len(b.releases))]
    kinds = _kinds(rng, slots, reviews, revisions, gap_days)
    progress = _progress(booked, shelves)
    plan = _Plan(rng=rng, shelves=shelves, gap_days=gap_days, names=names)
    lessons: list[Lesson] = []
    lecture: Lesson | None = None
    for (session, j), kind, where in zip(slots, kinds, (progress[n] for n, b in enumerate(booked) for _ in b.releases)):
        if j == 0:
            lecture = _lecture(plan, session, kind, where)
            lessons.append(lecture)
        else:
            assert lecture is not None and lecture.meeting is session.meeting
            lessons.append(_later(plan, session, j, kind, where, lecture))
    return lessons, plan.history


def _kinds(rng: random.Random, slots: Sequence[tuple[Session, int]], reviews: int, revisions: int, gap_days: int) -> list[str]:
    """Which slots are reviews (later questions first, then lone lectures) and which lectures revise."""
    if not slots:
        return []
    first_day = slots[0][0].meeting.day
    late = [i for i, (b, _) in enumerate(slots) if b.meeting.day >= first_day + gap_days]
    later = [i for i in late if slots[i][1] > 0]
    lone = [i for i in late if slots[i][1] == 0 and len(slots[i][0].releases) == 1]
    chosen = rng.sample(later, min(reviews, len(later)))
    chosen += rng.sample(lone, min(reviews - len(chosen), len(lone)))
    kinds = ["teach" if j == 0 else "practice" for _, j in slots]
    for i in chosen:
        kinds[i] = "review"
    review_days = [slots[i][0].meeting.day for i in chosen]
    candidates = [
        i for i in late
        if kinds[i] == "teach" and i > 0 and any(day >= slots[i][0].meeting.day + max(1, gap_days) for day in review_days)
    ]
    for chunk in _chunks(candidates, revisions):
        kinds[rng.choice(chunk)] = "revise"
    return kinds


def _chunks(items: Sequence[int], parts: int) -> list[Sequence[int]]:
    parts = min(parts, len(items))
    return [items[p * len(items) // parts:(p + 1) * len(items) // parts] for p in range(parts)]


def _progress(booked: Sequence[Session], shelves: dict[str, Shelf]) -> list[int]:
    """How far into its book each session reads (article position): a book's sessions walk through it evenly."""
    by_book: dict[str, list[int]] = {}
    for n, session in enumerate(booked):
        by_book.setdefault(session.meeting.book, []).append(n)
    out = [0] * len(booked)
    for book, members in by_book.items():
        last = len(shelves[book].articles) - 1
        for rank, n in enumerate(members):
            out[n] = rank * last // max(1, len(members) - 1)
    return out


def _lecture(plan: _Plan, session: Session, kind: str, where: int) -> Lesson:
    shelf = plan.shelves[session.meeting.book]
    day = session.meeting.day
    if kind == "review":
        rule = _review_rule(plan, shelf, day)
        if rule is not None:
            return _lesson(plan, session, 0, "review", rule, shelf.nearest(rule.family, where, _used(plan, shelf)))
        kind = "teach"
    if kind == "revise":
        candidates = [
            r for r in plan.rules.values()
            if r.old_k is None and r.since // MINUTES_PER_DAY <= day - max(1, plan.gap_days) and r.family in shelf.families()
        ]
        if candidates:
            old = plan.rng.choice(candidates)
            rule = revised(plan.rng, old, session.meeting.start)
            return _lesson(plan, session, 0, "revise", _keep(plan, rule), shelf.nearest(rule.family, where, _used(plan, shelf)))
    article = shelf.articles[where]
    fitting = [key for key in shelf.families() if shelf.fits(key, article)] or shelf.families()
    family = plan.rng.choice(fitting)
    rule = new_rule(plan.rng, invent_name(plan.rng, plan.names), family, session.meeting.start)
    return _lesson(plan, session, 0, "teach", _keep(plan, rule), shelf.nearest(family, where, _used(plan, shelf)))


def _later(plan: _Plan, session: Session, j: int, kind: str, where: int, lecture: Lesson) -> Lesson:
    shelf = plan.shelves[session.meeting.book]
    if kind == "review":
        rule = _review_rule(plan, shelf, session.meeting.day)
        if rule is not None:
            return _lesson(plan, session, j, "review", rule, shelf.nearest(rule.family, where, _used(plan, shelf)))
    rule = lecture.rule
    article = shelf.nearest(rule.family, lecture.article.position + j, _used(plan, shelf), differ=(rule, lecture.article))
    return _lesson(plan, session, j, "review" if lecture.kind == "review" else "practice", rule, article)


def _review_rule(plan: _Plan, shelf: Shelf, day: int) -> Rule | None:
    """A protocol last changed at least ``gap_days`` ago; an unreviewed revision first."""
    ready = [r for r in plan.rules.values() if r.since // MINUTES_PER_DAY <= day - plan.gap_days and r.family in shelf.families()]
    fresh = [r for r in ready if r.old_k is not None and r.name not in plan.reviewed]
    rule = plan.rng.choice(fresh or ready) if ready else None
    if rule is not None and rule.old_k is not None:
        plan.reviewed.add(rule.name)
    return rule


def _keep(plan: _Plan, rule: Rule) -> Rule:
    plan.rules[rule.name] = rule
    plan.history.append(rule)
    return rule


def _used(plan: _Plan, shelf: Shelf) -> set[str]:
    return {article for book, article in plan.used if book == shelf.title}


def _lesson(plan: _Plan, session: Session, j: int, kind: str, rule: Rule, article: Cited) -> Lesson:
    plan.used.add((article.book, article.id))
    return Lesson(kind=kind, rule=rule, article=article, release=session.releases[j],
                  meeting=session.meeting, first=j == 0)


# ------------------------------------------------------------------ texts


def _taught_on(rule: Rule) -> str:
    return date_label(rule.introduced // MINUTES_PER_DAY)


def lesson_text(lesson: Lesson, where: str, exams: bool) -> str:
    """The instruction: the lecture (first task of a session) or a further question."""
    rule, article = lesson.rule, lesson.article
    later = " and the exams" if exams else ""
    question = f"What is the {rule.name} value of {article.short()}? Reply with the number alone."
    reading = (
        f"Reading for today: {article.citation()}. This lecture refers to the article but does not reproduce it; "
        "open it with the bibliography tools."
    )
    if lesson.kind == "review":
        recall = (
            f"apply the {rule.name} Protocol, taught {where} on {_taught_on(rule)}. Its rule is not repeated here: "
            "use it as it stands today."
        )
        if lesson.first:
            return "\n".join([lesson.meeting.header, "Review session. " + reading, recall[0].upper() + recall[1:], question])
        return "\n".join([f"A review question before the session ends: {recall} Use {article.citation()}.", question])
    if lesson.kind == "practice":
        return "\n".join([f"One more exercise with today's {rule.name} Protocol, on {article.citation()}.", question])
    if lesson.kind == "revise":
        protocol = (
            f"A change to the {rule.name} Protocol, first taught on {_taught_on(rule)}: from today, to find the {rule.name} "
            f"value of an article, {rule.definition()}. The amount added used to be {rule.old_k}; from "
            f"this session on it is {rule.k}, in every later session{later}."
        )
    else:
        protocol = (
            f"New protocol: the {rule.name} Protocol. To find the {rule.name} value of an article, {rule.definition()}. "
            f"Keep it: later sessions{later} will name this protocol without explaining it again."
        )
    return "\n".join([lesson.meeting.header, reading, protocol, question])


# ------------------------------------------------------------------ tasks


def lesson_task(scenario: str, lesson: Lesson, text: str) -> Task:
    """The task of one lesson (numbered later, in release order)."""
    building = lesson.meeting.building
    rule, article = lesson.rule, lesson.article
    parts = ([{"check": "attended"}] if lesson.first else []) + [{"check": "answer", "value": rule.value(article)}]
    plan = (f"goto:{building}", article.lookup())
    stale_value = rule.stale_value(article)
    stale = (*plan, f"answer:{stale_value}") if lesson.kind == "review" and stale_value is not None else None
    return Task(
        id="", scenario=scenario, phase=PHASE, release=lesson.release, instruction=text, systems=SYSTEMS,
        evaluator="parts_in_words", ground_truth={"parts": parts, "ordered": False, "item": _item(lesson)},
        required_place=building, starts=lesson.meeting.start if lesson.first else None,
        flags=Flags(long_term=lesson.kind == "review", self_motivated=True,
                    counts_toward="class" if lesson.first else "", commitment=lesson.first),
        solution=(*plan, f"answer:{rule.value(article)}"), stale=stale,
    )


def _item(lesson: Lesson) -> dict[str, object]:
    """What the answer was computed from (for analysis; never shown)."""
    rule = lesson.rule
    return {
        "kind": lesson.kind, "protocol": rule.name, "family": rule.family, "k": rule.k, "old_k": rule.old_k,
        "book": lesson.article.book, "article": lesson.article.id, "value": rule.value(lesson.article),
    }


def numbered(prefix: str, drafts: list[tuple[int, int, Task]]) -> list[Task]:
    """Give ``<prefix>-NNN`` ids in release order (ties keep their planned order)."""
    drafts.sort(key=lambda d: (d[0], d[1]))
    return [replace(task, id=f"{prefix}-{n:03d}") for n, (_, _, task) in enumerate(drafts, start=1)]


# ------------------------------------------------------------------ regulations learning


def regulation_books(ctx: TermContext) -> dict[str, Shelf]:
    """The shelf each study series reads: its named handbook, else any handbook with articles."""
    handbooks = [Shelf(t) for t in ctx.world.world.texts if t.kind == "handbook"]
    usable = [s for s in handbooks if s.families()]
    out: dict[str, Shelf] = {}
    for title, book in HANDBOOK_TITLES.items():
        named = [s for s in usable if s.title.casefold() == book.casefold()]
        if named or usable:
            out[title] = (named or usable)[0]
    return out


STUDY_KIND = "Academic"
"""The kind of building study sessions are held in (any building outside the dormitory when a world has none)."""


def study_buildings(ctx: TermContext) -> dict[str, str]:
    """Where each study series meets: two buildings drawn among the academic ones, never the dormitory.

    Drawn, not the nearest: held in the building nearest the dormitory, every session could be
    reached by a student that went there whenever a task showed only a time, remembering nothing
    (22 of 22 sessions of seeds 0 and 1 at ``--scale 0.3``). Each building is within a session's
    lead time of the dormitory and of the other, so every session can be reached from where the
    day starts and from the session before."""
    world = ctx.world
    joined = set(world.complex_of[world.home].members) if world.home in world.complex_of else {world.home}
    outside = sorted(b for b in world.buildings if b not in joined)
    academic = [b for b in outside if world.buildings[b].type == STUDY_KIND] or outside
    if len(academic) < len(HANDBOOK_TITLES):
        return dict.fromkeys(HANDBOOK_TITLES, academic[0] if academic else world.home)
    from_home = walk_minutes(ctx, world.home)
    near = [b for b in academic if from_home.get(b, LEAD + 1) <= LEAD] or academic
    rng = ctx.rng("regulations|buildings")
    first = rng.choice(near)
    from_first = walk_minutes(ctx, first)
    second = [b for b in near if b != first and from_first.get(b, LEAD + 1) <= LEAD] or [b for b in near if b != first]
    return {HANDBOOK_STUDY: first, NORMS_STUDY: rng.choice(second)}


def walk_minutes(ctx: TermContext, start: str) -> dict[str, float]:
    """The fewest walking minutes from ``start`` to every building."""
    return distances(ctx.world.graph, start, lambda a, b, edge: edge["minutes"])


def study_meetings(ctx: TermContext, buildings: dict[str, str], shelves: dict[str, Shelf]) -> list[Meeting]:
    meetings = []
    for title, week, hours in STUDY_TIMES:
        building = buildings[title]
        where = ctx.world.describe(building)
        for weekday in range(7):
            for hour in hours:
                start = at(week, weekday, hour)
                header = (f"{title}, {date_label(start // MINUTES_PER_DAY)} {clock_label(start)}-"
                          f"{clock_label(start + SESSION_MINUTES)}, {where}.")
                meetings.append(Meeting(start=start, end=start + SESSION_MINUTES, building=building,
                                        book=shelves[title].title, title=title, header=header, scope=0))
    meetings.sort(key=lambda m: m.start)
    return meetings


def welcome_text(ctx: TermContext, buildings: dict[str, str]) -> str:
    handbook, norms = (ctx.world.describe(buildings[title]) for title in (HANDBOOK_STUDY, NORMS_STUDY))
    return (
        "Welcome to the university! Before anything else, set up your orientation study sessions in your own "
        f"calendar (calendar id \"self\"), with the building id as each session's location. Each session lasts "
        f"{SESSION_MINUTES} minutes:\n"
        f"- \"{HANDBOOK_STUDY}\" at 10:00 and at 16:00 on every day of Week 0 (Monday to Sunday), at {handbook};\n"
        f"- \"{NORMS_STUDY}\" at 19:00 on every day of Week 0, and at 16:00 and at 19:00 on every day of Week 19, "
        f"at {norms}.\n"
        "The calendar repeats an event only from week to week, so add one event for each day and time. At every "
        "session a short lecture and its questions are handed out in the room only; nobody will remind you, so be "
        "there on time."
    )


ROLL_CALL_TEXT = ("Orientation roll call: you are signed in for the study sessions, which start in this building "
                  "shortly. Nothing else is needed now.")


def go_now_text(ctx: TermContext, building: str, start: int) -> str:
    """The orientation team's nudge before the roll call: the one time the student is sent to the study building."""
    where = ctx.world.describe(building)
    return (
        f"Orientation team here: the roll call for your study sessions is at {clock_label(start)} at {where}. "
        f"Head over to {where} now to be signed in; after today nobody will send you."
    )


def _welcome_solution(ctx: TermContext, meetings: Sequence[Meeting]) -> tuple[str, ...]:
    steps = []
    for meeting in meetings:
        title = meeting.title
        when = f"{date_label(meeting.day)}, {clock_label(meeting.start)}-{clock_label(meeting.end)}"
        note = f"{title}: lecture and questions at {ctx.world.describe(meeting.building)}; be there on time."
        steps.append(
            f'call:calendar.add_event(calendar_id="self", event_title={json.dumps(title)}, location="{meeting.building}", '
            f"time={json.dumps(when)}, description={json.dumps(note)})"
        )
    return tuple(steps)


def generate_regulations(ctx: TermContext) -> tuple[list[Task], list[Trigger]]:
    """The welcome task and the study sessions' questions (``ctx.count(70)`` of them)."""
    shelves_by_series = regulation_books(ctx)
    if len(shelves_by_series) < len(HANDBOOK_TITLES):
        return [], []
    shelves = {s.title: s for s in shelves_by_series.values()}
    buildings = study_buildings(ctx)
    meetings = study_meetings(ctx, buildings, shelves_by_series)
    ctx.timeline.reserve(WELCOME_AT, WELCOME_MINUTES, "regulations: welcome")
    total = ctx.count(REGULATION_TASKS)
    booked = book_times(ctx.timeline, meetings, spread(total, len(meetings)), "regulations")
    reviews = round(total * REGULATION_REVIEWS / REGULATION_TASKS)
    lessons, _ = plan_scope(
        ctx.rng("regulations|plan"), [b for b in booked if b.releases], shelves,
        reviews=reviews, revisions=ctx.count(REVISIONS), gap_days=1, names=set(),
    )
    drafts = [
        (lesson.release, n, lesson_task(REGULATIONS, lesson, lesson_text(lesson, "in these study sessions", exams=False)))
        for n, lesson in enumerate(lessons, start=1)
    ]
    opening = min((b for b in booked if b.releases), key=lambda b: b.releases[0])
    building = opening.meeting.building
    roll_call = opening.releases[0] - ROLL_CALL_MINUTES
    walk = walk_minutes(ctx, ctx.world.home).get(building, 0)
    nudge = roll_call - max(ROLL_CALL_MINUTES, -(-(int(walk) + NUDGE_SLACK) // 5) * 5)
    ctx.timeline.reserve(nudge, roll_call + ROLL_CALL_MINUTES - nudge, "regulations: roll call")
    go_now = Task(
        id="", scenario=REGULATIONS, phase=PHASE, release=nudge, instruction=go_now_text(ctx, building, roll_call),
        systems=("map", "geography"), evaluator="parts", ground_truth={"parts": []},
        flags=Flags(delivery_only=True), solution=(f"goto:{building}",),
    )
    signed_in = Task(
        id="", scenario=REGULATIONS, phase=PHASE, release=roll_call, instruction=ROLL_CALL_TEXT,
        systems=("map", "geography"), evaluator="parts", ground_truth={"parts": [{"check": "attended"}]},
        required_place=building, starts=roll_call, flags=Flags(self_motivated=True, counts_toward="class"),
        solution=(f"goto:{building}",),
    )
    welcome = Task(
        id="", scenario=REGULATIONS, phase=PHASE, release=WELCOME_AT, instruction=welcome_text(ctx, buildings),
        systems=("calendar", "map"), evaluator="parts", ground_truth={"parts": []},
        flags=Flags(delivery_only=True), round_limit=WELCOME_ROUNDS,
        solution=_welcome_solution(ctx, meetings),
    )
    tasks = numbered("regulations", [(WELCOME_AT, 0, welcome), (nudge, 0, go_now), (roll_call, 0, signed_in), *drafts])
    sessions = tuple(t.id for t in tasks if not t.flags.delivery_only)
    tasks = [replace(t, follow_up=sessions if t.release == WELCOME_AT else sessions[:1]) if t.flags.delivery_only else t
             for t in tasks]
    return tasks, []


# ------------------------------------------------------------------ core course instruction


@dataclass(frozen=True)
class Syllabus:
    """What one course taught: its section, its textbook and every protocol version in order."""

    section: CourseSection
    shelf: Shelf
    rules: tuple[Rule, ...]


@dataclass(frozen=True)
class Taught:
    tasks: list[Task]
    triggers: list[Trigger]
    syllabi: list[Syllabus]


def textbook(ctx: TermContext, section: CourseSection) -> Shelf | None:
    """The course's textbook, when it has one with enough readable articles."""
    for text in ctx.world.world.texts:
        if text.kind == "textbook" and text.course.strip().casefold() == section.name.strip().casefold():
            shelf = Shelf(text)
            return shelf if shelf.families() else None
    return None


def course_meetings(ctx: TermContext, scope: int, section: CourseSection, shelf: Shelf) -> list[Meeting]:
    begin, finish = class_span(section)
    skip = midterm_week(section)
    where = ctx.world.describe(section.building_id)
    meetings = []
    for week, weekday, start in class_meetings(section):
        if week == skip:
            continue
        t = week * WEEK + weekday * MINUTES_PER_DAY + start
        header = (f"{section.name} ({section.code}), class of {date_label(t // MINUTES_PER_DAY)} "
                  f"{clock_label(t)}-{clock_label(t - begin + finish)}, {section.room}, {where}.")
        meetings.append(Meeting(start=t, end=t - begin + finish, building=section.building_id,
                                book=shelf.title, title=section.name, header=header, scope=scope))
    return meetings


def generate_courses(ctx: TermContext, per_course: int = COURSE_TASKS) -> Taught:
    """Every timetabled course's class questions (``ctx.count(per_course)`` each) and its syllabus."""
    courses = [(section, textbook(ctx, section)) for section in ctx.timetable]
    taught = [(scope, section, shelf) for scope, (section, shelf) in enumerate(courses) if shelf is not None]
    meetings: list[Meeting] = []
    counts: list[int] = []
    for scope, section, shelf in taught:
        mine = course_meetings(ctx, scope, section, shelf)
        meetings += mine
        counts += spread(ctx.count(per_course), len(mine))
    booked = book_times(ctx.timeline, meetings, counts, "lecture")
    drafts: list[tuple[int, int, Task]] = []
    syllabi: list[Syllabus] = []
    names: set[str] = set()
    for scope, section, shelf in taught:
        sessions = [b for b in booked if b.meeting.scope == scope and b.releases]
        total = sum(len(b.releases) for b in sessions)
        lessons, rules = plan_scope(
            ctx.rng(f"lectures|{section.code}"), sessions, {shelf.title: shelf},
            reviews=round(total * COURSE_REVIEW_SHARE), revisions=ctx.count(REVISIONS), gap_days=7, names=names,
        )
        where = f"in {section.name}"
        for lesson in lessons:
            drafts.append((lesson.release, len(drafts), lesson_task(COURSES, lesson, lesson_text(lesson, where, exams=True))))
        syllabi.append(Syllabus(section=section, shelf=shelf, rules=tuple(rules)))
    return Taught(tasks=numbered("lecture", drafts), triggers=[], syllabi=syllabi)



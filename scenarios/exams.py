"""Midterm and Final Exams: statements about the protocols a course taught; the student picks the true one.

**Midterms** (``midterm_exams``): in the midterm week (Week 10; see ``lectures.midterm_week``),
at the course's first class meeting of that week, in its room. Ten questions per course at
scale 1. The first is released 45 minutes before the class, the rest follow during the class;
every one is handed out in the room only (withheld until the student is in the building) and
judged ``attended`` + ``answer``, so a student who is not there earns nothing for any of them. Questions draw on the protocols introduced before the
midterm, as they stand on the exam day.

**Finals** (``final_exams``): online (no place) in Week 19 between 08:00 and 12:00, one block of
ten questions per course, on the protocols introduced after the midterm as they stand then
(all of the course's protocols when none was). Like a class session, a morning of finals holds
``SLACK`` minutes per further question after its last block, so flexible work placed that week
(a disruption task) never waits on a slow student's backlog.

**A question**: four statements "applying <protocol> to <article> gives <value>", each built
from a different (protocol, article) item as in the paper's composite questions. One states
the computed value; each of the other three states, for its own article, what another taught
protocol (or a fitting family with another parameter) gives (``protocols.alternatives``), never
the value under a replaced parameter, so they are false for a student who missed a revision too; no two of
them are about the same item. When the true item's protocol was revised before the exam, one wrong statement
is that item under the old parameter (the task's ``stale`` plan picks it) and the other two are one item of a
revised protocol under two parameters that are neither its own nor its old one: the true item is then one of
two items stated twice, not the only one (it was, and a student picking from the repeated item was right
half the time).

Every exam task is long-term (the protocols are only named) and counts toward ``exam``.
The oracle reads the true statement's article and answers.

Use: ``generate(ctx, taught.syllabi) -> (tasks, triggers)`` after ``lectures.generate_courses``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from campus.kernel.clock import MINUTES_PER_DAY, clock_label, date_label
from campus.kernel.schedule import Trigger
from campus.scenarios.context import TermContext
from campus.scenarios.lectures import Meeting, Syllabus, book_times, class_meetings, class_span, midterm_week, numbered
from campus.scenarios.protocols import Choice, Cited, Rule, Shelf, alternatives, lay_out, other_values
from campus.scenarios.task import Flags, Task
from campus.scenarios.timeline import SLACK, WEEK, slots

MIDTERMS = "midterm_exams"
FINALS = "final_exams"
PHASE = "exam"
MIDTERM_SYSTEMS = ("bibliography", "calendar", "geography", "map")
FINAL_SYSTEMS = ("bibliography", "calendar")
QUESTIONS = 10
FINAL_WEEK = 19
FINAL_GAP = 10
"""Minutes between two final questions; less when two courses' finals would not fit in one morning."""
MIN_GAP = 3
MORNING = (8, 12)
_ATTEMPTS = 500


def in_force(rules: Sequence[Rule], t: int) -> list[Rule]:
    """Each protocol's version at minute ``t`` (protocols introduced by then), in order of introduction."""
    current: dict[str, Rule] = {}
    for rule in rules:
        if rule.since <= t:
            current[rule.name] = rule
    return sorted(current.values(), key=lambda r: (r.introduced, r.name))


def statement(rule: Rule, article: Cited, value: int) -> str:
    return f"Applying the {rule.name} Protocol to {article.short()} gives {value}."


def compose(rng: random.Random, shelf: Shelf, pool: Sequence[Rule], true_rule: Rule) -> tuple[Choice, Cited]:
    """One composite question whose true statement is about ``true_rule``; returns it and the article to read."""
    article = shelf.articles[rng.choice(shelf.eligible[true_rule.family])]
    right = statement(true_rule, article, true_rule.value(article))
    stale_value = true_rule.stale_value(article)
    if stale_value is not None:
        stale = statement(true_rule, article, stale_value)
        return lay_out(rng, right, [stale, *_decoy_pair(rng, shelf, pool, (true_rule.name, article.id))], stale), article
    wrong: list[str] = []
    items = {(true_rule.name, article.id)}
    for _ in range(_ATTEMPTS):
        if len(wrong) == 3:
            return lay_out(rng, right, wrong), article
        rule = rng.choice(pool)
        other = shelf.articles[rng.choice(shelf.eligible[rule.family])]
        if (rule.name, other.id) in items:
            continue
        old = rule.stale_value(other)
        excluded = [rule.value(other)] + ([] if old is None else [old])
        mistakes = alternatives(rng, other, shelf, [r for r in pool if r.name != rule.name], excluded)[:4]
        if mistakes:
            items.add((rule.name, other.id))
            wrong.append(statement(rule, other, rng.choice(mistakes)))
    raise ValueError(f"{shelf.title}: could not build three distinct wrong statements about {true_rule.name}")


def _decoy_pair(rng: random.Random, shelf: Shelf, pool: Sequence[Rule], taken: tuple[str, str]) -> list[str]:
    """Two false statements about one (revised protocol, article) item other than ``taken``, under two parameters of
    its family that are neither its own nor its old one: beside a true statement and its stale twin (one item twice)
    they leave a student who sees only the statements two such pairs to choose between."""
    revised = [rule for rule in pool if rule.old_k is not None]
    for _ in range(_ATTEMPTS):
        rule = rng.choice(revised)
        other = shelf.articles[rng.choice(shelf.eligible[rule.family])]
        if (rule.name, other.id) == taken:
            continue
        values = other_values(rng, rule.family, other, (rule.k, rule.old_k), ())
        if len(values) >= 2:
            return [statement(rule, other, value) for value in values[:2]]
    raise ValueError(f"{shelf.title}: no revised protocol gives a decoy pair beside {taken[0]}")


def _true_rules(rng: random.Random, pool: Sequence[Rule], count: int) -> list[Rule]:
    """Which protocol each question is about: revised ones first, then the rest, cycling; order shuffled."""
    revised = [r for r in pool if r.old_k is not None]
    plain = [r for r in pool if r.old_k is None]
    rng.shuffle(revised)
    rng.shuffle(plain)
    order = revised + plain
    picked = [order[i % len(order)] for i in range(count)]
    rng.shuffle(picked)
    return picked


def _question_text(title: str, number: int, count: int, choice: Choice) -> str:
    return (
        f"{title}, question {number} of {count}. The protocols are the ones taught in this course, as they stand "
        f"today. Exactly one of these statements is true:\n{choice.text()}\nReply with the letter of the true statement."
    )


def _exam_task(scenario: str, release: int, text: str, choice: Choice, article: Cited, rule: Rule, *,
               place: str | None = None, starts: int | None = None) -> Task:
    plan: tuple[str, ...] = (f"goto:{place}",) if place is not None else ()
    plan += (article.lookup(),)
    parts = ([{"check": "attended"}] if place is not None else []) + [{"check": "answer", "letter": choice.letter}]
    item = {"protocol": rule.name, "family": rule.family, "k": rule.k, "old_k": rule.old_k,
            "book": article.book, "article": article.id, "value": rule.value(article)}
    return Task(
        id="", scenario=scenario, phase=PHASE, release=release, instruction=text,
        systems=MIDTERM_SYSTEMS if scenario == MIDTERMS else FINAL_SYSTEMS, evaluator="parts",
        ground_truth={"parts": parts, "ordered": False, "item": item}, required_place=place, starts=starts,
        flags=Flags(long_term=True, counts_toward="exam"),
        solution=(*plan, f"answer:{choice.letter}"),
        stale=(*plan, f"answer:{choice.stale_letter}") if choice.stale_letter is not None else None,
    )


def midterm_meeting(ctx: TermContext, scope: int, syllabus: Syllabus) -> Meeting:
    section = syllabus.section
    week = midterm_week(section)
    _, weekday, start = next(m for m in class_meetings(section) if m[0] == week)
    begin, finish = class_span(section)
    t = week * WEEK + weekday * MINUTES_PER_DAY + start
    header = (f"{section.name} ({section.code}) midterm exam, {date_label(t // MINUTES_PER_DAY)} "
              f"{clock_label(t)}-{clock_label(t - begin + finish)}, {section.room}, {ctx.world.describe(section.building_id)}.")
    return Meeting(start=t, end=t - begin + finish, building=section.building_id, book=syllabus.shelf.title,
                   title=section.name, header=header, scope=scope)


def _midterms(ctx: TermContext, syllabi: Sequence[Syllabus], count: int) -> list[tuple[int, int, Task]]:
    """A course that taught nothing before its midterm (possible only at tiny scales) has none."""
    meetings = [midterm_meeting(ctx, scope, s) for scope, s in enumerate(syllabi)]
    pools = [in_force(s.rules, m.start) for s, m in zip(syllabi, meetings)]
    held = [i for i, pool in enumerate(pools) if pool]
    booked = book_times(ctx.timeline, [meetings[i] for i in held], [count] * len(held), "midterm")
    drafts: list[tuple[int, int, Task]] = []
    for i, session in zip(held, booked):
        syllabus, pool, meeting = syllabi[i], pools[i], session.meeting
        rng = ctx.rng(f"midterm|{syllabus.section.code}")
        title = f"Midterm exam in {syllabus.section.name}"
        for number, (release, rule) in enumerate(zip(session.releases, _true_rules(rng, pool, count)), start=1):
            choice, article = compose(rng, syllabus.shelf, pool, rule)
            text = _question_text(title, number, count, choice)
            starts = meeting.start if number == 1 else None
            if number == 1:
                text = f"{meeting.header}\n{text}"
            task = _exam_task(MIDTERMS, release, text, choice, article, rule, place=meeting.building, starts=starts)
            drafts.append((release, len(drafts), task))
    return drafts


def _finals(ctx: TermContext, syllabi: Sequence[Syllabus], count: int) -> list[tuple[int, int, Task]]:
    gap = max(MIN_GAP, min(FINAL_GAP, (MORNING[1] - MORNING[0]) * 60 // (2 * count)))
    block = count * gap
    latest = MORNING[1] - block / 60
    hours = [h / 2 for h in range(2 * MORNING[0], int(2 * latest) + 1)]
    candidates = slots([FINAL_WEEK], range(7), hours)
    drafts: list[tuple[int, int, Task]] = []
    block_ends: dict[int, list[int]] = {}
    for scope, syllabus in enumerate(syllabi):
        section = syllabus.section
        start = ctx.timeline.first_free(candidates, block, f"final: {section.name} ({section.code})")
        block_ends.setdefault(start // MINUTES_PER_DAY, []).append(start + block)
        rng = ctx.rng(f"final|{section.code}")
        midterm = midterm_meeting(ctx, scope, syllabus).start
        rules = in_force(syllabus.rules, start)
        pool = [r for r in rules if r.introduced > midterm] or rules
        title = f"Final exam in {section.name} (online)"
        for number, rule in enumerate(_true_rules(rng, pool, count), start=1):
            release = start + (number - 1) * gap
            choice, article = compose(rng, syllabus.shelf, pool, rule)
            drafts.append((release, len(drafts), _exam_task(FINALS, release, _question_text(title, number, count, choice), choice, article, rule)))
    for day, ends in block_ends.items():
        ctx.timeline.hold(max(ends), (len(ends) * count - 1) * SLACK, f"finals on day {day} (backlog)")
    return drafts


def generate(ctx: TermContext, syllabi: Sequence[Syllabus], per_course: int = QUESTIONS) -> tuple[list[Task], list[Trigger]]:
    """Midterm then final questions (``ctx.count(per_course)`` per course each) for every course that taught a protocol."""
    taught = [s for s in syllabi if s.rules]
    count = ctx.count(per_course)
    tasks = numbered("midterm", _midterms(ctx, taught, count)) + numbered("final", _finals(ctx, taught, count))
    return tasks, []


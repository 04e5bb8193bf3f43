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

**A question**: four statements "applying <protocol> to <article> gives <value>", each about a different
(protocol, article) item as in the paper's composite questions. Each question names one protocol for sure (its
*anchor*: revised ones first, then the rest, cycling) and draws the other three i.i.d. from the protocols in force;
only then is the true statement drawn among the four. Every statement comes from a *pair* of articles of its
protocol's family whose readings differ by the difference of two parameters of the protocol's *lineup*
(``protocols.Rule.lineup``; ``compose`` says how): the true statement cites one end, a false one the other end under
another lineup parameter, and both give the value the protocol's parameter gives for a real reading. So a student
who knows the parameters but reads nothing, one who reads the cited articles but missed the lectures, and one who
reads only the options see true and false statements drawn alike. A revised anchor names revised protocols only,
and one false statement is the *stale* one, under its protocol's old parameter (the task's ``stale`` plan picks it).

Why so: the true statement used to be about a protocol spread evenly over the exam while the false ones named
protocols at random, so a student who picked the statement naming the protocol named least so far scored 31 %
(``agents.adversarial.named_picks``), and one who pooled which reading explains each statement and picked
the rarest scored 29 % (``pooled_picks``); the term audit holds both, and their opposites, to chance. A student
who kept every lecture's rule but never read an article answered 57 % (44 % from the rules alone): a revised
protocol's questions were two pairs, the true and the stale statement about one item, told apart from the other pair
by the protocol's old parameter, and a false value that no reading could give under the protocol's parameter was
struck out. When a false statement then gave its own article's value under another parameter, the reading it implied
was a real one shifted by a parameter difference, and readings crowd at small numbers: the statement implying the
smallest reading was the true one 28 % of the time (30 % on the published world), and a student who knew how often
each reading occurs in the world's other books 30 % (36 % published). The audit holds the rememberer
(``remembered_guesses``) to chance too.

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
from campus.scenarios.protocols import FAMILIES, LETTERS, Choice, Cited, Rule, Shelf, lay_out
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


def in_force(rules: Sequence[Rule], t: int) -> list[Rule]:
    """Each protocol's version at minute ``t`` (protocols introduced by then), in order of introduction."""
    current: dict[str, Rule] = {}
    for rule in rules:
        if rule.since <= t:
            current[rule.name] = rule
    return sorted(current.values(), key=lambda r: (r.introduced, r.name))


def statement(rule: Rule, article: Cited, value: int) -> str:
    return f"Applying the {rule.name} Protocol to {article.short()} gives {value}."


def compose(rng: random.Random, shelf: Shelf, pool: Sequence[Rule], anchor: Rule) -> tuple[Choice, Cited, Rule]:
    """One composite question naming ``anchor``; returns it, the article to read and the true statement's protocol.

    The protocols are drawn first and the true statement among them after, so which statement is true does not depend
    on the protocols a question names. Every statement about a protocol with parameter ``k`` comes from a *pair* of
    its family's articles whose readings differ by ``k' - k`` for another parameter ``k'`` of its lineup: the true
    statement cites the pair's *target* and gives its value under ``k``; a false one cites the *source* and gives its
    value under ``k'``, which is the target's value under ``k`` again. So a student who knows ``k`` but reads nothing
    sees a real reading implied by either; one who reads the cited article but does not know ``k`` sees a lineup
    parameter whose pair lies ``k' - k`` away either way (the sources of the pairs ``d`` apart are the targets of the
    pairs ``-d`` apart). A revised anchor makes every protocol a revised one and one false statement the *stale* one,
    the pair's ``k'`` being the old parameter (the statement a student who missed the revisions takes for true; the
    other false statements avoid old parameters). A protocol with no pair left at any of its parameters (rare: a
    family of few, far-apart readings) takes an article of its family and, for a false statement, a parameter its
    own one allows where there is one (``Family.unapply``)."""
    revised = anchor.old_k is not None
    pool = [rule for rule in pool if rule.old_k is not None] if revised else pool
    rules = [anchor, *(rng.choice(pool) for _ in range(len(LETTERS) - 1))]
    truth = rng.randrange(len(rules))
    stale = rng.choice([i for i in range(len(rules)) if i != truth]) if revised else None
    stated: dict[str, set[int]] = {rule.name: {rule.k} | ({rule.old_k} if revised and rule.old_k is not None else set())
                                   for rule in rules}
    items: list[tuple[Rule, Cited]] = []
    statements = []
    values: set[int] = set()
    for i, rule in enumerate(rules):
        taken = {article.id for other, article in items if other.name == rule.name}
        if i == truth:
            cited = _paired(rng, shelf, rule, [k for k in rule.lineup if k != rule.k], TARGET, taken, values)[1]
            value = rule.value(cited)
        else:
            under = [rule.old_k] if i == stale and rule.old_k is not None else sorted(set(rule.lineup) - stated[rule.name])
            k, cited = _paired(rng, shelf, rule, under, SOURCE, taken, values)
            stated[rule.name].add(k)
            value = rule.value_under(k, cited)
        items.append((rule, cited))
        values.add(value)
        statements.append(statement(rule, cited, value))
    wrong = [text for i, text in enumerate(statements) if i != truth]
    rule, article = items[truth]
    return lay_out(rng, statements[truth], wrong, None if stale is None else statements[stale]), article, rule


SOURCE, TARGET = 0, 1
"""The ends of a pair of articles (``Shelf.pairs``): a false statement cites the source, the true one the target."""


def _paired(rng: random.Random, shelf: Shelf, rule: Rule, under: Sequence[int], end: int, taken: set[str],
            values: set[int]) -> tuple[int, Cited]:
    """A parameter among ``under`` with a pair of articles ``k - rule.k`` apart, drawn evenly among those that have one,
    and the ``end`` of such a pair drawn evenly, not one of ``taken`` and giving none of ``values``; else the fallback
    of ``compose``. (Two statements of one question never give one value: a true and a false statement about one
    protocol drawn from one list of pairs shared a target, and so a value, more often than two false ones did; the
    true statement was among the equal values 60 % of the time where they made up 54 % of the statements.)"""
    measure = FAMILIES[rule.family].measure
    found = []
    for k in under:
        pairs = [pair for pair in shelf.pairs(rule.family, k - rule.k)
                 if pair[end].id not in taken and (measure(pair[TARGET]) or 0) + rule.k not in values]
        if pairs:
            found.append((k, pairs))
    if found:
        k, pairs = rng.choice(found)
        return k, rng.choice(pairs)[end]
    free = [shelf.articles[p] for p in shelf.eligible[rule.family] if shelf.articles[p].id not in taken]
    if not free:
        raise ValueError(f"{shelf.title}: too few articles for distinct statements about {rule.name}")
    article = rng.choice(free)
    if end == TARGET:
        return rule.k, article
    allowed = [k for k in under if FAMILIES[rule.family].unapply(rule.value_under(k, article), rule.k) is not None]
    return rng.choice(allowed or list(under)), article


def _anchors(rng: random.Random, pool: Sequence[Rule], count: int) -> list[Rule]:
    """The protocol each question names for sure: revised ones first, then the rest, cycling; order shuffled. (Which
    statement is true is drawn apart, in ``compose``.)"""
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
        for number, (release, anchor) in enumerate(zip(session.releases, _anchors(rng, pool, count)), start=1):
            choice, article, rule = compose(rng, syllabus.shelf, pool, anchor)
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
        for number, anchor in enumerate(_anchors(rng, pool, count), start=1):
            release = start + (number - 1) * gap
            choice, article, rule = compose(rng, syllabus.shelf, pool, anchor)
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


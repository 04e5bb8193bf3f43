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
only then is the true statement drawn among the four. A false statement gives its item's value under another
parameter of the protocol's *lineup* (``protocols.Rule.lineup``: four parameters of its family, the old one among
them when it was revised), one that the protocol's own parameter could also give from some reading where there is
one (``Family.unapply``), so a student who knows the parameters but reads nothing strikes out almost none.
A revised anchor names revised protocols only, and one false statement is the *stale* one: its item under its
protocol's old parameter (the task's ``stale`` plan picks it); the other false statements avoid old parameters.

**Articles across a course's exams** (``Cites``, shared by a course's midterm and final): an item's article is one
the course's exams have not yet cited under the protocol's family, while the family has one (``_items``); when its
eligible articles run out, one whose real reading the fewest earlier statements imply, then the least cited. A false
statement's parameter is then one whose value implies a reading the pair's earlier statements backed as often as
they backed the true reading (none, for a fresh pair), where the lineup has one (``_false_parameter``; the stale
item likewise, ``_stale_item``): whether a statement is true or false, the earlier statements about its pair back
the reading it implies equally often.

Why so: the true statement used to be about a protocol spread evenly over the exam while the false ones named
protocols at random, so a student who picked the statement naming the protocol named least so far scored 31 %
(``agents.adversarial.named_picks``), and one who pooled which reading explains each statement and picked
the rarest scored 29 % (``pooled_picks``); the term audit holds both, and their opposites, to chance. And a student
who kept every lecture's rule but never read an article answered 57 % (44 % from the rules alone; the rest from the
readings the lectures' options gave away): a revised protocol's questions were two pairs, the true and the stale
statement about one item, told apart from the other pair by the protocol's old parameter (96 %), and a false value
that no reading could give under the protocol's parameter (a reading below 1; not divisible by a multiplying
protocol's factor) was struck out. The audit holds this student (``remembered_guesses``) to chance too.
While each statement drew its article on its own, a course's exams cited one (article, family) pair again in a third
of their statements (207-292 of 640 per seed at scale 1; now 64-158, all in families whose articles ran out), and
the *pooled rememberer* (``agents.adversarial.pooled_rememberer``: keeps the rules, reads nothing, tallies the
reading each statement's value implies per (book, article, family), the old parameter of a revision included, and
takes the statement whose reading the most other statements back) answered 33.3 % of the exam questions of
generated seeds 0-5 and published seed 0 (373 of 1,120; 35.6 % of published seeds 0-9), since true statements about
one article imply its real reading whichever protocol of the family they name while false ones scatter. Now 25.4 %
(285 of 1,120; published seeds 0-9 25.8 %, generated seeds 30-89 26.3 %, where striking out what the parameter rules
out and drawing among the rest gives 26.6 %).

Every exam task is long-term (the protocols are only named) and counts toward ``exam``.
The oracle reads the true statement's article and answers.

Use: ``generate(ctx, taught.syllabi) -> (tasks, triggers)`` after ``lectures.generate_courses``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

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


Pair = tuple[str, str]
"""(family, article id): every statement citing the article under a protocol of the family tells a student who keeps
the rules a reading of it (the value run back through the protocol: ``Family.unapply``), the true ones its real one."""


@dataclass
class Cites:
    """What a course's exams have stated so far, over all its exams of the term (the midterm's carry over to the
    final): how often each (family, article) pair was cited, and how many of its statements imply each reading under
    a parameter a student could know of their protocol (its own, and the old one of a revised protocol)."""

    cited: Counter[Pair] = field(default_factory=Counter)
    implied: dict[Pair, Counter[int]] = field(default_factory=dict)

    def backing(self, rule: Rule, article: Cited, k: int | None = None) -> int:
        """How many statements so far imply the reading ``rule`` under ``k`` (default: its own parameter, the true
        reading) gives for ``article``, run back through the protocol's own parameter (what a student who keeps the
        rule and pools the statements counts for that statement)."""
        reading = FAMILIES[rule.family].unapply(rule.value_under(rule.k if k is None else k, article), rule.k)
        return self.implied.get((rule.family, article.id), Counter())[reading] if reading is not None else 0

    def record(self, rule: Rule, article: Cited, value: int) -> None:
        family = FAMILIES[rule.family]
        readings = {family.unapply(value, k) for k in (rule.k, rule.old_k) if k is not None}
        self.implied.setdefault((rule.family, article.id), Counter()).update(r for r in readings if r is not None)


def compose(rng: random.Random, shelf: Shelf, pool: Sequence[Rule], anchor: Rule,
            cites: Cites | None = None) -> tuple[Choice, Cited, Rule]:
    """One composite question naming ``anchor``; returns it, the article to read and the true statement's protocol.

    Each item's article is one its family has not cited yet in the course's exams where there is one (``cites``,
    updated; ``_items``), and a false statement's value implies a reading the pair's earlier statements backed as
    often as they backed the true reading, where it can (``_false_parameter``). The items are chosen first and the
    true one is drawn among them after, so which statement is true does not depend on the protocols a question
    names. A false statement gives its item's value under another parameter of the protocol's lineup, never one
    stated of the protocol already in the question, and one its protocol's parameter allows where there is one
    (``Family.unapply``: a reading the family could take), so a student who knows the parameters but reads nothing
    cannot strike it out. A revised anchor makes every item one of a revised protocol and one false statement the
    *stale* one: its item under the protocol's old parameter, the statement a student who missed the revisions takes
    for the true one (the other false statements then avoid old parameters)."""
    cites = Cites() if cites is None else cites
    revised = anchor.old_k is not None
    pool = [rule for rule in pool if rule.old_k is not None] if revised else pool
    items = _items(rng, shelf, [anchor, *(rng.choice(pool) for _ in range(len(LETTERS) - 1))], cites)
    truth = rng.randrange(len(items))
    stale = _stale_item(rng, items, truth, cites) if revised else None
    stated: dict[str, set[int]] = {rule.name: {rule.k} | ({rule.old_k} if revised and rule.old_k is not None else set())
                                   for rule, _ in items}
    statements = []
    values = []
    for i, (rule, cited) in enumerate(items):
        k = (rule.k if i == truth else rule.old_k if i == stale
             else _false_parameter(rng, rule, cited, stated[rule.name], cites))
        assert k is not None
        stated[rule.name].add(k)
        values.append(rule.value_under(k, cited))
        statements.append(statement(rule, cited, values[-1]))
    for (rule, cited), value in zip(items, values):
        cites.record(rule, cited, value)
    wrong = [text for i, text in enumerate(statements) if i != truth]
    rule, article = items[truth]
    return lay_out(rng, statements[truth], wrong, None if stale is None else statements[stale]), article, rule


def _stale_item(rng: random.Random, items: Sequence[tuple[Rule, Cited]], truth: int, cites: Cites) -> int:
    """Which false statement gives its item under the protocol's old parameter: one whose value ``k`` allows too, and of
    those one whose value implies a reading backed as often as its true reading (``_false_parameter``)."""
    others = [i for i in range(len(items)) if i != truth]
    allowed = [i for i in others if _allows(items[i][0], items[i][1], items[i][0].old_k)] or others
    gap = {i: abs(cites.backing(*items[i], items[i][0].old_k) - cites.backing(*items[i])) for i in allowed}
    return rng.choice([i for i in allowed if gap[i] == min(gap.values())])


def _allows(rule: Rule, article: Cited, k: int | None) -> bool:
    """Whether a student who knows only ``rule.k`` could take the value under ``k`` for true (``Family.unapply``)."""
    return k is not None and FAMILIES[rule.family].unapply(rule.value_under(k, article), rule.k) is not None


def _false_parameter(rng: random.Random, rule: Rule, article: Cited, stated: set[int], cites: Cites) -> int:
    """A lineup parameter not in ``stated``: one under which a student who knows only ``rule.k`` could take the stated
    value for true (``Family.unapply``), where there is one; of those, one whose value implies a reading that the
    course's earlier statements about the (family, article) pair backed as often as they backed its true reading, or
    as nearly as can be (``cites``: none at all while the pair's true reading is unbacked), so that a student who
    pools the statements about a pair finds a false statement backed as often as the true one would have been."""
    spare = [k for k in rule.lineup if k not in stated]
    allowed = [k for k in spare if _allows(rule, article, k)] or spare
    truth = cites.backing(rule, article)
    gap = {k: abs(cites.backing(rule, article, k) - truth) for k in allowed}
    return rng.choice([k for k in allowed if gap[k] == min(gap.values())])


def _items(rng: random.Random, shelf: Shelf, rules: Sequence[Rule], cites: Cites) -> list[tuple[Rule, Cited]]:
    """An article of its family for each of ``rules``, no (protocol, article) item twice: drawn among the family's
    eligible articles the course's exams have not cited under that family yet (``cites``, whose counts it updates),
    so no (article, family) pair comes up twice in a course's exams until the family's eligible articles run out;
    then among those whose real reading the fewest statements so far implied, cited least. (Drawn independently, a
    third of the statements repeated a pair, and a student who keeps the rules but reads nothing took the reading
    most of a pair's statements implied: true statements about one article all imply its reading, whichever protocol
    of the family they name, while false ones scatter; ``agents.adversarial.pooled_rememberer``.)"""
    items: list[tuple[Rule, Cited]] = []
    for rule in rules:
        named = {article.id for r, article in items if r.name == rule.name}
        candidates = [shelf.articles[p] for p in shelf.eligible[rule.family] if shelf.articles[p].id not in named]
        if not candidates:
            raise ValueError(f"{shelf.title}: too few articles for distinct statements about {rule.name}")
        rank = {article.id: (cites.cited[(rule.family, article.id)] > 0, cites.backing(rule, article),
                             cites.cited[(rule.family, article.id)]) for article in candidates}
        best = min(rank.values())
        article = rng.choice([article for article in candidates if rank[article.id] == best])
        cites.cited[(rule.family, article.id)] += 1
        items.append((rule, article))
    return items


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


def _midterms(ctx: TermContext, syllabi: Sequence[Syllabus], count: int,
              cites: dict[str, Cites]) -> list[tuple[int, int, Task]]:
    """A course that taught nothing before its midterm (possible only at tiny scales) has none. ``cites``: per book,
    what the course's exams have cited so far (updated)."""
    meetings = [midterm_meeting(ctx, scope, s) for scope, s in enumerate(syllabi)]
    pools = [in_force(s.rules, m.start) for s, m in zip(syllabi, meetings)]
    held = [i for i, pool in enumerate(pools) if pool]
    booked = book_times(ctx.timeline, [meetings[i] for i in held], [count] * len(held), "midterm")
    drafts: list[tuple[int, int, Task]] = []
    for i, session in zip(held, booked):
        syllabus, pool, meeting = syllabi[i], pools[i], session.meeting
        rng = ctx.rng(f"midterm|{syllabus.section.code}")
        title = f"Midterm exam in {syllabus.section.name}"
        so_far = cites.setdefault(syllabus.shelf.title, Cites())
        for number, (release, anchor) in enumerate(zip(session.releases, _anchors(rng, pool, count)), start=1):
            choice, article, rule = compose(rng, syllabus.shelf, pool, anchor, so_far)
            text = _question_text(title, number, count, choice)
            starts = meeting.start if number == 1 else None
            if number == 1:
                text = f"{meeting.header}\n{text}"
            task = _exam_task(MIDTERMS, release, text, choice, article, rule, place=meeting.building, starts=starts)
            drafts.append((release, len(drafts), task))
    return drafts


def _finals(ctx: TermContext, syllabi: Sequence[Syllabus], count: int,
            cites: dict[str, Cites]) -> list[tuple[int, int, Task]]:
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
        so_far = cites.setdefault(syllabus.shelf.title, Cites())
        for number, anchor in enumerate(_anchors(rng, pool, count), start=1):
            release = start + (number - 1) * gap
            choice, article, rule = compose(rng, syllabus.shelf, pool, anchor, so_far)
            drafts.append((release, len(drafts), _exam_task(FINALS, release, _question_text(title, number, count, choice), choice, article, rule)))
    for day, ends in block_ends.items():
        ctx.timeline.hold(max(ends), (len(ends) * count - 1) * SLACK, f"finals on day {day} (backlog)")
    return drafts


def generate(ctx: TermContext, syllabi: Sequence[Syllabus], per_course: int = QUESTIONS) -> tuple[list[Task], list[Trigger]]:
    """Midterm then final questions (``ctx.count(per_course)`` per course each) for every course that taught a protocol."""
    taught = [s for s in syllabi if s.rules]
    count = ctx.count(per_course)
    cites: dict[str, Cites] = {}  # per book: the midterm's citations carry over to the final
    midterms = numbered("midterm", _midterms(ctx, taught, count, cites))
    tasks = midterms + numbered("final", _finals(ctx, taught, count, cites))
    return tasks, []


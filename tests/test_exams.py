"""Midterm and Final Exams: counts, times and places, one true statement each, and the controls."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from campus.kernel.clock import MINUTES_PER_DAY
from campus.scenarios import exams, lectures
from campus.scenarios.protocols import FAMILIES
from campus.scenarios.task import Task
from campus.scenarios.timeline import at
from tests.scenario_play import play_tasks
from tests.test_lectures import class_calendar, context, timetable
from campus.world.index import WorldIndex

WEEK = 7 * MINUTES_PER_DAY
STATEMENT = re.compile(r"^([A-D])\) Applying the (\w+) Protocol to article (\S+) of '([^']+)' gives (\d+)\.$", re.MULTILINE)


@pytest.fixture(scope="module")
def term(world: WorldIndex) -> tuple[lectures.Taught, list[Task]]:
    ctx = context(world)
    lectures.generate_regulations(ctx)
    taught = lectures.generate_courses(ctx)
    return taught, exams.generate(ctx, taught.syllabi)[0]


def of(tasks: list[Task], scenario: str) -> list[Task]:
    return [t for t in tasks if t.scenario == scenario]


def test_counts_flags_and_ids(term: tuple[lectures.Taught, list[Task]]) -> None:
    _, tasks = term
    midterms, finals = of(tasks, exams.MIDTERMS), of(tasks, exams.FINALS)
    assert len(midterms) == 80 and len(finals) == 80
    assert all(t.flags.long_term and not t.flags.self_motivated and t.flags.counts_toward == "exam" for t in tasks)
    assert {t.phase for t in tasks} == {"exam"}
    assert [t.id for t in midterms] == [f"midterm-{n:03d}" for n in range(1, 81)]
    assert [t.id for t in finals] == [f"final-{n:03d}" for n in range(1, 81)]
    assert Counter(t.ground_truth["item"]["book"] for t in midterms) == Counter({s.shelf.title: 10 for s in term[0].syllabi})


def test_midterms_are_in_class_in_week_10(term: tuple[lectures.Taught, list[Task]]) -> None:
    taught, tasks = term
    midterms = of(tasks, exams.MIDTERMS)
    for syllabus in taught.syllabi:
        section = syllabus.section
        mine = [t for t in midterms if t.ground_truth["item"]["book"] == syllabus.shelf.title]
        first, rest = mine[0], mine[1:]
        assert first.required_place == section.building_id and first.starts // WEEK == 10
        assert first.starts % MINUTES_PER_DAY == lectures.class_span(section)[0]
        assert all(t.required_place == section.building_id and t.starts is None for t in rest)
        assert all(t.ground_truth["parts"][0] == {"check": "attended"} for t in mine)
        assert all(first.release < t.release for t in rest)
        assert all(t.release // MINUTES_PER_DAY == first.starts // MINUTES_PER_DAY for t in rest)


def test_an_absent_student_earns_nothing_at_a_midterm(world: WorldIndex, term: tuple[lectures.Taught, list[Task]]) -> None:
    """Every midterm question is handed out and judged in the room: answering right from elsewhere earns nothing."""
    taught, tasks = term
    book = taught.syllabi[0].shelf.title
    mine = [t for t in of(tasks, exams.MIDTERMS) if t.ground_truth["item"]["book"] == book]
    absent = play_tasks(world, mine, agent="absent")
    assert len(mine) == 10 and {absent[t.id].outcome for t in mine} == {"failure"}
    assert {absent[t.id].marks["attended"] for t in mine} == {0}
    oracle = play_tasks(world, mine, agent="oracle")
    assert {oracle[t.id].outcome for t in mine} == {"success"}


def test_finals_are_online_on_week_19_mornings(term: tuple[lectures.Taught, list[Task]]) -> None:
    for task in of(term[1], exams.FINALS):
        assert task.required_place is None and task.release // WEEK == 19
        assert 8 * 60 <= task.release % MINUTES_PER_DAY < 12 * 60


def test_exactly_one_statement_is_true_and_it_is_the_answer(term: tuple[lectures.Taught, list[Task]]) -> None:
    taught, tasks = term
    syllabi = {s.shelf.title: s for s in taught.syllabi}
    for task in tasks:
        syllabus = syllabi[task.ground_truth["item"]["book"]]
        rules = {r.name: r for r in exams.in_force(syllabus.rules, task.release)}
        articles = {a.id: a for a in syllabus.shelf.articles}
        statements = STATEMENT.findall(task.instruction)
        assert len(statements) == 4 and len({s[1:] for s in statements}) == 4
        true = [letter for letter, name, article, _, value in statements
                if rules[name].value(articles[article]) == int(value)]
        assert true == [task.ground_truth["parts"][-1]["letter"]], task.id


def test_a_stale_question_states_four_items_of_revised_protocols(term: tuple[lectures.Taught, list[Task]]) -> None:
    """Every question states four items once each. One with a stale plan names only revised protocols, and exactly one
    of its false statements (the stale letter's) is true under the old parameters: a student who missed the revisions
    picks it, and one who knows the parameters cannot tell the item stated under an old one from the true item."""
    taught, tasks = term
    syllabi = {s.shelf.title: s for s in taught.syllabi}
    staled = 0
    for task in tasks:
        item = task.ground_truth["item"]
        syllabus = syllabi[item["book"]]
        rules = {r.name: r for r in exams.in_force(syllabus.rules, task.release)}
        articles = {a.id: a for a in syllabus.shelf.articles}
        statements = STATEMENT.findall(task.instruction)
        assert len(statements) == 4 and len({(name, article) for _, name, article, _, _ in statements}) == 4, task.id
        if task.stale is None:
            continue
        staled += 1
        assert all(rules[name].old_k is not None for _, name, _, _, _ in statements), task.id
        under_old = [letter for letter, name, article, _, value in statements
                     if rules[name].stale_value(articles[article]) == int(value)]
        assert under_old == [task.stale[-1].removeprefix("answer:")] != [task.ground_truth["parts"][-1]["letter"]], task.id
    assert staled >= 10


def test_a_false_statement_is_one_its_protocols_parameter_allows(term: tuple[lectures.Taught, list[Task]]) -> None:
    """A student who knows every parameter but reads nothing strikes out a statement only when the reading its value
    implies is one no article could give (not a positive number, or a year out of range): 11 of this term's 480 false
    statements, where drawing the false parameters and the stale item uniformly left 23; and when the last number was
    multiplied, not added to, a value not divisible by the factor gave away 42 % of that family's false statements
    (seeds 6-13)."""
    taught, tasks = term
    syllabi = {s.shelf.title: s for s in taught.syllabi}
    false = struck = 0
    for task in tasks:
        syllabus = syllabi[task.ground_truth["item"]["book"]]
        rules = {r.name: r for r in exams.in_force(syllabus.rules, task.release)}
        letter = task.ground_truth["parts"][-1]["letter"]
        for option, name, _, _, value in STATEMENT.findall(task.instruction):
            rule = rules[name]
            allowed = FAMILIES[rule.family].unapply(int(value), rule.k) is not None
            assert allowed or option != letter, task.id
            false += option != letter
            struck += not allowed
    assert struck < 0.05 * false, (struck, false)


def test_false_statements_use_each_protocols_lineup(term: tuple[lectures.Taught, list[Task]]) -> None:
    """Over one exam, the false statements about a protocol give its own family's values under three parameters
    (its old one among them when it was revised), and two false statements of one question about one protocol
    never share a parameter: with the true one, four readings stated equally often, so counting them tells nothing."""
    taught, tasks = term
    syllabi = {s.shelf.title: s for s in taught.syllabi}
    used: dict[tuple[str, str], set[int]] = {}
    for task in tasks:
        syllabus = syllabi[task.ground_truth["item"]["book"]]
        rules = {r.name: r for r in exams.in_force(syllabus.rules, task.release)}
        articles = {a.id: a for a in syllabus.shelf.articles}
        letter = task.ground_truth["parts"][-1]["letter"]
        here: Counter[tuple[str, int]] = Counter()
        for option, name, article, _, value in STATEMENT.findall(task.instruction):
            rule = rules[name]
            k = next(k for k in FAMILIES[rule.family].params if rule.value_under(k, articles[article]) == int(value))
            assert k in rule.lineup, task.id
            if option != letter and (task.stale is None or k != rule.old_k):
                used.setdefault((task.scenario, name), set()).add(k)
                here[(name, k)] += 1
                assert k != rule.k, task.id
        assert set(here.values()) <= {1}, task.id
    assert all(len(ks) <= 3 for ks in used.values()), used
    assert max(len(ks) for ks in used.values()) == 3


def test_a_course_cites_an_article_once_per_family_until_the_family_runs_out(
        term: tuple[lectures.Taught, list[Task]]) -> None:
    """Over a course's midterm and final, a question cites an (article, family) pair its course's exams cited before
    (or twice itself) only when its statements of that family outnumber the family's eligible articles not cited yet.
    Drawn on their own, a third of the statements repeated a pair, and a student who keeps the rules but reads nothing
    took the reading most of a pair's statements implied (``agents.adversarial.pooled_rememberer``)."""
    taught, tasks = term
    syllabi = {s.shelf.title: s for s in taught.syllabi}
    cited: dict[tuple[str, str], set[str]] = {}
    statements = 0
    for task in sorted(tasks, key=lambda t: (t.release, t.id)):  # a course's questions in the order they are drawn
        syllabus = syllabi[task.ground_truth["item"]["book"]]
        rules = {r.name: r for r in exams.in_force(syllabus.rules, task.release)}
        here: dict[str, list[str]] = {}
        for _, name, article, _, _ in STATEMENT.findall(task.instruction):
            here.setdefault(rules[name].family, []).append(article)
        for family, articles in here.items():
            before = cited.setdefault((syllabus.shelf.title, family), set())
            unused = {syllabus.shelf.articles[p].id for p in syllabus.shelf.eligible[family]} - before
            fresh = set(articles) - before
            assert len(fresh) == min(len(articles), len(unused)), (task.id, family)
            statements += len(articles)
            before.update(articles)
    assert statements == 4 * len(tasks)


def test_exams_ask_about_their_half_of_the_course(term: tuple[lectures.Taught, list[Task]]) -> None:
    taught, tasks = term
    for syllabus in taught.syllabi:
        mine = [t for t in tasks if t.ground_truth["item"]["book"] == syllabus.shelf.title]
        midterm = next(t.starts for t in mine if t.starts is not None)
        introduced = {r.name: r.introduced for r in syllabus.rules}
        for task in mine:
            names = {name for _, name, _, _, _ in STATEMENT.findall(task.instruction)}
            before = {introduced[n] < midterm for n in names}
            assert before == {task.scenario == exams.MIDTERMS}, task.id


def test_letters_vary_and_generation_is_deterministic(world: WorldIndex, term: tuple[lectures.Taught, list[Task]]) -> None:
    letters = Counter(t.ground_truth["parts"][-1]["letter"] for t in term[1])
    assert set(letters) == set("ABCD") and letters["A"] < 0.4 * len(term[1])
    ctx = context(world)
    assert exams.generate(ctx, lectures.generate_courses(ctx).syllabi)[0] == term[1]


def test_the_controls_on_one_course(world: WorldIndex, term: tuple[lectures.Taught, list[Task]]) -> None:
    """The oracle passes, noop fails, stale fails exactly the questions with a stale statement."""
    taught, tasks = term
    ordered = sorted(taught.syllabi, key=lambda s: -sum(r.old_k is not None for r in s.rules))
    books = {ordered[0].shelf.title, ordered[1].shelf.title}
    mine = [t for t in tasks if t.ground_truth["item"]["book"] in books]
    setup = [class_calendar(timetable(world), at(0, 0, 8))]
    oracle = play_tasks(world, mine + setup, agent="oracle")
    assert {t.id: oracle[t.id].detail for t in mine if oracle[t.id].outcome != "success"} == {}
    assert all(oracle[t.id].marks["attended"] == 1 for t in mine if t.required_place)
    noop = play_tasks(world, mine + setup, agent="noop")
    assert {noop[t.id].outcome for t in mine} == {"failure"}
    with_stale = {t.id for t in mine if t.stale is not None}
    assert with_stale and all(t.ground_truth["item"]["old_k"] is not None for t in mine if t.id in with_stale)
    stale = play_tasks(world, mine + setup, agent="stale")
    assert {i for i, end in stale.items() if end.outcome == "failure"} == with_stale
    stateless = play_tasks(world, mine + setup, agent="stateless")
    assert {stateless[t.id].marks["attended"] for t in mine if t.required_place} == {0}

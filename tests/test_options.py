"""Answer options do not give the answer away: memory-free solvers score at chance on review questions.

Two test-side solvers attack every long-term (review) lecture question: one opens the cited
article and picks the option most related to what the article says; one sees only the four
numbers. Neither remembers a protocol, so each must score within chance + 5 points. The audit's
options-only rules of thumb (``option_guesses``) are held to the same on every long-term question,
exams included, and on the questions about a revised protocol alone (where the stale option made
the right one stand out).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from functools import cache

import pytest

from campus.agents.adversarial import OPTION_GUESSES, POOLED_GUESSES, option_guesses, pooled_guesses, protocol_likeness
from campus.scenarios.exams import FINALS, MIDTERMS
from campus.scenarios.lectures import COURSES, REGULATIONS
from campus.scenarios.protocols import FAMILIES, LETTERS, Cited, book_articles
from campus.scenarios.task import Task, Term
from campus.scenarios.term import generate_term
from campus.world.generate import generate_world
from campus.world.index import WorldIndex
from campus.world.model import World

SEEDS = range(6)
CHANCE = 1 / len(LETTERS)
MARGIN = 0.05
_OPTION = re.compile(r"^([A-D])\) (-?\d+)$", re.MULTILINE)
_NUMBER = re.compile(r"\d+")


@cache
def _world() -> World:
    return generate_world(0)


@cache
def _term(seed: int) -> Term:
    return generate_term(WorldIndex(_world()), seed=seed)


@cache
def _library() -> dict[tuple[str, str], Cited]:
    return {(a.book, a.id): a for text in _world().texts for a in book_articles(text)}


def reviews(term: Term) -> Iterator[Task]:
    for task in term.tasks:
        if task.scenario in (REGULATIONS, COURSES) and task.flags.long_term:
            yield task


def options(task: Task) -> list[tuple[str, int]]:
    return [(m.group(1), int(m.group(2))) for m in _OPTION.finditer(task.instruction)]


def readings(article: Cited) -> set[int]:
    """Everything a protocol might read from the article: every number in its body and every family's reading."""
    found = {int(n) for n in _NUMBER.findall(article.body) if len(n) <= 6}
    found |= {r for f in FAMILIES.values() if (r := f.measure(article)) is not None}
    return found


def explanations(value: int, seen: set[int]) -> int:
    """How many (reading, small parameter, operation) triples give ``value``."""
    return sum((value - r) in range(1, 13) for r in seen) + sum(r > 0 and value % r == 0 and value // r in range(2, 13) for r in seen)


def solve_testwise_likeness(task: Task, article: Cited) -> str:
    seen = readings(article)
    return max(options(task), key=lambda o: protocol_likeness(o[1], seen))[0]


def solve_testwise_families(task: Task, article: Cited) -> str:
    """Only the families' own readings (what a protocol of this term can read) count."""
    seen = {r for f in FAMILIES.values() if (r := f.measure(article)) is not None}
    return max(options(task), key=lambda o: protocol_likeness(o[1], seen))[0]


def solve_testwise_cluster(task: Task, article: Cited) -> str:
    """A protocol-like option with the most options one or two away (a parameter off by one is a classic distractor)."""
    seen = readings(article)
    shown = options(task)
    return max(shown, key=lambda o: (protocol_likeness(o[1], seen) > 0) + sum(1 <= abs(o[1] - v) <= 2 for _, v in shown))[0]


def solve_testwise_count(task: Task, article: Cited) -> str:
    seen = readings(article)
    return max(options(task), key=lambda o: explanations(o[1], seen))[0]


def _neighbours(value: int, others: Sequence[int]) -> int:
    return sum(1 for o in others if 1 <= abs(value - o) <= 2 or (o and value != o and value % o == 0))


def options_neighbours(task: Task, article: Cited) -> str:
    shown = options(task)
    return max(shown, key=lambda o: _neighbours(o[1], [v for _, v in shown if v != o[1]]))[0]


def options_middle(task: Task, article: Cited) -> str:
    """The second smallest value: neither extreme."""
    return sorted(options(task), key=lambda o: o[1])[1][0]


def options_closest(task: Task, article: Cited) -> str:
    """The value with the smallest total distance to the others."""
    shown = options(task)
    return min(shown, key=lambda o: sum(abs(o[1] - v) for _, v in shown))[0]


Solver = Callable[[Task, Cited], str]
SOLVERS: dict[str, Solver] = {
    "testwise-likeness": solve_testwise_likeness, "testwise-families": solve_testwise_families, "testwise-count": solve_testwise_count,
    "testwise-cluster": solve_testwise_cluster,
    "optionsonly-neighbours": options_neighbours, "optionsonly-middle": options_middle,
    "optionsonly-closest": options_closest,
}


def lower_bound(hits: int, n: int, z: float = 1.96) -> float:
    """The Wilson score interval's lower end (95 % by default)."""
    p = hits / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n)


def accuracy(solver: Solver, seeds: Sequence[int]) -> tuple[int, int]:
    hits = n = 0
    for seed in seeds:
        for task in reviews(_term(seed)):
            item = task.ground_truth["item"]
            article = _library()[(item["book"], item["article"])]
            letter = next(p["letter"] for p in task.ground_truth["parts"] if p["check"] == "answer")
            hits += solver(task, article) == letter
            n += 1
    return hits, n


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_memory_free_solvers_score_at_chance_on_reviews(name: str) -> None:
    hits, n = accuracy(SOLVERS[name], SEEDS)
    assert n > 600
    assert lower_bound(hits, n) <= CHANCE + MARGIN, f"{name}: {hits}/{n} = {hits / n:.1%}"


def long_term(term: Term) -> Iterator[Task]:
    for task in term.tasks:
        if task.scenario in (REGULATIONS, COURSES, MIDTERMS, FINALS) and task.flags.long_term:
            yield task


@pytest.mark.parametrize("revised", [False, True], ids=["all", "revised"])
@pytest.mark.parametrize("name", OPTION_GUESSES)
def test_the_audits_rules_of_thumb_score_at_chance(name: str, revised: bool) -> None:
    hits = n = 0
    for seed in SEEDS:
        for task in long_term(_term(seed)):
            if revised and task.ground_truth["item"]["old_k"] is None:
                continue
            picked = option_guesses(task.instruction).get(name)
            if picked is not None:
                hits += picked == next(p["letter"] for p in task.ground_truth["parts"] if p["check"] == "answer")
                n += 1
    assert n > 100
    assert lower_bound(hits, n) <= CHANCE + MARGIN, f"{name}: {hits}/{n} = {hits / n:.1%}"


def test_every_question_about_a_protocol_offers_its_lineup() -> None:
    """Each lecture question (taught, practised, revised or reviewed) offers the protocol's family's values of the
    article under four parameters, the same four in every question about the protocol, its parameter among them and,
    once revised, its old one too: pooling a protocol's questions shows the same readings each time."""
    lineups: dict[tuple[int, str], set[frozenset[int]]] = {}
    checked = 0
    for seed in SEEDS[:2]:
        for task in _term(seed).tasks:
            item = task.ground_truth.get("item")
            if task.scenario not in (REGULATIONS, COURSES) or not item or "protocol" not in item:
                continue
            family = FAMILIES[item["family"]]
            base = family.measure(_library()[(item["book"], item["article"])])
            assert base is not None
            by_value = {family.apply(base, k): k for k in family.params}
            params = frozenset(by_value[value] for _, value in options(task))
            assert len(params) == 4 and item["k"] in params and item["old_k"] in params | {None}, task.id
            lineups.setdefault((seed, item["protocol"]), set()).add(params)
            checked += 1
    assert checked > 500 and all(len(seen) == 1 for seen in lineups.values())
    assert len(lineups) < checked / 1.5  # protocols are asked about more than once (about twice each)


@pytest.mark.parametrize("strategy", POOLED_GUESSES)
def test_what_pools_the_questions_stays_at_chance(strategy: str) -> None:
    """The reading poolers (the commonest explanation was right on 35 % of reviews while a review's wrong options
    were other protocols' values) and the exams' name counters (the least-named protocol: 31 % while an exam spread
    its true protocols evenly) answer within chance + 5 points."""
    hits = n = 0
    for seed in SEEDS:
        asked = list(long_term(_term(seed)))
        picks = pooled_guesses([task.instruction for task in asked], lambda book, article: _library().get((book, article)))
        scored = [(picked, task) for picked, task in zip(picks[strategy], asked) if picked is not None]
        hits += sum(picked == task.solution[-1].partition(":")[2] for picked, task in scored)
        n += len(scored)
    assert n > 600
    assert lower_bound(hits, n) <= CHANCE + MARGIN, f"{hits}/{n} = {hits / n:.1%}"

"""The term audit: figures per scenario, checks that can fail, one exit code."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from campus.agents.adversarial import (
    OPTION_GUESSES, POOLED_GUESSES, REMEMBERED_GUESSES, backings, claims, explanations, inferred_picks, named_picks,
    option_guesses, pooled_picks, pooled_rememberer, remembered_guesses,
)
from campus.cli.main import app
from campus.lab.audit import (
    ABSENT_POINTS, AGENTS, DODGE_GUESS, LIBRARY_GUESS, POPULARITY_GUESS, PROBE_GUESSES, RECALL_GUESS, RECIPIENTS,
    STRUCTURE_GUESS, SeedResult, _course_guesses, _probe_guesses, clopper_pearson, summarise,
)
from campus.events import Popularity
from campus.kernel.schedule import Trigger
from campus.scenarios import course_selection as cs
from campus.scenarios.course_selection import catalogue, open_passes, recalls
from campus.scenarios.protocols import Cited
from campus.scenarios.play import Run
from campus.scenarios.term import generate_term
from campus.world.generate import generate_world
from campus.world.index import WorldIndex
from tests.test_sweep import ROOT, _interruptible, alive, needs_proc, workers_of


def test_the_exact_interval_matches_known_values() -> None:
    low, high = clopper_pearson(5, 20)
    assert (round(low, 4), round(high, 4)) == (0.0866, 0.491)
    assert clopper_pearson(0, 10)[0] == 0.0 and clopper_pearson(10, 10)[1] == 1.0
    low, high = clopper_pearson(1500, 6000)  # large samples: no overflow
    assert low < 0.25 < high and high - low < 0.03


def _seed(seed: int, **changes: object) -> SeedResult:
    ranks = {"noop": 0.0, "stateless": 0.2, "diligent": 0.4, "oracle": 1.0, "testwise": 0.5, "optionsonly": 0.5,
             "dawdler": 1.0, "absent": 0.3}
    result = SeedResult(seed=seed, headline={name: dict.fromkeys(("stugpa", "ltrr", "pis", "success"), value)
                                               for name, value in ranks.items()},
                        scenarios={name: {"x": (1, 1)} for name in AGENTS},
                        guesses={"testwise": (25, 100, 25.0), "optionsonly": (26, 100, 25.0),
                                 **dict.fromkeys(PROBE_GUESSES, (50, 100, 50.0))},
                        absent_points=dict.fromkeys(ABSENT_POINTS, 0.0), lateness=dict.fromkeys(AGENTS, 0))
    for key, value in changes.items():
        setattr(result, key, value)
    return result


def test_each_broken_promise_is_a_violation() -> None:
    assert summarise([_seed(0)])["violations"] == []
    tie = _seed(1)
    tie.headline["diligent"]["stugpa"] = tie.headline["stateless"]["stugpa"]
    guessing = _seed(2, guesses={"testwise": (60, 100, 25.0), "optionsonly": (25, 100, 25.0)})
    absent = _seed(3, absent_points={"attendance": 3.0, "exam": 0.0, "walks": 0.0})
    missing = SeedResult(seed=4, error="does not fit")
    violations = summarise([tie, guessing, absent, missing])["violations"]
    assert any("seed 1: stugpa not strictly ordered" in v for v in violations)
    assert any(v.startswith("testwise:") for v in violations)
    assert any("seed 3: absent earns" in v for v in violations)
    assert any("seed 4 does not generate" in v for v in violations)
    walked = _seed(5, absent_points={"attendance": 0.0, "exam": 0.0, "walks": 1.0})
    assert any("seed 5: absent earns" in v for v in summarise([walked])["violations"])
    told = _seed(6, guesses=_seed(6).guesses | {"question-only: which seat": (70, 100, 100 / 3)})
    assert summarise([told])["violations"] == ["question-only: which seat: 70/100 guesses at memory probes right, "
                                               "above chance 33.3% + 5 points"]
    paired = _seed(7, guesses=_seed(7).guesses | {"options: an item stated twice": (30, 60, 15.0)})
    assert summarise([paired])["violations"] == ["options: an item stated twice: 30/60 long-term questions right, "
                                                 "above chance 25.0% + 5 points"]
    for name in (RECALL_GUESS, POPULARITY_GUESS, STRUCTURE_GUESS):
        recalled = _seed(8, guesses=_seed(8).guesses | {name: (40, 50, 24.0)})
        assert summarise([recalled])["violations"] == [f"{name}: 40/50 long-term steps right, above chance 48.0% "
                                                       "+ 5 points"]
    guessed = _seed(10, guesses=_seed(10).guesses | {LIBRARY_GUESS: (25, 30, 3.0)})
    assert summarise([guessed])["violations"] == [f"{LIBRARY_GUESS}: 25/30 passed, above chance 10.0% + 5 points"]
    assert summarise([_seed(11, guesses=_seed(11).guesses | {LIBRARY_GUESS: (5, 30, 3.0)})])["violations"] == []
    eliminated = _seed(9)
    eliminated.unrecalled = ["planning-004", "planning-009"]
    assert summarise([eliminated])["violations"] == ["seed 9: 2 long-term course step(s) leave one section to pick "
                                                     "without memory, e.g. planning-004"]


def test_the_popularity_reader_is_at_chance_and_would_find_a_section_whose_popularity_alone_moved() -> None:
    """On a real term the reader is near chance. On the same term with the popularity the generator used to leave
    (the section meant moved, the others of its course as the catalogue has them), it is right on every step."""
    world = WorldIndex(generate_world(0))
    term = generate_term(world, 0, 0.3, disruptions=False, busy=False)
    right, asked, chance = _course_guesses(world, term)[0][POPULARITY_GUESS]
    assert asked >= 10 and clopper_pearson(right, asked)[0] <= chance / asked + 0.05, (right, asked, chance)
    cat = catalogue(world)
    leaks = []
    for task_id, step in recalls(world, term.tasks).items():
        task = term.by_id[task_id]
        if not task.flags.long_term:
            continue
        catalogued = step.meant.popularity
        band = cs.BANDS[open_passes(cat, step.meant, step.before)[0]]
        moved = next(v for v in range(band[0], band[1] + 1) if v != catalogued)
        values = {s.code: s.popularity for s in step.options} | {step.meant.code: moved}
        leaks += [Trigger(id=f"{task_id}-~leak-{code}", t=task.release, change=Popularity(code=code, value=value))
                  for code, value in values.items()]
    leaky = msgspec.structs.replace(term, world_changes=tuple(sorted(
        (*term.world_changes, *leaks), key=lambda trigger: (trigger.t, trigger.id))))
    assert _course_guesses(world, leaky)[0][POPULARITY_GUESS][:2] == (asked, asked)


def test_the_learners_are_held_to_their_recurrence_only_where_something_can_recur() -> None:
    busy: dict[str, list[str]] = {"oracle": [], "guesser": [], "fifo": []}
    good = _seed(0, busy=busy, recurrence={"learner": 0.0, "forgetful": 0.4})
    relapsed = _seed(1, busy=busy, recurrence={"learner": 0.1, "forgetful": 0.4})
    unpaired = _seed(2, busy=busy, recurrence={})
    summary = summarise([good, relapsed, unpaired])
    assert summary["violations"] == ["seed 1: recurrence learner 0.1, forgetful 0.4 (must be 0 and above 0)"]
    assert (summary["busy_days"]["learner_recurrence"], summary["busy_days"]["forgetful_recurrence"]) == (0.1, 0.4)
    alone = summarise([unpaired])["busy_days"]
    assert (alone["learner_recurrence"], alone["forgetful_recurrence"]) == (None, None)


def test_the_reading_poolers_pick_the_statement_explained_least_and_most_often_so_far() -> None:
    articles = {("Book", "art_a"): _article("art_a", "Room 5 holds 12 seats."),
                ("Book", "art_b"): _article("art_b", "Hall 40 has 2 doors.")}
    first = ("A) Applying the Tovar Protocol to article art_a of 'Book' gives 8.\n"  # 5 + 3: the first number
             "B) Applying the Mesk Protocol to article art_b of 'Book' gives 42.")  # 40 + 2: the largest number
    second = ("A) Applying the Tovar Protocol to article art_a of 'Book' gives 8.\n"  # explained as before: twice now
              "B) Applying the Dron Protocol to article art_b of 'Book' gives 44.\n"
              "C) Applying the Lum Protocol to article art_c of 'Book' gives 9.")  # an article it cannot read
    assert explanations("Dron", articles[("Book", "art_b")], 44) == {("Dron", "first_number", 4),
                                                                      ("Dron", "largest_number", 4)}

    def read(book: str, article: str) -> Cited | None:
        return articles.get((book, article))

    assert pooled_picks([first, second, "no statement here"], read) == ["A", "C", None]
    assert pooled_picks([first, second.replace("C) Applying", "X) Applying")], read) == ["A", "B"]
    assert pooled_picks([first, second, "no statement here"], read, most=True) == ["A", "A", None]


def test_the_rememberers_strike_out_what_the_parameter_rules_out() -> None:
    """A rule is kept as the latest lecture stated it; a statement whose value the parameter could not give (a reading
    below 1, a year out of range) is struck out; one of those left is drawn by the text, the other takes the smallest
    reading; an exam naming a protocol never taught keeps its statement."""
    taught = ("New protocol: the Tovar Protocol. To find the Tovar value of an article, take the first number the "
              "article's body text writes in digits (not its title or id) and add 9. Keep it.")
    revised = ("A change to the Tovar Protocol, first taught on Week 1, Monday: from today, to find the Tovar value of an "
               "article, take the first number the article's body text writes in digits (not its title or id) and add 4. "
               "The amount added used to be 9.")
    exam = ("A) Applying the Tovar Protocol to article art_a of 'Book' gives 4.\n"  # a reading of -5 under 9, 0 under 4: struck
            "B) Applying the Tovar Protocol to article art_b of 'Book' gives 30.\n"  # 21, then 26
            "C) Applying the Tovar Protocol to article art_c of 'Book' gives 12.\n"  # 3, then 8
            "D) Applying the Tovar Protocol to article art_d of 'Book' gives 7.")  # -2 (struck), then 3
    picks = remembered_guesses([taught, exam, revised, exam, "D) Applying the Mesk Protocol to article art_e of 'Book' gives 1."])
    drawn, smallest = (picks[name] for name in REMEMBERED_GUESSES[:2])
    assert smallest == [None, "C", None, "D", "D"]
    assert drawn[0] is None and drawn[1] in "BC" and drawn[3] in "BCD" and drawn[4] == "D"


def _lecture(protocol: str, reading: str, k: int, old: int | None = None) -> str:
    rule = f"to find the {protocol} value of an article, take the {reading} the article's body text writes in digits " \
           f"(not its title or id) and add {k}."
    if old is None:
        return f"New protocol: the {protocol} Protocol. T{rule[1:]} Keep it."
    return (f"A change to the {protocol} Protocol, first taught on Week 1, Monday: from today, {rule} The amount added "
            f"used to be {old}.")


def test_the_pooled_rememberer_takes_the_reading_other_statements_back() -> None:
    """It reads no article: a statement's value less its protocol's parameter is the reading it implies, tallied per
    (book, article, family) over every statement so far; it takes the statement whose reading the most other statements
    back. Two protocols of one family back each other's reading of an article; another family's reading of the same
    article does not; a revised protocol's statement backs the reading under its old parameter too (here learned from
    the revision alone); a statement the parameter rules out is struck; a tie is the plain rememberer's draw."""
    lectures = [_lecture("Tovar", "first number", 3), _lecture("Mesk", "first number", 5),
                _lecture("Dron", "last number", 2), _lecture("Lum", "first number", 4, old=3)]
    first = ("A) Applying the Tovar Protocol to article art_a of 'Book' gives 15.\n"  # art_a's first number 12
             "B) Applying the Mesk Protocol to article art_b of 'Book' gives 9.\n"
             "C) Applying the Tovar Protocol to article art_c of 'Book' gives 2.\n"  # a reading of -1: struck
             "D) Applying the Dron Protocol to article art_d of 'Book' gives 30.")
    second = ("A) Applying the Dron Protocol to article art_a of 'Book' gives 14.\n"  # 12, but art_a's *last* number
              "B) Applying the Tovar Protocol to article art_b of 'Book' gives 10.\n"
              "C) Applying the Mesk Protocol to article art_a of 'Book' gives 17.\n"  # 12 again: backed by the first A
              "D) Applying the Mesk Protocol to article art_e of 'Book' gives 6.")
    third = ("A) Applying the Lum Protocol to article art_f of 'Book' gives 20.\n"  # 16 under 4, 17 under the old 3
             "B) Applying the Mesk Protocol to article art_g of 'Book' gives 8.")
    fourth = ("A) Applying the Mesk Protocol to article art_f of 'Book' gives 22.\n"  # 17: Lum's old parameter backs it
              "B) Applying the Tovar Protocol to article art_h of 'Book' gives 9.\n"
              "C) Applying the Dron Protocol to article art_f of 'Book' gives 19.\n"
              "D) Applying the Lum Protocol to article art_i of 'Book' gives 3.")  # -1 under 4: struck
    texts = [*lectures, first, second, third, fourth, "no statement here"]
    supports = backings(texts)[len(lectures):]
    assert supports == [[(0, "A"), (0, "B"), (0, "D")], [(0, "A"), (0, "B"), (1, "C"), (0, "D")],
                        [(0, "A"), (0, "B")], [(1, "A"), (0, "B"), (0, "C")], []]
    picks = pooled_rememberer(texts)
    drawn = remembered_guesses(texts)[REMEMBERED_GUESSES[0]]
    assert picks[len(lectures):] == [drawn[len(lectures)], "C", drawn[len(lectures) + 2], "A", None]
    assert remembered_guesses(texts)[REMEMBERED_GUESSES[2]] == picks
    forgot = pooled_rememberer([*lectures[:3], first, second, third, fourth])  # Lum never taught: its statements unread
    assert forgot[-1] != "D" and backings([*lectures[:3], third])[-1] == [(0, "B")]


def test_the_rule_inferrer_guesses_the_rule_the_most_statements_fit() -> None:
    """Values less 5 are the first number of a cited article three times (8, 12, 15; not 22); no other family and
    parameter fits as many, so it takes the first number plus 5 and picks the statement that rule makes true."""
    bodies = {"art_a": "It costs 3 coins, or 40 later.", "art_b": "Wait 10 days, then 50.", "art_c": "About 7 of 60.",
              "art_d": "Some 20 in all, 70 at most."}
    articles = {name: Cited(book="Book", chapter="1", section="1.1", id=name, title="T", body=body, position=n)
                for n, (name, body) in enumerate(bodies.items())}
    question = ("A) Applying the Tovar Protocol to article art_a of 'Book' gives 8.\n"
                "B) Applying the Tovar Protocol to article art_b of 'Book' gives 12.\n"
                "C) Applying the Tovar Protocol to article art_c of 'Book' gives 15.\n"
                "D) Applying the Tovar Protocol to article art_d of 'Book' gives 22.")
    read = lambda book, article: articles.get(article)  # noqa: E731
    assert inferred_picks([question, "no statement here"], read) == ["A", None]
    unread = inferred_picks([question], lambda book, article: None)
    assert unread == [None]


def test_the_name_counters_pick_the_protocol_named_least_and_most_so_far() -> None:
    first = ("A) Applying the Tovar Protocol to article art_a of 'Book' gives 8.\n"
             "B) Applying the Tovar Protocol to article art_b of 'Book' gives 42.\n"
             "C) Applying the Mesk Protocol to article art_c of 'Book' gives 3.")
    second = ("A) Applying the Mesk Protocol to article art_d of 'Book' gives 7.\n"
              "B) Applying the Dron Protocol to article art_e of 'Book' gives 1.\n"
              "C) Applying the Tovar Protocol to article art_f of 'Book' gives 5.")
    assert named_picks([first, second, "nothing to read"]) == ["C", "B", None]
    assert named_picks([first, second, "nothing to read"], most=True) == ["A", "C", None]


def _article(article_id: str, body: str) -> Cited:
    return Cited(book="Book", chapter="1", section="1.1", id=article_id, title="T", body=body, position=0)


def test_the_rules_of_thumb_read_only_the_options() -> None:
    question = ("Exactly one of these statements is true:\n"
                "A) Applying the Tovar Protocol to article art_1.1 of 'Book' gives 40.\n"
                "B) Applying the Mesk Protocol to article art_2.3 of 'Book' gives 7.\n"
                "C) Applying the Tovar Protocol to article art_1.1 of 'Book' gives 30.\n"
                "D) Applying the Dron Protocol to article art_4.2 of 'Book' gives 2011.\n"
                "Reply with the letter of the true statement.")
    assert option_guesses(question) == {"options: smallest": "B", "options: second smallest": "C",
                                        "options: second largest": "A", "options: largest": "D",
                                        "options: an item stated twice": "A"}
    assert option_guesses("Pick one:\nA) 5\nB) 5\nC) 9\nD) 1") == {}


def test_the_question_only_reader_guesses_probes_at_chance_and_would_have_beaten_it(
        oracle_full: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the oracle's log of the default term (a small term sends too few emails of one form for version 4 to ask
    their order); with the generators of version 1 the same guesses beat chance (on world generator 3's term the
    building order too, 655 of 1,122), and so does an order padded with made-up buildings, which every version before
    6 scored; and a reader of the world names recipients every version before 7 asked about."""
    import functools

    from campus.lab import audit
    from campus.scenarios.probes import generate

    run = oracle_full
    now = _probe_guesses(run)[0]
    assert now[PROBE_GUESSES[0]][1] >= 15 and all(now[name][1] >= 30 for name in PROBE_GUESSES[1:])  # few orders of two
    assert summarise([_seed(0, guesses=_seed(0).guesses | now)])["violations"] == []
    monkeypatch.setattr(audit, "draw_probes", functools.partial(generate, version=1))
    then = _probe_guesses(run)[0]
    flagged = summarise([_seed(0, guesses=_seed(0).guesses | then)])["violations"]
    assert [v.split(":")[1] for v in flagged[:4]] == [" yes or no", " which seat", " building order",
                                                      " building order padded"], flagged
    assert len(flagged) == 5 and flagged[4].startswith("world guesses: "), flagged


def test_week_summaries_answered_with_another_seeds_lists_are_held_near_nothing(
        oracle_full: Run, oracle_other: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each seed's summaries answered with the other seed's lists of the week; answered with the run's own lists (a
    perfect memory) and, with probe generator version 4, with the other seed's, the check fires."""
    import functools

    from campus.lab import audit
    from campus.scenarios.probes import generate

    def seeds(first: Run, second: Run) -> list[SeedResult]:
        return [_seed(i, summaries=drawn.summaries, week_items=drawn.week_items)
                for i, drawn in enumerate((_probe_guesses(first), _probe_guesses(second)))]

    pair = summarise(seeds(oracle_full, oracle_other))
    assert pair["learned_lists"]["probes"] >= 40 and pair["learned_lists"]["mean_f1"] < 0.02
    assert pair["violations"] == []
    remembered = summarise(seeds(oracle_full, oracle_full))
    assert remembered["learned_lists"]["mean_f1"] > 0.9
    assert [v.split(",")[0] for v in remembered["violations"]] == [
        "learned lists: week summaries answered with another seed's lists of the week"]
    monkeypatch.setattr(audit, "draw_probes", functools.partial(generate, version=4))
    then = summarise(seeds(oracle_full, oracle_other))
    assert then["learned_lists"]["mean_f1"] > 0.15 and len(then["violations"]) == 1
    assert summarise([_seed(0, summaries=[("calendar", 3, ["a", "b"], [])], week_items={})])["learned_lists"] == {
        "probes": 0, "mean_f1": 0.0, "max_f1": 0.0}  # one seed: no other term to learn from


def test_counts_learned_from_another_seed_and_recipients_named_by_the_world_are_violations() -> None:
    """A seed's email counts answered with the next seed's: a term whose counts the other term repeats fires the check,
    one whose counts it does not, not; a single recipient named from the subject and the world fires too."""
    from campus.scenarios.probes import EmailsBetween, EmailsInWeeks

    sent = [(seq, 7 * 24 * 60 * week, f"mail {seq}") for seq, week in enumerate([1, 1, 2, 3, 3, 3], start=1)]
    counts = [(EmailsInWeeks(1, 2), 3.0, 10 ** 6), (EmailsInWeeks(3, 4), 3.0, 10 ** 6)]
    alike = summarise([_seed(0, counts=counts, sent=sent), _seed(1, counts=counts, sent=sent)])
    assert alike["learned_counts"] | {"shuffled": 0} == {"probes": 4, "right": 4, "accuracy": 1.0, "shuffled": 0}
    assert alike["violations"] == ["learned counts: email counts answered with another seed's, 4 of 4 right (at most 5%)"]
    between = [(EmailsBetween("Door code for A", "Door code for B"), 7.0, 10 ** 6)]
    unlike = summarise([_seed(0, counts=between, sent=sent), _seed(1, counts=between, sent=sent)])
    assert unlike["learned_counts"]["probes"] == 2 and unlike["violations"] == []  # the other term has no such pair
    named = _seed(2, guesses=_seed(2).guesses | {RECIPIENTS: (1, 12, 0.0)})
    assert summarise([named])["violations"] == ["world guesses: 1 of 12 email recipients named from the subject and "
                                                "the world alone (none may be)"]
    assert summarise([_seed(3)])["world_recipients"] == {"right": 0, "probes": 0}


def test_each_disruption_control_that_passes_what_it_must_fail_is_a_violation() -> None:
    good = {"oracle": {"solvable": (9, 9), "impossible": (3, 3)}, "stale": {"solvable": (0, 9), "impossible": (0, 3)},
            "abstainer": {"solvable": (0, 9), "impossible": (3, 3)}, "optimist": {"solvable": (9, 9), "impossible": (0, 3)}}
    assert summarise([_seed(0, disrupted=good)])["violations"] == []
    bad = good | {"stale": {"solvable": (1, 9), "impossible": (0, 3)}, "optimist": {"solvable": (9, 9), "impossible": (1, 3)},
                  "abstainer": {"solvable": (0, 9), "impossible": (2, 3)}}
    summary = summarise([_seed(5, disrupted=bad)])
    assert summary["violations"] == ["seed 5: stale passes 1 of 9 solvable disruption tasks (it must pass none)",
                                     "seed 5: abstainer passes 2 of 3 impossible disruption tasks (it must pass all)",
                                     "seed 5: optimist passes 1 of 3 impossible disruption tasks (it must pass none)"]
    assert summary["disruptions"]["stale"] == {"solvable": [1, 9], "impossible": [0, 3]}
    hedged = summarise([_seed(6, disrupted=good | {"hedger": {"solvable": (2, 9), "impossible": (0, 3)}})])
    assert hedged["violations"] == ["seed 6: hedger passes 2 of 9 solvable disruption tasks (it must pass none)"]
    canvassed = _seed(7)
    canvassed.canvassed = ["advisor-001 (passed)"]
    assert summarise([canvassed])["violations"] == ["seed 7: canvasser judged otherwise than it must on 1 task(s), "
                                                    "e.g. advisor-001 (passed)"]


def test_the_command_audits_two_small_seeds_in_process() -> None:
    """Seeds 1 and 3: at scale 0.1 ``stateless`` earns LTRR only by guessing the letters of a few exam questions (a
    lecture's question takes the number), so on many seeds it ties ``noop`` or ``diligent`` (0, 4, 5, 6, 8 and 9 of the
    first ten), which the audit rightly reports; on the full term it guesses at 160 and the order is strict on every
    audited seed."""
    done = CliRunner().invoke(app, ["term", "audit", "--seeds", "1,3", "--scale", "0.1", "--workers", "1", "--json"])
    summary = json.loads(done.stdout)
    assert summary["seeds"] == [1, 3] and summary["failed_seeds"] == []
    assert all(row["oracle"] == 1.0 and row["dawdler"] >= 0.9 for row in summary["success"].values())
    assert summary["lateness"]["oracle"] == 0 and summary["guessing"]["testwise"]["questions"] > 0
    # no yes/no probe at this scale: too few emails of one form (the full term's are audited in the test above)
    stated_twice = "options: an item stated twice"  # no question states an item twice any more
    assert all(summary["guessing"][name]["questions"] > 0 for name in (*OPTION_GUESSES, *POOLED_GUESSES, *REMEMBERED_GUESSES,
                                                                        *PROBE_GUESSES[1:]) if name != stated_twice)
    assert summary["guessing"][stated_twice]["questions"] == 0
    for name in (RECALL_GUESS, POPULARITY_GUESS, STRUCTURE_GUESS):
        recalled = summary["guessing"][name]
        assert 0 < recalled["right"] < recalled["questions"] and recalled["low"] <= recalled["chance"] + 0.05
    guessed = summary["guessing"][LIBRARY_GUESS]
    assert guessed["questions"] > 0 and 0 < guessed["chance"] < 1 and guessed["low"] <= guessed["chance"] + 0.05
    dodged = summary["guessing"][DODGE_GUESS]
    assert dodged["questions"] > 0 and 0 < dodged["chance"] < 0.5 and dodged["low"] <= dodged["chance"] + 0.05
    swept = summary["sweeper"]
    assert swept["attended"] <= swept["one_building"] and 0 < swept["catalogue"] and 0 < swept["likeliest"]
    order, padded = (summary["guessing"][f"question-only: building order{tail}"] for tail in ("", " padded"))
    assert padded["questions"] == order["questions"] > 0 and padded["right"] == order["right"]  # padding buys nothing
    assert summary["disruptions"]["oracle"]["impossible"][0] == summary["disruptions"]["oracle"]["impossible"][1] > 0
    # one busy day at this scale: no pair of days for a checkpoint to recur over, so nothing to hold the learners to
    assert summary["busy_days"]["learner_recurrence"] is None and summary["busy_days"]["forgetful_recurrence"] is None
    assert summary["violations"] == [] and done.exit_code == 0


def test_the_catalogue_by_time_floor_counts_the_compulsory_sections_meeting_then(world, small_term) -> None:
    """``_timetabled``: for each task held from its start, one over the compulsory first-semester sections the
    catalogue shows meeting on that weekday at that start, where the task's place is among their buildings."""
    from campus.kernel.clock import MINUTES_PER_DAY
    from campus.lab.audit import _timetabled
    from campus.scenarios.task import at_start

    days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    expected = 0.0
    for task in small_term.tasks:
        if at_start(task) and task.starts is not None:
            weekday, minute = days[task.starts // MINUTES_PER_DAY % 7], task.starts % MINUTES_PER_DAY
            there = {c.building_id for c in world.world.courses if c.semester == 1 and c.compulsory and weekday in c.days
                     and int(c.time[:2]) * 60 + int(c.time[3:5]) == minute}
            expected += 1 / len(there) if task.required_place in there else 0
    assert expected > 0 and abs(_timetabled(world, small_term) - expected) < 1e-9


def test_the_likeliest_building_floor_weighs_sections_by_the_timetables_holding_them() -> None:
    """``_likeliest`` against a count written apart: every pick of one nameable section per textbook course with no two
    meeting on a shared day at one start (``itertools.product``, on world generator 1's campus where that is small),
    each section weighted by the picks holding it, the heaviest building at each task's weekday and start."""
    import itertools

    from campus.kernel.clock import MINUTES_PER_DAY
    from campus.lab.audit import _likeliest, _timetabled
    from campus.scenarios.course_selection import catalogue, handle, textbook_courses
    from campus.scenarios.task import at_start

    world = WorldIndex(generate_world(0, generator=1))
    term = generate_term(world, 0, scale=0.1, disruptions=False, busy=False)
    cat = catalogue(world)
    options = [[c for c in world.world.courses if c.semester == 1 and c.name == name and handle(cat, c)]
               for name in textbook_courses(world)]
    picks = [p for p in itertools.product(*options)
             if not any(set(a.days) & set(b.days) and a.time == b.time for a, b in itertools.combinations(p, 2))]
    weight = Counter(c.code for p in picks for c in p)
    days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    expected = 0.0
    for task in term.tasks:
        if at_start(task) and task.starts is not None:
            weekday, minute = days[task.starts // MINUTES_PER_DAY % 7], task.starts % MINUTES_PER_DAY
            there: Counter[str] = Counter()
            for sections in options:
                for c in sections:
                    if weekday in c.days and int(c.time[:2]) * 60 + int(c.time[3:5]) == minute:
                        there[c.building_id] += weight[c.code]
            top = [b for b, w in there.items() if there and w == max(there.values())]
            expected += 1 / len(top) if task.required_place in top else 0
    assert len(picks) > 1 and expected > 0 and abs(_likeliest(world, term) - expected) < 1e-9
    assert _likeliest(world, term) > _timetabled(world, term)  # knowing how timetables are drawn: the higher floor


def test_bad_seeds_are_refused_with_exit_2() -> None:
    done = CliRunner().invoke(app, ["term", "audit", "--seeds", "x-"])
    assert done.exit_code == 2


@pytest.mark.slow
@needs_proc
def test_ctrl_c_stops_an_audit_and_its_workers_with_one_line(tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches the whole process group: each pool worker printed its own traceback header
    ("Process SpawnPoolWorker-1:") beside the exit, and later, ignoring it from the pool's initializer on, still printed
    one when the Ctrl-C came while it was importing (a busy machine's first seconds). The workers now start with it
    ignored; the interrupt is sent as soon as they exist, inside that window."""
    process = subprocess.Popen([sys.executable, "-m", "campus.cli.main", "term", "audit", "--seeds", "0-3", "--workers", "2",
                                "--scale", "0.2"], cwd=tmp_path, env=os.environ | {"PYTHONPATH": str(ROOT)},
                               start_new_session=True, preexec_fn=_interruptible, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    workers: list[int] = []
    while process.poll() is None and len(workers) < 2:
        workers = workers_of(process.pid)
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert stderr.strip() == "error: interrupted; an audit keeps nothing, so the same command starts it again", stderr
    assert len(workers) == 2 and not any(alive(worker) for worker in workers)


def test_a_ctrl_c_while_workers_start_reaches_the_parent_as_the_block_ends() -> None:
    """The parent ignores SIGINT while it starts its workers, so that they inherit the ignoring; a Ctrl-C in that window
    was lost and the audit ran to its end (exit 0: the suite's own Ctrl-C test hit the window on a busy machine). It
    waits, blocked, and is raised as the block ends; a process started inside the block ignores it. The process
    takes Python's Ctrl-C handler first: run from a shell that started the tests in the background, it would inherit
    SIGINT ignored, and the block would rightly give the ignoring back. A process's first pool starts
    multiprocessing's resource tracker, which unblocks SIGINT after spawning its process: a Ctrl-C after that was lost
    again (the suite's Ctrl-C test once more, on 2026-11-29), so the block starts the tracker first."""
    code = ("import os, signal, subprocess, sys, time\n"
            "from multiprocessing import resource_tracker\n"
            "from campus.lab.workers import interrupts_ignored\n"
            "signal.signal(signal.SIGINT, signal.default_int_handler)\n"  # as from a terminal, whoever runs the tests
            "try:\n"
            "    with interrupts_ignored():\n"
            "        child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3)'])\n"
            "        resource_tracker.ensure_running()\n"  # what a spawn pool's first lock does
            "        os.kill(os.getpid(), signal.SIGINT)\n"
            "        time.sleep(0.2)\n"
            "    print('lost')\n"
            "except KeyboardInterrupt:\n"
            "    print('raised', flush=True)\n"
            "os.kill(child.pid, signal.SIGINT)\n"
            "time.sleep(0.2)\n"
            "print('child', 'alive' if child.poll() is None else 'stopped')\n"
            "child.kill()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert done.stdout.split() == ["raised", "child", "alive"], (done.stdout, done.stderr)

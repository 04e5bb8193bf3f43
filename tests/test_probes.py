"""Memory probes: generators over a real log, typed answers and their exact scoring, forks that ask them,
and the readers that bound the score."""

from __future__ import annotations

import math
import random

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from scipy.stats import binomtest

from campus.agents.registry import resolve
from campus.kernel.agent import Agent, AgentView, Reply, TaskMemory
from campus.kernel.clock import date_label, day_of
from campus.kernel.parse import Answer, Invalid, parse_reply, parse_structured
from campus.kernel.store import MemoryStore
from campus.lab.probing import log_prefix, probe_points, probe_run
from campus.replays.verify import verify
from campus.scenarios.play import Run, new_run, open_run
from campus.scenarios.probe_answers import (
    Date, Id, Items, NoRecord, Number, YesNo, kendall_tau_b, render, score, split_items,
)
from campus.agents.readers import Reader, guess, questions_shown, written_day
from campus.scenarios.probes import (
    ABILITIES, FIRST_SUMMARY_WEEK, GENERATOR_VERSION, IN_FORK, PAIRS_PER_GAP, PLANTED, SEAT_FEATURES, SUMMARISED,
    VERSIONS, BookedRoom, DaysBetween, EmailRecipient, Instructed, Past, Preferred, Probe, SentBefore, SentOn,
    VisitOrder, WeekSummary, answer_of, distance_bins, generate, names_a_time, plants_of,
    subject_form, probe_set_hash, question_of, reveals, score_probe, standing_of, temporal, week_lists, without_word,
)
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import Term
from campus.world.index import WorldIndex
from campus.agents import make_agent
from tests.test_cli import as_json, campus


@pytest.fixture(scope="module")
def played(world: WorldIndex, small_term: Term) -> Run:
    """The oracle's run of the small term with its own seed, so its library bookings are made (the seats of a library
    task are those the seat draw of the term's seed opens)."""
    run = new_run(MemoryStore(), world, small_term, agent_name="oracle", seed=small_term.seed)
    run.session(make_agent("oracle", small_term, world)).run()
    return run


@pytest.fixture(scope="module")
def probes(played: Run) -> list[Probe]:
    return generate(log_prefix(played, played.store.head(played.branch.id)[0]), seed=0,
                    describe=played.world.describe, per_ability=50, world=played.world)


def reader(name: str) -> Callable[[Run], Agent]:
    return lambda fork: resolve(name, store=fork.store, term=fork.term, world=fork.world)[0]


# ---------------------------------------------------------------- generators


@pytest.mark.parametrize("ability", ABILITIES)
def test_each_generator_asks_without_giving_its_answer_away(played: Run, probes: list[Probe], ability: str) -> None:
    asked = [p for p in probes if p.ability == ability]
    assert asked, f"no {ability} probe over a whole small term"
    for probe in asked:
        assert probe.question == question_of(probe.query, played.world.describe)  # the query's words, never the answer's
        said = render(probe.answer).casefold()
        question = probe.question.casefold()
        if isinstance(probe.query, Preferred):  # a choice names its options, alike: the right one does not stand out
            assert question.count(said) == 1 and len({len(f) for f in probe.query.features}) == 1
            assert all(question.count(seat.casefold()) == 1 for seat in probe.query.seats)
            assert sorted(f for features in probe.query.features for f in features) == sorted(SEAT_FEATURES)
        elif not isinstance(probe.answer, Number | YesNo):  # a number in the question is a coincidence: "5" in "Week 15"
            assert said not in question, probe
        assert not reveals(probe)


@pytest.fixture(scope="module")
def many(played: Run) -> dict[int, list[Probe]]:
    """Every generator version, every week of the small term, up to 30 probes of each ability a week."""
    standing = standing_of(played.term.tasks)
    return {version: [probe for seq, now, _ in probe_points(played, every_week=True)
                      for probe in generate(log_prefix(played, seq), seed=0, describe=played.world.describe,
                                            per_ability=30, at=(seq, now), standing=standing, version=version,
                                            world=played.world)]
            for version in VERSIONS}


@pytest.fixture(scope="module")
def temporal_full(oracle_full: Run) -> dict[int, list[Probe]]:
    """Versions 3, 4 and the current one's temporal probes, every week of the default term (the small term sends too
    few emails of one form for version 4 to ask their order), up to 30 a week."""
    return {version: [probe for seq, now, _ in probe_points(oracle_full, every_week=True)
                      for probe in generate(log_prefix(oracle_full, seq), seed=0, describe=oracle_full.world.describe,
                                            abilities=("temporal_reasoning",), per_ability=30, at=(seq, now),
                                            version=version)]
            for version in (3, 4, GENERATOR_VERSION)}


def _guessed(probes: list[Probe], kind: type) -> list[float]:
    return [score_probe(p, guess(p.question)).value for p in probes if isinstance(p.query, kind)]


def test_a_student_that_remembers_nothing_guesses_at_chance(many: dict[int, list[Probe]],
                                                           temporal_full: dict[int, list[Probe]]) -> None:
    """The best guesses from a question's words alone (``guess``): "no" to a yes/no question (unless its subjects name
    days, which no version 4 question's do), the seat whose feature is listed once, the buildings in the order listed
    (reversed when there are three). Version 1 of the generators gave each of them more than chance, which is why it
    is kept only to draw old check-ins again."""
    from scipy.stats import binomtest, ttest_1samp

    old, new = many[1], many[GENERATOR_VERSION]
    yes_no, seats, order = (_guessed(probes, kind) for probes, kind in
                            ((temporal_full[GENERATOR_VERSION], SentBefore), (new, Preferred), (new, VisitOrder)))
    assert min(len(yes_no), len(seats), len(order)) >= 40
    assert binomtest(round(sum(yes_no)), len(yes_no), 0.5).pvalue > 0.01
    assert binomtest(round(sum(seats)), len(seats), 1 / 3).pvalue > 0.01
    assert ttest_1samp(order, 0.5).pvalue > 0.01
    kept = [render(p.answer) for p in old if isinstance(p.query, SentBefore)]
    assert kept.count("no") == len(kept) > 20  # version 1 kept only the "no"s
    assert binomtest(round(sum(_guessed(old, Preferred))), len(_guessed(old, Preferred)), 1 / 3,
                     alternative="greater").pvalue < 0.001
    answers = [render(p.answer) for p in temporal_full[GENERATOR_VERSION] if isinstance(p.query, SentBefore)]
    assert answers.count("yes") > 10 and answers.count("no") > 10


def test_temporal_pairs_are_drawn_evenly_over_the_days_between(played: Run) -> None:
    """Version 3 draws at most ``PAIRS_PER_GAP`` pairs of emails the same number of days apart; drawn at random
    (version 2), most were a day or two apart, and answering "1" to every days-between question drawn after each week
    of the oracle's default-term runs was right on 13-15 % of them (about 5 % under version 3)."""
    past = Past.of(log_prefix(played, played.store.head(played.branch.id)[0]))
    sent = {e.subject: day_of(t) for _, t, e in past.emails}

    def gaps(version: int) -> Counter[int]:
        pairs = [q for q in temporal(past, random.Random(0), version) if isinstance(q, SentBefore | DaysBetween)]
        return Counter(abs(sent[q.first] - sent[q.second]) for q in pairs)

    assert max(gaps(2).values()) > PAIRS_PER_GAP + 2  # the pairs a day apart, and so on, crowd in
    assert max(gaps(3).values()) <= PAIRS_PER_GAP and len(gaps(3)) > 10
    assert max(gaps(GENERATOR_VERSION).values()) <= PAIRS_PER_GAP  # over fewer emails (none with a dated subject)


def _quoted(probe: Probe) -> list[str]:
    """The subjects a temporal probe quotes (none for any other)."""
    query = probe.query
    if isinstance(query, SentOn):
        return [query.subject]
    return [query.first, query.second] if isinstance(query, SentBefore | DaysBetween) else []


def test_the_dates_written_in_subjects_are_found_in_every_form_the_term_writes() -> None:
    """The term's emails name a day as ``date_label`` writes it (a club's activity, an advisor's new booking); what a
    student writes may name it otherwise."""
    assert all(names_a_time(f"Chess Club: guest talk on {date_label(day)}") for day in range(140))
    assert names_a_time(f"New booking for our meeting on {date_label(40)}")
    assert all(map(names_a_time, ["Meeting at 14:30", "lunch 3pm", "Notes for tomorrow", "Due March 5", "due 5/3",
                                  "Sat plans", "See you Wednesday", "Day 12 recap", "week3 notes"]))
    assert not any(map(names_a_time, ["Membership application: Poetry", "Door code for Chess Club", "Word limit",
                                      "Application for research supervision: game theory", "Study seat",
                                      "Room booked for the paper review", "Paper review: preparations",
                                      "Attending the colloquium", "Lab key request", "Reserved copy", "Poster session"]))


def test_version_4_asks_no_temporal_question_about_an_email_whose_subject_names_a_date(
        many: dict[int, list[Probe]], temporal_full: dict[int, list[Probe]]) -> None:
    """Most of the term's emails announce an event "on Week 15, Friday" and are sent 1-7 days before it: version 3
    asked when they were sent, and in which order; version 4 asks about the others only, and more often than version 3
    did (137 against 79 on the small term; a fixed count of 150 held until the term's course steps changed its
    timing)."""
    dated = {version: [p for p in probes if any(map(names_a_time, _quoted(p)))] for version, probes in many.items()}
    asked = {version: [p for p in probes if _quoted(p)] for version, probes in many.items()}
    assert len(dated[3]) > 100 and {type(p.query) for p in dated[3]} == {SentBefore, SentOn, DaysBetween}
    assert dated[4] == [] and len(asked[4]) > len(asked[3]) - len(dated[3]) > 50  # the freed budget goes to the others
    assert {type(p.query) for p in asked[4]} >= {SentOn, DaysBetween}
    assert not any(names_a_time(s) for p in temporal_full[4] for s in _quoted(p))
    assert {type(p.query) for p in temporal_full[4]} == {SentBefore, SentOn, DaysBetween}
    assert {p.ability for p in asked[4]} == {"temporal_reasoning"}


def test_version_4_asks_the_order_of_two_emails_only_of_one_form(temporal_full: dict[int, list[Probe]]) -> None:
    """Each kind of email has its weeks, so the order of two of different kinds is known without remembering them:
    version 3 asked it, version 4 asks only about two of one form (and how many days apart any two were)."""
    def forms(version: int) -> list[bool]:
        return [subject_form(p.query.first) == subject_form(p.query.second) for p in temporal_full[version]
                if isinstance(p.query, SentBefore)]
    assert not all(forms(3)) and all(forms(4)) and len(forms(4)) >= 20
    assert any(subject_form(p.query.first) != subject_form(p.query.second) for p in temporal_full[4]
               if isinstance(p.query, DaysBetween))
    assert subject_form("Door code for Ballet Society") == subject_form("Door code for Chess Club") == "_ code for _"
    assert subject_form("Membership application: Rowing") != subject_form("Door code for Rowing")


def test_the_question_only_reader_reads_the_dates_in_subjects_so_version_4_quotes_none(
        many: dict[int, list[Probe]], temporal_full: dict[int, list[Probe]]) -> None:
    """Answering whether one email was sent before another by the days their subjects name (``guess``) is far above
    chance under version 3 (44 of the 58 whose subjects both name a day, 75.9 %, and 106 of all 181, p = 0.013, on
    world generator 3's default term; above 85 % and p < 0.01 on generator 2's); under version 4 no subject names a
    day, and "no" is right half the time."""
    from scipy.stats import binomtest

    def read(probe: Probe) -> float:
        return score_probe(probe, guess(probe.question)).value

    v3 = [p for p in many[3] if isinstance(p.query, SentBefore)]
    both = [p for p in v3 if all(written_day(s) is not None for s in _quoted(p))
            and written_day(p.query.first) != written_day(p.query.second)]
    assert len(both) > 40 and sum(map(read, both)) / len(both) > 0.7
    assert binomtest(round(sum(map(read, v3))), len(v3), 0.5, alternative="greater").pvalue < 0.05
    v4 = [p for p in temporal_full[4] if isinstance(p.query, SentBefore)]
    assert len(v4) >= 20 and binomtest(round(sum(map(read, v4))), len(v4), 0.5).pvalue > 0.01
    assert all(guess(p.question) == "no" for p in v4)
    said = 'Did you send the email "A: talk on {}" before the email "{}"? Answer yes or no.'
    assert [guess(said.format(date_label(3), f"B: social on {date_label(day)}")) for day in (2, 3, 4)] == ["no", "no", "yes"]
    assert guess(said.format(date_label(3), "Word limit")) == "no"


def test_questions_are_read_back_from_what_the_student_is_shown(played: Run, probes: list[Probe]) -> None:
    from campus.scenarios.check_ins import questions
    from campus.scenarios.probes import probe_task

    shown = [questions_shown(probe_task(p, 0, "run").instruction)[0] for p in probes]
    assert shown == [p.question for p in probes]
    assert questions_shown(questions(probes[:4])) == [p.question for p in probes[:4]]


def test_one_standing_instruction_per_fork_and_following_it_is_never_wrong(played: Run) -> None:
    """An agent that ends every answer with the word it was told to scores what the oracle reader scores: the word
    is taken off every answer but the instruction probe's. Version 1 planted a word per instruction probe."""
    abilities = ["instruction_following", "information_extraction", "temporal_reasoning", "summarization",
                 "event_ordering"]
    report = probe_run(played, obedient, "oracle-reader", abilities=abilities, per_ability=3)
    (point,) = report.points
    assert report.overall == 1.0, report.abilities
    fork = open_run(played.store, point.branch)
    plants = [task for task in fork.term.tasks if task.id.startswith("plant-")]
    assert len(plants) == 1 and sum(isinstance(a.probe.query, Instructed) for a in point.asked) == 3
    word = next(a.probe.query.word for a in point.asked if isinstance(a.probe.query, Instructed))
    assert all(a.said is not None and a.said.endswith(word) for a in point.asked)
    assert scorecard(fork.term, fork.ended_tasks())["mps"]["overall"] == pytest.approx(1.0)
    assert without_word("B012; B013. roger!", "Roger") == "B012; B013"
    old = generate(log_prefix(played, point.asked_at_seq), seed=0, abilities=["instruction_following"],
                   per_ability=3, version=1)
    assert len({plant.task_id for p in old for plant in plants_of(p.query)}) == 3


class _Obedient:
    """The oracle reader, following the standing instruction it is given: every answer ends with the word."""

    def __init__(self, inner: Reader) -> None:
        self.inner, self.name, self.word = inner, inner.name, ""

    def act(self, view: AgentView) -> Reply:
        told = re.search(r'end your answer with the word "(\w+)"', view.messages[0].content)
        self.word = told[1] if told else self.word
        said = self.inner.act(view)
        if isinstance(said, str) and "Answer:" in said and self.word:
            return said.replace("</action>", f" {self.word}</action>")
        return said

    def remember(self, past: TaskMemory) -> None:
        self.inner.remember(past)


def obedient(fork: Run) -> Agent:
    return _Obedient(Reader("oracle-reader", fork.store, fork.term, fork.world))


def test_the_question_only_reader_plays_forks_that_verify(played: Run) -> None:
    report = probe_run(played, reader("question-only"), "question-only", per_ability=3)
    (point,) = report.points
    assert report.abilities["abstention"] == 0.5 and report.abilities["information_extraction"] == 0.0
    assert verify(open_run(played.store, point.branch)).ok
    assert all(a.said == guess(a.probe.question) for a in point.asked)


def test_every_answerable_probe_cites_its_evidence_before_the_question(probes: list[Probe]) -> None:
    for probe in probes:
        if plants_of(probe.query):
            assert probe.ability in PLANTED and probe.evidence == [] and distance_bins(probe) == (IN_FORK, IN_FORK)
        elif isinstance(probe.answer, NoRecord):
            assert probe.evidence == [] and probe.evidence_t is None and probe.twin
        else:
            assert probe.evidence and max(probe.evidence) <= probe.asked_at_seq
            assert probe.evidence_t is not None and probe.evidence_t <= probe.asked_at_t


def test_abstention_comes_in_pairs_on_the_same_library(probes: list[Probe]) -> None:
    by_id = {p.probe_id: p for p in probes}
    empty = [p for p in probes if isinstance(p.answer, NoRecord)]
    assert empty
    for probe in empty:
        twin = by_id[probe.twin]
        assert twin.twin == probe.probe_id and isinstance(twin.answer, Id)
        assert isinstance(probe.query, BookedRoom) and isinstance(twin.query, BookedRoom)
        assert probe.query.location_id == twin.query.location_id and probe.query.day != twin.query.day


def test_an_abstention_pair_is_asked_in_a_drawn_order_from_version_8(many: dict[int, list[Probe]]) -> None:
    """Versions 1-7 asked the "no record" probe of a pair first, so a reader with no memory answered the first of two
    look-alike questions "no record" and was right on it every time (a red-team's, 70.8 % of the check-ins' pair probes
    where 50 % is the best a reader that cannot tell them apart does). The pairs asked stay the same ones."""
    def firsts(probes: list[Probe]) -> list[bool]:
        asked = [p for p in probes if p.ability == "abstention"]
        return [isinstance(a.answer, NoRecord) for a, b in zip(asked, asked[1:]) if a.twin == b.probe_id]
    assert all(firsts(many[7])) and len(firsts(many[7])) >= 10
    drawn = firsts(many[GENERATOR_VERSION])
    assert len(drawn) >= 10 and binomtest(sum(drawn), len(drawn)).pvalue > 0.01 and 0 < sum(drawn) < len(drawn)


def test_updates_keep_the_superseded_rooms_as_the_stale_class(probes: list[Probe]) -> None:
    updates = [p for p in probes if p.ability == "knowledge_update"]
    assert updates and all(p.distractors and render(p.answer) not in p.distractors for p in updates)
    stale = score(updates[0].answer, updates[0].distractors[0], tuple(updates[0].distractors))
    assert stale.value == 0.0 and stale.stale


def test_a_probe_set_is_a_pure_function_of_log_seed_and_version(played: Run, probes: list[Probe]) -> None:
    rows = log_prefix(played, played.store.head(played.branch.id)[0])
    world = played.world
    again = generate(rows, seed=0, describe=world.describe, per_ability=50, world=world)
    assert probe_set_hash(again) == probe_set_hash(probes)
    other = generate(rows, seed=1, describe=world.describe, per_ability=2, world=world)
    assert probe_set_hash(other) != probe_set_hash(generate(rows, seed=0, describe=world.describe, per_ability=2,
                                                            world=world))
    assert len({probe_set_hash(generate(rows, seed=0, version=version, world=world)) for version in VERSIONS}) == len(VERSIONS)
    with pytest.raises(ValueError, match="version 7 asks an email's recipient only where the world does not give"):
        generate(rows, seed=0, abilities=["information_extraction"])  # the world's directory is part of the draw
    for unknown in (0, max(VERSIONS) + 1, "2", True):
        with pytest.raises(ValueError, match=f"version {unknown!r} is unknown"):
            generate(rows, seed=0, version=unknown)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown ability 'telepathy'"):
        generate(rows, seed=0, abilities=["telepathy"])  # type: ignore[list-item]


def test_the_answer_is_the_log_folded_to_the_question(played: Run) -> None:
    rows = log_prefix(played, played.store.head(played.branch.id)[0])
    past = Past.of(rows)
    subjects = [e.subject for _, _, e in past.emails]
    seq, _, sent = next(row for row in past.emails if subjects.count(row[2].subject) == 1)
    assert answer_of(EmailRecipient(sent.subject), past) == (Id(sent.to), [seq], [])
    assert answer_of(EmailRecipient(sent.subject), Past.of(r for r in rows if r[0] < seq))[0] == NoRecord()


def test_probes_are_asked_mid_run_about_the_past_only(played: Run) -> None:
    (seq, t, _), = probe_points(played, at_step=played.store.head(played.branch.id)[0] // 2)
    early = generate(log_prefix(played, seq), seed=0, per_ability=5, at=(seq, t), world=played.world)
    assert early and all(p.asked_at_seq == seq and all(e <= seq for e in p.evidence) for p in early)


# ---------------------------------------------------------------- answers and scores


def test_answers_are_read_after_normalisation() -> None:
    assert score(Number(12.0), "12 days").value == 1.0
    assert score(Number(12.0), "about 13").value == 0.0
    assert score(Id("North Wing, floor 3"), '  "north  wing, Floor 3." ').value == 1.0
    assert score(Date(15), "week 2 tue").value == 1.0 and score(Date(15), "Week 2, Wednesday").value == 0.0
    assert score(YesNo(True), "Yes, it was.").value == 1.0 and score(YesNo(True), "no").value == 0.0
    assert split_items("1. B003\n2. b011\n") == ["b003", "b011"] and split_items("a, b") == ["a", "b"]


def test_no_record_is_right_only_where_nothing_happened() -> None:
    assert score(NoRecord(), "I have no record of that.").value == 1.0
    assert score(NoRecord(), "310").value == 0.0
    over = score(Id("310"), "no record")
    assert over.value == 0.0 and over.abstained


def test_kendall_tau_b_with_missing_items_tied_last() -> None:
    assert kendall_tau_b(["a", "b", "c"], ["a", "b", "c"]) == 1.0
    assert kendall_tau_b(["a", "b", "c"], ["c", "b", "a"]) == -1.0
    assert kendall_tau_b(["a", "b", "c"], ["b", "a", "c"]) == pytest.approx(1 / 3)
    partial = score(Items(["a", "b", "c", "d"], ordered=True), "a; b")
    assert partial.coverage == pytest.approx(2 / 3) and 0.5 < partial.value < 1.0
    assert score(Items(["a", "b"], ordered=True), "b; a").value == 0.0


def test_an_order_padded_with_made_up_items_scores_as_the_order_alone() -> None:
    """Each made-up item was tied last on the truth's side and last on the agent's, so it made a concordant pair with
    every true one: the question's own order (here the reverse of the truth) padded with four made-up ids scored 0.75
    where it scores 0. Under ``strict`` (probes from version 6) the padding counts for nothing in the ranking and still
    lowers the coverage; an older probe's answer (no ``strict``) is scored as it was."""
    truth = Items(["b1", "b2", "b3"], ordered=True, strict=True)
    padded = "b3; b2; b1; x0; x1; x2; x3"
    assert score(truth, padded).value == score(truth, "b3; b2; b1").value == 0.0
    assert score(truth, padded).coverage == pytest.approx(0.6)
    assert score(truth, "b1; x0; b2; b3").value == 1.0
    assert score(Items(["b1", "b2", "b3"], ordered=True), padded).value > 0.7
    assert msgspec.json.encode(Items(["a"], ordered=True)) == b'{"type":"list","values":["a"],"ordered":true}'


def test_version_6_orders_are_strict_and_older_ones_are_not(played: Run) -> None:
    prefix = log_prefix(played, played.store.head(played.branch.id)[0])
    for version, strict in ((5, False), (6, True)):
        made = [p for p in generate(prefix, seed=0, per_ability=10, abilities=("event_ordering",), version=version)
                if isinstance(p.answer, Items)]
        assert made and {p.answer.strict for p in made} == {strict}


def test_summaries_score_precision_and_recall() -> None:
    summary = score(Items(["x", "y", "z", "w"], ordered=False), "x; y; q")
    assert (summary.precision, summary.recall) == (pytest.approx(2 / 3), 0.5)
    assert summary.value == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))


@pytest.fixture(scope="module")
def summaries(oracle_full: Run) -> dict[int, list[Probe]]:
    """Versions 4 and 5's summaries of the oracle's default-term run at its end, every week they can ask about."""
    rows = log_prefix(oracle_full, oracle_full.store.head(oracle_full.branch.id)[0])
    return {version: generate(rows, seed=0, describe=oracle_full.world.describe, abilities=("summarization",),
                              per_ability=200, version=version) for version in (4, 5)}


def test_version_5_summaries_count_only_what_the_week_alone_holds(oracle_full: Run,
                                                                  summaries: dict[int, list[Probe]]) -> None:
    past = Past.of(log_prefix(oracle_full, oracle_full.store.head(oracle_full.branch.id)[0]))
    probes = summaries[5]
    assert {p.query.what for p in probes if isinstance(p.query, WeekSummary)} == {"calendar", "emails"}
    for probe in probes:
        query = probe.query
        assert isinstance(query, WeekSummary) and query.own_only and query.week >= FIRST_SUMMARY_WEEK
        weeks = week_lists(past, query.what)
        elsewhere = {item for week, items in weeks.items() if week != query.week for item in items}
        here = set(weeks[query.week])
        assert isinstance(probe.answer, Items) and len(probe.answer.values) >= 2
        assert set(probe.answer.values) == here - elsewhere
        assert set(probe.distractors) == here & elsewhere
        assert "does not count, named or not" in probe.question
        right = "; ".join(probe.answer.values)
        assert score_probe(probe, right).value == 1.0
        assert score_probe(probe, "; ".join([*probe.answer.values, *probe.distractors])).value == 1.0
        assert score_probe(probe, "; ".join(probe.distractors) or "nothing").value == 0.0
    assert any(p.distractors for p in probes)  # the week's repeated items are there to leave out


def test_a_list_learned_from_another_term_names_little_of_a_summary(oracle_other: Run,
                                                                    summaries: dict[int, list[Probe]]) -> None:
    """A student with no memory of its own term who answers each week's summary with everything another term's student
    added or emailed that week (the oracle's run of seed 1's term on the same world): version 4 asked what every
    student of the world adds (the handbook sessions and timetable of Week 0, the library seats booked most weeks),
    version 5 leaves those out."""
    learned = Past.of(log_prefix(oracle_other, oracle_other.store.head(oracle_other.branch.id)[0]))
    lists = {what: week_lists(learned, what) for what in SUMMARISED}

    def f1s(probes: list[Probe]) -> list[float]:
        weeks = [(p.query.what, p.query.week) for p in probes if isinstance(p.query, WeekSummary)]
        said = ["; ".join(lists[what].get(week, [])) or "nothing" for what, week in weeks]
        return [score_probe(p, s).value for p, s in zip(probes, said, strict=True)]

    old, new = f1s(summaries[4]), f1s(summaries[5])
    assert len(old) >= 20 and len(new) >= 20
    assert sum(old) / len(old) > 0.2 and max(old) == 1.0
    assert sum(new) / len(new) < 0.05 and max(new) < 0.25  # Week 0's calendar alone would score 1


def test_a_probe_task_reads_answers_in_words() -> None:
    assert parse_reply("<action>Answer: Week 3, Tuesday</action>", free_answer=True) == Answer(value="Week 3, Tuesday")
    assert parse_reply("Answer: B003; B011\nB020", free_answer=True) == Answer(value="B003; B011\nB020")
    assert isinstance(parse_reply("<action>Answer:   </action>", free_answer=True), Invalid)
    assert isinstance(parse_reply("<action>Answer: Week 3</action>"), Invalid)  # a letter task is unchanged
    assert parse_structured("answer", {"answer": 12}, free_answer=True) == Answer(value="12")
    assert isinstance(parse_structured("answer", {"answer": True}, free_answer=True), Invalid)


# ---------------------------------------------------------------- forks and readers


def test_the_oracle_reader_scores_everything_and_the_parent_is_untouched(played: Run) -> None:
    head = played.store.head(played.branch.id)
    report = probe_run(played, reader("oracle-reader"), "oracle-reader", per_ability=3)
    assert played.store.head(played.branch.id) == head
    assert set(report.abilities) == set(ABILITIES)
    assert all(report.abilities[a] == 1.0 for a in ABILITIES) and report.overall == 1.0
    assert report.stale_rate == 0.0 and report.over_abstention == 0.0
    (point,) = report.points
    fork = open_run(played.store, point.branch)
    assert fork.branch.parent == played.branch.id and fork.branch.agent == "oracle-reader"
    assert verify(fork).ok
    assert all(a.said is not None for a in point.asked)


def test_no_memory_abstains_on_everything_so_only_the_twins_keep_it_honest(played: Run) -> None:
    report = probe_run(played, reader("no-memory"), "no-memory", per_ability=3)
    assert report.abilities["abstention"] == 0.5 and report.over_abstention == 1.0
    assert all(report.abilities[a] == 0.0 for a in ABILITIES if a != "abstention")


def test_recent_only_decays_with_the_distance_to_the_evidence(played: Run) -> None:
    report = probe_run(played, reader("recent-only"), "recent-only", every_week=True, per_ability=4)
    assert len(report.points) > 5
    scores = {name: [v for v in vector.values() if v is not None] for name, vector in report.by_events.items()}
    near, far = scores["<100"], scores[">=10k" if ">=10k" in scores else "1k-3k"]
    assert sum(near) / len(near) > 0.5 and sum(far) / len(far) == 0.0
    oracle = probe_run(played, reader("oracle-reader"), "oracle-reader", every_week=True, per_ability=4)
    assert oracle.overall == 1.0 and [p.probe_set for p in oracle.points] == [p.probe_set for p in report.points]


def test_probe_reports_encode_as_json(played: Run) -> None:
    report = probe_run(played, reader("oracle-reader"), "oracle-reader", per_ability=1)
    decoded = msgspec.json.decode(msgspec.json.encode(report))
    assert decoded["overall"] == 1.0 and len(decoded["abilities"]) == 10


def test_campus_probe_on_a_stored_run(tmp_path: Path) -> None:
    campus("run", "--scale", "0.2", "--json", cwd=tmp_path)
    report = as_json(campus("probe", "oracle-s0", "--agent", "no-memory", "--per-ability", "1", "--json", cwd=tmp_path))
    assert report["abilities"]["abstention"] == 0.5 and report["abilities"]["summarization"] == 0.0
    assert report["abilities"]["preference_following"] == 0.0 and len(report["abilities"]) == 10
    (point,) = report["points"]
    assert as_json(campus("verify", point["branch"], "--json", cwd=tmp_path))["ok"]
    shown = campus("probe", "oracle-s0", "--agent", "oracle-reader", "--abilities", "event_ordering", cwd=tmp_path)
    assert "event_ordering" in shown.stdout and "overall 100%" in shown.stdout
    past = campus("probe", "oracle-s0", "--at-step", "99999999", cwd=tmp_path, check=False)
    assert past.returncode == 2 and "is past its end" in past.stderr  # it probed after the last task, saying nothing
    refused = campus("probe", "oracle-s0", "--abilities", "telepathy", cwd=tmp_path, check=False)
    assert refused.returncode == 2 and "unknown ability 'telepathy'" in refused.stderr and "Traceback" not in refused.stderr
    windowed = as_json(campus("probe", "oracle-s0", "--agent", "recent-only", "--window", "3", "--per-ability", "1",
                              "--json", cwd=tmp_path))
    assert windowed["agent"] == "recent-only:3" and windowed["overall"] < 1.0
    alone = campus("probe", "oracle-s0", "--window", "3", cwd=tmp_path, check=False)
    assert alone.returncode == 2 and "--agent recent-only" in alone.stderr and len(alone.stderr.strip().splitlines()) == 1


def test_a_narrower_window_forgets_sooner(played: Run) -> None:
    """The same probes, asked of ``recent-only`` seeing its last 100 steps and its last 5."""
    wide = probe_run(played, reader("recent-only"), "recent-only", per_ability=10)
    narrow = probe_run(played, reader("recent-only:5"), "recent-only:5", per_ability=10)
    assert [p.probe_set for p in narrow.points] == [p.probe_set for p in wide.points]
    assert narrow.overall is not None and wide.overall is not None and narrow.overall < wide.overall


def test_planted_notes_come_first_in_the_fork_and_are_not_scored(played: Run) -> None:
    report = probe_run(played, reader("recent-only"), "recent-only",
                       abilities=["contradiction_resolution", "instruction_following", "preference_following"])
    (point,) = report.points
    fork = open_run(played.store, point.branch)
    asked = fork.term.tasks[len(played.term.tasks):]
    plants = [task for task in asked if task.id.startswith("plant-")]
    assert plants and list(asked[: len(plants)]) == plants and all(task.flags.delivery_only for task in plants)
    ended = {e.task_id: e.outcome for e in fork.ended_tasks()}
    assert all(ended[task.id] == "unscored" for task in plants)
    assert report.abilities["contradiction_resolution"] == 1.0 and report.abilities["preference_following"] == 1.0
    assert report.by_events == {"planted in the fork": {a: report.abilities[a] for a in ABILITIES}}
    from campus.reports.report_data import report_data  # its ability panel skips the notes (it stopped on them)

    memory = report_data(fork)["runs"][0]["memory"]
    assert memory["probes"] == len(asked) - len(plants) and memory["abilities"] == report.abilities


def test_score_and_diff_show_the_ability_vector(played: Run) -> None:
    from campus.replays.diff import diff_runs

    assert "mps" not in scorecard(played.term, played.ended_tasks())
    bound = probe_run(played, reader("oracle-reader"), "oracle-reader", per_ability=2)
    blind = probe_run(played, reader("no-memory"), "no-memory", per_ability=2)
    forks = [open_run(played.store, report.points[0].branch) for report in (bound, blind)]
    cards = [scorecard(fork.term, fork.ended_tasks())["mps"] for fork in forks]
    assert [card["overall"] for card in cards] == [pytest.approx(bound.overall), pytest.approx(blind.overall)]
    assert cards[1]["abilities"] == pytest.approx(blind.abilities)
    report = diff_runs(*forks)
    assert report["metrics"]["mps"]["delta"] == pytest.approx(blind.overall - 1.0)
    assert list(report["probes"]) == list(ABILITIES)  # the same probe set, paired probe by probe
    extraction = report["probes"]["information_extraction"]
    assert extraction["paired"] == 2 and extraction["only_a"] == 2 and extraction["only_b"] == 0
    twins = report["probes"]["abstention"]
    assert twins["paired"] == 4 and (twins["only_a"], twins["only_b"]) == (2, 0)


def _tau_b_by_pairs(truth: list[str], said: list[str]) -> float:
    """Tau-b counted pair by pair (the hand-written version scipy replaced), kept as a test oracle."""
    union = list(dict.fromkeys(truth + said))
    rank_a = [truth.index(item) if item in truth else len(truth) for item in union]
    rank_b = [said.index(item) if item in said else len(said) for item in union]
    concordant = discordant = ties_a = ties_b = 0
    for i in range(len(union)):
        for j in range(i + 1, len(union)):
            a = (rank_a[i] > rank_a[j]) - (rank_a[i] < rank_a[j])
            b = (rank_b[i] > rank_b[j]) - (rank_b[i] < rank_b[j])
            if a and b:
                concordant += a == b
                discordant += a != b
            elif a:
                ties_b += 1
            elif b:
                ties_a += 1
    denominator = math.sqrt((concordant + discordant + ties_a) * (concordant + discordant + ties_b))
    return (concordant - discordant) / denominator if denominator else 0.0


@pytest.mark.parametrize("said", [[], ["a"], ["d"], ["c", "a"], ["b", "d", "a"], ["e", "d", "c", "b", "a"], ["a", "c", "b", "e"]])
def test_kendall_tau_b_agrees_with_the_pairwise_count(said: list[str]) -> None:
    truth = ["a", "b", "c", "d"]
    assert kendall_tau_b(truth, said) == pytest.approx(_tau_b_by_pairs(truth, said))


def test_every_week_skips_a_week_that_holds_nothing_to_ask_and_asks_the_rest(played: Run) -> None:
    """An early week of a small term may hold nothing a probe of the abilities asked can be about: `--every-week`
    stopped the whole command there ("holds nothing to ask about"). Now the week is skipped and named; one point asked
    for alone (`--at-step`) still says so."""
    weeks = probe_points(played, every_week=True)
    standing = standing_of(played.term.tasks)

    def nothing_at(ability: str, seq: int, now: int) -> bool:
        return not generate(log_prefix(played, seq), seed=0, describe=played.world.describe, abilities=[ability],
                            per_ability=1, at=(seq, now), standing=standing, world=played.world)

    ability = next(a for a in ABILITIES if len({nothing_at(a, seq, now) for seq, now, _ in weeks}) == 2)
    empty = [seq for seq, now, _ in weeks if nothing_at(ability, seq, now)]
    before = {b.id for b in played.store.branches()}  # the module's other tests fork this run too
    report = probe_run(played, reader("oracle-reader"), "oracle-reader", every_week=True, abilities=[ability], per_ability=1)
    assert report.skipped == empty and len(report.points) == len(weeks) - len(empty)
    assert not {p.asked_at_seq for p in report.points} & set(empty) and report.overall == 1.0
    made = {b.id for b in played.store.branches()} - before
    assert made == {p.branch for p in report.points}
    with pytest.raises(ValueError, match=f"up to step {empty[0]} holds nothing to ask about"):
        probe_run(played, reader("oracle-reader"), "oracle-reader", at_step=empty[0], abilities=[ability], per_ability=1)

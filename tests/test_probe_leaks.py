"""Probe generator version 7: the email probes a reader with no memory of its term answered from the world or from
other terms. Each rule's test measures the leak on version 6 and its absence on version 7."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest
from scipy.stats import binom

from campus.agents import make_agent
from campus.agents.readers import guess, world_guess
from campus.kernel.clock import day_of
from campus.kernel.store import MemoryStore
from campus.lab.audit import LEARNED_COUNT_CEILING, PROBES_PER_WEEK, SeedResult, learned_counts
from campus.lab.probing import log_prefix, probe_points
from campus.scenarios.disruptions import GROUP
from campus.scenarios.play import Run, new_run
from campus.scenarios.abilities import Ability
from campus.scenarios.probe_answers import Id, Number
from campus.scenarios.probes import (
    PAIRS_PER_GAP, SPAN_DAYS, SPAN_KIN, EmailRecipient, EmailsBetween, EmailsInWeeks, Past, Probe, answer_of,
    directory_of, generate, guessable, names_a_time, probe_set_hash, score_probe, standing_of, subject_form,
)
from campus.scenarios.task import Term
from campus.world.index import WorldIndex


def weekly(run: Run, version: int, ability: Ability, per_ability: int = PROBES_PER_WEEK) -> list[Probe]:
    """The probes of one ability drawn after every week of ``run``, as the term audit draws them."""
    standing = standing_of(run.term.tasks)
    return [probe for seq, now, _ in probe_points(run, every_week=True)
            for probe in generate(log_prefix(run, seq), seed=run.branch.seed, describe=run.world.describe,
                                  abilities=[ability], per_ability=per_ability, at=(seq, now), standing=standing,
                                  version=version, world=run.world)]


# ---------------------------------------------------------------- recipients


def test_an_address_the_world_lists_or_patterns_is_guessable(world: WorldIndex) -> None:
    known = directory_of(world)
    club, advisor = world.world.clubs[0], world.world.advisors[0]
    for address in (club.email, club.email.upper(), f"events.{club.id.lower()}@lau.edu", advisor.email,
                    f"lab.{advisor.id.lower()}@lau.edu", GROUP):
        assert guessable(address, known), address
    for address in ("ana.718@lau.edu", "someone@example.com", f"{club.id.lower()}x.desk@lau.edu"):
        assert not guessable(address, known), address


def test_version_7_asks_no_recipient_the_world_gives_away(oracle_full: Run) -> None:
    """On version 6, a reader that knows the world but nothing of the term named the recipient of about a quarter of
    the email-recipient probes (every membership application, a club event's mailbox one time in five); version 7
    asks only of emails to an address the world neither lists nor patterns, and the guesser names none (it asks 9 such
    questions of world generator 3's default term, 10 or more of generator 2's)."""
    def named(version: int) -> tuple[list[Probe], list[Probe]]:
        asked = [p for p in weekly(oracle_full, version, "information_extraction")
                 if isinstance(p.query, EmailRecipient)]
        return asked, [p for p in asked if score_probe(p, world_guess(p.question, oracle_full.world) or "-").value]

    asked, right = named(6)
    assert len(right) >= 10 and len(right) / len(asked) > 0.15
    subjects = {p.query.subject.partition(":")[0] for p in right if isinstance(p.query, EmailRecipient)}
    assert "Membership application" in subjects and len(subjects) >= 2  # the directory, and a club's mailbox
    asked, right = named(7)
    assert len(asked) >= 5 and right == []
    known = directory_of(oracle_full.world)
    assert all(isinstance(p.answer, Id) and not guessable(p.answer.value, known) for p in asked)
    assert not any(score_probe(p, guess(p.question)).value for p in asked)


# ---------------------------------------------------------------- email counts


def _counted(run: Run, version: int) -> SeedResult:
    """The oracle run's email counts drawn every week, and its emails: what ``learned_counts`` reads."""
    counts = [(p.query, p.answer.value, p.asked_at_t) for p in weekly(run, version, "multi_session_reasoning")
              if isinstance(p.query, EmailsInWeeks | EmailsBetween) and isinstance(p.answer, Number)]
    past = Past.of(log_prefix(run, run.store.head(run.branch.id)[0]))
    return SeedResult(seed=run.term.seed, counts=counts, sent=[(seq, t, e.subject) for seq, t, e in past.emails])


@pytest.fixture(scope="module")
def small_ring(world: WorldIndex, terms: Callable[..., Term]) -> list[Run]:
    """The oracle's runs of four small terms of one world (seeds 0-3 at scale 0.2), each answered from the next. Each
    term is played with its own seed: a term's library and disruption tasks read its seed's seat draw (played with
    seed 0, the oracle failed 27-31 tasks of each of the other three)."""
    runs = []
    for seed in (0, 1, 2, 3):
        term = terms(seed, scale=0.2)
        run = new_run(MemoryStore(), world, term, agent_name="oracle", seed=seed)
        run.session(make_agent("oracle", term, world)).run()
        runs.append(run)
    return runs


def test_version_7_email_counts_are_not_learned_from_another_term(small_ring: list[Run], oracle_full: Run,
                                                                  oracle_other: Run) -> None:
    """Each run's counts answered with the next run's (``lab.audit.learned_counts``). Version 6 counted over weeks: on
    four small terms of one world the next run's count was right on 59 of 333 (17.7 %), more than twice what the same
    answers get shuffled over the counts (8.0 %; on world generator 3's campus 34 of 312, 10.9 % against 7.9 %); two
    terms alone can hide it (seeds 0 and 1 of today's term: 10 of 175
    against 7.7 %; the term before showed about a quarter). Version 7 counts between two emails of a kind the student
    sent several of: a small term sends too few of a kind to ask any, and on the full terms the other run is right no
    more often than its answers shuffled over the counts are (binomial 97.5 %)."""
    old = learned_counts([_counted(run, 6) for run in small_ring])
    assert old["probes"] >= 100 and old["accuracy"] > old["shuffled"] + 0.025
    assert learned_counts([_counted(run, 7) for run in small_ring])["probes"] == 0
    new = learned_counts([_counted(run, 7) for run in (oracle_full, oracle_other)])
    assert new["probes"] >= 50 and new["accuracy"] <= LEARNED_COUNT_CEILING
    assert new["right"] <= binom.ppf(0.975, new["probes"], new["shuffled"])  # chance, as the shuffled answers get


def test_a_count_runs_between_two_emails_of_a_kind_sent_a_week_apart_or_more(oracle_full: Run) -> None:
    probes = weekly(oracle_full, 7, "multi_session_reasoning", per_ability=30)
    counts = [p for p in probes if isinstance(p.query, EmailsBetween)]
    assert len(counts) >= 50 and not any(isinstance(p.query, EmailsInWeeks) for p in probes)
    for probe in counts:
        query = probe.query
        assert isinstance(query, EmailsBetween)
        past = Past.of(log_prefix(oracle_full, probe.asked_at_seq))
        subjects = [e.subject for _, _, e in past.emails]
        rows = [past.email(s) for s in (query.first, query.second)]
        assert all(row is not None for row in rows)
        (a_seq, a_t, _), (b_seq, b_t, _) = sorted(row for row in rows if row is not None)
        for subject in (query.first, query.second):
            assert subjects.count(subject) == 1 and not names_a_time(subject) and subject in probe.question
            assert len({s for s in subjects if subject_form(s) == subject_form(subject)}) >= SPAN_KIN
        assert day_of(b_t) - day_of(a_t) >= SPAN_DAYS
        between = sum(1 for seq, _, _ in past.emails if a_seq < seq < b_seq)
        assert probe.answer == Number(float(between))
        assert answer_of(EmailsBetween(query.second, query.first), past)[0] == probe.answer
        assert guess(probe.question) == "1"
    per_point: dict[int, list[float]] = {}
    for probe in counts:
        assert isinstance(probe.answer, Number)
        per_point.setdefault(probe.asked_at_seq, []).append(probe.answer.value)
    assert all(max(values.count(v) for v in values) <= PAIRS_PER_GAP for values in per_point.values())


# ---------------------------------------------------------------- older versions


PINNED = {1: "5fc2e81a0d5c289c", 2: "186500c4fc5c7668", 3: "11f81b3fe0242ef6", 4: "4748821cfb173079",
          5: "1270220884cfd5aa", 6: "ad892fd8b40f692f"}
"""Every weekly probe set of the oracle's default-term run (10 per ability), hashed in turn, per generator version:
taken with the code before version 7 was written (c60c7750... for version 1 on the term before the course steps that
need memory, d5894cdf... before the walks whose conditions change the route, c0a0bc21... before the tasks held from
their start and the library seats of the draw, fa56f68d... before the stale library pairs' decoys, e796aac7... before a solvable disruption left one way out, 43318f1a... before world generator 2, 2d6f6c55... before
course demand moved for whole courses, 60659e8a... before world generator 3; these with
f4251c9's probes on today's term, which the merged code draws identically)."""


def test_versions_1_to_6_draw_as_before(oracle_full: Run) -> None:
    standing = standing_of(oracle_full.term.tasks)
    for version, pinned in PINNED.items():
        digest = hashlib.sha256()
        for seq, now, _ in probe_points(oracle_full, every_week=True):
            probes = generate(log_prefix(oracle_full, seq), seed=0, describe=oracle_full.world.describe,
                              per_ability=10, at=(seq, now), standing=standing, version=version, world=oracle_full.world)
            digest.update(probe_set_hash(probes).encode())
        assert digest.hexdigest()[:16] == pinned, version

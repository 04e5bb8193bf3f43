"""The term audit: does a generated term measure what it claims, seed after seed?

For every seed it generates the world (unless one is given) and the term, plays the oracle, the
controls and the adversarial controls on it (each in a fresh in-memory log) and keeps, per agent,
success per scenario and the headline metrics. Over all seeds it checks:

- **oracle**: solves every scored task, and no task is shown later than scheduled;
- **ordering**: noop < stateless < diligent < oracle on StuGPA, LTRR, PIS and success, per seed;
- **test-wise and options-only**: accuracy on long-term multiple-choice questions is not above
  chance (the mean of 1/options) by more than ``CHANCE_MARGIN`` — violated when the exact
  (Clopper-Pearson) 95 % interval lies wholly above chance + margin; the same for the options-only rules of
  thumb (``agents.adversarial.option_guesses``: a value by its rank, an item stated twice), each scored on the
  questions it has something to go on in; and for the strategies that pool the long-term questions as they are
  asked (``agents.adversarial.POOLED_GUESSES``: the reading poolers and the exams' name counters, least and most,
  and the rule inferrer), and
  for a student who keeps every lecture's rule but reads no article (``REMEMBERED_GUESSES``, on the exams: striking
  out what the parameter rules out, the smallest implied reading, the reading the most statements back);
- **question-only**: the same for the memory probes a question lets a student with no memory guess at
  (``agents.readers.guess``), drawn every week over the oracle's log: yes or no (chance 1/2), which of three
  seats (1/3) and the order of a few buildings (each pair of them in the right order: 1/2), that order also padded
  with made-up buildings (``PADDING``);
- **other terms and the world**: a student who remembers nothing of its own term answers the same probes from
  what it could know without it: each week's summary with another seed's lists of that week (a mean F1 of at most
  ``LEARNED_CEILING``), each email count with another seed's (``learned_counts``: at most ``LEARNED_COUNT_CEILING``
  right), and the recipient of each email from its subject and the world (``agents.readers.world_guess``: none
  right);
- **absent**: no attendance points, no exam question handed out in a room (finals are online) and no
  solvable disruption task that needs a walk to the library;
- **dawdler**: solves at least ``DAWDLER_FLOOR`` of the scored tasks;
- **memoryless** (``agents/memoryless.py``: plans courses well, remembers nothing between tasks): every long-term
  course-selection and planning step leaves a student who forgot what it refers back to two sections or more, and
  memoryless, choosing from the draft each expects before it, is right no more often than the chance of its guess;
  and so is a **popularity reader** (the sections a step could mean whose pass the quotas allow, the one whose
  popularity moved, else the most popular: ``POPULARITY_GUESS``) and a **structure reader** (the one that clashes
  with the fewest sections of the other recommended courses: ``STRUCTURE_GUESS``);
- **shortcut** (the oracle, walking every exploration leg by the plain shortest route): fails every walk with
  conditions and passes every other;
- **smearer** (``stale``'s plan on the clubs' and advisors' moved jobs, each booking made at every other start of
  the day first and each club-calendar entry at every half hour): fails every club and advisor task with a stale plan;
- **sweeper** (``agents/controls.py``: remembers nothing; when a task shows only the time it waits for the start and
  walks to the academic buildings one after the other): attends no more of the tasks held at a place from their start
  (``scenarios.task.AT_START``) than a student who went to one building every time would at best (the building that
  holds the most of them);
- **canvasser** (the oracle, writing each email to two others as well): fails every scored task with an email to
  send and passes every other;
- **libguess** (``agents/library_guess.py``: sees only what any agent sees, never looks up which library a Library
  Study task means, books a fitting seat in the library listing fewest): passes library booking tasks no more often
  than picking one of the libraries that show a fitting seat that day, uniformly, would
  (``scenarios.library.libraries_showing``), by the test the guessers are held to;
- **dodger** (``agents/dodger.py``: sees only what any agent sees; on a disruption task books around the plan from
  the next day's listing, never looking at the task's date nor again after booking): passes solvable disruption tasks
  no more often than a fitting seat of the way out's rooms drawn evenly would (``way_out_chance``), by the test the
  guessers are held to;
- **disruption controls** (a term with disruption tasks): ``stale`` fails every disruption task, and so does
  ``hedger`` (the plan in the instruction moved to the other end of the evening, never looking) and ``hasty``
  (reporting every one infeasible at once, naming what the text names of what blocks it),
  ``abstainer`` fails every solvable one and passes every impossible one, ``optimist`` the
  reverse (the oracle's 100 % is the first check).
- **busy days** (``busy``): the oracle passes every busy-day checkpoint, ``guesser`` fails exactly the
  clue-dependent ones and so does ``sprayer`` (stating every value an answer could be), ``fifo``
  exactly the appointments, ``claimer`` (reporting every errand done and doing none) every one
  (``scenarios/busy_days.should_pass``); the same-checkpoint recurrence is 0 for ``learner`` (which uses the mentor's feedback) and above 0 for ``forgetful`` (which does not);
- **generation**: every seed gives a term.

Seeds are played by spawned worker processes (like ``lab/sweep.py``: no state crosses a fork).
"""

from __future__ import annotations

import bisect
import json
import math
import multiprocessing
import re
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from campus.agents import make_agent
from campus.agents.adversarial import (OPTION_GUESSES, POOLED_GUESSES, REMEMBERED_GUESSES, option_guesses, pooled_guesses,
                                       remembered_guesses)
from campus.agents.readers import guess, world_guess
from campus.kernel.clock import clock_label, date_label, day_of
from campus.kernel.store import open_store
from campus.lab.probing import log_prefix, probe_points
from campus.lab.workers import interrupts_ignored
from campus.events import RULES_VERSION, Popularity
from campus.scenarios.disruptions import SCENARIO as DISRUPTIONS, way_out_chance
from campus.scenarios.library import SCENARIO as LIBRARY, libraries_showing
from campus.scenarios.busy_days import BUSY_CONTROLS, busy_metrics, unexpected
from campus.agents.memoryless import MemorylessAgent
from campus.agents.scripted import conditioned
from campus.scenarios.exploration import SCENARIO as EXPLORATION
from campus.scenarios.course_selection import (PLANNING, SELECTION, Recall, catalogue, clash, clash_free, handle,
                                               open_passes, pass_for, recalls, sections_of, textbook_courses)
from campus.scenarios.play import Run, RunSpec, start_run
from campus.scenarios.protocols import book_articles
from campus.scenarios.probe_answers import Items, Number, score
from campus.scenarios.probes import (SUMMARISED, EmailRecipient, EmailsBetween, EmailsInWeeks, Past, Preferred,
                                     SentBefore, Summarised, VisitOrder, WeekSummary, generate as draw_probes,
                                     score_probe, span_pairs, standing_of, subject_form, week_lists)
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import Task, Term, at_start
from campus.scenarios.term import generate_term
from campus.world.generate import generate_world
from campus.world.index import WorldIndex
from campus.world.model import CourseSection
from campus.world.stulife import load_stulife

ORDER = ("noop", "stateless", "diligent", "oracle")
ADVERSARIES = ("testwise", "optionsonly", "dawdler", "absent")
ABSENT_POINTS = ("attendance", "exam", "walks")
"""What ``absent`` must never earn: class attendance, in-room exam questions, disruption tasks that need a walk."""
AGENTS = (*ORDER, *ADVERSARIES)
DISRUPTION_CONTROLS = ("stale", "abstainer", "optimist", "hedger", "hasty")
CANVASSER = "canvasser"
SMEARER = "smearer"
SHORTCUT = "shortcut"
SWEEPER = "sweeper"
SMEARED = ("club_activity", "academic_activity")
"""The scenarios whose tasks with a stale plan ``smearer`` must fail (``agents/scripted.py``)."""
LIBGUESS = "libguess"
DODGER = "dodger"
DODGE_GUESS = "dodger: solvable disruption tasks"
"""``dodger``'s passes on the solvable disruption tasks, held to the chance that a fitting seat of the rooms the way
out is in, drawn evenly, is the way out (``scenarios.disruptions.way_out_chance``)."""
LIBRARY_GUESS = "libguess: library booking tasks"
"""``libguess``'s passes on the scored Library Study tasks, held to the chance of a library drawn uniformly among those
showing a seat with every requested feature (``_library_guesses``)."""
RECALL_GUESS = "memoryless: course steps that refer back"
"""``memoryless``'s choices on the long-term course-selection and planning steps, each made from the draft the step
expects before it (so no wrong guess is carried along), held to the chance of its guess at each
(``scenarios.course_selection.recalls``)."""
POPULARITY_GUESS = "popularity reader: course steps that refer back"
"""A student who remembers nothing but reads popularity, on each long-term course step: among the sections it could
mean, one whose pass the quotas allow, preferring one whose popularity is no longer the catalogue's, then the most
popular (``_popularity_picks``). Held to the same chance as ``RECALL_GUESS``."""
STRUCTURE_GUESS = "structure reader: course steps that refer back"
"""A student who remembers nothing but knows the recommended sections are clash-free, on each long-term course step:
the section it could mean that clashes with the fewest nameable sections of the other recommended courses
(``_structure_picks``). Held to the same chance as ``RECALL_GUESS``. While a course's sections met at different times
(world generator 2) it was right on 52.8 % of the long-term steps of seeds 0-79 against 45.9 %; a long-term step's
candidates now meet at one time, so they tie."""
COURSE_GUESSES = (RECALL_GUESS, POPULARITY_GUESS, STRUCTURE_GUESS)
"""The guessers held to chance on the long-term course steps (``_course_guesses``)."""
RECALL_CEILING = 1 / 2
"""A long-term course step leaves a student who forgot what it refers back to at least two sections to pick from."""
Metric = Literal["stugpa", "ltrr", "pis", "success"]
METRICS: tuple[Metric, ...] = ("stugpa", "ltrr", "pis", "success")
GUESSERS = ("testwise", "optionsonly")
PROBE_GUESSES = ("question-only: yes or no", "question-only: which seat", "question-only: building order",
                 "question-only: building order padded")
PADDING = "; X000; X001; X002; X003"
"""Made-up buildings after a guessed order: tied last in the truth and last in the answer, they made a concordant pair
with every true building until probe generator version 6 left them out (82 % where the order alone scores 50 %)."""
"""The memory probes with a chance level, as the question-only reader guesses them (``_probe_guesses``)."""
PROBES_PER_WEEK = 10
LEARNED_CEILING = 0.05
"""The mean F1 a reader may reach on the week summaries by answering each with another seed's lists of that week:
what every student adds is not a memory (probe generator version 4's summaries gave it 0.23)."""
LEARNED_COUNT_CEILING = 0.05
"""The share of the email counts a reader may get right by answering each with another seed's count
(``learned_counts``): probe generator version 6's counts over weeks gave it 7.6 % of seeds 0-2's full terms (15.2 %
at scale 0.2 over seeds 0-4), version 7's between two emails 1.7 % (2 of 119; none asked at scale 0.2)."""
LEARNERS = ("learner", "forgetful")
CHANCE_MARGIN = 0.05
DAWDLER_FLOOR = 0.99
_OPTION = re.compile(r"^[A-Z]\) ", re.MULTILINE)


Summary = tuple[Summarised, int, list[str], list[str]]
"""A week summary the audit drew: what it lists, its week, the items that count, the items that count neither way."""
Counted = tuple[EmailsInWeeks | EmailsBetween, float, int]
"""An email count the audit drew: the query, its answer, the minute it was asked at."""
Sent = tuple[int, int, str]
"""An email of the oracle's run: ``(seq, minute, subject)``."""
RECIPIENTS = "world: email recipient"
"""The ``guesses`` key of ``agents.readers.world_guess`` over the email-recipient probes (chance: none)."""


@dataclass
class SeedResult:
    """One seed: what each agent did, or why the seed did not generate."""

    seed: int
    error: str | None = None
    headline: dict[str, dict[str, float]] = field(default_factory=dict)
    scenarios: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    """agent -> scenario -> (succeeded, tasks)."""
    guesses: dict[str, tuple[int, int, float]] = field(default_factory=dict)
    """test-wise / options-only / the options-only rules of thumb / the pooling strategies / the question-only
    reader's probe families / ``libguess`` -> (right, asked, chance summed: 1/options per question)."""
    absent_points: dict[str, float] = field(default_factory=dict)
    """For ``absent``: ``attendance`` points, ``exam`` questions solved that were handed out in a room, and
    solvable disruption tasks passed that need a walk to the library (``walks``)."""
    lateness: dict[str, int] = field(default_factory=dict)
    """agent -> the largest minutes between a task's scheduled release and the moment it was shown."""
    disrupted: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    """agent -> ``solvable`` / ``impossible`` -> (disruption tasks passed, disruption tasks); empty without them."""
    busy: dict[str, list[str]] = field(default_factory=dict)
    """oracle and busy-day controls -> the busy-day checkpoints judged otherwise than they must be."""
    unrecalled: list[str] = field(default_factory=list)
    """Long-term course steps a student who remembers nothing could take (``RECALL_CEILING``)."""
    shortcut: list[str] = field(default_factory=list)
    """The exploration walks ``shortcut`` was judged on otherwise than it must be (passed with conditions, failed
    without)."""
    smeared: list[str] = field(default_factory=list)
    """The club and advisor tasks with a stale plan that ``smearer`` passed."""
    canvassed: list[str] = field(default_factory=list)
    """The scored tasks ``canvasser`` passed with an email to send, or failed without one."""
    swept: tuple[int, int] = (0, 0)
    """``sweeper``'s attended tasks among those held at a place from their start, and the most of them one building
    holds (what a student that went there every time would attend)."""
    timetabled: float = 0.0
    """The tasks held at a place from their start that a student remembering nothing would attend, expected, going to
    one of the compulsory first-semester sections the catalogue shows meeting then (``_timetabled``): reported, a
    chance level the audit does not hold anything to."""
    likeliest: float = 0.0
    """The same, going to the building likeliest to hold the class by how terms draw a timetable (``_likeliest``):
    reported, not held."""
    recurrence: dict[str, float | None] = field(default_factory=dict)
    """``learner`` and ``forgetful`` -> their same-checkpoint recurrence rate over the busy days; empty when the term
    has fewer than two (a small scale), so nothing can recur."""
    summaries: list[Summary] = field(default_factory=list)
    """The week summaries drawn after every week of the oracle's run."""
    week_items: dict[Summarised, dict[int, list[str]]] = field(default_factory=dict)
    """``calendar`` / ``emails`` -> week -> what the oracle's run added to its own calendar or emailed that week: the
    lists a reader with no memory of another seed's term learns from this one (``summarise``)."""
    counts: list[Counted] = field(default_factory=list)
    """The email counts drawn after every week of the oracle's run."""
    sent: list[Sent] = field(default_factory=list)
    """Every email of the oracle's run: what a reader with no memory of another seed's term counts from this one."""


def audit_seed(seed: int, world_source: str, scale: float, disruptions: bool = True, busy: bool = True) -> SeedResult:
    """Generate and play one seed with every audited agent, the disruption controls if the term has disruptions,
    and the busy-day controls if ``busy``."""
    world = WorldIndex(generate_world(seed) if world_source == "generated" else load_stulife(world_source.partition(":")[2])[0])
    try:
        term = generate_term(world, seed, scale, disruptions=disruptions, busy=busy)
    except ValueError as error:
        return SeedResult(seed=seed, error=str(error))
    solvable = {task.id: task.ground_truth["solvable"] for task in term.tasks if task.scenario == DISRUPTIONS}
    result = SeedResult(seed=seed)
    asked = [task for task in term.tasks if task.flags.long_term and not task.flags.delivery_only and task.solution
             and task.solution[-1].startswith("answer:") and _OPTION.search(task.instruction)]
    questions = {task.id: 1 / len(_OPTION.findall(task.instruction)) for task in asked}
    result.guesses |= _option_guesses(asked, questions) | _pooled_guesses(world, term, asked, questions)
    controls = ((*DISRUPTION_CONTROLS, DODGER) if solvable else ()) + ((*BUSY_CONTROLS, *LEARNERS) if busy else ())
    course_guesses, result.unrecalled = _course_guesses(world, term)
    result.guesses |= course_guesses
    for name in (*AGENTS, CANVASSER, SMEARER, SHORTCUT, SWEEPER, LIBGUESS, *controls):
        store = open_store(None)
        run = start_run(store, RunSpec(world=world_source, seed=seed, scale=scale, agent=name, disruptions=disruptions,
                                       busy_days=busy), (world, term))
        run.session(make_agent(name, term, world)).run()
        ended = run.ended_tasks()
        if solvable and name not in (*BUSY_CONTROLS, *LEARNERS, DODGER):
            result.disrupted[name] = _disrupted(ended, solvable)
        if busy and name in ("oracle", *BUSY_CONTROLS):
            result.busy[name] = unexpected(term, name, {e.task_id: e.marks for e in ended})
        if name in LEARNERS:
            metrics = busy_metrics(term, {e.task_id: e.marks for e in ended})
            if metrics is not None and metrics["days"] >= 2:  # recurrence is over pairs of busy days
                result.recurrence[name] = metrics["recurrence"]
        if name == CANVASSER:
            result.canvassed = _canvassed(term, ended)
        if name == SHORTCUT:
            result.shortcut = [e.task_id for e in ended if e.outcome != "unscored" and term.by_id[e.task_id].scenario
                               == EXPLORATION and (e.outcome == "success") == conditioned(term.by_id[e.task_id])]
        if name == SWEEPER:
            result.swept = _swept(term, ended)
            result.timetabled = _timetabled(world, term)
            result.likeliest = _likeliest(world, term)
        if name == SMEARER:
            result.smeared = [e.task_id for e in ended if e.outcome == "success" and term.by_id[e.task_id].stale is not None
                              and term.by_id[e.task_id].scenario in SMEARED]
        if name == LIBGUESS:
            result.guesses[LIBRARY_GUESS] = _library_guesses(world, term, ended)
        if name == DODGER:
            result.guesses[DODGE_GUESS] = _dodges(world, term, ended)
        if name in (CANVASSER, SMEARER, SHORTCUT, SWEEPER, LIBGUESS, DODGER, *DISRUPTION_CONTROLS, *BUSY_CONTROLS,
                    *LEARNERS):
            continue
        card = scorecard(term, ended)
        result.headline[name] = {"stugpa": card["stugpa"]["total"], "ltrr": card["ltrr"] or 0.0,
                                 "pis": card["pis"] or 0.0, "success": card["total"]["success_rate"]}
        result.scenarios[name] = {s: (row["succeeded"], row["tasks"]) for s, row in card["by_scenario"].items()}
        result.lateness[name] = _lateness(store, run.branch.id, term)
        if name in GUESSERS:
            right = sum(1 for e in ended if e.task_id in questions and e.outcome == "success")
            result.guesses[name] = (right, len(questions), sum(questions.values()))
        if name == "oracle":
            drawn = _probe_guesses(run)
            result.guesses |= drawn.guesses
            result.summaries, result.week_items = drawn.summaries, drawn.week_items
            result.counts, result.sent = drawn.counts, drawn.sent
        if name == "absent":
            in_room = {task.id for task in term.tasks if task.flags.counts_toward == "exam" and task.required_place}
            walks = {task.id for task in term.tasks if task.scenario == DISRUPTIONS and task.ground_truth["at_library"]
                     and task.ground_truth["solvable"]}
            result.absent_points = {"attendance": card["stugpa"]["points"]["class"],
                                    "exam": float(sum(1 for e in ended if e.task_id in in_room and e.outcome == "success")),
                                    "walks": float(sum(1 for e in ended if e.task_id in walks and e.outcome == "success"))}
    return result


def _answer(task: Task) -> str:
    """The letter of a multiple-choice task: its plan's last step is ``answer:LETTER``."""
    return task.solution[-1].partition(":")[2]


def _option_guesses(asked: Sequence[Task], chance: dict[str, float]) -> dict[str, tuple[int, int, float]]:
    """``(right, asked, chance summed)`` of each rule of thumb of ``OPTION_GUESSES`` over the multiple-choice
    questions ``asked`` it picks an option in (``chance``: 1/options per task id)."""
    counts = {name: [0, 0, 0.0] for name in OPTION_GUESSES}
    for task in asked:
        for name, picked in option_guesses(task.instruction).items():
            cell = counts[name]
            cell[0] += picked == _answer(task)
            cell[1] += 1
            cell[2] += chance[task.id]
    return {name: (int(right), int(n), summed) for name, (right, n, summed) in counts.items()}


def _pooled_guesses(world: WorldIndex, term: Term, asked: Sequence[Task],
                    chance: dict[str, float]) -> dict[str, tuple[int, int, float]]:
    """``(right, asked, chance summed)`` of each strategy of ``POOLED_GUESSES`` and ``REMEMBERED_GUESSES`` over the
    questions ``asked`` (in release order, as ``term.tasks`` holds them) it picks an option in."""
    library = {(a.book, a.id): a for text in world.world.texts for a in book_articles(text)}
    picks = pooled_guesses([task.instruction for task in asked], lambda book, article: library.get((book, article)))
    remembered = remembered_guesses([task.instruction for task in term.tasks])
    ids = {task.id for task in asked}
    picks |= {name: [pick for pick, task in zip(letters, term.tasks) if task.id in ids]
              for name, letters in remembered.items()}
    out: dict[str, tuple[int, int, float]] = {}
    for name in (*POOLED_GUESSES, *REMEMBERED_GUESSES):
        scored = [(picked, task) for picked, task in zip(picks[name], asked) if picked is not None]
        out[name] = (sum(picked == _answer(task) for picked, task in scored), len(scored),
                     sum(chance[task.id] for _, task in scored))
    return out


class Drawn(NamedTuple):
    """What the audit keeps of the probes drawn after every week of the oracle's run (``_probe_guesses``)."""

    guesses: dict[str, tuple[int, int, float]]
    summaries: list[Summary]
    week_items: dict[Summarised, dict[int, list[str]]]
    counts: list[Counted]
    sent: list[Sent]


def _probe_guesses(run: Run) -> Drawn:
    """``(right, asked, chance summed)`` of the question-only reader's guesses at the probes drawn after every week of
    ``run``, per family of ``PROBE_GUESSES`` (an order counts each pair of its buildings as one guess), and of
    ``world_guess`` at the email recipients (``RECIPIENTS``); the week summaries and email counts among those probes,
    the run's own lists of each week and its emails (``SeedResult``)."""
    counts = {name: [0, 0, 0.0] for name in (*PROBE_GUESSES, RECIPIENTS)}
    summaries: list[Summary] = []
    counted: list[Counted] = []
    standing = standing_of(run.term.tasks)
    points = probe_points(run, every_week=True)
    logged = log_prefix(run, points[-1][0])  # read once: each point's prefix is a slice of it
    for seq, now, _ in points:
        prefix = logged[:bisect.bisect_right(logged, seq, key=lambda row: row[0])]
        for probe in draw_probes(prefix, seed=run.branch.seed, describe=run.world.describe,
                                 per_ability=PROBES_PER_WEEK, at=(seq, now), standing=standing, world=run.world):
            query, said = probe.query, guess(probe.question)
            value = score_probe(probe, said).value
            if isinstance(query, WeekSummary) and isinstance(probe.answer, Items):
                summaries.append((query.what, query.week, probe.answer.values, probe.distractors))
                continue
            if isinstance(query, EmailsInWeeks | EmailsBetween) and isinstance(probe.answer, Number):
                counted.append((query, probe.answer.value, now))
                continue
            if isinstance(query, EmailRecipient):
                _count(counts[RECIPIENTS], score_probe(probe, world_guess(probe.question, run.world) or said).value, 1,
                       0.0)
                continue
            if isinstance(query, SentBefore):
                family, trials, chance = PROBE_GUESSES[0], 1, 1 / 2
            elif isinstance(query, Preferred):
                family, trials, chance = PROBE_GUESSES[1], 1, 1 / 3
            elif isinstance(query, VisitOrder):  # all named, none tied: (tau-b + 1) / 2 is the share of pairs in order
                family, trials = PROBE_GUESSES[2], len(query.buildings) * (len(query.buildings) - 1) // 2
                chance = trials / 2
                _count(counts[PROBE_GUESSES[3]], score_probe(probe, said + PADDING).value, trials, chance)
            else:
                continue
            _count(counts[family], value, trials, chance)
    past = Past.of(logged)
    weeks = {what: week_lists(past, what) for what in SUMMARISED}
    return Drawn({name: (int(right), int(asked), chance) for name, (right, asked, chance) in counts.items()},
                 summaries, weeks, counted, [(seq, t, e.subject) for seq, t, e in past.emails])


def _count(cell: list[Any], value: float, trials: int, chance: float) -> None:
    cell[0] += round(value * trials)
    cell[1] += trials
    cell[2] += chance


def learned_lists(played: Sequence[SeedResult]) -> dict[str, float]:
    """Each seed's week summaries answered with the next seed's lists of the same week (the last seed's with the
    first's): the mean and largest F1 of a reader who remembers nothing of its own term but knows another's."""
    scores = []
    for result, other in zip(played, [*played[1:], *played[:1]]):
        if other is result:  # one seed: no other term to learn from
            continue
        for what, week, counted, aside in result.summaries:
            said = "; ".join(other.week_items.get(what, {}).get(week, [])) or "nothing"
            scores.append(score(Items(counted, ordered=False), said, tuple(aside)).value)
    return {"probes": len(scores), "mean_f1": sum(scores) / len(scores) if scores else 0.0,
            "max_f1": max(scores, default=0.0)}


def _course_guesses(world: WorldIndex, term: Term) -> tuple[dict[str, tuple[int, int, float]], list[str]]:
    """(right, asked, chance summed) of each guesser on the long-term course steps (``RECALL_GUESS``,
    ``POPULARITY_GUESS``, ``STRUCTURE_GUESS``), each choosing from the draft the step expects before it; and the
    long-term course steps a student could take without memory (chance above ``RECALL_CEILING``)."""
    steps = recalls(world, term.tasks)
    long_term = sorted((t for t in term.tasks if t.flags.long_term and t.scenario in (SELECTION, PLANNING)),
                       key=lambda t: (t.release, t.id))
    unrecalled = [t.id for t in long_term if t.id not in steps or steps[t.id].chance > RECALL_CEILING]
    asked = [(task, steps[task.id]) for task in long_term if task.id in steps]
    student = MemorylessAgent(term, world)
    chosen = [student.chosen(task.instruction, task.release, step.before) == set(task.ground_truth["draft"])
              for task, step in asked]
    chance = sum(step.chance for _, step in asked)
    picks = (chosen, _popularity_picks(world, term, asked), _structure_picks(world, asked))
    return {name: (sum(rights), len(asked), chance) for name, rights in zip(COURSE_GUESSES, picks)}, unrecalled


def _popularity_picks(world: WorldIndex, term: Term, asked: Sequence[tuple[Task, Recall]]) -> list[bool]:
    """Whether ``POPULARITY_GUESS`` takes the section each step means (``asked`` in release order), reading the
    popularity once the step's world changes are in. When demand news moved only the section a step meant, and a
    step never asked for a section in a band the quotas refused while its siblings could sit in one, this rule was
    right on 64.8 % of the long-term steps of generated seeds 0-79 (chance 45.6 %)."""
    cat = catalogue(world)
    popularity = {code: section.popularity for code, section in cat.sections.items()}
    changes = [(t.t, t.change.code, t.change.value) for t in term.world_changes if isinstance(t.change, Popularity)]
    picks, applied = [], 0
    for task, step in asked:
        while applied < len(changes) and changes[applied][0] <= task.release:
            popularity[changes[applied][1]] = changes[applied][2]
            applied += 1
        allowed = [s for s in step.options if pass_for(popularity[s.code]) in open_passes(cat, s, step.before)]
        pick = max(allowed or step.options, key=lambda s: (popularity[s.code] != s.popularity, popularity[s.code]))
        picks.append(pick == step.meant)
    return picks


def _structure_picks(world: WorldIndex, asked: Sequence[tuple[Task, Recall]]) -> list[bool]:
    """Whether ``STRUCTURE_GUESS`` takes the section each step means; the first of the candidates tied."""
    cat = catalogue(world)
    picks = []
    for _, step in asked:
        rivals = [s for name in step.others for s in sections_of(cat, name, step.meant.semester) if handle(cat, s)]
        picks.append(min(step.options, key=lambda s: sum(clash(cat, s, other) for other in rivals)) == step.meant)
    return picks


def learned_counts(played: Sequence[SeedResult]) -> dict[str, float]:
    """``learned_answers`` tallied: probes, right, the share right, and the share the same answers would get right
    shuffled over the probes (``shuffled``: what they are worth with nothing learned of the span asked about)."""
    answers = learned_answers(played)
    said = Counter(s for s, _ in answers if s is not None)
    truth = Counter(t for _, t in answers)
    right = sum(1 for s, t in answers if s == t)
    asked = len(answers)
    return {"probes": asked, "right": right, "accuracy": right / asked if asked else 0.0,
            "shuffled": sum(n * truth[value] for value, n in said.items()) / asked ** 2 if asked else 0.0}


def learned_answers(played: Sequence[SeedResult]) -> list[tuple[float | None, float]]:
    """``(answer, truth)`` of each seed's email counts answered from the next seed's oracle run (the last seed's from
    the first's), by the minute each was asked, as a reader who remembers nothing of its own term but knows another's
    would. A count over weeks (up to probe generator version 6) is answered with the other run's count of the same
    weeks; one between two emails (version 7), whose subjects the other run seldom holds, with the commonest count
    that run gives between two emails of the same two forms (``subject_form``), or between any two it could be asked
    about when it has no such pair."""
    out: list[tuple[float | None, float]] = []
    for result, other in zip(played, [*played[1:], *played[:1]]):
        if other is result:  # one seed: no other term to learn from
            continue
        pairs: dict[int, list[tuple[str, str, int]]] = {}
        for query, answer, now in result.counts:
            sent = [row for row in other.sent if row[1] <= now]
            if isinstance(query, EmailsInWeeks):
                said: int | None = sum(1 for _, t, _ in sent if query.first_week <= day_of(t) // 7 <= query.last_week)
            else:
                known = pairs.setdefault(now, span_pairs(sent))
                forms = sorted([subject_form(query.first), subject_form(query.second)])
                alike = [n for a, b, n in known if sorted([subject_form(a), subject_form(b)]) == forms]
                said = _commonest(alike or [n for _, _, n in known])
            out.append((None if said is None else float(said), answer))
    return out


def _commonest(values: Sequence[int]) -> int | None:
    """The value ``values`` holds most often (the least of those tied), None when empty."""
    seen = Counter(values)
    return min(seen, key=lambda value: (-seen[value], value)) if seen else None


def _library_guesses(world: WorldIndex, term: Term, ended: Sequence[Any]) -> tuple[int, int, float]:
    """``(passed, asked, chance summed)`` over the scored Library Study tasks: the chance of each is one over the
    libraries whose seat draw opens a seat with every requested feature on its booking day (the target among them)."""
    passed = {e.task_id for e in ended if e.outcome == "success"}
    asked = [task for task in term.tasks if task.scenario == LIBRARY and not task.flags.delivery_only]
    chance = 0.0
    for task in asked:
        day = next(part["day"] for part in task.ground_truth["parts"] if part["check"] == "booking")
        shown = libraries_showing(world, term.seed, RULES_VERSION, day, task.ground_truth["features"])
        chance += 1 / max(1, len(shown))
    return sum(task.id in passed for task in asked), len(asked), chance


def _dodges(world: WorldIndex, term: Term, ended: Sequence[Any]) -> tuple[int, int, float]:
    """``(passed, asked, chance summed)`` over the solvable disruption tasks (``way_out_chance`` each)."""
    passed = {e.task_id for e in ended if e.outcome == "success"}
    asked = [task for task in term.tasks if task.scenario == DISRUPTIONS and task.ground_truth["solvable"]]
    chance = sum(way_out_chance(world, term.seed, RULES_VERSION, task) for task in asked)
    return sum(task.id in passed for task in asked), len(asked), chance


def _canvassed(term: Term, ended: Sequence[Any]) -> list[str]:
    """The scored tasks judged otherwise than they must be for ``canvasser``: failed with no email to send and no
    prerequisite that had one (it is the oracle there), or passed with one (it also wrote to two others)."""
    wrong = []
    fails: set[str] = set()
    for event in ended:
        task = term.by_id[event.task_id]
        emails = any(part["check"] == "email" and part.get("sole") for part in task.ground_truth.get("parts", ()))
        if emails or fails.intersection(task.depends_on):
            fails.add(task.id)
        if event.outcome != "unscored" and (event.outcome == "success") == (task.id in fails):
            wrong.append(f"{task.id} ({'passed' if task.id in fails else 'failed'})")
    return wrong


def _swept(term: Term, ended: Sequence[Any]) -> tuple[int, int]:
    """``(attended, camped)``: the tasks held at a place from their start that ``ended`` attended, and the most of
    them any one building holds."""
    held = {task.id: task.required_place for task in term.tasks if at_start(task)}
    attended = sum(1 for e in ended if e.task_id in held and e.marks.get("attended"))
    return attended, max(Counter(held.values()).values(), default=0)


Slot = tuple[str, str]
"""A weekday and a start, as the catalogue writes them (``"Monday"``, ``"08:00"``)."""


def _timetabled(world: WorldIndex, term: Term) -> float:
    """How many of the tasks held at a place from their start a student who remembers nothing of its timetable, but
    knows it takes the compulsory first-semester courses, attends, expected, when it goes to one of the compulsory
    first-semester sections the course catalogue shows meeting on that weekday at that start, drawn evenly."""
    meeting: dict[Slot, set[str]] = {}
    for section in world.world.courses:
        if section.semester == 1 and section.compulsory:
            for slot in _slots(section):
                meeting.setdefault(slot, set()).add(section.building_id)
    return _attended(term, meeting)


def _likeliest(world: WorldIndex, term: Term) -> float:
    """How many of the tasks held at a place from their start a student who remembers nothing of its timetable but
    knows how terms draw it attends, going at each start to the building likeliest to hold its class: the timetable is
    a clash-free set of sections of the textbook courses drawn evenly (``choose_targets``), so each section's chance
    of being in it is the share of those sets holding it, and a building's chance at a weekday and start is the sum
    over the sections meeting there then (ties split evenly)."""
    cat = catalogue(world)
    options = [[s for s in sections_of(cat, name, 1) if handle(cat, s)] for name in textbook_courses(world)]
    held = Counter(section.code for picked in clash_free(options, lambda a, b: clash(cat, a, b)) for section in picked)
    chance: dict[Slot, Counter[str]] = {}
    for section in (section for sections in options for section in sections):
        for slot in _slots(section):
            chance.setdefault(slot, Counter())[section.building_id] += held[section.code]
    return _attended(term, {slot: {building for building, weight in weights.items() if weight == max(weights.values()) > 0}
                            for slot, weights in chance.items()})


def _slots(section: CourseSection) -> list[Slot]:
    return [(day, section.time.partition("-")[0]) for day in section.days]


def _attended(term: Term, goes: dict[Slot, set[str]]) -> float:
    """The tasks held at a place from their start a student attends, expected, going at each weekday and start to one
    of the buildings ``goes`` names for it, drawn evenly."""
    expected = 0.0
    for task in term.tasks:
        if at_start(task) and task.starts is not None:
            there = goes.get((date_label(day_of(task.starts)).rpartition(", ")[2], clock_label(task.starts)), set())
            expected += 1 / len(there) if task.required_place in there else 0.0
    return expected


def _disrupted(ended: Sequence[Any], solvable: dict[str, bool]) -> dict[str, tuple[int, int]]:
    passed = {e.task_id for e in ended if e.task_id in solvable and e.outcome == "success"}
    return {kind: (sum(1 for t, s in solvable.items() if s == want and t in passed), sum(1 for s in solvable.values() if s == want))
            for kind, want in (("solvable", True), ("impossible", False))}


DISRUPTION_PROMISES: dict[str, dict[str, Literal["none", "all"]]] = {
    "stale": {"solvable": "none", "impossible": "none"},
    "abstainer": {"solvable": "none", "impossible": "all"},
    "optimist": {"solvable": "all", "impossible": "none"},
    "hedger": {"solvable": "none", "impossible": "none"},
    "hasty": {"solvable": "none", "impossible": "none"},
}
"""What each disruption control must pass, per kind of disruption task."""


def _lateness(store: Any, branch_id: str, term: Term) -> int:
    late = 0
    for row in store.rows(branch_id):
        if row.kind == "task_released":
            late = max(late, row.t - term.by_id[json.loads(row.payload)["task_id"]].release)
    return late


def _audit_job(job: tuple[int, str, float, bool, bool]) -> SeedResult:
    return audit_seed(*job)


def run_audit(seeds: Sequence[int], world_source: str = "generated", scale: float = 1.0, workers: int = 1,
              on_seed: Callable[[SeedResult], None] | None = None, disruptions: bool = True,
              busy: bool = True) -> list[SeedResult]:
    """Audit ``seeds``; with ``workers`` > 1 in spawned processes. Results come back in seed order."""
    jobs = [(seed, world_source, scale, disruptions, busy) for seed in seeds]
    results: list[SeedResult] = []
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            results.append(_audit_job(job))
            if on_seed:
                on_seed(results[-1])
    else:
        with ExitStack() as stack:  # a Ctrl-C while the workers start is raised as the block ends: the pool is stopped
            with interrupts_ignored():
                pool = stack.enter_context(multiprocessing.get_context("spawn").Pool(min(workers, len(jobs))))
            for done in pool.imap_unordered(_audit_job, jobs):
                results.append(done)
                if on_seed:
                    on_seed(done)
    return sorted(results, key=lambda r: r.seed)


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact binomial interval for ``k`` successes in ``n`` trials."""
    if n == 0:
        return 0.0, 1.0
    alpha = (1 - level) / 2

    def cdf(x: int, p: float) -> float:
        if p <= 0.0 or p >= 1.0:
            return 1.0 if p <= 0.0 or x >= n else 0.0
        logs = (math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * math.log(p)
                + (n - i) * math.log1p(-p) for i in range(x + 1))
        return min(1.0, sum(math.exp(term) for term in logs))

    def solve(f: Callable[[float], float]) -> float:
        low, high = 0.0, 1.0
        for _ in range(60):
            mid = (low + high) / 2
            low, high = (mid, high) if f(mid) > 0 else (low, mid)
        return (low + high) / 2

    lower = 0.0 if k == 0 else solve(lambda p: alpha - (1 - cdf(k - 1, p)))
    upper = 1.0 if k == n else solve(lambda p: cdf(k, p) - alpha)
    return lower, upper


def summarise(results: Sequence[SeedResult]) -> dict[str, Any]:
    """Figures per scenario and agent over all seeds, and every violation found."""
    played = [r for r in results if r.error is None]
    violations: list[str] = [f"seed {r.seed} does not generate: {r.error}" for r in results if r.error]
    scenarios: dict[str, dict[str, list[int]]] = {}
    for r in played:
        for name, rows in r.scenarios.items():
            for scenario, (won, tasks) in rows.items():
                cell = scenarios.setdefault(scenario, {}).setdefault(name, [0, 0])
                cell[0] += won
                cell[1] += tasks
        for metric in METRICS:
            values = [r.headline[name][metric] for name in ORDER]
            if not all(a < b for a, b in zip(values, values[1:])):
                shown = " < ".join(f"{name} {value:g}" for name, value in zip(ORDER, values))
                violations.append(f"seed {r.seed}: {metric} not strictly ordered ({shown})")
        if r.headline["oracle"]["success"] < 1.0:
            violations.append(f"seed {r.seed}: the oracle solves {r.headline['oracle']['success']:.2%}")
        if r.lateness["oracle"] > 0:
            violations.append(f"seed {r.seed}: the oracle is shown a task {r.lateness['oracle']} minutes late")
        if r.swept[0] > r.swept[1]:
            violations.append(f"seed {r.seed}: sweeper attends {r.swept[0]} tasks held from their start, more than "
                              f"the {r.swept[1]} one building holds")
        if any(r.absent_points.values()):
            violations.append(f"seed {r.seed}: absent earns {r.absent_points}")
        if r.headline["dawdler"]["success"] < DAWDLER_FLOOR:
            violations.append(f"seed {r.seed}: the dawdler solves {r.headline['dawdler']['success']:.2%}")
        for name, promise in DISRUPTION_PROMISES.items():
            for kind, want in promise.items():
                passed, tasks = r.disrupted.get(name, {}).get(kind, (0, 0))
                if passed != (tasks if want == "all" else 0):
                    violations.append(f"seed {r.seed}: {name} passes {passed} of {tasks} {kind} disruption tasks "
                                      f"(it must pass {want})")
        if r.recurrence and not (r.recurrence["learner"] == 0 and (r.recurrence["forgetful"] or 0) > 0):
            violations.append(f"seed {r.seed}: recurrence learner {r.recurrence['learner']}, forgetful "
                              f"{r.recurrence['forgetful']} (must be 0 and above 0)")
        wrong_lists = [("{} long-term course step(s) leave one section to pick without memory", r.unrecalled),
                       ("shortcut judged otherwise than it must on {} walk(s)", r.shortcut),
                       ("smearer passes {} club or advisor task(s) it must fail", r.smeared),
                       ("canvasser judged otherwise than it must on {} task(s)", r.canvassed),
                       *((f"{name} judged otherwise than it must on {{}} busy-day checkpoint(s)", wrong)
                         for name, wrong in r.busy.items())]
        violations += [f"seed {r.seed}: {what.format(len(wrong))}, e.g. {wrong[0]}" for what, wrong in wrong_lists if wrong]
    guessing: dict[str, dict[str, float]] = {}
    for name in (*GUESSERS, *OPTION_GUESSES, *POOLED_GUESSES, *REMEMBERED_GUESSES, *PROBE_GUESSES, *COURSE_GUESSES,
                 LIBRARY_GUESS, DODGE_GUESS):
        guesses = [r.guesses.get(name, (0, 0, 0.0)) for r in played]
        right, asked = sum(g[0] for g in guesses), sum(g[1] for g in guesses)
        chance = sum(g[2] for g in guesses) / asked if asked else 0.0
        low, high = clopper_pearson(right, asked)
        guessing[name] = {"right": right, "questions": asked, "accuracy": right / asked if asked else 0.0,
                          "chance": chance, "low": low, "high": high}
        if asked and low > chance + CHANCE_MARGIN:
            what = ("guesses at memory probes right" if name in PROBE_GUESSES else "long-term steps right"
                    if name in COURSE_GUESSES else "passed" if name in (LIBRARY_GUESS, DODGE_GUESS)
                    else "long-term questions right")
            violations.append(f"{name}: {right}/{asked} {what}, above chance {chance:.1%} + 5 points")
    learned = learned_lists(played)
    if learned["probes"] and learned["mean_f1"] > LEARNED_CEILING:
        violations.append(f"learned lists: week summaries answered with another seed's lists of the week, mean F1 "
                          f"{learned['mean_f1']:.3f} over {learned['probes']:g} (at most {LEARNED_CEILING:g})")
    tallied = learned_counts(played)
    if tallied["probes"] and tallied["accuracy"] > LEARNED_COUNT_CEILING:
        violations.append(f"learned counts: email counts answered with another seed's, {tallied['right']:g} of "
                          f"{tallied['probes']:g} right (at most {LEARNED_COUNT_CEILING:.0%})")
    recipients = [r.guesses.get(RECIPIENTS, (0, 0, 0.0)) for r in played]
    named = {"right": sum(g[0] for g in recipients), "probes": sum(g[1] for g in recipients)}
    if named["right"]:
        violations.append(f"world guesses: {named['right']} of {named['probes']} email recipients named from the "
                          "subject and the world alone (none may be)")
    success = {scenario: {name: won / tasks if tasks else 0.0 for name, (won, tasks) in cells.items()}
               for scenario, cells in sorted(scenarios.items())}
    return {
        "seeds": [r.seed for r in results],
        "failed_seeds": [r.seed for r in results if r.error],
        "success": success,
        "headline": {name: {m: sum(r.headline[name][m] for r in played) / len(played) for m in METRICS}
                     for name in AGENTS} if played else {},
        "guessing": guessing,
        "learned_lists": learned,
        "learned_counts": tallied,
        "world_recipients": named,
        "absent": {key: max((r.absent_points.get(key, 0.0) for r in played), default=0.0) for key in ABSENT_POINTS},
        "lateness": {name: max((r.lateness[name] for r in played), default=0) for name in AGENTS},
        "disruptions": {name: {kind: [sum(r.disrupted[name][kind][i] for r in played if name in r.disrupted) for i in (0, 1)]
                               for kind in ("solvable", "impossible")}
                        for name in ("oracle", *DISRUPTION_CONTROLS) if any(name in r.disrupted for r in played)},
        "canvasser": sum(len(r.canvassed) for r in played),
        "sweeper": {"attended": sum(r.swept[0] for r in played), "one_building": sum(r.swept[1] for r in played),
                    "catalogue": sum(r.timetabled for r in played), "likeliest": sum(r.likeliest for r in played)},
        "busy_days": {name: sum(len(r.busy.get(name, ())) for r in played) for name in ("oracle", *BUSY_CONTROLS)}
        | {f"{name}_recurrence": (max if name == "learner" else min)(
               (r.recurrence[name] or 0.0 for r in played if r.recurrence), default=None) for name in LEARNERS}
        if any(r.busy for r in played) else None,
        "violations": violations,
    }

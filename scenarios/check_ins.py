"""In-term memory checks: a counsellor's weekly check-in asks a few memory probes about the student's own past.

A check-in is a task of the term (opt-in: ``generate_term(check_ins=True)``, ``campus run --check-ins``)
whose questions cannot be written when the term is made: they are about what *this* student did. So a
check-in is *composed* at its release (``Composer``): the probe set is drawn from the log before the
release (``scenarios.probes.generate``, a pure function of that log prefix, the term's seed and the
generator version, and from version 7 of the world the ``Prefix`` carries), and only the questions are shown; the log records them (in the release's
observation) and the probe set's hash (``task_composed``), never the answers. At the task's end the
same probe set is drawn again from the same prefix and the answer judged against it exactly, so
``verify`` and ``score`` judge it again from the log alone.

Each check-in asks an abstention pair (a question with no record and its answerable twin) and one
probe of each of two more abilities, taken in a seeded order per check-in from the other nine (an
ability with nothing to ask about yet is skipped). The contradiction, instruction and preference
probes rest on notes the term itself gives early (``notes``): a standing instruction and a
preference in week 1, two notes that cannot both hold in weeks 2 and 6. The student answers every question in one reply,
one numbered line each. Each probe's score becomes a mark ``<ability>/<n>`` (per mille), which the
scorecard's MPS folds next to StuGPA, LTRR and PIS, never inside them: a check-in counts toward no
StuGPA component and is neither long-term nor self-motivated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import msgspec

from campus.events import Answered, Event
from campus.kernel.schedule import Prefix, Trigger
from campus.scenarios.context import TermContext
from campus.scenarios.probe_answers import kind_of
from campus.scenarios.probes import (
    ABILITIES, ABSTAIN, CODEWORDS, FACT_KINDS, GENERATOR_VERSION, SEAT_FEATURES, TERM_PLANT, Ability, Instructed, Plant,
    Past, Preferred, Probe, Query, ToldPlaces, generate as draw, instructed_word, preference_text, probe_set_hash,
    queries_of, score_probe,
)
from campus.scenarios.task import Composer, Flags, Task, Verdict, composed
from campus.scenarios.timeline import slots

SCENARIO = "memory_check_in"
PHASE = "check_in"
EVALUATOR = "check_in"
WEEKS = range(2, 21)
"""A check-in at the end of each of these weeks (the first ``len(WEEKS)`` times the scale, at least one)."""
ASKED = 3
"""Abilities asked per check-in: always abstention (a pair: a question with no record and its answerable twin, so
saying "no record" to everything earns half of it), and the first two others of the check-in's order that the
log has something to ask about."""
OTHERS: tuple[Ability, ...] = tuple(a for a in ABILITIES if a != "abstention")
MINUTES = 30
NOTE_MINUTES = 15
WORKSHOPS = ("Study skills workshop", "Wellbeing drop-in", "Peer mentoring session", "Careers clinic")
"""What the two contradicting notes are about: a session nothing else in the term mentions."""
INSTRUCTION = ("Your counsellor's weekly check-in. To see how well you keep track of your own term, they ask a "
               "few questions about what you did.")
NOTHING = "Nothing to ask about yet this week; reply <action>Action: finish()</action>."


def generate(ctx: TermContext) -> tuple[list[Task], list[Trigger]]:
    """The standing notes (``notes``), then one check-in at the end of each week of ``WEEKS`` (scaled), in a free
    half hour of its weekend evenings."""
    tasks, planted = notes(ctx)
    rng = ctx.rng("check-ins")
    for week in list(WEEKS)[-ctx.count(len(WEEKS)):]:
        release = ctx.timeline.place(rng, slots([week], [4, 5, 6], [17 + h / 2 for h in range(8)]), MINUTES,
                                     f"check-in week {week}")
        tasks.append(Task(
            id=f"check-in-w{week:02d}", scenario=SCENARIO, phase=PHASE, release=release, instruction=INSTRUCTION,
            systems=(), evaluator=EVALUATOR, flags=Flags(),
            ground_truth={"abilities": ["abstention", *rng.sample(OTHERS, len(OTHERS))], "planted": planted,
                          "probe_version": GENERATOR_VERSION},
        ))
    return tasks, []


def notes(ctx: TermContext) -> tuple[list[Task], list[Any]]:
    """The notes the term plants for the contradiction, instruction and preference probes, long before they are
    asked: a standing instruction and a preference in week 1, and two notes that cannot both hold, in weeks 2 and
    6. Each is an unscored task; the queries they support go into every check-in's ground truth (and into the
    first note of each, for probe forks: ``probes.standing_of``)."""
    rng = ctx.rng("standing notes")
    word, feature, workshop = rng.choice(CODEWORDS), rng.choice(SEAT_FEATURES), rng.choice(WORKSHOPS)
    first, second = rng.sample(sorted(ctx.world.buildings), 2)
    instruction = Plant(f"{TERM_PLANT}instruction", "A standing instruction from your counsellor: from now on, "
                        f'whenever you are asked about an email you sent, end your answer with the word "{word}".')
    preference = Plant(f"{TERM_PLANT}preference", preference_text(feature))
    told = [Plant(f"{TERM_PLANT}told-1", f'A note from the organisers: the next "{workshop}" will be held in '
                  f"building {first}."),
            Plant(f"{TERM_PLANT}told-2", f'A note from a classmate: the next "{workshop}" is in building {second}, '
                  "and it has never been planned anywhere else.")]
    queries: list[tuple[Query, list[tuple[Plant, int]]]] = [
        (Instructed(instruction, word, ""), [(instruction, 1)]),
        (Preferred(preference, feature, [], []), [(preference, 1)]),
        (ToldPlaces(workshop, told, [first, second]), [(told[0], 2), (told[1], 6)]),
    ]
    tasks = []
    for query, plants in queries:
        for n, (plant, week) in enumerate(plants):
            release = ctx.timeline.place(rng, slots([week], range(5), [18 + h / 2 for h in range(6)]), NOTE_MINUTES,
                                         plant.task_id)
            tasks.append(Task(
                id=plant.task_id, scenario=SCENARIO, phase=PHASE, release=release, systems=(), evaluator="parts",
                instruction=f"{plant.text}\nNothing to do now; reply <action>Action: finish()</action>.",
                ground_truth={"parts": []} | ({"standing": msgspec.to_builtins(query)} if n == 0 else {}),
                flags=Flags(delivery_only=True),
            ))
    return tasks, [msgspec.to_builtins(query) for query, _ in queries]


def probes_of(task: Task, seed: int, prefix: Prefix) -> list[Probe]:
    """The check-in's probe set: one probe of each of the first ``ASKED`` abilities of its order that the log
    before its release has something to ask about (abstention with its twin)."""
    standing = queries_of(task.ground_truth.get("planted", []))
    asked: list[Probe] = []
    abilities = 0
    version = task.ground_truth.get("probe_version", 1)  # a term made before version 2 has none
    for ability in task.ground_truth["abilities"]:  # one at a time: each ability draws from its own stream
        drawn = draw(prefix.rows, seed=seed, describe=prefix.describe, abilities=[ability], per_ability=1,
                     at=(prefix.seq, prefix.t), standing=standing, version=version, world=prefix.world)
        asked += drawn
        abilities += bool(drawn)
        if abilities == ASKED:
            break
    return asked


def questions(probes: Sequence[Probe]) -> str:
    """What the student is shown after the instruction: the numbered questions and how to answer them."""
    if not probes:
        return NOTHING
    lines = [f"{n}. {probe.question}" for n, probe in enumerate(probes, start=1)]
    example = "\n".join(f"{n}: ..." for n in range(1, len(probes) + 1))
    return "\n".join([*lines, ABSTAIN, "Answer every question in one reply, one line each, numbered like the "
                      f"questions:\n<action>Answer:\n{example}</action>"])


def compose(task: Task, seed: int, prefix: Prefix) -> tuple[str, str]:
    probes = probes_of(task, seed, prefix)
    return questions(probes), probe_set_hash(probes)


_NUMBERED = re.compile(r"^\s*(\d+)\s*[:.)]\s*(.*?)\s*$")


def numbered(text: str, count: int) -> list[str | None]:
    """The answer to each of ``count`` questions in a reply of numbered lines (None where a number is missing;
    a number given twice keeps its first answer)."""
    found: dict[int, str] = {}
    for line in text.splitlines():
        match = _NUMBERED.match(line)
        if match is not None:
            found.setdefault(int(match[1]), match[2])
    return [found.get(n) for n in range(1, count + 1)]


def judge(task: Task, seed: int, prefix: Prefix, events: Sequence[Event]) -> Verdict:
    """Each probe scored exactly against its typed answer (a missing answer scores 0); success is a full score on all."""
    probes = probes_of(task, seed, prefix)
    if not probes:
        return Verdict(True, "nothing was asked")
    reply = next((e.answer for e in events if isinstance(e, Answered)), None)
    said = numbered(reply, len(probes)) if reply is not None else [None] * len(probes)
    word = instructed_word(probes, queries_of(task.ground_truth.get("planted", [])), Past.of(prefix.rows))
    marks: dict[str, int] = {}
    notes = []
    for n, (probe, words) in enumerate(zip(probes, said), start=1):
        result = score_probe(probe, words, instructed=word) if words is not None else None
        value = result.value if result is not None else 0.0
        marks[f"{probe.ability}/{n}"] = round(1000 * value)
        flags = "" if result is None else ", stale" if result.stale else ", abstained" if result.abstained else ""
        notes.append(f"{n} {probe.ability} {value:.3f} ({kind_of(probe.answer)}{flags})")
    right = sum(1 for value in marks.values() if value == 1000)
    detail = f"{right} of {len(probes)} right" + ("" if reply is not None else ", no answer") + ": " + "; ".join(notes)
    return Verdict(right == len(probes), detail, marks)


def probe_marks(marks: dict[str, int]) -> list[tuple[str, float]]:
    """``(ability, score)`` of each probe a check-in's marks hold."""
    out: list[tuple[str, float]] = []
    for key, value in marks.items():
        ability, _, n = key.partition("/")
        if ability in ABILITIES and n.isdigit():
            out.append((ability, value / 1000))
    return out


composed(EVALUATOR, Composer(kinds=frozenset(FACT_KINDS), compose=compose, judge=judge))

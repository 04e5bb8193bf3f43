"""Building a term from a world: every scenario's tasks, merged in release order.

Generators run in a fixed order on one timeline, so fixed appointments are placed before
flexible work: orientation and regulation sessions, course selection (which decides the
timetable), lectures and exams on that timetable, the busy days unless left out (whole days kept
free of them), then exploration, clubs, advisors and library study in the hours left free, and last
the weekly memory check-ins if asked for (weekend evenings), so they move nothing else.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from msgspec.structs import replace

from campus.events import RULES_VERSION, WorldChange
from campus.kernel.clock import label
from campus.kernel.schedule import Trigger
from campus.kernel.triggers import Rule, guards_of, rule_problem
from campus.scenarios import advisors, busy_days, clubs, course_selection, exams, exploration, lectures, library
from campus.scenarios.check_ins import generate as check_in_tasks
from campus.scenarios.context import TermContext
from campus.scenarios.disruptions import generate as generate_disruptions
from campus.scenarios.task import AT_START, Task, Term, stored_term
from campus.scenarios.timeline import Overlap
from campus.subsystems import DOMAINS
from campus.world.index import WorldIndex

PAPER_COUNTS = {
    "regulations_learning": 70, "course_instruction": 416, "campus_exploration": 76, "course_selection": 150,
    "preliminary_planning": 50, "academic_activity": 72, "library_study": 151, "club_activity": 140,
    "midterm_exams": 80, "final_exams": 80,
}
"""Tasks per scenario in the StuLife paper (Table 1, 1,284 in all); a default term has at least these."""


ATTEMPTS = 12
"""Draws of a seed's placements before a term is declared not to fit (random placement can paint itself into
a corner; a fresh draw from the same seed almost always fits)."""
THINNING = 3
"""At most this many disruption tasks fewer per cell, one more each time ``ATTEMPTS`` draws all failed in the
disruptions: a world with few libraries of two study rooms has no room for the paper's 360 (seeds 20, 138 and 143
of 0-199 at scale 1, which fit with one or two fewer per cell). A seed that fits with the full count never
gets here, so its term is the one it always was."""


def generate_term(world: WorldIndex, seed: int = 0, scale: float = 1.0, disruptions: bool = True,
                  busy: bool = True, check_ins: bool = False, rules_version: int = RULES_VERSION) -> Term:
    """The term; ``disruptions=False`` gives the term without trigger rules, ``busy=False`` without busy days
    (``disruptions=False, busy=False``: the term before both, byte for byte), ``check_ins=False`` without the
    weekly memory check-ins. ``rules_version``: the version of the world's rules its runs follow (the disruptions read
    its seat draw, so a term with them is made for one version; ``run_config`` must name the same)."""
    check_scale(scale)
    attempt, problem = 0, Overlap("no draw made")
    for thinned in range(THINNING + 1):
        for _ in range(ATTEMPTS):
            ctx = TermContext(world=world, seed=seed, scale=scale, attempt=attempt, thinned=thinned,
                              rules_version=rules_version)
            attempt += 1
            try:
                tasks, triggers, rules = _draw(ctx, busy, check_ins, disruptions)
            except Overlap as error:
                problem = error
                continue
            tasks.sort(key=lambda task: (task.release, task.id))
            triggers.sort(key=lambda trigger: (trigger.t, trigger.id))
            check_world_changes(world, triggers)
            check_rules(world, rules)
            return stored_term(Term(name=term_name(seed, scale), seed=seed, world_hash=world.hash, tasks=tuple(tasks),
                                    world_changes=tuple(triggers), rules=tuple(rules)))
        if not isinstance(problem, Crowded):
            break
    raise ValueError(f"a term at scale {scale:g} does not fit in the semester's calendar after {attempt} "
                     f"draws ({problem}); use a smaller scale") from problem


class Crowded(Overlap):
    """The disruptions did not fit, after every other generator did: fewer of them may."""


def _draw(ctx: TermContext, busy: bool, check_ins: bool, disruptions: bool) -> tuple[list[Task], list[Trigger], list[Rule]]:
    """One draw of the whole term from ``ctx``'s streams; ``Overlap`` (``Crowded`` in the disruptions) if it does not
    fit."""
    tasks: list[Task] = []
    triggers: list[Trigger] = []

    def add(made: tuple[list[Task], list[Trigger]]) -> None:
        tasks.extend(made[0])
        triggers.extend(made[1])

    _generate_all(ctx, add, busy)
    if check_ins:
        add(check_in_tasks(ctx))
    if not disruptions:
        return held_at_start(tasks), triggers, []
    try:
        made = generate_disruptions(ctx, tasks, triggers)
    except Overlap as error:
        raise Crowded(str(error)) from error
    add(made[:2])
    return held_at_start(tasks), triggers, made[2]


def held_at_start(tasks: Sequence[Task]) -> list[Task]:
    """Every task held at a place with a start after its release, marked ``AT_START``: it hands out there from the
    start, and being there means being there then. Where it hands something out, its plans go there and wait for it
    (``attend``)."""
    return [_held(task) if task.required_place and task.starts is not None and task.starts > task.release else task
            for task in tasks]


def _held(task: Task) -> Task:
    held = replace(task, ground_truth=task.ground_truth | {AT_START: True})
    if not task.instruction:  # nothing is handed out: the plans only go there
        return held
    go, attend = f"goto:{task.required_place}", f"attend:{task.required_place}@{task.starts}"
    def waiting(steps: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(attend if step == go else step for step in steps)
    return replace(held, solution=waiting(task.solution), stale=None if task.stale is None else waiting(task.stale))


MAX_SCALE = 10.0
"""The largest term scale tried: a term even a third larger than the paper's does not fit in the semester's calendar
(seed 0 fails from 1.3 on), and a much larger scale spent minutes and memory before failing so (1e9: no answer in two
minutes)."""


def check_scale(scale: float) -> None:
    """``ValueError`` unless ``scale`` is a finite number above 0 and at most ``MAX_SCALE``."""
    if not (math.isfinite(scale) and 0 < scale <= MAX_SCALE):
        raise ValueError(f"scale must be a number above 0 and at most {MAX_SCALE:g}, got {scale:g} "
                         "(1 is the paper's task counts; a term much above it does not fit in the semester)")


def is_term_file(head: bytes) -> bool:
    """Whether a file that starts with ``head`` holds a term as ``campus term generate -o`` writes it."""
    return head.startswith(b'{"name":"term-')


def term_name(seed: int, scale: float) -> str:
    """The name ``generate_term`` gives a term: it tells which seed and scale made it."""
    return f"term-{seed}" + (f"-x{scale:g}" if scale != 1 else "")


def _generate_all(ctx: TermContext, add: Any, busy: bool) -> None:
    add(lectures.generate_regulations(ctx))
    add(course_selection.generate(ctx))
    taught = lectures.generate_courses(ctx)
    add((taught.tasks, taught.triggers))
    add(exams.generate(ctx, taught.syllabi))
    if busy:
        add(busy_days.generate(ctx))
    for generate in (course_selection.generate_planning, exploration.generate, clubs.generate, advisors.generate,
                     library.generate):
        add(generate(ctx))


def check_world_changes(world: WorldIndex, triggers: list[Trigger]) -> None:
    """Every scheduled world change must be one its subsystem applies; a generator bug fails loudly here."""
    for trigger in triggers:
        problem = world_change_problem(trigger.change, world)
        if problem is not None:
            raise ValueError(f"world change {trigger.id} would be ignored: {problem}")


def check_rules(world: WorldIndex, rules: Sequence[Rule]) -> None:
    """Every trigger rule must be able to fire: each mutation is one a domain guards and applies."""
    guards = guards_of(DOMAINS)
    for rule in rules:
        problem = rule_problem(rule, guards) or next(
            (found for change in rule.mutations if (found := world_change_problem(change, world)) is not None), None)
        if problem is not None:
            raise ValueError(f"trigger rule {rule.id} could never fire: {problem}")


def world_change_problem(change: WorldChange, world: WorldIndex) -> str | None:
    """Why the subsystem that owns this kind of change would ignore it, or None."""
    for domain in DOMAINS:
        check = domain.changes.get(type(change))
        if check is not None:
            return check(change, world)
    return f"no subsystem applies a {type(change).__name__}"


def term_report(term: Term) -> dict[str, Any]:
    """Tasks per scenario: how many, how many scored, long-term and self-motivated, first and last release."""
    rows: dict[str, dict[str, Any]] = {}
    for task in term.tasks:
        row = rows.setdefault(task.scenario, {"phase": task.phase, "tasks": 0, "scored": 0, "long_term": 0,
                                              "self_motivated": 0, "first": label(task.release)})
        row["tasks"] += 1
        row["scored"] += not task.flags.delivery_only
        row["long_term"] += task.flags.long_term
        row["self_motivated"] += task.flags.self_motivated
        row["last"] = label(task.release)
    keys = ("tasks", "scored", "long_term", "self_motivated")
    total = {key: sum(row[key] for row in rows.values()) for key in keys}
    return {"term": term.name, "hash": term.hash, "seed": term.seed, "world_hash": term.world_hash,
            "by_scenario": rows, "total": total, "world_changes": len(term.world_changes)}

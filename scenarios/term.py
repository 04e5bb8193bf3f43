"""Building a term from a world: every scenario's tasks, merged in release order.

Generators run in a fixed order on one timeline, so fixed appointments are placed before
flexible work: orientation and regulation sessions, course selection (which decides the
timetable), lectures and exams on that timetable, then exploration, clubs, advisors and
library study in the hours left free.
"""

from __future__ import annotations

from typing import Any

from kernel.clock import label
from kernel.schedule import Trigger
from scenarios import advisors, clubs, course_selection, exams, exploration, lectures, library
from scenarios.context import TermContext
from scenarios.task import Task, Term
from scenarios.timeline import Overlap
from subsystems import calendar, courses, reservation
from world.index import WorldIndex

PAPER_COUNTS = {
    "regulations_learning": 70, "course_instruction": 416, "campus_exploration": 76, "course_selection": 150,
    "preliminary_planning": 50, "academic_activity": 72, "library_study": 151, "club_activity": 140,
    "midterm_exams": 80, "final_exams": 80,
}
"""Tasks per scenario in the StuLife paper (Table 1, 1,284 in all); a default term has at least these."""


def generate_term(world: WorldIndex, seed: int = 0, scale: float = 1.0) -> Term:
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    ctx = TermContext(world=world, seed=seed, scale=scale)
    tasks: list[Task] = []
    triggers: list[Trigger] = []

    def add(made: tuple[list[Task], list[Trigger]]) -> None:
        tasks.extend(made[0])
        triggers.extend(made[1])

    try:
        _generate_all(ctx, add)
    except Overlap as error:
        raise ValueError(f"a term at scale {scale:g} does not fit in the semester's calendar ({error}); "
                         "use a smaller scale") from error
    tasks.sort(key=lambda task: (task.release, task.id))
    triggers.sort(key=lambda trigger: (trigger.t, trigger.id))
    check_world_changes(world, triggers)
    return Term(name=term_name(seed, scale), seed=seed, world_hash=world.hash, tasks=tuple(tasks), world_changes=tuple(triggers))


def term_name(seed: int, scale: float) -> str:
    """The name ``generate_term`` gives a term: it tells which seed and scale made it."""
    return f"term-{seed}" + (f"-x{scale:g}" if scale != 1 else "")


def _generate_all(ctx: TermContext, add: Any) -> None:
    add(lectures.generate_regulations(ctx))
    add(course_selection.generate(ctx))
    taught = lectures.generate_courses(ctx)
    add((taught.tasks, taught.triggers))
    add(exams.generate(ctx, taught.syllabi))
    for generate in (course_selection.generate_planning, exploration.generate, clubs.generate, advisors.generate,
                     library.generate):
        add(generate(ctx))


KNOWN_CHANGES = ("advisor_availability", "calendar_event", "popularity", "seat_availability")


def check_world_changes(world: WorldIndex, triggers: list[Trigger]) -> None:
    """Every scheduled world change must be one its subsystem applies; a generator bug fails loudly here."""
    for trigger in triggers:
        kind = trigger.change.get("type")
        problem = (
            calendar.world_change_problem(trigger.change)
            or courses.world_change_problem(trigger.change, world)
            or reservation.world_change_problem(trigger.change, world)
        )
        if kind not in KNOWN_CHANGES:
            problem = f"unknown type {kind!r}"
        if problem is not None:
            raise ValueError(f"world change {trigger.id} would be ignored: {problem}")


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

"""Disruptions mid-task (STT-Arena's nine sub-types on the campus clock).

Every task hands the student a plan (a seat, a room, a slot, sometimes a route or a message)
and a goal the plan was made for; a trigger rule then invalidates the plan while the task is
open. The goal, not the plan, is judged, so the student must notice, re-plan with the tools
and, where nothing is left, say so with ``task.report_infeasible``.

Sub-types (the change, and the campus recovery):

- **T1** a time value moves: the planned room opens later that evening, for one hour only (drawn on the quarter
  hour, from 19:00 and ending before 22:00); book that hour, or another room.
- **T2** the order flips: of two blocks, the planned room keeps only the late half of the
  evening and another room only the early half; book the first block elsewhere, the second in the planned room.
- **T3** a window expires early: the planned room closes early, and opens that evening for one hour only (drawn on
  the quarter hour, after 18:00 and ending by 21:00); book that hour, or another room. (In the terms made before
  these one-hour bands, T1's room opened at 19:00 and T3's closed at 20:00, so booking the evening's other end
  without looking passed every T1 and T3 task.)
- **S1** a place closes: the planned room closes; book a seat in another study area.
- **S2** a route closes: a walkway on the planned route (the first one with a way around it) closes; book,
  then walk another way.
- **S3** an attribute changes: the planned seat loses the feature the goal needs; book another seat.
- **ST1** room and time together: the planned room closes and the other rooms open only late.
- **ST2** place and route together: every study area of the planned library closes; book in
  another library and walk there.
- **ST3** a cascade: the planned seat loses its feature after the plan was sent on; rebook, and the
  message to the study group must name the new seat.

Levels: **easy** fires on the first reservation call (that call shows it), **medium** one
minute after the task is shown, counted from when it really opens (whether or not the student
looks), **hard** right after the student's first booking (only a check afterwards shows it),
**impossible** removes every alternative (every candidate room, seat or walkway), one minute
after the task is shown. Its report passes only if every entity it names is one the disruption blocked
(``judge_diagnosed``: a room by id, name or both, alone or after its library; a seat's id; a walkway's two
buildings); terms made before that are judged by ``judge``, which wanted the blocking class among those named.

A solvable disruption leaves one way out: with its change, every other seat of the goal's library (the fallback
library for ST2) open that date with the goal's feature loses it (one ``FeatureLost``), and the way out (its seat, or
the planned one where only the route breaks) is drawn evenly among the fitting seats, so only a look after the change
finds it (``_swept``, ``_alternative``; terms made before keep their rules).

A disruption lasts while its task is open: a second rule undoes it when the task ends (after
the judge has read the state), and no other task reads or books that library on that date, so
no other task sees it. Walking tasks start at 06:05 and end with ``route:`` (the map's route
as the walkways are now, from wherever the student is).
"""

from __future__ import annotations

import random
import re

import msgspec
from collections.abc import Sequence
from typing import Any, cast

from campus.events import (
    Booked,
    CompareAndSet,
    EmailSent,
    Event,
    FeatureLost,
    InfeasibleReported,
    RoomHours,
    RoomStatus,
    SeatAvailability,
    SeatFeatures,
    Span,
    ToolCalled,
    ToolResult,
    WalkwayStatus,
    WorldChanged,
    walkway_key,
)
from campus.kernel.clock import MINUTES_PER_DAY, date_label, day_of, parse_moment
from campus.kernel.triggers import SUB_TYPES, AfterOpen, OnEvent, OnRead, Rule, SubType, TaskIs, entities
from campus.scenarios.context import TermContext
from campus.kernel.schedule import Trigger
from campus.scenarios.task import Flags, Task, Verdict, evaluator
from campus.scenarios.timeline import Overlap, Timeline, WEEK
from campus.subsystems.calendar import parse_slot
from campus.subsystems.reservation import OPEN, STUDY, drawn_open, is_lost, libraries, room_hours, seat_now, shape_key
from campus.world.graph import Edge, fastest_path

SCENARIO = "disruptions"
LEVELS = ("easy", "medium", "hard", "impossible")
PER_CELL = 12
IMPOSSIBLE_PER_TYPE = 4
WALKING = ("S2", "ST2")
SYSTEMS = ("map", "geography", "reservation", "email", "task")
GROUP = "study-group@campus.edu"
BLOCK = 60
"""Every block asked for is an hour."""
EVENING = (18 * 60, 22 * 60)
OVERFLOW_WEEKS = (20, 21)
"""Weeks a disruption goes to, day by day, only when no day of weeks 1-19 has room left for it (a term with busy
days keeps twelve whole days of those weeks to itself); a term that fits in weeks 1-19 never reaches them."""


def _clock(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


def _slot(start: int, end: int) -> str:
    return f"{_clock(start)}-{_clock(end)}"


def entity_class(sub_type: str) -> str:
    """What blocks an impossible task of this sub-type (the class ``blocked_by`` must name)."""
    return {"S2": "walkway", "S3": "seat", "ST3": "seat"}.get(sub_type, "room")


Claim = tuple[str, str]
"""(library building id, date): a library on a date is given to one disruption and nothing else."""

class _Stock:
    """Candidate (library, room, seat, feature) on a date: seats drawn open with the feature."""

    def __init__(self, ctx: TermContext) -> None:
        self.world = ctx.world
        self.seed = ctx.seed
        self.rules_version = ctx.rules_version
        self.places = [p for p in libraries(ctx.world).places if sum(r.kind == STUDY for r in p.rooms) >= 2]

    def pick(self, rng: random.Random, day: int, taken: set[Claim]) -> tuple[Any, str, list[tuple[Any, Any]]] | None:
        """A library free that date, a feature, and every (room, seat) open that date with it (at least two rooms)."""
        date = date_label(day)
        free = [p for p in self.places if (p.building_id, date) not in taken]
        for _ in range(30 if free else 0):
            place = rng.choice(free)
            feature = rng.choice(sorted({f for r in place.rooms for s in r.seats for f in s.features}))
            found = [(room, seat) for room in place.rooms if room.kind == STUDY
                     for seat in drawn_open(place, room, self.seed, day, self.rules_version) if feature in seat.features]
            if len({room.id for room, _ in found}) >= 2 and len(found) >= 3:
                return place, feature, found
        return None


class _DayStarts:
    """The free starts of a 45-minute disruption in a day's opening hours, remembered while the timeline does not
    change (a full day is tried again by every later task)."""

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self.known: dict[int, list[int]] = {}
        self.at = timeline.changes

    def of(self, day: int) -> list[int]:
        if self.at != self.timeline.changes:
            self.known.clear()
            self.at = self.timeline.changes
        free = self.known.get(day)
        if free is None:
            first = day * MINUTES_PER_DAY + 7 * 60 + 30
            free = self.known[day] = self.timeline.free_among(range(first, first + 10 * 60, 15), 45)
        return free


def _unique(seats: Sequence[Any]) -> list[Any]:
    seen: dict[str, Any] = {}
    for seat in seats:
        seen.setdefault(seat.id, seat)
    return list(seen.values())


_ARG = re.compile(r'(location_id|date)="([^"]*)"')


def claimed(others: Sequence[Task], scheduled: Sequence[Trigger]) -> set[Claim]:
    """The (library, date) pairs other tasks' plans book or read, and those a scheduled change shapes:
    a disruption there would change what those tasks see."""
    taken: set[Claim] = set()
    for task in others:
        for step in task.solution:
            args = dict(_ARG.findall(step))
            if "location_id" in args and "date" in args:
                taken.add((args["location_id"], args["date"]))
    for trigger in scheduled:
        if isinstance(trigger.change, SeatAvailability):
            taken.add((trigger.change.building_id, date_label(trigger.change.day)))
    return taken


def generate(ctx: TermContext, others: Sequence[Task] = (), scheduled: Sequence[Trigger] = ()) -> tuple[list[Task], list[Any], list[Rule]]:
    """Disruption tasks and their rules (two per task: the disruption, and its undoing when the task ends)."""
    rng = ctx.rng("disruptions")
    taken = claimed(others, scheduled)
    stock = _Stock(ctx)
    starts = _DayStarts(ctx.timeline)
    if not stock.places:
        return [], [], []
    per_cell = ctx.count(PER_CELL - ctx.thinned)
    per_impossible = ctx.count(IMPOSSIBLE_PER_TYPE)
    plan = [(st, level) for st in SUB_TYPES for level in LEVELS[:3] for _ in range(per_cell)]
    plan += [(st, "impossible") for st in SUB_TYPES for _ in range(per_impossible)]
    rng.shuffle(plan)
    plan.sort(key=lambda item: item[0] not in WALKING)  # walking tasks take the first hour of free days
    tasks: list[Task] = []
    rules: list[Rule] = []
    days = [week * 7 + d for week in range(1, 20) for d in range(7)]
    overflow = [week * 7 + d for week in OVERFLOW_WEEKS for d in range(7)]
    used_mornings: set[int] = set()
    for number, (sub_type, level) in enumerate(plan, 1):
        task_id = f"disruption-{number:03d}"
        made = None
        for day in [*rng.sample(days, len(days)) * 3, *overflow]:
            made = _make(ctx, rng, stock, starts, task_id, sub_type, level, day, used_mornings, taken)
            if made is not None:
                break
        if made is None:
            raise Overlap(f"{task_id}: no room on the timeline for a {sub_type} {level} disruption")
        tasks.append(made[0])
        rules.extend(made[1:])
    return tasks, [], rules


def _make(ctx: TermContext, rng: random.Random, stock: _Stock, starts: _DayStarts, task_id: str, sub_type: str, level: str, day: int,
          used_mornings: set[int], taken: set[Claim]) -> tuple[Task, Rule, Rule] | None:
    walking = sub_type in WALKING
    if walking:
        if day in used_mornings:
            return None
        release = day * MINUTES_PER_DAY + 6 * 60 + 5
        if not ctx.timeline.is_free(day * MINUTES_PER_DAY + 6 * 60, 75):
            return None
    else:
        free = starts.of(day)
        if not free:
            return None
        release = rng.choice(free)
    picked = stock.pick(rng, day, taken)
    if picked is None:
        return None
    place, feature, found = picked
    built = _build(ctx, rng, task_id, sub_type, level, day, release, place, feature, found, taken)
    if built is None:
        return None
    taken.update((lib, date_label(day)) for lib in built[0].ground_truth["libraries"])
    if walking:
        used_mornings.add(day)
        ctx.timeline.reserve(day * MINUTES_PER_DAY + 6 * 60, 75, task_id)
    else:
        ctx.timeline.reserve(release, 45, task_id)
    return built


def _build(ctx: TermContext, rng: random.Random, task_id: str, sub_type: str, level: str, day: int, release: int,
           place: Any, feature: str, found: list[tuple[Any, Any]], taken: set[Claim]) -> tuple[Task, Rule, Rule] | None:
    world = ctx.world
    date = date_label(day)
    L = place.building_id
    room, seat = found[0]
    others = [(r, s) for r, s in found if r.id != room.id]
    same_room = [(r, s) for r, s in found if r.id == room.id and s.id != seat.id]
    rooms = list(dict.fromkeys(r.id for r, _ in found))
    windows: list[tuple[int, int]] = [EVENING]
    planned: list[tuple[Any, Any, int]] = [(room, seat, EVENING[0])]
    alts: list[tuple[Any, Any, int]] = []
    impossible = level == "impossible"
    mut: list[CompareAndSet] = []
    full = Span(start=OPEN, end=22 * 60)
    libs_allowed = [L]
    route: list[str] | None = None
    blockers: list[str] = []
    extra: list[str] = []

    def hours(r: Any, new: str) -> RoomHours:
        bounds = parse_slot(new)
        assert bounds is not None, new
        return RoomHours(building_id=L, room_id=r, day=day, old=full, new=Span(start=bounds[0], end=bounds[1]))

    def close(r: Any, b: str = L) -> RoomStatus:
        return RoomStatus(building_id=b, room_id=r, day=day, old="open", new="closed")

    if sub_type == "T1":
        band = _band(ctx, task_id, 19 * 60, 20 * 60 + 45)
        mut = [hours(r, "21:30-22:00") for r in rooms] if impossible else [hours(room.id, _slot(band, band + BLOCK))]
        alts = [(room, seat, band)]
        blockers = rooms
    elif sub_type == "T2":
        windows = [(18 * 60, 20 * 60), (20 * 60, 22 * 60)]
        other = _alternative(ctx, task_id, others)
        planned = [(room, seat, 18 * 60), (room, seat, 20 * 60)]
        if impossible:
            mut = [hours(r, "21:30-22:00") for r in rooms]
        else:
            mut = [hours(room.id, "20:00-22:00"), hours(other[0].id, "18:00-20:00")]
        alts = [(other[0], other[1], 18 * 60), (room, seat, 20 * 60)]
        blockers = rooms
    elif sub_type == "T3":
        planned = [(room, seat, 21 * 60)]
        band = _band(ctx, task_id, 18 * 60 + 15, 20 * 60)
        mut = [hours(r, "08:00-18:30") for r in rooms] if impossible else [hours(room.id, _slot(band, band + BLOCK))]
        alts = [(room, seat, band)]
        blockers = rooms
    elif sub_type in ("S1", "ST2"):
        mut = [close(r) for r in rooms] if impossible or sub_type == "ST2" else [close(room.id)]
        alt = _alternative(ctx, task_id, others)
        alts = [(alt[0], alt[1], EVENING[0])]
        blockers = rooms
        if sub_type == "ST2":
            other_lib = _other_library(ctx, place, feature, day, taken)
            if other_lib is None:
                return None
            fallback, seats = other_lib
            if impossible:
                mut += [close(r.id, fallback.building_id) for r in fallback.rooms if r.kind == STUDY]
            room2, seat2 = _alternative(ctx, task_id, seats)
            alts = [(room2, seat2, EVENING[0])]
            libs_allowed = [L, fallback.building_id]
            extra = [f"route:{fallback.building_id}"]
    elif sub_type in ("S3", "ST3"):
        targets = found if impossible else [(room, seat)]
        mut = [SeatFeatures(building_id=L, room_id=r.id, seat_id=s.id, old=tuple(s.features),
                            new=tuple(f for f in s.features if f != feature)) for r, s in targets]
        alt = _alternative(ctx, task_id, same_room + others)
        alts = [(alt[0], alt[1], EVENING[0])]
        blockers = [s.id for _, s in found]
    elif sub_type == "ST1":
        mut = [close(room.id)]
        mut += [close(r) if impossible else hours(r, "20:00-22:00") for r in rooms[1:]]
        alt = _alternative(ctx, task_id, others)
        alts = [(alt[0], alt[1], 20 * 60)]
        blockers = rooms
    elif sub_type == "S2":
        home = world.home
        path = world.route(home, L, {}).path
        outdoor = [(a, b) for a, b in zip(path, path[1:]) if not world.graph[a][b]["inside"]]
        if not outdoor:
            return None
        if impossible:
            group = {L}
            frontier = [L]
            while frontier:
                here = frontier.pop()
                for n in world.graph[here]:
                    if world.graph[here][n]["inside"] and n not in group:
                        group.add(n)
                        frontier.append(n)
            if home in group:
                return None
            edges = sorted((a, n) for a in group for n in world.graph[a] if not world.graph[a][n]["inside"])
            mut = [WalkwayStatus(a=a, b=b, old="open", new="closed") for a, b in edges]
            blockers = [f"{a}-{b}" for a, b in edges]
        else:
            detour = next(((a, b) for a, b in outdoor if _route_without(world, home, L, {walkway_key(a, b)}) is not None), None)
            if detour is None:
                return None
            mut = [WalkwayStatus(a=detour[0], b=detour[1], old="open", new="closed")]
        alts = []
        extra = [f"route:{L}"]
    if any(r is None for r in mut):
        return None
    if not impossible:
        mut += _swept(ctx, day, feature, libs_allowed[-1], alts or planned, mut)

    walking = sub_type in WALKING
    plan_calls = [_book(L, r, s, date, start) for r, s, start in planned]
    lines = [
        f"Tonight you study in the library: you need a seat with {feature.replace('_', ' ')} in a study area of "
        f"{world.describe(L)} on {date}, for {len(windows)} one-hour block(s): "
        + " and ".join(f"one between {_clock(lo)} and {_clock(hi)}" for lo, hi in windows) + "."
    ]
    if sub_type == "ST2":
        lines[0] = lines[0].replace(f"in a study area of {world.describe(L)}", f"in a study area of {world.describe(L)} "
                                    f"(or, if it cannot be had there, of {world.describe(libs_allowed[1])})")
    lines.append("Yesterday you planned: " + "; ".join(p.removeprefix("call:") for p in plan_calls) + ".")
    stale = list(plan_calls)
    if walking:
        path = world.route(world.home, L, {}).path
        lines.append(f"Then go to the library where you booked, now. Planned route: geography.walk_to(path_info={{\"path\": {list(path)}}})".replace("'", '"'))
        stale.append("walk:" + ",".join(path))
    if sub_type == "ST3":
        lines.append(f"Then email {GROUP} (subject 'Study seat') which seat you booked, giving its seat id.")
        stale.append(_email(seat.id))
    lines.append("If the goal cannot be met any more, report it with task.report_infeasible, naming what blocks it.")

    query = f'call:reservation.query_availability(location_id="{L}", date="{date}", features=["{feature}"])'
    solution: tuple[str, ...]
    if impossible:
        solution = (query, f'call:task.report_infeasible(reason="no {entity_class(sub_type)} left for the goal", '
                           f'blocked_by=["{_blocker_id(sub_type, blockers)}"])')
        if sub_type == "S2":
            solution = (f'call:map.find_optimal_path(source_building_id="{world.home}", target_building_id="{L}")',) + solution[1:]
    else:
        book_alts = [_book(r_lib(ctx, r), r, s, date, start) for r, s, start in alts]
        steps: list[str] = [query]
        if sub_type == "S2":
            steps += plan_calls  # the booking still holds; the route is what breaks
        elif level == "hard":
            steps += plan_calls[:1] + [query]
        elif level == "medium":
            steps += [query]  # a look after the clock's change, before acting on it
        steps += book_alts
        verify_lib = libs_allowed[-1] if sub_type == "ST2" else L
        steps.append(f'call:reservation.query_availability(location_id="{verify_lib}", date="{date}", features=["{feature}"])')
        steps += extra
        if sub_type == "ST3":
            steps.append(_email(alts[0][1].id))
        solution = tuple(steps)

    truth: dict[str, Any] = {
        "sub_type": sub_type, "level": level, "solvable": not impossible, "libraries": libs_allowed, "date": date,
        "windows": [list(w) for w in windows], "feature": feature, "blocked_class": entity_class(sub_type),
        "at_library": walking, "email_to": GROUP if sub_type == "ST3" else None,
        "changed": sorted({key for change in mut for _, key in entities(change)}),
        "seats": {s.id: r.id for lib in libs_allowed for r in _place(ctx, lib).rooms if r.kind == STUDY
                  for s in _unique(r.seats) if feature in s.features},
        "rooms": sorted({x for lib in libs_allowed for r in _place(ctx, lib).rooms for x in (r.id, r.name, f"{r.name} ({r.id})")}),
        "blockers": sorted(_spellings(ctx, mut, entity_class(sub_type))) if impossible else [],
        "planned_seats": sorted({s.id for _, s, _ in planned}),
    }
    rule = Rule(id=f"rule-{task_id}", sub_type=cast(SubType, sub_type), activation=_activation(level, task_id),
                mutations=tuple(mut))
    undo = Rule(id=f"rule-{task_id}-undo", sub_type=cast(SubType, sub_type), activation=OnEvent(kind="task_ended", where=(TaskIs(task_id=task_id),)),
                mutations=tuple(msgspec.structs.replace(c, old=c.new, new=c.old) for c in mut))
    task = Task(
        id=task_id, scenario=SCENARIO, phase="daily", release=release, instruction="\n".join(lines), systems=SYSTEMS,
        evaluator=OBSERVED, ground_truth=truth, solution=solution, stale=tuple(stale), flags=Flags(), round_limit=20,
    )
    return task, rule, undo


def _alternative(ctx: TermContext, task_id: str, candidates: Sequence[tuple[Any, Any]]) -> tuple[Any, Any]:
    """The (room, seat) a solvable task leaves for its way out, drawn evenly (its own stream, so no other draw moves):
    while it was the first candidate in listing order, a student could book it without looking."""
    return ctx.rng(f"disruption alternative {task_id}").choice(list(candidates))


def _swept(ctx: TermContext, day: int, feature: str, library: str, kept: Sequence[tuple[Any, Any, int]],
           changed: Sequence[CompareAndSet]) -> list[CompareAndSet]:
    """Every other seat of ``library`` open that date with the goal's feature loses it with the change, in one
    ``FeatureLost``, so the way out (``kept``: the alternatives, or the plan where only the route breaks) is the one
    seat left that fits; losing a feature refuses no booking, so only a look shows it. While the change broke only the
    plan, a student that never looked at the task's date and booked any listed seat but the planned one passed 429 of
    432 solvable tasks (generated seeds 0-3 at ``--scale 0.3``): avoiding the plan met the goal, and the hard level's
    change, fired by the first booking, never touched a seat that student held. (A ``SeatFeatures`` per seat made the
    default term's oracle run 57,471 events where it had 30,665; closing the other rooms and changing seats only in
    the way out's, 43,679; one ``FeatureLost`` naming the seats, 31,313, with a play's CPU time as before.)"""
    keep = {seat.id for _, seat, _ in kept} | {c.seat_id for c in changed if isinstance(c, SeatFeatures)}
    seats = tuple(seat.id for _, seat in fitting(_place(ctx, library), feature, day, ctx.seed, ctx.rules_version)
                  if seat.id not in keep)
    return [FeatureLost(building_id=library, feature=feature, seats=seats, old=True, new=False)] if seats else []


def _email(seat_id: str) -> str:
    return f'call:email.send_email(to="{GROUP}", subject="Study seat", body="I booked seat {seat_id} for tonight.")'



def _place(ctx: TermContext, building_id: str) -> Any:
    return libraries(ctx.world).by_id[building_id.casefold()]


def r_lib(ctx: TermContext, room: Any) -> str:
    for place in libraries(ctx.world).places:
        if room in place.rooms:
            return place.building_id
    raise ValueError("room in no library")


def fitting(place: Any, feature: str, day: int, seed: int, rules_version: int) -> list[tuple[Any, Any]]:
    """Every (study room, seat) of ``place`` open on ``day`` with ``feature``, in listing order."""
    return [(room, seat) for room in place.rooms if room.kind == STUDY
            for seat in _unique(drawn_open(place, room, seed, day, rules_version)) if feature in seat.features]


def way_out_chance(world: Any, seed: int, rules_version: int, task: Task) -> float:
    """The chance that a fitting seat of the rooms a solvable disruption's way out is in, drawn evenly, is that way out
    (``dodger``'s chance in the term audit; a refusal can rule out a closed room or an hour, so this counts only the
    seats of the way out's rooms, more than a draw among all of the library's would give)."""
    truth = task.ground_truth
    place = libraries(world).by_id[truth["libraries"][-1].casefold()]
    day = parse_moment(truth["date"]) // MINUTES_PER_DAY
    ways = {truth["seats"].get(seat) for seat in _final_seats(task, truth["libraries"][-1])}
    seats = [seat for room, seat in fitting(place, truth["feature"], day, seed, rules_version) if room.id in ways]
    return 1 / max(1, len(seats))


def _final_seats(task: Task, library: str) -> list[str]:
    """The seats of ``library`` the oracle's plan ends on, one per block."""
    booked = [seat for lib, seat in _BOOKED_SEAT.findall("\n".join(task.solution)) if lib == library]
    return booked[-len(task.ground_truth["windows"]):]


_BOOKED_SEAT = re.compile(r'make_booking\(location_id="(\w+)".*seat_id="([^"]+)"\)')


def _other_library(ctx: TermContext, place: Any, feature: str, day: int, taken: set[Claim]) -> tuple[Any, list[tuple[Any, Any]]] | None:
    """The first other library free that date with a seat open and fitting, and its fitting seats."""
    date = date_label(day)
    for other in libraries(ctx.world).places:
        if other.building_id == place.building_id or (other.building_id, date) in taken:
            continue
        seats = fitting(other, feature, day, ctx.seed, ctx.rules_version)
        if seats:
            return other, seats
    return None


def _route_without(world: Any, source: str, target: str, closed: set[str]) -> list[str] | None:
    def weight(a: str, b: str, data: Edge) -> float | None:
        return None if walkway_key(a, b) in closed else data["minutes"]

    return fastest_path(world.graph, source, target, weight)


def _book(library: str, room: Any, seat: Any, date: str, start: int) -> str:
    return (f'call:reservation.make_booking(location_id="{library}", item_name="{room.name} ({room.id})", date="{date}", '
            f'time_slot="{_slot(start, start + BLOCK)}", seat_id="{seat.id}")')


def _spellings(ctx: TermContext, changes: Sequence[CompareAndSet], kind: str) -> set[str]:
    """Every way to name an entity of class ``kind`` that ``changes`` block, casefolded (``spelled``): a seat's id, a
    walkway's two buildings either way round, a room's id, name or "name (id)", alone or after its library's id."""
    out: set[str] = set()
    for change in changes:
        if entities(change)[0][0] != kind:
            continue
        if isinstance(change, SeatFeatures):
            out.add(change.seat_id)
        elif isinstance(change, WalkwayStatus):
            out |= {f"{change.a}-{change.b}", f"{change.b}-{change.a}"}
        elif isinstance(change, (RoomHours, RoomStatus)):
            room = next(r for r in _place(ctx, change.building_id).rooms if r.id == change.room_id)
            names = {room.id, room.name, f"{room.name} ({room.id})"}
            out |= names | {f"{change.building_id}-{name}" for name in names}
    return {spelled(name) for name in out}


def spelled(name: str) -> str:
    """A name as the judge compares it: casefolded, spaces collapsed, and any of ``- ~ > |`` between parts (what
    ``classify`` splits on) written ``-``."""
    return _SEPARATOR.sub("-", " ".join(name.split()).casefold())


_SEPARATOR = re.compile(r"\s*[-~>|]+\s*")


def _band(ctx: TermContext, task_id: str, first: int, last: int) -> int:
    """The start of the one hour a T1 or T3 disruption leaves the planned room, on the quarter hour from ``first`` to
    ``last``: inside the evening, so neither end of it, where a student who never looks would book, is open, and
    clear of the planned hour, which a student may hold while rebooking the same seat."""
    return ctx.rng(f"disruption band {task_id}").choice(range(first, last + 1, 15))


def _blocker_id(sub_type: str, blockers: list[str]) -> str:
    return blockers[0]


def _activation(level: str, task_id: str) -> Any:
    """easy: the first reservation call (a look or a booking) shows the change; medium: the clock,
    a minute after the task is shown (however late the student gets to it); hard: right after the
    first booking; impossible: the clock, as for medium."""
    where = (TaskIs(task_id=task_id),)
    if level == "easy":
        return OnRead(tool="reservation.", where=where)
    if level == "hard":
        return OnEvent(kind="booked", where=where)
    return AfterOpen(task_id=task_id, minutes=1)


# ------------------------------------------------------------------ the judge


def _seats_named(truth: dict[str, Any], sent: Sequence[EmailSent]) -> set[str]:
    """The seats of the goal's libraries (casefolded ids) that these emails name, an id followed by no further digit."""
    bodies = " ".join(e.body.casefold() for e in sent)
    return {seat for seat in map(str.casefold, truth["seats"]) if re.search(re.escape(seat) + r"(?!\d)", bodies)}


def _valid(booking: Booked, state: Any, truth: dict[str, Any], window: Sequence[int]) -> bool:
    """A booking made in the task that still serves the goal in the final state."""
    if booking.location_id not in truth["libraries"] or date_label(booking.day) != truth["date"] or not booking.seat_id:
        return False
    bounds = (booking.start, booking.end)
    if bounds[1] - bounds[0] < BLOCK or bounds[0] < window[0] or bounds[1] > window[1]:
        return False
    part = state.reservation
    key = shape_key(booking.location_id, booking.room_id, booking.day)
    if key in part.closed:
        return False
    low, high = room_hours(part, key)
    if bounds[0] < low or bounds[1] > high:
        return False
    if truth["seats"].get(booking.seat_id) != booking.room_id:
        return False
    changed = part.features.get(booking.seat_id)  # the seat had the feature in the world (``truth["seats"]``)
    return changed is None or (changed[0][1:] != truth["feature"] if is_lost(changed) else truth["feature"] in changed)


_BUILDING = re.compile(r"[A-Z]\d{3}")


def classify(entity_id: str, rooms: Sequence[str] = ()) -> str:
    """The class of an id an agent names: ``seat`` (``B001-West Wing-S012``), ``walkway`` (``B001-B002``),
    ``room`` (an id or name among ``rooms``), ``library`` (a building id) or ``other``."""
    text = " ".join(entity_id.split())
    parts = [p.strip() for p in re.split(r"[-~>|]+", text) if p.strip()]
    if len(parts) == 2 and all(_BUILDING.fullmatch(p) for p in parts):
        return "walkway"
    if len(parts) >= 3 and _BUILDING.fullmatch(parts[0]) and re.fullmatch(r"S\d+", parts[-1], re.IGNORECASE):
        return "seat"
    if text.casefold() in {r.casefold() for r in rooms} or (len(parts) >= 2 and _BUILDING.fullmatch(parts[0])
                                                             and "|".join(parts[1:2]).casefold() in {r.casefold() for r in rooms}):
        return "room"
    if _BUILDING.fullmatch(text):
        return "library"
    return "other"


OBSERVED = "disruption_observed"
"""The evaluator of the terms made now (``judge_observed``); ``disruption_final`` (``judge_final``),
``disruption_diagnosed`` (``judge_diagnosed``) and ``disruption`` (``judge``) stay for the terms in older logs."""
LOOKS: dict[str, tuple[str, ...]] = {"seat": ("reservation.query_availability",), "room": ("reservation.query_availability",),
                                     "walkway": ("map.find_optimal_path",)}
"""The reads that show what blocks an impossible task, by the class of what blocks it."""


@evaluator(OBSERVED)
def judge_observed(task: Task, state: Any, events: Sequence[Event]) -> Verdict:
    """``judge_final``, and an impossible task's report must follow a look, after the change, at what blocks it: while
    a report needed only the right names, a student that reported every disruption task infeasible the moment it was
    shown, naming the planned room, seat or last walkway read off the task's text, passed 28 of seed 0's 36 impossible
    tasks without a look."""
    return _observed(task, judge_final(task, state, events), events)


def _observed(task: Task, verdict: Verdict, events: Sequence[Event]) -> Verdict:
    """A successful impossible task's verdict stands only if, before the first report, a look of the blocking class
    (``LOOKS``; for a room or seat, at one of the goal's libraries) answered after the task's rule last changed the
    world."""
    truth = task.ground_truth
    if truth["solvable"] or not verdict.success:
        return verdict
    rule, looks, calls, looked = f"rule-{task.id}", LOOKS[truth["blocked_class"]], set(), False
    for event in events:
        if isinstance(event, WorldChanged) and event.rule == rule:
            looked = False
        elif isinstance(event, ToolCalled) and event.tool in looks and (
                event.tool.startswith("map.") or event.args.get("location_id") in truth["libraries"]):
            calls.add(event.call_id)
        elif isinstance(event, ToolResult) and event.call_id in calls and event.status == "ok":
            looked = True
        elif isinstance(event, InfeasibleReported):
            break
    return verdict if looked else Verdict(False, f"reported infeasible without a look, after the change, at the "
                                                 f"{truth['blocked_class']} that blocks it")


FINAL = "disruption_final"


@evaluator(FINAL)
def judge_final(task: Task, state: Any, events: Sequence[Event]) -> Verdict:
    """``judge_diagnosed`` with the student's last bookings as its answer: while any booking of the task that served
    the goal passed, a student who booked the planned seat at every hour and a dozen listed seats besides, and wrote
    every seat id to the group, passed half the solvable tasks without comparing anything with the plan."""
    return _diagnosed(task, _judge(task, state, events, final=True), events)


DIAGNOSED = "disruption_diagnosed"


@evaluator(DIAGNOSED)
def judge_diagnosed(task: Task, state: Any, events: Sequence[Event]) -> Verdict:
    """``judge``, and an impossible task's report must name only entities that block it: while any id of the blocking
    class among the ones named passed, a report naming one room, one seat and one walkway passed every impossible
    task of seed 0 (36 of 36) without a diagnosis."""
    return _diagnosed(task, judge(task, state, events), events)


def _diagnosed(task: Task, verdict: Verdict, events: Sequence[Event]) -> Verdict:
    truth = task.ground_truth
    if truth["solvable"] or not verdict.success:
        return verdict
    named = [name for e in events if isinstance(e, InfeasibleReported) for name in e.blocked_by]
    stray = [name for name in named if spelled(name) not in truth["blockers"]]
    if stray:
        return Verdict(False, f"reported infeasible naming {stray[:3]}, which do not block it (a {truth['blocked_class']} does)")
    return verdict


@evaluator("disruption")
def judge(task: Task, state: Any, events: Sequence[Event]) -> Verdict:
    return _judge(task, state, events, final=False)


def _judge(task: Task, state: Any, events: Sequence[Event], final: bool) -> Verdict:
    """The goal, met or rightly given up. ``final``: only the last booking per block counts (there is no cancel tool;
    a later booking takes the place of an earlier one), and the emails to the group name no seat but the ones booked
    and the planned one."""
    truth = task.ground_truth
    reports = [e for e in events if isinstance(e, InfeasibleReported)]
    bookings = [e for e in events if isinstance(e, Booked)]
    if not truth["solvable"]:
        if not reports:
            return Verdict(False, "the goal could not be met and the student did not say so")
        if bookings or any(isinstance(e, EmailSent) for e in events):
            return Verdict(False, "reported infeasible, but also booked or wrote as if it could be done")
        named = {classify(b, truth["rooms"]) for r in reports for b in r.blocked_by}
        if truth["blocked_class"] not in named:
            return Verdict(False, f"reported infeasible naming {sorted(named)}, not the {truth['blocked_class']} that blocks it")
        return Verdict(True, f"reported infeasible, blocked by a {truth['blocked_class']}")
    if reports:
        return Verdict(False, "reported infeasible, but the goal could still be met")
    used: set[str] = set()
    seats: list[str] = []
    answers = bookings[-len(truth["windows"]):] if final else bookings
    for window in truth["windows"]:
        good = next((b for b in answers if b.booking_id not in used and _valid(b, state, truth, window)), None)
        if good is None:
            return Verdict(False, f"no booking that still serves the block {_slot(*window)}")
        used.add(good.booking_id)
        seats.append(good.seat_id)
    if truth["at_library"]:
        chosen = next(b for b in bookings if b.booking_id in used)
        if state.geography.location != chosen.location_id:
            return Verdict(False, f"not at {chosen.location_id} when the task ended")
    if truth["email_to"]:
        sent = [e for e in events if isinstance(e, EmailSent) and e.to.strip().casefold() == truth["email_to"]]
        if not any(seats[0].casefold() in e.body.casefold() for e in sent):
            return Verdict(False, f"no email to {truth['email_to']} naming the seat booked ({seats[0]})")
        stray = _seats_named(truth, sent) - {seat.casefold() for seat in [*seats, *truth["planned_seats"]]} if final else set()
        if stray:
            return Verdict(False, f"the email to {truth['email_to']} also names {', '.join(sorted(stray)[:3])}, which were not booked")
    return Verdict(True, f"goal met with {', '.join(sorted(used))}")

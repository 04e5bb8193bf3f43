"""`campus bench calls`: the reference's 12-call episode mix through the whole campus path.

The workload (issue 18)
-----------------------
The published campus, ``ROUNDS`` rounds of twelve calls, the state reset every
``BLOCK_ROUNDS`` rounds by a fresh fork of an empty run. Every call's input is drawn before
anything is timed, from the real data, with a fixed seed:

``map.find_building_id`` (the next building's name or an alias), ``map.find_optimal_path``
(current -> next building of a random walk from the dormitory), ``geography.walk_to`` (that
path), ``calendar.add_event`` and ``calendar.view_schedule`` (own calendar, that date),
``email.send_email``, ``reservation.query_availability`` (a library with seat data),
``reservation.make_booking`` (an open seat of one of its rooms, a free slot),
``draft.add_course``, ``draft.assign_pass``, ``draft.view`` and
``data_system.query_by_identifier`` (an advisor id).

The draw is checked with the real handlers on a private state, block by block, applying
each successful call's facts; a candidate that would fail is drawn again. The timed runs
then assert that every call succeeded, so a figure never counts refusals.

Each call arrives as a reply in the StuLife text protocol; the session parses it,
dispatches it, appends the step to the log (hash chain, group commit) and shows the result
to the scripted agent in its next view. One *repetition* is the whole workload on a fresh
store: calls/s and CPU seconds per call (``time.process_time``). The figure is the median of
``REPEATS`` repetitions with their range, on a WAL SQLite file and on the in-memory log.

*Alone* figures call one handler through ``Kernel.dispatch`` (argument binding and the
handler; no parser, no log) on a fixed state, ``ALONE_CALLS`` times (fewer for a workload of
fewer calls).
"""

from __future__ import annotations

import gc
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campus.events import ToolResult, decode_events
from campus.kernel.agent import AgentView, Reply
from campus.kernel.clock import DAYS
from campus.kernel.engine import Kernel
from campus.kernel.parse import Call, parse_reply
from campus.kernel.store import EventStore, MemoryStore, SQLiteStore
from campus.scenarios.play import Run, build_kernel, load_world, new_run
from campus.scenarios.task import Flags, Task, Term
from campus.world.index import WorldIndex

ROUNDS = 1_667
BLOCK_ROUNDS = 10
REPEATS = 5
ALONE_CALLS = 2_000
VIEW_EVENTS = 100
SEED = 20240601
SYSTEMS = ("map", "geography", "calendar", "email", "reservation", "draft", "data_system")
CALLS_PER_ROUND = 12
RELEASE = 7 * 60
"""Day 0, 07:00: every drawn date is in week 1 or later, so still bookable after the walks."""

TARGETS = {
    "mix_sqlite": 24_000.0,  # calls/s, at least (stretch 40,000)
    "mix_memory": 35_000.0,
    "query_availability": 15_000.0,
}
STRETCH = 40_000.0

Say = Callable[[str], None]


# ================================================================== the draw


@dataclass(frozen=True)
class Workload:
    blocks: tuple[tuple[str, ...], ...]
    """Each block's calls, as the text after ``Action:``."""
    library: str
    """The largest published library (most seats), for the alone figure."""

    @property
    def calls(self) -> int:
        return sum(len(b) for b in self.blocks)


def draw_workload(world: WorldIndex, rounds: int = ROUNDS, seed: int = SEED) -> Workload:
    """Every call of the workload, checked block by block against the real handlers."""
    rng = random.Random(seed)
    kernel = build_kernel(world)
    blocks = []
    for start in range(0, rounds, BLOCK_ROUNDS):
        blocks.append(_draw_block(world, kernel, rng, min(BLOCK_ROUNDS, rounds - start)))
    return Workload(tuple(blocks), largest_library(world))


def largest_library(world: WorldIndex) -> str:
    return max(world.world.libraries, key=lambda lib: (sum(len(r.seats) for r in lib.rooms), lib.building_id)).building_id


class _Dry:
    """A private state that the draw plays its calls on, with the kernel's own dispatch."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.state = kernel.projection.initial()
        self.state.now = RELEASE

    def call(self, action: str) -> dict[str, Any] | None:
        """The call's result data if it succeeds (its facts applied), else None."""
        parsed = parse_reply(f"<action>Action: {action}</action>")
        assert isinstance(parsed, Call), f"the draw wrote an unreadable call: {action}"
        outcome = self.kernel.dispatch(self.state, task_id="bench-calls", name=parsed.name, args=parsed.args,
                                       positional=parsed.positional, systems=SYSTEMS, seed=0)
        if not outcome.result.ok:
            return None
        for fact in outcome.facts:
            self.kernel.projection.apply(self.state, self.state.seq + 1, self.state.now, fact)
        return outcome.result.data or {}

    def must(self, action: str) -> dict[str, Any]:
        data = self.call(action)
        if data is None:
            raise RuntimeError(f"the drawn call failed: {action}")
        return data


def _draw_block(world: WorldIndex, kernel: Kernel, rng: random.Random, rounds: int) -> tuple[str, ...]:
    dry = _Dry(kernel)
    ids = sorted(world.buildings)
    buildings = {b.id: b for b in world.world.buildings}
    libraries = [lib for lib in world.world.libraries if any(r.seats for r in lib.rooms)]
    advisors = [a.id for a in world.world.advisors]
    sections = [c.code for c in world.world.courses]
    here, calls = world.home, list[str]()
    for _ in range(rounds):
        target = rng.choice([b for b in ids if b != here])
        names = [buildings[target].name, *buildings[target].aliases]
        path = world.route(here, target).path
        week, day, hour = rng.randint(1, 18), rng.choice(DAYS), rng.randint(8, 19)
        date = f"Week {week}, {day}"
        round_calls = [
            f'map.find_building_id(building_name="{rng.choice(names)}")',
            f'map.find_optimal_path(source_building_id="{here}", target_building_id="{target}")',
            f"geography.walk_to(path_info={{'path': {path!r}}})",
            f'calendar.add_event(calendar_id="self", event_title="Study group", location="{world.name_of(target)}", '
            f'time="{date}, {hour:02d}:00-{hour + 1:02d}:00")',
            f'calendar.view_schedule(calendar_id="self", date="{date}")',
            f'email.send_email(to="{rng.choice(world.world.advisors).email}", subject="Meeting request", '
            f'body="Could we meet in week {week}? Best regards.")',
        ]
        for action in round_calls:
            dry.must(action)
        calls += round_calls
        calls += _draw_booking(dry, rng, libraries)
        calls += _draw_course(dry, rng, sections)
        calls.append('draft.view()')
        calls.append(f'data_system.query_by_identifier(identifier="{rng.choice(advisors)}", by="id", entity_type="advisor")')
        dry.must(calls[-1])
        here = target
    return tuple(calls)


def _draw_booking(dry: _Dry, rng: random.Random, libraries: list[Any]) -> list[str]:
    while True:
        library = rng.choice(libraries)
        date = f"Week {rng.randint(1, 18)}, {rng.choice(DAYS)}"
        query = f'reservation.query_availability(location_id="{library.building_id}", date="{date}")'
        data = dry.must(query)
        seats = [(room, seat) for room in data["rooms"] for seat in room.get("seats", ())]
        if not seats:
            continue
        room, seat = rng.choice(seats)
        first = room.get("free_by_seat", {}).get(seat, room["free"])[0].split("-")[0]
        hour = int(first[:2])
        booking = (f'reservation.make_booking(location_id="{library.building_id}", item_name="{room["name"]} ({room["room_id"]})", '
                   f'date="{date}", time_slot="{hour:02d}:{first[3:]}-{hour + 1:02d}:{first[3:]}", seat_id="{seat}")')
        if dry.call(booking) is not None:
            return [query, booking]


def _draw_course(dry: _Dry, rng: random.Random, sections: list[str]) -> list[str]:
    for _ in range(1_000):
        code = rng.choice(sections)
        add = f'draft.add_course(section_id="{code}")'
        if dry.call(add) is not None:
            assign = f'draft.assign_pass(section_id="{code}", pass_type="B-Pass")'
            dry.must(assign)
            return [add, assign]
    raise RuntimeError("no course section could be added to the draft")


# ================================================================== the agent and the drive


class ScriptAgent:
    """Replies with the block's calls in order, one per reply, in the StuLife text protocol."""

    name = "bench-calls"

    def __init__(self, calls: tuple[str, ...]) -> None:
        self.replies = [f"I will use a tool now.\n<action>Action: {call}</action>" for call in calls]
        self.position = 0

    def act(self, view: AgentView) -> Reply:
        reply = self.replies[self.position]
        self.position += 1
        return reply


def calls_term(world: WorldIndex, calls: int) -> Term:
    """One unscored task holding every system, ended by its round limit after ``calls`` replies."""
    task = Task(id="bench-calls", scenario="bench", phase="bench", release=RELEASE, instruction="Use the tools.",
                systems=SYSTEMS, evaluator="none", ground_truth={}, flags=Flags(delivery_only=True), round_limit=calls)
    return Term(name=f"bench-calls-{calls}", seed=0, world_hash=world.hash, tasks=(task,))


def drive(store: EventStore, world: WorldIndex, workload: Workload) -> dict[str, Any]:
    """The whole workload on ``store``: each block on a fresh fork of an empty run. Calls/s and CPU per call."""
    blocks = workload.blocks
    bases: dict[int, Run] = {}
    for size in sorted({len(b) for b in blocks}):
        bases[size] = new_run(store, world, calls_term(world, size), agent_name="bench-calls", seed=0,
                              round_limit=size, branch_id=f"base-{size}")
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    calls = 0
    for number, block in enumerate(blocks):
        base = bases[len(block)]
        info = store.fork(base.branch.id, 0, f"block-{number:05d}", agent="bench-calls")
        run = Run(store, info, world, base.term, base.kernel)
        state = run.session(ScriptAgent(block)).run()
        calls += state.session.calls
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"calls": calls, "seconds": wall, "cpu_seconds": cpu, "calls_per_s": calls / wall, "cpu_us_per_call": cpu / calls * 1e6}


def failed_calls(store: EventStore) -> int:
    failed = 0
    for branch in store.branches():
        rows = [r.payload for r in store.rows(branch.id) if r.kind == "tool_result"]
        failed += sum(1 for e in decode_events(rows) if isinstance(e, ToolResult) and e.status != "ok")
    return failed


def measure_mix(world: WorldIndex, workload: Workload, durable: bool, repeats: int, scratch: Path) -> dict[str, Any]:
    reps = []
    for i in range(repeats):
        store: EventStore = SQLiteStore(scratch / f"calls-{i}.db") if durable else MemoryStore()
        result = drive(store, world, workload)
        failed = failed_calls(store)
        if failed:
            raise RuntimeError(f"{failed} of the workload's calls failed; the draw no longer matches the handlers")
        if isinstance(store, SQLiteStore):
            store.close()
        reps.append(result)
    rates = [r["calls_per_s"] for r in reps]
    cpu = [r["cpu_us_per_call"] for r in reps]
    return {
        "calls": reps[0]["calls"], "repeats": repeats,
        "calls_per_s": statistics.median(rates), "calls_per_s_range": [min(rates), max(rates)],
        "cpu_us_per_call": statistics.median(cpu), "cpu_us_per_call_range": [min(cpu), max(cpu)],
    }


# ================================================================== one tool alone


def measure_alone(world: WorldIndex, workload: Workload, calls: int = ALONE_CALLS) -> dict[str, Any]:
    kernel = build_kernel(world)
    rng = random.Random(SEED)
    ids = sorted(world.buildings)
    pairs = [rng.sample(ids, 2) for _ in range(calls)]
    paths = [f'map.find_optimal_path(source_building_id="{a}", target_building_id="{b}")' for a, b in pairs]
    dates = [f"Week {rng.randint(1, 18)}, {rng.choice(DAYS)}" for _ in range(calls)]
    queries = [f'reservation.query_availability(location_id="{workload.library}", date="{d}")' for d in dates]
    dry = _Dry(kernel)
    for i in range(VIEW_EVENTS):
        dry.must(f'calendar.add_event(calendar_id="self", event_title="Event {i}", location="Library", '
                 f'time="Week 2, Monday, {8 + i % 12:02d}:{i // 12 * 5:02d}-{8 + i % 12:02d}:{i // 12 * 5 + 5:02d}")')
    views = ['calendar.view_schedule(calendar_id="self", date="Week 2, Monday")'] * calls
    return {
        "find_optimal_path": _time_alone(kernel, _Dry(kernel), paths),
        "query_availability": _time_alone(kernel, _Dry(kernel), queries) | {"library": workload.library},
        "view_schedule": _time_alone(kernel, dry, views) | {"events": VIEW_EVENTS},
    }


def _time_alone(kernel: Kernel, dry: _Dry, actions: list[str]) -> dict[str, Any]:
    parsed = [parse_reply(f"<action>Action: {a}</action>") for a in actions]
    assert all(isinstance(p, Call) for p in parsed)
    state = dry.state
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    failed = 0
    for call in parsed:
        assert isinstance(call, Call)
        outcome = kernel.dispatch(state, task_id="bench-calls", name=call.name, args=call.args,
                                  positional=call.positional, systems=SYSTEMS, seed=0)
        failed += not outcome.result.ok
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if failed:
        raise RuntimeError(f"{failed} of {len(parsed)} calls of {parsed[0].name} failed")  # type: ignore[union-attr]
    return {"calls": len(parsed), "calls_per_s": len(parsed) / wall, "cpu_us_per_call": cpu / len(parsed) * 1e6}


# ================================================================== entry point


def run_calls_bench(world_source: str, rounds: int = ROUNDS, repeats: int = REPEATS, directory: str | None = None,
                    say: Say | None = None) -> dict[str, Any]:
    """Draw the workload, drive it on SQLite and in memory, time the three tools alone."""
    tell = say or (lambda message: None)
    world = load_world(world_source, 0)
    tell(f"drawing {rounds:,} rounds of {CALLS_PER_ROUND} calls on {world.world.name} …")
    workload = draw_workload(world, rounds)
    scratch = Path(tempfile.mkdtemp(prefix="campus-bench-calls-", dir=directory))
    try:
        tell(f"driving {workload.calls:,} calls {repeats}× on a SQLite file …")
        sqlite = measure_mix(world, workload, True, repeats, scratch)
        tell(f"… and {repeats}× on the in-memory log …")
        memory = measure_mix(world, workload, False, repeats, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    tell("timing three tools alone …")
    alone = measure_alone(world, workload, min(ALONE_CALLS, workload.calls))
    figures = {"world": world.world.name, "rounds": rounds, "block_rounds": BLOCK_ROUNDS, "sqlite": sqlite,
               "memory": memory, "alone": alone}
    return {"rows": table_rows(figures), "figures": figures}


def table_rows(f: dict[str, Any]) -> list[dict[str, Any]]:
    sqlite, memory, alone = f["sqlite"], f["memory"], f["alone"]
    return [
        _rate_row(f"12-call mix, SQLite log ({sqlite['calls']:,} calls, median of {sqlite['repeats']})", sqlite,
                  TARGETS["mix_sqlite"], stretch=STRETCH),
        _rate_row("12-call mix, in-memory log", memory, TARGETS["mix_memory"]),
        _rate_row(f"query_availability alone ({alone['query_availability']['library']})", alone["query_availability"],
                  TARGETS["query_availability"]),
        _rate_row("find_optimal_path alone", alone["find_optimal_path"], None),
        _rate_row(f"view_schedule alone ({alone['view_schedule']['events']} events)", alone["view_schedule"], None),
    ]


def _rate_row(measure: str, figure: dict[str, Any], target: float | None, stretch: float | None = None) -> dict[str, Any]:
    rate = figure["calls_per_s"]
    spread = figure.get("calls_per_s_range")
    value = f"{rate:,.0f} calls/s"
    if spread:
        value += f" ({spread[0]:,.0f}-{spread[1]:,.0f})"
    value += f", {figure['cpu_us_per_call']:.1f} µs CPU/call"
    if target is None:
        return {"measure": measure, "value": value, "target": "", "met": None}
    met = rate >= target
    goal = f"≥ {target:,.0f}: {'met' if met else 'NOT met'}"
    if stretch is not None:
        goal += f" (stretch {stretch:,.0f}: {'met' if rate >= stretch else 'not met'})"
    return {"measure": measure, "value": value, "target": goal, "met": met}

"""Many (agent, seed) runs played by worker processes into one SQLite database.

**Run ids** are deterministic: ``<agent>-s<seed>`` (``<prefix>-<agent>-s<seed>`` with a
prefix), the ids ``campus run`` gives; the sweep passes them to ``new_run`` rather than
letting the store pick a free name, so two workers can never race for one id, and running
the same sweep again finds its runs by name.

**Trials.** ``--trials K`` plays each (agent, seed) K times: trial 1 keeps the id above,
trial k > 1 is ``<agent>-s<seed>-t<k>``, so raising K later keeps the trials already played.

**Resuming.** Before any work, ``plan_sweep`` looks each id up: absent -> a new run;
present and finished -> kept as it is (never replayed, never appended to); present but
unfinished (an interrupted sweep, a killed worker) -> continued exactly like
``campus run --resume``. A stored run is only reused if it is the run this sweep would make:
same agent, seed and round limit, a root branch, on the generated world of that seed and the
term of that seed and scale; anything else is a ``SweepConflict`` and nothing is played.

**Workers** are spawned processes (no SQLite connection ever crosses a fork); each opens its
own connection (WAL, busy timeout: see ``kernel.store.SQLiteStore``) and writes only its own
branches. A job is one seed: the world and term are generated once and every agent of the
sweep plays that seed in the same worker. A worker dies with the sweep process (on Linux by the
kernel's parent-death signal; elsewhere it checks between chunks of ``CHUNK_STEPS`` replies), so
a killed sweep leaves no orphan writing on. When a worker fails or dies, the sweep stops the
others and reports it; whatever they committed stays, and the next sweep continues from there.

**Threads** (``play_threads``): N runs at once in one process, for agents that wait on the
network (model agents). Each run opens its own SQLite connection in its own thread and takes
its branch's lease; a failure stops the others at their next chunk of replies.

**Agents** are named by ``AgentSpec`` (the name or spec its runs record) and built in the
worker by a factory the caller passes (``agents.registry`` for the command line); the factory
must be a module-level function so it can be sent to a spawned process.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import queue
import re
import signal
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from threading import Event, Lock
from typing import Any, Literal

import msgspec

from campus.agents.registry import agent_differences
from campus.events import MAX_SEED, TaskEnded, TooDeep
from campus.kernel.agent import Agent
from campus.kernel.logs import configure as configure_logs
from campus.kernel.runner import run_config
from campus.kernel.store import EventStore, StoreError, open_store
from campus.kernel.tasks import events_of
from campus.lab.workers import interrupts_ignored
from campus.scenarios.rounds import DEFAULT_ROUND_LIMIT
from campus.scenarios.play import Run, RunSpec, load_inputs, load_world, open_run, slug, start_run
from campus.scenarios.busy_days import SCENARIO as BUSY_DAYS
from campus.scenarios.disruptions import SCENARIO as DISRUPTIONS
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import Term, decode_term
from campus.scenarios.term import term_name
from campus.world.index import WorldIndex

AGAIN = "finished runs are kept, and the same command continues the sweep"

CHUNK_STEPS = 500
"""Agent replies a worker plays between two checks that the sweep process is still there."""

THREAD_CHUNK_STEPS = 20
"""Agent replies a thread plays between two checks that the sweep has not stopped."""

POLL_SECONDS = 0.2

_PR_SET_PDEATHSIG = 1


class SweepError(Exception):
    """The sweep stopped; finished runs are kept and the same sweep run again continues it."""


class SweepConflict(SweepError):
    """A stored run has the sweep's id but is not the run the sweep would make."""


@dataclass(frozen=True)
class AgentSpec:
    """An agent of a sweep."""

    name: str
    """The name or spec its runs record."""
    short: str | None = None
    """What run ids and the table call it (default: the name)."""

    @property
    def label(self) -> str:
        return slug(self.short or self.name)


Action = Literal["new", "resume", "keep"]


@dataclass(frozen=True)
class PlannedRun:
    run_id: str
    agent: AgentSpec
    seed: int
    action: Action
    trial: int = 1


@dataclass(frozen=True)
class SweepSettings:
    db: str
    scale: float = 1.0
    rounds: int = DEFAULT_ROUND_LIMIT
    prefix: str = ""
    trials: int = 1
    disruptions: bool = True
    """Play the term with its mid-task disruption tasks (``--no-disruptions``: the term without them)."""
    busy_days: bool = True
    """Play the term with its busy days (``--no-busy-days``: the term without them)."""


AgentFactory = Callable[[AgentSpec, EventStore, Term, WorldIndex], Agent]
Progress = Callable[[tuple[Any, ...]], None]
"""Receives ``("start", run_id, tasks_done, tasks)``, ``("task", run_id, simulated_time)`` and ``("done", run_id)``."""


# ---------------------------------------------------------------- seeds and ids


MAX_SEEDS = 100_000
"""The most seeds one list may name (a sweep of them all would run for days)."""


_DIGITS = re.compile(r"[0-9]+")
"""A seed as written: ASCII digits (``int`` would also take other scripts' digits, signs and underscores)."""


def parse_seeds(spec: str) -> list[int]:
    """Seeds from ``"1-20"``, ``"3"``, ``"1,4,7"`` or a mix (``"1-3,7"``); sorted, each at most once."""
    seeds: list[int] = []
    for part in spec.split(","):
        first, dash, last = part.strip().partition("-")
        if not all(_DIGITS.fullmatch(bound.strip()) for bound in ((first, last) if dash else (first,))):
            raise ValueError(f"bad seed list {spec!r}: {part.strip()!r} is not a seed or a range like 1-20")
        low = int(first)
        high = int(last) if dash else low
        if high < low:
            raise ValueError(f"bad seed list {spec!r}: the range {part.strip()!r} ends below where it starts")
        if high > MAX_SEED:
            raise ValueError(f"bad seed list {spec!r}: {part.strip()!r} must be a seed 0..{MAX_SEED} or a range low-high")
        if len(seeds) + high - low + 1 > MAX_SEEDS:
            raise ValueError(f"bad seed list {spec!r}: more than {MAX_SEEDS:,} seeds")
        seeds.extend(range(low, high + 1))
    repeated = sorted(seed for seed, times in Counter(seeds).items() if times > 1)
    if repeated:
        raise ValueError(f"bad seed list {spec!r}: seed {repeated[0]} is given more than once")
    return sorted(seeds)


def run_id(agent: AgentSpec, seed: int, prefix: str = "", trial: int = 1) -> str:
    base = f"{prefix}-{agent.label}-s{seed}" if prefix else f"{agent.label}-s{seed}"
    return base if trial == 1 else f"{base}-t{trial}"


# ---------------------------------------------------------------- planning


def plan_sweep(store: EventStore, agents: Sequence[AgentSpec], seeds: Sequence[int],
               settings: SweepSettings) -> list[PlannedRun]:
    """What each (agent, seed) run needs: ``new``, ``resume`` or ``keep``; raises ``SweepConflict``."""
    labels = [agent.label for agent in agents]
    if len(set(labels)) != len(labels):
        raise ValueError(f"agents must differ: {', '.join(labels)}")
    if settings.trials < 1:
        raise ValueError(f"trials must be at least 1, got {settings.trials}")
    worlds: dict[int, str] = {}
    planned = []
    for seed in seeds:
        for agent in agents:
            for trial in range(1, settings.trials + 1):
                name = run_id(agent, seed, settings.prefix, trial)
                try:
                    store.branch(name)
                except StoreError:
                    planned.append(PlannedRun(name, agent, seed, "new", trial))
                    continue
                if seed not in worlds:
                    worlds[seed] = load_world("generated", seed).hash
                _check_stored(store, name, agent, seed, settings, worlds[seed])
                planned.append(PlannedRun(name, agent, seed, "keep" if is_finished(store, name) else "resume", trial))
    return planned


class _TaskScenario(msgspec.Struct):
    scenario: str


class _TermHeader(msgspec.Struct):
    name: str
    world_hash: str
    rules: tuple[msgspec.Raw, ...] = ()
    tasks: tuple[_TaskScenario, ...] = ()


def _check_stored(store: EventStore, name: str, agent: AgentSpec, seed: int, settings: SweepSettings, world: str) -> None:
    info = store.branch(name)
    try:
        header = msgspec.json.decode(store.get_blob(info.term_hash), type=_TermHeader)
    except RecursionError:
        raise TooDeep("a term") from None
    agents = agent_differences(info.agent, agent.name)  # another endpoint is the same agent, as on a resume
    wanted = {"agent": agent.name if agents else info.agent, "seed": seed, "rules": run_config(settings.rounds), "parent": None,
              "world": world, "term": term_name(seed, settings.scale), "disruptions": settings.disruptions,
              "busy_days": settings.busy_days}
    found = {"agent": info.agent, "seed": info.seed, "rules": info.config, "parent": info.parent,
             "world": info.world_hash if header.world_hash == info.world_hash else "(inconsistent)",
             "term": header.name, "disruptions": bool(header.rules),
             "busy_days": any(task.scenario == BUSY_DAYS for task in header.tasks)}
    differ = [key for key in wanted if wanted[key] != found[key]]
    if differ:
        parts = [f"agent{'' if field == 'agent' else ' ' + field}: stored {_short(old)}, sweep {_short(new)}"
                 for field, (old, new) in agents.items()]  # the settings that differ, not two specs cut short
        parts += [f"{key}: stored {_short(found[key])}, sweep {_short(wanted[key])}" for key in differ if key != "agent"]
        raise SweepConflict(f"run {name!r} in {settings.db} is not this sweep's run ({'; '.join(parts)}); "
                            "use another --db or a --prefix")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def is_finished(store: EventStore, branch_id: str) -> bool:
    head, _ = store.head(branch_id)
    return head > 0 and store.rows(branch_id, head, head)[0].kind == "run_ended"


# ---------------------------------------------------------------- playing


def play_sweep(settings: SweepSettings, planned: Sequence[PlannedRun], workers: int, factory: AgentFactory,
               progress: Progress | None = None, logs: Callable[[], None] = configure_logs) -> None:
    """Play every run not marked ``keep`` in ``workers`` processes; raises ``SweepError`` if one fails.

    ``logs`` sets up operator logging in each worker (a spawned process starts unconfigured).
    """
    jobs = _jobs(planned)
    if not jobs:
        return
    context = multiprocessing.get_context("spawn")
    tasks, messages = context.Queue(), context.Queue()
    tasks.cancel_join_thread()  # if the workers are stopped early, jobs left in the queue are dropped
    for job in jobs:
        tasks.put(job)
    count = max(1, min(workers, len(jobs)))
    for _ in range(count):
        tasks.put(None)
    processes = [context.Process(target=_worker, name=f"campus-sweep-{n}", daemon=True,
                                 args=(settings, tasks, messages, factory, logs, os.getpid(), progress is not None))
                 for n in range(count)]
    try:
        with interrupts_ignored():  # the sweep process decides when its workers stop
            for process in processes:
                process.start()
        _follow(processes, messages, {run.run_id for job in jobs for run in job}, progress)
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            if process.pid is not None:  # started
                process.join()


def _jobs(planned: Sequence[PlannedRun]) -> list[list[PlannedRun]]:
    by_seed: dict[int, list[PlannedRun]] = {}
    for run in planned:
        if run.action != "keep":
            by_seed.setdefault(run.seed, []).append(run)
    return list(by_seed.values())


def _follow(processes: list[Any], messages: Any, pending: set[str], progress: Progress | None) -> None:
    """Relay messages until every run is done; a worker that died is noticed after one more empty poll,
    since what a worker sent before it exited may still be on its way."""
    stopped: str | None = None
    while pending:
        try:
            message = messages.get(timeout=POLL_SECONDS)
        except queue.Empty:
            if stopped is not None:
                raise SweepError(stopped) from None
            stopped = _stopped_workers(processes, pending)
            continue
        if message[0] == "failed":
            raise SweepError(f"run {message[1]} failed: {message[2]}; {AGAIN}")
        if message[0] == "done":
            pending.discard(message[1])
        if progress is not None:
            progress(message)


def _stopped_workers(processes: list[Any], pending: set[str]) -> str | None:
    dead = [p for p in processes if p.exitcode not in (None, 0)]
    if dead:
        return (f"worker process {dead[0].pid} stopped (exit code {dead[0].exitcode}) with {len(pending)} run(s) "
                f"unfinished; {AGAIN}")
    if all(p.exitcode is not None for p in processes):
        return f"every worker ended with {len(pending)} run(s) unfinished; {AGAIN}"
    return None


def _worker(settings: SweepSettings, tasks: Any, messages: Any, factory: AgentFactory, logs: Callable[[], None],
            parent: int, with_progress: bool) -> None:
    _die_with_parent()
    logs()

    def orphaned() -> bool:
        return os.getppid() != parent

    store = open_store(settings.db)
    try:
        while not orphaned():
            try:
                job = tasks.get(timeout=1.0)
            except queue.Empty:
                continue
            if job is None or not _play_seed(store, job, settings, factory, messages, with_progress, orphaned):
                return
    finally:
        store.close()


def _die_with_parent() -> None:
    """On Linux, ask the kernel to kill this worker the moment the sweep process dies (prctl
    PR_SET_PDEATHSIG); elsewhere the worker notices between chunks of play."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def _play_seed(store: EventStore, job: list[PlannedRun], settings: SweepSettings, factory: AgentFactory,
               messages: Any, with_progress: bool, orphaned: Callable[[], bool]) -> bool:
    """Play one seed's runs; ``False`` when the worker must stop (a run failed or the sweep is gone)."""
    inputs: tuple[WorldIndex, Term] | None = None
    for planned in job:
        try:
            if planned.action == "new":
                spec = RunSpec(seed=planned.seed, scale=settings.scale, agent=planned.agent.name,
                               round_limit=settings.rounds, branch_id=planned.run_id, disruptions=settings.disruptions,
                               busy_days=settings.busy_days)
                inputs = inputs or load_inputs(spec)
                current = start_run(store, spec, inputs)
            else:
                current = open_run(store, planned.run_id)
            agent = factory(planned.agent, store, current.term, current.world)
            if not _play(current, agent, messages, with_progress, orphaned):
                return False
        except Exception as error:  # reported to the sweep process, which stops the sweep
            messages.put(("failed", planned.run_id, f"{type(error).__name__}: {error}"))
            return False
        messages.put(("done", planned.run_id))
    return True


def _play(current: Run, agent: Agent, messages: Any, with_progress: bool, orphaned: Callable[[], bool]) -> bool:
    hook: Callable[[Any, TaskEnded], None] | None = None
    if with_progress:
        messages.put(("start", current.branch.id, len(current.ended_tasks()), len(current.term.tasks)))

        def report(state: Any, ended: TaskEnded) -> None:
            messages.put(("task", current.branch.id, state.now))

        hook = report

    session = current.session(agent, on_task_end=hook)
    while not session.finished:
        session.run(max_steps=CHUNK_STEPS)
        if orphaned():
            return False
    return True


def play_threads(settings: SweepSettings, planned: Sequence[PlannedRun], concurrency: int, factory: AgentFactory,
                 progress: Progress | None = None) -> None:
    """Play every run not marked ``keep`` on ``concurrency`` threads of this process; raises ``SweepError``
    naming the first run that failed (the others stop at their next chunk; what they committed stays)."""
    runs = [run for run in planned if run.action != "keep"]
    if not runs:
        return
    stop, lock = Event(), Lock()
    inputs: dict[int, tuple[WorldIndex, Term]] = {}

    def inputs_of(spec: RunSpec) -> tuple[WorldIndex, Term]:
        with lock:  # one generation per seed, shared by its runs
            if spec.seed not in inputs:
                inputs[spec.seed] = load_inputs(spec)
            return inputs[spec.seed]

    def tell(message: tuple[Any, ...]) -> None:
        if progress is not None:
            with lock:
                progress(message)

    def play_one(planned_run: PlannedRun) -> None:
        if stop.is_set():  # the sweep stopped before this run's turn came
            return
        store = open_store(settings.db)
        try:
            if planned_run.action == "new":
                spec = RunSpec(seed=planned_run.seed, scale=settings.scale, agent=planned_run.agent.name,
                               round_limit=settings.rounds, branch_id=planned_run.run_id, disruptions=settings.disruptions,
                               busy_days=settings.busy_days)
                current = start_run(store, spec, inputs_of(spec))
            else:
                current = open_run(store, planned_run.run_id)
            agent = factory(planned_run.agent, store, current.term, current.world)
            tell(("start", current.branch.id, len(current.ended_tasks()), len(current.term.tasks)))
            session = current.session(agent, on_task_end=lambda state, ended: tell(("task", current.branch.id, state.now)))
            while not session.finished and not stop.is_set():
                session.run(max_steps=THREAD_CHUNK_STEPS)
        except Exception as error:
            stop.set()
            raise SweepError(f"run {planned_run.run_id} failed: {type(error).__name__}: {error}; {AGAIN}") from None
        finally:
            store.close()
        tell(("done", planned_run.run_id))

    with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(runs))), thread_name_prefix="campus-sweep") as pool:
        futures = [pool.submit(play_one, run) for run in runs]
        try:
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        except BaseException:  # Ctrl-C: the threads stop at their next chunk
            stop.set()
            raise
        stop.set()
        for future in futures:
            if future.done() and future.exception() is not None:
                raise future.exception()  # type: ignore[misc]


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class RunResult:
    run: str
    agent: str
    seed: int
    action: str
    events: int
    final_hash: str
    finished: bool
    scorecard: dict[str, Any]
    trial: int = 1
    outcomes: dict[str, bool] = field(default_factory=dict, repr=False)
    """Task id -> succeeded, for every scored task the run ended (what pass^k and the flip rate read)."""
    cells: dict[str, str] = field(default_factory=dict, repr=False)
    """Disruption task id -> its STT-Arena cell, ``sub-type/level`` (what pass^k per cell reads)."""


def collect(store: EventStore, planned: Sequence[PlannedRun]) -> list[RunResult]:
    """Every run of the sweep as stored now, scored from its log."""
    terms: dict[str, Term] = {}
    results = []
    for run in planned:
        info = store.branch(run.run_id)
        if info.term_hash not in terms:
            terms[info.term_hash] = decode_term(store.get_blob(info.term_hash), info.schema)
        head, final_hash = store.head(run.run_id)
        ended = ended_tasks(store, run.run_id)
        outcomes = {e.task_id: e.outcome == "success" for e in ended if e.outcome != "unscored"}
        term = terms[info.term_hash]
        results.append(RunResult(run.run_id, run.agent.label, run.seed, run.action, head, final_hash,
                                 is_finished(store, run.run_id), scorecard(term, ended), run.trial, outcomes,
                                 disruption_cells(term)))
    return results


def disruption_cells(term: Term) -> dict[str, str]:
    """Task id -> ``sub-type/level`` for the term's disruption tasks."""
    return {task.id: f"{task.ground_truth['sub_type']}/{task.ground_truth['level']}" for task in term.tasks
            if task.scenario == DISRUPTIONS}


def ended_tasks(store: EventStore, branch_id: str) -> list[TaskEnded]:
    return events_of(store, branch_id, TaskEnded)

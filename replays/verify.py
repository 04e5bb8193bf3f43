"""Verify: prove a stored run is what its log says it is.

Three checks in one read of the log, each naming the first seq that fails:

1. the hash chain: every row's hash is sha256 over the previous hash, its time and its
   payload, starting from the genesis (catches any edit made behind the triggers' back);
2. re-execution: every recorded tool call is run again against the state rebuilt from the
   log, and must produce the same domain facts and the same result, byte for byte;
3. re-judging: every scored task's recorded outcome is evaluated again and must agree.

``deep=True`` adds a fourth: the whole run is played again in memory by an agent that
repeats the recorded replies, and every event hash must come out the same — the clock,
releases, parsing and all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from events import (
    DayStarted,
    Event,
    TaskEnded,
    TaskReleased,
    ToolCalled,
    WorldChanged,
    canonical,
    chain_hash,
    decode_event,
    decode_events,
)
from kernel.projection import gc_paused
from kernel.recorded import RecordedAgent, replies_of
from kernel.tools import result_event
from kernel.runner import Session
from kernel.store import MemoryStore, Row
from scenarios.play import Run, store_inputs


class Mismatch(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    check: str
    expected: Any
    actual: Any


class Report(msgspec.Struct, kw_only=True):
    run: str
    events: int
    ok: bool
    mismatch: Mismatch | None = None
    tool_calls: int = 0
    tasks_judged: int = 0
    seconds: float = 0.0


BATCH = 20_000
_CLOCK_EVENTS = (DayStarted, WorldChanged)
"""The world clock may fire while a call is under way (a day starting during a long walk)."""


OnTask = Callable[[int], None]
"""Called with the simulated minute of each task end met (for progress bars)."""


def verify(run: Run, *, deep: bool = False, on_task: OnTask | None = None) -> Report:
    started = time.perf_counter()
    report = Report(run=run.branch.id, events=run.store.head(run.branch.id)[0], ok=True)
    with gc_paused():
        report.mismatch = _check(run, report, on_task)
    if report.mismatch is None and deep:
        report.mismatch = _replay_recorded(run)
    report.ok = report.mismatch is None
    report.seconds = round(time.perf_counter() - started, 4)
    return report


def batches(run: Run) -> Iterator[list[Row]]:
    head = run.store.head(run.branch.id)[0]
    for start in range(1, head + 1, BATCH):
        yield run.store.rows(run.branch.id, start, min(head, start + BATCH - 1))


def _check(run: Run, report: Report, on_task: OnTask | None = None) -> Mismatch | None:
    """One read of the log: each batch's hash chain first, then its events re-executed and re-judged."""
    chain = _Chain(run.branch.genesis)
    replay = _ReExecution(run, report)
    for rows in batches(run):
        mismatch = chain.check(rows)
        if mismatch is not None:
            return mismatch
        events = _decoded(rows)
        if isinstance(events, Mismatch):
            return events
        for row, event in zip(rows, events):
            mismatch = replay.step(row, event)
            if mismatch is not None:
                return mismatch
            if on_task is not None and isinstance(event, TaskEnded):
                on_task(row.t)
    return replay.finish()


def check_chain(run: Run) -> Mismatch | None:
    """The hash-chain check alone (what ``verify`` does first), for a quick integrity check."""
    chain = _Chain(run.branch.genesis)
    for rows in batches(run):
        mismatch = chain.check(rows)
        if mismatch is not None:
            return mismatch
    return None


def _decoded(rows: list[Row]) -> list[Event] | Mismatch:
    """The rows' events, or the first row that is not a valid event (a forgery with rehashed chain)."""
    try:
        return decode_events([r.payload for r in rows])
    except (msgspec.DecodeError, msgspec.ValidationError):
        for row in rows:
            try:
                decode_event(row.payload)
            except (msgspec.DecodeError, msgspec.ValidationError) as error:
                return Mismatch(seq=row.seq, check="decode", expected="a valid event", actual=f"{error}: {row.payload[:200]}")
        raise


class _Chain:
    """Every row's hash is sha256 over the previous hash, its time and its payload."""

    def __init__(self, genesis: str) -> None:
        self.prev = genesis
        self.seq = 1

    def check(self, rows: list[Row]) -> Mismatch | None:
        for row in rows:
            if row.seq != self.seq:
                return Mismatch(seq=self.seq, check="sequence", expected=self.seq, actual=row.seq)
            digest = chain_hash(self.prev, row.t, row.payload.encode("utf-8"))
            if digest != row.hash:
                return Mismatch(seq=row.seq, check="hash chain", expected=digest, actual=row.hash)
            self.prev = digest
            self.seq += 1
        return None


class _ReExecution:
    """Folds the log and runs every recorded tool call and judgement again against it."""

    def __init__(self, run: Run, report: Report) -> None:
        self.run = run
        self.report = report
        self.cards = run.term.cards()
        self.state = run.kernel.projection.initial()
        self.task_events: list[Event] = []
        self.expected: list[bytes] = []

    def step(self, row: Row, event: Event) -> Mismatch | None:
        run, state = self.run, self.state
        if self.expected and not isinstance(event, _CLOCK_EVENTS):
            actual, want = canonical(event), self.expected.pop(0)
            if actual != want:
                return Mismatch(seq=row.seq, check="re-execution", expected=_plain(want), actual=_plain(actual))
        if isinstance(event, TaskEnded) and event.outcome != "unscored":
            judged = run.term.evaluate(event.task_id, state, self.task_events)
            self.report.tasks_judged += 1
            if judged != (event.outcome, event.detail, event.marks):
                return Mismatch(seq=row.seq, check="evaluation", expected=list(judged),
                                actual=[event.outcome, event.detail, event.marks])
        run.kernel.projection.apply(state, row.seq, row.t, event)
        if isinstance(event, TaskReleased):
            self.task_events = [event]
        elif self.task_events:
            self.task_events.append(event)
        if isinstance(event, ToolCalled):
            self.expected = self._rerun(event)
        return None

    def _rerun(self, event: ToolCalled) -> list[bytes]:
        self.report.tool_calls += 1
        card = self.cards[self.state.session.next_task]
        outcome = self.run.kernel.dispatch(
            self.state, task_id=event.task_id, name=event.tool, args=event.args,
            positional=event.positional, systems=card.systems, seed=self.run.branch.seed,
        )
        return [canonical(fact) for fact in outcome.facts] + [canonical(result_event(event.call_id, outcome))]

    def finish(self) -> Mismatch | None:
        if self.expected:
            return Mismatch(seq=self.report.events + 1, check="re-execution", expected=_plain(self.expected[0]), actual=None)
        return None


def _plain(payload: bytes) -> Any:
    return msgspec.json.decode(payload)


def _replay_recorded(run: Run) -> Mismatch | None:
    from scenarios.play import new_run

    replies = replies_of(run.store, run.branch.id)
    scratch = MemoryStore()
    store_inputs(scratch, run.world, run.term)
    again = new_run(
        scratch, run.world, run.term, agent_name=run.branch.agent, seed=run.branch.seed,
        round_limit=run.branch.config["round_limit"], branch_id="replay",
    )
    session = Session(again.kernel, scratch, "replay", again.term, RecordedAgent(run.branch.id, replies))
    head = run.store.head(run.branch.id)[0]
    session.run(max_steps=len(replies))
    replayed = scratch.rows("replay")
    original = [r for rows in batches(run) for r in rows]
    for mine, theirs in zip(original, replayed):
        if mine.hash != theirs.hash:
            return Mismatch(seq=mine.seq, check="deep replay", expected=_plain(mine.payload.encode()), actual=_plain(theirs.payload.encode()))
    if len(replayed) < head:
        return Mismatch(seq=len(replayed) + 1, check="deep replay", expected=original[len(replayed)].kind, actual=None)
    return None

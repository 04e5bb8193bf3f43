"""Verify: prove a stored run is what its log says it is.

Three checks, each naming the first seq that fails:

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
from collections.abc import Iterator
from typing import Any

import msgspec

from events import (
    AgentReplied,
    DayStarted,
    Event,
    StructuredCall,
    TaskEnded,
    TaskReleased,
    ToolCalled,
    ToolResult,
    WorldChanged,
    canonical,
    chain_hash,
    decode_events,
)
from kernel.agent import AgentView, Reply
from kernel.projection import gc_paused
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


def verify(run: Run, *, deep: bool = False) -> Report:
    started = time.perf_counter()
    report = Report(run=run.branch.id, events=run.store.head(run.branch.id)[0], ok=True)
    with gc_paused():
        report.mismatch = _check_chain(run) or _re_execute(run, report)
    if report.mismatch is None and deep:
        report.mismatch = _replay_recorded(run)
    report.ok = report.mismatch is None
    report.seconds = round(time.perf_counter() - started, 4)
    return report


def _batches(run: Run) -> Iterator[list[Row]]:
    head = run.store.head(run.branch.id)[0]
    for start in range(1, head + 1, BATCH):
        yield run.store.rows(run.branch.id, start, min(head, start + BATCH - 1))


def _check_chain(run: Run) -> Mismatch | None:
    prev = run.branch.genesis
    expected_seq = 1
    for rows in _batches(run):
        for row in rows:
            if row.seq != expected_seq:
                return Mismatch(seq=expected_seq, check="sequence", expected=expected_seq, actual=row.seq)
            digest = chain_hash(prev, row.t, row.payload.encode("utf-8"))
            if digest != row.hash:
                return Mismatch(seq=row.seq, check="hash chain", expected=digest, actual=row.hash)
            prev = digest
            expected_seq += 1
    return None


def _re_execute(run: Run, report: Report) -> Mismatch | None:
    kernel, projection = run.kernel, run.kernel.projection
    cards = run.term.cards()
    state = projection.initial()
    task_events: list[Event] = []
    expected: list[bytes] = []
    for rows in _batches(run):
        events = decode_events([r.payload for r in rows])
        for row, event in zip(rows, events):
            if expected and not isinstance(event, _CLOCK_EVENTS):
                actual = canonical(event)
                want = expected.pop(0)
                if actual != want:
                    return Mismatch(seq=row.seq, check="re-execution", expected=_plain(want), actual=_plain(actual))
            if isinstance(event, TaskEnded) and event.outcome != "unscored":
                before = run.term.evaluate(event.task_id, state, task_events)
                report.tasks_judged += 1
                if before != (event.outcome, event.detail):
                    return Mismatch(seq=row.seq, check="evaluation", expected=list(before), actual=[event.outcome, event.detail])
            projection.apply(state, row.seq, row.t, event)
            if isinstance(event, TaskReleased):
                task_events = [event]
            elif task_events:
                task_events.append(event)
            if isinstance(event, ToolCalled):
                report.tool_calls += 1
                card = cards[state.session.next_task]
                outcome = kernel.dispatch(
                    state, task_id=event.task_id, name=event.tool, args=event.args,
                    positional=event.positional, systems=card.systems, seed=run.branch.seed,
                )
                result = ToolResult(
                    call_id=event.call_id, status="ok" if outcome.result.ok else "error",
                    message=outcome.result.message, data=outcome.result.data, minutes=outcome.minutes or 0,
                )
                expected = [canonical(fact) for fact in outcome.facts] + [canonical(result)]
    if expected:
        return Mismatch(seq=report.events + 1, check="re-execution", expected=_plain(expected[0]), actual=None)
    return None


def _plain(payload: bytes) -> Any:
    return msgspec.json.decode(payload)


class RecordedAgent:
    """Repeats a run's recorded replies in order: exact reproduction without the original agent."""

    def __init__(self, replies: list[AgentReplied], name: str) -> None:
        self.replies = replies
        self.name = name
        self.position = 0

    def act(self, view: AgentView) -> Reply:
        reply = self.replies[self.position]
        self.position += 1
        if reply.call is not None:
            return StructuredCall(name=reply.call.name, arguments=reply.call.arguments, id=reply.call.id)
        return reply.text  # type: ignore[return-value]


def recorded_replies(run: Run) -> list[AgentReplied]:
    rows = [r for rows in _batches(run) for r in rows if r.kind == "agent_replied"]
    return decode_events([r.payload for r in rows])  # type: ignore[return-value]


def _replay_recorded(run: Run) -> Mismatch | None:
    from scenarios.play import new_run

    replies = recorded_replies(run)
    scratch = MemoryStore()
    store_inputs(scratch, run.world, run.term)
    again = new_run(
        scratch, run.world, run.term, agent_name=run.branch.agent, seed=run.branch.seed,
        round_limit=run.branch.config["round_limit"], branch_id="replay",
    )
    session = Session(again.kernel, scratch, "replay", again.term, RecordedAgent(replies, run.branch.agent))
    head = run.store.head(run.branch.id)[0]
    session.run(max_steps=len(replies))
    replayed = scratch.rows("replay")
    original = [r for rows in _batches(run) for r in rows]
    for mine, theirs in zip(original, replayed):
        if mine.hash != theirs.hash:
            return Mismatch(seq=mine.seq, check="deep replay", expected=_plain(mine.payload.encode()), actual=_plain(theirs.payload.encode()))
    if len(replayed) < head:
        return Mismatch(seq=len(replayed) + 1, check="deep replay", expected=original[len(replayed)].kind, actual=None)
    return None

"""Verify: prove a stored run is what its log says it is.

Four checks in one read of the log, each naming the first seq that fails:

1. the hash chain: every row's hash is sha256 over the previous hash, its time and its
   payload, starting from the genesis (catches any edit made behind the triggers' back);
2. re-execution: every recorded tool call is run again against the state rebuilt from the
   log, and must produce the same domain facts and the same result, byte for byte;
3. re-judging: every scored task's recorded outcome is evaluated again and must agree;
4. re-firing: every trigger rule's firing (``world_changed`` naming a rule, ``trigger_skipped``)
   is derived again from the state and the event that activated it, in the runner's order
   (a read's rules before the call runs, then the call's, then each fact's; timed rules at
   their minute, those timed from a task's opening counted from its ``task_released``; a task's end), and must be exactly what the log holds, and nothing more.
   The sequence check leaves a firing's content to this check, but refuses one where no rule
   can fire and any other event where a firing is due.

``deep=True`` adds a fifth: the whole run is played again in memory by an agent that
repeats the recorded replies, and every event must come out the same, byte for byte — the
clock, releases, parsing and all (the chain check has already tied those bytes to the hashes).

A run written under an older schema keeps its bytes and hashes: re-execution compares the
new facts with its recorded ones read as current events (``events.upcast``), and the deep
replay compares each event so read, since today's payloads hash differently.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec

from campus.events import (
    AGENT_BOUND,
    HintGiven,
    ReplyParaphrased,
    SCHEMA_VERSION,
    ActionRejected,
    AgentReplied,
    Answered,
    DayStarted,
    Event,
    KINDS,
    InstructionRevealed,
    MentorFeedback,
    RunEnded,
    RunStarted,
    TaskComposed,
    TaskEnded,
    TaskReleased,
    TimeAnnounced,
    ToolCalled,
    ToolResult,
    TriggerSkipped,
    MalformedEvent,
    WorldChanged,
    agent_link,
    canonical,
    chain_hash,
    decode_event,
    decode_events,
    digest,
    genesis_hash,
    rules_of,
)
from campus.kernel.clock import day_of, day_start
from campus.kernel.parse import Answer, Call, Finish, Invalid
from campus.kernel.projection import gc_paused
from campus.kernel.history import state_at
from campus.kernel.recorded import RecordedAgent, replies_of
from campus.kernel.schedule import Composing
from campus.kernel.tools import result_event
from campus.kernel.runner import RUN_ENDED, UNSCORED, Paraphrase, Session, action_of, handed_out, release_lines
from campus.kernel.store import BranchInfo, MemoryStore, Row, Snapshot, StoreError
from campus.kernel.triggers import (Due, Rule, RuleIndex, activated, after_open_index, armed, due_after_open, due_at_times,
                                    fire)
from campus.kernel.tasks import row_batches
from campus.scenarios.play import Run, store_inputs


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


BATCH = 2_000
"""Rows read at a time: a reply is at most 64k characters, so a batch stays within ~150 MB even when all are."""
READINGS = 4_096
"""Distinct reply texts whose reading verify keeps; past it the memo starts afresh, so memory does not grow with the log."""
_WAITED_FOR = frozenset((RunStarted, TimeAnnounced, ToolResult))
"""The kinds (besides the clocks') a session writes after time has passed: the run's start, a task's time line (at its
release) and a call's result (at the call's time plus its minutes), each time checked where its place is. Every other
event is written at the time of the event before it."""
_CLOCK_TYPES = frozenset((DayStarted, WorldChanged))
"""The world clock may fire while a call is under way (a day starting during a long walk)."""
_APPLIED = frozenset(KINDS.values()) - _CLOCK_TYPES - {TaskReleased, TaskComposed, TaskEnded}
"""The kinds a step applies and adds to the open task's events once their place and content are checked, with
nothing else to do but note a reply's form (``AgentReplied``) or start a call's re-execution (``ToolCalled``)."""


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
    return row_batches(run.store, run.branch.id, batch=BATCH)


def _check(run: Run, report: Report, on_task: OnTask | None = None) -> Mismatch | None:
    """One read of the log: each batch's hash chain first, then its events re-executed and re-judged."""
    mismatch = check_inputs(run) or _check_started(report)
    if mismatch is not None:
        return mismatch
    chain = _Chain(run.branch.genesis, run.store.agent_links(run.branch.id))
    replay = _ReExecution(run, report)
    for rows in batches(run):
        payloads = [row.payload.encode("utf-8") for row in rows]
        mismatch = chain.check(rows, payloads)
        if mismatch is not None:
            return mismatch
        events = _decoded(rows, payloads)
        if isinstance(events, Mismatch):
            return events
        for row, payload, event in zip(rows, payloads, events):
            mismatch = replay.step(row, payload, event)
            if mismatch is not None:
                return mismatch
            if on_task is not None and row.kind == "task_ended":
                on_task(row.t)
    return replay.finish()


def _check_started(report: Report) -> Mismatch | None:
    """Every run's log starts with ``run_started`` at seq 1 (the sequence check sees to it when there are rows): a log
    with no row at all lost it, or was never played, and either way vouches for nothing. A log cut after a later
    step is still a consistent run: only a signature over its head tells it from the whole one."""
    if report.events:
        return None
    return Mismatch(seq=1, check="sequence", expected="run_started", actual="no event: the run's log is empty")


def lineage_root(run: Run, upto: int = 0) -> BranchInfo:
    """The first branch of the run's lineage that holds seq ``upto``: with 0 the root, whose genesis
    every fork shares; with 1 the branch that wrote ``run_started`` (a fork at seq 0, such as a
    lifelong probe, starts its own run with a probe term)."""
    pieces = run.store.segments(run.branch.id)
    owner = next((owner for owner, lower, _ in reversed(pieces) if lower <= upto), pieces[0][0])
    return run.store.branch(owner)


def check_inputs(run: Run) -> Mismatch | None:
    """The genesis is recomputed from the root of the branch's lineage, which every fork shares
    (a fork may carry a probe term of its own), and the stored world and terms must hash to their names."""
    branch, root = run.branch, lineage_root(run)
    genesis = genesis_hash(root.world_hash, root.term_hash, root.seed, root.config, root.agent)
    if genesis != branch.genesis:
        return Mismatch(seq=0, check="genesis", actual=branch.genesis, expected={
            "genesis": genesis, "world": root.world_hash, "term": root.term_hash, "seed": root.seed,
            "rules": root.config, "agent": root.agent if root.config.get(AGENT_BOUND) else "(not bound by these rules)"})
    for field in ("world_hash", "seed", "config"):
        if getattr(branch, field) != getattr(root, field):
            return Mismatch(seq=0, check=f"fork {field}", expected=str(getattr(root, field)), actual=str(getattr(branch, field)))
    odd = run.store.mistyped(branch.id)
    if odd is not None:
        return Mismatch(seq=odd[0], check="column types", expected="t integer, kind text, payload text, hash text",
                        actual=odd[1])
    for kind, named in dict.fromkeys((("world", branch.world_hash), ("term", root.term_hash), ("term", branch.term_hash))):
        try:
            actual = digest(run.store.get_blob(named))
        except (KeyError, StoreError):
            actual = "missing"
        if actual != named:
            return Mismatch(seq=0, check=f"{kind} blob", expected=named, actual=actual)
    return None


def check_chain(run: Run) -> Mismatch | None:
    """The hash-chain check alone (what ``verify`` does first), for a quick integrity check."""
    chain = _Chain(run.branch.genesis, run.store.agent_links(run.branch.id))
    for rows in batches(run):
        mismatch = chain.check(rows, [row.payload.encode("utf-8") for row in rows])
        if mismatch is not None:
            return mismatch
    return None


REPRODUCED = "tool_result"
"""The kind left undecoded in a batch: re-execution derives each such event before its row comes, and a
row that stores exactly its bytes holds that event (the bulk of a log's bytes are read results)."""


def _decoded(rows: list[Row], payloads: list[bytes]) -> list[Event | None] | Mismatch:
    """The rows' events (``None`` for a ``REPRODUCED`` row), or the first row that is not a valid event
    (a forgery with rehashed chain)."""
    kept = [payload for row, payload in zip(rows, payloads) if row.kind != REPRODUCED]
    try:
        decoded = iter(decode_events(kept))
    except MalformedEvent:
        for row, payload in zip(rows, payloads):
            if row.kind != REPRODUCED:
                event = _decode_row(row, payload)
                if isinstance(event, Mismatch):
                    return event
        raise
    return [None if row.kind == REPRODUCED else next(decoded) for row in rows]


def _decode_row(row: Row, payload: bytes) -> Event | Mismatch:
    try:
        return decode_event(payload)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        return Mismatch(seq=row.seq, check="decode", expected="a valid event", actual=f"{error}: {row.payload[:200]}")


class _Chain:
    """Every row's hash is sha256 over the previous hash, its time and its payload; where a fork changes
    agent, the previous hash is first bound to the new agent (``links``)."""

    def __init__(self, genesis: str, links: dict[int, str]) -> None:
        self.prev = genesis
        self.seq = 1
        self.links = links

    def check(self, rows: list[Row], payloads: list[bytes]) -> Mismatch | None:
        """``payloads``: the rows' payloads as UTF-8 bytes."""
        if not self.links:
            return self._unlinked(rows, payloads)
        for row, payload in zip(rows, payloads):
            if row.seq != self.seq:
                return Mismatch(seq=self.seq, check="sequence", expected=self.seq, actual=row.seq)
            agent = self.links.get(row.seq)
            if agent is not None:
                self.prev = agent_link(self.prev, agent)
            digest = chain_hash(self.prev, row.t, payload)
            if digest != row.hash:
                check = "hash chain" if agent is None else f"hash chain (from here played by agent {agent!r})"
                return Mismatch(seq=row.seq, check=check, expected=digest, actual=row.hash)
            self.prev = digest
            self.seq += 1
        return None

    def _unlinked(self, rows: list[Row], payloads: list[bytes]) -> Mismatch | None:
        """``check`` where no row changes agent, with the chain's position in locals."""
        prev, seq = self.prev, self.seq
        for row, payload in zip(rows, payloads):
            if row.seq != seq:
                return Mismatch(seq=seq, check="sequence", expected=seq, actual=row.seq)
            digest = chain_hash(prev, row.t, payload)
            if digest != row.hash:
                return Mismatch(seq=row.seq, check="hash chain", expected=digest, actual=row.hash)
            prev = digest
            seq += 1
        self.prev, self.seq = prev, seq
        return None


def _fired(event: Event) -> bool:
    """An event a trigger rule appended."""
    cls = type(event)
    return cls is TriggerSkipped or (cls is WorldChanged and bool(event.rule))  # type: ignore[attr-defined]


class _ReExecution:
    """Folds the log, checks every event's place in the sequence a session could produce, and runs
    every recorded tool call and judgement again against the folded state.

    The place of an event: ``run_started`` first and matching the branch row, times never going
    back, nothing after ``run_ended``; a day start or a world change exactly when the term's
    agenda has it, and never late; a task released at its time (or as soon as the one before it
    ended), in the term's order, right after its time line; each reply followed by the action it
    reads as (the call, the rejection, the answer or the end it stands for); a task ended only
    by an answer, ``finish()`` or its round limit; every fact and result inside a call; and a
    rule's firing only where a rule fires (what it holds is the re-firing check's).
    """

    def __init__(self, run: Run, report: Report) -> None:
        self.run = run
        self.report = report
        self.cards = run.term.cards()
        self.triggers = list(run.term.triggers())
        self.last_day = day_of(self.cards[-1].release) if self.cards else -1
        self.state = run.kernel.projection.initial()
        self.apply = run.kernel.projection.applier(self.state)
        self.task_events: list[Event] = []
        self.pending: Iterator[Event] | None = None
        """What must come next (a call's firings, facts and result; a task end's firings), derived lazily
        so each expected event is computed from the state after the ones before it."""
        self.rules: list[Rule] = list(run.term.trigger_rules()) if run.branch.config.get("triggers", True) else []
        self.timed: list[Due] = due_at_times(self.rules, 0)
        """The rule clock's agenda (a heap): rules at a minute, and those timed from a task's opening once it opens."""
        self.after_open = after_open_index(self.rules)
        self.rule_index = RuleIndex(self.rules)
        self.clock_due: list[Event] = []
        self.peeked: Event | None = None
        """The next expected event, derived before a clock event may change the state (a call's result
        comes after its minutes, but was computed when it was dispatched)."""
        self.rules_version = rules_of(run.branch.config)
        """The version of the world's rules the run's handlers followed (re-execution follows it too)."""
        self.wire = False
        """Whether the latest reply was a native function call (its tools are named by wire names)."""
        self.action: Call | Answer | Finish | Invalid | None = None
        """What the latest reply reads as, until the event that carries it out."""
        self.answered = False
        self.announced: int | None = None
        self.last_t = 0
        self.call_t = 0
        self.over = False
        self.snapshots = _snapshots(run)
        self.readings: dict[tuple[str, bool], Call | Answer | Finish | Invalid] = {}
        self.composing = Composing(run.term, run.kernel.describe, run.kernel.world)
        self.digest: str | None = None
        """The digest the open composed task's ``task_composed`` must carry, until it has come."""
        self.payload = b""
        """The payload of the row being checked, as bytes."""

    def step(self, row: Row, payload: bytes, decoded: Event | None) -> Mismatch | None:
        """``payload``: the row's payload as bytes; ``decoded``: its event, or ``None`` for a ``REPRODUCED`` row."""
        if self.peeked is None and self.pending is not None:
            self.peeked = self._next_expected()
        self.payload = payload
        if decoded is None:
            reproduced = self._reproduced(row, payload)
            if isinstance(reproduced, Mismatch):
                return reproduced
            event: Event = reproduced
        else:
            event = decoded
        cls = type(event)
        seq, t, kind = row.seq, row.t, row.kind
        tag, applied, student = _PLANS[cls]
        # appended by the world clock or the rule clock, so it may come while a call is under way
        if cls is WorldChanged:
            fired = bool(event.rule)  # type: ignore[attr-defined]
            by_clock = event.cause == 0 if fired else True  # type: ignore[attr-defined]
        elif cls is TriggerSkipped:
            fired, by_clock = True, event.cause == 0  # type: ignore[attr-defined]
        else:
            fired, by_clock = False, cls is DayStarted
        before = self.last_t
        problem = self._misplaced(row, event, tag, student, fired, by_clock)
        if problem is not None:
            return Mismatch(seq=seq, check="sequence", expected=problem, actual=kind)
        if by_clock or fired or self.peeked is not None or self.clock_due or (self.timed and self.timed[0][0] <= t):
            mismatch = self._check_expected(row, event, fired, by_clock)
            if mismatch is not None:
                return mismatch
        if t != before and not by_clock and cls not in _WAITED_FOR:  # written at once after the event before it
            return Mismatch(seq=seq, check="time", expected=before, actual=t)
        if self.composing.kinds:
            self.composing.see(seq, t, event)
        if applied:  # no composition, no judgement, no clock
            self.apply(seq, t, event)
            if self.task_events:
                self.task_events.append(event)
            if cls is AgentReplied:
                self.wire = event.call is not None  # type: ignore[attr-defined]
            elif cls is ToolCalled:
                self.pending = self._rerun(event)  # type: ignore[arg-type]
                self.call_t = t
        else:
            mismatch = self._special(row, event, cls)
            if mismatch is not None:
                return mismatch
        if self.snapshots and seq in self.snapshots:
            self.snapshots.remove(seq)
            return _snapshot_mismatch(self.run, seq, self.run.kernel.projection.encode(self.state))
        return None

    def _special(self, row: Row, event: Event, cls: type) -> Mismatch | None:
        """What an event of a kind outside ``_APPLIED`` adds to applying it: a composition or a judgement checked
        first, and what it sets going (the rule clock's timed rules, a call's re-execution, a task end's firings)."""
        run, state = self.run, self.state
        if cls is TaskReleased or cls is TaskComposed:
            mismatch = self._composition(row, event)
            if mismatch is not None:
                return mismatch
        if cls is TaskEnded:  # judged again if the task is scored, whatever the event says of itself
            assert isinstance(event, TaskEnded)
            if self.cards[state.session.next_task].scored:
                judged = run.term.evaluate(event.task_id, state, self.task_events, self.composing.open)
                self.report.tasks_judged += 1
            else:
                judged = UNSCORED
            if judged != (event.outcome, event.detail, event.marks):
                return Mismatch(seq=row.seq, check="evaluation", expected=list(judged),
                                actual=[event.outcome, event.detail, event.marks])
        self.apply(row.seq, row.t, event)
        if cls in _CLOCK_TYPES:
            self._due_known = False
        if cls is TaskReleased:
            assert isinstance(event, TaskReleased)
            self.task_events = [event]
            for item in due_after_open(self.after_open, event.task_id, row.t, row.t):
                heapq.heappush(self.timed, item)
        elif self.task_events:
            self.task_events.append(event)
        if cls is AgentReplied:
            self.wire = event.call is not None  # type: ignore[attr-defined]
        elif cls is ToolCalled:
            assert isinstance(event, ToolCalled)
            self.pending = self._rerun(event)
            self.call_t = row.t
        elif cls is TaskEnded and self.rule_index.for_task(event.task_id):  # type: ignore[attr-defined]
            assert isinstance(event, TaskEnded)
            self.pending = self._firings(event, state.seq, task_id=event.task_id, task_events=list(self.task_events))
            self.task_events = []
        return None

    def _reproduced(self, row: Row, payload: bytes) -> Event | Mismatch:
        """The event of a row left undecoded: the one expected here when the row stores exactly its bytes."""
        want = self.peeked
        if want is not None and canonical(want) == payload:
            return want
        return _decode_row(row, payload)

    def _composition(self, row: Row, event: Event) -> Mismatch | None:
        """A composed task's questions and digest, drawn again from the log before its release."""
        prefix = self.composing.open
        if isinstance(event, TaskReleased) and prefix is not None:
            text, self.digest = self.run.term.compose(event.task_id, prefix)
            if event.observation != self.release[0] + "\n" + text:
                return Mismatch(seq=row.seq, check="composition", expected=text, actual=event.observation)
        elif isinstance(event, TaskComposed):
            expected, self.digest = self.digest, None
            if event.digest != expected:
                return Mismatch(seq=row.seq, check="composition", expected=expected, actual=event.digest)
        return None

    def _misplaced(self, row: Row, event: Event, tag: str, student: StudentCheck, fired: bool, by_clock: bool) -> str | None:
        """What the session would have written here instead, if ``event`` (of kind ``tag``) is not it."""
        if row.kind != tag:
            return f"the kind of its payload, {tag}"
        if self.over:
            return "nothing after run_ended"
        if (row.seq == 1) != (type(event) is RunStarted):
            return "run_started" if row.seq == 1 else "no second run_started"
        if row.t < self.last_t:
            return f"a time of at least {self.last_t}"
        self.last_t = row.t
        if fired:
            return self._firing_place(row, by_clock)
        if type(event) is RunStarted:
            return self._run_started(event)
        if by_clock:
            return self._clock(row, event)  # type: ignore[arg-type]
        due = self._due_at if self._due_known else self._due()
        if due is not None and due <= row.t:
            return f"the world clock's event due at {due} first"
        if self.peeked is not None:
            return None
        return self._student(row, event, student)

    def _run_started(self, event: RunStarted) -> str | None:
        branch = lineage_root(self.run, upto=1)
        if (event.world_hash, event.term_hash, event.seed, event.config, event.schema) != (
                branch.world_hash, branch.term_hash, branch.seed, branch.config, branch.schema):
            return "run_started with the branch's world, term, seed, rules and schema"
        return None

    def _firing_place(self, row: Row, by_clock: bool) -> str | None:
        """A rule's firing comes right after what caused it (a call, a fact, a task end) or, by the
        clock, at a rule's minute: only where the re-firing check expects some firing."""
        if by_clock:
            if self.clock_due or any(t <= row.t for t, _, _ in self.timed):
                return None
            return "no rule due by the clock here"
        if self.peeked is not None and _fired(self.peeked):
            return None
        return "no rule firing here"

    def _due(self) -> int | None:
        """When the world clock fires next (day starts and world changes are never late); it moves only when
        a ``_CLOCK_TYPES`` event is applied, which sets ``_due_known`` back."""
        day, done = self.state.clock.day + 1, self.state.session.triggers_done
        times = [day_start(day)] if day <= self.last_day else []
        if done < len(self.triggers):
            times.append(self.triggers[done].t)
        self._due_at, self._due_known = min(times) if times else None, True
        return self._due_at

    _due_known = False
    _due_at: int | None = None

    def _clock(self, row: Row, event: DayStarted | WorldChanged) -> str | None:
        if isinstance(event, DayStarted):
            day = self.state.clock.day + 1
            if event.day != day or row.t != day_start(day) or day > self.last_day or event.home != self.run.kernel.world.home:
                return f"day {day} starting at {day_start(day)}, the student at home"
            return None
        done = self.state.session.triggers_done
        if done >= len(self.triggers):
            return "no world change: the term has no more"
        trigger = self.triggers[done]
        expected = WorldChanged(change_id=trigger.id, change=trigger.change)
        if row.t != trigger.t or not (_as_stored(expected, self.payload) or canonical(event) == canonical(expected)):
            return f"world change {trigger.id} at {trigger.t}"
        return None

    def _student(self, row: Row, event: Event, check: StudentCheck) -> str | None:
        """The place of an event the student's session appends, checked by its kind's ``check``."""
        session = self.state.session
        task = session.task_id
        if (self.digest is not None) != (type(event) is TaskComposed):
            return f"the task_composed of {task} right after its release" if self.digest else "no task_composed here"
        problem = check(self, row, event, session, task)
        if problem is None:
            self._student_t = row.t
        return problem

    def _composed(self, row: Row, event: TaskComposed, session: Any, task: str) -> str | None:
        return f"the task_composed of {task}" if event.task_id != task else None

    def _announced(self, row: Row, event: TimeAnnounced, session: Any, task: str) -> str | None:
        if task or self.announced is not None or session.next_task >= len(self.cards):
            return "no task release here"
        card = self.cards[session.next_task]
        release = max(card.release, self._student_t)
        if row.t != release:
            return f"the next task released at {release}"
        lines, time_line, withheld = release_lines(self.run.kernel, self.state, card, row.t)
        if event.label != time_line:
            return f"the time line {time_line!r}"
        self.announced, self.release = row.t, ("\n".join(lines), withheld)
        return None

    def _released(self, row: Row, event: TaskReleased, session: Any, task: str) -> str | None:
        """The release the session writes, word for word: a composed task's observation goes on with its questions
        (``_composition`` checks them and that nothing else follows)."""
        card = self.cards[session.next_task]
        if self.announced != row.t or event.task_id != card.id:
            return f"task {card.id} released right after its time line"
        said, withheld = self.release
        if (event.scenario, event.systems, event.withheld) != (card.scenario, list(card.systems), withheld) or not (
                event.observation.startswith(said + "\n") if card.composed else event.observation == said):
            return f"the release of {card.id} as the session writes it (its text, scenario, systems and whether withheld)"
        self.announced = None
        return None

    def _replied(self, row: Row, event: AgentReplied, session: Any, task: str) -> str | None:
        if not task or self.action is not None or self.answered or event.task_id != task:
            return "no reply here"
        if (unrevealed := self._unrevealed(session, task)) is not None:
            return unrevealed
        if session.turns >= self._limit():
            return "the end of the task at its round limit"
        self.action = self._read(event, free_answer=self.cards[session.next_task].answers == "text")
        return None

    def _acted(self, row: Row, event: ToolCalled | ActionRejected | Answered, session: Any, task: str) -> str | None:
        if type(event) is ToolCalled and _same_call(event, self.action, task, session.calls):
            self.answered, self.action = False, None
            return None
        expected = self._carried_out(task, session.calls)
        if expected is None or not (_as_stored(expected, self.payload) or canonical(event) == canonical(expected)):
            return "what the reply before it reads as" if expected is None else f"{_plain(canonical(expected))}"
        self.answered = type(event) is Answered
        self.action = None
        return None

    def _revealed(self, row: Row, event: InstructionRevealed, session: Any, task: str) -> str | None:
        """Right after the result (or its paraphrase) of the call that brought the student to the task's place."""
        card = self.cards[session.next_task] if task else None
        last = self.task_events[-1] if self.task_events else None
        if card is None or not session.withheld or event.task_id != task or type(last) not in (ToolResult, ReplyParaphrased) \
                or not handed_out(card, self.run.kernel.locate(self.state), row.t):
            return "no instruction revealed here"
        return None if event.text == card.instruction else f"the instruction of {task}"

    def _unrevealed(self, session: Any, task: str) -> str | None:
        """The instruction still withheld though it is handed out where the student is: the session reveals it at
        once."""
        if task and session.withheld:
            card = self.cards[session.next_task]
            if handed_out(card, self.run.kernel.locate(self.state), self.state.now):
                return f"the instruction of {task} revealed at {card.required_place} first"
        return None

    def _hinted(self, row: Row, event: HintGiven, session: Any, task: str) -> str | None:
        if not task or event.task_id != task or self.action is not None or self.answered:
            return "no hint here (a hint is told inside an open task, between two steps)"
        return self._unrevealed(session, task)

    def _paraphrased(self, row: Row, event: ReplyParaphrased, session: Any, task: str) -> str | None:
        if not task or event.task_id != task or not self._paraphrasable(event.call_id):
            return "no paraphrase here (one follows at once a person's reply to a call)"
        return None

    def _fed_back(self, row: Row, event: MentorFeedback, session: Any, task: str) -> str | None:
        if not task or event.task_id != task or self._ending() is None or self.told or not self.cards[session.next_task].scored:
            return "no mentor feedback here"
        if (unrevealed := self._unrevealed(session, task)) is not None:
            return unrevealed
        _, _, marks = self.run.term.evaluate(task, self.state, self.task_events, self.composing.open)
        if event.text != self.run.term.feedback(task, marks):
            return f"the mentor feedback the term gives on {task}"
        self.told = True
        return None

    def _ended(self, row: Row, event: TaskEnded, session: Any, task: str) -> str | None:
        reason = self._ending()
        if not task or event.task_id != task or event.reason != reason or event.turns != session.turns:
            return "no task end here" if reason is None else f"the end of {task} by {reason} after {session.turns} turns"
        if (unrevealed := self._unrevealed(session, task)) is not None:
            return unrevealed
        if not self.told and self.cards[session.next_task].scored and self.run.term.feedback(task, event.marks) is not None:
            return f"the mentor feedback on {task} before its end"
        self.action, self.answered, self.told = None, False, False
        return None

    def _run_ended(self, row: Row, event: RunEnded, session: Any, task: str) -> str | None:
        if task or session.next_task != len(self.cards):
            return "no run_ended before the last task has ended"
        if event.reason != RUN_ENDED:
            return f"run_ended for the reason {RUN_ENDED!r}"
        self.over = True
        return None

    def _uncaused(self, row: Row, event: Event, session: Any, task: str) -> str | None:
        return "no fact or result without the call it comes from"

    def _paraphrasable(self, call_id: str) -> bool:
        """Whether the task's last event is the successful result of call ``call_id`` to a tool whose result is a
        person's words."""
        said = self.task_events[-1] if self.task_events else None
        called = next((e for e in reversed(self.task_events) if type(e) is ToolCalled and e.call_id == call_id), None)
        return (isinstance(said, ToolResult) and said.call_id == call_id and said.status == "ok" and called is not None
                and self.run.kernel.spoken(called.tool))

    _student_t = 0
    release: tuple[str, bool] = ("", False)
    """The text the next task's release opens with and whether it withholds the instruction, worked out at its
    time line (from the state before it, as the session does)."""
    told = False
    """Whether the open task's mentor feedback has been given."""

    def _ending(self) -> str | None:
        """Why the open task ends now, if it does: its answer, a finish, or the round limit."""
        if self.answered:
            return "answer"
        if isinstance(self.action, Finish):
            return "finish"
        return "round limit" if self.action is None and self.state.session.turns >= self._limit() else None

    def _read(self, replied: AgentReplied, *, free_answer: bool) -> Call | Answer | Finish | Invalid:
        """``action_of`` the reply, read once per distinct (reply text, answer kind): agents repeat themselves."""
        if replied.call is not None or replied.text is None:
            return action_of(replied, free_answer=free_answer, rules=self.rules_version)
        key = (replied.text, free_answer)
        action = self.readings.get(key)
        if action is None:
            if len(self.readings) >= READINGS:
                self.readings.clear()
            action = self.readings[key] = action_of(replied, free_answer=free_answer, rules=self.rules_version)
        return action

    def _limit(self) -> int:
        card = self.cards[self.state.session.next_task]
        return int(card.round_limit or self.run.branch.config["round_limit"])

    def _carried_out(self, task: str, calls: int) -> Event | None:
        action = self.action
        if isinstance(action, Call):
            return ToolCalled(call_id=f"call-{calls + 1}", task_id=task, tool=action.name, args=dict(action.args),
                              positional=list(action.positional))
        if isinstance(action, Invalid):
            return ActionRejected(task_id=task, message=action.message)
        if isinstance(action, Answer):
            return Answered(task_id=task, answer=action.value)
        return None

    def _check_expected(self, row: Row, event: Event, fired: bool, by_clock: bool) -> Mismatch | None:
        """Called only where something may be expected: a clock event, a firing, a timed rule due or a re-executed
        event waiting (``step`` skips the rest)."""
        if by_clock and self.peeked is not None and not isinstance(self.peeked, ToolResult):
            # firings and facts follow what caused them at once; only a call's result waits for its minutes
            return _compare(row, self.payload, "rule firing" if _fired(self.peeked) else "re-execution", self.peeked, event)
        if self.timed and not self.clock_due:
            self._catch_up(row.t, by_clock and not fired)
        if self.clock_due or (by_clock and fired):
            want = self.clock_due.pop(0) if self.clock_due else None
            return _compare(row, self.payload, "rule firing", want, event)
        if by_clock:
            return None
        want, self.peeked = self.peeked, None
        if want is None:
            return Mismatch(seq=row.seq, check="rule firing", expected=None, actual=_plain(canonical(event))) if fired else None
        mismatch = _compare(row, self.payload, "rule firing" if fired or _fired(want) else "re-execution", want, event)
        if mismatch is None and isinstance(event, ToolResult) and row.t != self.call_t + event.minutes:
            return Mismatch(seq=row.seq, check="time", expected=self.call_t + event.minutes, actual=row.t)
        return mismatch

    def _catch_up(self, t: int, plain_clock: bool) -> None:
        """Timed rules due by ``t``: what firing each would append, once the log has reached its minute
        (the rule clock fires before the student acts at that minute)."""
        while not self.clock_due and self.timed:
            due = self.timed[0][0]
            if due > t or (due == t and plain_clock):
                return
            rule = heapq.heappop(self.timed)[2]
            self.clock_due = list(self._firings(None, 0, only=rule))

    def _next_expected(self) -> Event | None:
        """The pending events' next (none of them is ``None``), or ``None`` once they are all out."""
        if self.pending is None:
            return None
        want = next(self.pending, None)
        if want is None:
            self.pending = None
        return want

    def _rerun(self, event: ToolCalled) -> Iterator[Event]:
        """The runner's order: rules a read activates, then rules the call activates, then the call's facts
        (each followed by the rules it activates), then its result."""
        self.report.tool_calls += 1
        cause = self.state.seq
        rules = self.rule_index.for_task(event.task_id)
        if rules:
            yield from self._firings(event, cause, read=True)
            yield from self._firings(event, cause)
        card = self.cards[self.state.session.next_task]
        outcome = self.run.kernel.dispatch(
            self.state, task_id=event.task_id, name=event.tool, args=event.args,
            positional=event.positional, systems=card.systems, seed=self.run.branch.seed, wire=self.wire,
            rules=self.rules_version,
        )
        for fact in outcome.facts:
            yield fact
            if rules:
                yield from self._firings(fact, self.state.seq)
        yield result_event(event.call_id, outcome)

    def _firings(self, event: Event | None, cause: int, *, read: bool = False, only: Rule | None = None,
                 task_id: str | None = None, task_events: Sequence[Event] | None = None) -> Iterator[Event]:
        """What ``Session._fire_matching`` appends, one rule at a time against the state as it is then."""
        task_id = self.state.session.task_id if task_id is None else task_id
        for rule in (only,) if only is not None else self.rule_index.for_task(task_id):
            seen = self.task_events if task_events is None else task_events
            if activated(rule, task_id, event, read=read) and armed(rule, self.state.rules, seen, task_id):
                yield from fire(rule, self.state, self.run.kernel.world, self.run.kernel.guards, cause)

    def finish(self) -> Mismatch | None:
        want = self.clock_due[0] if self.clock_due else self.peeked or self._next_expected()
        if want is not None:
            return Mismatch(seq=self.report.events + 1, check="rule firing" if _fired(want) else "re-execution",
                            expected=_plain(canonical(want)), actual=None)
        if self.snapshots:
            seq = min(self.snapshots)
            return Mismatch(seq=seq, check="snapshot", expected="a snapshot at a seq of the log",
                            actual=_stored_hash(_snapshot_at(self.run, seq)))
        return None


StudentCheck = Callable[[_ReExecution, Row, Any, Any, str], str | None]
"""A student event's own place check: ``(replay, row, event, session state, open task)``, the problem or ``None``."""

_STUDENT: dict[type, StudentCheck] = {
    TaskComposed: _ReExecution._composed, TimeAnnounced: _ReExecution._announced, TaskReleased: _ReExecution._released,
    AgentReplied: _ReExecution._replied, ToolCalled: _ReExecution._acted, ActionRejected: _ReExecution._acted,
    Answered: _ReExecution._acted, InstructionRevealed: _ReExecution._revealed, HintGiven: _ReExecution._hinted,
    ReplyParaphrased: _ReExecution._paraphrased, MentorFeedback: _ReExecution._fed_back, TaskEnded: _ReExecution._ended,
    RunEnded: _ReExecution._run_ended,
}
_PLANS: dict[type, tuple[str, bool, StudentCheck]] = {
    cls: (tag, cls in _APPLIED, _STUDENT.get(cls, _ReExecution._uncaused)) for tag, cls in KINDS.items()}
"""Per event type, decided once: its kind's tag, whether it is one of ``_APPLIED``, and its student place check."""


def _compare(row: Row, payload: bytes, check: str, want: Event | None, event: Event) -> Mismatch | None:
    if want is event or (want is not None and _as_stored(want, payload)):
        return None
    actual = canonical(event)
    if want is None:
        return Mismatch(seq=row.seq, check=check, expected=None, actual=_plain(actual))
    expected = canonical(want)
    return None if actual == expected else Mismatch(seq=row.seq, check=check, expected=_plain(expected), actual=_plain(actual))


def _same_call(event: ToolCalled, action: Call | Answer | Finish | Invalid | None, task: str, calls: int) -> bool:
    """Whether ``event`` is the call ``action`` reads as, seen without encoding either: only when every argument
    is text, since then equal fields are equal canonical bytes (``False`` leaves it to the byte comparison)."""
    if type(action) is not Call or event.tool != action.name or event.task_id != task or event.call_id != f"call-{calls + 1}":
        return False
    args, positional = action.args, action.positional
    return (all(type(value) is str for value in args.values()) and all(type(value) is str for value in positional)
            and event.args == args and event.positional == positional)


def _as_stored(want: Event, payload: bytes) -> bool:
    """Whether a row's payload is exactly ``want``'s canonical bytes: then its event is ``want`` (a current-schema
    payload decodes and encodes back to itself), with no second encoding of the stored event."""
    return canonical(want) == payload


def _snapshots(run: Run) -> set[int]:
    """The seqs of the branch's stored snapshots (read as stored: their pieces are joined only when checked)."""
    found: set[int] = set()
    seq = run.store.head(run.branch.id)[0]
    while seq > 0:
        snapshot = run.store.snapshot_at_or_before(run.branch.id, seq, raw=True)
        if snapshot is None:
            break
        found.add(snapshot.seq)
        seq = snapshot.seq - 1
    return found


def _snapshot_at(run: Run, seq: int) -> Snapshot:
    snapshot = run.store.snapshot_at_or_before(run.branch.id, seq)
    assert snapshot is not None and snapshot.seq == seq
    return snapshot


def _stored_hash(snapshot: Snapshot) -> str | None:
    """The snapshot's stored state hash, or ``None`` where its bytes do not hash to it."""
    return snapshot.state_hash if digest(snapshot.state) == snapshot.state_hash else None


def _snapshot_mismatch(run: Run, seq: int, folded: bytes) -> Mismatch | None:
    """The snapshot at ``seq`` against the folded state's bytes: it agrees when it holds exactly those bytes and
    they hash to its stored hash (one hash; the folded state is hashed only to tell a mismatch)."""
    snapshot = _snapshot_at(run, seq)
    stored = _stored_hash(snapshot)
    if stored is not None and snapshot.state == folded:
        return None
    expected = digest(folded)
    return None if stored == expected else Mismatch(seq=seq, check="snapshot", expected=expected, actual=stored)


def _same_upcast(mine: Row, theirs: Row) -> bool:
    """A row of an older schema's run against its replay today: the hashes differ by construction,
    so the events must be equal once read as current ones (the schema the run records aside)."""
    recorded, replayed = decode_event(mine.payload), decode_event(theirs.payload)
    if isinstance(recorded, RunStarted) and isinstance(replayed, RunStarted):
        recorded = msgspec.structs.replace(recorded, schema=replayed.schema)
    return mine.t == theirs.t and canonical(recorded) == canonical(replayed)


def _plain(payload: bytes) -> Any:
    return msgspec.json.decode(payload)


def _hints_by_reply(rows: list[Row]) -> list[tuple[int, HintGiven]]:
    """Each hint of the run with the number of replies given before it: the replay stops there to be told it."""
    found, replies = [], 0
    for row in rows:
        if row.kind == "agent_replied":
            replies += 1
        elif row.kind == "hint_given":
            hint = decode_event(row.payload)
            assert isinstance(hint, HintGiven)
            found.append((replies, hint))
    return found


def _recorded_paraphrases(rows: list[Row]) -> Paraphrase | None:
    """The run's paraphrased replies, told again by call id (a call the run did not paraphrase gets none)."""
    said = {}
    for row in rows:
        if row.kind == "reply_paraphrased":
            event = decode_event(row.payload)
            assert isinstance(event, ReplyParaphrased)
            said[event.call_id] = event.text
    return (lambda call_id, message: said.get(call_id)) if said else None


def _replay_recorded(run: Run) -> Mismatch | None:
    from campus.scenarios.play import new_run

    replies = replies_of(run.store, run.branch.id)
    scratch = MemoryStore()
    store_inputs(scratch, run.world, run.term)
    again = new_run(
        scratch, run.world, run.term, agent_name=run.branch.agent, seed=run.branch.seed,
        rules=run.branch.config, branch_id="replay",
    )
    head = run.store.head(run.branch.id)[0]
    original = [r for rows in batches(run) for r in rows]
    played = 0
    paraphrase = _recorded_paraphrases(original)
    for before, hint in _hints_by_reply(original):
        Session(again.kernel, scratch, "replay", again.term, RecordedAgent(run.branch.id, replies),
                paraphrase=paraphrase).run(max_steps=before - played)
        scratch.append("replay", [(state_at(again.kernel, scratch, "replay").now, hint, None)])
        played = before
    Session(again.kernel, scratch, "replay", again.term, RecordedAgent(run.branch.id, replies),
            paraphrase=paraphrase).run(max_steps=len(replies) - played)
    replayed = scratch.rows("replay")
    older = run.branch.schema < SCHEMA_VERSION
    for mine, theirs in zip(original, replayed):
        if (mine.t, mine.payload) != (theirs.t, theirs.payload) and not (older and _same_upcast(mine, theirs)):
            return Mismatch(seq=mine.seq, check="deep replay", expected=_plain(mine.payload.encode()), actual=_plain(theirs.payload.encode()))
    if len(replayed) < head:
        return Mismatch(seq=len(replayed) + 1, check="deep replay", expected=original[len(replayed)].kind, actual=None)
    return None

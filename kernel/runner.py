"""The session loop: the SimPy clock releases tasks, the agent replies, tools change the world.

Two SimPy processes share one environment:

- the *world clock* walks the agenda of day starts and triggers (``UrgentTimeout``, so a
  day starts before a task released at the same minute);
- the *student* waits for each task's release time, shows the observation, and then for
  every turn waits on a *decision* event. The driver (``Session.run``) steps SimPy until a
  decision is pending, commits everything since the last decision as one transaction,
  asks the agent outside simulated time, and resumes. Tool calls take simulated minutes.

Nothing here is copied on resume or fork: the session folds the log, then re-creates both
processes from the schedule and the projected clock and session state.
"""

from __future__ import annotations

import gc
import heapq
import math
import time
from collections.abc import Callable, Generator
from typing import Any

import msgspec
import simpy
import structlog

from campus.events import (
    AGENT_BOUND,
    RULES,
    RULES_VERSION,
    ActionRejected,
    AgentReplied,
    Answered,
    DayStarted,
    Event,
    InstructionRevealed,
    MentorFeedback,
    ReplyParaphrased,
    RunEnded,
    RunStarted,
    StructuredCall,
    TaskComposed,
    TaskEnded,
    TaskReleased,
    TimeAnnounced,
    ToolCalled,
    WorldChanged,
    rules_of,
)
from campus.kernel.admit import admit, admit_meta
from campus.kernel.agent import Agent, AgentUnavailable, AgentView, Reply, TaskMemory, is_persistent, lazy_view
from campus.kernel.clock import DAY_START, Clock, UrgentTimeout, clock_label, date_label, day_of, day_start, label
from campus.kernel.engine import Kernel
from campus.kernel.history import state_at
from campus.kernel.logs import configure_default, debug_enabled
from campus.kernel.parse import Answer, Call, Finish, Invalid, parse_reply, parse_structured
from campus.kernel.prompt import PROTOCOL
from campus.kernel.schedule import Logged, Prefix, Schedule, TaskCard
from campus.kernel.snapshots import Pieces
from campus.kernel.store import EventStore, Record, decode_rows
from campus.kernel.tools import Outcome, ToolDecl, from_wire_name, result_event
from campus.kernel.transcript import Transcript, task_memories, task_so_far
from campus.kernel.triggers import (Due, Rule, RuleIndex, activated, after_open_index, armed, due_after_open, due_at_times,
                                    fire)

configure_default()
log = structlog.get_logger("campus.runner")

SNAPSHOT_EVERY = 1_000
"""Take a snapshot at the first commit after every this many events. Was 2,000: compressed pieces made a
snapshot of the 1M bench branch ~65 kB, and half the tail halves a seek's fold (~0.6 ms)."""

COMMIT_DELAY = 0.02
"""Group commit: with a fast agent, steps are committed together at most this many (wall-clock)
seconds apart. Each step is still atomic (a commit always falls between steps), and the log's
content does not depend on where the commits fall; a crash loses at most this much work, which
a resume plays again. An agent slower than this (any model) gets a commit before every reply.
Every commit rewrites the pages it touched into the WAL: at 5 ms the oracle's default term made
281 commits writing 50 MB, at 20 ms 74 writing 42 MB (one commit at the end: 80 MB), on a machine at about
twice its quiet pace (the count follows the wall clock)."""


Paraphrase = Callable[[str, str], str | None]
"""(call id, a person's reply) -> the words the student is shown instead, or None for the reply as it is
(``agents/paraphrase.py``)."""


def _settle_heap() -> None:
    """Once per process, when the first session starts: hide everything alive then (the imported modules,
    the world, the term) from the cyclic collector, which would otherwise walk it at every full collection
    (~20 ms on the published campus, several µs per tool call). Reference counting still frees those
    objects when they are dropped; only garbage cycles among them (the import-time ones, or a first world
    dropped while its cycles remain) stay until the process ends."""
    global _heap_settled
    if not _heap_settled:
        _heap_settled = True
        gc.freeze()


_heap_settled = False


class SessionError(RuntimeError):
    """The session stopped on an error; every whole step before it is committed and the run can be resumed."""


def run_config(round_limit: int, rules: int = RULES_VERSION) -> dict[str, Any]:
    """The rules a run is played under; bound into the genesis hash (with the agent: ``agent_bound``). The world's
    rules version is written from 2 on, so a config of version 1 is the one runs had before versions existed."""
    config = {"round_limit": round_limit, "day_start": DAY_START, "protocol": PROTOCOL, "minutes_per_call": 1,
              AGENT_BOUND: True}
    return config if rules == 1 else config | {RULES: rules}


class Session:
    """Plays (or resumes) one branch of the log with one agent."""

    def __init__(
        self,
        kernel: Kernel,
        store: EventStore,
        branch_id: str,
        schedule: Schedule,
        agent: Agent,
        *,
        on_task_end: Callable[[Any, TaskEnded], None] | None = None,
        snapshot_every: int = SNAPSHOT_EVERY,
        commit_delay: float = COMMIT_DELAY,
        paraphrase: Paraphrase | None = None,
    ) -> None:
        self.kernel = kernel
        self.store = store
        self.branch = store.branch(branch_id)
        self.rules_version = rules_of(self.branch.config)
        if not 1 <= self.rules_version <= RULES_VERSION:
            raise SessionError(f"run {branch_id} follows rules version {self.rules_version}; this campus plays "
                               f"versions 1 to {RULES_VERSION}")
        store.lease(branch_id)
        self.schedule = schedule
        self.agent = agent
        self.on_task_end = on_task_end
        self.snapshot_every = snapshot_every
        self.commit_delay = commit_delay
        self.paraphrase = paraphrase
        self._last_commit = time.perf_counter()
        self._agent_slow = True
        self.cards: list[TaskCard] = list(schedule.cards())
        self.triggers = list(schedule.triggers())
        rules = getattr(schedule, "trigger_rules", None)
        self.rules: list[Rule] = list(rules()) if rules is not None and self.branch.config.get("triggers", True) else []
        """Trigger rules in play; none when the branch was made with triggers disabled (a static twin)."""
        self._after_open = after_open_index(self.rules)
        self._rule_index = RuleIndex(self.rules)
        self._due: list[Due] = []
        """The rule clock's agenda (a heap): timed rules not yet looked at."""
        self._rule_clock_process: simpy.Process | None = None
        self._rule_clock_until: int | None = None
        """The minute the rule clock is waiting for, while it waits."""
        self.state = state_at(kernel, store, branch_id)
        self._apply = kernel.projection.applier(self.state)
        self.env = Clock(initial_time=self.state.now)
        self.buffer: list[Record] = []
        self._committed = self.state.seq
        self._whole = 0
        """How many buffered records make whole steps (all of them once the session waits on a decision)."""
        self._failure: SessionError | None = None
        self.task_events, self._released_at = self._open_task()
        self._log_kinds = schedule.log_kinds()
        self._past: list[Logged] = []
        """The rows of ``log_kinds`` read so far, for composing tasks (read once, as the log grows)."""
        self._past_seq = 0
        self.pending: simpy.Event | None = None
        self._asks: float = 0
        """How many more replies this ``run`` may ask for."""
        self._raised: BaseException | None = None
        """What asking the agent raised inside the student process (``AgentUnavailable``, an interrupt), raised
        by the driver as if it had asked, so the student still waits on its decision."""
        self._last_snapshot = self.state.seq
        self._snapshots = kernel.projection.writer()
        self._cuts: list[tuple[int, Pieces]] = []
        """Snapshots cut at decisions (``_decide``), each stored once the log holds its seq."""
        self._student_process: simpy.Process | None = None
        self._debug_lines = True
        """Whether the per-task debug line is made at all: structlog's configuration is asked when the session starts."""
        self._transcript = Transcript()
        self._shown: tuple[TaskCard | None, str, tuple[ToolDecl, ...]] = (None, "", ())
        """The card a view was last made for, with its prompt and tools."""
        self._played: list[Event] | None = None
        self._recall()

    # ------------------------------------------------------------ driving

    @property
    def finished(self) -> bool:
        return self.state.session.finished

    def run(self, max_steps: int | None = None) -> Any:
        """Play until the term ends or ``max_steps`` more agent replies; returns the state.

        May be called again to go on; the log is committed at every return. Operator logs
        written meanwhile (here, in the kernel and in the agent) carry the run and agent.
        """
        with structlog.contextvars.bound_contextvars(run=self.branch.id, agent=self.branch.agent):
            return self._run(max_steps)

    def _run(self, max_steps: int | None) -> Any:
        if self._failure is not None:
            raise self._failure
        if self.finished:
            return self.state
        try:
            self._asks = math.inf if max_steps is None else max_steps
            student = self._start()
            while not student.triggered:
                if self.pending is not None and not self.pending.triggered:
                    if self._raised is not None:
                        raised, self._raised = self._raised, None
                        raise raised
                    if self._asks <= 0:
                        break
                    self.pending.succeed(self._ask_agent())
                    self._asks -= 1
                self.env.step()
            if student.triggered and not student.ok:
                student.defused = True
                failure = student.value
                assert isinstance(failure, BaseException)
                raise failure
            self._commit()
        except AgentUnavailable:
            self._commit()  # the session waits on a decision: every buffered step is whole
            raise
        except Exception as error:
            if self._failure is None and self._whole:
                self._commit(self._whole)
            detail = " ".join(f"{type(error).__name__}: {error}".split())
            self._failure = SessionError(f"run {self.branch.id} stopped after seq {self._committed} "
                                         f"(every step up to it is committed; resume to go on): {detail}")
            raise self._failure from error
        return self.state

    def _start(self) -> simpy.Process:
        if self._student_process is None:
            _settle_heap()
            self._debug_lines = debug_enabled()
            if self.state.seq == 0:
                self._emit(RunStarted(
                    world_hash=self.branch.world_hash,
                    term_hash=self.branch.term_hash,
                    seed=self.branch.seed,
                    config=self.branch.config,
                ))
            self._student_process = self.env.process(self._student())
            self.env.process(self._world_clock())
            if self.rules:
                opened = due_after_open(self._after_open, self.state.session.task_id, self._released_at, self.state.now) \
                    if self.state.session.task_id else []
                self._schedule_rules(due_at_times(self.rules, self.state.now) + opened)
            log.info("session started", seq=self.state.seq, time=label(self.state.now),
                     resumed=self.state.seq > 1, tasks_done=self.state.session.next_task, tasks=len(self.cards))
        return self._student_process

    def _ask_agent(self) -> tuple[Reply | None, str | None]:
        view = self.view()
        begun = time.perf_counter()
        try:
            reply = self.agent.act(view)
            self._agent_slow = time.perf_counter() - begun >= self.commit_delay
            meta = getattr(self.agent, "last_meta", None)
        except AgentUnavailable:
            raise
        except Exception as error:  # an agent is untrusted: its failure is recorded, not fatal
            log.warning("agent raised", seq=self.state.seq, time=label(self.state.now), error=repr(error))
            return None, msgspec.json.encode({"error": type(error).__name__}).decode()
        if not isinstance(reply, (str, StructuredCall)):
            return None, msgspec.json.encode({"error": f"reply was a {type(reply).__name__}, not text"}).decode()
        return reply, admit_meta(meta)

    def view(self) -> AgentView:
        card = self.cards[self.state.session.next_task]
        if self._shown[0] is not card:
            self._shown = (card, self.kernel.prompt(card.systems), self.kernel.tools_for(card.systems))
        _, prompt, tools = self._shown
        events, upto, transcript = self.task_events, len(self.task_events), self._transcript
        return lazy_view(card.id, self.state.now, prompt, tools, lambda: transcript.of(events, upto))

    def _recall(self) -> None:
        """Give a persistent agent every task this branch has already ended (a resume or a fork)."""
        if is_persistent(self.agent) and self.state.session.next_task:
            for memory in task_memories(self.store, self.branch.id, self.state.seq):
                self.agent.remember(memory)  # type: ignore[attr-defined]

    # ------------------------------------------------------------ events and commits

    def play(self, max_steps: int) -> list[Event]:
        """``run`` for at most ``max_steps`` replies, returning the events it played (all committed)."""
        self._played = []
        try:
            self.run(max_steps)
            return self._played
        finally:
            self._played = None

    def _emit(self, event: Event, meta: str | None = None) -> None:
        t = int(self.env.now)
        self._apply(self.state.seq + 1, t, event)
        self.buffer.append((t, event, meta))
        if self._played is not None:
            self._played.append(event)
        if type(event) is TaskReleased:
            self.task_events = [event]
        elif self.task_events:
            self.task_events.append(event)

    def _commit(self, upto: int | None = None) -> None:
        """Append the buffer (or its first ``upto`` records) right after the last commit.

        If the append fails the session is dead: it never tries again, since its events
        would then land on whatever the log holds by then.
        """
        self._last_commit = time.perf_counter()
        records = self.buffer if upto is None else self.buffer[:upto]
        if not records:
            return
        try:
            seq, _ = self.store.append(self.branch.id, records, expect=self._committed)
        except BaseException:
            self._failure = SessionError(f"run {self.branch.id}: the log refused the steps after seq {self._committed}")
            raise
        self._committed = seq
        self.buffer = self.buffer[len(records):]
        self._whole = 0
        while self._cuts and self._cuts[0][0] <= seq:
            at, pieces = self._cuts.pop(0)
            self.store.put_snapshot(self.branch.id, at, *pieces)

    def _decide(self) -> Generator[simpy.Event, Any, tuple[Reply | None, str | None]]:
        """The agent's next reply. Asked here, with no SimPy event, when nothing else is due before the
        student would resume (the driver's way then runs nothing in between); else by the driver.

        A snapshot is cut here, where the log alone decides the seq, not at a commit, which the wall clock times:
        two plays of a run store the same snapshots."""
        if self.state.seq - self._last_snapshot >= self.snapshot_every:
            self._cuts.append((self.state.seq, self._snapshots.pieces(self.state)))
            self._last_snapshot = self.state.seq
        if self._agent_slow or time.perf_counter() - self._last_commit >= self.commit_delay:
            self._commit()
        self._whole = len(self.buffer)
        if self._asks > 0 and self.env.peek() > self.env.now:
            try:
                answer = self._ask_agent()
            except BaseException as raised:
                self._raised = raised
            else:
                self._asks -= 1
                return answer
        self.pending = self.env.event()
        answer = yield self.pending
        self.pending = None
        return answer

    # ------------------------------------------------------------ the world clock

    def _world_clock(self) -> Generator[simpy.Event, Any, None]:
        for t, event in self._agenda():
            if t > self.env.now:
                yield UrgentTimeout(self.env, t - int(self.env.now))
            self._emit(event)

    def _agenda(self) -> list[tuple[int, Event]]:
        if not self.cards:
            return []
        last_day = day_of(self.cards[-1].release)
        items: list[tuple[int, int, int, Event]] = []
        home = self.kernel.world.home
        for day in range(self.state.clock.day + 1, last_day + 1):
            items.append((day_start(day), 0, day, DayStarted(day=day, home=home)))
        for index, trigger in enumerate(self.triggers[self.state.session.triggers_done :]):
            items.append((trigger.t, 1, index, WorldChanged(change_id=trigger.id, change=trigger.change)))
        items.sort(key=lambda item: item[:3])
        return [(t, event) for t, _, _, event in items]

    # ------------------------------------------------------------ trigger rules

    def _schedule_rules(self, due: list[Due]) -> None:
        """Put timed rules on the rule clock's agenda, waking the clock if one is due before what it waits for.

        Rules due at the same minute are looked at in rule-id order, whenever they were added (``verify``
        re-derives the same order); on a resume only those not behind are added (earlier ones were decided
        before; one due this very minute is fired unless the log already shows it, as ``armed`` tells)."""
        for item in due:
            heapq.heappush(self._due, item)
        if not self._due:
            return
        process = self._rule_clock_process
        if process is None or not process.is_alive:
            self._rule_clock_process = self.env.process(self._rule_clock())
        elif self._rule_clock_until is not None and self._due[0][0] < self._rule_clock_until:
            process.interrupt()

    def _rule_clock(self) -> Generator[simpy.Event, Any, None]:
        while self._due:
            t, _, rule = self._due[0]
            if t > self.env.now:
                self._rule_clock_until = t
                try:
                    yield UrgentTimeout(self.env, t - int(self.env.now))
                except simpy.Interrupt:
                    continue
                finally:
                    self._rule_clock_until = None
            heapq.heappop(self._due)
            self._fire_matching(None, cause=0, only=rule)

    def _fire_matching(self, event: Event | None, *, cause: int, read: bool = False, only: Rule | None = None,
                       task_id: str | None = None) -> None:
        """Fire every armed rule the event (a call about to run if ``read``; None: the clock) activates;
        ``task_id`` is the open task's unless given (the task just ended)."""
        task_id = self.state.session.task_id if task_id is None else task_id
        for rule in (only,) if only is not None else self._rule_index.for_task(task_id):
            if activated(rule, task_id, event, read=read) and armed(rule, self.state.rules, self.task_events, task_id):
                for fired in fire(rule, self.state, self.kernel.world, self.kernel.guards, cause):
                    self._emit(fired)

    # ------------------------------------------------------------ the student

    def _student(self) -> Generator[simpy.Event, Any, None]:
        index = self.state.session.next_task
        if self.state.session.task_id:
            yield from self._play(self.cards[index])
            index += 1
        for card in self.cards[index:]:
            if card.release > self.env.now:
                yield self.env.timeout(card.release - int(self.env.now))
            self._release(card)
            yield from self._play(card)
        self._emit(RunEnded(reason=RUN_ENDED))
        log.info("term complete", seq=self.state.seq, time=label(self.state.now), tasks=len(self.cards))

    def _release(self, card: TaskCard) -> None:
        lines, time_line, withheld = release_lines(self.kernel, self.state, card, int(self.env.now))
        if card.composed:
            self._commit()  # the log so far is in the store, where composing (and any reader) reads it
        self._emit(TimeAnnounced(label=time_line))
        digest = None
        if card.composed:
            text, digest = self.schedule.compose(card.id, self._prefix(self.state.seq + 1, int(self.env.now)))
            lines.append(text)
        self._emit(TaskReleased(
            task_id=card.id, scenario=card.scenario, observation="\n".join(lines),
            systems=list(card.systems), withheld=withheld,
        ))
        if digest is not None:
            self._emit(TaskComposed(task_id=card.id, digest=digest))
            self._commit()
        self._released_at = int(self.env.now)
        if card.id in self._after_open:
            self._schedule_rules(due_after_open(self._after_open, card.id, self._released_at, self._released_at))

    def _play(self, card: TaskCard) -> Generator[simpy.Event, Any, None]:
        while True:
            reply, meta = yield from self._decide()
            action = self._record_reply(card, reply, meta)
            if isinstance(action, Answer):
                self._emit(Answered(task_id=card.id, answer=action.value))
                self._end(card, "answer")
                return
            if isinstance(action, Finish):
                self._end(card, "finish")
                return
            if isinstance(action, Invalid):
                self._emit(ActionRejected(task_id=card.id, message=action.message))
            else:
                call_id, outcome = self._call(card, action, wire=isinstance(reply, StructuredCall))
                if outcome.minutes and not self.env.skip(outcome.minutes):
                    yield self.env.timeout(outcome.minutes)
                self._emit(result_event(call_id, outcome))
                if self.paraphrase is not None and outcome.result.ok and self.kernel.spoken(action.name):
                    try:
                        said = self.paraphrase(call_id, outcome.result.message)
                    except AgentUnavailable as error:  # not the agent's: the step is not whole, and stays uncommitted
                        raise SessionError(f"the paraphrase model could not reword a reply: {error}") from error
                    if said is not None:
                        self._emit(ReplyParaphrased(task_id=card.id, call_id=call_id, text=said))
                if self.state.session.withheld:
                    self._maybe_reveal(card)
            if self.state.session.turns >= (card.round_limit or self.branch.config["round_limit"]):
                self._end(card, "round limit")
                return

    def _record_reply(self, card: TaskCard, reply: Reply | None, meta: str | None) -> Call | Answer | Finish | Invalid:
        admitted = admit(reply)
        reply = admitted.reply
        if admitted.problem is not None:
            meta = _with_meta(meta, error=admitted.problem)
        elif admitted.length is not None:
            meta = _with_meta(meta, reply_chars=admitted.length)
        if isinstance(reply, StructuredCall):
            replied = AgentReplied(task_id=card.id, call=msgspec.structs.replace(reply, name=from_wire_name(reply.name)))
        else:
            replied = AgentReplied(task_id=card.id, text=reply)
        self._emit(replied, meta)
        return action_of(replied, free_answer=card.answers == "text", rules=self.rules_version)

    def _call(self, card: TaskCard, call: Call, wire: bool) -> tuple[str, Outcome]:
        """Record the call and its facts; the result follows once the call's minutes have passed.

        ``wire``: a native function call, answered with tools named the way its caller knows them."""
        state = self.state
        call_id = f"call-{state.session.calls + 1}"
        called = ToolCalled(
            call_id=call_id, task_id=card.id, tool=call.name, args=dict(call.args), positional=list(call.positional),
        )
        self._emit(called)
        watched = bool(self.rules) and bool(self._rule_index.for_task(card.id))  # _fire_matching looks at no other rules
        if watched:
            cause = self.state.seq
            self._fire_matching(called, cause=cause, read=True)
            self._fire_matching(called, cause=cause)
        outcome = self.kernel.dispatch(
            state, task_id=card.id, name=call.name, args=call.args, positional=call.positional,
            systems=card.systems, seed=self.branch.seed, wire=wire, rules=self.rules_version,
        )
        for fact in outcome.facts:
            self._emit(fact)
            if watched:
                self._fire_matching(fact, cause=self.state.seq)
        return call_id, outcome

    def _maybe_reveal(self, card: TaskCard) -> None:
        if handed_out(card, self.kernel.locate(self.state), int(self.env.now)):
            self._emit(InstructionRevealed(task_id=card.id, text=card.instruction))

    def _end(self, card: TaskCard, reason: str) -> None:
        if card.scored:
            prefix = self._prefix(self.state.seq - len(self.task_events) + 1, self._released_at) if card.composed else None
            outcome, detail, marks = self.schedule.evaluate(card.id, self.state, self.task_events, prefix)
        else:
            outcome, detail, marks = UNSCORED[0], UNSCORED[1], {}
        told = self.schedule.feedback(card.id, marks) if card.scored else None
        if told is not None:
            self._emit(MentorFeedback(task_id=card.id, text=told))
        ended = TaskEnded(task_id=card.id, outcome=outcome, reason=reason, turns=self.state.session.turns,
                          detail=detail, marks=marks)
        self._emit(ended)
        if self._rule_index.for_task(card.id):
            self._fire_matching(ended, cause=self.state.seq, task_id=card.id)
        if self._debug_lines:
            log.debug("task ended", seq=self.state.seq, time=label(self.state.now), task=card.id, outcome=outcome,
                      reason=reason, turns=ended.turns)
        if is_persistent(self.agent):
            memory = TaskMemory(task_id=card.id, scenario=card.scenario, released=self._released_at,
                                messages=self._transcript.of(self.task_events), events=tuple(self.task_events))
            self.agent.remember(memory)  # type: ignore[attr-defined]
        self.task_events = []
        if self.on_task_end is not None:
            self.on_task_end(self.state, ended)

    def _prefix(self, release: int, t: int) -> Prefix:
        """The log before the seq ``release`` at minute ``t`` (every row before it is committed by then)."""
        if release - 1 > self._past_seq:
            rows = [row for row in self.store.rows(self.branch.id, self._past_seq + 1, release - 1)
                    if row.kind in self._log_kinds]
            decoded = decode_rows(rows)
            self._past.extend((row.seq, row.t, event) for row, event in zip(rows, decoded))
            self._past_seq = release - 1
        return Prefix([row for row in self._past if row[0] < release], release, t, self.kernel.describe,
                      self.kernel.world)

    # ------------------------------------------------------------ resume

    def _open_task(self) -> tuple[list[Event], int]:
        """The events of the task in progress and its release time, read back from the log (none between tasks)."""
        task_id = self.state.session.task_id
        if not task_id:
            return [], 0
        return task_so_far(self.store, self.branch.id, task_id, self.state.seq)


UNREADABLE = Invalid(message="Your reply could not be read. Reply with one action, for example <action>Action: finish()</action>.")


def action_of(replied: AgentReplied, *, free_answer: bool = False, rules: int = RULES_VERSION) -> Call | Answer | Finish | Invalid:
    """The one action a recorded reply stands for (``verify`` reads every reply with it too);
    ``free_answer``: the task's card asks for answers in words; ``rules``: the run's rules version (3 reads a keyword
    given twice as the full parser does on every path)."""
    if replied.call is not None:
        return parse_structured(replied.call.name, replied.call.arguments, free_answer=free_answer)
    if replied.text is None:
        return UNREADABLE
    return parse_reply(replied.text, free_answer=free_answer, strict=rules >= 3)


def release_lines(kernel: Kernel, state: Any, card: TaskCard, now: int) -> tuple[list[str], str, bool]:
    """What a task's release says before a composed part (the date and where the student is on a new day, the time,
    the instruction unless it is withheld), the time line alone (``time_announced``) and whether it is withheld: a
    function of the state before the release, which ``verify`` calls too."""
    here = kernel.locate(state)
    withheld = card.required_place is not None and bool(card.instruction) and not handed_out(card, here, now)
    lines = []
    if state.clock.day != state.clock.announced_day:
        lines.append(f"Current date: {date_label(state.clock.day)}. You are at {kernel.describe(here)}.")
    time_line = f"Current time: {label(now)}"
    lines.append(time_line)
    if card.instruction and not withheld:
        lines.append(card.instruction)
    elif withheld and card.opens is not None:
        lines.append(opens_line(card.opens))
    return lines, time_line, withheld


def handed_out(card: TaskCard, here: str, now: int) -> bool:
    """Whether a task's instruction is handed out to a student ``here`` at minute ``now``: at its place, and from the
    minute it opens (a student who arrives early waits for the start, as at a lecture)."""
    return here == card.required_place and (card.opens is None or now >= card.opens)


OPENS = "Something is due at "
"""How the line a withheld task shows while it is not handed out begins (``opens_line``)."""


def opens_line(opens: int) -> str:
    """What a task held somewhere says while withheld, wherever the student is (so it tells the time, never the
    place)."""
    return (f"{OPENS}{clock_label(opens)}: what is handed out where it is held is handed out from then on to whoever "
            "is there (calendar.wait lets time pass).")


UNSCORED: tuple[str, str, dict[str, Any]] = ("unscored", "delivery task: run, not scored", {})
"""The judgement of every task that is not scored (``TaskCard.scored``): ``(outcome, detail, marks)``."""

RUN_ENDED = "term complete"
"""The reason of the one ``run_ended`` a session writes, after the term's last task."""


def _with_meta(meta: str | None, **fields: Any) -> str:
    """``meta`` (an agent's JSON object, if any) with ``fields`` added."""
    merged: dict[str, Any] = {}
    if meta:
        try:
            decoded = msgspec.json.decode(meta)
        except msgspec.DecodeError:
            decoded = {"agent_meta": meta}
        merged = decoded if isinstance(decoded, dict) else {"agent_meta": decoded}
    return msgspec.json.encode(merged | fields).decode()

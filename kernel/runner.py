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

import time
from collections.abc import Callable, Generator
from typing import Any

import msgspec
import simpy
import structlog

from events import (
    ActionRejected,
    AgentReplied,
    Answered,
    DayStarted,
    Event,
    InstructionRevealed,
    RunEnded,
    RunStarted,
    StructuredCall,
    TaskEnded,
    TaskReleased,
    TimeAnnounced,
    ToolCalled,
    WorldChanged,
)
from kernel.agent import Agent, AgentUnavailable, AgentView, Reply, TaskMemory, is_persistent, reply_meta
from kernel.clock import DAY_START, UrgentTimeout, date_label, day_of, day_start, label
from kernel.engine import Kernel
from kernel.history import state_at
from kernel.logs import configure_default
from kernel.parse import Answer, Call, Finish, Invalid, parse_reply, parse_structured
from kernel.prompt import PROTOCOL, system_prompt
from kernel.schedule import Schedule, TaskCard
from kernel.store import EventStore, Record
from kernel.tools import Outcome, from_wire_name, result_event
from kernel.transcript import Transcript, task_memories, task_so_far

configure_default()
log = structlog.get_logger("campus.runner")

SNAPSHOT_EVERY = 2_000
"""Take a snapshot at the first commit after every this many events."""

COMMIT_DELAY = 0.005
"""Group commit: with a fast agent, steps are committed together at most this many (wall-clock)
seconds apart. Each step is still atomic (a commit always falls between steps), and the log's
content does not depend on where the commits fall; a crash loses at most this much work, which
a resume plays again. An agent slower than this (any model) gets a commit before every reply."""


def run_config(round_limit: int) -> dict[str, Any]:
    """The rules a run is played under; bound into the genesis hash."""
    return {"round_limit": round_limit, "day_start": DAY_START, "protocol": PROTOCOL, "minutes_per_call": 1}


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
    ) -> None:
        self.kernel = kernel
        self.store = store
        self.branch = store.branch(branch_id)
        self.schedule = schedule
        self.agent = agent
        self.on_task_end = on_task_end
        self.snapshot_every = snapshot_every
        self.commit_delay = commit_delay
        self._last_commit = time.perf_counter()
        self._agent_slow = True
        self.cards: list[TaskCard] = list(schedule.cards())
        self.triggers = list(schedule.triggers())
        self.state = state_at(kernel, store, branch_id)
        self.env = simpy.Environment(initial_time=self.state.now)
        self.buffer: list[Record] = []
        self.task_events, self._released_at = self._open_task()
        self.pending: simpy.Event | None = None
        self._prompts: dict[tuple[str, ...], str] = {}
        self._last_snapshot = self.state.seq
        self._student_process: simpy.Process | None = None
        self._transcript = Transcript()
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
        if self.finished:
            return self.state
        student = self._start()
        steps = 0
        while not student.triggered:
            if self.pending is not None and not self.pending.triggered:
                if max_steps is not None and steps >= max_steps:
                    break
                try:
                    self.pending.succeed(self._ask_agent())
                except AgentUnavailable:
                    self._commit()  # the session waits on a decision: every buffered step is whole
                    raise
                steps += 1
            self.env.step()
        self._commit()
        return self.state

    def _start(self) -> simpy.Process:
        if self._student_process is None:
            if self.state.seq == 0:
                self._emit(RunStarted(
                    world_hash=self.branch.world_hash,
                    term_hash=self.branch.term_hash,
                    seed=self.branch.seed,
                    config=self.branch.config,
                ))
            self._student_process = self.env.process(self._student())
            self.env.process(self._world_clock())
            log.info("session started", seq=self.state.seq, time=label(self.state.now),
                     resumed=self.state.seq > 1, tasks_done=self.state.session.next_task, tasks=len(self.cards))
        return self._student_process

    def _ask_agent(self) -> tuple[Reply | None, str | None]:
        view = self.view()
        begun = time.perf_counter()
        try:
            reply = self.agent.act(view)
            self._agent_slow = time.perf_counter() - begun >= self.commit_delay
        except AgentUnavailable:
            raise
        except Exception as error:  # an agent is untrusted: its failure is recorded, not fatal
            log.warning("agent raised", seq=self.state.seq, time=label(self.state.now), error=repr(error))
            return None, msgspec.json.encode({"error": type(error).__name__}).decode()
        if not isinstance(reply, (str, StructuredCall)):
            return None, msgspec.json.encode({"error": f"reply was a {type(reply).__name__}, not text"}).decode()
        return reply, reply_meta(self.agent)

    def view(self) -> AgentView:
        card = self.cards[self.state.session.next_task]
        return AgentView(
            task_id=card.id,
            now=self.state.now,
            prompt=self._prompt(card.systems),
            messages=self._transcript.of(self.task_events),
            tools=self.kernel.tools_for(card.systems),
        )

    def _prompt(self, systems: tuple[str, ...]) -> str:
        if systems not in self._prompts:
            self._prompts[systems] = system_prompt(self.kernel.prompt_tools(systems))
        return self._prompts[systems]

    def _recall(self) -> None:
        """Give a persistent agent every task this branch has already ended (a resume or a fork)."""
        if is_persistent(self.agent) and self.state.session.next_task:
            for memory in task_memories(self.store, self.branch.id, self.state.seq):
                self.agent.remember(memory)  # type: ignore[attr-defined]

    # ------------------------------------------------------------ events and commits

    def _emit(self, event: Event, meta: str | None = None) -> None:
        t = int(self.env.now)
        self.kernel.projection.apply(self.state, self.state.seq + 1, t, event)
        self.buffer.append((t, event, meta))
        if isinstance(event, TaskReleased):
            self.task_events = [event]
        elif self.task_events:
            self.task_events.append(event)

    def _commit(self) -> None:
        self._last_commit = time.perf_counter()
        if not self.buffer:
            return
        seq, _ = self.store.append(self.branch.id, self.buffer)
        self.buffer = []
        if seq != self.state.seq:
            raise RuntimeError(f"log head {seq} and projected state {self.state.seq} disagree")
        if seq - self._last_snapshot >= self.snapshot_every:
            self.store.put_snapshot(self.branch.id, seq, *self.kernel.projection.snapshot(self.state))
            self._last_snapshot = seq

    def _decide(self) -> Generator[simpy.Event, Any, tuple[Reply | None, str | None]]:
        if self._agent_slow or time.perf_counter() - self._last_commit >= self.commit_delay:
            self._commit()
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
        self._emit(RunEnded(reason="term complete"))
        log.info("term complete", seq=self.state.seq, time=label(self.state.now), tasks=len(self.cards))

    def _release(self, card: TaskCard) -> None:
        state = self.state
        here = self.kernel.locate(state)
        withheld = card.required_place is not None and here != card.required_place and bool(card.instruction)
        lines = []
        if state.clock.day != state.clock.announced_day:
            lines.append(f"Current date: {date_label(state.clock.day)}. You are at {self.kernel.describe(here)}.")
        time_line = f"Current time: {label(int(self.env.now))}"
        lines.append(time_line)
        if card.instruction and not withheld:
            lines.append(card.instruction)
        self._emit(TimeAnnounced(label=time_line))
        self._emit(TaskReleased(
            task_id=card.id, scenario=card.scenario, observation="\n".join(lines),
            systems=list(card.systems), withheld=withheld,
        ))
        self._released_at = int(self.env.now)

    def _play(self, card: TaskCard) -> Generator[simpy.Event, Any, None]:
        while True:
            reply, meta = yield from self._decide()
            action = self._record_reply(card, reply, meta)
            if isinstance(action, Answer):
                self._emit(Answered(task_id=card.id, answer=action.letter))
                self._end(card, "answer")
                return
            if isinstance(action, Finish):
                self._end(card, "finish")
                return
            if isinstance(action, Invalid):
                self._emit(ActionRejected(task_id=card.id, message=action.message))
            else:
                call_id, outcome = self._call(card, action)
                if outcome.minutes:
                    yield self.env.timeout(outcome.minutes)
                self._emit(result_event(call_id, outcome))
                self._maybe_reveal(card)
            if self.state.session.turns >= (card.round_limit or self.branch.config["round_limit"]):
                self._end(card, "round limit")
                return

    def _record_reply(self, card: TaskCard, reply: Reply | None, meta: str | None) -> Call | Answer | Finish | Invalid:
        if isinstance(reply, StructuredCall):
            self._emit(AgentReplied(task_id=card.id, call=reply), meta)
            return parse_structured(from_wire_name(reply.name), reply.arguments)
        self._emit(AgentReplied(task_id=card.id, text=reply), meta)
        if reply is None:
            return Invalid(message="Your reply could not be read. Reply with one action, for example <action>Action: finish()</action>.")
        return parse_reply(reply)

    def _call(self, card: TaskCard, call: Call) -> tuple[str, Outcome]:
        """Record the call and its facts; the result follows once the call's minutes have passed."""
        state = self.state
        call_id = f"call-{state.session.calls + 1}"
        self._emit(ToolCalled(
            call_id=call_id, task_id=card.id, tool=call.name, args=dict(call.args), positional=list(call.positional),
        ))
        outcome = self.kernel.dispatch(
            state, task_id=card.id, name=call.name, args=call.args, positional=call.positional,
            systems=card.systems, seed=self.branch.seed,
        )
        for fact in outcome.facts:
            self._emit(fact)
        return call_id, outcome

    def _maybe_reveal(self, card: TaskCard) -> None:
        if self.state.session.withheld and self.kernel.locate(self.state) == card.required_place:
            self._emit(InstructionRevealed(task_id=card.id, text=card.instruction))

    def _end(self, card: TaskCard, reason: str) -> None:
        if card.scored:
            outcome, detail, marks = self.schedule.evaluate(card.id, self.state, self.task_events)
        else:
            outcome, detail, marks = "unscored", "delivery task: run, not scored", {}
        ended = TaskEnded(task_id=card.id, outcome=outcome, reason=reason, turns=self.state.session.turns,
                          detail=detail, marks=marks)
        self._emit(ended)
        log.debug("task ended", seq=self.state.seq, time=label(self.state.now), task=card.id, outcome=outcome,
                  reason=reason, turns=ended.turns)
        if is_persistent(self.agent):
            memory = TaskMemory(task_id=card.id, scenario=card.scenario, released=self._released_at,
                                messages=self._transcript.of(self.task_events))
            self.agent.remember(memory)  # type: ignore[attr-defined]
        self.task_events = []
        if self.on_task_end is not None:
            self.on_task_end(self.state, ended)

    # ------------------------------------------------------------ resume

    def _open_task(self) -> tuple[list[Event], int]:
        """The events of the task in progress and its release time, read back from the log (none between tasks)."""
        task_id = self.state.session.task_id
        if not task_id:
            return [], 0
        return task_so_far(self.store, self.branch.id, task_id, self.state.seq)

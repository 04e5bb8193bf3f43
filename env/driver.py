"""One run played from outside, reply by reply, with what the student sees written out as text.

The Python ``Env`` and the MCP server both put their caller in the agent's seat: each reply is
pushed through the kernel's ``Stepper``, so it lands in the log exactly as an agent object's
reply would. What they share lives here: pushing a reply, and turning the events of that step
into the text the student now sees (tool results, rejections, a revealed instruction, the end
of a task and the opening of the next one). Task outcomes are never shown: an agent inside the
campus does not learn whether it succeeded, so an outside one does not either (``Env`` reports
them only when asked to, as reward and info, for training loops). Nor are task ids: an id
names its scenario ("library-010"), which would tell a student what a task that shows only
the time is about; a task is called by its running number in the term ("task 12").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from campus.events import (
    ActionRejected,
    Event,
    HintGiven,
    InstructionRevealed,
    MentorFeedback,
    ReplyParaphrased,
    RunEnded,
    TaskEnded,
    TaskReleased,
    ToolResult,
    WorldChanged,
)
from campus.kernel.agent import AgentView, Reply, Turn
from campus.kernel.runner import Paraphrase
from campus.kernel.schedule import TaskCard
from campus.kernel.transcript import notice, render_call
from campus.scenarios.play import Run

TERM_OVER = "The term is over: there are no more tasks."

_REASONS = {"answer": "you answered", "finish": "you finished it", "round limit": "the round limit was reached"}


class Pushed(msgspec.Struct, frozen=True, kw_only=True):
    """What one reply led to."""

    text: str
    """What the student sees now that it had not seen before the reply."""
    failed: bool
    """Whether the action itself failed (a refused call or an unreadable reply)."""
    ended: tuple[TaskEnded, ...]
    view: AgentView | None
    """The decision the run waits on now; ``None`` once the term is over."""


class Driver:
    """A run's stepper plus the text of each step. Every step is committed before ``push`` returns."""

    def __init__(self, run: Run, paraphrase: Paraphrase | None = None) -> None:
        self.run = run
        self.stepper = run.stepper(paraphrase=paraphrase)

    @property
    def branch_id(self) -> str:
        return self.run.branch.id

    @property
    def finished(self) -> bool:
        return self.stepper.finished

    def view(self) -> AgentView | None:
        return self.stepper.view()

    def head(self) -> tuple[int, str]:
        """The last seq of the run and its hash."""
        return self.run.store.head(self.branch_id)

    def now(self) -> int:
        return int(self.stepper.state.now)

    def turns(self) -> int:
        """Replies given so far in the current task."""
        return int(self.stepper.state.session.turns)

    def card(self) -> TaskCard | None:
        """The waiting task's card (how it reads ``Answer:``); ``None`` once the term is over."""
        session = self.stepper.session
        index = session.state.session.next_task
        return session.cards[index] if not self.finished and index < len(session.cards) else None

    def round_limit(self) -> int:
        session = self.stepper.session
        card = session.cards[session.state.session.next_task]
        return int(card.round_limit or self.run.branch.config["round_limit"])

    def push(self, reply: Reply) -> Pushed:
        """Give the waiting task ``reply``; raises (changing nothing) if the term is over or the reply is not a reply."""
        number = self.task_number()
        result = self.stepper.step(reply)
        if result.refused is not None:
            return Pushed(text=result.refused, failed=True, ended=(), view=result.view)
        return Pushed(text=render_events(result.events, number), failed=_failed(result.events), ended=result.ended, view=result.view)

    def task_number(self) -> int:
        """The running number of the waiting task in the term (1 for the first); what the student calls it."""
        return int(self.stepper.state.session.next_task) + 1

    def opening(self) -> str:
        """The current task as the student sees it now, headed like a task that starts during a step."""
        view = self.view()
        if view is None:
            return TERM_OVER
        return f"New task (task {self.task_number()}):\n" + conversation(view.messages)


def render_events(events: Iterable[Event], number: int) -> str:
    """The text of one step's events, in the order they happened; ``number`` is the running number of the
    task the step began in."""
    parts: list[str] = []
    for event in events:
        if isinstance(event, (ToolResult, ActionRejected)):
            parts.append(event.message)
        elif isinstance(event, (InstructionRevealed, MentorFeedback, HintGiven)):
            parts.append(event.text)
        elif isinstance(event, WorldChanged) and (told := notice(event.change)) is not None:
            parts.append(told)
        elif isinstance(event, ReplyParaphrased):
            parts[-1] = event.text  # in place of the call's result, which it follows at once
        elif isinstance(event, TaskEnded):
            parts.append(f"Task {number} is over ({_REASONS.get(event.reason, event.reason)}).")
        elif isinstance(event, TaskReleased):
            number += 1
            parts.append(f"New task (task {number}):\n{event.observation}")
        elif isinstance(event, RunEnded):
            parts.append(TERM_OVER)
    return "\n\n".join(parts)


def conversation(messages: Sequence[Turn], you: str = "> You: ") -> str:
    """A task's chat as plain text: the campus's messages as they are, the student's own prefixed
    (a function call under its wire name, the name the caller called it by)."""
    return "\n\n".join(turn.content if turn.role == "user" else you + _said(turn) for turn in messages)


def _said(turn: Turn) -> str:
    return turn.content if turn.call is None else render_call(turn.call, wire=True)


def _failed(events: Sequence[Event]) -> bool:
    return any(isinstance(e, ActionRejected) or (isinstance(e, ToolResult) and e.status != "ok") for e in events)

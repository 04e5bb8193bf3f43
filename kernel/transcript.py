"""A task's conversation as the agent saw it, rebuilt from its events.

The runner keeps the current task's chat up to date turn by turn; a persistent agent is
given every ended task's chat, and on resume or fork those chats are read back from the log.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from campus.events import (
    ActionRejected,
    AgentReplied,
    Announcement,
    ErrandPosted,
    Event,
    HintGiven,
    InstructionRevealed,
    MentorFeedback,
    ReplyParaphrased,
    StructuredCall,
    TaskReleased,
    ToolResult,
    WorldChanged,
    WorldChange,
)
from campus.kernel.agent import TaskMemory, Turn
from campus.kernel.clock import clock_label
from campus.kernel.store import EventStore, decode_rows
from campus.kernel.tasks import iter_tasks
from campus.kernel.tools import wire_name

CONVERSATION_KINDS = frozenset({
    "task_released", "agent_replied", "tool_result", "action_rejected", "instruction_revealed", "task_ended",
    "world_changed", "mentor_feedback", "hint_given", "reply_paraphrased",
})
"""The kinds a task's chat is built from (``add_turn``), for readers that need only the conversation."""

def notice(change: WorldChange) -> str | None:
    """What the student is told when a world change reaches it inside a task (most changes are silent)."""
    if isinstance(change, ErrandPosted):
        return (f"New errand [{change.errand_id}] ({change.priority} priority, due {clock_label(change.deadline)}): "
                f"{change.title}: {change.text}")
    if isinstance(change, Announcement):
        return change.text
    return None


_CONVERSED = frozenset({TaskReleased, AgentReplied, ToolResult, ActionRejected, InstructionRevealed, MentorFeedback, HintGiven,
                        WorldChanged, ReplyParaphrased})
"""The event types ``add_turn`` reads (no event type is subclassed); about half a task's events are none of them."""


def add_turn(turns: list[Turn], event: Event) -> None:
    """Extend the task's chat as the agent saw it; consecutive messages of one side are merged."""
    if type(event) not in _CONVERSED:
        return
    if isinstance(event, TaskReleased):
        turn = Turn("user", event.observation)
    elif isinstance(event, AgentReplied):
        turn = Turn("assistant", event.text if event.text is not None else render_call(event.call), event.call)
    elif isinstance(event, (ToolResult, ActionRejected)):
        turn = Turn("user", event.message)
    elif isinstance(event, (InstructionRevealed, MentorFeedback, HintGiven)):
        turn = Turn("user", event.text)
    elif isinstance(event, WorldChanged) and (told := notice(event.change)) is not None:
        turn = Turn("user", told)
    elif isinstance(event, ReplyParaphrased):
        before, _, _ = turns[-1].content.rpartition("\n\n")  # the call's result, one paragraph, ends the turn
        turns[-1] = Turn("user", f"{before}\n\n{event.text}" if before else event.text)
        return
    else:
        return
    if turns and turns[-1].role == turn.role and turns[-1].call is None and turn.call is None:
        turns[-1] = Turn(turn.role, turns[-1].content + "\n\n" + turn.content)
    else:
        turns.append(turn)


class Transcript:
    """``add_turn`` applied incrementally, so a view is not rebuilt from scratch every turn."""

    def __init__(self) -> None:
        self.events: list[Event] | None = None
        self.seen = 0
        self.turns: list[Turn] = []

    def of(self, events: list[Event], upto: int | None = None) -> tuple[Turn, ...]:
        """The chat of ``events`` (of its first ``upto``, a length it had earlier)."""
        upto = len(events) if upto is None else upto
        if events is not self.events or upto < self.seen:
            self.events, self.seen, self.turns = events, 0, []
        for event in events[self.seen : upto]:
            add_turn(self.turns, event)
        self.seen = upto
        return tuple(self.turns)


_SORTED = msgspec.json.Encoder(order="sorted")


def render_call(call: StructuredCall | None, wire: bool = False) -> str:
    """A structured call as text, with its arguments in sorted order: the order the log keeps,
    so a resumed or forked conversation reads exactly like the live one. ``wire`` names the
    function by its wire name, the way a caller of native functions knows it."""
    if call is None:
        return ""
    return f"{wire_name(call.name) if wire else call.name}({_SORTED.encode(call.arguments).decode()})"


def task_so_far(store: EventStore, branch_id: str, task_id: str, upto: int) -> tuple[list[Event], int]:
    """The events of ``task_id`` from its release to seq ``upto``, and its release time.

    Read backwards in growing windows: a task is usually a few dozen events long.
    """
    window = 256
    while True:
        start = max(1, upto - window + 1)
        rows = store.rows(branch_id, start, upto)
        events = decode_rows(rows)
        for i in range(len(events) - 1, -1, -1):
            event = events[i]
            if isinstance(event, TaskReleased) and event.task_id == task_id:
                return events[i:], rows[i].t
        if start == 1:
            raise RuntimeError(f"task {task_id} is open but its release is not in the log")
        window *= 4


def task_memories(store: EventStore, branch_id: str, stop: int) -> Iterator[TaskMemory]:
    """Every task that ended at or before ``stop``, in order, as its agent saw it."""
    for task in iter_tasks(store, branch_id, stop):
        if task.ended is None:
            continue
        turns: list[Turn] = []
        for _, _, event in task.events:
            add_turn(turns, event)
        yield TaskMemory(task_id=task.task_id, scenario=task.released.scenario, released=task.events[0][1],
                         messages=tuple(turns), events=tuple(event for _, _, event in task.events))

"""The chat a task's events make (``add_turn``): its fast skip of the events no turn is made of, against the full
chain of type tests it skips."""

from __future__ import annotations

from campus.events import (ActionRejected, AgentReplied, Event, HintGiven, InstructionRevealed, MentorFeedback,
                           ReplyParaphrased, TaskEnded, TaskReleased, ToolResult, WorldChanged, decode_events)
from campus.kernel.agent import Turn
from campus.kernel.transcript import add_turn, notice, render_call


def _add_turn_by_chain(turns: list[Turn], event: Event) -> None:
    """``add_turn`` as it was before the skip: every event through the whole chain of type tests."""
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
        before, _, _ = turns[-1].content.rpartition("\n\n")
        turns[-1] = Turn("user", f"{before}\n\n{event.text}" if before else event.text)
        return
    else:
        return
    if turns and turns[-1].role == turn.role and turns[-1].call is None and turn.call is None:
        turns[-1] = Turn(turn.role, turns[-1].content + "\n\n" + turn.content)
    else:
        turns.append(turn)


def test_every_task_s_chat_in_the_oracle_s_term_is_the_one_the_whole_chain_makes(oracle_full) -> None:
    events = decode_events([row.payload for row in oracle_full.store.rows(oracle_full.branch.id)])
    fast: list[Turn] = []
    slow: list[Turn] = []
    tasks = kinds = 0
    for event in events:
        if type(event) is TaskReleased:
            fast, slow = [], []
        add_turn(fast, event)
        _add_turn_by_chain(slow, event)
        assert fast == slow
        if type(event) is TaskEnded:
            tasks += 1
        kinds += type(event) is WorldChanged and notice(event.change) is not None
    assert tasks > 1_000 and kinds > 0

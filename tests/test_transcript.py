"""The chat a task's events make (``add_turn``): its fast skip of the events no turn is made of, against the full
chain of type tests it skips."""

from __future__ import annotations

import pytest

from campus.events import KINDS, Event, TaskEnded, TaskReleased, WorldChanged, decode_events
from campus.kernel import transcript
from campus.kernel.agent import Turn
from campus.kernel.transcript import add_turn, notice


def _chats(events: list[Event]) -> list[list[Turn]]:
    chats: list[list[Turn]] = []
    for event in events:
        if type(event) is TaskReleased:
            chats.append([])
        if chats:
            add_turn(chats[-1], event)
    return chats


def test_every_task_s_chat_in_the_oracle_s_term_is_the_one_the_whole_chain_makes(oracle_full, monkeypatch: pytest.MonkeyPatch) -> None:
    events = decode_events([row.payload for row in oracle_full.store.rows(oracle_full.branch.id)])
    fast = _chats(events)
    monkeypatch.setattr(transcript, "_CONVERSED", frozenset(KINDS.values()))  # every event through every type test
    assert _chats(events) == fast
    assert sum(type(event) is TaskEnded for event in events) > 1_000
    assert any(type(event) is WorldChanged and notice(event.change) is not None for event in events)
    assert sum(len(chat) for chat in fast) > 2 * len(fast)

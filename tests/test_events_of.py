"""``events_of``: one kind's events of a branch, read in one pass."""

from __future__ import annotations

from campus.events import DayStarted, TimeAnnounced
from campus.kernel.store import BranchInfo, EventStore
from campus.kernel.tasks import events_of


def test_one_kinds_events_of_a_fork_up_to_a_seq(store: EventStore) -> None:
    store.create_branch(BranchInfo(id="main", parent=None, fork_seq=0, genesis="g" * 64, agent="test", world_hash="w", term_hash="t"))
    store.append("main", [(i, DayStarted(day=i, home="B1") if i % 3 == 0 else TimeAnnounced(label=str(i)), None)
                          for i in range(12)])
    store.fork("main", 7, "child", agent="other")
    store.append("child", [(50, DayStarted(day=50, home="B1"), None)])
    assert [e.day for e in events_of(store, "child", DayStarted)] == [0, 3, 6, 50]
    assert [e.day for e in events_of(store, "main", DayStarted, upto=7)] == [0, 3, 6]


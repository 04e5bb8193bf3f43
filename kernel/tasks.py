"""A branch read task by task: each task's events from its release to its end, in log order."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import TypeVar, cast

from campus.events import Event, TaskEnded, TaskReleased, decode_events
from campus.kernel.store import EventStore, Row, decode_rows

BATCH = 20_000

E = TypeVar("E", bound=Event)


def events_of(store: EventStore, branch_id: str, kind: type[E], upto: int | None = None) -> list[E]:
    """Every event of one kind on a branch up to seq ``upto`` (default: the head), in order."""
    stop = store.head(branch_id)[0] if upto is None else upto
    tag = kind.__struct_config__.tag
    assert isinstance(tag, str)
    payloads = [payload for batch in store.scan(branch_id, 1, stop, (tag,)) for _, payload in batch if payload is not None]
    return cast(list[E], decode_events(payloads))


def row_batches(store: EventStore, branch_id: str, stop: int | None = None, batch: int = BATCH) -> Iterator[list[Row]]:
    """A branch's rows up to seq ``stop`` (default: the head) in batches of ``batch``, so memory does not grow with the log."""
    last = store.head(branch_id)[0] if stop is None else stop
    for first in range(1, last + 1, batch):
        yield store.rows(branch_id, first, min(last, first + batch - 1))


@dataclass
class TaskSlice:
    released: TaskReleased
    events: list[tuple[int, int, Event]] = field(default_factory=list)
    """``(seq, t, event)`` from the release on (the release first, the end last if it ended)."""
    ended: TaskEnded | None = None

    @property
    def task_id(self) -> str:
        return self.released.task_id


def iter_tasks(store: EventStore, branch_id: str, upto: int | None = None, *,
               kinds: Collection[str] | None = None) -> Iterator[TaskSlice]:
    """Every task released at or before seq ``upto`` (default: the head), in order.

    A task still open at ``upto`` comes last, with ``ended`` None. ``kinds`` keeps only those
    event kinds (``task_released`` and ``task_ended`` are needed to cut the tasks), and only
    they are decoded. Events outside any task are skipped.
    """
    current: TaskSlice | None = None
    for rows in row_batches(store, branch_id, upto):
        if kinds is not None:
            rows = [row for row in rows if row.kind in kinds]
        for row, event in zip(rows, decode_rows(rows)):
            if isinstance(event, TaskReleased):
                current = TaskSlice(event)
            if current is None:
                continue
            current.events.append((row.seq, row.t, event))
            if isinstance(event, TaskEnded):
                current.ended = event
                yield current
                current = None
    if current is not None:
        yield current

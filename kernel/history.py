"""Reading the past: the projected state of a branch at any seq or simulated time."""

from __future__ import annotations

from typing import Any

from kernel.engine import Kernel
from kernel.store import EventStore


def state_at(kernel: Kernel, store: EventStore, branch_id: str, seq: int | None = None) -> Any:
    """The state after event ``seq`` (default: the head): nearest snapshot, then fold the tail."""
    head, _ = store.head(branch_id)
    target = head if seq is None else max(0, min(seq, head))
    projection = kernel.projection
    snapshot = store.snapshot_at_or_before(branch_id, target)
    if snapshot is None:
        state, start = projection.initial(), 1
    else:
        state, start = projection.decode(snapshot.state), snapshot.seq + 1
    if start <= target:
        projection.fold_range(state, store, branch_id, start, target)
    return state


def full_fold(kernel: Kernel, store: EventStore, branch_id: str, seq: int | None = None) -> Any:
    """The same state folded from the first event, ignoring snapshots (what they must agree with)."""
    head, _ = store.head(branch_id)
    target = head if seq is None else max(0, min(seq, head))
    state = kernel.projection.initial()
    if target:
        kernel.projection.fold_range(state, store, branch_id, 1, target)
    return state

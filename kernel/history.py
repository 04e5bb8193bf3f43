"""Reading the past: the projected state of a branch at any seq or simulated time."""

from __future__ import annotations

from typing import Any

import msgspec
import structlog

from campus.events import digest
from campus.kernel.engine import Kernel
from campus.kernel.projection import Projection, gc_paused
from campus.kernel.snapshots import decode_manifest, load
from campus.kernel.store import EventStore, Snapshot

log = structlog.get_logger("campus.history")


def state_at(kernel: Kernel, store: EventStore, branch_id: str, seq: int | None = None) -> Any:
    """The state after event ``seq`` (default: the head): nearest snapshot, then fold the tail."""
    head, _ = store.head(branch_id)
    target = head if seq is None else max(0, min(seq, head))
    projection = kernel.projection
    state, start = projection.initial(), 1
    below = target
    while below > 0:
        snapshot = store.snapshot_at_or_before(branch_id, below, raw=True)
        if snapshot is None:
            break
        decoded = restore(projection, store, snapshot)
        if decoded is not None:
            state, start = decoded, snapshot.seq + 1
            break
        log.warning("snapshot ignored: its bytes do not match their hashes or today's state shape", run=branch_id, seq=snapshot.seq)
        below = snapshot.seq - 1
    if start <= target:
        projection.fold_range(state, store, branch_id, start, target)
    return state


def restore(projection: Projection, store: EventStore, snapshot: Snapshot) -> Any:
    """The state of a snapshot as stored (``raw``), or ``None`` if its bytes (or a piece's) do not hash to their hash or
    do not decode (a snapshot written before a schema change has an older state shape).

    A snapshot whose bytes were forged with their hash recomputed decodes here; ``verify``
    compares every snapshot with the folded log and names it."""
    manifest = decode_manifest(snapshot.state)
    if manifest is not None:
        with gc_paused():
            return load(manifest, store.snapshot_pieces, projection.decode, projection.shared_fields, projection.pieces)
    if digest(snapshot.state) != snapshot.state_hash:
        return None
    try:
        return projection.decode(snapshot.state)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def full_fold(kernel: Kernel, store: EventStore, branch_id: str, seq: int | None = None) -> Any:
    """The same state folded from the first event, ignoring snapshots (what they must agree with)."""
    head, _ = store.head(branch_id)
    target = head if seq is None else max(0, min(seq, head))
    state = kernel.projection.initial()
    if target:
        kernel.projection.fold_range(state, store, branch_id, 1, target)
    return state

"""Diff: where two runs parted ways, which task outcomes flipped, and how their worlds differ.

Runs on the same world, term and seed share a genesis, and their chains stay equal until
the first event that differs (usually an agent reply), so the first divergence is a binary
search over ``hash_at`` — O(log n) indexed reads, whatever the length of the runs.
"""

from __future__ import annotations

from typing import Any

import msgspec

from events import to_plain
from kernel.clock import label
from kernel.history import state_at
from kernel.store import EventStore
from scenarios.play import Run

_SKIP_PARTS = ("seq", "now")


def first_divergence(store: EventStore, a: str, b: str) -> int | None:
    """The first seq at which branches ``a`` and ``b`` differ, or None if they are identical."""
    head_a, head_b = store.head(a)[0], store.head(b)[0]
    common = min(head_a, head_b)
    if store.hash_at(a, common) == store.hash_at(b, common):
        return None if head_a == head_b else common + 1
    if store.hash_at(a, 0) != store.hash_at(b, 0):
        return 1
    low, high = 0, common  # equal at low, different at high
    while high - low > 1:
        middle = (low + high) // 2
        if store.hash_at(a, middle) == store.hash_at(b, middle):
            low = middle
        else:
            high = middle
    return high


def _event_at(run: Run, seq: int) -> dict[str, Any] | None:
    rows = run.store.rows(run.branch.id, seq, seq)
    if not rows:
        return None
    row = rows[0]
    return {"kind": row.kind, "t": row.t, "time": label(row.t), "event": msgspec.json.decode(row.payload)}


def outcome_flips(a: Run, b: Run) -> list[dict[str, Any]]:
    outcomes_a = {e.task_id: e.outcome for e in a.ended_tasks()}
    outcomes_b = {e.task_id: e.outcome for e in b.ended_tasks()}
    flips = []
    for task_id in sorted(outcomes_a.keys() | outcomes_b.keys()):
        left, right = outcomes_a.get(task_id), outcomes_b.get(task_id)
        if left != right:
            flips.append({"task_id": task_id, "a": left, "b": right})
    return flips


def state_diff(a: Run, b: Run) -> dict[str, dict[str, Any]]:
    """Per domain: records added in b, removed from a, and changed between them."""
    state_a = state_at(a.kernel, a.store, a.branch.id)
    state_b = state_at(b.kernel, b.store, b.branch.id)
    out: dict[str, dict[str, Any]] = {}
    for domain in a.kernel.domains:
        left = _records(to_plain(getattr(state_a, domain.name)))
        right = _records(to_plain(getattr(state_b, domain.name)))
        out[domain.name] = {
            "added": {k: right[k] for k in sorted(right.keys() - left.keys())},
            "removed": {k: left[k] for k in sorted(left.keys() - right.keys())},
            "changed": {k: {"a": left[k], "b": right[k]} for k in sorted(left.keys() & right.keys()) if left[k] != right[k]},
        }
    return out


def _records(value: Any, prefix: str = "") -> dict[str, Any]:
    """Flatten a state part into addressable records: nested maps by key, id-bearing lists by id."""
    if isinstance(value, dict) and (not prefix or all(isinstance(v, dict) for v in value.values())):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(_records(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        id_key = next((k for k in value[0] if k.endswith("_id")), None)
        if id_key is not None:
            return {f"{prefix}.{item.get(id_key)}": item for item in value}
    return {prefix: value}


def diff_runs(a: Run, b: Run) -> dict[str, Any]:
    seq = first_divergence(a.store, a.branch.id, b.branch.id)
    divergence = None
    if seq is not None:
        left, right = _event_at(a, seq), _event_at(b, seq)
        t = (left or right or {}).get("t")
        divergence = {"seq": seq, "t": t, "time": label(t) if t is not None else None, "a": left, "b": right}
    return {
        "a": a.branch.id,
        "b": b.branch.id,
        "identical": seq is None,
        "first_divergence": divergence,
        "outcome_flips": outcome_flips(a, b),
        "state_diff": state_diff(a, b),
    }

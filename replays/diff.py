"""Diff: where two runs parted ways, which task outcomes flipped, and how their worlds differ.

Runs of one agent on the same world, term and seed share a genesis, and their chains stay
equal until the first event that differs (usually an agent reply), so the first divergence is
a binary search over ``hash_at`` — O(log n) indexed reads, whatever the length of the runs.
Chains bound to different agents differ in every hash from the binding on, so from the first
differing hash the events themselves are compared, up to the first that differs.

Whether a difference is more than noise: two runs of one term are paired task by task, so
the success-rate difference is judged by an exact McNemar test on the tasks only one side
solved (under "no difference", each such task is equally likely to favour either side).
With repeated runs or seeds, ``campus sweep`` gives confidence intervals instead.
"""

from __future__ import annotations

from typing import Any

from campus.events import (
    AdvisorAvailability,
    Booked,
    CalendarEntry,
    CalendarEventAdded,
    CalendarEventUpdated,
    Event,
    SeatAvailability,
    Walked,
    WorldChanged,
    decode_events,
    to_plain,
)
from campus.kernel.clock import clock_label, date_label, day_of, label, span_label, time_label
from campus.kernel.history import state_at
from campus.kernel.store import EventStore
from campus.kernel.tasks import events_of
from campus.kernel.transcript import add_turn, task_so_far
from campus.replays.detectors import DETECTORS, tally_branch
from campus.replays.hints import hint_unlocks
from campus.scenarios.play import Run
from campus.scenarios.abilities import ABILITIES
from campus.scenarios.probes import PROBE_TASK
from campus.scenarios.scorecard import scorecard

NOISE_LEVEL = 0.05
"""Two-sided significance level below which a difference is reported as exceeding the noise."""

AFTER_DIVERGENCE = 4
"""Events shown on each side from the first divergence on."""

SEEN_CHARS = 1_500


def first_divergence(store: EventStore, a: str, b: str) -> int | None:
    """The first seq at which the events of branches ``a`` and ``b`` differ (in time or payload), or
    None if they hold the same events."""
    head_a, head_b = store.head(a)[0], store.head(b)[0]
    common = min(head_a, head_b)
    if store.hash_at(a, common) == store.hash_at(b, common):
        return None if head_a == head_b else common + 1
    seq = _first_event_difference(store, a, b, _first_hash_difference(store, a, b, common), common)
    return seq if seq is not None or head_a == head_b else common + 1


def _first_hash_difference(store: EventStore, a: str, b: str, common: int) -> int:
    """A binary search: chains equal at a seq are equal up to it."""
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


def _first_event_difference(store: EventStore, a: str, b: str, start: int, stop: int) -> int | None:
    """From ``start``, the first seq whose events differ: chains bound to different agents (in their
    genesis, or where a fork changed agent) differ in every hash from there, while their events may agree
    for a while — two agents' runs of one seed hold the same releases until the first differing reply."""
    window = 64
    while start <= stop:
        end = min(stop, start + window - 1)
        for mine, theirs in zip(store.rows(a, start, end), store.rows(b, start, end)):
            if (mine.t, mine.payload) != (theirs.t, theirs.payload):
                return mine.seq
        start, window = end + 1, window * 4
    return None


def _events_from(run: Run, seq: int, count: int) -> list[dict[str, Any]]:
    rows = run.store.rows(run.branch.id, seq, seq + count - 1)
    shown = []
    for row, event in zip(rows, decode_events([row.payload for row in rows])):
        record = {"seq": row.seq, "kind": row.kind, "t": row.t, "time": label(row.t), "event": to_plain(event)}
        labels = time_labels(event)
        if labels:
            record["labels"] = labels
        shown.append(record)
    return shown


def time_labels(event: Event) -> dict[str, str]:
    """The times a fact holds as numbers, as the agent was shown them (``Week 4, Saturday``, ``14:00-16:00``)."""
    match event:
        case Booked():
            return {"date": date_label(event.day), "time_slot": f"{clock_label(event.start)}-{clock_label(event.end)}"}
        case CalendarEventAdded():
            return {"time": time_label(event.time)}
        case CalendarEventUpdated() if event.changes.time is not None:
            return {"time": time_label(event.changes.time)}
        case WorldChanged(change=SeatAvailability() as change):
            return {"date": date_label(change.day)}
        case WorldChanged(change=AdvisorAvailability() as change):
            return {"date": date_label(change.day), "slots": ", ".join(span_label(slot) for slot in change.slots)}
        case WorldChanged(change=CalendarEntry() as change):
            return {"time": time_label(change.time)}
    return {}


def last_seen(run: Run, seq: int) -> dict[str, Any] | None:
    """The task in progress just before ``seq`` and the last message its agent was shown."""
    task_id = state_at(run.kernel, run.store, run.branch.id, seq - 1).session.task_id if seq > 1 else ""
    if not task_id:
        return None
    events, _ = task_so_far(run.store, run.branch.id, task_id, seq - 1)
    turns: list[Any] = []
    for event in events:
        add_turn(turns, event)
    shown = next((turn.content for turn in reversed(turns) if turn.role == "user"), "")
    return {"task_id": task_id, "turns_before": sum(turn.role == "assistant" for turn in turns),
            "last_message": shown[-SEEN_CHARS:]}


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


def walks_diff(a: Run, b: Run) -> dict[str, Any]:
    """The student's location history, day by day: the buildings passed through, in order."""
    left, right = _days_walked(a), _days_walked(b)
    return {
        "added": {date_label(d): right[d] for d in sorted(right.keys() - left.keys())},
        "removed": {date_label(d): left[d] for d in sorted(left.keys() - right.keys())},
        "changed": {date_label(d): {"a": left[d], "b": right[d]} for d in sorted(left.keys() & right.keys()) if left[d] != right[d]},
    }


def _days_walked(run: Run) -> dict[int, list[str]]:
    days: dict[int, list[str]] = {}
    for walk in events_of(run.store, run.branch.id, Walked):
        trail = days.setdefault(day_of(walk.depart), [])
        trail.extend(walk.path[1:] if trail and trail[-1] == walk.path[0] else walk.path)
    return days


def metric_deltas(card_a: dict[str, Any], card_b: dict[str, Any]) -> dict[str, Any]:
    """Each headline metric on both sides and ``b - a`` (``None`` where a side has no value)."""

    def row(x: float | None, y: float | None) -> dict[str, Any]:
        return {"a": x, "b": y, "delta": None if x is None or y is None else round(y - x, 6)}

    scenarios = sorted(card_a["by_scenario"].keys() | card_b["by_scenario"].keys())
    return {
        "stugpa": row(card_a["stugpa"]["total"], card_b["stugpa"]["total"]),
        "ltrr": row(card_a["ltrr"], card_b["ltrr"]),
        "pis": row(card_a["pis"], card_b["pis"]),
        "success_rate": row(card_a["total"]["success_rate"], card_b["total"]["success_rate"]),
        "avg_turns": row(card_a["avg_turns"], card_b["avg_turns"]),
        "by_scenario": {name: row(card_a["by_scenario"].get(name, {}).get("success_rate"),
                                  card_b["by_scenario"].get(name, {}).get("success_rate")) for name in scenarios},
    } | _mps_deltas(card_a.get("mps"), card_b.get("mps"), row)


def _mps_deltas(a: dict[str, Any] | None, b: dict[str, Any] | None, row: Any) -> dict[str, Any]:
    """The memory-probe score and each ability's, when either side asked probes."""
    if a is None and b is None:
        return {}
    abilities_a, abilities_b = (a or {}).get("abilities", {}), (b or {}).get("abilities", {})
    names = list(dict.fromkeys([*abilities_a, *abilities_b]))
    return {"mps": row((a or {}).get("overall"), (b or {}).get("overall")),
            "mps_abilities": {name: row(abilities_a.get(name), abilities_b.get(name)) for name in names}}


def probe_pairs(a: Run, b: Run) -> dict[str, dict[str, Any]]:
    """Per ability, the probes both runs were asked (the same probe set: same parent, same point),
    paired by task: how many only each side answered in full, and the exact McNemar p-value."""
    def full_marks(run: Run) -> dict[str, bool]:
        return {e.task_id: e.marks.get("probe_permille", 0) == 1000 for e in run.ended_tasks()
                if e.task_id.startswith(PROBE_TASK)}

    left, right = full_marks(a), full_marks(b)
    out: dict[str, dict[str, Any]] = {}
    for task_id in sorted(left.keys() & right.keys()):
        ability = a.term.by_id[task_id].ground_truth["probe"]["ability"]
        cell = out.setdefault(ability, {"paired": 0, "only_a": 0, "only_b": 0})
        cell["paired"] += 1
        cell["only_a"] += left[task_id] and not right[task_id]
        cell["only_b"] += right[task_id] and not left[task_id]
    for cell in out.values():
        cell["p_value"] = mcnemar_exact(cell["only_a"], cell["only_b"])
    return {name: out[name] for name in ABILITIES if name in out}


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: the exact binomial test of ``only_a`` vs ``only_b`` at p = 1/2, which (the
    distribution being symmetric) is twice the smaller tail. Summed in integers and divided once, so correctly rounded;
    ``scipy.stats.binomtest`` gives the same to 1e-12 (tested), but importing scipy took 40 % of the CPU of a ``campus diff``."""
    n, fewer = only_a + only_b, min(only_a, only_b)
    if 2 * fewer + 1 >= n:  # the two tails hold every outcome
        return 1.0
    term = tail = 1
    for i in range(fewer):
        term = term * (n - i) // (i + 1)  # C(n, i + 1)
        tail += term
    return 2 * tail / 2**n


def noise_check(a: Run, b: Run) -> dict[str, Any]:
    """Is the success-rate difference more than chance? Paired over the tasks both runs scored."""
    outcome_a = {e.task_id: e.outcome for e in a.ended_tasks() if e.outcome != "unscored"}
    outcome_b = {e.task_id: e.outcome for e in b.ended_tasks() if e.outcome != "unscored"}
    shared = outcome_a.keys() & outcome_b.keys()
    only_a = sum(outcome_a[t] == "success" and outcome_b[t] != "success" for t in shared)
    only_b = sum(outcome_b[t] == "success" and outcome_a[t] != "success" for t in shared)
    p_value = mcnemar_exact(only_a, only_b)
    return {"method": "exact McNemar test on paired task outcomes", "paired_tasks": len(shared),
            "solved_only_by_a": only_a, "solved_only_by_b": only_b, "p_value": p_value,
            "exceeds_noise": p_value < NOISE_LEVEL}


def mismatches(a: Run, b: Run) -> list[str]:
    """What keeps two runs from pairing task by task: a different world, term (and so seed or scale) or rules."""
    found = []
    if a.world.hash != b.world.hash:
        found.append(f"world {a.world.world.name} ({a.world.hash[:12]}) vs {b.world.world.name} ({b.world.hash[:12]})")
    if a.term.hash != b.term.hash:
        found.append(f"term {a.term.name} ({a.term.hash[:12]}) vs {b.term.name} ({b.term.hash[:12]})")
    if a.branch.config != b.branch.config:
        keys = sorted(k for k in a.branch.config.keys() | b.branch.config.keys()
                      if a.branch.config.get(k) != b.branch.config.get(k))
        found.append("rules " + ", ".join(f"{k} {a.branch.config.get(k)!r} vs {b.branch.config.get(k)!r}" for k in keys))
    return found


def diff_runs(a: Run, b: Run) -> dict[str, Any]:
    seq = first_divergence(a.store, a.branch.id, b.branch.id)
    divergence = None
    if seq is not None:
        left, right = _events_from(a, seq, AFTER_DIVERGENCE), _events_from(b, seq, AFTER_DIVERGENCE)
        t = (left or right or [{}])[0].get("t")
        divergence = {
            "seq": seq, "t": t, "time": label(t) if t is not None else None,
            "seen": last_seen(a, seq),
            "a": left[0] if left else None, "b": right[0] if right else None,
            "a_then": left, "b_then": right,
        }
    return {
        "a": a.branch.id,
        "b": b.branch.id,
        "identical": seq is None,
        "first_divergence": divergence,
        "outcome_flips": outcome_flips(a, b),
        "metrics": metric_deltas(scorecard(a.term, a.ended_tasks()), scorecard(b.term, b.ended_tasks())),
        "noise": noise_check(a, b),
        "errors": error_deltas(a, b),
        "state_diff": state_diff(a, b) | {"walks": walks_diff(a, b)},
    } | ({"probes": pairs} if (pairs := probe_pairs(a, b)) else {}) | ({"hints": hints} if (hints := hint_unlocks(a, b)) else {})


def error_deltas(a: Run, b: Run) -> dict[str, dict[str, int]]:
    """Per detector: the tasks it flags in each run, and the difference."""
    left, right = tally_branch(a.store, a.branch.id), tally_branch(b.store, b.branch.id)
    return {name: {"a": left.detectors[name]["tasks"], "b": right.detectors[name]["tasks"],
                   "delta": right.detectors[name]["tasks"] - left.detectors[name]["tasks"]} for name in DETECTORS}

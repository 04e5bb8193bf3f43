"""Error-mode detectors over one task's events (STT-Arena's modes, counted from the log).

Each is a pure function of ``(seq, event)`` pairs in log order and returns its findings:

- **stale_state**: the agent acts on an entity a trigger changed without having looked at it
  since. Either a write names an entity changed before the write was dispatched and not read
  since (``write_after_change``), or a write's entity changes after it and the task ends with
  no read of it since (``unchecked_after_write``). A change fired by the call itself (a read
  trigger) counts as before it.
- **blind_retry**: ``n`` calls with the same tool and arguments that all failed.
- **unverified**: missing post-adaptation verification. A recovery booking (a write made after a
  trigger changed something in the task and the agent looked again) whose room on its date no
  later read shows.
- **misdiagnosis**: the agent blames or repairs the wrong thing. A ``task.report_infeasible``
  whose ``blocked_by`` names none of the entities the task's triggers changed, or recovery
  writes of which none touches an entity of a class the triggers changed (a walkway closed, the
  map read, and only bookings made, say).

Entities are keyed as ``kernel.triggers.entity`` keys them: a seat id, ``building|room|date``
for a room, ``a~b`` for a walkway. What a call names and what a read shows are read from its
arguments alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import msgspec

from campus.events import (
    Event,
    RoomHours,
    RoomStatus,
    SeatFeatures,
    FeatureLost,
    InfeasibleReported,
    TaskEnded,
    ToolCalled,
    ToolResult,
    WalkwayStatus,
    WorldChanged,
    canonical,
    walkway_key,
)
from campus.kernel.store import EventStore
from campus.kernel.tasks import iter_tasks
from campus.kernel.triggers import entities

Detector = Literal["stale_state", "blind_retry", "unverified", "misdiagnosis"]
DETECTORS: tuple[Detector, ...] = Detector.__args__  # type: ignore[attr-defined]
StaleKind = Literal["write_after_change", "unchecked_after_write", "blocked_by", "recovery", ""]


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    detector: Detector
    seq: int
    """The call the finding is about."""
    entity: str = ""
    kind: StaleKind = ""


TRIGGER_CHANGES = (RoomStatus, RoomHours, SeatFeatures, FeatureLost, WalkwayStatus)
Logged = Sequence[tuple[int, Event]]

_SEAT = re.compile(r"\bB\d{3}-[^\s,;.\"']+?-S\d+\b")
_ROOM = re.compile(r"\(([^()]*)\)\s*$")


def written(call: ToolCalled) -> set[str]:
    """The entities a write names."""
    args = call.args
    match call.tool:
        case "reservation.make_booking":
            item = str(args.get("item_name", ""))
            found = _ROOM.search(item)
            keys = {f"{args.get('location_id', '')}|{found.group(1) if found else item}|{args.get('date', '')}"}
            return keys | ({str(args["seat_id"])} if args.get("seat_id") else set())
        case "geography.walk_to":
            info = args.get("path_info")
            path = info.get("path", []) if isinstance(info, dict) else []
            return {walkway_key(str(a), str(b)) for a, b in zip(path, path[1:])}
        case "email.send_email":
            return set(_SEAT.findall(str(args.get("body", ""))))
    return set()


def shown(call: ToolCalled, key: str) -> bool:
    """Whether a read shows the entity ``key``."""
    args = call.args
    match call.tool:
        case "reservation.query_availability":
            building, date = str(args.get("location_id", "")), str(args.get("date", ""))
            return key.startswith(f"{building}-") or (key.startswith(f"{building}|") and key.endswith(f"|{date}"))
        case "map.find_optimal_path":
            return "~" in key
    return False


class TaskLog:
    """One task's events read once for every detector: its calls, the failed ones, and the rules' changes.

    A change's position: its seq, or (fired by a call) just before that call; only changes while the task
    is open count."""

    def __init__(self, events: Logged) -> None:
        self.events = events
        self.calls: list[tuple[int, ToolCalled]] = []
        self.reports: list[tuple[int, InfeasibleReported]] = []
        by_id: dict[str, int] = {}
        failed_ids: list[str] = []
        fired: list[tuple[int, int, str]] = []  # (seq, cause, entity) of each rule's change while the task is open
        open_task = True
        for seq, event in events:
            if isinstance(event, ToolCalled):
                self.calls.append((seq, event))
                by_id[event.call_id] = seq
            elif isinstance(event, ToolResult):
                if event.status != "ok":
                    failed_ids.append(event.call_id)
            elif isinstance(event, TaskEnded):
                open_task = False
            elif isinstance(event, WorldChanged):
                if open_task and event.rule and isinstance(event.change, TRIGGER_CHANGES):
                    fired += [(seq, event.cause, key) for _, key in entities(event.change)]
            elif isinstance(event, InfeasibleReported):
                self.reports.append((seq, event))
        self.failed = {by_id[call_id] for call_id in failed_ids if call_id in by_id}
        """Seqs of the calls whose result was an error."""
        calls = {seq for seq, _ in self.calls}
        self.changes = [(cause - 0.5 if cause in calls else float(seq), key) for seq, cause, key in fired]
        """(position, entity) of every rule's change while the task is open."""

    def recovery(self) -> list[tuple[int, ToolCalled]]:
        """The successful writes made once the agent has looked again after the task's first trigger change
        (an agent that never looks is not adapting: that is ``stale_state``)."""
        if not self.changes:
            return []
        first = min(at for at, _ in self.changes)
        calls = [(seq, call) for seq, call in self.calls if seq not in self.failed]
        looked = next((seq for seq, call in calls if seq > first and not written(call)), None)
        return [] if looked is None else [(seq, call) for seq, call in calls if seq > looked and written(call)]

    def detect(self) -> dict[Detector, list[Finding]]:
        """Every detector's findings."""
        recovery = self.recovery()
        return {"stale_state": _stale_state(self), "blind_retry": _blind_retries(self),
                "unverified": _unverified(self, recovery), "misdiagnosis": _misdiagnosis(self, recovery)}


def entity_class(key: str) -> str:
    """``seat``, ``room`` or ``walkway``, from an entity key's shape."""
    return "walkway" if "~" in key else "room" if "|" in key else "seat"


def unverified(events: Logged) -> list[Finding]:
    """A recovery booking that no later read shows (one finding per booking)."""
    task = TaskLog(events)
    return _unverified(task, task.recovery())


def _unverified(task: TaskLog, recovery: list[tuple[int, ToolCalled]]) -> list[Finding]:
    calls = task.calls
    findings: list[Finding] = []
    for seq, write in recovery:
        if write.tool != "reservation.make_booking":
            continue
        keys = sorted(key for key in written(write) if entity_class(key) == "room")  # a room key holds the date
        if keys and not any(later > seq and shown(call, key) for later, call in calls for key in keys):
            findings.append(Finding(detector="unverified", seq=seq, entity=keys[0]))
    return findings


_PAIR = re.compile(r"^\s*(B\d{3})\s*[-~>]+\s*(B\d{3})\s*$", re.IGNORECASE)


def names(blocked: str, key: str) -> bool:
    """Whether an id an agent gave in ``blocked_by`` names the entity ``key``: a seat id, a walkway
    ``A-B`` either way round, or a room by its id (alone, in ``Name (id)``, or ``building|room``)."""
    text = " ".join(blocked.split()).casefold()
    inner = _ROOM.search(text)
    text = inner.group(1).strip() if inner else text
    pair = _PAIR.match(text)
    if pair:
        return walkway_key(pair.group(1).upper(), pair.group(2).upper()).casefold() == key.casefold()
    parts = key.casefold().split("|")
    if len(parts) == 3:
        return text in (parts[1], f"{parts[0]}|{parts[1]}")
    return text == key.casefold()


def misdiagnosis(events: Logged) -> list[Finding]:
    """A report blaming none of the changed entities; recovery writes that touch no changed class."""
    task = TaskLog(events)
    return _misdiagnosis(task, task.recovery())


def _misdiagnosis(task: TaskLog, recovery: list[tuple[int, ToolCalled]]) -> list[Finding]:
    changed = sorted({key for _, key in task.changes})
    findings: list[Finding] = []
    for seq, event in task.reports:
        if not any(names(b, key) for b in event.blocked_by for key in changed):
            findings.append(Finding(detector="misdiagnosis", seq=seq, entity=", ".join(event.blocked_by), kind="blocked_by"))
    classes = {entity_class(key) for key in changed}
    if recovery and not any(entity_class(key) in classes for _, call in recovery for key in written(call)):
        findings.append(Finding(detector="misdiagnosis", seq=recovery[0][0], entity=changed[0], kind="recovery"))
    return findings


def detect(events: Logged) -> dict[Detector, list[Finding]]:
    """Every detector over one task's events."""
    return TaskLog(events).detect()


class Tally(msgspec.Struct, kw_only=True):
    """A run's error modes and tool calls, task by task."""

    detectors: dict[str, dict[str, int]] = msgspec.field(
        default_factory=lambda: {name: {"findings": 0, "tasks": 0} for name in DETECTORS})
    """Detector -> findings, and tasks with at least one."""
    tasks: int = 0
    calls: int = 0

    def add(self, events: Logged) -> None:
        """Count one ended task."""
        task = TaskLog(events)
        self.count(len(task.calls), task.detect())

    def count(self, calls: int, findings: dict[Detector, list[Finding]]) -> None:
        """Count one ended task, of ``calls`` tool calls, with its detectors' ``findings``."""
        self.tasks += 1
        self.calls += calls
        for name, found in findings.items():
            if found:
                self.detectors[name]["findings"] += len(found)
                self.detectors[name]["tasks"] += 1

    def summary(self) -> dict[str, Any]:
        return {"detectors": self.detectors, "tasks": self.tasks,
                "avg_calls": round(self.calls / self.tasks, 3) if self.tasks else None}


def stale_state(events: Logged) -> list[Finding]:
    return _stale_state(TaskLog(events))


def _stale_state(task: TaskLog) -> list[Finding]:
    changes, calls, failed, events = task.changes, task.calls, task.failed, task.events
    findings: list[Finding] = []

    def looked(key: str, after: float, before: float) -> bool:
        return any(after < seq < before and (shown(call, key) or (seq in failed and key in written(call)))
                   for seq, call in calls)

    end = float(events[-1][0] + 1) if events else 0.0
    for seq, call in calls:
        for key in sorted(written(call)):
            before = [at for at, changed in changes if changed == key and at < seq]
            if before and not looked(key, max(before), seq):
                findings.append(Finding(detector="stale_state", seq=seq, entity=key, kind="write_after_change"))
                continue
            after = [at for at, changed in changes if changed == key and at > seq]
            if after and seq not in failed and not looked(key, max(after), end):
                findings.append(Finding(detector="stale_state", seq=seq, entity=key, kind="unchecked_after_write"))
    return findings


def blind_retries(events: Logged, n: int = 3) -> list[Finding]:
    """One finding at the ``n``-th failure of the same call (tool and arguments), and at every ``n`` after."""
    return _blind_retries(TaskLog(events), n)


def _blind_retries(task: TaskLog, n: int = 3) -> list[Finding]:
    failed = task.failed
    counts: dict[bytes, int] = {}
    findings: list[Finding] = []
    for seq, event in task.calls:
        if seq in failed:
            key = canonical([event.tool, event.args, event.positional])
            counts[key] = counts.get(key, 0) + 1
            if counts[key] % n == 0:
                findings.append(Finding(detector="blind_retry", seq=seq, entity=event.tool))
    return findings


def by_task(events: Iterable[tuple[int, Event]]) -> dict[str, list[tuple[int, Event]]]:
    """A run's events cut into tasks (from a release to its end, firings after the end included)."""
    tasks: dict[str, list[tuple[int, Event]]] = {}
    current: list[tuple[int, Event]] | None = None
    for seq, event in events:
        task_id: Any = getattr(event, "task_id", None)
        if type(event).__name__ == "TaskReleased":
            current = tasks.setdefault(task_id, [])
        if current is not None:
            current.append((seq, event))
        if type(event).__name__ == "TaskEnded":
            current = None
    return tasks


def tally_branch(store: EventStore, branch_id: str) -> Tally:
    """The tally of every ended task of a branch."""
    tally = Tally()
    for task in iter_tasks(store, branch_id):
        if task.ended is not None:
            tally.add([(seq, event) for seq, _, event in task.events])
    return tally

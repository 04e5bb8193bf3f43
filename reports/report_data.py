"""What the HTML report shows, gathered from the log in one pass per run.

Each event is copied into the page as its stored canonical JSON (``msgspec.Raw``), never
decoded and re-encoded, so a full term's ~20k events cost a string join. Only the events
the page indexes (task starts and ends, walks) are decoded. A task's transcript is every
event from its ``task_released`` to its ``task_ended``: what the agent saw, each reply, each
tool call with its facts and result, and the verdict. Events outside any task (day starts,
world changes, time announcements) are kept apart, per run, to be shown by day.

In a comparison both runs share every event before the first divergence, so the second
run's transcripts of tasks that ended before it are left out (``None``: the page shows the
first run's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from campus.events import Announcement, ClueRevealed, ErrandHandedOut, ErrandReported, TaskEnded, TaskReleased, Walked, WorldChanged, decode_events
from campus.kernel.clock import MINUTES_PER_DAY
from campus.kernel.schedule import Composing
from campus.replays.diff import diff_runs
from campus.replays.prices import Price, cost_usd
from campus.replays.usage import RunUsage, Usage, UsageMeta
from campus.reports.map_layout import campus_layout
from campus.scenarios.busy_days import CLOSE, SCENARIO as BUSY
from campus.scenarios.check_ins import SCENARIO as CHECK_INS, probes_of
from campus.scenarios.play import Run
from campus.scenarios.probes import (
    ABILITIES, DAY_BINS, EVENT_BINS, FACT_KINDS, IN_FORK, NO_EVIDENCE, PROBE_SCENARIO, Probe, distance_bins, probe_of,
)
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import Task, Term
from campus.world.index import WorldIndex

BATCH = 20_000
STATE_KEYS_SHOWN = 40
"""Record keys listed per domain and change kind in the final-state diff (the counts are always complete)."""

_DECODED = {"task_released": TaskReleased, "task_ended": TaskEnded, "walked": Walked}
_DECODERS = {kind: msgspec.json.Decoder(cls) for kind, cls in _DECODED.items()}
_BUSY_DECODED = {"errand_reported": ErrandReported, "clue_revealed": ClueRevealed, "errand_handed_out": ErrandHandedOut, "world_changed": WorldChanged}
_BUSY_DECODERS = {kind: msgspec.json.Decoder(cls) for kind, cls in _BUSY_DECODED.items()}
"""The kinds a busy day's swim lanes are drawn from (besides its walks)."""


class _Call(msgspec.Struct):
    call_id: str
    tool: str


class _Result(msgspec.Struct):
    call_id: str
    status: str


class _Reply(msgspec.Struct):
    task_id: str


_CALL, _RESULT, _REPLY = msgspec.json.Decoder(_Call), msgspec.json.Decoder(_Result), msgspec.json.Decoder(_Reply)


def report_data(a: Run, b: Run | None = None, *, price_of: Callable[[str], Price | None] | None = None) -> dict[str, Any]:
    """Everything the page needs for one run, or for two runs compared side by side.

    ``price_of`` gives the price of a run's agent (by its spec), for its cost; without it every cost is unknown.
    """
    comparison = diff_runs(a, b) if b is not None else None
    divergence = comparison["first_divergence"] if comparison else None
    prices = price_of or (lambda agent: None)
    runs = ([run_part(a, price=prices(a.branch.agent))] if b is None else
            [run_part(a, price=prices(a.branch.agent)),
             run_part(b, shared_before=_shared_limit(b, comparison), price=prices(b.branch.agent))])
    data: dict[str, Any] = {
        "version": 1,
        "tasks": _task_rows(a.term, b.term if b is not None else None),
        "runs": runs,
        "map": map_part(a.world),
        "comparison": None,
    }
    if comparison is not None:
        data["comparison"] = {
            "identical": comparison["identical"],
            "divergence": _divergence(divergence, runs) if divergence else None,
            "flips": comparison["outcome_flips"],
            "state_diff": _state_summary(comparison["state_diff"]),
            "extra": {k: v for k, v in comparison.items()
                      if k not in {"a", "b", "identical", "first_divergence", "outcome_flips", "state_diff"}},
        }
    return data


def _shared_limit(b: Run, comparison: dict[str, Any] | None) -> int:
    """Seqs below this are the same event in both runs (the whole of b when they are identical)."""
    assert comparison is not None
    point = comparison["first_divergence"]
    return point["seq"] if point else b.store.head(b.branch.id)[0] + 1


def run_part(run: Run, *, shared_before: int = 0, price: Price | None = None) -> dict[str, Any]:
    """One run: its summary, scorecard, each task's span and transcript, its walks, the events between tasks,
    per task how many trigger-rule changes fired while it was open, per tool its calls and failures, and
    the model's tokens, latency and cost, in all and per task (``price`` is its price, if known).

    Transcripts of tasks that end before ``shared_before`` are ``None`` (identical to the first run's).
    """
    tools: dict[str, list[int]] = {}
    calls: dict[str, str] = {}
    usage = RunUsage()
    head, final_hash = run.store.head(run.branch.id)
    spans: dict[str, list[Any]] = {}
    transcripts: dict[str, msgspec.Raw | None] = {}
    walks: list[list[Any]] = []
    between: list[msgspec.Raw] = []
    firings: dict[str, int] = {}
    busy: dict[str, list[tuple[int, Any]]] = {}
    """Busy day -> its (minute, event) of the kinds its swim lanes show."""
    ended: list[TaskEnded] = []
    current: str | None = None
    lines: list[str] = []
    finished = False
    for first in range(1, head + 1, BATCH):
        for row in run.store.rows(run.branch.id, first, min(head, first + BATCH - 1)):
            entry = _entry(row.seq, row.t, row.payload, row.meta)
            kind = row.kind
            if kind in _DECODERS:
                event = _DECODERS[kind].decode(row.payload)
                if isinstance(event, TaskReleased):
                    current, lines = event.task_id, []
                    spans[current] = [row.seq, None, row.t, None, None, None, "", "", {}]
                elif isinstance(event, Walked):
                    walks.append([row.seq, current, event.depart, event.arrive, event.path])
                elif isinstance(event, TaskEnded) and event.task_id in spans:
                    spans[event.task_id][1] = row.seq
                    spans[event.task_id][3:] = [row.t, event.outcome, event.turns, event.reason, event.detail, event.marks]
                    ended.append(event)
            elif kind == "tool_called":
                call = _CALL.decode(row.payload)
                calls[call.call_id] = call.tool
                tools.setdefault(call.tool, [0, 0])[0] += 1
            elif kind == "tool_result":
                result = _RESULT.decode(row.payload)
                if result.status != "ok" and result.call_id in calls:
                    tools[calls[result.call_id]][1] += 1
            elif kind == "agent_replied":
                usage.add(_REPLY.decode(row.payload).task_id, UsageMeta.read(row.meta))
            finished = finished or kind == "run_ended"
            if kind == "world_changed" and current is not None and msgspec.json.decode(row.payload).get("rule"):
                firings[current] = firings.get(current, 0) + 1
            if current in busy and kind in _BUSY_DECODERS:
                busy[current].append((row.t, _BUSY_DECODERS[kind].decode(row.payload)))
            elif kind == "task_released" and current is not None and run.term.by_id[current].scenario == BUSY:
                busy[current] = []
            if current is None:
                between.append(msgspec.Raw(entry))
                continue
            lines.append(entry)
            if kind == "task_ended":
                transcripts[current] = None if row.seq < shared_before else _joined(lines)
                current = None
    if current is not None:
        transcripts[current] = _joined(lines)
    return {
        "id": run.branch.id,
        "agent": run.branch.agent,
        "seed": run.branch.seed,
        "parent": run.branch.parent,
        "fork_seq": run.branch.fork_seq,
        "events": head,
        "final_hash": final_hash,
        "finished": finished,
        "world": run.world.world.name,
        "term": run.term.name,
        "scorecard": scorecard(run.term, ended),
        "memory": memory_part(run, {event.task_id: event for event in ended}),
        "spans": spans,
        "transcripts": transcripts,
        "walks": walks,
        "between": between,
        "firings": firings,
        "tools": tools,
        "price": None if price is None else [price.input, price.output],
        "usage": _usage_row(usage.total, price),
        "task_usage": {task: _usage_row(spent, price) for task, spent in usage.by_task.items()},
        "lanes": {task_id: swim_lanes(run.term.by_id[task_id], seen, spans[task_id][3] or run.term.by_id[task_id].release)
                  for task_id, seen in busy.items()},
    }


def _at_meeting_end(recorded: int | None, end: int) -> int | None:
    """An errand handed out at a meeting is recorded with the wait through it and reaches the student as it ends."""
    return None if recorded is None else max(recorded, end)


def swim_lanes(task: Task, seen: list[tuple[int, Any]], ended: int) -> dict[str, Any]:
    """A busy day as lanes, one per errand and appointment: when it arrived, its deadline (an appointment: its hour),
    when it was reported done, when its clues were revealed; and the reminders that interrupted the day."""
    reported = {e.errand_id: t for t, e in seen if isinstance(e, ErrandReported)}
    revealed: dict[str, list[int]] = {}
    first_told: dict[str, int] = {}
    for t, e in seen:
        if isinstance(e, ClueRevealed):
            revealed.setdefault(e.clue_id.split("/", 1)[0], []).append(t)
            first_told.setdefault(e.clue_id, t)
        elif isinstance(e, ErrandHandedOut):
            first_told.setdefault(e.errand_id, t)
    lanes = []
    for errand in task.ground_truth["errands"]:
        appointment = errand["family"] == "appointment"
        check = errand["checkpoints"][0]["check"]
        handed = (first_told.get(errand["announced_by"]) if errand.get("announced_by")
                  else _at_meeting_end(first_told.get(errand["id"]), errand["release"]) if errand.get("announced_at")
                  else errand["release"])
        lanes.append({"id": errand["id"], "title": errand["title"], "priority": errand["priority"], "kind": "appointment" if appointment else "errand",
                      "release": check["start"] if appointment else errand["deadline"] if handed is None else handed,
                      "deadline": check["end"] if appointment else errand["deadline"], "handed": handed is not None,
                      "done": reported.get(errand["id"]), "clues": revealed.get(errand["id"], [])})
    lanes.sort(key=lambda lane: (lane["release"], lane["id"]))
    day = task.release - task.release % MINUTES_PER_DAY
    return {"open": task.release, "close": max(day + CLOSE, ended), "lanes": lanes,
            "interrupts": [[t, e.change.text] for t, e in seen if isinstance(e, WorldChanged) and isinstance(e.change, Announcement)]}


def memory_part(run: Run, ended: dict[str, TaskEnded]) -> dict[str, Any] | None:
    """BEAM's ability vector of the probes and check-ins the run answered: per ability, overall (the unweighted mean
    of the abilities asked), and per distance bin (events and simulated days from the earliest evidence to the
    question). ``None`` for a run that was asked nothing."""
    asked = [(probe, ended[task.id].marks.get("probe_permille", 0) / 1000) for task in run.term.tasks
             if task.scenario == PROBE_SCENARIO and task.evaluator == "probe" and task.id in ended
             for probe in [probe_of(task)]]
    asked += _check_ins_asked(run, ended)
    if not asked:
        return None
    binned = [(probe, score, distance_bins(probe)) for probe, score in asked]
    order = [name for _, name in EVENT_BINS + DAY_BINS] + [NO_EVIDENCE, IN_FORK]

    def vector(scores: list[tuple[Probe, float]]) -> dict[str, float | None]:
        per = {a: [s for p, s in scores if p.ability == a] for a in ABILITIES}
        return {a: round(sum(v) / len(v), 6) if v else None for a, v in per.items()}

    def by(axis: int) -> dict[str, dict[str, float | None]]:
        names = sorted({bins[axis] for _, _, bins in binned}, key=order.index)
        return {name: vector([(p, s) for p, s, bins in binned if bins[axis] == name]) for name in names}

    overall = vector(asked)
    present = [v for v in overall.values() if v is not None]
    return {"probes": len(asked), "abilities": overall, "overall": round(sum(present) / len(present), 6),
            "by_events": by(0), "by_days": by(1)}


def _check_ins_asked(run: Run, ended: dict[str, TaskEnded]) -> list[tuple[Probe, float]]:
    """Each ended check-in's probes, drawn again from the log before its release, with the score its marks give."""
    if not any(task.scenario == CHECK_INS and task.id in ended for task in run.term.tasks):
        return []
    composing = Composing(run.term, run.world.describe, run.world)
    out: list[tuple[Probe, float]] = []
    rows = [row for row in run.store.rows(run.branch.id) if row.kind in FACT_KINDS]
    for row, event in zip(rows, decode_events([row.payload for row in rows])):
        composing.see(row.seq, row.t, event)
        prefix = composing.open
        if isinstance(event, TaskReleased) and prefix is not None and event.task_id in ended:
            marks = ended[event.task_id].marks
            probes = probes_of(run.term.by_id[event.task_id], run.term.seed, prefix)
            out += [(p, marks.get(f"{p.ability}/{n}", 0) / 1000) for n, p in enumerate(probes, start=1)]
    return out


def _usage_row(usage: Usage, price: Price | None) -> list[Any]:
    """``[replies, prompt tokens, completion tokens, latency in s, cost in USD or None]``."""
    return [usage.replies, usage.prompt_tokens, usage.completion_tokens, usage.latency_s, cost_usd(usage, price)]


def _entry(seq: int, t: int, payload: str, meta: str | None) -> str:
    """``[seq, t, event]`` or ``[seq, t, event, meta as a JSON string]``; the payload is spliced in as stored."""
    if meta is None:
        return f"[{seq},{t},{payload}]"
    return f"[{seq},{t},{payload},{msgspec.json.encode(meta).decode()}]"


def _joined(lines: list[str]) -> msgspec.Raw:
    return msgspec.Raw("[" + ",".join(lines) + "]")


def _task_rows(term: Term, other: Term | None) -> list[list[Any]]:
    """``[id, scenario, phase, release, flags]`` for every task of either term, in release order."""
    tasks: dict[str, Task] = {task.id: task for task in term.tasks}
    if other is not None:
        for task in other.tasks:
            tasks.setdefault(task.id, task)
    ordered = sorted(tasks.values(), key=lambda task: (task.release, task.id))
    return [[task.id, task.scenario, task.phase, task.release, _flags(task)] for task in ordered]


def _flags(task: Task) -> str:
    """Letters: L long-term memory, S self-motivated, D delivery only (not scored); then the StuGPA component."""
    flags = task.flags
    letters = ("L" if flags.long_term else "") + ("S" if flags.self_motivated else "") + ("D" if flags.delivery_only else "")
    return f"{letters}:{flags.counts_toward}" if flags.counts_toward else letters


def map_part(world: WorldIndex) -> dict[str, Any]:
    """Buildings with laid-out coordinates, walkways and complexes, for the SVG map."""
    points = campus_layout(world.world)
    return {
        "home": world.home,
        "zones": world.zones,
        "buildings": [[b.id, b.name, b.zone, b.type, *points[b.id]] for b in world.world.buildings],
        "paths": [[p.source, p.target, p.minutes] for p in world.world.paths],
        "complexes": [[c.name, c.members] for c in world.world.complexes],
    }


def _divergence(point: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The first divergence with the task it fell in (or the next task to start after it)."""
    seq = point["seq"]
    return {
        "seq": seq,
        "t": point["t"],
        "time": point["time"],
        "task": _task_at(seq, runs),
        "a": point["a"],
        "b": point["b"],
    }


def _task_at(seq: int, runs: list[dict[str, Any]]) -> str | None:
    for run in runs:
        for task_id, span in run["spans"].items():
            end = span[1] if span[1] is not None else run["events"]
            if span[0] <= seq <= end:
                return task_id
    later = [(span[0], task_id) for run in runs for task_id, span in run["spans"].items() if span[0] > seq]
    return min(later)[1] if later else None


def _state_summary(state_diff: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per domain: how many records were added, removed and changed, with the first keys of each."""
    return {
        domain: {change: {"count": len(records), "keys": list(records)[:STATE_KEYS_SHOWN]}
                 for change, records in changes.items()}
        for domain, changes in state_diff.items()
    }

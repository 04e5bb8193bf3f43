"""``light``: a LIGHT-style memory (BEAM's episodic retrieval + working memory + scratchpad), with no model.

Built from the typed events of every ended task (``TaskMemory.events``), so it is a function
of the log and a resumed or forked run rebuilds it exactly:

- **episodic store**: one document per agent step (the call, its result, and the facts it
  produced, each event's payload rendered as ``key: value`` lines), retrieved with BM25
  (``agents/bm25.py``) against the current task's conversation, the top K;
- **working memory**: the latest steps, newest first, within a token budget;
- **scratchpad**: a projection of the log: the latest value per entity and attribute with
  the previous one kept, dated events, and open commitments (entries of the student's own
  calendar that have not ended yet).

Shown in LIGHT's order (retrieved, then working memory, then the scratchpad); the budget is
shared equally by the parts switched on. The spec ``light`` or ``light:k=10,retrieval=off,
scratchpad=off,working=off`` gives BEAM's ablations (K in 5, 10, 15, 20; default 15).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from campus.agents.bm25 import Okapi
from campus.agents.memory import estimate_tokens, query_words, tokenize
from campus.events import (
    AgentReplied, Booked, CalendarEventAdded, CalendarEventRemoved, CalendarEventUpdated, CalendarTime, DraftAdded,
    DraftRemoved, EmailSent, Event, PassAssigned, Registered, Walked,
)
from campus.kernel.agent import AgentView, TaskMemory
from campus.kernel.clock import MINUTES_PER_DAY, MINUTES_PER_WEEK, clock_label, date_label, label, time_label

TOP_KS = (5, 10, 15, 20)
MAX_VALUE = 300
"""Characters kept of one value in a document (tool messages can be long)."""
SKIPPED = frozenset({"task_released", "task_ended", "time_announced", "day_started", "world_changed", "agent_replied",
                     "trigger_skipped", "instruction_revealed"})
"""Events a step's document leaves out: the conversation and the world's own clock."""
PLUMBING = frozenset({"kind", "call_id", "task_id", "data", "minutes"})
"""Fields a document leaves out: ids that only join events, and a result's data (its message says it)."""


@dataclass(frozen=True)
class LightSwitches:
    retrieval: bool = True
    working: bool = True
    scratchpad: bool = True
    top_k: int = 15

    @classmethod
    def parse(cls, spec: str) -> LightSwitches:
        """``light`` or ``light:k=10,retrieval=off,...``; ``ValueError`` naming what is wrong."""
        _, _, options = spec.partition(":")
        values: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in options.split(","))):
            key, _, value = part.partition("=")
            if key == "k":
                if not value.isdigit() or int(value) not in TOP_KS:
                    raise ValueError(f"light memory: k must be one of {', '.join(map(str, TOP_KS))}, not {value!r}")
                values["top_k"] = int(value)
            elif key in ("retrieval", "working", "scratchpad") and value in ("on", "off"):
                values[key] = value == "on"
            else:
                raise ValueError(f"light memory: cannot read {part!r}; write k=5|10|15|20, retrieval=on|off, "
                                 "working=on|off or scratchpad=on|off")
        return cls(**values)


def render_event(event: Event) -> str:
    """An event's typed payload as ``key: value`` lines (nested fields dotted)."""
    lines = [f"event: {type(event).__struct_config__.tag}"]

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in sorted(value.items()):  # the log keeps keys sorted: a rebuilt memory reads the same
                walk(f"{prefix}.{key}" if prefix else str(key), inner)
        elif isinstance(value, list):
            walk(prefix, ", ".join(map(str, value)))
        elif value not in ("", None):
            lines.append(f"{prefix}: {str(value)[:MAX_VALUE]}")

    payload = msgspec.to_builtins(event)
    walk("", {key: value for key, value in payload.items() if key not in PLUMBING})
    return "\n".join(lines)


def steps_of(past: TaskMemory) -> list[str]:
    """One document per agent step of the task: its events (but the reply itself) as ``key: value`` lines."""
    docs: list[list[str]] = []
    heading = f"task: {past.task_id} ({past.scenario}, {label(past.released)})"
    for event in past.events:
        if isinstance(event, AgentReplied):
            docs.append([heading])
        elif docs and type(event).__struct_config__.tag not in SKIPPED:
            docs[-1].append(render_event(event))
    return ["\n".join(doc) for doc in docs if len(doc) > 1]


# ---------------------------------------------------------------- the scratchpad: a fold of the log


@dataclass
class Projection:
    latest: dict[tuple[str, str], tuple[str, str | None]] = field(default_factory=dict)
    """``(entity, attribute) -> (value, previous value)``."""
    dated: list[str] = field(default_factory=list)
    calendar: dict[tuple[str, str], tuple[str, CalendarTime, str]] = field(default_factory=dict)
    """``(calendar, event id) -> (title, time, location)`` of the entries still there."""

    def set(self, entity: str, attribute: str, value: str) -> None:
        old = self.latest.get((entity, attribute))
        if old is None or old[0] != value:
            self.latest.pop((entity, attribute), None)  # a changed value moves to the newest place
            self.latest[(entity, attribute)] = (value, old[0] if old else None)

    def fold(self, past: TaskMemory) -> None:
        when = date_label(past.released // MINUTES_PER_DAY)
        for event in past.events:
            self._apply(event, when)

    def _apply(self, event: Event, when: str) -> None:
        if isinstance(event, Walked):
            self.set("you", "location", event.path[-1])
            self.dated.append(f"{label(event.arrive)}: walked to {event.path[-1]}")
        elif isinstance(event, Booked):
            room = event.room_id + (f" seat {event.seat_id}" if event.seat_id else "")
            slot = f"{date_label(event.day)} {clock_label(event.start)}-{clock_label(event.end)}"
            self.set(f"library {event.location_id}", "latest booking", f"{room}, {slot}")
            self.dated.append(f"{when}: booked {room} at {event.location_id} for {slot}")
        elif isinstance(event, EmailSent):
            self.set(event.to, "last email subject", event.subject)
            self.dated.append(f"{when}: emailed {event.to}: {event.subject}")
        elif isinstance(event, CalendarEventAdded):
            self.calendar[(event.calendar_id, event.event_id)] = (event.title, event.time, event.location)
            self.set(f"calendar {event.calendar_id}: {event.title}", "time and place",
                     f"{time_label(event.time)} at {event.location}")
            self.dated.append(f"{when}: added {event.title!r} to calendar {event.calendar_id}")
        elif isinstance(event, CalendarEventUpdated):
            key = (event.calendar_id, event.event_id)
            if key in self.calendar:
                title, time, location = self.calendar[key]
                changes = event.changes
                entry = (changes.title or title, changes.time or time, changes.location or location)
                self.calendar[key] = entry
                self.set(f"calendar {event.calendar_id}: {entry[0]}", "time and place",
                         f"{time_label(entry[1])} at {entry[2]}")
        elif isinstance(event, CalendarEventRemoved):
            key = (event.calendar_id, event.event_id)
            if key in self.calendar:
                self.set(f"calendar {event.calendar_id}: {self.calendar.pop(key)[0]}", "time and place", "removed")
        elif isinstance(event, DraftAdded | DraftRemoved):
            self.set(f"section {event.section_id}", "in draft", "yes" if isinstance(event, DraftAdded) else "no")
        elif isinstance(event, PassAssigned):
            self.set(f"section {event.section_id}", "pass", event.pass_type)
        elif isinstance(event, Registered):
            for section, result in sorted(event.results.items()):
                self.set(f"section {section}", "registration", result)

    def commitments(self, now: int) -> list[str]:
        """Entries of the student's own calendar with an occurrence not ended by ``now``, the next one first."""
        upcoming = [(start, title, time, place) for (calendar, _), (title, time, place) in self.calendar.items()
                    if calendar == "self" and (start := next_start(time, now)) is not None]
        return [f"{time_label(time)}: {title} at {place}" for _, title, time, place in sorted(upcoming, key=lambda e: e[0])]


def next_start(time: CalendarTime, now: int) -> int | None:
    """The start of the first occurrence of ``time`` that has not ended by ``now`` (None: all are over)."""
    for week in range(time.first_week, time.last_week + 1):
        day = week * MINUTES_PER_WEEK + time.weekday * MINUTES_PER_DAY
        if day + time.end > now:
            return day + time.start
    return None


def _fit(lines: list[str], budget: int) -> list[str]:
    """The first lines (in the order given) whose total fits ``budget`` tokens."""
    kept, used = [], 0
    for line in lines:
        cost = estimate_tokens(line + "\n")
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return kept


class LightMemory:
    """Episodic BM25 retrieval, working memory and a projected scratchpad, each switchable."""

    name = "light"
    guidance = ""

    def __init__(self, budget: int, switches: LightSwitches = LightSwitches()) -> None:
        self.budget = budget
        self.switches = switches
        self.docs: list[str] = []
        self.projection = Projection()
        self._index = Okapi()

    def remember(self, past: TaskMemory) -> None:
        for doc in steps_of(past):
            self.docs.append(doc)
            self._index.add(tokenize(doc))
        self.projection.fold(past)

    def recall(self, view: AgentView) -> str:
        parts = [part for part, on in (("retrieval", self.switches.retrieval), ("working", self.switches.working),
                                       ("scratchpad", self.switches.scratchpad)) if on]
        if not parts:
            return ""
        share = self.budget // len(parts)
        sections = [self._retrieved(view, share) if "retrieval" in parts else "",
                    self._working(share) if "working" in parts else "",
                    self._scratchpad(view, share) if "scratchpad" in parts else ""]
        return "\n\n".join(filter(None, sections))

    def _retrieved(self, view: AgentView, budget: int) -> str:
        query = query_words(view)
        if not self.docs or not query:
            return ""
        shown = _fit([self.docs[i] for i in self._index.top(query, self.switches.top_k)], budget)
        return "### Retrieved steps (most relevant first)\n" + "\n\n".join(shown) if shown else ""

    def _working(self, budget: int) -> str:
        shown = _fit(self.docs[::-1], budget)
        return "### Your latest steps (newest first)\n" + "\n\n".join(shown) if shown else ""

    def _scratchpad(self, view: AgentView, budget: int) -> str:
        latest = [f"- {entity}, {attribute}: {value}" + (f" (before: {previous})" if previous else "")
                  for (entity, attribute), (value, previous) in reversed(self.projection.latest.items())]
        sections = [("Open commitments", [f"- {c}" for c in self.projection.commitments(view.now)]),
                    ("Latest values", latest), ("Dated events (newest first)", [f"- {d}" for d in self.projection.dated[::-1]])]
        out, left = [], budget
        for title, lines in sections:
            kept = _fit(lines, left // 2 if title != "Dated events (newest first)" else left)
            if kept:
                out.append(f"{title}:\n" + "\n".join(kept))
                left -= sum(estimate_tokens(line + "\n") for line in kept)
        return "### Scratchpad (kept from your log)\n" + "\n".join(out) if out else ""

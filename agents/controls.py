"""The controls: scripted students that see exactly what any agent sees, and differ in initiative.

They exist to check that the metrics measure what they claim (noop < stateless < diligent <
oracle on StuGPA, LTRR, PIS and success). Unlike the oracle they have no back door: a
control is built from nothing, and each turn it is handed a ``Seen`` — the simulated time
and the task's conversation so far, without even the task's id — which is all its policy
may read. What it can do with that is ``agents/reader.py``: carry out explicit requests and
guess every multiple-choice answer.

- **stateless** does what the text in front of it asks and nothing else: it never looks at
  its calendar, so a task that shows only the time, or withholds its text until the student
  is somewhere, finds it doing nothing.
- **diligent** does the same, and writes every request for later in its calendar. When a
  task shows only the time it reads today's calendar: if an entry is due (starting within the
  hour, or under way) it carries out the entry's description if that is a request it
  understands, and otherwise goes to the entry's building and does what it is shown there.

Every reply is a pure function of the ``Seen``, so a resumed run continues exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from campus.kernel.agent import AgentView, Reply
from campus.kernel.clock import MINUTES_PER_DAY, date_label, parse_moment
from campus.kernel.runner import OPENS

from campus.agents.plans import FINISH, Plan, action, replay_turns, told_time
from campus.agents.reader import carry_out, go_to, later, note_for_later, understood

DUE_BEFORE = 60
"""Minutes before an entry's start from which the diligent student acts on it."""

_NOW = re.compile(r"Current time: (.+)")
_ENTRY = re.compile(r"^- \[evt_\d+\] (\d\d):(\d\d)-(\d\d):(\d\d) .*?(?: at (.+?))? \(Week[^\n]*$", re.MULTILINE)
_DESCRIPTION = re.compile(r"\n  Description: (.*(?:\n    .*)*)")
_BUILDING = re.compile(r"\b([A-Z]\d{3})\b")
_HEADER = re.compile(rf"^(?:Current (?:date|time): |{re.escape(OPENS)}).*$", re.MULTILINE)
_DUE = re.compile(rf"^{re.escape(OPENS)}(\d\d):(\d\d)", re.MULTILINE)
_LISTED = re.compile(r"^- .+? \(([A-Z]\d{3})\): ", re.MULTILINE)


@dataclass(frozen=True)
class Seen:
    """Everything a control's policy may read: the time and the task's conversation (role, text)."""

    now: int
    messages: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, view: AgentView) -> Seen:
        return cls(now=view.now, messages=tuple((turn.role, turn.content) for turn in view.messages))

    @property
    def shown(self) -> str:
        """The task's first message without its date and time lines: the instruction, if one was shown."""
        first = self.messages[0][1] if self.messages else ""
        return _HEADER.sub("", first).strip()

    @property
    def results(self) -> list[str]:
        """What each of the agent's replies so far produced (the message after it)."""
        out = []
        for index, (role, _) in enumerate(self.messages):
            if role == "assistant":
                out.append(self.messages[index + 1][1] if index + 1 < len(self.messages) else "")
        return out

    @property
    def announced(self) -> int:
        """The simulated minute the task was announced (its ``Current time`` line)."""
        found = _NOW.search(self.messages[0][1] if self.messages else "")
        return parse_moment(found.group(1)) if found else self.now


def respond(text: str) -> Plan:
    """A request for later is noted in the calendar; anything else understood is done now."""
    when = later(text)
    if when is not None:
        return note_for_later(text, when)
    if understood(text):
        return carry_out(text)
    return iter([FINISH])  # type: ignore[return-value]


class Control:
    """Wraps a policy so that it is handed only a ``Seen``, never the view (which names the task)."""

    name: str

    def act(self, view: AgentView) -> Reply:
        return replay_turns(self.plan(Seen.of(view)), Seen.of(view).results)

    def plan(self, seen: Seen) -> Plan:
        raise NotImplementedError


class StatelessAgent(Control):
    name = "stateless"

    def plan(self, seen: Seen) -> Plan:
        return respond(seen.shown) if seen.shown else iter([FINISH])  # type: ignore[return-value]


class DiligentAgent(Control):
    name = "diligent"

    def plan(self, seen: Seen) -> Plan:
        if seen.shown:
            return respond(seen.shown)
        return self._from_calendar(seen.announced)

    def _from_calendar(self, start: int) -> Plan:
        schedule = yield action(f'calendar.view_schedule(calendar_id="self", date="{date_label(start // MINUTES_PER_DAY)}")')
        entry = due_entry(schedule or "", start % MINUTES_PER_DAY)
        if entry is None:
            yield FINISH
            return
        begins, place, description = entry
        begins += start - start % MINUTES_PER_DAY
        if description and understood(description):
            yield from carry_out(description)
            return
        if place is None:
            yield FINISH
            return
        seen = yield from go_to(place)
        early = begins - _clock(seen, start)
        if not _revealed(seen) and early > 0:  # handed out from the start: wait for it there
            seen = yield action(f"calendar.wait(minutes={early})")
        revealed = _revealed(seen)
        yield from (carry_out(revealed) if understood(revealed) else iter([FINISH]))


class SweeperAgent(Control):
    """Remembers nothing, and searches: when a task shows only the time, it waits for the start the task tells (if
    it tells one), then walks to the academic buildings one after the other, in the order the map lists them, until
    the task's text appears; a task that shows its text it treats as ``stateless`` does. What is handed out in a room
    is handed out from the start (``scenarios.task.AT_START``), so it finds what is held in the few buildings it
    reaches in the grace after the start; before that rule, walking through them on the way counted (46-63 of the
    128 class sessions of seed 0 at ``--scale 0.3``)."""

    name = "sweeper"

    def plan(self, seen: Seen) -> Plan:
        if seen.shown:
            return respond(seen.shown)
        return self._sweep(seen)

    def _sweep(self, seen: Seen) -> Plan:
        due = _DUE.search(seen.messages[0][1] if seen.messages else "")
        if due is not None:
            wait = int(due.group(1)) * 60 + int(due.group(2)) - seen.announced % MINUTES_PER_DAY
            if wait > 0:
                yield action(f"calendar.wait(minutes={wait})")
        listed = yield action('map.query_buildings_by_property(building_type="Academic")')
        for building in _LISTED.findall(listed or ""):
            revealed = _revealed((yield from go_to(building)))
            if revealed:
                yield from (carry_out(revealed) if understood(revealed) else iter([FINISH]))
                return
        yield FINISH


def _revealed(seen: str) -> str:
    """What was handed out with a result: the text after its first blank line."""
    return seen.split("\n\n", 1)[1] if "\n\n" in seen else ""


def _clock(seen: str, otherwise: int) -> int:
    """The simulated minute a walk's result says it is (``otherwise`` when it says none: no walk was needed)."""
    told = told_time(seen)
    return otherwise if told is None else told


def due_entry(schedule: str, minute: int) -> tuple[int, str | None, str] | None:
    """``(start minute of the day, building, description)`` of the calendar entry due at ``minute`` of the day, from
    ``view_schedule`` text.

    Among the entries due (starting within the hour, or under way), the one starting last
    wins: with back-to-back classes the next one matters, not the one ending.
    """
    due: list[tuple[int, str | None, str]] = []
    for match in _ENTRY.finditer(schedule):
        start = int(match.group(1)) * 60 + int(match.group(2))
        end = int(match.group(3)) * 60 + int(match.group(4))
        found = _BUILDING.search(match.group(5) or "")
        rest = schedule[match.end():]
        described = _DESCRIPTION.match(rest)
        text = described.group(1).replace("\n    ", "\n") if described else ""
        if start - DUE_BEFORE <= minute <= end:
            due.append((start, found.group(1) if found else None, text))
    if not due:
        return None
    return max(due, key=lambda item: item[0])


"""Simulated time.

Time is an integer number of minutes since Monday 00:00 of week 0. Every label the agent
sees ("Week 3, Tuesday 10:00") is a pure function of that integer, and every label a
person types can be parsed back. The day starts at ``DAY_START`` (06:00): that is when the
date is announced and the student wakes up at home.

The SimPy side lives here too: ``UrgentTimeout`` lets the world's own schedule (day starts,
triggers) run before a task released at the same minute, whatever order the processes
were created in.
"""

from __future__ import annotations

import functools
import operator

import re

import simpy
from simpy.core import URGENT

from campus.events import CalendarTime, Span

MINUTES_PER_DAY = 24 * 60
MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY
DAY_START = 6 * 60

DAYS: tuple[str, ...] = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_DAY_INDEX = {name.lower(): i for i, name in enumerate(DAYS)} | {
    name[:3].lower(): i for i, name in enumerate(DAYS)
}

_MOMENT = re.compile(r"week ?(\d{1,3}) ?,? ?([a-z]+) ?,? ?(?:(\d{1,2}):(\d{2}))?")
_MAX_LABEL = 64
"""Labels are short; anything longer is refused before any pattern looks at it."""


def _match(text: str) -> re.Match[str] | None:
    """Collapse whitespace first, so the pattern has no ambiguous runs of spaces to backtrack over."""
    if len(text) > _MAX_LABEL:
        return None
    return _MOMENT.fullmatch(" ".join(text.split()).lower())


class TimeFormatError(ValueError):
    """A time or date label that does not parse."""


def day_of(t: int) -> int:
    """The absolute day index (0 = Monday of week 0)."""
    return t // MINUTES_PER_DAY


def day_start(day: int) -> int:
    return day * MINUTES_PER_DAY + DAY_START


def date_label(day: int) -> str:
    return f"Week {day // 7}, {DAYS[day % 7]}"


_CLOCK_LABELS = tuple(f"{minute // 60:02d}:{minute % 60:02d}" for minute in range(MINUTES_PER_DAY))


def clock_label(t: int) -> str:
    """``HH:MM`` of the minute ``t`` falls on in its day."""
    return _CLOCK_LABELS[t % MINUTES_PER_DAY]


@functools.lru_cache(maxsize=8192)
def time_label(when: CalendarTime) -> str:
    """The label of a calendar event's time, e.g. ``Week 1-18, Monday, 14:00-16:50``."""
    weeks = f"{when.first_week}" if when.first_week == when.last_week else f"{when.first_week}-{when.last_week}"
    return f"Week {weeks}, {DAYS[when.weekday]}, {clock_label(when.start)}-{clock_label(when.end)}"


def span_label(span: Span) -> str:
    return f"{clock_label(span.start)}-{clock_label(span.end)}"


def label(t: int) -> str:
    """``Week W, Day HH:MM``, the way the agent is told the time."""
    return f"{date_label(day_of(t))} {clock_label(t)}"


def parse_moment(text: str) -> int:
    """Parse ``Week 3, Tuesday 10:00`` (commas, case and day abbreviations are free) to minutes.

    A label without a clock time means the start of that day (00:00).
    """
    match = _match(text)
    if match is None:
        raise TimeFormatError(
            f"cannot read {text[:60]!r} as a time; write it like 'Week 3, Tuesday 10:00'"
        )
    week, day_name, hours, minutes = match.groups()
    day = _DAY_INDEX.get(day_name.lower())
    if day is None:
        raise TimeFormatError(f"{day_name!r} is not a day of the week (Monday ... Sunday)")
    h = int(hours) if hours is not None else 0
    m = int(minutes) if minutes is not None else 0
    if h > 23 or m > 59:
        raise TimeFormatError(f"{hours}:{minutes} is not a clock time (00:00 ... 23:59)")
    return int(week) * MINUTES_PER_WEEK + day * MINUTES_PER_DAY + h * 60 + m


def day_index(name: str) -> int:
    index = _DAY_INDEX.get(name.strip().lower())
    if index is None:
        raise TimeFormatError(f"{name[:30]!r} is not a day of the week (Monday ... Sunday)")
    return index


class UrgentTimeout(simpy.events.Event):
    """A timeout processed before ordinary events scheduled for the same minute."""

    def __init__(self, env: simpy.Environment, delay: int) -> None:
        super().__init__(env)
        self._ok = True
        self._value = None
        env.schedule(self, URGENT, delay)


class Clock(simpy.Environment):
    """SimPy's environment, where a process can let time pass without a switch when nothing else is due."""

    now = property(operator.attrgetter("_now"), doc="The current simulation time (SimPy's, read without a Python frame).")

    def peek(self) -> float:
        """SimPy's ``peek`` (the time of the next event, infinity if none) without raising and catching an IndexError
        when nothing is scheduled, as in every ask of a session whose clocks have nothing left to wait for."""
        queue = self._queue
        return queue[0][0] if queue else simpy.core.Infinity

    def skip(self, delay: int) -> bool:
        """Advance ``delay`` minutes at once if no event is scheduled until then (inclusive) and say whether
        it did; the caller goes on as a timeout of ``delay`` would have resumed it (nothing could have come
        between). Otherwise nothing changes and the caller must yield a timeout."""
        if self.peek() > self._now + delay:
            self._now += delay
            return True
        return False

"""Reading a task's text into tool calls: what a literal-minded student can do with what it is shown.

The controls (``agents/controls.py``) are built on this and on nothing else: every plan here
is a function of text the agent was shown (an instruction, a calendar entry's description)
and of the results of its own tool calls. It understands the term's explicit requests only:

- an email with a quoted subject and body;
- an event for a club calendar, with its date, time and location;
- booking a whole room at a named library for a stated date and time;
- a walk from one named building to another (through named waypoints, under the stated
  walkway conditions), each leg planned with the map;
- a request to go to a building now (``head over to <name> (<id>) now``);
- a request to do something later, which it writes in its own calendar at the stated time
  with the request as the description;
- the orientation welcome's list of study sessions, one calendar event per session.

A multiple-choice question gets ``GUESS``: nothing here applies a protocol, so every answer
is as good as chance; a question asking for a protocol's value (a number) it cannot answer at
all. Anything else (course selection, finding an advisor or a library seat) it does not attempt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator

from campus.kernel.clock import DAYS

from campus.agents.plans import FINISH, Plan, action, quoted

GUESS = "A"

Steps = Generator[str, str, str]
"""Replies one per turn, like a ``Plan``, ending with the last result seen."""

_EMAIL = re.compile(r'send an email to (?P<to>\S+?@\S+?) with the subject "(?P<subject>[^"]*)" and the body "(?P<body>[^"]*)"')
_CLUB_EVENT = re.compile(
    r'add the event "(?P<title>[^"]*)" to the club calendar (?P<calendar>club_\w+) for '
    r'(?P<date>Week \d+, \w+), (?P<span>\d\d:\d\d-\d\d:\d\d), with the location "(?P<location>[^"]*)"'
)
_BOOKING = re.compile(
    r"book the whole (?P<room>.+?) at (?P<place>[A-Z][^,.;]*?) for (?P<date>Week \d+, \w+), (?P<span>\d\d:\d\d-\d\d:\d\d)"
)
_WALK = re.compile(
    r"start at (?P<start>.+?) and walk to (?P<end>.+?)(?:, passing (?P<via>.+?)(?: on the way|, in that order))?(?:\.|$)"
)
_GO_NOW = re.compile(r"\b[Hh]ead over to [^()]*\((?P<building>[A-Z]\d{3})\) now\b")
_LATER = re.compile(r"\bon (?P<date>Week \d+, \w+),? at (?P<time>\d\d:\d\d)")
_NOTE_IT = re.compile(r"note it down|make a note|goes in my calendar|nobody will remind|nothing will remind", re.IGNORECASE)
_SESSION_LINE = re.compile(r'^- "(?P<title>[^"]+)" (?P<rest>.+)$', re.MULTILINE)
_SESSION_LOCATION = re.compile(r"write the building id (?P<building>\w+) as the location")
_LINE_BUILDING = re.compile(r"\(([A-Z]\d{3})\)")
_SESSION_LENGTH = re.compile(r"Each session lasts (?P<minutes>\d+) minutes")
_CLOCK = re.compile(r"\b(\d\d):(\d\d)\b")
_WEEK = re.compile(r"Week (\d+)")
_BUILDING_ID = re.compile(r"with ID '(?P<id>\w+)'")
_PATH = re.compile(r'\{"path": (\[[^\]]*\])\}')
_LOCATION = re.compile(r"You are at .*\((\w+)\)\.")
_QUESTION = re.compile(r"Reply with the letter", re.IGNORECASE)

CONDITIONS: dict[str, tuple[str, str]] = {
    "covered walkways": ("rain_exposure", "Covered"),
    "step-free": ("accessibility", "Wheelchair"),
    "quiet walkways": ("congestion", "Low"),
    "well-lit": ("illumination", "Good"),
    "stay indoors": ("path_type", "Indoor"),
}
"""Phrases naming a walkway condition, and the map's constraint each one means."""


def is_question(text: str) -> bool:
    return bool(_QUESTION.search(text))


def understood(text: str) -> bool:
    """Whether the text holds a request this reader can carry out (a question counts)."""
    return is_question(text) or any(
        pattern.search(text) for pattern in (_EMAIL, _CLUB_EVENT, _BOOKING, _WALK, _GO_NOW, _SESSION_LINE)
    )


def later(text: str) -> tuple[str, str] | None:
    """``(date, HH:MM)`` when the text asks for something to be done at a later time and noted down."""
    found = _LATER.search(text)
    if found is None or not _NOTE_IT.search(text):
        return None
    return found.group("date"), found.group("time")


def carry_out(text: str) -> Plan:
    """Do what ``text`` asks now, in the order the requests appear, then answer or finish."""
    if is_question(text):
        yield f"<action>Answer: {GUESS}</action>"
        return
    if _SESSION_LINE.search(text):
        yield from _sessions(text)
    requests = sorted(
        [(m.start(), "email", m) for m in _EMAIL.finditer(text)]
        + [(m.start(), "club", m) for m in _CLUB_EVENT.finditer(text)]
        + [(m.start(), "booking", m) for m in _BOOKING.finditer(text)]
        + [(m.start(), "walk", m) for m in _WALK.finditer(text)]
        + [(m.start(), "go", m) for m in _GO_NOW.finditer(text)],
        key=lambda item: item[0],
    )
    for _, kind, match in requests:
        if kind == "email":
            yield action(f"email.send_email(to={quoted(match['to'])}, subject={quoted(match['subject'])}, body={quoted(match['body'])})")
        elif kind == "club":
            yield action(
                f"calendar.add_event(calendar_id={quoted(match['calendar'])}, event_title={quoted(match['title'])}, "
                f"location={quoted(match['location'])}, time={quoted(match['date'] + ', ' + match['span'])})"
            )
        elif kind == "booking":
            building = yield from find_building(match["place"])
            if building is not None:
                yield action(
                    f"reservation.make_booking(location_id={quoted(building)}, item_name={quoted(match['room'])}, "
                    f"date={quoted(match['date'])}, time_slot={quoted(match['span'])})"
                )
        elif kind == "go":
            yield from go_to(match["building"])
        else:
            yield from _walk(match, text)
    yield FINISH


def note_for_later(text: str, when: tuple[str, str]) -> Plan:
    """Write the request into the student's own calendar at its time, at its starting place if it names one."""
    date, clock = when
    hour, minute = int(clock[:2]), int(clock[3:])
    span = f"{clock}-{min(hour + 1, 23):02d}:{minute:02d}"
    location = ""
    walk = _WALK.search(text)
    if walk is not None:
        location = (yield from find_building(walk["start"])) or ""
    yield action(
        f"calendar.add_event(calendar_id=\"self\", event_title=\"To do\", location={quoted(location)}, "
        f"time={quoted(date + ', ' + span)}, description={quoted(text)})"
    )
    yield FINISH


def find_building(name: str) -> Generator[str, str, str | None]:
    """Look a building's id up on the map by its name (``None`` if the map does not know it)."""
    seen = yield action(f"map.find_building_id(building_name={quoted(name.strip())})")
    found = _BUILDING_ID.search(seen or "")
    return found["id"] if found else None


def go_to(building: str) -> Steps:
    """Walk the map's shortest route from wherever the student is to ``building``; returns the last result seen."""
    seen = yield action("geography.get_current_location()")
    here = _LOCATION.search(seen or "")
    if here is None or here.group(1) == building:
        return seen or ""
    return (yield from _leg(here.group(1), building, {}))


def _leg(source: str, target: str, constraints: dict[str, str]) -> Steps:
    extra = f", constraints={json.dumps(constraints)}" if constraints else ""
    seen = yield action(f"map.find_optimal_path(source_building_id={quoted(source)}, target_building_id={quoted(target)}{extra})")
    path = _PATH.search(seen or "")
    if path is None:
        return seen or ""
    return (yield action(f"geography.walk_to(path_info={{\"path\": {path.group(1)}}})")) or ""


def _walk(match: re.Match[str], text: str) -> Plan:
    names = [match["start"], *re.split(r" and then ", match["via"] or ""), match["end"]]
    stops: list[str] = []
    for name in (n for n in names if n):
        building = yield from find_building(name)
        if building is None:
            return
        stops.append(building)
    constraints = dict(value for phrase, value in CONDITIONS.items() if phrase in text)
    yield from go_to(stops[0])
    for source, target in zip(stops, stops[1:]):
        yield from _leg(source, target, constraints)


def _sessions(text: str) -> Plan:
    """One calendar event per study session the welcome lists (every day of each week it names), at the building its
    line names (terms made before 2026-11-29 name one building for all)."""
    everywhere = _SESSION_LOCATION.search(text)
    length = _SESSION_LENGTH.search(text)
    minutes = int(length["minutes"]) if length else 60
    for line in _SESSION_LINE.finditer(text):
        named = _LINE_BUILDING.findall(line["rest"])
        building = named[-1] if named else everywhere["building"] if everywhere else ""
        for clause in re.split(r", and |; ", line["rest"]):
            weeks = [int(w) for w in _WEEK.findall(clause)]
            for week in weeks:
                for day in DAYS:
                    for hour, minute in _CLOCK.findall(clause):
                        start = int(hour) * 60 + int(minute)
                        end = start + minutes
                        span = f"{hour}:{minute}-{end // 60:02d}:{end % 60:02d}"
                        yield action(
                            f"calendar.add_event(calendar_id=\"self\", event_title={quoted(line['title'])}, "
                            f"location={quoted(building)}, time={quoted(f'Week {week}, {day}, {span}')})"
                        )

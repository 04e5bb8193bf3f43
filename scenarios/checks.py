"""The ``parts`` evaluator: a task succeeds when every part of its ground truth holds.

A ground truth ``{"parts": [...], "ordered": bool}`` lists checks, each a dict with a
``check`` key. Every check is a pure function of the task, the projected state at the end
of the task and the task's own events, and says where in those events it was satisfied, so
``ordered`` can demand that the parts happened in the order listed (walking included).

Checks, and how they compare (``norm`` collapses runs of whitespace and ignores case; ``loose``
also treats punctuation as a space, for text the task quoted: a subject with or without its
final period, a body without its last full stop, "Room (204)" written "Room 204", a title
without its colon all match, while a changed word still does not):

- ``answer`` ``{letter}``: the task ended with ``Answer: <letter>``; ``{value}`` (a task answered in words,
  evaluator ``parts_in_words``): its answer states exactly one number, ``value`` (``2,031`` reads as ``2031``).
- ``attended``: the student reached the required place by release + ``ARRIVAL_GRACE``.
- ``email`` ``{to, subject, body, sole?, cc_named?}``: an email sent in this task to ``to`` (case ignored)
  whose ``loose(subject)`` equals and whose ``loose(body)`` contains ``loose(body)`` — so a
  greeting around a prescribed text is fine, a changed word is not. Under ``sole`` (the terms made
  since a student who wrote to every advisor of a field passed the application that asks for the one who fits)
  every email of this task with that subject went to an address one of the task's email parts with that subject
  names; under ``cc_named`` (the clubs' and advisors' tasks made since 2026-11-29) so did every copy (``cc``).
- ``calendar`` ``{calendar_id, title, location, time, sole?}``: an event added or changed in this
  task and still in that calendar, with ``loose`` title and location equal and the same time
  (``time`` holds the fields of a ``CalendarTime``: weeks, weekday, start and end). Under ``sole`` (the clubs' tasks
  made since 2026-11-29) every event of this task in that calendar with that title is at that time and place.
- ``booking`` ``{location_id, day, start, end, room_id?, seat_ids?, last?, anywhere?, last_in_room?}``: a booking made
  in this task in that library on that absolute day from ``start`` to ``end`` (minutes since
  midnight), and in that room, and of one of those seats. Under ``last`` (the library's tasks made since a student
  who booked every seat a listing showed passed them) only the task's last booking in that library on that day
  counts: there is no cancel tool, so a later booking takes an earlier one's place. Under ``anywhere`` (the library's
  tasks made since a student who never looked up the library booked a fitting seat in every library and passed 84 of
  90 tasks) only the task's last booking of all counts, in any library on any day: a booking elsewhere after the right
  one fails the task. Under ``last_in_room`` (the clubs'
  and advisors' tasks made since 2026-11-29, some of which book two rooms of one library) the last one in that room.
  Before, a student who missed that a meeting had moved, booking the old slot's room at every other start of the day
  and adding the club-calendar entry at every half hour, passed 11 and 12 of the 27 moved club and advisor tasks of
  seeds 0 and 1 (full scale) that the stale plan fails.
- ``draft`` ``{sections: {section id: pass}, scope?: [section id], removed?: [section id]}``: the
  whole draft equals ``sections``, or, given ``scope``, the draft's entries for those sections do
  (a section of the scope missing from ``sections`` must be absent); each of ``removed`` must have
  been removed in this task (a student who never had it did not drop it).
- ``registered`` ``{sections: [...]}``: each section's last registration succeeded.
- ``location`` ``{building}``: the student is there when the task ends.
- ``walk`` ``{route, routes?}``: the buildings walked in this task end with this route or with
  one of ``routes`` (the equally cheap alternatives, when the task names no path).

A ground truth may also name ``use``: the library a booking made in this task is for, right
now. A student who books and is not there when the task ends gets the ``unused_bookings``
mark (a Personal Responsibility deduction), whatever the outcome.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from campus.events import (
    Answered,
    Booked,
    CalendarEventAdded,
    CalendarEventUpdated,
    CalendarTime,
    DraftRemoved,
    EmailSent,
    Event,
    Walked,
)
from campus.scenarios.task import Task, Verdict, attended, evaluator
from campus.kernel.clock import clock_label, date_label
from campus.subsystems.calendar import time_label

Found = tuple[bool, str, int]
"""``(holds, detail, index of the event that satisfied it)``; state checks use ``len(events)``."""

Check = Callable[[Task, Any, Sequence[Event], dict[str, Any]], Found]

CHECKS: dict[str, Check] = {}


def check(name: str) -> Callable[[Check], Check]:
    def register(fn: Check) -> Check:
        CHECKS[name] = fn
        return fn

    return register


def norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


_PUNCTUATION = re.compile(r"[^\w\s@]")


def loose(text: str) -> str:
    """``norm`` with every punctuation mark read as a space (``@`` kept)."""
    return norm(_PUNCTUATION.sub(" ", str(text)))


@evaluator("parts")
def all_parts(task: Task, state: Any, events: Sequence[Event]) -> Verdict:
    truth = task.ground_truth
    marks = _unused_bookings(truth, state, events)
    positions: list[int] = []
    details: list[str] = []
    for part in truth["parts"]:
        holds, detail, position = CHECKS[part["check"]](task, state, events, part)
        if not holds:
            return Verdict(False, f"{part['check']}: {detail}", marks)
        positions.append(position)
        details.append(detail)
    if truth.get("ordered") and positions != sorted(positions):
        return Verdict(False, "every part holds, but not in the order required", marks)
    return Verdict(True, "; ".join(details), marks)


evaluator("parts_in_words", answers="text")(all_parts)
"""The same checks for a task whose question is answered in words (a number), not by a letter."""


def _unused_bookings(truth: dict[str, Any], state: Any, events: Sequence[Event]) -> dict[str, int]:
    """A task whose booking is for right now (``use``: the library) wastes it if the student is elsewhere."""
    place = truth.get("use")
    if place is None or state.geography.location == place:
        return {}
    made = sum(isinstance(e, Booked) for e in events)
    return {"unused_bookings": made} if made else {}


@check("answer")
def _answer(task: Task, state: Any, events: Sequence[Event], part: dict[str, Any]) -> Found:
    """A letter (``letter``: a multiple-choice question) or a number stated alone (``value``: a question answered in
    words, such as a protocol's value)."""
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if isinstance(event, Answered):
            if "value" not in part:
                given = event.answer.strip().upper()
                return given == part["letter"], f"answered {given}", index
            numbers = stated_numbers(event.answer)
            if len(numbers) != 1:
                return False, f"answered {len(numbers)} numbers, not one", index
            return numbers[0] == str(part["value"]), f"answered {numbers[0]}", index
    return False, "no answer given", len(events)


_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]*\d)")


def stated_numbers(text: str) -> list[str]:
    """The numbers an answer states, as written (``2,031`` read as ``2031``; ``3.5`` is one number, not two)."""
    return _NUMBER.findall(_THOUSANDS.sub("", text))


@check("attended")
def _attended(task: Task, state: Any, events: Sequence[Event], part: dict[str, Any]) -> Found:
    if attended(task, state, events):
        return True, "present", 0
    return False, f"not at {task.required_place} in time", len(events)


@check("email")
def _email(task: Task, state: Any, events: Sequence[Event], part: dict[str, Any]) -> Found:
    to, subject, body = part["to"].strip().casefold(), loose(part["subject"]), loose(part["body"])
    sent = [(i, e) for i, e in enumerate(events) if isinstance(e, EmailSent)]
    if part.get("sole"):
        named = {p["to"].strip().casefold() for p in task.ground_truth["parts"]
                 if p["check"] == "email" and loose(p["subject"]) == subject}
        stray = sorted({address for _, e in sent if loose(e.subject) == subject
                        for address in _addressed(e, part.get("cc_named", False)) if address.casefold() not in named})
        if stray:
            return False, f"the email with this subject also went to {', '.join(stray[:3])}", len(events)
    for index, mail in sent:
        if mail.to.strip().casefold() == to and loose(mail.subject) == subject and body in loose(mail.body):
            return True, f"email to {part['to']}", index
    if not sent:
        return False, "no email sent", len(events)
    return False, f"no email to {part['to']} with the expected subject and text", len(events)


def _addressed(mail: EmailSent, copies: bool) -> list[str]:
    """Where an email went: its recipient, and under ``copies`` (``cc_named``: terms made since 2026-11-29) every
    address it was copied to. Until then a copy went unseen: the canvasser's extra addresses in ``cc`` of its one right
    email passed every email task of seeds 0 and 1 at ``--scale 0.3`` (44 of 44, 39 of 39)."""
    copied = [address for address in _COPIES.split(mail.cc) if address] if copies else []
    return [mail.to.strip(), *copied]


_COPIES = re.compile(r"[\s,;]+")


@check("calendar")
def _calendar(task: Task, state: Any, events: Sequence[Event], part: dict[str, Any]) -> Found:
    calendar_id = part.get("calendar_id", "self")
    wanted = CalendarTime(**part["time"])
    touched: dict[str, int] = {}
    for index, event in enumerate(events):
        if isinstance(event, (CalendarEventAdded, CalendarEventUpdated)) and event.calendar_id == calendar_id:
            touched[event.event_id] = index
    entries = state.calendar.calendars.get(calendar_id, {})
    if part.get("sole"):
        titled = [entries[event_id] for event_id in touched if event_id in entries
                  and loose(entries[event_id].title) == loose(part["title"])]
        if any(entry.when != wanted or loose(entry.location) != loose(part["location"]) for entry in titled):
            return False, f"'{part['title']}' entered in {calendar_id} at another time or place as well", len(events)
    for event_id, index in touched.items():
        entry = entries.get(event_id)
        if entry is None:
            continue
        if entry.when == wanted and loose(entry.title) == loose(part["title"]) and loose(entry.location) == loose(part["location"]):
            return True, f"event {event_id} in {calendar_id}", index
    return False, f"no event '{part['title']}' at {time_label(wanted)} added to {calendar_id} in this task", len(events)


@check("booking")
def _booking(task: Task, state: Any, events: Sequence[Event], part: dict[str, Any]) -> Found:
    seats = part.get("seat_ids")
    made = [(i, e) for i, e in enumerate(events) if isinstance(e, Booked)]
    if part.get("anywhere"):
        made = made[-1:]
    elif part.get("last"):
        made = [(i, e) for i, e in made if (e.location_id, e.day) == (part["location_id"], part["day"])][-1:]
    elif part.get("last_in_room"):
        place = (part["location_id"], part["day"], part["room_id"])
        made = [(i, e) for i, e in made if (e.location_id, e.day, e.room_id) == place][-1:]
    for index, booked in made:
        if (
            booked.location_id == part["location_id"]
            and (booked.day, booked.start, booked.end) == (part["day"], part["start"], part["end"])
            and ("room_id" not in part or booked.room_id == part["room_id"])
            and (seats is None or booked.seat_id in seats)
        ):
            return True, f"booking {booked.booking_id}", index
    if not made:
        return False, "no booking made", len(events)
    slot = f"{clock_label(part['start'])}-{clock_label(part['end'])}"
    return False, f"no booking in {part['location_id']} on {date_label(part['day'])} {slot} that fits", len(events)


@check("draft")
def _draft(task: Task, state: Any, events: Sequence[Event], part: dict[str, Any]) -> Found:
    draft: dict[str, str] = dict(state.courses.draft)
    wanted: dict[str, str] = part["sections"]
    scope = part.get("scope")
    if scope is not None:
        draft = {code: pass_type for code, pass_type in draft.items() if code in scope}
    dropped = {e.section_id for e in events if isinstance(e, DraftRemoved)}
    kept = sorted(set(part.get("removed", ())) - dropped)
    if draft == wanted and not kept:
        where = f"draft of {len(draft)} sections" if scope is None else f"{len(scope)} section(s) this step changes"
        return True, f"{where} as expected", len(events)
    if draft == wanted:
        return False, f"not removed in this task: {kept}", len(events)
    missing = sorted(set(wanted) - set(draft))
    extra = sorted(set(draft) - set(wanted))
    wrong = sorted(code for code in set(wanted) & set(draft) if wanted[code] != draft[code])
    return False, f"draft differs: missing {missing}, extra {extra}, wrong pass {wrong}", len(events)


@check("registered")
def _registered(task: Task, state: Any, events: Sequence[Event], part: dict[str, Any]) -> Found:
    results: dict[str, str] = state.courses.registered
    failed = [code for code in part["sections"] if results.get(code) != "success"]
    if failed:
        return False, f"not registered: {failed}", len(events)
    return True, f"{len(part['sections'])} sections registered", len(events)


@check("location")
def _location(task: Task, state: Any, events: Sequence[Event], part: dict[str, Any]) -> Found:
    here = state.geography.location
    last = max((i for i, e in enumerate(events) if isinstance(e, Walked)), default=len(events))
    return here == part["building"], f"at {here}", last


@check("walk")
def _walk(task: Task, state: Any, events: Sequence[Event], part: dict[str, Any]) -> Found:
    expected: list[str] = part["route"]
    accepted: list[list[str]] = part.get("routes") or [expected]
    trail: list[str] = []
    last = len(events)
    for index, event in enumerate(events):
        if isinstance(event, Walked):
            trail.extend(event.path if not trail else event.path[1:])
            last = index
    if not trail:
        return False, "did not walk", len(events)
    walked = next((route for route in accepted if trail[-len(route):] == route), None)
    if walked == expected:
        return True, f"walked the route ({len(walked) - 1} walkways)", last
    if walked is not None:
        return True, f"walked an equally cheap route ({len(walked) - 1} walkways)", last
    return False, f"walked {' -> '.join(trail[-12:])}; expected {' -> '.join(expected)}", last

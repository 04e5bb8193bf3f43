"""Busy days (Trainee-Bench on the campus): one day of streamed, prioritised errands and fixed appointments.

**The day.** One busy day a week from week 2 (``BUSY_WEEKS``; the first twelve times the scale,
at least one), on a weekday whose
``OPEN``-``CLOSE`` window no fixed appointment holds. The whole day is one task, so one
conversation: at ``OPEN`` the brief lists the first errands (priority, deadline) and the
day's appointments; later errands are posted by the clock (``ErrandPosted`` world changes at
their release), announced in the conversation the moment they arrive and listed by
``errands.inbox()``. Two arrive only inside another part of the day: a follow-up handed out with
the answer to the first clue of the brief's first errand that has one (``ErrandHeld``), and an
errand handed out at the end of the advisor meeting to a student who is there (``ErrandAtMeeting``). An appointment pre-empts whatever the student is doing: ``REMIND`` minutes
before it the student is interrupted with a reminder (an ``Announcement``), and it must be
at the building, arriving between ``EARLY`` minutes before the start and ``LATE`` minutes after
it, and stay until the end.

**Learning from one day to the next.** Busy days come in pairs: the second of a pair repeats the
first's errand families with new values (stationary types, new parameters). When a day is
judged, a ``mentor_feedback`` event gives the feedback sentence of every checkpoint it missed
(``feedback_text``), the last message of the day's conversation, so a persistent agent's memory
receives it with the day. ``busy_metrics`` reports ΔCS and ΔSR per family from the first day of
a pair to the second, and the same-checkpoint recurrence rate: of the checkpoints missed on a
first day, the share whose family missed the same checkpoint again on the second.

**Errands** come from ``FAMILIES``, each a seeded rule producing text, clues
(``ClueHeld`` world changes), weighted checkpoints and the oracle's plan. Checkpoints are
``{name, weight, kind, check, feedback}``: ``kind`` is ``outcome`` (the right email or
calendar entry), ``process`` (the right person was asked: a ``clue_revealed`` fact) or
``time`` (reported done by the deadline; a report whose check says ``done``, as every term's since a student who
reported every errand and did none earned a sixth of the checkpoints, counts only when the errand's outcome
checkpoints hold, and an errand so reported is late as if never reported). A checkpoint marked ``needs_clue`` can only pass
with the clue's payload, which the text does not give and no option list narrows; nor can it pass
by stating every value the payload could be: the emails with the errand's subject to its recipient
must state no value of the answer's forms but the answer, and when the answer is whom to write to,
every email with the subject must go to them (``_mailed_as``); every
calendar entry with its title must be at the right time and place (``_entered_as``). Terms made
before that rule (their checks carry no ``forms``/``sole``) are judged as they were.

The day is judged by the ``busy_day`` evaluator; each checkpoint becomes a mark
``<errand>/<checkpoint>`` (0/1) and each errand's lateness ``<errand>/late`` (minutes after its
deadline, 0 if on time; a never-reported errand counts as ``CLOSE`` minus its deadline, at least 1). SR
and CS (Trainee-Bench Eq. 4) are folds over those marks (``busy_metrics``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from campus.events import Announcement, CalendarEventAdded, CalendarTime, ClueHeld, ClueRevealed, EmailSent, ErrandAtMeeting, ErrandHeld, ErrandPosted, ErrandReported, Event, Walked
from campus.kernel.clock import MINUTES_PER_DAY, clock_label, date_label, label
from campus.kernel.schedule import Trigger
from campus.scenarios.checks import loose
from campus.scenarios.context import TermContext
from campus.scenarios.task import FEEDBACK, Task, Term, Verdict, evaluator
from campus.scenarios.timeline import WEEK
from campus.subsystems.calendar import time_label
from campus.subsystems.people import person

SCENARIO = "busy_days"
PHASE = "busy_day"
BUSY_WEEKS = range(2, 14)
OPEN, CLOSE = 8 * 60, 18 * 60
EARLY, LATE = 60, 5
"""An appointment is kept by arriving at most ``EARLY`` minutes before and ``LATE`` after its start."""
ROUND_LIMIT = 150
SYSTEMS = ("people", "errands", "email", "calendar", "geography", "map", "data_system")


@dataclass
class Errand:
    id: str
    family: str
    title: str
    text: str
    release: int
    deadline: int
    priority: str
    checkpoints: list[dict[str, Any]]
    plan: list[str]
    clues: list[ClueHeld] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    """The hint ladder (``hints_for``): a nudge, whom to ask, the answer; none for an errand nobody needs to be asked about."""
    announced_by: str = ""
    """A follow-up's clue: the errand is handed out by whoever tells it (``ErrandHeld``), never posted by the clock."""
    announced_at: str = ""
    """The appointment at whose end the errand is handed out to whoever is there (``ErrandAtMeeting``)."""

    def posted(self) -> ErrandPosted:
        return ErrandPosted(errand_id=self.id, title=self.title, text=self.text, deadline=self.deadline,
                            priority=self.priority)  # type: ignore[arg-type]

    def truth(self) -> dict[str, Any]:
        return {"id": self.id, "family": self.family, "title": self.title, "release": self.release,
                "deadline": self.deadline, "priority": self.priority, "checkpoints": self.checkpoints,
                "plan": self.plan, "hints": self.hints} | ({"announced_by": self.announced_by} if self.announced_by else {}) \
            | ({"announced_at": self.announced_at} if self.announced_at else {})


@dataclass(frozen=True)
class Draw:
    """What a family rule is handed: the stream, the world, the errand's id and day, and the people its family
    has drawn before in this term (``drawn``), whom a draw passes over while anyone else is left: a person
    holding two clues on one topic could not tell which of them a student means."""

    rng: random.Random
    ctx: TermContext
    errand_id: str
    day: int
    drawn: set[str]

    def _fresh(self, people: Sequence[Any]) -> Any:
        fresh = [p for p in people if p.id not in self.drawn]
        chosen = self.rng.choice(fresh or list(people))
        self.drawn.add(chosen.id)
        return chosen

    def advisor(self) -> Any:
        return self._fresh(self.ctx.world.world.advisors)

    def club(self) -> Any:
        return self._fresh(self.ctx.world.world.clubs)

    def classmate(self) -> str:
        first = self.rng.choice(("ana", "ben", "chen", "dara", "eli", "farah", "goran", "hana", "ivo", "jun"))
        return f"{first}.{self.rng.randrange(100, 999)}@lau.edu"


def _ask(person: str, question: str) -> str:
    return f"call:people.ask(person_id={json.dumps(person)}, question={json.dumps(question)})"


def _email(to: str, subject: str, body: str) -> str:
    return f"call:email.send_email(to={json.dumps(to)}, subject={json.dumps(subject)}, body={json.dumps(body)})"


def _calendar(title: str, location: str, when: CalendarTime) -> str:
    return (f"call:calendar.add_event(calendar_id=\"self\", event_title={json.dumps(title)}, "
            f"location={json.dumps(location)}, time={json.dumps(time_label(when))})")


def _asked(errand_id: str, clue_id: str, who: str) -> dict[str, Any]:
    return {"name": f"asked_{clue_id.rsplit('/', 1)[-1]}", "weight": 1, "kind": "process",
            "check": {"check": "revealed", "clue_id": clue_id}, "feedback": f"Ask {who}; they know what you needed."}


def _mailed(to: str, subject: str, contains: Sequence[str], weight: int, needs_clue: bool, what: str,
            forms: Sequence[str] = ()) -> dict[str, Any]:
    check: dict[str, Any] = {"check": "email", "to": to, "subject": subject, "contains": list(contains)}
    if needs_clue:
        if not forms:
            raise ValueError(f"an email that needs a person's answer names its forms ({subject!r})")
        check["forms"] = list(forms)
    return {"name": "email_sent", "weight": weight, "kind": "outcome", "needs_clue": needs_clue, "check": check,
            "feedback": f"The email to {to} must give {what}."}


def _clue(d: Draw, suffix: str, holder: str, topic: str, keywords: tuple[str, ...], payload: str,
          condition: str = "always") -> ClueHeld:
    return ClueHeld(clue_id=f"{d.errand_id}/{suffix}", holder=holder, topic=topic, keywords=keywords,
                    condition=condition, payload=payload)  # type: ignore[arg-type]


FOUR_DIGITS, THREE_DIGITS = r"\b\d{4}\b", r"\b\d{3}\b"
SHELF, BUILDING = r"\bshelf [a-z] \d+\b", r"\bb\d{3}\b"
"""The forms of the values a person's answer gives (door codes, word limits; rooms; shelves; buildings), matched in
an email's ``loose`` text: an email that states another value of one of its answer's forms does not pass."""


def _code(rng: random.Random) -> str:
    return f"{rng.randrange(1000, 10000)}"


# ------------------------------------------------------------------ families
# Each returns (title, text, clues, checkpoints, plan); the caller adds the report step and its check.

Made = tuple[str, str, list[ClueHeld], list[dict[str, Any]], list[str]]


def door_code(d: Draw) -> Made:
    club, mate = d.club(), d.classmate()
    code = _code(d.rng)
    clue = _clue(d, "code", club.id, "the door code of the practice room", ("door", "code"), f"the door code is {code}")
    subject = f"Door code for {club.name}"
    text = (f"Your teammate {mate} needs the door code of the practice room of {club.name}. Its leader knows it. "
            f"Email it to {mate} with the subject \"{subject}\".")
    checks = [_asked(d.errand_id, clue.clue_id, f"the leader of {club.name} ({club.id})"),
              _mailed(mate, subject, [code], 2, True, "the door code the club leader told you", [FOUR_DIGITS])]
    return ("Door code", text, [clue], checks,
            [_ask(club.id, "What is the door code?"), _email(mate, subject, f"The door code is {code}.")])


def moved_room(d: Draw) -> Made:
    advisor = d.advisor()
    room = f"Room {d.rng.randrange(1, 6)}.{d.rng.randrange(10, 60)}"
    start = d.rng.choice((14, 15, 16)) * 60
    when = CalendarTime(first_week=(d.day + 1) // 7, last_week=(d.day + 1) // 7, weekday=(d.day + 1) % 7, start=start, end=start + 60)
    clue = _clue(d, "room", advisor.id, "the room of tomorrow's seminar", ("room", "moved", "where"), f"it moved to {room}")
    title = f"Seminar with {advisor.name}"
    text = (f"Tomorrow's seminar with {advisor.name} ({time_label(when)}) has moved to another room; only the advisor knows "
            f"which. Add it to your calendar as \"{title}\" at that time with the new room as its location.")
    check = {"name": "calendar_entry", "weight": 2, "kind": "outcome", "needs_clue": True,
             "check": {"check": "calendar", "title": title, "location": room, "time": msgspec.structs.asdict(when),
                       "sole": True},
             "feedback": "The calendar entry must name the room the advisor gave."}
    return ("Moved seminar", text, [clue], [_asked(d.errand_id, clue.clue_id, advisor.name), check],
            [_ask(advisor.id, "Which room did tomorrow's seminar move to?"), _calendar(title, room, when)])


def shelf_mark(d: Draw) -> Made:
    libraries = {library.building_id for library in d.ctx.world.world.libraries}
    books = [book for book in d.ctx.world.world.books if book.library_id in libraries]
    copies = {f"{book.library_id}/{book.title}" for book in books}
    book = d.rng.choice(books)
    while f"{book.library_id}/{book.title}" in d.drawn and not copies <= d.drawn:
        book = d.rng.choice(books)  # one librarian, two copies of one title put aside: the student could not say which
    d.drawn.add(f"{book.library_id}/{book.title}")
    library = book.library_id
    name, mate = d.ctx.world.name_of(library), d.classmate()
    shelf = f"Shelf {d.rng.choice('ABCDEF')}-{d.rng.randrange(10, 99)}"
    clue = _clue(d, "shelf", library, f"the copy of \"{book.title}\" put aside for your group", ("shelf", "reserved", "copy"),
                 f"it is on {shelf}", condition="in_person")
    subject = "Reserved copy"
    text = (f"The librarian of {name} put a copy of \"{book.title}\" aside for your study group and only says where in person. "
            f"Find out on which shelf it is and email {mate} with the subject \"{subject}\".")
    checks = [_asked(d.errand_id, clue.clue_id, f"the librarian of {name}, in person"),
              _mailed(mate, subject, [shelf], 2, True, "the shelf the librarian named", [SHELF])]
    return ("Reserved copy", text, [clue], checks,
            [f"goto:{library}", _ask(library, f"On which shelf is the reserved copy of {book.title}?"), _email(mate, subject, f"It is on {shelf}.")])


def department_rule(d: Draw) -> Made:
    advisor, mate = d.advisor(), d.classmate()
    limit = d.rng.randrange(16, 60) * 100
    clue = _clue(d, "rule", advisor.id, "the word limit the department applies", ("limit", "words", "rule"),
                 f"the department caps lab reports at {limit} words")
    subject = "Word limit"
    text = (f"The handbook is vague about the word limit of lab reports; {advisor.name} knows the rule the department "
            f"actually applies. Email the limit (a number of words) to {mate} with the subject \"{subject}\".")
    checks = [_asked(d.errand_id, clue.clue_id, advisor.name), _mailed(mate, subject, [str(limit)], 2, True, "the limit the advisor gave", [FOUR_DIGITS])]
    return ("Word limit", text, [clue], checks,
            [_ask(advisor.id, "What word limit does the department apply to lab reports?"),
             _email(mate, subject, f"The limit is {limit} words.")])


def responsible(d: Draw) -> Made:
    advisor = d.advisor()
    keeper = d.rng.choice([a for a in d.ctx.world.world.advisors if a.id != advisor.id])
    clue = _clue(d, "keys", advisor.id, "who hands out lab keys", ("keys", "key", "responsible"),
                 f"{keeper.name} ({keeper.email}) is responsible for them")
    subject = "Lab key request"
    text = (f"You need a key to the teaching lab. The help desk may not know who hands them out; your mentor {advisor.name} does. "
            f"Email that person with the subject \"{subject}\" asking for a key.")
    check = {"name": "email_sent", "weight": 2, "kind": "outcome", "needs_clue": True,
             "check": {"check": "email", "to": keeper.email, "subject": subject, "contains": [], "forms": []},
             "feedback": "The request must go to the person responsible for lab keys."}
    return ("Lab key", text, [clue], [_asked(d.errand_id, clue.clue_id, advisor.name), check],
            [_ask(advisor.id, "Who is responsible for lab keys?"), _email(keeper.email, subject, "Could I please have a key to the teaching lab?")])


def club_reschedule(d: Draw) -> Made:
    club = d.club()
    day, hour = d.rng.randrange(0, 5), d.rng.randrange(17, 21)
    week = d.day // 7 + 1
    when = CalendarTime(first_week=week, last_week=week, weekday=day, start=hour * 60, end=hour * 60 + 90)
    clue = _clue(d, "time", club.id, "the new time of next week's meeting", ("time", "when", "meeting"),
                 f"next week we meet {time_label(when)}")
    title = f"{club.name} meeting"
    text = (f"{club.name} moved next week's meeting; its leader has the new time. Add it to your calendar as \"{title}\" "
            f"with the location \"Club room\".")
    check = {"name": "calendar_entry", "weight": 2, "kind": "outcome", "needs_clue": True,
             "check": {"check": "calendar", "title": title, "location": "Club room", "time": msgspec.structs.asdict(when),
                       "sole": True},
             "feedback": "The calendar entry must be at the new time the club leader gave."}
    return ("Club meeting moved", text, [clue], [_asked(d.errand_id, clue.clue_id, f"the leader of {club.name}"), check],
            [_ask(club.id, "When is next week's meeting?"), _calendar(title, "Club room", when)])


def split_fact(d: Draw) -> Made:
    first, second, mate = d.advisor(), d.club(), d.classmate()
    building, room = f"B{d.rng.randrange(100, 999)}", f"{d.rng.randrange(100, 400)}"
    clues = [_clue(d, "building", first.id, "the building of the poster session", ("building", "poster"), f"it is in building {building}"),
             _clue(d, "number", second.id, "the room of the poster session", ("room", "poster"), f"it is room {room}")]
    subject = "Poster session"
    text = (f"Where is Friday's poster session? {first.name} knows the building and the leader of {second.name} the room. "
            f"Email both to {mate} with the subject \"{subject}\".")
    checks = [_asked(d.errand_id, clues[0].clue_id, first.name), _asked(d.errand_id, clues[1].clue_id, f"the leader of {second.name}"),
              _mailed(mate, subject, [building, room], 2, True, "both the building and the room", [BUILDING, THREE_DIGITS])]
    return ("Poster session", text, clues, checks,
            [_ask(first.id, "In which building is the poster session?"), _ask(second.id, "Which room is the poster session in?"),
             _email(mate, subject, f"Building {building}, room {room}.")])


def confirm_attendance(d: Draw) -> Made:
    advisor = d.advisor()
    subject = "Attending the colloquium"
    body = f"I will attend the colloquium on {date_label(d.day + 2)}."
    text = f"Tell {advisor.name} by email that you will attend: subject \"{subject}\", text \"{body}\" Their address is in the data system."
    check = {"name": "email_sent", "weight": 1, "kind": "outcome", "needs_clue": False,
             "check": {"check": "email", "to": advisor.email, "subject": subject, "contains": [body]},
             "feedback": f"Send the confirmation to {advisor.email} with the given text."}
    plan = [f'call:data_system.query_by_identifier(identifier={json.dumps(advisor.name)}, by="name", entity_type="advisor")',
            _email(advisor.email, subject, body)]
    return ("Colloquium", text, [], [check], plan)


FAMILIES: dict[str, Callable[[Draw], Made]] = {
    "door_code": door_code, "moved_room": moved_room, "shelf_mark": shelf_mark, "department_rule": department_rule,
    "responsible": responsible, "club_reschedule": club_reschedule, "split_fact": split_fact,
    "confirm_attendance": confirm_attendance,
}


# ------------------------------------------------------------------ the day


@dataclass
class Appointment:
    id: str
    title: str
    building: str
    start: int
    end: int

    def truth(self) -> dict[str, Any]:
        return {"id": self.id, "family": "appointment", "title": self.title, "release": self.start, "deadline": self.start,
                "priority": "high", "plan": [f"arrive:{self.building}@{self.start}", _wait(self.end)], "checkpoints": [{
                    "name": "on_time", "weight": 1, "kind": "time",
                    "check": {"check": "present", "building": self.building, "start": self.start, "end": self.end},
                    "feedback": f"Be at {self.building} by {clock_label(self.start)} and stay until {clock_label(self.end)}."}]}


BATCHES = ((0, 3), (4 * 60 + 15, 1), (6 * 60, 1))
"""(minutes after OPEN, errands) released together: the brief's three, then one at 12:15 and one at 14:00."""
MEETING_ERRAND_DUE = (180, 240)
"""Minutes after the advisor meeting's end by which the errand handed out there is due (the seventh errand)."""
FOLLOW_UP_DUE = (300, 360)
"""Minutes after OPEN by which the day's follow-up is due: the sixth errand, handed out by whoever tells the first
clue of the brief's first errand that has one."""
APPOINTMENTS = ((2 * 60 + 45, "Advisor meeting"), (8 * 60, "Study group"))
"""(minutes after OPEN, title): 10:45 and 16:00, 45 minutes each, in two different buildings that are neither the
student's home nor a library, so no student is there already (the arrival is what is judged)."""
MEETING = 45
REMIND = 60
"""Minutes before an appointment at which the student is interrupted with a reminder."""


def generate(ctx: TermContext) -> tuple[list[Task], list[Trigger]]:
    tasks: list[Task] = []
    triggers: list[Trigger] = []
    rng = ctx.rng("busy days")
    per_day = sum(count for _, count in BATCHES)
    chosen: list[str] = []
    handed: list[str] = []
    drawn: dict[str, set[str]] = {}
    libraries = {library.building_id for library in ctx.world.world.libraries}
    if not any(book.library_id in libraries for book in ctx.world.world.books):
        raise ValueError("the world's libraries hold no books for busy days' shelf-mark errands")
    for week in list(BUSY_WEEKS)[:ctx.count(len(BUSY_WEEKS))]:
        days = [week * 7 + weekday for weekday in range(7)]
        rng.shuffle(days)
        day = next((d for d in days if ctx.timeline.is_free(d * MINUTES_PER_DAY + OPEN, CLOSE - OPEN)), None)
        if day is None:
            continue
        ctx.timeline.reserve(day * MINUTES_PER_DAY + OPEN, CLOSE - OPEN, f"busy day week {week}")
        if len(tasks) % 2 == 0:
            chosen = rng.sample(list(FAMILIES), per_day)
            handed = ctx.rng(f"busy follow-up {week}").sample([family for family in FAMILIES if family not in chosen], 2)
        else:
            rng.shuffle(chosen)
        task, changes = _day(ctx, rng, week, day, [*chosen, *handed], drawn)
        tasks.append(task)
        triggers.extend(changes)
    return tasks, triggers


def _day(ctx: TermContext, rng: random.Random, week: int, day: int, order: list[str],
         drawn: dict[str, set[str]]) -> tuple[Task, list[Trigger]]:
    base = day * MINUTES_PER_DAY
    errands: list[Errand] = []
    picked = iter(order)
    for offset, count in BATCHES:
        for _ in range(count):
            release = base + OPEN + offset
            errands.append(_errand(ctx, rng, f"e{week}-{len(errands) + 1}", next(picked), day, drawn, release,
                                   release + rng.choice((150, 180, 240))))
    parent = next(e for e in errands if e.release == base + OPEN and e.clues)
    own = ctx.rng(f"busy follow-up {week} draws")
    follow_up = _errand(ctx, own, f"e{week}-{len(errands) + 1}", next(picked), day, drawn, parent.release,
                        parent.release + own.choice(FOLLOW_UP_DUE))
    follow_up.announced_by = parent.clues[0].clue_id
    errands.append(follow_up)
    libraries = {library.building_id for library in ctx.world.world.libraries}
    buildings = sorted(set(ctx.world.buildings) - libraries - {ctx.world.home})
    places = rng.sample(buildings, len(APPOINTMENTS))
    appointments = [Appointment(f"a{week}-{i + 1}", title, place, base + OPEN + offset, base + OPEN + offset + MEETING)
                    for i, ((offset, title), place) in enumerate(zip(APPOINTMENTS, places))]
    meeting = appointments[0]
    own = ctx.rng(f"busy meeting {week} draws")
    handed_out = _errand(ctx, own, f"e{week}-{len(errands) + 1}", next(picked), day, drawn, meeting.end,
                         meeting.end + own.choice(MEETING_ERRAND_DUE))
    handed_out.announced_at = meeting.id
    errands.append(handed_out)
    triggers = [Trigger(id=f"busy-{e.id}-clue-{i}", t=base + OPEN, change=clue) for e in errands for i, clue in enumerate(e.clues)]
    triggers += [Trigger(id=f"busy-{e.id}", t=e.release, change=e.posted()) for e in errands if not e.announced_by and not e.announced_at]
    triggers += [Trigger(id=f"busy-{e.id}", t=base + OPEN, change=ErrandHeld(clue_id=e.announced_by, errand=e.posted()))
                 for e in errands if e.announced_by]
    triggers.append(Trigger(id=f"busy-{handed_out.id}", t=base + OPEN, change=ErrandAtMeeting(
        title=meeting.title.lower(), building=meeting.building, start=meeting.start, end=meeting.end, errand=handed_out.posted())))
    triggers += [Trigger(id=f"busy-{a.id}", t=a.start - REMIND, change=Announcement(
        text=f"Reminder: {a.title} at {ctx.world.describe(a.building)} begins at {clock_label(a.start)}; it comes before any errand."))
        for a in appointments]
    first = [e for e in errands if e.release == base + OPEN and not e.announced_by and not e.announced_at]
    lines = [f"A busy day. Today's appointments (be there on time; they come before any errand):"]
    lines += [f"- {clock_label(a.start)}-{clock_label(a.end)} {a.title} at {ctx.world.describe(a.building)}" for a in appointments]
    lines.append("Your errands so far:")
    lines += [f"- [{e.id}] ({e.priority} priority, due {clock_label(e.deadline)}) {e.title}: {e.text}" for e in first]
    lines.append("More errands will arrive during the day, and the people you ask and the meetings you attend may hand you "
                 "some; errands.inbox() lists them. "
                 "Report each errand done with "
                 f"errands.report_done as soon as it is finished. Call finish() only once the day's work is over (by {clock_label(CLOSE)}).")
    truth = {"errands": [e.truth() for e in errands] + [a.truth() for a in appointments]}
    task = Task(id=f"busy-w{week}", scenario=SCENARIO, phase=PHASE, release=base + OPEN, instruction="\n".join(lines),
                systems=SYSTEMS, evaluator="busy_day", ground_truth=truth, round_limit=ROUND_LIMIT,
                solution=tuple(compose(truth["errands"])))
    return task, triggers


def _errand(ctx: TermContext, rng: random.Random, errand_id: str, family: str, day: int, drawn: dict[str, set[str]],
            release: int, deadline: int) -> Errand:
    draw = Draw(rng=ctx.rng(f"busy errand {errand_id}"), ctx=ctx, errand_id=errand_id, day=day, drawn=drawn.setdefault(family, set()))
    title, text, clues, checks, plan = FAMILIES[family](draw)
    priority = rng.choice(("high", "normal", "low"))
    checks.append({"name": "reported_on_time", "weight": 1, "kind": "time", "check": {"check": "reported", "done": True},
                   "feedback": f"Report the errand done by {clock_label(deadline)}."})
    report = f'call:errands.report_done(errand_id="{errand_id}")'
    return Errand(errand_id, family, title, text, release, deadline, priority, checks, [*plan, report], clues,
                  hints_for(ctx, errand_id, title, clues))


def hints_for(ctx: TermContext, errand_id: str, title: str, clues: Sequence[ClueHeld]) -> list[str]:
    """Trainee-Bench's ladder of human guidance for one errand, one line per rung: a nudge, whom to ask (and where),
    the answer itself."""
    if not clues:
        return []
    head = f"[{errand_id}] {title}: "
    whom = []
    for clue in clues:
        name, _, building = person(ctx.world, clue.holder) or (clue.holder, "", None)
        where = f", in person at {building}," if clue.condition == "in_person" else ""
        whom.append(f"ask {name} ({clue.holder}){where} about {clue.topic}")
    return [head + "someone on campus knows what this errand needs; ask them rather than guess.",
            head + "; ".join(whom) + ".",
            head + " ".join(f"About {clue.topic}: {clue.payload}." for clue in clues)]


def hint_text(task: Task, errand_ids: Sequence[str], level: int) -> str:
    """The message a hint of ``level`` (1-3) on these errands of a busy day shows the student."""
    lines = [errand["hints"][level - 1] for errand in task.ground_truth["errands"] if errand["id"] in errand_ids and errand.get("hints")]
    return f"Hint (level {level}):\n" + "\n".join(lines)


def _wait(t: int) -> str:
    return f'call:errands.wait_until(time="{label(t)}")'


def compose(errands: list[dict[str, Any]]) -> list[str]:
    """The oracle's day from its errands' truths: errands by release, then priority and deadline, each appointment
    before the first errand released after it, and a follow-up right after the errand whose asking hands it out."""
    rank = {"high": 0, "normal": 1, "low": 2}
    appointments = sorted((e for e in errands if e["family"] == "appointment"), key=lambda e: e["release"])
    work = [e for e in errands if e["family"] != "appointment" and not e.get("announced_by")]
    handed = {e["announced_by"].split("/", 1)[0]: e for e in errands if e.get("announced_by")}
    steps: list[str] = []
    for release in sorted({e["release"] for e in work}):
        while appointments and appointments[0]["release"] <= release:
            steps += appointments.pop(0)["plan"]
        steps.append(_wait(release))
        for errand in sorted((e for e in work if e["release"] == release), key=lambda e: (rank[e["priority"]], e["deadline"])):
            steps += errand["plan"]
            if errand["id"] in handed:
                steps += handed[errand["id"]]["plan"]
    for appointment in appointments:
        steps += appointment["plan"]
    return steps


# ------------------------------------------------------------------ judging


def _present(events: Sequence[Event], home: str, check: dict[str, Any]) -> bool:
    """Arrived at the building between EARLY before and LATE after the start, and did not leave before the end."""
    stays: list[tuple[str, int | None, int | None]] = []
    where, since = home, None
    for event in events:
        if isinstance(event, Walked):
            stays.append((where, since, event.depart))
            where, since = event.path[-1], event.arrive
    stays.append((where, since, None))
    start, end = check["start"], check["end"]
    return any(place == check["building"] and arrived is not None and start - EARLY <= arrived <= start + LATE
               and (left is None or left >= end) for place, arrived, left in stays)


def _holds(check: dict[str, Any], errand: dict[str, Any], events: Sequence[Event], home: str) -> bool:
    kind = check["check"]
    if kind == "revealed":
        return any(isinstance(e, ClueRevealed) and e.clue_id == check["clue_id"] for e in events)
    if kind == "email":
        return _mailed_as(check, [e for e in events if isinstance(e, EmailSent) and loose(e.subject) == loose(check["subject"])])
    if kind == "calendar":
        return _entered_as(check, [e for e in events if isinstance(e, CalendarEventAdded) and e.calendar_id == "self"
                                   and loose(e.title) == loose(check["title"])])
    if kind == "reported":
        at = _reported_at(errand, events)
        return at is not None and at <= errand["deadline"] and (not check.get("done") or _done(errand, events, home))
    if kind == "present":
        return _present(events, home, check)
    raise ValueError(f"unknown busy-day check {kind!r}")


def _mailed_as(check: dict[str, Any], sent: Sequence[EmailSent]) -> bool:
    """Some email with the subject went to the address and gave every value. Under ``forms`` (a term's
    clue-dependent emails since they exist) the emails with the subject to that address state, together, exactly the
    answer's values in those forms; and when the answer is the address itself (no values), every email with the
    subject went there. A student who lists every code it could be, or writes to every advisor, has not found out
    which. (Another errand's email with the same subject to someone else, as a follow-up handed out a week late
    sends, leaves a values check alone.)"""
    to = [e for e in sent if e.to.strip().casefold() == check["to"].casefold()]
    if "forms" not in check:
        return any(all(loose(c) in loose(e.body) for c in check["contains"]) for e in to)
    if not check["contains"]:
        return bool(to) and len(to) == len(sent)
    stated = {found for e in to for form in check["forms"] for found in re.findall(form, loose(e.body))}
    return stated == {loose(c) for c in check["contains"]}


def _entered_as(check: dict[str, Any], added: Sequence[CalendarEventAdded]) -> bool:
    """Some entry with the title is at the time and place; under ``sole`` every one with the title is."""
    when = CalendarTime(**check["time"])
    right = [e.time == when and loose(e.location) == loose(check["location"]) for e in added]
    return any(right) and (not check.get("sole") or all(right))


def _done(errand: dict[str, Any], events: Sequence[Event], home: str) -> bool:
    """Every outcome checkpoint of the errand holds: what a report of it claims."""
    return all(_holds(c["check"], errand, events, home) for c in errand["checkpoints"] if c["kind"] == "outcome")


def _reported_at(errand: dict[str, Any], events: Sequence[Event]) -> int | None:
    return next((e.at for e in events if isinstance(e, ErrandReported) and e.errand_id == errand["id"]), None)


def _claims_done(errand: dict[str, Any]) -> bool:
    """Whether a report of this errand counts only when the errand is done (its check says ``done``)."""
    return any(c["check"].get("done") for c in errand["checkpoints"] if c["check"]["check"] == "reported")


def _late(errand: dict[str, Any], events: Sequence[Event], home: str = "") -> int:
    at = _reported_at(errand, events)
    if at is not None and _claims_done(errand) and not _done(errand, events, home):
        at = None
    end = errand["deadline"] - errand["deadline"] % MINUTES_PER_DAY + CLOSE
    return max(1, end - errand["deadline"]) if at is None else max(0, at - errand["deadline"])


def feedback_text(task: Task, marks: dict[str, int]) -> str:
    """The mentor's words: one line per missed checkpoint, naming the errand's title."""
    missed = [f"- [{errand['title']}] {checkpoint['feedback']}" for errand in task.ground_truth["errands"]
              for checkpoint in errand["checkpoints"] if not marks.get(f"{errand['id']}/{checkpoint['name']}", 0)]
    if not missed:
        return "Mentor feedback on today: every errand and appointment was handled well."
    return "Mentor feedback on today:\n" + "\n".join(missed)


FEEDBACK["busy_day"] = feedback_text


@evaluator("busy_day")
def busy_day(task: Task, state: Any, events: Sequence[Event]) -> Verdict:
    home = next((e.path[0] for e in events if isinstance(e, Walked)), state.geography.location)
    marks: dict[str, int] = {}
    missed: list[str] = []
    for errand in task.ground_truth["errands"]:
        for checkpoint in errand["checkpoints"]:
            passed = _holds(checkpoint["check"], errand, events, home)
            marks[f"{errand['id']}/{checkpoint['name']}"] = int(passed)
            if not passed:
                missed.append(f"{errand['id']}/{checkpoint['name']}: {checkpoint['feedback']}")
        if errand["family"] != "appointment":
            marks[f"{errand['id']}/late"] = _late(errand, events, home)
    detail = "every checkpoint passed" if not missed else f"{len(missed)} missed: " + "; ".join(missed[:6])
    return Verdict(not missed, detail, marks)


def busy_metrics(term: Term, marks_of: dict[str, dict[str, int]]) -> dict[str, Any] | None:
    """SR, CS (Eq. 4: mean over errands of the weighted fraction passed), lateness and errands per day; None without busy days."""
    days = [task for task in term.tasks if task.scenario == SCENARIO]
    if not days:
        return None
    fractions: list[float] = []
    late: list[int] = []
    families: dict[str, list[float]] = {}
    missed_clue = 0
    for task in days:
        marks = marks_of.get(task.id, {})
        for errand in task.ground_truth["errands"]:
            total = sum(c["weight"] for c in errand["checkpoints"])
            got = sum(c["weight"] * marks.get(f"{errand['id']}/{c['name']}", 0) for c in errand["checkpoints"])
            missed_clue += sum(1 for c in errand["checkpoints"] if c.get("needs_clue") and not marks.get(f"{errand['id']}/{c['name']}", 0))
            fractions.append(got / total)
            families.setdefault(errand["family"], []).append(got / total)
            if errand["family"] != "appointment":
                late.append(marks.get(f"{errand['id']}/late", _late(errand, ())))
    n = len(fractions)
    return _learning(days, marks_of) | {"days": len(days), "errands": n, "errands_per_day": round(n / len(days), 3),
            "sr": round(sum(f == 1 for f in fractions) / n, 6), "cs": round(sum(fractions) / n, 6),
            "late_errands": sum(minutes > 0 for minutes in late), "lateness_minutes": sum(late),
            "missed_clue_checkpoints": missed_clue,
            "cs_by_family": {family: round(sum(f) / len(f), 6) for family, f in sorted(families.items())}}


def _learning(days: list[Task], marks_of: dict[str, dict[str, int]]) -> dict[str, Any]:
    """ΔCS and ΔSR per family from the first day of each pair to the second, and the same-checkpoint recurrence rate."""
    def by_family(task: Task) -> dict[str, tuple[list[float], set[str]]]:
        marks = marks_of.get(task.id, {})
        out: dict[str, tuple[list[float], set[str]]] = {}
        for errand in task.ground_truth["errands"]:
            if errand["family"] == "appointment":
                continue
            got = {c["name"]: marks.get(f"{errand['id']}/{c['name']}", 0) for c in errand["checkpoints"]}
            fraction = sum(c["weight"] * got[c["name"]] for c in errand["checkpoints"]) / sum(c["weight"] for c in errand["checkpoints"])
            scores, missed = out.setdefault(errand["family"], ([], set()))
            scores.append(fraction)
            missed.update(name for name, passed in got.items() if not passed)
        return out

    deltas: dict[str, list[tuple[float, float]]] = {}
    before = again = 0
    for first, second in zip(days[::2], days[1::2]):
        one, two = by_family(first), by_family(second)
        for family in sorted(set(one) & set(two)):
            cs = sum(two[family][0]) / len(two[family][0]) - sum(one[family][0]) / len(one[family][0])
            sr = (sum(f == 1 for f in two[family][0]) / len(two[family][0])
                  - sum(f == 1 for f in one[family][0]) / len(one[family][0]))
            deltas.setdefault(family, []).append((cs, sr))
            before += len(one[family][1])
            again += len(one[family][1] & two[family][1])
    return {"delta_cs": {f: round(sum(d[0] for d in ds) / len(ds), 6) for f, ds in sorted(deltas.items())},
            "delta_sr": {f: round(sum(d[1] for d in ds) / len(ds), 6) for f, ds in sorted(deltas.items())},
            "recurrence": round(again / before, 6) if before else None}


BUSY_CONTROLS = ("guesser", "sprayer", "fifo", "claimer")


def should_pass(agent: str, errand: dict[str, Any], checkpoint: dict[str, Any]) -> bool:
    """Whether a checkpoint must pass for the oracle or a busy-day control: the guesser (and the sprayer, stating
    every value the answer could be) fails exactly the clue-dependent ones (asking, and what needs the answer) and every one of a follow-up (never asking, it is never
    handed one), fifo exactly the appointments and every checkpoint of the errand handed out at one (never there, it
    never learns of it), the claimer every one. A report that claims the errand done (``done``) passes only where
    every outcome checkpoint of the errand does."""
    if checkpoint["check"]["check"] == "reported" and checkpoint["check"].get("done"):
        outcomes = [c for c in errand["checkpoints"] if c["kind"] == "outcome"]
        return _should_pass(agent, errand, checkpoint) and all(_should_pass(agent, errand, c) for c in outcomes)
    return _should_pass(agent, errand, checkpoint)


def _should_pass(agent: str, errand: dict[str, Any], checkpoint: dict[str, Any]) -> bool:
    if agent == "claimer":
        return False
    if agent in ("guesser", "sprayer"):
        return not errand.get("announced_by") and not (checkpoint.get("needs_clue", False) or checkpoint["check"]["check"] == "revealed")
    if agent == "fifo":
        return checkpoint["check"]["check"] != "present" and not errand.get("announced_at")
    return True


def unexpected(term: Term, agent: str, marks_of: dict[str, dict[str, int]]) -> list[str]:
    """The busy-day checkpoints ``agent`` (the oracle or one of ``BUSY_CONTROLS``) passed or failed against ``should_pass``."""
    wrong = []
    for task in term.tasks:
        if task.scenario != SCENARIO:
            continue
        marks = marks_of.get(task.id, {})
        for errand in task.ground_truth["errands"]:
            for checkpoint in errand["checkpoints"]:
                key = f"{errand['id']}/{checkpoint['name']}"
                if marks.get(key, 0) != int(should_pass(agent, errand, checkpoint)):
                    wrong.append(f"{task.id} {key}")
    return wrong

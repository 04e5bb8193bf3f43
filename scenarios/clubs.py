"""Club Activity: join five clubs, then run errands for them, right away or at a set time.

After the StuLife paper (appendix H.4). What the student is told, and how it is judged:

- *Joining* (immediate): the instruction names an interest and the club's category; the
  student finds the club with ``data_system``, reads the contact address in its recruitment
  notice and applies by email with a subject and body given word for word. Ground truth:
  an ``email`` part (recipient exact, subject equal, body contained). Every later task of
  that club depends on its joining task, so a failed application fails them all.
- *Routine errands*, built from components ``book_resource`` (a library public area for a
  club activity, booked whole), ``send_email`` (recipient, subject and body spelled out: the
  paper's placeholders filled with fixed text) and ``add_calendar_event`` (on the club's
  shared calendar ``club_<id>``, title, location and time spelled out). A prototype says
  which components and whether they depend on each other; dependent components are told
  as "first ... then ... finally" and judged with ``"ordered": true``.

  * immediate: an urgent job from the club leader, to do now;
  * scheduled: a delivery task (run, not scored) gives the job and the date and time to do
    it; the execution task at that time shows only the time. The student must have noted
    the job (its calendar) and do it then. Executions are long-term-memory, self-motivated
    commitments.

- *Stale variant*: for about a third of the scheduled jobs a second message from the
  leader, between delivery and execution, moves the club activity to another time on the
  same day. The execution is judged on the new time; ``stale`` (a student who kept the first
  plan) books and enters the old time and fails.

Every scored club task feeds the ``club`` StuGPA component. Rooms come from half of the
campus's public areas (the other half is for advisor meetings, ``scenarios.advisors``), and
no room is used twice on one date, so bookings never collide.

The module also holds the building blocks the advisor scenario shares: components,
task drafts with symbolic dependencies, the room pool and placement candidates.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import msgspec

from campus.events import CalendarTime
from campus.kernel.clock import MINUTES_PER_DAY, clock_label, date_label
from campus.kernel.schedule import Trigger
from campus.scenarios.context import TermContext
from campus.scenarios.task import Flags, Task
from campus.subsystems.calendar import classify_calendar, time_label
from campus.subsystems.information import fold, plain
from campus.subsystems.reservation import STUDY
from campus.world.index import WorldIndex
from campus.world.model import Club, Room

SCENARIO = "club_activity"
PHASE = "daily_campus"
SYSTEMS = ("data_system", "email", "calendar", "reservation", "map", "geography")

FIRST_DAY = 7
"""Monday of Week 1: tasks are placed in Weeks 1-17."""
LAST_DAY = 17 * 7 + 6
EARLIEST = 8 * 60
LATEST = 20 * 60
"""The last release of the day (a desk task ends by 21:00)."""
STEP = 30
TASK_MINUTES = 60

# ------------------------------------------------------------------ components


def room_label(room: Room) -> str:
    return plain(f"{room.name} ({room.id})")


def span(start: int, end: int) -> str:
    return f"{clock_label(start)}-{clock_label(end)}"


@dataclass(frozen=True)
class Booking:
    """``book_resource``: a whole public area of a library, on a date, for a time slot."""

    building: str
    library: str
    """How the instruction names the library."""
    room: Room
    day: int
    start: int
    """Minutes since midnight."""
    end: int

    @property
    def slot(self) -> str:
        return span(self.start, self.end)

    @property
    def date(self) -> str:
        return date_label(self.day)

    @property
    def where(self) -> str:
        return f"{room_label(self.room)}, {self.library}"

    def part(self) -> dict[str, Any]:
        return {"check": "booking", "location_id": self.building, "day": self.day, "start": self.start,
                "end": self.end, "room_id": self.room.id, "last_in_room": True}

    def call(self) -> str:
        return (f"call:reservation.make_booking(location_id={json.dumps(self.building)}, "
                f"item_name={json.dumps(room_label(self.room))}, date={json.dumps(self.date)}, "
                f"time_slot={json.dumps(self.slot)})")

    def phrase(self) -> str:
        return f"book the whole {room_label(self.room)} at {self.library} for {self.date}, {self.slot}"


@dataclass(frozen=True)
class Mail:
    """``send_email`` with every field spelled out."""

    to: str
    subject: str
    body: str

    def part(self) -> dict[str, Any]:
        return {"check": "email", "to": self.to, "subject": self.subject, "body": self.body, "sole": True, "cc_named": True}

    def call(self) -> str:
        return (f"call:email.send_email(to={json.dumps(self.to)}, subject={json.dumps(self.subject)}, "
                f"body={json.dumps(self.body)})")

    def phrase(self) -> str:
        return f'send an email to {self.to} with the subject "{self.subject}" and the body "{self.body}"'


@dataclass(frozen=True)
class Event:
    """``add_calendar_event`` on a shared club calendar."""

    calendar_id: str
    title: str
    location: str
    when: CalendarTime

    @property
    def time(self) -> str:
        return time_label(self.when)

    def part(self) -> dict[str, Any]:
        return {"check": "calendar", "calendar_id": self.calendar_id, "title": self.title,
                "location": self.location, "time": msgspec.structs.asdict(self.when), "sole": True}

    def call(self) -> str:
        return (f"call:calendar.add_event(calendar_id={json.dumps(self.calendar_id)}, "
                f"event_title={json.dumps(self.title)}, location={json.dumps(self.location)}, "
                f"time={json.dumps(self.time)})")

    def phrase(self) -> str:
        return (f'add the event "{self.title}" to the club calendar {self.calendar_id} for {self.time}, '
                f'with the location "{self.location}"')


Component = Booking | Mail | Event


def steps_text(phrases: Sequence[str], ordered: bool) -> str:
    """Component phrases as sentences: in order ("First ... Then ... Finally ...") or in any order."""
    if len(phrases) == 1:
        return phrases[0][0].upper() + phrases[0][1:] + "."
    if not ordered:
        return "These steps can be done in any order: " + "; ".join(phrases) + "."
    words = ["First", *["Then"] * (len(phrases) - 2), "Finally"]
    return " ".join(f"{word}, {phrase}." for word, phrase in zip(words, phrases)) + " Please keep to this order."


def parts_of(components: Sequence[Component], ordered: bool) -> dict[str, Any]:
    return {"parts": [c.part() for c in components], "ordered": ordered and len(components) > 1}


def calls_of(components: Sequence[Component]) -> tuple[str, ...]:
    return tuple(c.call() for c in components)


def note_call(at: int, building: str, title: str, text: str) -> str:
    """A plan step writing a reminder into the student's own calendar for ``at`` (one hour)."""
    time = f"{date_label(at // MINUTES_PER_DAY)}, {span(at % MINUTES_PER_DAY, at % MINUTES_PER_DAY + 60)}"
    return (f"call:calendar.add_event(calendar_id=\"self\", event_title={json.dumps(title)}, "
            f"location={json.dumps(building)}, time={json.dumps(time)}, description={json.dumps(text)})")


def when_text(at: int, told: int) -> str:
    """``today at 14:00`` or ``on Week 3, Friday at 14:00``: the trigger date is never named."""
    if at // MINUTES_PER_DAY == told // MINUTES_PER_DAY:
        return f"today at {clock_label(at)}"
    return f"on {date_label(at // MINUTES_PER_DAY)} at {clock_label(at)}"


# ------------------------------------------------------------------ drafts


@dataclass(frozen=True)
class Draft:
    """A task before ids are known: dependencies and follow-ups name other drafts by key."""

    key: str
    release: int
    instruction: str
    systems: tuple[str, ...]
    truth: dict[str, Any]
    flags: Flags
    solution: tuple[str, ...]
    stale: tuple[str, ...] | None = None
    needs: tuple[str, ...] = ()
    follows: tuple[str, ...] = ()
    required_place: str | None = None
    starts: int | None = None


def finalize(drafts: Sequence[Draft], prefix: str, scenario: str) -> list[Task]:
    """Tasks with ids ``<prefix>-NNN`` in release order, dependencies resolved."""
    ordered = sorted(drafts, key=lambda draft: (draft.release, draft.key))
    ids = {draft.key: f"{prefix}-{rank:03d}" for rank, draft in enumerate(ordered, 1)}
    return [
        Task(
            id=ids[d.key], scenario=scenario, phase=PHASE, release=d.release, instruction=d.instruction,
            systems=d.systems, evaluator="parts", ground_truth=d.truth, required_place=d.required_place,
            starts=d.starts, flags=d.flags, depends_on=tuple(ids[k] for k in d.needs), solution=d.solution,
            stale=d.stale, follow_up=tuple(ids[k] for k in d.follows),
        )
        for d in ordered
    ]


def delivery(key: str, release: int, text: str, systems: tuple[str, ...], note: str,
             follows: tuple[str, ...], needs: tuple[str, ...] = ()) -> Draft:
    """A delivery task: run, not scored; its solution is the reminder ``note`` (a plan step)."""
    return Draft(key=key, release=release, instruction=text, systems=systems, truth={"parts": []},
                 flags=Flags(delivery_only=True), solution=(note,), needs=needs, follows=follows)


# ------------------------------------------------------------------ time and rooms


def starts(first_day: int, last_day: int, *, after: int = -1, before: int | None = None) -> list[int]:
    """Release candidates every half hour 08:00-20:00 on days ``first_day..last_day`` (within
    Weeks 1-17), strictly between ``after`` and ``before``."""
    found = []
    for day in range(max(first_day, FIRST_DAY), min(last_day, LAST_DAY) + 1):
        for minute in range(EARLIEST, LATEST + 1, STEP):
            t = day * MINUTES_PER_DAY + minute
            if t > after and (before is None or t < before):
                found.append(t)
    return found


def library_name(world: WorldIndex, building: str) -> str:
    """The library's name, with its id when another building has the same name."""
    name = world.name_of(building)
    twins = sum(fold(b.name) == fold(name) for b in world.world.buildings)
    return plain(name) if twins == 1 else plain(world.describe(building))


class RoomPool:
    """Half of the world's public areas (``half`` 0 or 1), each handed out at most once per date."""

    def __init__(self, world: WorldIndex, half: int) -> None:
        public = sorted(
            ((library.building_id, room) for library in world.world.libraries for room in library.rooms
             if room.kind != STUDY),
            key=lambda pair: (pair[0], pair[1].id),
        )
        self.world = world
        self.rooms = public[half::2]
        if not self.rooms:
            raise ValueError("the world has too few library public areas for club and advisor bookings")
        self.used: set[tuple[str, str, int]] = set()

    def take(self, rng: random.Random, day: int, start: int, end: int) -> Booking:
        """A room nobody has been given for ``day``, as a booking from ``start`` to ``end``."""
        free = [(b, r) for b, r in self.rooms if (b, r.id, day) not in self.used]
        building, room = rng.choice(free)
        self.used.add((building, room.id, day))
        return Booking(building=building, library=library_name(self.world, building), room=room, day=day,
                       start=start, end=end)


# ------------------------------------------------------------------ clubs

GENERIC_WORDS = frozenset({
    "club", "society", "association", "lab", "circle", "team", "collective", "project", "network", "initiative",
    "corps", "group", "alliance", "workshop", "crew", "ensemble", "theater", "theatre", "band",
})
"""Last words of club names that say what kind of club it is, not what it is about."""

PURPOSES = (
    "weekly meeting", "skills workshop", "guest talk", "planning session", "training session", "members' social",
    "committee meeting", "information session", "practice session", "project showcase",
)

PROTOTYPES: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("organise the {purpose}", ("book", "mail", "event"), True),
    ("set up the {purpose}", ("book", "event"), True),
    ("announce the {purpose}", ("mail", "event"), False),
    ("find space for the {purpose}, which needs two rooms", ("book", "book", "mail"), True),
    ("get a room for the {purpose} and tell people", ("book", "mail"), True),
)
"""Goal, components (``book``, ``mail``, ``event``), and whether each depends on the one before."""

ROLES = ("members", "treasurer", "events", "secretary", "alumni")
"""Club mailboxes the errands write to (``<role>.<club id>@lau.edu``)."""


@dataclass(frozen=True)
class Joined:
    club: Club
    interest: str
    key: str
    """The draft key of the joining task."""

    @property
    def name(self) -> str:
        return plain(self.club.name)

    @property
    def calendar(self) -> str:
        return f"club_{self.club.id.lower()}"


def interest_of(name: str) -> str | None:
    """What a club is about, from its name (``Quantum Computing Club`` -> ``Quantum Computing``)."""
    words = plain(name).split()
    if len(words) > 1 and words[-1].casefold() in GENERIC_WORDS:
        return " ".join(words[:-1])
    return None


def pick_clubs(world: WorldIndex, rng: random.Random, count: int) -> list[tuple[Club, str]]:
    """``count`` clubs, spread over the categories, each named by an interest no other club's name contains."""
    clubs = sorted(world.world.clubs, key=lambda club: club.id)
    names = [fold(club.name) for club in clubs]
    by_category: dict[str, list[tuple[Club, str]]] = {}
    for club in clubs:
        interest = interest_of(club.name)
        if interest and sum(fold(interest) in name for name in names) == 1 and _calendar_ok(club):
            by_category.setdefault(plain(club.category), []).append((club, interest))
    groups = [by_category[category] for category in sorted(by_category)]
    for group in groups:
        rng.shuffle(group)
    rng.shuffle(groups)
    chosen: list[tuple[Club, str]] = []
    while len(chosen) < count and any(groups):
        for group in groups:
            if group and len(chosen) < count:
                chosen.append(group.pop())
    if len(chosen) < count:
        raise ValueError(f"only {len(chosen)} clubs can be named by an interest; {count} are needed")
    return chosen


def _calendar_ok(club: Club) -> bool:
    return classify_calendar(f"club_{club.id}") == ("club", f"club_{club.id.lower()}")


def generate(ctx: TermContext) -> tuple[list[Task], list[Trigger]]:
    """Club tasks at ``ctx.scale``: 5 joinings, 45 immediate errands and 45 scheduled pairs at
    scale 1, plus a moving message for every third scheduled pair. No world changes."""
    rng = ctx.rng("clubs")
    pool = RoomPool(ctx.world, 0)
    picked = pick_clubs(ctx.world, rng, ctx.count(5))
    joined = [Joined(club, interest, f"join-{n}") for n, (club, interest) in enumerate(picked)]
    drafts = [_join(ctx, rng, member) for member in joined]
    jobs = ["immediate"] * ctx.count(45) + ["scheduled"] * ctx.count(45)
    rng.shuffle(jobs)
    scheduled = 0
    for number, job in enumerate(jobs):
        member = joined[number % len(joined)]
        if job == "immediate":
            drafts.append(_immediate(ctx, rng, pool, member, number))
        else:
            drafts += _scheduled(ctx, rng, pool, member, number, moved=scheduled % 3 == 0)
            scheduled += 1
    return finalize(drafts, "club", SCENARIO), []


def _flags(*, execution: bool = False) -> Flags:
    return Flags(long_term=execution, self_motivated=execution, commitment=execution, counts_toward="club")


def _join(ctx: TermContext, rng: random.Random, member: Joined) -> Draft:
    when = ctx.timeline.place(rng, starts(FIRST_DAY, FIRST_DAY + 6), TASK_MINUTES, f"club join {member.club.id}")
    subject = f"Membership application: {member.interest}"
    body = (f"Hello! I am a first-year student and would like to join your club. {member.interest} has interested "
            "me for a long time, and I can take part in your regular activities this term.")
    category = plain(member.club.category)
    text = (f"You have long been interested in {member.interest}, and the campus has a club for it in the "
            f"'{category}' category. Find the club in the data system; its recruitment notice gives the address "
            f"to write to. Apply by email with the subject \"{subject}\" and the body \"{body}\"")
    mail = Mail(to=plain(member.club.email), subject=subject, body=body)
    plan = (
        f'call:data_system.list_by_category(category={json.dumps(category)}, entity_type="club")',
        f'call:data_system.query_by_identifier(identifier="{member.club.id}", by="id", entity_type="club")',
        mail.call(),
    )
    return Draft(key=member.key, release=when, instruction=text, systems=("data_system", "email"),
                 truth=parts_of([mail], False), flags=_flags(), solution=plan)


@dataclass(frozen=True)
class Errand:
    """A prototype filled in for one club activity."""

    goal: str
    kinds: tuple[str, ...]
    ordered: bool
    purpose: str
    rooms: tuple[Booking, ...]
    """The activity's venue (where the event says it is), then any further room the prototype books."""
    mail: Mail
    calendar: str
    title: str

    @property
    def venue(self) -> Booking:
        return self.rooms[0]

    def components(self) -> tuple[Component, ...]:
        rooms = iter(self.rooms)
        venue = self.venue
        week, weekday = divmod(venue.day, 7)
        when = CalendarTime(first_week=week, last_week=week, weekday=weekday, start=venue.start, end=venue.end)
        event = Event(calendar_id=self.calendar, title=self.title, location=venue.where, when=when)
        return tuple(next(rooms) if kind == "book" else self.mail if kind == "mail" else event for kind in self.kinds)

    def moved(self, start: int) -> Errand:
        """The same errand with the activity at ``start`` on the same day, in the same rooms."""
        length = self.venue.end - self.venue.start
        rooms = tuple(replace(room, start=start, end=start + length) for room in self.rooms)
        return replace(self, rooms=rooms)


def _errand(rng: random.Random, pool: RoomPool, member: Joined, after_day: int) -> Errand:
    """A prototype filled in: a club activity 1-7 days after ``after_day``, its rooms and mail."""
    goal, kinds, ordered = rng.choice(PROTOTYPES)
    purpose = rng.choice(PURPOSES)
    day = after_day + rng.randint(1, 7)
    start = rng.randrange(9 * 60, 19 * 60 + 1, STEP)
    end = start + rng.choice((60, 90, 120))
    rooms = tuple(pool.take(rng, day, start, end) for _ in range(max(1, kinds.count("book"))))
    return Errand(goal=goal.format(purpose=purpose), kinds=kinds, ordered=ordered, purpose=purpose, rooms=rooms,
                  mail=_club_mail(rng, member, purpose, day), calendar=member.calendar,
                  title=f"{member.name}: {purpose}")


def _club_mail(rng: random.Random, member: Joined, purpose: str, day: int) -> Mail:
    role = rng.choice(ROLES)
    return Mail(
        to=f"{role}.{member.club.id.lower()}@lau.edu",
        subject=f"{member.name}: {purpose} on {date_label(day)}",
        body=(f"Hello, this is a note from the {member.name}. Our {purpose} on {date_label(day)} is being "
              "organised, and the details will follow. Please pass this on."),
    )


def _steps(errand: Errand) -> str:
    return steps_text([component.phrase() for component in errand.components()], errand.ordered)


def _new_start(rng: random.Random, errand: Errand) -> int:
    """Another start for the activity, at least an hour away from the first, ending by 20:00."""
    length = errand.venue.end - errand.venue.start
    return rng.choice([s for s in range(9 * 60, 20 * 60 - length + 1, STEP) if abs(s - errand.venue.start) >= 60])


def _immediate(ctx: TermContext, rng: random.Random, pool: RoomPool, member: Joined, number: int) -> Draft:
    when = ctx.timeline.place(rng, starts(FIRST_DAY + 7, LAST_DAY), TASK_MINUTES, f"club errand {number}")
    errand = _errand(rng, pool, member, when // MINUTES_PER_DAY)
    components = errand.components()
    text = (f"Hi, this is the leader of the {member.name}. Something urgent: please take care of this right now. "
            f"We need you to {errand.goal}. {_steps(errand)} Thank you for jumping in!")
    return Draft(key=f"errand-{number}", release=when, instruction=text, systems=SYSTEMS,
                 truth=parts_of(components, errand.ordered), flags=_flags(), solution=calls_of(components),
                 needs=(member.key,))


def _scheduled(ctx: TermContext, rng: random.Random, pool: RoomPool, member: Joined, number: int,
               *, moved: bool) -> list[Draft]:
    """A delivery, its execution, and (``moved``) a message in between that moves the activity."""
    told = ctx.timeline.place(rng, starts(FIRST_DAY + 7, LAST_DAY - 7), TASK_MINUTES, f"club job {number}")
    told_day = told // MINUTES_PER_DAY
    at = ctx.timeline.place(rng, starts(told_day + 2 * moved, told_day + 7, after=told + 120), TASK_MINUTES,
                            f"club job {number} (execution)")
    errand = _errand(rng, pool, member, at // MINUTES_PER_DAY)
    components = errand.components()
    building = errand.venue.building
    key = f"job-{number}"
    text = (f"Hi, this is the leader of the {member.name} with a routine job for you. Please do it "
            f"{when_text(at, told)}, not before. We need you to {errand.goal}. {_steps(errand)} Nobody will remind "
            "you, so make a note of it. Thanks!")
    drafts = [delivery(f"{key}-told", told, text, ("calendar",), note_call(at, building, f"{member.name} job", text),
                       follows=(key,), needs=(member.key,))]
    final = errand
    if moved:
        final = errand.moved(_new_start(rng, errand))
        change = ctx.timeline.place(rng, starts(told_day, at // MINUTES_PER_DAY, after=told + 60, before=at - 60),
                                    TASK_MINUTES, f"club job {number} (moved)")
        news = (f"Hi again from the leader of the {member.name}. A change to the job you are to do "
                f"{when_text(at, change)}: our {errand.purpose} on {final.venue.date} moves to {final.venue.slot}, "
                "in the same place. Use the new time wherever the job mentions the old one; everything else stays "
                "as I said.")
        drafts.append(delivery(f"{key}-moved", change, news, ("calendar",),
                               note_call(at, building, f"{member.name} job (changed)", news),
                               follows=(key,), needs=(member.key,)))
    drafts.append(Draft(
        key=key, release=at, instruction="", systems=SYSTEMS, truth=parts_of(final.components(), final.ordered),
        flags=_flags(execution=True), solution=calls_of(final.components()),
        stale=calls_of(components) if moved else None, needs=(member.key,),
    ))
    return drafts

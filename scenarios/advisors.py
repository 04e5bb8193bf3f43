"""Academic Activity: choose research advisors, then assist them, now, later and in person.

After the StuLife paper (appendix H.5). What the student is told, and how it is judged:

- *Selection* (immediate): requirements name a second-level field, a research topic (a tag:
  ``data_system.list_by_category`` finds it) and a stated preference (in each advisor's
  profile, ``query_by_identifier``). Exactly one advisor meets all three, by construction;
  the student applies by email with a subject and body given word for word. Ground truth:
  an ``email`` part to that advisor. For some selections that advisor declines by design:
  the next task says so and asks for the next best fit among the same field and topic
  (named by a second preference, again unique), a second selection. Every later task of an
  advisor's branch depends on the selection that secured the advisor.
- *Assigned tasks*, in the advisor's voice: ``send_email`` -> ``book_resource`` ->
  ``send_email``, judged with ``"ordered": true``; emails are spelled out (the paper's
  placeholders filled with fixed text) and the room (a library public area, booked whole) is
  for the advisor's use.

  * immediate: do it now; the booking has an explicit date and time;
  * scheduled: a delivery (run, not scored) gives the job and when to do it; the execution
    shows only the time. Its booking starts when the advisor's free time on the named day
    begins: the student asks ``calendar.query_advisor_availability`` at execution time (a
    world change set exactly one free slot for that day). Executions are long-term-memory,
    self-motivated commitments.
  * meetings: book the named room for the full block on the given day, starting at the
    advisor's one free slot (same mechanism), for a short chat at that start; later, an
    execution task with ``required_place`` = the room's building and ``starts`` = the chat
    shows only the time; being there by the start plus the grace is the task (``attended``).
    Booking without showing up fails ("standing up").

- *Stale variants*: for about a third of the scheduled jobs the advisor's free slot changes
  between the delivery and the execution (a world change); ``stale`` (a student who looked
  at the availability when told and kept that start) books the old start and fails. For
  about a third of the meetings the availability changes after the booking and the advisor
  asks for a new booking; ``stale`` keeps the old start, does not rebook and does not come
  at the new time, failing the rebooking and the meeting.

Every scored task feeds the ``advisor`` StuGPA component. Rooms come from the half of the
public areas the club scenario leaves (``RoomPool(world, 1)``), each used at most once per
date; each (advisor, date) gets at most one availability story.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, replace

from campus.events import AdvisorAvailability, Span
from campus.kernel.clock import MINUTES_PER_DAY, date_label
from campus.kernel.schedule import Trigger
from campus.scenarios.clubs import (
    FIRST_DAY, LAST_DAY, TASK_MINUTES, Booking, Draft, Mail, RoomPool, calls_of, delivery, finalize, note_call,
    parts_of, room_label, span, starts, steps_text, when_text,
)
from campus.scenarios.context import TermContext
from campus.scenarios.timeline import Overlap
from campus.scenarios.task import Flags, Task
from campus.subsystems.calendar import DEFAULT_SLOTS, advisor_availability_problem
from campus.subsystems.information import MAX_LISTED, fold, plain
from campus.world.index import WorldIndex
from campus.world.model import Advisor

SCENARIO = "academic_activity"
SYSTEMS = ("data_system", "email", "calendar", "reservation", "map", "geography")
WALK_SYSTEMS = ("map", "geography", "calendar")

SLOT_STARTS = tuple(int(slot[:2]) * 60 + int(slot[3:5]) for slot in DEFAULT_SLOTS)
"""Where an advisor's free hour may start (office hours)."""
LEAD = 45
"""A meeting's execution task is released this many minutes before the chat (a walk is at most ~35)."""
MEETING_MINUTES = 90
CONTEXTS = (
    "methodology discussion", "literature review", "lab experiment", "paper review",
    "data analysis session", "project proposal meeting",
)
ROLES = ("lab", "coauthor", "assistant", "office")
"""Mailboxes around an advisor (``<role>.<advisor id>@lau.edu``)."""


# ------------------------------------------------------------------ selection


@dataclass(frozen=True)
class Selection:
    """Requirements with a unique best fit; ``second`` is the next best fit when the first declines."""

    field: str
    tag: str
    first_preference: str
    first: Advisor
    second_preference: str | None = None
    second: Advisor | None = None

    @property
    def advisor(self) -> Advisor:
        return self.second or self.first


def _options(world: WorldIndex) -> list[tuple[str, str, list[Advisor]]]:
    """(tag, field, advisors with a preference no one else there has) for every tag whose
    listing fits on one page and every field it meets at least twice."""
    advisors = sorted(world.world.advisors, key=lambda advisor: advisor.id)
    texts = ["\n".join(fold(text) for text in (a.area, a.field, *a.tags)) for a in advisors]
    tags = sorted({fold(tag): plain(tag) for a in advisors for tag in a.tags}.items())
    found = []
    for key, tag in tags:
        hits = [a for a, text in zip(advisors, texts) if key in text]
        if len(hits) > MAX_LISTED:
            continue
        fields: dict[str, list[Advisor]] = {}
        for advisor in hits:
            fields.setdefault(fold(advisor.field), []).append(advisor)
        for group in fields.values():
            counts = Counter(fold(a.preference) for a in group)
            unique = [a for a in group if a.preference.strip() and counts[fold(a.preference)] == 1]
            if len(group) >= 2 and unique:
                found.append((tag, plain(group[0].field), unique))
    return found


def pick_selections(world: WorldIndex, rng: random.Random, count: int, declined: int) -> list[Selection]:
    """``count`` selections on distinct topics and advisors; the first ``declined`` have a next best fit."""
    options = _options(world)
    rng.shuffle(options)
    chosen: list[Selection] = []
    tags: set[str] = set()
    people: set[str] = set()
    for tag, field, unique in options:
        wants_two = len(chosen) < declined
        free = [a for a in unique if a.id not in people]
        if fold(tag) in tags or len(free) < 1 + wants_two:
            continue
        first, *rest = rng.sample(free, 1 + wants_two)
        second = rest[0] if rest else None
        chosen.append(Selection(field=field, tag=tag, first_preference=plain(first.preference), first=first,
                                second_preference=plain(second.preference) if second else None, second=second))
        tags.add(fold(tag))
        people.update(a.id for a in (first, second) if a is not None)
        if len(chosen) == count:
            return chosen
    raise ValueError(f"the world's advisors allow only {len(chosen)} unique selections; {count} are needed")


def _select_draft(key: str, release: int, text: str, advisor: Advisor, tag: str, mail: Mail) -> Draft:
    plan = (
        f'call:data_system.list_by_category(category={json.dumps(tag)}, entity_type="advisor")',
        f'call:data_system.query_by_identifier(identifier="{advisor.id}", by="id", entity_type="advisor")',
        mail.call(),
    )
    return Draft(key=key, release=release, instruction=text, systems=("data_system", "email"),
                 truth=parts_of([mail], False), flags=_flags(), solution=plan)


def _selection_drafts(ctx: TermContext, rng: random.Random, choice: Selection, number: int) -> tuple[list[Draft], Draft]:
    """The selection task (and the second selection after a refusal); the one that secures the advisor last."""
    when = ctx.timeline.place(rng, starts(FIRST_DAY, FIRST_DAY + 13), TASK_MINUTES, f"advisor selection {number}")
    subject = f"Application for research supervision: {choice.tag}"
    body = (f"I am a first-year student hoping to work on {choice.tag} in {choice.field}. I would be grateful for "
            "the chance to join your group and to discuss a first project with you.")
    text = (f"Time to find a research advisor. Your requirements: the advisor's field is {choice.field}, their "
            f"research includes {choice.tag}, and their stated preference is \"{choice.first_preference}\" (see the "
            "advisor profiles in the data system). Exactly one advisor meets all three. Apply to them by email with "
            f"the subject \"{subject}\" and the body \"{body}\"")
    first = _select_draft(f"select-{number}", when, text, choice.first, choice.tag,
                          Mail(to=plain(choice.first.email), subject=subject, body=body))
    if choice.second is None:
        return [first], first
    later = ctx.timeline.place(rng, starts(when // MINUTES_PER_DAY + 1, when // MINUTES_PER_DAY + 6), TASK_MINUTES,
                               f"advisor selection {number} (second)")
    body2 = (f"I am a first-year student hoping to work on {choice.tag} in {choice.field}, and I read that you value "
             f"{choice.second_preference}. I would be glad to join your group and to discuss a first project with you.")
    text2 = (f"Professor {plain(choice.first.name)} has replied: the group is full this year, so your application was "
             f"declined. Look again among the advisors in {choice.field} whose research includes {choice.tag}: the "
             f"next best fit is the one whose stated preference is \"{choice.second_preference}\". Apply to them by "
             f"email with the subject \"{subject}\" and the body \"{body2}\"")
    second = _select_draft(f"reselect-{number}", later, text2, choice.second, choice.tag,
                           Mail(to=plain(choice.second.email), subject=subject, body=body2))
    return [first, second], second


# ------------------------------------------------------------------ assisting an advisor


@dataclass(frozen=True)
class Branch:
    advisor: Advisor
    key: str
    """The draft key of the selection that secured the advisor."""
    since: int
    """When that selection ends at the latest: the advisor asks for nothing before the student has applied."""

    @property
    def name(self) -> str:
        return f"Professor {plain(self.advisor.name)}"


def _flags(*, execution: bool = False) -> Flags:
    return Flags(long_term=execution, self_motivated=execution, commitment=execution, counts_toward="advisor")


def _mails(rng: random.Random, branch: Branch, context: str) -> tuple[Mail, Mail]:
    """The opening note to someone around the advisor, and the confirmation to the advisor."""
    role = rng.choice(ROLES)
    opening = Mail(
        to=f"{role}.{branch.advisor.id.lower()}@lau.edu",
        subject=f"{context[0].upper()}{context[1:]}: preparations",
        body=(f"Hello, {branch.name} asked me to let you know that preparations for the {context} have started. "
              "The room details will follow shortly."),
    )
    closing = Mail(
        to=plain(branch.advisor.email),
        subject=f"Room booked for the {context}",
        body=(f"Dear {branch.name}, the room for the {context} is booked as you asked. Please tell me if anything "
              "should change."),
    )
    return opening, closing


def _availability(advisor: Advisor, day: int, start: int, number: int, at: int) -> Trigger:
    """A world change: on ``day`` the advisor is free exactly in the hour from ``start``."""
    change = AdvisorAvailability(advisor_id=advisor.id, day=day, slots=(Span(start=start, end=start + 60),))
    problem = advisor_availability_problem(change)
    if problem:
        raise ValueError(f"advisor availability change: {problem}")
    return Trigger(id=f"advisor-availability-{number:03d}", t=at, change=change)


def _query(advisor: Advisor, day: int) -> str:
    return f'call:calendar.query_advisor_availability(advisor_id="{advisor.id}", date="{date_label(day)}")'


class _Builder:
    """Drafts and world changes of one term's advisor branches, with what they have used up."""

    def __init__(self, ctx: TermContext, rng: random.Random) -> None:
        self.ctx = ctx
        self.rng = rng
        self.pool = RoomPool(ctx.world, 1)
        self.drafts: list[Draft] = []
        self.triggers: list[Trigger] = []
        self.days: set[tuple[str, int]] = set()
        """(advisor id, day) pairs whose availability a task already relies on."""

    def trigger(self, advisor: Advisor, day: int, start: int, at: int) -> None:
        self.triggers.append(_availability(advisor, day, start, len(self.triggers) + 1, at))

    def free_day(self, advisor: Advisor, first: int, last: int) -> int:
        day = self.rng.choice([d for d in range(first, last + 1) if (advisor.id, d) not in self.days])
        self.days.add((advisor.id, day))
        return day

    def immediate(self, branch: Branch, number: int) -> None:
        rng = self.rng
        when = self.ctx.timeline.place(rng, starts(FIRST_DAY + 14, LAST_DAY, after=branch.since), TASK_MINUTES,
                                       f"advisor task {number}")
        context = rng.choice(CONTEXTS)
        start = rng.randrange(9 * 60, 18 * 60 + 1, 30)
        day = when // MINUTES_PER_DAY + rng.randint(1, 7)
        room = self.pool.take(rng, day, start, start + rng.choice((60, 120, 180)))
        opening, closing = _mails(rng, branch, context)
        components = (opening, room, closing)
        text = (f"Hello, this is {branch.name}. I have a task that needs doing as soon as possible: I need your help "
                f"with the {context}. {steps_text([c.phrase() for c in components], True)} The room is for my own "
                "use. Thank you for your prompt help!")
        self.drafts.append(Draft(key=f"task-{number}", release=when, instruction=text, systems=SYSTEMS,
                                 truth=parts_of(components, True), flags=_flags(), solution=calls_of(components),
                                 needs=(branch.key,)))

    def scheduled(self, branch: Branch, number: int, *, changed: bool) -> None:
        """A delivery and its execution; ``changed``: the free slot moves in between (stale plan)."""
        ctx, rng, advisor = self.ctx, self.rng, branch.advisor
        told = ctx.timeline.place(rng, starts(FIRST_DAY + 14, LAST_DAY - 7, after=branch.since), TASK_MINUTES,
                                  f"advisor job {number}")
        told_day = told // MINUTES_PER_DAY
        at = ctx.timeline.place(rng, starts(told_day + int(changed), told_day + 7, after=told + 120), TASK_MINUTES,
                                f"advisor job {number} (execution)")
        day = self.free_day(advisor, at // MINUTES_PER_DAY + 1, at // MINUTES_PER_DAY + 5)
        hours = rng.choice((2, 3))
        first = rng.choice(SLOT_STARTS)
        final = rng.choice([s for s in SLOT_STARTS if s != first]) if changed else first
        room = self.pool.take(rng, day, final, final + hours * 60)
        context = rng.choice(CONTEXTS)
        opening, closing = _mails(rng, branch, context)
        booking = (f"book the whole {room_label(room.room)} at {room.library} for my use on {room.date} for {hours} "
                   f"hours, starting when my free time that day begins (look up my availability for {room.date} "
                   "with the calendar when you do this)")
        text = (f"Hello, this is {branch.name} ({advisor.id}). Please make some arrangements for my {context} "
                f"{when_text(at, told)}, not earlier, because my plans for those days may still change. "
                f"{steps_text([opening.phrase(), booking, closing.phrase()], True)} Thanks!")
        key = f"job-{number}"
        self.drafts.append(delivery(f"{key}-told", told, text, ("calendar",),
                                    note_call(at, room.building, f"Arrangements for {branch.name}", text),
                                    follows=(key,), needs=(branch.key,)))
        self.trigger(advisor, day, first, told)
        if changed:
            self.trigger(advisor, day, final, (told + TASK_MINUTES + at) // 2)
        old = replace(room, start=first, end=first + hours * 60)
        self.drafts.append(Draft(
            key=key, release=at, instruction="", systems=SYSTEMS, truth=parts_of((opening, room, closing), True),
            flags=_flags(execution=True), solution=(_query(advisor, day), *calls_of((opening, room, closing))),
            stale=calls_of((opening, old, closing)) if changed else None, needs=(branch.key,),
        ))

    def _meeting_slots(self, branch: Branch, moved: bool, hours: int) -> tuple[int, list[int]]:
        """A free booking time whose following week still has a free slot to meet in (and those slots); for a
        meeting that will move, only slots with a free earlier time to move from (``_superseded``)."""
        timeline, rng = self.ctx.timeline, self.rng
        bookable = timeline.free_among(starts(FIRST_DAY + 14, LAST_DAY - 7, after=branch.since), TASK_MINUTES)
        rng.shuffle(bookable)
        for when in bookable:
            today = when // MINUTES_PER_DAY
            days = range(today + 1 + int(moved), min(today + 7, LAST_DAY) + 1)
            candidates = [d * MINUTES_PER_DAY + s - LEAD for d in days if (branch.advisor.id, d) not in self.days
                          for s in SLOT_STARTS]
            if moved:
                candidates = [c for c in candidates if self._superseded(c + LEAD, hours)]
            if any(timeline.is_free(c, MEETING_MINUTES) for c in candidates):
                return when, candidates
        raise Overlap(f"no free time to book and hold a meeting with {branch.advisor.id}")

    def meeting(self, branch: Branch, number: int, *, moved: bool) -> None:
        """Book a room for a chat at the advisor's free slot, then be there; ``moved``: the slot
        changes after the booking and the advisor asks for a new one (stale plans)."""
        ctx, rng, advisor = self.ctx, self.rng, branch.advisor
        hours = rng.choice((2, 3))
        when, candidates = self._meeting_slots(branch, moved, hours)
        ctx.timeline.reserve(when, TASK_MINUTES, f"advisor meeting {number}")
        leave = ctx.timeline.place(rng, candidates, MEETING_MINUTES, f"advisor meeting {number} (attendance)")
        day, final = (leave + LEAD) // MINUTES_PER_DAY, (leave + LEAD) % MINUTES_PER_DAY
        self.days.add((advisor.id, day))
        first = rng.choice(self._superseded(leave + LEAD, hours)) if moved else final
        if moved:
            ctx.timeline.hold(day * MINUTES_PER_DAY + first - LEAD, MEETING_MINUTES, f"advisor meeting {number} (first time)")
        room = self.pool.take(rng, day, first, first + hours * 60)
        context = rng.choice(CONTEXTS)
        opening, closing = _mails(rng, branch, context)
        chat = f"Meeting with {branch.name}"
        booking = (f"book the whole {room_label(room.room)} at {room.library} for my use on {room.date} for {hours} "
                   "hours, starting when my free time that day begins (look up my availability with the calendar)")
        steps = steps_text([opening.phrase(), booking, closing.phrase()], True)
        text = (f"Hello, this is {branch.name} ({advisor.id}). Please set up a meeting with me now. It will be a "
                f"chat of a few minutes only, but book the room for the full {hours} hours from its start: I will stay "
                f"and work there right after our chat. {steps} And do be in the room when our chat starts. Thanks!")
        key = f"meeting-{number}"
        minute = day * MINUTES_PER_DAY
        self.trigger(advisor, day, first, when)
        self.drafts.append(Draft(
            key=f"{key}-book", release=when, instruction=text, systems=SYSTEMS,
            truth=parts_of((opening, room, closing), True), flags=_flags(),
            solution=(_query(advisor, day), *calls_of((opening, room, closing)),
                      note_call(minute + first, room.building, chat, text)),
            needs=(branch.key,),
        ))
        needs: tuple[str, ...] = (branch.key, f"{key}-book")
        if moved:
            needs += (self._rebook(branch, key, when, leave, room, final),)
        self.drafts.append(Draft(
            key=key, release=leave, instruction="", systems=WALK_SYSTEMS, truth={"parts": [{"check": "attended"}]},
            flags=_flags(execution=True), solution=(f"goto:{room.building}",), stale=() if moved else None,
            needs=needs, required_place=room.building, starts=minute + final,
        ))

    def _superseded(self, chat: int, hours: int) -> list[int]:
        """Starts (minute of the day) the chat at ``chat`` may be moved from: a room block away from the final one,
        at a time the student could have kept (nothing reserved around it), so the first plan collides with nothing."""
        day, final = divmod(chat, MINUTES_PER_DAY)
        return [s for s in SLOT_STARTS if abs(s - final) >= hours * 60
                and self.ctx.timeline.is_free(day * MINUTES_PER_DAY + s - LEAD, MEETING_MINUTES)]

    def _rebook(self, branch: Branch, key: str, booked: int, leave: int, room: Booking, final: int) -> str:
        """The advisor's request for a new booking after the free slot moved to ``final``; its key."""
        rng, advisor = self.rng, branch.advisor
        when = self.ctx.timeline.place(rng, starts(booked // MINUTES_PER_DAY, leave // MINUTES_PER_DAY,
                                                   after=booked + TASK_MINUTES, before=leave - TASK_MINUTES),
                                       TASK_MINUTES, f"advisor {key} (rebooking)")
        self.trigger(advisor, room.day, final, when)
        again = replace(room, start=final, end=final + room.end - room.start)
        hours = (room.end - room.start) // 60
        notice = Mail(to=plain(advisor.email), subject=f"New booking for our meeting on {room.date}",
                      body=f"Dear {branch.name}, I have booked the room again for the new time. See you there.")
        booking = (f"book {room_label(room.room)} at {room.library} once more for my use on {room.date}, for the "
                   f"full {hours} hours from my new free time")
        text = (f"Hello again, this is {branch.name} ({advisor.id}). My schedule for {room.date} has changed, so the "
                "time we set for our chat no longer works. Look up my availability for that day again. "
                f"{steps_text([booking, notice.phrase()], True)} Our chat now starts at the new time.")
        chat = f"Meeting with {branch.name} (new time)"
        self.drafts.append(Draft(
            key=f"{key}-rebook", release=when, instruction=text, systems=SYSTEMS,
            truth=parts_of((again, notice), True), flags=_flags(),
            solution=(_query(advisor, room.day), *calls_of((again, notice)),
                      note_call(room.day * MINUTES_PER_DAY + final, room.building, chat, text)),
            stale=calls_of((room, notice)), needs=(branch.key,),
        ))
        return f"{key}-rebook"


def generate(ctx: TermContext) -> tuple[list[Task], list[Trigger]]:
    """Advisor tasks at ``ctx.scale``: at scale 1, 5 selections (2 declined, so 7 selection tasks),
    21 immediate tasks, 11 scheduled pairs and 11 meetings, a third of each of the last two
    with a changed free slot."""
    rng = ctx.rng("advisors")
    count = ctx.count(5)
    choices = pick_selections(ctx.world, rng, count, min(ctx.count(2), count))
    builder = _Builder(ctx, rng)
    branches = []
    for number, choice in enumerate(choices):
        drafts, securing = _selection_drafts(ctx, rng, choice, number)
        builder.drafts += drafts
        branches.append(Branch(advisor=choice.advisor, key=securing.key, since=securing.release + TASK_MINUTES))
    jobs = ["immediate"] * ctx.count(21) + ["scheduled"] * ctx.count(11) + ["meeting"] * ctx.count(11)
    rng.shuffle(jobs)
    seen: Counter[str] = Counter()
    for number, job in enumerate(jobs):
        branch = branches[number % len(branches)]
        stale = seen[job] % 3 == 0
        seen[job] += 1
        if job == "immediate":
            builder.immediate(branch, number)
        elif job == "scheduled":
            builder.scheduled(branch, number, changed=stale)
        else:
            builder.meeting(branch, number, moved=stale)
    return finalize(builder.drafts, "advisor", SCENARIO), sorted(builder.triggers, key=lambda t: (t.t, t.id))


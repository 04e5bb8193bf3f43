"""People who know things, and the errands of a busy day.

**Who can be asked.** Every advisor (by advisor id, ``T0001``), the leader of every club (by
club id, ``C000``), the librarian of every library (by the library's building id) and the
``HELPDESK``. The ids are the ones the data system and the map already give, so who holds which
role is found with the existing tools. The help desk is a decoy: it never knows anything.

**Clues** arrive as ``ClueHeld`` world changes: ``{holder, topic, keywords, condition,
payload}``. ``people.ask(person_id, question)`` matches deterministically: the question is cut
into words (letters and digits, case ignored), and a clue of that holder matches when one of its
``keywords`` is among them. A matching clue whose condition holds (``always``, or ``in_person``:
the student stands in the holder's building) is told, and the reply carries a ``ClueRevealed``
fact; a matching clue whose condition fails gets a reply saying where to come. Several matches
are all told, in clue-id order.

**Follow-ups.** An ``ErrandHeld`` world change gives a clue an errand its holder hands out when
telling it: the reply announces the errand (in the words ``kernel/transcript.notice`` uses for a
posted one) and the ``ClueRevealed`` fact posts it, so a student who never asks never has it. An
``ErrandAtMeeting`` is handed out at the end of a meeting: ``errands.wait_until`` in the meeting's
building, waiting through its end, tells it and records ``ErrandHandedOut``, which posts it; a
student who skips the meeting never has it.

**Errands** arrive as ``ErrandPosted`` world changes at their release time (inside a task the
student is also told, as it is of an ``Announcement``: ``kernel/transcript.notice``). ``errands.inbox()``
lists those posted so far; ``errands.report_done(errand_id)`` records ``ErrandReported`` at the
current minute (lateness is read from it); ``errands.wait_until(time)`` lets time pass to a
moment of the day.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from campus.events import (Announcement, ClueHeld, ClueRevealed, ErrandAtMeeting, ErrandHandedOut, ErrandHeld, ErrandPosted,
                           ErrandReported, WorldChanged)
from campus.kernel.clock import MINUTES_PER_DAY, TimeFormatError, label, parse_moment
from campus.kernel.projection import Domain
from campus.kernel.tools import Outcome, Param, Refuse, ToolDecl, ok
from campus.kernel.transcript import notice

HELPDESK = "HELPDESK"
ASK_MINUTES = 5
MAX_WAIT = MINUTES_PER_DAY // 2
_WORD = re.compile(r"[a-z0-9]+")


class Errand(msgspec.Struct, kw_only=True):
    errand_id: str
    title: str
    text: str
    deadline: int
    priority: str
    reported: int = -1


class PeopleState(msgspec.Struct, kw_only=True):
    clues: dict[str, ClueHeld] = {}
    errands: dict[str, Errand] = {}
    """Posted errands, in the order they arrived while the state is folded from the log, in key order once it is read
    from a snapshot (whose canonical encoding sorts keys): rules 3 list them by number, not in this order."""
    follow_ups: dict[str, ErrandPosted] = {}
    """Clue id -> the errand its holder hands out when telling it."""
    meetings: dict[str, ErrandAtMeeting] = {}
    """Errand id -> the meeting at whose end it is handed out."""


def person(world: Any, person_id: str) -> tuple[str, str, str | None] | None:
    """``(name, role, building or None)`` of someone who can be asked, or None."""
    if person_id == HELPDESK:
        return "the student help desk", "help desk", None
    for advisor in world.world.advisors:
        if advisor.id == person_id:
            return advisor.name, "advisor", None
    for club in world.world.clubs:
        if club.id == person_id:
            return f"the leader of {club.name}", "club leader", None
    if any(library.building_id == person_id for library in world.world.libraries):
        return f"the librarian of {world.name_of(person_id)}", "librarian", person_id
    return None


def matches(clue: ClueHeld, question: str) -> bool:
    """A question matches a clue when one of the clue's keywords is one of its words."""
    words = set(_WORD.findall(question.casefold()))
    return any(keyword.casefold() in words for keyword in clue.keywords)


# ------------------------------------------------------------------ handlers


def ask(view: Any, args: dict[str, Any]) -> Outcome:
    person_id, question = args["person_id"].strip(), args["question"].strip()
    if not question:
        raise Refuse("The question is empty; ask about something, e.g. 'What is the door code of the club room?'.")
    found = person(view.world, person_id)
    if found is None:
        raise Refuse(f"Nobody with id '{person_id[:40]}' can be asked. Ask an advisor (e.g. T0001), a club's leader "
                     f"(its club id, e.g. C000), a library's librarian (the library's building id) or {HELPDESK}.")
    name, _, building = found
    part: PeopleState = view.state.people
    held = [clue for _, clue in sorted(part.clues.items()) if clue.holder == person_id and matches(clue, question)]
    if not held:
        return ok(f"{_cap(name)} says: \"Sorry, I can't help you with that.\"", minutes=ASK_MINUTES)
    here = view.state.geography.location
    told = [clue for clue in held if clue.condition == "always" or here == building]
    if not told:
        return ok(f"{_cap(name)} says: \"I can only tell you that in person; come to {building}.\"", minutes=ASK_MINUTES)
    lines = [f"{_cap(name)} says: \"About {clue.topic}: {clue.payload}.\"" for clue in told]
    handed = [part.follow_ups[clue.clue_id] for clue in told
              if clue.clue_id in part.follow_ups and part.follow_ups[clue.clue_id].errand_id not in part.errands]
    lines += [f"{_cap(name)} also hands you an errand.\n{notice(errand)}" for errand in handed]
    facts = [ClueRevealed(clue_id=clue.clue_id, holder=person_id, payload=clue.payload) for clue in told]
    return ok("\n".join(lines), facts, {"told": [clue.clue_id for clue in told]}, minutes=ASK_MINUTES)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def inbox(view: Any, args: dict[str, Any]) -> Outcome:
    part: PeopleState = view.state.people
    if not part.errands:
        return ok("You have no errands.", data={"errands": []})
    listed = sorted(part.errands.values(), key=lambda e: _numbered(e.errand_id)) if view.rules >= 3 else part.errands.values()
    lines = []
    for errand in listed:
        status = "done" if errand.reported >= 0 else f"due {label(errand.deadline)}"
        lines.append(f"- [{errand.errand_id}] ({errand.priority} priority, {status}) {errand.title}: {errand.text}")
    return ok("Your errands:\n" + "\n".join(lines), data={"errands": [errand.errand_id for errand in listed]})


def _numbered(errand_id: str) -> tuple[tuple[int, str], ...]:
    """An errand id's sort key, its numbers read as numbers: ``e2-7`` before ``e10-1`` and ``e2-10``."""
    return tuple((int(part), "") if part.isdigit() else (-1, part) for part in _NUMBERS.split(errand_id))


_NUMBERS = re.compile(r"(\d+)")


def report_done(view: Any, args: dict[str, Any]) -> Outcome:
    errand_id = args["errand_id"].strip()
    part: PeopleState = view.state.people
    errand = part.errands.get(errand_id)
    if errand is None:
        raise Refuse(f"You have no errand '{errand_id[:40]}'; errands.inbox() lists yours.")
    if errand.reported >= 0:
        raise Refuse(f"Errand {errand_id} is already reported done.")
    late = view.now - errand.deadline
    when = f", {late} min after its deadline" if late > 0 else ""
    return ok(f"Errand {errand_id} reported done{when}.", [ErrandReported(errand_id=errand_id, at=view.now)])


def wait_until(view: Any, args: dict[str, Any]) -> Outcome:
    try:
        target = parse_moment(args["time"])
    except TimeFormatError as error:
        raise Refuse(str(error)) from None
    minutes = target - view.now
    if minutes <= 0:
        return ok(f"It is already {label(view.now)}.")
    if minutes > MAX_WAIT:
        raise Refuse(f"That is more than {MAX_WAIT // 60} hours away; wait for a nearer time.")
    part: PeopleState = view.state.people
    here = view.state.geography.location
    meetings = sorted(part.meetings.items(), key=lambda m: (m[1].end, _numbered(m[0]))) if view.rules >= 3 \
        else part.meetings.items()
    handed = [held for errand_id, held in meetings if errand_id not in part.errands
              and held.building == here and view.now <= held.end <= target]
    lines = [f"You waited until {label(target)}."]
    lines += [f"At the end of the {held.title}, you are handed an errand.\n{notice(held.errand)}" for held in handed]
    return ok("\n".join(lines), [ErrandHandedOut(errand_id=held.errand.errand_id) for held in handed],
              data={"minutes": minutes}, minutes=minutes)


# ------------------------------------------------------------------ reducers


def _world_changed(part: PeopleState, event: WorldChanged) -> None:
    match event.change:
        case ClueHeld() as clue:
            part.clues[clue.clue_id] = clue
        case ErrandPosted() as posted:
            _post(part, posted)
        case ErrandHeld() as held:
            part.follow_ups[held.clue_id] = held.errand
        case ErrandAtMeeting() as meeting:
            part.meetings[meeting.errand.errand_id] = meeting


def _post(part: PeopleState, posted: ErrandPosted) -> None:
    part.errands[posted.errand_id] = Errand(errand_id=posted.errand_id, title=posted.title, text=posted.text,
                                            deadline=posted.deadline, priority=posted.priority)


def _handed_out(part: PeopleState, event: ErrandHandedOut) -> None:
    meeting = part.meetings.get(event.errand_id)
    if meeting is not None and event.errand_id not in part.errands:
        _post(part, meeting.errand)


def _revealed(part: PeopleState, event: ClueRevealed) -> None:
    handed = part.follow_ups.get(event.clue_id)
    if handed is not None and handed.errand_id not in part.errands:
        _post(part, handed)


def _reported(part: PeopleState, event: ErrandReported) -> None:
    errand = part.errands.get(event.errand_id)
    if errand is not None:
        errand.reported = event.at


def clue_problem(change: ClueHeld, world: Any) -> str | None:
    if person(world, change.holder) is None:
        return f"nobody with id {change.holder} can hold a clue"
    if not change.keywords or not change.payload:
        return f"clue {change.clue_id} has no keywords or no payload"
    if change.condition == "in_person" and person(world, change.holder)[2] is None:  # type: ignore[index]
        return f"{change.holder} has no building to be asked in"
    return None


def errand_problem(change: ErrandPosted, world: Any) -> str | None:
    return None if change.title and change.text else f"errand {change.errand_id} has no title or text"


def held_problem(change: ErrandHeld, world: Any) -> str | None:
    return errand_problem(change.errand, world)


def meeting_problem(change: ErrandAtMeeting, world: Any) -> str | None:
    if change.building not in world.buildings:
        return f"the meeting of errand {change.errand.errand_id} is in no building ({change.building})"
    return errand_problem(change.errand, world) or (None if change.start < change.end else "a meeting must end after it starts")


def announcement_problem(change: Announcement, world: Any) -> str | None:
    return None if change.text.strip() else "an announcement needs a text"


# ------------------------------------------------------------------ declarations

ASK = ToolDecl(
    name="people.ask",
    system="people",
    description=(
        "Ask someone a question and get their answer (5 minutes). People who can be asked: an advisor (by advisor id), "
        f"a club's leader (by the club's id), a library's librarian (by the library's building id), or {HELPDESK}. "
        "Name the topic plainly in the question; some things are only told in person, in the person's building."
    ),
    params=(
        Param(name="person_id", type="string", description="Who to ask: an advisor id, a club id, a library's building id or HELPDESK.",
              max_length=40),
        Param(name="question", type="string", description="Your question.", max_length=500),
    ),
    handler=ask,
    example='people.ask(person_id="T0001", question="Which room did our meeting move to?")',
    spoken=True,
)

INBOX = ToolDecl(
    name="errands.inbox",
    system="errands",
    description="List the errands you have been given so far today, with priority, deadline and whether each is done.",
    params=(),
    handler=inbox,
    example="errands.inbox()",
)

REPORT_DONE = ToolDecl(
    name="errands.report_done",
    system="errands",
    description="Report an errand done once you have finished everything it asks; the time of the report is what counts.",
    params=(Param(name="errand_id", type="string", description="The errand's id, e.g. 'e3-2'.", max_length=40),),
    handler=report_done,
    mutates=True,
    example='errands.report_done(errand_id="e3-2")',
)

WAIT_UNTIL = ToolDecl(
    name="errands.wait_until",
    system="errands",
    description="Do nothing where you are until the given time today (e.g. for an appointment or a later errand).",
    params=(Param(name="time", type="string", description="A time like 'Week 3, Tuesday 11:00'.", max_length=60),),
    handler=wait_until,
    example='errands.wait_until(time="Week 3, Tuesday 11:00")',
)

PEOPLE_TOOLS: tuple[ToolDecl, ...] = (ASK, INBOX, REPORT_DONE, WAIT_UNTIL)


def _new_people(world: Any) -> PeopleState:
    return PeopleState()


PEOPLE = Domain(
    name="people",
    state_type=PeopleState,
    initial=_new_people,
    reducers={WorldChanged: _world_changed, ErrandReported: _reported, ClueRevealed: _revealed, ErrandHandedOut: _handed_out},
    tools=PEOPLE_TOOLS,
    changes={ClueHeld: clue_problem, ErrandPosted: errand_problem, ErrandHeld: held_problem, ErrandAtMeeting: meeting_problem,
             Announcement: announcement_problem},
)

"""Reading a busy day's errands into tool calls, from their text and the replies the student gets.

Each errand kind is recognised by its title and read from its text (names, addresses, subjects,
calendar titles); the ids it needs come from the tools (``data_system.query_by_identifier`` for an
advisor or a club, ``map.find_building_id`` for a library), and what a person knows comes from
their reply to ``people.ask``. A person who only tells in person says where to come; the reader
then walks there (the map's route) and asks again.

A reader told not to ask (``ask=False``) uses what it was told without asking (a hint's answer),
or else puts a guess where the answer belongs. The guesses are what a student who never asked
might write (a round number, a placeholder, the mentor's own address), and none of them is a
value the errand could have.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator

from campus.agents.plans import action

Steps = Generator[str, str, None]
"""One reply per turn; each ``send`` is the text the previous reply produced."""

_SUBJECT = re.compile(r'subject "([^"]+)"')
_ADDRESS = re.compile(r"\b([\w.+-]+@[\w-]+(?:\.[\w-]+)+)\b")
_CALENDAR_TITLE = re.compile(r'calendar as "([^"]+)"')
_ID_IN_TEXT = re.compile(r"^(?:Advisor|Club): .+ \((\w+)\)$", re.MULTILINE)
_BUILDING_ID = re.compile(r"with ID '(\w+)'")
_COME_TO = re.compile(r"come to (\w+)\.")
_PATH = re.compile(r'\{"path": (\[[^\]]*\])\}')
_SAYS = re.compile(r'says: "About (.+): (.+?)\."$', re.MULTILINE)
_NOW_AT = re.compile(r"You are (?:now )?at [^\n]*\((\w+)\)\.")
_DATE = re.compile(r"Week (\d+), (\w+)")


class Desk:
    """What a day's errands share: where the student is and today's date, kept up to date by whoever drives the
    errands (``saw`` every result before the errand reads it)."""

    def __init__(self, place: str, today: str) -> None:
        self.place = place
        self.today = today

    def saw(self, text: str) -> None:
        found = _NOW_AT.findall(text)
        if found:
            self.place = found[-1]

    def next_week(self) -> int:
        week = _DATE.search(self.today)
        return int(week.group(1)) + 1 if week else 0


def tell(text: str, about: str = "") -> str:
    """What a person said in ``text`` about a topic that mentions ``about`` (their words after the topic), or ``""``."""
    return " ".join(payload for topic, payload in _SAYS.findall(text) if about in topic)


def walk_to(desk: Desk, building: str) -> Steps:
    """Ask the map for the way from where the student is and walk it (nothing when already there)."""
    if desk.place == building:
        return
    shown = yield action(f"map.find_optimal_path(source_building_id={json.dumps(desk.place)}, "
                         f"target_building_id={json.dumps(building)})")
    path = _PATH.search(shown)
    if path is not None:
        yield action(f"geography.walk_to(path_info={json.dumps({'path': json.loads(path.group(1))})})")


def _ask(desk: Desk, person: str, question: str, about: str = "") -> Generator[str, str, str]:
    """Ask; if the person only tells in person, go to them and ask again. Returns what they said about ``about``."""
    call = action(f"people.ask(person_id={json.dumps(person)}, question={json.dumps(question)})")
    said = yield call
    come = _COME_TO.search(said)
    if come is not None and not _SAYS.search(said):
        yield from walk_to(desk, come.group(1))
        said = yield call
    return tell(said, about)


def _lookup(kind: str, name: str) -> Generator[str, str, str]:
    """The id of the advisor or club of that name, from the data system (``""`` if not found)."""
    shown = yield action(f"data_system.query_by_identifier(identifier={json.dumps(name)}, by=\"name\", "
                         f"entity_type={json.dumps(kind)})")
    found = _ID_IN_TEXT.search(shown)
    return found.group(1) if found else ""


def _address(name: str) -> Generator[str, str, str]:
    shown = yield action(f"data_system.query_by_identifier(identifier={json.dumps(name)}, by=\"name\", entity_type=\"advisor\")")
    found = re.search(r"^Email: (\S+)$", shown, re.MULTILINE)
    return found.group(1) if found else ""


def _library(name: str) -> Generator[str, str, str]:
    shown = yield action(f"map.find_building_id(building_name={json.dumps(name)})")
    found = _BUILDING_ID.search(shown)
    return found.group(1) if found else ""


def _email(to: str, subject: str, body: str) -> str:
    return action(f"email.send_email(to={json.dumps(to)}, subject={json.dumps(subject)}, body={json.dumps(body)})")


def _calendar(title: str, location: str, when: str) -> str:
    return action(f"calendar.add_event(calendar_id=\"self\", event_title={json.dumps(title)}, "
                  f"location={json.dumps(location)}, time={json.dumps(when)})")


def _pick(pattern: str, text: str, fallback: str) -> str:
    found = re.search(pattern, text)
    return found.group(1) if found else fallback


def _field(pattern: re.Pattern[str] | str, text: str) -> str:
    found = re.search(pattern, text)
    return found.group(1) if found else ""


# ------------------------------------------------------------------ one reader per kind of errand
# Each reads the errand's text; ``ask`` says whether to ask the people who know, ``told`` is what the student was
# told without asking (a hint's answer), read like a person's reply; with neither, a guess goes in.


def door_code(desk: Desk, text: str, ask: bool, told: str) -> Steps:
    said = told
    if ask:
        club_id = yield from _lookup("club", _field(r"practice room of (.+?)\. Its leader", text))
        said = yield from _ask(desk, club_id, "What is the door code?")
    code = _pick(r"door code is (\d+)", said, "0000")
    yield _email(_field(_ADDRESS, text), _field(_SUBJECT, text), f"The door code is {code}.")


def moved_room(desk: Desk, text: str, ask: bool, told: str) -> Steps:
    said = told
    if ask:
        advisor = yield from _lookup("advisor", _field(r"seminar with (.+?) \(", text))
        said = yield from _ask(desk, advisor, "Which room did tomorrow's seminar move to?")
    room = _pick(r"moved to (Room \d+\.\d+)", said, "the usual seminar room")
    yield _calendar(_field(_CALENDAR_TITLE, text), room, _field(r"\((Week [^)]+)\)", text))


def shelf_mark(desk: Desk, text: str, ask: bool, told: str) -> Steps:
    book = _field(r'copy of "([^"]+)"', text)
    said = told
    if ask:
        building = yield from _library(_field(r"librarian of (.+?) put a copy of", text))
        said = yield from _ask(desk, building, f"On which shelf is the reserved copy of {book}?", about=book)
    shelf = _field(r"(Shelf [A-Z]-\d+)", said)
    yield _email(_field(_ADDRESS, text), _field(_SUBJECT, text), f"It is on {shelf}." if shelf else "It is at the front desk.")


def department_rule(desk: Desk, text: str, ask: bool, told: str) -> Steps:
    said = told
    if ask:
        advisor = yield from _lookup("advisor", _field(r"; (.+?) knows the rule", text))
        said = yield from _ask(desk, advisor, "What word limit does the department apply to lab reports?")
    limit = _pick(r"(\d+) words", said, "1000")
    yield _email(_field(_ADDRESS, text), _field(_SUBJECT, text), f"The limit is {limit} words.")


def responsible(desk: Desk, text: str, ask: bool, told: str) -> Steps:
    mentor = _field(r"your mentor (.+?) does\.", text)
    said = told
    if ask:
        advisor = yield from _lookup("advisor", mentor)
        said = yield from _ask(desk, advisor, "Who is responsible for lab keys?")
    to = _field(_ADDRESS, said) or (yield from _address(mentor))
    yield _email(to, _field(_SUBJECT, text), "Could I please have a key to the teaching lab?")


def club_reschedule(desk: Desk, text: str, ask: bool, told: str) -> Steps:
    said = told
    if ask:
        club_id = yield from _lookup("club", _field(r"^(.+?) moved next week's meeting", text))
        said = yield from _ask(desk, club_id, "When is next week's meeting?")
    when = _pick(r"meet (Week \d+, \w+, \d\d:\d\d-\d\d:\d\d)", said, f"Week {desk.next_week()}, Saturday, 10:00-11:30")
    yield _calendar(_field(_CALENDAR_TITLE, text), _field(r'location "([^"]+)"', text), when)


def split_fact(desk: Desk, text: str, ask: bool, told: str) -> Steps:
    said = told
    if ask:
        advisor = yield from _lookup("advisor", _field(r"\? (.+?) knows the building", text))
        said = yield from _ask(desk, advisor, "In which building is the poster session?")
        club_id = yield from _lookup("club", _field(r"the leader of (.+?) the room", text))
        said += " " + (yield from _ask(desk, club_id, "Which room is the poster session in?"))
    building, room = _field(r"in building (\w+)", said), _field(r"it is room (\w+)", said)
    yield _email(_field(_ADDRESS, text), _field(_SUBJECT, text),
                 f"Building {building}, room {room}." if building and room else "It is in the main hall.")


def confirm_attendance(desk: Desk, text: str, ask: bool, told: str) -> Steps:
    to = yield from _address(_field(r"^Tell (.+?) by email", text))
    yield _email(to, _field(_SUBJECT, text), _field(r'text "([^"]+)"', text))


# ------------------------------------------------------------------ stating every value an answer could be
# What a student who never asks could do instead of one guess: write every value the errand's answer could take
# (the forms its text and the campus show), in as few calls as a tool's limits allow.

_MOST = 19_000
"""Characters of values per email body (a string argument holds at most 20,000)."""


def _spread(to: str, subject: str, values: list[str]) -> Steps:
    body = ""
    for value in values:
        if len(body) + len(value) + 1 > _MOST:
            yield _email(to, subject, body)
            body = ""
        body += value + " "
    if body:
        yield _email(to, subject, body)


def spray_code(desk: Desk, text: str) -> Steps:
    yield from _spread(_field(_ADDRESS, text), _field(_SUBJECT, text), [str(code) for code in range(1000, 10000)])


def spray_shelf(desk: Desk, text: str) -> Steps:
    shelves = [f"Shelf {letter}-{number}" for letter in "ABCDEF" for number in range(10, 100)]
    yield from _spread(_field(_ADDRESS, text), _field(_SUBJECT, text), shelves)


def spray_limit(desk: Desk, text: str) -> Steps:
    yield from _spread(_field(_ADDRESS, text), _field(_SUBJECT, text), [f"{n * 100} words" for n in range(10, 100)])


def spray_place(desk: Desk, text: str) -> Steps:
    places = [f"B{n}" for n in range(100, 1000)] + [str(n) for n in range(100, 400)]
    yield from _spread(_field(_ADDRESS, text), _field(_SUBJECT, text), places)


def spray_meeting(desk: Desk, text: str) -> Steps:
    week = desk.next_week()
    for day in ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"):
        for hour in range(17, 21):
            yield _calendar(_field(_CALENDAR_TITLE, text), _field(r'location "([^"]+)"', text),
                            f"Week {week}, {day}, {hour}:00-{hour + 1}:30")


SPRAYS: dict[str, Callable[[Desk, str], Steps]] = {
    "Door code": spray_code, "Reserved copy": spray_shelf, "Word limit": spray_limit, "Poster session": spray_place,
    "Club meeting moved": spray_meeting,
}
"""Errand title -> every value its answer could be, stated at once (the moved seminar's 250 rooms and the lab key's
advisors are left to the guess: more calls than a busy day's rounds)."""


READERS: dict[str, Callable[[Desk, str, bool, str], Steps]] = {
    "Door code": door_code, "Moved seminar": moved_room, "Reserved copy": shelf_mark, "Word limit": department_rule,
    "Lab key": responsible, "Club meeting moved": club_reschedule, "Poster session": split_fact,
    "Colloquium": confirm_attendance,
}
"""Errand title -> its reader."""

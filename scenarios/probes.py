"""Memory probes over a branch's own log (BEAM's ten abilities), with exact answers and no judge.

A probe asks the student about its own past at a point of a run. What it asks is data, a
``Query``; its answer is ``answer_of(query, past)``, a pure function of the log up to that
point, so the same function gives the ground truth (over the whole prefix) and a reader's
answer (over whatever part of the log the reader can see). A probe set is a pure function of
(log prefix, seed, generator version) and, from version 7, of the run's world, whose directory
decides which email recipients may be asked (``guessable``); ``probe_set_hash`` names it.

What the log holds directly gives seven abilities:

- ``information_extraction``: the recipient of the email with a given subject (from version 7 only one the
  world does not give away); the room booked at a library for a day;
- ``knowledge_update``: the room of the latest booking at a library booked more than once with
  different rooms (an earlier room is a *stale* answer);
- ``temporal_reasoning``: days between two emails; whether one was sent before another; the
  day one was sent;
- ``event_ordering``: the order in which the student first reached three or four buildings on
  a day (listed in a drawn order);
- ``multi_session_reasoning``: emails sent over a span of weeks (from version 7, between two of the
  student's own emails); minutes walked on a day with several walks;
- ``abstention``: the room booked at a library on a day it was not booked ("no record"), each
  with its answerable twin on the same library;
- ``summarization``: every title added to the student's calendar in a week, or every address
  emailed in a week (scored by precision and recall); from version 5 only those no other week holds.

A term made with check-ins (``scenarios.check_ins``) plants its own early on: a standing
instruction and a preference in week 1, and two notes weeks apart that contradict each other
(``standing_of`` reads them from the term); probes then ask about those, at the distance the log
gives. Otherwise the other three plant their evidence in the probe fork itself, as notes
(unscored tasks) given just before the questions (their distance bin says so), built on what
the log holds:

- ``contradiction_resolution``: two notes place the next session of one of the student's own
  calendar titles in two buildings ("never anywhere else"); the answer names both;
- ``instruction_following``: a standing instruction to end answers about emails with a word,
  then a question about an email; a program checks the ending;
- ``preference_following``: a stated preference for a seat feature, then three seats the
  student once booked, only one with that feature (each lists two features, in seeded order).

Nothing in a question may tell its answer to a student who remembers nothing (the ``question-only`` reader checks
it, ``agents.readers``). Generator version 1 did: a yes/no probe was kept only when its answer was "no", the
buildings of an order probe were listed in any order but the true one, the wanted feature was the one feature
of a seat choice listed only once, and a probe fork could plant two standing instructions with different words.
Version 2 does none of that. Version 3 also draws the pairs of a temporal probe evenly over the days between them, so
no number answers many days-between questions (``temporal``). Version 4 also leaves out of the temporal probes (sent
before, sent on, days between) every email whose subject names a date or a time (``names_a_time``): most of the
term's emails announce an event "on Week 15, Friday" and are sent 1-7 days before it, so reading those dates answered
84 % of the sent-before questions, with no memory at all; and it asks which of two emails was sent first only of two
of one form (``subject_form``), since each kind of email has its weeks. Version 5 counts in a week's summary only the
titles (or addresses) no other week holds, says so in the question, and asks about no summary of Week 0: a student
who answered each week with everything another term's student added or emailed that week, remembering nothing of its
own, scored a mean F1 of 0.26-0.28 on version 4's summaries of the default term (a library seat booked most weeks,
the study group emailed most weeks, Week 0's timetable and handbook sessions are the same for every student of a
world) and 0.005 on version 5's. Version 6 scores an order without the buildings named that the day did not hold
(``Items.strict``): padded with made-up ids, the question's own order scored 82 % where it scores 50 %. Version 7
closes two leaks to a reader that remembers nothing of its term but knows the world or other
terms (figures: the probes the term audit draws every week, 10 per ability, over the oracle's runs of generated seeds
0-4 at scale 0.2 / seeds 0-2 at full scale). It asks an email's recipient only where the world neither lists nor
patterns the address (``guessable``): a reader of the club and advisor directories named 58 of version 6's 244 / 39
of 148 email recipients (every membership application, and a club event's mailbox one time in five), and none of
version 7's 38 / 38. And it counts the emails sent between two of the student's own emails, of a kind it sent several
of, at least a week apart (``span_pairs``), instead of over weeks: another seed's count of the same weeks was right
on 15.2 % / 7.6 % of version 6's counts (where "1" was right on 10.0 % / 4.5 %); the commonest count another seed
gives between two emails of the same forms is right on 1.7 % of version 7's 119 full-term counts, about what the same
answers score shuffled over them (1.8 %). A term at scale 0.2 or less sends too few emails of one kind for any such
count: there version 7 asks only the minutes walked. Version 8 (``GENERATOR_VERSION``) asks an abstention pair in a
drawn order (``_asked``): versions 1-7 asked the "no record" probe first and its answerable twin second, so a reader
that remembered nothing answered the first "no record" and guessed a room for the second, right on 34 of 48 pairs'
probes of the check-ins of generated seeds 0-3 at scale 0.3 (70.8 %, 20 of 24 on published seeds 0-1) where one
that cannot tell the two apart does best at 50 % (a red-team's). The older versions still draw the check-ins of terms
made under them (``VERSIONS``), so their runs verify.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Union

import msgspec

from campus.events import Answered, Booked, CalendarEventAdded, EmailSent, Event, TaskReleased, Walked
from campus.kernel.clock import date_label, day_of
from campus.kernel.schedule import Logged
from campus.scenarios.abilities import ABILITIES, Ability
from campus.scenarios.probe_answers import (
    NO_RECORD, Answer, Date, EndsWith, Id, Items, NoRecord, Number, Score, YesNo, kind_of, render, score,
)
from campus.scenarios.task import Flags, Task, Verdict, evaluator
from campus.subsystems.information import plain

if TYPE_CHECKING:
    from campus.world.index import WorldIndex

PLANTED: tuple[Ability, ...] = ("contradiction_resolution", "instruction_following", "preference_following")
"""The abilities whose evidence is a note: given by the term when it plants them, else in the probe fork."""
GENERATOR_VERSION = 8
VERSIONS = (1, 2, 3, 4, 5, 6, 7, 8)
SHUFFLED_PAIRS = 8
"""The first version that asks an abstention pair in a drawn order."""
"""The probe generators this campus draws with (the module's docstring says how they differ)."""
FIRST_SUMMARY_WEEK = 1
"""From version 5, the first week a summary asks about: what a student adds in Week 0 is the world's timetable and
its handbook sessions, the same titles for every student of a world (a list learned on other seeds named them)."""
FACT_KINDS = ("walked", "booked", "email_sent", "calendar_event_added", "task_released")
"""The events probes are about (a release only for a planted note)."""
PLANT_TASK = "plant-"
TERM_PLANT = "plant-term-"
"""The notes the term itself gives (``scenarios.check_ins``), as opposed to those a probe fork gives."""



# ---------------------------------------------------------------- what is asked


class EmailRecipient(msgspec.Struct, frozen=True, tag="email_recipient"):
    subject: str


class BookedRoom(msgspec.Struct, frozen=True, tag="booked_room"):
    location_id: str
    day: int


class LatestRoom(msgspec.Struct, frozen=True, tag="latest_room"):
    location_id: str


class DaysBetween(msgspec.Struct, frozen=True, tag="days_between"):
    first: str
    second: str
    """Email subjects."""


class SentBefore(msgspec.Struct, frozen=True, tag="sent_before"):
    first: str
    second: str


class SentOn(msgspec.Struct, frozen=True, tag="sent_on"):
    subject: str


class VisitOrder(msgspec.Struct, frozen=True, tag="visit_order"):
    day: int
    buildings: list[str]
    """In the order the question lists them (never the true order)."""


class EmailsInWeeks(msgspec.Struct, frozen=True, tag="emails_in_weeks"):
    first_week: int
    last_week: int


class EmailsBetween(msgspec.Struct, frozen=True, tag="emails_between"):
    """Version 7: the emails sent after the earlier of two emails and before the later (the two not counted)."""

    first: str
    second: str
    """Email subjects, in a drawn order."""


class MinutesWalked(msgspec.Struct, frozen=True, tag="minutes_walked"):
    day: int


Summarised = Literal["calendar", "emails"]
SUMMARISED: tuple[Summarised, ...] = ("calendar", "emails")
"""What a week's summary lists: the titles added to the student's own calendar, or the addresses it emailed."""


class WeekSummary(msgspec.Struct, frozen=True, tag="week_summary", omit_defaults=True):
    week: int
    what: Summarised
    own_only: bool = False
    """Version 5: only the items of this week that no other week holds count (the others are neither right nor
    wrong), and the question says so. Left out of the encoding when false, so older probe sets hash as before."""


class Plant(msgspec.Struct, frozen=True):
    """A note the student is given in the probe fork, as an unscored task, before the questions."""

    task_id: str
    text: str


class ToldPlaces(msgspec.Struct, frozen=True, tag="told_places"):
    """Two notes that cannot both hold (one session, two places, "never anywhere else")."""

    title: str
    plants: list[Plant]
    places: list[str]


class Instructed(msgspec.Struct, frozen=True, tag="instructed"):
    """A standing instruction (end answers about emails with a word), then a question about an email."""

    plant: Plant
    word: str
    subject: str


class Preferred(msgspec.Struct, frozen=True, tag="preferred"):
    """A stated preference for a seat feature, then a choice among seats that only one option meets."""

    plant: Plant
    feature: str
    seats: list[str]
    features: list[list[str]]


Query = Union[EmailRecipient, BookedRoom, LatestRoom, DaysBetween, SentBefore, SentOn, VisitOrder, EmailsInWeeks,
              MinutesWalked, WeekSummary, ToldPlaces, Instructed, Preferred, EmailsBetween]


class Probe(msgspec.Struct, frozen=True, kw_only=True):
    probe_id: str
    ability: Ability
    asked_at_seq: int
    asked_at_t: int
    question: str
    query: Query
    answer: Answer
    evidence: list[int]
    """Seqs of the events the answer comes from (none for "no record")."""
    evidence_t: int | None
    """The simulated minute of the earliest evidence."""
    distractors: list[str] = []
    """Wrong answers on the same entity; for an update, the superseded values (a *stale* answer); for a version-5
    summary, the week's items that another week holds too, which count neither way (``WeekSummary.own_only``)."""
    twin: str = ""
    """For abstention: the id of the probe's partner (the answerable twin of a "no record" probe, and back)."""


# ---------------------------------------------------------------- the past, indexed


@dataclass
class Past:
    """The facts of a log prefix, by kind, in log order."""

    emails: list[tuple[int, int, EmailSent]] = field(default_factory=list)
    bookings: list[tuple[int, int, Booked]] = field(default_factory=list)
    walks: list[tuple[int, int, Walked]] = field(default_factory=list)
    added: list[tuple[int, int, CalendarEventAdded]] = field(default_factory=list)
    planted: dict[str, int] = field(default_factory=dict)
    """The seq at which each planted note was given."""
    times: dict[int, int] = field(default_factory=dict)
    """The simulated minute of each row read, by seq."""

    @classmethod
    def of(cls, rows: Iterable[Logged]) -> Past:
        past = cls()
        for seq, t, event in rows:
            past.times[seq] = t
            if isinstance(event, EmailSent):
                past.emails.append((seq, t, event))
            elif isinstance(event, Booked):
                past.bookings.append((seq, t, event))
            elif isinstance(event, Walked):
                past.walks.append((seq, t, event))
            elif isinstance(event, CalendarEventAdded):
                past.added.append((seq, t, event))
            elif isinstance(event, TaskReleased) and event.task_id.startswith(PLANT_TASK):
                past.planted[event.task_id] = seq
        return past

    def email(self, subject: str) -> tuple[int, int, EmailSent] | None:
        return next((row for row in reversed(self.emails) if row[2].subject == subject), None)

    def arrivals(self, day: int) -> list[tuple[int, str]]:
        """``(seq, building)`` of each building first reached on ``day``, in order."""
        seen: dict[str, int] = {}
        for seq, _, walk in self.walks:
            if day_of(walk.arrive) == day:
                seen.setdefault(walk.path[-1], seq)
        return [(seq, building) for building, seq in seen.items()]


Found = tuple[Answer, list[int], list[str]]
"""``(answer, evidence seqs, distractors)``."""


def answer_of(query: Query, past: Past) -> Found:
    """The answer ``past`` gives to ``query`` (``NoRecord`` when it holds nothing on it)."""
    if isinstance(query, ToldPlaces | Instructed | Preferred):
        return _planted_answer(query, past)
    if isinstance(query, EmailRecipient):
        sent = past.email(query.subject)
        return (Id(sent[2].to), [sent[0]], []) if sent else (NoRecord(), [], [])
    if isinstance(query, BookedRoom | LatestRoom):
        day = query.day if isinstance(query, BookedRoom) else None
        rows = [row for row in past.bookings if row[2].location_id == query.location_id and day in (None, row[2].day)]
        if not rows:
            return NoRecord(), [], []
        latest = rows[-1][2].room_id
        return Id(latest), [rows[-1][0]], list(dict.fromkeys(r[2].room_id for r in rows if r[2].room_id != latest))
    if isinstance(query, DaysBetween | SentBefore):
        a, b = past.email(query.first), past.email(query.second)
        if a is None or b is None:
            return NoRecord(), [], []
        evidence = sorted([a[0], b[0]])
        if isinstance(query, SentBefore):
            return YesNo(a[0] < b[0]), evidence, []
        return Number(float(abs(day_of(b[1]) - day_of(a[1])))), evidence, []
    if isinstance(query, SentOn):
        sent = past.email(query.subject)
        return (Date(day_of(sent[1])), [sent[0]], []) if sent else (NoRecord(), [], [])
    if isinstance(query, VisitOrder):
        reached = [(seq, b) for seq, b in past.arrivals(query.day) if b in query.buildings]
        if not reached:
            return NoRecord(), [], []
        return Items([b for _, b in reached], ordered=True), [seq for seq, _ in reached], []
    if isinstance(query, EmailsInWeeks):
        counted = [seq for seq, t, _ in past.emails if query.first_week <= day_of(t) // 7 <= query.last_week]
        return (Number(float(len(counted))), counted, []) if counted else (NoRecord(), [], [])
    if isinstance(query, EmailsBetween):
        a, b = past.email(query.first), past.email(query.second)
        if a is None or b is None:
            return NoRecord(), [], []
        low, high = sorted([a[0], b[0]])
        between = [seq for seq, _, _ in past.emails if low < seq < high]
        return Number(float(len(between))), [low, *between, high], []
    if isinstance(query, MinutesWalked):
        walks = [row for row in past.walks if day_of(row[2].depart) == query.day]
        if not walks:
            return NoRecord(), [], []
        return Number(float(sum(w.arrive - w.depart for _, _, w in walks))), [r[0] for r in walks], []
    weeks = dated_items(past, query.what)
    here = [(seq, item) for seq, week, item in weeks if week == query.week]
    aside = {item for _, week, item in weeks if week != query.week} if query.own_only else set()
    titles = [(seq, item) for seq, item in here if item not in aside]
    if not titles:
        return NoRecord(), [], []
    return (Items(list(dict.fromkeys(item for _, item in titles)), ordered=False), [seq for seq, _ in titles],
            sorted({item for _, item in here} & aside))


def dated_items(past: Past, what: Summarised) -> list[tuple[int, int, str]]:
    """``(seq, week, item)`` of every title added to the student's own calendar, or every address emailed."""
    if what == "calendar":
        return [(seq, day_of(t) // 7, e.title) for seq, t, e in past.added if e.calendar_id == "self"]
    return [(seq, day_of(t) // 7, e.to) for seq, t, e in past.emails]


def week_lists(past: Past, what: Summarised) -> dict[int, list[str]]:
    """Each week's distinct items (``dated_items``), in log order."""
    weeks: dict[int, dict[str, None]] = {}
    for _, week, item in dated_items(past, what):
        weeks.setdefault(week, {})[item] = None
    return {week: list(items) for week, items in weeks.items()}


def _planted_answer(query: ToldPlaces | Instructed | Preferred, past: Past) -> Found:
    if isinstance(query, ToldPlaces):
        told = [(past.planted[p.task_id], place) for p, place in zip(query.plants, query.places) if p.task_id in past.planted]
        return (Items([place for _, place in told], ordered=False), [seq for seq, _ in told], []) if told \
            else (NoRecord(), [], [])
    seen = past.planted.get(query.plant.task_id)
    if isinstance(query, Instructed):
        return (EndsWith(query.word), [seen], []) if seen is not None else answer_of(EmailRecipient(query.subject), past)
    if seen is None:
        return NoRecord(), [], []
    chosen = next(seat for seat, features in zip(query.seats, query.features) if query.feature in features)
    return Id(chosen), [seen], [seat for seat in query.seats if seat != chosen]


# ---------------------------------------------------------------- the questions


FORMATS = {
    "number": "Answer with a number.",
    "date": 'Answer with the day, like "Week 2, Monday".',
    "id": "Answer with the id exactly as it was written.",
    "list": "Answer with the items separated by semicolons.",
    "yes_no": "Answer yes or no.",
}
ABSTAIN = f'If you have no record of it, answer "{NO_RECORD}".'


def question_of(query: Query, describe: Callable[[str], str]) -> str:
    """The words of a query and the form of answer it takes (by the query, so "no record" is never
    hinted at); they name the entity, never the answer."""
    if isinstance(query, EmailRecipient):
        words, kind = f'To which address did you send the email with the subject "{query.subject}"?', "id"
    elif isinstance(query, BookedRoom):
        words, kind = f"Which room did you book at {describe(query.location_id)} for {date_label(query.day)}?", "id"
    elif isinstance(query, LatestRoom):
        words, kind = f"Which room is your most recent booking at {describe(query.location_id)} for?", "id"
    elif isinstance(query, DaysBetween):
        words = (f'How many days passed between the day you sent the email "{query.first}" and the day you sent '
                 f'the email "{query.second}"?')
        kind = "number"
    elif isinstance(query, SentBefore):
        words, kind = f'Did you send the email "{query.first}" before the email "{query.second}"?', "yes_no"
    elif isinstance(query, SentOn):
        words, kind = f'On which day did you send the email "{query.subject}"?', "date"
    elif isinstance(query, VisitOrder):
        listed = ", ".join(describe(b) for b in query.buildings)
        words = (f"On {date_label(query.day)} you walked to each of these buildings: {listed}. In which order did "
                 "you first arrive at them? Give their ids, first arrival first.")
        kind = "list"
    elif isinstance(query, EmailsInWeeks):
        words, kind = f"How many emails did you send from Week {query.first_week} to Week {query.last_week}?", "number"
    elif isinstance(query, EmailsBetween):
        words = (f'How many emails did you send between the email "{query.first}" and the email "{query.second}", '
                 "not counting those two?")
        kind = "number"
    elif isinstance(query, MinutesWalked):
        words, kind = f"How many minutes in all did you spend walking on {date_label(query.day)}?", "number"
    elif isinstance(query, ToldPlaces):
        words = (f'Where will the next "{query.title}" session be held? If what you were told about it conflicts, '
                 "name every place you were told, by building id.")
        kind = "list"
    elif isinstance(query, Instructed):
        words, kind = f'To which address did you send the email with the subject "{query.subject}"?', "id"
    elif isinstance(query, Preferred):
        listed = "; ".join(f"{seat} ({', '.join(f.replace('_', ' ') for f in features)})"
                           for seat, features in zip(query.seats, query.features))
        words, kind = f"These library seats are free right now: {listed}. Which one do you take?", "id"
    elif query.what == "calendar":
        words, kind = f"List the titles of every event you added to your own calendar during Week {query.week}.", "list"
        if query.own_only:
            words += " A title you also added in another week does not count, named or not."
    else:
        words, kind = f"List every address you sent an email to during Week {query.week}.", "list"
        if query.own_only:
            words += " An address you also emailed in another week does not count, named or not."
    return f"{words} {FORMATS[kind]}"


# ---------------------------------------------------------------- generators


Draft = tuple[Query, list[Query]]
"""A query and, for abstention, its answerable twin (as a one-item list)."""


def _unique_subjects(past: Past) -> list[str]:
    counts: dict[str, int] = {}
    for _, _, e in past.emails:
        counts[e.subject] = counts.get(e.subject, 0) + 1
    return [subject for subject, n in counts.items() if n == 1]


def _one_booking_days(past: Past) -> list[BookedRoom]:
    counts: dict[tuple[str, int], int] = {}
    for _, _, b in past.bookings:
        counts[(b.location_id, b.day)] = counts.get((b.location_id, b.day), 0) + 1
    return [BookedRoom(location, day) for (location, day), n in counts.items() if n == 1]


def extraction(past: Past, rng: random.Random, version: int, known: Directory | None = None) -> list[Query]:
    """The recipient of an email sent once with its subject; the room booked at a library on a day it was booked
    once. From version 7 only of an email whose recipient a reader could not name from the world alone
    (``guessable``, over the world's ``known`` addresses)."""
    subjects = _unique_subjects(past)
    if version >= 7:
        if known is None:
            raise ValueError("probe generator version 7 asks an email's recipient only where the world does not give "
                             "it away: give the world")
        sent = {e.subject: e.to for _, _, e in past.emails}
        subjects = [s for s in subjects if not guessable(sent[s], known)]
    queries: list[Query] = [EmailRecipient(s) for s in subjects]
    return queries + list(_one_booking_days(past))


@dataclass(frozen=True)
class Directory:
    """The addresses a reader knows without the term's log (``directory_of``), case folded."""

    addresses: frozenset[str]
    """Every address the world lists (a club's, an advisor's), and those the term writes to by a fixed name."""
    ids: frozenset[str]
    """The ids of the world's clubs and advisors: the term writes to their mailboxes by a pattern
    (``<role>.<id>@lau.edu``), so an address naming one is guessed one time in the number of roles."""


@functools.lru_cache(maxsize=8)
def directory_of(world: WorldIndex) -> Directory:
    """What ``world`` tells of the addresses the term's emails go to (``Directory``), with the one address the term
    writes to whatever the world: the study group of the disruptions."""
    from campus.scenarios.disruptions import GROUP  # here: the disruptions import the task model, which imports this

    entities = [(club.id, club.email) for club in world.world.clubs]
    entities += [(advisor.id, advisor.email) for advisor in world.world.advisors]
    listed = [address for _, address in entities]
    addresses = (*listed, *map(plain, listed), GROUP)
    return Directory(addresses=frozenset(address.strip().casefold() for address in addresses),
                     ids=frozenset(entity_id.casefold() for entity_id, _ in entities))


def guessable(address: str, known: Directory) -> bool:
    """Whether a reader with no memory of the term could name ``address`` from the world and how the term is made:
    an address the world lists or the term always writes to, or a mailbox of one of the world's clubs or advisors (a
    part of its name, split at dots, dashes, underscores and plus signs, is one of their ids: ``events.c055@lau.edu``).
    Version 6 asked about them: "Membership application: Rowing" went to the address the club directory lists for
    the one club whose name holds "Rowing", and a club event's subject names the club, whose mailboxes differ only
    by one of five roles."""
    folded = address.strip().casefold()
    local = folded.partition("@")[0]
    return folded in known.addresses or any(part in known.ids for part in re.split(r"[._+-]", local))


def update(past: Past, rng: random.Random, version: int) -> list[Query]:
    rooms: dict[str, list[str]] = {}
    for _, _, b in past.bookings:
        rooms.setdefault(b.location_id, []).append(b.room_id)
    return [LatestRoom(location) for location, seen in rooms.items() if len(seen) > 1 and any(r != seen[-1] for r in seen)]


MAX_PAIRS = 200
"""Pairs of emails a temporal probe is drawn from, at most."""
PAIRS_PER_GAP = 2
"""Pairs of emails the same number of days apart a temporal probe is drawn from, at most (version 3)."""


def temporal(past: Past, rng: random.Random, version: int) -> list[Query]:
    """The day each email was sent; which of two was sent first, or how many days apart they were. Version 3 draws
    the pairs evenly over the days between them: drawn at random (versions 1 and 2), most pairs were a day or two
    apart, and answering "1" to every days-between question was right on 13-15 % of them. Version 4 asks only about
    emails whose subject names no date or time (``names_a_time``): an email about an event on a day is sent a few
    days before it, so the date in its subject tells when it was sent; and it asks which of two was sent first only
    of two emails of one form (``subject_form``): each kind of email has its weeks (membership applications in the
    second, door codes one a week later on), so a reader who knew them ordered two of different kinds 75 % right."""
    subjects = [s for s in _unique_subjects(past) if version < 4 or not names_a_time(s)]
    days = {subject: day_of(row[1]) for subject in subjects if (row := past.email(subject))}
    out: list[Query] = [SentOn(s) for s in subjects]
    pairs = [(a, b) for i, a in enumerate(subjects) for b in subjects[i + 1 :] if days[a] != days[b]]
    if version >= 3:
        drawn = _evenly(rng, pairs, lambda pair: abs(days[pair[0]] - days[pair[1]]), PAIRS_PER_GAP, MAX_PAIRS)
    else:
        drawn = rng.sample(pairs, min(MAX_PAIRS, len(pairs)))
    for a, b in drawn:
        first, second = (a, b) if rng.random() < 0.5 else (b, a)
        ordered = rng.random() < 0.5 and (version < 4 or subject_form(a) == subject_form(b))
        out.append(SentBefore(first, second) if ordered else DaysBetween(first, second))
    return out


_NAME = re.compile(r"[A-Z][\w'-]*(?: [A-Z][\w'-]*)*")


def subject_form(subject: str) -> str:
    """A subject with its names (runs of capitalised words) blanked: "Door code for Ballet Society" is "_ code for _"."""
    return _NAME.sub("_", subject)


_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
NAMES_A_TIME = re.compile(
    r"\bweek\s*\d+"  # the term's dates: "Week 15, Friday" (``date_label``)
    r"|\b(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\b"  # a weekday, whole or cut short
    r"|\b\d{1,2}[:h]\d{2}\b|\b\d{1,2}\s*(?:[ap]m\b|[ap]\.m\.)"  # a clock time: 14:30, 9h15, 3 pm, 3 p.m.
    r"|\bday\s*\d+\b|\b\d{1,2}(?:st|nd|rd|th)\b"  # "day 12", "the 5th"
    r"|\b\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}\b|\b\d{1,2}/\d{1,2}\b"  # 2024-03-05, 5/3/24, 5/3
    rf"|\b{_MONTH}\.?\s+\d{{1,2}}\b|\b\d{{1,2}}\s+(?:of\s+)?{_MONTH}\b"  # March 5, 5 March
    r"|\b(?:today|tonight|tomorrow|yesterday|noon|midnight|weekend)\b",
    re.IGNORECASE)
"""A date or time written in words a probe quotes: the term's own form, and the forms a student may write."""


def names_a_time(text: str) -> bool:
    """Whether ``text`` (an email subject) names a date or a time: then it may tell when the email was sent."""
    return NAMES_A_TIME.search(text) is not None


def _evenly(rng: random.Random, items: Sequence[Any], key: Callable[[Any], int], per_value: int, count: int) -> list[Any]:
    """Up to ``count`` of ``items``, at most ``per_value`` of each value of ``key``, taken in turn from each value (the
    values in a drawn order, the items of each value shuffled), so that no value crowds the others out."""
    groups: dict[int, list[Any]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    queues = [rng.sample(group, min(per_value, len(group))) for _, group in sorted(groups.items())]
    rng.shuffle(queues)
    out: list[Any] = []
    while len(out) < count and any(queues):
        out += [queue.pop() for queue in queues if queue][:count - len(out)]
    return out


def ordering(past: Past, rng: random.Random, version: int) -> list[Query]:
    """Three or four buildings first reached on a day, listed in a drawn order that has nothing to do with the true
    one (version 1 sorted them, and reversed the list when that gave the true order, so the list shown was never
    the answer; and a student's first arrivals may follow the ids)."""
    days = sorted({day_of(w.arrive) for _, _, w in past.walks})
    out: list[Query] = []
    for day in days:
        reached = [b for _, b in past.arrivals(day)]
        if len(reached) < 3:
            continue
        chosen = sorted(rng.sample(reached, min(4, len(reached))), key=reached.index)
        if version == 1:
            shown = sorted(chosen)
            out.append(VisitOrder(day, shown if shown != chosen else shown[::-1]))
        else:
            out.append(VisitOrder(day, rng.sample(chosen, len(chosen))))
    return out


def multi_session(past: Past, rng: random.Random, version: int) -> list[Query]:
    """Emails sent over a span; minutes walked on a day with several walks. Up to version 6 the span is two or three
    weeks from a week with an email; from version 7 it runs between two of the student's own emails
    (``email_spans``)."""
    if version >= 7:
        out = email_spans(past, rng)
    else:
        weeks = sorted({day_of(t) // 7 for _, t, _ in past.emails})
        out = [EmailsInWeeks(w, w + span) for w in weeks for span in (1, 2)]
    per_day: dict[int, int] = {}
    for _, _, w in past.walks:
        per_day[day_of(w.depart)] = per_day.get(day_of(w.depart), 0) + 1
    return out + [MinutesWalked(day) for day, n in per_day.items() if n > 1]


SPAN_DAYS = 7
"""Version 7: the least number of days between the two emails a count runs between."""
SPAN_KIN = 3
"""Version 7: the least number of subjects, itself among them, of the form of an email a count runs between."""


def email_spans(past: Past, rng: random.Random) -> list[Query]:
    """Version 7's email counts (``span_pairs``), drawn evenly over the count as the temporal pairs are (at most
    ``PAIRS_PER_GAP`` of each count), each pair in a drawn order."""
    counts = {(a, b): n for a, b, n in span_pairs([(seq, t, e.subject) for seq, t, e in past.emails])}
    drawn = _evenly(rng, list(counts), counts.__getitem__, PAIRS_PER_GAP, MAX_PAIRS)
    return [EmailsBetween(*(pair if rng.random() < 0.5 else pair[::-1])) for pair in drawn]


def span_pairs(sent: Sequence[tuple[int, int, str]]) -> list[tuple[str, str, int]]:
    """``(subject, subject, emails sent between them)`` of each pair of emails a version-7 count may run between,
    over the emails ``sent`` (``(seq, minute, subject)``, in log order): each sent once with its subject, naming no
    date or time (``names_a_time``), of a form (``subject_form``) the student wrote at least ``SPAN_KIN`` subjects
    of, the two at least ``SPAN_DAYS`` days apart.

    Counted over weeks (up to version 6), the answer was the term's schedule, much the same for every student of a
    world: answered with another seed's count of the same weeks by the same minute, 15 % of the counts drawn every
    week on generated seeds 0-4 at scale 0.2 were right (8 % of seeds 0-2's full terms), where "1" was right on 10 %
    (5 %). A reader that remembers nothing of its term does not know when the two emails of a span were sent: of
    a kind the term sends several of ("Door code for _", one a week), it cannot tell which one a subject is, and
    another term's student sent none with the same words. An email of its own kind ("Word limit", "Paper review:
    preparations": one of each in a small term) is sent at much the same point of every term, and two emails
    nearer than a week are mostly one errand's, or week 1's applications, with a count every student shares."""
    seen = Counter(subject for _, _, subject in sent)
    kin = Counter(subject_form(subject) for subject in seen)
    once = [(seq, t, subject) for seq, t, subject in sent
            if seen[subject] == 1 and not names_a_time(subject) and kin[subject_form(subject)] >= SPAN_KIN]
    order = [seq for seq, _, _ in sent]
    return [(a, b, bisect.bisect_left(order, b_seq) - bisect.bisect_right(order, a_seq))
            for i, (a_seq, a_t, a) in enumerate(once) for b_seq, b_t, b in once[i + 1:]
            if day_of(b_t) - day_of(a_t) >= SPAN_DAYS]


def abstention(past: Past, rng: random.Random, version: int) -> list[Draft]:
    """A library the student booked, on a day it was not booked there, twinned with a day it was."""
    booked: dict[str, set[int]] = {}
    for _, _, b in past.bookings:
        booked.setdefault(b.location_id, set()).add(b.day)
    twins = {(q.location_id, q.day) for q in _one_booking_days(past)}
    out: list[Draft] = []
    for location in sorted(booked):
        days = booked[location]
        answerable = sorted(day for day in days if (location, day) in twins)
        empty = [day for day in range(min(days) - 3, max(days) + 4) if day >= 0 and day not in days]
        if answerable and empty:
            out.append((BookedRoom(location, rng.choice(empty)), [BookedRoom(location, rng.choice(answerable))]))
    return out


def summarization(past: Past, rng: random.Random, version: int) -> list[Query]:
    """A week with more than one item; from version 5 one from Week 1 on with at least two items of its own
    (``WeekSummary.own_only``)."""
    out: list[Query] = []
    for what in SUMMARISED:
        weeks = dated_items(past, what)
        if version < 5:
            counts = Counter(week for _, week, _ in weeks)
            out += [WeekSummary(week, what) for week, n in counts.items() if n > 1]
            continue
        held: dict[str, set[int]] = {}
        for _, week, item in weeks:
            held.setdefault(item, set()).add(week)
        own = Counter(next(iter(where)) for where in held.values() if len(where) == 1)
        out += [WeekSummary(week, what, own_only=True)
                for week in sorted(own) if week >= FIRST_SUMMARY_WEEK and own[week] > 1]
    return out


def _plant(rng: random.Random, text: str) -> Plant:
    return Plant(f"{PLANT_TASK}{rng.getrandbits(48):012x}", text)


def contradiction(past: Past, rng: random.Random, version: int) -> list[Query]:
    """One of the student's own calendar titles, placed in two visited buildings by two notes."""
    titles = sorted({e.title for _, _, e in past.added if e.calendar_id == "self"})
    buildings = sorted({w.path[-1] for _, _, w in past.walks})
    if len(buildings) < 2:
        return []
    out: list[Query] = []
    for title in titles:
        first, second = rng.sample(buildings, 2)
        plants = [_plant(rng, f'Note for later, from the organisers: the next "{title}" session will be held in '
                              f"building {first}."),
                  _plant(rng, f'Note for later, from a classmate: the next "{title}" session is in building {second}, '
                              "and it has never been planned anywhere else.")]
        out.append(ToldPlaces(title, plants, [first, second]))
    return out


CODEWORDS = ("Acknowledged", "Roger", "Understood", "Confirmed", "Noted", "Received", "Affirmative", "Logged",
             "Copied", "Agreed", "Done", "Settled", "Checked", "Certainly", "Gladly", "Cheers", "Regards", "Thanks",
             "Onward", "Sincerely")
"""The words a standing instruction asks answers to end with: one a student that remembers nothing guesses right
one time in twenty (version 1 drew from the first five)."""


def instruction(past: Past, rng: random.Random, version: int) -> list[Query]:
    """A standing instruction on how to end answers about emails, then a question about one. One instruction per
    probe set: version 1 drew a word per question, so a fork asking two planted two standing instructions, and a
    student following the later one failed the earlier one's question."""
    def told(word: str) -> Plant:
        return _plant(rng, f"A standing instruction from your advisor: from now on, whenever you are asked about an "
                           f'email you sent, end your answer with the word "{word}".')

    subjects = _unique_subjects(past)
    if version == 1:
        return [Instructed(told(word), word, subject) for subject in subjects
                for word in [rng.choice(CODEWORDS[:5])]]
    word = rng.choice(CODEWORDS)
    plant = told(word)
    return [Instructed(plant, word, subject) for subject in subjects]


SEAT_FEATURES = ("window_seat", "power_outlet", "quiet_zone", "near_printer", "standing_desk", "natural_light")


def preference(past: Past, rng: random.Random, version: int) -> list[Query]:
    """Seats the student once booked, offered again; only one has the feature it said it wants."""
    return [_offer(past, rng, None, lambda wanted: _plant(rng, preference_text(wanted)), version)
            for _ in range(min(len(_booked_seats(past)) // 3, 20))]


def preference_text(feature: str) -> str:
    return f"You told your friends: from now on you only take library seats with a {feature.replace('_', ' ')}."


def _booked_seats(past: Past) -> list[str]:
    return sorted({b.seat_id for _, _, b in past.bookings if b.seat_id})


def _offer(past: Past, rng: random.Random, wanted: str | None, plant_of: Callable[[str], Plant],
           version: int) -> Preferred:
    """Three seats the student once booked, each listed with two features, only one of them with ``wanted`` (drawn
    when None), and the note stating the preference. The six features are the six there are, each listed once, so
    no seat stands out to a student that does not know the preference (version 1 drew the other two seats' features
    from three, so the wanted feature was the one listed once: picking that seat was right 63.5 % of the time)."""
    offered = rng.sample(_booked_seats(past), 3)
    if version == 1:
        if wanted is None:
            wanted, *others = rng.sample(SEAT_FEATURES, 4)
        else:
            others = rng.sample([f for f in SEAT_FEATURES if f != wanted], 3)
        features = [sorted([wanted, others[0]])] + [sorted(rng.sample(others, 2)) for _ in range(2)]
    else:
        if wanted is None:
            wanted = rng.choice(SEAT_FEATURES)
        others = rng.sample([f for f in SEAT_FEATURES if f != wanted], len(SEAT_FEATURES) - 1)
        features = [sorted([wanted, others[0]]), sorted(others[1:3]), sorted(others[3:5])]
    order = rng.sample(range(3), 3)
    return Preferred(plant_of(wanted), wanted, [offered[i] for i in order], [features[i] for i in order])


def from_the_term(ability: Ability, standing: Sequence[Query], past: Past, rng: random.Random,
                  version: int) -> list[Query]:
    """Candidates resting on the notes the term itself gave (``standing``), once at least one of a query's notes is
    in the log: the contradiction as the term wrote it, the instruction over each email the student sent once,
    the preference over seats it once booked."""
    given = [q for q in standing if any(p.task_id in past.planted for p in plants_of(q))]
    if ability == "contradiction_resolution":
        return [q for q in given if isinstance(q, ToldPlaces)]
    if ability == "instruction_following":
        return [Instructed(q.plant, q.word, subject) for q in given if isinstance(q, Instructed)
                for subject in _unique_subjects(past)]
    seats = len(_booked_seats(past)) >= 3
    return [_offer(past, rng, q.feature, _given(q.plant), version) for q in given if isinstance(q, Preferred) and seats
            for _ in range(min(len(_booked_seats(past)) // 3, 20))]


def _given(plant: Plant) -> Callable[[str], Plant]:
    return lambda _: plant


GENERATORS: dict[Ability, Callable[[Past, random.Random, int], list[Any]]] = {
    "information_extraction": extraction, "knowledge_update": update, "temporal_reasoning": temporal,
    "event_ordering": ordering, "multi_session_reasoning": multi_session, "abstention": abstention,
    "summarization": summarization, "contradiction_resolution": contradiction, "instruction_following": instruction,
    "preference_following": preference,
}


def _rng(*parts: object) -> random.Random:
    return random.Random(hashlib.sha256(":".join(map(str, parts)).encode()).digest())


_QUERY = msgspec.json.Encoder(order="sorted")


def generate(rows: Sequence[Logged], *, seed: int, describe: Callable[[str], str] = str,
             abilities: Sequence[Ability] = ABILITIES, per_ability: int = 2, at: tuple[int, int] | None = None,
             version: int = GENERATOR_VERSION, standing: Sequence[Query] = (), world: WorldIndex | None = None,
             ) -> list[Probe]:
    """Up to ``per_ability`` probes of each ability (abstention: that many pairs) over the log prefix ``rows``.

    Asked at ``at``, ``(seq, minute)`` (default: right after the last row). ``standing``: the contradiction,
    instruction and preference the term plants (``standing_of``); an ability the term plants for asks about
    those notes, and plants its own in the fork only if the term has none. ``world``: the run's world, which
    version 7's information extraction needs (``guessable``); older versions draw without it. Raises
    ``ValueError`` for an ability or version it does not generate, and for version 7's extraction without a world.
    """
    if type(version) is not int or version not in VERSIONS:  # a term's ground truth may say true, which == 1
        raise ValueError(f"probe generator version {version!r} is unknown; this campus has versions "
                         f"{', '.join(map(str, VERSIONS))}")
    unknown = [a for a in abilities if a not in GENERATORS]
    if unknown:
        raise ValueError(f"unknown ability {unknown[0]!r}; choose from: {', '.join(ABILITIES)}")
    if per_ability < 1:
        raise ValueError(f"probes per ability must be at least 1, not {per_ability}")
    rows = list(rows)
    asked_seq, asked_t = at if at is not None else (rows[-1][0], rows[-1][1]) if rows else (0, 0)
    past = Past.of(rows)
    known = directory_of(world) if world is not None else None
    probes: list[Probe] = []
    for ability in abilities:
        rng = _rng("probes", version, seed, ability, asked_seq)
        planted_by_term = [q for q in standing if ability == _PLANTS.get(type(q))]
        if planted_by_term:
            candidates = from_the_term(ability, planted_by_term, past, rng, version)
        elif ability == "information_extraction":
            candidates = extraction(past, rng, version, known)
        else:
            candidates = GENERATORS[ability](past, rng, version)
        made = [_draft(ability, drawn, past, describe, asked_seq, asked_t, seed, version)
                for drawn in rng.sample(candidates, len(candidates))]
        probes.extend(probe for group in _stratified([m for m in made if m], per_ability)
                      for probe in _asked(group, seed, version))
    return probes


def _draft(ability: Ability, drawn: Any, past: Past, describe: Callable[[str], str], asked_seq: int, asked_t: int,
           seed: int, version: int) -> list[Probe]:
    """The probe of one candidate (abstention: the pair, the twin second); none if it would reveal its answer."""
    query, twins = drawn if ability == "abstention" else (drawn, [])
    made = [_probe(ability, q, past, describe, asked_seq, asked_t, seed, version) for q in (query, *twins)]
    if any(reveals(probe, version) for probe in made):
        return []
    if len(made) == 2:
        return [msgspec.structs.replace(made[0], twin=made[1].probe_id),
                msgspec.structs.replace(made[1], twin=made[0].probe_id)]
    return made


def _asked(group: list[Probe], seed: int, version: int) -> list[Probe]:
    """A group of probes in the order they are asked: an abstention pair, from version 8 on, in a drawn order."""
    if len(group) == 2 and version >= SHUFFLED_PAIRS and _rng("pair order", version, seed, group[0].probe_id).random() < 0.5:
        return group[::-1]
    return group


EVENT_BINS = ((0, "<100"), (100, "100-299"), (300, "300-999"), (1_000, "1k-3k"), (3_000, "3k-10k"), (10_000, ">=10k"))
"""Events between the earliest evidence and the question."""
DAY_BINS = ((0, "<1 day"), (1, "1-6 days"), (7, "1-4 weeks"), (28, ">=4 weeks"))
"""Simulated days between the earliest evidence and the question."""
NO_EVIDENCE = "no evidence"
"""The bin of a "no record" probe: nothing to be far from."""
IN_FORK = "planted in the fork"
"""The bin of a probe whose evidence is a note given in the probe fork, just before the questions."""


def distance_bins(probe: Probe) -> tuple[str, str]:
    """``(events bin, days bin)`` of a probe."""
    if in_fork(probe.query):
        return IN_FORK, IN_FORK
    if probe.evidence_t is None or not probe.evidence:
        return NO_EVIDENCE, NO_EVIDENCE
    days = (probe.asked_at_t - probe.evidence_t) // (24 * 60)
    return _bin(EVENT_BINS, probe.asked_at_seq - min(probe.evidence)), _bin(DAY_BINS, days)


def _bin(bins: tuple[tuple[int, str], ...], distance: int) -> str:
    return [name for floor, name in bins if distance >= floor][-1]


def _stratified(groups: list[list[Probe]], count: int) -> list[list[Probe]]:
    """``count`` groups taken in turn from each distance bin (nearest first), so that recent and distant
    evidence are both asked about; within a bin, in the order given."""
    order = [name for _, name in EVENT_BINS] + [NO_EVIDENCE, IN_FORK]
    by_bin: dict[str, list[list[Probe]]] = {}
    for group in groups:
        by_bin.setdefault(distance_bins(group[-1])[0], []).append(group)
    queues = [by_bin[name] for name in order if name in by_bin]
    out: list[list[Probe]] = []
    while len(out) < count and any(queues):
        for queue in queues:
            if queue and len(out) < count:
                out.append(queue.pop(0))
    return out


def reveals(probe: Probe, version: int = GENERATOR_VERSION) -> bool:
    """Whether the probe's answer, as written, occurs in its question: anywhere for text (an id, a list, a day).

    A number or yes/no in a question built from the query alone is a coincidence that tells nothing ("5" in
    "Week 15"), and dropping such probes would: version 1 did, as a number or word of its own, and so kept a yes/no
    probe only when its answer was "no" ("Answer yes or no." ends in "no.", which it did not count)."""
    said = render(probe.answer).casefold()
    question = probe.question.casefold()
    if isinstance(probe.query, Preferred):  # a choice names its options: the right one must not stand out
        return question.count(said) != 1 or len({len(f) for f in probe.query.features}) != 1
    if isinstance(probe.answer, Number | YesNo):
        return version == 1 and re.search(rf"(?<![\w.]){re.escape(said)}(?![\w.])", question) is not None
    return said in question


def _probe(ability: Ability, query: Query, past: Past, describe: Callable[[str], str], asked_seq: int, asked_t: int,
           seed: int, version: int) -> Probe:
    planted = {p.task_id: asked_seq for p in in_fork(query)}
    answer, evidence, distractors = answer_of(query, replace(past, planted=past.planted | planted) if planted else past)
    if version >= 6 and isinstance(answer, Items) and answer.ordered:
        answer = msgspec.structs.replace(answer, strict=True)
    if planted:  # the notes are given in the fork: no seq of the parent is evidence
        evidence = []
    key = f"{version}:{seed}:{ability}:{asked_seq}:{_QUERY.encode(query).decode()}"
    return Probe(
        probe_id=hashlib.sha256(key.encode()).hexdigest()[:12], ability=ability, asked_at_seq=asked_seq,
        asked_at_t=asked_t, question=question_of(query, describe), query=query, answer=answer, evidence=evidence,
        evidence_t=min((past.times[seq] for seq in evidence), default=None), distractors=distractors,
    )


_PLANTS: dict[type, Ability] = {ToldPlaces: "contradiction_resolution", Instructed: "instruction_following",
                                 Preferred: "preference_following"}
_QUERIES = msgspec.json.Decoder(list[Query])


def standing_of(tasks: Iterable[Task]) -> list[Query]:
    """The contradiction, instruction and preference the term plants, from its note tasks' ground truth."""
    return queries_of([task.ground_truth["standing"] for task in tasks if "standing" in task.ground_truth])


def queries_of(data: list[Any]) -> list[Query]:
    """Queries kept as plain data (in a task's ground truth)."""
    return _QUERIES.decode(msgspec.json.encode(data))


def plants_of(query: Query) -> list[Plant]:
    """The notes a query rests on (none for a query about the log itself)."""
    if isinstance(query, ToldPlaces):
        return list(query.plants)
    return [query.plant] if isinstance(query, Instructed | Preferred) else []


def in_fork(query: Query) -> list[Plant]:
    """The notes a probe fork gives just before asking (those the term gave are in the log already)."""
    return [plant for plant in plants_of(query) if not plant.task_id.startswith(TERM_PLANT)]


def probe_set_hash(probes: Sequence[Probe]) -> str:
    return hashlib.sha256(_QUERY.encode(probes)).hexdigest()


def score_probe(probe: Probe, said: str, *, instructed: str | None = None) -> Score:
    """``said`` scored against the probe's answer. ``instructed``: the word a standing instruction the student was
    given asks answers about emails to end with; it is taken off the end of an answer to any other probe, so
    following the instruction is never wrong elsewhere."""
    if instructed is not None and not isinstance(probe.query, Instructed):
        said = without_word(said, instructed)
    return score(probe.answer, said, tuple(probe.distractors))


def without_word(said: str, word: str) -> str:
    """An answer without ``word`` closing it (an answer that is nothing else is kept)."""
    return re.sub(rf"[\s,;.:!-]*\b{re.escape(word)}\W*$", "", said, flags=re.IGNORECASE) or said


# ---------------------------------------------------------------- probes as tasks


PROBE_TASK = "probe-"
PROBE_SCENARIO = "memory_probe"
_PROBE = msgspec.json.Decoder(Probe)


def probe_task(probe: Probe, release: int, branch: str, instructed: str | None = None) -> Task:
    """The probe about ``branch``'s log asked as a task at ``release``, wherever the student is; answered in words.
    ``instructed``: the closing word of the standing instruction the student has been given (``instructed_word``).

    Every probe task says how to abstain, in the same words, so that sentence tells nothing."""
    truth: dict[str, Any] = {"probe": msgspec.to_builtins(probe), "branch": branch}
    if instructed is not None:
        truth["instructed"] = instructed
    return Task(
        id=f"{PROBE_TASK}{probe.probe_id}", scenario=PROBE_SCENARIO, phase="probe", release=release,
        instruction=f"A question about your own past this term. {probe.question} {ABSTAIN}\n"
                    "Reply <action>Answer: your answer</action>.",
        systems=(), evaluator="probe", ground_truth=truth, solution=(f"answer:{render(probe.answer)}",), flags=Flags(),
    )


def instructed_word(probes: Sequence[Probe], standing: Sequence[Query], past: Past) -> str | None:
    """The word answers about emails must end with, by the standing instruction a student asked ``probes`` after
    ``past`` has been given: the one the probes plant, else the term's, once its note is in the log."""
    told = [p.query for p in probes if isinstance(p.query, Instructed)]
    told += [q for q in standing if isinstance(q, Instructed) and q.plant.task_id in past.planted]
    return told[0].word if told else None


def plant_task(plant: Plant, release: int) -> Task:
    """A note given before the questions: delivered, not scored."""
    return Task(id=plant.task_id, scenario=PROBE_SCENARIO, phase="probe", release=release,
                instruction=f"{plant.text}\nNothing to do now; reply <action>Action: finish()</action>.",
                systems=(), evaluator="parts", ground_truth={"parts": []}, flags=Flags(delivery_only=True))


def probe_of(task: Task) -> Probe:
    return _PROBE.decode(msgspec.json.encode(task.ground_truth["probe"]))


@evaluator("probe", answers="text")
def judge_probe(task: Task, state: Any, events: Sequence[Event]) -> Verdict:
    """Scored exactly against the probe's typed answer; success is a full score."""
    probe = probe_of(task)
    said = next((e.answer for e in events if isinstance(e, Answered)), None)
    if said is None:
        return Verdict(False, "no answer", {"probe_permille": 0})
    word = task.ground_truth.get("instructed")
    result = score_probe(probe, said, instructed=word if isinstance(word, str) else None)
    detail = f"score {result.value:.3f} ({kind_of(probe.answer)}{', stale' if result.stale else ''}" \
             f"{', abstained' if result.abstained else ''})"
    return Verdict(result.value == 1.0, detail, {"probe_permille": round(1000 * result.value)})


# The "check_in" composer draws its questions with this module, so it is registered once this module is whole: imported
# at the top of it, check_ins would find it half made whenever this module is the first of the two to be imported.
from campus.scenarios import check_ins  # noqa: E402,F401

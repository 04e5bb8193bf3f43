"""Controls of the busy days: policies that act only on what the student is shown.

On a busy day (a task whose brief begins ``A busy day.``) each control reads the brief (the day's
appointments, the first errands, the hour the day closes), the errands and reminders announced
later in the conversation, and the results of its own calls; it reads each errand with
``agents/errand_reader.py``. Elsewhere in the term it plays the oracle's plan, so a run differs
from the oracle's only on busy days.

The day, as a policy:

- An appointment comes first: when its reminder arrives, or an hour (``AHEAD``) before it by the
  last time the student was told, the errand in hand is suspended after its current call; the
  student walks to the appointment's building, waits there until it ends (leaving early fails
  it), and resumes the errand where it stopped.
- Otherwise the next errand is taken (highest priority first, then the earliest deadline), done,
  and reported with ``errands.report_done``.
- With nothing to do, the student waits to the next half hour (``POLL``), never past the hour
  before an appointment, and finishes the day at its close.

- **guesser** never asks anyone: it writes a guess where a person's answer belongs. It must fail
  exactly the clue-dependent checkpoints.
- **sprayer** never asks anyone either, but where it can it writes every value the answer could be
  (every door code, shelf, word limit, building and room in emails with the errand's subject, every
  evening slot of next week as calendar entries). It must fail exactly what the guesser fails.

Every control takes hints (``campus fork --hint-level``, a ``Hint (level N):`` message with one
``[errand] Title: ...`` line per errand): told whom to ask (level 2), it asks about that errand;
told the answer (level 3), it uses it without asking. A nudge (level 1) changes nothing. A hint about
the errand in hand (told before its report) starts that errand again the hint's way at the next turn.
- **claimer** reports every errand done the moment it reads it, does none of them and keeps no appointment. It must
  pass no checkpoint: a report counts only for an errand done.
- **fifo** does the errands in the order they arrived and never stops for an appointment. It must
  fail exactly the appointments.
- **learner** guesses an errand of a kind (its title) no mentor has commented on, and asks about the
  kinds a mentor's feedback named; its memory is the ``[title]`` lines of every ``mentor_feedback``
  it received (rebuilt from the log on resume, like any persistent agent's). Its same-checkpoint
  recurrence is 0.
- **forgetful** is the learner with no memory (recurrence 1).

Replies are a pure function of the conversation (the policy is replayed over its results each
turn), so a control resumes in a fresh process exactly where it stopped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator
from dataclasses import dataclass

from campus.kernel.agent import AgentView, Reply, TaskMemory
from campus.scenarios.task import Term
from campus.world.index import WorldIndex

from campus.agents.errand_reader import READERS, SPRAYS, Desk, Steps, walk_to
from campus.agents.plans import LOCATE, action, replay_plan, replay_turns, results, run_plan

BRIEF = "A busy day."
AHEAD = 60
"""Minutes before an appointment at which a control leaves for it, reminded or not."""
POLL = 30
"""An idle control waits to the next multiple of this many minutes of the day."""
RANK = {"high": 0, "normal": 1, "low": 2}

_ERRAND = re.compile(r"^(?:- )?(?:New errand )?\[(?P<id>[^\]]+)\] \((?P<priority>\w+) priority, due (?P<due>\d\d:\d\d)\):? "
                     r"(?P<title>[^:]+): (?P<text>.+)$", re.MULTILINE)
_APPOINTMENT = re.compile(r"^- (?P<start>\d\d:\d\d)-(?P<end>\d\d:\d\d) (?P<title>.+) at .*\((?P<building>\w+)\)$", re.MULTILINE)
_REMINDER = re.compile(r"^Reminder: (?P<title>.+?) at .*\((?P<building>\w+)\) begins at (?P<start>\d\d:\d\d)", re.MULTILINE)
_TODAY = re.compile(r"Current time: (Week \d+, \w+) \d\d:\d\d")
_CLOSE = re.compile(r"\(by (\d\d:\d\d)\)")
_HINT = re.compile(r"^Hint \(level (?P<level>\d)\):\n(?P<lines>(?:\[[^\]]+\] .+\n?)+)", re.MULTILINE)
_HINT_LINE = re.compile(r"^\[(?P<id>[^\]]+)\] [^:]+: (?P<body>.+)$", re.MULTILINE)
_CLOCK = re.compile(r"(?:It is|It is already|You waited until|Current time:) Week \d+, \w+ (\d\d:\d\d)")


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


@dataclass(frozen=True)
class Style:
    """How a control goes about its day."""

    asks: Callable[[str], bool]
    """Whether it asks people about an errand of this title (or guesses)."""
    keeps_appointments: bool
    by_priority: bool
    """Next errand by priority and deadline (else in the order they arrived)."""
    sprays: bool = False
    """Not asking and not told, it states every value the answer could be (``SPRAYS``) rather than one guess."""
    claims: bool = False
    """It reports each errand done as soon as it has read it, and does nothing else."""


@dataclass(frozen=True)
class Appointment:
    title: str
    start: int
    end: int
    building: str


def day(brief: str, style: Style) -> Steps:
    """One busy day, one reply per turn (each ``send`` is what the previous reply produced)."""
    today = _TODAY.search(brief)
    desk = Desk("", today.group(1) if today else "")
    date = desk.today
    close = _minutes(found.group(1)) if (found := _CLOSE.search(brief)) else 18 * 60
    appointments = [Appointment(m["title"], _minutes(m["start"]), _minutes(m["end"]), m["building"])
                    for m in _APPOINTMENT.finditer(brief)] if style.keeps_appointments else []
    errands: dict[str, re.Match[str]] = {}
    done: set[str] = set()
    reminded: set[tuple[str, int]] = set()
    whom: set[str] = set()
    """Errands a hint said whom to ask about."""
    answers: dict[str, str] = {}
    """Errand -> the answer a hint gave."""
    clock = 0

    def take_in(text: str) -> None:
        nonlocal clock
        desk.saw(text)
        times = _CLOCK.findall(text)
        if times:
            clock = _minutes(times[-1])
        for found in _ERRAND.finditer(text):
            errands.setdefault(found["id"], found)
        reminded.update((m["title"], _minutes(m["start"])) for m in _REMINDER.finditer(text))
        for hint in _HINT.finditer(text):
            for line in _HINT_LINE.finditer(hint["lines"]):
                if hint["level"] == "2":
                    whom.add(line["id"])
                elif hint["level"] == "3":
                    answers[line["id"]] = line["body"]

    def due() -> Appointment | None:
        return next((a for a in appointments if (a.title, a.start) in reminded or clock >= a.start - AHEAD), None)

    def attend(appointment: Appointment) -> Steps:
        appointments.remove(appointment)
        yield from drive(walk_to(desk, appointment.building), interruptible=False)
        take_in((yield action(f'errands.wait_until(time="{date} {_clock(appointment.end)}")')))

    def drive(steps: Steps, interruptible: bool = True, changed: Callable[[], bool] = lambda: False) -> Generator[str, str, bool]:
        """Carry out ``steps``; between two of its calls a due appointment is attended first. Stops early (False)
        when ``changed()`` after a result."""
        try:
            reply = next(steps)
        except StopIteration:
            return True
        while True:
            result = yield reply
            take_in(result)
            while interruptible and (appointment := due()) is not None:
                yield from attend(appointment)
            if changed():
                return False
            try:
                reply = steps.send(result)
            except StopIteration:
                return True

    def work(errand: re.Match[str]) -> Steps:
        """Do an errand and report it; a hint about it told before the report starts it again the way the hint says."""
        reader = READERS[errand["title"]]
        while True:
            advice = (style.asks(errand["title"]) or errand["id"] in whom, answers.get(errand["id"], ""))
            if style.claims:
                steps = _report(errand["id"])
            elif style.sprays and advice == (False, "") and errand["title"] in SPRAYS:
                steps = _then(SPRAYS[errand["title"]](desk, errand["text"]), _report(errand["id"]))
            else:
                steps = _then(reader(desk, errand["text"], *advice), _report(errand["id"]))
            if (yield from drive(steps, changed=lambda: advice != (style.asks(errand["title"]) or errand["id"] in whom,
                                                                  answers.get(errand["id"], "")))):
                return

    def next_errand() -> re.Match[str] | None:
        open_ = [m for m in errands.values() if m["id"] not in done]
        if style.by_priority:
            open_.sort(key=lambda m: (RANK.get(m["priority"], len(RANK)), _minutes(m["due"])))
        return open_[0] if open_ else None

    take_in(brief)
    if not desk.place:
        take_in((yield LOCATE))
    while True:
        appointment = due()
        if appointment is not None:
            yield from attend(appointment)
            continue
        errand = next_errand()
        if errand is not None:
            done.add(errand["id"])
            if errand["title"] in READERS:
                yield from work(errand)
            continue
        if not appointments and clock >= close:
            return
        target = min([(clock // POLL + 1) * POLL, close, *(a.start - AHEAD for a in appointments)])
        take_in((yield action(f'errands.wait_until(time="{date} {_clock(target)}")')))


def _report(errand_id: str) -> Steps:
    yield action(f'errands.report_done(errand_id="{errand_id}")')


def _then(first: Steps, second: Steps) -> Steps:
    yield from first
    yield from second


def day_reply(style: Style, view: AgentView) -> str:
    return replay_turns(day(view.messages[0].content, style), results(view))


def is_busy_day(view: AgentView) -> bool:
    return bool(view.messages) and BRIEF in view.messages[0].content


class BusyControl:
    name = ""

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.term = term
        self.world = world

    def style(self) -> Style:
        raise NotImplementedError

    def act(self, view: AgentView) -> Reply:
        if is_busy_day(view):
            return day_reply(self.style(), view)
        return replay_plan(run_plan(self.term.by_id[view.task_id].solution, self.world), view)


class GuesserAgent(BusyControl):
    name = "guesser"

    def style(self) -> Style:
        return Style(asks=lambda title: False, keeps_appointments=True, by_priority=True)


class SprayerAgent(BusyControl):
    name = "sprayer"

    def style(self) -> Style:
        return Style(asks=lambda title: False, keeps_appointments=True, by_priority=True, sprays=True)


class ClaimerAgent(BusyControl):
    name = "claimer"

    def style(self) -> Style:
        return Style(asks=lambda title: False, keeps_appointments=False, by_priority=True, claims=True)


class FifoAgent(BusyControl):
    name = "fifo"

    def style(self) -> Style:
        return Style(asks=lambda title: True, keeps_appointments=False, by_priority=False)


_FEEDBACK_TITLE = re.compile(r"^- \[([^\]]+)\]", re.MULTILINE)
FEEDBACK_HEADER = "Mentor feedback on today"


class LearnerAgent(BusyControl):
    name = "learner"

    def __init__(self, term: Term, world: WorldIndex) -> None:
        super().__init__(term, world)
        self.told: set[str] = set()
        """Titles of errands a mentor has given feedback on."""

    def remember(self, past: TaskMemory) -> None:
        for turn in past.messages:
            if turn.role == "user" and FEEDBACK_HEADER in turn.content:
                self.told.update(_FEEDBACK_TITLE.findall(turn.content.split(FEEDBACK_HEADER, 1)[1]))

    def style(self) -> Style:
        told = frozenset(self.told)
        return Style(asks=lambda title: title in told, keeps_appointments=True, by_priority=True)


class ForgetfulAgent(LearnerAgent):
    name = "forgetful"

    def remember(self, past: TaskMemory) -> None:
        """Feedback is received and not kept."""


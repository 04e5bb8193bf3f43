"""Readers that bound the memory-probe score: they answer a probe from part of the log, with no model.

Each reads the probe from the term (the task's ground truth names the probe and the branch
it is about) and answers it with the probe's own answer function over what it may see of
the log up to the question, plus the notes planted in the fork just before (kept as they
end, like any persistent agent's memory; all but ``no-memory`` keep them):

- ``oracle-reader``: all of it (the upper bound: 100 % on every ability);
- ``recent-only``: only the events of its last ``RECENT_STEPS`` agent steps (``recent-only:N``: its
  last N), so it decays with the distance to the evidence;
- ``no-memory``: nothing, so it says "no record" to everything: right on abstention probes,
  wrong on their answerable twins and on every other ability;
- ``question-only``: nothing either, but it guesses from the words of each question as it is shown
  (``guess``): the options listed, the form of answer asked for, the dates the email subjects it quotes
  name, what is known of how probes are made.
  It measures each ability's chance level, and anything a question gives away beyond it.

``world_guess`` is not a reader a run can name: it guesses the recipient of an email from its subject and the world
(the term audit holds it to nothing right).

They answer a term's memory check-ins the same way (``scenarios.check_ins``): the probe set drawn
again from the log before the check-in's release, each probe answered from what the reader may see,
one numbered line each. On any other task they act as the oracle does, so readers playing a whole
term live the same life and differ only in what they remember. A check-in is read from the log
of the branch being played, which the reader is told (``branch``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from campus.agents import READERS, RECENT_STEPS
from campus.agents.oracle import OracleAgent
from campus.events import TaskReleased, decode_events
from campus.kernel.agent import AgentView, Reply, TaskMemory
from campus.kernel.clock import DAYS
from campus.kernel.schedule import Logged, Prefix
from campus.kernel.store import EventStore, decode_rows
from campus.scenarios.check_ins import EVALUATOR as CHECK_IN, probes_of
from campus.scenarios.clubs import ROLES as CLUB_ROLES, plain  # plain: how the term spells names and addresses
from campus.scenarios.disruptions import GROUP
from campus.scenarios.probe_answers import NO_RECORD, render
from campus.scenarios.probes import (
    ABSTAIN, CODEWORDS, FACT_KINDS, FORMATS, PLANT_TASK, PROBE_TASK, TERM_PLANT, Past, Probe, answer_of, probe_of,
)
from campus.scenarios.task import Task, Term
from campus.world.index import WorldIndex



def reader_spec(name: str) -> tuple[str, int] | None:
    """``(reader, window)`` for a reader's name (``recent-only:N`` sets the window to N steps), else None."""
    if name in READERS:
        return name, RECENT_STEPS
    base, _, window = name.partition(":")
    if base == "recent-only" and window.isdigit() and int(window) >= 1:
        return base, int(window)
    return None
FINISH = "<action>Action: finish()</action>"


class Reader:
    def __init__(self, name: str, store: EventStore, term: Term, world: WorldIndex, *, branch: str | None = None,
                 recent_steps: int = RECENT_STEPS) -> None:
        if name not in READERS:
            raise ValueError(f"unknown reader {name!r}; readers: {', '.join(READERS)}")
        self.name = name
        self.store = store
        self.term = term
        self.world = world
        self.branch = branch
        self.recent_steps = recent_steps
        self.oracle = OracleAgent(term, world)
        self._seen: dict[tuple[str, int], Past] = {}
        self.planted: dict[str, int] = {}

    def act(self, view: AgentView) -> Reply:
        task = self.term.by_id.get(view.task_id)
        if task is None:
            return FINISH
        if self.name == "question-only" and (task.id.startswith(PROBE_TASK) or task.evaluator == CHECK_IN):
            asked = questions_shown(view.messages[-1].content if view.messages else "")
            if not asked:
                return FINISH
            if task.id.startswith(PROBE_TASK):
                return f"<action>Answer: {guess(asked[0])}</action>"
            lines = "\n".join(f"{n}: {guess(question)}" for n, question in enumerate(asked, start=1))
            return f"<action>Answer:\n{lines}</action>"
        if task.id.startswith(PROBE_TASK):
            probe = probe_of(task)
            return f"<action>Answer: {self._answer(probe, str(task.ground_truth['branch']))}</action>"
        if task.evaluator == CHECK_IN and self.branch is not None:
            probes = self._check_in(task, self.branch)
            lines = "\n".join(f"{n}: {self._answer(p, self.branch)}" for n, p in enumerate(probes, start=1))
            return f"<action>Answer:\n{lines}</action>" if probes else FINISH
        return self.oracle.act(view)

    def _answer(self, probe: Probe, branch: str) -> str:
        past = self._past(branch, probe.asked_at_seq)
        if self.name != "no-memory":
            past = replace(past, planted=past.planted | self.planted)
        return render(answer_of(probe.query, past)[0])

    def _check_in(self, task: Task, branch: str) -> list[Probe]:
        """The check-in's probe set, drawn again from the log before its release (the last release of the task)."""
        head, _ = self.store.head(branch)
        release = next(row for row in reversed(self.store.rows(branch, max(1, head - 16), head))
                       if row.kind == "task_released")
        event = decode_events([release.payload])[0]
        if not isinstance(event, TaskReleased) or event.task_id != task.id:
            raise RuntimeError(f"the release of {task.id} is not at the head of {branch}")
        rows = [row for row in self.store.rows(branch, 1, release.seq - 1) if row.kind in FACT_KINDS]
        logged = [(row.seq, row.t, e) for row, e in zip(rows, decode_rows(rows))]
        prefix = Prefix(logged, release.seq, release.t, self.world.describe, self.world)
        return probes_of(task, self.term.seed, prefix)

    def remember(self, past: TaskMemory) -> None:
        """The notes planted in the fork are its recent past: every reader with a memory keeps them (the term's own
        notes are in the log, where each reader sees what it may)."""
        if past.task_id.startswith(PLANT_TASK) and not past.task_id.startswith(TERM_PLANT):
            self.planted[past.task_id] = 0

    def _past(self, branch: str, upto: int) -> Past:
        key = (branch, upto)
        if key not in self._seen:
            blind = self.name in ("no-memory", "question-only")
            self._seen[key] = Past() if blind else Past.of(self._visible(branch, upto))
        return self._seen[key]

    def _visible(self, branch: str, upto: int) -> list[Logged]:
        rows = self.store.rows(branch, 1, upto)
        if self.name == "recent-only":
            replies = [row.seq for row in rows if row.kind == "agent_replied"]
            first = replies[-self.recent_steps] if len(replies) >= self.recent_steps else 1
            rows = [row for row in rows if row.seq >= first]
        rows = [row for row in rows if row.kind in FACT_KINDS]
        return [(row.seq, row.t, event) for row, event in zip(rows, decode_rows(rows))]


_ASKED = "A question about your own past this term. "
_NUMBERED = re.compile(r"^\d+\. (.+)$", re.MULTILINE)
_LISTED_ID = re.compile(r"\(([^()]+)\)(?:, |$)")
_OPTION = re.compile(r"^(.+?) \((.+)\)$")


def questions_shown(observation: str) -> list[str]:
    """The questions of a probe task (one) or a check-in (numbered lines), as the student is shown them."""
    if _ASKED in observation:
        return [observation.split(_ASKED, 1)[1].split(ABSTAIN, 1)[0].strip()]
    return _NUMBERED.findall(observation)


_SENT_BEFORE = re.compile(r'^Did you send the email "(.*)" before the email "(.*)"\? ')
_WRITTEN_DAY = re.compile(rf"\bWeek (\d+), ({'|'.join(DAYS)})\b")


def written_day(text: str) -> int | None:
    """The day of the first date written in ``text`` the way the term writes them ("Week 15, Friday"), if any."""
    found = _WRITTEN_DAY.search(text)
    return 7 * int(found[1]) + DAYS.index(found[2]) if found else None


def guess(question: str) -> str:
    """The best answer to ``question`` from its words alone, with no memory of the term: what the list it shows and
    the form of answer it asks for allow, and what a reader of this code knows of how probes are made. Whether one
    email was sent before another, when both subjects name the day of what they announce: the one naming the
    earlier day (such an email is sent a few days before the day it names; generator version 4 asks about no such
    email, version 3 did)."""
    if FORMATS["yes_no"] in question:
        pair = _SENT_BEFORE.match(question)
        days = [written_day(subject) for subject in pair.groups()] if pair else []
        if len(days) == 2 and days[0] is not None and days[1] is not None and days[0] != days[1]:
            return "yes" if days[0] < days[1] else "no"
        return "no"
    if "In which order did you first arrive at them?" in question:
        shown = _LISTED_ID.findall(question.split("each of these buildings: ", 1)[1].split(". In which order", 1)[0])
        return "; ".join(shown[::-1] if len(shown) == 3 else shown)
    if "Which one do you take?" in question:
        listed = question.split("free right now: ", 1)[1].split(". Which one do you take?", 1)[0].split("; ")
        options = [(m[1], m[2].split(", ")) for m in map(_OPTION.match, listed) if m]
        seen = Counter(feature for _, features in options for feature in features)
        odd = [seat for seat, features in options if any(seen[f] == 1 for f in features)]
        return (odd or [seat for seat, _ in options] or [NO_RECORD])[0]
    if FORMATS["number"] in question:
        return "1"
    if question.startswith("To which address did you send the email"):  # also how an instruction probe is asked
        return CODEWORDS[0]  # never "no record": that is scored before the ending
    return NO_RECORD


_RECIPIENT = re.compile(r'^To which address did you send the email with the subject "(.*)"\? ')


def world_guess(question: str, world: WorldIndex) -> str | None:
    """The recipient of the email a question quotes, from its subject and the world alone, as the term writes them
    (None where neither tells): a membership application goes to the address the club directory lists for the club
    whose name holds the interest applied for; a note about a club's event, whose subject begins with the club's name,
    to one of its mailboxes (``<role>.<club id>@lau.edu``: the first role, right one time in five); an application
    for research supervision to the first advisor whose research includes the topic; a seat booked for the study
    group, to the group."""
    found = _RECIPIENT.match(question)
    if found is None:
        return None
    subject = found[1]
    head, _, rest = subject.partition(": ")
    if subject == "Study seat":
        return GROUP
    if head == "Membership application":
        club = next((c for c in world.world.clubs if rest.casefold() in plain(c.name).casefold()), None)
        return plain(club.email) if club else None
    if head == "Application for research supervision":
        advisor = next((a for a in world.world.advisors if rest in a.tags), None)
        return plain(advisor.email) if advisor else None
    club = next((c for c in world.world.clubs if plain(c.name) == head), None)
    return f"{CLUB_ROLES[0]}.{club.id.lower()}@lau.edu" if club and rest else None

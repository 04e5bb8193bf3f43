"""Adversarial controls: agents that attack one assumption of the term each.

Each is the oracle except in one way, so whatever it fails, it fails for that reason alone:

- **testwise** answers every multiple-choice question without memory: it opens the cited
  article(s) and picks the option that looks most like a protocol applied to the reading (the
  smallest positive offset from a number the article yields, a bare reading being the
  "protocol forgotten" distractor). Its accuracy on long-term questions must be chance.
- **optionsonly** answers from the options alone, no tool at all: the option with the most
  neighbours among the others (one or two apart, or a multiple). Chance as well.
- **option rules of thumb** (``option_guesses``, not agents: each reads one question's options and nothing
  else, so the audit scores them on the term's questions directly): always the smallest value, the second
  smallest, the second largest, the largest, or a statement whose item (protocol and article) is stated twice.
  Each must be at chance too.
- **the reading poolers** (``pooled_picks``, scored the same way on the exams' statements): skip the lectures but read
  every cited article and keep, statement after statement, how often each (protocol, family, parameter) has explained
  a stated value; one picks the statement whose best explanation has recurred least, the other the one whose
  explanation has recurred most (a student inferring a protocol from what its questions repeat: 35 % of reviews while
  reviews offered options and their wrong ones were other protocols' values).
- **the name counters** (``named_picks``, on the exams' statements) read nothing but the questions: the statement
  naming the protocol named least often so far, or most often. The least-named one scored 31 % while an exam spread
  its true protocols evenly and named the false statements' protocols at random.
- **the rule inferrer** (``inferred_picks``, on the exams' statements) skips the lectures, reads every cited article
  and guesses each protocol's rule as the family and parameter that the most of its stated values fit.
  All five are held to chance + 5 points.
- **the rememberers** (``remembered_guesses``, on the exams' statements) attend every lecture and keep each protocol's
  rule but never read an article: they strike out what the parameter rules out and take one statement left (drawn
  by the question's text) or the one implying the smallest reading. While lectures offered options, this student answered 89-91 % of lecture
  questions and 90 % of reviews by the parameter's rank among the options, and 57 % of exam questions (96 % of the
  "two pairs" a revised protocol's questions were); held to chance + 5 points like the rest. The third, the
  *pooled rememberer* (``pooled_rememberer``), tallies the reading each statement implies per (book, article,
  family) and takes the one the most other statements back: 33.3 % while a course's exams cited one (article,
  family) pair again in a third of their statements.
- **canvasser** is the oracle, but every email it sends on a task judged by its parts goes first, word for word, to
  the two addresses after the right one among every address the term's tasks write to: a student who writes to
  everyone who might be meant. It must fail every task with an email to send (``sole``) and pass every other.
- **dawdler** is the oracle plus ``IDLE`` simulated minutes per task (``calendar.wait``,
  before its answer or its ``finish``; before setting out where the task is handed out from its start, so it
  waits less there): the term has slack for it, so it must solve nearly all.
- **absent** gives the oracle's answers and does its errands but never walks anywhere (no ``goto:``,
  ``walk:``, ``route:`` or ``attend:`` step): it must earn no attendance, no credit for a question handed out
  only in a room, and no disruption task that needs a walk.
"""

from __future__ import annotations

import json
import re
import zlib
from collections import Counter
from collections.abc import Callable, Generator, Sequence

from campus.kernel.agent import AgentView, Reply
from campus.scenarios.protocols import FAMILIES, Cited
from campus.scenarios.task import Term
from campus.world.index import WorldIndex

from campus.agents.plans import FINISH, Plan, action, replay_plan, run_plan

Choosing = Generator[str, str, str]
"""A plan that ends with the letter it chose."""

IDLE = 15
"""Minutes the dawdler lets pass in every task."""

WAIT_TOOL = "calendar.wait"

_OPTION = re.compile(r"^([A-D])\) (.*)$", re.MULTILINE)
_CITED = re.compile(r"article (art_[\w.]+) of '([^']+)'")
_NUMBER = re.compile(r"-?\d+")
_GIVES = re.compile(r"gives (-?\d+)")
_TITLE = re.compile(r"^Article: (.*?) \(")


class _OracleBased:
    """The oracle's plan for every task, changed by ``adapt``."""

    name: str

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.term = term
        self.world = world

    def act(self, view: AgentView) -> Reply:
        task = self.term.by_id[view.task_id]
        return replay_plan(self.adapt(task.solution, view), view)

    def adapt(self, steps: tuple[str, ...], view: AgentView) -> Plan:
        return run_plan(steps, self.world)


class DawdlerAgent(_OracleBased):
    name = "dawdler"

    def adapt(self, steps: tuple[str, ...], view: AgentView) -> Plan:
        if not any(tool.name == WAIT_TOOL for tool in view.tools):
            return run_plan(steps, self.world)
        idle = f"call:{WAIT_TOOL}(minutes={IDLE})"
        last = len(steps) - 1 if steps and steps[-1].startswith("answer:") else len(steps)
        held = next((i for i, step in enumerate(steps) if step.startswith("attend:")), None)
        at = last if held is None else held  # where a task is handed out from its start, it dawdles on the way
        return run_plan((*steps[:at], idle, *steps[at:]), self.world)


class AbsentAgent(_OracleBased):
    name = "absent"

    def adapt(self, steps: tuple[str, ...], view: AgentView) -> Plan:
        return run_plan(tuple(step for step in steps if not step.startswith(("goto:", "walk:", "route:", "attend:"))),
                        self.world)


class CanvasserAgent(_OracleBased):
    name = "canvasser"

    def __init__(self, term: Term, world: WorldIndex) -> None:
        super().__init__(term, world)
        self.addresses = sorted({part["to"] for task in term.tasks for part in task.ground_truth.get("parts", ())
                                 if part["check"] == "email"})

    def adapt(self, steps: tuple[str, ...], view: AgentView) -> Plan:
        if "parts" not in self.term.by_id[view.task_id].ground_truth:
            return run_plan(steps, self.world)
        return run_plan(tuple(extra for step in steps for extra in self._canvassed(step)), self.world)

    def _canvassed(self, step: str) -> list[str]:
        """The step, after the same email to the next two addresses (none if it writes to no address of a task)."""
        found = _TO.search(step) if step.startswith("call:email.send_email(") else None
        to = json.loads(found[1]) if found else None
        if to not in self.addresses:
            return [step]
        at = self.addresses.index(to)
        others = {self.addresses[(at + k) % len(self.addresses)] for k in (1, 2)} - {to}
        return [*(_TO.sub(lambda _: f"to={json.dumps(other)}", step, count=1) for other in sorted(others)), step]


_TO = re.compile(r'to=("(?:[^"\\]|\\.)*")')


class _Answering(_OracleBased):
    """The oracle's plan, except that every question is answered by ``choose`` instead."""

    def adapt(self, steps: tuple[str, ...], view: AgentView) -> Plan:
        if not steps or not steps[-1].startswith("answer:"):
            return run_plan(steps, self.world)
        moves = tuple(step for step in steps[:-1] if step.startswith(("goto:", "walk:", "attend:")))
        return self._answer(moves, view)

    def _answer(self, moves: tuple[str, ...], view: AgentView) -> Plan:
        inner = run_plan(moves, self.world)
        step = next(inner)
        while step != FINISH:
            step = inner.send((yield step))
        letter = yield from self.choose(question_of(view))
        yield f"<action>Answer: {letter}</action>"

    def choose(self, question: str) -> Choosing:
        raise NotImplementedError


def question_of(view: AgentView) -> str:
    """The question as shown (at release, or on arriving where it is handed out); empty if it never was."""
    return next((turn.content for turn in view.messages if turn.role == "user" and _OPTION.search(turn.content)), "")


def options(question: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in _OPTION.finditer(question)]


def _value(text: str) -> int | None:
    gives = _GIVES.search(text)
    if gives:
        return int(gives.group(1))
    numbers = _NUMBER.findall(text)
    return int(numbers[-1]) if numbers else None


def readings(article: str) -> set[int]:
    """Numbers a protocol could take from an article: the numbers in it, and surface features of its title."""
    found = {int(n) for n in _NUMBER.findall(article) if len(n) <= 6}
    title = _TITLE.search(article)
    if title:
        words = re.findall(r"[A-Za-z]+", title.group(1))
        if words:
            found |= {ord(words[0][0].upper()) - 64, len(words[0]), len(words)}
    return found


def protocol_likeness(value: int, seen: set[int]) -> float:
    """Higher when ``value`` is a reading shifted or scaled by a small parameter; a bare reading scores low."""
    best = 0.0
    for r in seen:
        if value == r:
            continue
        if 0 < value - r <= 30:
            best = max(best, 2.0 - (value - r) / 30)
        if r > 1 and value % r == 0 and 2 <= value // r <= 12:
            best = max(best, 1.5)
    return best


def neighbours(value: int, others: Sequence[int]) -> int:
    return sum(1 for o in others if 1 <= abs(value - o) <= 2 or (o and value != o and value % o == 0))


OPTION_GUESSES = ("options: smallest", "options: second smallest", "options: second largest", "options: largest",
                  "options: an item stated twice")
"""The options-only rules of thumb ``option_guesses`` plays, in its order."""


def option_guesses(question: str) -> dict[str, str]:
    """The letter each rule of thumb of ``OPTION_GUESSES`` picks for ``question``; a rule with nothing to go on is left
    out (values by rank need a value in every option, all different; the repeated item needs an item stated twice)."""
    choices = options(question)
    values = [(value, letter) for letter, text in choices if (value := _value(text)) is not None]
    picked: dict[str, str] = {}
    if choices and len(values) == len(choices) == len({value for value, _ in values}):
        ranked = [letter for _, letter in sorted(values)]
        picked |= dict(zip(OPTION_GUESSES[:4], (ranked[0], ranked[1], ranked[-2], ranked[-1])))
    items: dict[str, list[str]] = {}
    for letter, text in choices:
        gives = _GIVES.search(text)
        if gives:
            items.setdefault(text[:gives.start()], []).append(letter)
    twice = next((letters[0] for letters in items.values() if len(letters) > 1), None)
    if twice is not None:
        picked[OPTION_GUESSES[4]] = twice
    return picked


POOLED_GUESSES = ("reading pooler, exams: the rarest explanation", "reading pooler, exams: the commonest explanation",
                  "name counter, exams: the protocol named least", "name counter, exams: the protocol named most",
                  "rule inferrer, exams: the rule the most statements fit")
"""The strategies that pool what an exam's statements show with the statements before them (``pooled_guesses``)."""
_STATEMENT = re.compile(r"^([A-D])\) Applying the (\w+) Protocol to article (\S+) of '([^']+)' gives (-?\d+)\.$",
                        re.MULTILINE)
Explanation = tuple[str, str, int]
"""(protocol, family, parameter)."""
Reader = Callable[[str, str], Cited | None]
"""``article(book, id)``: a cited article as the bibliography shows it, or None."""


def explanations(protocol: str, article: Cited, value: int) -> set[Explanation]:
    """Every (protocol, family, parameter) under which ``protocol`` would give ``value`` for ``article``."""
    found: set[Explanation] = set()
    for key, family in FAMILIES.items():
        base = family.measure(article)
        if base is not None:
            found |= {(protocol, key, k) for k in family.params if family.apply(base, k) == value}
    return found


def pooled_guesses(questions: Sequence[str], article: Reader) -> dict[str, list[str | None]]:
    """Each strategy of ``POOLED_GUESSES``'s letters for ``questions`` (long-term questions in the order they are
    asked); None where a strategy has nothing to go on."""
    explained, named = _recurrences(questions, article), _namings(questions)
    picks = [[_pick(scored, most) for scored in counts]
             for counts, most in ((explained, False), (explained, True), (named, False), (named, True))]
    return dict(zip(POOLED_GUESSES, [*picks, inferred_picks(questions, article)]))


def inferred_picks(questions: Sequence[str], article: Reader) -> list[str | None]:
    """The rule inferrer's letter for each of ``questions``: it skips the lectures but reads every cited article, and
    guesses each protocol's rule from the statements about it so far, this question's included: the (family,
    parameter) under which the most stated values are the reading of an article cited so far in that book plus the
    parameter (none on a tie). It picks a statement its protocol's guessed rule makes true of the cited article (drawn
    by the question's text among several); None where none is. A design in which every statement's value minus the
    protocol's parameter was a real reading (a false statement citing the other end of a pair of articles) let it
    infer the parameter: right on 54 % of the exam questions of seeds 0-3 it picked in (25 % on the exams as they
    are)."""
    values: dict[tuple[str, str], list[int]] = {}
    readings: dict[tuple[str, str], set[int]] = {}
    out: list[str | None] = []
    for question in questions:
        read = []
        for letter, protocol, article_id, book, value in claims(question):
            cited = article(book, article_id)
            values.setdefault((book, protocol), []).append(value)
            for key, family in FAMILIES.items():
                reading = family.measure(cited) if cited is not None else None
                if reading is not None:
                    readings.setdefault((book, key), set()).add(reading)
            read.append((letter, protocol, book, value, cited))
        rules = {(book, protocol): _likeliest_rule(values[book, protocol], book, readings) for _, protocol, book, _, _ in read}
        fits = [letter for letter, protocol, book, value, cited in read
                if cited is not None and (rule := rules[book, protocol]) is not None
                and (reading := FAMILIES[rule[0]].measure(cited)) is not None and FAMILIES[rule[0]].apply(reading, rule[1]) == value]
        out.append(fits[zlib.crc32(question.encode()) % len(fits)] if fits else None)
    return out


def _likeliest_rule(values: Sequence[int], book: str, readings: dict[tuple[str, str], set[int]]) -> tuple[str, int] | None:
    """The (family, parameter) under which the most ``values`` less the parameter are a known reading; None on a tie."""
    scored = sorted(((sum(value - k in readings.get((book, key), ()) for value in values), key, k)
                     for key, family in FAMILIES.items() for k in family.params), reverse=True)
    return None if scored[0][0] == scored[1][0] else scored[0][1:]


REMEMBERED_GUESSES = ("rememberer, exams: any statement its parameters allow",
                      "rememberer, exams: the smallest reading its parameters allow",
                      "rememberer, exams: the reading the most statements back")
"""A student who attends every lecture and keeps each protocol's rule as the latest lecture stated it, but never opens
an article (``remembered_guesses``): on an exam it strikes out the statements whose value no reading of the protocol's
family could give under the protocol's parameter, then takes one of those left, drawn by the question's text (a
checksum, so not by its letter), or the one implying the smallest reading (readings are mostly small numbers), or
the one whose implied reading the most other statements so far back (``pooled_rememberer``)."""
_TAUGHT = re.compile(r"the (\w+) value of an article, take (the .+?) and add (\d+)\.")
_USED_TO = re.compile(r"change to the (\w+) Protocol.*?The amount added used to be (\d+)", re.DOTALL)
_FAMILY_OF = {family.reading: key for key, family in FAMILIES.items()}
"""How a lecture words each family's reading -> the family."""
Cue = tuple[str, str, str]
"""(book, article id, family): what a statement tells of an article's reading to a student who reads no article."""


def _taught(text: str, rules: dict[str, tuple[str, int]], stated: dict[str, set[int]]) -> None:
    """Keep each rule ``text`` teaches (``rules``: protocol -> (family, parameter), the latest one) and every parameter
    a lecture ever stated of the protocol, an old one a revision names included (``stated``)."""
    for protocol, reading, k in _TAUGHT.findall(text):
        if reading in _FAMILY_OF:
            rules[protocol] = (_FAMILY_OF[reading], int(k))
            stated.setdefault(protocol, set()).add(int(k))
    for protocol, old in _USED_TO.findall(text):
        stated.setdefault(protocol, set()).add(int(old))


def remembered_guesses(texts: Sequence[str]) -> dict[str, list[str | None]]:
    """Each strategy of ``REMEMBERED_GUESSES``'s letter for each of ``texts`` (every task's instruction in release
    order: the lectures teach, the exams are asked); None but on an exam's statements."""
    rules: dict[str, tuple[str, int]] = {}
    stated: dict[str, set[int]] = {}
    drawn: list[str | None] = []
    smallest: list[str | None] = []
    for text in texts:
        _taught(text, rules, stated)
        allowed: list[tuple[int, str]] = []
        for letter, protocol, _, _, value in _STATEMENT.findall(text):
            family, k = rules.get(protocol, (None, 0))
            implied = FAMILIES[family].unapply(int(value), k) if family is not None else 0
            if implied is not None:
                allowed.append((implied, letter))
        drawn.append(allowed[zlib.crc32(text.encode()) % len(allowed)][1] if allowed else None)
        smallest.append(min(allowed)[1] if allowed else None)
    return dict(zip(REMEMBERED_GUESSES, (drawn, smallest, pooled_rememberer(texts))))


def pooled_rememberer(texts: Sequence[str]) -> list[str | None]:
    """The pooled rememberer's letter for each of ``texts`` (every task's instruction in release order; None but on an
    exam's statements): it keeps every lecture's rule like the rememberers and reads no article, but pools the exam
    statements (``backings``) and takes the statement whose implied reading the most *other* statements back, drawn
    by the question's text on a tie. Every true statement about an article implies its real reading, whichever
    protocol of the family it names, while false ones scatter: 33.3 % of the exam questions of generated seeds 0-5
    and the published seed 0 (scale 1) while each statement drew its article on its own, so one course's exams cited
    the same (article, family) pair again in a third of their statements."""
    out: list[str | None] = []
    for text, scored in zip(texts, backings(texts)):
        best = max((support for support, _ in scored), default=None)
        tied = [letter for support, letter in scored if support == best]
        out.append(tied[zlib.crc32(text.encode()) % len(tied)] if tied else None)
    return out


def backings(texts: Sequence[str]) -> list[list[tuple[int, str]]]:
    """For each of ``texts`` (every task's instruction in release order), ``(support, letter)`` of each exam statement
    the protocol's current parameter allows: how many other statements so far, this question's included, imply the
    same reading of the same (book, article, family). A statement's value is run back through its protocol
    (``Family.unapply``) under each parameter the lectures stated of it, an old one a revision names too (a statement
    made under it gives the article's real reading), and each reading so found is tallied; a statement is scored by
    the reading under the protocol's current parameter. Rules are kept as ``remembered_guesses`` keeps them."""
    rules: dict[str, tuple[str, int]] = {}
    stated: dict[str, set[int]] = {}
    tallies: dict[Cue, Counter[int]] = {}
    out: list[list[tuple[int, str]]] = []
    for text in texts:
        _taught(text, rules, stated)
        implied: list[tuple[str, Cue, int]] = []
        for letter, protocol, article_id, book, value in claims(text):
            if protocol not in rules:
                continue
            family, k = rules[protocol]
            cue = (book, article_id, family)
            tally = tallies.setdefault(cue, Counter())
            tally.update({reading for parameter in stated[protocol]
                          if (reading := FAMILIES[family].unapply(value, parameter)) is not None})
            reading = FAMILIES[family].unapply(value, k)
            if reading is not None:
                implied.append((letter, cue, reading))
        out.append([(tallies[cue][reading] - 1, letter) for letter, cue, reading in implied])
    return out


def claims(question: str) -> list[tuple[str, str, str, str, int]]:
    """``(letter, protocol, article id, book, value)`` for each exam statement of ``question``."""
    return [(letter, protocol, article, book, int(value)) for letter, protocol, article, book, value in _STATEMENT.findall(question)]


def pooled_picks(questions: Sequence[str], article: Reader, *, most: bool = False) -> list[str | None]:
    """The reading pooler's letter for each of ``questions``: the option whose best explanation has recurred least
    (``most``: most) over the options read so far, this question's included (the first letter on a tie); None where
    no option says what a protocol gives."""
    return [_pick(scored, most) for scored in _recurrences(questions, article)]


def named_picks(questions: Sequence[str], *, most: bool = False) -> list[str | None]:
    """The name counter's letter for each of ``questions``: the statement naming the protocol named least (``most``:
    most) often over the statements read so far, this question's included (the first letter on a tie); None where no
    statement parses."""
    return [_pick(scored, most) for scored in _namings(questions)]


def _recurrences(questions: Sequence[str], article: Reader) -> list[list[tuple[int, str]]]:
    """For each question, ``(recurrence, letter)`` of each claim: how often its most recurrent explanation has
    explained a claim so far, this question's included."""
    seen: Counter[Explanation] = Counter()
    out: list[list[tuple[int, str]]] = []
    for question in questions:
        read = []
        for letter, protocol, article_id, book, value in claims(question):
            cited = article(book, article_id)
            found = explanations(protocol, cited, value) if cited is not None else set()
            seen.update(found)
            read.append((letter, found))
        out.append([(max((seen[e] for e in found), default=0), letter) for letter, found in read])
    return out


def _namings(questions: Sequence[str]) -> list[list[tuple[int, str]]]:
    """For each question, ``(times named, letter)`` of each exam statement: how often its protocol has been named so
    far, this question's included."""
    named: Counter[str] = Counter()
    out: list[list[tuple[int, str]]] = []
    for question in questions:
        statements = [(letter, protocol) for letter, protocol, *_ in _STATEMENT.findall(question)]
        named.update(protocol for _, protocol in statements)
        out.append([(named[protocol], letter) for letter, protocol in statements])
    return out


def _pick(scored: Sequence[tuple[int, str]], most: bool) -> str | None:
    """The letter with the smallest (``most``: largest) count, the first letter on a tie."""
    return min(scored, key=lambda pair: (-pair[0] if most else pair[0], pair[1]))[1] if scored else None


class TestwiseAgent(_Answering):
    name = "testwise"
    __test__ = False

    def choose(self, question: str) -> Choosing:
        choices = options(question)
        articles: dict[tuple[str, str], set[int]] = {}
        scored: list[tuple[float, str]] = []
        for letter, text in choices:
            cited = _CITED.search(text) or _CITED.search(question)
            value = _value(text)
            if cited is None or value is None:
                continue
            key = (cited.group(1), cited.group(2))
            if key not in articles:
                seen = yield action(f'bibliography.view_article(identifier="{key[0]}", by="id", book_title="{key[1]}")')
                articles[key] = readings(seen or "")
            scored.append((protocol_likeness(value, articles[key]), letter))
        best = max(scored, key=lambda item: item[0], default=(0.0, "A"))
        return best[1]


class OptionsOnlyAgent(_Answering):
    name = "optionsonly"

    def choose(self, question: str) -> Choosing:
        values = [(letter, _value(text)) for letter, text in options(question)]
        known = [(letter, v) for letter, v in values if v is not None]
        scored = [(neighbours(v, [o for _, o in known if o is not v]), letter) for letter, v in known]
        best = max(scored, key=lambda item: item[0], default=(0, "A"))
        return best[1]
        yield  # pragma: no cover

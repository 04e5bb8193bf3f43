"""Initial Course Selection (semester 1) and Preliminary Planning (semester 2).

Both scenarios are chains of short steps on one persistent draft; ``subsystems/courses.py``
enforces every rule (passes per semester, course counts, clashes, prerequisites).

What the student is told
------------------------
Each step is a message from a persona (roommate, counsellor, senior student, ...) with soft
advice that names courses by name, never by section id, and picks a section by its
instructor or meeting time, by "the only one of its sections that fits your draft", or by
something said in an earlier task ("the section your counsellor recommended", "the section
you had before"). Most steps carry popularity news: world changes applied at the step's
release move the demand for one drafted or advised course, each of its sections into
another band the quotas allow (``_Chain._course_changes``); the advice names the course only
when it is the one being advised, and never says the number or which way it moved
(``_news_sentence``). A step that names its section only by what was said earlier first moves
its course's demand whenever any section of the course sits in a band the quotas refuse, so
neither a refused band nor a moved popularity tells which section it means. The Student
Handbook does not state the selection rules, so the first step of each chain does, in its
own words, with a house rule that fixes the passes: every drafted course holds the weakest
pass that secures it at its current popularity (below 85 a B-Pass, 85-94 an A-Pass, 95 and
above the S-Pass), re-balanced whenever popularity moves. The generator only makes changes
that the semester's pass quotas and the clash rule allow, so exactly one draft follows the
advice after every step, and every step changes the draft. No instruction contains a
section id: the student browses the catalogue, reads popularity and decides.

- **Semester 1** (``course_selection``, Week 0): the welcome note gives the rules and the
  counsellor's recommended section of each of the 8 courses that have a textbook (all
  compulsory on generated worlds) and asks for the first of them. Later steps add the
  others (in the recommended section, or first in a section another persona prefers,
  switched to the recommended one later), undo such a switch, add, drop and re-add
  electives (at most two at a time, never clashing with a recommended section), and move
  passes on news. A budget keeps enough steps to reach the goal, exactly the 8 recommended
  sections, before the last step, which brings news and submits the draft
  (``registration.submit_draft``). A delivery task (not scored) then asks for every class
  as a weekly event in the student's calendar, located at the class's building: that is
  how scripted students find their lectures. ``ctx.timetable`` is set to those sections.
- **Semester 2** (``preliminary_planning``, Weeks 20-21): the semester-1 draft stays. The
  planning note gives the tighter quotas and the counsellor's recommended section of each of
  the 7 semester-2 courses whose prerequisites the semester-1 courses cover. Later steps plan
  them (in a named section, in the recommended one, in the only one that fits, or as the
  fallback of a trap that offers a course whose prerequisite is missing), set one aside and
  plan it again, switch sections on advice and back to the recommended one, and undo such a
  switch. The last step, the Excellent Student Programme, names the section of every
  semester-2 course (the budget leaves at most one course to move, so its pass always fits
  the quotas), so every correct student converges on the same schedule.

Counts and flags: semester 1 has ``ctx.count(150)`` scored steps (at least 12) plus the
delivery, semester 2 ``ctx.count(50)`` (at least 10). A step is long-term when it names its
section only by something an earlier task said (the recommendation, a dropped elective's
section, the section before a switch: ``RECALLED``) and a student who forgot that would have
two or more sections of the course to pick from that fit the draft and leave room for the
recommended courses still to plan (``_Chain._guessable``; with one, elimination finds it).
When those sections meet at different times the step also says when the one it means meets
(``meets``): the timetable would rank them (the section meant never clashed with the other
recommended ones), while parallel sections at one time clash alike with everything. On the
published campus a compulsory course's sections are parallel classes at one time, from world
generator 3 three at each of two times in semester 1 and two at one in semester 2; electives'
sections meet at different times, so re-adding one is seldom long-term, and on world generators
1 and 2, kept to verify old runs, none is (seeds 0-7). The draw leans towards a third of the steps
in semester 1 (the paper's share) and half in semester 2. The paper counts every semester-2 step
as long-term, for the rules told weeks before; but the rules are the same in every term, so a student with
no memory of this one passed every planning step: here they are 13-19 of the 50 on generated
worlds 0-7 (semester 1: 50-53 of 150), 15-18 on the published one with seeds 0-5 (semester 1:
51-55). Steps reserve a minute per oracle call plus the timeline's slack on ``ctx.timeline``
between 07:00 and 22:00, spread over their weeks.

Ground truth and judging
------------------------
A step is judged on what it asked to change (``{"check": "draft", "sections": ..., "scope": [...]}``):
among the sections it added, removed or re-passed and the one whose popularity its news moved, the
draft must hold exactly the expected passes. So one wrong section fails its own step and the later
steps that touch that course or that the wrong section blocks (a clash, a pass quota), not the whole
chain. The submitting step is judged on the whole draft and needs the 8 sections registered; the
programme step on the whole semester-2 schedule it names. ``ground_truth["draft"]`` keeps the whole
expected draft after every step.

Oracle and stale plans
----------------------
A step's solution makes its draft changes in an order the tools accept, assigning the pass
of the section whose popularity changed last. Its ``stale`` plan is the same with that pass
chosen from the popularity before the change, so it leaves another draft and fails. The
next step's plan (oracle and stale alike) first repeats that assignment, which the oracle
sees answered "already holds; nothing changed" and which repairs a stale student's draft,
so the stale control fails exactly the steps with news.

Public API: ``generate(ctx)`` gives semester 1 (tasks and popularity triggers) and sets
``ctx.timetable``; ``generate_planning(ctx)`` gives semester 2. Both derive the chains from
``plan_chains`` (a pure function of the world, the two random streams and the counts), so
they may run in either order.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from campus.events import Popularity
from campus.kernel.schedule import Trigger
from campus.scenarios.context import TermContext
from campus.scenarios.task import Flags, Task
from campus.scenarios.timeline import SLACK, at
from campus.subsystems.courses import RULES, Catalogue, catalogue, popularity_problem
from campus.world.index import WorldIndex
from campus.world.model import CourseSection

SELECTION = "course_selection"
PLANNING = "preliminary_planning"
PHASE = "daily_campus"
STEP_SYSTEMS = ("course_selection", "draft", "registration", "calendar")
TIMETABLE_SYSTEMS = ("course_selection", "draft", "calendar")

SELECTION_TASKS = 150
PLANNING_TASKS = 50
"""The paper's counts; at scale 1 semester 1 gets this many scored steps plus the timetable delivery."""
MIN_SELECTION_STEPS = 12
MIN_PLANNING_STEPS = 10
"""Enough steps to reach the goal at any scale (8 courses and a submission; 7 courses and the programme)."""

STEP_ROUNDS = 20
SPARE_ROUNDS = 10
"""A step allows its plan's turns plus this many, and at least ``STEP_ROUNDS``; it reserves a minute per turn."""
DAY_HOURS = (7, 22)
GRID_MINUTES = 10
SPREAD_SHARE = 0.7
SELECTION_WEEKS = (0,)
PLANNING_WEEKS = (20, 21)
NEWS_CHANCE = 0.85
MEMORY_SHARE = 1 / 3
"""The paper's share of long-term steps in semester 1 (50 of 150)."""
PLANNING_MEMORY_SHARE = 0.5
"""Semester 2 leans towards this share of long-term steps. The paper counts all 50 as long-term; here a step counts
only when it needs something an earlier task said (``_SemesterTwo``), so the planning note's rules alone do not."""
MEMORY_BOOST = 3.0
"""Weight factor for the kinds that bring the long-term share back towards ``MEMORY_SHARE``."""
MAX_ELECTIVES = 2
RECALLED = frozenset({"add_target", "switch_target", "undo_switch", "readd_elective", "trap"})
"""The kinds of step that name a section only by something said earlier (a recommendation, the section before)."""

PASS_ORDER = ("B-Pass", "A-Pass", "S-Pass")
BANDS: dict[str, tuple[int, int]] = {"B-Pass": (20, 84), "A-Pass": (85, 94), "S-Pass": (95, 99)}
"""The popularity range in which the house rule calls for each pass."""


def pass_for(popularity: int) -> str:
    """The house rule: the weakest pass that registers a section of this popularity."""
    if popularity >= 95:
        return "S-Pass"
    return "A-Pass" if popularity >= 85 else "B-Pass"


# ------------------------------------------------------------------ the catalogue, as advice sees it


def sections_of(cat: Catalogue, name: str, semester: int) -> list[CourseSection]:
    return [cat.sections[c] for c in cat.by_name.get(name.casefold(), []) if cat.sections[c].semester == semester]


def clash(cat: Catalogue, a: CourseSection, b: CourseSection) -> bool:
    """Whether two sections of one semester meet at overlapping times on a shared day (as the tools judge)."""
    ta, tb = cat.times[a.code], cat.times[b.code]
    if ta is None or tb is None or a.semester != b.semester:
        return False
    if not (a.first_week <= b.last_week and b.first_week <= a.last_week and ta[0] < tb[1] and tb[0] < ta[1]):
        return False
    return bool({d.casefold() for d in a.days} & {d.casefold() for d in b.days})


def handle(cat: Catalogue, section: CourseSection) -> str | None:
    """How advice names a section without its id: the course alone, its instructor or its meeting time."""
    siblings = sections_of(cat, section.name, section.semester)
    if len(siblings) == 1:
        return section.name
    if sum(s.instructor == section.instructor for s in siblings) == 1:
        return f"{section.name} with {section.instructor}"
    slot = (tuple(section.days), section.time)
    if sum((tuple(s.days), s.time) == slot for s in siblings) == 1:
        return f"the {'/'.join(section.days)} {section.time} section of {section.name}"
    return None


def textbook_courses(world: WorldIndex) -> list[str]:
    """The semester-1 courses with a textbook, in the world's order: the student's core programme."""
    cat = catalogue(world)
    names = [text.course for text in world.world.texts if text.course]
    missing = [name for name in names if not sections_of(cat, name, 1)]
    if missing or len(names) != RULES[1].courses:
        raise ValueError(f"the world needs {RULES[1].courses} semester-1 textbook courses in its catalogue, has {names}")
    return names


# ------------------------------------------------------------------ the draft model


class _Refused(Exception):
    """A call the tools would refuse: the step being built is dropped."""


@dataclass
class _State:
    cat: Catalogue
    passes: dict[str, str] = field(default_factory=dict)
    popularity: dict[str, int] = field(default_factory=dict)

    def copy(self) -> _State:
        return _State(self.cat, dict(self.passes), dict(self.popularity))

    def pop(self, code: str) -> int:
        return self.popularity.get(code, self.cat.sections[code].popularity)

    def drafted(self, semester: int) -> list[CourseSection]:
        return [self.cat.sections[c] for c in self.passes if self.cat.sections[c].semester == semester]

    def holding(self, name: str, semester: int) -> str | None:
        """The drafted section of a course, if any."""
        return next((s.code for s in self.drafted(semester) if s.name == name), None)

    def fits(self, section: CourseSection) -> bool:
        """Whether the tools would add the section (ignoring prerequisites, which the chains keep met)."""
        return self.holding(section.name, section.semester) is None and not any(
            clash(self.cat, section, other) for other in self.drafted(section.semester)
        )

    def allows(self, section: CourseSection, pass_type: str) -> bool:
        return pass_type in open_passes(self.cat, section, self.passes)


def _call(tool: str, **args: str) -> str:
    inner = ", ".join(f"{key}={json.dumps(value)}" for key, value in args.items())
    return f"call:{tool}({inner})"


def _give_call(code: str, pass_type: str) -> str:
    return _call("draft.assign_pass", section_id=code, pass_type=pass_type)


class _Ops:
    """A step's draft calls, applied to the model as they are recorded; a refused call raises ``_Refused``."""

    def __init__(self, state: _State) -> None:
        self.state = state
        self.calls: list[str] = []
        self.touched: list[str] = []
        """Sections this step added, removed or gave another pass, in order."""

    def add(self, code: str) -> None:
        if not self.state.fits(self.state.cat.sections[code]):
            raise _Refused(code)
        self.state.passes[code] = ""
        self.touched.append(code)
        self.calls.append(_call("draft.add_course", section_id=code))

    def remove(self, code: str) -> None:
        del self.state.passes[code]
        self.touched.append(code)
        self.calls.append(_call("draft.remove_course", section_id=code))

    def give(self, code: str, pass_type: str) -> None:
        if self.state.passes[code] == pass_type:
            return
        if not self.state.allows(self.state.cat.sections[code], pass_type):
            raise _Refused(code)
        self.state.passes[code] = pass_type
        self.touched.append(code)
        self.calls.append(_give_call(code, pass_type))


@dataclass(frozen=True)
class Step:
    """One step of a chain, before it is placed in time."""

    kind: str
    text: str
    calls: tuple[str, ...]
    stale_calls: tuple[str, ...] | None
    """``None`` when nothing changed before the step."""
    fixes: tuple[str, ...]
    """The assignments a stale student got wrong, repeated first in the next step."""
    changes: tuple[tuple[str, int], ...]
    """Popularity changes applied at the step's release: (section id, value)."""
    draft: dict[str, str]
    """The whole draft after the step."""
    long_term: bool
    registered: tuple[str, ...] = ()
    scope: tuple[str, ...] | None = None
    """The sections the step is judged on (the draft must hold exactly ``draft``'s passes among them), or
    ``None`` for the whole draft."""
    removed: tuple[str, ...] = ()
    """The sections the step takes out of the draft."""


# ------------------------------------------------------------------ wording

PERSONAS: tuple[str, ...] = (
    "Hey, it's your roommate.",
    "Hello, your academic counsellor here.",
    "Hi! A senior student from your programme here.",
    "Hi, this is the teaching assistant from orientation week.",
    "Hey, your orientation group leader here.",
    "Hi, a classmate from orientation here.",
    "Hello from the student union course-selection helpdesk.",
    "Hi, your neighbour from down the corridor here.",
)
DECOY_REASONS: tuple[str, ...] = (
    "everyone in my year swears by this one",
    "the lecture notes in this section are the best in the department",
    "my friends are all in it, so we can study together",
    "the exams there are known to be fair",
    "the instructor explains things really patiently",
)
ELECTIVE_PITCHES: tuple[str, ...] = (
    "it would be a nice break from the core courses",
    "I took it last year and loved it",
    "it looks great on a CV",
    "it is a gentle way to meet people outside your programme",
    "the projects are actually fun",
)
DROP_REASONS: tuple[str, ...] = (
    "the weekly assignments are brutal",
    "you need that time to settle in",
    "the instructor is away for half of the term",
    "a friend took it and regretted every minute",
    "it will be offered again later and is easier in a later year",
    "your core courses will keep you busy enough",
)
SET_ASIDE_REASONS: tuple[str, ...] = (
    "the department is still shuffling its sections",
    "its rooms are not confirmed yet",
    "keep the time free until the clash checks are done",
    "the timetable office asked everyone to hold off on it",
    "you may want a different mix of courses first",
)
REMINDER = "As always, keep every drafted course on the weakest pass that secures it at its current popularity."


def _news_sentence(name: str, form: str) -> str:
    """Popularity news without the number or the way it moved. News about the course being advised (``subject``)
    names it; news about a course already in the draft does not, so the student checks where each drafted course
    stands. While the news named the course and said "shot up" or "dropped", a student who never looked popularity
    up moved that course's pass one band that way and was right 74 % of the time, or to the other band the
    semester's pass quotas allowed, 91 %; now it has to guess which drafted course moved too (at most 14 % on seeds
    0-2)."""
    if form == "subject":
        return f"Word is that demand for {name} has moved since this morning, so check its popularity first."
    lead = "Also, demand" if form == "also" else "Demand"
    return f"{lead} for one of the courses in your draft has moved since this morning; check where each one stands."


def _welcome_text(cat: Catalogue, targets: dict[str, str], first: str) -> str:
    rules = RULES[1]
    picks = "; ".join(handle(cat, cat.sections[code]) or "" for code in targets.values())
    return (
        "Welcome to course selection week! Your academic counsellor here, with how it works. You build a draft "
        "schedule with the draft tools and submit it at the end of the week. Semester 1 needs exactly "
        f"{rules.courses} courses, at least {rules.min_compulsory} of them compulsory, and no two may meet at the same "
        "time. A course is only registered if it holds a pass: an S-Pass always works, an A-Pass works while the "
        "section's popularity is below 95, a B-Pass while it is below 85, and a course without a pass is never "
        f"registered. In semester 1 your compulsory courses may hold at most {rules.compulsory['S-Pass']} S-Pass and "
        f"{rules.compulsory['A-Pass']} A-Passes, electives at most {rules.elective['A-Pass']} A-Pass and never an "
        "S-Pass; B-Passes are unlimited. Popularity moves all week, so look it up (course_selection.browse_courses) "
        "whenever you touch a course or hear news. House rule for the whole selection: every course in your draft "
        "holds the weakest pass that secures it at its current popularity (a B-Pass below 85, an A-Pass from 85 to "
        "94, the S-Pass from 95), and you re-balance as soon as a number changes. My recommended section for each "
        f"of your core courses, worth writing down because I will refer to them later: {picks}. To start, add "
        f"{first} in the recommended section now."
    )


def _planning_text(cat: Catalogue, targets: dict[str, str], first: str) -> str:
    rules = RULES[2]
    picks = "; ".join(handle(cat, cat.sections[code]) or "" for code in targets.values())
    return (
        "Your academic counsellor again: preliminary planning for semester 2 opens today. Your semester-1 courses "
        "stay in your draft; do not remove them. Semester 2 needs exactly "
        f"{rules.courses} courses, at least {rules.min_compulsory} of them compulsory, none meeting at the same time, "
        "and a semester-2 course can only be planned if its prerequisites are among your semester-1 courses (the "
        "catalogue lists them). Passes are tighter this time: semester-2 compulsory courses may hold at most "
        f"{rules.compulsory['S-Pass']} S-Pass and {rules.compulsory['A-Pass']} A-Pass, electives at most "
        f"{rules.elective['A-Pass']} A-Pass; B-Passes are unlimited and the popularity thresholds are as before. The "
        "house rule still holds: each course on the weakest pass that secures it at its current popularity, "
        "re-balanced whenever popularity moves. My recommended section for each semester-2 course, to keep for the "
        f"weeks ahead because I will not list them again: {picks}. To start, plan {first} in the recommended section."
    )


# ------------------------------------------------------------------ chains

Judged = Literal["changes", "draft", "semester"]
"""What a step's check covers: the sections the step changed (an add, a removal, a pass, the section whose
popularity moved), the whole draft (the submission), or every section of the chain's semester (the programme
step, which names the whole semester-2 schedule)."""


Meeting = tuple[tuple[str, ...], str, int, int]
"""Days, block, first and last week."""


def meeting(section: CourseSection) -> Meeting:
    """When a section meets: two sections of a course that agree here clash alike with every other section."""
    return tuple(section.days), section.time, section.first_week, section.last_week


def meets(section: CourseSection) -> str:
    """A step's words for when the section it refers back to meets (``_Chain._recall``)."""
    return f" (the one that meets {'/'.join(section.days)} {section.time})"


def narrowed(options: Sequence[CourseSection], meant: CourseSection) -> tuple[list[CourseSection], bool]:
    """The sections a student who forgot what a step refers back to can still pick, and whether the step says when
    ``meant`` meets: it does when ``options`` meet at different times, leaving those meeting with ``meant``."""
    told = len({meeting(s) for s in options}) > 1
    return ([s for s in options if meeting(s) == meeting(meant)] if told else list(options)), told


_Saved = tuple["_State", dict[str, str], dict[str, str], tuple[str, ...]]
"""A chain's draft model, its switch and drop memories and its pending fixes, as they were before a step."""


def _weighted_order(rng: random.Random, weights: dict[str, float]) -> list[str]:
    """All kinds, in a random order that favours heavy weights (Efraimidis-Spirakis keys)."""
    return sorted(weights, key=lambda kind: -(rng.random() ** (1.0 / weights[kind])))


class _Chain:
    """Builds one semester's steps on a copy of the draft, keeping a budget to reach the goal."""

    semester = 1
    weights: dict[str, float] = {}
    memory_kinds: frozenset[str] = frozenset()
    """Kinds favoured while the long-term share lags: those that may refer back to an earlier task, and the set-aside
    that makes room for one."""
    memory_share = MEMORY_SHARE
    """The share of long-term steps the chain's draw leans towards."""

    def __init__(
        self, cat: Catalogue, rng: random.Random, state: _State, targets: dict[str, str], fixes: tuple[str, ...],
        ineligible: Sequence[str] = (),
    ) -> None:
        self.cat = cat
        self.ineligible = list(ineligible)
        """Courses of this semester whose prerequisites the student lacks (offered as traps)."""
        self.rng = rng
        self.state = state
        self.targets = targets
        self.fixes = fixes
        self.previous: dict[str, str] = {}
        """Course -> the section it had before its last switch to the target (for undo steps)."""
        self.dropped: dict[str, str] = {}
        """Elective -> the section it had when it was last dropped."""

    # -- budget

    def needed(self) -> int:
        raise NotImplementedError

    def build(self, steps: int) -> list[Step]:
        out = [self.opening()]
        while len(out) < steps - 1:
            left = steps - 2 - len(out)
            behind = sum(step.long_term for step in out) < self.memory_share * len(out)
            out.append(self._next(left, behind))
        out.append(self.closing())
        return out

    def _next(self, left: int, behind: bool) -> Step:
        """A step of a kind drawn by weight that keeps the budget; while the long-term share lags, the memory kinds
        are favoured and the first step that comes out long-term is taken over an earlier one that did not."""
        weights = {
            kind: weight * (MEMORY_BOOST if (kind in self.memory_kinds) == behind else 1.0)
            for kind, weight in self.weights.items()
        }
        fallback: tuple[Step, _Saved] | None = None
        for kind in _weighted_order(self.rng, weights):
            saved = self._save()
            step = self._attempt(getattr(self, kind))
            if step is not None and self.needed() <= left:
                if step.long_term or not behind:
                    return step
                fallback = fallback or (step, self._save())
            self._restore(saved)
        if fallback is None:
            raise RuntimeError(f"semester {self.semester}: no step fits the budget of {left}")
        self._restore(fallback[1])
        return fallback[0]

    def _save(self) -> _Saved:
        return self.state.copy(), dict(self.previous), dict(self.dropped), self.fixes

    def _restore(self, saved: _Saved) -> None:
        state, previous, dropped, self.fixes = saved
        self.state, self.previous, self.dropped = state.copy(), dict(previous), dict(dropped)

    def _attempt(self, kind: Callable[[], Step | None]) -> Step | None:
        try:
            return kind()
        except _Refused:
            return None

    def opening(self) -> Step:
        raise NotImplementedError

    def closing(self) -> Step:
        raise NotImplementedError

    # -- building blocks

    def _persona(self) -> str:
        return self.rng.choice(PERSONAS)

    def _guessable(self, name: str, away_from: str | None = None) -> list[CourseSection]:
        """The sections of a course a student who remembers nothing could pick when a step names only the course and
        something told earlier (``guessable``). Such a step is long-term only when there are two or more."""
        others = [s for s in self.state.drafted(self.semester) if s.name != name]
        rest = [n for n in self.targets if n != name and self.state.holding(n, self.semester) is None]
        return guessable(self.cat, name, self.semester, others, away_from, rest)

    def _ambiguous(self, name: str, away_from: str | None = None) -> bool:
        return len(self._guessable(name, away_from)) >= 2

    def _recall(self, name: str, meant: str, away_from: str | None = None) -> tuple[bool, str]:
        """Whether a step that refers to ``meant`` only by something said earlier is long-term, and the words it adds
        to say when ``meant`` meets, if any; call it before the step changes the draft.

        A student who forgot what was said could pick among the sections ``_guessable`` gives. When they meet at
        different times the step says when ``meant`` meets (``meets``), leaving its parallel sections, which clash
        alike with everything. Left to rank sections at different times, such a student could: the one meant never
        clashed with the other recommended sections while the others often did, and the one with the most clash-free
        ways to place the other courses around it was right on 55.9 % of the long-term steps of world generator 2's
        seeds 0-79 against 45.9 % by chance. Long-term when two sections or more are left. ``_Refused`` when ``meant``
        is not among them: it would clash, or no student could guess it."""
        options = self._guessable(name, away_from)
        if meant not in {s.code for s in options}:
            raise _Refused(meant)
        left, told = narrowed(options, self.cat.sections[meant])
        return len(left) >= 2, meets(self.cat.sections[meant]) if told else ""

    def _targets_clash(self, section: CourseSection) -> bool:
        """Whether a section would clash with the target of another course (so it could block the goal)."""
        return any(
            clash(self.cat, section, self.cat.sections[code]) for name, code in self.targets.items() if name != section.name
        )

    def _step(
        self,
        kind: str,
        text: str,
        ops: _Ops,
        focus: Sequence[str],
        *,
        long_term: bool,
        news: str = "maybe",
        lead: str = "also",
        tail: Sequence[str] = (),
        registered: tuple[str, ...] = (),
        judged: Judged = "changes",
    ) -> Step:
        """Finish a step: passes for ``focus`` (sections added now), maybe one course's demand moved, then ``tail``.

        ``news``: ``maybe`` (usually), ``always`` or ``never``; ``lead`` words news about a section
        outside ``focus`` (see ``_news_sentence``). A focus section whose current band the quotas
        do not allow, or on a step of a ``RECALLED`` kind one with another section of its course in
        such a band, gets its course's demand moved. ``judged`` says what the step's check covers.
        """
        forced = [code for code in focus if self._unsettled(code, recalled=kind in RECALLED)]
        if len(forced) > 1 or (forced and news == "never"):
            raise _Refused(forced[0])
        changed = forced[0] if forced else self._pick_news(focus, news)
        for code in focus:
            if code != changed:
                ops.give(code, pass_for(self.state.pop(code)))
        core = list(ops.calls)
        changes: tuple[tuple[str, int], ...] = ()
        stale: tuple[str, ...] | None = None
        fixes: tuple[str, ...] = ()
        sentence = ""
        judged_news: tuple[str, ...] = ()  # the drafted section the news is about, and those it moved (not always it)
        if changed is not None:
            old = self.state.pop(changed)
            changes = self._course_changes(changed)
            if not changes and (forced or news == "always"):
                raise _Refused(changed)
            self.state.popularity.update(changes)
            if changes:
                judged_news = (changed, *dict(changes))
                name = self.cat.sections[changed].name
                sentence = " " + _news_sentence(name, "subject" if changed in focus else lead)
            if changed in dict(changes):
                held = self.state.passes[changed]
                ops.give(changed, pass_for(self.state.pop(changed)))
                fixes = tuple(ops.calls[len(core):])
                stale_give = () if held == pass_for(old) else (_give_call(changed, pass_for(old)),)
                stale = tuple(self.fixes) + tuple(core) + stale_give + tuple(tail)
        for code in focus:
            ops.give(code, pass_for(self.state.pop(code)))
        calls = tuple(self.fixes) + tuple(ops.calls) + tuple(tail)
        step = Step(
            kind=kind, text=f"{text}{sentence} {REMINDER}", calls=calls, stale_calls=stale, fixes=fixes,
            changes=changes, draft=dict(self.state.passes), long_term=long_term, registered=registered,
            scope=self._scope(judged, [*focus, *ops.touched, *judged_news]),
            removed=tuple(dict.fromkeys(code for code in ops.touched if code not in self.state.passes)),
        )
        self.fixes = fixes
        return step

    def _scope(self, judged: Judged, touched: Sequence[str]) -> tuple[str, ...] | None:
        if judged == "draft":
            return None
        if judged == "semester":
            return tuple(code for code, s in self.cat.sections.items() if s.semester == self.semester)
        return tuple(dict.fromkeys(touched))

    def _pick_news(self, focus: Sequence[str], news: str) -> str | None:
        if news == "never" or (news == "maybe" and self.rng.random() > NEWS_CHANCE):
            return None
        others = [s.code for s in self.state.drafted(self.semester) if s.code not in focus and self._bands(s.code)]
        if focus and (not others or self.rng.random() < 0.6):
            return self.rng.choice(list(focus))
        return self.rng.choice(others) if others else None

    def _open_passes(self, section: CourseSection) -> list[str]:
        return open_passes(self.cat, section, self.state.passes)

    def _bands(self, code: str) -> list[str]:
        """The passes of other bands than its own that the quotas allow for this section now."""
        current = pass_for(self.state.pop(code))
        return [p for p in self._open_passes(self.cat.sections[code]) if p != current]

    def _siblings(self, code: str) -> list[CourseSection]:
        section = self.cat.sections[code]
        return [s for s in sections_of(self.cat, section.name, section.semester) if s.code != code]

    def _unsettled(self, code: str, *, recalled: bool) -> bool:
        """Whether a section being added sits in a band the quotas refuse; on a step that names it only by what was
        said earlier, also whether another section of its course does (a student who forgot could rule that one
        out), so that the course's demand moves first."""
        return any(map(self._refused, [self.cat.sections[code], *(self._siblings(code) if recalled else ())]))

    def _course_changes(self, code: str) -> tuple[tuple[str, int], ...]:
        """Demand for a course moves: each of its sections, the drafted one (``code``) first, into another band whose
        pass the quotas allow now, where it has one. Moving only the drafted one told a student who forgot which
        section was meant: the one that had moved, so the highest popularity, was right on 68 % of the steps with
        such news (seeds 0-9). Empty when the drafted section has no such band and no other section is in a band
        the quotas refuse (so that news is only news when something must change)."""
        moves = [(s.code, self._bands(s.code)) for s in (self.cat.sections[code], *self._siblings(code))]
        if not moves[0][1] and not any(self._refused(self.cat.sections[c]) for c, _ in moves[1:]):
            return ()
        return tuple((c, self.rng.randint(*BANDS[self.rng.choice(options)])) for c, options in moves if options)

    def _refused(self, section: CourseSection) -> bool:
        return pass_for(self.state.pop(section.code)) not in self._open_passes(section)

    def _advise(self, kind: str, lead: str, choices: Sequence[CourseSection]) -> Step | None:
        """Advice to add one of ``choices``, named, for a reason that is no reason to anyone else."""
        if not choices:
            return None
        section = self.rng.choice(choices)
        ops = _Ops(self.state)
        ops.add(section.code)
        text = f"{self._persona()} {lead} {handle(self.cat, section)}: {self.rng.choice(DECOY_REASONS)}."
        return self._step(kind, text, ops, [section.code], long_term=False)

    def set_aside(self) -> Step | None:
        """A core course taken out for now, preferably one whose recommended section a student who forgot it could
        not single out: a later step asks for it again (in the recommended section, or named)."""
        planned = [s for s in self.state.drafted(self.semester) if s.name in self.targets]
        if len(planned) < 2:
            return None
        section = self.rng.choice([s for s in planned if self._ambiguous(s.name)] or planned)
        ops = _Ops(self.state)
        ops.remove(section.code)
        self.previous.pop(section.name, None)
        where = "semester-2 plan" if self.semester == 2 else "draft"
        text = (
            f"{self._persona()} Take {section.name} out of your {where} for now: {self.rng.choice(SET_ASIDE_REASONS)}. "
            "You can put it back later."
        )
        return self._step("set_aside", text, ops, [], long_term=False)

    def news(self) -> Step | None:
        if not self.state.drafted(self.semester):
            return None
        text = f"{self._persona()} Have you looked at the course system today?"
        return self._step("news", text, _Ops(self.state), [], long_term=False, news="always", lead="plain")

    def _final(
        self, kind: str, text: str, moves: Callable[[_Ops], list[str]], judged: Judged, registered: tuple[str, ...] = (),
    ) -> Step:
        """The closing step: ``moves`` makes its draft changes, then news always comes (retried until it fits)."""
        tail = (_call("registration.submit_draft"),) if registered else ()
        for _ in range(20):
            saved, fixes = self.state.copy(), self.fixes
            try:
                ops = _Ops(self.state)
                focus = moves(ops)
                return self._step(
                    kind, text, ops, focus, long_term=False, news="always", tail=tail, registered=registered,
                    judged=judged,
                )
            except _Refused:
                self.state, self.fixes = saved, fixes
        raise RuntimeError(f"semester {self.semester}: no popularity change fits the closing step")


class _SemesterOne(_Chain):
    semester = 1
    weights = {
        "news": 3.5, "add_target": 2, "add_decoy": 1.5, "leave_target": 1.5, "switch_target": 2, "undo_switch": 1.5,
        "add_elective": 2, "fit_elective": 1, "drop_elective": 2.5, "readd_elective": 2.5, "set_aside": 1,
    }
    memory_kinds = frozenset({"add_target", "switch_target", "undo_switch", "readd_elective", "set_aside"})

    def needed(self) -> int:
        off_target = sum(self.state.holding(name, 1) != code for name, code in self.targets.items())
        return off_target + len(self._electives())

    def _electives(self) -> list[CourseSection]:
        return [s for s in self.state.drafted(1) if s.name not in self.targets]

    def opening(self) -> Step:
        first = self.rng.choice(sorted(self.targets))
        ops = _Ops(self.state)
        ops.add(self.targets[first])
        text = _welcome_text(self.cat, self.targets, first)
        return self._step("welcome", text, ops, [self.targets[first]], long_term=False)

    def closing(self) -> Step:
        if self.needed():
            raise RuntimeError("semester 1 did not reach its goal before submitting")
        text = (
            f"{self._persona()} Registration is open! Last check before you submit: make sure your draft holds your "
            "8 courses on the right passes, then submit it (registration.submit_draft)."
        )
        return self._final("submit", text, lambda ops: [], "draft", registered=tuple(self.targets.values()))

    def add_target(self) -> Step | None:
        courses = [name for name in self.targets if self.state.holding(name, 1) is None]
        if not courses:
            return None
        name = self.rng.choice(courses)
        long_term, when = self._recall(name, self.targets[name])
        ops = _Ops(self.state)
        ops.add(self.targets[name])
        text = (
            f"{self._persona()} Don't forget {name}: put it in your draft, in the section your counsellor "
            f"recommended in the welcome note{when}."
        )
        return self._step("add_target", text, ops, [self.targets[name]], long_term=long_term)

    def add_decoy(self) -> Step | None:
        choices = [
            s for name in sorted(self.targets) if self.state.holding(name, 1) is None
            for s in sections_of(self.cat, name, 1)
            if s.code != self.targets[name] and handle(self.cat, s) and self.state.fits(s) and not self._targets_clash(s)
        ]
        return self._advise("add_decoy", "Take", choices)

    def leave_target(self) -> Step | None:
        """Advice to move a course from its recommended section to another named one."""
        moves = [
            (self.targets[name], s) for name in sorted(self.targets) if self.state.holding(name, 1) == self.targets[name]
            for s in sections_of(self.cat, name, 1)
            if s.code != self.targets[name] and handle(self.cat, s) and not self._targets_clash(s)
            and not any(clash(self.cat, s, other) for other in self.state.drafted(1) if other.name != name)
        ]
        if not moves:
            return None
        held, section = self.rng.choice(moves)
        ops = _Ops(self.state)
        ops.remove(held)
        ops.add(section.code)
        self.previous.pop(section.name, None)
        text = (
            f"{self._persona()} Switch {section.name} to {handle(self.cat, section)}: {self.rng.choice(DECOY_REASONS)}."
        )
        return self._step("leave_target", text, ops, [section.code], long_term=False)

    def switch_target(self) -> Step | None:
        courses = [name for name in sorted(self.targets) if self.state.holding(name, 1) not in (None, self.targets[name])]
        if not courses:
            return None
        name = self.rng.choice(courses)
        held = self.state.holding(name, 1)
        assert held is not None
        long_term, when = self._recall(name, self.targets[name], away_from=held)
        ops = _Ops(self.state)
        ops.remove(held)
        ops.add(self.targets[name])
        self.previous[name] = held
        text = (
            f"{self._persona()} The counsellor's office looked over your draft: for {name} they want you in the "
            f"section recommended in the welcome note{when} after all. Move it there."
        )
        return self._step("switch_target", text, ops, [self.targets[name]], long_term=long_term)

    def undo_switch(self) -> Step | None:
        courses = [
            name for name in sorted(self.previous)
            if self.state.holding(name, 1) == self.targets[name]
        ]
        if not courses:
            return None
        name = self.rng.choice(courses)
        long_term, when = self._recall(name, self.previous[name], away_from=self.targets[name])
        before = self.previous.pop(name)
        ops = _Ops(self.state)
        ops.remove(self.targets[name])
        ops.add(before)
        text = (
            f"{self._persona()} About {name}: the counsellor's office takes back what they said about moving it to the "
            f"recommended section. Move it back to the section you had before that switch{when}."
        )
        return self._step("undo_switch", text, ops, [before], long_term=long_term)

    def _elective_room(self) -> bool:
        return len(self._electives()) < MAX_ELECTIVES

    def _elective_names(self) -> list[str]:
        names = {s.name for s in self.cat.sections.values() if s.semester == 1 and not s.compulsory}
        return sorted(names)

    def add_elective(self) -> Step | None:
        if not self._elective_room():
            return None
        name = self.rng.choice(self._elective_names())
        choices = [
            s for s in sections_of(self.cat, name, 1)
            if handle(self.cat, s) and self.state.fits(s) and not self._targets_clash(s)
        ]
        if not choices:
            return None
        section = self.rng.choice(choices)
        ops = _Ops(self.state)
        ops.add(section.code)
        text = (
            f"{self._persona()} You should take an elective like {name}: {self.rng.choice(ELECTIVE_PITCHES)}. "
            f"Add {handle(self.cat, section)}."
        )
        return self._step("add_elective", text, ops, [section.code], long_term=False)

    def fit_elective(self) -> Step | None:
        if not self._elective_room():
            return None
        names = self._elective_names()
        self.rng.shuffle(names)
        for name in names:
            siblings = sections_of(self.cat, name, 1)
            fitting = [s for s in siblings if self.state.fits(s)]
            if len(siblings) > 1 and len(fitting) == 1 and not self._targets_clash(fitting[0]):
                ops = _Ops(self.state)
                ops.add(fitting[0].code)
                text = (
                    f"{self._persona()} Add {name} as an elective: {self.rng.choice(ELECTIVE_PITCHES)}. Only one of its "
                    "sections fits around your current draft; take that one."
                )
                return self._step("fit_elective", text, ops, [fitting[0].code], long_term=False)
        return None

    def drop_elective(self) -> Step | None:
        electives = self._electives()
        if not electives:
            return None
        section = self.rng.choice(electives)
        ops = _Ops(self.state)
        ops.remove(section.code)
        self.dropped[section.name] = section.code
        text = f"{self._persona()} Drop {section.name} from your draft: {self.rng.choice(DROP_REASONS)}."
        return self._step("drop_elective", text, ops, [], long_term=False)

    def readd_elective(self) -> Step | None:
        if not self._elective_room():
            return None
        names = [
            name for name, code in sorted(self.dropped.items())
            if len(sections_of(self.cat, name, 1)) > 1 and self.state.fits(self.cat.sections[code])
        ]
        if not names:
            return None
        name = self.rng.choice(names)
        long_term, when = self._recall(name, self.dropped[name])
        code = self.dropped.pop(name)
        ops = _Ops(self.state)
        ops.add(code)
        text = (
            f"{self._persona()} Change of heart about {name}? It is worth it after all: put it back in your draft, in "
            f"the same section you had before you dropped it{when}."
        )
        return self._step("readd_elective", text, ops, [code], long_term=long_term)


class _SemesterTwo(_Chain):
    """Semester 2 on top of semester 1. Its long-term steps refer to what only the planning note said (the
    recommended sections) or an earlier step did (the section before a switch); its other steps name what they want."""

    semester = 2
    weights = {
        "news": 3, "add_named": 2, "add_target": 2, "add_fit": 1, "trap": 1.5, "switch": 2, "switch_target": 1.5,
        "undo_switch": 1.5, "set_aside": 2,
    }
    memory_kinds = frozenset({"add_target", "trap", "set_aside"})
    """Not the moves to and from the recommended section: with a course's two sections parallel (the published campus,
    world generator 3), leaving the one held leaves one to pick, so they are never long-term and, favoured, they took
    the place of the set-aside and re-planning that are (semester 2 had 8-17 long-term steps on seeds 0-7, now 13-19)."""
    memory_share = PLANNING_MEMORY_SHARE

    def needed(self) -> int:
        """Every course planned, and at most one left for the programme step to move (so its passes fit the quotas)."""
        held = [self.state.holding(name, 2) for name in self.targets]
        off_target = sum(code not in (None, self.targets[name]) for name, code in zip(self.targets, held))
        return held.count(None) + max(0, off_target - 1)

    def _undrafted(self) -> list[str]:
        return [name for name in sorted(self.targets) if self.state.holding(name, 2) is None]

    def _addable(self, name: str) -> list[CourseSection]:
        return [
            s for s in sections_of(self.cat, name, 2)
            if handle(self.cat, s) and self.state.fits(s) and (s.code == self.targets[name] or not self._targets_clash(s))
        ]

    def opening(self) -> Step:
        name = self.rng.choice(sorted(self.targets))
        ops = _Ops(self.state)
        ops.add(self.targets[name])
        text = _planning_text(self.cat, self.targets, name)
        return self._step("planning_welcome", text, ops, [self.targets[name]], long_term=False)

    def closing(self) -> Step:
        if self.needed():
            raise RuntimeError("semester 2 did not plan every course before the programme step")
        listed = "; ".join(handle(self.cat, self.cat.sections[code]) or "" for code in self.targets.values())
        text = (
            f"{self._persona()} Congratulations: you were admitted to the Excellent Student Programme! Its members take "
            f"fixed sections in semester 2: {listed}. Make your semester-2 draft exactly these sections, keep your "
            "semester-1 courses as they are, and check every pass."
        )
        return self._final("programme", text, self._converge, "semester")

    def _converge(self, ops: _Ops) -> list[str]:
        """Move the semester-2 course not in its programme section, if any (the budget leaves at most one)."""
        for name, code in self.targets.items():
            held = self.state.holding(name, 2)
            if held != code:
                assert held is not None
                ops.remove(held)
                ops.add(code)
                return [code]
        return []

    def add_named(self) -> Step | None:
        names = self._undrafted()
        if not names:
            return None
        return self._advise("add_named", "For next semester, plan", self._addable(self.rng.choice(names)))

    def add_target(self) -> Step | None:
        names = self._undrafted()
        if not names:
            return None
        name = self.rng.choice(names)
        long_term, when = self._recall(name, self.targets[name])
        ops = _Ops(self.state)
        ops.add(self.targets[name])
        text = (
            f"{self._persona()} Time to plan {name} for next semester, in the section your counsellor recommended in "
            f"the planning note{when}."
        )
        return self._step("add_target", text, ops, [self.targets[name]], long_term=long_term)

    def add_fit(self) -> Step | None:
        for name in self._undrafted():
            siblings = sections_of(self.cat, name, 2)
            fitting = [s for s in siblings if self.state.fits(s)]
            target = self.cat.sections[self.targets[name]]
            if len(siblings) > 1 and fitting == [target]:
                ops = _Ops(self.state)
                ops.add(target.code)
                text = (
                    f"{self._persona()} Plan {name} for next semester; only one of its sections fits around your "
                    "semester-2 draft, so take that one."
                )
                return self._step("add_fit", text, ops, [target.code], long_term=False)
        return None

    def trap(self) -> Step | None:
        names = self._undrafted()
        if not names or not self.ineligible:
            return None
        name = self.rng.choice(names)
        long_term, when = self._recall(name, self.targets[name])
        lure = self.rng.choice(self.ineligible)
        ops = _Ops(self.state)
        ops.add(self.targets[name])
        text = (
            f"{self._persona()} Everyone says {lure} is an easy one next semester. Plan it if your semester-1 courses "
            f"cover its prerequisites; if they do not, plan {name} instead, in the section your counsellor "
            f"recommended{when}."
        )
        return self._step("trap", text, ops, [self.targets[name]], long_term=long_term)

    def switch(self) -> Step | None:
        moves = [
            (held, other) for held in self.state.drafted(2) for other in sections_of(self.cat, held.name, 2)
            if other.code != held.code and handle(self.cat, other)
            and (other.code == self.targets[held.name] or not self._targets_clash(other))
            and not any(clash(self.cat, other, s) for s in self.state.drafted(2) if s.name != held.name)
        ]
        if not moves:
            return None
        held, section = self.rng.choice(moves)
        self.previous.pop(section.name, None)
        text = (
            f"{self._persona()} Rethink your {held.name} section for next semester: move to "
            f"{handle(self.cat, section)}, {self.rng.choice(DECOY_REASONS)}."
        )
        return self._move("switch", text, held.code, section.code, long_term=False)

    def switch_target(self) -> Step | None:
        """A course away from its recommended section goes back to it (which clashes with no other one)."""
        away = [s for s in self.state.drafted(2) if s.code != self.targets[s.name]]
        if not away:
            return None
        held = self.rng.choice(away)
        long_term, when = self._recall(held.name, self.targets[held.name], away_from=held.code)
        self.previous[held.name] = held.code
        text = (
            f"{self._persona()} Second thoughts on {held.name}: your counsellor's recommendation was the better call. "
            f"Move it to the section recommended in the planning note{when}."
        )
        return self._move("switch_target", text, held.code, self.targets[held.name], long_term=long_term)

    def undo_switch(self) -> Step | None:
        names = [name for name in sorted(self.previous) if self.state.holding(name, 2) == self.targets[name]]
        if not names:
            return None
        name = self.rng.choice(names)
        long_term, when = self._recall(name, self.previous[name], away_from=self.targets[name])
        before = self.previous.pop(name)
        text = (
            f"{self._persona()} About {name} next semester: forget the move to the recommended section. Put it back in "
            f"the section you had planned before that move{when}."
        )
        return self._move("undo_switch", text, self.targets[name], before, long_term=long_term)

    def _move(self, kind: str, text: str, held: str, code: str, *, long_term: bool) -> Step:
        ops = _Ops(self.state)
        ops.remove(held)
        ops.add(code)
        return self._step(kind, text, ops, [code], long_term=long_term)


# ------------------------------------------------------------------ goals


def choose_targets(cat: Catalogue, names: Sequence[str], semester: int, rng: random.Random) -> dict[str, str]:
    """One named, clash-free section per course (course -> section id), chosen evenly among all such sets.

    The sets are counted by meeting time: a course's named sections are grouped by ``meeting`` (parallel sections
    clash alike), a clash-free pick of one time per course weighs the product of its groups' sizes, and a section of
    each picked group is drawn evenly, where listing every set was 196,830 sets for world 0's eight courses (1.1 s of
    CPU). Where every group holds one section the draw is the one ``rng.choice`` made over the listed sets."""
    groups: list[dict[Meeting, list[CourseSection]]] = []
    for name in names:
        by_time: dict[Meeting, list[CourseSection]] = {}
        for section in sections_of(cat, name, semester):
            if handle(cat, section):
                by_time.setdefault(meeting(section), []).append(section)
        groups.append(by_time)
    times = clash_free([[g[0] for g in by_time.values()] for by_time in groups], lambda a, b: clash(cat, a, b))
    if not times:
        raise ValueError(f"semester {semester}: no clash-free set of sections for {list(names)}")
    ends = list(itertools.accumulate(math.prod(len(by_time[meeting(s)]) for s, by_time in zip(pick, groups))
                                     for pick in times))
    pick = times[bisect.bisect_right(ends, rng.randrange(ends[-1]))]
    chosen = [by_time[meeting(s)] for s, by_time in zip(pick, groups)]
    return {g[0].name: (rng.choice(g) if len(g) > 1 else g[0]).code for g in chosen}


def clash_free(
    options: Sequence[Sequence[CourseSection]], clashes: Callable[[CourseSection, CourseSection], bool],
) -> list[tuple[CourseSection, ...]]:
    """Every pick of one section per course with no two clashing, in ``itertools.product``'s order."""
    return list(_picks(options, clashes))


def _picks(
    options: Sequence[Sequence[CourseSection]], clashes: Callable[[CourseSection, CourseSection], bool],
) -> Iterator[tuple[CourseSection, ...]]:
    """``clash_free`` one pick at a time: depth first, dropping a partial pick at its first clash, so the pairs inside
    a rejected prefix are judged once rather than once per completion of it."""
    pick: list[CourseSection] = []

    def extend(depth: int) -> Iterator[tuple[CourseSection, ...]]:
        if depth == len(options):
            yield tuple(pick)
            return
        for section in options[depth]:
            if not any(clashes(earlier, section) for earlier in pick):
                pick.append(section)
                yield from extend(depth + 1)
                pick.pop()

    return extend(0)


def planning_courses(cat: Catalogue, taken: Sequence[str]) -> tuple[list[str], list[str]]:
    """Semester-2 courses whose prerequisites ``taken`` covers, and those it does not."""
    names: list[str] = []
    for section in cat.sections.values():
        if section.semester == 2 and section.name not in names:
            names.append(section.name)
    eligible = [n for n in names if all(p in taken for p in sections_of(cat, n, 2)[0].prerequisites)]
    return eligible, [n for n in names if n not in eligible]


@dataclass(frozen=True)
class Plan:
    """Both chains' steps before placement, and the semester-1 timetable they lead to."""

    selection: list[Step]
    timetable: list[CourseSection]
    planning: list[Step]


def plan_chains(
    world: WorldIndex, rngs: tuple[random.Random, random.Random], selection_steps: int, planning_steps: int,
) -> Plan:
    """Both chains as pure data (no times), from one random stream each: semester 2 carries semester 1's draft."""
    cat = catalogue(world)
    one_rng, two_rng = rngs
    targets = choose_targets(cat, textbook_courses(world), 1, one_rng)
    one = _SemesterOne(cat, one_rng, _State(cat), targets, ())
    selection = one.build(selection_steps)
    eligible, ineligible = planning_courses(cat, list(targets))
    rules = RULES[2]
    chosen = eligible[: rules.courses]
    if len(chosen) < rules.courses or sum(sections_of(cat, n, 2)[0].compulsory for n in chosen) < rules.min_compulsory:
        raise ValueError(f"semester 2 needs {rules.courses} courses open to this programme, found {eligible}")
    two = _SemesterTwo(
        cat, two_rng, one.state.copy(), choose_targets(cat, chosen, 2, two_rng), selection[-1].fixes, ineligible,
    )
    planning = two.build(planning_steps)
    return Plan(selection, [cat.sections[code] for code in targets.values()], planning)


def guessable(
    cat: Catalogue, name: str, semester: int, around: Sequence[CourseSection], away_from: str | None,
    rest: Sequence[str],
) -> list[CourseSection]:
    """The sections of a course that could be the one a step refers back to, for a student who forgot what was said
    and sees only its draft and the catalogue: advice can name them (``handle``), the move leaves ``away_from``, they
    clash with none of ``around``, the other courses' drafted sections, and they leave room for ``rest``, the
    recommended courses not yet in the draft (``leaves_room``)."""
    return [
        s for s in sections_of(cat, name, semester)
        if s.code != away_from and handle(cat, s) and not any(clash(cat, s, other) for other in around)
        and leaves_room(cat, s, semester, around, rest)
    ]


def leaves_room(cat: Catalogue, section: CourseSection, semester: int, around: Sequence[CourseSection],
                rest: Sequence[str]) -> bool:
    """Whether the courses ``rest`` could still take a nameable section each, clashing with none of ``around``,
    ``section`` or one another."""
    options = [
        [s for s in sections_of(cat, name, semester)
         if handle(cat, s) and not clash(cat, s, section) and not any(clash(cat, s, other) for other in around)]
        for name in rest
    ]
    return next(_picks(options, lambda a, b: clash(cat, a, b)), None) is not None


def open_passes(cat: Catalogue, section: CourseSection, draft: Mapping[str, str]) -> list[str]:
    """The passes the semester's quotas would let ``section`` hold in place of its course's section in ``draft``
    (section id -> pass), if any."""
    rules = RULES[section.semester]
    limits = rules.compulsory if section.compulsory else rules.elective
    held = Counter(
        pass_type for code, pass_type in draft.items()
        if (other := cat.sections[code]).semester == section.semester and other.compulsory == section.compulsory
        and other.name != section.name
    )
    return [p for p in PASS_ORDER if p not in limits or held[p] < limits[p]]


@dataclass(frozen=True)
class Recall:
    """A step that adds one section, as a student who forgot what it refers back to meets it."""

    meant: CourseSection
    options: list[CourseSection]
    """The sections it could mean (``guessable``)."""
    before: dict[str, str]
    """The draft the step expects before it."""
    others: list[str]
    """The other courses its chain ends with (the recommended ones of its semester)."""

    @property
    def chance(self) -> float:
        return 1 / len(self.options) if self.meant in self.options else 0.0


def recalls(world: WorldIndex, tasks: Sequence[Task]) -> dict[str, Recall]:
    """Every step of the two chains that adds one section (in release order), with the sections it could mean: those
    of its course that fit around the rest of the draft before the step and leave room for the recommended courses
    not yet in it (the ones its chain ends with), leaving out the one the course held (a move). Worked out from the
    term alone (the expected drafts), apart from the generator's own reckoning (``_Chain._guessable``). A step that
    refers back (``RECALLED``) to a section whose candidates meet at different times says when it meets (``meets``),
    so its options are those meeting then. A step is long-term exactly when it refers back and its ``chance`` is
    below 1."""
    cat = catalogue(world)
    steps = sorted((t for t in tasks if t.scenario in (SELECTION, PLANNING) and not t.flags.delivery_only),
                   key=lambda t: (t.release, t.id))
    goal = {semester: [cat.sections[code].name for code in task.ground_truth["draft"]
                       if cat.sections[code].semester == semester]
            for semester, scenario in ((1, SELECTION), (2, PLANNING))
            for task in [t for t in steps if t.scenario == scenario][-1:]}
    before: dict[str, str] = {}
    found: dict[str, Recall] = {}
    for task in steps:
        draft: dict[str, str] = task.ground_truth["draft"]
        added = [cat.sections[code] for code in draft if code not in before]
        if len(added) == 1:
            section = added[0]
            drafted = [cat.sections[code] for code in before if cat.sections[code].semester == section.semester]
            held = next((s.code for s in drafted if s.name == section.name), None)
            around = [s for s in drafted if s.name != section.name]
            rest = [name for name in goal[section.semester]
                    if name != section.name and all(s.name != name for s in drafted)]
            options = guessable(cat, section.name, section.semester, around, held, rest)
            if task.ground_truth["kind"] in RECALLED:
                options = narrowed(options, section)[0]
            others = [name for name in goal[section.semester] if name != section.name]
            found[task.id] = Recall(section, options, before, others)
        before = draft
    return found


# ------------------------------------------------------------------ placement and tasks


def _grid(weeks: Sequence[int], minutes: int) -> list[int]:
    first, last = DAY_HOURS
    return [
        at(week, day, 0) + m
        for week in weeks for day in range(7)
        for m in range(first * 60, last * 60 - minutes + 1, GRID_MINUTES)
    ]


def _rounds(step: Step) -> int:
    return max(STEP_ROUNDS, len(step.calls) + SPARE_ROUNDS)


def _place(ctx: TermContext, durations: Sequence[int], weeks: Sequence[int], owner: str) -> list[int]:
    """Release times in order, each reserving its minutes; the earliest start of each is spread evenly over the
    first ``SPREAD_SHARE`` of the weeks' waking hours, leaving room for the appointments already reserved."""
    spread = _grid(weeks, STEP_ROUNDS)
    grids: dict[int, list[int]] = {}
    times: list[int] = []
    after = 0
    for index, minutes in enumerate(durations):
        floor = max(after, spread[int(index * len(spread) * SPREAD_SHARE) // len(durations)])
        grid = grids.get(minutes)
        if grid is None:
            grid = grids[minutes] = _grid(weeks, minutes)
        candidates = grid[bisect.bisect_left(grid, floor):]  # the grid ascends
        when = ctx.timeline.first_free(candidates, minutes, f"{owner} task {index + 1}")
        times.append(when)
        after = when + minutes
    return times


def _tasks(prefix: str, scenario: str, steps: Sequence[Step], times: Sequence[int]) -> tuple[list[Task], list[Trigger]]:
    tasks: list[Task] = []
    triggers: list[Trigger] = []
    for number, (step, when) in enumerate(zip(steps, times), start=1):
        task_id = f"{prefix}-{number:03d}"
        judged = step.draft if step.scope is None else {c: step.draft[c] for c in step.scope if c in step.draft}
        draft_part: dict[str, object] = {"check": "draft", "sections": judged}
        if step.scope is not None:
            draft_part["scope"] = list(step.scope)
        if step.removed:
            draft_part["removed"] = list(step.removed)
        parts: list[dict[str, object]] = [draft_part]
        if step.registered:
            parts.append({"check": "registered", "sections": list(step.registered)})
        tasks.append(Task(
            id=task_id, scenario=scenario, phase=PHASE, release=when, instruction=step.text, systems=STEP_SYSTEMS,
            evaluator="parts", ground_truth={"parts": parts, "kind": step.kind, "draft": step.draft},
            flags=Flags(long_term=step.long_term), round_limit=_rounds(step),
            solution=step.calls, stale=step.stale_calls,
        ))
        for index, (code, value) in enumerate(step.changes, start=1):
            triggers.append(_trigger(f"{task_id}-popularity-{index}", when, code, value))
    return tasks, triggers


def _trigger(trigger_id: str, when: int, code: str, value: int) -> Trigger:
    change = Popularity(code=code, value=value)
    problem = popularity_problem(change)
    if problem:
        raise ValueError(f"{trigger_id}: {problem}")
    return Trigger(id=trigger_id, t=when, change=change)


TIMETABLE_TEXT = (
    "Your registration is through; your classes start in Week 1. Put them into your own calendar ('self') now so "
    "you never miss one: for every day of the week a course meets, add one weekly event covering the course's weeks "
    "(for example 'Week 1-18, Monday, 14:00-16:00'), titled with the course name, with the id of the building where "
    "it meets (for example B012) as the location. The course catalogue lists each section's days, time, weeks and "
    "building."
)


def timetable_calls(cat: Catalogue, sections: Sequence[CourseSection]) -> tuple[str, ...]:
    """One weekly calendar event per class day of each section, at the section's building."""
    calls = []
    for section in sections:
        for day in section.days:
            calls.append(_call(
                "calendar.add_event", calendar_id="self", event_title=section.name, location=section.building_id,
                time=f"Week {section.first_week}-{section.last_week}, {day}, {section.time}",
                description=f"Class: {section.name} ({section.code}) in {section.room}, building {section.building_id}.",
            ))
    return tuple(calls)


def _busy(calls: int) -> int:
    """Minutes a step keeps free: a minute per call of the oracle and its answer, and the timeline's ``SLACK``."""
    return calls + 1 + SLACK


def _timetable_rounds(calls: Sequence[str]) -> int:
    return len(calls) + 2 * SPARE_ROUNDS


def _timetable_task(task_id: str, when: int, calls: tuple[str, ...]) -> Task:
    return Task(
        id=task_id, scenario=SELECTION, phase=PHASE, release=when, instruction=TIMETABLE_TEXT,
        systems=TIMETABLE_SYSTEMS, evaluator="parts", ground_truth={"parts": []}, flags=Flags(delivery_only=True),
        round_limit=_timetable_rounds(calls), solution=calls,
    )


def _plan(ctx: TermContext) -> Plan:
    return plan_chains(
        ctx.world, (ctx.rng(SELECTION), ctx.rng(PLANNING)),
        max(ctx.count(SELECTION_TASKS), MIN_SELECTION_STEPS), max(ctx.count(PLANNING_TASKS), MIN_PLANNING_STEPS),
    )


def generate(ctx: TermContext) -> tuple[list[Task], list[Trigger]]:
    """Semester 1 in Week 0: the selection steps, the submission and the timetable delivery; sets ``ctx.timetable``."""
    plan = _plan(ctx)
    calls = timetable_calls(catalogue(ctx.world), plan.timetable)
    durations = [_busy(len(step.calls)) for step in plan.selection] + [_busy(len(calls))]
    times = _place(ctx, durations, SELECTION_WEEKS, SELECTION)
    tasks, triggers = _tasks("selection", SELECTION, plan.selection, times)
    tasks.append(_timetable_task(f"selection-{len(tasks) + 1:03d}", times[-1], calls))
    ctx.timetable = list(plan.timetable)
    return tasks, triggers


def generate_planning(ctx: TermContext) -> tuple[list[Task], list[Trigger]]:
    """Semester 2 in Weeks 20-21: the planning steps, ending with the Excellent Student Programme."""
    plan = _plan(ctx)
    times = _place(ctx, [_busy(len(step.calls)) for step in plan.planning], PLANNING_WEEKS, PLANNING)
    return _tasks("planning", PLANNING, plan.planning, times)

"""memoryless: a student who plans courses well and remembers nothing from one task to the next.

Each step of course selection (semester 1) and preliminary planning (semester 2) it reads as any
student would: it looks at its draft (``draft.view``), makes the change the step asks for, looks up
the popularity of every course it holds that semester (``course_selection.browse_courses``) and gives
each the pass the house rule calls for, weakest moves first so the quotas never refuse one. The
catalogue's fixed facts (names, instructors, meeting times, prerequisites) it reads from the world,
which is what ``browse_courses`` lists; the draft and popularity, which change, only through the tools.

What a step refers back to (the counsellor's recommended section, the section held before a switch or
a drop) it cannot know, so it guesses: the first section of that course in the catalogue that fits
around the rest of its draft (and meets when the step says, if it says), leaving out the one it holds when it
is asked to move. The term audit
holds its success on the long-term steps to the chance those guesses have; elsewhere in the term it
plays the oracle's plan, so a run differs from the oracle's only on these steps.

Replies are a pure function of the conversation (the policy is replayed over its results each turn).
"""

from __future__ import annotations

import re
from collections.abc import Generator

from campus.agents.plans import action, replay_plan, replay_turns, results, run_plan
from campus.kernel.agent import AgentView, Reply
from campus.kernel.clock import MINUTES_PER_WEEK, parse_moment
from campus.scenarios.course_selection import (PASS_ORDER, REMINDER, catalogue, clash, handle, meets, pass_for,
                                               sections_of)
from campus.scenarios.task import Term
from campus.world.index import WorldIndex
from campus.world.model import CourseSection

Steps = Generator[str, str, None]

PLANNING_FROM_WEEK = 19
"""Steps from this week on are about semester 2 (course selection is in Week 0, planning in Weeks 20-21)."""

_NOW = re.compile(r"Current time: (.+)")
_DRAFTED = re.compile(r"^- (\S+): .* \((?:Pass: (\S+)|No pass assigned)\)$", re.MULTILINE)
_POPULARITY = re.compile(r"^- (\S+): .*?\(Credits [^,]*, Popularity (\d+),", re.MULTILINE)
_NEWS = re.compile(r"Word is that demand for .+? has moved since this morning, so check its popularity first\.|"
                   r"(?:Also, d|D)emand for one of the courses in your draft has moved since this morning; check where "
                   r"each one stands\.")
_FIRST = re.compile(r"To start, (?:add|plan) (.+?) in the recommended section")
_LURE = re.compile(r"Everyone says (.+?) is an easy one next semester")
_FALLBACK = re.compile(r"if they do not, plan (.+?) instead")
_RECALLED = ("recommended", "you had before", "had planned before")
"""Phrases by which a step names a section only through something said earlier."""


def _semester(minute: int) -> int:
    return 2 if minute // MINUTES_PER_WEEK >= PLANNING_FROM_WEEK else 1


def _readable(text: str) -> str:
    """The step's advice without the house-rule reminder and the popularity news (which may name a course)."""
    return _NEWS.sub("", text.replace(REMINDER, ""))


class MemorylessAgent:
    name = "memoryless"

    def __init__(self, term: Term, world: WorldIndex) -> None:
        self.term = term
        self.world = world
        self.cat = catalogue(world)
        self.handles = sorted(
            ((text, section) for section in self.cat.sections.values() if (text := handle(self.cat, section))),
            key=lambda pair: -len(pair[0]),
        )
        names = sorted({section.name for section in self.cat.sections.values()})
        self.names = [(name, re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")) for name in names]

    def act(self, view: AgentView) -> Reply:
        first = view.messages[0].content if view.messages else ""
        if REMINDER not in first:
            return replay_plan(run_plan(self.term.by_id[view.task_id].solution, self.world), view)
        return replay_turns(self.step(first), results(view))

    # ------------------------------------------------------------------ one step

    def step(self, shown: str) -> Steps:
        found = _NOW.search(shown)
        semester = _semester(parse_moment(found.group(1))) if found else 1
        text = _readable(shown)
        draft = self._drafted((yield action("draft.view()")))
        for call in self._changes(text, semester, draft):
            yield action(call)
        popularity: dict[str, int] = {}
        for name in sorted({self.cat.sections[code].name for code in self._of(draft, semester)}):
            seen = yield action(f'course_selection.browse_courses(filters={{"course_name": "{name}"}})')
            popularity.update((code, int(value)) for code, value in _POPULARITY.findall(seen))
        for code, pass_type in self._passes(draft, popularity, semester):
            yield action(f'draft.assign_pass(section_id="{code}", pass_type="{pass_type}")')
        if "registration.submit_draft" in text:
            yield action("registration.submit_draft()")

    def chosen(self, instruction: str, release: int, draft: dict[str, str]) -> set[str]:
        """The sections its draft holds once it made the step's changes to ``draft`` (as ``draft.view`` would show
        it): the choice alone, from any draft, e.g. the one the step expects before it."""
        after = dict(draft)
        self._changes(_readable(instruction), _semester(release), after)
        return set(after)

    def _of(self, draft: dict[str, str], semester: int) -> list[str]:
        """The drafted sections of one semester."""
        return [code for code in draft if self.cat.sections[code].semester == semester]

    def _drafted(self, seen: str) -> dict[str, str]:
        return {code: held or "" for code, held in _DRAFTED.findall(seen) if code in self.cat.sections}

    def _changes(self, text: str, semester: int, draft: dict[str, str]) -> list[str]:
        """The draft calls the step asks for, applied to ``draft`` as they are made."""
        calls: list[str] = []

        def held(name: str) -> str | None:
            return next((c for c in self._of(draft, semester) if self.cat.sections[c].name == name), None)

        def remove(code: str) -> None:
            del draft[code]
            calls.append(f'draft.remove_course(section_id="{code}")')

        def take(section: CourseSection) -> None:
            current = held(section.name)
            if current == section.code:
                return
            if current is not None:
                remove(current)
            draft[section.code] = ""
            calls.append(f'draft.add_course(section_id="{section.code}")')

        named = [section for section in self._sections(text) if section.semester == semester]
        course = self._course(text)
        guessed: CourseSection | None = None
        if "fixed sections in semester 2" in text:
            for section in named:
                take(section)
        elif (start := _FIRST.search(text)) is not None:
            guessed = next((s for s in named if s.name == start.group(1)), None)
        elif ("out of your" in text and "for now" in text) or re.search(r"\bDrop \S", text):
            code = held(course) if course else None
            if code is not None:
                remove(code)
        elif (lure := _LURE.search(text)) is not None:
            taken = {self.cat.sections[c].name for c in self._of(draft, 1)}
            prerequisites = sections_of(self.cat, lure.group(1), 2)
            covered = bool(prerequisites) and set(prerequisites[0].prerequisites) <= taken
            fallback = _FALLBACK.search(text)
            name = lure.group(1) if covered or fallback is None else fallback.group(1)
            guessed = self._guess(name, semester, draft, held(name), text)
        elif course and any(phrase in text for phrase in _RECALLED):
            guessed = self._guess(course, semester, draft, held(course), text)
        elif course and "only one of its sections fits" in text.lower():
            guessed = self._guess(course, semester, draft, None)
        elif named:
            guessed = named[0]
        if guessed is not None:
            take(guessed)
        return calls

    def _guess(self, name: str, semester: int, draft: dict[str, str], leaving: str | None,
               text: str = "") -> CourseSection | None:
        """The first section of the course that fits around the rest of the draft, other than the one held, among
        those meeting when the step's ``text`` says (``meets``), if it says."""
        others = [self.cat.sections[c] for c in self._of(draft, semester) if self.cat.sections[c].name != name]
        sections = sections_of(self.cat, name, semester)
        sections = [s for s in sections if meets(s) in text] or sections
        fitting = [s for s in sections if s.code != leaving and not any(clash(self.cat, s, o) for o in others)]
        return next(iter(fitting or [s for s in sections if s.code != leaving] or sections), None)

    def _passes(self, draft: dict[str, str], popularity: dict[str, int], semester: int) -> list[tuple[str, str]]:
        """The house rule's pass for every drafted section of the semester that lacks it, those moving to a
        weaker pass first (they free the quota the others may need)."""
        rank = {p: i for i, p in enumerate(PASS_ORDER)}
        wanted = [(code, pass_for(popularity[code])) for code in self._of(draft, semester) if code in popularity]
        changes = [(code, want) for code, want in wanted if draft[code] != want]
        return sorted(changes, key=lambda change: (bool(draft[change[0]]) and rank[change[1]] >= rank[draft[change[0]]],
                                                   rank[change[1]]))

    # ------------------------------------------------------------------ reading the text

    def _sections(self, text: str) -> list[CourseSection]:
        """The sections the text names by their handles, longest first and never overlapping, in text order."""
        taken: list[tuple[int, int]] = []
        found: list[tuple[int, CourseSection]] = []
        for phrase, section in self.handles:
            for match in re.finditer(rf"(?<!\w){re.escape(phrase)}(?!\w)", text):
                span = match.span()
                if not any(span[0] < end and start < span[1] for start, end in taken):
                    taken.append(span)
                    found.append((span[0], section))
        return [section for _, section in sorted(found, key=lambda pair: pair[0])]

    def _course(self, text: str) -> str | None:
        """The first course the text names (the longest name at a place, so "Linear Algebra II" is not "Linear
        Algebra"), leaving out a trap's lure."""
        lure = _LURE.search(text)
        text = text.replace(lure.group(0), "") if lure else text
        places = [(found.start(), -len(name), name) for name, pattern in self.names if (found := pattern.search(text))]
        return min(places)[2] if places else None

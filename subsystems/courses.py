"""Course selection: browse the catalogue, keep a draft with passes, and register.

The catalogue is the world's course sections (``World.courses``); a section's code is the
section id agents use (``COMS0031131032(2)``). A code that a section of an earlier semester
already uses gets its semester appended (the published data reuses ``WXK003111107`` in
semester 2, which becomes ``WXK003111107@S2``); a repeated code within one semester keeps
its first section. Sections with the same name in the same semester are sections of one
course.

State: ``draft`` maps each drafted section id to its pass type (``""`` while it has
none), ``popularity`` holds popularity values set by world changes (section id -> 0-99;
a section's current popularity is its override, else the world's), ``registered`` maps a
section id to the result of its last registration (``success`` or ``failed: <reason>``),
and ``next_registration`` numbers registrations (one per semester submitted).

Listings never follow the order of a state dict (a snapshot stores dict keys sorted):
drafted sections are shown by semester, then in catalogue order.

Rules (StuLife's prompt, which the reference never enforced; here every one is):

- Adding a section: it must exist; it must not be in the draft already; no other section
  of the same course may be in the draft; it must not clash with a drafted section of the
  same semester (overlapping weeks, a shared day and overlapping clock times); and every
  prerequisite (a course name) must be a course of an earlier semester that is in the
  draft or was registered successfully. Only semesters 1 and 2 can be planned.
- Passes (S-Pass, A-Pass, B-Pass; assigning again replaces the old pass), per semester:
  compulsory courses hold at most 1 S-Pass and 2 A-Passes in semester 1, at most 1 S-Pass
  and 1 A-Pass in semester 2; electives hold at most 1 A-Pass and never an S-Pass (the
  S-Pass is for compulsory courses only); B-Passes are unlimited.
- Submitting: every semester in the draft must have exactly its number of courses with
  at least its number of compulsory ones (semester 1: 8 with at least 6; semester 2: 7
  with at least 5), and every prerequisite must still be met; otherwise nothing happens.
  Then each section is registered by its pass and current popularity p: an S-Pass always
  succeeds, an A-Pass if p < 95, a B-Pass if p < 85, and a section without a pass fails.
  The draft is kept; submitting again registers it again.

World changes: a ``Popularity`` change sets a section's popularity (0-99); one outside
that range or naming no section is ignored (``popularity_problem`` says why, for scenario
loaders).
"""

from __future__ import annotations

import difflib
import re
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import msgspec

from campus.events import DraftAdded, DraftRemoved, PassAssigned, Popularity, Registered, WorldChanged
from campus.kernel.projection import Domain
from campus.kernel.tools import Outcome, Param, Refuse, ToolDecl, fail, ok
from campus.world.index import WorldIndex
from campus.world.model import CourseSection

PASSES: tuple[str, ...] = ("S-Pass", "A-Pass", "B-Pass")
FILTER_KEYS: tuple[str, ...] = ("course_code", "course_name", "credits", "semester", "type")
MAX_LISTED = 25
MAX_ID = 100

PASS_BELOW: dict[str, int] = {"A-Pass": 95, "B-Pass": 85}
"""A pass registers a section when its popularity is below this; an S-Pass always does."""


@dataclass(frozen=True)
class SemesterRules:
    courses: int
    min_compulsory: int
    compulsory: dict[str, int]
    """Pass type -> how many compulsory courses may hold it (a pass not named is unlimited)."""
    elective: dict[str, int]


RULES: dict[int, SemesterRules] = {
    1: SemesterRules(courses=8, min_compulsory=6, compulsory={"S-Pass": 1, "A-Pass": 2}, elective={"S-Pass": 0, "A-Pass": 1}),
    2: SemesterRules(courses=7, min_compulsory=5, compulsory={"S-Pass": 1, "A-Pass": 1}, elective={"S-Pass": 0, "A-Pass": 1}),
}


# ------------------------------------------------------------------ state


class CourseState(msgspec.Struct, kw_only=True):
    draft: dict[str, str] = {}
    popularity: dict[str, int] = {}
    registered: dict[str, str] = {}
    next_registration: int = 1


# ------------------------------------------------------------------ catalogue


@dataclass(frozen=True)
class Catalogue:
    """The world's sections by section id, with their lookups."""

    sections: dict[str, CourseSection]
    """Section id -> section (whose ``code`` is that id), in catalogue order."""
    same_code: dict[str, list[str]]
    """Section id -> the ids of other semesters' sections with the same code."""
    folded: dict[str, str]
    """Case-folded section id -> section id."""
    by_name: dict[str, list[str]]
    """Case-folded course name -> section ids, in catalogue order."""
    position: dict[str, int]
    times: dict[str, tuple[int, int] | None]
    """Section id -> (start, end) minutes of the day, or None if the time is not readable."""
    buildings: dict[str, str]
    """Building id -> name."""


Predicate = Callable[[CourseSection], bool]

_CATALOGUES: weakref.WeakKeyDictionary[Any, Catalogue] = weakref.WeakKeyDictionary()
_CLOCK = re.compile(r"\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*", re.ASCII)


def catalogue(world: Any) -> Catalogue:
    """The catalogue of a ``WorldIndex``, built once per index."""
    built = _CATALOGUES.get(world)
    if built is None:
        built = _CATALOGUES[world] = _build(world.world.courses, {b.id: b.name for b in world.world.buildings})
    return built


def _build(courses: Iterable[CourseSection], buildings: dict[str, str]) -> Catalogue:
    sections: dict[str, CourseSection] = {}
    first_semester: dict[str, int] = {}
    ids_of_code: dict[str, list[str]] = {}
    for section in courses:
        semester = first_semester.setdefault(section.code, section.semester)
        key = section.code if semester == section.semester else f"{section.code}@S{section.semester}"
        if key not in sections:
            sections[key] = msgspec.structs.replace(section, code=key)
            ids_of_code.setdefault(section.code, []).append(key)
    folded: dict[str, str] = {}
    by_name: dict[str, list[str]] = {}
    for code, section in sections.items():
        folded.setdefault(code.casefold(), code)
        by_name.setdefault(section.name.casefold(), []).append(code)
    return Catalogue(
        sections=sections,
        same_code={key: [k for k in keys if k != key] for keys in ids_of_code.values() for key in keys},
        folded=folded,
        by_name=by_name,
        position={code: i for i, code in enumerate(sections)},
        times={code: _clock_range(s.time) for code, s in sections.items()},
        buildings=buildings,
    )


def _clock_range(text: str) -> tuple[int, int] | None:
    match = _CLOCK.fullmatch(text)
    if match is None:
        return None
    h1, m1, h2, m2 = (int(g) for g in match.groups())
    start, end = h1 * 60 + m1, h2 * 60 + m2
    if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59 or end <= start:
        return None
    return start, end


def popularity(part: CourseState, section: CourseSection) -> int:
    """The section's current popularity: a world change's value, else the world's."""
    return part.popularity.get(section.code, section.popularity)


# ------------------------------------------------------------------ descriptions


def _show(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


def _kind(section: CourseSection) -> str:
    return "Compulsory" if section.compulsory else "Elective"


def _title(section: CourseSection) -> str:
    return f"{section.code}: {section.name}"


def _days(section: CourseSection) -> str:
    return "/".join(section.days) if section.days else "no days announced"


def _schedule(cat: Catalogue, section: CourseSection) -> str:
    weeks = (
        f"Week {section.first_week}"
        if section.first_week == section.last_week
        else f"Weeks {section.first_week}-{section.last_week}"
    )
    clock = section.time.strip() if cat.times[section.code] is not None else "time not announced"
    return f"{weeks}, {_days(section)}, {clock}"


def _location(cat: Catalogue, section: CourseSection) -> str:
    building = cat.buildings.get(section.building_id)
    place = f"{building} ({section.building_id})" if building else section.building_id
    return f"{place}, {section.room}" if section.room else place


def _names(items: list[str], limit: int = 10, last: str = "and") -> str:
    """``a, b and c`` (or ``a, b or c``), at most ``limit`` items and then how many more."""
    shown = items[:limit]
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    if len(shown) == 1:
        return shown[0] + more
    return ", ".join(shown[:-1]) + (f" {last} " if not more else ", ") + shown[-1] + more


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}es" if word.endswith("s") else f"{count} {word}s"


# ------------------------------------------------------------------ lookups


def _resolve(cat: Catalogue, section_id: str) -> CourseSection:
    """The section named by an id (exact, else ignoring case); refused with suggestions if there is none."""
    wanted = section_id.strip()
    code = wanted if wanted in cat.sections else cat.folded.get(wanted.casefold())
    if code is not None:
        return cat.sections[code]
    raise Refuse(f"There is no course section '{_show(wanted)}'. {_suggest(cat, wanted)}")


def _suggest(cat: Catalogue, wanted: str) -> str:
    search = "Find section ids with course_selection.browse_courses(filters={\"course_name\": \"part of the name\"})."
    named = cat.by_name.get(wanted.casefold())
    if named:
        return f"'{_show(wanted)}' is a course name; its sections are {_names(named)}. Use a section id. {search}"
    close = difflib.get_close_matches(wanted.upper(), [code.upper() for code in cat.sections], n=3, cutoff=0.75)
    if close:
        return f"Did you mean {_names([cat.folded[c.casefold()] for c in close], last='or')}? {search}"
    return search


def _drafted(cat: Catalogue, part: CourseState) -> list[CourseSection]:
    """The drafted sections that are in the catalogue, by semester and catalogue order."""
    found = [cat.sections[code] for code in part.draft if code in cat.sections]
    return sorted(found, key=lambda s: (s.semester, cat.position[s.code]))


def _same_course(a: CourseSection, b: CourseSection) -> bool:
    return a.semester == b.semester and a.name.casefold() == b.name.casefold()


def _clashes(cat: Catalogue, a: CourseSection, b: CourseSection) -> list[str]:
    """The days on which two sections of one semester meet at overlapping times."""
    ta, tb = cat.times[a.code], cat.times[b.code]
    if ta is None or tb is None or a.semester != b.semester:
        return []
    if not (a.first_week <= b.last_week and b.first_week <= a.last_week and ta[0] < tb[1] and tb[0] < ta[1]):
        return []
    theirs = {d.casefold() for d in b.days}
    return [d for d in a.days if d.casefold() in theirs]


def _taken_before(cat: Catalogue, part: CourseState, semester: int) -> set[str]:
    """Folded names of courses of earlier semesters that are drafted or were registered."""
    codes = [code for code in part.draft] + [code for code, result in part.registered.items() if result == "success"]
    return {cat.sections[c].name.casefold() for c in codes if c in cat.sections and cat.sections[c].semester < semester}


def missing_prerequisites(cat: Catalogue, part: CourseState, section: CourseSection) -> list[str]:
    taken = _taken_before(cat, part, section.semester)
    return [name for name in section.prerequisites if name.casefold() not in taken]


def _prerequisite_problem(section: CourseSection, missing: list[str]) -> str:
    return (
        f"{_title(section)} (semester {section.semester}) needs {_names(missing)} first, which "
        f"{'is' if len(missing) == 1 else 'are'} neither among the earlier-semester courses in your draft nor "
        f"registered. Add a section of {'it' if len(missing) == 1 else 'each'} (draft.add_course) before this course."
    )


# ------------------------------------------------------------------ browse


def _check_filter_keys(filters: dict[str, Any]) -> None:
    unknown = sorted(str(k) for k in filters if k not in FILTER_KEYS)
    if unknown:
        raise Refuse(
            f"Unknown filter key(s) {', '.join(repr(_show(k, 30)) for k in unknown)}. Valid keys are: "
            f"{', '.join(FILTER_KEYS)}, e.g. filters={{\"course_name\": \"algebra\", \"semester\": 1}}."
        )


# Matched against stripped text, so no two whitespace runs meet and a failing match is linear.
_CREDITS = re.compile(r"(<=|>=|==|=|<|>)?\s*(\d{1,3})", re.ASCII)
_SEMESTER = re.compile(r"(?:semester\s*)?(\d{1,3})", re.ASCII | re.IGNORECASE)
_COMPARE = {
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
}


def _whole(value: Any) -> int | None:
    """An integer, or a float holding one (the log writes 3.0 as 3), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _credits_test(value: Any) -> Callable[[int], bool]:
    number = _whole(value)
    if number is not None:
        return lambda c: c == number
    match = _CREDITS.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise Refuse("filter 'credits' must be a whole number (3) or a comparison in a string: \"<=3\", \">=2\", \"==4\", \"<3\", \">2\".")
    op, bound = match.group(1) or "==", int(match.group(2))
    compare = _COMPARE["==" if op == "=" else op]
    return lambda c: compare(c, bound)


def _semester_value(value: Any) -> int:
    number = _whole(value)
    if number is None and isinstance(value, str):
        match = _SEMESTER.fullmatch(value.strip())
        number = int(match.group(1)) if match else None
    if number not in RULES:
        raise Refuse("filter 'semester' must be 1 or 2.")
    return number


def _matcher(filters: dict[str, Any]) -> Predicate:
    """A predicate over sections from validated filters."""
    _check_filter_keys(filters)
    tests: list[Predicate] = []
    for key in ("course_code", "course_name"):
        if key in filters:
            if not isinstance(filters[key], str):
                raise Refuse(f"filter '{key}' must be text, e.g. \"{'COMS' if key == 'course_code' else 'algebra'}\".")
            tests.append(_contains("code" if key == "course_code" else "name", filters[key].strip().casefold()))
    if "credits" in filters:
        credit = _credits_test(filters["credits"])
        tests.append(lambda s: credit(s.credits))
    if "semester" in filters:
        semester = _semester_value(filters["semester"])
        tests.append(lambda s: s.semester == semester)
    if "type" in filters:
        kind = filters["type"]
        if not isinstance(kind, str) or kind.strip().casefold() not in ("compulsory", "elective"):
            raise Refuse("filter 'type' must be \"Compulsory\" or \"Elective\".")
        wanted = kind.strip().casefold() == "compulsory"
        tests.append(lambda s: s.compulsory == wanted)
    return lambda s: all(test(s) for test in tests)


def _contains(field: str, needle: str) -> Predicate:
    return lambda section: needle in getattr(section, field).casefold()


def _course_lines(cat: Catalogue, part: CourseState, section: CourseSection) -> list[str]:
    prerequisites = ", ".join(section.prerequisites) if section.prerequisites else "None"
    return [
        (
            f"- {_title(section)} (Credits {section.credits}, Popularity {popularity(part, section)}, "
            f"{_kind(section)}, Semester {section.semester})"
        ),
        f"  Instructor: {section.instructor}",
        f"  Schedule: {_schedule(cat, section)}",
        f"  Location: {_location(cat, section)}",
        f"  Prerequisites: {prerequisites}",
    ]


def _course_data(cat: Catalogue, part: CourseState, section: CourseSection) -> dict[str, Any]:
    return {
        "section_id": section.code,
        "name": section.name,
        "credits": section.credits,
        "popularity": popularity(part, section),
        "type": _kind(section),
        "semester": section.semester,
        "instructor": section.instructor,
        "schedule": _schedule(cat, section),
        "location": _location(cat, section),
        "prerequisites": list(section.prerequisites),
    }


def browse_courses(view: Any, args: dict[str, Any]) -> Outcome:
    cat = catalogue(view.world)
    part: CourseState = view.state.courses
    match = _matcher(args.get("filters", {}))
    found = [s for s in cat.sections.values() if match(s)]
    if not found:
        hint = "" if not args.get("filters") else " Loosen the filters (e.g. a shorter part of the name)."
        return ok(f"No course sections match.{hint}", data={"courses": [], "total": 0})
    shown = found[:MAX_LISTED]
    lines = [f"Found {_plural(len(found), 'course section')}:"]
    for section in shown:
        lines.extend(_course_lines(cat, part, section))
    if len(found) > len(shown):
        lines.append(f"... and {len(found) - len(shown)} more; narrow with filters ({', '.join(FILTER_KEYS)}).")
    courses = [_course_data(cat, part, s) for s in shown]
    return ok("\n".join(lines), data={"courses": courses, "total": len(found)})


# ------------------------------------------------------------------ draft


def add_course(view: Any, args: dict[str, Any]) -> Outcome:
    cat = catalogue(view.world)
    part: CourseState = view.state.courses
    section = _resolve(cat, args["section_id"])
    others = cat.same_code[section.code]
    note = f" Note: {_names(others)} {'is' if len(others) == 1 else 'are'} the same code in another semester." if others else ""
    problem = _add_problem(cat, part, section)
    if problem:
        return fail(problem + note)
    rules = RULES[section.semester]
    after = [s for s in _drafted(cat, part) if s.semester == section.semester] + [section]
    compulsory = sum(s.compulsory for s in after)
    message = (
        f"Added {_title(section)} ({_kind(section).lower()}, semester {section.semester}, {_schedule(cat, section)}) "
        f"to your draft. It has no pass yet; give it one with draft.assign_pass. Semester {section.semester} draft: "
        f"{len(after)} of {rules.courses} courses, {compulsory} compulsory (at least {rules.min_compulsory}).{note}"
    )
    return ok(message, [DraftAdded(section_id=section.code)], {"section_id": section.code, "semester": section.semester})


def _add_problem(cat: Catalogue, part: CourseState, section: CourseSection) -> str | None:
    if section.semester not in RULES:
        return f"{_title(section)} is in semester {section.semester}; only semesters 1 and 2 can be planned."
    if section.code in part.draft:
        return f"{_title(section)} is already in your draft. See it with draft.view()."
    drafted = _drafted(cat, part)
    twin = next((s for s in drafted if _same_course(s, section)), None)
    if twin is not None:
        return (
            f"Your draft already has {twin.code}, another section of {section.name}. A course can be taken in one "
            f"section only: remove {twin.code} first (draft.remove_course) if you want {section.code} instead."
        )
    clashes = [(s, days) for s in drafted if (days := _clashes(cat, section, s))]
    if clashes:
        listed = "; ".join(f"{_title(s)} ({_schedule(cat, s)}) on {'/'.join(days)}" for s, days in clashes)
        return (
            f"{_title(section)} ({_schedule(cat, section)}) clashes with {listed} in your draft. Remove the clashing "
            "course first (draft.remove_course) or choose another section."
        )
    missing = missing_prerequisites(cat, part, section)
    if missing:
        return _prerequisite_problem(section, missing)
    return None


def remove_course(view: Any, args: dict[str, Any]) -> Outcome:
    cat = catalogue(view.world)
    part: CourseState = view.state.courses
    section = _drafted_section(cat, part, args["section_id"])
    held = part.draft[section.code]
    released = f" Its {held} is free again." if held else ""
    message = f"Removed {_title(section)} from your draft.{released}"
    rest = CourseState(draft={c: p for c, p in part.draft.items() if c != section.code}, registered=part.registered)
    stranded = [s for s in _drafted(cat, rest) if missing_prerequisites(cat, rest, s)]
    if stranded:
        message += (
            f" Note: {_names([_title(s) for s in stranded])} now {'lacks' if len(stranded) == 1 else 'lack'} a "
            "prerequisite; draft a section of the missing course again before submitting."
        )
    return ok(message, [DraftRemoved(section_id=section.code)], {"section_id": section.code})


def _drafted_section(cat: Catalogue, part: CourseState, section_id: str, advice: str = "") -> CourseSection:
    """The drafted section meant by ``section_id``; if there is none, the refusal ends with ``advice``."""
    try:
        section = _resolve(cat, section_id)
    except Refuse as refusal:
        raise Refuse(refusal.message + advice) from None
    if section.code in part.draft:
        return section
    drafted = [s.code for s in _drafted(cat, part)]
    holds = f"Your draft holds: {_names(drafted, 20)}." if drafted else "Your draft is empty."
    raise Refuse(f"{_title(section)} is not in your draft. {holds}{advice}")


def assign_pass(view: Any, args: dict[str, Any]) -> Outcome:
    cat = catalogue(view.world)
    part: CourseState = view.state.courses
    section = _drafted_section(cat, part, args["section_id"], " Add a section with draft.add_course before giving it a pass.")
    code, pass_type = section.code, args["pass_type"]
    old = part.draft[code]
    if old == pass_type:
        return ok(f"{_title(section)} already holds {_a(pass_type)}; nothing changed.", data={"section_id": code, "pass_type": pass_type})
    problem = _quota_problem(cat, part, section, pass_type)
    if problem:
        return fail(problem)
    replaced = f" (replacing its {old})" if old else ""
    message = f"Assigned {_a(pass_type)} to {_title(section)}{replaced}."
    return ok(message, [PassAssigned(section_id=code, pass_type=pass_type)], {"section_id": code, "pass_type": pass_type})


def _quota(semester: int, compulsory: bool) -> dict[str, int]:
    rules = RULES[semester]
    return rules.compulsory if compulsory else rules.elective


def _quota_label(semester: int, compulsory: bool) -> str:
    quota = _quota(semester, compulsory)
    parts = [_plural(n, p) for p, n in quota.items() if n > 0]
    group = "compulsory courses" if compulsory else "electives"
    return f"semester {semester} {group} may hold at most {_names(parts)} (B-Passes unlimited)"


def _quota_problem(cat: Catalogue, part: CourseState, section: CourseSection, pass_type: str) -> str | None:
    limit = _quota(section.semester, section.compulsory).get(pass_type)
    if limit is None:
        return None
    if limit == 0:
        return (
            f"The {pass_type} is for compulsory courses only, and {_title(section)} is an elective: "
            f"{_quota_label(section.semester, False)}. Use an A-Pass or a B-Pass."
        )
    holders = [
        s
        for s in _drafted(cat, part)
        if s.code != section.code
        and s.semester == section.semester
        and s.compulsory == section.compulsory
        and part.draft[s.code] == pass_type
    ]
    if len(holders) < limit:
        return None
    return (
        f"No {pass_type} left: {_quota_label(section.semester, section.compulsory)}, and "
        f"{_names([_title(s) for s in holders])} already {'holds' if len(holders) == 1 else 'hold'} "
        f"{'it' if limit == 1 else 'them'}. Give {'it' if len(holders) == 1 else 'one of them'} another pass "
        "first (draft.assign_pass), or choose another pass for this course."
    )


def view_draft(view: Any, args: dict[str, Any]) -> Outcome:
    cat = catalogue(view.world)
    part: CourseState = view.state.courses
    drafted = _drafted(cat, part)
    if not drafted:
        return ok(
            "Your draft is empty. Find sections with course_selection.browse_courses and add them with draft.add_course.",
            data={"semesters": []},
        )
    lines = ["Your current draft schedule:"]
    semesters = []
    for semester in sorted({s.semester for s in drafted}):
        chosen = [s for s in drafted if s.semester == semester]
        lines.append(f"Semester {semester}:")
        for s in chosen:
            held = part.draft[s.code]
            lines.append(f"- {_title(s)} ({'Pass: ' + held if held else 'No pass assigned'})")
        lines.append("  " + _status(part, semester, chosen))
        semesters.append({"semester": semester, "sections": [{"section_id": s.code, "pass_type": part.draft[s.code]} for s in chosen]})
    return ok("\n".join(lines), data={"semesters": semesters})


def _status(part: CourseState, semester: int, chosen: list[CourseSection]) -> str:
    rules = RULES[semester]
    compulsory = sum(s.compulsory for s in chosen)
    used = []
    for flag, group in ((True, "compulsory"), (False, "elective")):
        for pass_type, limit in _quota(semester, flag).items():
            if limit > 0:
                n = sum(1 for s in chosen if s.compulsory == flag and part.draft[s.code] == pass_type)
                used.append(f"{group} {pass_type} {n} of {limit}")
    b_passes = sum(1 for s in chosen if part.draft[s.code] == "B-Pass")
    return (
        f"Rules: {len(chosen)} of exactly {rules.courses} courses, {compulsory} compulsory (at least "
        f"{rules.min_compulsory}); passes used: {', '.join(used)}, B-Pass {b_passes} (unlimited)."
    )


# ------------------------------------------------------------------ registration


def registration_result(pass_type: str, current: int) -> str:
    """``success`` or ``failed: <reason>`` for a section with this pass and popularity."""
    if pass_type == "S-Pass":
        return "success"
    if not pass_type:
        return f"failed: popularity {current}: a section without a pass is never registered"
    below = PASS_BELOW[pass_type]
    if current < below:
        return "success"
    return f"failed: popularity {current}: {_a(pass_type)} needs popularity below {below}"


def _a(pass_type: str) -> str:
    return ("an " if pass_type[0] in "AS" else "a ") + pass_type


def submit_draft(view: Any, args: dict[str, Any]) -> Outcome:
    cat = catalogue(view.world)
    part: CourseState = view.state.courses
    drafted = _drafted(cat, part)
    if not drafted:
        return fail("Your draft is empty; add sections with draft.add_course and give them passes before submitting.")
    semesters = sorted({s.semester for s in drafted})
    problems = [p for semester in semesters for p in _semester_problems(cat, part, semester, drafted)]
    if problems:
        return fail("The draft cannot be submitted:\n" + "\n".join(f"- {p}" for p in problems) + "\nNothing was registered.")
    facts = []
    lines = []
    summary = []
    number = part.next_registration
    for semester in semesters:
        chosen = [s for s in drafted if s.semester == semester]
        results = {s.code: registration_result(part.draft[s.code], popularity(part, s)) for s in chosen}
        facts.append(Registered(semester=semester, results=results))
        succeeded = sum(1 for r in results.values() if r == "success")
        lines.append(f"Registration {number}, semester {semester}: {succeeded} of {len(chosen)} sections registered.")
        for s in chosen:
            held = part.draft[s.code] or "no pass"
            result = results[s.code]
            if result == "success":
                lines.append(f"[SUCCESS] {s.code} {s.name} ({held})")
            else:
                lines.append(f"[FAILED] {s.code} {s.name} ({held}, {result[len('failed: '):]})")
        summary.append({"semester": semester, "registration": number, "results": results})
        number += 1
    if any(r != "success" for f in facts for r in f.results.values()):
        lines.append("Failed sections stay in your draft: give them a stronger pass and submit again.")
    return ok("\n".join(lines), facts, {"registrations": summary})


def _semester_problems(cat: Catalogue, part: CourseState, semester: int, drafted: list[CourseSection]) -> list[str]:
    rules = RULES[semester]
    chosen = [s for s in drafted if s.semester == semester]
    compulsory = sum(s.compulsory for s in chosen)
    problems = []
    if len(chosen) != rules.courses:
        problems.append(
            f"Semester {semester} needs exactly {rules.courses} courses; your draft has {len(chosen)}."
        )
    if compulsory < rules.min_compulsory:
        problems.append(
            f"Semester {semester} needs at least {rules.min_compulsory} compulsory courses; your draft has {compulsory}."
        )
    for section in chosen:
        missing = missing_prerequisites(cat, part, section)
        if missing:
            problems.append(_prerequisite_problem(section, missing))
    return problems


# ------------------------------------------------------------------ reducers


def _added(part: CourseState, event: DraftAdded) -> None:
    part.draft.setdefault(event.section_id, "")


def _removed(part: CourseState, event: DraftRemoved) -> None:
    part.draft.pop(event.section_id, None)


def _assigned(part: CourseState, event: PassAssigned) -> None:
    if event.section_id in part.draft:
        part.draft[event.section_id] = event.pass_type


def _registered(part: CourseState, event: Registered) -> None:
    part.registered.update(event.results)
    part.next_registration += 1


def _world_changed(part: CourseState, event: WorldChanged) -> None:
    change = event.change
    if isinstance(change, Popularity) and popularity_problem(change) is None:
        part.popularity[change.code] = change.value


def popularity_problem(change: Popularity, world: WorldIndex | None = None) -> str | None:
    """Why a popularity change would be ignored, or None.

    With a ``WorldIndex`` it also checks that the section exists. The reducer skips a bad
    change, because a log must always fold.
    """
    if not change.code:
        return "popularity needs 'code', the section id"
    if not 0 <= change.value <= 99:
        return "popularity needs 'value', a whole number from 0 to 99"
    if world is not None and change.code not in catalogue(world).sections:
        return f"popularity names the section '{_show(change.code)}', which is not in the catalogue"
    return None


# ------------------------------------------------------------------ declarations

_SECTION_ID = Param(
    name="section_id",
    type="string",
    description="The section id, which is the course code shown by course_selection.browse_courses, e.g. '<<section_id>>'.",
    max_length=MAX_ID,
)

BROWSE_COURSES = ToolDecl(
    name="course_selection.browse_courses",
    system="course_selection",
    description=(
        "List course sections with their credits, current popularity, type, semester, instructor, schedule, "
        "location and prerequisites (at most 25 at a time). Without filters it lists every section."
    ),
    params=(
        Param(
            name="filters",
            type="object",
            description=(
                "Optional filters, all of which must match: 'course_code' and 'course_name' (part of the code or "
                "name, any letter case), 'credits' (a number, or a comparison such as \"<=3\" or \">=2\"), "
                "'semester' (1 or 2) and 'type' (\"Compulsory\" or \"Elective\")."
            ),
            required=False,
        ),
    ),
    handler=browse_courses,
    example='course_selection.browse_courses(filters={"course_name": "algebra", "semester": 1})',
)

ADD_COURSE = ToolDecl(
    name="draft.add_course",
    system="draft",
    description=(
        "Add a course section to your draft schedule. Refused if another section of the same course is in the "
        "draft, if it clashes in time with a drafted course of the same semester, or if a prerequisite course is "
        "not among your earlier-semester courses (drafted or registered)."
    ),
    params=(_SECTION_ID,),
    handler=add_course,
    mutates=True,
    example='draft.add_course(section_id="<<section_id>>")',
)

REMOVE_COURSE = ToolDecl(
    name="draft.remove_course",
    system="draft",
    description="Remove a section from your draft schedule; its pass becomes free again.",
    params=(_SECTION_ID,),
    handler=remove_course,
    mutates=True,
    example='draft.remove_course(section_id="<<section_id>>")',
)

ASSIGN_PASS = ToolDecl(
    name="draft.assign_pass",
    system="draft",
    description=(
        "Give a drafted section a registration pass (replacing any pass it had). Quotas per semester: "
        "compulsory courses at most 1 S-Pass and 2 A-Passes in semester 1, 1 S-Pass and 1 A-Pass in semester 2; "
        "electives at most 1 A-Pass and no S-Pass; B-Passes are unlimited. At registration an S-Pass always "
        "succeeds, an A-Pass needs popularity below 95 and a B-Pass popularity below 85."
    ),
    params=(
        _SECTION_ID,
        Param(name="pass_type", type="string", description="The pass to give the section.", enum=PASSES, max_length=10),
    ),
    handler=assign_pass,
    mutates=True,
    example='draft.assign_pass(section_id="<<section_id>>", pass_type="A-Pass")',
)

VIEW_DRAFT = ToolDecl(
    name="draft.view",
    system="draft",
    description="Show your draft schedule by semester with each section's pass, the course counts and the passes used.",
    params=(),
    handler=view_draft,
    example="draft.view()",
)

SUBMIT_DRAFT = ToolDecl(
    name="registration.submit_draft",
    system="registration",
    description=(
        "Submit your draft for registration. Each semester in the draft must have exactly its number of courses "
        "(semester 1: 8 with at least 6 compulsory; semester 2: 7 with at least 5 compulsory). Each section is then "
        "registered or not by its pass and current popularity; the draft is kept."
    ),
    params=(),
    handler=submit_draft,
    mutates=True,
    example="registration.submit_draft()",
)

COURSE_TOOLS: tuple[ToolDecl, ...] = (BROWSE_COURSES, ADD_COURSE, REMOVE_COURSE, ASSIGN_PASS, VIEW_DRAFT, SUBMIT_DRAFT)


def _new_courses(world: Any) -> CourseState:
    return CourseState()


COURSES = Domain(
    name="courses",
    state_type=CourseState,
    initial=_new_courses,
    reducers={
        DraftAdded: _added,
        DraftRemoved: _removed,
        PassAssigned: _assigned,
        Registered: _registered,
        WorldChanged: _world_changed,
    },
    tools=COURSE_TOOLS,
    changes={Popularity: popularity_problem},
)

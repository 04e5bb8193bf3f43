"""Handbooks and textbooks whose articles state checkable facts with exact values.

Rules
-----
* **Texts**: the three handbooks ``Student Handbook``, ``Academic Integrity Guidelines`` and
  ``Academic Programs Guide``, then one textbook for each core semester-1 compulsory
  course (``TEXTBOOKS``; ``course`` is the course name). Texts depend on the seed only, not
  on the scale.
* **Shape**: a text has 5-8 chapters drawn from its spec's chapters (kept in spec order),
  each with 2-4 sections drawn from the chapter's section titles, each with 3-5 articles.
  Titles read ``Chapter 3: Limits``, ``3.2 Limit Laws``; article ids are
  ``art_<chapter>.<section>.<n>`` (they repeat across texts, as in the published data).
* **Articles**: an article's body is a pure function of (seed, text title, chapter,
  section, n): one seeded stream per section orders the chapter's fact generators, and
  article n takes the n-th of that order as its lead, up to two more drawn at random, and
  one or two neutral sentences (``FILLERS``, by text title or else by kind) after them, so
  a body has 2-5 sentences. Each generator writes one sentence and returns the
  ``Fact`` s (subject, relation, value) that sentence states, with the value written
  verbatim in it. ``article_facts`` gives those facts back for any article.
* **Values**: rule values (``rule``: "may borrow at most 12 books") are drawn per seed from
  the rule's options by ``sha256(seed, subject, relation)``, so a rule restated in another
  article states the same value; computed facts (``calc``: "the dot product of (1, 2) and
  (3, 4) is 11") are exact results of seeded inputs; definitions (``define``) are fixed.
  So within a world a (subject, relation) pair never has two values.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import NamedTuple

from campus.world.gen_common import digest_index, stream
from campus.world.model import Article, BookSection, Chapter, Text


class Fact(NamedTuple):
    subject: str
    relation: str
    value: str


class Said(NamedTuple):
    title: str
    sentence: str
    facts: tuple[Fact, ...]


Generator = Callable[[random.Random, int], Said]
"""A fact generator: (article stream, world seed) -> one sentence and its facts."""


@dataclass(frozen=True)
class ChapterSpec:
    title: str
    sections: tuple[str, ...]
    generators: tuple[Generator, ...]


@dataclass(frozen=True)
class TextSpec:
    title: str
    kind: str
    chapters: tuple[ChapterSpec, ...]
    course: str = ""


# --------------------------------------------------------------------------------------
# Generator factories
# --------------------------------------------------------------------------------------


def rule(title: str, sentence: str, subject: str, *slots: tuple[str, Sequence[object]]) -> Generator:
    """A rule with one value per slot (``{v0}``, ``{v1}`` in ``sentence``) fixed per seed."""

    def generate(rng: random.Random, seed: int) -> Said:
        values = [str(options[digest_index(len(options), seed, subject, relation)])
                  for relation, options in slots]
        facts = tuple(Fact(subject, relation, v) for (relation, _), v in zip(slots, values))
        return Said(title, sentence.format(**{f"v{i}": v for i, v in enumerate(values)}), facts)

    return generate


def define(*entries: tuple[str, str, str]) -> Generator:
    """Definitions ``(term, sentence with {v}, definition)``; one is drawn per use."""

    def generate(rng: random.Random, seed: int) -> Said:
        term, sentence, meaning = rng.choice(entries)
        return Said(_heading(term), sentence.format(v=meaning), (Fact(term, "is defined as", meaning),))

    return generate


def calc(title: str, subject: str, sentence: str, relation: str,
         draw: Callable[[random.Random], Mapping[str, object]]) -> Generator:
    """A computed fact: ``draw`` returns the fields of ``subject``/``sentence`` and ``v``."""

    def generate(rng: random.Random, seed: int) -> Said:
        fields = draw(rng)
        fact = Fact(subject.format(**fields), relation, str(fields["v"]))
        return Said(title, sentence.format(**fields), (fact,))

    return generate


_SMALL_WORDS = frozenset({"of", "and", "in", "for", "the", "on", "to", "a", "an"})


def _heading(term: str) -> str:
    """``"type I error"`` -> ``"Type I Error"``."""
    return " ".join(w if (i and w in _SMALL_WORDS) else w[:1].upper() + w[1:]
                    for i, w in enumerate(term.split()))


def _frac(value: Fraction | int) -> str:
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _vec(items: Sequence[int]) -> str:
    return "(" + ", ".join(str(x) for x in items) + ")"


def _mat(rows: Sequence[Sequence[int]]) -> str:
    return "[" + ", ".join(_vec(r).replace("(", "[").replace(")", "]") for r in rows) + "]"


def _set(items: Sequence[int]) -> str:
    return "{" + ", ".join(str(x) for x in sorted(items)) + "}"


def _poly(a: int, b: int, c: int) -> str:
    """``a*x^2 + b*x + c`` written plainly, e.g. ``2x^2 - 3x + 1``."""
    terms = [(a, "x^2"), (b, "x"), (c, "")]
    out = ""
    for coefficient, power in terms:
        if coefficient == 0:
            continue
        size = abs(coefficient)
        body = f"{'' if size == 1 and power else size}{power}"
        out += (f"-{body}" if coefficient < 0 else body) if not out else (
            f" - {body}" if coefficient < 0 else f" + {body}")
    return out or "0"


def _nonzero(rng: random.Random, low: int, high: int) -> int:
    value = 0
    while value == 0:
        value = rng.randint(low, high)
    return value


# --------------------------------------------------------------------------------------
# Composition
# --------------------------------------------------------------------------------------

FILLERS: dict[str, tuple[str, ...]] = {
    "Academic Programs Guide": (
        "Programme details may change, and the faculty office announces any change before enrolment.",
        "Academic advisors help students plan their route through the programme.",
        "Course codes and schedules are listed in the course selection system.",
        "Students should read this section before they choose electives.",
        "Transfer students may ask for earlier study to be recognised.",
        "The faculty reviews the programme regularly with students and employers.",
    ),
    "handbook": (
        "Students are expected to know this rule before the term begins.",
        "Questions about this article can be sent to the Office of Student Affairs.",
        "Exceptions need written approval from the office responsible.",
        "The rule applies to undergraduate and graduate students alike.",
        "Repeated breaches are noted in the student file.",
        "Staff at the service desks can explain how the rule is applied.",
        "Where another article sets a stricter rule, the stricter rule applies.",
        "The University Council reviews this provision every year.",
    ),
    "textbook": (
        "Work through the example by hand before checking it with a computer.",
        "The same idea returns in later chapters.",
        "The exercises at the end of the section practise this skill.",
        "Try changing the numbers and predict the new result first.",
        "Keep a note of this result for the chapter review.",
        "Questions of this kind often appear in the final exam.",
        "A small sketch on paper makes the idea easier to follow.",
        "Compare this result with the one in the previous section.",
    ),
}


class _Layout(NamedTuple):
    chapters: tuple[tuple[ChapterSpec, tuple[tuple[str, int], ...]], ...]
    """Each chapter's spec and its sections as (title, number of articles)."""


def _pick_sorted(rng: random.Random, items: Sequence[object], low: int, high: int) -> list[int]:
    count = min(len(items), rng.randint(low, high))
    return sorted(rng.sample(range(len(items)), count))


@functools.lru_cache(maxsize=256)
def _layout(seed: int, title: str) -> _Layout:
    spec = SPECS[title]
    rng = stream(seed, "text layout", title)
    chapters = []
    for c in _pick_sorted(rng, spec.chapters, 5, 8):
        chapter = spec.chapters[c]
        sections = tuple((chapter.sections[s], rng.randint(3, 5))
                         for s in _pick_sorted(rng, chapter.sections, 2, 4))
        chapters.append((chapter, sections))
    return _Layout(tuple(chapters))


def _section(seed: int, title: str, chapter: int, section: int) -> list[tuple[Article, list[Fact]]]:
    """Every article of one section, with the facts each states, from one seeded stream."""
    layout = _layout(seed, title)
    if not (1 <= chapter <= len(layout.chapters)):
        raise ValueError(f"{title!r} has no chapter {chapter}")
    spec, sections = layout.chapters[chapter - 1]
    if not (1 <= section <= len(sections)):
        raise ValueError(f"{title!r} has no section {chapter}.{section}")
    rng = stream(seed, "text section", title, chapter, section)
    generators = spec.generators
    order = rng.sample(range(len(generators)), len(generators))
    fillers = FILLERS.get(title) or FILLERS[SPECS[title].kind]
    articles = []
    for n in range(1, sections[section - 1][1] + 1):
        lead = order[(n - 1) % len(order)]
        others = [g for g in range(len(generators)) if g != lead]
        chosen = [lead] + rng.sample(others, min(len(others), rng.randint(0, 2)))
        said = [generators[g](rng, seed) for g in chosen]
        body = " ".join([s.sentence for s in said] + rng.sample(fillers, rng.randint(1, 2)))
        article = Article(id=f"art_{chapter}.{section}.{n}", title=said[0].title, body=body)
        articles.append((article, [fact for s in said for fact in s.facts]))
    return articles


def article_facts(seed: int, title: str, chapter: int, section: int, n: int) -> list[Fact]:
    """The facts stated in article ``art_<chapter>.<section>.<n>`` of text ``title``."""
    articles = _section(seed, title, chapter, section)
    if not (1 <= n <= len(articles)):
        raise ValueError(f"{title!r} has no article art_{chapter}.{section}.{n}")
    return articles[n - 1][1]


def make_texts(seed: int) -> list[Text]:
    texts = []
    for spec in SPECS.values():
        chapters = []
        for c, (chapter, sections) in enumerate(_layout(seed, spec.title).chapters, 1):
            made = [
                BookSection(title=f"{c}.{s} {section_title}",
                            articles=[a for a, _ in _section(seed, spec.title, c, s)])
                for s, (section_title, _) in enumerate(sections, 1)
            ]
            chapters.append(Chapter(title=f"Chapter {c}: {chapter.title}", sections=made))
        texts.append(Text(title=spec.title, kind=spec.kind, chapters=chapters, course=spec.course))
    return texts


# --------------------------------------------------------------------------------------
# Handbooks
# --------------------------------------------------------------------------------------

STUDENT_HANDBOOK = TextSpec("Student Handbook", "handbook", (
    ChapterSpec("Admission and Registration", (
        "Enrolment Deadlines", "Student Identity Cards", "Changing Personal Details",
        "Registration Holds"), (
        rule("Registration Deadline",
             "New students must complete online registration within {v0} days of the start of term.",
             "new student registration", ("deadline in days after the start of term", (5, 7, 10, 14))),
        rule("Student Card Replacement",
             "Replacing a lost student card costs {v0} dollars and takes {v1} working days.",
             "student card replacement", ("fee in dollars", (10, 15, 20, 25)),
             ("processing time in working days", (2, 3, 5))),
        rule("Change of Address",
             "A change of home address must be reported to the Registrar within {v0} days.",
             "change of address", ("reporting deadline in days", (7, 10, 14, 30))),
        rule("Late Registration", "Students who register late pay a fee of {v0} dollars.",
             "late registration", ("fee in dollars", (30, 40, 50, 75))),
        rule("Registration Holds",
             "An unpaid balance above {v0} dollars places a hold on course registration.",
             "registration hold", ("unpaid balance threshold in dollars", (100, 200, 250, 500))),
    )),
    ChapterSpec("Course Load and Credits", (
        "Credit Limits", "Adding and Dropping Courses", "Auditing Courses", "Overload Requests"), (
        rule("Full-Time Status", "A full-time student must take at least {v0} credits per semester.",
             "full-time status", ("minimum credits per semester", (12, 14, 15, 16))),
        rule("Maximum Credit Load",
             "No student may register for more than {v0} credits in one semester without approval.",
             "credit load", ("maximum credits per semester without approval", (22, 24, 25, 26))),
        rule("Adding Courses", "Courses can be added until the end of week {v0} of the semester.",
             "adding a course", ("last week to add", (1, 2, 3))),
        rule("Dropping Courses",
             "A course dropped after week {v0} appears on the transcript as a withdrawal.",
             "dropping a course", ("week after which a drop is recorded as a withdrawal", (3, 4, 6, 8))),
        rule("Overload Requests", "A request to exceed the credit limit needs a GPA of at least {v0}.",
             "credit overload", ("minimum GPA", ("3.0", "3.2", "3.5"))),
    )),
    ChapterSpec("Grading and Academic Standing", (
        "Grade Scale", "Grade Point Average", "Academic Probation", "Dean's List"), (
        rule("Grade Scale", "A course score of {v0} or higher earns an A.",
             "grade A", ("minimum score", (85, 90, 93))),
        rule("Passing Score", "The passing score in every course is {v0} out of 100.",
             "course pass", ("minimum score out of 100", (50, 60, 65))),
        rule("Academic Probation",
             "A student whose semester GPA falls below {v0} is placed on academic probation.",
             "academic probation", ("GPA threshold", ("1.5", "1.8", "2.0"))),
        rule("Dean's List",
             "The Dean's List names students with a semester GPA of {v0} or above who took at least {v1} credits.",
             "Dean's List", ("minimum GPA", ("3.6", "3.7", "3.8")), ("minimum credits", (12, 15))),
        rule("Grade Appeals", "A grade may be appealed within {v0} days after it is published.",
             "grade appeal", ("deadline in days after publication", (7, 10, 14))),
    )),
    ChapterSpec("Attendance and Leave", (
        "Class Attendance", "Sick Leave", "Personal Leave", "Leave of Absence"), (
        rule("Attendance Requirement",
             "Missing more than {v0} percent of the sessions of a course bars a student from its final exam.",
             "attendance requirement", ("maximum share of missed sessions in percent", (20, 25, 30))),
        rule("Sick Leave", "Sick leave of more than {v0} days needs a note from the campus clinic.",
             "sick leave", ("days before a clinic note is needed", (2, 3, 5))),
        rule("Personal Leave",
             "Personal leave of up to {v0} days can be approved by the academic advisor.",
             "personal leave", ("maximum days an advisor can approve", (2, 3, 5))),
        rule("Leave of Absence", "A leave of absence lasts at most {v0} semesters.",
             "leave of absence", ("maximum length in semesters", (2, 3, 4))),
        rule("Late Arrival",
             "Students who arrive more than {v0} minutes after a class starts are recorded as late.",
             "late arrival", ("minutes after the start", (5, 10, 15))),
    )),
    ChapterSpec("Examinations", (
        "Exam Schedules", "Exam Room Rules", "Missed Exams", "Make-up Exams"), (
        rule("Arriving for Exams",
             "Students must arrive at the exam room at least {v0} minutes before the exam starts.",
             "exam arrival", ("minutes before the start", (10, 15, 20, 30))),
        rule("Late Entry to Exams",
             "No student may enter an exam room more than {v0} minutes after the exam has started.",
             "exam entry", ("latest entry in minutes after the start", (15, 20, 30))),
        rule("Make-up Requests",
             "A request for a make-up exam must be filed within {v0} days of the missed exam.",
             "make-up exam request", ("deadline in days", (3, 5, 7))),
        rule("Make-up Scores",
             "A make-up exam is capped at a score of {v0} out of 100 unless the absence was caused by illness.",
             "make-up exam", ("score cap out of 100", (70, 80, 85))),
        rule("Exam Length", "A final exam lasts {v0} minutes unless the course outline says otherwise.",
             "final exam", ("standard length in minutes", (90, 120, 150))),
    )),
    ChapterSpec("Library Services", ("Borrowing", "Renewals", "Fines", "Study Spaces"), (
        rule("Borrowing Limits", "A student may borrow at most {v0} books at a time.",
             "book borrowing", ("maximum books at a time", (8, 10, 12, 15, 20))),
        rule("Loan Periods", "The loan period for a library book is {v0} days.",
             "book loan", ("loan period in days", (14, 21, 28, 30))),
        rule("Renewals", "A library book can be renewed at most {v0} times.",
             "book renewal", ("maximum renewals", (2, 3, 5))),
        rule("Overdue Fines", "An overdue book costs {v0} cents per day in fines.",
             "overdue book", ("fine in cents per day", (10, 20, 25, 50))),
        rule("Booking Study Rooms",
             "Library study rooms can be booked up to {v0} days in advance, for at most {v1} hours at a time.",
             "study room booking", ("days in advance", (3, 5, 7, 14)), ("maximum hours per booking", (2, 3, 4))),
        rule("Laptop Loans", "Laptops from the library are lent for {v0} hours.",
             "laptop loan", ("loan period in hours", (4, 6, 8))),
    )),
    ChapterSpec("Residence Life", ("Quiet Hours", "Guests", "Room Inspections", "Moving Out"), (
        rule("Quiet Hours", "Quiet hours in the residences begin at {v0} on weeknights.",
             "residence quiet hours", ("start time on weeknights", ("22:00", "22:30", "23:00"))),
        rule("Overnight Guests", "An overnight guest may stay at most {v0} nights per month.",
             "overnight guests", ("maximum nights per month", (2, 3, 4))),
        rule("Room Inspections", "Room inspections are announced at least {v0} hours in advance.",
             "room inspection", ("notice in hours", (24, 48, 72))),
        rule("Moving Out",
             "Residents must leave their rooms within {v0} hours after their last exam.",
             "moving out", ("deadline in hours after the last exam", (24, 48))),
        rule("Lost Keys", "A lost room key costs {v0} dollars to replace.",
             "room key replacement", ("fee in dollars", (15, 25, 40))),
    )),
    ChapterSpec("Campus Safety", (
        "Emergency Contacts", "Fire Safety", "Cycling on Campus", "Lost and Found"), (
        rule("Security Line", "The campus security line is extension {v0}.",
             "campus security line", ("phone extension", ("2200", "4000", "5911", "7777"))),
        rule("Cycling Speed", "The speed limit for bicycles on campus paths is {v0} kilometres per hour.",
             "bicycle speed limit", ("kilometres per hour", (10, 12, 15))),
        rule("Lost and Found", "Items handed in to Lost and Found are kept for {v0} days.",
             "lost and found", ("days items are kept", (30, 60, 90))),
        rule("Fire Drills", "Every residence holds {v0} fire drills per semester.",
             "fire drill", ("drills per semester", (2, 3, 4))),
        rule("Visitors",
             "Visitors who stay on campus longer than {v0} hours must register at the Welcome Center.",
             "visitor registration", ("hours before registration is needed", (2, 4, 8))),
    )),
    ChapterSpec("Fees and Financial Aid", (
        "Tuition Payment", "Refunds", "Scholarships", "Emergency Grants"), (
        rule("Tuition Deadline", "Tuition is due by the end of week {v0} of each semester.",
             "tuition payment", ("due week", (2, 3, 4))),
        rule("Refunds", "A student who withdraws before week {v0} receives a full tuition refund.",
             "tuition refund", ("week before which the refund is full", (2, 3, 4))),
        rule("Merit Scholarships",
             "Merit scholarships require a GPA of at least {v0} in the previous year.",
             "merit scholarship", ("minimum GPA", ("3.3", "3.5", "3.7"))),
        rule("Emergency Grants", "Emergency grants of up to {v0} dollars can be approved within a week.",
             "emergency grant", ("maximum amount in dollars", (300, 500, 800, 1000))),
        rule("Late Payment", "Late tuition payment adds a fee of {v0} percent of the balance.",
             "late tuition payment", ("fee in percent of the balance", (1, 2, 5))),
    )),
    ChapterSpec("Student Conduct", (
        "Code of Conduct", "Noise and Events", "Disciplinary Process", "Appeals"), (
        rule("Disciplinary Hearings",
             "A disciplinary hearing is held within {v0} working days of a report.",
             "disciplinary hearing", ("working days after a report", (5, 10, 15))),
        rule("Conduct Appeals", "A student may appeal a disciplinary decision within {v0} days.",
             "disciplinary appeal", ("deadline in days", (5, 7, 10))),
        rule("Event Permits",
             "A campus event with more than {v0} guests needs a permit requested at least {v1} days ahead.",
             "event permit", ("guest threshold", (50, 100, 150)), ("days in advance", (7, 10, 14))),
        rule("Written Warnings", "A written warning stays on file for {v0} semesters.",
             "written warning", ("semesters on file", (2, 4))),
    )),
    ChapterSpec("Graduation", (
        "Degree Requirements", "Applying to Graduate", "Honours", "The Ceremony"), (
        rule("Degree Credits", "A bachelor's degree requires at least {v0} credits.",
             "bachelor's degree", ("minimum credits", (130, 140, 150, 160))),
        rule("Graduation Applications",
             "Students must apply to graduate at least {v0} weeks before the ceremony.",
             "graduation application", ("weeks before the ceremony", (6, 8, 10, 12))),
        rule("Honours", "Graduation with honours requires a cumulative GPA of at least {v0}.",
             "graduation with honours", ("minimum GPA", ("3.5", "3.6", "3.7"))),
        rule("Ceremony Guests", "Each graduate may bring up to {v0} guests to the ceremony.",
             "graduation ceremony", ("guests per graduate", (2, 3, 4))),
        rule("Residency Credits", "At least {v0} credits must be earned at this university.",
             "residency requirement", ("minimum credits earned here", (60, 72, 90))),
    )),
))

INTEGRITY = TextSpec("Academic Integrity Guidelines", "handbook", (
    ChapterSpec("Principles of Academic Integrity", (
        "Honesty", "Responsibility", "Fairness", "Respect"), (
        define(("academic integrity", "Academic integrity means {v}.",
                "being honest and responsible in all academic work"),
               ("plagiarism", "Plagiarism is {v}.", "presenting another person's words or ideas as your own"),
               ("fabrication", "Fabrication is {v}.", "inventing data, sources or results"),
               ("collusion", "Collusion is {v}.", "working with others on work that must be done alone"),
               ("self-plagiarism", "Self-plagiarism is {v}.",
                "submitting your own earlier work again without permission"),
               ("contract cheating", "Contract cheating is {v}.",
                "having another person complete your work, paid or unpaid")),
        rule("The Integrity Pledge", "Every student signs the integrity pledge within {v0} days of enrolment.",
             "integrity pledge", ("deadline in days after enrolment", (7, 14, 30))),
        rule("Integrity Training",
             "New students complete an online integrity course of {v0} modules in their first semester.",
             "integrity course", ("number of modules", (3, 4, 5, 6))),
    )),
    ChapterSpec("Plagiarism", (
        "Recognising Plagiarism", "Similarity Checks", "Paraphrasing", "Common Knowledge"), (
        rule("Similarity Reports",
             "A submission with a similarity score above {v0} percent is reviewed by the instructor.",
             "similarity review", ("score threshold in percent", (15, 20, 25, 30))),
        rule("Long Quotations", "A quotation longer than {v0} words must be set as an indented block.",
             "long quotation", ("words before indenting", (40, 50, 60))),
        rule("Copied Phrases",
             "Reusing more than {v0} consecutive words from a source without quotation marks counts as plagiarism.",
             "copied phrase", ("maximum consecutive words", (5, 6, 8))),
        rule("Draft Checks", "Students may check a draft with the similarity tool at most {v0} times per assignment.",
             "draft similarity check", ("checks per assignment", (2, 3, 5))),
        define(("paraphrase", "A paraphrase is {v}.",
                "a restatement of a source's idea in your own words, still cited")),
    )),
    ChapterSpec("Citation and Referencing", (
        "Citation Styles", "Reference Lists", "Citing Software and Data", "Citing AI Tools"), (
        rule("Citation Style", "Course reports use the {v0} citation style unless the instructor says otherwise.",
             "course reports", ("citation style", ("APA", "IEEE", "Chicago", "Harvard"))),
        rule("Sources in Final Projects", "A final project report must cite at least {v0} sources.",
             "final project report", ("minimum sources", (5, 8, 10))),
        rule("Citing Code",
             "Code copied from an outside source must be cited in a comment and may make up at most {v0} percent of a programming assignment.",
             "outside code in assignments", ("maximum share in percent", (10, 20, 25))),
        define(("in-text citation", "An in-text citation is {v}.",
                "a short reference in the text that points to the full entry in the reference list"),
               ("reference list", "A reference list is {v}.",
                "the list at the end of a work that gives full details of every cited source")),
    )),
    ChapterSpec("Collaboration and Group Work", (
        "Permitted Collaboration", "Group Projects", "Peer Evaluation", "Sharing Code"), (
        rule("Group Size", "A group project has between {v0} and {v1} members.",
             "group project", ("minimum members", (2, 3)), ("maximum members", (4, 5, 6))),
        rule("Peer Evaluation",
             "Peer evaluation can change an individual's project grade by at most {v0} percent.",
             "peer evaluation", ("maximum grade change in percent", (10, 15, 20))),
        rule("Contribution Logs",
             "Each group member submits a contribution log within {v0} days after the project deadline.",
             "contribution log", ("deadline in days after the project deadline", (2, 3, 7))),
        rule("Sharing Code",
             "Sharing more than {v0} lines of source code with another student counts as collusion.",
             "code sharing", ("maximum lines", (5, 10, 20))),
    )),
    ChapterSpec("Conduct in Examinations", (
        "Permitted Materials", "Electronic Devices", "Identity Checks", "Leaving the Room"), (
        rule("Phones in Exams", "Phones must be switched off and kept at least {v0} metres from the desk.",
             "phones in exams", ("distance in metres", (2, 3, 5))),
        rule("Open-Book Notes", "An open-book exam allows at most {v0} pages of personal notes.",
             "open-book exam notes", ("maximum pages", (2, 4, 6))),
        rule("Leaving Early", "No student may leave an exam room during the first {v0} minutes.",
             "leaving an exam", ("minutes before leaving is allowed", (30, 45, 60))),
        rule("Talking in Exams", "Talking during an exam costs {v0} points at the first warning.",
             "talking in an exam", ("points deducted at the first warning", (5, 10))),
    )),
    ChapterSpec("Use of AI Tools", (
        "Permitted Uses", "Disclosure", "Prohibited Uses", "Checking Output"), (
        rule("Disclosure Statements",
             "When AI tools are allowed, their use must be disclosed in a statement of at most {v0} words.",
             "AI disclosure", ("maximum words", (100, 150, 200))),
        rule("Keeping Prompts", "Students must keep the prompts they used for {v0} days after submission.",
             "AI prompts", ("days kept after submission", (30, 60, 90))),
        rule("AI-Written Text",
             "Text produced by an AI tool may make up at most {v0} percent of a report when the instructor allows it.",
             "AI-written text", ("maximum share in percent", (10, 20, 30))),
        define(("AI disclosure statement", "An AI disclosure statement is {v}.",
                "a short note that says which AI tools were used and for what")),
    )),
    ChapterSpec("Penalties", (
        "First Offences", "Repeated Offences", "Serious Misconduct", "Records"), (
        rule("Late Submissions", "Late submissions lose {v0} percent of the grade per day, up to {v1} days.",
             "late submission", ("grade penalty per day in percent", (5, 10, 15)),
             ("maximum days late", (3, 5, 7))),
        rule("First Offence",
             "A first case of plagiarism gives zero for the assignment and a deduction of {v0} points from the course total.",
             "first plagiarism offence", ("points deducted from the course total", (5, 10))),
        rule("Suspension", "A student found responsible for {v0} separate offences is suspended for one semester.",
             "suspension for repeated offences", ("number of offences", (2, 3))),
        rule("Integrity Records", "Integrity records are kept for {v0} years after graduation.",
             "integrity record", ("years kept after graduation", (3, 5, 7))),
        rule("Cheating in Finals", "Cheating in a final exam leads to a suspension of {v0} semesters.",
             "cheating in a final exam", ("suspension in semesters", (2, 3))),
    )),
    ChapterSpec("Hearings and Appeals", (
        "Reporting a Case", "The Hearing Panel", "Decisions", "Appeals"), (
        rule("Reporting Deadline", "An instructor must report a suspected case within {v0} working days.",
             "integrity case report", ("working days", (5, 7, 10))),
        rule("Hearing Panels", "A hearing panel has {v0} members, one of whom is a student.",
             "hearing panel", ("members", (3, 5))),
        rule("Panel Decisions", "The student receives the panel's decision within {v0} days of the hearing.",
             "panel decision", ("days after the hearing", (5, 7, 10))),
        rule("Integrity Appeals", "An appeal must be lodged within {v0} days of the decision.",
             "integrity appeal", ("deadline in days", (10, 14, 21))),
        rule("Supporters", "A student may bring up to {v0} supporting people to the hearing.",
             "hearing supporters", ("maximum supporting people", (2, 3))),
    )),
))


def _programme(name: str) -> ChapterSpec:
    subject = f"{name} programme"
    return ChapterSpec(f"{name} Programme", (
        "Programme Overview", "Degree Requirements", "Core Curriculum", "Electives and Tracks",
        "Capstone and Internship", "Advising and Careers"), (
        rule("Credits to Graduate", f"The {name} programme requires {{v0}} credits for the bachelor's degree.",
             subject, ("credits required", (140, 150, 155, 160))),
        rule("Elective Credits", f"At least {{v0}} credits in the {name} programme must come from electives.",
             subject, ("minimum elective credits", (20, 24, 30, 36))),
        rule("Intake", f"The {name} programme admits about {{v0}} students each year.",
             subject, ("yearly intake", (60, 90, 120, 150, 180))),
        rule("Capstone Project", f"The capstone project of the {name} programme is worth {{v0}} credits.",
             subject, ("capstone credits", (4, 6, 8))),
        rule("Internship", f"Students in the {name} programme complete an internship of at least {{v0}} weeks.",
             subject, ("minimum internship weeks", (6, 8, 10, 12))),
        rule("Specialisation Tracks", f"The {name} programme offers {{v0}} specialisation tracks.",
             subject, ("number of tracks", (2, 3, 4))),
    ))


PROGRAMS = TextSpec("Academic Programs Guide", "handbook", tuple(_programme(name) for name in (
    "Computer Science and Technology", "Software Engineering", "Data Science",
    "Artificial Intelligence", "Communication Engineering", "Microelectronics", "Cybersecurity",
    "Digital Media Technology",
)))


# --------------------------------------------------------------------------------------
# Textbooks: computed facts
# --------------------------------------------------------------------------------------


def _dec(value: Fraction | int) -> str:
    """An exact decimal for a terminating fraction: ``15/2`` -> ``7.5``."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return str(Decimal(value.numerator) / Decimal(value.denominator))


def _lin(a: int, b: int, x: str = "x", y: str = "y") -> str:
    """``a*x + b*y`` written plainly, e.g. ``2x - 3y``."""
    first = f"{'-' if a < 0 else ''}{'' if abs(a) == 1 else abs(a)}{x}"
    return f"{first} {'-' if b < 0 else '+'} {'' if abs(b) == 1 else abs(b)}{y}"


def _matmul(a: Sequence[Sequence[int]], b: Sequence[Sequence[int]]) -> list[list[int]]:
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def _square(rng: random.Random, size: int, low: int = -4, high: int = 6) -> list[list[int]]:
    return [[rng.randint(low, high) for _ in range(size)] for _ in range(size)]


def _subset(rng: random.Random) -> list[int]:
    return rng.sample(range(1, 13), rng.randint(3, 7))


# Calculus ------------------------------------------------------------------------------

def _poly_at(rng: random.Random) -> dict[str, object]:
    a, b, c, x = _nonzero(rng, -4, 5), rng.randint(-6, 6), rng.randint(-9, 9), rng.randint(-3, 4)
    return {"f": _poly(a, b, c), "x": x, "v": a * x * x + b * x + c}


def _slope(rng: random.Random) -> dict[str, object]:
    x1, x2 = rng.sample(range(-5, 8), 2)
    y1, y2 = rng.randint(-9, 9), rng.randint(-9, 9)
    return {"p": _vec((x1, y1)), "q": _vec((x2, y2)), "v": _frac(Fraction(y2 - y1, x2 - x1))}


def _vertex(rng: random.Random) -> dict[str, object]:
    a, b, c = _nonzero(rng, -3, 4), rng.randint(-8, 8), rng.randint(-5, 5)
    return {"f": _poly(a, b, c), "v": _frac(Fraction(-b, 2 * a))}


def _compose2(rng: random.Random) -> dict[str, object]:
    a, b, c, d, k = (_nonzero(rng, -4, 5), rng.randint(-5, 5), _nonzero(rng, -3, 4),
                     rng.randint(-5, 5), rng.randint(-3, 4))
    return {"f": _poly(0, a, b), "g": _poly(0, c, d), "k": k, "v": a * (c * k + d) + b}


def _limit_infinity(rng: random.Random) -> dict[str, object]:
    a, b, c, d = _nonzero(rng, -6, 9), rng.randint(-9, 9), _nonzero(rng, 1, 8), rng.randint(-9, 9)
    return {"f": _poly(0, a, b), "g": _poly(0, c, d), "v": _frac(Fraction(a, c))}


def _removable(rng: random.Random) -> dict[str, object]:
    a = rng.randint(1, 9)
    return {"a": a, "a2": a * a, "v": 2 * a}


def _derivative_at(rng: random.Random) -> dict[str, object]:
    a, b, c, x = _nonzero(rng, -4, 5), rng.randint(-6, 6), rng.randint(-9, 9), rng.randint(-3, 4)
    return {"f": _poly(a, b, c), "x": x, "v": 2 * a * x + b}


def _power_rule(rng: random.Random) -> dict[str, object]:
    c, n = rng.randint(2, 9), rng.randint(3, 7)
    return {"c": c, "n": n, "v": f"{c * n}x^{n - 1}"}


def _product_rule(rng: random.Random) -> dict[str, object]:
    a, b, k = rng.randint(1, 9), rng.randint(1, 9), rng.randint(0, 5)
    return {"a": a, "b": b, "k": k, "v": 2 * k + a + b}


def _chain_rule(rng: random.Random) -> dict[str, object]:
    a, b, n, k = rng.randint(2, 3), rng.randint(1, 3), rng.randint(2, 3), rng.randint(0, 2)
    return {"a": a, "b": b, "n": n, "k": k, "v": n * a * (a * k + b) ** (n - 1)}


def _tangent(rng: random.Random) -> dict[str, object]:
    k = rng.randint(1, 6)
    return {"k": k, "v": _poly(0, 2 * k, -k * k)}


def _maximum(rng: random.Random) -> dict[str, object]:
    b, c = 2 * rng.randint(1, 6), rng.randint(-5, 9)
    return {"f": _poly(-1, b, c), "x": b // 2, "v": c + b * b // 4}


def _rectangle(rng: random.Random) -> dict[str, object]:
    side = rng.randint(2, 15)
    return {"p": 4 * side, "v": side * side}


def _critical(rng: random.Random) -> dict[str, object]:
    a = rng.randint(1, 5)
    return {"m": 3 * a * a, "v": a}


def _integral_linear(rng: random.Random) -> dict[str, object]:
    a, b, k = rng.randint(1, 5), rng.randint(-4, 6), rng.randint(1, 5)
    return {"f": _poly(0, 2 * a, b), "k": k, "v": a * k * k + b * k}


def _integral_square(rng: random.Random) -> dict[str, object]:
    k = rng.randint(1, 6)
    return {"k": k, "v": k ** 3}


def _antiderivative(rng: random.Random) -> dict[str, object]:
    m, n = rng.randint(2, 5), rng.randint(2, 5)
    return {"c": m * (n + 1), "n": n, "v": f"{m}x^{n + 1}"}


def _arithmetic_term(rng: random.Random) -> dict[str, object]:
    a, d, n = rng.randint(-5, 9), _nonzero(rng, -4, 6), rng.randint(8, 40)
    return {"s": f"{a}, {a + d}, {a + 2 * d}", "n": n, "v": a + (n - 1) * d}


def _arithmetic_sum(rng: random.Random) -> dict[str, object]:
    a, d, n = rng.randint(1, 9), rng.randint(1, 5), rng.randint(5, 20)
    return {"s": f"{a}, {a + d}, {a + 2 * d}", "n": n, "v": n * (2 * a + (n - 1) * d) // 2}


def _geometric_sum(rng: random.Random) -> dict[str, object]:
    a, r, n = rng.randint(1, 5), rng.choice((2, 3)), rng.randint(4, 8)
    return {"s": f"{a}, {a * r}, {a * r * r}", "n": n, "v": a * (r ** n - 1) // (r - 1)}


def _geometric_series(rng: random.Random) -> dict[str, object]:
    a, q = rng.randint(1, 9), rng.randint(2, 5)
    return {"a": a, "q": q, "v": _frac(Fraction(a * q, q - 1))}


CALCULUS = TextSpec("A First Course in Calculus", "textbook", (
    ChapterSpec("Functions and Graphs", (
        "Domains and Ranges", "Linear Functions", "Quadratic Functions", "Composition of Functions"), (
        calc("Evaluating Functions", "f({x}) for f(x) = {f}", "For f(x) = {f}, the value f({x}) is {v}.",
             "equals", _poly_at),
        calc("Slopes of Lines", "the slope of the line through {p} and {q}",
             "The slope of the line through {p} and {q} is {v}.", "equals", _slope),
        calc("Vertices of Parabolas", "the x-coordinate of the vertex of y = {f}",
             "The vertex of the parabola y = {f} lies at x = {v}.", "equals", _vertex),
        calc("Composing Functions", "f(g({k})) for f(x) = {f} and g(x) = {g}",
             "If f(x) = {f} and g(x) = {g}, then f(g({k})) = {v}.", "equals", _compose2),
        define(("function", "A function is {v}.", "a rule that assigns exactly one output to each input"),
               ("domain", "The domain of a function is {v}.", "the set of inputs for which it is defined")),
    )),
    ChapterSpec("Limits", ("Intuitive Limits", "Limit Laws", "Limits at Infinity", "One-Sided Limits"), (
        calc("Limits at Infinity", "the limit of ({f})/({g}) as x grows without bound",
             "As x grows without bound, ({f})/({g}) approaches {v}.", "equals", _limit_infinity),
        calc("Limits of Polynomials", "the limit of {f} as x approaches {x}",
             "The limit of {f} as x approaches {x} is {v}.", "equals", _poly_at),
        calc("Cancelling Factors", "the limit of (x^2 - {a2})/(x - {a}) as x approaches {a}",
             "The limit of (x^2 - {a2})/(x - {a}) as x approaches {a} is {v}.", "equals", _removable),
        define(("limit", "The limit of f(x) as x approaches a is {v}.",
                "the value that f(x) gets arbitrarily close to when x is close enough to a")),
    )),
    ChapterSpec("Continuity", (
        "Continuous Functions", "Types of Discontinuity", "The Intermediate Value Theorem",
        "Continuity on Intervals"), (
        calc("Removable Discontinuities", "the value that makes (x^2 - {a2})/(x - {a}) continuous at x = {a}",
             "Defining (x^2 - {a2})/(x - {a}) to be {v} at x = {a} removes its discontinuity.", "equals",
             _removable),
        calc("Values of Continuous Functions", "f({x}) for the continuous function f(x) = {f}",
             "The continuous function f(x) = {f} takes the value {v} at x = {x}.", "equals", _poly_at),
        define(("continuous function", "A function is continuous at a point when {v}.",
                "its limit there equals its value there"),
               ("intermediate value theorem", "The intermediate value theorem says that {v}.",
                "a continuous function on an interval takes every value between its values at the ends")),
    )),
    ChapterSpec("Derivatives", ("The Derivative as a Limit", "The Power Rule", "The Product Rule",
                                "Rates of Change"), (
        calc("Derivatives of Polynomials", "the derivative of f(x) = {f} at x = {x}",
             "The derivative of f(x) = {f} at x = {x} is {v}.", "equals", _derivative_at),
        calc("The Power Rule", "the derivative of {c}x^{n}",
             "By the power rule, the derivative of {c}x^{n} is {v}.", "equals", _power_rule),
        calc("The Product Rule", "the derivative of (x + {a})(x + {b}) at x = {k}",
             "The derivative of (x + {a})(x + {b}) at x = {k} is {v}.", "equals", _product_rule),
        define(("derivative", "The derivative of a function at a point is {v}.",
                "the instantaneous rate of change of the function there")),
    )),
    ChapterSpec("The Chain Rule and Its Uses", (
        "The Chain Rule", "Implicit Differentiation", "Related Rates", "Tangent Lines"), (
        calc("The Chain Rule", "the derivative of ({a}x + {b})^{n} at x = {k}",
             "The derivative of ({a}x + {b})^{n} at x = {k} is {v}.", "equals", _chain_rule),
        calc("Tangent Lines", "the tangent line to y = x^2 at x = {k}",
             "The tangent line to y = x^2 at x = {k} is y = {v}.", "equals", _tangent),
        define(("chain rule", "The chain rule says that {v}.",
                "the derivative of f(g(x)) is f'(g(x)) times g'(x)")),
    )),
    ChapterSpec("Optimisation", ("Critical Points", "Extreme Values", "Concavity", "Applied Problems"), (
        calc("Maximum Values", "the maximum value of f(x) = {f}",
             "The function f(x) = {f} reaches its maximum value {v} at x = {x}.", "equals", _maximum),
        calc("The Best Rectangle", "the largest area of a rectangle with perimeter {p}",
             "Among rectangles with perimeter {p}, the largest area is {v}, reached by a square.", "equals",
             _rectangle),
        calc("Critical Points", "the positive critical point of f(x) = x^3 - {m}x",
             "The critical points of f(x) = x^3 - {m}x are x = {v} and x = -{v}.", "equals", _critical),
        define(("critical point", "A critical point of a function is {v}.",
                "a point where its derivative is zero or does not exist")),
    )),
    ChapterSpec("Integrals", ("Antiderivatives", "Riemann Sums", "The Definite Integral",
                              "The Fundamental Theorem"), (
        calc("Definite Integrals", "the integral of {f} from 0 to {k}",
             "The integral of {f} from 0 to {k} is {v}.", "equals", _integral_linear),
        calc("Integrals of Squares", "the integral of 3x^2 from 0 to {k}",
             "The integral of 3x^2 from 0 to {k} is {v}.", "equals", _integral_square),
        calc("Antiderivatives", "an antiderivative of {c}x^{n}",
             "An antiderivative of {c}x^{n} is {v}.", "equals", _antiderivative),
        define(("definite integral", "The definite integral of a function over an interval is {v}.",
                "the signed area between its graph and the x-axis on that interval")),
    )),
    ChapterSpec("Sequences and Series", ("Arithmetic Sequences", "Geometric Sequences",
                                         "Sums of Series", "Convergence"), (
        calc("Arithmetic Sequences", "term number {n} of the arithmetic sequence that starts {s}",
             "Term number {n} of the arithmetic sequence that starts {s} is {v}.", "equals",
             _arithmetic_term),
        calc("Arithmetic Sums", "the sum of the first {n} terms of the arithmetic sequence that starts {s}",
             "The sum of the first {n} terms of the arithmetic sequence that starts {s} is {v}.", "equals",
             _arithmetic_sum),
        calc("Geometric Sums", "the sum of the first {n} terms of the geometric sequence that starts {s}",
             "The sum of the first {n} terms of the geometric sequence that starts {s} is {v}.", "equals",
             _geometric_sum),
        calc("Geometric Series", "the sum of the geometric series with first term {a} and ratio 1/{q}",
             "The geometric series with first term {a} and ratio 1/{q} adds up to {v}.", "equals",
             _geometric_series),
    )),
), course="Calculus I")


# Linear algebra ------------------------------------------------------------------------

def _two_vectors(rng: random.Random, size: int = 3) -> tuple[list[int], list[int]]:
    return ([rng.randint(-5, 9) for _ in range(size)], [rng.randint(-5, 9) for _ in range(size)])


def _vector_sum(rng: random.Random) -> dict[str, object]:
    a, b = _two_vectors(rng)
    return {"a": _vec(a), "b": _vec(b), "v": _vec([x + y for x, y in zip(a, b)])}


def _scalar_multiple(rng: random.Random) -> dict[str, object]:
    a, _ = _two_vectors(rng)
    k = rng.choice((-3, -2, 2, 3, 4, 5))
    return {"k": k, "a": _vec(a), "v": _vec([k * x for x in a])}


def _length(rng: random.Random) -> dict[str, object]:
    x, y, z = rng.choice(((3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25)))
    k = rng.randint(1, 3)
    return {"a": _vec((k * x, k * y)), "v": k * z}


def _dot(rng: random.Random) -> dict[str, object]:
    a, b = _two_vectors(rng)
    return {"a": _vec(a), "b": _vec(b), "v": sum(x * y for x, y in zip(a, b))}


def _orthogonal(rng: random.Random) -> dict[str, object]:
    p, q, k = _nonzero(rng, -5, 6), _nonzero(rng, -5, 6), _nonzero(rng, -3, 3)
    b = (-q * k, p * k) if rng.random() < 0.5 else (q * k, p * k)
    dot = p * b[0] + q * b[1]
    return {"a": _vec((p, q)), "b": _vec(b), "v": "orthogonal" if dot == 0 else "not orthogonal"}


def _product(rng: random.Random) -> dict[str, object]:
    a, b = _square(rng, 2), _square(rng, 2)
    return {"a": _mat(a), "b": _mat(b), "v": _mat(_matmul(a, b))}


def _trace(rng: random.Random) -> dict[str, object]:
    a = _square(rng, 3)
    return {"a": _mat(a), "v": sum(a[i][i] for i in range(3))}


def _transpose(rng: random.Random) -> dict[str, object]:
    a = [[rng.randint(-4, 9) for _ in range(3)] for _ in range(2)]
    return {"a": _mat(a), "v": _mat([list(col) for col in zip(*a)])}


def _system(rng: random.Random) -> dict[str, object]:
    x, y = rng.randint(-5, 6), rng.randint(-5, 6)
    while True:
        a, b, c, d = (_nonzero(rng, -5, 6) for _ in range(4))
        if a * d - b * c:
            break
    return {"e1": f"{_lin(a, b)} = {a * x + b * y}", "e2": f"{_lin(c, d)} = {c * x + d * y}",
            "v": f"x = {x}, y = {y}"}


def _det2(rng: random.Random) -> dict[str, object]:
    a = _square(rng, 2, -6, 9)
    return {"a": _mat(a), "v": a[0][0] * a[1][1] - a[0][1] * a[1][0]}


def _det_triangular(rng: random.Random) -> dict[str, object]:
    a = _square(rng, 3)
    for i in range(3):
        for j in range(i):
            a[i][j] = 0
    return {"a": _mat(a), "v": a[0][0] * a[1][1] * a[2][2]}


def _det_scaled(rng: random.Random) -> dict[str, object]:
    d, k = _nonzero(rng, -9, 12), rng.randint(2, 5)
    return {"d": d, "k": k, "v": k * k * d}


def _invertible(rng: random.Random) -> dict[str, object]:
    p, q, k = _nonzero(rng, -5, 6), rng.randint(-5, 6), _nonzero(rng, -3, 3)
    row = [k * p, k * q] if rng.random() < 0.5 else [k * p + 1, k * q]
    det = p * row[1] - q * row[0]
    return {"a": _mat([[p, q], row]), "v": "invertible" if det else "not invertible"}


def _inverse_diagonal(rng: random.Random) -> dict[str, object]:
    p, q = _nonzero(rng, -5, 9), _nonzero(rng, -5, 9)
    inverse = f"[[{_frac(Fraction(1, p))}, 0], [0, {_frac(Fraction(1, q))}]]"
    return {"a": _mat([[p, 0], [0, q]]), "v": inverse}


def _rank_diagonal(rng: random.Random) -> dict[str, object]:
    diagonal = [rng.choice((0, rng.randint(1, 9))) for _ in range(4)]
    rows = [[diagonal[i] if i == j else 0 for j in range(4)] for i in range(4)]
    return {"a": _mat(rows), "v": sum(1 for x in diagonal if x)}


def _eigen_triangular(rng: random.Random) -> dict[str, object]:
    p, r = rng.sample(range(-4, 10), 2)
    q = rng.randint(-5, 6)
    low, high = sorted((p, r))
    return {"a": _mat([[p, q], [0, r]]), "v": f"{low} and {high}"}


def _eigen_trace(rng: random.Random) -> dict[str, object]:
    p, q = rng.randint(-5, 9), rng.randint(-5, 9)
    return {"p": p, "q": q, "v": p + q}


def _eigen_det(rng: random.Random) -> dict[str, object]:
    p, q = rng.randint(-5, 9), rng.randint(-5, 9)
    return {"p": p, "q": q, "v": p * q}


LINEAR_ALGEBRA = TextSpec("Linear Algebra: Vectors, Matrices and Maps", "textbook", (
    ChapterSpec("Vectors", ("Vector Addition", "Scalar Multiplication", "Length of a Vector",
                            "Unit Vectors"), (
        calc("Adding Vectors", "the sum of {a} and {b}", "The sum of the vectors {a} and {b} is {v}.",
             "equals", _vector_sum),
        calc("Scaling Vectors", "{k} times the vector {a}", "The vector {k} times {a} is {v}.", "equals",
             _scalar_multiple),
        calc("Lengths of Vectors", "the length of the vector {a}", "The length of the vector {a} is {v}.",
             "equals", _length),
        define(("vector", "A vector in the plane is {v}.", "an ordered pair of numbers with a length and a direction"),
               ("linear combination", "A linear combination of vectors is {v}.",
                "a sum of the vectors, each multiplied by a number")),
    )),
    ChapterSpec("The Dot Product", ("Computing Dot Products", "Orthogonality", "Projections",
                                    "Angles Between Vectors"), (
        calc("Dot Products", "the dot product of {a} and {b}", "The dot product of {a} and {b} is {v}.",
             "equals", _dot),
        calc("Orthogonal Vectors", "whether {a} and {b} are orthogonal", "The vectors {a} and {b} are {v}.",
             "are", _orthogonal),
        define(("orthogonal vectors", "Two vectors are orthogonal when {v}.", "their dot product is zero")),
    )),
    ChapterSpec("Matrices", ("Matrix Notation", "Matrix Addition", "Matrix Multiplication", "The Transpose"), (
        calc("Matrix Products", "the product of {a} and {b}", "The product of {a} and {b} is {v}.", "equals",
             _product),
        calc("The Trace", "the trace of {a}", "The trace of the matrix {a} is {v}.", "equals", _trace),
        calc("Transposes", "the transpose of {a}", "The transpose of {a} is {v}.", "equals", _transpose),
        define(("matrix", "A matrix is {v}.", "a rectangular array of numbers arranged in rows and columns")),
    )),
    ChapterSpec("Linear Systems", ("Row Reduction", "Solving Two Equations", "Consistency",
                                   "Homogeneous Systems"), (
        calc("Solving Systems", "the solution of the system {e1} and {e2}",
             "The system {e1} and {e2} has the solution {v}.", "is", _system),
        define(("consistent system", "A linear system is consistent when {v}.", "it has at least one solution"),
               ("homogeneous system", "A homogeneous linear system is {v}.",
                "a system whose right-hand sides are all zero")),
    )),
    ChapterSpec("Determinants", ("Two by Two Determinants", "Triangular Matrices",
                                 "Properties of Determinants", "Invertibility"), (
        calc("Two by Two Determinants", "the determinant of {a}", "The determinant of {a} is {v}.",
             "equals", _det2),
        calc("Triangular Determinants", "the determinant of the triangular matrix {a}",
             "The determinant of the triangular matrix {a} is {v}.", "equals", _det_triangular),
        calc("Scaling a Determinant",
             "the determinant of {k} times a 2 by 2 matrix with determinant {d}",
             "If a 2 by 2 matrix has determinant {d}, then {k} times the matrix has determinant {v}.",
             "equals", _det_scaled),
    )),
    ChapterSpec("Inverse Matrices", ("Inverses", "Computing Inverses", "Elementary Matrices",
                                     "Solving with Inverses"), (
        calc("Invertible Matrices", "whether {a} is invertible", "The matrix {a} is {v}.", "is",
             _invertible),
        calc("Inverses of Diagonal Matrices", "the inverse of {a}", "The inverse of {a} is {v}.",
             "equals", _inverse_diagonal),
        define(("inverse matrix", "The inverse of a square matrix A is {v}.",
                "the matrix that gives the identity matrix when multiplied by A")),
    )),
    ChapterSpec("Vector Spaces", ("Subspaces", "Span", "Linear Independence", "Basis and Dimension"), (
        calc("Rank", "the rank of {a}", "The rank of the matrix {a} is {v}.", "equals", _rank_diagonal),
        define(("span", "The span of a set of vectors is {v}.", "the set of all their linear combinations"),
               ("basis", "A basis of a vector space is {v}.",
                "a linearly independent set of vectors that spans the space"),
               ("linearly independent", "Vectors are linearly independent when {v}.",
                "no one of them is a linear combination of the others")),
    )),
    ChapterSpec("Eigenvalues", ("Eigenvalues", "Eigenvectors", "Diagonalisation", "Applications"), (
        calc("Eigenvalues of Triangular Matrices", "the eigenvalues of {a}",
             "The eigenvalues of the matrix {a} are {v}.", "are", _eigen_triangular),
        calc("Trace and Eigenvalues", "the trace of a 2 by 2 matrix with eigenvalues {p} and {q}",
             "A 2 by 2 matrix with eigenvalues {p} and {q} has trace {v}.", "equals", _eigen_trace),
        calc("Determinant and Eigenvalues",
             "the determinant of a 2 by 2 matrix with eigenvalues {p} and {q}",
             "A 2 by 2 matrix with eigenvalues {p} and {q} has determinant {v}.", "equals", _eigen_det),
        define(("eigenvector", "An eigenvector of a matrix A is {v}.",
                "a nonzero vector that A maps to a multiple of itself")),
    )),
), course="Linear Algebra")


# Programming ---------------------------------------------------------------------------

WORDS = ("campus", "library", "python", "student", "algebra", "network", "lecture", "seminar",
         "compiler", "keyboard")


def _floor_division(rng: random.Random) -> dict[str, object]:
    a, b = rng.randint(10, 99), rng.randint(2, 9)
    return {"a": a, "b": b, "v": a // b}


def _modulo(rng: random.Random) -> dict[str, object]:
    a, b = rng.randint(10, 99), rng.randint(2, 9)
    return {"a": a, "b": b, "v": a % b}


def _power(rng: random.Random) -> dict[str, object]:
    a, b = rng.randint(2, 5), rng.randint(2, 4)
    return {"a": a, "b": b, "v": a ** b}


def _augmented(rng: random.Random) -> dict[str, object]:
    a, b, c = rng.randint(1, 9), rng.randint(1, 9), rng.randint(2, 4)
    return {"a": a, "b": b, "c": c, "v": (a + b) * c}


def _boolean(rng: random.Random) -> dict[str, object]:
    a, b, c, d = (rng.randint(1, 9) for _ in range(4))
    op = rng.choice(("and", "or"))
    value = (a > b and c < d) if op == "and" else (a > b or c < d)
    return {"a": a, "b": b, "c": c, "d": d, "op": op, "v": value}


def _branch(rng: random.Random) -> dict[str, object]:
    high, low = rng.randint(60, 90), rng.randint(20, 55)
    x = rng.randint(0, 100)
    label = "'high'" if x > high else "'mid'" if x > low else "'low'"
    return {"x": x, "h": high, "l": low, "v": label}


def _range_length(rng: random.Random) -> dict[str, object]:
    a, s = rng.randint(0, 9), rng.randint(2, 4)
    b = a + rng.randint(5, 30)
    return {"a": a, "b": b, "s": s, "v": len(range(a, b, s))}


def _range_sum(rng: random.Random) -> dict[str, object]:
    a = rng.randint(0, 5)
    b = a + rng.randint(3, 12)
    return {"a": a, "b": b, "v": sum(range(a, b))}


def _nested_loops(rng: random.Random) -> dict[str, object]:
    n, m = rng.randint(2, 9), rng.randint(2, 9)
    return {"n": n, "m": m, "v": n * m}


def _call(rng: random.Random) -> dict[str, object]:
    a, b, k = rng.randint(2, 9), rng.randint(-9, 9), rng.randint(-5, 9)
    return {"a": a, "b": b, "k": k, "v": a * k + b}


def _index(rng: random.Random) -> dict[str, object]:
    items = rng.sample(range(1, 60), rng.randint(4, 7))
    i = rng.randint(-len(items), len(items) - 1)
    return {"l": "[" + ", ".join(map(str, items)) + "]", "i": i, "v": items[i]}


def _slice(rng: random.Random) -> dict[str, object]:
    items = rng.sample(range(1, 60), rng.randint(5, 7))
    i = rng.randint(0, 2)
    j = rng.randint(i + 1, len(items))
    return {"l": "[" + ", ".join(map(str, items)) + "]", "i": i, "j": j,
            "v": "[" + ", ".join(map(str, items[i:j])) + "]"}


def _append(rng: random.Random) -> dict[str, object]:
    n, k = rng.randint(2, 9), rng.randint(2, 6)
    return {"n": n, "k": k, "v": n + k}


def _word_length(rng: random.Random) -> dict[str, object]:
    word = rng.choice(WORDS)
    return {"w": word, "v": len(word)}


def _word_slice(rng: random.Random) -> dict[str, object]:
    word = rng.choice(WORDS)
    i = rng.randint(0, 3)
    j = rng.randint(i + 1, len(word))
    return {"w": word, "i": i, "j": j, "v": f"'{word[i:j]}'"}


def _word_find(rng: random.Random) -> dict[str, object]:
    word = rng.choice(WORDS)
    letter = rng.choice(word + "z")
    return {"w": word, "c": letter, "v": word.find(letter)}


def _index_error(rng: random.Random) -> dict[str, object]:
    n = rng.randint(3, 12)
    return {"n": n, "v": "IndexError"}


PROGRAMMING = TextSpec("Programming from First Principles", "textbook", (
    ChapterSpec("Values and Expressions", ("Numbers", "Strings", "Booleans", "Operators"), (
        calc("Floor Division", "the Python expression {a} // {b}",
             "In Python, the expression {a} // {b} evaluates to {v}.", "evaluates to", _floor_division),
        calc("The Remainder Operator", "the Python expression {a} % {b}",
             "In Python, the expression {a} % {b} evaluates to {v}.", "evaluates to", _modulo),
        calc("Powers", "the Python expression {a} ** {b}",
             "In Python, the expression {a} ** {b} evaluates to {v}.", "evaluates to", _power),
        define(("expression", "An expression is {v}.", "a piece of code that produces a value")),
    )),
    ChapterSpec("Variables and Assignment", ("Naming Variables", "Assignment", "Augmented Assignment",
                                             "Swapping Values"), (
        calc("Augmented Assignment", "x after x = {a}, x += {b} and x *= {c}",
             "After x = {a}, then x += {b} and x *= {c}, the variable x holds {v}.", "equals",
             _augmented),
        define(("variable", "A variable is {v}.", "a name that refers to a value stored in memory"),
               ("assignment", "An assignment statement is {v}.",
                "a statement that binds a name to the value of an expression")),
    )),
    ChapterSpec("Conditionals", ("If Statements", "Else and Elif", "Comparison Operators", "Boolean Logic"), (
        calc("Boolean Operators", "the Python expression {a} > {b} {op} {c} < {d}",
             "The expression {a} > {b} {op} {c} < {d} evaluates to {v}.", "evaluates to", _boolean),
        calc("Choosing a Branch", "the label for x = {x} with thresholds {h} and {l}",
             "With x = {x}, a rule that gives 'high' above {h}, 'mid' above {l} and 'low' otherwise gives {v}.",
             "gives", _branch),
    )),
    ChapterSpec("Loops", ("While Loops", "For Loops", "Ranges", "Nested Loops"), (
        calc("Counting a Range", "the number of values in range({a}, {b}, {s})",
             "The call range({a}, {b}, {s}) produces {v} numbers.", "equals", _range_length),
        calc("Summing a Range", "the Python expression sum(range({a}, {b}))",
             "The expression sum(range({a}, {b})) evaluates to {v}.", "evaluates to", _range_sum),
        calc("Nested Loops", "the number of passes of a loop over range({m}) inside a loop over range({n})",
             "A loop over range({m}) inside a loop over range({n}) runs its body {v} times.", "equals",
             _nested_loops),
    )),
    ChapterSpec("Functions", ("Defining Functions", "Parameters", "Return Values", "Scope"), (
        calc("Calling Functions", "f({k}) for f(x) returning {a} * x + {b}",
             "If f(x) returns {a} * x + {b}, the call f({k}) returns {v}.", "returns", _call),
        define(("parameter", "A parameter is {v}.", "a name in a function definition that receives an argument"),
               ("return value", "A return value is {v}.", "the result a function hands back to its caller")),
    )),
    ChapterSpec("Lists", ("Creating Lists", "Indexing", "Slicing", "List Methods"), (
        calc("Indexing Lists", "items[{i}] for items = {l}",
             "For items = {l}, the expression items[{i}] is {v}.", "equals", _index),
        calc("Slicing Lists", "items[{i}:{j}] for items = {l}",
             "For items = {l}, the slice items[{i}:{j}] is {v}.", "equals", _slice),
        calc("Appending", "the length of a list of {n} items after {k} appends",
             "A list of {n} items holds {v} items after {k} calls to append.", "equals", _append),
    )),
    ChapterSpec("Strings", ("String Indexing", "String Methods", "Formatting", "Searching Text"), (
        calc("String Length", "the Python expression len('{w}')",
             "The expression len('{w}') evaluates to {v}.", "evaluates to", _word_length),
        calc("String Slices", "the Python expression '{w}'[{i}:{j}]",
             "The expression '{w}'[{i}:{j}] evaluates to {v}.", "evaluates to", _word_slice),
        calc("Searching Strings", "the Python expression '{w}'.find('{c}')",
             "The expression '{w}'.find('{c}') evaluates to {v}.", "evaluates to", _word_find),
    )),
    ChapterSpec("Debugging and Testing", ("Reading Errors", "Assertions", "Test Cases", "Common Mistakes"), (
        calc("Index Errors", "reading index {n} of a list with {n} items",
             "Reading index {n} of a list with {n} items raises an {v}.", "raises", _index_error),
        define(("syntax error", "A syntax error is {v}.", "a mistake in the form of the code that stops it from running"),
               ("off-by-one error", "An off-by-one error is {v}.",
                "a loop or index that goes one step too far or stops one step too early"),
               ("unit test", "A unit test is {v}.", "a small check that one piece of code gives the expected result")),
    )),
), course="Programming Fundamentals")


# Introduction to computer science ------------------------------------------------------

def _binary(rng: random.Random) -> dict[str, object]:
    n = rng.randint(5, 255)
    return {"n": n, "v": format(n, "b")}


def _hexadecimal(rng: random.Random) -> dict[str, object]:
    n = rng.randint(16, 4095)
    return {"n": n, "v": format(n, "X")}


def _bit_values(rng: random.Random) -> dict[str, object]:
    n = rng.randint(2, 16)
    return {"n": n, "v": 2 ** n}


def _ascii(rng: random.Random) -> dict[str, object]:
    letter = chr(rng.randint(ord("A"), ord("Z")))
    return {"c": letter, "v": ord(letter)}


def _kibibytes(rng: random.Random) -> dict[str, object]:
    n = rng.randint(2, 64)
    return {"n": n, "v": n * 1024}


def _cycles(rng: random.Random) -> dict[str, object]:
    g, s = rng.randint(1, 5), rng.randint(2, 10)
    return {"g": g, "s": s, "v": g * s}


def _linear_search(rng: random.Random) -> dict[str, object]:
    n = rng.randint(10, 5000)
    return {"n": n, "v": n}


def _binary_search(rng: random.Random) -> dict[str, object]:
    n = rng.randint(10, 100000)
    return {"n": n, "v": n.bit_length()}


def _bubble_passes(rng: random.Random) -> dict[str, object]:
    n = rng.randint(5, 100)
    return {"n": n, "v": n - 1}


def _gate(rng: random.Random) -> dict[str, object]:
    gate, a, b = rng.choice(("AND", "OR", "XOR")), rng.randint(0, 1), rng.randint(0, 1)
    value = {"AND": a & b, "OR": a | b, "XOR": a ^ b}[gate]
    return {"g": gate, "a": a, "b": b, "v": value}


def _truth_rows(rng: random.Random) -> dict[str, object]:
    n = rng.randint(2, 6)
    return {"n": n, "v": 2 ** n}


def _round_robin(rng: random.Random) -> dict[str, object]:
    n, q = rng.randint(2, 12), rng.choice((5, 10, 20, 25, 50))
    return {"n": n, "q": q, "v": n * q}


def _transfer(rng: random.Random) -> dict[str, object]:
    r, t = rng.choice((10, 20, 50, 100)), rng.randint(2, 30)
    return {"m": r * t, "r": r, "v": t}


def _cells(rng: random.Random) -> dict[str, object]:
    r, c = rng.randint(3, 200), rng.randint(2, 12)
    return {"r": r, "c": c, "v": r * c}


def _pin(rng: random.Random) -> dict[str, object]:
    n = rng.randint(3, 8)
    return {"n": n, "v": 10 ** n}


COMPUTING = TextSpec("A Tour of Computing", "textbook", (
    ChapterSpec("Information and Bits", ("Bits and Bytes", "Binary Numbers", "Hexadecimal", "Text Encoding"), (
        calc("Binary Numbers", "the decimal number {n} in binary",
             "The decimal number {n} is written {v} in binary.", "is written", _binary),
        calc("Hexadecimal Numbers", "the decimal number {n} in hexadecimal",
             "The decimal number {n} is written {v} in hexadecimal.", "is written", _hexadecimal),
        calc("Counting with Bits", "the number of values {n} bits can represent",
             "With {n} bits, a computer can represent {v} different values.", "equals", _bit_values),
        calc("Character Codes", "the ASCII code of the capital letter {c}",
             "In ASCII, the capital letter {c} has the code {v}.", "equals", _ascii),
    )),
    ChapterSpec("Computer Hardware", ("The Processor", "Memory", "Storage", "Input and Output"), (
        calc("Memory Sizes", "the number of bytes in {n} kibibytes", "{n} kibibytes are {v} bytes.",
             "equals", _kibibytes),
        calc("Clock Speed", "the billions of cycles a {g} GHz processor completes in {s} seconds",
             "A processor running at {g} GHz completes {v} billion cycles in {s} seconds.", "equals",
             _cycles),
        define(("processor", "The processor is {v}.", "the part of a computer that carries out instructions"),
               ("main memory", "Main memory is {v}.",
                "fast storage that holds running programs and their data while the power is on")),
    )),
    ChapterSpec("Algorithms", ("What Is an Algorithm", "Pseudocode", "Searching", "Sorting"), (
        calc("Linear Search", "the most comparisons a linear search through {n} items makes",
             "A linear search through {n} items makes at most {v} comparisons.", "equals", _linear_search),
        calc("Binary Search", "the most comparisons a binary search through {n} sorted items makes",
             "A binary search through a sorted list of {n} items makes at most {v} comparisons.", "equals",
             _binary_search),
        calc("Bubble Sort", "the most passes bubble sort needs for {n} items",
             "Bubble sort needs at most {v} passes to sort {n} items.", "equals", _bubble_passes),
        define(("algorithm", "An algorithm is {v}.", "a finite sequence of precise steps that solves a problem")),
    )),
    ChapterSpec("Logic and Circuits", ("Logic Gates", "Truth Tables", "Boolean Algebra", "Adders"), (
        calc("Logic Gates", "the output of an {g} gate with inputs {a} and {b}",
             "An {g} gate with inputs {a} and {b} outputs {v}.", "equals", _gate),
        calc("Truth Tables", "the number of rows in a truth table for {n} inputs",
             "A truth table for {n} inputs has {v} rows.", "equals", _truth_rows),
        define(("logic gate", "A logic gate is {v}.", "a circuit that computes a Boolean function of its inputs")),
    )),
    ChapterSpec("Operating Systems", ("Processes", "Scheduling", "Files", "Memory Management"), (
        calc("Round-Robin Scheduling",
             "the length of one round-robin cycle with {n} processes and a {q} millisecond time slice",
             "With {n} processes and a time slice of {q} milliseconds, one full round-robin cycle takes {v} milliseconds.",
             "equals", _round_robin),
        define(("operating system", "An operating system is {v}.",
                "the software that manages the hardware and runs other programs"),
               ("process", "A process is {v}.", "a program while it is running, with its own memory")),
    )),
    ChapterSpec("Networks and the Internet", ("Packets", "Addresses", "Protocols", "The Web"), (
        calc("Transfer Times", "the seconds needed to send {m} megabits over a {r} megabit per second link",
             "Sending {m} megabits over a {r} megabit per second link takes {v} seconds.", "equals",
             _transfer),
        define(("protocol", "A network protocol is {v}.", "a set of rules for how computers exchange messages"),
               ("IPv4 address", "An IPv4 address is {v}.", "a number of 32 bits, written as four numbers from 0 to 255")),
    )),
    ChapterSpec("Data and Databases", ("Tables and Records", "Keys", "Queries", "Data Quality"), (
        calc("Table Sizes", "the number of cells in a table with {r} rows and {c} columns",
             "A table with {r} rows and {c} columns holds {v} cells.", "equals", _cells),
        define(("primary key", "A primary key is {v}.", "a column whose value identifies each row of a table"),
               ("query", "A query is {v}.", "a request that selects or changes data in a database")),
    )),
    ChapterSpec("Computing and Society", ("Privacy", "Security", "Ethics", "Careers"), (
        calc("Guessing PINs", "the number of possible PINs with {n} digits",
             "A PIN of {n} digits has {v} possible values.", "equals", _pin),
        define(("phishing", "Phishing is {v}.", "tricking people into revealing passwords or other secrets"),
               ("encryption", "Encryption is {v}.", "turning data into a form that only key holders can read")),
    )),
), course="Introduction to Computer Science")


# Discrete mathematics ------------------------------------------------------------------

def _sets(rng: random.Random) -> tuple[list[int], list[int]]:
    return _subset(rng), _subset(rng)


def _union(rng: random.Random) -> dict[str, object]:
    a, b = _sets(rng)
    return {"a": _set(a), "b": _set(b), "v": len(set(a) | set(b))}


def _intersection(rng: random.Random) -> dict[str, object]:
    a, b = _sets(rng)
    return {"a": _set(a), "b": _set(b), "v": len(set(a) & set(b))}


def _jaccard(rng: random.Random) -> dict[str, object]:
    a, b = _sets(rng)
    return {"a": _set(a), "b": _set(b), "v": _frac(Fraction(len(set(a) & set(b)), len(set(a) | set(b))))}


def _implication(rng: random.Random) -> dict[str, object]:
    p, q = rng.choice((True, False)), rng.choice((True, False))
    return {"p": p, "q": q, "v": (not p) or q}


def _triangular(rng: random.Random) -> dict[str, object]:
    n = rng.randint(5, 200)
    return {"n": n, "v": n * (n + 1) // 2}


def _odd_sum(rng: random.Random) -> dict[str, object]:
    n = rng.randint(3, 50)
    return {"n": n, "v": n * n}


def _gcd(rng: random.Random) -> dict[str, object]:
    g = rng.randint(2, 12)
    a, b = g * rng.randint(2, 15), g * rng.randint(2, 15)
    return {"a": a, "b": b, "v": math.gcd(a, b)}


def _lcm(rng: random.Random) -> dict[str, object]:
    a, b = rng.randint(2, 20), rng.randint(2, 20)
    return {"a": a, "b": b, "v": math.lcm(a, b)}


def _mod(rng: random.Random) -> dict[str, object]:
    a, m = rng.randint(20, 500), rng.randint(3, 13)
    return {"a": a, "m": m, "v": a % m}


def _choose(rng: random.Random) -> dict[str, object]:
    n = rng.randint(4, 15)
    k = rng.randint(2, n - 1)
    return {"n": n, "k": k, "v": math.comb(n, k)}


def _arrange(rng: random.Random) -> dict[str, object]:
    n = rng.randint(4, 10)
    k = rng.randint(2, 4)
    return {"n": n, "k": k, "v": math.perm(n, k)}


def _outfits(rng: random.Random) -> dict[str, object]:
    a, b = rng.randint(2, 12), rng.randint(2, 8)
    return {"a": a, "b": b, "v": a * b}


def _pigeonhole(rng: random.Random) -> dict[str, object]:
    n = rng.randint(3, 12)
    m = n * rng.randint(1, 4) + rng.randint(1, n - 1)
    return {"m": m, "n": n, "v": -(-m // n)}


def _function_count(rng: random.Random) -> dict[str, object]:
    m, n = rng.randint(2, 4), rng.randint(2, 5)
    return {"m": m, "n": n, "v": n ** m}


def _complete_edges(rng: random.Random) -> dict[str, object]:
    n = rng.randint(3, 30)
    return {"n": n, "v": n * (n - 1) // 2}


def _handshake(rng: random.Random) -> dict[str, object]:
    e = rng.randint(3, 60)
    return {"s": 2 * e, "v": e}


def _tree_edges(rng: random.Random) -> dict[str, object]:
    n = rng.randint(3, 500)
    return {"n": n, "v": n - 1}


def _fibonacci(rng: random.Random) -> dict[str, object]:
    n = rng.randint(6, 30)
    a, b = 1, 1
    for _ in range(n - 2):
        a, b = b, a + b
    return {"n": n, "v": b}


def _hanoi(rng: random.Random) -> dict[str, object]:
    n = rng.randint(3, 12)
    return {"n": n, "v": 2 ** n - 1}


DISCRETE = TextSpec("Discrete Structures for Computing", "textbook", (
    ChapterSpec("Sets", ("Set Notation", "Union and Intersection", "Subsets", "Similarity of Sets"), (
        calc("Unions", "the number of elements in the union of {a} and {b}",
             "The number of elements in the union of {a} and {b} is {v}.", "equals", _union),
        calc("Intersections", "the number of elements in the intersection of {a} and {b}",
             "The number of elements in the intersection of {a} and {b} is {v}.", "equals", _intersection),
        calc("The Jaccard Index", "the Jaccard index of {a} and {b}",
             "The Jaccard index of {a} and {b} is {v}.", "equals", _jaccard),
        define(("Jaccard index", "The Jaccard index of two sets is {v}.",
                "the size of their intersection divided by the size of their union"),
               ("subset", "A set A is a subset of B when {v}.", "every element of A is also an element of B")),
    )),
    ChapterSpec("Logic", ("Propositions", "Connectives", "Truth Tables", "Implication"), (
        calc("Implication", "the truth value of p -> q when p is {p} and q is {q}",
             "If p is {p} and q is {q}, the implication p -> q is {v}.", "is", _implication),
        calc("Sizes of Truth Tables", "the number of rows in a truth table for a formula with {n} variables",
             "A truth table for a formula with {n} variables has {v} rows.", "equals", _truth_rows),
        define(("proposition", "A proposition is {v}.", "a statement that is either true or false")),
    )),
    ChapterSpec("Proofs", ("Direct Proof", "Proof by Contradiction", "Induction", "Counterexamples"), (
        calc("Sums of Integers", "the sum of the integers from 1 to {n}",
             "The sum of the integers from 1 to {n} is {v}.", "equals", _triangular),
        calc("Sums of Odd Numbers", "the sum of the first {n} odd numbers",
             "The sum of the first {n} odd numbers is {v}.", "equals", _odd_sum),
        define(("counterexample", "A counterexample is {v}.", "a single case that shows a general claim is false")),
    )),
    ChapterSpec("Number Theory", ("Divisibility", "Greatest Common Divisors", "Least Common Multiples",
                                  "Modular Arithmetic"), (
        calc("Greatest Common Divisors", "the greatest common divisor of {a} and {b}",
             "The greatest common divisor of {a} and {b} is {v}.", "equals", _gcd),
        calc("Least Common Multiples", "the least common multiple of {a} and {b}",
             "The least common multiple of {a} and {b} is {v}.", "equals", _lcm),
        calc("Remainders", "{a} mod {m}", "The remainder of {a} divided by {m} is {v}.", "equals", _mod),
    )),
    ChapterSpec("Counting", ("The Product Rule", "Permutations", "Combinations", "The Pigeonhole Principle"), (
        calc("Combinations", "the number of ways to choose {k} of {n} items when order does not matter",
             "There are {v} ways to choose {k} of {n} items when order does not matter.", "equals",
             _choose),
        calc("Permutations", "the number of ways to arrange {k} of {n} items in order",
             "There are {v} ways to arrange {k} of {n} items in order.", "equals", _arrange),
        calc("The Product Rule", "the number of outfits from {a} shirts and {b} pairs of trousers",
             "A student with {a} shirts and {b} pairs of trousers can make {v} different outfits.", "equals",
             _outfits),
        calc("The Pigeonhole Principle", "the least number of letters in the fullest of {n} mailboxes holding {m} letters",
             "If {m} letters go into {n} mailboxes, some mailbox holds at least {v} letters.", "equals",
             _pigeonhole),
    )),
    ChapterSpec("Relations and Functions", ("Relations", "Equivalence Relations", "Functions", "Bijections"), (
        calc("Counting Functions", "the number of functions from a set of {m} elements to a set of {n} elements",
             "There are {v} functions from a set of {m} elements to a set of {n} elements.", "equals",
             _function_count),
        define(("bijection", "A bijection is {v}.", "a function that is both one-to-one and onto"),
               ("equivalence relation", "An equivalence relation is {v}.",
                "a relation that is reflexive, symmetric and transitive")),
    )),
    ChapterSpec("Graphs", ("Graph Terms", "Degrees", "Paths and Cycles", "Trees"), (
        calc("Complete Graphs", "the number of edges of the complete graph on {n} vertices",
             "The complete graph on {n} vertices has {v} edges.", "equals", _complete_edges),
        calc("The Handshake Lemma", "the number of edges of a graph whose degrees add up to {s}",
             "A graph whose vertex degrees add up to {s} has {v} edges.", "equals", _handshake),
        calc("Trees", "the number of edges of a tree with {n} vertices",
             "A tree with {n} vertices has {v} edges.", "equals", _tree_edges),
    )),
    ChapterSpec("Recurrences", ("Recursive Definitions", "Fibonacci Numbers", "Solving Recurrences",
                                "The Towers of Hanoi"), (
        calc("Fibonacci Numbers", "the Fibonacci number F({n}) with F(1) = F(2) = 1",
             "With F(1) = F(2) = 1, the Fibonacci number F({n}) is {v}.", "equals", _fibonacci),
        calc("The Towers of Hanoi", "the least number of moves for a Towers of Hanoi puzzle with {n} disks",
             "Moving a tower of {n} disks in the Towers of Hanoi takes at least {v} moves.", "equals", _hanoi),
        define(("recurrence relation", "A recurrence relation is {v}.",
                "an equation that defines each term of a sequence from earlier terms")),
    )),
), course="Discrete Mathematics")


# Probability and statistics ------------------------------------------------------------

def _data(rng: random.Random, size: int) -> list[int]:
    return [rng.randint(1, 30) for _ in range(size)]


def _show(values: Sequence[int]) -> str:
    return ", ".join(map(str, values))


def _mean(rng: random.Random) -> dict[str, object]:
    size = rng.randint(4, 7)
    values = _data(rng, size)
    values[-1] += (-sum(values)) % size
    return {"d": _show(values), "v": sum(values) // size}


def _median(rng: random.Random) -> dict[str, object]:
    values = _data(rng, rng.choice((5, 7)))
    return {"d": _show(values), "v": sorted(values)[len(values) // 2]}


def _spread(rng: random.Random) -> dict[str, object]:
    values = _data(rng, rng.randint(5, 8))
    return {"d": _show(values), "v": max(values) - min(values)}


def _variance(rng: random.Random) -> dict[str, object]:
    values = _data(rng, rng.randint(3, 5))
    mean = Fraction(sum(values), len(values))
    variance = Fraction(sum((x - mean) ** 2 for x in values), len(values))
    return {"d": _show(values), "v": _frac(variance)}


def _dice(rng: random.Random) -> dict[str, object]:
    total = rng.randint(2, 12)
    ways = sum(1 for a in range(1, 7) for b in range(1, 7) if a + b == total)
    return {"s": total, "v": _frac(Fraction(ways, 36))}


def _complement(rng: random.Random) -> dict[str, object]:
    q = rng.randint(3, 12)
    p = Fraction(rng.randint(1, q - 1), q)
    return {"p": _frac(p), "v": _frac(1 - p)}


def _all_heads(rng: random.Random) -> dict[str, object]:
    n = rng.randint(2, 8)
    return {"n": n, "v": _frac(Fraction(1, 2 ** n))}


def _conditional(rng: random.Random) -> dict[str, object]:
    b = rng.randint(2, 9)
    ab = rng.randint(1, b)
    return {"ab": _frac(Fraction(ab, 10)), "b": _frac(Fraction(b, 10)), "v": _frac(Fraction(ab, b))}


def _independent(rng: random.Random) -> dict[str, object]:
    pa, pb = Fraction(1, rng.randint(2, 6)), Fraction(rng.randint(1, 3), rng.randint(4, 8))
    return {"pa": _frac(pa), "pb": _frac(pb), "v": _frac(pa * pb)}


def _die_mean(rng: random.Random) -> dict[str, object]:
    n = rng.choice((4, 6, 8, 10, 12, 20))
    return {"n": n, "v": _dec(Fraction(n + 1, 2))}


def _linearity(rng: random.Random) -> dict[str, object]:
    m, a, b = rng.randint(-5, 12), rng.randint(2, 6), rng.randint(-9, 9)
    return {"m": m, "a": a, "b": b, "v": a * m + b}


def _binomial_mean(rng: random.Random) -> dict[str, object]:
    q = rng.choice((2, 4, 5, 10))
    n = q * rng.randint(2, 20)
    p = Fraction(rng.randint(1, q - 1), q)
    return {"n": n, "p": _frac(p), "v": _frac(n * p)}


def _heads_ways(rng: random.Random) -> dict[str, object]:
    n = rng.randint(4, 12)
    k = rng.randint(2, n - 1)
    return {"n": n, "k": k, "v": math.comb(n, k)}


def _standard_error(rng: random.Random) -> dict[str, object]:
    root = rng.randint(2, 10)
    sigma = root * rng.randint(1, 6)
    return {"n": root * root, "s": sigma, "v": _frac(Fraction(sigma, root))}


def _decision(rng: random.Random) -> dict[str, object]:
    p = rng.choice(("0.001", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.3"))
    return {"p": p, "v": "rejected" if Fraction(p) < Fraction(1, 20) else "not rejected"}


STATISTICS = TextSpec("Reasoning with Data and Chance", "textbook", (
    ChapterSpec("Describing Data", ("The Mean", "The Median", "The Range", "Choosing a Summary"), (
        calc("The Mean", "the mean of {d}", "The mean of the data {d} is {v}.", "equals", _mean),
        calc("The Median", "the median of {d}", "The median of the data {d} is {v}.", "equals", _median),
        calc("The Range", "the range of {d}", "The range of the data {d} is {v}.", "equals", _spread),
        define(("median", "The median of a data set is {v}.", "the middle value once the data are sorted")),
    )),
    ChapterSpec("Measuring Spread", ("Variance", "Standard Deviation", "Quartiles", "Outliers"), (
        calc("Population Variance", "the population variance of {d}",
             "The population variance of the data {d} is {v}.", "equals", _variance),
        define(("variance", "The variance of a data set is {v}.",
                "the mean of the squared distances of the values from their mean"),
               ("outlier", "An outlier is {v}.", "a value far away from most of the other values")),
    )),
    ChapterSpec("Probability Basics", ("Sample Spaces", "Events", "Equally Likely Outcomes", "Complements"), (
        calc("Rolling Two Dice", "the probability that two fair dice show a total of {s}",
             "The probability that two fair dice show a total of {s} is {v}.", "equals", _dice),
        calc("Complements", "the probability of the complement of an event with probability {p}",
             "If an event has probability {p}, its complement has probability {v}.", "equals", _complement),
        calc("Repeated Coin Tosses", "the probability of {n} heads in {n} tosses of a fair coin",
             "The probability of {n} heads in {n} tosses of a fair coin is {v}.", "equals", _all_heads),
    )),
    ChapterSpec("Conditional Probability", ("Conditioning", "Independence", "Bayes' Rule", "Tree Diagrams"), (
        calc("Conditional Probability", "P(A given B) when P(A and B) = {ab} and P(B) = {b}",
             "If P(A and B) = {ab} and P(B) = {b}, then P(A given B) = {v}.", "equals", _conditional),
        calc("Independent Events", "P(A and B) for independent events with P(A) = {pa} and P(B) = {pb}",
             "For independent events with P(A) = {pa} and P(B) = {pb}, P(A and B) = {v}.", "equals",
             _independent),
        define(("independent events", "Two events are independent when {v}.",
                "the probability of both is the product of their probabilities")),
    )),
    ChapterSpec("Random Variables", ("Discrete Variables", "Expected Value", "Variance of a Variable",
                                     "Linearity"), (
        calc("Expected Value of a Die", "the expected value of a fair die with faces 1 to {n}",
             "The expected value of a fair die with faces numbered 1 to {n} is {v}.", "equals", _die_mean),
        calc("Linearity of Expectation", "E[{a}X + {b}] when E[X] = {m}",
             "If E[X] = {m}, then E[{a}X + {b}] = {v}.", "equals", _linearity),
        define(("random variable", "A random variable is {v}.",
                "a number whose value depends on the outcome of a random experiment")),
    )),
    ChapterSpec("Common Distributions", ("Bernoulli Trials", "The Binomial Distribution",
                                         "The Uniform Distribution", "The Normal Distribution"), (
        calc("Binomial Means", "the mean of a binomial variable with n = {n} and p = {p}",
             "A binomial variable with n = {n} and p = {p} has mean {v}.", "equals", _binomial_mean),
        calc("Counting Outcomes", "the number of ways to get exactly {k} heads in {n} tosses",
             "There are {v} ways to get exactly {k} heads in {n} coin tosses.", "equals", _heads_ways),
        define(("68-95-99.7 rule", "The 68-95-99.7 rule says that {v}.",
                "about 68 percent of a normal distribution lies within one standard deviation of the mean")),
    )),
    ChapterSpec("Sampling and Estimation", ("Samples", "The Sample Mean", "Standard Error",
                                            "Confidence Intervals"), (
        calc("Standard Error",
             "the standard error of the mean for a sample of {n} from a population with standard deviation {s}",
             "For a sample of {n} from a population with standard deviation {s}, the standard error of the mean is {v}.",
             "equals", _standard_error),
        define(("sample", "A sample is {v}.", "a part of a population chosen to learn about the whole")),
    )),
    ChapterSpec("Hypothesis Testing", ("Null Hypotheses", "P-Values", "Significance Levels", "Errors"), (
        calc("Reading P-Values", "the null hypothesis at significance level 0.05 with a p-value of {p}",
             "At significance level 0.05, a p-value of {p} means the null hypothesis is {v}.", "is", _decision),
        define(("type I error", "A type I error is {v}.", "rejecting a null hypothesis that is true"),
               ("p-value", "A p-value is {v}.",
                "the probability of data at least as extreme as those seen if the null hypothesis holds")),
    )),
), course="Probability and Statistics")


# Innovation and entrepreneurship -------------------------------------------------------

def _market_value(rng: random.Random) -> dict[str, object]:
    n, p = rng.randint(2, 90) * 1000, rng.randint(5, 120)
    return {"n": n, "p": p, "v": n * p}


def _profit(rng: random.Random) -> dict[str, object]:
    c = rng.randint(20, 400) * 100
    r = c + rng.randint(1, 200) * 100
    return {"r": r, "c": c, "v": r - c}


def _conversion(rng: random.Random) -> dict[str, object]:
    n = rng.choice((20, 25, 50, 100))
    k = rng.randint(1, n - 1)
    return {"k": k, "n": n, "v": k * 100 // n}


def _share(rng: random.Random) -> dict[str, object]:
    m = rng.choice((1000, 2000, 5000, 10000))
    percent = rng.randint(1, 40)
    return {"s": m * percent // 100, "m": m, "v": percent}


def _growth(rng: random.Random) -> dict[str, object]:
    a, g = rng.choice((100, 200, 400, 500)), 5 * rng.randint(1, 30)
    return {"a": a, "b": a + a * g // 100, "v": g}


def _break_even(rng: random.Random) -> dict[str, object]:
    u, margin, units = rng.randint(2, 40), rng.randint(2, 30), rng.randint(10, 500)
    return {"f": units * margin, "p": u + margin, "u": u, "v": units}


def _runway(rng: random.Random) -> dict[str, object]:
    b, m = rng.randint(5, 60) * 1000, rng.randint(3, 24)
    return {"c": b * m, "b": b, "v": m}


def _margin(rng: random.Random) -> dict[str, object]:
    p, m = rng.choice((20, 40, 60, 80, 100)), 5 * rng.randint(2, 16)
    return {"p": p, "c": p * (100 - m) // 100, "v": m}


def _valuation(rng: random.Random) -> dict[str, object]:
    value, p = rng.randint(2, 50) * 100000, rng.choice((5, 10, 20, 25))
    return {"x": value * p // 100, "p": p, "v": value}


def _dilution(rng: random.Random) -> dict[str, object]:
    f, s = rng.choice((40, 50, 60, 80, 100)), rng.choice((10, 20, 25, 50))
    return {"f": f, "s": s, "v": _dec(Fraction(f * (100 - s), 100))}


def _equal_split(rng: random.Random) -> dict[str, object]:
    n = rng.choice((2, 4, 5))
    return {"n": n, "v": 100 // n}


def _pitch(rng: random.Random) -> dict[str, object]:
    per, n = rng.choice((15, 20, 30, 40, 60)), rng.randint(5, 15)
    minutes = Fraction(per * n, 60)
    return {"m": _dec(minutes), "n": n, "v": per}


INNOVATION = TextSpec("From Idea to Venture", "textbook", (
    ChapterSpec("Finding Opportunities", ("Problems Worth Solving", "Customer Interviews", "Market Trends",
                                          "Screening Ideas"), (
        calc("Sizing a Market", "the yearly value of a market of {n} customers paying {p} dollars a year",
             "A market of {n} potential customers paying {p} dollars a year is worth {v} dollars a year.",
             "equals", _market_value),
        define(("pain point", "A pain point is {v}.", "a problem that customers feel strongly enough to pay to solve"),
               ("value proposition", "A value proposition is {v}.",
                "a short statement of why customers should choose a product")),
    )),
    ChapterSpec("Business Models", ("Value Propositions", "Revenue Streams", "Cost Structures",
                                    "The Business Model Canvas"), (
        calc("Profit", "the profit of a venture with revenue of {r} dollars and costs of {c} dollars",
             "A venture with revenue of {r} dollars and costs of {c} dollars makes a profit of {v} dollars.",
             "equals", _profit),
        define(("Business Model Canvas", "The Business Model Canvas is {v}.",
                "a one-page chart of nine building blocks that describe how a business works")),
    )),
    ChapterSpec("Prototyping", ("Minimum Viable Products", "Rapid Prototyping", "User Testing", "Iteration"), (
        calc("Conversion Rates", "the conversion rate when {k} of {n} test users sign up",
             "If {k} of {n} test users sign up, the conversion rate is {v} percent.", "equals", _conversion),
        define(("minimum viable product", "A minimum viable product is {v}.",
                "the simplest version of a product that lets a team learn from real users"),
               ("pivot", "A pivot is {v}.", "a deliberate change of direction after learning from customers")),
    )),
    ChapterSpec("Market Analysis", ("Market Size", "Competitors", "Segmentation", "Positioning"), (
        calc("Market Share", "the market share of a company selling {s} units in a market of {m} units",
             "A company selling {s} units in a market of {m} units has a market share of {v} percent.",
             "equals", _share),
        calc("Growth Rates", "the growth in percent of sales rising from {a} to {b} units",
             "Sales that rise from {a} to {b} units have grown by {v} percent.", "equals", _growth),
    )),
    ChapterSpec("Finance for Startups", ("Costs and Prices", "Break-Even Analysis", "Cash Flow", "Runway"), (
        calc("Break-Even Points",
             "the break-even point with fixed costs of {f} dollars, a price of {p} dollars and a unit cost of {u} dollars",
             "With fixed costs of {f} dollars, a price of {p} dollars and a unit cost of {u} dollars, the break-even point is {v} units.",
             "equals", _break_even),
        calc("Runway", "the runway of a startup with {c} dollars and a monthly burn of {b} dollars",
             "A startup with {c} dollars in the bank and a monthly burn of {b} dollars has a runway of {v} months.",
             "equals", _runway),
        calc("Gross Margin", "the gross margin of a product sold for {p} dollars that costs {c} dollars to make",
             "A product sold for {p} dollars that costs {c} dollars to make has a gross margin of {v} percent.",
             "equals", _margin),
    )),
    ChapterSpec("Funding", ("Bootstrapping", "Angel Investment", "Venture Capital", "Crowdfunding"), (
        calc("Valuation", "the post-money valuation when {x} dollars buy {p} percent of a startup",
             "An investor who pays {x} dollars for {p} percent of a startup values it at {v} dollars after the investment.",
             "equals", _valuation),
        calc("Dilution", "the stake kept by a founder owning {f} percent after a round that sells {s} percent",
             "A founder who owns {f} percent keeps {v} percent after a funding round that sells {s} percent of the company.",
             "equals", _dilution),
        define(("bootstrapping", "Bootstrapping is {v}.", "growing a company from its own revenue without outside investors")),
    )),
    ChapterSpec("Teams and Leadership", ("Founding Teams", "Roles", "Equity Splits", "Decision Making"), (
        calc("Equal Splits", "the stake of each of {n} founders who split a company equally",
             "Each of {n} founders who split a company equally holds {v} percent.", "equals", _equal_split),
        define(("vesting", "Vesting is {v}.", "earning shares gradually over time instead of all at once")),
    )),
    ChapterSpec("Pitching", ("The Elevator Pitch", "Pitch Decks", "Telling a Story", "Handling Questions"), (
        calc("Timing a Pitch", "the seconds per slide for {n} slides in {m} minutes",
             "A pitch of {m} minutes with {n} slides leaves {v} seconds per slide.", "equals", _pitch),
        define(("elevator pitch", "An elevator pitch is {v}.", "a summary of an idea short enough to give in a minute")),
    )),
), course="Innovation and Entrepreneurship")


# Student wellbeing ---------------------------------------------------------------------

def _sleep_hours(rng: random.Random) -> dict[str, object]:
    start, end = rng.choice((21, 22, 23, 0, 1)), rng.randint(5, 9)
    return {"a": f"{start:02d}:00", "b": f"{end:02d}:00", "v": (end - start) % 24}


def _sleep_cycles(rng: random.Random) -> dict[str, object]:
    n = rng.randint(3, 6)
    return {"n": n, "v": _dec(Fraction(n * 90, 60))}


def _box_breathing(rng: random.Random) -> dict[str, object]:
    n = rng.randint(2, 10)
    return {"n": n, "v": 16 * n}


def _focus_blocks(rng: random.Random) -> dict[str, object]:
    h = rng.randint(2, 6)
    return {"h": h, "v": 2 * h}


def _study_plan(rng: random.Random) -> dict[str, object]:
    n, m = rng.randint(3, 12), rng.choice((30, 45, 60, 90))
    return {"n": n, "m": m, "v": _dec(Fraction(n * m, 60))}


def _walking(rng: random.Random) -> dict[str, object]:
    s, m = rng.randint(4, 6), rng.choice((24, 30, 36, 48, 60, 90))
    return {"s": s, "m": m, "v": _dec(Fraction(s * m, 60))}


def _weekly_exercise(rng: random.Random) -> dict[str, object]:
    n, m = rng.randint(2, 6), rng.choice((20, 30, 40, 45, 60))
    return {"n": n, "m": m, "v": n * m}


def _caffeine(rng: random.Random) -> dict[str, object]:
    n, c = rng.randint(2, 5), rng.choice((60, 80, 95, 120))
    return {"n": n, "c": c, "v": n * c}


def _budget(rng: random.Random) -> dict[str, object]:
    d = rng.randint(8, 30)
    return {"b": 7 * d, "v": d}


WELLBEING = TextSpec("Thriving at University", "textbook", (
    ChapterSpec("Starting University", ("Living Independently", "Making Friends", "Homesickness", "Routines"), (
        rule("Orientation", "The orientation programme for new students lasts {v0} days.",
             "orientation programme", ("length in days", (3, 4, 5, 7))),
        rule("Peer Mentors", "Each peer mentor looks after {v0} first-year students.",
             "peer mentor", ("first-year students per mentor", (6, 8, 10, 12))),
        define(("resilience", "Resilience is {v}.", "the ability to recover and adapt after setbacks")),
    )),
    ChapterSpec("Sleep", ("Why Sleep Matters", "Sleep Cycles", "Naps", "Sleep Hygiene"), (
        calc("Hours of Sleep", "the hours slept from {a} to {b}",
             "A student who sleeps from {a} to {b} sleeps {v} hours.", "equals", _sleep_hours),
        calc("Sleep Cycles", "the hours taken by {n} sleep cycles of 90 minutes",
             "{n} sleep cycles of 90 minutes take {v} hours.", "equals", _sleep_cycles),
        define(("sleep hygiene", "Sleep hygiene is {v}.", "the set of habits that make good sleep more likely")),
    )),
    ChapterSpec("Stress and Coping", ("Recognising Stress", "Breathing Exercises", "Problem Solving",
                                      "Asking for Help"), (
        calc("Box Breathing", "the seconds taken by {n} rounds of box breathing",
             "{n} rounds of box breathing, with four steps of four seconds each, take {v} seconds.", "equals",
             _box_breathing),
        rule("Counselling Sessions", "The counselling centre offers {v0} free sessions per student each semester.",
             "counselling centre", ("free sessions per semester", (4, 6, 8, 10))),
        define(("mindfulness", "Mindfulness is {v}.", "paying calm attention to the present moment without judging it")),
    )),
    ChapterSpec("Time Management", ("Planning a Week", "Focus Blocks", "Procrastination", "Deadlines"), (
        calc("Focus Blocks", "the number of 25-minute focus blocks with 5-minute breaks in {h} hours",
             "In {h} hours, a student can fit {v} focus blocks of 25 minutes, each followed by a 5-minute break.",
             "equals", _focus_blocks),
        calc("Study Plans", "the hours in {n} study blocks of {m} minutes",
             "{n} study blocks of {m} minutes add up to {v} hours.", "equals", _study_plan),
        define(("procrastination", "Procrastination is {v}.", "putting off a task even though the delay causes harm")),
    )),
    ChapterSpec("Physical Activity", ("Why Move", "Campus Sports", "Active Travel", "Stretching"), (
        calc("Walking Distances", "the kilometres covered walking at {s} kilometres per hour for {m} minutes",
             "Walking at {s} kilometres per hour for {m} minutes covers {v} kilometres.", "equals", _walking),
        calc("Weekly Exercise", "the weekly minutes of {n} sessions of {m} minutes",
             "{n} exercise sessions of {m} minutes add up to {v} minutes per week.", "equals", _weekly_exercise),
        rule("Free Gym Hours", "Students can use the campus gym free of charge for {v0} hours a week.",
             "campus gym", ("free hours per week", (6, 8, 10, 12))),
    )),
    ChapterSpec("Nutrition", ("Balanced Meals", "Hydration", "Caffeine", "Eating on a Budget"), (
        calc("Caffeine", "the caffeine in {n} cups of coffee with {c} milligrams each",
             "{n} cups of coffee with {c} milligrams of caffeine each contain {v} milligrams in total.", "equals",
             _caffeine),
        calc("Food Budgets", "the daily share of a weekly food budget of {b} dollars",
             "A weekly food budget of {b} dollars comes to {v} dollars per day.", "equals", _budget),
    )),
    ChapterSpec("Relationships and Communication", ("Active Listening", "Handling Conflict", "Roommates",
                                                    "Boundaries"), (
        define(("active listening", "Active listening is {v}.",
                "giving full attention to a speaker and checking that you understood"),
               ("assertive communication", "Assertive communication is {v}.",
                "stating your needs clearly and respectfully"),
               ("boundary", "A personal boundary is {v}.", "a limit you set on what you will accept from others")),
        rule("Roommate Mediation", "A roommate mediation meeting is arranged within {v0} days of a request.",
             "roommate mediation", ("days after a request", (2, 3, 5, 7))),
    )),
    ChapterSpec("Getting Support", ("Counselling Services", "The Health Clinic", "Crisis Lines", "Peer Support"), (
        rule("Crisis Line", "The campus crisis line, open day and night, is extension {v0}.",
             "campus crisis line", ("phone extension", ("3100", "4357", "6000", "8255"))),
        rule("Clinic Hours", "The student health clinic opens at {v0} on weekdays.",
             "student health clinic", ("weekday opening time", ("07:30", "08:00", "08:30"))),
        rule("Counselling Waits", "A first counselling appointment is offered within {v0} working days.",
             "first counselling appointment", ("working days to wait at most", (3, 5, 7))),
    )),
), course="Student Wellbeing and Resilience")


TEXTBOOKS: tuple[TextSpec, ...] = (
    CALCULUS, LINEAR_ALGEBRA, PROGRAMMING, COMPUTING, DISCRETE, STATISTICS, INNOVATION, WELLBEING,
)
SPECS: dict[str, TextSpec] = {spec.title: spec for spec in (STUDENT_HANDBOOK, INTEGRITY, PROGRAMS, *TEXTBOOKS)}

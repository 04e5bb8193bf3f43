"""The course catalogue: two semesters of a computer-science programme, section by section.

Rules
-----
* **Semester 1**: the ten ``COMPULSORY_1`` courses with six sections each (60; three, 30,
  in world generator 1) and
  ``round(180 * scale)`` elective sections in the six ``THEMES`` (apportioned evenly, 30 each
  at scale 1). A theme's sections belong to about two thirds as many courses: every course
  has one section, the rest go to courses drawn at random (at most three each while
  possible). Elective names come from the theme's list in a seeded order, then again with
  " II", " III"... **Semester 2**: the eight ``COMPULSORY_2`` courses with two sections each.
  Course names are unique in the catalogue; sections of one course share name, credits,
  weeks, prerequisites and description.
* **Codes**: ``<PREFIX>00<semester><credits><group><serial:05d>`` (group 0 for compulsory
  courses, 1-6 for the themes; the serial counts courses), e.g. ``COMS0014000003``; the
  second and third sections append ``(2)`` and ``(3)``.
* **Schedule**: weeks 1-18 (1-16 for the seminars and about 4% of elective courses);
  1-3 weekdays (a course's ``days``; electives: one day, two for 3+ credits); one 2-hour
  block starting at 08:00, 10:00, 14:00, 16:00 or 19:00, the same on every day. The k-th
  sections of a semester's compulsory courses never clash with each other (so the set of
  first sections, say, can always be taken together), a course's sections meet at
  different times while possible, and compulsory courses are not put in the evening block
  unless the day blocks are used up. From world generator 3 (``TIMES``) a compulsory course's
  sections are parallel classes at two times in semester 1 (three at each) and one in
  semester 2, with different instructors while the course's teachers last, as the published
  campus's are at one time; the k-th times of different courses never clash. Each section
  meets in a classroom amenity (``CLASSROOMS``: lecture halls, seminar rooms, ...) of an
  Academic non-library building, and no two sections of a semester share a room at the same block on the same
  day unless 40 draws found no free room (only on a tiny campus).
* **Popularity** 0-99, per section: each semester's sections are split exactly
  139 : 60 : 11 into below 85 (20-84), 85-94 and 95-99, in a seeded order.
* **Seats**: 60-150 for compulsory sections, 30-100 for electives, in tens.
* **Instructors** are advisors (``World.advisors``) whose research area fits the course
  (any advisor if none fits); **prerequisites** are course names: every semester-2
  compulsory course needs one to three semester-1 compulsory courses.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from campus.world.gen_common import apportion, round_half_up, shuffled_labels, stream
from campus.world.gen_library import is_library
from campus.world.model import Advisor, Building, CourseSection

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
STARTS = (8, 10, 14, 16, 19)
DAY_STARTS = (8, 10, 14, 16)
BLOCK_HOURS = 2
POPULARITY_BANDS = ((20, 84), (85, 94), (95, 99))
POPULARITY_WEIGHTS = (139, 60, 11)
ELECTIVES_AT_SCALE_1 = 180
COURSES_PER_SECTION = 2 / 3
SHORT_TERM_SHARE = 0.04
CLASSROOMS = (
    "Lecture Hall", "Auditorium", "Seminar Room", "Classroom", "Case Study Room",
    "Computer Lab", "Language Lab",
)
ROOM_DRAWS = 40


@dataclass(frozen=True)
class CourseSpec:
    name: str
    prefix: str
    credits: int
    days: int
    core: bool
    description: str
    prerequisites: tuple[str, ...] = ()
    last_week: int = 18


COMPULSORY_1: tuple[CourseSpec, ...] = (
    CourseSpec("Calculus I", "MATH", 5, 3, True,
               "Limits, derivatives and integrals of functions of one variable, with their uses "
               "for rates of change, optimisation and areas."),
    CourseSpec("Linear Algebra", "MATH", 4, 2, True,
               "Vectors, matrices, determinants and linear systems, and how they describe data "
               "and geometry."),
    CourseSpec("Programming Fundamentals", "COMS", 4, 2, True,
               "Writing, testing and debugging small programs with variables, loops, functions "
               "and lists."),
    CourseSpec("Introduction to Computer Science", "COMS", 3, 2, True,
               "How computers represent information, run programs and solve problems, from bits "
               "to algorithms."),
    CourseSpec("Discrete Mathematics", "MATH", 3, 2, True,
               "Sets, logic, counting, number theory and graphs as the language of computing."),
    CourseSpec("Probability and Statistics", "MATH", 3, 2, True,
               "Chance, random variables and the summaries and tests used to reason from data."),
    CourseSpec("Innovation and Entrepreneurship", "GENE", 2, 1, True,
               "Turning an idea into a venture: customers, costs, prototypes and pitches."),
    CourseSpec("Student Wellbeing and Resilience", "GENE", 2, 1, True,
               "Habits, skills and campus services that help students study well and stay "
               "healthy."),
    CourseSpec("Ethics, Law and Civic Life", "GENE", 2, 1, False,
               "The rights and duties of students as citizens and the ethical questions raised "
               "by technology."),
    CourseSpec("Current Affairs Seminar I", "GENE", 1, 1, False,
               "Fortnightly discussions of recent events in science, technology and society.",
               last_week=16),
)
COMPULSORY_2: tuple[CourseSpec, ...] = (
    CourseSpec("Deep Learning", "COMS", 3, 2, True,
               "Training neural networks with many layers for images, text and sequences.",
               ("Calculus I", "Linear Algebra", "Programming Fundamentals")),
    CourseSpec("Data Mining", "COMS", 3, 2, True,
               "Finding patterns, clusters and rules in large data sets.",
               ("Probability and Statistics", "Programming Fundamentals")),
    CourseSpec("Algorithms and Data Structures", "COMS", 3, 2, True,
               "Designing and analysing efficient algorithms with lists, trees, heaps and graphs.",
               ("Discrete Mathematics", "Programming Fundamentals")),
    CourseSpec("Computer Vision and Robotics", "COMS", 3, 2, True,
               "How machines see and act: cameras, geometry, perception and control.",
               ("Linear Algebra", "Calculus I")),
    CourseSpec("Applied Large Language Models", "COMS", 2, 1, True,
               "Building useful applications on top of large language models, and testing them.",
               ("Introduction to Computer Science", "Programming Fundamentals")),
    CourseSpec("Game Development Project", "COMS", 2, 1, True,
               "A team project that designs, builds and ships a small computer game.",
               ("Programming Fundamentals",)),
    CourseSpec("Current Affairs Seminar II", "GENE", 1, 1, False,
               "The second term of fortnightly discussions of recent events.",
               ("Current Affairs Seminar I",), last_week=16),
    CourseSpec("Campus Safety and Emergency Response", "GENE", 1, 1, False,
               "What to do in fires, storms, injuries and other emergencies on campus.",
               ("Student Wellbeing and Resilience",)),
)
SECTIONS = {1: {1: 3, 2: 2}, 2: {1: 6, 2: 2}, 3: {1: 6, 2: 2}}
"""World generator -> sections per compulsory course and semester. Generator 2's six semester-1 sections spread each
weekday block's compulsory sections over 4.8 buildings on average (3-6; generator 1's three over 2.5), so a student who
remembers nothing of its timetable but goes, at a class's start, to one of the compulsory sections meeting then
attends about a fifth of its classes (a third on generator 1's campuses)."""
TIMES = {3: {1: 2, 2: 1}}
"""Generator -> the times a compulsory course meets at, per semester, in generators with parallel sections: its
sections split evenly among them (three at each of two times in semester 1, both at one time in semester 2), each
with its own instructor and room, as the published campus has three parallel sections of each compulsory course.
With every section at its own time (generators 1 and 2), the section a course step refers back to (a recommendation,
the section before a switch) never clashed with the other recommended sections while a student's other candidates
often did, so a student who forgot it could rank them by the timetable: 55.9 % against 45.9 % on generator 2's seeds
0-79. Parallel sections clash alike with everything, so the timetable cannot tell them apart
(``scenarios.course_selection``). Two times, not one, so that a term's draws still choose among timetables: with one
time per course every term of a world had the same timetable, and 2 or 3 of seeds 0-9 had no placement that fitted."""


@dataclass(frozen=True)
class Theme:
    name: str
    prefix: str
    areas: tuple[str, ...]
    """Advisor research areas whose members may teach the theme."""
    courses: tuple[str, ...]


THEMES: tuple[Theme, ...] = (
    Theme("Artificial Intelligence", "AINT", ("Engineering", "Science"), (
        "Introduction to Machine Learning", "Knowledge Representation",
        "Natural Language Processing", "Computer Vision Basics", "Reinforcement Learning",
        "Robot Perception", "Speech Processing", "AI Ethics and Governance",
        "Recommender Systems", "Evolutionary Computation", "Probabilistic Graphical Models",
        "Neural Network Design", "Multi-Agent Systems", "Intelligent Tutoring Systems",
        "Explainable AI", "Planning and Scheduling", "Fuzzy Logic", "Pattern Recognition",
        "Generative Models", "AI for Healthcare", "Autonomous Vehicles",
        "Information Retrieval", "Computational Creativity", "Search and Optimization",
        "Cognitive Architectures")),
    Theme("Systems and Networks", "SYST", ("Engineering",), (
        "Computer Organization", "Operating System Concepts", "Computer Networks",
        "Network Security", "Cloud Computing", "Distributed Systems", "Embedded Programming",
        "Internet of Things", "Parallel Programming", "Compiler Construction",
        "Database Systems", "Mobile Computing", "Wireless Networks", "Cryptography Basics",
        "Edge Computing", "Storage Systems", "Virtualization", "Real-Time Systems",
        "Digital Logic Design", "High Performance Computing", "Blockchain Systems",
        "Computer Architecture", "Network Programming", "System Administration",
        "Quantum Computing Primer")),
    Theme("Data and Mathematics", "DATA", ("Science", "Economics"), (
        "Numerical Methods", "Optimization Methods", "Graph Theory", "Statistical Learning",
        "Time Series Analysis", "Data Visualization", "Information Theory",
        "Stochastic Processes", "Mathematical Modeling", "Bayesian Statistics",
        "Computational Geometry", "Operations Research", "Big Data Analytics",
        "Survey Sampling", "Multivariable Calculus", "Abstract Algebra", "Number Theory and Cryptography",
        "Combinatorics", "Data Engineering", "Experimental Design", "Econometrics",
        "Matrix Computations", "Signal Processing", "Network Science", "Causal Inference")),
    Theme("Software Engineering", "SOFT", ("Engineering",), (
        "Software Engineering Principles", "Object-Oriented Design", "Web Development",
        "Mobile App Development", "Software Testing", "Human-Computer Interaction",
        "DevOps Practices", "Functional Programming", "Version Control and Collaboration",
        "Requirements Engineering", "Software Architecture", "Game Engine Programming",
        "User Interface Design", "Secure Coding", "Agile Project Management",
        "Open Source Development", "Programming Languages", "Scripting and Automation",
        "Code Review and Quality", "Technical Writing for Engineers", "Frontend Frameworks",
        "API Design", "Software Maintenance", "Formal Methods", "Competitive Programming")),
    Theme("Humanities and Society", "HUMS",
          ("Philosophy", "History", "Law", "Literature", "Management", "Economics", "Education"), (
        "Philosophy of Technology", "History of Science", "Technology and Law",
        "Digital Sociology", "Academic Writing", "Public Speaking", "Introduction to Economics",
        "Psychology of Learning", "World Literature Survey", "Media and Communication",
        "Ethics of Data", "Introduction to Linguistics", "Modern World History",
        "Political Thought", "Cultural Anthropology", "Behavioral Economics",
        "Critical Thinking", "Intellectual Property Basics", "Science Fiction and Society",
        "Urban Studies", "Environmental Policy", "Global Health", "Business Fundamentals",
        "Foreign Language Conversation", "Innovation Policy")),
    Theme("Arts and Wellbeing", "ARTS", ("Art Studies", "Education", "Medicine"), (
        "Music Appreciation", "Digital Photography", "Film Analysis",
        "Creative Writing Workshop", "Drawing Fundamentals", "Choir", "Theater Workshop",
        "Calligraphy", "Yoga and Mindfulness", "Basketball", "Swimming", "Table Tennis",
        "Tai Chi", "Badminton", "Dance Fundamentals", "Art History Survey", "Graphic Design",
        "Sound Design", "Ceramics", "Orienteering", "Nutrition and Health",
        "First Aid and Safety", "Chess Strategy", "Music Production", "Distance Running")),
)
COMPULSORY_AREAS = {"MATH": ("Science",), "COMS": ("Engineering",),
                    "GENE": ("Education", "Philosophy", "Law", "Management", "Medicine")}
ACTIVITIES = ("weekly lectures", "hands-on labs", "reading seminars", "small group projects",
              "case discussions", "studio sessions")
ASSESSMENTS = ("a final exam", "a term project", "two quizzes and a presentation",
               "a portfolio", "weekly problem sets")
ROMAN = ("II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X")
DAY_PATTERNS: dict[int, tuple[tuple[str, ...], ...]] = {
    1: tuple((d,) for d in WEEKDAYS),
    2: (("Monday", "Wednesday"), ("Tuesday", "Thursday"), ("Wednesday", "Friday"),
        ("Monday", "Thursday"), ("Tuesday", "Friday")),
    3: (("Monday", "Wednesday", "Friday"), ("Monday", "Tuesday", "Thursday"),
        ("Tuesday", "Wednesday", "Friday")),
}


@dataclass
class _Course:
    spec: CourseSpec
    semester: int
    compulsory: bool
    group: int
    sections: int
    teachers: tuple[str, ...]


def _block(start: int) -> str:
    return f"{start:02d}:00-{start + BLOCK_HOURS:02d}:00"


def _classrooms(buildings: Sequence[Building]) -> list[tuple[str, str]]:
    """(building id, amenity) for every classroom of an Academic non-library building."""
    academic = [b for b in buildings if b.type == "Academic" and not is_library(b)]
    academic = academic or [b for b in buildings if b.type == "Academic"] or list(buildings)
    rooms = [(b.id, item) for b in academic for items in b.amenities.values() for item in items
             if item.startswith(CLASSROOMS)]
    return rooms or [(b.id, item) for b in academic for items in b.amenities.values() for item in items]


def _teachers(advisors: Sequence[Advisor], areas: Sequence[str]) -> tuple[str, ...]:
    fitting = tuple(a.name for a in advisors if a.area in areas)
    return fitting or tuple(a.name for a in advisors) or ("Staff",)


def _elective_name(theme: Theme, index: int, order: Sequence[str]) -> str:
    base, round_ = order[index % len(order)], index // len(order)
    if round_ == 0:
        return base
    return f"{base} {ROMAN[round_ - 1]}" if round_ <= len(ROMAN) else f"{base} {round_ + 1}"


def _electives(scale: float, advisors: Sequence[Advisor], rng: random.Random) -> list[_Course]:
    total = round_half_up(ELECTIVES_AT_SCALE_1 * scale)
    courses = []
    for group, (theme, sections) in enumerate(zip(THEMES, apportion(total, [1] * len(THEMES))), 1):
        if sections == 0:
            continue
        count = min(sections, max(1, round_half_up(sections * COURSES_PER_SECTION)))
        per_course = [1] * count
        for _ in range(sections - count):
            open_ = [i for i, n in enumerate(per_course) if n < 3] or list(range(count))
            per_course[rng.choice(open_)] += 1
        order = rng.sample(theme.courses, len(theme.courses))
        teachers = _teachers(advisors, theme.areas)
        for i, n in enumerate(per_course):
            credits = rng.choices((1, 2, 3, 4), weights=(4, 86, 7, 3))[0]
            name = _elective_name(theme, i, order)
            description = (f"{name} is an elective in {theme.name} that combines "
                           f"{rng.choice(ACTIVITIES)} with {rng.choice(ASSESSMENTS)}.")
            spec = CourseSpec(name, theme.prefix, credits, 2 if credits >= 3 else 1, False,
                              description,
                              last_week=16 if rng.random() < SHORT_TERM_SHARE else 18)
            courses.append(_Course(spec, 1, False, group, n, teachers))
    return courses


@dataclass
class _Timetable:
    rooms: list[tuple[str, str]]
    busy: set[tuple[int, str, str, str, int]]
    rng: random.Random

    def place(self, semester: int, days: Sequence[str], start: int) -> tuple[str, str]:
        choice = self.rooms[0]
        for _ in range(ROOM_DRAWS):
            choice = self.rng.choice(self.rooms)
            if not any((semester, *choice, day, start) in self.busy for day in days):
                break
        self.busy.update((semester, *choice, day, start) for day in days)
        return choice


Slot = tuple[tuple[str, ...], int]


def _compulsory_slots(courses: Sequence[_Course], rng: random.Random, times: int) -> list[dict[str, Slot]]:
    """Days and start of each course's k-th time, for k below ``times``.

    The k-th times of different courses never share a day and block; a course's times
    avoid each other while possible; evening blocks come last.
    """
    plans: list[dict[str, Slot]] = []
    earlier: dict[str, set[Slot]] = {c.spec.name: set() for c in courses}
    for index in range(times):
        used: set[tuple[str, int]] = set()
        slots: dict[str, Slot] = {}
        for course in sorted(courses, key=lambda c: -c.spec.days):
            if course.sections <= index:
                continue
            patterns = DAY_PATTERNS[course.spec.days]
            options = [(p, s) for starts in (DAY_STARTS, (19,)) for s in rng.sample(starts, len(starts))
                       for p in rng.sample(patterns, len(patterns))]
            free = [o for o in options if not any((d, o[1]) in used for d in o[0])]
            fresh = [o for o in free if o not in earlier[course.spec.name]]
            days, start = (fresh or free or options)[0]
            used.update((d, start) for d in days)
            earlier[course.spec.name].add((days, start))
            slots[course.spec.name] = (days, start)
        plans.append(slots)
    return plans


def _staff(course: _Course, rng: random.Random) -> list[str]:
    """An instructor for each section of a course, all different while the course's teachers last: parallel sections
    are told apart by their instructor."""
    if len(course.teachers) >= course.sections:
        return rng.sample(course.teachers, course.sections)
    return [rng.choice(course.teachers) for _ in range(course.sections)]


def _code(course: _Course, serial: int) -> str:
    return f"{course.spec.prefix}00{course.semester}{course.spec.credits}{course.group}{serial:05d}"


def make_courses(buildings: Sequence[Building], advisors: Sequence[Advisor], seed: int,
                 scale: float, generator: int = max(SECTIONS)) -> list[CourseSection]:
    """The catalogue, with ``SECTIONS[generator]`` sections per compulsory course (meeting at ``TIMES[generator]``
    times where it has them, else each at its own)."""
    times = TIMES.get(generator, SECTIONS[generator])
    rng = stream(seed, scale, "courses")
    timetable = _Timetable(_classrooms(buildings), set(), stream(seed, scale, "classrooms"))
    compulsory = {
        semester: [_Course(spec, semester, True, 0, SECTIONS[generator][semester],
                           _teachers(advisors, COMPULSORY_AREAS[spec.prefix])) for spec in specs]
        for semester, specs in ((1, COMPULSORY_1), (2, COMPULSORY_2))
    }
    plans = {
        semester: _compulsory_slots(courses, rng, times[semester])
        for semester, courses in compulsory.items()
    }
    ordered = compulsory[1] + _electives(scale, advisors, rng) + compulsory[2]
    popularity = {
        semester: shuffled_labels(
            rng, POPULARITY_BANDS,
            apportion(sum(c.sections for c in ordered if c.semester == semester), POPULARITY_WEIGHTS))
        for semester in (1, 2)
    }
    sections: list[CourseSection] = []
    for serial, course in enumerate(ordered, 1):
        base = _code(course, serial)
        parallel = course.compulsory and times[course.semester] < course.sections
        staff = _staff(course, rng) if parallel else None
        for k in range(course.sections):
            if course.compulsory:
                days, start = plans[course.semester][k * times[course.semester] // course.sections][course.spec.name]
            else:
                days = rng.choice(DAY_PATTERNS[course.spec.days])
                start = rng.choices(STARTS, weights=(3, 3, 3, 3, 2))[0]
            building_id, room = timetable.place(course.semester, days, start)
            low, high = popularity[course.semester].pop()
            seats = rng.randint(6, 15) * 10 if course.compulsory else rng.randint(3, 10) * 10
            sections.append(CourseSection(
                code=base if k == 0 else f"{base}({k + 1})",
                name=course.spec.name,
                credits=course.spec.credits,
                instructor=staff[k] if staff else rng.choice(course.teachers),
                semester=course.semester,
                compulsory=course.compulsory,
                first_week=1,
                last_week=course.spec.last_week,
                days=list(days),
                time=_block(start),
                building_id=building_id,
                room=room,
                popularity=rng.randint(low, high),
                seats=seats,
                prerequisites=list(course.spec.prerequisites),
                description=course.spec.description,
            ))
    return sections

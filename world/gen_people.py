"""Advisors and student clubs.

Rules
-----
* **Advisors**: ``round(1000 * scale)`` (at least 1), ids ``T0001``... (four digits, more
  if needed), names (first, last) all different while the name lists allow, e-mail
  ``first_last_NNNN@lau.edu`` with the id's number (so unique). The research ``area`` is one
  of the twelve ``AREAS``, drawn with the published campus's weights (Engineering 392 ...
  Agricultural Science 6), the ``field`` one of that area's fields (42 in all), ``tags``
  three different tags of the field, ``works`` three different titles built from the
  field's tags, and a preference: a level (``PREFERENCES``), one of its details and a
  sentence naming both.
* **Clubs**: ``round(101 * scale)`` (at least 1), ids ``C000``..., in the five
  ``CLUB_CATEGORIES`` apportioned 32 : 25 : 21 : 12 : 11 and listed category by category.
  A name is a topic of the category and a noun (``Robotics Society``); every topic is used
  once before any is used again with another noun, and a number is appended only when
  every pair is taken. Names are unique (case-insensitively) and so are their e-mail
  addresses ``snake_case_name@email.com``. The recruitment notice names the address
  followed by a space, never by punctuation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from campus.world.gen_common import apportion, person_names, scaled, snake, stream
from campus.world.model import Advisor, Club

ADVISORS_AT_SCALE_1 = 1000
CLUBS_AT_SCALE_1 = 101


@dataclass(frozen=True)
class Area:
    name: str
    weight: int
    fields: dict[str, tuple[str, ...]]


AREAS: tuple[Area, ...] = (
    Area("Engineering", 392, {
        "Mechanical and Industrial Engineering": (
            "manufacturing systems", "robot dynamics", "additive manufacturing",
            "industrial automation", "tribology", "product design"),
        "Electrical and Electronic Engineering": (
            "power electronics", "smart grids", "circuit design", "signal integrity",
            "antenna design", "electric drives"),
        "Computer Science and Technology": (
            "machine learning", "computer vision", "distributed systems",
            "programming languages", "natural language processing", "databases",
            "computer security"),
        "Civil and Environmental Engineering": (
            "structural health monitoring", "water treatment", "transport planning",
            "geotechnics", "urban drainage", "sustainable materials"),
        "Materials Science and Engineering": (
            "nanomaterials", "battery materials", "thin films", "metallurgy",
            "polymer composites", "materials characterization"),
        "Control Science and Engineering": (
            "optimal control", "robotics", "system identification", "autonomous navigation",
            "multi-agent coordination", "fault diagnosis"),
        "Software Engineering": (
            "software testing", "program analysis", "requirements engineering", "DevOps",
            "software architecture", "open source ecosystems"),
        "Biomedical Engineering": (
            "medical imaging", "biosensors", "tissue engineering", "neural interfaces",
            "rehabilitation devices", "biomechanics"),
        "Information and Communication Engineering": (
            "wireless communication", "5G networks", "information theory",
            "optical communication", "network coding", "satellite links"),
    }),
    Area("Science", 147, {
        "Mathematics": ("algebraic geometry", "numerical analysis", "partial differential equations",
                        "graph theory", "optimization", "probability theory"),
        "Physics": ("quantum optics", "condensed matter", "astrophysics", "plasma physics",
                    "particle detectors", "statistical mechanics"),
        "Chemistry": ("organic synthesis", "catalysis", "electrochemistry", "spectroscopy",
                      "computational chemistry", "green chemistry"),
        "Biology": ("genomics", "molecular ecology", "cell signalling", "microbiome",
                    "plant physiology", "evolutionary biology"),
        "Statistics": ("Bayesian inference", "causal inference", "survey methods", "time series",
                       "high-dimensional statistics", "biostatistics"),
        "Earth and Environmental Sciences": ("climate modelling", "hydrology", "seismology",
                                             "remote sensing", "soil science", "oceanography"),
    }),
    Area("Education", 104, {
        "Educational Technology": ("online learning", "learning analytics", "educational games",
                                   "MOOCs", "intelligent tutoring", "digital literacy"),
        "Curriculum and Instruction": ("STEM education", "assessment design", "teacher training",
                                       "inquiry learning", "bilingual education", "curriculum reform"),
        "Educational Psychology": ("motivation", "self-regulated learning", "learning disabilities",
                                   "student wellbeing", "cognitive load", "growth mindset"),
    }),
    Area("Literature", 93, {
        "Comparative Literature": ("translation studies", "postcolonial fiction", "world literature",
                                   "literary theory", "narratology", "modernist poetry"),
        "Linguistics and Applied Linguistics": (
            "second language acquisition", "corpus linguistics", "phonetics",
            "discourse analysis", "sociolinguistics", "language testing"),
        "Foreign Languages and Literatures": ("English literature", "French studies",
                                              "Spanish literature", "Japanese studies",
                                              "German philology", "literary translation"),
        "Journalism and Communication": ("media studies", "science communication",
                                         "digital journalism", "public opinion", "social media",
                                         "visual communication"),
    }),
    Area("Management", 84, {
        "Business Administration": ("corporate strategy", "marketing analytics",
                                    "organizational behavior", "entrepreneurship",
                                    "supply chains", "human resources"),
        "Public Administration": ("public policy", "e-government", "urban governance",
                                  "nonprofit management", "policy evaluation", "crisis management"),
        "Management Science and Engineering": ("operations research", "decision analysis",
                                               "project management", "logistics",
                                               "risk management", "information systems"),
        "Information Resources Management": ("digital libraries", "knowledge management",
                                             "archival science", "information retrieval",
                                             "data governance", "scientometrics"),
    }),
    Area("Medicine", 44, {
        "Clinical Medicine": ("cardiology", "oncology", "neurology", "pediatrics",
                              "emergency medicine", "clinical trials"),
        "Public Health and Preventive Medicine": ("epidemiology", "health policy", "nutrition",
                                                  "global health", "environmental health",
                                                  "vaccination"),
        "Pharmacy": ("drug discovery", "pharmacokinetics", "clinical pharmacy",
                     "medicinal chemistry", "drug delivery", "pharmacovigilance"),
    }),
    Area("Economics", 44, {
        "Applied Economics": ("labor economics", "development economics", "financial markets",
                              "industrial organization", "health economics", "regional economics"),
        "Theoretical Economics": ("game theory", "econometric theory", "macroeconomic dynamics",
                                  "mechanism design", "behavioral economics", "economic history"),
    }),
    Area("Philosophy", 26, {
        "Ethics": ("applied ethics", "bioethics", "ethics of technology", "moral psychology",
                   "political philosophy", "environmental ethics"),
        "Logic and Philosophy of Science": ("formal logic", "philosophy of mind",
                                            "philosophy of science", "epistemology",
                                            "philosophy of mathematics", "metaphysics"),
    }),
    Area("Law", 23, {
        "Jurisprudence": ("legal theory", "constitutional law", "human rights", "legal history",
                          "criminal law", "administrative law"),
        "International and Economic Law": ("international trade law", "intellectual property",
                                           "competition law", "cyber law", "maritime law",
                                           "investment law"),
    }),
    Area("History", 19, {
        "World History": ("economic history", "history of science", "colonial history",
                          "medieval Europe", "modern Asia", "global migration"),
        "Archaeology and Museum Studies": ("field archaeology", "museum studies",
                                           "cultural heritage", "ancient ceramics",
                                           "digital archaeology", "conservation"),
    }),
    Area("Art Studies", 18, {
        "Music and Dance": ("music composition", "musicology", "dance studies",
                            "music technology", "performance practice", "ethnomusicology"),
        "Design": ("interaction design", "visual design", "product design", "design thinking",
                   "typography", "service design"),
        "Fine Arts": ("painting", "sculpture", "printmaking", "art criticism", "digital art",
                      "installation art"),
    }),
    Area("Agricultural Science", 6, {
        "Crop Science": ("plant breeding", "crop genetics", "precision agriculture",
                         "soil fertility", "pest management", "irrigation"),
        "Food Science": ("food safety", "food chemistry", "fermentation", "nutrition science",
                         "food packaging", "sensory analysis"),
    }),
)
WORK_PATTERNS = (
    "Advances in {a}", "A Survey of {a}", "{a}: Methods and Applications",
    "Rethinking {a} through {b}", "Towards Reliable {a}", "{a} in Practice: {n} Case Studies",
    "A Framework for {a} and {b}", "On the Limits of {a}", "Scalable Methods for {a}",
    "{a} and {b}: An Empirical Study", "Teaching {a}: Lessons from {n} Years",
    "Open Problems in {a}",
)
PREFERENCES: dict[str, tuple[str, ...]] = {
    "Programming ability": ("Fluent Python programming", "Experience with C++ projects",
                            "Contributions to open source software"),
    "Mathematical foundation": ("Strong linear algebra", "Solid probability and statistics",
                                "Comfort with writing proofs"),
    "Research experience": ("A published paper or preprint", "Work on a faculty research project",
                            "Experience writing literature reviews"),
    "Practical experience": ("An internship in industry", "Hands-on laboratory work",
                             "Experience with manufacturing equipment"),
    "Communication skills": ("Clear academic writing", "Confident presentations",
                             "Good English reading skills"),
    "Teamwork": ("Experience leading a student team", "Success in team competitions",
                 "Reliability in group projects"),
    "Innovation": ("Original project ideas", "Entries in innovation contests",
                   "Curiosity about open problems"),
    "Field work": ("Willingness to travel for field studies", "Experience collecting survey data",
                   "Interviewing skills"),
}
PREFERENCE_SENTENCES = (
    "I welcome students who can show {level}, especially {detail}.",
    "Applicants should bring {level}; {detail} is a clear plus.",
    "What I value most is {level}, in particular {detail}.",
)
_SMALL_WORDS = frozenset({"of", "and", "in", "for", "the", "on", "to", "a"})


def _title_case(text: str) -> str:
    words = text.split()
    return " ".join(w if (i and w in _SMALL_WORDS) else w[:1].upper() + w[1:] for i, w in enumerate(words))


_TITLED = {tag: _title_case(tag) for area in AREAS for tags in area.fields.values() for tag in tags}


def _works(tags: tuple[str, ...], rng: random.Random) -> list[str]:
    works: list[str] = []
    while len(works) < 3:
        a, b = rng.sample(tags, 2)
        title = rng.choice(WORK_PATTERNS).format(a=_TITLED[a], b=_TITLED[b], n=rng.randint(3, 12))
        if title not in works:
            works.append(title)
    return works


def make_advisors(seed: int, scale: float) -> list[Advisor]:
    rng = stream(seed, scale, "advisors")
    count = scaled(ADVISORS_AT_SCALE_1, scale)
    width = max(4, len(str(count)))
    areas = rng.choices(AREAS, weights=[a.weight for a in AREAS], k=count)
    names = person_names(rng, count)
    levels = tuple(PREFERENCES)
    advisors = []
    fields = {area.name: tuple(area.fields) for area in AREAS}
    for number, (area, (first, last)) in enumerate(zip(areas, names), 1):
        field = rng.choice(fields[area.name])
        tags = area.fields[field]
        level = rng.choice(levels)
        detail = rng.choice(PREFERENCES[level])
        advisors.append(Advisor(
            id=f"T{number:0{width}d}",
            name=f"{first} {last}",
            email=f"{first.lower()}_{last.lower()}_{number:0{width}d}@lau.edu",
            area=area.name,
            field=field,
            tags=rng.sample(tags, 3),
            works=_works(tags, rng),
            preference=level,
            preference_detail=detail,
            preference_text=rng.choice(PREFERENCE_SENTENCES).format(
                level=level.lower(), detail=detail[:1].lower() + detail[1:]),
        ))
    return advisors


@dataclass(frozen=True)
class ClubCategory:
    name: str
    weight: int
    topics: tuple[str, ...]
    nouns: tuple[str, ...]
    activities: tuple[str, ...]
    notes: tuple[str, ...]


CLUB_CATEGORIES: tuple[ClubCategory, ...] = (
    ClubCategory(
        "Academic & Technological", 32,
        ("Artificial Intelligence", "Robotics", "Quantum Computing", "Cybersecurity",
         "Open Source", "Data Science", "Astronomy", "Mathematics", "Chemistry",
         "Bioinformatics", "Game Development", "Blockchain", "Electronics", "Physics",
         "Economics", "Entrepreneurship", "Philosophy", "Linguistics", "Psychology",
         "Competitive Programming", "Space Exploration", "Drone", "Virtual Reality",
         "Cloud Computing", "Environmental Science", "Neuroscience", "Finance", "Debate",
         "Model United Nations", "3D Printing", "Web Design", "Statistics", "Renewable Energy",
         "Mobile Apps"),
        ("Society", "Club", "Association", "Lab", "Circle"),
        ("weekly workshops", "reading groups", "hackathons", "guest talks", "project sprints",
         "competition training"),
        ("No prior experience is needed, only curiosity.",
         "Members meet every week and work on one team project per term.",
         "Basic programming or lab skills help but are not required."),
    ),
    ClubCategory(
        "Sports & Fitness", 25,
        ("Basketball", "Football", "Volleyball", "Badminton", "Table Tennis", "Tennis",
         "Swimming", "Running", "Cycling", "Climbing", "Hiking", "Martial Arts", "Taekwondo",
         "Fencing", "Archery", "Rowing", "Yoga", "Dance Fitness", "Ultimate Frisbee",
         "Baseball", "Skateboarding", "Chess", "Boxing", "Triathlon", "Orienteering",
         "Tai Chi", "Rugby", "Squash"),
        ("Club", "Team", "Society", "Association"),
        ("training sessions", "friendly matches", "weekend trips", "fitness clinics",
         "intramural tournaments"),
        ("Beginners and experienced players are equally welcome.",
         "Training takes place twice a week and equipment is provided.",
         "Members take part in at least one campus tournament per term."),
    ),
    ClubCategory(
        "Arts & Cultural", 21,
        ("Photography", "Film", "Choir", "Orchestra", "Jazz Band", "Drama", "Poetry",
         "Painting", "Calligraphy", "Anime", "Folk Music", "Street Dance", "Ballet",
         "Literature", "Creative Writing", "Pottery", "Comics", "Guitar", "Cultural Exchange",
         "Magic", "Cooking", "Fashion Design"),
        ("Club", "Society", "Circle", "Collective"),
        ("rehearsals", "exhibitions", "open mic nights", "studio sessions", "screenings",
         "workshops with local artists"),
        ("No audition is required for new members.",
         "Members show their work at the end-of-term showcase.",
         "Sessions run on weekday evenings and materials are shared."),
    ),
    ClubCategory(
        "Social Practice", 12,
        ("Rural Education", "Community Mapping", "Urban Gardening", "Startup Incubator",
         "Career Mentoring", "Campus Journalism", "Heritage Survey", "Policy Research",
         "Consumer Rights", "Financial Literacy", "Digital Inclusion", "Oral History",
         "Campus Sustainability"),
        ("Project", "Team", "Network", "Initiative"),
        ("field visits", "community surveys", "planning meetings", "public reports",
         "mentoring sessions"),
        ("Members commit to one field project per term.",
         "Training is given before the first field visit.",
         "Good organisation and a willingness to talk to strangers help."),
    ),
    ClubCategory(
        "Volunteering & Public Welfare", 11,
        ("Blood Donation", "Animal Shelter", "Tutoring", "Elderly Care", "Environmental Cleanup",
         "Food Bank", "Disaster Relief", "Sign Language", "Literacy", "First Aid",
         "Charity Run", "Library Volunteer", "Green Campus"),
        ("Volunteers", "Association", "Team", "Corps"),
        ("volunteer shifts", "fundraising events", "training days", "community visits",
         "awareness campaigns"),
        ("Volunteers give at least two hours a month.",
         "All volunteers receive a short safety briefing first.",
         "Anyone who wants to help is welcome."),
    ),
)


def _club_names(category: ClubCategory, count: int, used: set[str], rng: random.Random
                ) -> list[tuple[str, str]]:
    """``count`` unique (name, topic) pairs for a category."""
    topics = rng.sample(category.topics, len(category.topics))
    nouns = {t: rng.sample(category.nouns, len(category.nouns)) for t in topics}
    candidates = [(f"{t} {nouns[t][r]}", t) for r in range(len(category.nouns)) for t in topics]
    made: list[tuple[str, str]] = []
    suffix = 1
    while len(made) < count:
        for name, topic in candidates:
            if len(made) == count:
                break
            if suffix > 1:
                name = f"{name} {suffix}"
            if name.lower() not in used and snake(name) not in used:
                used.update((name.lower(), snake(name)))
                made.append((name, topic))
        suffix += 1
    return made


def make_clubs(seed: int, scale: float) -> list[Club]:
    rng = stream(seed, scale, "clubs")
    counts = apportion(scaled(CLUBS_AT_SCALE_1, scale), [c.weight for c in CLUB_CATEGORIES])
    used: set[str] = set()
    clubs: list[Club] = []
    for category, count in zip(CLUB_CATEGORIES, counts):
        for name, topic in _club_names(category, count, used, rng):
            email = f"{snake(name)}@email.com"
            first, second = rng.sample(category.activities, 2)
            clubs.append(Club(
                id=f"C{len(clubs):03d}",
                name=name,
                category=category.name,
                description=(f"The {name} brings together students who share an interest in "
                             f"{topic}, through {first} and {second}."),
                recruitment=(f"The {name} is recruiting new members this term. "
                             f"{rng.choice(category.notes)} To join, send a short "
                             f"self-introduction to {email} with your name, major and year "
                             "of study."),
                email=email,
            ))
    return clubs

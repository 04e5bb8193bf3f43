"""The world's domains: each with its state, reducers and tool declarations."""

from campus.subsystems.calendar import CALENDAR
from campus.subsystems.courses import COURSES
from campus.subsystems.email import EMAIL
from campus.subsystems.geography import GEOGRAPHY
from campus.subsystems.information import INFORMATION
from campus.subsystems.people import PEOPLE
from campus.subsystems.reservation import RESERVATION
from campus.subsystems.tasks import TASKS

DOMAINS = (GEOGRAPHY, CALENDAR, EMAIL, RESERVATION, INFORMATION, COURSES, PEOPLE, TASKS)

SYSTEM_TITLES = {
    "map": "Campus map (read-only)",
    "geography": "Geography: your location and walking",
    "calendar": "Calendar",
    "email": "Email",
    "reservation": "Reservation: library seats and rooms",
    "bibliography": "Bibliography: handbooks and textbooks",
    "data_system": "Data system: clubs, advisors and the library catalogue",
    "course_selection": "Course selection",
    "draft": "Draft schedule",
    "registration": "Registration",
    "people": "People: ask advisors, club leaders and librarians",
    "errands": "Errands: today's list, reporting done, waiting",
    "task": "The task itself",
}

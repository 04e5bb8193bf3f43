"""The world's domains: each with its state, reducers and tool declarations."""

from subsystems.calendar import CALENDAR
from subsystems.courses import COURSES
from subsystems.email import EMAIL
from subsystems.geography import GEOGRAPHY
from subsystems.information import INFORMATION
from subsystems.reservation import RESERVATION

DOMAINS = (GEOGRAPHY, CALENDAR, EMAIL, RESERVATION, INFORMATION, COURSES)

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
}

"""The world's domains: each with its state, reducers and tool declarations."""

from subsystems.calendar import CALENDAR
from subsystems.email import EMAIL
from subsystems.geography import GEOGRAPHY

DOMAINS = (GEOGRAPHY, CALENDAR, EMAIL)

SYSTEM_TITLES = {
    "map": "Campus map (read-only)",
    "geography": "Geography: your location and walking",
    "calendar": "Calendar",
    "email": "Email",
}

"""The event vocabulary, its canonical encoding and its hashing."""

from campus.events import model
from campus.events.changes import (
    AdvisorAvailability,
    Announcement,
    CalendarEntry,
    CalendarTime,
    ClueHeld,
    CompareAndSet,
    ErrandPosted,
    Popularity,
    RoomHours,
    RoomStatus,
    SeatAvailability,
    SeatFeatures,
    Span,
    WalkwayStatus,
    WorldChange,
    walkway_key,
)
from campus.events.codec import (
    AGENT_BOUND,
    agent_link,
    canonical,
    chain_hash,
    content_hash,
    decode_event,
    decode_events,
    genesis_hash,
    to_plain,
)
from campus.events.model import *  # noqa: F401,F403
from campus.events.model import SCHEMA_VERSION

__all__ = [name for name in dir(model) if not name.startswith("_") and name[0].isupper()] + [
    "AdvisorAvailability",
    "Announcement",
    "CalendarEntry",
    "CalendarTime",
    "ClueHeld",
    "CompareAndSet",
    "ErrandPosted",
    "RoomHours",
    "RoomStatus",
    "SeatFeatures",
    "WalkwayStatus",
    "walkway_key",
    "Popularity",
    "SCHEMA_VERSION",
    "SeatAvailability",
    "Span",
    "WorldChange",
    "AGENT_BOUND",
    "agent_link",
    "canonical",
    "chain_hash",
    "content_hash",
    "decode_event",
    "decode_events",
    "genesis_hash",
    "to_plain",
]

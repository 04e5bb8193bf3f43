"""The event vocabulary, its canonical encoding and its hashing."""

from events import model
from events.codec import (
    canonical,
    chain_hash,
    content_hash,
    decode_event,
    decode_events,
    genesis_hash,
    to_plain,
)
from events.model import *  # noqa: F401,F403
from events.model import SCHEMA_VERSION

__all__ = [name for name in dir(model) if not name.startswith("_") and name[0].isupper()] + [
    "SCHEMA_VERSION",
    "canonical",
    "chain_hash",
    "content_hash",
    "decode_event",
    "decode_events",
    "genesis_hash",
    "to_plain",
]

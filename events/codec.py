"""Canonical encoding and hashing.

The canonical form of a value is its msgspec JSON encoding with every object's keys and
every Struct's fields sorted, and every float that holds an integer written as that integer
(``25.0`` and ``25`` are the same number, so they must hash the same; ``-0.0`` becomes ``0``).
The stored payload of an event *is* its canonical form, so a log row can be re-hashed
from its bytes alone.

msgspec writes every float that holds an integer below 2**53 (and ``-0.0``) with a ``.0``,
so an encoding without ``.0`` anywhere has nothing to normalise; that test is a substring
search, cheap enough for every event. Anything else (a ``.0`` inside text included) takes
the exact path: decode, turn integral floats into integers, encode again, which leaves
an encoding without such floats byte for byte as it was.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from events.model import AnyEvent, Event
from events.upcast import upcast

_ENCODER = msgspec.json.Encoder(order="sorted")
_MAX_EXACT = 2**53


def _normalise_float(literal: str) -> int | float:
    value = float(literal)
    if value.is_integer() and abs(value) < _MAX_EXACT:
        return int(value)
    return value


_NORMALISER = msgspec.json.Decoder(float_hook=_normalise_float)
_EVENT = msgspec.json.Decoder(AnyEvent)
_EVENTS = msgspec.json.Decoder(list[AnyEvent])


def canonical(value: Any) -> bytes:
    """The canonical JSON bytes of an event, a state or any msgspec-encodable value."""
    raw = _ENCODER.encode(value)
    if b".0" not in raw:
        return raw
    return _ENCODER.encode(_NORMALISER.decode(raw))


def decode_event(payload: bytes | str) -> Event:
    return _EVENT.decode(payload)


def decode_events(payloads: list[bytes] | list[str]) -> list[Event]:
    """Decode many payloads in one C call (about twice as fast as one at a time)."""
    if not payloads:
        return []
    if isinstance(payloads[0], str):
        joined = "[" + ",".join(payloads) + "]"  # type: ignore[arg-type]
    else:
        joined = b"[" + b",".join(payloads) + b"]"  # type: ignore[arg-type]
    return _EVENTS.decode(joined)


def decode_legacy(payload: bytes | str, schema: int) -> Event:
    """Decode a payload written under an older schema, upcasting it first."""
    raw = msgspec.json.decode(payload)
    return msgspec.convert(upcast(raw, schema), AnyEvent)


def to_plain(value: Any) -> Any:
    """A value as plain JSON-compatible Python (dicts, lists, str, numbers)."""
    return msgspec.json.decode(canonical(value))


def chain_hash(prev: str, t: int, payload: bytes) -> str:
    """The hash of one log row: sha256 over the previous hash, the simulated time and the payload."""
    digest = hashlib.sha256(prev.encode("ascii"))
    digest.update(b"|%d|" % t)
    digest.update(payload)
    return digest.hexdigest()


def genesis_hash(world_hash: str, term_hash: str, seed: int, config: dict[str, Any]) -> str:
    """The hash a branch's chain starts from: it binds the world, the term, the seed and the rules."""
    body = canonical({"world": world_hash, "term": term_hash, "seed": seed, "config": config})
    return hashlib.sha256(b"campus-genesis|" + body).hexdigest()


def content_hash(value: Any) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()

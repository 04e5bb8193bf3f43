"""Canonical encoding and hashing.

The canonical form of a value is its msgspec JSON encoding with every object's keys and
every Struct's fields sorted, and every float that holds an integer written as that integer
(``25.0`` and ``25`` are the same number, so they must hash the same; ``-0.0`` becomes ``0``).
The stored payload of an event *is* its canonical form, so a log row can be re-hashed
from its bytes alone.

msgspec writes every float that holds an integer below 2**53 (and ``-0.0``) with a ``.0``,
so an encoding without ``.0`` anywhere has nothing to normalise; that test is a regular
expression search (a few times faster than ``in`` on long payloads full of zeros, such as a
seat listing), cheap enough for every event. Anything else (a ``.0`` inside text included) takes
the exact path: decode, turn integral floats into integers, encode again, which leaves
an encoding without such floats byte for byte as it was.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from typing import Any, cast

import msgspec

from campus.events.model import AnyEvent, Event
from campus.events.upcast import older_versions, upcast

_ENCODER = msgspec.json.Encoder(order="sorted")
_MAX_EXACT = 2**53
_POINT_ZERO = re.compile(rb"\.0").search


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
    return _exact(_ENCODER.encode(value))


def canonical_many(values: Sequence[Any]) -> list[bytes]:
    """``[canonical(v) for v in values]``, with one search for ``.0`` over all the encodings together
    (the per-value exact path only when that search finds one)."""
    encode = _ENCODER.encode
    raws = [encode(value) for value in values]
    return raws if _POINT_ZERO(b"".join(raws)) is None else [_exact(raw) for raw in raws]


def _exact(raw: bytes) -> bytes:
    """An encoding as canonical bytes: a float written with ``.0`` is re-encoded through the normaliser."""
    if _POINT_ZERO(raw) is None:
        return raw
    return _ENCODER.encode(_NORMALISER.decode(raw))


def decode_event(payload: bytes | str) -> Event:
    """Decode one stored payload, of the current schema or (upcast) of an older one."""
    try:
        return _EVENT.decode(payload)
    except msgspec.ValidationError:
        return decode_older(payload, AnyEvent)
    except RecursionError:
        raise TooDeep() from None


class TooDeep(msgspec.DecodeError):
    """JSON nested past what the decoder can follow (~1,000 levels; nothing campus writes comes near it): a value
    edited into a file, read as any other value that does not decode (msgspec itself raises ``RecursionError``)."""

    def __init__(self, what: str = "an event") -> None:
        super().__init__(f"JSON nested too deeply to be {what}")


class MalformedEvent(ValueError):
    """A stored payload that is no event, named by its place in the batch or, where the caller knows it, its seq
    (not by a byte offset in the joined batch, which names nothing the user can look up)."""

    def __init__(self, index: int, reason: str, seq: int | None = None) -> None:
        where = f"seq {seq}" if seq is not None else f"position {index + 1} of the batch"
        super().__init__(f"the event at {where} is not a valid event ({reason})")
        self.index, self.reason = index, reason


def decode_events(payloads: Sequence[bytes] | Sequence[str]) -> list[Event]:
    """Decode many payloads in one C call (about twice as fast as one at a time).

    A batch holding a payload of an older schema falls back to one payload at a time; one holding a payload that is
    no event raises ``MalformedEvent``.
    """
    if not payloads:
        return []
    joined: bytes | str
    if isinstance(payloads[0], bytes):
        joined = b"[" + b",".join(cast(Sequence[bytes], payloads)) + b"]"
    else:
        joined = "[" + ",".join(cast(Sequence[str], payloads)) + "]"
    try:
        try:
            return cast(list[Event], _EVENTS.decode(joined))
        except msgspec.ValidationError:
            return [decode_event(payload) for payload in payloads]
    except (msgspec.DecodeError, RecursionError):  # a ValidationError too
        raise _malformed(payloads) from None


def _malformed(payloads: Sequence[bytes] | Sequence[str]) -> MalformedEvent:
    for index, payload in enumerate(cast(Sequence[bytes | str], payloads)):
        try:
            decode_event(payload)
        except msgspec.DecodeError as error:
            return MalformedEvent(index, str(error))
    return MalformedEvent(len(payloads) - 1, "the batch did not decode, though each of its payloads does")


def event_decoder(event_type: type[Event]) -> Callable[[bytes | str], Event]:
    """A decoder for one event type that also reads the payloads older schemas wrote for it."""
    fast = msgspec.json.Decoder(event_type).decode

    def decode(payload: bytes | str) -> Event:
        try:
            return fast(payload)
        except msgspec.ValidationError:
            return decode_older(payload, event_type)
        except RecursionError:
            raise TooDeep() from None

    return decode


def decode_older(payload: bytes | str, target: Any) -> Any:
    """A payload that the current schema refuses, read as one of each older schema in turn.

    Raises the current schema's error when no older schema reads it either.
    """
    try:
        raw = msgspec.json.decode(payload)
    except RecursionError:
        raise TooDeep() from None
    try:
        return msgspec.convert(raw, target)
    except msgspec.ValidationError as current:
        if not isinstance(raw, dict):
            raise
        for schema in older_versions():
            try:
                return msgspec.convert(upcast(raw, schema), target)
            except msgspec.ValidationError:
                continue
        raise current from None


def to_plain(value: Any) -> Any:
    """A value as plain JSON-compatible Python (dicts, lists, str, numbers)."""
    return msgspec.json.decode(canonical(value))


def chain_hash(prev: str, t: int, payload: bytes) -> str:
    """The hash of one log row: sha256 over the previous hash, the simulated time and the payload
    (one buffer hashed at once: fewer calls than feeding the three parts in turn, the same digest)."""
    return _sha256(b"%s|%d|%s" % (prev.encode("ascii"), t, payload)).hexdigest()


_sha256 = hashlib.sha256


AGENT_BOUND = "agent_bound"
"""The rules flag of runs whose chain binds their agent (runs recorded before it do not)."""

RULES = "rules"
"""The config key naming the version of the world's rules a run's handlers follow (absent: version 1)."""

RULES_VERSION = 3
"""The rules new runs are played under. 1: a library seat's opening is drawn seat by seat and a listing shows
every seat's features and free times in both the message and the data. 2: one draw per (room, date) and a
compact listing (short seat ids, free times said once per room, the data without features). 3: the same, and
``errands.inbox`` lists errands by number and ``errands.wait_until`` hands out meetings' errands by their end, where
2 followed the state's dict order, which a snapshot's canonical encoding sorts: a run resumed or forked past a
snapshot listed them otherwise than its verify did; and a reply giving a keyword twice is refused on every path of
the parser (``kernel.parse.parse_reply(strict=...)``), where 2's literal fast path could read one."""


def rules_of(config: dict[str, Any]) -> int:
    """The version of the world's rules a run with this config was played under (0: the value is not a version)."""
    version = config.get(RULES, 1)
    return version if type(version) is int else 0


def genesis_hash(world_hash: str, term_hash: str, seed: int, config: dict[str, Any], agent: str) -> str:
    """The hash a branch's chain starts from: it binds the world, the term, the seed, the rules and,
    when the rules say so (``config["agent_bound"]``), the agent."""
    fields: dict[str, Any] = {"world": world_hash, "term": term_hash, "seed": seed, "config": config}
    if config.get(AGENT_BOUND):
        fields["agent"] = agent
    return hashlib.sha256(b"campus-genesis|" + canonical(fields)).hexdigest()


def agent_link(prev: str, agent: str) -> str:
    """What a fork's first own row chains from when it changes agent: the hash before it, bound to the new agent."""
    return hashlib.sha256(b"campus-agent|" + prev.encode("ascii") + b"|" + agent.encode("utf-8")).hexdigest()


def digest(data: bytes) -> str:
    """The name stored bytes go by (a world, a term, a snapshot piece): their sha256, in hex."""
    return hashlib.sha256(data).hexdigest()


def content_hash(value: Any) -> str:
    return digest(canonical(value))

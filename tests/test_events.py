"""The vocabulary: canonical encoding, hashing, round trips and upcasting."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import events
from events import (
    EVENT_TYPES,
    KINDS,
    ToolCalled,
    Walked,
    canonical,
    chain_hash,
    content_hash,
    decode_event,
    decode_events,
    genesis_hash,
)
from events.codec import decode_legacy
from events.upcast import UPCASTERS, register


def call(args: dict) -> ToolCalled:
    return ToolCalled(call_id="call-1", task_id="t", tool="map.find_building_id", args=args)


def test_integral_floats_hash_like_integers() -> None:
    assert canonical(call({"n": 25})) == canonical(call({"n": 25.0}))
    assert content_hash(call({"n": [1, 2.0, {"x": -0.0}]})) == content_hash(call({"n": [1, 2, {"x": 0}]}))
    assert canonical(call({"n": 25.5})) != canonical(call({"n": 25}))


def test_keys_are_sorted_whatever_the_insertion_order() -> None:
    assert canonical(call({"b": 1, "a": {"d": 1, "c": 2}})) == canonical(call({"a": {"c": 2, "d": 1}, "b": 1}))
    assert canonical(call({"a": 1})).startswith(b'{"args":{"a":1},"call_id"')


def test_strings_that_look_like_numbers_are_left_alone() -> None:
    encoded = canonical(call({"text": "version 2.0 and 1e3"}))
    assert b'"version 2.0 and 1e3"' in encoded


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), st.recursive(
    st.none() | st.booleans() | st.integers(-2**60, 2**60) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
), max_size=6))
def test_canonical_is_stable_under_round_trip(args: dict) -> None:
    event = call(args)
    once = canonical(event)
    again = canonical(decode_event(once))
    assert once == again


def test_every_kind_round_trips_and_tags_are_unique() -> None:
    assert len(KINDS) == len(EVENT_TYPES)
    walked = Walked(path=["B001", "B002"], depart=10, arrive=15)
    assert decode_event(canonical(walked)) == walked
    batch = [walked, call({"x": 1})]
    assert decode_events([canonical(e) for e in batch]) == batch
    assert decode_events([canonical(e).decode() for e in batch]) == batch


def test_events_are_frozen() -> None:
    walked = Walked(path=["B001", "B002"], depart=10, arrive=15)
    with pytest.raises(AttributeError):
        walked.depart = 3  # type: ignore[misc]


def test_unknown_kind_is_rejected() -> None:
    with pytest.raises(msgspec.ValidationError):
        decode_event(b'{"kind":"no_such_event"}')


def test_chain_hash_binds_previous_hash_time_and_payload() -> None:
    payload = canonical(call({}))
    base = chain_hash("0" * 64, 10, payload)
    assert base != chain_hash("1" * 64, 10, payload)
    assert base != chain_hash("0" * 64, 11, payload)
    assert base != chain_hash("0" * 64, 10, canonical(call({"a": 1})))


def test_genesis_binds_world_term_seed_and_config() -> None:
    base = genesis_hash("w", "t", 0, {"round_limit": 20})
    assert base == genesis_hash("w", "t", 0, {"round_limit": 20.0})
    assert len({base, genesis_hash("w2", "t", 0, {}), genesis_hash("w", "t2", 0, {}), genesis_hash("w", "t", 1, {})}) == 4


def test_upcasters_convert_old_payloads() -> None:
    @register(0, "walked")
    def rename(raw: dict) -> dict:
        raw = dict(raw)
        raw["path"] = raw.pop("route")
        return raw

    try:
        old = b'{"kind":"walked","route":["B001","B002"],"depart":1,"arrive":2}'
        assert decode_legacy(old, schema=0) == Walked(path=["B001", "B002"], depart=1, arrive=2)
        current = canonical(Walked(path=["B001"], depart=1, arrive=1))
        assert decode_legacy(current, schema=events.SCHEMA_VERSION) == decode_event(current)
    finally:
        UPCASTERS.pop(0, None)

"""State fields held as tuples instead of lists (fewer objects the cyclic GC tracks per decoded state) encode
byte for byte as the lists did, so state hashes and stored snapshots keep their meaning."""

from __future__ import annotations

import gc

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.events import ClueHeld, ErrandAtMeeting, SeatFeatures, WorldChanged, canonical
from campus.kernel.history import full_fold
from campus.scenarios.play import Run, build_kernel, load_world
from campus.subsystems.calendar import Entry
from campus.subsystems.reservation import ReservationState, libraries


class _ListFeatures(msgspec.Struct, kw_only=True):
    """``ReservationState.features`` as it was before: a list per seat."""

    features: dict[str, list[str]] = {}


_names = st.text(alphabet="abcdefgh_-0123456789", min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_names, st.lists(_names, max_size=6), max_size=8))
def test_seat_features_as_tuples_encode_and_decode_as_the_lists_did(features: dict[str, list[str]]) -> None:
    before = canonical(_ListFeatures(features=features))
    now = ReservationState(features={seat: tuple(have) for seat, have in features.items()})
    assert canonical({"features": now.features}) == before
    decoded = msgspec.json.decode(canonical(now), type=ReservationState)
    assert all(type(have) is tuple for have in decoded.features.values())
    assert canonical(decoded) == canonical(now)
    assert msgspec.json.decode(before, type=_ListFeatures).features == {k: list(v) for k, v in decoded.features.items()}


def test_the_seat_features_reducer_stores_a_tuple_whose_state_encodes_as_a_list() -> None:
    world = load_world("generated", 0)
    kernel = build_kernel(world)
    state = kernel.projection.initial()
    place = libraries(world).places[0]
    seat = next(r for r in place.rooms if r.seats).seats[0]
    room = next(r for r in place.rooms if seat in r.seats)
    change = SeatFeatures(building_id=place.building_id, room_id=room.id, seat_id=seat.id, old=tuple(seat.features), new=["good_wifi", "sofa_area"])  # type: ignore[arg-type]
    kernel.projection.apply(state, 1, 10, WorldChanged(change_id="", change=change, rule="r1", cause=0))
    assert state.reservation.features == {seat.id: ("good_wifi", "sofa_area")}
    assert f'"features":{{"{seat.id}":["good_wifi","sofa_area"]}}'.encode() in canonical(state.reservation)
    reread = kernel.projection.decode(kernel.projection.encode(state))
    assert reread.reservation.features == state.reservation.features
    assert kernel.projection.state_hash(reread) == kernel.projection.state_hash(state)


def _values(value: object) -> list[object]:
    """Every Struct, list, tuple and dict inside ``value`` (itself included)."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        found.append(item)
        if isinstance(item, msgspec.Struct):
            stack.extend(getattr(item, name) for name in item.__struct_fields__)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return found


def test_a_decoded_state_tracks_no_calendar_entry_or_clue_and_encodes_as_folded(oracle_full: Run) -> None:
    """Calendar entries, clues and meeting errands are never tracked by the cyclic GC (``gc=False``: they hold no
    container that could close a cycle), and a state decoded from its encoding is that encoding again."""
    projection = oracle_full.kernel.projection
    folded = full_fold(oracle_full.kernel, oracle_full.store, oracle_full.branch.id)
    decoded = projection.decode(projection.encode(folded))
    assert projection.encode(decoded) == projection.encode(folded)
    assert projection.state_hash(decoded) == projection.state_hash(folded)
    untracked = (Entry, ClueHeld, ErrandAtMeeting)
    kept = [v for v in _values(folded) + _values(decoded) if isinstance(v, untracked)]
    assert any(isinstance(v, Entry) for v in kept) and any(isinstance(v, ClueHeld) for v in kept)
    assert not any(gc.is_tracked(v) for v in kept)

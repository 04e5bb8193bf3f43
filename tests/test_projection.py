"""Projection: state is a fold of the log, and snapshots are only a cache."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campus.agents import make_agent
from campus.kernel.history import full_fold, state_at
from campus.kernel.runner import Session
from campus.kernel.projection import Domain, Projection
from campus.kernel.store import MemoryStore
from campus.scenarios.play import Run, new_run
from tests.conftest import play

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def played(world, small_term) -> Run:
    return play(MemoryStore(), world, small_term, "oracle")


def encoded(run: Run, state) -> bytes:
    return run.kernel.projection.encode(state)


@SETTINGS
@given(data=st.data())
def test_snapshot_plus_tail_equals_full_fold(played: Run, data: st.DataObject) -> None:
    head = played.store.head(played.branch.id)[0]
    target = data.draw(st.integers(0, head), label="target")
    cut = data.draw(st.integers(0, target), label="snapshot at")
    projection = played.kernel.projection
    snapshot = full_fold(played.kernel, played.store, played.branch.id, cut)
    resumed = projection.decode(projection.encode(snapshot))
    projection.fold_rows(resumed, played.store.rows(played.branch.id, cut + 1, target))
    if cut == target:
        resumed.seq, resumed.now = snapshot.seq, snapshot.now
    assert encoded(played, resumed) == encoded(played, full_fold(played.kernel, played.store, played.branch.id, target))


def test_stored_snapshots_change_no_answer(world, small_term) -> None:
    store = MemoryStore()
    run = play(store, world, small_term, "oracle")
    head = store.head(run.branch.id)[0]
    probes = range(0, head + 1, max(1, head // 40))
    without = [encoded(run, state_at(run.kernel, store, run.branch.id, s)) for s in probes]
    for s in range(1, head, 37):
        state = full_fold(run.kernel, store, run.branch.id, s)
        store.put_snapshot(run.branch.id, s, run.kernel.projection.encode(state), run.kernel.projection.state_hash(state))
    with_snapshots = [encoded(run, state_at(run.kernel, store, run.branch.id, s)) for s in probes]
    store.drop_snapshots()
    dropped = [encoded(run, state_at(run.kernel, store, run.branch.id, s)) for s in probes]
    assert without == with_snapshots == dropped
    assert len(set(without)) > 10, "the probes must see the state change"


def test_runner_snapshots_agree_with_a_full_fold(world, small_term) -> None:
    store = MemoryStore()
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    Session(run.kernel, store, run.branch.id, small_term, make_agent("oracle", small_term, world), snapshot_every=100).run()
    snap = store.snapshot_at_or_before(run.branch.id, 10**9)
    assert snap is not None and snap.seq >= 100
    full = full_fold(run.kernel, store, run.branch.id, snap.seq)
    assert run.kernel.projection.encode(full) == snap.state
    assert run.kernel.projection.state_hash(full) == snap.state_hash


def test_state_tracks_time_and_sequence(played: Run) -> None:
    rows = played.store.rows(played.branch.id)
    middle = rows[len(rows) // 2]
    state = state_at(played.kernel, played.store, played.branch.id, middle.seq)
    assert (state.seq, state.now) == (middle.seq, middle.t)


def test_domains_must_have_unique_names() -> None:
    import msgspec

    class Part(msgspec.Struct):
        x: int = 0

    part = Domain(name="a", state_type=Part, initial=lambda world: Part())
    with pytest.raises(ValueError, match="unique"):
        Projection([part, part], world=None)

"""Verify's shortcuts against the comparisons they skip: a call read from a reply matched field by field
(only when every argument is text) against the byte comparison, and the chain check without agent links
against the general one, on a real run with its rows edited."""

from __future__ import annotations

import hashlib

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from campus.agents import make_agent
from campus.events import ToolCalled, canonical, chain_hash
from campus.kernel.parse import Call
from campus.kernel.store import MemoryStore, Row
from campus.kernel.history import full_fold
from campus.replays.verify import _APPLIED, Mismatch, _Chain, _same_call, _snapshot_mismatch, batches, verify
from campus.scenarios.play import new_run, open_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex

texts = st.text(max_size=6)
values = st.one_of(texts, st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False, width=16), st.booleans(),
                   st.none(), st.lists(texts, max_size=2))
arguments = st.dictionaries(st.sampled_from(["a", "b", "room_id", "date"]), values, max_size=3)
positionals = st.lists(values, max_size=2)


@st.composite
def call_and_event(draw: st.DrawFn) -> tuple[Call, ToolCalled, int]:
    """A reply's call and a logged call that is it, or it with one field changed, or any other."""
    call = Call(name=draw(st.sampled_from(["reservation.book", "geography.walk_to"])), args=draw(arguments),
                positional=draw(positionals))
    calls = draw(st.integers(0, 3))
    same = ToolCalled(call_id=f"call-{calls + 1}", task_id="t1", tool=call.name, args=dict(call.args),
                      positional=list(call.positional))
    edit = draw(st.sampled_from(["none", "call_id", "task_id", "tool", "args", "positional"]))
    if edit == "none":
        return call, same, calls
    changed = {"call_id": f"call-{calls + draw(st.sampled_from([0, 2]))}", "task_id": "t2", "tool": "email.send",
               "args": draw(arguments), "positional": draw(positionals)}[edit]
    return call, msgspec.structs.replace(same, **{edit: changed}), calls


@settings(max_examples=400, deadline=None)
@given(call_and_event())
def test_same_call_only_when_the_bytes_agree(case: tuple[Call, ToolCalled, int]) -> None:
    call, event, calls = case
    expected = ToolCalled(call_id=f"call-{calls + 1}", task_id="t1", tool=call.name, args=dict(call.args),
                          positional=list(call.positional))
    same_bytes = canonical(event) == canonical(expected)
    fast = _same_call(event, call, "t1", calls)
    if fast:
        assert same_bytes
    all_text = all(type(v) is str for v in [*call.args.values(), *call.positional])
    if all_text:
        assert fast == same_bytes  # where every argument is text, the shortcut decides alone


def test_same_call_refuses_what_equals_but_encodes_otherwise() -> None:
    """``True == 1`` and ``1 == 1.0`` in Python, not in the log: such arguments go to the byte comparison."""
    event = ToolCalled(call_id="call-1", task_id="t1", tool="x.y", args={"n": 1}, positional=[])
    assert not _same_call(event, Call(name="x.y", args={"n": True}), "t1", 0)
    assert canonical(event) != canonical(msgspec.structs.replace(event, args={"n": True}))
    assert not _same_call(event, Call(name="x.y", args={"n": 1}), "t1", 0)  # not text: left to the bytes
    assert _same_call(msgspec.structs.replace(event, args={"n": "1"}), Call(name="x.y", args={"n": "1"}), "t1", 0)


def test_applied_kinds_hold_no_clock_composition_or_judgement() -> None:
    from campus.events import AgentReplied, DayStarted, TaskComposed, TaskEnded, TaskReleased, WorldChanged
    assert not _APPLIED & {DayStarted, TaskComposed, TaskEnded, TaskReleased, WorldChanged}
    assert {AgentReplied, ToolCalled} <= _APPLIED


@pytest.fixture(scope="module")
def played(world: WorldIndex, small_term: Term) -> tuple[MemoryStore, str, list[Row]]:
    store = MemoryStore()
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    run.session(make_agent("oracle", small_term, world)).run()
    assert verify(run).ok
    return store, run.branch.id, [row for rows in batches(run) for row in rows]


def _both(genesis: str, rows: list[Row]) -> tuple[object, object]:
    """The chain check without links (the shortcut) and with a link past the log's end (the general loop)."""
    payloads = [row.payload.encode() for row in rows]
    fast, general = _Chain(genesis, {}), _Chain(genesis, {len(rows) + 10: "nobody"})
    results = []
    for chain in (fast, general):
        found = None
        for first in range(0, len(rows), 7):
            found = chain.check(rows[first:first + 7], payloads[first:first + 7])
            if found is not None:
                break
        results.append(found)
    return results[0], results[1]


@pytest.mark.parametrize("edit", ["none", "hash", "payload", "time", "seq", "drop"])
def test_unlinked_chain_check_is_the_general_one(played: tuple[MemoryStore, str, list[Row]], edit: str) -> None:
    store, branch, rows = played
    genesis = store.branch(branch).genesis
    at = len(rows) // 3
    row = rows[at]
    edited = list(rows)
    if edit == "hash":
        edited[at] = row._replace(hash=chain_hash(row.hash, row.t, b"x"))
    elif edit == "payload":
        edited[at] = row._replace(payload=row.payload.replace('"', "'", 1))
    elif edit == "time":
        edited[at] = row._replace(t=row.t + 1)
    elif edit == "seq":
        edited[at] = row._replace(seq=row.seq + 1)
    elif edit == "drop":
        del edited[at]
    fast, general = _both(genesis, edited)
    assert fast == general
    assert (fast is None) == (edit == "none")
    if fast is not None:
        assert fast.seq == at + 1  # type: ignore[attr-defined]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("edit", ["none", "bytes", "hash", "forged"])
def test_snapshot_check_is_the_hash_comparison(played: tuple[MemoryStore, str, list[Row]], edit: str) -> None:
    """The snapshot check compares bytes and hashes once; it gives what comparing the stored hash (``None`` where
    the bytes do not hash to it) with the folded state's hash gave, as a step and as the whole verify."""
    store, branch, rows = played
    run = open_run(store, branch)
    at = len(rows) // 2
    state = full_fold(run.kernel, store, branch, at)
    good = run.kernel.projection.encode(state)
    forged = good.replace(b'"turns":', b'"turns":1', 1)
    assert forged != good
    stored, digest = {"none": (good, _sha(good)), "bytes": (forged, _sha(good)), "hash": (good, _sha(b"x")),
                      "forged": (forged, _sha(forged))}[edit]
    store.put_snapshot(branch, at, stored, digest)
    try:
        actual = digest if _sha(stored) == digest else None
        expected = run.kernel.projection.state_hash(state)
        old = None if actual == expected else Mismatch(seq=at, check="snapshot", expected=expected, actual=actual)
        assert (old is None) == (edit == "none")
        assert _snapshot_mismatch(run, at, good) == old
        assert verify(run).mismatch == old
    finally:
        store.put_snapshot(branch, at, good, _sha(good))


TAMPERED = "babe3207f26f0e0f1c0a5c3d599f0df97f7a6dfef2d7d79eee5a50e668f68f43"
"""The digest of what verify named for every tampered log below, as the isinstance-chain place checks (before
``_PLANS``) named it: the sequence checks decided once per event type must name the same seq, check and text.
Re-pinned whenever the term changes: computed with that chain's ``replays/verify.py`` (from f96e0b9's parent) put
back into the current tree (``6434d08b...`` before the questions' decoy pairs, ``3207a399...`` before the
lineups, ``1b29984b...`` before the number-alone lecture questions, ``caa01f3d...`` before the cap on a reading's articles,
``4eede9d9...`` before the course steps that need memory, ``507b23eb...`` before the walks whose conditions change
the route, ``79272957...`` before the tasks held from their start). On the term between those two, two of the
tampered logs expected a day's start that the chain's verify words without the student's reset place
(``2fe646f1...``), the seq, check and every other text the same. On the term of ``d8a5c821...`` four such day
starts differed in that way, and the chain's verify let two tampered logs through (a lecture's handed-out text moved
or dropped: it knows nothing of ``TaskCard.opens``); on today's two day starts differ in that way and every other
finding agrees, so the pin is today's code's."""


def test_place_checks_name_what_the_chain_of_checks_named(played: tuple[MemoryStore, str, list[Row]],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    import campus.replays.verify as module

    store, branch, rows = played
    genesis = store.branch(branch).genesis
    run = open_run(store, branch)
    monkeypatch.setattr(module, "_snapshots", lambda run: set())  # the place checks alone, whatever snapshots the play stored

    def rechained(edited: list[Row], at: int) -> list[Row]:
        """``edited`` numbered and chained again from index ``at`` (the rows before it are the played ones, unchanged)."""
        out, prev = edited[:at], edited[at - 1].hash if at else genesis
        for seq, row in enumerate(edited[at:], at + 1):
            prev = chain_hash(prev, row.t, row.payload.encode())
            out.append(Row(seq, row.t, row.kind, row.payload, prev, row.meta))
        return out

    found: list[object] = []
    for at in range(1, len(rows) - 1, 61):
        for edit in ("swap", "drop"):
            edited = list(rows)
            if edit == "swap":
                edited[at], edited[at + 1] = edited[at + 1], edited[at]
            else:
                del edited[at]
            fake = rechained(edited, at)
            monkeypatch.setattr(module, "batches", lambda run, fake=fake: iter([fake]))
            mismatch = verify(run).mismatch
            assert mismatch is not None
            found.append((at, edit, (mismatch.seq, mismatch.check, str(mismatch.expected), str(mismatch.actual))))
    assert len(found) == 164 and {entry[2][1] for entry in found} == {"sequence", "re-execution"}  # type: ignore[index]
    assert hashlib.sha256(json.dumps(found).encode()).hexdigest() == TAMPERED

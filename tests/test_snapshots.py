"""Snapshots in shared pieces: they join to the state's canonical encoding, share the chunks of
lists that only grow, seek to the same state as a full fold, and an altered piece is never used."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Literal

import msgspec
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from campus.agents import make_agent
from campus.events import canonical
from campus.kernel.history import full_fold, restore, state_at
from campus.kernel.snapshots import (
    MAP_CHUNK, MAP_MIN_BYTES, SKELETON, Manifest, PieceCache, SnapshotWriter, _ends_chunk, _immutable, assemble, decode_manifest, encode_manifest, load, shared_fields,
    unpack,
)
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.replays.verify import verify
from campus.scenarios.play import Run, new_run, open_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex


def test_the_shared_fields_are_the_append_only_lists_then_the_maps_of_immutable_values(oracle_full: Run) -> None:
    shared = [(s.part, s.field, s.kind) for s in oracle_full.kernel.projection.shared_fields]
    assert shared[:2] == [("email", "sent", "list"), ("reservation", "bookings", "list")], \
        "the lists keep the indices that manifests written before shared maps name them by"
    maps = {(part, field): kind for part, field, kind in shared[2:]}
    assert len(maps) == len(shared) - 2 and set(maps.values()) == {"map", "maps"}
    assert {("session", "outcomes"), ("rules", "versions"), ("reservation", "features"), ("people", "clues")} <= \
        {field for field, kind in maps.items() if kind == "map"}
    assert maps[("calendar", "calendars")] == "maps", "a map of maps of frozen entries is shared, each inner map copied"
    assert not maps.keys() & {("calendar", "availability"), ("reservation", "shaped"), ("people", "errands")}, \
        "a map whose values are lists or mutable Structs is never shared: a reducer may change a value in place"


def test_an_immutable_type_is_one_no_reducer_can_change_in_place() -> None:
    class Frozen(msgspec.Struct, frozen=True):
        name: str
        tags: tuple[str, ...]

    class FrozenWithList(msgspec.Struct, frozen=True):
        items: list[str]

    class Loose(msgspec.Struct):
        name: str

    for hint in (str, int, tuple[str, ...], tuple[int, str], Literal["a", "b"], Frozen, str | None):
        assert _immutable(hint), hint
    for hint in (list[str], dict[str, int], Loose, FrozenWithList, tuple[str, list[int]]):
        assert not _immutable(hint), hint


def test_pieces_join_to_the_encoding_and_load_to_the_state(oracle_full: Run) -> None:
    projection, head = oracle_full.kernel.projection, oracle_full.store.head(oracle_full.branch.id)[0]
    writer, cache = projection.writer(chunk_items=3), PieceCache()
    chunked = 0
    for seq in range(head // 4, head + 1, head // 4):
        state = full_fold(oracle_full.kernel, oracle_full.store, oracle_full.branch.id, seq)
        manifest_bytes, state_hash, pieces = writer.pieces(state)
        manifest = decode_manifest(manifest_bytes)
        assert manifest is not None and manifest.packed
        assert assemble(manifest, pieces) == projection.encode(state)
        assert sum(map(len, pieces.values())) * 3 < len(projection.encode(state)), "stored pieces are compressed"
        assert state_hash == projection.state_hash(state)
        chunked += sum(i != SKELETON for i in manifest.lists)
        for _ in range(2):  # cold, then from the cache
            loaded = load(manifest, lambda keys: {k: pieces[k] for k in keys}, projection.decode, projection.shared_fields, cache)
            assert projection.encode(loaded) == projection.encode(state)
    assert chunked > 20, "the run must send enough mail and make enough bookings to fill chunks"


def test_full_chunks_are_shared_by_later_snapshots(oracle_full: Run) -> None:
    branch, projection = oracle_full.branch.id, oracle_full.kernel.projection
    writer, head = projection.writer(chunk_items=3), oracle_full.store.head(branch)[0]
    earlier = writer.pieces(full_fold(oracle_full.kernel, oracle_full.store, branch, head // 2))
    later = writer.pieces(full_fold(oracle_full.kernel, oracle_full.store, branch, head))
    first, second = decode_manifest(earlier.manifest), decode_manifest(later.manifest)
    assert first is not None and second is not None
    full = {k for k, i in zip(first.pieces, first.lists) if i != SKELETON and _items(unpack(first, earlier.pieces[k])) == 3}
    assert len(full) > 5 and full <= set(second.pieces)
    new = set(second.pieces) - set(first.pieces)
    assert sum(len(later.pieces[k]) for k in new) < sum(len(data) for data in later.pieces.values())


def _items(chunk: bytes) -> int:
    return chunk.count(b'"email_id":') + chunk.count(b'"booking_id":')


def _snapshotted(store, world: WorldIndex, small_term: Term) -> tuple[Run, list[int]]:
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    run.session(make_agent("oracle", small_term, world), snapshot_every=97).run()
    head = store.head(run.branch.id)[0]
    writer = run.kernel.projection.writer(chunk_items=2, map_min_bytes=1)
    for seq in range(50, head, 131):
        store.put_snapshot(run.branch.id, seq, *writer.pieces(full_fold(run.kernel, store, run.branch.id, seq)))
    old = 40  # a snapshot as files before pieces stored it: the whole encoding in the row
    state = full_fold(run.kernel, store, run.branch.id, old)
    store.put_snapshot(run.branch.id, old, run.kernel.projection.encode(state), run.kernel.projection.state_hash(state))
    return run, list(range(0, head + 1, max(1, head // 60)))


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_seeking_through_pieces_gives_the_full_fold(world: WorldIndex, small_term: Term, tmp_path: Path, kind: str) -> None:
    store = MemoryStore() if kind == "memory" else SQLiteStore(tmp_path / "runs.db")
    run, probes = _snapshotted(store, world, small_term)
    encode = run.kernel.projection.encode
    folded = [encode(full_fold(run.kernel, store, run.branch.id, s)) for s in probes]
    assert [encode(state_at(run.kernel, store, run.branch.id, s)) for s in probes] == folded
    assert verify(run).ok
    store.drop_snapshots()
    assert [encode(state_at(run.kernel, store, run.branch.id, s)) for s in probes] == folded
    if isinstance(store, SQLiteStore):
        assert store.conn.execute("SELECT count(*) FROM snapshot_pieces").fetchone()[0] == 0
    store.close()


def _tampered_copy(world: WorldIndex, small_term: Term, tmp_path: Path, edit) -> tuple[SQLiteStore, Run, int]:
    path = tmp_path / "runs.db"
    store = SQLiteStore(path)
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    run.session(make_agent("oracle", small_term, world), snapshot_every=10**9).run()
    at = store.head(run.branch.id)[0] // 2
    writer = run.kernel.projection.writer(chunk_items=2, map_min_bytes=1)
    store.put_snapshot(run.branch.id, at, *writer.pieces(full_fold(run.kernel, store, run.branch.id, at)))
    store.close()
    conn = sqlite3.connect(path, isolation_level=None)
    edit(conn, at)
    conn.close()
    store = SQLiteStore(path)
    return store, open_run(store, run.branch.id), at


def _chunk_of(conn: sqlite3.Connection, at: int) -> tuple[Manifest, int]:
    manifest = decode_manifest(bytes(conn.execute("SELECT state FROM snapshots WHERE seq = ?", (at,)).fetchone()[0]))
    assert manifest is not None
    return manifest, next(n for n, i in enumerate(manifest.lists) if i != SKELETON)


def test_a_piece_with_edited_bytes_is_never_used_and_verify_names_it(world: WorldIndex, small_term: Term, tmp_path: Path) -> None:
    def edit(conn: sqlite3.Connection, at: int) -> None:
        manifest, n = _chunk_of(conn, at)
        data = bytes(conn.execute("SELECT data FROM snapshot_pieces WHERE hash = ?", (manifest.pieces[n],)).fetchone()[0])
        conn.execute("UPDATE snapshot_pieces SET data = ? WHERE hash = ?", (data[:-1] + bytes([data[-1] ^ 1]), manifest.pieces[n]))

    store, run, at = _tampered_copy(world, small_term, tmp_path, edit)
    encode = run.kernel.projection.encode
    assert encode(state_at(run.kernel, store, run.branch.id, at + 3)) == encode(full_fold(run.kernel, store, run.branch.id, at + 3))
    report = verify(run)
    assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (at, "snapshot")
    store.close()


def test_a_forged_piece_with_its_manifest_and_hash_redone_is_caught(world: WorldIndex, small_term: Term, tmp_path: Path) -> None:
    def edit(conn: sqlite3.Connection, at: int) -> None:
        manifest, n = _chunk_of(conn, at)
        data = unpack(manifest, bytes(conn.execute("SELECT data FROM snapshot_pieces WHERE hash = ?", (manifest.pieces[n],)).fetchone()[0]))
        forged = zstandard.ZstdCompressor().compress(data.replace(b'":"', b'":"x', 1))
        key = hashlib.sha256(forged).hexdigest()
        conn.execute("INSERT INTO snapshot_pieces (hash, data) VALUES (?, ?)", (key, forged))
        pieces = [key if i == n else k for i, k in enumerate(manifest.pieces)]
        stored = {k: bytes(conn.execute("SELECT data FROM snapshot_pieces WHERE hash = ?", (k,)).fetchone()[0]) for k in pieces}
        forged_manifest = Manifest(pieces=pieces, lists=manifest.lists, packed=True)
        whole = assemble(forged_manifest, stored)
        assert whole is not None and b'":"x' in whole
        conn.execute("UPDATE snapshots SET state = ?, state_hash = ? WHERE seq = ?",
                     (encode_manifest(forged_manifest), hashlib.sha256(whole).hexdigest(), at))

    store, run, at = _tampered_copy(world, small_term, tmp_path, edit)
    report = verify(run)
    assert report.mismatch is not None and (report.mismatch.seq, report.mismatch.check) == (at, "snapshot")
    store.close()


def test_snapshots_of_files_before_compression_still_seek_and_verify(world: WorldIndex, small_term: Term, tmp_path: Path) -> None:
    """A manifest that starts with ``MAGIC`` names pieces stored as they are (files written before zstd)."""
    store = SQLiteStore(tmp_path / "runs.db")
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    run.session(make_agent("oracle", small_term, world), snapshot_every=10**9).run()
    head = store.head(run.branch.id)[0]
    writer = run.kernel.projection.writer(chunk_items=2)
    for at in range(100, head, 300):
        packed = writer.pieces(full_fold(run.kernel, store, run.branch.id, at))
        manifest = decode_manifest(packed.manifest)
        assert manifest is not None
        plain = {key: unpack(manifest, data) for key, data in packed.pieces.items()}
        keys = {key: hashlib.sha256(data).hexdigest() for key, data in plain.items()}
        old = Manifest(pieces=[keys[k] for k in manifest.pieces], lists=manifest.lists)
        assert encode_manifest(old).startswith(b"\x00campus snapshot pieces 1\n")
        store.put_snapshot(run.branch.id, at, encode_manifest(old), packed.state_hash, {keys[k]: data for k, data in plain.items()})
    latest = store.snapshot_at_or_before(run.branch.id, head, raw=True)
    assert latest is not None and restore(run.kernel.projection, store, latest) is not None
    _seeks_agree_and_verify(run, store, head)


def _seeks_agree_and_verify(run: Run, store: SQLiteStore, head: int) -> None:
    encode = run.kernel.projection.encode
    probes = range(0, head + 1, max(1, head // 40))
    assert [encode(state_at(run.kernel, store, run.branch.id, s)) for s in probes] == \
        [encode(full_fold(run.kernel, store, run.branch.id, s)) for s in probes]
    assert verify(run).ok
    store.close()


def _snapshot_rows(path: Path) -> list[tuple[int, str]]:
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT seq, state_hash FROM snapshots ORDER BY seq").fetchall()
    conn.close()
    return rows


def test_two_plays_of_a_run_store_the_same_snapshots_however_commits_are_timed(
        world: WorldIndex, small_term: Term, tmp_path: Path) -> None:
    """Snapshots fall where the log decides, not where group commits (timed by the wall clock) happen."""
    heads = []
    for delay, name in ((0.0, "every.db"), (1e9, "never.db")):
        store = SQLiteStore(tmp_path / name)
        run = new_run(store, world, small_term, agent_name="oracle", seed=0)
        run.session(make_agent("oracle", small_term, world), snapshot_every=97, commit_delay=delay).run()
        heads.append(store.head(run.branch.id))
        assert verify(run).ok
        store.close()
    assert heads[0] == heads[1]
    rows = _snapshot_rows(tmp_path / "every.db")
    assert len(rows) >= 3 and all(b - a >= 97 for (a, _), (b, _) in zip(rows, rows[1:]))
    assert _snapshot_rows(tmp_path / "never.db") == rows


def _map_chunks(manifest: Manifest, index: int) -> list[str]:
    return [key for key, i in zip(manifest.pieces, manifest.lists) if i == index]


def test_a_change_to_one_map_entry_renews_only_the_chunk_it_falls_in(oracle_full: Run) -> None:
    projection = oracle_full.kernel.projection
    index = next(i for i, s in enumerate(projection.shared_fields) if (s.part, s.field) == ("session", "outcomes"))
    state = full_fold(oracle_full.kernel, oracle_full.store, oracle_full.branch.id)
    writer = projection.writer(map_min_bytes=1)
    before = decode_manifest(writer.pieces(state).manifest)
    outcomes = state.session.outcomes
    assert before is not None and len(outcomes) > 300 and len(_map_chunks(before, index)) > 3
    changed = sorted(outcomes)[len(outcomes) // 2]
    outcomes[changed] = "changed"
    after = decode_manifest(writer.pieces(state).manifest)
    assert after is not None
    old, new = _map_chunks(before, index), _map_chunks(after, index)
    assert len(old) == len(new) and sum(a != b for a, b in zip(old, new)) == 1


def test_a_short_map_stays_whole_in_its_part(oracle_full: Run) -> None:
    projection = oracle_full.kernel.projection
    state = full_fold(oracle_full.kernel, oracle_full.store, oracle_full.branch.id)
    index = next(i for i, s in enumerate(projection.shared_fields) if (s.part, s.field) == ("session", "outcomes"))
    state.session.outcomes = dict(list(state.session.outcomes.items())[:100])
    assert len(canonical(state.session.outcomes)) < MAP_MIN_BYTES
    packed = projection.writer().pieces(state)
    manifest = decode_manifest(packed.manifest)
    assert manifest is not None and not _map_chunks(manifest, index)
    assert assemble(manifest, packed.pieces) == projection.encode(state)
    loaded = load(manifest, lambda keys: {k: packed.pieces[k] for k in keys}, projection.decode, projection.shared_fields, PieceCache())
    assert loaded.session.outcomes == state.session.outcomes


def test_states_loaded_from_cached_chunks_share_no_map_or_list(oracle_full: Run) -> None:
    projection = oracle_full.kernel.projection
    state = full_fold(oracle_full.kernel, oracle_full.store, oracle_full.branch.id)
    encoded = projection.encode(state)
    packed = projection.writer(chunk_items=3, map_min_bytes=1).pieces(state)
    manifest = decode_manifest(packed.manifest)
    assert manifest is not None
    cache = PieceCache()
    first = load(manifest, lambda keys: {k: packed.pieces[k] for k in keys}, projection.decode, projection.shared_fields, cache)
    assert sum(i != SKELETON for i in manifest.lists) > 30
    first.session.outcomes["a task never played"] = "success"
    first.rules.versions.clear()
    first.email.sent.clear()
    first.calendar.calendars["self"].clear()
    read: list[str] = []

    def fetch(keys: list[str]) -> dict[str, bytes]:
        read.extend(keys)
        return {k: packed.pieces[k] for k in keys}

    second = load(manifest, fetch, projection.decode, projection.shared_fields, cache)
    assert projection.encode(second) == encoded
    assert not set(read) & {k for k, i in zip(manifest.pieces, manifest.lists) if i != SKELETON}, "every chunk came from the cache"


class _Toy(msgspec.Struct, kw_only=True):
    entries: dict[str, int] = {}
    labels: dict[str, str] = {}
    groups: dict[str, dict[str, int]] = {}


class _ToyState(msgspec.Struct, kw_only=True):
    seq: int = 0
    now: int = 0
    toy: _Toy = msgspec.field(default_factory=_Toy)


_KEYS = st.text(alphabet="abcdeé-_0123", min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["set", "drop", "bump"]), st.lists(_KEYS, min_size=1, max_size=80)), min_size=1, max_size=12))
def test_map_pieces_follow_every_way_a_map_changes(steps: list[tuple[str, list[str]]]) -> None:
    """Keys added (many at once or few), dropped, dropped and added back, values changed: after each step the
    pieces join to the state's encoding and load to it, however the writer's memo of the keys was last left."""
    shared = shared_fields([("toy", _Toy)])
    assert [(s.field, s.kind) for s in shared] == [("entries", "map"), ("groups", "maps"), ("labels", "map")]
    writer, cache, decode = SnapshotWriter(["toy"], shared, map_min_bytes=1), PieceCache(), msgspec.json.Decoder(_ToyState).decode
    state = _ToyState()
    for number, (how, keys) in enumerate(steps):
        entries = state.toy.entries
        for key in keys:
            if how == "set":
                entries[key] = number
            elif how == "drop":
                entries.pop(key, None)
            else:
                entries[key] = entries.pop(key, 0) + 1000  # moved to the end of the dict's order
        state.toy.labels = {key: str(value) for key, value in entries.items()}
        for key in keys[:3]:  # inner maps changed in place, as a calendar's entries are
            group = state.toy.groups.setdefault(key[:1], {})
            if how == "drop":
                group.pop(key, None)
            else:
                group[key] = number
        packed = writer.pieces(state)
        manifest = decode_manifest(packed.manifest)
        assert manifest is not None and assemble(manifest, packed.pieces) == canonical(state)
        loaded = load(manifest, lambda wanted: {k: packed.pieces[k] for k in wanted}, decode, shared, cache)
        assert loaded == state
        groups = len(state.toy.groups) if any(state.toy.groups.values()) else 0
        assert sum(i != SKELETON for i in manifest.lists) >= bool(entries) * 2 + groups


def test_a_large_map_is_cut_into_chunks_of_about_map_chunk_entries() -> None:
    shared = shared_fields([("toy", _Toy)])
    state = _ToyState(toy=_Toy(entries={f"seat-{n}": n for n in range(MAP_CHUNK * 80)}))
    assert len(canonical(state.toy.entries)) > MAP_MIN_BYTES
    manifest = decode_manifest(SnapshotWriter(["toy"], shared).pieces(state).manifest)
    assert manifest is not None and 40 <= manifest.lists.count(0) <= 160


def test_a_chunk_that_stops_being_the_first_gets_its_comma() -> None:
    """A key that sorts before every other and ends a chunk by itself puts a new chunk first: the chunk that was
    first (written without a comma) must be written anew, not taken from the writer's memo."""
    first = next(f"a{n}" for n in range(10_000) if _ends_chunk(f"a{n}"))
    shared = shared_fields([("toy", _Toy)])
    writer = SnapshotWriter(["toy"], shared, map_min_bytes=1)
    state = _ToyState(toy=_Toy(entries={f"b{n}": n for n in range(5)}, groups={"b": {"b1": 1}}))
    writer.pieces(state)
    state.toy.entries[first] = 0
    state.toy.groups["a"] = {"a1": 1}
    packed = writer.pieces(state)
    manifest = decode_manifest(packed.manifest)
    assert manifest is not None and assemble(manifest, packed.pieces) == canonical(state)


def test_the_piece_cache_counts_the_entries_of_every_inner_map() -> None:
    cache = PieceCache(limit=10)
    cache.put((2, "small"), {"self": {"evt_1": 1}, "club": {"evt_2": 2}}, 2)
    cache.put((2, "large"), {"self": {f"evt_{n}": n for n in range(20)}}, 20)
    assert cache.get((2, "small")) is not None and cache.get((2, "large")) is None
    for n in range(5):
        cache.put((3, f"chunk-{n}"), {f"k{n}": n, f"j{n}": n}, 2)
    assert cache.get((2, "small")) is None, "the least recently used chunk goes once the entries pass the limit"


def test_snapshots_written_before_maps_were_shared_still_seek_and_verify(world: WorldIndex, small_term: Term, tmp_path: Path) -> None:
    """A manifest with chunks of the lists only (every map whole in its part's piece) is what files held before maps
    were shared: a seek reads the maps from the part, and sharing them later mixes with it in one file."""
    store = SQLiteStore(tmp_path / "runs.db")
    run = new_run(store, world, small_term, agent_name="oracle", seed=0)
    run.session(make_agent("oracle", small_term, world), snapshot_every=10**9).run()
    head = store.head(run.branch.id)[0]
    old, new = run.kernel.projection.writer(map_min_bytes=10**12), run.kernel.projection.writer(map_min_bytes=1)
    for number, at in enumerate(range(100, head, 200)):
        packed = (old if number % 2 else new).pieces(full_fold(run.kernel, store, run.branch.id, at))
        manifest = decode_manifest(packed.manifest)
        assert manifest is not None and any(i >= 2 for i in manifest.lists) != bool(number % 2)
        store.put_snapshot(run.branch.id, at, *packed)
    _seeks_agree_and_verify(run, store, head)

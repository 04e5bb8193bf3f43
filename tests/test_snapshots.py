"""Snapshots in shared pieces: they join to the state's canonical encoding, share the chunks of
lists that only grow, seek to the same state as a full fold, and an altered piece is never used."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
import zstandard

from campus.agents import make_agent
from campus.kernel.history import full_fold, restore, state_at
from campus.kernel.snapshots import SKELETON, Manifest, PieceCache, assemble, decode_manifest, encode_manifest, load, unpack
from campus.kernel.store import MemoryStore, SQLiteStore
from campus.replays.verify import verify
from campus.scenarios.play import Run, new_run, open_run
from campus.scenarios.task import Term
from campus.world.index import WorldIndex


def test_the_shared_lists_are_the_append_only_ones(oracle_full: Run) -> None:
    shared = {(s.part, s.field) for s in oracle_full.kernel.projection.shared_lists}
    assert shared == {("email", "sent"), ("reservation", "bookings")}


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
            loaded = load(manifest, lambda keys: {k: pieces[k] for k in keys}, projection.decode, projection.shared_lists, cache)
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
    writer = run.kernel.projection.writer(chunk_items=2)
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
    store.put_snapshot(run.branch.id, at, *run.kernel.projection.writer(chunk_items=2).pieces(full_fold(run.kernel, store, run.branch.id, at)))
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

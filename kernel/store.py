"""The event log: branches of hash-chained events, snapshots and content-addressed blobs.

A branch is ``(id, parent, fork_seq)``: its events are the parent's up to ``fork_seq`` plus
its own, so a fork writes one row. Sequence numbers run through the whole lineage (a fork at
40 appends its first event at 41), and the hash at a seq is the same in every branch that
shares it — which is what makes the first divergence of two branches a binary search. A fork
that changes agent binds the new agent into its first own row's hash (``agent_links``).

Two stores share one contract (``tests/test_store_conformance.py`` runs against both):
``SQLiteStore`` (a plain SQLite file: WAL journal, append-only enforced by triggers, one
transaction per ``append`` call) and ``MemoryStore``.

One writer per branch: an append names the head it continues from and is refused unless
that is still the stored head (checked in the append's own transaction), and a session
first takes the branch's lease, so a second writer is told who holds the run instead of
chaining stale events onto it.
"""

from __future__ import annotations

import functools
import operator
import os
import socket
import sqlite3
import weakref
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from itertools import chain, compress, count, cycle
from pathlib import Path
from typing import Any, NamedTuple, Protocol
from urllib.parse import quote

import msgspec

from campus.events import AGENT_BOUND, KINDS, SCHEMA_VERSION, Event, agent_link, canonical, chain_hash
from campus.events.codec import MalformedEvent, canonical_many, decode_events
from campus.kernel.checkpointer import BACKSTOP_PAGES, Checkpointer, file_identity
from campus.kernel.snapshots import assemble, decode_manifest
from campus.kernel.sql_views import VIEWS

_KIND_OF = {cls: tag for tag, cls in KINDS.items()}
JOINED_BATCH = 1_000
"""Events per batch of a joined scan: a fold of the 1M-event bench branch took 1.07 s of CPU in batches of 1,000
and 1.45 s in batches of 10,000 (a small batch's decoded events are still in the CPU's cache when reduced)."""


class StoreError(Exception):
    """A request the log cannot honour; the log is unchanged."""


class BranchExists(StoreError):
    """A branch of that name is stored already (perhaps by another process a moment ago)."""


class RunHeld(StoreError):
    """Another live store holds the run's lease: it is being written right now."""


class BranchInfo(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    parent: str | None
    fork_seq: int
    genesis: str
    agent: str
    label: str = ""
    world_hash: str = ""
    term_hash: str = ""
    seed: int = 0
    config: dict[str, Any] = {}
    schema: int = SCHEMA_VERSION


class Row(NamedTuple):
    seq: int
    t: int
    kind: str
    payload: str
    hash: str
    meta: str | None


def decode_rows(rows: Sequence[Row]) -> list[Event]:
    """The events of ``rows`` in one batch; a payload that is no event is named by its seq (``MalformedEvent``)."""
    try:
        return decode_events([row.payload for row in rows])
    except MalformedEvent as error:
        raise MalformedEvent(error.index, error.reason, rows[error.index].seq) from None


class Snapshot(NamedTuple):
    seq: int
    state: bytes
    state_hash: str


class Joined(NamedTuple):
    """One batch of a fold's read (``scan_joined``): the events a fold decodes, as one JSON array, and
    one character per event it looks at, in seq order (``DECODED``, or the letter of a counted kind)."""

    payloads: bytes
    marks: str


DECODED = "."
"""The mark of an event whose payload is in the batch's array."""


def counted_mark(index: int) -> str:
    """The mark of the ``index``-th counted kind of a ``scan_joined``."""
    if not 0 <= index < 26:
        raise ValueError(f"a joined scan marks at most 26 counted kinds, not {index + 1}")
    return chr(ord("a") + index)


class Verbatim(NamedTuple):
    """An event appended as the exact payload it was recorded with: an imported log keeps the
    bytes (and so the hashes) of the schema it was written under."""

    kind: str
    payload: bytes


Record = tuple[int, Event | Verbatim, str | None]
"""What a caller appends: (simulated minute, event, metadata kept outside the hash)."""


class EventStore(Protocol):
    def create_branch(self, info: BranchInfo, records: Sequence[Record] = ()) -> BranchInfo: ...
    def fork(
        self, parent: str, at_seq: int, new_id: str, agent: str, label: str = "", term_hash: str | None = None,
        *, deferred: bool = False,
    ) -> BranchInfo: ...
    def branch(self, branch_id: str) -> BranchInfo: ...
    def branches(self) -> list[BranchInfo]: ...
    def branch_ids(self) -> list[str]: ...
    def head(self, branch_id: str) -> tuple[int, str]: ...
    def append(self, branch_id: str, records: Sequence[Record], *, expect: int | None = None) -> tuple[int, str]: ...
    def lease(self, branch_id: str) -> None: ...
    def release(self, branch_id: str) -> None: ...
    def rows(self, branch_id: str, start: int = 1, stop: int | None = None) -> list[Row]: ...
    def scan(self, branch_id: str, start: int, stop: int, kinds: Sequence[str]) -> Iterator[list[tuple[str, str]]]: ...
    def scan_joined(
        self, branch_id: str, start: int, stop: int, decoded: Sequence[str], counted: Sequence[str]
    ) -> Iterator[Joined]: ...
    def hash_at(self, branch_id: str, seq: int) -> str: ...
    def segments(self, branch_id: str) -> list[tuple[str, int, int | None]]: ...
    def agent_links(self, branch_id: str) -> dict[int, str]: ...
    def mistyped(self, branch_id: str) -> tuple[int, str] | None: ...
    def seq_at_time(self, branch_id: str, t: int) -> int: ...
    def put_snapshot(self, branch_id: str, seq: int, state: bytes, state_hash: str, pieces: Mapping[str, bytes] = {}) -> None: ...
    def snapshot_at_or_before(self, branch_id: str, seq: int, *, raw: bool = False) -> Snapshot | None: ...
    def snapshot_pieces(self, digests: Sequence[str]) -> dict[str, bytes]: ...
    def drop_snapshots(self) -> None: ...
    def put_blob(self, kind: str, digest: str, data: bytes) -> None: ...
    def get_blob(self, digest: str) -> bytes: ...
    def blobs(self, kind: str) -> list[bytes]: ...
    def close(self) -> None: ...


_new_row = tuple.__new__
"""``_new_row(Row, fields)`` is ``Row(*fields)`` without the Python-level ``__new__`` a NamedTuple has."""
_row_of = functools.partial(_new_row, Row)
"""A stored row's six columns as a ``Row``, without ``Row._make``'s Python frame."""


def encode_records(records: Sequence[Record], branch_id: str, seq: int, prev: str) -> list[tuple]:
    """Turn records into chained rows, starting after ``(seq, prev)``."""
    fresh = iter(canonical_many([event for _, event, _ in records if not isinstance(event, Verbatim)]))
    rows: list[tuple] = []
    append = rows.append
    for t, event, meta in records:
        if isinstance(event, Verbatim):
            kind, payload = event.kind, event.payload
        else:
            kind, payload = _KIND_OF[type(event)], next(fresh)
        seq += 1
        prev = chain_hash(prev, t, payload)
        append((branch_id, seq, t, kind, payload.decode("utf-8"), prev, meta))
    return rows


def _branch_of(fields: dict[str, Any]) -> BranchInfo:
    """A branch row as ``BranchInfo``, every field of its declared type (an edited file may hold any), or
    ``StoreError`` naming what is wrong."""
    try:
        config = msgspec.json.decode(fields["config"]) if isinstance(fields["config"], (str, bytes)) else fields["config"]
        return msgspec.convert(fields | {"config": config}, BranchInfo)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as error:
        raise StoreError(f"run {fields['id']!r} is damaged: its branch row does not read ({error})") from None


def _upper_bound(*bounds: int | None) -> int | None:
    present = [b for b in bounds if b is not None]
    return min(present) if present else None


class _Lineage:
    """Shared logic: a branch's events are segments of its ancestors' rows."""

    def segments(self, branch_id: str) -> list[tuple[str, int, int | None]]:
        """``(owner, first_seq, last_seq)`` pieces, oldest first; ``None`` means open-ended.

        An ancestor's piece ends at the lowest fork point below it: a fork of a fork, made before the seq where its
        parent left the grandparent, holds none of its parent's own events (its piece is empty, ``last < first``)
        and only the grandparent's up to its own fork point. ``StoreError`` if the lineage loops (a damaged file:
        no command makes one), rather than following it for ever."""
        pieces: list[tuple[str, int, int | None]] = []
        info = self.branch(branch_id)  # type: ignore[attr-defined]
        upper: int | None = None
        while True:
            lower = info.fork_seq + 1
            pieces.append((info.id, lower, upper))
            if info.parent is None:
                break
            upper = info.fork_seq if upper is None else min(upper, info.fork_seq)
            info = self.branch(info.parent)  # type: ignore[attr-defined]
            if any(owner == info.id for owner, _, _ in pieces):
                raise StoreError(f"run {branch_id!r} is damaged: its lineage comes back to {info.id!r}")
        pieces.reverse()
        return pieces

    def agent_links(self, branch_id: str) -> dict[int, str]:
        """The seqs where the branch's lineage changes agent, with the agent from there on: the row at
        each chains from ``agent_link`` of the hash before it (in runs whose rules bind the agent)."""
        info = self.branch(branch_id)  # type: ignore[attr-defined]
        links: dict[int, str] = {}
        if not info.config.get(AGENT_BOUND):
            return links
        pieces = self.segments(branch_id)
        agent = self.branch(pieces[0][0]).agent  # type: ignore[attr-defined]
        for owner, lower, upper in pieces[1:]:
            if upper is not None and upper < lower:
                continue
            mine = self.branch(owner).agent  # type: ignore[attr-defined]
            if mine != agent:
                links[lower] = agent = mine
        return links

    def _prev(self, branch_id: str, seq: int, prev: str) -> str:
        """The hash a branch's next row chains from: its head's, linked to the branch's agent if its first own row changes agent."""
        info = self.branch(branch_id)  # type: ignore[attr-defined]
        if info.parent is None or seq != info.fork_seq:
            return prev
        agent = self.agent_links(branch_id).get(seq + 1)
        return prev if agent is None else agent_link(prev, agent)

    def _whole(self, snapshot: Snapshot | None, raw: bool) -> Snapshot | None:
        """A snapshot stored as a manifest (``kernel/snapshots.py``) with its pieces joined, unless ``raw``
        (left as stored when a piece is gone: its bytes then do not hash to its hash)."""
        if snapshot is None or raw:
            return snapshot
        manifest = decode_manifest(snapshot.state)
        if manifest is None:
            return snapshot
        whole = assemble(manifest, self.snapshot_pieces(manifest.pieces))  # type: ignore[attr-defined]
        return snapshot if whole is None else snapshot._replace(state=whole)

    def owner_of(self, branch_id: str, seq: int) -> str:
        for owner, lower, upper in reversed(self.segments(branch_id)):
            if seq >= lower and (upper is None or seq <= upper):
                return owner
        raise StoreError(f"seq {seq} is not in branch {branch_id!r}")

    def _check_fork(self, parent: str, at_seq: int, new_id: str) -> BranchInfo:
        info = self.branch(parent)  # type: ignore[attr-defined]
        head, _ = self.head(parent)  # type: ignore[attr-defined]
        if not 0 <= at_seq <= head:
            raise StoreError(f"cannot fork {parent!r} at seq {at_seq}: it has events 1..{head}")
        if self._exists(new_id):  # type: ignore[attr-defined]
            raise BranchExists(f"a branch named {new_id!r} already exists")
        return info


class MemoryStore(_Lineage):
    """The in-memory store: the same contract as SQLite, for tests and scratch work."""

    def __init__(self) -> None:
        self._branches: dict[str, BranchInfo] = {}
        self._rows: dict[str, list[Row]] = {}
        self._heads: dict[str, tuple[int, str]] = {}
        self._snapshots: dict[str, dict[int, Snapshot]] = {}
        self._pieces: dict[str, bytes] = {}
        self._blobs: dict[str, bytes] = {}
        self._kinds: dict[str, str] = {}

    def _exists(self, branch_id: str) -> bool:
        return branch_id in self._branches

    def create_branch(self, info: BranchInfo, records: Sequence[Record] = ()) -> BranchInfo:
        if info.parent is not None:
            raise StoreError("create_branch makes root branches; use fork() for a child")
        if self._exists(info.id):
            raise BranchExists(f"a branch named {info.id!r} already exists")
        rows = [_new_row(Row, row[1:]) for row in encode_records(records, info.id, 0, info.genesis)]
        self._branches[info.id] = info
        self._rows[info.id] = rows
        self._heads[info.id] = (rows[-1].seq, rows[-1].hash) if rows else (0, info.genesis)
        return info

    def fork(
        self, parent: str, at_seq: int, new_id: str, agent: str, label: str = "", term_hash: str | None = None,
        *, deferred: bool = False,
    ) -> BranchInfo:
        """``deferred`` matters only to a durable store; here nothing outlives the process anyway."""
        base = self._check_fork(parent, at_seq, new_id)
        info = msgspec.structs.replace(base, id=new_id, parent=parent, fork_seq=at_seq, agent=agent, label=label,
                                       term_hash=term_hash or base.term_hash)
        self._branches[new_id] = info
        self._rows[new_id] = []
        self._heads[new_id] = (at_seq, self.hash_at(parent, at_seq) if at_seq else info.genesis)
        return info

    def branch(self, branch_id: str) -> BranchInfo:
        try:
            return self._branches[branch_id]
        except KeyError:
            raise StoreError(f"no run named {branch_id!r}") from None

    def branches(self) -> list[BranchInfo]:
        return list(self._branches.values())

    def branch_ids(self) -> list[str]:
        return list(self._branches)

    def mistyped(self, branch_id: str) -> tuple[int, str] | None:
        """Rows in memory hold the types they were appended with."""
        self.branch(branch_id)
        return None

    def head(self, branch_id: str) -> tuple[int, str]:
        self.branch(branch_id)
        return self._heads[branch_id]

    def append(self, branch_id: str, records: Sequence[Record], *, expect: int | None = None) -> tuple[int, str]:
        seq, prev = self.head(branch_id)
        _check_expected(branch_id, expect, seq)
        rows = encode_records(records, branch_id, seq, self._prev(branch_id, seq, prev))
        self._rows[branch_id].extend([_new_row(Row, row[1:]) for row in rows])
        if rows:
            self._heads[branch_id] = (rows[-1][1], rows[-1][5])
        return self._heads[branch_id]

    def rows(self, branch_id: str, start: int = 1, stop: int | None = None) -> list[Row]:
        out: list[Row] = []
        for owner, lower, upper in self.segments(branch_id):
            own = self._rows[owner]
            first_seq = self._branches[owner].fork_seq + 1
            lo = max(lower, start)
            hi = _upper_bound(upper, stop)
            begin = lo - first_seq
            end = len(own) if hi is None else max(0, hi - first_seq + 1)
            out.extend(own[begin:end])
        return out

    def scan(self, branch_id: str, start: int, stop: int, kinds: Sequence[str]) -> Iterator[list[tuple[str, str]]]:
        wanted = set(kinds)
        yield [(r.kind, r.payload) for r in self.rows(branch_id, start, stop) if r.kind in wanted]

    def scan_joined(
        self, branch_id: str, start: int, stop: int, decoded: Sequence[str], counted: Sequence[str]
    ) -> Iterator[Joined]:
        wanted = set(decoded)
        marks = {kind: counted_mark(i) for i, kind in enumerate(counted)} | dict.fromkeys(decoded, DECODED)
        rows = [r for r in self.rows(branch_id, start, stop) if r.kind in marks]
        payloads = [_utf8(r.payload) for r in rows if r.kind in wanted]
        yield Joined(b"[" + b",".join(payloads) + b"]", "".join(marks[r.kind] for r in rows))

    def hash_at(self, branch_id: str, seq: int) -> str:
        if seq == 0:
            return self.branch(branch_id).genesis
        owner = self.owner_of(branch_id, seq)
        own = self._rows[owner]
        index = seq - self._branches[owner].fork_seq - 1
        if not 0 <= index < len(own):
            raise StoreError(f"seq {seq} is not in branch {branch_id!r}")
        return own[index].hash

    def seq_at_time(self, branch_id: str, t: int) -> int:
        found = 0
        for row in self.rows(branch_id):
            if row.t > t:
                break
            found = row.seq
        return found

    def put_snapshot(self, branch_id: str, seq: int, state: bytes, state_hash: str, pieces: Mapping[str, bytes] = {}) -> None:
        self._snapshots.setdefault(self.owner_of(branch_id, seq), {})[seq] = Snapshot(seq, state, state_hash)
        for key, data in pieces.items():
            self._pieces.setdefault(key, data)

    def snapshot_pieces(self, digests: Sequence[str]) -> dict[str, bytes]:
        """The stored pieces among ``digests`` (a snapshot's manifest names them)."""
        return {key: self._pieces[key] for key in digests if key in self._pieces}

    def snapshot_at_or_before(self, branch_id: str, seq: int, *, raw: bool = False) -> Snapshot | None:
        best: Snapshot | None = None
        for owner, lower, upper in self.segments(branch_id):
            for snap in self._snapshots.get(owner, {}).values():
                within = snap.seq >= lower and (upper is None or snap.seq <= upper)
                if within and snap.seq <= seq and (best is None or snap.seq > best.seq):
                    best = snap
        return self._whole(best, raw)

    def drop_snapshots(self) -> None:
        self._snapshots.clear()
        self._pieces.clear()

    def put_blob(self, kind: str, digest: str, data: bytes) -> None:
        self._blobs.setdefault(digest, data)
        self._kinds.setdefault(digest, kind)

    def blobs(self, kind: str) -> list[bytes]:
        """Every stored blob of ``kind``, in the order stored."""
        return [data for digest, data in self._blobs.items() if self._kinds[digest] == kind]

    def get_blob(self, digest: str) -> bytes:
        try:
            return self._blobs[digest]
        except KeyError:
            raise StoreError(f"no stored world or term with hash {digest[:12]}") from None

    def lease(self, branch_id: str) -> None:
        """Nothing to take: no other process can see this store."""

    def release(self, branch_id: str) -> None:
        pass

    def close(self) -> None:
        pass


_SCHEMA = """
CREATE TABLE IF NOT EXISTS branches (
    id TEXT PRIMARY KEY,
    parent TEXT REFERENCES branches(id),
    fork_seq INTEGER NOT NULL,
    genesis TEXT NOT NULL,
    agent TEXT NOT NULL,
    label TEXT NOT NULL DEFAULT '',
    world_hash TEXT NOT NULL,
    term_hash TEXT NOT NULL,
    seed INTEGER NOT NULL,
    config TEXT NOT NULL,
    schema INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    branch TEXT NOT NULL,
    seq INTEGER NOT NULL,
    t INTEGER NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    hash TEXT NOT NULL,
    meta TEXT,
    PRIMARY KEY (branch, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    branch TEXT NOT NULL,
    seq INTEGER NOT NULL,
    state BLOB NOT NULL,
    state_hash TEXT NOT NULL,
    PRIMARY KEY (branch, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshot_pieces (
    hash TEXT PRIMARY KEY,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS blobs (
    hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS leases (
    branch TEXT PRIMARY KEY,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    token TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only: events cannot be changed'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only: events cannot be deleted'); END;
CREATE TRIGGER IF NOT EXISTS branches_append_only_update BEFORE UPDATE ON branches
BEGIN SELECT RAISE(ABORT, 'branches cannot be changed once created'); END;
CREATE TRIGGER IF NOT EXISTS branches_append_only_delete BEFORE DELETE ON branches
BEGIN SELECT RAISE(ABORT, 'branches cannot be deleted'); END;
CREATE TRIGGER IF NOT EXISTS blobs_append_only_update BEFORE UPDATE ON blobs
BEGIN SELECT RAISE(ABORT, 'stored worlds and terms cannot be changed'); END;
CREATE TRIGGER IF NOT EXISTS blobs_append_only_delete BEFORE DELETE ON blobs
BEGIN SELECT RAISE(ABORT, 'stored worlds, terms and signatures cannot be deleted'); END;
"""

BUSY_TIMEOUT = 60.0
"""Seconds a connection waits for another process's write to finish (SQLite's busy timeout)."""

_ROWS_PER_INSERT = 32


def _inserts(columns: str, width: int) -> tuple[str, str]:
    """The statement inserting one row of these columns, and the one inserting ``_ROWS_PER_INSERT`` rows."""
    one = f"INSERT INTO events ({columns}) VALUES ({', '.join('?' * width)})"
    return one, one + f", ({', '.join('?' * width)})" * (_ROWS_PER_INSERT - 1)


_INSERT, _INSERT_MANY = _inserts("branch, seq, t, kind, payload, hash, meta", 7)
"""Rows go in 32 to a statement: one statement step per row cost a quarter of the append."""
_INSERT_PLAIN, _INSERT_PLAIN_MANY = _inserts("branch, seq, t, kind, payload, hash", 6)
"""Rows without meta (nearly all) leave the column to its default, NULL: binding None costs an adapter's Python call
per row (~1.4k instructions, ~1 % of the default term)."""
APPLICATION_ID = 0x43414D50
"""``PRAGMA application_id`` of a campus database ("CAMP"): set when the store creates a file."""
MIN_ROW_BYTES = 8
"""Fewer bytes than any stored event takes in the file (its record's header alone, seven columns, is 8 bytes)."""
_HOST = socket.gethostname()
_OPEN_TOKENS: set[str] = set()
"""The lease tokens of this process's stores that are open."""
_BRANCH_FIELDS = ("id", "parent", "fork_seq", "genesis", "agent", "label", "world_hash", "term_hash", "seed", "config", "schema")
_ROW = ("CAST(seq AS INTEGER), CAST(t AS INTEGER), CAST(kind AS TEXT), CAST(payload AS TEXT), CAST(hash AS TEXT), "
        "CAST(meta AS TEXT)")
_MISTYPED = ("SELECT CAST(seq AS INTEGER), typeof(t), typeof(kind), typeof(payload), typeof(hash) FROM events "
             "WHERE branch = ? AND seq BETWEEN ? AND ? AND NOT (typeof(t) = 'integer' AND typeof(kind) = 'text' "
             "AND typeof(payload) = 'text' AND typeof(hash) = 'text') ORDER BY seq LIMIT 1")
"""A row's six columns as ``Row`` types them. SQLite keeps whatever type a value was written with, and an edited file
may hold a blob where text belongs or text where a number does: read as declared, such a value is one ``verify``
finds (a changed hash, a sequence mismatch) and no reader trips over; a blob that is not UTF-8 is a
``sqlite3.DatabaseError`` (the commands report the file damaged). Casting a value of the declared type costs nothing."""


class SQLiteStore(_Lineage):
    """The durable store: one SQLite file that any SQLite browser can open.

    Durability: WAL with ``synchronous=NORMAL`` — a committed step survives a killed
    process; after a power cut the last few commits may be lost, never half-written.
    Reads go through SQLite's page cache, not a memory map of the file: with snapshots in
    shared pieces a map made no fold or seek faster here, and every mapped page a pass touched
    stayed resident (a whole pass over a 1M-event file held 1.5 GB).

    Concurrency: several processes may write different branches of one file at once (``campus
    sweep``). WAL lets readers go on while one writer commits; writers take turns, each waiting
    up to ``BUSY_TIMEOUT`` seconds for the write lock (``BEGIN IMMEDIATE``, so a transaction never
    has to upgrade a read lock and cannot deadlock) instead of failing with "database is locked".
    One branch has one writer: the holder of its row in ``leases`` (pid, host and this store's
    token), taken by ``lease`` and given back by ``close``; a lease whose process is gone from
    this host is taken over.

    Opening: a file is used only if it is new, empty, or a campus database (its
    ``application_id``, or — for files made before it was set — exactly campus's tables and
    columns); anything else is refused with ``StoreError`` before a byte is written. It is looked
    at through a read-only connection first: closing a read-write one checkpoints a WAL file
    into its database and deletes the ``-wal``, which would change another program's file.

    ``read_only``: for commands that only read. The file must exist and be a campus database;
    nothing is written to it (no schema, no journal mode, no stamp, no checkpoint), so a damaged
    file is reported as it is and a file this user may only read can be read. ``holds_runs``: for
    commands that write to a stored run (a fork, a resume): an empty file is refused untouched too,
    rather than made a campus database before no run is found in it.
    """

    def __init__(self, path: str | Path, *, read_only: bool = False, holds_runs: bool = False) -> None:
        self.path = str(path)
        present = path_exists(self.path)
        if present and Path(self.path).is_dir():
            raise StoreError(f"{self.path} is a directory, not a campus database")
        if read_only and not present:
            raise StoreError(f"no campus database at {self.path}")
        if not present and os.path.islink(self.path):
            raise StoreError(f"{self.path} is a symbolic link to {os.readlink(self.path)}, which does not exist; campus makes "
                             "no database through a link (name the file itself)")
        if present:
            self.conn = _connect_read_only(self.path)
            try:
                _recognise(self.conn, self.path, read_only=read_only, empty=not (read_only or holds_runs))
            except (sqlite3.DatabaseError, StoreError) as error:
                self.conn.close()
                raise refusal(self.path, error) from None
            if not read_only:
                self.conn.close()
        if not read_only:
            self._open_for_writing()
        self._branch_cache: dict[str, BranchInfo] = {}
        self._heads: dict[str, tuple[int, str]] = {}
        self._pending: dict[str, BranchInfo] = {}
        self._token = os.urandom(8).hex()
        _OPEN_TOKENS.add(self._token)
        self._forget_token = weakref.finalize(self, _OPEN_TOKENS.discard, self._token)
        """Called by ``close``, or when the store is collected unclosed: either way it holds its leases no more."""
        self._leases: set[str] = set()
        self._marks_tables: dict[tuple[tuple[str, ...], tuple[str, ...]], str] = {}
        self._table_numbers = count()
        self._checkpointer: Checkpointer | None = None

    def _open_for_writing(self) -> None:
        self._absolute = os.path.abspath(self.path)
        """Where the file is, for the checkpointer's connection (opened later, perhaps from another directory)."""
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT)
        except sqlite3.Error as error:
            raise refusal(self.path, error, "write") from None
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_PAGES}")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.conn.executescript(_SCHEMA)
            _restore_views(self.conn)
            self.conn.executescript(VIEWS)
            if self.conn.execute("PRAGMA application_id").fetchone()[0] == 0:  # new, empty, or made before the stamp
                self.conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        except sqlite3.DatabaseError as error:
            self.conn.close()
            raise refusal(self.path, error, "write") from None
        self._identity = file_identity(self._absolute)
        """The file this connection holds, so the checkpointer touches no other put in its place."""

    def _exists(self, branch_id: str) -> bool:
        return branch_id in self._pending or self._stored(branch_id)

    def _stored(self, branch_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM branches WHERE id = ?", (branch_id,)).fetchone() is not None

    def _insert_branch(self, info: BranchInfo) -> None:
        values = [getattr(info, f) for f in _BRANCH_FIELDS]
        values[_BRANCH_FIELDS.index("config")] = canonical(info.config).decode()
        try:
            self.conn.execute(f"INSERT INTO branches ({', '.join(_BRANCH_FIELDS)}) VALUES ({', '.join('?' * len(values))})", values)
        except sqlite3.IntegrityError:
            raise BranchExists(f"a branch named {info.id!r} already exists") from None

    @contextmanager
    def _transaction(self, written: int = 0) -> Iterator[None]:
        """``written``: about how many bytes the transaction stores, for the checkpointer."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:  # SQLite rolls back by itself on some errors (a full disk); a ROLLBACK then fails
                with suppress(sqlite3.Error):  # over the error that says what happened
                    self.conn.execute("ROLLBACK")
            raise
        (self._checkpointer or self._start_checkpointer()).nudge(written)

    def _start_checkpointer(self) -> Checkpointer:
        """The thread that copies this store's commits into the file (``kernel/checkpointer.py``), started at the
        first commit; a store collected unclosed stops it."""
        writer = functools.partial(_connect, self._absolute, "mode=rw")
        self._checkpointer = Checkpointer(self._absolute, self._identity, writer)
        weakref.finalize(self, self._checkpointer.stop)
        return self._checkpointer

    def create_branch(self, info: BranchInfo, records: Sequence[Record] = ()) -> BranchInfo:
        """A root branch and its first ``records``, in one transaction: all of it or nothing."""
        if info.parent is not None:
            raise StoreError("create_branch makes root branches; use fork() for a child")
        rows = encode_records(records, info.id, 0, info.genesis)
        with self._transaction(_size(rows)):
            self._insert_branch(info)
            _insert_rows(self.conn, rows)
        self._branch_cache[info.id] = info
        if rows:
            self._heads[info.id] = (rows[-1][1], rows[-1][5])
        return info

    def fork(
        self, parent: str, at_seq: int, new_id: str, agent: str, label: str = "", term_hash: str | None = None,
        *, deferred: bool = False,
    ) -> BranchInfo:
        """``deferred``: the branch row is written with the branch's first events, in their
        transaction, so a process killed before that leaves no fork rather than an empty one
        (a fork whose first reply is injected must not outlive that reply)."""
        base = self._check_fork(parent, at_seq, new_id)
        info = msgspec.structs.replace(base, id=new_id, parent=parent, fork_seq=at_seq, agent=agent, label=label,
                                       term_hash=term_hash or base.term_hash)
        if deferred:
            self._pending[new_id] = info
        else:
            self._insert_branch(info)
        self._branch_cache[new_id] = info
        return info

    def branch(self, branch_id: str) -> BranchInfo:
        cached = self._branch_cache.get(branch_id)
        if cached is not None:
            return cached
        row = self.conn.execute(f"SELECT {', '.join(_BRANCH_FIELDS)} FROM branches WHERE id = ?", (branch_id,)).fetchone()
        if row is None:
            raise StoreError(f"no run named {branch_id!r}")
        info = _branch_of(dict(zip(_BRANCH_FIELDS, row)))
        self._branch_cache[branch_id] = info
        return info

    def branches(self) -> list[BranchInfo]:
        return [self.branch(i) for i in self.branch_ids()]

    def branch_ids(self) -> list[str]:
        """Every branch's id in creation order, without reading the rows (one of which may be damaged)."""
        return [r[0] for r in self.conn.execute("SELECT CAST(id AS TEXT) FROM branches ORDER BY rowid")]

    def mistyped(self, branch_id: str) -> tuple[int, str] | None:
        """The first row of the branch's history holding a value of another type than its column declares, with the
        types it holds: a time edited to 444.5 or '444x' reads as 444 (``_ROW`` casts), so the chain still checks, but
        the SQL views show the edit. An integer column turns a whole number written as text into an integer itself."""
        for owner, lower, upper in self.segments(branch_id):
            if upper is not None and upper < lower:
                continue
            found = self.conn.execute(_MISTYPED, (owner, lower, 2**63 - 1 if upper is None else upper)).fetchone()
            if found is not None:
                return found[0], f"t {found[1]}, kind {found[2]}, payload {found[3]}, hash {found[4]}"
        return None

    def head(self, branch_id: str) -> tuple[int, str]:
        cached = self._heads.get(branch_id)
        if cached is not None:
            return cached
        head = self._heads[branch_id] = self._stored_head(branch_id, checked=True)
        return head

    def _stored_head(self, branch_id: str, *, checked: bool = False) -> tuple[int, str]:
        """``checked``: refuse a head the file cannot hold (``_reachable``); an append compares the stored head with
        the one ``head`` gave, which was checked."""
        info = self.branch(branch_id)
        row = self.conn.execute(
            "SELECT seq, CAST(hash AS TEXT) FROM events WHERE branch = ? ORDER BY seq DESC LIMIT 1", (branch_id,)
        ).fetchone()
        if row is not None:
            return (self._reachable(info, row[0], "its last event is at") if checked else row[0]), row[1]
        if info.fork_seq:
            seq = self._reachable(info, info.fork_seq, "it forks at") if checked else info.fork_seq
            return seq, self.hash_at(info.parent, seq)  # type: ignore[arg-type]
        return 0, info.genesis

    def _reachable(self, info: BranchInfo, seq: int, what: str) -> int:
        """``seq`` as the head of ``info``'s lineage, or ``StoreError`` if the file cannot hold that many events.

        Every reader walks a run's seqs from 1 to its head in batches, so a seq edited behind the triggers' back to
        10**15 kept them busy for ever; the file's size bounds a head at the cost of two pragmas (each event takes
        at least ``MIN_ROW_BYTES``), and a gap below that bound costs no more than a pass over a file of that size
        (verify names it as a sequence mismatch)."""
        pages, page_size = (self.conn.execute(f"PRAGMA {name}").fetchone()[0] for name in ("page_count", "page_size"))
        most = pages * page_size // MIN_ROW_BYTES
        if type(seq) is not int:
            raise StoreError(f"run {info.id!r} is damaged: {what} seq {seq!r}, which is not a number")
        if not max(1, info.fork_seq) <= seq <= most:
            raise StoreError(f"run {info.id!r} is damaged: {what} seq {seq}, which a run in {self.path} "
                             f"({pages * page_size:,} bytes, room for at most {most:,} events) cannot reach")
        return seq

    def append(self, branch_id: str, records: Sequence[Record], *, expect: int | None = None) -> tuple[int, str]:
        """Append after ``expect`` (default: the head this store last saw), or write nothing.

        A failed append leaves that head in place, so trying again fails again rather than
        chaining the same events onto whatever another writer committed meanwhile.
        """
        seq, prev = self.head(branch_id)
        _check_expected(branch_id, expect, seq)
        rows = encode_records(records, branch_id, seq, self._prev(branch_id, seq, prev))
        if not rows:
            return seq, prev
        with self._transaction(_size(rows)):
            holder = self.conn.execute("SELECT pid, host, token FROM leases WHERE branch = ?", (branch_id,)).fetchone()
            if holder is not None and holder[2] != self._token:
                raise RunHeld(_held(branch_id, holder[0], holder[1]))
            stored = self._stored_head(branch_id)
            if stored != (seq, prev):
                raise StoreError(f"run {branch_id!r} was written by another writer: its head is seq {stored[0]}, "
                                 f"not {seq}; nothing was appended")
            pending = self._pending.get(branch_id)
            if pending is not None:
                self._insert_branch(pending)
            _insert_rows(self.conn, rows)
        self._pending.pop(branch_id, None)
        head = (rows[-1][1], rows[-1][5])
        self._heads[branch_id] = head
        return head

    def lease(self, branch_id: str) -> None:
        """Become the one writer of ``branch_id`` until ``release`` or ``close``.

        Refused with ``StoreError`` naming the holder while another store holds it, unless the
        holder's process is gone from this host (a killed run), whose lease is taken over.
        """
        if branch_id in self._leases:
            return
        with self._transaction():
            holder = self.conn.execute("SELECT pid, host, token FROM leases WHERE branch = ?", (branch_id,)).fetchone()
            if holder is not None and holder[2] != self._token and not _abandoned(*holder):
                raise RunHeld(_held(branch_id, holder[0], holder[1]))
            self.conn.execute("INSERT OR REPLACE INTO leases (branch, pid, host, token) VALUES (?, ?, ?, ?)",
                              (branch_id, os.getpid(), _HOST, self._token))
        self._leases.add(branch_id)
        self._heads.pop(branch_id, None)  # a writer starts from the stored head, never from one it saw before

    def release(self, branch_id: str) -> None:
        if branch_id in self._leases:
            self.conn.execute("DELETE FROM leases WHERE branch = ? AND token = ?", (branch_id, self._token))
            self._leases.discard(branch_id)

    def rows(self, branch_id: str, start: int = 1, stop: int | None = None) -> list[Row]:
        out: list[Row] = []
        for owner, lower, upper in self.segments(branch_id):
            lo = max(lower, start)
            hi = _upper_bound(upper, stop)
            if hi is not None and hi < lo:
                continue
            if hi is None:
                cur = self.conn.execute(
                    f"SELECT {_ROW} FROM events WHERE branch = ? AND seq >= ? ORDER BY seq", (owner, lo),
                )
            else:
                cur = self.conn.execute(
                    f"SELECT {_ROW} FROM events WHERE branch = ? AND seq BETWEEN ? AND ? ORDER BY seq", (owner, lo, hi),
                )
            out.extend(map(_row_of, cur))
        return out

    def iter_rows(self, branch_id: str, batch: int = 50_000) -> Iterator[list[Row]]:
        """Rows in batches, for folding long branches without holding them all."""
        head, _ = self.head(branch_id)
        start = 1
        while start <= head:
            stop = min(head, start + batch - 1)
            yield self.rows(branch_id, start, stop)
            start = stop + 1

    def scan(
        self, branch_id: str, start: int, stop: int, kinds: Sequence[str], *, batch: int = 50_000
    ) -> Iterator[list[tuple[str, str]]]:
        """``(kind, payload)`` of the events ``start..stop`` whose kind is in ``kinds``, in seq order, in batches:
        no hash, meta, seq or time per row, and no row of a kind not asked for."""
        marks = ", ".join("?" * len(kinds))
        sql = (f"SELECT CAST(kind AS TEXT), CAST(payload AS TEXT) FROM events "
               f"WHERE branch = ? AND seq BETWEEN ? AND ? AND kind IN ({marks}) ORDER BY seq")
        for owner, lo, hi in self._ranges(branch_id, start, stop, batch):
            yield self.conn.execute(sql, (owner, lo, hi, *kinds)).fetchall()

    def scan_joined(
        self, branch_id: str, start: int, stop: int, decoded: Sequence[str], counted: Sequence[str], *, batch: int = JOINED_BATCH
    ) -> Iterator[Joined]:
        """What a fold reads of the events ``start..stop``, a batch at a time, each batch as two strings SQLite
        puts together (``Joined``): no Python object per row, no payload of a counted kind read.

        Each row's kind is looked up once, in a temporary table of the kinds' marks (``_marks_table``): that one
        look-up both filters the row and gives its mark, where ``kind IN (...)`` and then a ``CASE`` over the counted
        kinds took two."""
        table = self._marks_table(decoded, counted)
        sql = (  # the payload is chosen by the mark, not by a second lookup of the kind among the decoded ones
            f"SELECT CAST('[' || ifnull(group_concat(payload, ','), '') || ']' AS BLOB), ifnull(group_concat(mark, ''), '') "
            f"FROM (SELECT k.mark AS mark, CASE k.mark WHEN '{DECODED}' THEN e.payload END AS payload "
            f"FROM events AS e CROSS JOIN {table} AS k ON k.kind = e.kind "
            f"WHERE e.branch = ? AND e.seq BETWEEN ? AND ? ORDER BY e.seq)"
        )
        for owner, lo, hi in self._ranges(branch_id, start, stop, batch):
            payloads, marks = self.conn.execute(sql, (owner, lo, hi)).fetchone()
            yield Joined(payloads, marks)

    def _marks_table(self, decoded: Sequence[str], counted: Sequence[str]) -> str:
        """A temporary table (this connection's own, never in the file) of ``(kind, mark)`` for a joined scan's kinds,
        made once per connection and pair of kind lists, and again if a rolled-back transaction took it away;
        a kind listed both ways is counted."""
        key = (tuple(decoded), tuple(counted))
        name = self._marks_tables.get(key)
        if name is None or self.conn.execute("SELECT 1 FROM temp.sqlite_master WHERE name = ?", (name,)).fetchone() is None:
            name = f"fold_marks_{next(self._table_numbers)}"  # never a name another pair of kind lists holds
            self.conn.execute(f"CREATE TEMP TABLE {name} (kind TEXT PRIMARY KEY, mark TEXT NOT NULL) WITHOUT ROWID")
            marks = [(kind, DECODED) for kind in decoded] + [(kind, counted_mark(i)) for i, kind in enumerate(counted)]
            self.conn.executemany(f"INSERT OR REPLACE INTO temp.{name} (kind, mark) VALUES (?, ?)", marks)
            self._marks_tables[key] = name
        return f"temp.{name}"

    def _ranges(self, branch_id: str, start: int, stop: int, batch: int) -> Iterator[tuple[str, int, int]]:
        """``(owner, first, last)`` seq ranges of at most ``batch`` events covering ``start..stop`` of a lineage."""
        for owner, lower, upper in self.segments(branch_id):
            lo, hi = max(lower, start), min(stop, upper) if upper is not None else stop
            for first in range(lo, hi + 1, batch):
                yield owner, first, min(hi, first + batch - 1)

    def hash_at(self, branch_id: str, seq: int) -> str:
        if seq == 0:
            return self.branch(branch_id).genesis
        owner = self.owner_of(branch_id, seq)
        row = self.conn.execute("SELECT CAST(hash AS TEXT) FROM events WHERE branch = ? AND seq = ?", (owner, seq)).fetchone()
        if row is None:
            raise StoreError(f"seq {seq} is not in branch {branch_id!r}")
        return row[0]

    def seq_at_time(self, branch_id: str, t: int) -> int:
        """The last seq at or before minute ``t``: a binary search of the primary key, since a lineage's times never
        go back (files made before kept an index on time, which nothing reads now and new files do not make: its
        upkeep was ~2 % of an append)."""
        best = 0
        for owner, lower, upper in self.segments(branch_id):
            hi = upper if upper is not None else self.conn.execute("SELECT max(seq) FROM events WHERE branch = ?",
                                                                   (owner,)).fetchone()[0]
            if hi is not None and hi >= lower:
                best = max(best, _last_at_or_before(self.conn, owner, t, lower, hi))
        return best

    def put_snapshot(self, branch_id: str, seq: int, state: bytes, state_hash: str, pieces: Mapping[str, bytes] = {}) -> None:
        """One transaction: the pieces a manifest names are there whenever the manifest is."""
        owner = self.owner_of(branch_id, seq)
        with self._transaction(len(state) + sum(map(len, pieces.values()))):
            known = self._known_pieces(list(pieces))
            self.conn.executemany("INSERT OR IGNORE INTO snapshot_pieces (hash, data) VALUES (?, ?)",
                                  [(key, data) for key, data in pieces.items() if key not in known])
            self.conn.execute(
                "INSERT OR REPLACE INTO snapshots (branch, seq, state, state_hash) VALUES (?, ?, ?, ?)",
                (owner, seq, state, state_hash),
            )

    def _known_pieces(self, digests: list[str]) -> set[str]:
        known: set[str] = set()
        for first in range(0, len(digests), 500):
            some = digests[first : first + 500]
            marks = ", ".join("?" * len(some))
            known.update(r[0] for r in self.conn.execute(f"SELECT hash FROM snapshot_pieces WHERE hash IN ({marks})", some))
        return known

    def snapshot_pieces(self, digests: Sequence[str]) -> dict[str, bytes]:
        """The stored pieces among ``digests`` (a snapshot's manifest names them)."""
        found: dict[str, bytes] = {}
        unique = list(dict.fromkeys(digests))
        for first in range(0, len(unique), 500):
            some = unique[first : first + 500]
            marks = ", ".join("?" * len(some))
            found.update((r[0], bytes(r[1])) for r in self.conn.execute(
                f"SELECT hash, CAST(data AS BLOB) FROM snapshot_pieces WHERE hash IN ({marks})", some))
        return found

    def snapshot_at_or_before(self, branch_id: str, seq: int, *, raw: bool = False) -> Snapshot | None:
        best: Snapshot | None = None
        for owner, lower, upper in self.segments(branch_id):
            hi = min(seq, upper) if upper is not None else seq
            row = self.conn.execute(
                "SELECT seq, CAST(state AS BLOB), CAST(state_hash AS TEXT) FROM snapshots "
                "WHERE branch = ? AND seq BETWEEN ? AND ? ORDER BY seq DESC LIMIT 1",
                (owner, lower, hi),
            ).fetchone()
            if row is not None and (best is None or row[0] > best.seq):
                best = Snapshot(row[0], bytes(row[1]), row[2])
        return self._whole(best, raw)

    def drop_snapshots(self) -> None:
        with self._transaction():
            self.conn.execute("DELETE FROM snapshots")
            self.conn.execute("DELETE FROM snapshot_pieces")

    def put_blob(self, kind: str, digest: str, data: bytes) -> None:
        with self._transaction(len(data)):
            self.conn.execute("INSERT OR IGNORE INTO blobs (hash, kind, data) VALUES (?, ?, ?)", (digest, kind, data))

    def get_blob(self, digest: str) -> bytes:
        row = self.conn.execute("SELECT CAST(data AS BLOB) FROM blobs WHERE hash = ?", (digest,)).fetchone()
        if row is None:
            raise StoreError(f"no stored world or term with hash {digest[:12]}")
        return bytes(row[0])

    def blobs(self, kind: str) -> list[bytes]:
        """Every stored blob of ``kind``, in the order stored."""
        return [bytes(row[0]) for row in self.conn.execute("SELECT CAST(data AS BLOB) FROM blobs WHERE kind = ? ORDER BY rowid",
                                                           (kind,))]

    def close(self) -> None:
        try:
            for branch_id in list(self._leases):
                try:
                    self.release(branch_id)
                except sqlite3.Error:  # a full disk, say: the row stays, a lease no open store holds (``_abandoned``)
                    self._leases.discard(branch_id)
        finally:
            self._forget_token()
            if self._checkpointer is not None:
                self._checkpointer.stop()  # first, so the writer's close is the last and removes the WAL
            self.conn.close()


def _check_expected(branch_id: str, expect: int | None, seq: int) -> None:
    if expect is not None and expect != seq:
        raise StoreError(f"cannot append to {branch_id!r} after seq {expect}: its head is seq {seq}; nothing was appended")


def _held(branch_id: str, pid: int, host: str) -> str:
    return f"run {branch_id} is being written by pid {pid} on {host}"


def _abandoned(pid: int, host: str, token: str) -> bool:
    """Whether a lease's holder can no longer write: its process is gone from this host, or it is this process and
    the store that took the lease is closed (its release failed, say on a full disk: this process may resume)."""
    if host != _HOST or type(pid) is not int:
        return False
    return token not in _OPEN_TOKENS if pid == os.getpid() else not _alive(pid)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs on this host; a zombie (killed, not yet reaped) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        return b"State:\tZ" not in Path(f"/proc/{pid}/status").read_bytes()
    except FileNotFoundError:
        return not Path("/proc/self").exists()  # gone since the signal, or no /proc at all
    except OSError:
        return True


def _campus_schema() -> tuple[dict[str, list[str]], dict[str, str], dict[str, str]]:
    """Campus's tables and their columns, and its triggers and views (name -> SQL), as its schema creates them."""
    probe = sqlite3.connect(":memory:")
    probe.executescript(_SCHEMA)
    probe.executescript(VIEWS)
    names = [r[0] for r in probe.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    tables = {name: [c[1] for c in probe.execute(f"PRAGMA table_info({name})")] for name in names}
    triggers, views = (dict(probe.execute("SELECT name, sql FROM sqlite_master WHERE type = ?", (kind,)).fetchall())
                       for kind in ("trigger", "view"))
    probe.close()
    return tables, triggers, views


_TABLES, _TRIGGERS, _VIEWS = _campus_schema()


def _unlike_ours(conn: sqlite3.Connection, tables: dict[str, list[str]]) -> str | None:
    """What in a file stamped as campus's is not as campus makes it: one of its tables with other columns, or a trigger
    on its tables that it did not make (one that rewrites or adds rows as campus writes or reads them). Views are
    derived, so a writer makes them again (``_restore_views``)."""
    for name, columns in tables.items():
        if name in _TABLES and columns != _TABLES[name]:
            return f"its table {name} has the columns {', '.join(columns)}, not campus's"
    for name, table, sql in conn.execute("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'"):
        if table in _TABLES and _TRIGGERS.get(name) != sql:
            return f"it has a trigger campus did not make ({name} on {table})"
    return None


def _restore_views(conn: sqlite3.Connection) -> None:
    """Drop each of campus's views whose definition is not the one campus makes now (an older campus's, or edited), so
    ``VIEWS`` makes it again: a query of the file's views reads what the log holds."""
    for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'view'").fetchall():
        if name in _VIEWS and sql != _VIEWS[name]:
            conn.execute(f'DROP VIEW "{name}"')


def _recognise(conn: sqlite3.Connection, path: str, *, read_only: bool, empty: bool) -> None:
    """``StoreError`` unless the file may be used (read without writing).

    A file made before ``APPLICATION_ID`` existed is recognised by its tables (a subset of
    campus's, with campus's columns); opening it to write adds the missing tables and the stamp,
    which no other reader of the file notices. An empty file is used only where ``empty`` says so.
    """
    application_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {name: [c[1] for c in conn.execute(f"PRAGMA table_info({name})")]
              for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
    if application_id == APPLICATION_ID:
        unlike = _unlike_ours(conn, tables)
        if unlike is not None:
            raise StoreError(f"{path} is marked as a campus database but {unlike}; it was left untouched")
        return
    if application_id == 0:
        if not tables and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
            if not empty:
                raise StoreError(f"{path} is empty, not a campus database; it was left untouched")
            return
        if all(_TABLES.get(name) == columns for name, columns in tables.items()) and "events" in tables:
            unlike = _unlike_ours(conn, tables)
            if unlike is not None:
                raise StoreError(f"{path} looks like a campus database but {unlike}; it was left untouched")
            missing = sorted(set(_TABLES) - set(tables) - {"leases"})  # no reader looks at the leases
            if read_only and missing:
                raise StoreError(f"{path} was made by an older campus and has no {', '.join(missing)} table, which "
                                 "a command that only reads does not add; any command that writes to it adds it")
            return
    shown = ", ".join(sorted(tables)[:5]) or "none"
    raise StoreError(f"{path} is not a campus database (application id {application_id}, tables: {shown}); it was left untouched")


def path_exists(path: str) -> bool:
    """Whether something is at ``path``; ``StoreError`` for a path that cannot name a file (too long, ...)."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as error:
        raise StoreError(f"cannot open {path}: {error.strerror}") from None
    return True


def _connect(path: str, mode: str) -> sqlite3.Connection:
    uri = f"file:{quote(os.path.abspath(path))}?{mode}"
    return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT)


def _connect_read_only(path: str) -> sqlite3.Connection:
    """A connection that cannot write to the file, nor checkpoint its WAL on close.

    SQLite reads a WAL file through its ``-shm`` index, made beside it if missing (as by any reader). Where it cannot
    be made (a folder this user may not write in) and no ``-wal`` holds anything (no writer is at work), the file is
    the whole database and is read as immutable."""
    try:
        conn = _connect(path, "mode=ro")
    except sqlite3.Error as error:
        raise refusal(path, error) from None
    try:
        conn.execute("PRAGMA application_id").fetchone()  # SQLite reads the file (and its WAL) from here on
    except sqlite3.OperationalError as error:
        conn.close()
        if not permissions(error) or _wal_bytes(path):
            raise refusal(path, error) from None
        try:
            conn = _connect(path, "immutable=1")
            conn.execute("PRAGMA application_id").fetchone()
        except sqlite3.Error:
            conn.close()
            raise refusal(path, error) from None
    except sqlite3.DatabaseError:  # not a database at all: ``_recognise`` says so
        pass
    return conn


def _wal_bytes(path: str) -> int:
    try:
        return os.stat(path + "-wal").st_size
    except OSError:
        return 0


def disk_full(error: BaseException) -> bool:
    """Whether ``error`` or what caused it is SQLite finding no room left on the disk."""
    seen: BaseException | None = error
    while seen is not None:
        if getattr(seen, "sqlite_errorname", "") == "SQLITE_FULL":
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def permissions(error: BaseException) -> bool:
    """Whether SQLite failed for want of a file or folder it may write (or open), not for what is in the file."""
    return (getattr(error, "sqlite_errorcode", 0) & 0xFF) in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN)


def refusal(path: str, error: Exception, doing: str = "read") -> StoreError:
    """The one-line ``StoreError`` for a file that could not be opened, read or written as a campus database."""
    if isinstance(error, StoreError):
        return error
    folder = Path(path).absolute().parent
    if not folder.is_dir():
        return StoreError(f"cannot {doing} {path}: the folder {folder} does not exist")
    if isinstance(error, sqlite3.Error) and permissions(error):
        return StoreError(f"cannot {doing} {path}: {error} (a permissions problem, not a damaged file: this user may "
                          "not write it, its folder or the -wal and -shm files SQLite keeps beside it)")
    return StoreError(f"{path} is not a usable campus database ({error})")


def _last_at_or_before(conn: sqlite3.Connection, branch: str, t: int, lo: int, hi: int) -> int:
    """The last of a branch's own seqs ``lo..hi`` (all stored) whose time is at most ``t``, or 0."""
    found = 0
    while lo <= hi:
        mid = (lo + hi) // 2
        row = conn.execute("SELECT CAST(t AS INTEGER) FROM events WHERE branch = ? AND seq = ?", (branch, mid)).fetchone()
        if row is None:
            raise StoreError(f"run {branch!r} has no event at seq {mid} below its head; 'campus verify' tells what is wrong")
        if row[0] <= t:
            found, lo = mid, mid + 1
        else:
            hi = mid - 1
    return found


def _bind_null(value: None) -> None:
    return value


sqlite3.register_adapter(type(None), _bind_null)
"""A row's absent meta is bound through an adapter found in one look-up: with none registered for None, sqlite3
looks for ``__adapt__`` and ``__conform__`` (an AttributeError raised and cleared) for every None it binds."""


def _size(rows: list[tuple]) -> int:
    """About the bytes ``rows`` take in the file: their payloads (the rest of a row is ~100 bytes)."""
    return sum(map(len, map(_PAYLOAD, rows))) + 100 * len(rows)


def _insert_rows(conn: sqlite3.Connection, rows: list[tuple]) -> None:
    plain = list(map(_META, rows)).count(None) == len(rows)
    one, many = (_INSERT_PLAIN, _INSERT_PLAIN_MANY) if plain else (_INSERT, _INSERT_MANY)
    whole = len(rows) - len(rows) % _ROWS_PER_INSERT
    if whole:
        groups = (rows[i : i + _ROWS_PER_INSERT] for i in range(0, whole, _ROWS_PER_INSERT))
        conn.executemany(many, (_parameters(group, plain) for group in groups))
    conn.executemany(one, [row[:6] for row in rows[whole:]] if plain else rows[whole:])


def _parameters(group: list[tuple], plain: bool) -> tuple:
    """A group's rows as one statement's parameters, their meta left out if ``plain`` (without a tuple per row)."""
    flat = chain.from_iterable(group)
    return tuple(compress(flat, cycle(_BUT_META)) if plain else flat)


_PAYLOAD = operator.itemgetter(4)
_META = operator.itemgetter(6)
_BUT_META = (True,) * 6 + (False,)


def open_store(path: str | Path | None, *, read_only: bool = False, holds_runs: bool = False) -> EventStore:
    """A SQLite store at ``path``, or an in-memory store for ``None`` or ``":memory:"``; ``read_only`` and
    ``holds_runs``: see ``SQLiteStore``."""
    if path is None or str(path) == ":memory:":
        return MemoryStore()
    return SQLiteStore(path, read_only=read_only, holds_runs=holds_runs)


def _utf8(payload: str | bytes) -> bytes:
    return payload if isinstance(payload, bytes) else payload.encode()

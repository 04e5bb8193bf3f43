"""Export and import a run as JSON Lines, hash-checked.

Line 1 is a header with the branch, and the world and term it ran on (so the file alone
replays anywhere); every further line is one event with its seq, time, payload and hash; the
last line is a trailer with the number of events and the final hash, so a file cut short —
even at a line boundary — is told from a shorter run. An exported fork is flattened: the
file holds the whole lineage as one branch.

Import reads and checks the whole file before writing anything — every field and its bounds (a
number must fit the column it goes in, a name must print as one plain line), every hash rebuilt
from the payloads, the trailer — and refuses it whole, naming the first bad line. It then writes
the run into a scratch in-memory store and verifies it there, as ``campus verify`` would, so a
consistent forgery (an edit with the hash chain recomputed) is refused too. Only then is the
target written: the world and term (content-addressed, kept if already there), then the branch
and its events in one transaction. Bad input is refused before the first of these writes; a full
disk or a kill between them can leave a world and a term with no run (the next import uses them),
never a short run. A flattened fork that changed agent (its header's ``agents``) is written back
as its lineage: a root and one fork per change, named ``RUN~2``... with ``RUN`` itself written
last, so a killed import may leave a leading part under a ``~`` name but never a short run under
``RUN``. Two imports of one file at once end as one after the other does: the second finds the
run stored and stores nothing.
Files of format ``campus-log/1`` (written before the trailer) are still read: their hash chain
is checked, but whether they are complete cannot be.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any, NamedTuple

import msgspec

from campus.events import MAX_SEED, SCHEMA_VERSION, agent_link, canonical, chain_hash, decode_event, genesis_hash
from campus.kernel.store import BranchInfo, EventStore, MemoryStore, Record, StoreError, Verbatim
from campus.replays.signing import Signature, meta_digest, self_signed, store_signature
from campus.replays.verify import lineage_root, verify
from campus.scenarios.play import Run, in_free_name, name_problem, open_run, unique_branch_id
from campus.scenarios.task import decode_term
from campus.world.model import World, decode_world

FORMAT = "campus-log/2"
UNTRAILED = "campus-log/1"
"""The format before the trailer line: read, but its completeness cannot be checked."""
MAX_LINE = 64 * 2**20
"""Characters a line may hold, with its line break. The longest line of a real export is its header (world and term):
7.2 million characters for the default term, 17.3 million for the published StuLife world. ``read_lines`` stops
there, so a file of one endless line is refused without being held whole."""
MAX_TIME = 2**63 - 1
"""The latest simulated minute an event can have: what a SQLite integer holds."""


def is_export(head: bytes) -> bool:
    """Whether a file that starts with ``head`` is an export (one ``campus export -o`` may replace)."""
    return head.startswith(b'{"format":"campus-log/')


class ExportFormatError(ValueError):
    """A file that is not a valid, intact export; nothing was written."""


def export_lines(run: Run, signature: Signature | None = None) -> Iterator[str]:
    """The header, the events and the end line (with ``signature``, a signed statement of the head, if given)."""
    info = run.branch
    header = {
        "format": FORMAT,
        "branch": {"id": info.id, "agent": info.agent, "seed": info.seed, "config": info.config,
                   "genesis": info.genesis, "world_hash": info.world_hash, "term_hash": info.term_hash,
                   "schema": info.schema} | _agents(run),
        "world": msgspec.json.decode(run.store.get_blob(info.world_hash)),
        "term": msgspec.json.decode(run.store.get_blob(info.term_hash)),
    }
    yield msgspec.json.encode(header).decode()
    count, head = 0, info.genesis
    for row in run.store.rows(info.id):
        line: dict[str, Any] = {"seq": row.seq, "t": row.t, "kind": row.kind, "event": msgspec.Raw(row.payload.encode()), "hash": row.hash}
        if row.meta is not None:
            line["meta"] = row.meta
        yield msgspec.json.encode(line).decode()
        count, head = row.seq, row.hash
    end: dict[str, Any] = {"end": {"events": count, "head": head}}
    if signature is not None:
        end["signature"] = signature
    yield msgspec.json.encode(end).decode()


def _agents(run: Run) -> dict[str, Any]:
    """Who played which part, when the lineage changed agent: ``{"agents": [{"from": 1, "agent": ...}, ...]}``."""
    links = run.store.agent_links(run.branch.id)
    if not links:
        return {}
    return {"agents": [{"from": 1, "agent": lineage_root(run).agent}] + [{"from": seq, "agent": agent} for seq, agent in sorted(links.items())]}


def write_export(run: Run, out: IO[str], signature: Signature | None = None) -> int:
    count = 0
    for line in export_lines(run, signature):
        out.write(line + "\n")
        count += 1
    return count - 2


class _Played(msgspec.Struct):
    start: int = msgspec.field(name="from")
    agent: str


class _BranchHeader(msgspec.Struct):
    id: str
    agent: str
    seed: int
    config: dict[str, Any]
    genesis: str
    world_hash: str
    term_hash: str
    schema: int = 1
    """Exports written before the header named the schema are all of schema 1."""
    agents: list[_Played] = []
    """Where a flattened fork changed agent (empty: ``agent`` played it all)."""


class _Header(msgspec.Struct):
    format: str
    branch: _BranchHeader
    world: dict[str, Any]
    term: dict[str, Any]


class _Line(msgspec.Struct):
    seq: int
    t: int
    kind: str
    event: dict[str, Any]
    hash: str
    meta: str | None = None


class _End(msgspec.Struct):
    events: int
    head: str


class _Trailer(msgspec.Struct):
    end: _End
    signature: Signature | None = None


class Imported(NamedTuple):
    run: Run
    stored: bool
    """False when the store held this run already, event for event: nothing was written."""


class _Checked(NamedTuple):
    """An export read and checked, ready to write."""

    meta: _BranchHeader
    world: World
    term_hash: str
    stored_term: bytes
    played: list[_Played]
    records: list[Record]
    signature: Signature | None
    head: str


def import_lines(store: EventStore, lines: Iterable[str], *, branch_id: str | None = None) -> Run:
    """Check the whole export, then write it as one new run (``import_export``)."""
    return import_export(store, lines, branch_id=branch_id).run


def import_export(store: EventStore, lines: Iterable[str], *, branch_id: str | None = None) -> Imported:
    """Check the whole export and verify its run in memory, then write it into ``store``; a run the store holds
    already (when no ``branch_id`` is given) is not written again."""
    if branch_id is not None:
        _check_given_name(branch_id)
    checked = _read_export(lines)
    held = _held_copy(store, checked, branch_id)
    if held is not None:
        return Imported(held, False)
    _check_verifies(checked)
    return _store_new(store, checked, branch_id)


def _store_new(store: EventStore, checked: _Checked, branch_id: str | None) -> Imported:
    """Write a checked run under ``branch_id``, or else its own name, numbered if taken. Another import may take the
    name meanwhile (this one checked and verified the file first): if it stored this very run, this import writes
    nothing, as when run after it; if another run, this one takes the next free name, as ``new_run`` does."""
    def attempt(name: str) -> Imported:
        held = _held_copy(store, checked, branch_id)
        return Imported(held, False) if held is not None else Imported(_write(store, checked, name), True)

    return attempt(branch_id) if branch_id is not None else in_free_name(store, checked.meta.id, attempt)


def _read_export(lines: Iterable[str]) -> _Checked:
    """Every line checked (fields, bounds, hashes, the end line, the signature); nothing is written."""
    numbered = _numbered(lines)
    first = next(numbered, None)
    if first is None:
        raise ExportFormatError("the file is empty: line 1 should be a campus export header")
    header = _header(first[1])
    meta = header.branch
    _check_branch(meta)
    try:
        stored_term = canonical(header.term)
        world, term = decode_world(msgspec.json.encode(header.world)), decode_term(stored_term, meta.schema)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as error:
        raise ExportFormatError(f"line 1: the world or term is not valid ({error})") from None
    if world.hash != meta.world_hash or term.hash != meta.term_hash:
        raise ExportFormatError("line 1: the world or term in the header does not match its recorded hash")
    played = meta.agents or [_Played(start=1, agent=meta.agent)]
    if played[0].start != 1 or played[-1].agent != meta.agent or any(a.start >= b.start for a, b in zip(played, played[1:])):
        raise ExportFormatError("line 1: the header's agents must start at seq 1, in order, and end with the branch's agent")
    genesis = genesis_hash(world.hash, term.hash, meta.seed, meta.config, played[0].agent)
    if genesis != meta.genesis:
        raise ExportFormatError("line 1: the header's genesis hash does not match its world, term, seed, config and agent")
    records, signature, head = _checked_records(numbered, genesis, {p.start: p.agent for p in played[1:]},
                                                trailed=header.format == FORMAT)
    if played[-1].start > len(records) + 1:
        raise ExportFormatError(f"line 1: the header's agents change at seq {played[-1].start}, "
                                f"past the file's {len(records)} events")
    if signature is not None:
        _check_signature(signature[1], signature[0], genesis, meta.agent, records)
    return _Checked(meta, world, term.hash, stored_term, played, records, None if signature is None else signature[1], head)


def _check_branch(meta: _BranchHeader) -> None:
    """The header's name, seed and schema, each one a run can have (a seed past SQLite's integers was a traceback)."""
    problem = name_problem(meta.id)
    if problem is not None:
        raise ExportFormatError(f"line 1: the run's name {_shown(meta.id)} cannot name a run: {problem}")
    if not 0 <= meta.seed <= MAX_SEED:
        raise ExportFormatError(f"line 1: the run's seed {meta.seed} is outside 0..{MAX_SEED}")
    if not 1 <= meta.schema <= SCHEMA_VERSION:
        raise ExportFormatError(f"line 1: the run's schema is {meta.schema}; this campus reads schemas 1 to {SCHEMA_VERSION}")


def _check_given_name(name: str) -> None:
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(f"{_shown(name)} cannot name a run: {problem}")


def _shown(name: str) -> str:
    """A name as an error quotes it: escaped, and cut short."""
    return repr(name[:60]) + ("..." if len(name) > 60 else "")


def _held_copy(store: EventStore, checked: _Checked, branch_id: str | None) -> Run | None:
    """The run as ``store`` holds it already under the file's name (with its signature added), or None; a run
    imported under a name of its own (``branch_id``) is always a new run."""
    meta = checked.meta
    if branch_id is not None or not _holds(store, meta, (len(checked.records), checked.head)):
        return None
    if checked.signature is not None:  # a signature the first import may not have had
        store_signature(store, checked.signature)
    return open_run(store, meta.id)


def _check_verifies(checked: _Checked) -> None:
    """Refuse a run ``campus verify`` would reject (a consistent forgery: an edit with the hash chain recomputed, a
    header that disagrees with its ``run_started``): it is written into a scratch store and verified there, so the
    target is not touched. The plain verify: ``--deep`` and the model requests are left to ``campus verify``."""
    run = _write(MemoryStore(), checked, checked.meta.id)
    mismatch = verify(run).mismatch
    if mismatch is not None:
        raise ExportFormatError(f"the run does not verify: mismatch at seq {mismatch.seq} ({mismatch.check}); "
                                f"expected {_said(mismatch.expected)}, actual {_said(mismatch.actual)}; nothing was imported")


def _said(value: Any) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= 300 else text[:300] + "..."


def _write(store: EventStore, checked: _Checked, final: str) -> Run:
    """Write a checked export as the run ``final``: the world and term, then the branch, or the lineage of a
    flattened fork that changed agent (``final~1``... first, ``final`` last)."""
    meta, played, records = checked.meta, checked.played, checked.records
    links = played[1:]
    info = BranchInfo(
        id=final if not links else unique_branch_id(store, f"{final}~1"), parent=None, fork_seq=0, genesis=meta.genesis,
        agent=played[0].agent, label=f"imported from {meta.id}", world_hash=checked.world.hash,
        term_hash=checked.term_hash, seed=meta.seed, config=meta.config, schema=meta.schema,
    )
    store.put_blob("world", checked.world.hash, checked.world.encoded)
    store.put_blob("term", checked.term_hash, checked.stored_term)
    store.create_branch(info, records[:links[0].start - 1] if links else records)
    for n, (part, until) in enumerate(zip(links, [p.start for p in links[1:]] + [len(records) + 1]), start=2):
        name = final if until > len(records) else unique_branch_id(store, f"{final}~{n}")
        own = records[part.start - 1:until - 1]  # none for a fork that changed agent and played nothing yet
        store.fork(info.id, part.start - 1, name, agent=part.agent, label=f"imported from {meta.id}", deferred=bool(own))
        if own:
            store.append(name, own)
        info = store.branch(name)
    if checked.signature is not None:
        store_signature(store, checked.signature)
    return open_run(store, final)


def _holds(store: EventStore, meta: _BranchHeader, head: tuple[int, str]) -> bool:
    """Whether ``store`` has a run named as ``meta`` with its genesis, its schema (which the genesis does not bind)
    and ``head``: every event and every field the same."""
    try:
        stored = store.branch(meta.id)
        return (stored.genesis, stored.schema) == (meta.genesis, meta.schema) and store.head(meta.id) == head
    except StoreError:
        return False


def _check_signature(signature: Signature, line: int, genesis: str, agent: str, records: Sequence[Record]) -> None:
    said = signature.statement
    if (said.get("events"), said.get("genesis"), said.get("agent")) != (len(records), genesis, agent):
        raise ExportFormatError(f"line {line}: the signature is over another run than this file holds")
    if "meta" in said and said["meta"] != meta_digest((seq, meta) for seq, (_, _, meta) in enumerate(records, start=1)):
        raise ExportFormatError(f"line {line}: the signature is over other token and latency records (meta) "
                                "than this file's events hold")
    if not self_signed(signature):
        raise ExportFormatError(f"line {line}: the signature does not verify under the key it names")


def append_lines(store: EventStore, lines: Iterable[str], branch_id: str) -> Run:
    """Check the whole export of a longer version of the stored run ``branch_id`` (same genesis, same
    events up to its head), then append the events it has beyond that head in one transaction."""
    numbered = _numbered(lines)
    first = next(numbered, None)
    if first is None:
        raise ExportFormatError("the file is empty: line 1 should be a campus export header")
    stored = store.branch(branch_id)
    meta = _header(first[1]).branch
    if meta.genesis != stored.genesis:
        raise ExportFormatError(f"line 1: the export is not a continuation of {branch_id} (another genesis)")
    if meta.agents and len(meta.agents) > 1:
        raise ExportFormatError(f"line 1: the export changes agent part way; only a run of one agent can continue {branch_id}")
    records, _, _ = _checked_records(numbered, stored.genesis, {}, trailed=True)
    store.lease(branch_id)
    try:
        head, head_hash = store.head(branch_id)
        if len(records) < head or (head and chain_of(records[:head], stored.genesis) != head_hash):
            raise ExportFormatError(f"the export does not continue {branch_id} from its head (seq {head})")
        store.append(branch_id, records[head:], expect=head)
    finally:
        store.release(branch_id)
    return open_run(store, branch_id)


def chain_of(records: list[Record], genesis: str) -> str:
    """The head hash of ``records`` chained from ``genesis``."""
    prev = genesis
    for t, event, _ in records:
        prev = chain_hash(prev, t, event.payload if isinstance(event, Verbatim) else canonical(event))
    return prev


def read_lines(handle: IO[str]) -> Iterator[str]:
    """The lines of a text file, each read to at most ``MAX_LINE + 1`` characters: a longer one is not held whole
    (iterating the file reads a line to its end, however far that is) and ``_numbered`` refuses it."""
    while line := handle.readline(MAX_LINE + 1):
        yield line


def _numbered(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """Non-blank lines with their line numbers; text that is not UTF-8, and a line longer than ``MAX_LINE``, are
    refused with its line."""
    iterator = iter(lines)
    number = 0
    while True:
        number += 1
        try:
            raw = next(iterator)
        except StopIteration:
            return
        except UnicodeDecodeError:
            raise ExportFormatError(f"line {number} is not UTF-8 text") from None
        if len(raw) > MAX_LINE:
            raise ExportFormatError(f"line {number} is longer than {MAX_LINE:,} characters, more than any line of a "
                                    "campus export: the file was read no further")
        if raw.strip():
            yield number, raw


def _header(raw: str) -> _Header:
    try:
        loose = msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError) as error:
        raise ExportFormatError(f"line 1 is not a campus export header ({error})") from None
    if not isinstance(loose, dict) or loose.get("format") not in (FORMAT, UNTRAILED):
        raise ExportFormatError(f"line 1 is not a {FORMAT} header")
    try:
        return msgspec.convert(loose, _Header)
    except msgspec.ValidationError as error:
        raise ExportFormatError(f"line 1: the header is incomplete ({error})") from None


def _checked_records(lines: Iterator[tuple[int, str]], genesis: str, links: dict[int, str], *,
                     trailed: bool) -> tuple[list[Record], tuple[int, Signature] | None, str]:
    """The file's events, checked, the end line's signature with its line number (if it has one) and the head hash."""
    prev = genesis
    records: list[Record] = []
    trailer: tuple[int, _Trailer] | None = None
    last = 1
    for number, raw in lines:
        last = number
        if trailer is not None:
            raise ExportFormatError(f"line {number} follows the end of the export (line {trailer[0]})")
        try:
            loose = msgspec.json.decode(raw)
            if trailed and isinstance(loose, dict) and "end" in loose:
                trailer = number, msgspec.convert(loose, _Trailer)
                continue
            line = msgspec.convert(loose, _Line)
            event = decode_event(msgspec.json.encode(line.event))
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as error:
            raise ExportFormatError(f"line {number} is not a valid event ({error})") from None
        if not 0 <= line.t <= MAX_TIME:
            raise ExportFormatError(f"line {number} (seq {line.seq}): its time {line.t} is outside 0..{MAX_TIME}")
        if line.kind != line.event.get("kind"):
            raise ExportFormatError(f"line {number} (seq {line.seq}) says kind {line.kind!r} of an event of kind "
                                    f"{line.event.get('kind')!r}")
        payload = canonical(line.event)  # the bytes as recorded: an older schema's payload keeps its hash
        agent = links.get(len(records) + 1)
        digest = chain_hash(prev if agent is None else agent_link(prev, agent), line.t, payload)
        if digest != line.hash or line.seq != len(records) + 1:
            raise ExportFormatError(f"line {number} (seq {line.seq}) fails the hash check: expected seq {len(records) + 1}, hash {digest}")
        prev = digest
        records.append((line.t, Verbatim(str(event.__struct_config__.tag), payload), line.meta))
    if not records:
        raise ExportFormatError(f"the file has no events after its header (line {last} is its last line)")
    if trailed:
        if trailer is None:
            raise ExportFormatError(f"the file ends at line {last} without its end line: it was cut short")
        number, end = trailer
        if end.end.events != len(records) or end.end.head != prev:
            raise ExportFormatError(f"line {number}: the end line promises {end.end.events} events ending in "
                                    f"{end.end.head[:12]}, the file holds {len(records)} ending in {prev[:12]}")
        if end.signature is not None:
            if end.signature.statement.get("head") != prev:
                raise ExportFormatError(f"line {number}: the signature is over another head than this file's")
            return records, (number, end.signature), prev
    return records, None, prev

"""Export and import a run as JSON Lines, hash-checked.

Line 1 is a header with the branch, and the world and term it ran on (so the file alone
replays anywhere); every further line is one event with its seq, time, payload and hash.
An exported fork is flattened: the file holds the whole lineage as one branch.

Import rebuilds every hash from the payloads before writing anything; a file whose hashes
do not check out is refused whole, naming the first bad line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import IO, Any

import msgspec

from events import canonical, chain_hash, decode_event, genesis_hash
from kernel.store import BranchInfo, EventStore
from scenarios.play import Run, open_run, term_bytes, unique_branch_id
from scenarios.task import decode_term
from world.model import decode_world

FORMAT = "campus-log/1"


class ExportFormatError(ValueError):
    """A file that is not a valid, intact export; nothing was written."""


def export_lines(run: Run) -> Iterator[str]:
    info = run.branch
    header = {
        "format": FORMAT,
        "branch": {"id": info.id, "agent": info.agent, "seed": info.seed, "config": info.config,
                   "genesis": info.genesis, "world_hash": info.world_hash, "term_hash": info.term_hash},
        "world": msgspec.json.decode(run.store.get_blob(info.world_hash)),
        "term": msgspec.json.decode(run.store.get_blob(info.term_hash)),
    }
    yield msgspec.json.encode(header).decode()
    for row in run.store.rows(info.id):
        line: dict[str, Any] = {"seq": row.seq, "t": row.t, "kind": row.kind, "event": msgspec.Raw(row.payload.encode()), "hash": row.hash}
        if row.meta is not None:
            line["meta"] = row.meta
        yield msgspec.json.encode(line).decode()


def write_export(run: Run, out: IO[str]) -> int:
    count = 0
    for line in export_lines(run):
        out.write(line + "\n")
        count += 1
    return count - 1


def import_lines(store: EventStore, lines: Iterable[str], *, branch_id: str | None = None) -> Run:
    iterator = iter(lines)
    try:
        header = msgspec.json.decode(next(iterator))
    except (StopIteration, msgspec.DecodeError) as error:
        raise ExportFormatError(f"line 1 is not a campus export header ({error})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ExportFormatError(f"line 1 is not a {FORMAT} header")
    meta = header["branch"]
    world_bytes = msgspec.json.encode(header["world"])
    world, term = decode_world(world_bytes), decode_term(msgspec.json.encode(header["term"]))
    if world.hash != meta["world_hash"] or term.hash != meta["term_hash"]:
        raise ExportFormatError("the world or term in the header does not match its recorded hash")
    genesis = genesis_hash(world.hash, term.hash, meta["seed"], meta["config"])
    if genesis != meta["genesis"]:
        raise ExportFormatError("the header's genesis hash does not match its world, term, seed and config")
    records, metas = _checked_records(iterator, genesis)
    info = BranchInfo(
        id=branch_id or unique_branch_id(store, meta["id"]), parent=None, fork_seq=0, genesis=genesis,
        agent=meta["agent"], label=f"imported from {meta['id']}", world_hash=world.hash, term_hash=term.hash,
        seed=meta["seed"], config=meta["config"],
    )
    store.put_blob("world", world.hash, world.encode())
    store.put_blob("term", term.hash, term_bytes(term))
    store.create_branch(info)
    store.append(info.id, [(t, event, m) for (t, event), m in zip(records, metas)])
    return open_run(store, info.id)


def _checked_records(lines: Iterator[str], genesis: str) -> tuple[list[tuple[int, Any]], list[str | None]]:
    prev = genesis
    records: list[tuple[int, Any]] = []
    metas: list[str | None] = []
    for number, raw in enumerate(lines, start=2):
        if not raw.strip():
            continue
        try:
            line = msgspec.json.decode(raw)
            payload = msgspec.json.encode(line["event"])
            event = decode_event(payload)
        except (msgspec.DecodeError, msgspec.ValidationError, KeyError, TypeError) as error:
            raise ExportFormatError(f"line {number} is not a valid event ({error})") from None
        payload = canonical(event)
        digest = chain_hash(prev, int(line["t"]), payload)
        if digest != line.get("hash") or line.get("seq") != len(records) + 1:
            raise ExportFormatError(f"line {number} (seq {line.get('seq')}) fails the hash check: expected {digest}")
        prev = digest
        records.append((int(line["t"]), event))
        metas.append(line.get("meta"))
    return records, metas

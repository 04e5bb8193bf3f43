"""Snapshots stored in shared pieces, so a long branch's snapshots do not each hold its whole past.

A state's canonical encoding is cut into *pieces*, each stored once under its sha256: the
encoding of each domain's part without its shared lists, the few bytes between parts, and
the items of every shared list in fixed chunks of ``CHUNK_ITEMS``. A shared list is a list
field of a part whose items are frozen Structs (sent mail, bookings): reducers only append to
such a list, so its full chunks are the same bytes in every later snapshot and are stored once.
A snapshot row holds a *manifest*: ``PACKED`` and the digests of its pieces in order, whose
bytes joined are exactly the state's canonical encoding (so its ``state_hash`` is unchanged,
and ``verify`` checks it as before). Each piece is stored compressed with zstd (a state's JSON
shrinks about ninefold and inflates in a quarter of a millisecond) under the sha256 of the
stored bytes; a manifest that starts with ``MAGIC`` (files before compression) names pieces
stored as they are.

A seek decodes the pieces without the shared chunks (the state with those lists empty) and
puts each list together from decoded chunks, which a ``PieceCache`` keeps between seeks:
their items are immutable, so every state may hold the same item objects. Every piece read
from the store is checked against its digest before it is used.

Snapshots written before pieces (the whole encoding in the row) are read as before.
"""

from __future__ import annotations

import hashlib
import operator
import os
import threading
import typing
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Any, NamedTuple

import msgspec
import zstandard

from campus.events import canonical, digest

MAGIC = b"\x00campus snapshot pieces 1\n"
"""How a manifest of pieces stored as they are starts; a whole canonical encoding starts with ``{``."""
PACKED = b"\x00campus snapshot pieces 2\n"
"""How a manifest of zstd-compressed pieces starts (what ``SnapshotWriter`` writes)."""
LEVEL = 1
"""The zstd level of stored pieces (level 3 saved under 1 % more on the bench branch's states)."""
CHUNK_ITEMS = 128
"""Items of a shared list per stored chunk."""
CACHED_ITEMS = 250_000
"""Decoded list items a ``PieceCache`` keeps (least recently used chunks go first)."""
SKELETON = -1
"""A piece's ``lists`` entry when it is not a chunk of a shared list."""


class Manifest(msgspec.Struct, frozen=True, array_like=True):
    pieces: list[str]
    """The digests of the pieces as stored, in the order their bytes make the state's encoding."""
    lists: list[int]
    """Per piece: the index of the shared list it holds items of (``SharedList``), or ``SKELETON``."""
    packed: bool = False
    """Whether each piece is stored zstd-compressed (set from how the manifest starts)."""


class SharedList(NamedTuple):
    part: str
    field: str
    items: msgspec.json.Decoder[Any]


class Piece(NamedTuple):
    data: bytes
    """Its bytes in the state's encoding."""
    stored: bytes
    key: str
    """The sha256 of ``stored``."""


class Pieces(NamedTuple):
    """What ``EventStore.put_snapshot`` stores for one snapshot."""

    manifest: bytes
    state_hash: str
    pieces: dict[str, bytes]


_MANIFEST = msgspec.json.Decoder(Manifest)


def encode_manifest(manifest: Manifest) -> bytes:
    return (PACKED if manifest.packed else MAGIC) + msgspec.json.encode(manifest)


def decode_manifest(data: bytes) -> Manifest | None:
    """The manifest in ``data``, or None if it is not one."""
    packed = data.startswith(PACKED)
    if not packed and not data.startswith(MAGIC):
        return None
    try:
        manifest = _MANIFEST.decode(data[len(MAGIC):])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return msgspec.structs.replace(manifest, packed=packed)


_PER_THREAD = threading.local()


def unpack(manifest: Manifest, stored: bytes) -> bytes:
    """A piece's bytes as they are in the encoding (raises ``zstandard.ZstdError`` if they do not inflate).

    Each thread keeps one decompressor (making one costs 8 µs, using one 0.2 µs; one may not serve two threads at once)."""
    if not manifest.packed:
        return stored
    inflater = getattr(_PER_THREAD, "inflater", None)
    if inflater is None:
        inflater = _PER_THREAD.inflater = zstandard.ZstdDecompressor()
    return inflater.decompress(stored)


def shared_lists(parts: Iterable[tuple[str, type]]) -> tuple[SharedList, ...]:
    """The list fields of ``(part name, state type)`` whose items are frozen Structs, in encoding order."""
    found = []
    for part, state_type in parts:
        for field, hint in typing.get_type_hints(state_type).items():
            item = typing.get_args(hint)[0] if typing.get_origin(hint) is list else None
            if isinstance(item, type) and issubclass(item, msgspec.Struct) and item.__struct_config__.frozen:
                found.append(SharedList(part, field, msgspec.json.Decoder(list[item])))  # type: ignore[valid-type]
    return tuple(sorted(found, key=lambda s: (s.part, s.field)))


class SnapshotWriter:
    """Cuts states of one branch into pieces; remembers the full chunks it encoded, so a chunk
    whose items are the same objects as last time is not encoded again."""

    def __init__(self, part_names: Sequence[str], lists: Sequence[SharedList], chunk_items: int = CHUNK_ITEMS) -> None:
        self.part_names = tuple(part_names)
        self.lists = tuple(lists)
        self.chunk_items = chunk_items
        token = os.urandom(8).hex()  # marks where pieces go in an encoding; never part of one
        self._part_marks = {name: f"\x00part-{token}-{name}" for name in self.part_names}
        self._part_of = {mark: name for name, mark in self._part_marks.items()}
        self._list_marks = [f"\x00list-{token}-{i}" for i in range(len(self.lists))]
        self._chunks: dict[tuple[int, int], tuple[list[Any], Piece]] = {}
        self._packer = zstandard.ZstdCompressor(level=LEVEL)

    def pieces(self, state: Any) -> Pieces:
        order: list[Piece] = []
        lists: list[int] = []
        top = msgspec.structs.replace(state, **self._part_marks)
        for piece in _split(canonical(top), self._part_marks.values()):
            if isinstance(piece, bytes):
                order.append(self._piece(piece))
                lists.append(SKELETON)
                continue
            self._part_pieces(state, self._part_of[piece], order, lists)
        hasher = hashlib.sha256()
        for made in order:
            hasher.update(made.data)
        manifest = Manifest(pieces=[made.key for made in order], lists=lists, packed=True)
        return Pieces(encode_manifest(manifest), hasher.hexdigest(), {made.key: made.stored for made in order})

    def _piece(self, data: bytes) -> Piece:
        stored = self._packer.compress(data)
        return Piece(data, stored, digest(stored))

    def _part_pieces(self, state: Any, name: str, order: list[Piece], lists: list[int]) -> None:
        part = getattr(state, name)
        mine = {i: shared for i, shared in enumerate(self.lists) if shared.part == name}
        if not mine:
            order.append(self._piece(canonical(part)))
            lists.append(SKELETON)
            return
        marks = {self._list_marks[i]: i for i in mine}
        hollow = msgspec.structs.replace(part, **{mine[i].field: [mark] for mark, i in marks.items()})
        for piece in _split(canonical(hollow), marks):
            if isinstance(piece, bytes):
                order.append(self._piece(piece))
                lists.append(SKELETON)
            else:
                index = marks[piece]
                for chunk in self._chunk_pieces(index, getattr(part, mine[index].field)):
                    order.append(chunk)
                    lists.append(index)

    def _chunk_pieces(self, index: int, items: list[Any]) -> Iterable[Piece]:
        """Each chunk as a piece; a full chunk of the same item objects as last time is not encoded again."""
        size = self.chunk_items
        for number, start in enumerate(range(0, len(items), size)):
            chunk = items[start : start + size]
            cached = self._chunks.get((index, number))
            if cached is not None and len(cached[0]) == len(chunk) and all(map(operator.is_, cached[0], chunk)):
                yield cached[1]
                continue
            data = canonical(chunk)[1:-1]
            piece = self._piece(b"," + data if number else data)
            if len(chunk) == size:
                self._chunks[(index, number)] = (chunk, piece)
            yield piece


def _split(encoded: bytes, marks: Iterable[str]) -> list[bytes | str]:
    """``encoded`` cut around each mark's encoding: a mark that stood for a whole value gives
    its place; one inside a one-item list (``[mark]``) leaves the brackets in the pieces around it."""
    found = []
    for mark in marks:
        needle = msgspec.json.encode(mark)
        at = encoded.find(needle)
        if at < 0 or encoded.find(needle, at + 1) >= 0:
            raise ValueError(f"snapshot mark {mark!r} is not in the encoding exactly once")
        found.append((at, len(needle), mark))
    found.sort()
    out: list[bytes | str] = []
    position = 0
    for at, length, mark in found:
        out.append(encoded[position:at])
        out.append(mark)
        position = at + length
    out.append(encoded[position:])
    return out


class PieceCache:
    """Decoded chunks of shared lists by (list, digest), least recently used first out, up to ``CACHED_ITEMS`` items."""

    def __init__(self, limit: int = CACHED_ITEMS) -> None:
        self.limit = limit
        self._chunks: OrderedDict[tuple[int, str], list[Any]] = OrderedDict()
        self._items = 0

    def get(self, key: tuple[int, str]) -> list[Any] | None:
        chunk = self._chunks.get(key)
        if chunk is not None:
            self._chunks.move_to_end(key)
        return chunk

    def put(self, key: tuple[int, str], chunk: list[Any]) -> None:
        if key in self._chunks or len(chunk) > self.limit:
            return
        self._chunks[key] = chunk
        self._items += len(chunk)
        while self._items > self.limit:
            _, dropped = self._chunks.popitem(last=False)
            self._items -= len(dropped)


def assemble(manifest: Manifest, pieces: dict[str, bytes]) -> bytes | None:
    """The state's whole encoding, or None if a piece is missing or does not inflate."""
    if any(key not in pieces for key in manifest.pieces):
        return None
    try:
        return b"".join(unpack(manifest, pieces[key]) for key in manifest.pieces)
    except zstandard.ZstdError:
        return None


def load(manifest: Manifest, fetch: Any, decode: Any, lists: Sequence[SharedList], cache: PieceCache) -> Any:
    """The state a manifest describes, or None if a piece is missing, altered or does not decode.

    ``fetch(digests) -> {digest: bytes}`` reads pieces; ``decode(bytes)`` decodes a whole state."""
    if len(manifest.lists) != len(manifest.pieces) or any(not SKELETON <= i < len(lists) for i in manifest.lists):
        return None
    chunks: dict[str, list[Any]] = {}
    wanted = []
    for key, index in zip(manifest.pieces, manifest.lists):
        if index != SKELETON:
            cached = cache.get((index, key))
            if cached is not None:
                chunks[key] = cached
                continue
        wanted.append(key)
    read = fetch(wanted)
    if any(key not in read or digest(read[key]) != key for key in wanted):
        return None
    skeleton = []
    try:
        for key, index in zip(manifest.pieces, manifest.lists):
            if index == SKELETON:
                skeleton.append(unpack(manifest, read[key]))
            elif key not in chunks:
                data = unpack(manifest, read[key])
                chunks[key] = lists[index].items.decode(b"[" + (data[1:] if data[:1] == b"," else data) + b"]")
                cache.put((index, key), chunks[key])
        state = decode(b"".join(skeleton))
    except (msgspec.DecodeError, msgspec.ValidationError, zstandard.ZstdError):
        return None
    for index, shared in enumerate(lists):
        mine = [chunks[key] for key, i in zip(manifest.pieces, manifest.lists) if i == index]
        setattr(getattr(state, shared.part), shared.field, list(chain.from_iterable(mine)))
    return state

"""Snapshots stored in shared pieces, so a long branch's snapshots do not each hold its whole past.

A state's canonical encoding is cut into *pieces*, each stored once under its sha256: the
encoding of each domain's part without its shared fields, the few bytes between parts, and
the chunks of every shared field. A shared list is a list field of a part whose items are
frozen Structs (sent mail, bookings): reducers only append to such a list, so cut in fixed
chunks of ``CHUNK_ITEMS`` its full chunks are the same bytes in every later snapshot and are
stored once. A shared map is a ``dict[str, V]`` field whose values never change in place
(outcomes, trigger versions, seat features, clues...): cut in key order where a key's crc32
says (``MAP_CHUNK`` entries on average), a change to a few entries makes new bytes of the
chunks they fall in only. A map of such maps (calendars: calendar -> event -> entry) is cut one
outer entry per chunk, and each inner map is copied when a state is put together.
A snapshot row holds a *manifest*: ``PACKED`` and the digests of its pieces in order, whose
bytes joined are exactly the state's canonical encoding (so its ``state_hash`` is unchanged,
and ``verify`` checks it as before). Each piece is stored compressed with zstd (a state's JSON
shrinks about ninefold and inflates in a quarter of a millisecond) under the sha256 of the
stored bytes; a manifest that starts with ``MAGIC`` (files before compression) names pieces
stored as they are.

A seek decodes the pieces without the shared chunks (the state with those fields empty) and
puts each field together anew from decoded chunks, which a ``PieceCache`` keeps between seeks:
their items and values are immutable, so every state may hold the same objects, and most of a
late state's bytes are never decoded twice. Every piece read from the store is checked against
its digest before it is used.

Snapshots written before pieces (the whole encoding in the row) are read as before.
"""

from __future__ import annotations

import bisect
import enum
import hashlib
import itertools
import operator
import os
import threading
import types
import typing
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any, Literal, NamedTuple, Union

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
MAP_CHUNK = 64
"""Entries of a shared map per stored chunk, on average (``_ends_chunk``)."""
MAP_MIN_BYTES = 32_768
"""A shared map whose encoding would be shorter (``_cut``) stays whole in its part's piece: cutting it costs its writer
more than it saves a seek."""
CACHED_ITEMS = 1_000_000
"""Decoded list items and map entries a ``PieceCache`` keeps (least recently used chunks go first): every chunk of a
1M-event branch's snapshots fits (random seeks into it: 66 MB more than with 250,000, and a quarter less CPU)."""
SKELETON = -1
"""A piece's ``lists`` entry when it is not a chunk of a shared list."""


class Manifest(msgspec.Struct, frozen=True, array_like=True):
    pieces: list[str]
    """The digests of the pieces as stored, in the order their bytes make the state's encoding."""
    lists: list[int]
    """Per piece: the index of the shared field it holds a chunk of (``shared_fields``), or ``SKELETON``."""
    packed: bool = False
    """Whether each piece is stored zstd-compressed (set from how the manifest starts)."""


Kind = Literal["list", "map", "maps"]
"""A list of frozen Structs; a map of immutable values; a map of such maps (cut one outer entry per chunk)."""


class SharedField(NamedTuple):
    part: str
    field: str
    kind: Kind
    items: msgspec.json.Decoder[Any]
    """Decodes one chunk: a JSON array of items, or a JSON object of entries."""

    def decode(self, data: bytes) -> Any:
        """A chunk's items or entries from its bytes (a chunk after the first starts with a comma)."""
        body = data[1:] if data[:1] == b"," else data
        return self.items.decode(b"[" + body + b"]" if self.kind == "list" else b"{" + body + b"}")

    def size(self, chunk: Any) -> int:
        """How many items or entries a decoded chunk holds (a map of maps: its inner maps' entries)."""
        return sum(map(len, chunk.values())) if self.kind == "maps" else len(chunk)

    def joined(self, chunks: list[Any]) -> Any:
        """The field's value made anew from its decoded chunks, which stay as they are for later seeks."""
        if self.kind == "list":
            return list(itertools.chain.from_iterable(chunks))
        entries: dict[str, Any] = {}
        for chunk in chunks:
            entries.update(((key, inner.copy()) for key, inner in chunk.items()) if self.kind == "maps" else chunk)
        return entries


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
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
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


def shared_fields(parts: Iterable[tuple[str, type]]) -> tuple[SharedField, ...]:
    """The fields of ``(part name, state type)`` whose chunks snapshots share: first the lists of frozen Structs,
    then the maps (``dict[str, V]``) whose values are immutable or maps of immutable values, each in encoding order.

    A manifest names a field by its index here, so the lists keep the indices they had before maps were shared."""
    lists, maps = [], []
    for part, state_type in parts:
        for field, hint in typing.get_type_hints(state_type).items():
            origin, args = typing.get_origin(hint), typing.get_args(hint)
            item = args[0] if origin is list else None
            if isinstance(item, type) and issubclass(item, msgspec.Struct) and item.__struct_config__.frozen:
                lists.append(SharedField(part, field, "list", msgspec.json.Decoder(list[item])))  # type: ignore[valid-type]
            elif _immutable_map(hint):
                maps.append(SharedField(part, field, "map", msgspec.json.Decoder(hint)))
            elif origin is dict and args[0] is str and _immutable_map(args[1]):
                maps.append(SharedField(part, field, "maps", msgspec.json.Decoder(hint)))
    return (*sorted(lists, key=_place), *sorted(maps, key=_place))


def _place(shared: SharedField) -> tuple[str, str]:
    return shared.part, shared.field


_SCALARS = (str, int, float, bool, type(None))


def _immutable(hint: Any) -> bool:
    """Whether a decoded value of this type can never change in place, so every state may hold the same object."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint in _SCALARS or origin is Literal or (isinstance(hint, type) and issubclass(hint, enum.Enum)):
        return True
    if origin is tuple or origin is Union or origin is types.UnionType:
        return all(arg is Ellipsis or _immutable(arg) for arg in args)
    if isinstance(hint, type) and issubclass(hint, msgspec.Struct):
        return hint.__struct_config__.frozen and all(_immutable(h) for h in typing.get_type_hints(hint).values())
    return False


def _immutable_map(hint: Any) -> bool:
    """Whether the type is ``dict[str, V]`` with ``V`` immutable."""
    if typing.get_origin(hint) is not dict:
        return False
    key, value = typing.get_args(hint)
    return key is str and _immutable(value)


def _ends_chunk(key: str) -> bool:
    """Whether a map's chunk ends after ``key`` (keys in order): set by the key alone, so adding or changing an
    entry changes only the chunk it falls in and every other chunk keeps its bytes."""
    return zlib.crc32(key.encode()) % MAP_CHUNK == 0


class SnapshotWriter:
    """Cuts states of one branch into pieces; remembers the chunks it encoded, so a chunk whose items
    (or entries) are the same objects as last time is not encoded again."""

    def __init__(self, part_names: Sequence[str], shared: Sequence[SharedField], chunk_items: int = CHUNK_ITEMS,
                 map_min_bytes: int = MAP_MIN_BYTES) -> None:
        self.part_names = tuple(part_names)
        self.shared = tuple(shared)
        self.chunk_items = chunk_items
        self.map_min_bytes = map_min_bytes
        token = os.urandom(8).hex()  # marks where pieces go in an encoding; never part of one
        self._part_marks = {name: f"\x00part-{token}-{name}" for name in self.part_names}
        self._part_of = {mark: name for name, mark in self._part_marks.items()}
        self._field_marks = [f"\x00field-{token}-{i}" for i in range(len(self.shared))]
        self._chunks: dict[tuple[int, int], tuple[list[Any], Piece]] = {}
        self._maps: dict[int, _MapMemo] = {}
        self._nested: dict[int, dict[tuple[bool, str], tuple[tuple[str, ...], tuple[Any, ...], Piece]]] = {}
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
        mine = {i: shared for i, shared in enumerate(self.shared)
                if shared.part == name and (shared.kind == "list" or _cut(getattr(part, shared.field), shared.kind, self.map_min_bytes))}
        if not mine:
            order.append(self._piece(canonical(part)))
            lists.append(SKELETON)
            return
        marks = {self._field_marks[i]: i for i in mine}
        hollow = msgspec.structs.replace(part, **{mine[i].field: [mark] if mine[i].kind == "list" else mark
                                                  for mark, i in marks.items()})
        split = _split(canonical(hollow), marks)
        for n, piece in enumerate(split):
            if isinstance(piece, str) and mine[marks[piece]].kind != "list":  # its braces stay around it, as a list's brackets do
                split[n - 1] = split[n - 1] + b"{"  # type: ignore[operator]
                split[n + 1] = b"}" + split[n + 1]  # type: ignore[operator]
        for piece in split:
            if isinstance(piece, bytes):
                order.append(self._piece(piece))
                lists.append(SKELETON)
                continue
            index = marks[piece]
            value, kind = getattr(part, mine[index].field), mine[index].kind
            cut = self._chunk_pieces if kind == "list" else self._map_pieces if kind == "map" else self._maps_pieces
            for chunk in cut(index, value):
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

    def _map_pieces(self, index: int, entries: dict[str, Any]) -> list[Piece]:
        """The entries in key order, cut where ``_ends_chunk`` says; each chunk after the first starts with a comma.
        A chunk of the same keys and the same value objects as last time is not encoded again."""
        memo, values = _MapMemo.of(entries, self._maps.get(index))
        self._maps[index] = memo
        made: dict[tuple[bool, tuple[str, ...]], tuple[tuple[Any, ...], Piece]] = {}
        pieces = []
        for number, ((keys, _), now) in enumerate(zip(memo.chunks, values)):
            place = (number == 0, keys)  # the first chunk has no comma before it
            cached = memo.made.get(place)
            if cached is not None and all(map(operator.is_, cached[0], now)):
                piece = cached[1]
            else:
                data = canonical(dict(zip(keys, now)))[1:-1]
                piece = self._piece(b"," + data if number else data)
            made[place] = (now, piece)
            pieces.append(piece)
        memo.made = made
        return pieces

    def _maps_pieces(self, index: int, outer: dict[str, dict[str, Any]]) -> list[Piece]:
        """One chunk per outer entry, in key order; one whose inner map holds the same keys and value objects as last
        time is not encoded again (an inner map changes in place, so its own identity says nothing)."""
        before = self._nested.get(index, {})
        made: dict[tuple[bool, str], tuple[tuple[str, ...], tuple[Any, ...], Piece]] = {}
        pieces = []
        for number, key in enumerate(sorted(outer)):
            inner = outer[key]
            keys, values = tuple(inner), tuple(inner.values())
            cached = before.get(place := (number == 0, key))  # the first chunk has no comma before it
            if cached is not None and cached[0] == keys and all(map(operator.is_, cached[1], values)):
                piece = cached[2]
            else:
                data = canonical({key: inner})[1:-1]
                piece = self._piece(b"," + data if number else data)
            made[place] = (keys, values, piece)
            pieces.append(piece)
        self._nested[index] = made
        return pieces


class _MapMemo:
    """A shared map's keys as a writer last saw them, in order and cut into chunks, with each chunk's piece and the
    value objects it was made of."""

    def __init__(self, ordered: list[str], ends: set[str], made: dict[tuple[bool, tuple[str, ...]], tuple[tuple[Any, ...], Piece]]) -> None:
        self.ordered = ordered
        self.ends = ends
        """The keys that end a chunk."""
        cuts = [bisect.bisect_left(ordered, key) + 1 for key in sorted(ends)]
        if ordered and (not cuts or cuts[-1] != len(ordered)):
            cuts.append(len(ordered))
        self.chunks = [(chunk, _values_of(chunk)) for chunk in (tuple(ordered[a:b]) for a, b in zip([0, *cuts], cuts))]
        self.made = made

    @classmethod
    def of(cls, entries: dict[str, Any], memo: _MapMemo | None) -> tuple[_MapMemo, list[tuple[Any, ...]]]:
        """A memo of exactly ``entries``' keys and the values of each chunk: ``memo`` itself while the map holds the
        same number of entries, ``memo`` with the new keys (those a dict holds last) when it holds more, anew from
        every key when a key is gone (some chunk then misses one)."""
        if memo is not None and len(entries) != len(memo.ordered):
            memo = memo._grown(entries)
        if memo is not None:
            try:
                return memo, [values_of(entries) for _, values_of in memo.chunks]
            except KeyError:
                pass
        ordered = sorted(entries)
        memo = cls(ordered, {key for key in ordered if _ends_chunk(key)}, memo.made if memo is not None else {})
        return memo, [values_of(entries) for _, values_of in memo.chunks]

    def _grown(self, entries: dict[str, Any]) -> _MapMemo | None:
        if len(entries) < len(self.ordered):
            return None
        ordered, fresh = self.ordered.copy(), list(itertools.islice(entries, len(self.ordered), None))
        for key in fresh:
            at = bisect.bisect_left(ordered, key)
            if at == len(ordered) or ordered[at] != key:
                ordered.insert(at, key)
        if len(ordered) != len(entries):
            return None
        return _MapMemo(ordered, self.ends | {key for key in fresh if _ends_chunk(key)}, self.made)


def _cut(entries: dict[str, Any], kind: Kind, least: int) -> bool:
    """Whether a map's encoding is likely ``least`` bytes or more, judged from its first entry (of its first inner map
    that has one): a guess, but one made from the state alone, so two plays of a run cut the same maps."""
    sample = next((inner for inner in entries.values() if inner), None) if kind == "maps" else entries
    if not sample:
        return False
    key = next(iter(sample))
    count = sum(map(len, entries.values())) if kind == "maps" else len(entries)
    return count * (len(key) + len(canonical(sample[key])) + 4) >= least


def _values_of(keys: tuple[str, ...]) -> Any:
    """``entries -> tuple of the values at keys``, in C."""
    if len(keys) == 1:
        key = keys[0]
        return lambda entries: (entries[key],)
    return operator.itemgetter(*keys)


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
    """Decoded chunks of shared fields by (field, digest), least recently used first out, up to ``CACHED_ITEMS`` list
    items and map entries."""

    def __init__(self, limit: int = CACHED_ITEMS) -> None:
        self.limit = limit
        self._chunks: OrderedDict[tuple[int, str], tuple[Any, int]] = OrderedDict()
        self._items = 0

    def get(self, key: tuple[int, str]) -> Any:
        kept = self._chunks.get(key)
        if kept is None:
            return None
        self._chunks.move_to_end(key)
        return kept[0]

    def put(self, key: tuple[int, str], chunk: Any, items: int) -> None:
        """Keep ``chunk``, which holds ``items`` items or entries, dropping the least recently used beyond the limit."""
        if key in self._chunks or items > self.limit:
            return
        self._chunks[key] = (chunk, items)
        self._items += items
        while self._items > self.limit:
            _, (_, dropped) = self._chunks.popitem(last=False)
            self._items -= dropped


def assemble(manifest: Manifest, pieces: dict[str, bytes]) -> bytes | None:
    """The state's whole encoding, or None if a piece is missing or does not inflate."""
    if any(key not in pieces for key in manifest.pieces):
        return None
    try:
        return b"".join(unpack(manifest, pieces[key]) for key in manifest.pieces)
    except zstandard.ZstdError:
        return None


def load(manifest: Manifest, fetch: Any, decode: Any, shared: Sequence[SharedField], cache: PieceCache) -> Any:
    """The state a manifest describes, or None if a piece is missing, altered or does not decode.

    ``fetch(digests) -> {digest: bytes}`` reads pieces; ``decode(bytes)`` decodes a whole state. A shared field the
    manifest has chunks of is put together from them (a map in a snapshot written before maps were shared is whole in
    the skeleton)."""
    if len(manifest.lists) != len(manifest.pieces) or any(not SKELETON <= i < len(shared) for i in manifest.lists):
        return None
    chunks: dict[str, Any] = {}
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
    fields: dict[int, list[Any]] = {}
    try:
        for key, index in zip(manifest.pieces, manifest.lists):
            if index == SKELETON:
                skeleton.append(unpack(manifest, read[key]))
                continue
            if key not in chunks:
                chunks[key] = shared[index].decode(unpack(manifest, read[key]))
                cache.put((index, key), chunks[key], shared[index].size(chunks[key]))
            fields.setdefault(index, []).append(chunks[key])
        state = decode(b"".join(skeleton))
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, zstandard.ZstdError):
        return None
    for index, parts in fields.items():
        setattr(getattr(state, shared[index].part), shared[index].field, shared[index].joined(parts))
    return state


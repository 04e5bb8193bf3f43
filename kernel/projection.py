"""World state as a fold of the log.

Each domain (a subsystem, or the kernel's own clock and session) owns one part of the
state: a mutable msgspec Struct created from the world, and reducers that apply events to
that part and to nothing else. A ``Projection`` combines the domains into one ``State``
Struct (one attribute per domain) and folds events into it.

Reducers mutate the part they are given; they are pure in the sense that matters here —
the part after a reducer depends only on the part before and the event. That keeps a fold
at millions of events per second and a snapshot a plain encoding of the state. A reducer
never replaces its part (it only gets the part, not the state), so a fold looks each part
up once, not once per event.
"""

from __future__ import annotations

import functools
import gc
import typing
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Union

import msgspec

from campus.events import KINDS, Event, WorldChange, WorldChanged, canonical, digest
from campus.events.codec import TooDeep, decode_event, event_decoder
from campus.kernel.snapshots import CHUNK_ITEMS, MAP_MIN_BYTES, PieceCache, SnapshotWriter, shared_fields
from campus.kernel.store import DECODED, counted_mark

Reducer = Callable[[Any, Any], None]
ChangeCheck = Callable[[Any, Any], "str | None"]
"""``(change, world) -> why the domain would ignore that world change, or None``."""
Reducers = tuple[tuple[str, Reducer], ...]
"""(domain name, reducer) pairs, in domain order."""


@dataclass(frozen=True)
class Domain:
    """One part of the state: its type, how it starts, and how events change it.

    ``tools`` holds the domain's tool declarations (``kernel.tools.ToolDecl``); the kernel's
    own domains have none.
    """

    name: str
    state_type: type[msgspec.Struct]
    initial: Callable[[Any], msgspec.Struct]
    reducers: dict[type[Event], Reducer] = field(default_factory=dict)
    tools: tuple[Any, ...] = ()
    changes: dict[type, ChangeCheck] = field(default_factory=dict)
    """The world-change kinds this domain applies (in its ``WorldChanged`` reducer), each with its check."""
    guards: dict[type, Callable[[Any, Any, Any], str | None]] = field(default_factory=dict)
    """Compare-and-set checks of the trigger changes this domain applies: ``(part, change, world)``
    -> why the change's ``old`` value does not hold, or None (``kernel/triggers.py``)."""


class Projection:
    """Folds events into a ``State`` with one attribute per domain, plus ``seq`` and ``now``."""

    def __init__(self, domains: Sequence[Domain], world: Any) -> None:
        names = [d.name for d in domains]
        if len(set(names)) != len(names):
            raise ValueError(f"domain names must be unique, got {names}")
        self.domains = tuple(domains)
        self.world = world
        self.state_type = msgspec.defstruct(
            "State",
            [("seq", int, 0), ("now", int, 0)] + [(d.name, d.state_type) for d in domains],
            kw_only=True,
        )
        self._decoder = msgspec.json.Decoder(self.state_type)
        self.shared_fields = shared_fields((d.name, d.state_type) for d in domains)
        """The lists and maps whose chunks snapshots share (``kernel/snapshots.py``)."""
        self.pieces = PieceCache()
        """Decoded chunks of those fields, kept between seeks."""
        self._table = self._dispatch_table()
        self._by_kind = {
            tag: (event_decoder(cls) if self._reads(cls) else None, self._table[cls])
            for tag, cls in KINDS.items()
            if cls in self._table
        }
        """Stored kind -> (its own decoder, or None if no reducer reads the event; its reducers)."""
        self.folded_kinds: tuple[str, ...] = tuple(sorted(self._by_kind))
        """The kinds a fold must look at; every other kind only moves ``seq`` and ``now``."""
        self.counted_kinds: tuple[str, ...] = tuple(kind for kind in self.folded_kinds if self._by_kind[kind][0] is None)
        """The folded kinds no reducer reads: a fold needs their place in the log, not their payload."""
        self.decoded_kinds: tuple[str, ...] = tuple(kind for kind in self.folded_kinds if kind not in self.counted_kinds)
        self._lean = {kind: self._lean_type(KINDS[kind]) for kind in self.decoded_kinds}
        """Per decoded kind, what a fold decodes it as: the event type, or one with only the fields its reducers read."""
        self._joined = msgspec.json.Decoder(list[Union[tuple(self._lean.values())]]) if self.decoded_kinds else None  # type: ignore[misc]
        """Decodes a joined batch's array of events (``EventStore.scan_joined``) in one call."""

    def _lean_type(self, event_type: type[Event]) -> type:
        """``event_type`` cut down to the fields its reducers read, if each of them says which (``reads``)."""
        wanted: set[str] = set()
        for domain in self.domains:
            if event_type in domain.reducers:
                read = getattr(domain.reducers[event_type], "reads_fields", None)
                if read is None:
                    return event_type
                wanted |= read
        return _lean_struct(event_type, frozenset(wanted))

    def _reads(self, event_type: type) -> bool:
        return any(getattr(d.reducers.get(event_type), "reads_event", True) for d in self.domains if event_type in d.reducers)

    def _dispatch_table(self) -> dict[type, Reducers]:
        table: dict[type, list[tuple[str, Reducer]]] = {}
        for domain in self.domains:
            for event_type, reducer in domain.reducers.items():
                table.setdefault(event_type, []).append((domain.name, reducer))
        return {k: tuple(v) for k, v in table.items()}

    def initial(self) -> Any:
        parts = {d.name: d.initial(self.world) for d in self.domains}
        return self.state_type(**parts)

    def apply(self, state: Any, seq: int, t: int, event: Event) -> None:
        for name, reducer in self._table.get(type(event), ()):
            reducer(getattr(state, name), event)
        state.seq = seq
        state.now = t

    def applier(self, state: Any) -> Callable[[int, int, Event], None]:
        """``apply`` bound to one state, for a session applying its events one by one: each event type's
        reducers come already paired with their parts (a reducer never replaces its part)."""
        calls = _bind(self._type_plan, self._parts(state)).get
        empty: tuple = ()

        def apply(seq: int, t: int, event: Event) -> None:
            for reducer, part in calls(type(event), empty):
                reducer(part, event)
            state.seq = seq
            state.now = t

        return apply

    def fold(self, state: Any, events: Iterable[Event], last_seq: int, last_t: int) -> Any:
        """Apply events in order; the caller says which seq and time the last one had."""
        table = self._table
        empty: tuple = ()
        for event in events:
            for name, reducer in table.get(type(event), empty):
                reducer(getattr(state, name), event)
        state.seq = last_seq
        state.now = last_t
        return state

    def fold_rows(self, state: Any, rows: Sequence[Any]) -> Any:
        """Decode and fold stored rows (anything with ``kind``, ``payload``, ``seq`` and ``t``)."""
        if not rows:
            return state
        self._fold_pairs(state, [(row.kind, row.payload) for row in rows])
        state.seq = rows[-1].seq
        state.now = rows[-1].t
        return state

    def fold_range(self, state: Any, store: Any, branch_id: str, start: int, stop: int) -> Any:
        """Fold events ``start..stop`` of a branch straight from the store (``stop`` must exist).

        The store hands over each batch as one JSON array of the events reducers read and one
        mark per folded event (``EventStore.scan_joined``): the array is decoded in one call, and
        the counted events between two decoded ones are a run of marks whose reducer calls are
        worked out once per distinct run; a world change goes only to the domains that apply its kind
        (``_routed_plan``). The state is the same as applying every event with ``apply`` (tested)."""
        if start > stop:
            return state
        plan, parts = self._fold_plan, self._parts(state)
        table, routed, marks = _bind(plan.by_type, parts), _bind(plan.routed, parts), _bind(plan.marks, parts)
        plans: dict[str, Bound] = {}
        with gc_paused():
            for joined in store.scan_joined(branch_id, start, stop, self.decoded_kinds, self.counted_kinds):
                runs = joined.marks.split(DECODED)
                events = self._decode_joined(joined.payloads)
                if len(runs) != len(events) + 1:
                    raise ValueError(f"a joined batch of {branch_id!r} has {len(events)} events for {len(runs) - 1} marks")
                events.append(None)
                for run, event in zip(runs, events):
                    if run:
                        calls = plans.get(run)
                        if calls is None:
                            calls = plans[run] = tuple(call for mark in run for call in marks[mark])
                        for reducer, part in calls:
                            reducer(part, None)
                    calls = table.get(type(event))
                    if calls is None:
                        calls = routed[type(event.change)]  # type: ignore[union-attr]
                    for reducer, part in calls:
                        reducer(part, event)
        last = store.rows(branch_id, stop, stop)[-1]
        state.seq = last.seq
        state.now = last.t
        return state

    def _parts(self, state: Any) -> dict[str, Any]:
        return {domain.name: getattr(state, domain.name) for domain in self.domains}

    @functools.cached_property
    def _type_plan(self) -> dict[Any, Plan]:
        """Per event type, its reducers paired with the names of the parts they are given."""
        return {cls: tuple((reducer, name) for name, reducer in reducers) for cls, reducers in self._table.items()}

    @functools.cached_property
    def _fold_plan(self) -> FoldPlan:
        """What ``fold_range`` calls per event type, per world-change kind and per counted kind's mark, by domain name:
        the same for every state, so a fold only pairs each entry's reducers with its state's parts."""
        by_type: dict[Any, Plan] = {type(None): ()}
        for kind in self.decoded_kinds:
            by_type[KINDS[kind]] = by_type[self._lean[kind]] = self._type_plan[KINDS[kind]]
        by_type.pop(WorldChanged, None)  # routed by the kind of its change
        marks = {counted_mark(i): self._type_plan[KINDS[kind]] for i, kind in enumerate(self.counted_kinds)}
        return FoldPlan(
            by_type=by_type,
            routed=self._routed_plan(),
            marks=marks,
        )

    def _routed_plan(self) -> dict[Any, Plan]:
        """Per world-change kind, the ``WorldChanged`` reducers a fold calls for it: a domain that declares
        the kinds it applies (``Domain.changes``) is given only those; a domain that declares none (the
        session, the rules) is given every change."""
        return {
            kind: tuple(
                (domain.reducers[WorldChanged], domain.name)
                for domain in self.domains
                if WorldChanged in domain.reducers and (not domain.changes or kind in domain.changes)
            )
            for kind in typing.get_args(WorldChange)
        }

    def _decode_joined(self, payloads: bytes) -> list[Event | None]:
        """A joined batch's events; a batch holding a payload of an older schema is read one payload at a time."""
        if self._joined is None:
            return []
        try:
            return self._joined.decode(payloads)
        except msgspec.ValidationError:
            return [decode_event(bytes(raw)) for raw in msgspec.json.decode(payloads, type=list[msgspec.Raw])]
        except RecursionError:
            raise TooDeep() from None

    def _fold_pairs(self, state: Any, pairs: Iterable[tuple[str, Any]]) -> None:
        """Only kinds some reducer needs are decoded, each with its own typed decoder (no union
        tag search); reducers marked ``occurrence`` get None (and their payload may be None).
        The cyclic GC is paused: decoded events hold no reference cycles, and collections set
        off by their allocations were most of the cost of a fold."""
        by_kind = self._bound(state)
        with gc_paused():
            for kind, payload in pairs:
                entry = by_kind.get(kind)
                if entry is not None:
                    decode, reducers = entry
                    event = decode(payload) if decode is not None else None
                    for reducer, part in reducers:
                        reducer(part, event)

    def _bound(self, state: Any) -> dict[str, tuple[Callable[[Any], Event] | None, tuple[tuple[Reducer, Any], ...]]]:
        """Each folded kind's decoder and its reducers paired with their parts of ``state``."""
        return {
            kind: (decode, tuple((reducer, getattr(state, name)) for name, reducer in reducers))
            for kind, (decode, reducers) in self._by_kind.items()
        }

    def encode(self, state: Any) -> bytes:
        return canonical(state)

    def decode(self, data: bytes) -> Any:
        return self._decoder.decode(data)

    def state_hash(self, state: Any) -> str:
        return digest(self.encode(state))

    def writer(self, chunk_items: int = CHUNK_ITEMS, map_min_bytes: int = MAP_MIN_BYTES) -> SnapshotWriter:
        """Cuts one branch's states into the pieces ``put_snapshot`` stores."""
        return SnapshotWriter([d.name for d in self.domains], self.shared_fields, chunk_items, map_min_bytes)


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic collection inside the block (reference counting still frees everything)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


Plan = tuple[tuple[Reducer, str], ...]
"""Reducers paired with the names of the parts they are given."""


Bound = tuple[tuple[Reducer, Any], ...]
"""Reducers paired with the parts of one state they are given."""


def _bind(plan: dict[Any, Plan], parts: dict[str, Any]) -> dict[Any, Bound]:
    return {key: tuple((reducer, parts[name]) for reducer, name in calls) for key, calls in plan.items()}


@dataclass(frozen=True)
class FoldPlan:
    by_type: dict[Any, Plan]
    routed: dict[Any, Plan]
    marks: dict[str, Plan]


@functools.cache
def _lean_struct(event_type: type[Event], wanted: frozenset[str]) -> type:
    """A Struct with ``event_type``'s tag and only the fields in ``wanted``; one per pair in a process,
    so every projection (one per run) decodes into the same class."""
    config, fields = event_type.__struct_config__, msgspec.structs.fields(event_type)
    unknown = wanted - {f.name for f in fields}
    if unknown:
        raise ValueError(f"a reducer of {event_type.__name__} reads fields it does not have: {sorted(unknown)}")
    kept = [(f.name, f.type) if f.required else (f.name, f.type, f.default) for f in fields if f.name in wanted]
    return msgspec.defstruct(event_type.__name__, kept, tag=config.tag, tag_field=config.tag_field, frozen=True, kw_only=True)


def reads(*fields: str) -> Callable[[Reducer], Reducer]:
    """Mark a reducer that reads only these fields of its event: when every reducer of a kind says so, a fold
    decodes that kind into a Struct of just those fields (msgspec skips the rest of the payload)."""

    def mark(reducer: Reducer) -> Reducer:
        reducer.reads_fields = frozenset(fields)  # type: ignore[attr-defined]
        return reducer

    return mark


def occurrence(reducer: Reducer) -> Reducer:
    """Mark a reducer that only counts its event and never reads it: folds skip decoding it."""
    reducer.reads_event = False  # type: ignore[attr-defined]
    return reducer

"""Upcasters: how a payload written under an older schema becomes a current one.

msgspec already tolerates additive changes (a new field with a default). Anything else —
a renamed field, a split event — gets a function here, keyed by the schema version it
upgrades *from*. Upcasting runs on decoded dicts, before conversion to Structs.

A stored payload does not say its schema, and one lineage can hold several (a fork of an
old run appends current events), so the codec reads a payload that does not decode under
the current schema as one of each older schema in turn, newest first (``older_versions``).
Every upcaster therefore changes only payloads that really have the old shape.

Schema 1 → 2: times stop being labels. The labels schema 1 stored were the canonical ones
its handlers and generators wrote (``Week 1-18, Monday, 14:00-16:50``, ``Week 3, Monday``,
``14:00-16:00``); a label that does not read becomes a time the reducers skip, as the
schema 1 reducers skipped it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

UPCASTERS: dict[int, dict[str, Upcaster]] = {}
CHANGE_UPCASTERS: dict[int, dict[str, Upcaster]] = {}
"""World changes (inside ``world_changed`` events and a term's triggers), by their ``type`` tag."""


def register(from_version: int, kind: str) -> Callable[[Upcaster], Upcaster]:
    def decorate(fn: Upcaster) -> Upcaster:
        UPCASTERS.setdefault(from_version, {})[kind] = fn
        return fn

    return decorate


def register_change(from_version: int, change_type: str) -> Callable[[Upcaster], Upcaster]:
    def decorate(fn: Upcaster) -> Upcaster:
        CHANGE_UPCASTERS.setdefault(from_version, {})[change_type] = fn
        return fn

    return decorate


def upcast(raw: dict[str, Any], schema: int) -> dict[str, Any]:
    """An event payload of ``schema`` as one of the current schema."""
    return _through(UPCASTERS, raw.get("kind", ""), raw, schema)


def upcast_change(raw: dict[str, Any], schema: int) -> dict[str, Any]:
    """A world change of ``schema`` as one of the current schema."""
    return _through(CHANGE_UPCASTERS, raw.get("type", ""), raw, schema)


def _through(steps: dict[int, dict[str, Upcaster]], key: object, raw: dict[str, Any], schema: int) -> dict[str, Any]:
    from campus.events.model import SCHEMA_VERSION

    if not isinstance(key, str):  # not an event of any schema: left for the caller's validation to refuse
        return raw
    for version in range(schema, SCHEMA_VERSION):
        step = steps.get(version, {}).get(key)
        if step is not None:
            raw = step(raw)
    return raw


def older_versions() -> range:
    """The schemas before the current one, newest first."""
    from campus.events.model import SCHEMA_VERSION

    return range(SCHEMA_VERSION - 1, 0, -1)


# ------------------------------------------------------------------ schema 1 labels

_DAYS = {name: i for i, name in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"))}
_SEP = r"\s*(?:,\s*)?"
_CLOCK = r"(\d{1,2}):(\d{2})"
_TIME_V1 = re.compile(
    r"\s*week\s*(\d{1,3})(?:\s*(?:-|to)\s*(\d{1,3}))?" + _SEP + r"([a-z]+)" + _SEP + _CLOCK + r"\s*-\s*" + _CLOCK + r"\s*",
    re.IGNORECASE | re.ASCII,
)
_DATE_V1 = re.compile(r"\s*week\s*(\d{1,3})" + _SEP + r"([a-z]+)\s*", re.IGNORECASE | re.ASCII)
_SLOT_V1 = re.compile(r"\s*" + _CLOCK + r"\s*-\s*" + _CLOCK + r"\s*", re.ASCII)
_UNREADABLE_DAY = -1
"""A schema 1 date that did not read: no day is ever -1, so nothing applies to it."""
_UNREADABLE_TIME = {"first_week": 0, "last_week": 0, "weekday": 0, "start": 0, "end": 0}
"""A schema 1 event time that did not read: it ends when it starts, so the reducers skip it."""


def _weekday(name: str) -> int | None:
    lowered = name.lower()
    index = _DAYS.get(lowered[:3])
    full = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    return index if index is not None and lowered in (full[index], full[index][:3]) else None


def _minutes(hours: str, minutes: str) -> int | None:
    h, m = int(hours), int(minutes)
    return h * 60 + m if h <= 23 and m <= 59 else None


def v1_time(label: str) -> dict[str, int]:
    match = _TIME_V1.fullmatch(label)
    if match is None:
        return dict(_UNREADABLE_TIME)
    first, last, day_name, h1, m1, h2, m2 = match.groups()
    weekday, start, end = _weekday(day_name), _minutes(h1, m1), _minutes(h2, m2)
    if weekday is None or start is None or end is None:
        return dict(_UNREADABLE_TIME)
    first_week = int(first)
    last_week = int(last) if last is not None else first_week
    return {"first_week": first_week, "last_week": last_week, "weekday": weekday, "start": start, "end": end}


def v1_day(label: str) -> int:
    match = _DATE_V1.fullmatch(label)
    weekday = _weekday(match.group(2)) if match is not None else None
    if match is None or weekday is None:
        return _UNREADABLE_DAY
    return int(match.group(1)) * 7 + weekday


def v1_slot(label: str) -> dict[str, int]:
    match = _SLOT_V1.fullmatch(label)
    bounds = (_minutes(match.group(1), match.group(2)), _minutes(match.group(3), match.group(4))) if match else (None, None)
    if bounds[0] is None or bounds[1] is None:
        return {"start": 0, "end": 0}
    return {"start": bounds[0], "end": bounds[1]}


def _without(raw: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in raw.items() if k not in keys}


@register(1, "calendar_event_added")
def _calendar_event_added(raw: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(raw.get("time"), str):
        return raw
    return raw | {"time": v1_time(raw["time"])}


@register(1, "calendar_event_updated")
def _calendar_event_updated(raw: dict[str, Any]) -> dict[str, Any]:
    changes = raw.get("changes")
    if not isinstance(changes, dict) or not isinstance(changes.get("time"), str):
        return raw
    return raw | {"changes": changes | {"time": v1_time(changes["time"])}}


@register(1, "booked")
def _booked(raw: dict[str, Any]) -> dict[str, Any]:
    date, slot = raw.get("date"), raw.get("time_slot")
    if not isinstance(date, str) or not isinstance(slot, str):
        return raw
    return _without(raw, "date", "time_slot") | {"day": v1_day(date)} | v1_slot(slot)


@register(1, "world_changed")
def _world_changed(raw: dict[str, Any]) -> dict[str, Any]:
    change = raw.get("change")
    if not isinstance(change, dict):
        return raw
    return raw | {"change": upcast_change(change, 1)}


@register_change(1, "seat_availability")
def _seat_availability(raw: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(raw.get("date"), str):
        return raw
    return _without(raw, "date") | {"day": v1_day(raw["date"])}


@register_change(1, "advisor_availability")
def _advisor_availability(raw: dict[str, Any]) -> dict[str, Any]:
    slots = raw.get("slots")
    if not isinstance(raw.get("date"), str) or not isinstance(slots, list) or not all(isinstance(s, str) for s in slots):
        return raw
    return _without(raw, "date") | {"day": v1_day(raw["date"]), "slots": [v1_slot(slot) for slot in slots]}


@register_change(1, "calendar_event")
def _calendar_entry(raw: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(raw.get("time"), str):
        return raw
    return raw | {"time": v1_time(raw["time"])}

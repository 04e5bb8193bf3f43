"""Upcasters: how a payload written under an older schema becomes a current one.

msgspec already tolerates additive changes (a new field with a default). Anything else —
a renamed field, a split event — gets a function here, keyed by the schema version it
upgrades *from*. Upcasting runs on decoded dicts, before conversion to Structs, and only
for branches whose recorded schema is older than ``SCHEMA_VERSION``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

UPCASTERS: dict[int, dict[str, Upcaster]] = {}


def register(from_version: int, kind: str) -> Callable[[Upcaster], Upcaster]:
    def decorate(fn: Upcaster) -> Upcaster:
        UPCASTERS.setdefault(from_version, {})[kind] = fn
        return fn

    return decorate


def upcast(raw: dict[str, Any], schema: int) -> dict[str, Any]:
    from events.model import SCHEMA_VERSION

    version = schema
    while version < SCHEMA_VERSION:
        step = UPCASTERS.get(version, {}).get(raw.get("kind", ""))
        if step is not None:
            raw = step(raw)
        version += 1
    return raw

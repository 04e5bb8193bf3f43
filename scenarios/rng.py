"""Seeded randomness for generators: one independent stream per purpose.

Streams are seeded from sha256 of (seed, purpose), never from ``hash()`` (salted per
process) or the clock, so a generator gives the same output in any process.
"""

from __future__ import annotations

import hashlib
import random


def stream(seed: int, purpose: str) -> random.Random:
    digest = hashlib.sha256(f"campus|{seed}|{purpose}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))

"""Shared helpers of the world generators: seeded streams, apportioning and people's names.

Every random stream is ``random.Random`` seeded from the first 8 bytes of
``sha256("|".join(parts))``, never from ``hash()`` or the clock, so a generator gives the
same output in every process.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def stream(*parts: object) -> random.Random:
    """An independent random stream for ``parts`` (e.g. seed, scale and a purpose)."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def digest_index(count: int, *parts: object) -> int:
    """A number in ``range(count)`` fixed by ``parts`` alone (no stream needed)."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") % count


def round_half_up(value: float) -> int:
    return math.floor(value + 0.5)


def scaled(base: int, scale: float, least: int = 1) -> int:
    """``base * scale`` rounded half up, and at least ``least``."""
    return max(least, round_half_up(base * scale))


def apportion(total: int, weights: Sequence[float]) -> list[int]:
    """Split ``total`` in proportion to ``weights`` by largest remainder (ties: first wins)."""
    weight_sum = sum(weights)
    quotas = [total * w / weight_sum for w in weights]
    counts = [math.floor(q) for q in quotas]
    order = sorted(range(len(weights)), key=lambda i: (-(quotas[i] - counts[i]), i))
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


def shuffled_labels(rng: random.Random, labels: Sequence[T], counts: Sequence[int]) -> list[T]:
    """``counts[i]`` copies of ``labels[i]``, shuffled: an exact mix in a random order."""
    mix = [label for label, n in zip(labels, counts) for _ in range(n)]
    rng.shuffle(mix)
    return mix


_NOT_WORD = re.compile(r"[^a-z0-9]+")


def snake(text: str) -> str:
    """``"Chess & Go Club"`` -> ``"chess_go_club"``."""
    return _NOT_WORD.sub("_", text.lower()).strip("_")


FIRST_NAMES: tuple[str, ...] = (
    "Aaron", "Abigail", "Adrian", "Aisha", "Alan", "Alice", "Amara", "Andre", "Anya", "Arjun",
    "Beatrice", "Benjamin", "Bianca", "Boris", "Bruno", "Caleb", "Camille", "Carlos", "Celia",
    "Chen", "Clara", "Daniel", "Daria", "David", "Delia", "Diego", "Dmitri", "Elena", "Elias",
    "Emeka", "Emma", "Ethan", "Farah", "Felix", "Fiona", "Gabriel", "Grace", "Hana", "Hassan",
    "Helena", "Hugo", "Ines", "Irene", "Isaac", "Ivan", "Jamal", "Jasmine", "Javier", "Julia",
    "Kai", "Karin", "Kenji", "Laila", "Lars", "Leah", "Leon", "Lina", "Lucas", "Maya", "Mateo",
    "Mei", "Miguel", "Mira", "Nadia", "Naomi", "Nikhil", "Nora", "Olga", "Omar", "Oscar",
    "Paula", "Pedro", "Priya", "Rafael", "Rana", "Rosa", "Ruben", "Sakura", "Samuel", "Sara",
    "Sofia", "Stefan", "Tariq", "Tessa", "Theo", "Uma", "Victor", "Vera", "Wei", "Yara",
    "Yusuf", "Zara", "Zoe", "Marcus", "Ingrid", "Tomas", "Lucia", "Kwame", "Noor", "Felipe",
)
LAST_NAMES: tuple[str, ...] = (
    "Abbott", "Adeyemi", "Alvarez", "Andersen", "Baker", "Banerjee", "Barros", "Bauer", "Becker",
    "Bennett", "Blake", "Brandt", "Carter", "Castro", "Chandra", "Chen", "Costa", "Cruz",
    "Dalton", "Das", "Delgado", "Dubois", "Edwards", "Ellis", "Evans", "Farouk", "Fischer",
    "Fontaine", "Garcia", "Greene", "Gupta", "Haddad", "Hansen", "Hayes", "Hoffman", "Holm",
    "Ibrahim", "Ito", "Jansen", "Jensen", "Kane", "Kaur", "Khan", "Kim", "Klein", "Kowalski",
    "Lambert", "Larsen", "Lee", "Lopez", "Mahmoud", "Malik", "Marin", "Meyer", "Mills",
    "Moreau", "Morris", "Nakamura", "Navarro", "Nguyen", "Novak", "Okafor", "Olsen", "Ortiz",
    "Park", "Patel", "Perez", "Petrov", "Quinn", "Ramos", "Reed", "Reyes", "Rossi", "Russo",
    "Saito", "Santos", "Schmidt", "Shah", "Silva", "Singh", "Sato", "Sorensen", "Stone",
    "Suzuki", "Tan", "Torres", "Turner", "Vargas", "Vogel", "Wagner", "Walsh", "Wang", "Weber",
    "Wright", "Yamamoto", "Young", "Zhang", "Zimmer", "Osei", "Lindgren",
)


def person_names(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """``count`` (first, last) pairs, all different while the name lists allow."""
    pairs = len(FIRST_NAMES) * len(LAST_NAMES)
    picks = rng.sample(range(pairs), count) if count <= pairs else [rng.randrange(pairs) for _ in range(count)]
    return [(FIRST_NAMES[p // len(LAST_NAMES)], LAST_NAMES[p % len(LAST_NAMES)]) for p in picks]

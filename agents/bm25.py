"""BM25 Okapi over token lists, from an inverted index, scoring exactly as ``rank-bm25`` does.

The ``bm25`` and ``light`` memories rank passages with BM25 on every turn. ``rank_bm25.BM25Okapi``
re-counts the whole corpus when it is built and, per query word, walks every document's counts
in Python, so a long run's recall grew with the corpus times the query. This index keeps each
word's postings (the documents holding it and how often) as documents come in, and a query touches
only the postings of its words; what a word adds to each of its documents is kept until the corpus
changes, since a task's turns ask with much the same words.

The scores are the very floats ``BM25Okapi(corpus).get_scores(query)`` gives (k1 1.5, b 0.75,
epsilon 0.25; the same operations in the same order, the same floor on negative idf), so the
ranking, and with it every prompt a recorded run was given, is unchanged; ``tests/test_bm25.py``
holds it to ``rank-bm25`` on random corpora.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

K1 = 1.5
B = 0.75
EPSILON = 0.25
"""A word in more than half the documents (negative idf) counts ``EPSILON`` times the mean idf."""

Floats = NDArray[np.float64]
Indices = NDArray[np.intp]


class Okapi:
    """Documents are added in order (their index is their place); ``top`` ranks them for a query."""

    def __init__(self) -> None:
        self._postings: dict[str, tuple[list[int], list[int]]] = {}
        """word -> (documents holding it, its count in each), words in the order first seen."""
        self._lengths: list[int] = []
        self._norms: Floats | None = None
        self._idf: dict[str, float] = {}
        self._terms: dict[str, tuple[Indices, Floats]] = {}
        """word -> (its documents, what it adds to each): valid until the next ``add``."""

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, tokens: Sequence[str]) -> None:
        doc = len(self._lengths)
        counts: dict[str, int] = {}
        for word in tokens:
            counts[word] = counts.get(word, 0) + 1
        for word, count in counts.items():
            docs, freqs = self._postings.setdefault(word, ([], []))
            docs.append(doc)
            freqs.append(count)
        self._lengths.append(len(tokens))
        self._norms = None
        self._terms.clear()

    def scores(self, query: Sequence[str]) -> Floats:
        """One score per document, ``BM25Okapi.get_scores``'s floats (a word repeated counts again)."""
        score = np.zeros(len(self._lengths))
        if not self._postings:  # no documents, or only empty ones (where rank-bm25 divides by zero)
            return score
        norms = self._refresh()
        for word in query:
            term = self._terms.get(word) or self._term(word, norms)
            if term is not None:
                docs, adds = term
                score[docs] += adds  # a word's documents are distinct, so each gets its add once
        return score

    def top(self, query: Sequence[str], k: int) -> list[int]:
        """The ``k`` best documents scoring above zero, best first, ties to the earlier document."""
        score = self.scores(query)
        hits = np.flatnonzero(score > 0)
        order = hits[np.lexsort((hits, -score[hits]))]
        return [int(i) for i in order[:k]]

    def _term(self, word: str, norms: Floats) -> tuple[Indices, Floats] | None:
        posting = self._postings.get(word)
        if posting is None:
            return None
        docs = np.array(posting[0], dtype=np.intp)
        freqs = np.array(posting[1])
        adds = self._idf[word] * (freqs * (K1 + 1) / (freqs + norms[docs]))
        self._terms[word] = term = (docs, adds)
        return term

    def _refresh(self) -> Floats:
        """Per-document length norms and every word's idf, recomputed after documents came in."""
        if self._norms is not None:
            return self._norms
        n = len(self._lengths)
        lengths = np.array(self._lengths)
        self._norms = K1 * (1 - B + B * lengths / (sum(self._lengths) / n))
        idf_sum: float = 0
        negative: list[str] = []
        idf: dict[str, float] = {}
        for word, (docs, _) in self._postings.items():
            held = len(docs)
            value = math.log(n - held + 0.5) - math.log(held + 0.5)
            idf[word] = value
            idf_sum += value
            if value < 0:
                negative.append(word)
        floor = EPSILON * (idf_sum / len(idf))
        for word in negative:
            idf[word] = floor
        self._idf = idf
        return self._norms

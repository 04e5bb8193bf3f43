"""The memories' BM25 index against ``rank-bm25``, the library it replaced: the same floats, the same ranking."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st
from rank_bm25 import BM25Okapi

from campus.agents.bm25 import Okapi

WORDS = st.sampled_from(["the", "room", "b021", "seat", "email", "a", "calendar", "week", "3", "of"])
"""A small vocabulary, so words are shared, scores tie and common words get a negative idf."""
CORPUS = st.lists(st.lists(WORDS, max_size=12), min_size=1, max_size=25).filter(lambda docs: any(docs))
QUERY = st.lists(st.one_of(WORDS, st.just("unseen")), min_size=1, max_size=8)


def indexed(corpus: list[list[str]]) -> Okapi:
    index = Okapi()
    for tokens in corpus:
        index.add(tokens)
    return index


def ranked(scores: np.ndarray, k: int) -> list[int]:
    """The ranking the memories made from ``rank-bm25``'s scores."""
    return sorted((i for i in range(len(scores)) if scores[i] > 0), key=lambda i: (-scores[i], i))[:k]


@settings(max_examples=300, deadline=None)
@given(CORPUS, QUERY, st.integers(1, 30))
def test_scores_and_ranking_are_rank_bm25s(corpus: list[list[str]], query: list[str], k: int) -> None:
    expected = BM25Okapi(corpus).get_scores(query)
    index = indexed(corpus)
    assert index.scores(query).tobytes() == expected.tobytes()  # bit for bit, not approximately
    assert index.top(query, k) == ranked(expected, k)
    assert index.top(query, k) == ranked(expected, k)  # asked again, from what the first query kept


@settings(max_examples=100, deadline=None)
@given(CORPUS, CORPUS, QUERY)
def test_documents_added_after_a_query_rescore_the_whole_corpus(first: list[list[str]], later: list[list[str]],
                                                                query: list[str]) -> None:
    index = indexed(first)
    index.top(query, 5)
    for tokens in later:
        index.add(tokens)
    assert index.scores(query).tobytes() == BM25Okapi(first + later).get_scores(query).tobytes()


def test_an_empty_index_or_a_query_of_unknown_words_ranks_nothing() -> None:
    assert Okapi().top(["room"], 5) == []
    assert indexed([[], []]).top(["room"], 5) == []
    corpus = [["room", "b021"], ["seat"], ["room"]]
    index = indexed(corpus)
    assert index.top(["nowhere"], 5) == []
    assert index.top(["seat", "seat"], 5) == [1]
    twice, once = index.scores(["seat", "seat"]), index.scores(["seat"])
    assert twice[1] == 2 * once[1] > 0  # a repeated word counts again, as in rank-bm25
    assert twice.tobytes() == BM25Okapi(corpus).get_scores(["seat", "seat"]).tobytes()

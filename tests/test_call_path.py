"""The tool-call path's fast paths (issue 18) against the slow paths they replace."""

from __future__ import annotations

import gc

import pytest

import campus.kernel.runner as runner
from campus.kernel.store import MemoryStore
from campus.world.index import WorldIndex
from tests.conftest import play


def test_the_first_session_hides_the_heap_from_the_cyclic_collector(world: WorldIndex, small_term,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    gc.unfreeze()
    monkeypatch.setattr(runner, "_heap_settled", False)
    try:
        play(MemoryStore(), world, small_term, "noop")
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the imported modules and the world at least
        play(MemoryStore(), world, small_term, "noop")
        assert gc.get_freeze_count() == frozen  # only once per process
    finally:
        gc.unfreeze()

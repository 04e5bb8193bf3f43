"""Fixtures of the model-backed agent tests (a pytest plugin: ``pytest_plugins = ["tests.llm_fixtures"]``)."""

from __future__ import annotations

import pytest

from campus.agents import make_agent
from campus.kernel.store import MemoryStore
from campus.scenarios.play import Run, new_run
from campus.scenarios.task import Term
from campus.scenarios.term import generate_term
from campus.kernel.recorded import replies_of
from tests.llm_support import SCALE
from campus.world.index import WorldIndex


@pytest.fixture(scope="session")
def short_term(world: WorldIndex) -> Term:
    return generate_term(world, 0, scale=SCALE)


@pytest.fixture(scope="session")
def oracle_run(world: WorldIndex, short_term: Term) -> Run:
    run = new_run(MemoryStore(), world, short_term, agent_name="oracle", seed=0)
    run.session(make_agent("oracle", short_term, world)).run()
    return run


@pytest.fixture(scope="session")
def oracle_replies(oracle_run: Run) -> list[str]:
    """What the oracle said, reply by reply: a perfect model's script for the short term."""
    replies = replies_of(oracle_run.store, oracle_run.branch.id)
    assert all(r.text is not None for r in replies)
    return [r.text for r in replies]  # type: ignore[misc]

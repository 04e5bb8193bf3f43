"""Shared fixtures: one generated world and term, and both log stores."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")  # the same examples on every CI run; local runs keep exploring

from campus.agents import make_agent
from campus.kernel.store import EventStore, MemoryStore, SQLiteStore
from campus.scenarios.play import Run, new_run
from campus.scenarios.task import Term
from campus.scenarios.term import generate_term
from campus.world.generate import generate_world
from campus.world.index import WorldIndex

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(scope="session")
def world() -> WorldIndex:
    return WorldIndex(generate_world(0))


@pytest.fixture(scope="session")
def terms(world: WorldIndex) -> Callable[..., Term]:
    """``generate_term`` on the session's world, each distinct term made once per test process (a term is frozen,
    so tests can share it; the default term takes ~1.3 s of CPU to make: one draw on world generator 3's campus)."""
    return functools.cache(functools.partial(generate_term, world))


@pytest.fixture(scope="session")
def term(terms: Callable[..., Term]) -> Term:
    return terms(0)


@pytest.fixture(scope="session")
def small_term(world: WorldIndex) -> Term:
    """Seed 3's term without disruptions: its users play it with run seed 0 (``play``), and a disruption task's
    seats are drawn open with the term's seed, so the oracle would fail some of them. A library task's seats are
    drawn so too (since its booking's seats stopped being shaped): a user that needs the oracle to solve every task
    plays it with the term's seed."""
    return generate_term(world, 3, scale=0.2, disruptions=False)


@pytest.fixture(scope="session")
def oracle_full(world: WorldIndex, term: Term) -> Run:
    """The oracle's run of the default term, played once for every test that only reads it."""
    return play(MemoryStore(), world, term, "oracle")


@pytest.fixture(scope="session")
def oracle_other(world: WorldIndex, terms: Callable[..., Term]) -> Run:
    """The oracle's run of seed 1's default term on the same world: another student's term, for readers who learn
    from one term what to answer about another."""
    return play(MemoryStore(), world, terms(1), "oracle")


@pytest.fixture(scope="session")
def noop_full(world: WorldIndex, term: Term) -> Run:
    return play(MemoryStore(), world, term, "noop")


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EventStore]:
    made: EventStore = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "log.db")
    yield made
    made.close()


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SQLiteStore]:
    made = SQLiteStore(tmp_path / "runs.db")
    yield made
    made.close()


def play(store: EventStore, world: WorldIndex, term: Term, agent: str, seed: int = 0, **options) -> Run:
    """Create a run and play it to the end with a built-in agent."""
    run = new_run(store, world, term, agent_name=agent, seed=seed, **options)
    run.session(make_agent(agent, term, world)).run()
    return run


def oracle_db(path: Path, scale: float) -> Path:
    """The oracle's run of a small term (``oracle-s0``, seed 0) played into a SQLite file at ``path``, closed."""
    from campus.scenarios.play import RunSpec, load_inputs, start_run

    spec = RunSpec(seed=0, scale=scale, agent="oracle")
    world, term = load_inputs(spec)
    store = SQLiteStore(path)
    start_run(store, spec, (world, term)).session(make_agent("oracle", term, world)).run()
    store.close()
    return path

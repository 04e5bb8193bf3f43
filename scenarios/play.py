"""Putting a run together: a world, the subsystems, a term, a log and an agent.

``start_run`` builds a new run from a ``RunSpec`` (world source, seed, scale, agent name,
round limit, run id); ``open_run`` reopens a stored one. Worlds and terms are stored in the
log's database by content hash, so a branch carries everything needed to replay it anywhere:
``open_run`` rebuilds the kernel and the term from the database alone.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from campus.events import MAX_SEED, TaskEnded, genesis_hash
from campus.kernel.agent import Agent
from campus.kernel.engine import Kernel
from campus.kernel.runner import Session, run_config
from campus.kernel.stepper import Stepper
from campus.kernel.store import BranchExists, BranchInfo, EventStore
from campus.kernel.tasks import events_of
from campus.scenarios.rounds import DEFAULT_ROUND_LIMIT
from campus.scenarios.task import Term, decode_term
from campus.scenarios.term import generate_term
from campus.subsystems import DOMAINS, SYSTEM_TITLES
from campus.subsystems.examples import example_values
from campus.subsystems.geography import locate
from campus.world.generate import WORLD_GENERATOR, generate_world
from campus.world.index import WorldIndex
from campus.world.model import decode_world
from campus.world.stulife import load_stulife


_WORLDS: dict[str, WorldIndex] = {}


def build_kernel(world: WorldIndex) -> Kernel:
    return Kernel(world, DOMAINS, locate=locate, describe=world.describe, system_titles=SYSTEM_TITLES,
                  examples=example_values(world))


@dataclass
class Run:
    """One branch with everything needed to continue, replay or score it."""

    store: EventStore
    branch: BranchInfo
    world: WorldIndex
    term: Term
    kernel: Kernel

    def session(self, agent: Agent, on_task_end: Callable[[Any, TaskEnded], None] | None = None, **options: Any) -> Session:
        """A session playing this branch; ``options`` go to ``Session`` (``commit_delay``, ``snapshot_every``)."""
        return Session(self.kernel, self.store, self.branch.id, self.term, agent, on_task_end=on_task_end, **options)

    def stepper(self, **options: Any) -> Stepper:
        """This branch driven from outside, one pushed reply at a time (MCP, Gym-style loops)."""
        return Stepper(lambda agent, hook: self.session(agent, on_task_end=hook, **options), self.branch.agent)

    def ended_tasks(self) -> list[TaskEnded]:
        return events_of(self.store, self.branch.id, TaskEnded)


def store_inputs(store: EventStore, world: WorldIndex, term: Term) -> None:
    store.put_blob("world", world.hash, world.world.encoded)
    store.put_blob("term", term.hash, term.encoded)


@dataclass(frozen=True)
class RunSpec:
    """What a new run is made of; the same spec gives the same genesis."""

    world: str = "generated"
    """``generated`` (from ``seed``), ``generated:SEED`` or ``stulife:DIR``; ``@GENERATOR`` after a generated world
    names an older world generator (``world.generate.WORLD_GENERATORS``)."""
    seed: int = 0
    scale: float = 1.0
    agent: str = "oracle"
    """The agent name the run records."""
    round_limit: int = DEFAULT_ROUND_LIMIT
    branch_id: str | None = None
    """The run's id; by default ``LABEL-sSEED``, made unique."""
    label: str | None = None
    """What the default id is made from (default: ``agent``)."""
    disruptions: bool = True
    """Include the mid-task disruption tasks (trigger rules) in the term (``False``: the term before them)."""
    busy_days: bool = True
    """Include the busy days (``scenarios/busy_days.py``) in the term (``False``: the term before them)."""
    check_ins: bool = False
    """Include the weekly memory check-ins (``scenarios/check_ins.py``) in the term."""


_GENERATED = re.compile(r"generated(?::(\d+))?(?:@(\d+))?")


def load_world(source: str, seed: int) -> WorldIndex:
    """The world named by ``source``; raises ``ValueError`` (``StuLifeDataError`` for bad StuLife data)."""
    kind, _, argument = source.partition(":")
    if kind.partition("@")[0] == "generated":
        made = _GENERATED.fullmatch(source)
        if made is None:
            raise ValueError(f"bad world {source!r}: use generated, generated:SEED, generated@GENERATOR or "
                             "generated:SEED@GENERATOR (whole numbers)")
        return WorldIndex(generate_world(int(made[1]) if made[1] else seed, generator=int(made[2] or WORLD_GENERATOR)))
    if kind == "stulife" and argument:
        return WorldIndex(load_stulife(argument)[0])
    raise ValueError(f"unknown world {source!r}; use --world generated or --world stulife:DIR")


def load_inputs(spec: RunSpec) -> tuple[WorldIndex, Term]:
    world = load_world(spec.world, spec.seed)
    return world, generate_term(world, spec.seed, spec.scale, disruptions=spec.disruptions, busy=spec.busy_days,
                                check_ins=spec.check_ins)


def start_run(store: EventStore, spec: RunSpec, inputs: tuple[WorldIndex, Term] | None = None) -> Run:
    """A new run of ``spec`` (nothing played yet); ``inputs`` reuses a world and term already at hand."""
    world, term = inputs or load_inputs(spec)
    return new_run(store, world, term, agent_name=spec.agent, seed=spec.seed, round_limit=spec.round_limit,
                   branch_id=spec.branch_id, name=f"{slug(spec.label or spec.agent)}-s{spec.seed}")


def new_run(
    store: EventStore,
    world: WorldIndex,
    term: Term,
    *,
    agent_name: str,
    seed: int,
    round_limit: int = DEFAULT_ROUND_LIMIT,
    branch_id: str | None = None,
    triggers: bool = True,
    rules: dict[str, Any] | None = None,
    name: str | None = None,
) -> Run:
    """Create a root branch for ``term`` on ``world``; nothing is played yet. ``triggers=False`` makes the
    static twin: the term's trigger rules never fire on it (recorded in its config, so in its genesis).
    ``rules`` replaces today's rules (``round_limit`` and ``triggers`` then ignored): a stored run played again under its own.
    Without ``branch_id`` the run is named ``name`` (default: the agent's and the seed's), with ``-2``, ``-3``, ... when
    taken, also by another process starting a run at the same moment."""
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed {seed} is outside 0..{MAX_SEED}")
    store_inputs(store, world, term)
    config = dict(rules) if rules is not None else run_config(round_limit)
    if not triggers and rules is None:
        config["triggers"] = False
    genesis = genesis_hash(world.hash, term.hash, seed, config, agent_name)

    def create(named: str) -> BranchInfo:
        return store.create_branch(BranchInfo(id=named, parent=None, fork_seq=0, genesis=genesis, agent=agent_name,
                                              world_hash=world.hash, term_hash=term.hash, seed=seed, config=config))

    info = create(branch_id) if branch_id is not None else in_free_name(store, name or f"{slug(agent_name)}-s{seed}", create)
    return Run(store, info, world, term, build_kernel(world))


def open_run(store: EventStore, branch_id: str) -> Run:
    """Everything needed to continue or inspect a branch, read back from the store."""
    info = store.branch(branch_id)
    world = _WORLDS.get(info.world_hash)
    if world is None:
        world = _WORLDS[info.world_hash] = WorldIndex(decode_world(store.get_blob(info.world_hash)))
    term = decode_term(store.get_blob(info.term_hash), info.schema)
    return Run(store, info, world, term, build_kernel(world))


MAX_RUN_NAME = 1_000
"""Characters a run's name may have: far more than the names campus makes (a fork's, a lifelong probe's or a
numbered name adds a few dozen characters to its run's), far fewer than fill a screen."""
_UNPRINTABLE = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))
"""Unicode categories a run's name may not hold: control and format characters (ANSI escapes, NUL, bidi overrides),
surrogates, line and paragraph separators."""


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a run (given with ``--name``, or in an imported file), or None: a name is printed as it
    is (``campus runs``, errors), so it must say something, fit on a line and hold no character that moves the
    cursor, colours the terminal or reorders the text (control, format and bidi characters, line and paragraph
    separators)."""
    if not name.strip():
        return "it is empty or blank"
    if len(name) > MAX_RUN_NAME:
        return f"it is {len(name):,} characters long, more than {MAX_RUN_NAME}"
    odd = next((c for c in name if unicodedata.category(c) in _UNPRINTABLE), None)
    if odd is not None:
        return f"it holds the unprintable character U+{ord(odd):04X}"
    return None


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "agent"


T = TypeVar("T")


def in_free_name(store: EventStore, base: str, attempt: Callable[[str], T]) -> T:
    """``attempt(name)`` under ``base``, or ``base-2``, ``base-3``, ... when taken; when another process takes the name
    between the look and the write (``BranchExists``), under the next free one."""
    while True:
        try:
            return attempt(unique_branch_id(store, base))
        except BranchExists:
            continue


def unique_branch_id(store: EventStore, base: str) -> str:
    taken = set(store.branch_ids())
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"

"""Putting a run together: a world, the subsystems, a term, a log and an agent.

Worlds and terms are stored in the log's database by content hash, so a branch carries
everything needed to replay it anywhere: ``open_run`` rebuilds the kernel and the term from
the database alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from events import TaskEnded, canonical, decode_events, genesis_hash
from kernel.agent import Agent
from kernel.engine import Kernel
from kernel.runner import Session, run_config
from kernel.stepper import Stepper
from kernel.store import BranchInfo, EventStore
from scenarios.task import Term, decode_term
from subsystems import DOMAINS, SYSTEM_TITLES
from subsystems.examples import example_values
from subsystems.geography import locate
from world.index import WorldIndex
from world.model import decode_world

DEFAULT_ROUND_LIMIT = 20

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
        head = self.store.head(self.branch.id)[0]
        batches = self.store.scan(self.branch.id, 1, head, ("task_ended",))
        return decode_events([payload for batch in batches for _, payload in batch])  # type: ignore[return-value]


def store_inputs(store: EventStore, world: WorldIndex, term: Term) -> None:
    store.put_blob("world", world.hash, world.world.encode())
    store.put_blob("term", term.hash, term_bytes(term))


def term_bytes(term: Term) -> bytes:
    return canonical(term)


def new_run(
    store: EventStore,
    world: WorldIndex,
    term: Term,
    *,
    agent_name: str,
    seed: int,
    round_limit: int = DEFAULT_ROUND_LIMIT,
    branch_id: str | None = None,
) -> Run:
    """Create a root branch for ``term`` on ``world``; nothing is played yet."""
    store_inputs(store, world, term)
    config = run_config(round_limit)
    info = BranchInfo(
        id=branch_id or unique_branch_id(store, f"{slug(agent_name)}-s{seed}"),
        parent=None,
        fork_seq=0,
        genesis=genesis_hash(world.hash, term.hash, seed, config),
        agent=agent_name,
        world_hash=world.hash,
        term_hash=term.hash,
        seed=seed,
        config=config,
    )
    store.create_branch(info)
    return Run(store, info, world, term, build_kernel(world))


def open_run(store: EventStore, branch_id: str) -> Run:
    """Everything needed to continue or inspect a branch, read back from the store."""
    info = store.branch(branch_id)
    world = _WORLDS.get(info.world_hash)
    if world is None:
        world = _WORLDS[info.world_hash] = WorldIndex(decode_world(store.get_blob(info.world_hash)))
    term = decode_term(store.get_blob(info.term_hash))
    return Run(store, info, world, term, build_kernel(world))


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "agent"


def unique_branch_id(store: EventStore, base: str) -> str:
    taken = {b.id for b in store.branches()}
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"

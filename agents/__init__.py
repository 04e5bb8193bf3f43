"""Built-in agents, by name."""

from __future__ import annotations

from kernel.agent import Agent
from scenarios.task import Term
from world.index import WorldIndex

from agents.noop import NoopAgent
from agents.oracle import OracleAgent

BUILTIN = ("oracle", "noop")


def make_agent(name: str, term: Term, world: WorldIndex) -> Agent:
    """A built-in agent by name; raises ``ValueError`` naming the choices for anything else."""
    if name == "oracle":
        return OracleAgent(term, world)
    if name == "noop":
        return NoopAgent()
    raise ValueError(f"unknown agent {name!r}; built-in agents: {', '.join(BUILTIN)}")

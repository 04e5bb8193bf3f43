"""Built-in agents, by name."""

from __future__ import annotations

from kernel.agent import Agent
from scenarios.task import Term
from world.index import WorldIndex

from agents.noop import NoopAgent
from agents.oracle import OracleAgent
from agents.scripted import DiligentAgent, StaleAgent, StatelessAgent

BUILTIN = ("oracle", "noop", "stateless", "diligent", "stale")


def make_agent(name: str, term: Term, world: WorldIndex) -> Agent:
    """A built-in agent by name; raises ``ValueError`` naming the choices for anything else."""
    if name == "noop":
        return NoopAgent()
    kinds = {"oracle": OracleAgent, "stateless": StatelessAgent, "diligent": DiligentAgent, "stale": StaleAgent}
    if name in kinds:
        return kinds[name](term, world)
    raise ValueError(f"unknown agent {name!r}; built-in agents: {', '.join(BUILTIN)}")

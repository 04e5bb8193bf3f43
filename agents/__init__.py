"""Built-in agents, by name.

The names are here; the agents are imported only when one is made, so a command that only
names them (``campus --help``) does not load the kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from campus.kernel.agent import Agent
    from campus.scenarios.task import Term
    from campus.world.index import WorldIndex

CONTROLS = ("noop", "stateless", "diligent")
"""Controls of the metrics: they see only what any agent sees (``agents/controls.py``)."""
ADVERSARIAL = ("testwise", "optionsonly", "dawdler", "absent", "canvasser", "memoryless", "sweeper", "libguess", "dodger")
DISRUPTION_CONTROLS = ("abstainer", "optimist", "hedger", "hasty")
BUSY_CONTROLS = ("guesser", "sprayer", "fifo", "claimer", "learner", "forgetful")
BUILTIN = ("oracle", *CONTROLS, "stale", "smearer", "shortcut", *ADVERSARIAL, *DISRUPTION_CONTROLS, *BUSY_CONTROLS)
READERS = ("oracle-reader", "recent-only", "no-memory", "question-only")
"""The memory-probe readers (``agents/readers.py``)."""
RECENT_STEPS = 100
"""Agent steps (replies) ``recent-only`` sees back from the question, unless named ``recent-only:N``."""


def make_agent(name: str, term: Term, world: WorldIndex) -> Agent:
    """A built-in agent by name; raises ``ValueError`` naming the choices for anything else."""
    from campus.agents.adversarial import AbsentAgent, CanvasserAgent, DawdlerAgent, OptionsOnlyAgent, TestwiseAgent
    from campus.agents.busy import ClaimerAgent, FifoAgent, ForgetfulAgent, GuesserAgent, LearnerAgent, SprayerAgent
    from campus.agents.controls import DiligentAgent, StatelessAgent, SweeperAgent
    from campus.agents.dodger import Dodger
    from campus.agents.library_guess import LibraryGuesser
    from campus.agents.memoryless import MemorylessAgent
    from campus.agents.noop import NoopAgent
    from campus.agents.oracle import OracleAgent
    from campus.agents.scripted import AbstainerAgent, HastyAgent, HedgerAgent, OptimistAgent, ShortcutAgent, SmearerAgent, StaleAgent

    controls: dict[str, Callable[[], Agent]] = {"noop": NoopAgent, "stateless": StatelessAgent, "diligent": DiligentAgent,
                                                "sweeper": SweeperAgent, "libguess": LibraryGuesser,
                                                "dodger": Dodger}
    if name in controls:
        return controls[name]()
    kinds: dict[str, Callable[[Term, WorldIndex], Agent]] = {
        "oracle": OracleAgent, "stale": StaleAgent, "smearer": SmearerAgent, "shortcut": ShortcutAgent, "testwise": TestwiseAgent, "optionsonly": OptionsOnlyAgent,
        "dawdler": DawdlerAgent, "absent": AbsentAgent, "abstainer": AbstainerAgent, "optimist": OptimistAgent,
        "hedger": HedgerAgent, "hasty": HastyAgent, "claimer": ClaimerAgent, "canvasser": CanvasserAgent, "memoryless": MemorylessAgent,
        "guesser": GuesserAgent, "sprayer": SprayerAgent, "fifo": FifoAgent, "learner": LearnerAgent, "forgetful": ForgetfulAgent,
    }
    if name in kinds:
        return kinds[name](term, world)
    raise ValueError(f"unknown agent {name!r}; built-in agents: {', '.join(BUILTIN)}")

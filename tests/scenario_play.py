"""Playing a handful of generated tasks through the real kernel, for scenario tests."""

from __future__ import annotations

from collections.abc import Sequence

from campus.agents import make_agent
from campus.events import TaskEnded, decode_events
from campus.kernel.schedule import Trigger
from campus.kernel.store import MemoryStore
from campus.scenarios.play import new_run
from campus.scenarios.task import Task, Term
from campus.world.index import WorldIndex


def scored(tasks: Sequence[Task]) -> list[Task]:
    """The tasks that are judged (delivery tasks are run, not scored)."""
    return [task for task in tasks if not task.flags.delivery_only]


def term_of(world: WorldIndex, tasks: Sequence[Task], triggers: Sequence[Trigger] = (), seed: int = 0) -> Term:
    ordered = sorted(tasks, key=lambda task: (task.release, task.id))
    return Term(name="scenario-test", seed=seed, world_hash=world.hash, tasks=tuple(ordered),
                world_changes=tuple(sorted(triggers, key=lambda trigger: (trigger.t, trigger.id))))


def play_tasks(world: WorldIndex, tasks: Sequence[Task], triggers: Sequence[Trigger] = (), agent: str = "oracle",
               rounds: int = 40, seed: int = 0) -> dict[str, TaskEnded]:
    """Every task's end event, after ``agent`` played a term of exactly these tasks and triggers with run seed ``seed``
    (the seat draw a library task was made on is its seed's)."""
    term = term_of(world, tasks, triggers, seed)
    store = MemoryStore()
    run = new_run(store, world, term, agent_name=agent, seed=seed, round_limit=rounds)
    run.session(make_agent(agent, term, world)).run()
    ended = [e for e in decode_events([r.payload for r in store.rows(run.branch.id, 1, store.head(run.branch.id)[0])])
             if isinstance(e, TaskEnded)]
    return {e.task_id: e for e in ended}

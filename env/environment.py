"""``Env``: a term as a Gymnasium-style environment whose observations and actions are text.

One episode is one term. ``reset(seed=s)`` starts a new run of the term for seed ``s`` (the world
is generated from ``s`` unless the env was given one, the term from the world, ``s`` and
``scale`` — the same run ``campus run --seed s --scale X`` makes); ``reset()`` without a seed
starts the same term again, which is what repeated rollouts of one term need. Each run is a
branch of ``db`` (``":memory:"``: a fresh in-memory log per episode), so every episode can be
verified, scored, replayed and diffed like any other run.

``step(reply)`` takes the agent's reply — text in the StuLife protocol
(``<action>Action: calendar.add_event(...)</action>``, ``<action>Answer: B</action>``,
``<action>Action: finish()</action>``) or a ``StructuredCall`` — and returns:

- **observation**: the text the student sees now that it had not seen before the reply: the
  tool's result (or why the reply was refused), and when the task ended, a line saying so and
  the opening of the next task (``New task (task N):`` ..., a running number, never the task's id,
  which would name its scenario). ``reset`` returns the opening of the
  first task. The whole current conversation, the system prompt and the tools are in
  ``view()`` and ``info["prompt"]``; each task is a fresh chat (the StuLife protocol), which
  ``info["new_task"]`` signals.
- **reward**: 0.0, as in the StuLife protocol, where a student learns nothing of how it did.
  With ``Env(..., reward=True)`` (for training loops): 1.0 for each scored task that ended in
  success during the step, so an episode's return is the number of scored tasks solved
  (delivery tasks are never scored).
- **terminated**: the term is over. **truncated**: only with ``max_steps``, once that many
  replies were given in the episode (the round limit ends a task, never the episode).
- **info**: ``run`` (the branch id), ``task`` (the waiting task's running number) and ``time``
  (``None`` when the term is over), ``now`` (simulated minutes), ``step``, ``ended`` (the tasks
  that ended in the step with reason and turns; with ``reward=True`` also their id and outcome),
  ``new_task``, ``prompt``, and at the end of the term ``scorecard``; ``scorecard()`` gives the
  running scorecard at any time (it is the caller's to read, not the student's).

``Env(..., paraphrase=make_paraphraser("vllm/NAME", base_url))`` (``agents/paraphrase.py``) has a model reword
what people say, as ``campus run --paraphrase-model`` does; the words are recorded in the run.

With ``gymnasium`` installed ``Env`` is a ``gymnasium.Env`` with ``Text`` spaces of printable
ASCII (every text the campus produces is ASCII; anything else would be backslash-escaped) and
is registered as ``campus/Term-v0``. Without it, the same class works on its own.
"""

from __future__ import annotations

import string
from typing import Any

from campus.events import StructuredCall, TaskEnded
from campus.kernel.agent import AgentView
from campus.kernel.clock import label
from campus.kernel.runner import Paraphrase
from campus.kernel.store import EventStore, MemoryStore, open_store
from campus.scenarios.rounds import DEFAULT_ROUND_LIMIT
from campus.scenarios.play import Run, RunSpec, load_world, start_run
from campus.scenarios.scorecard import scorecard
from campus.scenarios.task import Term
from campus.scenarios.term import generate_term
from campus.world.index import WorldIndex
from campus.world.model import World

from campus.env.driver import Driver

try:
    import gymnasium
    from gymnasium import spaces
except ImportError:  # the plain class works without gymnasium
    gymnasium = None  # type: ignore[assignment]

CHARSET = string.printable
"""Printable ASCII with tab and newlines: every character campus text can contain."""
MAX_OBSERVATION = 1_000_000
"""Characters; the longest observation of the default term is about 4,000."""
MAX_REPLY = 100_000

_Base: Any = gymnasium.Env if gymnasium is not None else object


class Env(_Base):
    metadata: dict[str, Any] = {"render_modes": []}
    render_mode = None

    def __init__(
        self,
        seed: int = 0,
        scale: float = 1.0,
        world: World | WorldIndex | None = None,
        db: str = ":memory:",
        round_limit: int = DEFAULT_ROUND_LIMIT,
        agent_name: str = "env",
        max_steps: int | None = None,
        reward: bool = False,
        disruptions: bool = True,
        busy_days: bool = True,
        paraphrase: Paraphrase | None = None,
    ) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"seed must be an integer, not {type(seed).__name__}")
        if not isinstance(round_limit, int) or round_limit < 1:
            raise ValueError(f"round_limit must be a positive integer, not {round_limit!r}")
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"max_steps must be a positive integer or None, not {max_steps!r}")
        if world is not None and not isinstance(world, (World, WorldIndex)):
            raise TypeError(f"world must be a World or WorldIndex (or None for a generated one), not {type(world).__name__}")
        self.seed = seed
        self.scale = scale
        self.world = WorldIndex(world) if isinstance(world, World) else world
        self.db = db
        self.round_limit = round_limit
        self.agent_name = agent_name
        self.max_steps = max_steps
        self.reward = reward
        self.disruptions = disruptions
        self.busy_days = busy_days
        self.paraphrase = paraphrase
        self._inputs: tuple[int, WorldIndex, Term] | None = None
        self._store: EventStore | None = None
        self._driver: Driver | None = None
        self._steps = 0
        self._over = False
        if gymnasium is not None:
            self.observation_space = spaces.Text(MAX_OBSERVATION, min_length=0, charset=CHARSET)
            self.action_space = spaces.Text(MAX_REPLY, min_length=0, charset=CHARSET)

    # ------------------------------------------------------------ the Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start a new run of the term for ``seed`` (default: the last seed used, at first the constructor's)."""
        if options:
            raise ValueError(f"Env.reset takes no options, got {sorted(options)}")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise TypeError(f"seed must be an integer, not {type(seed).__name__}")
        if gymnasium is not None:
            super().reset(seed=seed)
        if seed is not None:
            self.seed = seed
        spec = RunSpec(seed=self.seed, scale=self.scale, agent=self.agent_name, round_limit=self.round_limit,
                       disruptions=self.disruptions, busy_days=self.busy_days)
        run = start_run(self._fresh_store(), spec, self._world_and_term(self.seed))
        self._driver = Driver(run, self.paraphrase)
        self._steps = 0
        self._over = self._driver.finished
        return _printable(self._driver.opening()), self._info((), new_task=True)

    def step(self, reply: str | StructuredCall) -> tuple[str, float, bool, bool, dict[str, Any]]:
        driver = self._require_driver()
        if self._over:
            raise RuntimeError("the episode is over; call reset() to start another")
        if not isinstance(reply, (str, StructuredCall)):
            raise TypeError(f"a reply is text or a StructuredCall, not {type(reply).__name__}")
        pushed = driver.push(reply)
        self._steps += 1
        reward = float(sum(ended.outcome == "success" for ended in pushed.ended)) if self.reward else 0.0
        terminated = pushed.view is None
        truncated = not terminated and self.max_steps is not None and self._steps >= self.max_steps
        self._over = terminated or truncated
        new_task = bool(pushed.ended) and not terminated
        return _printable(pushed.text), reward, terminated, truncated, self._info(pushed.ended, new_task=new_task)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
        self._store, self._driver = None, None

    # ------------------------------------------------------------ more than Gymnasium asks

    @property
    def run(self) -> Run:
        """The run (branch) of the current episode."""
        return self._require_driver().run

    def view(self) -> AgentView | None:
        """What an agent object would be shown now (prompt, whole conversation, tools); ``None`` at the end."""
        return self._require_driver().view()

    def scorecard(self) -> dict[str, Any]:
        """Every metric of the episode so far (``scenarios.scorecard``)."""
        run = self.run
        return scorecard(run.term, run.ended_tasks())

    def final_hash(self) -> str:
        """The hash at the head of the episode's log: equal runs have equal hashes."""
        return self._require_driver().head()[1]

    # ------------------------------------------------------------ inside

    def _require_driver(self) -> Driver:
        if self._driver is None:
            raise RuntimeError("call reset() before using the environment")
        return self._driver

    def _world_and_term(self, seed: int) -> tuple[WorldIndex, Term]:
        """Generating a term takes up to ~0.6 s, so the last seed's world and term are kept."""
        if self._inputs is None or self._inputs[0] != seed:
            world = self.world or load_world("generated", seed)
            self._inputs = (seed, world, generate_term(world, seed, self.scale, disruptions=self.disruptions, busy=self.busy_days))
        return self._inputs[1], self._inputs[2]

    def _fresh_store(self) -> EventStore:
        if self.db == ":memory:":
            if self._store is not None:
                self._store.close()
            self._store = MemoryStore()
        elif self._store is None:
            self._store = open_store(self.db)
        return self._store

    def _ended(self, event: TaskEnded) -> dict[str, Any]:
        return _ended_row(event, self.reward)

    def _info(self, ended: tuple[TaskEnded, ...], *, new_task: bool) -> dict[str, Any]:
        driver = self._require_driver()
        view = driver.view()
        info: dict[str, Any] = {
            "run": driver.branch_id,
            "task": driver.task_number() if view else None,
            "time": label(driver.now()) if view else None,
            "now": driver.now(),
            "step": self._steps,
            "ended": [self._ended(e) for e in ended],
            "new_task": new_task,
            "prompt": view.prompt if view else "",
        }
        if view is None:
            info["scorecard"] = self.scorecard()
        return info


def _ended_row(event: TaskEnded, outcomes: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"reason": event.reason, "turns": event.turns}
    return {"task_id": event.task_id, "outcome": event.outcome} | row if outcomes else row


def _printable(text: str) -> str:
    if all(char in _CHARS for char in text):
        return text
    return "".join(char if char in _CHARS else char.encode("ascii", "backslashreplace").decode() for char in text)


_CHARS = frozenset(CHARSET)

"""The lifelong-learning metrics of the StuLife paper's appendix B, measured with forks.

The paper defines them over a performance matrix ``J[t][i]``: how well the agent does on
block ``i`` of the term after it has lived through block ``t``. A run only shows the
diagonal once (each task is met when it comes), so the rest is measured by *probes*: a
probe forks the run right after block ``t`` ended, and in that branch the student meets
again a sample of block ``i``'s questions (re-test copies, released at once, judged by the
same evaluator). The agent of a probe is a fresh instance; a persistent agent rebuilds its
memory from the shared past (see ``kernel.agent.PersistentAgent``), so it re-tests with
exactly what it had learnt by then. A probe from the start of the term (``t = 0``, no
experience at all) gives the baseline ``J~[i]`` of forward transfer.

Only questions are re-tested (tasks judged by their answer alone), and only while their
answer still holds: a question about a protocol that is revised between the task and the
probe is left out of that probe. Formulas, for ``K`` blocks and ``t`` = 1..K:

- ``AP_t  = mean(J[t][i] for i <= t)``, ``AIP = mean(AP_t)``;
- ``FGT_t = mean(max(J[j][i] for j in i..t) - J[t][i] for i < t)``  (lower is better);
- ``BWT_t = mean(J[t][i] - J[i][i] for i < t)``;
- ``FWT_t = mean(J[i][i] - J~[i] for i in 2..t)``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from campus.events import TaskEnded
from campus.kernel.agent import Agent
from campus.kernel.tasks import iter_tasks
from campus.kernel.triggers import AtTime
from campus.scenarios.play import Run, open_run, store_inputs, unique_branch_id
from campus.scenarios.task import Flags, Task, Term

AgentFactory = Callable[[Run], Agent]
"""Builds the agent that plays a probe branch (it sees the probe's term and world)."""

DEFAULT_BLOCKS = 4
DEFAULT_PER_BLOCK = 8


def probe_count(blocks: int) -> int:
    """Probe branches ``lifelong`` makes: every block from the start, and each earlier block after each block."""
    return blocks + blocks * (blocks + 1) // 2


class Probe(msgspec.Struct, frozen=True, kw_only=True):
    after_block: int
    block: int
    branch: str
    tasks: int
    succeeded: int

    @property
    def score(self) -> float | None:
        return self.succeeded / self.tasks if self.tasks else None


class LifelongReport(msgspec.Struct, frozen=True, kw_only=True):
    run: str
    blocks: int
    matrix: list[list[float | None]]
    """``matrix[t][i]``: success on block ``i + 1``'s re-tests after block ``t`` (row 0: before any block)."""
    ap: list[float | None]
    aip: float | None
    fgt: float | None
    bwt: float | None
    fwt: float | None
    probes: list[Probe]


def questions(term: Term) -> list[Task]:
    """The scored tasks judged by their answer alone: the ones a probe can ask again."""
    out = []
    for task in term.tasks:
        checks = [part.get("check") for part in task.ground_truth.get("parts", ())]
        if not task.flags.delivery_only and "answer" in checks and set(checks) <= {"answer", "attended"}:
            out.append(task)
    return out


def revisions(term: Term) -> dict[str, list[int]]:
    """When each protocol is revised (the release times of the lessons that change it)."""
    out: dict[str, list[int]] = {}
    for task in term.tasks:
        item = task.ground_truth.get("item") or {}
        if item.get("kind") == "revise":
            out.setdefault(item["protocol"], []).append(task.release)
    return out


def still_true(task: Task, at: int, revised: dict[str, list[int]]) -> bool:
    """Whether the task's answer is still right at ``at``: no revision of its protocol in between."""
    protocol = (task.ground_truth.get("item") or {}).get("protocol")
    return not isinstance(protocol, str) or not any(task.release < when <= at for when in revised.get(protocol, ()))


def blocks_of(term: Term, count: int) -> list[list[Task]]:
    """The re-testable questions in ``count`` consecutive blocks of equal size (by release order)."""
    asked = questions(term)
    if len(asked) < count:
        raise ValueError(f"the term has {len(asked)} re-testable questions, fewer than {count} blocks")
    size, extra = divmod(len(asked), count)
    out, start = [], 0
    for index in range(count):
        end = start + size + (index < extra)
        out.append(asked[start:end])
        start = end
    return out


def retest_copy(task: Task, release: int, after_block: int) -> Task:
    """The question asked again at ``release``, wherever the student is, with no prerequisites."""
    checks = [part for part in task.ground_truth["parts"] if part.get("check") == "answer"]
    plan = tuple(step for step in task.solution if not step.startswith(("goto:", "walk:", "attend:")))
    return msgspec.structs.replace(
        task, id=f"retest{after_block}-{task.id}", release=release, required_place=None, starts=None, depends_on=(),
        ground_truth=task.ground_truth | {"parts": checks}, solution=plan, stale=None, follow_up=(),
        flags=Flags(long_term=task.flags.long_term, self_motivated=False),
    )


def probe_term(term: Term, done: int, retests: Sequence[Task]) -> Term:
    """The term's first ``done`` tasks, its triggers and clock-timed rules up to the probe, then the re-tests; every
    other rule comes along (a disruption's rules name their task, so those of tasks past the probe never fire)."""
    at = max((t.release for t in retests), default=0)
    return Term(
        name=f"{term.name} probe", seed=term.seed, world_hash=term.world_hash,
        tasks=term.tasks[:done] + tuple(retests),
        world_changes=tuple(change for change in term.world_changes if change.t <= at),
        rules=tuple(rule for rule in term.rules if not isinstance(rule.activation, AtTime) or rule.activation.t <= at),
    )


def lifelong(run: Run, make_agent: AgentFactory, *, blocks: int = DEFAULT_BLOCKS,
             per_block: int = DEFAULT_PER_BLOCK) -> LifelongReport:
    """Probe ``run`` after every block (and before the first) and compute the appendix-B metrics.

    The run must have ended every task of the blocks it is probed after. Probe branches are
    kept in the store (named ``<run>~lifelong-t<T>-b<I>``), so each can be replayed, verified
    and diffed like any fork.
    """
    parts = blocks_of(run.term, blocks)
    ends = _task_end_positions(run)
    revised = revisions(run.term)
    samples = [_sample(run, part, index, per_block) for index, part in enumerate(parts)]
    probes = []
    for after in range(blocks + 1):
        seq, now, done = _checkpoint(run, parts, after, ends)
        for index in range(after if after else blocks):
            asked = [task for task in samples[index] if still_true(task, now, revised)]
            probes.append(_probe(run, make_agent, seq, now, done, after, index, asked))
    return _report(run.branch.id, blocks, probes)


def _task_end_positions(run: Run) -> dict[str, tuple[int, int]]:
    """``task id -> (seq, t)`` of every task-ended event in the run."""
    tasks = iter_tasks(run.store, run.branch.id, kinds=("task_released", "task_ended"))
    return {task.task_id: task.events[-1][:2] for task in tasks if task.ended is not None}


def _checkpoint(run: Run, parts: list[list[Task]], after: int, ends: dict[str, tuple[int, int]]) -> tuple[int, int, int]:
    """``(seq, time, tasks done)`` right after block ``after`` ended (block 0: the start of the term)."""
    if after == 0:
        return 0, run.term.tasks[0].release, 0
    last = parts[after - 1][-1]
    if last.id not in ends:
        raise ValueError(f"{run.branch.id} has not reached the end of block {after} (task {last.id} has not ended)")
    seq, t = ends[last.id]
    return seq, t, run.term.tasks.index(last) + 1


def _sample(run: Run, block: list[Task], index: int, per_block: int) -> list[Task]:
    """The questions of a block every probe asks again (fewer where an answer has been revised)."""
    rng = random.Random(f"lifelong:{run.branch.seed}:{index}")
    return sorted(rng.sample(block, min(per_block, len(block))), key=block.index)


def _probe(run: Run, make_agent: AgentFactory, seq: int, now: int, done: int, after: int, index: int,
           asked: list[Task]) -> Probe:
    retests = [retest_copy(task, now, after) for task in asked]
    term = probe_term(run.term, done, retests)
    store_inputs(run.store, run.world, term)
    branch = unique_branch_id(run.store, f"{run.branch.id}~lifelong-t{after}-b{index + 1}")
    run.store.fork(run.branch.id, seq, branch, agent=run.branch.agent, term_hash=term.hash,
                   label=f"lifelong probe of {run.branch.id}: block {index + 1} re-tested after block {after}")
    probe = open_run(run.store, branch)
    ended: list[TaskEnded] = []
    probe.session(make_agent(probe), on_task_end=lambda state, event: ended.append(event)).run()
    succeeded = sum(event.outcome == "success" for event in ended)
    return Probe(after_block=after, block=index + 1, branch=branch, tasks=len(retests), succeeded=succeeded)


def _report(run_id: str, blocks: int, probes: list[Probe]) -> LifelongReport:
    matrix: list[list[float | None]] = [[None] * blocks for _ in range(blocks + 1)]
    for probe in probes:
        matrix[probe.after_block][probe.block - 1] = probe.score
    ap = [_mean(matrix[t][:t]) for t in range(1, blocks + 1)]
    return LifelongReport(
        run=run_id, blocks=blocks, matrix=matrix, ap=ap, aip=_mean(ap),
        fgt=_forgetting(matrix, blocks), bwt=_backward(matrix, blocks), fwt=_forward(matrix, blocks), probes=probes,
    )


def _forgetting(j: list[list[float | None]], t: int) -> float | None:
    drops = []
    for i in range(t - 1):
        seen = [value for k in range(i + 1, t + 1) if (value := j[k][i]) is not None]
        last = j[t][i]
        if seen and last is not None:
            drops.append(max(seen) - last)
    return _mean(drops)


def _backward(j: list[list[float | None]], t: int) -> float | None:
    return _mean([late - early for i in range(t - 1) if (late := j[t][i]) is not None and (early := j[i + 1][i]) is not None])


def _forward(j: list[list[float | None]], t: int) -> float | None:
    return _mean([after - before for i in range(1, t) if (after := j[i + 1][i]) is not None and (before := j[0][i]) is not None])


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def as_dict(report: LifelongReport) -> dict[str, Any]:
    return msgspec.to_builtins(report)

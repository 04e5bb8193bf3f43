"""The numbers of a sweep's comparison table: per agent, each metric's mean and interval over
seeds; per pair of agents, the paired difference over the seeds both played; with repeated
trials, each agent's consistency (pass^k for k = 1..K and the flip rate).

With K trials per seed, a seed's value is the mean of its trials, so the interval is still
over seeds. Consistency pools the tasks of every seed (a task is a seed's task id): pass^k
averages C(c, k) / C(K, k) over them, and the flip rate is the share whose outcome is not
the same in every trial. The disruption tasks (a run's ``cells``: task id -> ``sub-type/level``)
get the same pass^k pooled (DRS) and per STT-Arena cell, so a cell's consistency under repeats
is read next to its Pass@1.

A metric a run does not have (``None`` in its scorecard: LTRR on a term with no long-term
task, average turns of a run that succeeded at nothing) is left out of that agent's values
and of the pairs for that seed, so ``n`` can be smaller than the number of seeds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from campus.kernel.triggers import SUB_TYPES
from campus.reports.stats import (
    CONFIDENCE,
    Estimate,
    PairedDifference,
    estimate,
    flip_rate,
    paired_difference,
    pass_hat_k,
)
from campus.scenarios.disruptions import LEVELS


@dataclass(frozen=True)
class Metric:
    key: str
    title: str
    read: Callable[[dict[str, Any]], float | None]
    is_rate: bool


METRICS = (
    Metric("stugpa", "StuGPA", lambda card: card["stugpa"]["total"], False),
    Metric("ltrr", "LTRR", lambda card: card["ltrr"], True),
    Metric("pis", "PIS", lambda card: card["pis"], True),
    Metric("success_rate", "success rate", lambda card: card["total"]["success_rate"], True),
    Metric("avg_turns", "avg turns", lambda card: card["avg_turns"], False),
)


def metric_values(results: Sequence[Any], agent: str, metric: Metric) -> dict[int, float]:
    """Seed -> value of ``metric`` for ``agent``'s runs, the mean over its trials (results with
    ``agent``, ``seed``, ``scorecard``)."""
    values: dict[int, list[float]] = {}
    for result in results:
        if result.agent == agent:
            value = metric.read(result.scorecard)
            if value is not None:
                values.setdefault(result.seed, []).append(value)
    return {seed: math.fsum(found) / len(found) for seed, found in sorted(values.items())}


@dataclass(frozen=True)
class Repeats:
    """pass^k of one group of tasks (the disruption tasks, or one sub-type x level cell of them)."""

    tasks: int
    pass_hat_k: dict[int, float]
    """k -> pass^k, for k = 1..trials."""
    flipped: int
    """Tasks of the group not decided the same in every trial."""


@dataclass(frozen=True)
class Consistency:
    trials: int
    tasks: int
    pass_hat_k: dict[int, float]
    """k -> pass^k, for k = 1..trials."""
    flip_rate: float
    pairwise_flip_rate: float
    flipped: int
    drs: Repeats | None = None
    """The disruption tasks pooled (``None`` when the terms have none)."""
    cells: dict[str, Repeats] = field(default_factory=dict)
    """``sub-type/level`` -> the disruption tasks of that cell, in STT-Arena's order (T1..ST3, easy..impossible)."""


def consistency(results: Sequence[Any], agent: str) -> Consistency | None:
    """pass^k and the flip rate of ``agent``'s trials over every seed (``None`` with fewer than 2 trials per seed),
    and pass^k of its disruption tasks, pooled and per cell; results need ``agent``, ``seed``, ``trial``,
    ``outcomes`` and ``cells``."""
    by_trial: dict[int, dict[str, bool]] = {}
    cell_of: dict[str, str] = {}
    for result in results:
        if result.agent == agent:
            by_trial.setdefault(result.trial, {}).update(
                {f"s{result.seed}/{task}": ok for task, ok in result.outcomes.items()})
            cell_of.update({f"s{result.seed}/{task}": cell for task, cell in result.cells.items()})
    if len(by_trial) < 2:
        return None
    trials = [by_trial[k] for k in sorted(by_trial)]
    shared = [task for task in trials[0] if all(task in trial for trial in trials[1:])]
    if not shared:
        return None
    flips = flip_rate(trials)
    outcomes = {task: [trial[task] for trial in trials] for task in shared}
    by_cell: dict[str, dict[str, list[bool]]] = {}
    for task in shared:
        if task in cell_of:
            by_cell.setdefault(cell_of[task], {})[task] = outcomes[task]
    disrupted = {task: seen for group in by_cell.values() for task, seen in group.items()}
    return Consistency(len(trials), flips.tasks, {k: pass_hat_k(outcomes, k) for k in range(1, len(trials) + 1)},
                       flips.rate, flips.pairwise, len(flips.flipped), repeats(disrupted) if disrupted else None,
                       {cell: repeats(by_cell[cell]) for cell in sorted(by_cell, key=cell_order)})


def repeats(outcomes: dict[str, list[bool]]) -> Repeats:
    """pass^k for k = 1..trials of tasks given as task -> outcome in each trial (every task as many trials)."""
    trials = len(next(iter(outcomes.values())))
    return Repeats(len(outcomes), {k: pass_hat_k(outcomes, k) for k in range(1, trials + 1)},
                   sum(len(set(seen)) > 1 for seen in outcomes.values()))


def cell_order(cell: str) -> tuple[int, int]:
    """STT-Arena's order of ``sub-type/level`` cells: T1..ST3, then easy, medium, hard, impossible."""
    sub_type, _, level = cell.partition("/")
    return SUB_TYPES.index(sub_type), LEVELS.index(level)


def compare(results: Sequence[Any], agents: Sequence[str], confidence: float = CONFIDENCE) -> dict[str, Any]:
    """``summary[agent][metric]`` estimates and ``paired`` differences (``b - a`` for every pair, in order)."""
    summary: dict[str, dict[str, Estimate]] = {
        agent: {m.key: estimate(list(metric_values(results, agent, m).values()), confidence) for m in METRICS}
        for agent in agents
    }
    paired: list[dict[str, Any]] = []
    for a, b in combinations(agents, 2):
        metrics: dict[str, PairedDifference] = {
            m.key: paired_difference(metric_values(results, a, m), metric_values(results, b, m), confidence)
            for m in METRICS
        }
        paired.append({"a": a, "b": b, "metrics": metrics})
    return {"confidence": confidence, "summary": summary, "paired": paired,
            "consistency": {agent: consistency(results, agent) for agent in agents}}

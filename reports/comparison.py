"""The numbers of a sweep's comparison table: per agent, each metric's mean and interval over
seeds; per pair of agents, the paired difference over the seeds both played; with repeated
trials, each agent's consistency (pass^k for k = 1..K and the flip rate).

With K trials per seed, a seed's value is the mean of its trials, so the interval is still
over seeds. Consistency pools the tasks of every seed (a task is a seed's task id): pass^k
averages C(c, k) / C(K, k) over them, and the flip rate is the share whose outcome is not
the same in every trial.

A metric a run does not have (``None`` in its scorecard: LTRR on a term with no long-term
task, average turns of a run that succeeded at nothing) is left out of that agent's values
and of the pairs for that seed, so ``n`` can be smaller than the number of seeds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from campus.reports.stats import (
    CONFIDENCE,
    Estimate,
    PairedDifference,
    estimate,
    flip_rate,
    paired_difference,
    pass_hat_k,
)


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
class Consistency:
    trials: int
    tasks: int
    pass_hat_k: dict[int, float]
    """k -> pass^k, for k = 1..trials."""
    flip_rate: float
    pairwise_flip_rate: float
    flipped: int


def consistency(results: Sequence[Any], agent: str) -> Consistency | None:
    """pass^k and the flip rate of ``agent``'s trials over every seed (``None`` with fewer than 2 trials per seed);
    results need ``agent``, ``seed``, ``trial`` and ``outcomes``."""
    by_trial: dict[int, dict[str, bool]] = {}
    for result in results:
        if result.agent == agent:
            by_trial.setdefault(result.trial, {}).update(
                {f"s{result.seed}/{task}": ok for task, ok in result.outcomes.items()})
    if len(by_trial) < 2:
        return None
    trials = [by_trial[k] for k in sorted(by_trial)]
    shared = [task for task in trials[0] if all(task in trial for trial in trials[1:])]
    if not shared:
        return None
    flips = flip_rate(trials)
    outcomes = {task: [trial[task] for trial in trials] for task in shared}
    return Consistency(len(trials), flips.tasks, {k: pass_hat_k(outcomes, k) for k in range(1, len(trials) + 1)},
                       flips.rate, flips.pairwise, len(flips.flipped))


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

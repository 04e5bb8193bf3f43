"""The numbers of a sweep's comparison table: per agent, each metric's mean and interval over
seeds; per pair of agents, the paired difference over the seeds both played.

A metric a run does not have (``None`` in its scorecard: LTRR on a term with no long-term
task, average turns of a run that succeeded at nothing) is left out of that agent's values
and of the pairs for that seed, so ``n`` can be smaller than the number of seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from campus.reports.stats import (
    CONFIDENCE,
    Estimate,
    PairedDifference,
    estimate,
    paired_difference,
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
    """Seed -> value of ``metric`` for ``agent``'s runs (results with ``agent``, ``seed``, ``scorecard``)."""
    values = {}
    for result in results:
        if result.agent == agent:
            value = metric.read(result.scorecard)
            if value is not None:
                values[result.seed] = value
    return dict(sorted(values.items()))


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
    return {"confidence": confidence, "summary": summary, "paired": paired}

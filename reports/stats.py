"""Statistics for comparing runs: is a difference real, or noise between seeds and repeats?

Pure functions over plain numbers; the t quantile is scipy's.

- **Mean and confidence interval** (``estimate``): over n values x_1..x_n (one per seed or
  repeat), mean m = sum(x) / n, sample standard deviation s = sqrt(sum((x - m)^2) / (n - 1)),
  and the two-sided interval m ± t(1 - alpha/2, n - 1) * s / sqrt(n), where t is Student's
  t quantile. It assumes the runs are independent draws; it is exact for normal data and a
  good approximation for means of many tasks. With one value there is no interval (nothing
  measures the spread), and it says so.
- **Paired comparison** (``paired_difference``): two agents on the same seeds share each
  seed's world and term, so the seed-to-seed variation cancels in the per-seed differences
  d_i = b_i - a_i. The interval is ``estimate`` over the d_i; the difference *exceeds the
  noise* when that interval excludes 0 (equivalently, a two-sided paired t-test rejects "no
  difference" at level alpha).
- **Flip rate** (``flip_rate``): over repeated runs of one agent on one term, the share of
  tasks whose outcome is not the same in every run, and the pairwise rate: the share of tasks
  two runs disagree on, averaged over every pair of runs.
- **pass^k** (``pass_hat_k``, from tau-bench): a task with c successes in n trials passes k
  trials drawn without replacement with probability C(c, k) / C(n, k); pass^k is that
  averaged over tasks. pass^1 is the mean success rate; it falls with k unless the agent is
  consistent.

The exact McNemar test of two runs of one term is the diff's (``replays.diff.mcnemar_exact``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Hashable, TypeVar


K = TypeVar("K", bound=Hashable)

CONFIDENCE = 0.95


# ---------------------------------------------------------------- Student's t


def t_quantile(p: float, df: float) -> float:
    """The value t with P(T <= t) = p for Student's t with ``df`` degrees of freedom: scipy's ``stdtrit``, the function
    ``scipy.stats.t.ppf`` evaluates (the same floats, tested), without importing ``scipy.stats`` (~3x the import)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, got {p}")
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    from scipy.special import stdtrit  # here, not at the top: only the commands that compare pay its import

    return float(stdtrit(df, p))


# ---------------------------------------------------------------- estimates


@dataclass(frozen=True)
class Estimate:
    """A mean with its two-sided t-interval; ``low``/``high`` are ``None`` when n < 2 (see ``note``)."""

    n: int
    mean: float | None
    sd: float | None
    low: float | None
    high: float | None
    half_width: float | None
    confidence: float
    note: str = ""


def estimate(values: Sequence[float], confidence: float = CONFIDENCE) -> Estimate:
    """Mean and t-based confidence interval of ``values`` (see the module docstring)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    n = len(values)
    if n == 0:
        return Estimate(0, None, None, None, None, None, confidence, "no values")
    mean = math.fsum(values) / n
    if n == 1:
        return Estimate(1, mean, None, None, None, None, confidence, "one value: no interval")
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in values) / (n - 1))
    half = t_quantile(0.5 + confidence / 2.0, n - 1) * sd / math.sqrt(n)
    return Estimate(n, mean, sd, mean - half, mean + half, half, confidence)


@dataclass(frozen=True)
class PairedDifference:
    """``b - a`` over the keys (seeds) both sides have; ``exceeds_noise`` when its interval excludes 0."""

    n: int
    difference: Estimate
    exceeds_noise: bool


def paired_difference(a: Mapping[K, float], b: Mapping[K, float],
                      confidence: float = CONFIDENCE) -> PairedDifference:
    """Paired comparison of two agents over the seeds they share (keys present on one side only are left out)."""
    shared = [key for key in a if key in b]
    difference = estimate([b[key] - a[key] for key in shared], confidence)
    exceeds = difference.low is not None and (difference.low > 0 or difference.high < 0)  # type: ignore[operator]
    return PairedDifference(len(shared), difference, exceeds)


# ---------------------------------------------------------------- repeated runs


@dataclass(frozen=True)
class FlipRate:
    """How often repeated runs of one agent disagree on a task's outcome."""

    runs: int
    tasks: int
    flipped: tuple[str, ...]
    rate: float
    pairwise: float


def flip_rate(runs: Sequence[Mapping[str, bool]]) -> FlipRate:
    """Flip rate over the tasks every run ended; ``runs`` map task id -> succeeded."""
    if len(runs) < 2:
        raise ValueError(f"a flip rate needs at least 2 runs of the same agent, got {len(runs)}")
    tasks = [task for task in runs[0] if all(task in run for run in runs[1:])]
    if not tasks:
        raise ValueError("the runs have no ended task in common")
    flipped = tuple(task for task in tasks if len({run[task] for run in runs}) > 1)
    pairs = list(combinations(runs, 2))
    pairwise = math.fsum(sum(x[task] != y[task] for task in tasks) / len(tasks) for x, y in pairs) / len(pairs)
    return FlipRate(len(runs), len(tasks), flipped, len(flipped) / len(tasks), pairwise)


def pass_hat_k(trials: Mapping[str, Sequence[bool]], k: int) -> float:
    """tau-bench's pass^k: the mean over tasks of C(c, k) / C(n, k) (c successes in n trials)."""
    if not trials:
        raise ValueError("pass^k needs at least one task")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    short = [task for task, outcomes in trials.items() if len(outcomes) < k]
    if short:
        raise ValueError(f"pass^{k} needs at least {k} trials of every task; {short[0]} has {len(trials[short[0]])}")
    return math.fsum(math.comb(sum(outcomes), k) / math.comb(len(outcomes), k) for outcomes in trials.values()) / len(trials)

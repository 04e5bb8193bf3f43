"""Statistics for comparing runs: is a difference real, or noise between seeds and repeats?

Pure functions over plain numbers; no dependency beyond the standard library.

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
    """The value t with P(T <= t) = p for Student's t with ``df`` degrees of freedom.

    Found by bisection on ``t_cdf``: the cdf is monotone, so this cannot miss, and 200 halvings
    of the bracket are more than double precision needs.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, got {p}")
    if not df > 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        low, high = high, high * 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) = 1 - I_x(df/2, 1/2) / 2 for t >= 0, with x = df / (df + t^2); symmetric below 0."""
    tail = 0.5 * regularized_beta(df / (df + t * t), df / 2.0, 0.5)
    return 1.0 - tail if t >= 0 else tail


def regularized_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1.

    I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * F, where F is the continued fraction
    1 / (1 + d_1 / (1 + d_2 / (1 + ...))) with d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))
    and d_{2m} = m (b-m) x / ((a+2m-1)(a+2m)). The fraction converges fast for
    x < (a+1)/(a+b+2); above that, I_x(a, b) = 1 - I_{1-x}(b, a) is used instead.
    """
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(x, a, b) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(1.0 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction F of ``regularized_beta``, evaluated front to back (modified Lentz)."""
    tiny = 1e-300

    def guarded(value: float) -> float:
        return tiny if abs(value) < tiny else value

    c = 1.0
    d = 1.0 / guarded(1.0 - (a + b) * x / (a + 1.0))
    result = d
    for m in range(1, 1000):
        for term in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                     -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 / guarded(1.0 + term * d)
            c = guarded(1.0 + term / c)
            step = c * d
            result *= step
        if abs(step - 1.0) < 1e-15:
            break
    return result


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

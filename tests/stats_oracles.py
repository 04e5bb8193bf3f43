"""The hand-written statistics campus used before it took them from scipy, kept as test oracles.

The t quantile is a bisection on the t distribution's cdf, written with the regularized
incomplete beta function (a continued fraction); the exact McNemar p-value sums binomial terms.
The suite checks scipy's answers against these and against printed tables. The diff's McNemar test sums the same
terms again (as integers, divided once): the suite checks it against these sums and against ``scipy.stats.binomtest``.
"""

from __future__ import annotations

import math


def mcnemar_by_sums(only_a: int, only_b: int) -> float:
    n = only_a + only_b
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1)) / 2**n
    return min(1.0, 2 * tail)


def t_quantile_by_bisection(p: float, df: float) -> float:
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
        return -t_quantile_by_bisection(1.0 - p, df)
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

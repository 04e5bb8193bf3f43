"""Statistics for comparisons, against tabulated quantiles and small cases worked by hand."""

from __future__ import annotations

import math

import pytest

from campus.replays.diff import mcnemar_exact
from campus.reports.stats import (
    estimate,
    flip_rate,
    paired_difference,
    pass_hat_k,
    t_quantile,
)
from tests.stats_oracles import mcnemar_by_sums, regularized_beta, t_cdf, t_quantile_by_bisection

# Student's t quantiles as printed in standard tables (p = one-sided cumulative probability).
TABULATED = [
    (0.975, 1, 12.7062), (0.975, 2, 4.3027), (0.975, 3, 3.1824), (0.975, 4, 2.7764), (0.975, 5, 2.5706),
    (0.975, 9, 2.2622), (0.975, 10, 2.2281), (0.975, 19, 2.0930), (0.975, 30, 2.0423), (0.975, 120, 1.9799),
    (0.95, 1, 6.3138), (0.95, 3, 2.3534), (0.95, 10, 1.8125), (0.90, 5, 1.4759), (0.99, 7, 2.9980),
    (0.995, 4, 4.6041), (0.995, 20, 2.8453), (0.9995, 1, 636.6192), (0.9995, 10, 4.5869),
]


@pytest.mark.parametrize(("p", "df", "expected"), TABULATED)
def test_t_quantile_matches_the_tables_to_four_decimals(p: float, df: int, expected: float) -> None:
    assert t_quantile(p, df) == pytest.approx(expected, abs=5e-5)
    assert t_quantile(1 - p, df) == pytest.approx(-expected, abs=5e-5)


@pytest.mark.parametrize(("p", "df", "expected"), TABULATED)
def test_the_hand_written_oracle_matches_the_tables_too(p: float, df: int, expected: float) -> None:
    assert t_quantile_by_bisection(p, df) == pytest.approx(expected, abs=5e-5)


def test_scipys_quantile_agrees_with_the_hand_written_one_to_ten_digits() -> None:
    for df in (1, 2, 2.5, 4, 7, 19, 60, 500):
        for p in (0.01, 0.3, 0.6, 0.9, 0.975, 0.999, 0.9999):
            assert t_quantile(p, df) == pytest.approx(t_quantile_by_bisection(p, df), rel=1e-10, abs=1e-10)


def test_the_quantile_is_the_float_scipy_stats_t_ppf_gives() -> None:
    from scipy.stats import t as student_t

    grid = [(p, df) for df in (0.5, 1, 1.5, 2, 3, 4.25, 9, 29, 99, 1e4, 1e7) for p in (1e-9, 0.001, 0.025, 0.3, 0.5, 0.8, 0.975, 0.999999)]
    assert [t_quantile(p, df) for p, df in grid] == [float(student_t.ppf(p, df)) for p, df in grid]


@pytest.mark.parametrize("only_a,only_b", [(0, 0), (5, 0), (3, 3), (1, 9), (9, 1), (40, 61), (0, 170), (512, 600)])
def test_the_exact_mcnemar_is_the_binomial_sums(only_a: int, only_b: int) -> None:
    assert mcnemar_exact(only_a, only_b) == mcnemar_by_sums(only_a, only_b)


def test_the_exact_mcnemar_is_scipy_stats_binomtest() -> None:
    from scipy.stats import binomtest

    pairs = [(a, b) for a in (0, 1, 2, 5, 17, 60, 333, 850) for b in (0, 1, 3, 5, 18, 59, 400, 849, 1700) if a + b]
    for a, b in pairs:
        assert mcnemar_exact(a, b) == pytest.approx(float(binomtest(a, a + b, 0.5).pvalue), rel=1e-12, abs=1e-300)
    assert mcnemar_exact(7, 7) == mcnemar_exact(6, 7) == 1.0 and mcnemar_exact(3, 9) == mcnemar_exact(9, 3)


def test_the_oracles_cdf_inverts_its_quantile_and_is_symmetric() -> None:
    assert t_quantile(0.5, 4) == 0.0
    for df in (1, 2.5, 7, 60):
        for p in (0.6, 0.9, 0.975, 0.999):
            assert t_cdf(t_quantile_by_bisection(p, df), df) == pytest.approx(p, abs=1e-12)
        assert t_cdf(-1.3, df) == pytest.approx(1 - t_cdf(1.3, df), abs=1e-14)
    assert t_cdf(1.0, 1) == pytest.approx(0.75, abs=1e-14)  # Cauchy: 1/2 + atan(1)/pi


def test_regularized_beta_closed_forms() -> None:
    for x in (0.0, 0.1, 0.37, 0.5, 0.9, 1.0):
        assert regularized_beta(x, 1.0, 1.0) == pytest.approx(x, abs=1e-14)
        assert regularized_beta(x, 3.0, 1.0) == pytest.approx(x ** 3, abs=1e-14)
        assert regularized_beta(x, 1.0, 2.0) == pytest.approx(1 - (1 - x) ** 2, abs=1e-14)
    assert regularized_beta(0.5, 7.5, 7.5) == pytest.approx(0.5, abs=1e-14)


def test_bad_quantile_arguments_are_refused() -> None:
    for p, df in ((0.0, 3), (1.0, 3), (1.5, 3), (0.9, 0), (0.9, -2)):
        with pytest.raises(ValueError):
            t_quantile(p, df)


def test_estimate_of_one_to_five() -> None:
    # mean 3; s^2 = (4+1+0+1+4)/4 = 2.5; half = t(.975, 4) * sqrt(2.5/5) = 2.7764 * 0.70711 = 1.9632
    result = estimate([1, 2, 3, 4, 5])
    assert (result.n, result.mean) == (5, 3.0)
    assert result.sd == pytest.approx(math.sqrt(2.5))
    assert result.half_width == pytest.approx(1.9632, abs=1e-4)
    assert (result.low, result.high) == pytest.approx((1.0368, 4.9632), abs=1e-4)
    assert result.note == ""


def test_estimate_at_90_percent() -> None:
    # [10, 14]: mean 12, s = 2.8284, se = 2; t(.95, 1) = 6.3138 -> half 12.6275
    result = estimate([10, 14], confidence=0.90)
    assert result.half_width == pytest.approx(12.6275, abs=1e-4)
    assert result.confidence == 0.90


def test_one_value_has_no_interval_and_says_so() -> None:
    result = estimate([42.0])
    assert (result.n, result.mean, result.low, result.high, result.half_width) == (1, 42.0, None, None, None)
    assert "no interval" in result.note
    empty = estimate([])
    assert (empty.n, empty.mean) == (0, None) and empty.note == "no values"
    with pytest.raises(ValueError):
        estimate([1, 2], confidence=1.5)


def test_paired_difference_within_the_noise() -> None:
    # d = [1, 2, 3]: mean 2, s = 1, se = 0.57735; t(.975, 2) = 4.3027 -> [-0.4841, 4.4841] holds 0
    result = paired_difference({1: 10, 2: 12, 3: 14}, {1: 11, 2: 14, 3: 17})
    assert result.n == 3 and result.difference.mean == 2.0
    assert (result.difference.low, result.difference.high) == pytest.approx((-0.4841, 4.4841), abs=1e-4)
    assert result.exceeds_noise is False


def test_paired_difference_beyond_the_noise_in_either_direction() -> None:
    # d = [2, 3, 4, 3]: mean 3, s = 0.8165, se = 0.40825; t(.975, 3) = 3.1824 -> [1.7008, 4.2992]
    a = {1: 0.0, 2: 0.0, 3: 0.0, 4: 0.0}
    b = {1: 2.0, 2: 3.0, 3: 4.0, 4: 3.0}
    up = paired_difference(a, b)
    assert (up.difference.low, up.difference.high) == pytest.approx((1.7008, 4.2992), abs=1e-4)
    assert up.exceeds_noise is True
    down = paired_difference(b, a)
    assert down.difference.mean == -3.0 and down.exceeds_noise is True


def test_paired_difference_uses_only_shared_seeds() -> None:
    result = paired_difference({1: 5.0, 2: 6.0, 9: 100.0}, {1: 5.0, 2: 6.0, 3: -100.0})
    assert result.n == 2 and result.difference.mean == 0.0
    assert result.exceeds_noise is False  # identical on every shared seed: the interval is [0, 0]
    constant = paired_difference({1: 1.0, 2: 2.0}, {1: 3.0, 2: 4.0})
    assert constant.difference.half_width == 0.0 and constant.exceeds_noise is True
    single = paired_difference({1: 1.0}, {1: 9.0})
    assert single.n == 1 and single.difference.low is None and single.exceeds_noise is False


def test_flip_rate_of_three_runs() -> None:
    runs = [{"a": True, "b": True, "c": False}, {"a": True, "b": False, "c": False}, {"a": True, "b": True, "c": True}]
    result = flip_rate(runs)
    assert (result.runs, result.tasks, result.flipped) == (3, 3, ("b", "c"))
    assert result.rate == pytest.approx(2 / 3)
    # pairs: (1,2) differ on b; (1,3) on c; (2,3) on b and c -> (1/3 + 1/3 + 2/3) / 3 = 4/9
    assert result.pairwise == pytest.approx(4 / 9)


def test_flip_rate_counts_only_tasks_every_run_ended() -> None:
    result = flip_rate([{"a": True, "b": False}, {"a": True}])
    assert (result.tasks, result.flipped, result.rate, result.pairwise) == (1, (), 0.0, 0.0)
    with pytest.raises(ValueError):
        flip_rate([{"a": True}])
    with pytest.raises(ValueError):
        flip_rate([{"a": True}, {"b": True}])


def test_pass_hat_k_by_hand() -> None:
    trials = {"t1": [True, True, True, False], "t2": [True] * 4, "t3": [True, False, False, False]}
    # k=2: C(3,2)/C(4,2) = 3/6, C(4,2)/C(4,2) = 1, C(1,2)/C(4,2) = 0 -> 1.5/3
    assert pass_hat_k(trials, 2) == pytest.approx(0.5)
    # k=1 is the mean success rate: (3/4 + 1 + 1/4) / 3
    assert pass_hat_k(trials, 1) == pytest.approx(2 / 3)
    # k=4: only t2 passes every trial
    assert pass_hat_k(trials, 4) == pytest.approx(1 / 3)


def test_pass_hat_k_refuses_too_few_trials() -> None:
    with pytest.raises(ValueError, match="t2 has 2"):
        pass_hat_k({"t1": [True, True, True], "t2": [True, False]}, 3)
    with pytest.raises(ValueError):
        pass_hat_k({}, 1)
    with pytest.raises(ValueError):
        pass_hat_k({"t1": [True]}, 0)

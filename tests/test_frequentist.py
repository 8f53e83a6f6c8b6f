"""Frequentist tests (user guide, Model and conventions §5): against scipy/statsmodels,
hand-worked examples and textbook facts.

Expected values are computed here from the published formulas, never by the code under test.
"""

from __future__ import annotations

import math
from itertools import product

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

from bayes_hier import CVData
from bayes_hier.examples import equicorrelated_normal
from bayes_hier.frequentist import (
    corrected_resampled_ttest,
    critical_difference,
    cv52_combined_ftest,
    cv52_paired_ttest,
    friedman,
    mcnemar,
    nemenyi,
    paired_ttest,
    plot_cd_diagram,
    sign_test_freq,
    wilcoxon_holm,
    wilcoxon_signed_rank,
)

matplotlib.use("Agg")


def _tidy(x: np.ndarray, y: np.ndarray, names=("A", "B"), runs: int = 1) -> pd.DataFrame:
    """A tidy frame of one data set's fold scores for two models (run-major)."""
    folds = x.size // runs
    rows = []
    for model, scores in zip(names, (x, y)):
        for j, s in enumerate(scores):
            rows.append({"model": model, "run": j // folds, "fold": j % folds, "score": s})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------- paired t
def test_paired_ttest_matches_scipy_ttest_rel():
    rng = np.random.default_rng(1)
    x = rng.normal(0.80, 0.02, 10)
    y = x + rng.normal(0.01, 0.01, 10)
    result = paired_ttest(x, y)
    expected = stats.ttest_rel(y, x)
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(expected.pvalue, rel=1e-10)
    assert result.df == 9
    assert result.estimate == pytest.approx(np.mean(y - x))


def test_paired_ttest_hand_worked():
    # d = 1..5: mean 3, s^2 = 2.5, t = sqrt(5) * 3 / sqrt(2.5) = 3 sqrt(2), df = 4.
    x = np.zeros(5)
    y = np.arange(1.0, 6.0)
    result = paired_ttest(x, y, names=("old", "new"))
    assert result.statistic == pytest.approx(3 * math.sqrt(2))
    assert result.p_value == pytest.approx(2 * stats.t.sf(3 * math.sqrt(2), 4))
    assert result.names == ("old", "new")
    assert result.significant
    assert "new is significantly better than old" in result.interpretation
    frame = result.to_frame()
    assert frame.loc[0, "statistic"] == pytest.approx(3 * math.sqrt(2))
    assert list(frame[["first", "second", "df"]].iloc[0]) == ["old", "new", 4]


def test_paired_ttest_sign_convention_and_lower_is_better():
    x = np.array([0.80, 0.82, 0.79, 0.81])
    y = np.array([0.83, 0.84, 0.80, 0.85])
    up = paired_ttest(x, y)
    assert up.statistic > 0
    assert paired_ttest(y, x).statistic == pytest.approx(-up.statistic)
    assert paired_ttest(x, y, higher_is_better=False).statistic == pytest.approx(-up.statistic)


def test_paired_ttest_accepts_tidy_frame():
    rng = np.random.default_rng(2)
    x, y = rng.normal(0.8, 0.02, 20), rng.normal(0.81, 0.02, 20)
    from_frame = paired_ttest(_tidy(x, y, runs=2), models=("A", "B"))
    assert from_frame.statistic == pytest.approx(paired_ttest(x, y).statistic)
    assert from_frame.names == ("A", "B")


def test_paired_ttest_constant_differences():
    assert paired_ttest(np.zeros(4), np.ones(4)).statistic == math.inf
    assert paired_ttest(np.zeros(4), np.ones(4)).p_value == 0.0
    same = paired_ttest(np.ones(4), np.ones(4))
    assert (same.statistic, same.p_value) == (0.0, 1.0)


def test_fold_level_tests_reject_several_datasets_and_bad_input():
    x = np.full((3, 10), 0.8)
    with pytest.raises(ValueError, match="one data set"):
        paired_ttest(x, x + 0.01)
    with pytest.raises(ValueError, match="NaN"):
        paired_ttest([0.8, np.nan, 0.7], [0.8, 0.8, 0.8])
    with pytest.raises(ValueError, match="paired fold by fold"):
        corrected_resampled_ttest(np.ones(10), np.ones(9))
    with pytest.raises(ValueError, match="multiple of runs"):
        corrected_resampled_ttest(np.ones(10), np.ones(10), runs=3)
    with pytest.raises(ValueError, match="rho must lie strictly between 0 and 1"):
        corrected_resampled_ttest(np.ones(10), np.ones(10), rho=1.0)
    with pytest.raises(ValueError, match="alpha"):
        paired_ttest(np.ones(3), np.array([1.0, 2.0, 3.0]), alpha=1.5)


# ---------------------------------------------------------------------------------- corrected t
def test_corrected_resampled_ttest_hand_worked():
    rng = np.random.default_rng(3)
    x = rng.normal(80, 2, 100)
    y = x + rng.normal(0.5, 1.5, 100)
    d = y - x
    n, rho = 100, 1 / 10  # 10 runs of 10-fold CV
    t = d.mean() / math.sqrt((1 / n + rho / (1 - rho)) * d.var(ddof=1))
    result = corrected_resampled_ttest(x, y, runs=10)
    assert result.statistic == pytest.approx(t)
    assert result.p_value == pytest.approx(2 * stats.t.sf(abs(t), n - 1))
    assert result.df == n - 1
    assert result.details["rho"] == pytest.approx(0.1)
    # The correction shrinks the naive statistic by sqrt((1/n) / (1/n + rho/(1-rho))).
    naive = paired_ttest(x, y).statistic
    assert result.statistic / naive == pytest.approx(math.sqrt((1 / n) / (1 / n + rho / (1 - rho))))


def test_corrected_resampled_ttest_explicit_rho_and_frame():
    rng = np.random.default_rng(4)
    x, y = rng.normal(0.8, 0.02, 30), rng.normal(0.81, 0.02, 30)
    d = y - x
    rho = 0.25
    t = d.mean() / math.sqrt((1 / 30 + rho / (1 - rho)) * d.var(ddof=1))
    assert corrected_resampled_ttest(x, y, runs=3, rho=rho).statistic == pytest.approx(t)
    frame_result = corrected_resampled_ttest(_tidy(x, y, runs=3), rho=rho, models=("A", "B"))
    assert frame_result.statistic == pytest.approx(t)
    assert frame_result.details["runs"] == 3 and frame_result.details["folds"] == 10


def test_naive_t_is_anti_conservative_and_correction_is_not():
    """Under the null with correlated folds (rho = 0.1, 10x10 CV) the naive t rejects far too
    often; the corrected test keeps roughly the nominal 5% (Nadeau & Bengio 2003)."""
    rng = np.random.default_rng(5)
    reps, n = 400, 100
    d = equicorrelated_normal(np.zeros(reps), np.ones(reps), 0.1, n, rng)
    zeros = np.zeros(n)
    naive = np.mean([paired_ttest(zeros, row).p_value <= 0.05 for row in d])
    corrected = np.mean(
        [corrected_resampled_ttest(zeros, row, runs=10).p_value <= 0.05 for row in d]
    )
    assert naive > 0.3
    assert 0.02 <= corrected <= 0.09


# ---------------------------------------------------------------------------------- McNemar
def test_mcnemar_chi2_hand_worked_and_statsmodels():
    table = [[10, 3], [9, 5]]  # e01 = 3 (first wrong, second right), e10 = 9
    result = mcnemar(table)
    assert result.statistic == pytest.approx((abs(3 - 9) - 1) ** 2 / 12)
    assert result.p_value == pytest.approx(stats.chi2.sf(25 / 12, 1))
    assert result.df == 1
    reference = sm_mcnemar(np.array(table), exact=False, correction=True)
    assert result.statistic == pytest.approx(reference.statistic)
    assert result.p_value == pytest.approx(reference.pvalue)
    uncorrected = mcnemar(table, correction=False)
    assert uncorrected.statistic == pytest.approx(36 / 12)
    assert uncorrected.p_value == pytest.approx(
        sm_mcnemar(table, exact=False, correction=False).pvalue
    )
    # e10 > e01: the first model is right more often where they disagree.
    assert result.estimate == pytest.approx((3 - 9) / 27)


def test_mcnemar_exact_hand_worked():
    result = mcnemar([[10, 3], [9, 5]], exact=True)
    p = 2 * sum(math.comb(12, i) for i in range(4)) / 2**12
    assert result.statistic == 3
    assert result.p_value == pytest.approx(p)
    assert result.df is None
    assert result.p_value == pytest.approx(sm_mcnemar([[10, 3], [9, 5]], exact=True).pvalue)


def test_mcnemar_exact_vs_chi2_textbook_properties():
    # Few discordant pairs: the uncorrected chi2 calls 0 vs 5 significant, the exact test does not
    # (p = 2 / 2**5): the reason to use the exact form for small counts.
    small = [[50, 0], [5, 50]]
    assert mcnemar(small, correction=False).p_value == pytest.approx(stats.chi2.sf(5, 1))
    assert mcnemar(small, correction=False).p_value < 0.05
    assert mcnemar(small, exact=True).p_value == pytest.approx(2 / 2**5)
    # Many discordant pairs: the corrected chi2 approximates the exact binomial test well.
    large = [[500, 40], [60, 400]]
    exact, approx = mcnemar(large, exact=True).p_value, mcnemar(large).p_value
    assert abs(exact - approx) < 0.002
    # Equal discordant counts (or none): no evidence at all.
    for table in ([[5, 7], [7, 5]], [[5, 0], [0, 5]]):
        for exact_flag in (True, False):
            assert mcnemar(table, exact=exact_flag).p_value == 1.0
        assert mcnemar(table).statistic == 0.0


def test_mcnemar_from_predictions():
    y_true = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 1])
    pred_a = np.array([0, 1, 0, 1, 1, 0, 0, 1, 1, 1])  # right on 0, 1, 4, 5, 7, 9
    pred_b = np.array([0, 1, 1, 0, 0, 0, 1, 1, 0, 1])  # right on all but 4
    # both wrong: none; a wrong & b right: 2, 3, 6, 8; a right & b wrong: 4; both right: 5.
    table = np.array([[0, 4], [1, 5]])
    result = mcnemar(y_true=y_true, pred_a=pred_a, pred_b=pred_b, names=("a", "b"))
    np.testing.assert_array_equal(result.details["table"], table)
    assert result.statistic == pytest.approx(mcnemar(table).statistic)
    assert result.estimate == pytest.approx(3 / 10)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"table": [[1, 2, 3], [4, 5, 6]]}, "2x2"),
        ({"table": [[1, -2], [3, 4]]}, "non-negative"),
        ({"table": [[1, 2.5], [3, 4]]}, "whole numbers"),
        ({}, "table"),
        ({"y_true": [0, 1], "pred_a": [0, 1], "pred_b": [0]}, "same length"),
        ({"table": [[1, 2], [3, 4]], "y_true": [0], "pred_a": [0], "pred_b": [0]}, "not both"),
        ({"table": [[0, 0], [0, 0]]}, "empty"),
    ],
)
def test_mcnemar_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        mcnemar(**kwargs)


def test_alpha_must_be_a_number_in_the_unit_interval():
    with pytest.raises(TypeError, match="alpha must be a number in"):
        friedman(_folded_tidy(), alpha="0.05")
    with pytest.raises(ValueError, match="alpha must be in"):
        paired_ttest(np.zeros(4), np.arange(4.0), alpha=1)


@pytest.mark.parametrize(("flag", "value"), [("exact", "no"), ("correction", None)])
def test_mcnemar_flags_must_be_booleans(flag, value):
    with pytest.raises(TypeError, match=f"{flag} must be True or False"):
        mcnemar(table=[[5, 3], [9, 7]], **{flag: value})


# ---------------------------------------------------------------------------------- 5x2cv
DIFFS = np.array([[0.02, 0.01], [0.03, -0.01], [0.00, 0.02], [0.04, 0.03], [0.01, 0.00]])


def test_cv52_hand_worked():
    p_bar = DIFFS.mean(axis=1)
    s2 = (DIFFS[:, 0] - p_bar) ** 2 + (DIFFS[:, 1] - p_bar) ** 2
    t = DIFFS[0, 0] / math.sqrt(s2.sum() / 5)
    f = (DIFFS**2).sum() / (2 * s2.sum())
    t_result, f_result = cv52_paired_ttest(DIFFS), cv52_combined_ftest(DIFFS)
    assert t_result.statistic == pytest.approx(t)
    assert t_result.p_value == pytest.approx(2 * stats.t.sf(abs(t), 5))
    assert t_result.df == 5
    assert f_result.statistic == pytest.approx(f)
    assert f_result.p_value == pytest.approx(stats.f.sf(f, 10, 5))
    assert f_result.df == (10, 5)


def test_cv52_symmetric_data():
    """Folds of each replication mirror each other (p2 = -p1): p_bar_i = 0, s_i^2 = 2 p1_i^2, so
    F = sum 2 p1^2 / (2 sum 2 p1^2) = 1/2 whatever the values, and t = p1_1 / sqrt(mean 2 p1^2)."""
    p1 = np.array([0.03, -0.02, 0.05, 0.01, -0.04])
    diffs = np.column_stack([p1, -p1])
    assert cv52_combined_ftest(diffs).statistic == pytest.approx(0.5)
    assert cv52_combined_ftest(diffs).p_value == pytest.approx(stats.f.sf(0.5, 10, 5))
    t = cv52_paired_ttest(diffs)
    assert t.statistic == pytest.approx(0.03 / math.sqrt(np.mean(2 * p1**2)))
    # Reversing the roles of the models flips t and leaves F and both p-values unchanged.
    assert cv52_paired_ttest(-diffs).statistic == pytest.approx(-t.statistic)
    assert cv52_paired_ttest(-diffs).p_value == pytest.approx(t.p_value)
    assert cv52_combined_ftest(-DIFFS).statistic == pytest.approx(
        cv52_combined_ftest(DIFFS).statistic
    )


def test_cv52_order_dependence():
    """The t-test uses only the first fold in its numerator; the F-test uses all ten."""
    permuted = DIFFS[[2, 0, 1, 3, 4]]
    assert cv52_combined_ftest(permuted).statistic == pytest.approx(
        cv52_combined_ftest(DIFFS).statistic
    )
    assert cv52_paired_ttest(permuted).statistic == 0.0  # p_1^(1) is now 0
    assert cv52_paired_ttest(DIFFS).statistic != 0.0


def test_cv52_frame_and_bad_input():
    rng = np.random.default_rng(6)
    x, y = rng.normal(0.8, 0.02, 10), rng.normal(0.82, 0.02, 10)
    from_frame = cv52_combined_ftest(_tidy(x, y, runs=5), models=("A", "B"))
    assert from_frame.statistic == pytest.approx(
        cv52_combined_ftest((y - x).reshape(5, 2)).statistic
    )
    with pytest.raises(ValueError, match="5 x 2"):
        cv52_paired_ttest(np.zeros((2, 5)))
    with pytest.raises(ValueError, match="5 runs of 2-fold"):
        cv52_combined_ftest(_tidy(x, y, runs=2), models=("A", "B"))
    with pytest.raises(ValueError, match="NaN"):
        cv52_combined_ftest(np.where(DIFFS == 0.0, np.nan, DIFFS))
    # Identical folds in every replication: no variance, infinite statistics.
    constant = np.full((5, 2), 0.01)
    assert cv52_combined_ftest(constant).statistic == math.inf
    assert cv52_paired_ttest(constant).p_value == 0.0


# ---------------------------------------------------------------------------------- Wilcoxon
@pytest.mark.parametrize("q", [12, 30, 80])
def test_wilcoxon_matches_scipy(q):
    rng = np.random.default_rng(q)
    x = rng.normal(0.8, 0.05, q)
    y = x + rng.normal(0.01, 0.02, q)
    result = wilcoxon_signed_rank(x, y)
    expected = stats.wilcoxon(y, x)
    assert result.statistic == pytest.approx(expected.statistic)
    assert result.p_value == pytest.approx(expected.pvalue)
    assert result.df is None


def test_wilcoxon_hand_worked_exact():
    # d = 1, -2, 3, 4, 5, 6: R- = 2, R+ = 19, W = 2. Under H0 every sign pattern of the ranks
    # 1..6 is equally likely; P(R+ <= 2) counts {}, {1}, {2}: 3 of 64 patterns, p = 2 * 3/64.
    d = np.array([1.0, -2, 3, 4, 5, 6])
    sums = [sum(r for r, s in zip(range(1, 7), signs) if s) for signs in product([0, 1], repeat=6)]
    p = 2 * np.mean(np.array(sums) <= 2)
    result = wilcoxon_signed_rank(np.zeros(6), d)
    assert result.statistic == 2
    assert result.p_value == pytest.approx(p) == pytest.approx(6 / 64)
    assert (result.details["r_plus"], result.details["r_minus"]) == (19, 2)
    assert result.estimate == pytest.approx((19 - 2) / 21)


def test_wilcoxon_zeros_dropped_ties_averaged_and_normal_approximation():
    # Ties: |d| = 1, 1, 2, 3 get ranks 1.5, 1.5, 3, 4; zeros are dropped.
    d = np.array([1.0, 1.0, -2.0, 3.0, 0.0, 0.0])
    result = wilcoxon_signed_rank(np.zeros(6), d)
    assert (result.details["r_plus"], result.details["r_minus"]) == (7.0, 3.0)
    assert result.details["n_nonzero"] == 4
    assert result.statistic == 3.0
    # Large q without ties: W standardised with mean q(q+1)/4 and variance q(q+1)(2q+1)/24.
    rng = np.random.default_rng(7)
    d = rng.normal(0.2, 1, 60)
    ranks = stats.rankdata(np.abs(d))
    w = min(ranks[d > 0].sum(), ranks[d < 0].sum())
    z = (w - 60 * 61 / 4) / math.sqrt(60 * 61 * 121 / 24)
    with_zeros = wilcoxon_signed_rank(np.zeros(63), np.r_[d, 0.0, 0.0, 0.0])
    assert with_zeros.statistic == pytest.approx(w)
    assert with_zeros.p_value == pytest.approx(2 * stats.norm.sf(abs(z)))


def test_wilcoxon_inputs_agree():
    rng = np.random.default_rng(8)
    x = rng.normal(0.8, 0.03, (15, 10))
    y = x + rng.normal(0.005, 0.01, (15, 10))
    means = wilcoxon_signed_rank(x.mean(axis=1), y.mean(axis=1))
    assert wilcoxon_signed_rank(x, y).statistic == pytest.approx(means.statistic)
    cv = CVData.from_arrays(x, y, runs=1, names=("p", "q"))
    via_cv = wilcoxon_signed_rank(cv)
    assert via_cv.p_value == pytest.approx(means.p_value)
    assert via_cv.names == ("p", "q")
    series = wilcoxon_signed_rank(pd.Series(x[:, 0], index=list("abcdefghijklmno")), y[:, 0])
    assert series.details["datasets"][:2] == ("a", "b")


def test_wilcoxon_all_zero_and_bad_input():
    same = wilcoxon_signed_rank([0.8, 0.7, 0.9], [0.8, 0.7, 0.9])
    assert (same.statistic, same.p_value) == (0.0, 1.0)
    with pytest.raises(ValueError, match="NaN"):
        wilcoxon_signed_rank([0.8, np.nan, 0.9], [0.8, 0.7, 0.9])
    with pytest.raises(ValueError, match="same data sets"):
        wilcoxon_signed_rank([0.8, 0.7, 0.9], [0.8, 0.7])
    with pytest.raises(ValueError, match="At least 2 data sets"):
        wilcoxon_signed_rank([0.8], [0.9])
    with pytest.raises(ValueError, match="both models"):
        wilcoxon_signed_rank([0.8, 0.9])


# ---------------------------------------------------------------------------------- sign test
def test_sign_test_hand_worked_and_scipy():
    x = np.zeros(10)
    d = np.array([1, 2, 3, 4, 5, 6, 7, 8, -1, -2], dtype=float)  # 8 wins, 2 losses
    result = sign_test_freq(x, d)
    assert result.statistic == 8
    assert result.p_value == pytest.approx(2 * (1 + 10 + 45) / 2**10)
    assert result.p_value == pytest.approx(stats.binomtest(8, 10, 0.5).pvalue)
    assert result.estimate == 6


def test_sign_test_ties():
    d = np.array([1, 1, 1, 1, 1, -1, 0, 0, 0], dtype=float)  # 5 wins, 1 loss, 3 ties
    dropped = sign_test_freq(np.zeros(9), d)
    assert dropped.details["n"] == 6
    assert dropped.p_value == pytest.approx(stats.binomtest(5, 6).pvalue)
    split = sign_test_freq(np.zeros(9), d, ties="split")  # one tie to each side, one ignored
    assert (split.details["wins"], split.details["losses"]) == (6, 2)
    assert split.p_value == pytest.approx(stats.binomtest(6, 8).pvalue)
    assert sign_test_freq(np.zeros(3), np.zeros(3)).p_value == 1.0
    with pytest.raises(ValueError, match="ties"):
        sign_test_freq(np.zeros(3), d[:3], ties="half")


# ---------------------------------------------------------------------------------- Friedman
def test_friedman_matches_scipy_with_and_without_ties():
    rng = np.random.default_rng(9)
    scores = rng.normal(0.8, 0.05, (20, 4)) + np.array([0, 0.01, 0.02, 0.03])
    result = friedman(scores)
    expected = stats.friedmanchisquare(*scores.T)
    assert result.statistic == pytest.approx(expected.statistic)
    assert result.p_value == pytest.approx(expected.pvalue)
    assert result.df == 3
    tied = np.round(scores, 1)
    expected = stats.friedmanchisquare(*tied.T)
    assert friedman(tied).statistic == pytest.approx(expected.statistic)


def test_friedman_hand_worked_mean_ranks_and_formula():
    # Rank 1 = highest score. Data set ranks: (1,2,3), (1,3,2), (2,1,3), (1,2,3).
    scores = np.array([[9, 8, 7], [9, 7, 8], [8, 9, 7], [3, 2, 1]], dtype=float)
    result = friedman(scores, names=["a", "b", "c"])
    r = np.array([5 / 4, 8 / 4, 11 / 4])
    assert result.mean_ranks.to_dict() == pytest.approx({"a": r[0], "b": r[1], "c": r[2]})
    chi2 = 12 * 4 / (3 * 4) * (np.sum(r**2) - 3 * 16 / 4)
    assert result.statistic == pytest.approx(chi2)  # no ties: scipy's value is Demšar's
    assert result.p_value == pytest.approx(stats.chi2.sf(chi2, 2))
    # Lower is better reverses the ranks.
    low = friedman(scores, names=["a", "b", "c"], higher_is_better=False)
    assert low.mean_ranks.to_numpy() == pytest.approx(4 - r)
    assert low.statistic == pytest.approx(chi2)


def test_friedman_demsar_example():
    """Scores whose mean ranks are those of Demšar's (2006, Sect. 3.2.2) four C4.5 variants on 14
    data sets: 3.143, 2.000, 2.893, 1.964, giving chi2_F = 9.28 and F_F = 3.69 (his numbers)."""
    scores = np.array(
        [
            [0.763, 0.768, 0.798, 0.798],
            [0.599, 0.591, 0.590, 0.569],
            [0.954, 0.971, 0.968, 0.967],
            [0.628, 0.661, 0.654, 0.657],
            [0.882, 0.888, 0.886, 0.898],
            [0.936, 0.931, 0.916, 0.931],
            [0.661, 0.668, 0.609, 0.685],
            [0.583, 0.583, 0.563, 0.625],
            [0.775, 0.838, 0.866, 0.875],
            [1.000, 1.000, 1.000, 1.000],
            [0.940, 0.962, 0.965, 0.962],
            [0.619, 0.666, 0.614, 0.669],
            [0.972, 0.981, 0.975, 0.975],
            [0.957, 0.978, 0.946, 0.970],
        ]
    )
    result = friedman(scores, tie_correction=False)
    assert result.mean_ranks.to_numpy() == pytest.approx([3.143, 2.000, 2.893, 1.964], abs=1e-3)
    assert result.statistic == pytest.approx(9.28, abs=0.005)
    assert result.iman_davenport == pytest.approx(3.69, abs=0.005)
    assert result.df_iman_davenport == (3, 39)
    # With ties, scipy's tie-corrected statistic is larger.
    assert friedman(scores).statistic > result.statistic


def test_iman_davenport_formula():
    rng = np.random.default_rng(10)
    scores = rng.normal(0, 1, (12, 5)) + np.linspace(0, 1, 5)
    result = friedman(scores)
    n, k, chi2 = 12, 5, result.statistic
    f = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert result.iman_davenport == pytest.approx(f)
    assert result.p_value_iman_davenport == pytest.approx(stats.f.sf(f, k - 1, (k - 1) * (n - 1)))
    assert result.df_iman_davenport == (4, 44)
    frame = result.to_frame()
    assert list(frame["statistic"]) == pytest.approx([chi2, f])


def test_friedman_all_ranks_equal_gives_zero():
    latin = np.array([[3, 2, 1], [1, 3, 2], [2, 1, 3]], dtype=float)  # every rank once per model
    result = friedman(latin)
    assert result.statistic == pytest.approx(0.0, abs=1e-12)
    assert result.p_value == pytest.approx(1.0)
    assert result.mean_ranks.to_numpy() == pytest.approx([2, 2, 2])
    tied = friedman(np.ones((4, 3)))  # every data set ties all models
    assert (tied.statistic, tied.p_value, tied.iman_davenport) == (0.0, 1.0, 0.0)
    # Perfect agreement: chi2_F reaches N(k - 1) and the Iman–Davenport F is infinite.
    agree = friedman(np.tile([3.0, 2.0, 1.0], (6, 1)))
    assert agree.statistic == pytest.approx(6 * 2)
    assert agree.iman_davenport == math.inf


def test_friedman_input_forms_agree():
    rng = np.random.default_rng(11)
    wide = pd.DataFrame(
        rng.normal(0.8, 0.05, (6, 3)), index=[f"d{i}" for i in range(6)], columns=["u", "v", "w"]
    )
    rows = []
    for dataset, row in wide.iterrows():
        for model, mean in row.items():
            for fold, offset in enumerate((-0.01, 0.01)):  # two folds averaging to the mean
                rows.append({"ds": dataset, "clf": model, "fold": fold, "acc": mean + offset})
    tidy = pd.DataFrame(rows)
    columns = {"dataset": "ds", "model": "clf", "score": "acc"}
    from_tidy = friedman(tidy, columns=columns)
    assert from_tidy.statistic == pytest.approx(friedman(wide).statistic)
    assert from_tidy.statistic == pytest.approx(friedman(wide.to_numpy()).statistic)
    assert list(from_tidy.mean_ranks.index) == ["u", "v", "w"]
    reordered = friedman(tidy, columns=columns, models=["w", "u", "v"])
    assert list(reordered.mean_ranks.index) == ["w", "u", "v"]


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        (np.ones(5), "2-D"),
        ([[1.0, 2.0, 3.0], [1.0, 2.0]], "rows of equal length"),
        (np.ones((5, 2)), "at least 3"),
        (np.ones((1, 4)), "at least 2 are needed"),
        (np.array([[1.0, np.nan, 2.0], [1.0, 2.0, 3.0]]), "NaN"),
        (pd.DataFrame({"model": ["a", "b"], "score": [1.0, 2.0]}), "data-set column"),
        (
            pd.DataFrame(
                {"dataset": ["x", "x", "x", "y", "y"], "model": list("abcab"), "score": 1.0}
            ),
            "Every model must be scored on every data set",
        ),
    ],
)
def test_friedman_bad_input(scores, message):
    with pytest.raises(ValueError, match=message):
        friedman(scores)


def _folded_tidy() -> pd.DataFrame:
    """3 models x 4 data sets x 2 folds, model u best on every data set."""
    rows = [
        {"dataset": f"d{i}", "model": m, "fold": f, "score": 0.8 - 0.05 * j + 0.01 * f + 0.001 * i}
        for i in range(4)
        for j, m in enumerate("uvw")
        for f in range(2)
    ]
    return pd.DataFrame(rows)


def test_friedman_tidy_frames_must_be_paired_by_fold():
    tidy = _folded_tidy()
    assert friedman(tidy).mean_ranks.to_dict() == {"u": 1.0, "v": 2.0, "w": 3.0}
    doubled = pd.concat([tidy, tidy.iloc[[0]].assign(score=100.0)])
    with pytest.raises(ValueError, match="2 rows share a \\(dataset, model, fold\\)"):
        friedman(doubled)
    unpaired = tidy.drop(index=tidy.index[(tidy["model"] == "w") & (tidy["dataset"] == "d2")][:1])
    with pytest.raises(ValueError, match=r"some models but not all, e\.g\. on data set 'd2'"):
        nemenyi(unpaired)
    no_folds = tidy.drop(columns="fold")
    with pytest.raises(ValueError, match="the frame has no fold column 'fold'"):
        friedman(no_folds)
    means = tidy.groupby(["dataset", "model"], as_index=False)["score"].mean()
    assert friedman(means).statistic == pytest.approx(friedman(tidy).statistic)


@pytest.mark.parametrize("flag", ["False", None, 0])
def test_rank_based_tests_refuse_a_non_boolean_direction(flag):
    with pytest.raises(TypeError, match="higher_is_better must be True or False"):
        friedman(_folded_tidy(), higher_is_better=flag)
    with pytest.raises(TypeError, match="higher_is_better must be True or False"):
        nemenyi(_folded_tidy(), higher_is_better=flag)


# ---------------------------------------------------------------------------------- Nemenyi
@pytest.mark.parametrize(
    ("k", "n", "error"), [(4.5, 5, ValueError), (True, 5, TypeError), (1, 5, ValueError)]
)
def test_critical_difference_needs_whole_counts(k, n, error):
    with pytest.raises(error, match="k \\(models\\) must"):
        critical_difference(k, n)


def test_nemenyi_cd_demsar_k5_n54():
    k, n = 5, 54
    cd, q = critical_difference(k, n, 0.05)
    assert q == pytest.approx(2.728, abs=1e-3)
    assert cd == pytest.approx(2.728 * math.sqrt(k * (k + 1) / (6 * n)), abs=1e-3)
    scores = np.random.default_rng(12).normal(size=(n, k))
    assert nemenyi(scores).cd == pytest.approx(cd)


@pytest.mark.parametrize(
    ("alpha", "table"),
    [
        (0.05, [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]),
        (0.10, [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]),
    ],
)
def test_nemenyi_q_alpha_demsar_table(alpha, table):
    for k, q_expected in zip(range(2, 11), table):
        assert critical_difference(k, 10, alpha)[1] == pytest.approx(q_expected, abs=1e-3)


def test_nemenyi_pairwise_table():
    rng = np.random.default_rng(13)
    scores = rng.normal(0, 1, (30, 4)) + np.array([0.0, 0.2, 0.8, 1.2])
    result = nemenyi(scores, names=["a", "b", "c", "d"])
    ranks = stats.rankdata(-scores, axis=1).mean(axis=0)
    assert result.mean_ranks.to_numpy() == pytest.approx(ranks)
    cd = 2.569 * math.sqrt(4 * 5 / (6 * 30))
    assert result.cd == pytest.approx(cd, abs=1e-3)
    table = result.to_frame()
    assert len(table) == 6
    for row in table.itertuples():
        diff = abs(result.mean_ranks[row.first] - result.mean_ranks[row.second])
        assert row.rank_difference == pytest.approx(diff)
        assert row.significant == (diff >= result.cd)
        assert row.significant == (row.p_value <= 0.05)
    significance = result.significance
    assert (significance.to_numpy() == significance.to_numpy().T).all()
    assert significance.loc["a", "d"] and not significance.loc["a", "a"]


def test_nemenyi_groups_hand_worked():
    # Groups are maximal runs of adjacent models (by mean rank) whose ranks differ by < CD.
    from bayes_hier.frequentist.multiple import nonsignificant_groups

    ranks = {"a": 1.2, "b": 1.8, "c": 3.1, "d": 3.9}
    groups = nonsignificant_groups(list(ranks), lambda x, y: abs(ranks[x] - ranks[y]) >= 1.0)
    assert groups == [("a", "b"), ("c", "d")]
    groups = nonsignificant_groups(list(ranks), lambda x, y: abs(ranks[x] - ranks[y]) >= 1.5)
    assert groups == [("a", "b"), ("b", "c"), ("c", "d")]
    groups = nonsignificant_groups(list(ranks), lambda x, y: abs(ranks[x] - ranks[y]) >= 2.0)
    assert groups == [("a", "b", "c"), ("c", "d")]  # b - d = 2.1 >= 2


def test_wilcoxon_holm_matches_statsmodels():
    rng = np.random.default_rng(14)
    scores = rng.normal(0, 1, (25, 4)) + np.array([0.0, 0.1, 0.6, 0.9])
    result = wilcoxon_holm(scores)
    raw = [
        stats.wilcoxon(scores[:, j], scores[:, i]).pvalue for i in range(4) for j in range(i + 1, 4)
    ]
    reject, adjusted, _, _ = multipletests(raw, 0.05, method="holm")
    table = result.to_frame()
    assert table["p_value"].to_numpy() == pytest.approx(raw)
    assert table["p_holm"].to_numpy() == pytest.approx(adjusted)
    assert list(table["significant"]) == list(reject)
    # Holm by hand: the i-th smallest p times (m - i), running maximum, capped at 1.
    order = np.argsort(raw)
    by_hand = np.minimum(1, np.maximum.accumulate(np.sort(raw) * (6 - np.arange(6))))
    assert table["p_holm"].to_numpy()[order] == pytest.approx(by_hand)
    assert result.cd is None


def test_uci_friedman_nemenyi(uci):
    means = uci.groupby(["dataset", "model"], sort=False)["score"].mean().unstack()
    result = nemenyi(uci)
    assert result.n_datasets == 54 and result.n_models == 5
    assert result.friedman.statistic == pytest.approx(
        stats.friedmanchisquare(*means[list(result.mean_ranks.index)].to_numpy().T).statistic
    )
    expected_ranks = means.rank(axis=1, ascending=False).mean()
    assert result.mean_ranks.sort_index().to_numpy() == pytest.approx(
        expected_ranks.sort_index().to_numpy()
    )
    assert result.cd == pytest.approx(2.728 * math.sqrt(30 / 324), abs=1e-3)
    pair = wilcoxon_signed_rank(uci, models=("nbc", "hnb"))
    expected = stats.wilcoxon(means["hnb"], means["nbc"])
    assert pair.statistic == pytest.approx(expected.statistic)
    assert pair.p_value == pytest.approx(expected.pvalue)


# ---------------------------------------------------------------------------------- CD diagram
def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_plot_cd_diagram_from_result_and_options():
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    rng = np.random.default_rng(15)
    scores = rng.normal(0, 1, (40, 4)) + np.array([0.0, 0.1, 0.9, 1.0])
    result = nemenyi(scores, names=["a", "b", "c", "d"])
    fig = plot_cd_diagram(result, names={"a": "Alpha"}, title="My title", fontsize=13)
    assert isinstance(fig, Figure)
    texts = _texts(fig)
    assert any(t.startswith("Alpha (") for t in texts)
    assert any(t.startswith(f"CD = {result.cd:.2f}") for t in texts)
    assert fig.axes[0].get_title() == "My title"
    assert {t.get_fontsize() for t in fig.axes[0].texts} == {13}
    # One thick bar per group of models not significantly different.
    thick = [line for line in fig.axes[0].lines if line.get_linewidth() > 3]
    assert len(thick) == len(result.groups) >= 1
    plt.close(fig)

    fig, ax = plt.subplots()
    assert plot_cd_diagram(result, ax=ax, title="") is fig
    assert ax.get_title() == ""
    plt.close(fig)


def test_plot_cd_diagram_order():
    import matplotlib.pyplot as plt

    ranks = {"best": 1.2, "mid": 2.5, "worst": 3.4}

    def best_x(order):
        fig = plot_cd_diagram(mean_ranks=ranks, n_datasets=20, order=order, show_ranks=False)
        text = next(t for t in fig.axes[0].texts if t.get_text() == "best")
        x = text.get_position()[0]
        plt.close(fig)
        return x

    assert best_x("ascending") < 0.5 < best_x("descending")


def test_plot_cd_diagram_bad_input():
    with pytest.raises(ValueError, match="order"):
        plot_cd_diagram(mean_ranks={"a": 1.0, "b": 2.0}, cd=1.0, order="up")
    with pytest.raises(ValueError, match="cd= or n_datasets="):
        plot_cd_diagram(mean_ranks={"a": 1.0, "b": 2.0})
    with pytest.raises(ValueError, match="test must be"):
        plot_cd_diagram(np.ones((5, 3)), test="tukey")
    with pytest.raises(ValueError, match="names"):
        plot_cd_diagram(mean_ranks={"a": 1.0, "b": 2.0}, cd=1.0, names=["x"])

"""Recovery studies of the joint model (bayes_hier.joint.recovery): the simulator's truth
without Stan, the tidy frame and plots, and the joint model's answers with Stan."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayes_hier.examples import kronecker_normal
from bayes_hier.joint.data import MultiCVData
from bayes_hier.joint.recovery import (
    MODEL_QUANTITIES,
    PAIR_QUANTITIES,
    RecoveryDesign,
    fit_study,
    plot_p_best_recovery,
    plot_rope_recovery,
    recovery_study,
    simulate_study,
    summarise_fit,
)
from bayes_hier.scores import model_scores


def equicorrelation(n: int, rho: float) -> np.ndarray:
    return (1 - rho) * np.eye(n) + rho * np.ones((n, n))


# ----------------------------------------------------------------------- fold-level scores
def test_kronecker_normal_has_the_kronecker_covariance():
    """Cov(vec X) = Λ ⊗ R (columns stacked), E[X] = 1 μᵀ: 40000 draws of a 4 × 3 matrix, each
    entry within 5 Monte Carlo standard errors (of a covariance: sqrt((σ_aa σ_bb + σ_ab²)/N))."""
    rng = np.random.default_rng(3)
    mean = np.array([1.0, -2.0, 0.5])
    cov = np.array([[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]])
    rho, n, size = 0.3, 4, 40_000
    draws = np.array([kronecker_normal(mean, cov, rho, n, rng) for _ in range(size)])
    np.testing.assert_allclose(draws.mean(axis=0), np.tile(mean, (n, 1)), atol=0.05)
    vec = draws.transpose(0, 2, 1).reshape(size, -1)  # columns (models) stacked
    expected = np.kron(cov, equicorrelation(n, rho))
    empirical = np.cov(vec, rowvar=False)
    se = np.sqrt((np.outer(np.diag(expected), np.diag(expected)) + expected**2) / size)
    assert np.all(np.abs(empirical - expected) < 5 * se)


# ------------------------------------------------------------------------------ simulator
def test_a_study_is_a_tidy_frame_that_compare_reads():
    design = RecoveryDesign(k=3, runs=2, folds=5)
    study = simulate_study("one_better", 4, design, seed=1)
    assert list(study.frame.columns) == ["dataset", "model", "run", "fold", "score"]
    assert len(study.frame) == 4 * 3 * 10
    cv = MultiCVData.from_scores(model_scores(study.frame))
    assert cv.models == ("A", "B", "C") and cv.q == 4
    np.testing.assert_array_equal(cv.n, 10)
    np.testing.assert_allclose(cv.rho, 0.2)  # 1 / folds
    np.testing.assert_array_equal(study.population_effects, [2.0, 0.0, 0.0])
    # the same seed gives the same study; the block of data set 1 is its rows in the frame
    again = simulate_study("one_better", 4, design, seed=1)
    pd.testing.assert_frame_equal(study.frame, again.frame)
    first = study.frame[study.frame["dataset"] == "d01"].pivot(
        index=["run", "fold"], columns="model", values="score"
    )
    np.testing.assert_array_equal(first.to_numpy(), cv.scores[0])


def test_the_simulated_truth_has_the_designed_means_and_correlations():
    """q = 400 data sets of 10 × 10 folds: the sample means scatter around the true means with
    variance σ² b/n (b = 1 + (n − 1)ρ), the pooled within-data-set covariance is (n − 1)(1 − ρ)Λ
    (model correlation r), and the better model's true advantage averages A with sd s√2."""
    design = RecoveryDesign()
    q, n, rho = 400, 100, 0.1
    study = simulate_study("one_better", q, design, seed=7)
    cv = MultiCVData.from_scores(model_scores(study.frame))
    errors = cv.means - study.means  # (q, k)
    b = 1 + (n - 1) * rho
    variance = design.fold_sd**2 * b / n  # 0.98
    np.testing.assert_allclose(errors.mean(axis=0), 0, atol=4 * np.sqrt(variance / q))
    # sample variance of 400 normals: relative se sqrt(2/399) = 7%
    np.testing.assert_allclose(errors.var(axis=0, ddof=1), variance, rtol=0.25)
    scatter = sum((block - block.mean(0)).T @ (block - block.mean(0)) for block in cv.scores)
    pooled = scatter / (q * (n - 1) * (1 - rho))
    np.testing.assert_allclose(pooled, design.model_cov(), rtol=0.03, atol=0.1)
    sd = np.sqrt(np.diag(pooled))
    correlation = pooled / np.outer(sd, sd)
    off = correlation[~np.eye(design.k, dtype=bool)]
    np.testing.assert_allclose(off, design.model_correlation, atol=0.02)
    advantage = study.means[:, 0] - study.means[:, 1:].mean(axis=1)
    # mean of A + s(z_0 − mean of 3 z): sd s sqrt(1 + 1/3) per data set
    se = design.spread * np.sqrt(4 / 3) / np.sqrt(q)
    assert abs(advantage.mean() - design.advantage) < 4 * se
    pair = study.means[:, 0] - study.means[:, 1]
    np.testing.assert_allclose(pair.std(ddof=1), design.spread * np.sqrt(2), rtol=0.15)


def test_all_equal_has_no_advantage_and_bad_input_is_refused():
    design = RecoveryDesign()
    study = simulate_study("all_equal", 300, design, seed=2)
    np.testing.assert_array_equal(study.population_effects, 0.0)
    differences = study.means - study.means.mean(axis=1, keepdims=True)
    # each centred effect has sd s sqrt(3/4): its mean over 300 data sets is within 4 se of 0
    assert np.all(np.abs(differences.mean(axis=0)) < 4 * 0.5 * np.sqrt(0.75 / 300))
    with pytest.raises(ValueError, match="scenario must be one of"):
        simulate_study("two_better", 5, design)
    with pytest.raises(ValueError, match="model_correlation must be in"):
        RecoveryDesign(k=4, model_correlation=-0.5)
    with pytest.raises(ValueError, match="needs at least 2 data sets"):
        recovery_study(qs=(1, 10), reps=1)


# ------------------------------------------------------------------------------ plots
def synthetic_frame() -> pd.DataFrame:
    rows = []
    for q, best, rope in ((5, 0.4, 0.5), (20, 0.8, 0.7)):
        for rep in range(2):
            for model, truth in (("A", 2.0), ("B", 0.0), ("C", 0.0)):
                value = best + 0.1 * rep if truth else (1 - best) / 2
                rows.append(("one_better", q, rep, "model", model, "p_best", value, truth))
            for pair in ("B - A", "C - A", "C - B"):
                for quantity, value in (("p_rope", rope + 0.1 * rep), ("p_population_rope", 0.9)):
                    rows.append(("all_equal", q, rep, "pair", pair, quantity, value, 0.0))
    columns = ["scenario", "q", "rep", "level", "label", "quantity", "value", "truth"]
    return pd.DataFrame(rows, columns=columns)


def test_recovery_plots_draw_the_means_over_repetitions():
    import matplotlib

    matplotlib.use("Agg")
    frame = synthetic_frame()
    fig = plot_p_best_recovery(frame)
    better = fig.axes[0].lines[0]
    np.testing.assert_allclose(better.get_xdata(), [5, 20])
    np.testing.assert_allclose(better.get_ydata(), [0.45, 0.85])
    fig = plot_rope_recovery(frame)
    np.testing.assert_allclose(fig.axes[0].lines[0].get_ydata(), [0.55, 0.75])
    np.testing.assert_allclose(fig.axes[0].lines[1].get_ydata(), [0.9, 0.9])
    with pytest.raises(ValueError, match="no 'one_better' P\\(best\\) rows"):
        plot_p_best_recovery(frame[frame["scenario"] == "all_equal"])


# ------------------------------------------------------------------------------ Stan
@pytest.mark.stan
def test_a_clearly_better_model_is_found_at_q_20(engine):
    """One model better by 5 points on 20 data sets: P(best on a new data set) > 0.9 for it,
    and the tidy rows of the fit carry the truth."""
    design = RecoveryDesign(advantage=5.0)
    study = simulate_study("one_better", 20, design, seed=11)
    result = fit_study(study, seed=3, chains=2, warmup=300, draws=300, engine=engine)
    rows = summarise_fit(result, study)
    p_best = rows.query("level == 'model' and quantity == 'p_best'").set_index("label")
    assert p_best.loc["A", "value"] > 0.9
    assert p_best.loc["A", "truth"] == 5.0 and p_best["value"].sum() == pytest.approx(1.0)
    assert set(rows["quantity"]) == {*MODEL_QUANTITIES, *PAIR_QUANTITIES}
    pairs = rows.query("level == 'pair' and quantity == 'p_rope'").set_index("label")
    assert pairs.loc["B - A", "truth"] == -5.0 and pairs.loc["C - B", "truth"] == 0.0


@pytest.mark.stan
def test_with_equal_models_the_rope_probabilities_grow_with_q(engine):
    """All four models equal (true per-data-set differences sd 0.7, rope 1): the mean pairwise
    P(rope) on a new data set is larger at q = 40 than at q = 8 (6 pairs, one study each; short
    chains: measured 0.27 and 1.00 with seed 5)."""
    frame = recovery_study(
        qs=(8, 40), reps=1, scenarios=("all_equal",), seed=5, warmup=150, draws=150, engine=engine
    )
    rope = frame.query("level == 'pair' and quantity == 'p_rope'").groupby("q")["value"].mean()
    assert rope[40] > rope[8] + 0.2
    assert set(frame.columns) >= {"scenario", "q", "rep", "level", "label", "value", "truth"}

"""The ranking models without Stan: wins, ties, rankings, rank simulation, the result's tables."""

import math

import arviz as az
import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import special, stats

from bayes_hier import compare
from bayes_hier.ranking import (
    BradleyTerryPrior,
    PlackettLucePrior,
    bradley_terry_test,
    plackett_luce_test,
    rankings,
    tie_counts,
    win_table,
)
from bayes_hier.ranking.bradley_terry import BradleyTerryData
from bayes_hier.ranking.bradley_terry import build_input as build_bt_input
from bayes_hier.ranking.result import RankingFit, RankingResult, pair_results
from bayes_hier.ranks import rank_table, simulated_rankings, softmax
from bayes_hier.scores import model_scores


def _frame(cells: dict) -> pd.DataFrame:
    """{(dataset, model): fold scores} as a tidy frame (one run)."""
    rows = [
        {"dataset": d, "model": m, "run": 0, "fold": f, "score": s}
        for (d, m), scores in cells.items()
        for f, s in enumerate(scores)
    ]
    return pd.DataFrame(rows)


#: Three data sets: on d1 a beats b clearly, on d2 by less than 0.4 sd of the differences, on
#: d3 b beats a; c is missing on d3.
FRAME = _frame(
    {
        ("d1", "a"): [0.90, 0.92, 0.91],
        ("d1", "b"): [0.80, 0.81, 0.79],
        ("d1", "c"): [0.85, 0.86, 0.84],
        ("d2", "a"): [0.80, 0.90, 0.85],
        ("d2", "b"): [0.82, 0.84, 0.87],
        ("d2", "c"): [0.95, 0.96, 0.97],
        ("d3", "a"): [0.70, 0.71, 0.72],
        ("d3", "b"): [0.75, 0.76, 0.77],
    }
)


def test_win_table_counts_wins_with_the_paired_local_rope():
    scores = model_scores(FRAME)
    table = win_table(scores, local_rope=0.4).set_index(["first", "second"])
    # a - b on d2: differences (-0.02, 0.06, -0.02), mean 0.00667, sd 0.0462: |m| < 0.4 sd
    assert table.loc[("a", "b")].tolist() == [1, 1, 1, 3]
    # c was not run on d3: the pairs with c use two data sets
    assert table.loc[("a", "c")].tolist() == [1, 1, 0, 2]
    assert table.loc[("b", "c")].tolist() == [0, 2, 0, 2]
    exact = win_table(scores, local_rope=None).set_index(["first", "second"])
    assert exact.loc[("a", "b")].tolist() == [2, 1, 0, 3]


def test_win_table_turns_round_when_lower_is_better():
    table = win_table(model_scores(FRAME), local_rope=None, higher_is_better=False)
    assert table.set_index(["first", "second"]).loc[("a", "b")].tolist() == [1, 2, 0, 3]


def test_local_rope_is_validated():
    with pytest.raises(ValueError, match="local_rope"):
        win_table(model_scores(FRAME), local_rope=-1)
    with pytest.raises(TypeError, match="local_rope"):
        win_table(model_scores(FRAME), local_rope="0.4")


def test_tie_policies():
    table = pd.DataFrame(
        {"first": ["a"], "second": ["b"], "win_first": [3], "win_second": [1], "ties": [3]}
    )

    def counts(policy):
        return tie_counts(table, policy)[["win_first", "win_second", "ties"]].iloc[0].tolist()

    assert counts("spread") == [4.5, 2.5, 0.0]
    assert counts("add") == [6.0, 4.0, 0.0]
    assert counts("forget") == [3.0, 1.0, 0.0]
    assert counts("davidson") == [3.0, 1.0, 3.0]
    with pytest.raises(ValueError, match="ties must be one of"):
        tie_counts(table, "random")


def test_rankings_per_data_set_and_per_fold():
    scores = model_scores(FRAME)
    orders, units = rankings(scores, tie_rule="order")
    assert units == ["d1", "d2", "d3"]
    assert [o.tolist() for o in orders] == [[0, 2, 1], [2, 0, 1], [1, 0]]  # c missing on d3
    by_fold, cells = rankings(scores, by_fold=True, tie_rule="order")
    assert len(by_fold) == 9 and cells[0] == "d1/0/0"
    worst_first, _ = rankings(scores, tie_rule="order", higher_is_better=False)
    assert worst_first[0].tolist() == [1, 2, 0]


def test_equal_scores_are_ordered_by_the_rule():
    frame = _frame({("d", m): [0.5, 0.5] for m in "abcd"})
    scores = model_scores(frame)
    assert rankings(scores, tie_rule="order")[0][0].tolist() == [0, 1, 2, 3]
    first = [rankings(scores, rng=np.random.default_rng(s))[0][0][0] for s in range(400)]
    # each model first a quarter of the time: binomial sd sqrt(400 / 4 * 3 / 4) = 8.7
    assert np.all(np.abs(np.bincount(first, minlength=4) - 100) < 40)
    again = rankings(scores, rng=np.random.default_rng(7))[0][0]
    assert again.tolist() == rankings(scores, rng=np.random.default_rng(7))[0][0].tolist()
    with pytest.raises(ValueError, match="tie_rule"):
        rankings(scores, tie_rule="first")


def test_simulated_rankings_are_plackett_luce():
    """P(first) = w_a and P(last) of the 3-model PL: w_c-last = Σ_{a≠c} w_a w_b / (1 − w_a)."""
    w = np.array([0.5, 0.3, 0.2])
    ranks = simulated_rankings(np.log(w)[None, :], 200_000, np.random.default_rng(0))
    table = rank_table(ranks, ["a", "b", "c"])
    np.testing.assert_allclose(table[1].to_numpy(), w, atol=0.004)  # se <= 0.0012
    last_c = w[0] * w[1] / (1 - w[0]) + w[1] * w[0] / (1 - w[1])
    assert table.loc["c", 3] == pytest.approx(last_c, abs=0.004)
    np.testing.assert_allclose(table.sum(axis=0), 1.0)
    np.testing.assert_allclose(table.sum(axis=1), 1.0)


def _result(strengths: np.ndarray, diagnostics: dict | None = None) -> RankingResult:
    """A RankingResult on given draws of the log-strengths (2 chains)."""
    models = ("a", "b", "c")
    draws = strengths.reshape(2, -1, 3)
    posterior = xr.Dataset(
        {"strength": (("chain", "draw", "model"), draws)}, coords={"model": list(models)}
    )
    idata = az.InferenceData(posterior=posterior)
    diagnostics = diagnostics or {
        "divergences": 0,
        "max_rhat": 1.0,
        "min_ess_bulk": 1000.0,
        "min_ess_tail": 1000.0,
        "max_treedepth_hits": 0,
        "min_ebfmi": 1.0,
        "chains": 2,
        "draws": draws.shape[1],
    }
    fit = RankingFit("test model", "test", (0.45, 0.55), 0.89, diagnostics)
    pairs = pair_results(idata, models, fit)
    return RankingResult(
        pairs,
        idata=idata,
        fit=fit,
        model_input=None,
        predictive_seed=3,
        models=models,
        method="test",
        rope=pairs["a", "b"].rope,
    )


@pytest.fixture(scope="module")
def strengths() -> np.ndarray:
    rng = np.random.default_rng(1)
    return np.array([0.0, 1.0, -0.5]) + rng.normal(0, 0.3, (4000, 3))


def test_win_probabilities_in_ranking_order(strengths):
    result = _result(strengths)
    table = result.win_probabilities()
    assert list(table.columns) == [
        "first",
        "second",
        "mean",
        "hdi_low",
        "hdi_high",
        "above_half",
        "in_rope",
    ]
    assert result.order == ["b", "a", "c"]
    assert list(zip(table["first"], table["second"])) == [("b", "a"), ("b", "c"), ("a", "c")]
    theta = special.expit(strengths[:, 1] - strengths[:, 0])
    row = table.iloc[0]
    assert row["mean"] == pytest.approx(theta.mean(), rel=1e-12)
    assert row["above_half"] == pytest.approx(np.mean(theta > 0.5))
    assert row["in_rope"] == pytest.approx(np.mean((theta >= 0.45) & (theta <= 0.55)))
    assert row["hdi_low"] < row["mean"] < row["hdi_high"]
    # the pair (a, b) as written: P(b beats a) = theta; left = a better = theta < 0.45
    probs = result["a", "b"].probs
    assert probs.right == pytest.approx(np.mean(theta > 0.55))
    assert probs.left == pytest.approx(np.mean(theta < 0.45))
    mirrored = result["b", "a"].probs
    assert (mirrored.left, mirrored.right) == (probs.right, probs.left)
    assert result.pairs.loc[0, "mean_difference"] == pytest.approx(theta.mean() - 0.5)


def test_p_best_rank_probabilities_and_expected_rank(strengths):
    result = _result(strengths)
    np.testing.assert_allclose(result.p_best.to_numpy(), softmax(strengths).mean(axis=0))
    table = result.rank_probabilities
    assert table.shape == (3, 3) and list(table.columns) == [1, 2, 3]
    np.testing.assert_allclose(table.sum(axis=1), 1.0)
    # simulated rank 1 agrees with the exact P(best): 40 000 rankings, se < 0.0025
    np.testing.assert_allclose(table[1].to_numpy(), result.p_best.to_numpy(), atol=0.01)
    expected = (table * np.array([1, 2, 3])).sum(axis=1)
    np.testing.assert_allclose(result.expected_rank, expected)
    assert isinstance(result.p_best, pd.Series) and result.p_best.index.tolist() == ["a", "b", "c"]
    assert result.ranking.index.tolist() == ["b", "a", "c"]
    as_dict = result.to_dict()
    assert set(as_dict["p_best"]) == {"a", "b", "c"} and len(as_dict["win_probabilities"]) == 3


def test_a_failed_fit_declares_nothing(strengths):
    failed = {
        "divergences": 12,
        "max_rhat": 1.2,
        "min_ess_bulk": 20.0,
        "min_ess_tail": 20.0,
        "max_treedepth_hits": 0,
        "min_ebfmi": 1.0,
        "chains": 2,
        "draws": 2000,
    }
    result = _result(strengths, failed)
    assert set(result.pairs["decision"]) == {"not converged"}
    assert not result.converged and result.problems
    assert "NOT CONVERGED: the numbers below are not fit for decisions (12 divergent" in (
        result.summary()
    )
    assert result.ranking_caption.endswith(
        "NOT CONVERGED, not fit for decisions (see the warnings)"
    )
    assert all("not converged, so no outcome is declared" in s for s in result.sentences())
    converged = _result(strengths)
    assert converged.converged and not converged.problems and converged.not_converged_note is None
    assert converged.ranking_caption == "Ranking on a new data set (test model)"


def test_plots_draw(strengths):
    import matplotlib.pyplot as plt

    result = _result(strengths)
    for fig in (result.plot_win_probabilities(), result.plot_weights()):
        assert fig.axes
        plt.close(fig)
    fig = result.plot_rank_probabilities()
    assert fig.axes[0].get_title() == "test model: rank probabilities"
    plt.close(fig)


def test_bradley_terry_input_leaves_out_pairs_without_data():
    scores = model_scores(FRAME[FRAME["model"] != "c"].assign(model=lambda f: f["model"]))
    wins = win_table(scores)
    wins.loc[0, ["win_first", "win_second", "ties", "n_datasets"]] = 0
    data = BradleyTerryData(scores.models, wins, "spread", 0.4)
    built = build_bt_input(data, BradleyTerryPrior())
    assert built.data["N"] == 0 and built.data["prior_scale"] == 0.5


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: bradley_terry_test(FRAME, ties="random"), ValueError, "ties"),
        (lambda: bradley_terry_test(FRAME, scale_prior="gamma"), ValueError, "scale_prior"),
        (lambda: bradley_terry_test(FRAME, prior_scale=0), ValueError, "prior_scale"),
        (lambda: bradley_terry_test(FRAME, win_rope=(0.6, 0.7)), ValueError, "win_rope"),
        (lambda: plackett_luce_test(FRAME, concentration=-1), ValueError, "concentration"),
        (lambda: plackett_luce_test(FRAME, tie_rule="x"), ValueError, "tie_rule"),
        (lambda: compare(FRAME, method="plackett_luce", control="a"), ValueError, "control"),
        (lambda: compare(FRAME, 0.5, method="bradley_terry"), ValueError, "win_rope"),
        (lambda: compare(FRAME, method="plackett_luce", nu_prior="x"), TypeError, "nu_prior"),
    ],
)
def test_invalid_options_are_refused_before_sampling(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_priors_state_themselves():
    assert str(BradleyTerryPrior()) == "beta ~ N(0, sigma^2), sigma ~ lognormal(0, 0.5)"
    assert str(BradleyTerryPrior("cauchy", 1.0)).endswith("half-Cauchy(0, 1)")
    assert str(PlackettLucePrior(2)) == "w ~ Dirichlet(2, ..., 2)"


def bradley_terry_log_density(data: dict, point: dict) -> float:
    """The Bradley-Terry model in NumPy/scipy, constants included: the hyperprior of σ, the
    centred β (β ~ N(0, σ² I), their mean integrated out: the first K − 1 centred coordinates
    are N(0, σ² (I − J / K))), binomial (Davidson: multinomial) counts written with Γ for real
    counts."""
    sigma, free = point["sigma"], np.asarray(point["beta_free"])
    beta = np.append(free, -free.sum())
    if data["cauchy_scale"]:
        total = stats.halfcauchy.logpdf(sigma, scale=data["prior_scale"])
    else:
        total = stats.lognorm.logpdf(sigma, s=data["prior_scale"])
    k = beta.size
    total += stats.multivariate_normal.logpdf(
        free, np.zeros(k - 1), sigma**2 * (np.eye(k - 1) - 1.0 / k)
    )
    a = beta[np.asarray(data["first"]) - 1]
    b = beta[np.asarray(data["second"]) - 1]
    w1, w2, t = data["win_first"], data["win_second"], data["ties"]
    if data["davidson"]:
        nu, sigma_nu = point["nu"][0], point["sigma_nu"][0]
        total += stats.lognorm.logpdf(sigma_nu, s=0.5) + stats.norm.logpdf(nu, 0, sigma_nu)
        tie = nu + (a + b) / 2
        log_norm = special.logsumexp(np.stack([a, b, tie]), axis=0)
        coefficient = (
            special.gammaln(w1 + w2 + t + 1)
            - special.gammaln(w1 + 1)
            - special.gammaln(w2 + 1)
            - special.gammaln(t + 1)
        )
        return float(
            total
            + np.sum(coefficient + w1 * (a - log_norm) + w2 * (b - log_norm) + t * (tie - log_norm))
        )
    p = special.expit(a - b)
    coefficient = special.gammaln(w1 + w2 + 1) - special.gammaln(w1 + 1) - special.gammaln(w2 + 1)
    return float(total + np.sum(coefficient + w1 * np.log(p) + w2 * np.log1p(-p)))


def plackett_luce_log_density(data: dict, point: dict) -> float:
    """The Plackett-Luce model in NumPy/scipy: Dirichlet prior + Σ_s Σ_i log(w_{o_i} / Σ_{j≥i}
    w_{o_j}) over each ranking's ranked models."""
    w = np.asarray(point["w"])
    total = stats.dirichlet.logpdf(w, data["concentration"])
    for size, order in zip(data["size"], data["order"]):
        ranked = w[np.asarray(order[:size]) - 1]
        remaining = np.cumsum(ranked[::-1])[::-1]
        total += np.sum(np.log(ranked) - np.log(remaining))
    return float(total)


def test_reference_binomial_agrees_with_scipy_for_whole_counts():
    """The Γ form of the binomial equals scipy's binomial pmf for integer counts."""
    data = {
        "first": [1, 1, 2],
        "second": [2, 3, 3],
        "win_first": np.array([3.0, 0.0, 5.0]),
        "win_second": np.array([2.0, 4.0, 1.0]),
        "ties": np.zeros(3),
        "davidson": 0,
        "cauchy_scale": 0,
        "prior_scale": 0.5,
    }
    point = {"sigma": 0.8, "beta_free": np.array([0.3, -0.2])}
    beta = np.array([0.3, -0.2, -0.1])
    p = special.expit(beta[[0, 0, 1]] - beta[[1, 2, 2]])
    expected = (
        stats.lognorm.logpdf(0.8, s=0.5)
        + stats.norm.logpdf(beta, 0, 0.8).sum()
        # (c_1, c_2, mean) -> beta has Jacobian 3; the mean (0 here) is integrated out
        + np.log(3)
        - stats.norm.logpdf(0, 0, 0.8 / np.sqrt(3))
        + stats.binom.logpmf([3, 0, 5], [5, 4, 6], p).sum()
    )
    assert bradley_terry_log_density(data, point) == pytest.approx(expected, rel=1e-12)
    assert math.isfinite(
        plackett_luce_log_density(
            {"size": [3], "order": [[1, 2, 3]], "concentration": np.ones(3)},
            {"w": np.array([0.5, 0.3, 0.2])},
        )
    )


def test_pair_usage_names_what_each_pair_compares():
    from bayes_hier.ranking.fit import pair_usage

    frame = FRAME.copy()
    frame.loc[
        (frame["dataset"] == "d1") & (frame["model"] == "b") & (frame["fold"] == 0), "score"
    ] = np.nan
    usage = pair_usage(model_scores(frame))
    assert usage["a", "b"].datasets == ("d1", "d2", "d3")
    assert usage["a", "b"].folds == {"d1": 2, "d2": 3, "d3": 3}
    assert usage["a", "b"].partial == {"d1": 1}
    assert usage["a", "c"].dropped == {"d3": "no scores for c"}
    assert usage["a", "c"].datasets == ("d1", "d2")


def test_report_names_the_model_and_the_rope_of_the_pairs(strengths):
    markdown = _result(strengths).to_markdown()
    assert "Ranking on a new data set (test model)" in markdown
    assert "the win rope [0.45, 0.55] on the probability that the second model beats" in markdown
    assert "(joint model)" not in markdown
    assert "P(first beats second): posterior mean, 89% HDI" in markdown
    latex = _result(strengths).to_latex()
    assert "above\\_half" in latex and "expected\\_rank" in latex
    # pairs, MCMC diagnostics, matrix, ranking, rank table, win table
    assert latex.count("\\toprule") == 6


def test_pair_table_per_outcome(strengths):
    frame = _result(strengths)["a", "b"].to_frame()
    assert list(frame["outcome"]) == ["left", "rope", "right"]
    np.testing.assert_allclose(frame["probability"].sum(), 1.0)

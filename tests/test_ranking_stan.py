"""The ranking models through Stan: log densities, recovery, simple limits, compare()."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special

from bayes_hier import compare
from bayes_hier.ranking import BradleyTerryPrior, PlackettLucePrior, win_table
from bayes_hier.ranking.bradley_terry import BradleyTerryData
from bayes_hier.ranking.bradley_terry import build_input as build_bt_input
from bayes_hier.ranking.plackett_luce import PlackettLuceData
from bayes_hier.ranking.plackett_luce import build_input as build_pl_input
from bayes_hier.ranks import simulated_rankings
from bayes_hier.scores import model_scores
from bayes_hier.stan_programs import load_program

from .test_ranking import FRAME, bradley_terry_log_density, plackett_luce_log_density

pytestmark = pytest.mark.stan

#: Small MCMC runs: the machine is shared.
SMALL = {"chains": 2, "draws": 400, "warmup": 400}


def _sound(result) -> bool:
    """No divergence and chains that agree, at the precision of 2 x 400 draws (R-hat < 1.03;
    the 1.01 of a full run needs more draws)."""
    return result.diagnostics["divergences"] == 0 and result.diagnostics["max_rhat"] < 1.03


def _pl_frame(weights, q: int, seed: int) -> pd.DataFrame:
    """q data sets (one fold each) whose scores order the models as a Plackett-Luce ranking with
    ``weights``: score = k − rank."""
    rng = np.random.default_rng(seed)
    ranks = simulated_rankings(np.log(np.asarray(weights))[None, :], q, rng)
    names = [f"m{i}" for i in range(len(weights))]
    rows = [
        {"dataset": f"d{s}", "model": names[a], "run": 0, "fold": 0, "score": -float(r)}
        for s, row in enumerate(ranks)
        for a, r in enumerate(row)
    ]
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("ties", "prior"),
    [
        ("spread", BradleyTerryPrior()),
        ("add", BradleyTerryPrior("cauchy", 1.3)),
        ("davidson", BradleyTerryPrior("lognormal", 0.7)),
    ],
)
def test_bradley_terry_program_states_the_model(engine, ties, prior):
    """bradley_terry.stan = the NumPy/scipy statement, constants included (rtol 1e-8), at
    points that differ (half counts from "spread" included)."""
    scores = model_scores(FRAME)
    built = build_bt_input(
        BradleyTerryData(scores.models, win_table(scores, 0.4), ties, 0.4), prior
    )
    rng = np.random.default_rng(5)
    davidson = ties == "davidson"
    points = [
        {
            "sigma": float(rng.uniform(0.2, 3)),
            "beta_free": rng.normal(0, 1.5, 2),
            "nu": [float(rng.normal())] if davidson else [],
            "sigma_nu": [float(rng.uniform(0.3, 2))] if davidson else [],
        }
        for _ in range(4)
    ]
    values = engine.log_density(load_program("bradley_terry"), built.data, points)
    expected = [bradley_terry_log_density(built.data, p) for p in points]
    assert np.ptp(values) > 1.0
    np.testing.assert_allclose(values, expected, rtol=1e-8)


def test_plackett_luce_program_states_the_model(engine):
    """plackett_luce.stan = the NumPy/scipy statement (partial rankings included), rtol 1e-8."""
    built = build_pl_input(
        PlackettLuceData(model_scores(FRAME), False, "order", True),
        PlackettLucePrior(1.7),
        np.random.default_rng(0),
    )
    assert built.data["size"] == [3, 3, 2]
    rng = np.random.default_rng(6)
    points = [{"w": rng.dirichlet(np.ones(3))} for _ in range(4)]
    values = engine.log_density(load_program("plackett_luce"), built.data, points)
    expected = [plackett_luce_log_density(built.data, p) for p in points]
    assert np.ptp(values) > 1.0
    np.testing.assert_allclose(values, expected, rtol=1e-8)


@pytest.fixture(scope="module")
def recovery_frame() -> pd.DataFrame:
    """300 data sets ranked by a Plackett-Luce model with weights (0.4, 0.3, 0.2, 0.1); its
    pairwise marginals are Bradley-Terry with β = log w: P(a above b) = w_a / (w_a + w_b)."""
    return _pl_frame([0.4, 0.3, 0.2, 0.1], q=300, seed=11)


def test_plackett_luce_recovers_the_weights(recovery_frame):
    """Posterior means of w within 0.04 of the truth (posterior sd about 0.015 with 300
    rankings), and P(best) is ordered as the weights."""
    result = compare(recovery_frame, method="plackett_luce", seed=1, tie_rule="order", **SMALL)
    assert _sound(result)
    np.testing.assert_allclose(result.p_best.to_numpy(), [0.4, 0.3, 0.2, 0.1], atol=0.04)
    assert result.order == ["m0", "m1", "m2", "m3"]
    first = result.win_probabilities().iloc[0]
    assert (first["first"], first["second"]) == ("m0", "m1")
    assert first["mean"] == pytest.approx(0.4 / 0.7, abs=0.04)


def test_bradley_terry_recovers_the_strength_differences(recovery_frame):
    """β_a − β_b within 0.25 of log(w_a / w_b) (posterior sd about 0.1 with 300 data sets per
    pair); P(m0 beats m3) = 0.8 within 0.05."""
    result = compare(recovery_frame, method="bradley_terry", local_rope=None, seed=2, **SMALL)
    assert _sound(result)
    beta = result.strengths.mean(axis=0)
    truth = np.log([0.4, 0.3, 0.2, 0.1])
    np.testing.assert_allclose(beta - beta[0], truth - truth[0], atol=0.25)
    table = result.win_probabilities().set_index(["first", "second"])
    assert table.loc[("m0", "m3"), "mean"] == pytest.approx(0.8, abs=0.05)
    assert table.loc[("m0", "m3"), "above_half"] == 1.0


def test_bradley_terry_with_one_data_set_follows_the_prior_times_theta():
    """k = 2, one data set, a wins: the posterior of θ = P(a beats b) is 2θ times its prior
    density (prior: θ = expit(β_a − β_b), β ~ N(0, σ²), σ ~ lognormal(0, 0.5)), so
    E[θ | data] = 2 E[θ²] and P(θ > 1/2 | data) = 2 E[θ; θ > 1/2] under the prior (10⁶ prior
    draws). Tolerance 0.03: 4 x 1000 draws, posterior sd about 0.2."""
    frame = pd.DataFrame(
        {"dataset": "d", "model": ["a", "b"], "run": 0, "fold": 0, "score": [0.9, 0.8]}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a single data set: no frequentist tests
        result = compare(
            frame, method="bradley_terry", local_rope=None, seed=3, chains=4, draws=1000
        )
    assert not result.problems
    rng = np.random.default_rng(0)
    sigma = rng.lognormal(0, 0.5, 1_000_000)
    theta = special.expit(rng.normal(0, sigma * np.sqrt(2)))
    row = result.win_probabilities().iloc[0]
    assert (row["first"], row["second"]) == ("a", "b")
    assert row["mean"] == pytest.approx(2 * np.mean(theta**2), abs=0.03)
    assert row["above_half"] == pytest.approx(2 * np.mean(theta * (theta > 0.5)), abs=0.03)


def test_plackett_luce_with_identical_rankings():
    """k = 2 and n identical rankings: w₁ | data ~ Beta(n + 1, 1), mean (n + 1) / (n + 2); k = 4:
    P(best) near 1 on the winner."""
    two = _ranked_frame(2, n=20)
    result = compare(two, method="plackett_luce", seed=4, **SMALL)
    assert result.p_best["m0"] == pytest.approx(21 / 22, abs=0.01)
    four = compare(_ranked_frame(4, n=20), method="plackett_luce", seed=5, **SMALL)
    assert four.p_best["m0"] > 0.85
    assert four.order == ["m0", "m1", "m2", "m3"]
    assert four.rank_probabilities.loc["m0", 1] > 0.85


def _ranked_frame(k: int, n: int) -> pd.DataFrame:
    """n data sets on which m0 > m1 > ... > m(k−1)."""
    return pd.DataFrame(
        [
            {"dataset": f"d{s}", "model": f"m{a}", "run": 0, "fold": 0, "score": float(k - a)}
            for s in range(n)
            for a in range(k)
        ]
    )


def test_real_data_report_and_davidson(uci, tmp_path):
    """Davidson's ties on the real data: converges, and the report carries the ranking tables
    and the figures."""
    result = compare(uci, method="bradley_terry", ties="davidson", seed=6, **SMALL)
    assert _sound(result)
    assert "nu" in result.idata.posterior
    written = result.write_report(tmp_path)
    markdown = (tmp_path / "report.md").read_text()
    assert "rank_probabilities" in markdown and "p_best" in markdown
    assert written


def test_command_line_method_plackett_luce(uci, tmp_path, capsys):
    """``bayes-hier compare --method plackett_luce --json`` prints P(best) and the win table and
    writes the report (Markdown, HTML, LaTeX)."""
    import json

    from bayes_hier.cli import main

    path = tmp_path / "results.csv"
    uci.to_csv(path, index=False)
    out = tmp_path / "report"
    args = [
        "compare",
        str(path),
        "--method",
        "plackett_luce",
        "--seed",
        "1",
        "--chains",
        "2",
        "--draws",
        "300",
        "--warmup",
        "300",
        "--quiet",
        "--json",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert sum(printed["p_best"].values()) == pytest.approx(1.0)
    assert len(printed["win_probabilities"]) == 10
    assert {"report.md", "report.html", "tables.tex"} <= {p.name for p in out.iterdir()}


def test_simulation_based_calibration_small(engine):
    """40 SBC replicates of each model (k = 4, 20 data sets, L = 19) through the generic driver:
    no divergence and no rank histogram rejected by the chi-square test at 0.001 (9 quantities:
    a calibrated program fails one with probability about 0.009).
    ``python -m bayes_hier.calibration --model bradley_terry plackett_luce`` runs more."""
    from bayes_hier.calibration import SBCConfig, run_sbc
    from bayes_hier.calibration.analysis import uniformity_table
    from bayes_hier.parallel import InlineExecutor
    from bayes_hier.ranking.simulate import (
        BradleyTerrySimulator,
        PlackettLuceSimulator,
        bradley_terry_suite,
    )

    config = SBCConfig.of(bradley_terry_suite(), engine=engine)
    simulators = [BradleyTerrySimulator(), PlackettLuceSimulator()]
    ranks = run_sbc(simulators, 40, config, InlineExecutor(), progress=False)
    uniformity = uniformity_table(ranks, None, 19, 10, by=("model",), simulations=2000)
    assert len(ranks) == 80 and len(uniformity) == 9
    assert ranks["divergences"].sum() == 0
    assert uniformity["chi2_p"].min() > 0.001
    assert np.nanmax(ranks.filter(like="rank_").to_numpy()) <= 19


def test_plackett_luce_by_fold_ranks_every_cell():
    """by_fold: 9 rankings (3 data sets x 3 folds; c missing on d3's folds), said in the summary."""
    result = compare(FRAME, method="plackett_luce", by_fold=True, seed=7, tie_rule="order", **SMALL)
    assert result.model_input.data["N"] == 9
    assert result.model_input.data["size"] == [3] * 6 + [2] * 3
    assert "9 (data set, run, fold) cells" in result.summary()
    assert _sound(result)

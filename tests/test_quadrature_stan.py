"""The quadrature program (``stan/hierarchical_quadrature.stan``) is the scale-mixture program on
the sampled data sets plus the NumPy rule of :mod:`bayes_hier.hierarchical.quadrature` for the
deep ones, and its fits agree with the two-chart coordinates on a study with far-out data sets."""

import warnings
from dataclasses import replace

import numpy as np
import pytest

from bayes_hier import CVData, hierarchical_test
from bayes_hier.hierarchical.delta0_coordinate import coordinate_from_delta0, delta0_from_coordinate
from bayes_hier.hierarchical.model import HIERARCHICAL
from bayes_hier.hierarchical.model_input import HierarchicalPrior
from bayes_hier.hierarchical.quadrature import (
    QUADRATURE,
    build_quadrature_input,
    deep_log_marginals,
    subset,
)
from bayes_hier.hierarchical.scale_mixture import nu_from_standardised
from bayes_hier.rope import Rope
from bayes_hier.stan_programs import load_program

pytestmark = pytest.mark.stan


def _far_out_study() -> CVData:
    """Eight data sets of 2 to 6 folds; two precise and far out (0.3 above and 0.2 below)."""
    rng = np.random.default_rng(5)
    x = [rng.uniform(0.7, 0.9, n) for n in (2, 3, 4, 4, 6, 4, 4, 4)]
    y = [v + rng.normal(0.01 * i, 0.02, v.size) for i, v in enumerate(x)]
    y[3] = x[3] + 0.3 + rng.normal(0, 1e-3, 4)
    y[5] = x[5] - 0.2 + rng.normal(0, 3e-3, 4)
    return CVData.from_arrays(x, y, rho=[0.5, 0.2, 0.25, 0.25, 0.1, 0.25, 0.25, 0.25])


@pytest.mark.parametrize(
    ("nu_prior", "sigma_upper"),
    [("hierarchical", None), ("juarez-steel", None), ("gaussian", None), ("hierarchical", 2.0)],
    ids=["hierarchical", "juarez-steel", "gaussian", "tight-sigma-bound"],
)
def test_program_is_the_scale_mixture_plus_the_rule(engine, nu_prior, sigma_upper):
    """log p(point) of the quadrature program = log p of hierarchical.stan on the sampled data
    sets at the same point + Σ log m_j of the deep data sets (NumPy), at 5 points. With σ̄ = 2
    (the calibration's tight bounds) the far nodes of chart B reach Q_j/(2σ̄²) in the thousands,
    where the program takes log Q(h, x) from its asymptotic series (gamma_q would underflow)."""
    model_input = build_quadrature_input(
        _far_out_study(), Rope(-0.01, 0.01), HierarchicalPrior(nu_prior=nu_prior),
        np.random.default_rng(0),
    )  # fmt: skip
    if sigma_upper is not None:
        model_input = replace(model_input, data={**model_input.data, "sigma_upper": sigma_upper})
    deep = model_input.data["deep"]
    assert list(np.flatnonzero(deep)) == [3, 5]
    data = QUADRATURE.stan_data(model_input, QUADRATURE.program)
    sampled = {name: value for name, value in data.items() if name in model_input.data}
    rng = np.random.default_rng(11)
    points = QUADRATURE.initial_values(model_input, 5, rng)
    deep_data = subset(model_input.data, deep)
    expected = []
    for point in points:
        point["sigma0"] *= float(rng.uniform(0.2, 5.0))
        point["delta0_raw"] = float(coordinate_from_delta0(rng.uniform(-1, 1), data))
        point["nu_raw"] = rng.normal(0, 1.5, len(point["nu_raw"]))
        nu = np.inf
        if nu_prior != "gaussian":
            shape, rate = (
                (2.0, 0.1) if nu_prior == "hierarchical" else (data["nu_shape"], data["nu_rate"])
            )
            nu = float(nu_from_standardised(point["nu_raw"][0], shape, rate))
        delta0 = float(delta0_from_coordinate(point["delta0_raw"], data))
        expected.append(float(np.sum(deep_log_marginals(deep_data, delta0, point["sigma0"], nu))))
    stan = engine.log_density(load_program(QUADRATURE.program), data, points)
    scale_mixture = engine.log_density(load_program(HIERARCHICAL.program), sampled, points)
    assert np.ptp(stan - scale_mixture) > 1.0
    np.testing.assert_allclose(stan - scale_mixture, expected, rtol=1e-9)


def test_quadrature_and_two_charts_agree_on_far_out_data_sets(engine):
    """The study above, 2 chains x 1000 draws in each coordinates: the population, the next data
    set and every δ_i agree within Monte Carlo error; the quadrature's fit has no divergence."""
    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for coordinates in ("two-chart", "quadrature"):
            results[coordinates] = hierarchical_test(
                _far_out_study(), rope=0.01, seed=3, chains=2, coordinates=coordinates
            )
    old, new = results["two-chart"], results["quadrature"]
    assert new.settings["coordinates"] == "quadrature"
    assert new.diagnostics["divergences"] == 0 and new.diagnostics["max_rhat"] <= 1.01
    np.testing.assert_allclose(new.probs, old.probs, atol=0.05)
    np.testing.assert_allclose(new.predictive, old.predictive, atol=0.03)
    for name in ("delta0", "sigma0"):
        a, b = (float(r.idata.posterior[name].median()) for r in (old, new))
        assert abs(a - b) < 0.2 * float(old.idata.posterior[name].std()) + 0.1 * abs(a)
    for result in (old, new):
        delta = result.idata.posterior["delta"]
        assert list(delta.coords["dataset"].values) == list(_far_out_study().datasets)
    np.testing.assert_allclose(
        new.idata.posterior["delta"].median(("chain", "draw")),
        old.idata.posterior["delta"].median(("chain", "draw")),
        atol=0.15 * float(old.idata.posterior["delta"].std()),
    )
    np.testing.assert_allclose(
        new.idata.posterior["sigma"].median(("chain", "draw")),
        old.idata.posterior["sigma"].median(("chain", "draw")),
        rtol=0.15,
    )


def test_more_draws_from_the_same_seed_run_the_same_chains_longer(engine):
    """What the extension of a slowly mixing fit rests on (``extend_slow_fit``): with the same
    seed and warm-up, a fit with twice the draws per chain starts with the shorter fit's draws,
    bit for bit, for every variable of the chains (the integrated data sets' δ_i and σ_i are
    drawn afterwards from their conditionals, by a stream that depends on the number of draws)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        short, long = (
            hierarchical_test(
                _far_out_study(),
                seed=4,
                chains=2,
                warmup=150,
                draws=draws,
                coordinates="quadrature",
            )
            for draws in (100, 200)
        )
    assert long.idata.posterior.sizes["draw"] == 200
    sampled = ~np.asarray(short.model_input.data["deep"], bool)
    assert 0 < sampled.sum() < sampled.size
    for name in ("delta0", "sigma0", "nu", "sigma", "tau"):
        first, whole = (r.idata.posterior[name].values for r in (short, long))
        if first.ndim == 3:
            first, whole = first[..., sampled], whole[..., sampled]
        np.testing.assert_array_equal(whole[:, :100], first)

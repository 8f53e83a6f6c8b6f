"""The two-chart program (``stan/hierarchical_two_chart.stan``) states the NumPy log density
of :mod:`bayes_hier.hierarchical.two_chart`, and its fits agree with the scale-mixture program
where both converge."""

import warnings

import numpy as np
import pytest

from bayes_hier import CVData, hierarchical_test
from bayes_hier.hierarchical.delta0_coordinate import (
    coordinate_from_delta0,
    delta0_from_coordinate,
    delta0_log_jacobian,
)
from bayes_hier.hierarchical.model_input import HierarchicalPrior, build_model_input
from bayes_hier.hierarchical.scale_mixture import (
    nu_from_standardised,
    standardised_log_gamma_log_density,
)
from bayes_hier.hierarchical.two_chart import CHART_SHARPNESS, TWO_CHART, chart_log_terms
from bayes_hier.rope import Rope
from bayes_hier.stan_programs import load_program

pytestmark = pytest.mark.stan


def _few_fold_input(nu_prior: str):
    rng = np.random.default_rng(5)
    x = [rng.uniform(0.7, 0.9, n) for n in (2, 3, 4, 4, 6)]
    y = [v + rng.normal(0.01 * i, 0.02, v.size) for i, v in enumerate(x)]
    y[3] = x[3] + 0.3 + rng.normal(0, 1e-3, 4)  # an outlier known to hundreds of standard errors
    cv = CVData.from_arrays(x, y, rho=[0.5, 0.2, 0.25, 0.25, 0.1])
    return build_model_input(cv, Rope(-0.01, 0.01), HierarchicalPrior(nu_prior=nu_prior), rng)


def _reference(model_input, point) -> float:
    data = model_input.data
    delta0 = float(delta0_from_coordinate(point["delta0_raw"], data))
    log_prior = float(delta0_log_jacobian(point["delta0_raw"], data))
    nu = np.inf
    if data["nu_prior"] != 2:
        if data["nu_prior"] == 0:
            shape, rate = point["nu_alpha"][0], point["nu_beta"][0]
        else:
            shape, rate = data["nu_shape"], data["nu_rate"]
        nu = float(nu_from_standardised(point["nu_raw"][0], shape, rate))
        log_prior += float(standardised_log_gamma_log_density(point["nu_raw"][0], shape, rate))
    term_a, term_b, _, _ = chart_log_terms(data, delta0, point["sigma0"], nu, point["u"])
    return float(np.sum(np.logaddexp(term_a, term_b)) + log_prior)


@pytest.mark.parametrize("nu_prior", ["hierarchical", "juarez-steel", "gaussian"])
def test_program_states_the_reference_log_density(engine, nu_prior):
    model_input = _few_fold_input(nu_prior)
    rng = np.random.default_rng(11)
    points = TWO_CHART.initial_values(model_input, 5, rng)
    for point in points:
        point["u"] = rng.normal(0, 3, point["u"].size)
        point["sigma0"] *= float(rng.uniform(0.2, 5.0))
        point["delta0_raw"] = float(coordinate_from_delta0(rng.uniform(-1, 1), model_input.data))
        point["nu_raw"] = rng.normal(0, 1.5, point["nu_raw"].size)
    data = TWO_CHART.stan_data(model_input, TWO_CHART.program)
    assert data["chart_sharpness"] == CHART_SHARPNESS
    stan = engine.log_density(load_program("hierarchical_two_chart"), data, points)
    assert np.ptp(stan) > 1.0
    np.testing.assert_allclose(stan, [_reference(model_input, p) for p in points], rtol=1e-9)


def test_both_coordinates_agree_where_both_converge(engine):
    """Ten data sets of 5 folds, no outlier: the population and the next data set's
    probabilities agree within Monte Carlo error (2 chains x 1000 draws each)."""
    rng = np.random.default_rng(3)
    x = rng.uniform(0.75, 0.85, (10, 5))
    y = x + rng.normal(0.01, 0.02, (10, 5)) + rng.normal(0, 0.01, (10, 1))
    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for coordinates in ("scale-mixture", "two-chart"):
            results[coordinates] = hierarchical_test(
                x, y, rope=0.01, seed=2, chains=2, coordinates=coordinates
            )
    old, new = results["scale-mixture"], results["two-chart"]
    assert new.settings["coordinates"] == "two-chart"
    for result in (old, new):
        assert result.diagnostics["max_rhat"] <= 1.01 and result.diagnostics["divergences"] == 0
    np.testing.assert_allclose(new.probs, old.probs, atol=0.04)
    np.testing.assert_allclose(new.predictive, old.predictive, atol=0.02)
    for name in ("delta0", "sigma0"):
        a, b = (float(r.idata.posterior[name].median()) for r in (old, new))
        assert abs(a - b) < 0.15 * float(old.idata.posterior[name].std()) + 0.1 * abs(a)
    np.testing.assert_allclose(
        new.idata.posterior["delta"].mean(("chain", "draw")),
        old.idata.posterior["delta"].mean(("chain", "draw")),
        atol=0.15 * float(old.idata.posterior["delta"].std()),
    )

"""From the sampler's coordinates to the model's quantities (no Stan needed)."""

import arviz as az
import numpy as np
import pytest

from bayes_hier import CVData
from bayes_hier.hierarchical.likelihood import delta_full_conditional
from bayes_hier.hierarchical.model import complete_posterior
from bayes_hier.hierarchical.model_input import HierarchicalPrior, build_model_input
from bayes_hier.hierarchical.scale_mixture import nu_from_standardised, tau_from_standardised
from bayes_hier.rope import Rope

from .conftest import simulated_scores


def test_true_differences_are_drawn_from_their_full_conditional():
    """No Stan: the sampler's coordinates of a fixed state, repeated; the drawn δ_i must have
    the mean and variance of the normal full conditional, ν and τ their standardised maps."""
    x, y = simulated_scores(3, np.array([0.0, 0.01, 0.03]), seed=2)
    rng = np.random.default_rng(0)
    model_input = build_model_input(
        CVData.from_arrays(x, y, runs=10), Rope(-0.01, 0.01), HierarchicalPrior(), rng
    )
    chains, draws = 2, 20_000
    state = {"delta0": 0.4, "sigma0": 0.8, "nu_alpha": 2.0, "nu_beta": 0.1, "nu_raw": 0.3}
    sigma, tau_raw = np.array([0.9, 1.1, 1.0]), np.array([-0.5, 0.0, 1.2])
    posterior = {name: np.full((chains, draws), value) for name, value in state.items()}
    posterior = {
        **{k: v[..., None] if k.startswith("nu_") else v for k, v in posterior.items()},
        "sigma": np.broadcast_to(sigma, (chains, draws, 3)),
        "tau_raw": np.broadcast_to(tau_raw, (chains, draws, 3)),
    }
    idata = complete_posterior(az.from_dict(posterior=posterior), model_input, rng)
    post = idata.posterior
    nu = nu_from_standardised(0.3, 2.0, 0.1)
    assert float(post["nu"].max()) == pytest.approx(nu) == float(post["nu"].min())
    np.testing.assert_allclose(post["tau"].values[0, 0], tau_from_standardised(tau_raw, nu))
    data = model_input.data
    mean, variance = delta_full_conditional(
        data["n"],
        data["xbar"],
        data["rho"],
        sigma,
        0.4,
        0.8**2 / tau_from_standardised(tau_raw, nu),
    )
    scale = model_input.scale
    delta = post["delta"].values.reshape(-1, 3) / scale
    standard_error = np.sqrt(variance / delta.shape[0])
    assert np.all(np.abs(delta.mean(axis=0) - mean) < 4 * standard_error)
    np.testing.assert_allclose(delta.var(axis=0), variance, rtol=0.05)
    assert float(post["delta0"].mean()) == pytest.approx(0.4 * scale)
    assert set(post.data_vars) == {
        "delta0",
        "sigma0",
        "nu",
        "delta",
        "sigma",
        "tau",
        "nu_alpha",
        "nu_beta",
    }

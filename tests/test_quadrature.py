"""The quadrature coordinates of the hierarchical model (no Stan): the rule that integrates a
deep data set out is close to its exact marginal likelihood, the completion draws δ_j from its
exact conditional, and the data sets are split and put back in their order."""

import itertools

import arviz as az
import numpy as np
import pytest
from scipy import integrate, special, stats

from bayes_hier import CVData
from bayes_hier.hierarchical.model import scale_mixture_draws
from bayes_hier.hierarchical.model_input import HierarchicalPrior
from bayes_hier.hierarchical.quadrature import (
    build_quadrature_input,
    complete_quadrature,
    deep_datasets,
    deep_log_marginals,
    draw_deep_delta,
    program_data,
    quadrature_initial_values,
    subset,
)
from bayes_hier.rope import Rope

from .test_two_chart import CASES, case_data, integrated_f

# deep data sets (a precise mean far out): n = 2, n = 6, the Gaussian population, n = 3 at ν = 8
DEEP_CASES = [
    (2, 0.0, 3.0, 2 * 0.01**2, 0.0, 0.05, 1.2, 1000.0),
    (6, 0.2, -0.8, 5 * 0.004**2, 0.05, 0.03, 2.5, 1000.0),
    (4, 0.25, 1.5, 3 * 0.01**2, 0.0, 0.1, np.inf, 1000.0),
    (3, 0.3, 0.9, 2 * 0.02**2, 0.1, 0.05, 8.0, 1000.0),
]


@pytest.mark.parametrize("case", CASES + DEEP_CASES)
def test_the_rule_is_close_to_the_exact_marginal_likelihood(case):
    """log m_j by 32 nodes per chart within 3e-3 of adaptive quadrature (the largest error, 2.1e-3,
    is the n = 2 data set), by 64 within 1e-3: the program's deep term, up to 1/σ̄."""
    n, rho, xbar, ss, delta0, sigma0, nu, upper = case
    data = case_data(n, rho, xbar, ss, upper)
    exact = np.log(upper * integrated_f(case))
    for nodes, tolerance in ((32, 3e-3), (64, 1e-3)):
        rule = deep_log_marginals(data, delta0, sigma0, nu, nodes=nodes)[0]
        assert abs(rule - exact) < tolerance


def _conditional_cdf(case):
    """The exact CDF of δ_j | δ₀, σ₀, ν, data_j ∝ L_j(δ) P(δ | δ₀, σ₀, ν), by adaptive quadrature
    split at the two explanations x̄_j and δ₀."""
    n, rho, xbar, ss, delta0, sigma0, nu, upper = case
    a, b, h = 1 - rho, 1 + (n - 1) * rho, (n - 1) / 2

    def f(d):
        quadratic = ss / a + n * (xbar - d) ** 2 / b
        population = (
            stats.t.pdf(d, nu, delta0, sigma0)
            if np.isfinite(nu)
            else stats.norm.pdf(d, delta0, sigma0)
        )
        return quadratic**-h * special.gammaincc(h, quadratic / (2 * upper**2)) * population

    breaks = sorted([delta0, xbar])
    edges = [-np.inf, breaks[0] - 1, breaks[0] + 1, breaks[1] - 1, breaks[1] + 1, np.inf]
    total = sum(integrate.quad(f, s, e, limit=500, epsabs=0)[0]
                for s, e in itertools.pairwise(edges))  # fmt: skip

    def cdf(d):
        start = min(d, edges[1])
        inner = [p for p in breaks if start < p < d]
        head = integrate.quad(f, -np.inf, start, limit=500, epsabs=0)[0]
        return (head + integrate.quad(f, start, d, limit=500, points=inner or None)[0]) / total

    return cdf


@pytest.mark.parametrize("pair", [(0, 1), (5, 7)], ids=["outlier-inside", "n2-gaussian"])
def test_deep_delta_draws_follow_their_exact_conditional(pair):
    """4 000 draws, alternating between two data sets' populations (each draw its own δ₀, σ₀,
    ν): the empirical CDF at 9 quantiles within 0.03 of the exact one (binomial sd below 0.012 at
    2 000 draws), for each; the outlier's mode far from x̄ (noise) carries its few per cent."""
    cases = [(CASES + DEEP_CASES)[i] for i in pair]
    rng = np.random.default_rng(7)
    draws = {}
    for index, case in enumerate(cases):
        n, rho, xbar, ss, delta0, sigma0, nu, upper = case
        data = case_data(n, rho, xbar, ss, upper)
        # the other case's population on the odd draws: shapes and broadcasting are exercised
        other = cases[1 - index]
        populations = np.array([[delta0, sigma0, nu], [other[4], other[5], other[6]]] * 2000)
        delta = draw_deep_delta(data, *populations.T, rng)[:, 0]
        assert delta.shape == (4000,)
        draws[case] = delta[0::2]
    for case, delta in draws.items():
        cdf = _conditional_cdf(case)
        grid = np.quantile(delta, np.linspace(0.1, 0.9, 9))
        np.testing.assert_allclose(np.mean(delta[:, None] <= grid, axis=0),
                                   [cdf(g) for g in grid], atol=0.03)  # fmt: skip
    outlier = CASES[0]
    if outlier in draws:
        noise = np.mean(np.abs(draws[outlier] - outlier[2]) > 1)
        exact_noise = _conditional_cdf(outlier)(outlier[2] - 1)
        assert noise == pytest.approx(exact_noise, abs=0.015) and 0.02 < exact_noise < 0.2


def _study(far: tuple[float, ...] = (0.3,)) -> CVData:
    """Eight data sets of 4 folds, the first ``len(far)`` precise and far out."""
    rng = np.random.default_rng(5)
    x = rng.uniform(0.7, 0.9, (8, 4))
    y = x + rng.normal(0.01, 0.02, (8, 4))
    for i, shift in enumerate(far):
        y[i] = x[i] + shift + rng.normal(0, 1e-3, 4)
    return CVData.from_arrays(list(x), list(y))


def test_the_far_precise_data_sets_are_integrated_and_one_stays_sampled():
    rope = Rope(-0.01, 0.01)
    model_input = build_quadrature_input(
        _study((0.3, -0.25)), rope, HierarchicalPrior(), np.random.default_rng(0)
    )
    assert list(np.flatnonzero(model_input.data["deep"])) == [0, 1]
    assert not deep_datasets(model_input, nats=np.inf).any()
    everything = deep_datasets(model_input, nats=-1.0)
    assert everything.sum() == 7  # every valley exceeds -1, but the shallowest stays sampled


def test_program_data_splits_the_data_sets_and_the_nodes_integrate_one():
    model_input = build_quadrature_input(
        _study((0.3, -0.25)), Rope(-0.01, 0.01), HierarchicalPrior(), np.random.default_rng(0)
    )
    data = program_data(model_input)
    assert (data["q"], data["qd"]) == (6, 2) and "deep" not in data
    np.testing.assert_array_equal(data["xbar_deep"], model_input.data["xbar"][:2])
    np.testing.assert_array_equal(data["xbar"], model_input.data["xbar"][2:])
    assert data["n"] == [4] * 6 and list(data["n_deep"]) == [4.0, 4.0]
    # the Cauchy-quantile rule integrates the Cauchy density: sum w_k π(1 + u²) / (π(1 + u²)) = 1
    assert np.exp(special.logsumexp(data["node_log_weight"])) == pytest.approx(1.0)
    assert np.all(np.diff(data["node_u"]) > 0) and data["node_u"][0] == -data["node_u"][-1]
    inits = quadrature_initial_values(model_input, 3, np.random.default_rng(1))
    assert [len(init["sigma"]) for init in inits] == [6] * 3
    assert [len(init["tau_raw"]) for init in inits] == [6] * 3


def test_completion_keeps_the_sampled_data_sets_and_puts_every_one_in_its_place():
    """The sampled data sets' δ, σ and τ are those of the scale-mixture completion of the same
    draws; the deep ones' σ lies below σ̄ and δ mostly near one of its two explanations (both
    occur); all are
    labelled in the data's order and multiplied back by the scale."""
    model_input = build_quadrature_input(
        _study((0.3,)), Rope(-0.01, 0.01), HierarchicalPrior(), np.random.default_rng(0)
    )
    data, deep = model_input.data, model_input.data["deep"]
    rng = np.random.default_rng(2)
    chains, draws, sampled = 2, 50, int((~deep).sum())
    xbar = np.asarray(data["xbar"])
    posterior = {
        "delta0": np.full((chains, draws), np.median(xbar)) + 0.01 * rng.standard_normal((2, 50)),
        "sigma0": np.exp(rng.normal(np.log(np.std(xbar[~deep])), 0.1, (chains, draws))),
        "nu_alpha": np.full((chains, draws, 1), 2.0),
        "nu_beta": np.full((chains, draws, 1), 0.1),
        "nu_raw": rng.standard_normal((chains, draws, 1)),
        "sigma": np.exp(rng.normal(0.0, 0.1, (chains, draws, sampled))),
        "tau_raw": rng.standard_normal((chains, draws, sampled)),
    }
    idata = az.from_dict(posterior=posterior, dims={"sigma": ["sampled"], "tau_raw": ["sampled"]})
    names = [f"set{i}" for i in range(deep.size)]
    reference = scale_mixture_draws(idata.posterior, subset(data, ~deep), np.random.default_rng(9))
    completed = complete_quadrature(idata, model_input, np.random.default_rng(9), names).posterior
    scale = model_input.scale
    assert list(completed["delta"].coords["dataset"].values) == names
    for name in ("delta", "sigma", "tau"):
        assert completed[name].dims == ("chain", "draw", "dataset")
        factor = scale if name != "tau" else 1.0
        np.testing.assert_allclose(
            completed[name].values[..., ~deep], reference[name].values * factor
        )
    deep_delta = completed["delta"].values[..., deep].ravel() / scale
    at_mean = np.abs(deep_delta - xbar[deep][0]) < 10 * model_input.standard_errors[deep][0]
    at_population = (
        np.abs(deep_delta - posterior["delta0"].ravel()) < 10 * posterior["sigma0"].ravel()
    )
    assert np.mean(at_mean | at_population) > 0.95 and at_mean.any() and at_population.any()
    assert np.all(completed["sigma"].values[..., deep] <= data["sigma_upper"] * scale)
    assert np.all(completed["tau"].values[..., deep] > 0)

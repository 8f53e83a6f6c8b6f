"""The two-chart coordinates of the hierarchical model (no Stan): the density of each data set's
coordinate integrates to the model's marginal likelihood, and the completion draws δ_i and σ_i
from the right conditionals (user guide, Model and conventions §3)."""

import itertools

import numpy as np
import pytest
from scipy import integrate, special, stats

from bayes_hier import CVData
from bayes_hier.diagnostics import diagnostic_problems
from bayes_hier.hierarchical.delta0_coordinate import cauchy_location, delta0_from_coordinate
from bayes_hier.hierarchical.fit import (
    choose_coordinates,
    few_fold_valley,
    fit_and_refit,
    fit_with_fallback,
)
from bayes_hier.hierarchical.likelihood import equicorrelated_log_likelihood
from bayes_hier.hierarchical.model_input import HierarchicalPrior, build_model_input
from bayes_hier.hierarchical.quadrature import DEEP_NATS
from bayes_hier.hierarchical.two_chart import (
    build_two_chart_input,
    chart_log_terms,
    draw_noise_scale,
    two_chart_initial_values,
)
from bayes_hier.rope import Rope

# (n, rho, xbar, ss, delta0, sigma0, nu, sigma_upper): an outlier known to 500 standard errors
# at n = 4, a data set inside the population, n = 2, the Gaussian population, a tight sigma bound
CASES = [
    (4, 0.25, 12.5, 3 * 0.03**2, 0.0, 0.01, 1.1, 1000.0),
    (4, 0.25, 0.3, 3 * 0.5**2, 0.1, 0.4, 4.0, 1000.0),
    (2, 0.0, -1.2, 0.2, 0.5, 0.3, 1.5, 1000.0),
    (5, 0.2, 2.0, 0.6, -0.5, 1.2, np.inf, 1000.0),
    (10, 0.1, -3.0, 9.0, 0.0, 0.2, 3.0, 1.5),
]


def case_data(n, rho, xbar, ss, upper):
    return {"n": [n], "rho": [rho], "xbar": [xbar], "ss": [ss], "sigma_upper": upper}


def _chart_density(case):
    n, rho, xbar, ss, delta0, sigma0, nu, upper = case
    data = case_data(n, rho, xbar, ss, upper)

    def density(u):
        term_a, term_b, _, _ = chart_log_terms(data, delta0, sigma0, nu, np.array([u]))
        return float(np.exp(np.logaddexp(term_a, term_b)[0]) / upper)

    return density


def _scale_mixture_marginal(case) -> float:
    """∫∫ N(x̄-marginal | δ₀, σ₀²/τ) U(σ; 0, σ̄) Gamma(τ; ν/2, ν/2) dσ dτ (hierarchical.stan)."""
    n, rho, xbar, ss, delta0, sigma0, nu, upper = case

    def integrand(sigma, tau):
        log_lik = equicorrelated_log_likelihood(n, xbar, ss, rho, delta0, sigma, sigma0**2 / tau)
        mixing = stats.gamma.pdf(tau, nu / 2, scale=2 / nu) if np.isfinite(nu) else 1.0
        return float(np.exp(log_lik)) / upper * mixing

    if not np.isfinite(nu):
        pieces = [(0, 1), (1, 10), (10, upper)]
        return sum(
            integrate.quad(lambda s: integrand(s, 1.0), a, b, epsabs=0, epsrel=1e-11, limit=400)[0]
            for a, b in pieces
        )
    # in log σ and log τ (Jacobian σ τ), where the integrand is smooth
    return integrate.dblquad(
        lambda ls, lt: integrand(np.exp(ls), np.exp(lt)) * np.exp(ls + lt),
        -60, 8, -30, np.log(upper), epsabs=0, epsrel=1e-8,
    )[0]  # fmt: skip


def integrated_f(case) -> float:
    """∫ f_i(δ) dδ with σ_i and τ_i integrated in closed form (incomplete gamma, Student-t),
    by adaptive quadrature split at the two modes x̄_i and δ₀."""
    n, rho, xbar, ss, delta0, sigma0, nu, upper = case
    a, b, h = 1 - rho, 1 + (n - 1) * rho, (n - 1) / 2

    def f(d):
        quadratic = ss / a + n * (xbar - d) ** 2 / b
        likelihood = (
            (2 * np.pi) ** (-n / 2) * a ** (-(n - 1) / 2) * b**-0.5 * 2 ** (h - 1)
            * special.gamma(h) * quadratic**-h * special.gammaincc(h, quadratic / (2 * upper**2))
        )  # fmt: skip
        population = (
            stats.t.pdf(d, nu, delta0, sigma0)
            if np.isfinite(nu)
            else stats.norm.pdf(d, delta0, sigma0)
        )
        return likelihood * population / upper

    low, high = sorted([xbar, delta0])
    edges = [-np.inf, low - 1, low + 1, high - 1, high + 1, np.inf]
    edges = sorted(set(edges))  # x̄ and δ₀ may be within 1 of each other
    return sum(
        integrate.quad(f, s, e, limit=500, epsabs=0)[0] for s, e in itertools.pairwise(edges)
    )


def _chart_integral(case) -> float:
    density = _chart_density(case)
    pieces = [(-np.inf, -200.0), (-200.0, -5.0), (-5.0, 5.0), (5.0, 200.0), (200.0, np.inf)]
    return sum(integrate.quad(density, a, b, limit=500, epsabs=0)[0] for a, b in pieces)


@pytest.mark.parametrize("case", CASES, ids=["outlier", "inside", "n2", "gaussian", "bound"])
def test_chart_density_integrates_to_the_marginal_likelihood(case):
    """∫ p(u) du = ∫ f_i(δ) dδ = p(x_i | δ₀, σ₀, ν): the hyper-parameters' posterior is the
    model's."""
    assert _chart_integral(case) == pytest.approx(integrated_f(case), rel=1e-8)


@pytest.mark.parametrize("case", CASES[1:], ids=["inside", "n2", "gaussian", "bound"])
def test_closed_forms_equal_the_scale_mixture_likelihood(case):
    """f_i's closed forms (σ_i and τ_i integrated) equal the double integral of the likelihood of
    ``hierarchical.stan`` over σ_i ~ U(0, σ̄) and τ_i ~ Gamma(ν/2, ν/2)."""
    assert integrated_f(case) == pytest.approx(_scale_mixture_marginal(case), rel=1e-7)


def test_outlier_has_both_explanations_near_u_zero():
    """For the precisely known outlier, chart A at u = 0 is δ = x̄ (the population's tail) and
    chart B at u = 0 is δ = δ₀ (noise); each term is within a few nats of its chart's maximum,
    and the other chart's mode (hundreds of units away) carries a weight below 1e-12."""
    n, rho, xbar, ss, delta0, sigma0, nu, upper = CASES[0]
    data = case_data(n, rho, xbar, ss, upper)
    u = np.linspace(-5, 5, 2001)
    term_a, term_b, delta_a, delta_b = chart_log_terms(data, delta0, sigma0, nu, u)
    assert delta_a[1000] == pytest.approx(xbar) and delta_b[1000] == pytest.approx(delta0)
    assert term_a.max() - term_a[1000] < 3 and term_b.max() - term_b[1000] < 3
    se = np.sqrt(ss / (1 - rho) * (1 + 3 * rho) / (4 * 3))
    far = chart_log_terms(data, delta0, sigma0, nu, np.array([(delta0 - xbar) / se]))[0]
    assert far[0] - term_b.max() < np.log(1e-12)


def _sample_u(case, size, rng):
    """Exact draws of u from p(u) by inversion on a fine grid (for the completion tests)."""
    grid = np.concatenate([np.linspace(-3000, -30, 20000), np.linspace(-30, 30, 60001)[1:-1],
                           np.linspace(30, 3000, 20000)])  # fmt: skip
    n, rho, xbar, ss, delta0, sigma0, nu, upper = case
    terms = chart_log_terms(case_data(n, rho, xbar, ss, upper), delta0, sigma0, nu, grid[:, None])
    values = np.exp(np.logaddexp(terms[0], terms[1])[:, 0])
    cdf = np.concatenate([[0], np.cumsum(np.diff(grid) * (values[1:] + values[:-1]) / 2)])
    return np.interp(rng.random(size) * cdf[-1], cdf, grid)


def test_completion_draws_delta_from_its_marginal_posterior():
    """δ_i completed from exact draws of u follows f_i = L_i P normalised (KS, 4000 draws),
    for the outlier whose f_i has two modes 500 standard errors apart."""
    case = CASES[0]
    n, rho, xbar, ss, delta0, sigma0, nu, upper = case
    data = case_data(n, rho, xbar, ss, upper)
    rng = np.random.default_rng(7)
    u = _sample_u(case, 4000, rng)[:, None]
    term_a, term_b, delta_a, delta_b = chart_log_terms(data, delta0, sigma0, nu, u)
    delta = np.where(rng.random(u.shape) < special.expit(term_a - term_b), delta_a, delta_b)[:, 0]

    def f(d):
        a, b = 1 - rho, 1 + (n - 1) * rho
        quadratic = ss / a + n * (xbar - d) ** 2 / b
        h = (n - 1) / 2
        return (
            quadratic**-h
            * special.gammaincc(h, quadratic / (2 * upper**2))
            * stats.t.pdf(d, nu, delta0, sigma0)
        )

    breaks = sorted([delta0, xbar])
    edges = [-np.inf, breaks[0] - 1, breaks[0] + 1, breaks[1] - 1, breaks[1] + 1, np.inf]
    pieces = [integrate.quad(f, a, b, limit=500, epsabs=0)[0]
              for a, b in itertools.pairwise(edges)]  # fmt: skip
    total = sum(pieces)
    near_outlier = pieces[3] / total  # the mass near x̄ (population's tail explanation)
    assert np.mean(np.abs(delta - xbar) < 1) == pytest.approx(near_outlier, abs=0.03)
    assert 0.02 < 1 - near_outlier < 0.2  # the noise explanation carries a few per cent

    def cdf(d):
        start = min(d, edges[1])
        inner = [p for p in breaks if start < p < d]
        head = integrate.quad(f, -np.inf, start, limit=500, epsabs=0)[0]
        return (head + integrate.quad(f, start, d, limit=500, points=inner or None)[0]) / total

    grid = np.quantile(delta, [0.1, 0.3, 0.5, 0.7, 0.9])
    np.testing.assert_allclose(np.mean(delta[:, None] <= grid, axis=0),
                               [cdf(g) for g in grid], atol=0.03)  # fmt: skip


def test_noise_scale_follows_its_truncated_conditional():
    """σ_i | δ_i has the density ∝ σ^−n exp(−Q/(2σ²)) on (0, σ̄): KS test of 20 000 draws, with
    a bound that truncates three quarters of the untruncated mass."""
    n, rho, xbar, ss, upper = 4, 0.2, 0.5, 2.0, 1.0
    data = case_data(n, rho, xbar, ss, upper)
    delta = np.full((20000, 1), -0.3)
    sigma = draw_noise_scale(data, delta, np.random.default_rng(3))[:, 0]
    a, b = 1 - rho, 1 + (n - 1) * rho
    quadratic = ss / a + n * (xbar + 0.3) ** 2 / b
    assert sigma.max() <= upper

    def cdf(s):
        # P(σ ≤ s) = P(t ≥ Q/(2s²)) / P(t ≥ Q/(2σ̄²)), t ~ Gamma((n − 1)/2)
        h = (n - 1) / 2
        return special.gammaincc(h, quadratic / (2 * s**2)) / special.gammaincc(
            h, quadratic / (2 * upper**2)
        )

    assert 0.5 < 1 - special.gammaincc(1.5, quadratic / 2) < 0.9  # the bound truncates
    assert stats.kstest(sigma, cdf).pvalue > 0.001


def test_auto_coordinates_follow_the_results_and_the_valleys():
    """Scale mixture with 10 results or more, and with fewer where no data set's mean puts a
    deep valley between its two explanations; the deep data sets integrated by quadrature where
    one does."""
    rng = np.random.default_rng(3)
    spread = np.array([-1.5, -0.5, 0.5, 1.5]) * 0.01  # sd 0.013 per data set
    alike = 0.02 + 0.01 * rng.standard_normal((20, 1)) + spread  # no data set far out
    outlier = alike.copy()
    outlier[0] = 0.5 + spread / 10  # far out, known to about 0.001
    rope = Rope(-0.01, 0.01)
    few, far = CVData(alike), CVData(outlier)
    many = CVData(0.02 + 0.01 * rng.standard_normal((20, 1)) + np.linspace(-0.02, 0.02, 10))
    assert few_fold_valley(few, rope) < DEEP_NATS < few_fold_valley(far, rope)
    assert choose_coordinates("auto", few, rope) == "scale-mixture"
    assert choose_coordinates("auto", far, rope) == "quadrature"
    assert choose_coordinates("auto", many, rope) == "scale-mixture"
    assert choose_coordinates("scale-mixture", far, rope) == "scale-mixture"
    assert choose_coordinates("two-chart", few, rope) == "two-chart"
    assert choose_coordinates("quadrature", few, rope) == "quadrature"
    with pytest.raises(ValueError, match="'auto', 'scale-mixture', 'two-chart', 'quadrature'"):
        choose_coordinates("charts", few, rope)


def test_cauchy_location_is_calibrated_and_robust():
    """The centre and spread of δ₀'s coordinate (cauchy_location): over 100 simulated studies
    (x̄_i = 0.3 + 0.01·Cauchy + se_i·N(0, 1), q = 100, se_i log-uniform on [1e-3, 0.1]) the
    z-scores (centre − 0.3)/spread have mean 0 and sd 1 (Monte Carlo se about 0.1 and 0.07); a
    normal population with 5 % outliers 50 sds out keeps its centre, while sd(x̄)/√q is inflated
    (the spread is then an underestimate by about 0.6, harmless for a sampler's coordinate)."""
    rng = np.random.default_rng(0)
    z = []
    for _ in range(100):
        se = np.exp(rng.uniform(np.log(1e-3), np.log(0.1), 100))
        means = 0.3 + 0.01 * rng.standard_cauchy(100) + se * rng.standard_normal(100)
        centre, spread = cauchy_location(means, se)
        z.append((centre - 0.3) / spread)
    assert abs(np.mean(z)) < 0.35 and 0.8 < np.std(z) < 1.25
    means = rng.normal(0.0, 1.0, 100)
    means[:5] = 50.0
    centre, spread = cauchy_location(means, np.full(100, 0.1))
    # a Cauchy fitted to a normal bulk: scale about 0.6, so a spread about 0.6 of the centre's sd
    assert abs(centre) < 0.4 and 0.04 < spread < 0.2
    assert np.std(means) / 10 > 5 * spread


def test_two_chart_input_only_recentres_the_coordinate_of_delta0():
    """The two-chart input is the scale-mixture input with δ₀'s coordinate centred and scaled by
    cauchy_location; the initial δ₀ lies within half a spread of that centre."""
    rng = np.random.default_rng(3)
    scores = rng.normal(0.0, 0.01, (30, 4)) + rng.standard_cauchy((30, 1)) * 0.005
    cv = CVData(scores)
    rope = cv.rope(0.01)
    robust = build_two_chart_input(cv, rope, HierarchicalPrior(), np.random.default_rng(1))
    plain = build_model_input(cv, rope, HierarchicalPrior(), np.random.default_rng(1))
    changed = {k for k in plain.data if not np.array_equal(plain.data[k], robust.data[k])}
    assert changed == {"delta0_centre", "delta0_spread"}
    centre, spread = cauchy_location(robust.data["xbar"], robust.standard_errors)
    assert (robust.data["delta0_centre"], robust.data["delta0_spread"]) == (centre, spread)
    for init in two_chart_initial_values(robust, 4, np.random.default_rng(2)):
        delta0 = delta0_from_coordinate(init["delta0_raw"], robust.data)
        assert abs(delta0 - centre) < 0.5 * spread


#: Diagnostics of a fit that passes every check (for the fakes of the fit-again tests).
PASSED = {
    "max_treedepth_hits": 0,
    "min_ebfmi": 0.8,
    "chains": 4,
    "draws": 1000,
    "divergences": 0,
    "max_rhat": 1.004,
    "min_ess_bulk": 2000.0,
    "min_ess_tail": 1500.0,
}


def fake_fit(diagnostics):
    """What the fit-again functions read of a fit: its diagnostics and failed checks."""
    from types import SimpleNamespace

    return SimpleNamespace(diagnostics=diagnostics, problems=diagnostic_problems(diagnostics))


def test_a_failed_scale_mixture_fit_is_fitted_again_in_two_charts_and_never_back():
    passed = PASSED
    failed = {**passed, "min_ess_tail": 250.0}
    calls = []

    def fit(name):
        calls.append(name)
        return fake_fit(passed)

    chosen, fitted, record = fit_with_fallback(fit, "scale-mixture", fake_fit(failed))
    assert calls == ["two-chart"]
    assert chosen == "two-chart" and fitted.diagnostics["min_ess_tail"] == 1500.0
    assert record == {
        "fallback_from": {
            "coordinates": "scale-mixture",
            "problems": diagnostic_problems(failed),
        }
    }
    first = fake_fit(passed)
    assert fit_with_fallback(fit, "scale-mixture", first) == ("scale-mixture", first, {})
    assert calls == ["two-chart"]


#: Diagnostics of fits that mixed slowly and that diverged.
SLOW = {**PASSED, "min_ess_tail": 201.0}
DIVERGED = {**PASSED, "divergences": 2}


@pytest.mark.parametrize(
    ("outcomes", "may_refit", "may_extend", "calls", "kept", "records"),
    [
        ({"quadrature": PASSED}, True, True, ["quadrature 1000"], "quadrature", []),
        # slow mixing: more draws, never two charts
        ({"quadrature": SLOW}, True, True, ["quadrature 1000", "quadrature 4000"], "quadrature",
         ["extended_from"]),
        # divergences: two charts, then more draws there if they mix slowly
        ({"quadrature": DIVERGED, "two-chart": PASSED}, True, True,
         ["quadrature 1000", "two-chart 1000"], "two-chart", ["fallback_from"]),
        ({"scale-mixture": DIVERGED, "two-chart": SLOW}, True, True,
         ["scale-mixture 1000", "two-chart 1000", "two-chart 4000"], "two-chart",
         ["fallback_from", "extended_from"]),
        # draws given by the user: a slow fit falls back instead
        ({"quadrature": SLOW, "two-chart": PASSED}, True, False,
         ["quadrature 1000", "two-chart 1000"], "two-chart", ["fallback_from"]),
        # coordinates forced (no refit) or two charts already
        ({"quadrature": DIVERGED}, False, False, ["quadrature 1000"], "quadrature", []),
        ({"two-chart": DIVERGED}, True, True, ["two-chart 1000"], "two-chart", []),
    ],
)  # fmt: skip
def test_a_few_fold_fit_is_fitted_again_by_how_it_failed(
    outcomes, may_refit, may_extend, calls, kept, records
):
    made = []

    def fit(name, draws):
        made.append(f"{name} {draws}")
        diagnostics = outcomes[name] if draws == 1000 else {**PASSED, "draws": draws}
        return fake_fit(diagnostics)

    first = next(iter(outcomes))
    chosen, _, record = fit_and_refit(fit, first, 1000, may_refit, may_extend)
    assert made == calls and chosen == kept and list(record) == records


def test_a_fit_that_mixed_slowly_at_few_folds_is_extended():
    from bayes_hier.hierarchical.fit import EXTENSION_FACTORS, extend_slow_fit, mixes_slowly

    passed = PASSED
    slow_tail = {**passed, "min_ess_tail": 77.0}
    slow_rhat = {**passed, "max_rhat": 1.037, "min_ess_bulk": 151.0}
    divergent = {**passed, "divergences": 1}
    disagreeing = {**passed, "max_rhat": 1.286}
    no_ess = {**passed, "min_ess_tail": float("nan")}
    assert [mixes_slowly(d) for d in (passed, slow_tail, slow_rhat)] == [False, True, True]
    assert [mixes_slowly(d) for d in (divergent, disagreeing, no_ess)] == [False] * 3

    calls = []

    def fit(draws):
        calls.append(draws)
        return fake_fit({**passed, "draws": draws})

    kept, record = extend_slow_fit(fit, fake_fit(slow_tail), 1000, may_extend=True)
    assert calls == [EXTENSION_FACTORS[0] * 1000] and kept.diagnostics["draws"] == 4000
    assert record == {"extended_from": {"draws": 1000, "problems": diagnostic_problems(slow_tail)}}
    assert any("tail ESS is 77" in p for p in record["extended_from"]["problems"])
    # not extended: draws given by the user (may_extend False), a passed fit, a divergent one
    for first, may in ((slow_tail, False), (passed, True), (divergent, True), (disagreeing, True)):
        kept, record = extend_slow_fit(fit, fake_fit(first), 1000, may_extend=may)
        assert kept.diagnostics is first and record == {}
    assert calls == [4000]


@pytest.mark.parametrize(
    "slow_until",
    [
        4000,  # the 4x fit mixed slowly too: 8x, which is kept
        8000,  # the 8x fit too: kept all the same (reads not converged)
    ],
)
def test_a_fit_still_slow_at_four_times_the_draws_is_extended_again(slow_until):
    from bayes_hier.hierarchical.fit import extend_slow_fit, mixes_slowly
    from bayes_hier.hierarchical.result import refit_lines

    def diagnostics(draws):
        if draws <= slow_until:
            return {**PASSED, "draws": draws, "max_rhat": 1.034, "min_ess_bulk": 390.0}
        return {**PASSED, "draws": draws}

    made = []

    def fit(draws):
        made.append(draws)
        return fake_fit(diagnostics(draws))

    kept, record = extend_slow_fit(fit, fake_fit(diagnostics(1000)), 1000, may_extend=True)
    assert made == [4000, 8000] and kept.diagnostics["draws"] == 8000
    assert mixes_slowly(kept.diagnostics) == (slow_until == 8000)
    extended = record["extended_from"]
    assert extended["draws"] == 1000
    assert [fit["draws"] for fit in extended["slow_extensions"]] == [4000]
    assert extended["slow_extensions"][0]["problems"] == diagnostic_problems(diagnostics(4000))
    (line,) = refit_lines({"draws": kept.diagnostics["draws"], **record})
    assert line.startswith("Fitted again with 8000 draws per chain: the fit with 1000 mixed ")
    assert ", then the fit with 4000 mixed slowly (max R-hat is 1.034 > 1.01" in line


def test_the_summary_says_when_a_fit_replaced_a_first_one():
    from bayes_hier.hierarchical.result import refit_lines

    assert refit_lines({"coordinates": "scale-mixture", "draws": 1000}) == []
    settings = {
        "coordinates": "two-chart",
        "draws": 4000,
        "fallback_from": {"coordinates": "scale-mixture", "problems": ["min tail ESS is 292"]},
        "extended_from": {"draws": 1000, "problems": ["max R-hat is 1.037 > 1.01"]},
    }
    assert refit_lines(settings) == [
        "Fitted again in two-chart coordinates: the scale-mixture fit failed its checks "
        "(min tail ESS is 292)",
        "Fitted again with 4000 draws per chain: the fit with 1000 mixed slowly "
        "(max R-hat is 1.037 > 1.01)",
    ]


def test_an_extension_that_diverged_is_not_extended_again():
    from bayes_hier.hierarchical.fit import extend_slow_fit

    made = []

    def fit(draws):
        made.append(draws)
        return fake_fit({**PASSED, "draws": draws, "divergences": 3})

    kept, record = extend_slow_fit(fit, fake_fit(SLOW), 1000, may_extend=True)
    assert made == [4000] and kept.diagnostics["divergences"] == 3
    assert "slow_extensions" not in record["extended_from"]

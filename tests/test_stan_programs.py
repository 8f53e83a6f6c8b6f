"""The Stan programs: includes, the closed form against the literal matrix form."""

import numpy as np
import pytest

from bayes_hier import CVData
from bayes_hier.hierarchical.delta0_coordinate import (
    coordinate_from_delta0,
    delta0_from_coordinate,
    delta0_log_jacobian,
)
from bayes_hier.hierarchical.likelihood import equicorrelated_log_likelihood
from bayes_hier.hierarchical.model_input import (
    HierarchicalPrior,
    build_model_input,
    initial_values,
)
from bayes_hier.rope import Rope
from bayes_hier.stan_programs import load_program, stan_directory

from .reference_priors import randomise_mixing, scale_mixture_log_prior


def test_programs_resolve_their_includes():
    for name in ("hierarchical", "hierarchical_matrix"):
        code = load_program(name).code
        assert "#include" not in code
        assert "real delta0_raw;" in code  # delta0 is a transformed parameter of it
        assert "real delta0 = delta0_bound * (2 * inv_logit(" in code
    closed = load_program("hierarchical").code
    assert "SS_i / a_i + n_i (xbar_i - delta_i)^2 / b_i" in closed  # the formula is stated
    assert "sigma_i^2 b_i + n_i v_i" in closed  # and the marginal over delta_i
    assert "multi_normal" in load_program("hierarchical_matrix").code


def test_unknown_program_lists_the_available_ones():
    with pytest.raises(ValueError, match="available"):
        load_program("nope")


def test_compiler_options_are_read_from_the_program_and_checked():
    from bayes_hier.stan_programs import StanProgram

    code = "parameters { real y; } model { y ~ normal(0, 1); }\n"
    assert StanProgram("p", code).stanc_options == ()
    assert StanProgram("p", code + "// stanc options: --O1\n").stanc_options == ("--O1",)
    assert StanProgram("p", code + "  // stanc options: --O0 --O1\n").stanc_options == (
        "--O0",
        "--O1",
    )
    assert StanProgram("p", code + "// stanc options --O1\n").stanc_options == ()
    with pytest.raises(ValueError, match=r"'--O2'.*supported are \['--O0', '--O1'\]"):
        StanProgram("p", code + "// stanc options: --O1 --O2\n")
    assert load_program("joint_fold").stanc_options == ("--O1",)
    assert load_program("hierarchical").stanc_options == ()


def test_stan_directory_is_the_repository_copy_in_a_checkout():
    assert (stan_directory() / "hierarchical.stan").is_file()


DELTA0_DATA = {"delta0_bound": 2.5, "delta0_centre": 0.4, "delta0_spread": 0.05}


def test_delta0_coordinate_is_centred_and_scaled_by_the_data():
    """z = 0 is δ₀ = the centre, dδ₀/dz there is the spread, and the map inverts."""
    data = DELTA0_DATA
    assert delta0_from_coordinate(0.0, data) == pytest.approx(0.4, rel=1e-12)
    slope = (delta0_from_coordinate(1e-6, data) - delta0_from_coordinate(-1e-6, data)) / 2e-6
    assert slope == pytest.approx(0.05, rel=1e-8)
    z = np.array([-300.0, -3.0, 0.5, 40.0])
    np.testing.assert_allclose(coordinate_from_delta0(delta0_from_coordinate(z, data), data), z)
    assert np.all(np.abs(delta0_from_coordinate(z, data)) < 2.5)


def test_delta0_jacobian_turns_the_uniform_prior_into_a_density_of_the_coordinate():
    """∫ U(δ₀(z); −D, D) |dδ₀/dz| dz = 1, with |dδ₀/dz| = 2Ds exp(log Jacobian)."""
    from scipy import integrate

    data = DELTA0_DATA
    p = (0.4 + 2.5) / 5.0
    constant = np.log(2 * 2.5 * 0.05 / (2 * 2.5 * p * (1 - p)))  # log(2 D s)
    total, _ = integrate.quad(
        lambda z: np.exp(delta0_log_jacobian(z, data) + constant) / 5.0, -np.inf, np.inf
    )
    assert total == pytest.approx(1.0, abs=1e-9)
    outside = {**data, "delta0_centre": 3.0}  # a centre beyond the bound is moved inside
    assert delta0_from_coordinate(0.0, outside) == pytest.approx(2.5 * (2 * 0.999 - 1))


def _ragged_input(nu_prior: str, seed: int = 0):
    rng = np.random.default_rng(seed)
    sizes = (10, 20, 30, 50)
    x = [rng.uniform(0.7, 0.9, n) for n in sizes]
    y = [v + rng.normal(0.01 * i, 0.02, v.size) for i, v in enumerate(x)]
    cv = CVData.from_arrays(x, y, runs=[1, 2, 3, 5], rho=[0.1, 0.2, 0.1, 0.15])
    return build_model_input(cv, Rope(-0.01, 0.01), HierarchicalPrior(nu_prior=nu_prior), rng)


def _random_points(model_input, count: int = 5) -> list[dict]:
    """Parameter points well away from the data-based initial values."""
    rng = np.random.default_rng(42)
    points = initial_values(model_input, count, rng)
    for point in points:
        point["sigma"] = point["sigma"] * rng.uniform(0.3, 3.0, point["sigma"].size)
        point["sigma0"] = point["sigma0"] * float(rng.uniform(0.2, 5.0))
        point["delta0_raw"] = float(coordinate_from_delta0(rng.uniform(-1, 1), model_input.data))
        randomise_mixing(point, rng)
    return points


def _reference_log_density(model_input, point: dict) -> float:
    """The log density the Stan programs state, from NumPy and scipy.stats.

    Marginal likelihood of every data set (δ_i integrated out, common variance σ₀²/τ_i) plus
    the densities of the standardised logs of ν − 1 and τ_i (Gamma density times the Jacobian
    g · sd[log g]) and the Jacobian of δ₀'s standardised logit coordinate (up to its constant);
    the uniform priors of the declared parameters add nothing (no Jacobian, as the engines
    report it).
    """
    data = model_input.data
    delta0 = delta0_from_coordinate(point["delta0_raw"], data)
    log_prior, inverse_tau = scale_mixture_log_prior(data, point)
    log_prior += float(delta0_log_jacobian(point["delta0_raw"], data))
    population_variance = point["sigma0"] ** 2 * inverse_tau
    log_lik = equicorrelated_log_likelihood(
        data["n"],
        data["xbar"],
        data["ss"],
        data["rho"],
        delta0,
        point["sigma"],
        common_variance=population_variance,
    )
    return float(np.sum(log_lik) + log_prior)


NU_PRIORS = ["hierarchical", "juarez-steel", "gaussian"]


def _closed_form_at_random_points(engine, nu_prior: str):
    """(model input, points, log densities of hierarchical.stan at the points)."""
    model_input = _ragged_input(nu_prior)
    points = _random_points(model_input)
    closed = engine.log_density(load_program("hierarchical"), model_input.data, points)
    assert np.ptp(closed) > 1.0  # the points really differ
    return model_input, points, np.asarray(closed)


@pytest.mark.stan
@pytest.mark.parametrize("nu_prior", NU_PRIORS)
def test_closed_form_program_states_the_reference_log_density(matrix_engine, nu_prior):
    """Stan's log density equals the NumPy/scipy statement of the model, constant included."""
    model_input, points, closed = _closed_form_at_random_points(matrix_engine, nu_prior)
    reference = [_reference_log_density(model_input, point) for point in points]
    np.testing.assert_allclose(closed, reference, rtol=1e-10)


@pytest.mark.stan
@pytest.mark.parametrize("nu_prior", NU_PRIORS)
def test_closed_form_and_matrix_programs_have_the_same_log_density(matrix_engine, nu_prior):
    """At random parameter points the two programs differ by the same constant (user guide,
    Model and conventions §3.1)."""
    model_input, points, closed = _closed_form_at_random_points(matrix_engine, nu_prior)
    matrix = matrix_engine.log_density(
        load_program("hierarchical_matrix"), model_input.matrix_data(), points
    )
    gaps = closed - np.asarray(matrix)
    np.testing.assert_allclose(gaps, gaps[0], atol=1e-8 * np.abs(closed).max())


def test_the_compile_announcement_says_how_long_each_program_takes():
    from bayes_hier.stan_programs import COMPILE_DURATIONS

    assert load_program("joint_fold").compile_duration == "2 to 5 minutes"
    assert load_program("joint").compile_duration == "about 2 minutes"
    assert load_program("hierarchical").compile_duration == "about a minute"
    assert set(COMPILE_DURATIONS) <= {p.stem for p in stan_directory().glob("*.stan")}

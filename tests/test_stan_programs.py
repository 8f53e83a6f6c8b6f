"""The Stan programs: includes, the closed form against the literal matrix form."""

import numpy as np
import pytest

from bayes_hier import CVData
from bayes_hier.hierarchical.model_input import (
    HierarchicalPrior,
    build_model_input,
    initial_values,
)
from bayes_hier.rope import Rope
from bayes_hier.stan_programs import load_program, stan_directory


def test_programs_resolve_their_includes():
    for name in ("hierarchical", "hierarchical_matrix"):
        code = load_program(name).code
        assert "#include" not in code
        assert "real<lower=-delta0_bound, upper=delta0_bound> delta0;" in code
    closed = load_program("hierarchical").code
    assert "SS_i / a_i + n_i (xbar_i - delta_i)^2 / b_i" in closed  # the formula is stated
    assert "multi_normal" in load_program("hierarchical_matrix").code


def test_unknown_program_lists_the_available_ones():
    with pytest.raises(ValueError, match="available"):
        load_program("nope")


def test_stan_directory_is_the_repository_copy_in_a_checkout():
    assert (stan_directory() / "hierarchical.stan").is_file()


def _ragged_input(nu_prior: str, parametrization: str, seed: int = 0):
    rng = np.random.default_rng(seed)
    sizes = (10, 20, 30, 50)
    x = [rng.uniform(0.7, 0.9, n) for n in sizes]
    y = [v + rng.normal(0.01 * i, 0.02, v.size) for i, v in enumerate(x)]
    cv = CVData.from_arrays(x, y, runs=[1, 2, 3, 5], rho=[0.1, 0.2, 0.1, 0.15])
    return build_model_input(
        cv, Rope(-0.01, 0.01), HierarchicalPrior(nu_prior=nu_prior), parametrization, rng
    )


@pytest.mark.stan
@pytest.mark.parametrize(
    ("nu_prior", "parametrization"),
    [("hierarchical", "centered"), ("juarez-steel", "noncentered"), ("gaussian", "auto")],
)
def test_closed_form_and_matrix_programs_have_the_same_log_density(
    matrix_engine, nu_prior, parametrization
):
    """At random parameter points the two programs differ by the same constant (SPEC §3.1)."""
    model_input = _ragged_input(nu_prior, parametrization)
    rng = np.random.default_rng(42)
    points = initial_values(model_input, 5, rng)
    for point in points:  # move well away from the data-based values
        point["sigma"] = point["sigma"] * rng.uniform(0.3, 3.0, point["sigma"].size)
        point["delta_raw"] = point["delta_raw"] + rng.normal(0, 0.5, point["delta_raw"].size)
        point["delta0"] = float(rng.uniform(-1, 1))
    closed = matrix_engine.log_density(load_program("hierarchical"), model_input.data, points)
    matrix = matrix_engine.log_density(
        load_program("hierarchical_matrix"), model_input.matrix_data(), points
    )
    gaps = np.array(closed) - np.array(matrix)
    assert np.ptp(closed) > 1.0  # the points really differ
    np.testing.assert_allclose(gaps, gaps[0], atol=1e-8 * np.abs(closed).max())

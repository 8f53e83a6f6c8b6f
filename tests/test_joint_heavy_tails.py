"""The hint of a failed joint fit whose population's ν sits at its lower bound 1."""

import numpy as np

from bayes_hier.joint.heavy_tails import NAMED_DATASETS, NU_AT_BOUND, heavy_tail_hint


def test_the_hint_names_the_data_sets_with_the_smallest_mixing_precisions():
    rng = np.random.default_rng(0)
    chains, draws, names = 4, 250, [f"d{i:03d}" for i in range(12)]
    # τ_i around 1, except three data sets far from the population (small τ_i), in this order
    tau = rng.gamma(50.0, 1 / 50.0, (chains, draws, len(names)))
    tau[..., 7] *= 0.01
    tau[..., 2] *= 0.03
    tau[..., 10] *= 0.05
    tau[..., 5] *= 0.2  # the fourth farthest: not named
    nu = 1 + rng.exponential(0.01, (chains, draws))
    hint = heavy_tail_hint(nu, tau, names)
    assert hint is not None
    assert f"posterior median {np.median(nu):.3f}" in hint
    assert NAMED_DATASETS == 3
    assert "most of all d007, d002, d010." in hint
    assert "d005" not in hint
    assert "pairwise" in hint


def test_no_hint_when_nu_is_not_at_its_bound():
    tau = np.ones((2, 10, 3))
    names = ["a", "b", "c"]
    assert heavy_tail_hint(np.full((2, 10), 4.0), tau, names) is None
    assert heavy_tail_hint(np.full((2, 10), NU_AT_BOUND), tau, names) is None
    assert heavy_tail_hint(np.full((2, 10), NU_AT_BOUND - 0.01), tau, names) is not None

"""The valley between the two explanations of a data set's mean (hierarchical.mode_valley)."""

from __future__ import annotations

import numpy as np
import pytest

from bayes_hier.hierarchical.mode_valley import deepest_valley, valley_depth


def brute_force_depth(distance, se, n, scale, nu, points=400_001):
    """The valley's depth from log f_i on a dense grid: the lower of the outermost local maxima
    minus the lowest point between them (0 with one maximum)."""
    pad = 5 * (se + scale)
    delta = np.linspace(min(0.0, distance) - pad, max(0.0, distance) + pad, points)
    log_f = -(n - 1) / 2 * np.log1p((delta - distance) ** 2 / ((n - 1) * se**2)) - (
        nu + 1
    ) / 2 * np.log1p(delta**2 / (nu * scale**2))
    peaks = np.flatnonzero((log_f[1:-1] > log_f[:-2]) & (log_f[1:-1] >= log_f[2:])) + 1
    if peaks.size < 2:
        return 0.0
    first, last = peaks[0], peaks[-1]
    return min(log_f[first], log_f[last]) - log_f[first : last + 1].min()


def test_the_depth_from_the_cubic_equals_a_dense_grid():
    rng = np.random.default_rng(0)
    cases = [
        (
            rng.choice([-1.0, 1.0]) * 10 ** rng.uniform(-1, 2),
            10 ** rng.uniform(-2, 0.5),
            int(rng.integers(2, 12)),
            10 ** rng.uniform(-2, 0.5),
            10 ** rng.uniform(0, 2),
        )
        for _ in range(60)
    ]
    exact = valley_depth(*(np.array(column) for column in zip(*cases)))
    brute = np.array([brute_force_depth(*case) for case in cases])
    assert (brute > 0).sum() >= 15  # bimodal and unimodal cases both covered
    assert (brute == 0).sum() >= 15
    assert np.abs(exact - brute).max() < 1e-3  # the grid's resolution


def test_depth_is_zero_for_one_mode_and_grows_with_the_distance():
    assert valley_depth(0.0, 0.1, 4, 0.1, 2.0) == 0.0
    assert valley_depth(0.2, 0.1, 4, 0.1, 2.0) == 0.0  # two standard errors apart: one mode
    far = valley_depth([10.0, 100.0, -100.0], 0.1, 4, 0.1, 2.0)
    assert 0 < far[0] < far[1] == pytest.approx(far[2])  # symmetric in the sign of D
    # more folds: the noise explanation costs more, so the mode near delta0 weakens and goes
    assert valley_depth(100.0, 0.1, 12, 0.1, 2.0) < far[1]


def test_deepest_valley_finds_the_far_precise_data_set():
    rng = np.random.default_rng(1)
    means = 0.01 * rng.standard_normal(30)
    se = np.full(30, 0.01)
    n = np.full(30, 4)
    depth, index = deepest_valley(means, se, n)
    assert depth < 6
    means[17], se[17] = 0.5, 0.0005
    depth, index = deepest_valley(means, se, n)
    assert index == 17 and depth > 10
    assert deepest_valley(means, np.zeros(30), n) == (0.0, -1)  # no spread at all: nothing to say

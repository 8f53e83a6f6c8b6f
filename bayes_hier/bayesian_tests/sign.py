"""The Bayesian sign test (Benavoli et al., ICML 2014; conventions §2)."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from ..issued import records_warnings
from ..rope import Rope, RopeLike
from ..seeding import SeedLike
from ._inputs import check_nsamples, check_prior, sample_test_inputs
from .result import SimplexResult

#: Where the prior pseudo-observation of weight ``prior`` goes.
PRIOR_PLACES = {"left": 0, "rope": 1, "right": 2}
#: Added to every Dirichlet parameter for numerical safety (as baycomp does).
EPSILON = 1e-4


def _prior_place(place: str | int) -> int:
    if isinstance(place, str):
        try:
            return PRIOR_PLACES[place.lower()]
        except KeyError:
            raise ValueError(
                f"prior_place must be 'left', 'rope' or 'right'; got {place!r}."
            ) from None
    if isinstance(place, numbers.Integral) and not isinstance(place, (bool, np.bool_)):
        if place in (0, 1, 2):
            return int(place)
    raise ValueError(f"prior_place must be 'left', 'rope' or 'right' (or 0, 1, 2); got {place!r}.")


def sign_counts(differences: np.ndarray, rope: Rope) -> tuple[int, int, int]:
    """Numbers of data sets with z < low, low <= z <= high (edges: rope), z > high."""
    z = np.asarray(differences, float)
    n_left = int(np.sum(z < rope.low))
    n_right = int(np.sum(z > rope.high))
    return n_left, z.size - n_left - n_right, n_right


def sign_dirichlet_alpha(
    differences: np.ndarray, rope: Rope, prior: float = 1.0, prior_place: str | int = "rope"
) -> np.ndarray:
    """Parameters of the Dirichlet posterior of (θ_left, θ_rope, θ_right):
    the counts + ``prior`` on one region + ``EPSILON``."""
    alpha = np.asarray(sign_counts(differences, rope), dtype=float) + EPSILON
    alpha[_prior_place(prior_place)] += check_prior(prior)
    return alpha


def sample_sign(
    differences: np.ndarray,
    rope: Rope,
    prior: float = 1.0,
    prior_place: str | int = "rope",
    nsamples: int = 50_000,
    seed: int = 0,
) -> np.ndarray:
    """Posterior sample (nsamples x 3) of the sign test, from ``numpy.random.default_rng(seed)``."""
    alpha = sign_dirichlet_alpha(differences, rope, prior, prior_place)
    return np.random.default_rng(seed).dirichlet(alpha, check_nsamples(nsamples))


@records_warnings
def sign_test(
    x: Any,
    y: Any = None,
    rope: RopeLike = 0.01,
    *,
    prior: float = 1.0,
    prior_place: str | int = "rope",
    nsamples: int = 50_000,
    seed: SeedLike = None,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    higher_is_better: bool = True,
) -> SimplexResult:
    """Bayesian sign test of two models on several data sets.

    The per-data-set differences ``z = y - x`` are counted left of, inside (edges included) and
    right of the rope; the posterior of (θ_left, θ_rope, θ_right) is
    Dirichlet(n_left, n_rope, n_right) + ``prior`` on one region + 1e-4 (conventions §2). The
    probabilities are the shares of samples in which each coordinate is the largest.

    Parameters
    ----------
    x, y
        1-D arrays: one (mean) score per data set. 2-D arrays (data sets x folds), lists of 1-D
        arrays, a tidy data frame (as ``x`` alone; see ``models`` and ``columns``) or a
        :class:`~bayes_hier.data.CVData`: fold scores, averaged per data set.
    rope
        ``r`` for ``[-r, r]`` or ``(low, high)``, in the units of the scores.
    prior
        Strength ``s`` of the prior pseudo-observation (default 1).
    prior_place
        Region that receives it: ``"rope"`` (default), ``"left"`` or ``"right"``.
    nsamples
        Number of posterior samples.
    seed
        A non-negative integer, a :class:`numpy.random.Generator` or
        :class:`numpy.random.SeedSequence`, or ``None`` (a fresh seed, recorded in
        ``result.settings["seed"]``); see :mod:`bayes_hier.seeding`. The same seed gives a
        bit-identical sample.
    names, models, columns, higher_is_better
        As for :func:`~bayes_hier.hierarchical_test`.
    """
    data, parsed, prior, nsamples, seed = sample_test_inputs(locals())
    place = _prior_place(prior_place)
    z = data.differences

    # the sample at another rope (a partial of a module function: the result can be pickled)
    resample = partial(sample_sign, z, prior=prior, prior_place=place, nsamples=nsamples, seed=seed)

    return SimplexResult.of_differences(
        "Bayesian sign test",
        data,
        parsed,
        resample,
        {
            "prior": prior,
            "prior_place": ("left", "rope", "right")[place],
            "nsamples": nsamples,
            "seed": seed,
            "counts": sign_counts(z, parsed),
            "alpha": tuple(sign_dirichlet_alpha(z, parsed, prior, place)),
        },
    )

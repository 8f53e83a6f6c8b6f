"""One seeding scheme for every Stan model: named random streams split from one seed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..seeding import SEED_BOUND, SeedLike, resolve_seed


@dataclass(frozen=True)
class SeedStreams:
    """Independent random streams derived from one seed (``numpy.random.SeedSequence.spawn``).

    Child ``j`` of ``SeedSequence(seed).spawn(n)`` does not depend on ``n``, so a stream keeps its
    numbers when streams are added after it.

    Attributes
    ----------
    seed
        The seed the user gave, or the one drawn when none was given (recorded in the result).
    perturbation
        Perturbs the data where a model needs it (the spread given to constant differences).
    inits
        Draws the initial values of the chains.
    stan
        Stan's seed, in ``[0, 2**31)``.
    posterior
        Completes the posterior after sampling (draws of quantities the program integrates out).
    predictive
        Seed of the result's posterior-predictive simulations (probabilities of a new data set).
    """

    seed: int
    perturbation: np.random.Generator
    inits: np.random.Generator
    stan: int
    posterior: np.random.Generator
    predictive: int


def seed_streams(seed: SeedLike) -> SeedStreams:
    """Split one seed into the streams of a fit; the same seed gives the same numbers.

    ``seed`` follows the package's policy (:func:`~bayes_hier.seeding.resolve_seed`): ``None``,
    a non-negative int, a :class:`numpy.random.Generator` or a
    :class:`numpy.random.SeedSequence`; anything else raises a TypeError naming ``seed``.
    """
    resolved = resolve_seed(seed, "seed")
    perturbation, inits, stan, posterior, predictive = np.random.SeedSequence(resolved).spawn(5)
    return SeedStreams(
        seed=resolved,
        perturbation=np.random.default_rng(perturbation),
        inits=np.random.default_rng(inits),
        stan=int(stan.generate_state(1)[0] % SEED_BOUND),
        posterior=np.random.default_rng(posterior),
        predictive=int(predictive.generate_state(1)[0] % SEED_BOUND),
    )


__all__ = ["SeedStreams", "seed_streams"]

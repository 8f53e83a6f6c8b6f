"""A joint fit that failed while its population's ν sits at its lower bound: the cause, named.

The joint model's population of the true contrasts is a multivariate Student-t, the scale
mixture θ_i | τ_i ~ N(θ₀, Σ₀/τ_i), τ_i ~ Gamma(ν/2, ν/2), with ν > 1. One mixing precision τ_i
per data set widens every direction of θ_i at once, so a data set where one model lies far from
the others (typically a run that failed and scored near chance) is fitted by a small τ_i; many
such data sets drive ν to its lower bound 1 (a Cauchy population), where the sampler needs
small steps and mixes poorly. On a simulated 16 x 132 x 4 study with 30 failed runs the
posterior mean of ν was 1.007 and the fit did not converge (36 divergent transitions, R-hat
1.13), with every one of its 40 largest R-hats in one data set, where one model failed. A
longer warm-up or a larger ``adapt_delta`` does not remove this; the pairwise fits, each with
its own population, converged on 114 of that study's 120 pairs (measured earlier).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Posterior median of ν below which the population counts as at its lower bound 1.
NU_AT_BOUND = 1.2
#: How many of the most outlying data sets the hint names.
NAMED_DATASETS = 3


def heavy_tail_hint(nu: np.ndarray, tau: np.ndarray, datasets: Sequence[str]) -> str | None:
    """The sentence for a failed fit whose ν sits at its lower bound, else ``None``.

    Parameters
    ----------
    nu
        Draws of ν (any shape).
    tau
        Draws of the mixing precisions τ_i, data sets on the last axis.
    datasets
        The data sets' names, in the order of ``tau``'s last axis.

    Returns
    -------
    str or None
        When the posterior median of ν is below :data:`NU_AT_BOUND`: the cause and the fix,
        naming the :data:`NAMED_DATASETS` data sets with the smallest posterior median τ_i (the
        farthest from the population).
    """
    median_nu = float(np.median(nu))
    if not median_nu < NU_AT_BOUND:
        return None
    median_tau = np.median(np.reshape(tau, (-1, np.shape(tau)[-1])), axis=0)
    farthest = [str(datasets[i]) for i in np.argsort(median_tau, kind="stable")[:NAMED_DATASETS]]
    return (
        f"The population's degrees of freedom nu sit at their lower bound 1 (posterior median "
        f"{median_nu:.3f}): some data sets lie far from the others, most of all "
        f"{', '.join(farthest)}. A data set where one model is far from the others (e.g. a run "
        "that failed and scored near chance) widens every model's direction there, and many "
        "such data sets make the population too heavy-tailed to sample; more warm-up or a "
        "larger adapt_delta does not fix this. Compare these models pairwise (compare's "
        "default method, one fit per pair)."
    )


__all__ = ["NAMED_DATASETS", "NU_AT_BOUND", "heavy_tail_hint"]

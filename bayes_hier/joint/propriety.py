"""How many data sets the joint model needs for a proper posterior.

The joint model's population covariance has the improper prior p(Σ₀) ∝ det(Σ₀)^(-1/2) on the
d = k − 1 dimensional contrasts, and the population mean θ₀ is flat. Where Σ₀ is large against
the data sets' noise, the q contrast means ȳ_i look like draws from N(θ₀, Σ₀); integrating θ₀
out leaves the likelihood det(Σ₀)^(-(q-1)/2) exp(−tr(Σ₀⁻¹ S)/2), with S the scatter of the ȳ_i about
their mean. Times the prior, the posterior of Σ₀ behaves like the inverse-Wishart kernel::

    det(Σ₀)^(-(m + d + 1)/2) exp(−tr(Σ₀⁻¹ S)/2),    m + d + 1 = q,

which has a finite integral over the positive definite matrices only when m > d − 1 and S has
full rank, that is when q ≥ 2d + 1 = 2k − 1. With fewer data sets the posterior is improper:
the chains wander off in Σ₀ and any probability computed from them is meaningless (measured:
k = 4 models on q = 5 or 6 simulated data sets gave R-hat 1.6-1.9). The Student-t population
does not help: making Σ₀/τ_i large with a large mixing precision τ_i costs only the Gamma
prior's exponential tail. At k = 2 the condition is q ≥ 3. A data set where some models were
not run counts as one here, although it says less about Σ₀: with many missing blocks, more data
sets are needed.
"""

from __future__ import annotations


def minimum_datasets(k: int) -> int:
    """The smallest number of data sets with a proper joint posterior for ``k`` models: 2k − 1."""
    return 2 * k - 1


def check_enough_datasets(q: int, k: int) -> None:
    """Raise a ValueError when ``q`` data sets are too few for ``k`` models (see module text).

    :func:`~bayes_hier.joint.fit.joint_test` calls it; the Stan data builder does not, since the
    calibration prior (proper, for simulation-based calibration) makes every ``q`` valid.
    """
    if q >= minimum_datasets(k):
        return
    raise ValueError(
        f"The joint model of {k} models needs at least {minimum_datasets(k)} data sets (2k - 1) "
        f"to have a proper posterior; got {q}. With fewer, the flat prior of the population "
        "covariance of the models' differences leaves it unbounded. Compare fewer models at "
        "once, add data sets, or use the pairwise methods (compare(..., method='hierarchical'))."
    )

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

**A model run on few data sets.** The same argument, one model at a time. Take contrasts whose
last coordinate is the model's effect against the others, and write Σ₀ by its Bartlett
decomposition: the other coordinates' block A, the regression coefficients β (d − 1 of them) of
the last coordinate on the others, and the residual variance v, with dΣ₀ = det(A) dA dβ dv and
det(Σ₀) = det(A) v. Only the q_m data sets on which the model was run inform β, v and the last
coordinate of θ₀, a regression with d − 1 slopes and a flat intercept. Integrating the slopes
and the intercept out leaves v^(−(q_m − d)/2) exp(−RSS/(2v)); times the prior's v^(−1/2) the
tail in v is v^(−(q_m − d + 1)/2), which has a finite integral only when q_m ≥ d + 2 = k + 1.
A model run on k data sets or fewer leaves the posterior improper whatever the other models'
data (measured, 3 models on 8 data sets with 10 folds, the third model run on 3, 4 or 5 of them:
max R-hat 1.78 with 32 divergences, 1.010 with bulk ESS 396, 1.004 with bulk ESS 877). At k + 1
data sets the posterior is proper but heavy-tailed: the fit's own diagnostics decide whether its
numbers can be used.
"""

from __future__ import annotations

from collections.abc import Sequence


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


def minimum_datasets_per_model(k: int) -> int:
    """The fewest data sets on which each of ``k`` models must be run for a proper joint
    posterior: k + 1 (see the module text)."""
    return k + 1


def check_models_seen_enough(counts: Sequence[int], models: Sequence[str]) -> None:
    """Raise a ValueError naming the models run on fewer than k + 1 data sets (see the module
    text); ``counts[m]`` is the number of data sets on which ``models[m]`` was run.

    :func:`~bayes_hier.joint.fit.joint_test` calls it; the calibration prior (proper) needs no
    such minimum.
    """
    k = len(models)
    least = minimum_datasets_per_model(k)
    rare = [(model, int(count)) for model, count in zip(models, counts) if count < least]
    if not rare:
        return
    named = ", ".join(f"{model!r} ({count})" for model, count in rare)
    rare_names = {model for model, _ in rare}
    kept = [model for model in models if model not in rare_names]
    them = "it" if len(rare) == 1 else "them"
    fix = (
        f"Leave {them} out (models={kept!r}) and compare {them} pairwise on the data sets where "
        f"{'it was' if len(rare) == 1 else 'they were'} run (compare(..., method='hierarchical')), "
        "or add data sets"
        if len(kept) >= 2
        else "Compare the models pairwise (compare(..., method='hierarchical')), or add data sets"
    )
    raise ValueError(
        f"The joint model of {k} models needs every model run on at least {least} data sets "
        f"(k + 1) for a proper posterior; run on fewer (how many): {named}. With fewer, the "
        f"population spread of such a model's differences is unbounded and the chains drift. "
        f"{fix}."
    )

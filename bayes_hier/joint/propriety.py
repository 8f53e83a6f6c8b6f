"""How many data sets the joint model needs, and how many each model must be run on.

**Why any number of data sets gives a proper posterior.** The population covariance Σ₀ of the
contrasts has a proper prior (LKJ on its correlation and half-normal standard deviations in the
data-based basis A₀, :class:`~.model_input.JointPrior`), the mixing precisions and ν have
proper priors, and the flat θ₀ is pinned by the data sets' mean contrasts as soon as every
model is linked to the others through some data set (:func:`~.model_input.check_design`). With
the improper prior p(Σ₀) ∝ det(Σ₀)^(−1/2) that the model used before, integrating θ₀ out left
det(Σ₀)^(−(q−1)/2) exp(−tr(Σ₀⁻¹S)/2) times the prior, an inverse-Wishart kernel with a finite
integral only for q ≥ 2k − 1 data sets, and a model run on q_m data sets left the tail
v^(−(q_m − k + 1)/2) in its residual variance v, integrable only for q_m ≥ k + 1; the half-normal
prior's exp(−v/(2c²)) now bounds both tails.

**What stays refused.** Two data sets at least: one data set cannot tell the population's spread
from that data set's own deviation, and A₀, the unit of Σ₀'s prior, is the spread of the data
sets' mean contrasts. Each model run on at least two data sets: the answer for a new data set
depends on how much the model's advantage varies across data sets, which a single data set does
not inform; that answer would be the prior's.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The fewest data sets the joint model accepts, and the fewest on which each model must be run.
MINIMUM_DATASETS = 2


def check_enough_datasets(q: int) -> None:
    """Raise a ValueError when ``q`` data sets are fewer than :data:`MINIMUM_DATASETS` (module
    text). :func:`~bayes_hier.joint.fit.joint_test` calls it."""
    if q >= MINIMUM_DATASETS:
        return
    raise ValueError(
        f"The joint model needs at least {MINIMUM_DATASETS} data sets; got {q}. One data set "
        "cannot tell how the models' differences vary across data sets. Add data sets, or compare "
        "the models on this one with a correlated t-test (method='correlated_t')."
    )


def check_models_seen_enough(counts: Sequence[int], models: Sequence[str]) -> None:
    """Raise a ValueError naming the models run on fewer than :data:`MINIMUM_DATASETS` data
    sets (module text); ``counts[m]`` is the number of data sets on which ``models[m]`` was run.
    :func:`~bayes_hier.joint.fit.joint_test` calls it.
    """
    least = MINIMUM_DATASETS
    rare = [(model, int(count)) for model, count in zip(models, counts) if count < least]
    if not rare:
        return
    named = ", ".join(f"{model!r} ({count})" for model, count in rare)
    rare_names = {model for model, _ in rare}
    kept = [model for model in models if model not in rare_names]
    them = "it" if len(rare) == 1 else "them"
    fix = (
        f"Leave {them} out (models={kept!r}), or add data sets where {them} "
        f"{'was' if len(rare) == 1 else 'were'} run"
        if len(kept) >= 2
        else "Add data sets where every model was run"
    )
    raise ValueError(
        f"The joint model needs every model run on at least {least} data sets; run on fewer "
        f"(how many): {named}. With one data set, how a model's advantage varies across data "
        f"sets is not informed by data and its answers would be the prior's. {fix}."
    )

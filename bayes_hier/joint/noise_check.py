"""Posterior predictive check of the joint model's fold noise, pair by pair.

The joint model states how the scores of the models vary from fold to fold on each data set: a
free covariance Ω_i of the contrasts (``noise="full"``), or per-model scales around a fold effect
shared by all models (``noise="fold"``, Ω_i = C D_i Cᵀ, :mod:`~.fold_noise`). The fold-level
structure assumes that the models' deviations from the shared fold effect are independent; models
of one family (two decision trees, two naive Bayes variants) tend to deviate together, which it
cannot represent. This check shows where the fitted noise disagrees with the data.

For data set i and a pair (a, b) of models run there, the per-fold differences
d_ij = x_ijb − x_ija (j = 1, ..., n_i) follow N(δ_i 1, σ²_iab R_i) under the model, with
σ²_iab = c_iabᵀ Ω_i c_iab the pair's per-fold noise variance (``sigma`` of the posterior) and
R_i = (1 − ρ_i) I + ρ_i 11ᵀ (Nadeau and Bengio's correlation of two folds). R_i has the
eigenvalue 1 − ρ_i on every direction orthogonal to 1, so the scatter

    T_iab = Σ_j (d_ij − d̄_i)² / (1 − ρ_i)  ~  σ²_iab χ²(n_i − 1).

Its posterior predictive p-value (Gelman, Meng and Stern 1996)

    p_iab = E[ F_{n_i − 1}(T_iab / σ²_iab) | data ],

F_ν the χ²(ν) distribution function, is the posterior probability that a replicated data set's
scatter falls below the observed one. Posterior predictive p-values are conservative (the noise
was fitted to the same folds), so under a model that fits, at most about 1 − level of the data
sets lie outside the central ``level`` interval; a pair whose noise the model overstates has many
p-values near 0, one whose noise it understates many near 1. The ratio

    r_iab = √(T_iab / m_{n_i − 1}) / median(σ_iab | data),

m_ν the median of χ²(ν), the observed per-fold sd over the fitted one, says by how much: its
median over data sets is about 1 for a structure that fits, whatever the number of folds.

A pair is flagged (``misfit``) when one tail holds more of its q_ab data sets than a structure
that fits would put there: the binomial probability of at least that count, with the tail's
probability (1 − level)/2 per data set (an upper bound, p-values being conservative), is below
:data:`MISFIT_ALPHA` divided by twice the number of pairs (Bonferroni over the pairs and the two
tails). A converged fold-level fit warns about them (:class:`NoiseMisfitWarning`,
:func:`misfit_message`). With few folds one data set says little (with 4 folds, a pair whose
fitted sd is twice its true one puts about 17 % of its data sets in the lower tail), so the test
speaks through the count over many data sets.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

#: Family-wise level of the misfit flags over all pairs and both tails (Bonferroni).
MISFIT_ALPHA = 0.01


class NoiseMisfitWarning(UserWarning):
    """The joint model's noise structure does not fit the folds of some pairs."""


def pair_scatters(
    scores: Sequence[np.ndarray], rho: np.ndarray, pairs: Sequence[tuple[int, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """T_iab = Σ_j (d_ij − d̄_i)² / (1 − ρ_i) and its degrees of freedom n_i − 1.

    Parameters
    ----------
    scores
        Per data set, the n_i × k scores (a NaN column for a model not run there).
    rho
        ρ_i per data set.
    pairs
        Column indices (a, b) of the pairs; d_ij = x_ijb − x_ija.

    Returns
    -------
    scatter, dof
        Arrays of shape (q, pairs); NaN where a or b was not run.
    """
    scatter = np.full((len(scores), len(pairs)), np.nan)
    dof = np.full_like(scatter, np.nan)
    for i, block in enumerate(scores):
        block = np.asarray(block, float)
        for p, (a, b) in enumerate(pairs):
            differences = block[:, b] - block[:, a]
            if np.isnan(differences).all():
                continue
            centred = differences - differences.mean()
            scatter[i, p] = centred @ centred / (1.0 - rho[i])
            dof[i, p] = differences.size - 1
    return scatter, dof


def predictive_p_values(scatter: np.ndarray, dof: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """p_iab = mean over draws of F_{n_i − 1}(T_iab / σ²_iab).

    ``scatter`` and ``dof``: (q, pairs) from :func:`pair_scatters`; ``sigma``: posterior draws
    of σ_iab, shape (draws, q, pairs) (NaN where the pair was not run). Returns (q, pairs), NaN
    where the pair was not run.
    """
    p_values = np.full(scatter.shape, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        for p in range(scatter.shape[1]):  # one pair at a time: draws x q values in memory
            checked = ~np.isnan(scatter[:, p])
            below = stats.chi2.cdf(scatter[checked, p] / sigma[:, checked, p] ** 2, dof[checked, p])
            p_values[checked, p] = below.mean(axis=0)
    return p_values


def noise_check_table(
    scatter: np.ndarray,
    dof: np.ndarray,
    sigma: np.ndarray,
    labels: Sequence[tuple[str, str]],
    level: float = 0.95,
) -> pd.DataFrame:
    """Per pair: the data sets checked (``datasets``), the median of r_iab over them
    (``sd_ratio``), the shares of data sets whose p-value lies below (1 − level)/2
    (``share_overstated``: the model gives the pair more noise than its folds show) or above
    (1 + level)/2 (``share_understated``), and whether either share flags the pair (``misfit``,
    see the module docstring). Arguments as in :func:`predictive_p_values`; ``labels`` (first,
    second) per pair."""
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1; got {level!r}.")
    p_values = predictive_p_values(scatter, dof, sigma)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.sqrt(scatter / stats.chi2.median(dof)) / np.median(sigma, axis=0)
    tail = (1.0 - level) / 2
    threshold = MISFIT_ALPHA / (2 * len(labels))
    rows = []
    for p, (first, second) in enumerate(labels):
        checked = ~np.isnan(p_values[:, p])
        values = p_values[checked, p]
        count = int(checked.sum())
        low, high = int((values < tail).sum()), int((values > 1 - tail).sum())
        unlikely = [stats.binom.sf(hits - 1, count, tail) < threshold for hits in (low, high)]
        rows.append(
            {
                "first": first,
                "second": second,
                "datasets": count,
                "sd_ratio": float(np.median(ratio[checked, p])) if count else np.nan,
                "share_overstated": low / count if count else np.nan,
                "share_understated": high / count if count else np.nan,
                "misfit": bool(count and any(unlikely)),
            }
        )
    return pd.DataFrame(rows)


def misfit_message(table: pd.DataFrame) -> str | None:
    """The warning for the pairs a :func:`noise_check_table` (level 0.95) flags, or ``None``."""
    misfit = table[table.misfit]
    if misfit.empty:
        return None
    names = ", ".join(f"{row.first} vs {row.second}" for row in misfit.itertuples())
    ratios = ", ".join(f"{ratio:.2f}" for ratio in misfit.sd_ratio)
    return (
        f"The fold-level noise does not fit {len(misfit)} of {len(table)} pairs ({names}): too "
        "many of their data sets have a fold scatter outside its 95% predictive interval "
        f"(observed / fitted per-fold sd {ratios}), so their probabilities are likely too "
        "confident. result.noise_check() has the table; compare these pairs with the pairwise "
        "test (compare(..., method='hierarchical'))."
    )


__all__ = [
    "MISFIT_ALPHA",
    "NoiseMisfitWarning",
    "misfit_message",
    "noise_check_table",
    "pair_scatters",
    "predictive_p_values",
]

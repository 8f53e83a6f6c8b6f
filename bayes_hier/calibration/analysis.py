"""Uniformity tables of SBC ranks, per parameter and group of settings."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .uniformity import NULL_SIMULATIONS, chi_square_test, ecdf_test


def checked_parameters(ranks: pd.DataFrame) -> list[str]:
    """The parameters ranked in every row of ``ranks`` (its ``rank_<parameter>`` columns
    without a missing value), in column order."""
    return [
        column.removeprefix("rank_")
        for column in ranks.columns
        if column.startswith("rank_") and ranks[column].notna().all()
    ]


def uniformity_table(
    ranks: pd.DataFrame,
    parameters: Sequence[str] | None,
    max_rank: int,
    bins: int,
    by: Sequence[str] = ("nu_prior",),
    simulations: int = NULL_SIMULATIONS,
) -> pd.DataFrame:
    """Chi-square and ECDF-band p-values of each parameter's ranks within each group.

    ``ranks`` has one row per replicate with columns ``rank_<parameter>`` and
    ``ess_<parameter>`` (as :func:`~.sbc.run_sbc` returns); ``parameters=None`` takes those
    ranked in every row of each group (:func:`checked_parameters`: models with different
    parameters share one table). Columns of the result: the group keys, ``parameter``,
    ``simulations``, ``chi2_p``, ``ecdf_p``, ``min_p`` and the median and minimum bulk ESS of
    the parameter's draws.
    """
    rows = []
    for keys, group in ranks.groupby(list(by), sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        for name in checked_parameters(group) if parameters is None else parameters:
            values = group[f"rank_{name}"].to_numpy(dtype=int)
            chi2 = chi_square_test(values, max_rank, bins)
            ecdf = ecdf_test(values, max_rank, simulations=simulations)
            ess = group[f"ess_{name}"]
            rows.append(
                {
                    **dict(zip(by, keys)),
                    "parameter": name,
                    "simulations": values.size,
                    "chi2_p": chi2,
                    "ecdf_p": ecdf,
                    "min_p": min(chi2, ecdf),
                    "median_ess": float(ess.median()),
                    "min_ess": float(ess.min()),
                }
            )
    return pd.DataFrame(rows)


def bonferroni_passes(table: pd.DataFrame, family_alpha: float) -> pd.Series:
    """Whether each row's smaller p-value clears ``family_alpha`` / (2 · rows).

    Two tests per row over all rows of the table: the family-wise false-alarm rate of a
    calibrated model is at most ``family_alpha`` (Bonferroni).
    """
    threshold = family_alpha / (2 * len(table))
    return table["min_p"] > threshold


def expected_rank_band(simulations: int, bins: int, coverage: float = 0.99) -> tuple[int, int]:
    """Central ``coverage`` interval of one bin's count, Binomial(simulations, 1 / bins)."""
    from scipy import stats

    tail = (1 - coverage) / 2
    low, high = stats.binom.ppf([tail, 1 - tail], simulations, 1 / bins)
    return int(low), int(np.ceil(high))

"""The Markdown summary of a calibration run (``CALIBRATION.md`` in the output folder)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..formatting import markdown_table
from .analysis import bonferroni_passes


def per_setting_pivot(cells: pd.DataFrame) -> pd.DataFrame:
    """Parameters × settings table of the smaller p-value of each per-setting test."""
    pivot = cells.pivot_table(index="parameter", columns="setting", values="min_p", sort=False)
    return pivot.reset_index().rename_axis(columns=None)


def fit_summary(ranks: pd.DataFrame) -> str:
    """Replicates, fit wall times and the fits' diagnostics over an SBC run."""
    return (
        f"Replicates: {len(ranks)}; fit wall time per replicate: median "
        f"{ranks['seconds'].median():.2f} s, max {ranks['seconds'].max():.2f} s. Divergent "
        f"transitions: {int(ranks['divergences'].sum())} in "
        f"{int((ranks['divergences'] > 0).sum())} fits; max R-hat {ranks['max_rhat'].max():.3f}; "
        f"fits with an E-BFMI below 0.3: {int((ranks['min_ebfmi'] < 0.3).sum())}; tree-depth "
        f"hits: {int(ranks['max_treedepth_hits'].sum())}."
    )


def sbc_section(
    title: str,
    ranks: pd.DataFrame,
    pooled: pd.DataFrame,
    cells: pd.DataFrame | None,
    description: str,
    family_alpha: float,
) -> str:
    """Settings, pooled and (when a pool holds several settings) per-setting uniformity
    p-values, ESS and diagnostics of one model's SBC run, with the Bonferroni verdict: a row
    passes when both its p-values exceed ``family_alpha`` / (2 · rows)."""
    passed = bonferroni_passes(pooled, family_alpha)
    lines = [
        f"## {title}",
        "",
        description,
        "",
        fit_summary(ranks),
        "",
        markdown_table(pooled.assign(passes=passed)),
        "",
        f"Passing: both p-values above {family_alpha} / (2 × {len(pooled)} rows) = "
        f"{family_alpha / (2 * len(pooled)):.2g} (Bonferroni, family-wise false-alarm rate "
        f"≤ {family_alpha}). Result: {int(passed.sum())} of {len(pooled)} rows pass.",
        "",
    ]
    if cells is not None:
        worst = cells.loc[cells["min_p"].idxmin()]
        lines += [
            "### Per setting (smaller of the two p-values)",
            "",
            markdown_table(per_setting_pivot(cells)),
            "",
            f"Smallest per-setting p-value: {worst['min_p']:.3g} ({worst['parameter']}, "
            f"{worst['setting']}) among {2 * len(cells)} tests.",
            "",
        ]
    return "\n".join(lines)


def error_rate_section(table: pd.DataFrame, description: str) -> str:
    """The decision-error table with its standard errors."""
    shown = table.copy()
    for name in ("hier_better", "hier_equivalent", "signed_rank_difference"):
        shown[name] = [f"{r:.3f} ± {s:.3f}" for r, s in zip(table[name], table[f"{name}_se"])]
        shown = shown.drop(columns=f"{name}_se")
    shown["hier_no_decision"] = table["hier_no_decision"].map(lambda v: f"{v:.3f}")
    return "\n".join(["## Decision error rates", "", description, "", markdown_table(shown), ""])


def write_summary(path: Any, sections: list[str], header: str, title: str) -> None:
    """Join the sections under a title and write them."""
    text = "\n".join([f"# {title}", "", header, "", *sections])
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)

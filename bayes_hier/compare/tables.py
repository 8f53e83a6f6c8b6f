"""The tables of a many-model comparison as text: for Markdown and HTML, and for a paper.

:func:`display_pairs`, :func:`display_matrix` and :func:`display_ranks` give the report's tables
with one precision per column and probabilities rounded toward 1/2; :func:`paper_tables` gives
the booktabs tables of ``tables.tex`` (the pairs with the sign convention and the HDI level in
the caption, the MCMC diagnostics apart, the probability matrix, the mean ranks).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from ..diagnostics import DiagnosticThresholds
from .latex import TABLE_PACKAGES, latex_table
from .numbers import column_decimals, fixed, toward_half
from .pair import pair_estimate
from .sentences import ResultLike, first_pair

#: Readable headers of the pairs table in the reports.
PAIR_HEADERS = {
    "first": "First",
    "second": "Second",
    "n_datasets": "Data sets",
    "mean_difference": "Mean diff.",
    "interval": "Interval",
    "p_first_better": "P(first)",
    "p_rope": "P(rope)",
    "p_second_better": "P(second)",
    "decision": "Decision",
    "divergences": "Div.",
    "max_rhat": "R-hat",
    "min_ess_bulk": "Bulk ESS",
    "min_ess_tail": "Tail ESS",
}


def _has_interval(result: ResultLike) -> bool:
    return bool(result.pairs["hdi_low"].notna().any())


def display_pairs(result: ResultLike) -> pd.DataFrame:
    """The pairs table as text with readable headers (Markdown and HTML): one precision per
    column, probabilities rounded toward 1/2; no Interval column for a method without one and
    no diagnostics for a method without MCMC."""
    table = result.pairs.copy()
    decimals = column_decimals(table[["mean_difference", "hdi_low", "hdi_high"]].to_numpy().ravel())

    def interval(row: pd.Series) -> str:
        if math.isnan(row["hdi_low"]):
            return ""
        return f"[{fixed(row['hdi_low'], decimals)}, {fixed(row['hdi_high'], decimals)}]"

    table["interval"] = table.apply(interval, axis=1)
    table = table[list(PAIR_HEADERS)]
    if not _has_interval(result):
        table = table.drop(columns=["interval"])
    if table["max_rhat"].isna().all():
        table = table.drop(columns=["divergences", "max_rhat", "min_ess_bulk", "min_ess_tail"])
    formats: dict[str, Callable[[float], str]] = {
        "mean_difference": lambda v: fixed(v, decimals),
        "max_rhat": lambda v: fixed(v, 3),
        "min_ess_bulk": lambda v: fixed(v, 0),
        "min_ess_tail": lambda v: fixed(v, 0),
        "divergences": lambda v: fixed(v, 0),
        "n_datasets": lambda v: fixed(v, 0),
        **{key: toward_half for key in ("p_first_better", "p_rope", "p_second_better")},
    }
    for column, form in formats.items():
        if column in table:
            table[column] = ["" if pd.isna(v) else form(v) for v in table[column].to_numpy()]
    return table.rename(columns=PAIR_HEADERS)


def display_matrix(result: ResultLike, kind: str, digits: int = 2) -> pd.DataFrame:
    """A probability matrix as text, rounded toward 1/2 (blank on the diagonal)."""
    table = result.matrix(kind)
    return table.apply(
        lambda column: [("" if pd.isna(v) else toward_half(v, digits)) for v in column]
    )


def display_ranks(result: ResultLike) -> pd.DataFrame | None:
    """Mean ranks, best first."""
    view = result.frequentist
    if view is None or view.mean_ranks is None:
        return None
    ranks = view.mean_ranks.sort_values()
    return pd.DataFrame({"Model": ranks.index, "Mean rank": [f"{r:.2f}" for r in ranks]})


def markdown_table(table: pd.DataFrame, index: bool = False) -> str:
    """A GitHub-flavoured Markdown table of text cells."""
    frame = table.rename_axis("").reset_index() if index else table
    header = [str(c) for c in frame.columns]
    rows = [[str(v).replace("|", "\\|") for v in row] for row in frame.to_numpy()]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- LaTeX
def _short_decision(result: ResultLike, pair: tuple[str, str]) -> str:
    """The decision in one word: the better model's name, "rope" or "none"."""
    outcome = result[pair].decision(result.alpha).outcome
    return {"left": pair[0], "right": pair[1], "rope": "rope"}.get(outcome, "none")


def paper_pairs(result: ResultLike) -> tuple[pd.DataFrame, str, list[tuple[int, int, str]]]:
    """The pairs table for a paper: Pair, mean d (and its HDI when the method gives one), the
    three probabilities and the decision; its caption (the sign convention, the HDI level, the
    rope and the decision rule) and the group header over the HDI."""
    pairs = result.pairs
    values = pairs[["mean_difference", "hdi_low", "hdi_high"]].to_numpy().ravel()
    decimals = column_decimals(values)
    table = pd.DataFrame({"Pair": [f"{a} vs {b}" for a, b in zip(pairs["first"], pairs["second"])]})
    sizes = pairs["n_datasets"].dropna().unique()
    if len(sizes) > 1:
        table["Sets"] = [fixed(v, 0) for v in pairs["n_datasets"]]
    table["Mean d"] = [fixed(v, decimals) for v in pairs["mean_difference"]]
    groups = []
    estimate = pair_estimate(first_pair(result))
    level = getattr(first_pair(result), "hdi_prob", None)
    if _has_interval(result):
        groups.append((table.shape[1], 2, f"{level:.0%} HDI" if level else "Interval"))
        table["low"] = [fixed(v, decimals) for v in pairs["hdi_low"]]
        table["high"] = [fixed(v, decimals) for v in pairs["hdi_high"]]
    for key, header in (
        ("p_first_better", "P(first)"),
        ("p_rope", "P(rope)"),
        ("p_second_better", "P(second)"),
    ):
        table[header] = [toward_half(v) for v in pairs[key]]
    table["Decision"] = [_short_decision(result, pair) for pair in result.pair_results]
    sets = f" on {sizes[0]:.0f} data sets" if len(sizes) == 1 else ""
    what = estimate.what.split(",")[0]
    hdi = (
        f" and its {level:.0%} highest-density interval (HDI)"
        if _has_interval(result) and level
        else ""
    )
    scope = f" {result.scope}" if result.scope else ""
    caption = (
        f"Pairwise comparison of {len(result.models)} models{sets} with the "
        f"{first_pair(result).test_name}, rope {result.rope}"
        f'{_units(result)}. In each pair "first vs second" the difference is d = second '
        f"\u2212 first{_negated(result)}; Mean d is the {what}{hdi}. P(first), P(rope), "
        f"P(second): probability{scope} that the first model is better, that the two are "
        f"practically equivalent, that the second is better. Decision: the outcome whose "
        f"probability exceeds {1 - result.alpha:g} (rope: practically equivalent; none: no "
        "decision)."
    )
    return table, caption, groups


def _units(result: ResultLike) -> str:
    if result.scores is None:
        return ""
    return f" in the units of {result.scores.score_name}"


def _negated(result: ResultLike) -> str:
    return "" if result.higher_is_better else " of the negated scores (lower is better)"


def paper_diagnostics(result: ResultLike) -> pd.DataFrame | None:
    """Divergences, max R-hat and min bulk and tail ESS per pair (``None`` without MCMC)."""
    pairs = result.pairs
    if pairs["max_rhat"].isna().all():
        return None
    return pd.DataFrame(
        {
            "Pair": [f"{a} vs {b}" for a, b in zip(pairs["first"], pairs["second"])],
            "Divergences": [fixed(v, 0) for v in pairs["divergences"]],
            "Max R-hat": [fixed(v, 3) for v in pairs["max_rhat"]],
            "Min bulk ESS": [fixed(v, 0) for v in pairs["min_ess_bulk"]],
            "Min tail ESS": [fixed(v, 0) for v in pairs["min_ess_tail"]],
        }
    )


def paper_tables(result: ResultLike) -> dict[str, str]:
    """The LaTeX tables of a paper, by key: pairs, diagnostics (with MCMC), better (the
    P(row better than column) matrix) and ranks (with a frequentist view)."""
    table, caption, groups = paper_pairs(result)
    out = {"pairs": latex_table(table, caption, "tab:pairs", groups=groups)}
    diagnostics = paper_diagnostics(result)
    if diagnostics is not None:
        out["diagnostics"] = latex_table(
            diagnostics,
            "MCMC diagnostics of each pair of the pairwise comparison: a divergence, an R-hat "
            f"above {DiagnosticThresholds().max_rhat} or an effective sample size below "
            f"{DiagnosticThresholds().min_ess_per_chain:.0f} per chain means the pair did not "
            "converge and declares no outcome.",
            "tab:diagnostics",
        )
    out["better"] = latex_table(
        display_matrix(result, "better", digits=3),
        f"Probability{f' {result.scope}' if result.scope else ''} that the row model is better "
        "than the column model.",
        "tab:better",
        index=True,
    )
    ranks = display_ranks(result)
    if ranks is not None:
        out["ranks"] = latex_table(ranks, result.frequentist.note, "tab:ranks")
    return out


def latex_tables(result: ResultLike) -> str:
    """tables.tex: the paper tables, for ``\\input`` in a document that loads booktabs and
    dcolumn."""
    packages = ", ".join(TABLE_PACKAGES)
    header = (
        f"% Generated by bayes_hier from the comparison result; needs \\usepackage{{{packages}}}."
    )
    return "\n".join([header, *paper_tables(result).values()])


__all__ = [
    "PAIR_HEADERS",
    "display_matrix",
    "display_pairs",
    "display_ranks",
    "latex_tables",
    "markdown_table",
    "paper_diagnostics",
    "paper_pairs",
    "paper_tables",
]

"""Reports of a many-model comparison, every number and sentence a function of the result.

The report is assembled once as a list of blocks (:func:`report_blocks`: headings, paragraphs,
bullet lists, tables, figures) and rendered to Markdown or to one self-contained HTML page;
tables.tex holds the booktabs tables for a paper (``\\input``) and report.tex the whole report as
a standalone LaTeX document; :func:`write_report` writes them all with pairs.csv and the figures
(PNG and SVG). Nothing in a report is written by hand.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .latex import TABLE_PACKAGES, latex_document, latex_escape, latex_table
from .numbers import column_decimals, fixed, probability_text, toward_half
from .pair import pair_estimate
from .thresholds import MAX_RHAT, MIN_ESS_BULK

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: What every function here takes: a :class:`~bayes_hier.ManyModelResult` (or a subclass).
#: Duck-typed, so that this module does not import the result module, which imports this one to
#: print and save itself (no import cycle).
ResultLike = Any

#: The files and folder a report consists of (the command line will not overwrite them).
REPORT_FILES = ("report.md", "report.html", "report.tex", "tables.tex", "pairs.csv", "figures")

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
    "min_ess_bulk": "ESS",
}


# ---------------------------------------------------------------------------- sentences
def pair_sentence(result: ResultLike, pair: tuple[str, str]) -> str:
    """The pair's decision in words, e.g. "hnb is better than nbc with probability 0.99 on a
    new data set"."""
    pair_result = result[pair]
    first, second = pair_result.names
    decision = pair_result.decision(result.alpha)
    probs = pair_result.probs
    scope = f" {result.scope}" if result.scope else ""
    if decision.outcome in ("left", "right"):
        winner, loser = (first, second) if decision.outcome == "left" else (second, first)
        p = probability_text(getattr(probs, decision.outcome))
        return f"{winner} is better than {loser} with probability {p}{scope}."
    if decision.outcome == "rope":
        return (
            f"{first} and {second} are practically equivalent (differences within the rope "
            f"{result.rope}) with probability {probability_text(probs.rope)}{scope}."
        )
    labels = pair_result.labels
    best = max(("left", "rope", "right"), key=lambda k: getattr(probs, k))
    return (
        f"{first} vs {second}: no decision; the most probable outcome, {labels[best]}, has "
        f"probability {probability_text(getattr(probs, best))}, not above {1 - result.alpha:g}."
    )


def design_sentence(result: ResultLike) -> str:
    """The cross-validation design of the data sets, e.g. "10 runs x 10 folds on every data
    set"."""
    if result.scores is None:
        return "The design of the data sets was not recorded."
    design = result.scores.design()
    combos = design.groupby(["runs", "folds"]).size().sort_values(ascending=False)
    if len(combos) == 1:
        (runs, folds), count = next(iter(combos.items()))
        return f"Cross-validation: {runs} run(s) x {folds} folds on every data set ({count})."
    parts = [
        f"{runs} run(s) x {folds} folds on {count} data set(s)"
        for (runs, folds), count in combos.items()
    ]
    return "Cross-validation: " + "; ".join(parts) + "."


def data_lines(result: ResultLike) -> list[str]:
    """The data: models, data sets, design, score, rope and its units."""
    lines = [f"Models ({len(result.models)}): {', '.join(result.models)}."]
    if result.scores is not None:
        datasets = result.scores.datasets
        lines.append(f"Data sets: {len(datasets)}.")
        lines.append(design_sentence(result))
        units = f"the units of the score column {result.scores.score_name!r}"
    else:
        units = "the units of the scores"
    direction = "higher is better" if result.higher_is_better else "lower is better"
    lines.append(f"Scores: {direction}; the rope is {result.rope} in {units}.")
    if result.control is not None:
        lines.append(
            f"Control: every model is compared with {result.control} only ({len(result)} pairs)."
        )
    return lines


def dropped_lines(result: ResultLike) -> list[str]:
    """What each pair left out, or that nothing was."""
    return result.dropped or [
        "Nothing was dropped: every pair uses every data set and every fold of both models."
    ]


def _first_pair(result: ResultLike) -> Any:
    return next(iter(result.pair_results.values()))


#: The ν priors of the hierarchical models, in words.
NU_PRIOR_WORDS = {
    "hierarchical": "a Student-t population whose degrees of freedom have nu - 1 ~ "
    "Gamma(alpha, beta), alpha ~ U{alpha_range}, beta ~ U{beta_range}",
    "juarez-steel": "a Student-t population with nu - 1 ~ Gamma(2, 0.1) (Juarez and Steel)",
    "kruschke": "a Student-t population with nu - 1 ~ Gamma(1, 0.0345) (Kruschke)",
    "gaussian": "a normal population of differences",
}


def prior_sentence(prior: Any) -> str:
    """The prior of a hierarchical model in words, read from its attributes."""
    words = NU_PRIOR_WORDS.get(prior.nu_prior, f"the nu prior {prior.nu_prior!r}")
    parts = [
        "Prior: "
        + words.format(
            alpha_range=tuple(getattr(prior, "alpha_range", ())),
            beta_range=tuple(getattr(prior, "beta_range", ())),
        )
    ]
    if hasattr(prior, "sigma_factor"):
        parts.append(
            f"sigma_i ~ U(0, {prior.sigma_factor:g} x the mean standard deviation of the data "
            f"sets), sigma0 ~ U(0, {prior.sigma0_factor:g} x the standard deviation of their "
            "means)"
        )
    bound = getattr(prior, "delta0_bound", "absent")
    if bound is None:
        parts.append("delta0 ~ U(-D, D) with D the largest absolute difference")
    elif bound != "absent":
        parts.append(f"delta0 ~ U(-{bound:g}, {bound:g})")
    return "; ".join(parts) + "."


#: Settings of a pair result stated elsewhere, or not settings of the method.
_STATED = {"seed", "stan_seed", "problems", "counts", "prior", "prior_place", "models"}


def sampler_sentence(settings: dict[str, Any]) -> str | None:
    """How the posterior was computed, in words (``None`` when nothing is recorded)."""
    if "chains" in settings:
        text = (
            f"Sampler: Stan's NUTS ({settings.get('engine', 'engine not recorded')}), "
            f"{settings['chains']} chains of {settings.get('draws')} draws after "
            f"{settings.get('warmup')} warm-up iterations"
        )
        extra = [
            f"{key.replace('_', ' ')} {settings[key]}"
            for key in ("adapt_delta", "max_treedepth")
            if key in settings
        ]
        return text + (f" ({', '.join(extra)})" if extra else "") + "."
    if "nsamples" in settings:
        return f"Posterior: {settings['nsamples']} samples of the Dirichlet process posterior."
    rest = {k: v for k, v in settings.items() if k not in _STATED}
    if not rest:
        return None
    return "Settings: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in rest.items()) + "."


def method_lines(result: ResultLike) -> list[str]:
    """Method, prior, seeds and sampler settings in sentences, read from the pair results."""
    pair = _first_pair(result)
    scope = f" {result.scope}" if result.scope else ""
    lines = [
        f'Method: every pair was compared with the {pair.test_name}. A pair "A vs B" lists '
        "the models in the order given; its difference is d = B - A, so that d > 0 means B is "
        "better"
        + ("" if result.higher_is_better else " (the scores were negated: lower is better)")
        + f". An outcome is declared when its probability{scope} exceeds "
        f"{1 - result.alpha:g}."
    ]
    prior = getattr(pair, "prior", None)
    settings = getattr(pair, "settings", {})
    if prior is not None:
        lines.append(prior_sentence(prior))
    elif "prior" in settings:
        place = settings.get("prior_place")
        lines.append(
            f"Prior: a Dirichlet process of strength {settings['prior']:g}"
            + (f", its pseudo-observation placed in the {place}." if place else ".")
        )
    else:
        lines.append("Prior: none to set (the posterior follows from the data alone).")
    seed = result.settings.get("seed")
    if seed is not None and "pair_seeds" in result.settings:
        lines.append(
            f"Seed: {seed}; each pair's own seed (derived from it and the two names) is in the "
            "seed column of pairs.csv."
        )
    elif seed is not None:
        lines.append(f"Seed: {seed}, of the one fit that gives every pair.")
    sampler = sampler_sentence(settings)
    if sampler:
        lines.append(sampler)
    if result.settings.get("options"):
        options = ", ".join(f"{k} {v}" for k, v in result.settings["options"].items())
        lines.append(f"Options given to the test: {options}.")
    return lines


def version_line(result: ResultLike) -> str:
    """Package versions (and the Stan engine, when the pairs used one)."""
    versions = dict(result.settings.get("versions", {}))
    engine = getattr(_first_pair(result), "settings", {}).get("engine")
    text = ", ".join(f"{name} {v}" for name, v in versions.items())
    return f"Versions: {text}" + (f"; engine {engine}." if engine else ".")


def warning_lines(result: ResultLike) -> list[str]:
    """Everything that shaped the numbers besides the data and the settings
    (``result.warnings``: data altered or left out, a rope in other units, sampling problems),
    and the MCMC checks passed; or a sentence saying there is nothing to report."""
    lines = list(result.warnings)
    diagnosed = result.pairs["max_rhat"].notna().any()
    if diagnosed and not result.problems:
        lines.append(
            f"No sampling problem: no pair has divergences, R-hat above {MAX_RHAT} or bulk ESS "
            f"below {MIN_ESS_BULK:.0f} (largest R-hat {result.pairs['max_rhat'].max():.3f}, "
            f"smallest bulk ESS {result.pairs['min_ess_bulk'].min():.0f})."
        )
    elif not diagnosed:
        lines.append("No MCMC diagnostics: the pairwise method does not sample with MCMC.")
    if not result.warnings:
        lines.insert(0, "None: no data were altered or left out, and the rope raised no doubt.")
    return lines


def frequentist_lines(result: ResultLike) -> list[str]:
    """Mean ranks and the sentences of the frequentist tests."""
    view = result.frequentist
    if view is None:
        return []
    lines = [view.note]
    if view.mean_ranks is not None:
        ranks = ", ".join(f"{m} {r:.2f}" for m, r in view.mean_ranks.sort_values().items())
        lines.append(f"Mean ranks (1 = best): {ranks}.")
    for test in (view.friedman, view.nemenyi, view.wilcoxon_holm):
        if test is not None:
            lines.append(test.interpretation)
    return lines


# ---------------------------------------------------------------------------- tables
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
        table = table.drop(columns=["divergences", "max_rhat", "min_ess_bulk"])
    formats: dict[str, Callable[[float], str]] = {
        "mean_difference": lambda v: fixed(v, decimals),
        "max_rhat": lambda v: fixed(v, 3),
        "min_ess_bulk": lambda v: fixed(v, 0),
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
    estimate = pair_estimate(_first_pair(result))
    level = getattr(_first_pair(result), "hdi_prob", None)
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
        f"{_first_pair(result).test_name}, rope {result.rope}"
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
    """Divergences, max R-hat and min bulk ESS per pair (``None`` without MCMC)."""
    pairs = result.pairs
    if pairs["max_rhat"].isna().all():
        return None
    return pd.DataFrame(
        {
            "Pair": [f"{a} vs {b}" for a, b in zip(pairs["first"], pairs["second"])],
            "Divergences": [fixed(v, 0) for v in pairs["divergences"]],
            "Max R-hat": [fixed(v, 3) for v in pairs["max_rhat"]],
            "Min bulk ESS": [fixed(v, 0) for v in pairs["min_ess_bulk"]],
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
            f"MCMC diagnostics of each pair of the pairwise comparison: a divergence, an R-hat "
            f"above {MAX_RHAT} or a bulk effective sample size below {MIN_ESS_BULK:.0f} is "
            "reported as a warning.",
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


# ---------------------------------------------------------------------------- blocks
@dataclass(frozen=True)
class Block:
    """One element of a report: ``kind`` is heading, paragraph, bullets, table or figure."""

    kind: str
    content: Any
    caption: str = ""
    index: bool = False
    key: str = ""


#: Figures of a report: file stem -> (caption, function of the result that draws it).
def figure_makers(result: ResultLike) -> dict[str, tuple[str, Callable[[], Figure]]]:
    """The figures the result can draw (the CD diagram only with a Nemenyi test)."""
    makers: dict[str, tuple[str, Callable[[], Figure]]] = {
        "heatmap": ("P(row better than column), models by mean rank", result.plot_heatmap),
        "pairs": ("Probabilities of each pair", result.plot_pairs),
    }
    if result.frequentist is not None and result.frequentist.nemenyi is not None:
        makers["cd_diagram"] = ("Critical-difference diagram (Nemenyi)", result.plot_cd_diagram)
    if hasattr(result, "plot_rank_probabilities"):  # a joint model of all the models
        makers["rank_probabilities"] = (
            "P(rank r on a new data set)",
            result.plot_rank_probabilities,
        )
        makers["p_best"] = ("P(best) and P(practically best) on a new data set", result.plot_p_best)
    return makers


def ranking_tables(result: ResultLike) -> list[Block]:
    """The ranking tables of a joint model (none for pairwise methods): P(best), P(practically
    best), expected rank and the rank probabilities, all on a new data set."""
    ranking = getattr(result, "ranking", None)
    if ranking is None:
        return []
    return [
        Block(
            "table", ranking.round(3), "Ranking on a new data set (joint model)", True, "ranking"
        ),
        Block(
            "table",
            result.rank_probabilities.round(3),
            "P(rank r on a new data set)",
            True,
            "rank_probabilities",
        ),
    ]


def pairs_caption(result: ResultLike) -> str:
    """The caption of the pairs table: the sign convention and what the estimate is."""
    what = pair_estimate(_first_pair(result)).what
    return f"Pairs: first vs second, d = second - first ({what})"


def report_blocks(result: ResultLike) -> list[Block]:
    """The report's content, in order."""
    pair = _first_pair(result)
    blocks = [
        Block("heading", f"Comparison of {len(result.models)} models: {pair.test_name}"),
        Block("paragraph", f"{len(result)} pairs, rope {result.rope}."),
        Block("heading", "Data"),
        Block("bullets", data_lines(result)),
        Block("heading", "What was left out"),
        Block("bullets", dropped_lines(result)),
        Block("heading", "Method"),
        Block("bullets", [*method_lines(result), version_line(result)]),
        Block("heading", "Results"),
        Block("bullets", result.sentences()),
        *ranking_tables(result),
        Block("table", display_pairs(result), pairs_caption(result), key="pairs"),
        Block(
            "table", display_matrix(result, "better"), "P(row better than column)", True, "better"
        ),
        Block("table", display_matrix(result, "rope"), "P(practically equivalent)", True, "rope"),
    ]
    for stem, (caption, _) in figure_makers(result).items():
        blocks.append(Block("figure", stem, caption))
    blocks += [Block("heading", "Frequentist view"), Block("bullets", frequentist_lines(result))]
    ranks = display_ranks(result)
    if ranks is not None:
        blocks.append(Block("table", ranks, "Mean ranks", key="ranks"))
    blocks += [Block("heading", "Warnings"), Block("bullets", warning_lines(result))]
    return blocks


def render_latex(blocks: list[Block], tables: dict[str, str], figure_dir: str = "figures") -> str:
    """A standalone LaTeX document; ``tables`` (key -> LaTeX) replace the table blocks of the
    same key (the pairs table is followed by the diagnostics table, when there is one); the
    other tables are set by :func:`~bayes_hier.compare.latex.latex_table`."""
    body = []
    for number, block in enumerate(blocks[1:], start=1):
        if block.kind == "heading":
            body.append(rf"\section*{{{latex_escape(block.content)}}}")
        elif block.kind == "paragraph":
            body.append(latex_escape(block.content))
        elif block.kind == "bullets":
            items = "\n".join(rf"  \item {latex_escape(line)}" for line in block.content)
            body.append(f"\\begin{{itemize}}\n{items}\n\\end{{itemize}}")
        elif block.kind == "table":
            if block.key in tables:
                body.append(tables[block.key])
                if block.key == "pairs" and "diagnostics" in tables:
                    body.append(tables["diagnostics"])
            else:
                label = f"tab:{block.key or number}"
                body.append(latex_table(block.content, block.caption, label, block.index))
        elif block.kind == "figure":
            body.append(
                "\\begin{figure}[htbp]\n\\centering\n"
                rf"\includegraphics[width=\linewidth]{{{figure_dir}/{block.content}.png}}"
                f"\n\\caption{{{latex_escape(block.caption)}}}\n\\end{{figure}}"
            )
    return latex_document(blocks[0].content, body)


def render_markdown(blocks: list[Block], figure_dir: str = "figures") -> str:
    """Markdown; figures as links to ``figure_dir/<stem>.png``."""
    out = []
    first_heading = True
    for block in blocks:
        if block.kind == "heading":
            out.append(("# " if first_heading else "## ") + block.content)
            first_heading = False
        elif block.kind == "paragraph":
            out.append(block.content)
        elif block.kind == "bullets":
            out.append("\n".join(f"* {line}" for line in block.content))
        elif block.kind == "table":
            out.append(f"**{block.caption}**\n\n" + markdown_table(block.content, block.index))
        elif block.kind == "figure":
            out.append(f"![{block.caption}]({figure_dir}/{block.content}.png)")
    return "\n\n".join(out) + "\n"


HTML_STYLE = """
body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border-bottom: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f2f2f2; }
figure { margin: 1em 0; } figure img { max-width: 100%; }
figcaption { font-size: 0.9em; color: #555; }
"""


def figure_png(fig: Figure) -> bytes:
    """A figure as PNG bytes (110 dpi); the figure is closed."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def render_html(blocks: list[Block], pngs: dict[str, bytes]) -> str:
    """One self-contained HTML page; figures embedded as base64 PNG."""
    body = []
    first_heading = True
    for block in blocks:
        if block.kind == "heading":
            tag = "h1" if first_heading else "h2"
            body.append(f"<{tag}>{html.escape(block.content)}</{tag}>")
            first_heading = False
        elif block.kind == "paragraph":
            body.append(f"<p>{html.escape(block.content)}</p>")
        elif block.kind == "bullets":
            items = "".join(f"<li>{html.escape(line)}</li>" for line in block.content)
            body.append(f"<ul>{items}</ul>")
        elif block.kind == "table":
            styler = block.content.style.set_caption(html.escape(block.caption))
            if not block.index:
                styler = styler.hide(axis="index")
            body.append(styler.to_html())
        elif block.kind == "figure":
            data = base64.b64encode(pngs[block.content]).decode("ascii")
            body.append(
                f'<figure><img alt="{html.escape(block.caption)}" '
                f'src="data:image/png;base64,{data}"><figcaption>'
                f"{html.escape(block.caption)}</figcaption></figure>"
            )
    title = html.escape(blocks[0].content)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{HTML_STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def latex_report(result: ResultLike) -> str:
    """The report as a standalone LaTeX document (figures included from figures/*.png)."""
    tables = paper_tables(result)
    tables["rope"] = latex_table(
        display_matrix(result, "rope", digits=3),
        "Probability that the row and column models are practically equivalent.",
        "tab:rope",
        index=True,
    )
    return render_latex(report_blocks(result), tables)


def markdown_report(result: ResultLike) -> str:
    """The report as Markdown (figures linked under figures/)."""
    return render_markdown(report_blocks(result))


def html_report(result: ResultLike) -> str:
    """The report as one self-contained HTML page."""
    pngs = {stem: figure_png(make()) for stem, (_, make) in figure_makers(result).items()}
    return render_html(report_blocks(result), pngs)


# ---------------------------------------------------------------------------- terminal, JSON
def terminal_summary(result: ResultLike) -> str:
    """Pairs, ranks and warnings in at most 100 columns."""
    table = result.pairs
    width = max(8, *(len(m) for m in result.models))
    header = (
        f"{'first':<{width}} {'second':<{width}} {'sets':>4} {'P(first)':>8} {'P(rope)':>8} "
        f"{'P(second)':>9}  decision"
    )
    pair = _first_pair(result)
    lines = [
        f"{pair.test_name}: {len(result.models)} models, {len(result)} pairs, rope {result.rope}",
        header,
    ]
    for row in table.itertuples():
        lines.append(
            f"{row.first:<{width}} {row.second:<{width}} {row.n_datasets:>4.0f} "
            f"{toward_half(row.p_first_better):>8} {toward_half(row.p_rope):>8} "
            f"{toward_half(row.p_second_better):>9}  "
            f"{row.decision}"
        )
    lines += frequentist_lines(result)[1:2]
    if result.dropped:
        lines.append(f"Left out: {len(result.dropped)} data set(s) in some pairs (see the report).")
    for line in result.warnings:
        lines += textwrap.wrap(f"Warning: {line}", width=100, subsequent_indent="  ")
    return "\n".join(lines)


def _plain(value: Any) -> Any:
    """JSON-safe: numpy scalars to Python, NaN and infinities to None, other objects to text."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)  # e.g. an engine object among the options


def as_dict(result: ResultLike) -> dict[str, Any]:
    """The result as plain types: pairs, matrices, frequentist view, usage, settings."""
    out = {
        "method": result.method,
        "models": list(result.models),
        "rope": [result.rope.low, result.rope.high],
        "control": result.control,
        "alpha": result.alpha,
        "pairs": result.pairs.to_dict(orient="records"),
        "sentences": result.sentences(),
        "matrix_better": json.loads(result.matrix("better").to_json()),
        "matrix_rope": json.loads(result.matrix("rope").to_json()),
        "usage": [usage.as_dict() for usage in result.usage.values()],
        "warnings": list(result.warnings),
        "problems": {f"{a} vs {b}": r for (a, b), r in result.problems.items()},
        "settings": result.settings,
    }
    if result.frequentist is not None:
        out["frequentist"] = result.frequentist.as_dict()
    return _plain(out)


# ---------------------------------------------------------------------------- files
def write_report(result: ResultLike, out: str | Path) -> dict[str, Path]:
    """Write report.md, report.html, report.tex, tables.tex, pairs.csv and
    figures/<name>.{png,svg} (existing files are overwritten).

    Returns the paths written, by name.
    """
    import matplotlib.pyplot as plt

    out = Path(out)
    figures = out / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    pngs = {}
    for stem, (_, make) in figure_makers(result).items():
        fig = make()
        fig.savefig(figures / f"{stem}.svg", bbox_inches="tight")
        pngs[stem] = figure_png(fig)
        (figures / f"{stem}.png").write_bytes(pngs[stem])
        written[f"{stem}.png"] = figures / f"{stem}.png"
        written[f"{stem}.svg"] = figures / f"{stem}.svg"
        plt.close(fig)
    blocks = report_blocks(result)
    texts = {
        "report.md": render_markdown(blocks),
        "report.html": render_html(blocks, pngs),
        "report.tex": latex_report(result),
        "tables.tex": latex_tables(result),
    }
    for name, text in texts.items():
        (out / name).write_text(text, encoding="utf-8")
        written[name] = out / name
    result.pairs.to_csv(out / "pairs.csv", index=False)
    written["pairs.csv"] = out / "pairs.csv"
    return written


__all__ = [
    "REPORT_FILES",
    "as_dict",
    "html_report",
    "latex_report",
    "latex_tables",
    "markdown_report",
    "pair_sentence",
    "report_blocks",
    "terminal_summary",
    "write_report",
]

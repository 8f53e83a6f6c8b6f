"""Reports of a many-model comparison, every number and sentence a function of the result.

The report is assembled once as a list of blocks (:func:`report_blocks`: headings, paragraphs,
bullet lists, tables, figures) and rendered to Markdown or to one self-contained HTML page;
tables.tex holds the booktabs tables; :func:`write_report` writes them all with pairs.csv and
the figures (PNG and SVG). Nothing in a report is written by hand.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .thresholds import MAX_RHAT, MIN_ESS_BULK

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: What every function here takes: a :class:`~bayes_hier.ManyModelResult` (or a subclass).
#: Duck-typed, so that this module does not import the result module, which imports this one to
#: print and save itself (no import cycle).
ResultLike = Any

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
def probability_text(p: float) -> str:
    """A probability with three decimals; "> 0.999" and "< 0.001" rather than 1.000 and 0.000."""
    if p > 0.999:
        return "> 0.999"
    if 0 < p < 0.001:
        return "< 0.001"
    return f"{p:.3f}"


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
    units = getattr(result, "rope_units", None) or units  # a rope on another quantity
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


def method_lines(result: ResultLike) -> list[str]:
    """Method, prior, seeds and sampler settings, read from the pair results."""
    pair = _first_pair(result)
    lines = [
        f"Method: {pair.test_name} for every pair ({result.method}); an outcome is declared "
        f"when its probability exceeds {1 - result.alpha:g}."
    ]
    prior = getattr(pair, "prior", None)
    if prior is not None:
        lines.append(f"Prior: {prior}.")
    elif "prior" in getattr(pair, "settings", {}):
        place = pair.settings.get("prior_place")
        lines.append(
            f"Prior: Dirichlet process strength {pair.settings['prior']:g}"
            + (f", placed on the {place}." if place else ".")
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
    sampler = {
        key: value
        for key, value in getattr(pair, "settings", {}).items()
        if key not in {"seed", "stan_seed", "problems", "counts", "prior", "prior_place"}
    }
    if sampler:
        lines.append("Sampler: " + ", ".join(f"{k} {v}" for k, v in sampler.items()) + ".")
    if result.settings.get("options"):
        options = ", ".join(f"{k}={v!r}" for k, v in result.settings["options"].items())
        lines.append(f"Options given: {options}.")
    return lines


def version_line(result: ResultLike) -> str:
    """Package versions (and the Stan engine, when the pairs used one)."""
    versions = dict(result.settings.get("versions", {}))
    engine = getattr(_first_pair(result), "settings", {}).get("engine")
    text = ", ".join(f"{name} {v}" for name, v in versions.items())
    return f"Versions: {text}" + (f"; engine {engine}." if engine else ".")


def warning_lines(result: ResultLike) -> list[str]:
    """Every pair with divergences, R-hat > 1.01 or bulk ESS < 400, or a sentence saying none."""
    if result.problems:
        return [f"{a} vs {b}: {'; '.join(reasons)}." for (a, b), reasons in result.problems.items()]
    diagnosed = result.pairs["max_rhat"].notna().any()
    if not diagnosed:
        return ["No MCMC diagnostics: the pairwise method does not sample with MCMC."]
    return [
        f"None: no pair has divergences, R-hat above {MAX_RHAT} or bulk ESS below "
        f"{MIN_ESS_BULK:.0f} (largest R-hat {result.pairs['max_rhat'].max():.3f}, smallest bulk "
        f"ESS {result.pairs['min_ess_bulk'].min():.0f})."
    ]


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
def display_pairs(result: ResultLike) -> pd.DataFrame:
    """The pairs table rounded and with readable headers (for Markdown, HTML and LaTeX)."""
    table = result.pairs.copy()

    def interval(row: pd.Series) -> str:
        if math.isnan(row["hdi_low"]):
            return ""
        return f"[{row['hdi_low']:.3g}, {row['hdi_high']:.3g}]"

    table["interval"] = table.apply(interval, axis=1)
    table = table[list(PAIR_HEADERS)]
    if table["max_rhat"].isna().all():
        table = table.drop(columns=["divergences", "max_rhat", "min_ess_bulk"])
    formats = {
        "mean_difference": "{:.3g}",
        "p_first_better": "{:.3f}",
        "p_rope": "{:.3f}",
        "p_second_better": "{:.3f}",
        "max_rhat": "{:.3f}",
        "min_ess_bulk": "{:.0f}",
        "divergences": "{:.0f}",
        "n_datasets": "{:.0f}",
    }
    for column, fmt in formats.items():
        if column in table:
            table[column] = ["" if pd.isna(v) else fmt.format(v) for v in table[column].to_numpy()]
    return table.rename(columns=PAIR_HEADERS)


def display_matrix(result: ResultLike, kind: str) -> pd.DataFrame:
    """A probability matrix as text with two decimals (blank on the diagonal)."""
    table = result.matrix(kind)
    return table.apply(lambda column: [("" if pd.isna(v) else f"{v:.2f}") for v in column])


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


def _latex_escape(text: str) -> str:
    for char, escaped in (
        ("\\", r"\textbackslash{}"),
        ("_", r"\_"),
        ("&", r"\&"),
        ("%", r"\%"),
        ("#", r"\#"),
        ("$", r"\$"),
        ("±", r"$\pm$"),
    ):
        text = text.replace(char, escaped)
    return text


def latex_table(table: pd.DataFrame, caption: str, label: str, index: bool = False) -> str:
    """A booktabs table (``pandas.io.formats.style.Styler.to_latex`` with ``hrules``)."""
    frame = table.copy()
    frame.columns = [_latex_escape(str(c)) for c in frame.columns]
    frame.index = [_latex_escape(str(i)) for i in frame.index]
    frame = frame.map(lambda v: _latex_escape(str(v)))
    styler = frame.style
    if not index:
        styler = styler.hide(axis="index")
    return styler.to_latex(
        hrules=True,
        caption=_latex_escape(caption),
        label=label,
        position="htbp",
        position_float="centering",
        column_format=("l" if index else "") + "l" * frame.shape[1],
    )


def latex_tables(result: ResultLike) -> str:
    """tables.tex: the pairs, the P(row better than column) matrix, the mean ranks and, for a
    model of all the models, its ranking tables."""
    parts = [
        "% Generated by bayes_hier from the comparison result; needs \\usepackage{booktabs}.",
        latex_table(
            display_pairs(result),
            f"Pairwise comparison ({result.method}, rope {result.rope}). P(first), P(rope), "
            "P(second): probability that the first model is better, that the two are "
            "practically equivalent, that the second is better.",
            "tab:pairs",
        ),
        latex_table(
            display_matrix(result, "better"),
            "Probability that the row model is better than the column model.",
            "tab:better",
            index=True,
        ),
    ]
    ranks = display_ranks(result)
    if ranks is not None:
        parts.append(latex_table(ranks, result.frequentist.note, "tab:ranks"))
    for block in ranking_tables(result):
        label = "tab:" + "".join(c if c.isalnum() else "-" for c in block.caption.lower())[:40]
        parts.append(latex_table(block.content, block.caption, label, index=block.index))
    return "\n".join(parts)


# ---------------------------------------------------------------------------- blocks
@dataclass(frozen=True)
class Block:
    """One element of a report: ``kind`` is heading, paragraph, bullets, table or figure."""

    kind: str
    content: Any
    caption: str = ""
    index: bool = False


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
            "table",
            ranking.round(3),
            getattr(result, "ranking_caption", "Ranking on a new data set (joint model)"),
            True,
        ),
        Block("table", result.rank_probabilities.round(3), "P(rank r on a new data set)", True),
        *(Block("table", table, caption) for table, caption in extra_tables(result)),
    ]


def extra_tables(result: ResultLike) -> list[tuple[pd.DataFrame, str]]:
    """The tables a result adds to its report (``report_tables()``: (table, caption) pairs)."""
    tables = getattr(result, "report_tables", None)
    return [] if tables is None else list(tables())


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
        Block("table", display_pairs(result), "Pairs"),
        Block("table", display_matrix(result, "better"), "P(row better than column)", True),
        Block("table", display_matrix(result, "rope"), "P(practically equivalent)", True),
    ]
    for stem, (caption, _) in figure_makers(result).items():
        blocks.append(Block("figure", stem, caption))
    blocks += [Block("heading", "Frequentist view"), Block("bullets", frequentist_lines(result))]
    ranks = display_ranks(result)
    if ranks is not None:
        blocks.append(Block("table", ranks, "Mean ranks"))
    blocks += [Block("heading", "Warnings"), Block("bullets", warning_lines(result))]
    return blocks


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
            f"{row.p_first_better:>8.3f} {row.p_rope:>8.3f} {row.p_second_better:>9.3f}  "
            f"{row.decision}"
        )
    lines += frequentist_lines(result)[1:2]
    if result.dropped:
        lines.append(f"Left out: {len(result.dropped)} data set(s) in some pairs (see the report).")
    lines += [f"Warning: {line}" for line in warning_lines(result) if result.problems]
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
        "warnings": {f"{a} vs {b}": r for (a, b), r in result.problems.items()},
        "settings": result.settings,
    }
    if result.frequentist is not None:
        out["frequentist"] = result.frequentist.as_dict()
    return _plain(out)


# ---------------------------------------------------------------------------- files
def write_report(result: ResultLike, out: str | Path) -> dict[str, Path]:
    """Write report.md, report.html, tables.tex, pairs.csv and figures/<name>.{png,svg}.

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
        "tables.tex": latex_tables(result),
    }
    for name, text in texts.items():
        (out / name).write_text(text, encoding="utf-8")
        written[name] = out / name
    result.pairs.to_csv(out / "pairs.csv", index=False)
    written["pairs.csv"] = out / "pairs.csv"
    return written


__all__ = [
    "as_dict",
    "html_report",
    "latex_tables",
    "markdown_report",
    "pair_sentence",
    "report_blocks",
    "terminal_summary",
    "write_report",
]

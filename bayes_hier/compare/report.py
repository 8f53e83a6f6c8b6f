"""Reports of a many-model comparison, every number and sentence a function of the result.

The report is assembled once as a list of blocks (:func:`report_blocks`: headings, paragraphs,
bullet lists, tables, figures; the sentences come from :mod:`~bayes_hier.compare.sentences`, the
tables from :mod:`~bayes_hier.compare.tables`) and rendered to Markdown, to one self-contained
HTML page and to a standalone LaTeX document (report.tex); tables.tex holds the booktabs tables
for a paper (``\\input``). :func:`write_report` writes them all with pairs.csv and the figures
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

from .latex import latex_table, render_latex
from .numbers import toward_half
from .pair import pair_estimate
from .sentences import (
    ResultLike,
    data_lines,
    dropped_lines,
    first_pair,
    frequentist_lines,
    method_lines,
    version_line,
    warning_lines,
)
from .tables import (
    display_matrix,
    display_pairs,
    display_ranks,
    latex_tables,
    markdown_table,
    paper_tables,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

#: The files and folder a report consists of (the command line will not overwrite them).
REPORT_FILES = ("report.md", "report.html", "report.tex", "tables.tex", "pairs.csv", "figures")


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
            "table",
            ranking.round(3),
            result.ranking_caption,
            True,
            "ranking",
        ),
        Block(
            "table",
            result.rank_probabilities.round(3),
            "P(rank r on a new data set)",
            True,
            "rank_probabilities",
        ),
        *(Block("table", table, caption) for table, caption in extra_tables(result)),
    ]


def extra_tables(result: ResultLike) -> list[tuple[pd.DataFrame, str]]:
    """The tables a result adds to its report (``report_tables()``: (table, caption) pairs)."""
    tables = getattr(result, "report_tables", None)
    return [] if tables is None else list(tables())


def tables_tex(result: ResultLike) -> str:
    """tables.tex: the paper tables (:func:`~bayes_hier.compare.tables.latex_tables`) and, for a
    model of all the models, its ranking tables."""
    ranking = [
        latex_table(block.content, block.caption, f"tab:{block.key or 'extra'}", block.index)
        for block in ranking_tables(result)
    ]
    return "\n".join([latex_tables(result), *ranking])


def pairs_caption(result: ResultLike) -> str:
    """The caption of the pairs table: the sign convention and what the estimate is."""
    what = pair_estimate(first_pair(result)).what
    return f"Pairs: first vs second, d = second - first ({what})"


def report_blocks(result: ResultLike) -> list[Block]:
    """The report's content, in order."""
    pair = first_pair(result)
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
    pair = first_pair(result)
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
        "tables.tex": tables_tex(result),
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
    "report_blocks",
    "tables_tex",
    "terminal_summary",
    "write_report",
]

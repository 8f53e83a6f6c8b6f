"""LaTeX for papers: booktabs tables aligned on the decimal point, and a standalone document.

Every table is a ``table`` float in ``\\small`` (columns 4 pt apart on each side) with its
caption above, ``\\toprule``, ``\\midrule`` and ``\\bottomrule`` (booktabs); a column whose
cells are all numbers (or empty) is a dcolumn ``D{.}{.}{x.y}`` column (``x`` integer and ``y``
decimal digits), so that it is aligned on the decimal point and its minus signs are set as real
minus signs (the cells are typeset in math mode). The packages needed are those of Debian's
texlive-latex-base and texlive-latex-recommended: booktabs, dcolumn, graphicx, caption (no
siunitx).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pandas as pd

#: The packages a table of this module needs (``\usepackage{...}`` in the preamble).
TABLE_PACKAGES = ("booktabs", "dcolumn")

#: Characters with a meaning in LaTeX, and the symbols the reports use, as LaTeX.
_REPLACEMENTS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "_": r"\_",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "±": r"$\pm$",
    "−": r"$-$",
    "×": r"$\times$",
    "≤": r"$\le$",
    "≥": r"$\ge$",
    "δ": r"$\delta$",
    "σ": r"$\sigma$",
    "ν": r"$\nu$",
    "μ": r"$\mu$",
    "θ": r"$\theta$",
    "₀": r"$_0$",
    "…": r"\ldots{}",
    "–": "--",
    "—": "---",
    ">": r"$>$",
    "<": r"$<$",
    "|": r"$|$",
}
_PATTERN = re.compile("|".join(re.escape(c) for c in _REPLACEMENTS))

#: A cell of a decimal column: a number in plain notation, or empty.
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped, the reports' symbols as LaTeX and
    "double quotes" as ``TeX quotes''."""
    escaped = _PATTERN.sub(lambda match: _REPLACEMENTS[match.group(0)], str(text))
    return re.sub(r'"([^"]*)"', r"``\1''", escaped)


def digits_of(cells: Sequence[str]) -> tuple[int, int] | None:
    """The widest integer part (a minus sign counted as a digit) and the most decimals of a
    column whose non-empty cells are all plain numbers, or ``None`` when a cell is text (or
    every cell is empty)."""
    filled = [cell.strip() for cell in cells if cell.strip()]
    if not filled or not all(_NUMBER.match(cell) for cell in filled):
        return None
    parts = [[*cell.split("."), ""] for cell in filled]
    return max(len(part[0]) for part in parts), max(len(part[1]) for part in parts)


def decimal_column(digits: tuple[int, int]) -> str:
    """The dcolumn column of numbers with ``digits = (integer, decimal)`` digits: aligned on the
    point and only as wide as its numbers (``D{.}{.}{x.y}``; a single ``y`` would centre the point
    and waste the width of the longer side)."""
    left, right = digits
    return f"D{{.}}{{.}}{{{left}.{right}}}" if right else f"D{{.}}{{.}}{{{left}.0}}"


def _header(text: str, numeric: bool) -> str:
    """A header cell; over a decimal column it is centred in a ``\\multicolumn``."""
    escaped = latex_escape(text)
    return rf"\multicolumn{{1}}{{c}}{{{escaped}}}" if numeric else escaped


def latex_table(
    table: pd.DataFrame,
    caption: str,
    label: str,
    index: bool = False,
    groups: Sequence[tuple[int, int, str]] = (),
) -> str:
    """A booktabs table of text cells, numeric columns aligned on the decimal point.

    Parameters
    ----------
    table
        Cells as text (numbers already formatted, one precision per column).
    caption, label
        The caption (escaped here) and the ``\\label``.
    index
        Whether the index is the first column.
    groups
        Headers spanning several columns, ``(first column, number of columns, text)``, set in a
        row above the column headers with a ``\\cmidrule`` under each.
    """
    frame = table.rename_axis("").reset_index() if index else table
    columns = [str(c) for c in frame.columns]
    cells = [[("" if pd.isna(v) else str(v)) for v in frame[c]] for c in frame.columns]
    decimals = [digits_of(column) for column in cells]
    spec = " ".join("l" if d is None else decimal_column(d) for d in decimals)
    lines = [
        r"\begin{table}[htbp]",
        r"\centering",
        r"\small",
        r"\setlength{\tabcolsep}{4pt}",
        rf"\caption{{{latex_escape(caption)}}}",
        rf"\label{{{label}}}",
        rf"\begin{{tabular}}{{@{{}}{spec}@{{}}}}",
        r"\toprule",
    ]
    if groups:
        row, rules, at = [], [], 0
        for start, span, text in groups:
            row += [""] * (start - at) + [rf"\multicolumn{{{span}}}{{c}}{{{latex_escape(text)}}}"]
            rules.append(rf"\cmidrule(lr){{{start + 1}-{start + span}}}")
            at = start + span
        row += [""] * (len(columns) - at)
        lines += [" & ".join(row) + r" \\", " ".join(rules)]
    lines.append(" & ".join(_header(c, d is not None) for c, d in zip(columns, decimals)) + r" \\")
    lines.append(r"\midrule")
    for i in range(len(frame)):
        row = [
            cells[j][i] if decimals[j] is not None else latex_escape(cells[j][i])
            for j in range(len(columns))
        ]
        lines.append(" & ".join(row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


#: Preamble of the standalone report (packages of texlive-latex-base and -recommended only; the
#: bullet from the math fonts, as the text-companion one is a bitmap font in some TeX setups).
PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage[utf8]{inputenc}
\usepackage[margin=2.5cm]{geometry}
\usepackage{booktabs}
\usepackage{dcolumn}
\usepackage{graphicx}
\usepackage[font=small,labelfont=bf]{caption}
\renewcommand{\labelitemi}{$\bullet$}
\sloppy
"""


def latex_document(title: str, body: Sequence[str]) -> str:
    """A standalone article: the preamble, the title and the body's parts in order."""
    return (
        PREAMBLE
        + rf"\title{{{latex_escape(title)}}}"
        + "\n\\date{}\n\\begin{document}\n\\maketitle\n\n"
        + "\n\n".join(body)
        + "\n\n\\end{document}\n"
    )


def render_latex(blocks: Sequence[Any], tables: dict[str, str], figure_dir: str = "figures") -> str:
    """A standalone LaTeX document of a report's blocks (``kind``, ``content``, ``caption``,
    ``index``, ``key``: see :class:`~bayes_hier.compare.report.Block`).

    ``tables`` (key -> LaTeX) replace the table blocks of the same key (the pairs table is
    followed by the diagnostics table, when there is one); the other tables are set by
    :func:`latex_table`.
    """
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


__all__ = [
    "PREAMBLE",
    "TABLE_PACKAGES",
    "decimal_column",
    "digits_of",
    "latex_document",
    "latex_escape",
    "latex_table",
    "render_latex",
]

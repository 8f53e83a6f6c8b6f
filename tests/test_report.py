"""Reports for papers: numbers as text, the LaTeX tables and document, the Warnings section.

The LaTeX tests compile what the command line writes for the real data with pdflatex (Debian's
texlive-latex-base and texlive-latex-recommended suffice) and fail on any overfull box; they
are skipped, with the reason shown, where pdflatex is not installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import warnings
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bayes_hier import compare
from bayes_hier.compare.latex import digits_of, latex_escape, latex_table
from bayes_hier.compare.numbers import column_decimals, fixed, probability_text, toward_half
from bayes_hier.compare.sentences import warning_lines
from bayes_hier.compare.tables import display_pairs, latex_tables, paper_pairs
from bayes_hier.examples import load_uci_weka
from bayes_hier.rope import RopeScaleWarning

from .test_cli import bayes_hier


# ------------------------------------------------------------------------- numbers
@pytest.mark.parametrize(
    "p, text",
    [(0.949, "0.949"), (0.9499, "0.949"), (0.95, "0.950"), (0.0501, "0.051"), (0.05, "0.050")],
)
def test_a_probability_never_prints_on_the_other_side_of_a_threshold(p, text):
    assert toward_half(p) == text


@given(st.floats(0, 1), st.sampled_from([2, 3, 4]))
def test_rounding_toward_one_half_never_crosses_a_printed_value(p, digits):
    """The printed value lies between p and 1/2 and within one unit of the last digit of p."""
    printed = Decimal(toward_half(p, digits))
    exact = Decimal(repr(p))
    unit = Decimal(1).scaleb(-digits)
    assert abs(printed - exact) <= unit
    if p >= 0.5:
        assert printed <= exact
    else:
        assert printed >= exact


def test_probability_text_in_sentences():
    assert probability_text(0.9996) == "> 0.999" and probability_text(1.0) == "1.000"
    assert probability_text(0.0004) == "< 0.001" and probability_text(0.9499) == "0.949"


def test_one_precision_per_column():
    # the mixed -0.00455, -0.4, 0.0159 of a column get one precision: 3 significant digits of
    # the largest value
    assert column_decimals([-0.00455, -0.4, 0.0159]) == 3
    assert [fixed(v, 3) for v in (-0.00455, -0.4, 0.0159)] == ["-0.005", "-0.400", "0.016"]
    assert column_decimals([2.31, -12.5, np.nan]) == 1 and column_decimals([np.nan]) == 1
    assert fixed(-0.0001, 2) == "0.00" and fixed(np.nan, 2) == ""


# ------------------------------------------------------------------------- LaTeX pieces
def test_latex_escape_and_decimal_columns():
    assert latex_escape('j48_gr & "x" ±1 50%') == r"j48\_gr \& ``x'' $\pm$1 50\%"
    assert digits_of(["-0.40", "1.25", "12", ""]) == (2, 2) and digits_of(["0.1", "n/a"]) is None
    table = pd.DataFrame({"Model": ["a_1", "b"], "Mean": ["-0.41", "1.20"], "n": ["3", "12"]})
    tex = latex_table(table, "Caption with 5%", "tab:x")
    assert r"\begin{tabular}{@{}l D{.}{.}{2.2} D{.}{.}{2.0}@{}}" in tex
    assert r"\multicolumn{1}{c}{Mean}" in tex and r"a\_1 & -0.41 & 3 \\" in tex
    assert r"\caption{Caption with 5\%}" in tex and r"\small" in tex


@pytest.fixture(scope="module")
def uci() -> pd.DataFrame:
    return load_uci_weka()


@pytest.fixture(scope="module")
def signed_rank(uci):
    """The real data with the default rope 0.01 on percent scores: the rope-unit warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare(uci, rope=0.01, method="signed_rank", seed=1, nsamples=5000)


def test_pairs_table_of_a_method_without_interval(signed_rank):
    """Signed-rank gives no interval: no empty Interval column; the caption states the sign
    convention and what the mean is."""
    assert "Interval" not in display_pairs(signed_rank).columns
    table, caption, groups = paper_pairs(signed_rank)
    assert list(table.columns) == ["Pair", "Mean d", "P(first)", "P(rope)", "P(second)", "Decision"]
    assert groups == [] and table["Pair"].iloc[0] == "nbc vs aode"
    assert "d = second \u2212 first" in caption and "mean of per-data-set differences" in caption
    assert "exceeds 0.95" in caption and "on 54 data sets" in caption
    # one precision per column: every cell of a column has the same decimals
    for column in ("Mean d", "P(first)", "P(rope)", "P(second)"):
        assert len({len(cell.split(".")[1]) for cell in table[column]}) == 1
    mean = signed_rank.pairs["mean_difference"].iloc[0]
    assert float(table["Mean d"].iloc[0]) == pytest.approx(mean, abs=0.005)


def test_warnings_of_the_rope_units_are_in_the_result_and_the_reports(signed_rank):
    [rope] = [w for w in signed_rank.warnings if "looks like it is meant for scores in [0, 1]" in w]
    assert "e.g. rope=1" in rope
    assert signed_rank.to_dict()["warnings"] == signed_rank.warnings
    markdown = signed_rank.to_markdown()
    warnings_section = markdown.split("## Warnings")[1]
    assert rope in warnings_section and "does not sample with MCMC" in warnings_section
    html = signed_rank.to_html().replace("&#x27;", "'")
    assert rope.replace("±", "&#177;") in html or rope in html
    assert "Warning: The rope ±0.01 looks like" in str(signed_rank)


def test_the_rope_unit_warning_is_recorded_even_when_silenced(uci):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compare(uci, rope=0.01, models=["nbc", "hnb"], method="sign", seed=1)
    assert any("percentage points" in w for w in result.warnings)
    with pytest.warns(RopeScaleWarning):  # and still issued to the caller
        compare(uci, rope=0.01, models=["nbc", "hnb"], method="sign", seed=1)


def test_nothing_to_report_says_so(uci):
    result = compare(uci, rope=1, models=["nbc", "hnb"], method="sign", seed=1)
    assert result.warnings == []
    assert warning_lines(result)[0].startswith("None: no data were altered or left out")


def test_dropped_data_sets_are_warnings(uci):
    frame = uci[~((uci["model"] == "hnb") & (uci["dataset"] == "anneal"))]
    with pytest.warns(UserWarning, match="anneal"):
        result = compare(frame, rope=1, models=["nbc", "hnb"], method="sign", seed=1)
    assert any("'anneal' dropped (no scores for hnb)" in w for w in result.warnings)
    assert "'anneal' dropped" in result.to_markdown().split("## Warnings")[1]


@pytest.mark.stan
def test_constant_differences_and_their_spread_are_in_the_reports(uci, tmp_path):
    """j48 vs j48gr: 14 data sets have the same difference on every fold and are given a
    spread of half the rope width; the reports say so (Markdown and HTML)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compare(
            uci, rope=1, models=["j48", "j48gr"], seed=3, chains=2, draws=150, warmup=150
        )
    [spread] = [w for w in result.warnings if "same difference on every fold" in w]
    assert spread.startswith("j48 vs j48gr: 14 data set(s)") and "spread of ±1" in spread
    assert result["j48", "j48gr"].warnings[0] == spread.removeprefix("j48 vs j48gr: ")
    assert spread in result.to_markdown().split("## Warnings")[1]
    assert spread.replace("±", "&#177;") in result.to_html().replace("&#x27;", "'") or (
        spread in result.to_html()
    )
    tex = latex_tables(result)
    assert r"\multicolumn{2}{c}{95\% HDI}" in tex and "tab:diagnostics" in tex
    if PDFLATEX is not None:  # the widest tables (HDI, diagnostics) fit the page too
        result.write_report(tmp_path)
        (tmp_path / "article.tex").write_text(ARTICLE)
        for name in ("article.tex", "report.tex"):
            assert "Overfull \\hbox" not in pdflatex(tmp_path, name)


# ------------------------------------------------------------------------- pdflatex
PDFLATEX = shutil.which("pdflatex")
needs_pdflatex = pytest.mark.skipif(
    PDFLATEX is None,
    reason="pdflatex is not installed (apt-get install texlive-latex-base "
    "texlive-latex-recommended)",
)

#: A one-column article that loads only what tables.tex says it needs.
ARTICLE = r"""\documentclass{article}
\usepackage{booktabs}
\usepackage{dcolumn}
\begin{document}
\input{tables.tex}
\end{document}
"""


def pdflatex(folder: Path, name: str) -> str:
    """Compile ``name`` in ``folder``; the log (a failed run fails the test)."""
    done = subprocess.run(
        [PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", name],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (folder / name).with_suffix(".log").read_text(errors="replace")
    assert done.returncode == 0, log[-3000:]
    return log


@pytest.fixture(scope="module")
def cli_report(tmp_path_factory, uci) -> Path:
    """What ``bayes-hier compare`` writes for the real data (signed-rank: no Stan)."""
    folder = tmp_path_factory.mktemp("latex")
    uci.to_csv(folder / "uci.csv", index=False)
    done = bayes_hier(
        "compare",
        folder / "uci.csv",
        "--rope",
        "1",
        "--method",
        "signed_rank",
        "--seed",
        "1",
        "--quiet",
        "--out",
        folder / "report",
    )
    assert done.returncode == 0, done.stderr
    return folder / "report"


@pytest.mark.slow
@needs_pdflatex
def test_tables_tex_fits_a_one_column_article(cli_report):
    (cli_report / "article.tex").write_text(ARTICLE)
    log = pdflatex(cli_report, "article.tex")
    assert "Overfull \\hbox" not in log
    tex = (cli_report / "tables.tex").read_text()
    assert tex.count(r"\begin{table}") == 3 and tex.count(r"\small") == 3
    # at most 8 columns in every table
    for spec in re.findall(r"\\begin\{tabular\}\{@\{\}(.*)@\{\}\}", tex):
        assert len(re.findall(r"D\{\.\}\{\.\}\{\d\.\d\}|\bl\b", spec)) <= 8


@pytest.mark.slow
@needs_pdflatex
def test_report_tex_compiles_standalone(cli_report):
    log = pdflatex(cli_report, "report.tex")
    assert "Overfull \\hbox" not in log
    assert "LaTeX Warning: File" not in log  # every figure was found
    assert (cli_report / "report.pdf").stat().st_size > 20_000


def test_decisions_never_print_a_probability_across_the_threshold():
    from bayes_hier.decision import decide
    from bayes_hier.probabilities import Probabilities

    below = decide(Probabilities(0.9499, 0.05, 0.0001), ("a", "b"))
    assert (
        str(below) == "inconclusive: no outcome has probability above 0.95 (the largest is 0.949)"
    )
    above = decide(Probabilities(0.0, 0.0002, 0.9998), ("a", "b"))
    assert str(above) == "b better (probability 0.999 > 0.95)"


def test_two_model_summaries_end_with_their_warnings(uci):
    from bayes_hier import signed_rank_test

    with pytest.warns(RopeScaleWarning) as caught:
        result = signed_rank_test(uci, rope=0.01, models=("nbc", "hnb"), seed=1, nsamples=2000)
    assert caught[0].filename == __file__  # issued at the caller's line
    [text] = result.warnings
    assert result.summary().splitlines()[-1] == f"Warning: {text}"
    assert "give the rope in percentage points (e.g. rope=1)" in text


def test_pairs_fitted_again_are_named_in_the_method_lines():
    from types import SimpleNamespace

    from bayes_hier.compare.sentences import refit_sentence

    def pair(**settings):
        return SimpleNamespace(settings={"chains": 4, "draws": 1000, **settings})

    plain = {("A", "B"): pair()}
    assert refit_sentence(SimpleNamespace(pair_results=plain)) is None
    refitted = {
        **plain,
        ("A", "C"): pair(fallback_from={"coordinates": "scale-mixture", "problems": ["x"]}),
        ("B", "C"): pair(draws=4000, extended_from={"draws": 1000, "problems": ["y"]}),
    }
    assert refit_sentence(SimpleNamespace(pair_results=refitted)) == (
        "Refitted: 1 pair(s) failed a convergence check and were fitted again in two-chart "
        "coordinates: A vs C (first in scale-mixture); 1 pair(s) mixed slowly and were fitted "
        "again with more draws: B vs C (1000 -> 4000 draws per chain). Their diagnostics are "
        "those of the fit kept."
    )

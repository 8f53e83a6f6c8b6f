"""One order convention in every printed line: "A vs B" names the models in the order the user
gave them, and the difference is d = B - A (so "A better" is the left outcome).

Each entry point is called with the models in an order that is not alphabetical and not the
order of the data (hnb before nbc in the data, nbc given first), and its printed text is read.
"""

from __future__ import annotations

import warnings

import matplotlib
import pytest

from bayes_hier import (
    compare,
    correlated_ttest,
    hierarchical_test,
    sign_test,
    signed_rank_test,
)
from bayes_hier.compare import mirror
from bayes_hier.frequentist import wilcoxon_signed_rank

from .test_cli import bayes_hier
from .test_compare import make_frame

matplotlib.use("Agg")

#: In the data hnb comes first and is better by 0.01; the user asks for nbc vs hnb.
ORDER = ("nbc", "hnb")


@pytest.fixture(scope="module")
def frame():
    return make_frame({"hnb": 0.01, "nbc": 0.0, "j48": 0.005}, q=8, runs=1, folds=10)


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


@pytest.mark.parametrize(
    "test, first_line",
    [
        (sign_test, "Bayesian sign test: nbc vs hnb on 8 data sets"),
        (signed_rank_test, "Bayesian signed-rank test: nbc vs hnb on 8 data sets"),
    ],
)
def test_simplex_tests_print_the_models_in_the_order_given(frame, test, first_line):
    result = _quiet(lambda: test(frame, rope=0.002, models=ORDER, seed=1))
    lines = str(result).splitlines()
    assert lines[0].startswith(first_line)
    assert lines[1].startswith("  difference z = hnb - nbc")
    assert result.labels == {
        "left": "nbc better",
        "rope": "practically equivalent",
        "right": "hnb better",
    }
    assert ", nbc vs hnb: P(left, rope, right) = (" in repr(result)
    # hnb is better: the right outcome (d = hnb - nbc > 0) is the likeliest
    assert result.probs.right > result.probs.left


def test_correlated_t_prints_and_plots_the_models_in_the_order_given(frame):
    one = frame[frame["dataset"] == "set0"]
    result = _quiet(lambda: correlated_ttest(one, rope=0.002, models=ORDER))
    lines = str(result).splitlines()
    assert lines[0].startswith("Bayesian correlated t-test: nbc vs hnb, 1 run(s) x 10 folds")
    assert lines[1] == "  difference d = hnb - nbc"
    figure = result.plot()
    assert figure.axes[0].get_title() == "Bayesian correlated t-test: nbc vs hnb"
    assert figure.axes[0].get_xlabel() == "mean difference hnb \u2212 nbc"


def test_frequentist_interpretation_names_the_models_in_the_order_given(frame):
    result = wilcoxon_signed_rank(frame, models=ORDER)
    assert "(nbc vs hnb, hnb - nbc) = +" in result.interpretation


def test_compare_prints_pairs_in_the_order_given(frame):
    result = _quiet(
        lambda: compare(frame, rope=0.002, models=["nbc", "hnb", "j48"], method="sign", seed=1)
    )
    assert list(result.pair_results) == [("nbc", "hnb"), ("nbc", "j48"), ("hnb", "j48")]
    rows = str(result).splitlines()[2:5]
    assert [row.split()[:2] for row in rows] == [["nbc", "hnb"], ["nbc", "j48"], ["hnb", "j48"]]
    markdown = result.to_markdown()
    assert "| nbc | hnb |" in markdown
    tex = result.to_latex()
    assert "nbc vs hnb &" in tex and "d = second $-$ first" in tex
    figure = result.plot_pairs()
    labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert "nbc vs hnb" in labels and "hnb vs nbc" not in labels
    # the pair the other way round: its summary says so, in its own order
    swapped = mirror(result["nbc", "hnb"])
    assert swapped.summary().startswith("Bayesian sign test: first hnb, second nbc")
    assert result["hnb", "nbc"].probs.left == result["nbc", "hnb"].probs.right


@pytest.mark.slow
def test_the_pair_command_prints_the_models_in_the_order_given(frame, tmp_path):
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    done = bayes_hier("pair", path, "nbc", "hnb", "--rope", "0.002", "--method", "sign", "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Bayesian sign test: nbc vs hnb on 8 data sets")
    assert "P(hnb better" in done.stdout and "difference z = hnb - nbc" in done.stdout


@pytest.mark.stan
def test_hierarchical_test_prints_the_models_in_the_order_given(frame):
    fit = {"chains": 2, "draws": 200, "warmup": 200, "seed": 1}
    result = _quiet(lambda: hierarchical_test(frame, rope=0.002, models=ORDER, **fit))
    lines = result.summary().splitlines()
    assert lines[0].startswith("Bayesian hierarchical test: nbc vs hnb on 8 data sets")
    assert lines[1].startswith("  difference d = hnb - nbc")
    assert result.population.mean > 0  # hnb is better by 0.01
    titles = [ax.get_title() for ax in result.plot().axes]
    assert "nbc vs hnb: shrinkage of the per-data-set differences" in titles
    assert "nbc vs hnb: population of differences" in titles


@pytest.mark.stan
def test_joint_summary_names_the_first_model_first(frame):
    fit = {"chains": 2, "draws": 150, "warmup": 150}
    result = _quiet(
        lambda: compare(
            frame, rope=0.002, models=["nbc", "hnb", "j48"], method="joint", seed=1, **fit
        )
    )
    text = result.summary()
    assert "  nbc vs hnb: P(nbc better, rope, hnb better) = (" in text
    assert "  hnb vs j48: P(hnb better, rope, j48 better) = (" in text
    pair = result["nbc", "hnb"].summary().splitlines()[0]
    assert pair.startswith("Joint hierarchical model of 3 models, pair nbc vs hnb")

"""compare(): missing-data policy, control mode, seeds, mirror, tables, frequentist view, reports.

Most tests use the signed-rank and sign methods (no Stan); tests/test_compare_stan.py runs the
hierarchical method.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from bayes_hier import CVData, compare, correlated_ttest, sign_test, signed_rank_test
from bayes_hier.compare import ManyModelResult, MissingDataWarning, mirror, model_scores
from bayes_hier.compare.columns import detect_columns
from bayes_hier.compare.core import pair_seed
from bayes_hier.compare.numbers import probability_text
from bayes_hier.compare.sentences import pair_sentence
from bayes_hier.compare.tables import display_pairs
from bayes_hier.frequentist import critical_difference, friedman, wilcoxon_holm
from bayes_hier.probabilities import Probabilities
from bayes_hier.seeding import derive_seed

SHIFTS = {"a": 0.0, "b": 0.01, "c": 0.03, "d": 0.012}


def make_frame(
    shifts: dict[str, float] = SHIFTS, q: int = 8, runs: int = 2, folds: int = 5, seed: int = 0
) -> pd.DataFrame:
    """Tidy scores: model m scores base_i + shift_m + noise on fold (run, fold) of data set i."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(q):
        base = 0.7 + 0.02 * i
        for model, shift in shifts.items():
            noise = rng.normal(0, 0.01, runs * folds)
            for j in range(runs * folds):
                rows.append((f"set{i}", model, j // folds, j % folds, base + shift + noise[j]))
    return pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])


def quiet_compare(*args, **kwargs) -> ManyModelResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare(*args, **kwargs)


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return make_frame()


@pytest.fixture(scope="module")
def result(frame) -> ManyModelResult:
    return compare(frame, rope=0.005, method="signed_rank", seed=1, nsamples=5000)


# ------------------------------------------------------------------------- pairs and numbers
def test_all_pairs_in_model_order_and_each_equals_its_two_model_test(frame, result):
    assert list(result.pair_results) == [
        ("a", "b"),
        ("a", "c"),
        ("a", "d"),
        ("b", "c"),
        ("b", "d"),
        ("c", "d"),
    ]
    for (first, second), pair in result.pair_results.items():
        alone = signed_rank_test(
            frame,
            rope=0.005,
            models=(first, second),
            seed=derive_seed(1, first, second),
            nsamples=5000,
        )
        assert pair.probs == alone.probs
        assert pair.names == (first, second)


def test_pairs_table_reads_the_pair_results(result):
    table = result.pairs
    assert len(table) == 6
    for row in table.itertuples():
        probs = result[row.first, row.second].probs
        assert (row.p_first_better, row.p_rope, row.p_second_better) == tuple(probs)
        assert row.decision == result[row.first, row.second].decision(0.05).label
        assert row.n_datasets == 8 and row.n_dropped == 0
        cv = CVData.from_frame(result.scores.table, models=(row.first, row.second))
        assert row.mean_difference == pytest.approx(cv.means.mean(), rel=1e-12)
        assert math.isnan(row.max_rhat)  # no MCMC


def test_mirror_swaps_left_and_right_and_names(result):
    pair = result["a", "c"]
    other = result["c", "a"]
    assert other.names == ("c", "a")
    assert tuple(other.probs) == (pair.probs.right, pair.probs.rope, pair.probs.left)
    assert other.rope.low == -pair.rope.high and other.rope.high == -pair.rope.low
    assert other.decision().label == pair.decision().label  # the same model wins
    assert mirror(other) is pair
    sensitivity = pair.rope_sensitivity(max_rope=0.03, num=4)
    mirrored = other.rope_sensitivity(max_rope=0.03, num=4)
    np.testing.assert_array_equal(mirrored["left"], sensitivity["right"])
    np.testing.assert_array_equal(mirrored["right"], sensitivity["left"])
    assert "mirror of the pair as computed (a, c)" in other.summary()
    table, original = other.to_frame(), pair.to_frame()
    assert list(table["label"]) == ["c better", "practically equivalent", "a better"]
    np.testing.assert_array_equal(table["probability"], original["probability"][::-1])
    np.testing.assert_array_equal(table["mean_theta"], original["mean_theta"][::-1])
    with pytest.raises(AttributeError, match=r"'differences' is not mirrored.*result\['a', 'c'\]"):
        _ = other.differences


def test_matrices_are_consistent_with_the_pairs(result):
    better, rope, worse = (result.matrix(k) for k in ("better", "rope", "worse"))
    models = list(better.index)
    assert sorted(models) == ["a", "b", "c", "d"]
    for r in models:
        assert math.isnan(better.loc[r, r])
        for c in models:
            if r != c:
                total = better.loc[r, c] + rope.loc[r, c] + better.loc[c, r]
                assert total == pytest.approx(1.0, abs=1e-12)
                assert worse.loc[r, c] == better.loc[c, r]
                assert better.loc[r, c] == result[r, c].probs.left
    assert result.order[0] == "c"  # the best mean rank first
    with pytest.raises(ValueError, match="kind"):
        result.matrix("best")


def test_frequentist_view_reuses_the_frequentist_module(frame, result):
    view = result.frequentist
    means = frame.groupby(["dataset", "model"], sort=False)["score"].mean().unstack()
    means = means.reindex(columns=["a", "b", "c", "d"])
    direct = friedman(means)
    assert view.friedman.statistic == pytest.approx(direct.statistic, rel=1e-12)
    assert view.nemenyi.cd == pytest.approx(critical_difference(4, 8)[0], rel=1e-12)
    holm = wilcoxon_holm(means)
    np.testing.assert_allclose(view.wilcoxon_holm.pairwise["p_holm"], holm.pairwise["p_holm"])
    assert "8 data sets" in view.note


# ------------------------------------------------------------------------- seeds
def test_a_pairs_numbers_do_not_depend_on_the_other_pairs(frame, result):
    reordered = compare(
        frame, rope=0.005, method="signed_rank", seed=1, nsamples=5000, models=["d", "a", "c", "b"]
    )
    assert reordered["a", "c"].probs == result["a", "c"].probs  # other pairs ran before it
    subset = compare(
        frame, rope=0.005, method="signed_rank", seed=1, nsamples=5000, models=["a", "c"]
    )
    assert subset["a", "c"].probs == result["a", "c"].probs
    # the seed of a pair is symmetric in the names
    assert pair_seed(1, "a", "c") == pair_seed(1, "c", "a") == derive_seed(1, "a", "c")
    # the other orientation is a different sample of the same posterior: equal within MC error
    flipped = reordered["d", "a"]
    assert flipped.names == ("d", "a")
    np.testing.assert_allclose(tuple(flipped.probs), tuple(result["d", "a"].probs), atol=0.02)


def test_jobs_do_not_change_sample_based_pairs(frame, result):
    again = compare(frame, rope=0.005, method="signed_rank", seed=1, nsamples=5000, jobs=2)
    assert again.pairs.drop(columns="seed").equals(result.pairs.drop(columns="seed"))
    assert again.settings["pair_seeds"] == result.settings["pair_seeds"]


# ------------------------------------------------------------------------- control
def test_control_mode_compares_every_model_with_the_control(frame):
    result = compare(frame, rope=0.005, method="sign", control="b", seed=2, nsamples=5000)
    assert list(result.pair_results) == [("b", "a"), ("b", "c"), ("b", "d")]
    for other in ("a", "c", "d"):
        alone = sign_test(
            frame,
            rope=0.005,
            models=("b", other),
            seed=pair_seed(2, "b", other),
            nsamples=5000,
        )
        assert result["b", other].probs == alone.probs
    with pytest.raises(KeyError, match="were not compared"):
        result["a", "c"]
    better = result.matrix("better")
    assert math.isnan(better.loc["a", "c"]) and not math.isnan(better.loc["a", "b"])
    assert "compared with b only" in result.to_markdown()
    with pytest.raises(ValueError, match="control model 'z'"):
        compare(frame, rope=0.005, method="sign", control="z")


# ------------------------------------------------------------------------- missing data
def test_missing_model_on_a_data_set_drops_it_from_that_models_pairs_only(frame):
    holed = frame[~((frame["model"] == "c") & (frame["dataset"] == "set3"))]
    with pytest.warns(MissingDataWarning, match="'set3' dropped \\(no scores for c\\)"):
        result = compare(holed, rope=0.005, method="signed_rank", seed=1, nsamples=2000)
    usage = result.usage
    assert "set3" not in usage["a", "c"].datasets and len(usage["a", "c"].datasets) == 7
    assert usage["a", "c"].dropped == {"set3": "no scores for c"}
    assert usage["a", "b"].complete and len(usage["a", "b"].datasets) == 8
    table = result.pairs.set_index(["first", "second"])
    assert table.loc[("a", "c"), "n_datasets"] == 7 and table.loc[("a", "b"), "n_datasets"] == 8
    # the rank-based tests use complete blocks only, and say so
    assert "set3" not in result.frequentist.scores.index
    assert result.frequentist.friedman.n_datasets == 7
    assert "left out: set3 (incomplete for c)" in result.frequentist.note
    assert "data set 'set3' dropped" in result.to_markdown()


def test_unpaired_folds_are_left_out_and_the_rest_stay_paired(frame):
    holed = frame.copy()
    target = (holed["model"] == "b") & (holed["dataset"] == "set0")
    holed.loc[target & (holed["run"] == 1) & (holed["fold"] == 2), "score"] = np.nan
    holed = holed[~(target & (holed["run"] == 0) & (holed["fold"] == 4))]
    with pytest.warns(MissingDataWarning, match="'set0' uses 8 paired folds \\(2 unpaired"):
        result = compare(holed, rope=0.005, method="signed_rank", seed=1, nsamples=2000)
    usage = result.usage["a", "b"]
    assert usage.folds["set0"] == 8 and usage.partial == {"set0": 2}
    # the analysed per-data-set difference is the mean over the 8 paired cells
    wide = (
        holed[holed["dataset"] == "set0"]
        .pivot_table(index=["run", "fold"], columns="model", values="score")
        .dropna(subset=["a", "b"])
    )
    expected = float((wide["b"] - wide["a"]).mean())
    assert result["a", "b"].differences[0] == pytest.approx(expected, rel=1e-12)
    # other pairs are complete
    assert result.usage["a", "c"].complete


def test_data_set_with_too_few_paired_folds_is_dropped(frame):
    holed = frame[~((frame["model"] == "d") & (frame["dataset"] == "set5") & (frame["fold"] > 0))]
    with pytest.warns(MissingDataWarning, match="'set5' dropped \\(2 paired folds, fewer than 3"):
        result = compare(
            holed, rope=0.005, method="signed_rank", seed=1, nsamples=2000, min_folds=3
        )
    assert "set5" not in result.usage["a", "d"].datasets


def test_complete_pairs_are_built_exactly_as_cvdata_from_frame(frame):
    scores = model_scores(frame)
    cv, usage = scores.pair("b", "d")
    reference = CVData.from_frame(frame, models=("b", "d"))
    assert usage.complete
    for ours, theirs in zip(cv.differences, reference.differences):
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(cv.runs, reference.runs)
    np.testing.assert_array_equal(cv.rho, reference.rho)
    assert cv.datasets == reference.datasets


def test_duplicated_rows_are_an_error(frame):
    doubled = pd.concat([frame, frame.iloc[[5]]])
    with pytest.raises(ValueError, match="share a \\(dataset, model, run, fold\\)"):
        compare(doubled, rope=0.005, method="sign")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f[f["model"] == "a"], "needs at least two"),
        (
            lambda f: f.assign(score=f["score"].astype(object).where(f.index != 3, "oops")),
            "non-numeric value",
        ),
        (lambda f: f.rename(columns={"fold": "k"}), "no fold column"),
    ],
)
def test_bad_frames_raise_clear_errors(frame, change, message):
    with pytest.raises(ValueError, match=message):
        compare(change(frame), rope=0.005, method="sign")


def test_dict_of_matrices_gives_the_frame_result(frame):
    matrices = {
        model: part.pivot_table(
            index="dataset", columns=["run", "fold"], values="score", sort=False
        ).sort_index(axis=1)
        for model, part in frame.groupby("model", sort=False)
    }
    from_dict = compare(matrices, rope=0.005, method="signed_rank", seed=1, nsamples=5000, runs=2)
    from_frame = compare(frame, rope=0.005, method="signed_rank", seed=1, nsamples=5000)
    assert from_dict["a", "c"].probs == from_frame["a", "c"].probs
    np.testing.assert_allclose(from_dict["a", "c"].differences, from_frame["a", "c"].differences)


def test_folds_numbered_across_runs_keep_the_runs_design(frame):
    """Run 1 holding folds 5-9 is the same 2 x 5-fold design: rho = 1/5, not 1/10."""
    across = frame.assign(fold=frame["fold"] + 5 * frame["run"])
    cv, usage = model_scores(across).pair("a", "c")
    reference, _ = model_scores(frame).pair("a", "c")
    assert usage.complete and model_scores(across).design()["folds"].eq(5).all()
    np.testing.assert_array_equal(cv.runs, reference.runs)
    np.testing.assert_array_equal(cv.rho, np.full(8, 0.2))


@pytest.mark.parametrize(
    ("runs", "error", "message"),
    [
        (2.5, ValueError, "runs must be a whole number"),
        (True, TypeError, "runs must be an integer"),
        (0, ValueError, "runs must be at least 1"),
    ],
)
def test_runs_is_a_positive_integer(frame, runs, error, message):
    matrices = {"a": np.ones((2, 10)), "b": np.ones((2, 10))}
    with pytest.raises(error, match=message):
        compare(matrices, rope=0.005, method="sign", runs=runs)


def test_min_folds_is_a_whole_number_of_at_least_two(frame):
    with pytest.raises(ValueError, match="min_folds must be a whole number"):
        compare(frame, rope=0.005, method="sign", min_folds=2.9)
    with pytest.raises(ValueError, match="min_folds must be at least 2"):
        compare(frame, rope=0.005, method="sign", min_folds=1)


def test_runs_with_a_tidy_frame_is_an_error(frame):
    with pytest.raises(ValueError, match="runs=2 is for a dict of score matrices"):
        compare(frame, rope=0.005, method="sign", runs=2)


# ------------------------------------------------------------------------- methods
def test_the_hierarchical_method_takes_the_mcmc_keywords_of_its_test():
    from bayes_hier.compare.methods import METHODS
    from bayes_hier.fitting import SamplerKeywords

    options = METHODS["hierarchical"].options()
    assert set(SamplerKeywords.__annotations__) <= options
    assert {"nu_prior", "hdi_prob", "sigma_factor"} <= options
    assert not {"seed", "rope", "sampler"} & options


def test_method_and_option_errors(frame):
    with pytest.raises(ValueError, match="Unknown method 'bayes'"):
        compare(frame, method="bayes")
    with pytest.raises(TypeError, match="does not take \\['draws'\\]"):
        compare(frame, method="signed_rank", draws=10)
    for method in ("hierarchical", "signed_rank", "sign"):
        with pytest.raises(
            ValueError,
            match=f"1 usable data set\\(s\\), the {method} method needs "
            "at least 2 \\(nothing was left out\\)",
        ):
            compare(frame[frame["dataset"] == "set0"], method=method)


def test_one_data_set_defaults_to_the_correlated_t_test(frame):
    one = frame[frame["dataset"] == "set2"]
    result = compare(one, rope=0.005, models=["a", "c"])
    assert result.method == "correlated_t"
    alone = correlated_ttest(one, rope=0.005, models=("a", "c"))
    assert result["a", "c"].probs == alone.probs
    row = result.pairs.iloc[0]
    assert (row.hdi_low, row.hdi_high) == pytest.approx(alone.hdi())
    assert result.frequentist.friedman is None


def test_lower_is_better_flips_the_winner(frame):
    errors = frame.assign(score=1 - frame["score"])
    higher = compare(frame, rope=0.005, method="sign", seed=4, nsamples=4000, models=["a", "c"])
    lower = compare(
        errors,
        rope=0.005,
        method="sign",
        seed=4,
        nsamples=4000,
        models=["a", "c"],
        higher_is_better=False,
    )
    assert higher["a", "c"].decision().label == lower["a", "c"].decision().label == "c better"


# ------------------------------------------------------------------------- text and files
def test_sentences_are_functions_of_the_numbers(result):
    for pair, sentence in zip(result.pair_results, result.sentences()):
        probs = result[pair].probs
        decision = result[pair].decision()
        assert sentence == pair_sentence(result, pair)
        if decision.outcome == "right":
            assert sentence.startswith(
                f"{pair[1]} is better than {pair[0]} with probability "
                f"{probability_text(probs.right)}"
            )
        elif decision.outcome == "inconclusive":
            assert "no decision" in sentence
    assert probability_text(0.9996) == "> 0.999" and probability_text(0.25) == "0.250"


def test_write_report_files(result, tmp_path):
    written = result.write_report(tmp_path)
    for name in (
        "report.md",
        "report.html",
        "tables.tex",
        "pairs.csv",
        "heatmap.png",
        "heatmap.svg",
        "pairs.svg",
        "cd_diagram.png",
    ):
        assert written[name].is_file()
    markdown = (tmp_path / "report.md").read_text()
    for sentence in result.sentences():
        assert sentence in markdown
    html = (tmp_path / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 3
    assert 'src="http' not in html and "<link" not in html  # self-contained
    assert result.frequentist.friedman.interpretation in html.replace("&#x27;", "'")
    tex = (tmp_path / "tables.tex").read_text()
    for rule in ("\\toprule", "\\midrule", "\\bottomrule"):
        assert tex.count(rule) == 3
    csv = pd.read_csv(tmp_path / "pairs.csv")
    np.testing.assert_allclose(csv["p_rope"], result.pairs["p_rope"])
    assert "Warnings" in markdown and "does not sample with MCMC" in markdown
    # the data, rope, prior, seed, sampler and versions are stated
    assert "Cross-validation: 2 run(s) x 5 folds on every data set (8)." in markdown
    assert "the rope is ±0.005 in the units of the score column 'score'" in markdown
    assert "Prior: a Dirichlet process of strength 0.5." in markdown and "Seed: 1;" in markdown
    assert "Posterior: 5000 samples of the Dirichlet process posterior." in markdown
    assert "Versions: bayes_hier " in markdown and "{'" not in markdown  # no Python repr


def test_to_dict_is_json_and_terminal_summary_fits(result):
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["pairs"][0]["p_rope"] == result.pairs["p_rope"].iloc[0]
    assert payload["frequentist"]["nemenyi_cd"] == pytest.approx(result.frequentist.nemenyi.cd)
    assert max(len(line) for line in str(result).splitlines()) <= 100


def test_pairs_that_did_not_converge_declare_nothing_with_the_fits_own_thresholds():
    from bayes_hier.decision import decide
    from bayes_hier.diagnostics import convergence_problems, diagnostic_problems
    from bayes_hier.rope import Rope

    class Fake:
        def __init__(self, names, diagnostics):
            self.names = names
            self.probs = Probabilities(0.01, 0.02, 0.97)
            self.diagnostics = diagnostics

        def decision(self, alpha):
            return decide(self.probs, self.names, alpha, convergence_problems(self.diagnostics))

    good = {
        "divergences": 0,
        "max_rhat": 1.003,
        "min_ess_bulk": 350.0,  # above 100 per chain for 2 chains: passes, as the fit itself does
        "min_ess_tail": 300.0,
        "max_treedepth_hits": 0,
        "min_ebfmi": 0.9,
        "chains": 2,
        "draws": 500,
    }
    bad = {**good, "divergences": 3, "max_rhat": 1.02}
    thin_tails = {**good, "min_ess_tail": 150.0}  # below 100 per chain: only the tails fail
    result = ManyModelResult(
        {
            ("x", "y"): Fake(("x", "y"), bad),
            ("x", "z"): Fake(("x", "z"), good),
            ("y", "z"): Fake(("y", "z"), thin_tails),
        },
        models=("x", "y", "z"),
        method="fake",
        rope=Rope(-1, 1),
    )
    assert result.problems == {
        ("x", "y"): diagnostic_problems(bad),
        ("y", "z"): diagnostic_problems(thin_tails),
    }
    assert result.not_converged == [("x", "y"), ("y", "z")]
    table = result.pairs.set_index(["first", "second"])
    assert table.loc[("x", "y"), "decision"] == "not converged"
    assert table.loc[("x", "z"), "decision"] == "z better"
    # the table shows the failed check: the tail ESS next to a bulk ESS that passed
    assert table.loc[("y", "z"), "decision"] == "not converged"
    assert table.loc[("y", "z"), ["min_ess_bulk", "min_ess_tail"]].tolist() == [350.0, 150.0]
    shown = display_pairs(result)[["Bulk ESS", "Tail ESS"]]
    assert shown.values.tolist() == [["350", "300"], ["350", "300"], ["350", "150"]]
    sentence = result.sentences()[0]
    assert sentence.startswith("x vs y: not converged, so no outcome is declared")
    assert "adapt_delta=0.99" in sentence  # the fix is stated
    assert any(line.startswith("x vs y: 3 divergent transitions") for line in result.warnings)


# ------------------------------------------------------------------------- columns
def test_detect_columns():
    raw = pd.DataFrame(
        {"dataset": ["d"], "classifier": ["m"], "run": [0], "fold": [0], "accuracy_percent": [90.0]}
    )
    assert detect_columns(raw) == {
        "dataset": "dataset",
        "model": "classifier",
        "run": "run",
        "fold": "fold",
        "score": "accuracy_percent",
    }
    two = raw.assign(time=1.0)
    with pytest.raises(ValueError, match="Several numeric columns could be the score"):
        detect_columns(two)
    assert detect_columns(two, {"score": "time"})["score"] == "time"
    with pytest.raises(ValueError, match="No column 'acc' for the score"):
        detect_columns(raw, {"score": "acc"})
    with pytest.raises(ValueError, match="No model column found"):
        detect_columns(raw.rename(columns={"classifier": "who"}))


# ------------------------------------------------------------------------- extension point
class RankedResult(ManyModelResult):
    """A comparison result with an extra attribute, as a joint model of all k models gives."""

    def __init__(self, pairs, *, p_best, **kwargs):
        super().__init__(pairs, **kwargs)
        self.p_best = p_best


def fake_joint(scores, pairs, rope, seed, *, nsamples=1000):
    """All pairs in one call: signed-rank per pair, plus P(best) from the mean ranks."""
    results = {
        (a, b): signed_rank_test(
            scores.table, rope=rope, models=(a, b), seed=seed, nsamples=nsamples
        )
        for a, b in pairs
    }
    table, _ = scores.complete_blocks()
    best = table.rank(axis=1, ascending=False).eq(1).mean()
    return results, {"p_best": best}


def test_a_joint_method_plugs_into_the_dispatch_table(frame, monkeypatch, tmp_path):
    from bayes_hier.compare import METHODS, PairMethod

    entry = PairMethod(
        "joint_test", fake_joint, "on a new data set", 2, joint=True, result_class=RankedResult
    )
    monkeypatch.setitem(METHODS, "joint_test", entry)
    result = compare(frame, rope=0.005, method="joint_test", seed=3, nsamples=2000)
    assert isinstance(result, RankedResult)
    assert result.p_best.idxmax() == "c" and result.p_best.sum() == pytest.approx(1.0)
    alone = signed_rank_test(frame, rope=0.005, models=("a", "c"), seed=3, nsamples=2000)
    assert result["a", "c"].probs == alone.probs
    assert result["c", "a"].probs.left == alone.probs.right
    assert len(result.pairs) == 6
    assert result.write_report(tmp_path / "r")["report.html"].is_file()
    with pytest.raises(TypeError, match="does not take \\['draws'\\]"):
        compare(frame, method="joint_test", draws=5)


def test_a_pair_counts_only_its_own_models_cells(frame):
    extra = frame[(frame["model"] == "d") & (frame["dataset"] == "set1") & (frame["run"] == 0)]
    with_extra_run = pd.concat([frame, extra.assign(run=2)])  # d alone has a third run on set1
    scores = model_scores(with_extra_run)
    cv, usage = scores.pair("a", "b")
    assert usage.complete and cv.runs[1] == 2 and cv.rho[1] == pytest.approx(0.2)
    cv, usage = scores.pair("a", "d")
    assert usage.partial == {"set1": 5} and usage.folds["set1"] == 10
    assert cv.runs[1] == 1 and cv.rho[1] == pytest.approx(1 / 5)


def test_figures_draw_the_results_numbers(result):
    import matplotlib.pyplot as plt

    heatmap = result.plot_heatmap()
    matrix = result.matrix("better")
    shown = [float(t.get_text()) for t in heatmap.axes[0].texts]
    expected = [v for v in matrix.to_numpy().ravel() if not np.isnan(v)]
    np.testing.assert_allclose(shown, expected, atol=0.01)  # rounded toward 1/2
    assert all((s <= e) if e >= 0.5 else (s >= e) for s, e in zip(shown, expected))
    assert [t.get_text() for t in heatmap.axes[0].get_yticklabels()] == result.order
    bars = result.plot_pairs()
    widths = np.array([p.get_width() for p in bars.axes[0].patches]).reshape(3, -1).T
    columns = ["p_first_better", "p_rope", "p_second_better"]
    np.testing.assert_allclose(widths, result.pairs[columns].to_numpy())
    cd = result.plot_cd_diagram()
    assert any(
        t.get_text() == f"CD = {result.frequentist.nemenyi.cd:.2f}" for t in cd.axes[0].texts
    )
    plt.close("all")


def test_only_the_packages_own_warnings_are_passed_on(monkeypatch):
    """A library's warning about its internals (met while a worker imports the engine) is
    dropped; one the package issues is returned with its category and text."""
    import warnings as warnings_module

    from bayes_hier.compare import methods
    from bayes_hier.rope import Rope

    def fake_run_pair(*args):
        warnings_module.warn_explicit("about the data", UserWarning, methods.__file__, 1)
        warnings_module.warn_explicit("internal", DeprecationWarning, warnings_module.__file__, 1)
        return "result"

    monkeypatch.setattr(methods, "run_pair", fake_run_pair)
    outcome = methods.run_pair_reporting_warnings("hierarchical", None, Rope(-1, 1), 0, {})
    assert outcome == ("result", [(UserWarning, "about the data")])


def test_a_pairs_differences_follow_run_and_fold_whatever_the_row_order():
    """Each data set's differences are in run-major (run, fold) order and the data sets in the
    order of first appearance, however the rows are shuffled (the cells of every data set are
    paired at once, then cut per data set)."""
    rng = np.random.default_rng(5)
    rows = [
        {"dataset": name, "model": m, "run": r, "fold": f, "score": rng.normal()}
        for name in ("zeta", "alpha", "mid")
        for m in ("a", "b")
        for r in range(2)
        for f in range(3)
    ]
    ordered = pd.DataFrame(rows)
    shuffled = ordered.sample(frac=1.0, random_state=3).reset_index(drop=True)
    shuffled = shuffled.drop(
        shuffled.index[
            (shuffled["dataset"] == "mid")
            & (shuffled["model"] == "b")
            & (shuffled["run"] == 1)
            & (shuffled["fold"] == 0)
        ]
    )
    cv, usage = model_scores(shuffled).pair("a", "b")
    first_seen = tuple(pd.unique(shuffled["dataset"]))
    assert cv.datasets == first_seen and usage.partial == {"mid": 1}
    for name, differences in zip(cv.datasets, cv.differences):
        part = ordered[ordered["dataset"] == name].pivot_table(
            index=["run", "fold"], columns="model", values="score"
        )
        if name == "mid":
            part = part.drop(index=(1, 0))
        np.testing.assert_array_equal(differences, (part["b"] - part["a"]).to_numpy())

import numpy as np
import pandas as pd
import pytest

from bayes_hier import CVData


def tidy(x: np.ndarray, y: np.ndarray, runs: int, names=("a", "b")) -> pd.DataFrame:
    q, n = x.shape
    folds = n // runs
    rows = []
    for model, scores in zip(names, (x, y)):
        for i in range(q):
            for j in range(n):
                rows.append((f"d{i}", model, j // folds, j % folds, scores[i, j]))
    return pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])


@pytest.fixture
def scores():
    rng = np.random.default_rng(3)
    x = rng.uniform(0.6, 0.9, (4, 20))
    return x, x + rng.normal(0.01, 0.02, (4, 20))


def test_from_arrays_computes_differences_and_statistics(scores):
    x, y = scores
    cv = CVData.from_arrays(x, y, runs=2, names=("a", "b"))
    d = y - x
    assert cv.q == 4 and list(cv.n) == [20] * 4
    np.testing.assert_allclose(cv.means, d.mean(axis=1))
    np.testing.assert_allclose(cv.sum_of_squares, ((d - d.mean(1, keepdims=True)) ** 2).sum(1))
    np.testing.assert_allclose(cv.stds, d.std(axis=1, ddof=1))
    assert list(cv.folds) == [10] * 4
    np.testing.assert_allclose(cv.rho, 0.1)  # 1 / folds
    se = d.std(axis=1, ddof=1) * np.sqrt(1 / 20 + 0.1 / 0.9)
    np.testing.assert_allclose(cv.standard_errors, se)


def test_lower_is_better_negates(scores):
    x, y = scores
    cv = CVData.from_arrays(x, y, runs=2, higher_is_better=False)
    np.testing.assert_allclose(cv.means, (x - y).mean(axis=1))


def test_frame_and_arrays_agree(scores):
    x, y = scores
    from_frame = CVData.from_frame(tidy(x, y, runs=2), models=("a", "b"))
    from_arrays = CVData.from_arrays(x, y, runs=2)
    assert from_frame.datasets == ("d0", "d1", "d2", "d3")
    assert from_frame.names == ("a", "b")
    for u, v in zip(from_frame.differences, from_arrays.differences):
        np.testing.assert_allclose(u, v)
    np.testing.assert_array_equal(from_frame.runs, 2)


def test_frame_order_of_rows_does_not_matter(scores):
    x, y = scores
    frame = tidy(x, y, runs=2)
    shuffled = frame.sample(frac=1.0, random_state=1)
    a = CVData.from_frame(frame, models=("a", "b"))
    b = CVData.from_frame(shuffled, models=("a", "b"))
    by_name = dict(zip(b.datasets, b.differences))
    assert set(by_name) == set(a.datasets)
    for name, d in zip(a.datasets, a.differences):
        np.testing.assert_allclose(by_name[name], d)


def test_frame_with_custom_column_names(scores):
    x, y = scores
    frame = tidy(x, y, runs=2).rename(columns={"model": "classifier", "score": "acc"})
    cv = CVData.from_frame(
        frame, models=("b", "a"), columns={"model": "classifier", "score": "acc"}
    )
    np.testing.assert_allclose(cv.means, (x - y).mean(axis=1))


def test_ragged_design():
    x = [np.linspace(0.7, 0.8, 10), np.linspace(0.6, 0.7, 20)]
    y = [v + 0.01 * np.cos(np.arange(v.size)) for v in x]
    cv = CVData.from_arrays(x, y, runs=[1, 2])
    assert list(cv.n) == [10, 20] and list(cv.folds) == [10, 10]


@pytest.mark.parametrize(
    ("x", "y", "kwargs", "message"),
    [
        (np.array([[0.1, np.nan, 0.3]]), np.ones((1, 3)), {}, "NaN or infinite"),
        (np.array([[0.1, np.inf, 0.3]]), np.ones((1, 3)), {}, "NaN or infinite"),
        (np.ones((2, 1)), np.ones((2, 1)), {}, "at least 2 paired fold results"),
        (np.ones((2, 10)), np.ones((2, 12)), {}, "different shapes"),
        (np.ones((2, 10)), np.ones((3, 10)), {}, "same data sets"),
        (np.ones((1, 10)), np.ones((1, 10)), {"runs": 3}, "not a multiple of runs=3"),
        (np.ones((1, 10)), np.ones((1, 10)), {"runs": 10}, "at least 2 folds"),
        (np.ones((1, 10)), np.ones((1, 10)), {"rho": 1.0}, "strictly between 0 and 1"),
        (np.ones((1, 10)), np.ones((1, 10)), {"rho": 0.0}, "strictly between 0 and 1"),
        (np.ones((1, 10)), np.ones((1, 10)), {"names": ("a", "a")}, "two different model names"),
    ],
)
def test_bad_arrays_raise_with_explanation(x, y, kwargs, message):
    with pytest.raises(ValueError, match=message):
        CVData.from_arrays(x, y, **kwargs)


def test_frame_with_unpaired_fold_is_rejected(scores):
    x, y = scores
    frame = tidy(x, y, runs=2)
    frame = frame.drop(frame.index[(frame.model == "b")][5])
    with pytest.raises(ValueError, match=r"scored for one model only.*lacks \['b'\]"):
        CVData.from_frame(frame, models=("a", "b"))


def test_frame_with_duplicates_is_rejected(scores):
    x, y = scores
    frame = tidy(x, y, runs=2)
    frame = pd.concat([frame, frame.iloc[[0]]])
    with pytest.raises(ValueError, match="sharing a \\(dataset, run, fold\\)"):
        CVData.from_frame(frame, models=("a", "b"))


def test_frame_with_nan_score_names_the_fold(scores):
    x, y = scores
    frame = tidy(x, y, runs=2)
    frame.loc[3, "score"] = np.nan
    with pytest.raises(ValueError, match="NaN, infinite or non-numeric"):
        CVData.from_frame(frame, models=("a", "b"))


def test_frame_needs_models_when_more_than_two(scores):
    x, y = scores
    frame = tidy(x, y, runs=2)
    third = frame[frame.model == "a"].assign(model="c")
    with pytest.raises(ValueError, match="say which two"):
        CVData.from_frame(pd.concat([frame, third]))
    with pytest.raises(ValueError, match="not in the frame"):
        CVData.from_frame(frame, models=("a", "z"))


def test_frame_missing_column_says_how_to_name_it(scores):
    x, y = scores
    with pytest.raises(ValueError, match=r"no score column 'score'.*columns="):
        CVData.from_frame(tidy(x, y, 2).rename(columns={"score": "acc"}), models=("a", "b"))


def test_rope_from_cvdata_warns_on_unit_mismatch():
    from bayes_hier import RopeScaleWarning

    x = np.full((2, 10), 80.0)
    y = x + np.arange(10)
    cv = CVData.from_arrays(x, y)
    with pytest.warns(RopeScaleWarning):
        cv.rope(0.01)


def test_real_data_shape(uci):
    cv = CVData.from_frame(uci, models=("j48", "j48gr"))
    assert cv.q == 54 and set(cv.n) == {100} and set(cv.runs) == {10}
    np.testing.assert_allclose(cv.rho, 0.1)


def test_runs_not_given_means_one_run_and_warns_for_long_rows():
    x = np.zeros((2, 100))
    y = x + np.linspace(0, 1, 100)
    with pytest.warns(UserWarning, match="runs=10 for 10 runs of 10 folds"):
        cv = CVData.from_arrays(x, y)
    assert list(cv.runs) == [1, 1]
    np.testing.assert_allclose(cv.rho, 0.01)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CVData.from_arrays(x[:, :10], y[:, :10])


def test_all_equal_differences_have_their_value_as_mean_and_no_spread():
    """0.7 summed 100 times and divided by 100 is 0.7000000000000002: the statistics of a data
    set with equal differences are exact, so the hierarchical model sees it as constant."""
    from bayes_hier.hierarchical.model_input import perturb_constant
    from bayes_hier.rope import Rope

    x = np.zeros((2, 100))
    y = np.vstack([np.full(100, 0.7), np.linspace(0.6, 0.8, 100)])
    cv = CVData.from_arrays(x, y, runs=10, datasets=["constant", "spread"])
    assert cv.means[0] == 0.7 and cv.sum_of_squares[0] == 0.0 and cv.stds[0] == 0.0
    assert cv.means[1] == pytest.approx(0.7) and cv.sum_of_squares[1] > 0
    _, perturbed = perturb_constant(cv, Rope(-0.01, 0.01), np.random.default_rng(0))
    assert perturbed == ("constant",)


@pytest.mark.parametrize("source", ["arrays", "frame", "compare"])
def test_many_folds_without_runs_warn_at_the_callers_line(source):
    """100 results per data set with no run information are taken as one 100-fold run
    (rho = 1/100): each input form says so, pointing at the line of the user's call."""
    import warnings

    from bayes_hier import compare, correlated_ttest

    rng = np.random.default_rng(0)
    x, y = rng.normal(0.8, 0.01, 100), rng.normal(0.81, 0.01, 100)
    frame = pd.DataFrame(
        {"model": np.repeat(["a", "b"], 100), "fold": np.tile(np.arange(100), 2), "score": [*x, *y]}
    )
    calls = {
        "arrays": lambda: correlated_ttest(x, y, rope=0.01),
        "frame": lambda: correlated_ttest(frame, rope=0.01),
        "compare": lambda: compare(frame, rope=0.01),
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calls[source]()
    [warning] = [w for w in caught if "taken as one run of 100-fold" in str(w.message)]
    assert warning.filename == __file__
    assert ("runs not given" if source == "arrays" else "no run column 'run'") in str(
        warning.message
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        runs = frame.assign(run=frame["fold"] // 10, fold=frame["fold"] % 10)
        assert correlated_ttest(runs, rope=0.01).rho == pytest.approx(0.1)
        assert correlated_ttest(x, y, rope=0.01, runs=10).rho == pytest.approx(0.1)


@pytest.mark.parametrize("role", ["dataset", "model", "run", "fold"])
def test_rows_missing_a_key_are_an_error_for_every_tidy_entry_point(role):
    """A row without its data set, model, run or fold cannot be paired: every reader of tidy
    frames says which column, instead of dropping it (compare counted it as unpaired)."""
    from bayes_hier import compare, correlated_ttest
    from bayes_hier.frequentist import friedman

    rng = np.random.default_rng(0)
    rows = [
        (f"d{i}", m, r, f, rng.normal(0.8, 0.02))
        for i in range(3)
        for m in "abc"
        for r in range(2)
        for f in range(5)
    ]
    frame = pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])
    frame[role] = frame[role].astype(object)
    frame.loc[3, role] = None
    message = f"The {role} column '{role}' has 1 missing value"
    for call in (
        lambda: correlated_ttest(frame, rope=0.01, models=("a", "b")),
        lambda: compare(frame, rope=0.01, method="sign"),
        lambda: friedman(frame),
    ):
        with pytest.raises(ValueError, match=message):
            call()

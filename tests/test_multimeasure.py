"""Joint analysis of several performance measures (user guide, Model and conventions §4): counts,
GLRT, Dirichlet and BN."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from scipy import stats

from bayes_hier.multimeasure import (
    MAX_BN_MEASURES,
    MAX_MEASURES,
    DominanceCounts,
    bayesian_dominance,
    bdeu_score,
    dominance_counts,
    glrt,
    learn_structure,
)
from bayes_hier.multimeasure import dirichlet as dirichlet_module
from bayes_hier.multimeasure.dirichlet import winner_shares

MEASURES = ("accuracy", "time")


def scores_from_bits(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) with higher-is-better measures such that B is better exactly where bits == 1."""
    bits = np.asarray(bits, dtype=float)
    return np.zeros_like(bits), 2 * bits - 1


def expected_lambda(n_a: float, n_b: float) -> float:
    """lambda(n) = ((n_a + n_b)/2)^(n_a + n_b) / (n_a^n_a n_b^n_b), straight from conventions §4."""
    total = n_a + n_b
    return (total / 2) ** total / (n_a**n_a * n_b**n_b)


def label_sides(label: str) -> tuple[set[str], set[str]]:
    """("B better on x and y, worse on z") -> ({x, y}, {z})."""
    better, worse = set(), set()
    for part in label.removeprefix("B ").split(", worse on "):
        target = worse if part.startswith("worse on ") or better else better
        words = part.removeprefix("better on ").removeprefix("worse on ")
        target.update(w.strip() for w in words.replace(" and ", ", ").split(","))
    return better, worse


# ---------------------------------------------------------------------------------- counts
def test_counts_binary_order_and_labels():
    # Case rows: (B better on accuracy?, B better on time?)
    bits = np.array([[1, 0], [1, 0], [1, 1], [0, 1], [1, 0], [0, 0], [1, 1]])
    a, b = scores_from_bits(bits)
    c = dominance_counts(a, b, measures=MEASURES)
    np.testing.assert_array_equal(c.counts, [1, 1, 3, 2])
    assert c.labels == (
        "B worse on accuracy and time",
        "B better on time, worse on accuracy",
        "B better on accuracy, worse on time",
        "B better on accuracy and time",
    )
    assert c.n == 7 and c.m == 2 and c.n_statements == 4
    np.testing.assert_array_equal(c.bits, [[0, 0], [0, 1], [1, 0], [1, 1]])
    assert c.index({"accuracy": True, "time": False}) == 2
    frame = c.to_frame()
    assert list(frame["bits"]) == ["00", "01", "10", "11"]
    np.testing.assert_allclose(frame["proportion"], np.array([1, 1, 3, 2]) / 7)
    text = str(c)
    assert "B better on accuracy, worse on time" in text and "n = 7" in text


def test_labels_three_measures_and_model_names():
    c = DominanceCounts.from_counts(np.ones(8), measures=("acc", "time", "size"), names=("X", "Y"))
    assert c.label(0) == "Y worse on acc, time and size"
    assert c.label(7) == "Y better on acc, time and size"
    assert c.label(5) == "Y better on acc and size, worse on time"


def test_lower_is_better_direction():
    a = np.array([[0.80, 10.0], [0.85, 5.0], [0.90, 1.0]])
    b = np.array([[0.82, 12.0], [0.84, 4.0], [0.95, 0.5]])
    c = dominance_counts(a, b, higher_is_better=[True, False], measures=MEASURES)
    # case 1: acc better, time worse -> 2; case 2: acc worse, time better -> 1; case 3: both -> 3
    np.testing.assert_array_equal(c.counts, [0, 1, 1, 1])
    # negating a lower-is-better measure and declaring it higher-is-better changes nothing
    flipped = dominance_counts(
        a * [1, -1],
        b * [1, -1],
        higher_is_better={"time": True, "accuracy": True},
        measures=MEASURES,
    )
    np.testing.assert_array_equal(flipped.counts, c.counts)
    assert c.higher_is_better == (True, False)


def test_tie_splitting_keeps_total_weight():
    a = np.array([[0.8, 1.0], [0.8, 1.0], [0.7, 2.0], [0.9, 3.0]])
    b = np.array([[0.8, 2.0], [0.8, 1.0], [0.9, 1.0], [0.9, 1.0]])
    c = dominance_counts(a, b, higher_is_better=[True, False], measures=MEASURES)
    # case 1: tie on accuracy, time worse -> 1/2 to "00" and 1/2 to "10"
    # case 2: ties on both -> 1/4 to each statement
    # case 3: both better -> "11";  case 4: tie on accuracy, time better -> 1/2 to "01" and "11"
    expected = np.array([0.5 + 0.25, 0.25 + 0.5, 0.5 + 0.25, 0.25 + 1 + 0.5])
    np.testing.assert_allclose(c.counts, expected)
    assert c.counts.sum() == pytest.approx(4.0)
    np.testing.assert_array_equal(c.outcomes[1], [0.5, 0.5])


def test_tie_tolerance():
    a = np.array([[0.80], [0.80], [0.80]])
    b = np.array([[0.805], [0.83], [0.70]])
    np.testing.assert_allclose(dominance_counts(a, b).counts, [1, 2])
    np.testing.assert_allclose(dominance_counts(a, b, tie_tolerance=0.01).counts, [1.5, 1.5])


def test_many_ties_total_is_n():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 3, size=(40, 5)).astype(float)
    b = rng.integers(0, 3, size=(40, 5)).astype(float)
    c = dominance_counts(a, b)
    assert (a == b).sum() > 20
    assert c.counts.sum() == pytest.approx(40.0)
    assert np.any(c.counts != np.round(c.counts))  # really fractional
    # each measure's marginal is (#better + #ties / 2)
    table = c.counts.reshape((2,) * 5)
    for j in range(5):
        better = table.sum(axis=tuple(i for i in range(5) if i != j))[1]
        assert better == pytest.approx((b[:, j] > a[:, j]).sum() + (b[:, j] == a[:, j]).sum() / 2)


def test_permuting_measures_permutes_statements():
    rng = np.random.default_rng(7)
    names = ("accuracy", "time", "size")
    a = rng.normal(size=(30, 3))
    b = a + rng.normal(0.2, 1, size=(30, 3))
    b[:4, 1] = a[:4, 1]  # some ties
    hib = [True, False, False]
    c = dominance_counts(a, b, higher_is_better=hib, measures=names)
    perm = [2, 0, 1]
    p = dominance_counts(
        a[:, perm],
        b[:, perm],
        higher_is_better=[hib[j] for j in perm],
        measures=[names[j] for j in perm],
    )
    for k, row in enumerate(c.bits):
        better = dict(zip(names, map(bool, row)))
        k_perm = p.index(better)
        assert p.counts[k_perm] == pytest.approx(c.counts[k])
        # the labels name the same measures on the same side
        assert label_sides(p.label(k_perm)) == label_sides(c.label(k))
        assert label_sides(c.label(k))[0] == {n for n, is_better in better.items() if is_better}
    assert glrt(p).statistic == pytest.approx(glrt(c).statistic)
    mean_c = bayesian_dominance(c, nsamples=10, seed=0).posterior_mean
    mean_p = bayesian_dominance(p, nsamples=10, seed=0).posterior_mean
    for k, row in enumerate(c.bits):
        assert mean_p[p.index(dict(zip(names, map(bool, row))))] == pytest.approx(mean_c[k])


def test_swapping_models_complements_statements():
    rng = np.random.default_rng(11)
    a, b = rng.normal(size=(25, 3)), rng.normal(size=(25, 3))
    forward = dominance_counts(a, b, names=("A", "B"))
    backward = dominance_counts(b, a, names=("B", "A"))
    np.testing.assert_array_equal(backward.counts, forward.counts[::-1])
    assert backward.label(0) == "A worse on measure 1, measure 2 and measure 3"


def test_input_forms_agree():
    rng = np.random.default_rng(5)
    cases = [f"data{i}" for i in range(8)]
    a = pd.DataFrame(rng.normal(size=(8, 2)), index=cases, columns=["accuracy", "time"])
    b = pd.DataFrame(rng.normal(size=(8, 2)), index=cases, columns=["accuracy", "time"])
    hib = {"accuracy": True, "time": False}
    arrays = dominance_counts(a.to_numpy(), b.to_numpy(), [True, False], measures=MEASURES)
    # wide frames: b's rows shuffled and columns reordered, matched by label
    wide = dominance_counts(a, b.iloc[::-1, ::-1], hib)
    np.testing.assert_array_equal(wide.counts, arrays.counts)
    assert wide.measures == MEASURES and wide.cases == tuple(cases)

    def tidy(frame, case_column):
        long = frame.rename_axis(case_column).reset_index()
        return long.melt(id_vars=case_column, var_name="measure", value_name="value")

    for column in ("case", "dataset"):
        c = dominance_counts(tidy(a, column), tidy(b, column).sample(frac=1, random_state=0), hib)
        np.testing.assert_array_equal(c.counts, arrays.counts)
        assert c.measures == MEASURES
    # measures= selects and orders frame columns
    reordered = dominance_counts(a, b, [False, True], measures=("time", "accuracy"))
    np.testing.assert_array_equal(reordered.counts, arrays.counts.reshape(2, 2).T.ravel())
    # one measure: 1-D arrays and Series
    single = dominance_counts(a["accuracy"], b["accuracy"])
    np.testing.assert_array_equal(
        single.counts, dominance_counts(a["accuracy"].to_numpy(), b["accuracy"].to_numpy()).counts
    )
    assert single.measures == ("accuracy",)


@pytest.mark.parametrize(
    ("a", "b", "kwargs", "message"),
    [
        (np.zeros((3, 2)), np.zeros((4, 2)), {}, "same shape"),
        (np.zeros((3, 2)), np.zeros((3, 0)), {}, "same shape"),
        (np.zeros((3, 0)), np.zeros((3, 0)), {}, "at least one"),
        (np.zeros((0, 2)), np.zeros((0, 2)), {}, "No cases"),
        (np.zeros((3, 2, 1)), np.zeros((3, 2, 1)), {}, "2-D"),
        (np.array([[1.0, np.nan]]), np.ones((1, 2)), {}, "NaN"),
        (np.ones((2, 2)), np.array([[1.0, 1], [np.inf, 1]]), {}, "measure 1"),
        (np.ones((2, 2)), np.ones((2, 2)), {"higher_is_better": [True]}, "1 entries for 2"),
        (np.ones((2, 2)), np.ones((2, 2)), {"higher_is_better": {"x": True}}, "one direction"),
        (np.ones((2, 2)), np.ones((2, 2)), {"measures": ("a", "a")}, "unique"),
        (np.ones((2, 2)), np.ones((2, 2)), {"measures": ("a",)}, "1 measure names for 2"),
        (np.ones((2, 2)), np.ones((2, 2)), {"names": ("A", "A")}, "two different"),
        (np.ones((2, 2)), np.ones((2, 2)), {"tie_tolerance": -1}, ">= 0"),
        (np.ones((2, 17)), np.ones((2, 17)), {}, "at most 16 measures"),
    ],
)
def test_count_validation(a, b, kwargs, message):
    with pytest.raises(ValueError, match=message):
        dominance_counts(a, b, **kwargs)


@pytest.mark.parametrize(
    ("higher_is_better", "message"),
    [
        (["yes", "no"], r"higher_is_better\[0\] must be True or False"),
        ([True, 1], r"higher_is_better\[1\] must be True or False"),
        ({"m0": True, "m1": "no"}, r"higher_is_better\['m1'\] must be True or False"),
        ("no", "one per measure"),
        (None, "one per measure"),
    ],
)
def test_directions_are_booleans_never_coerced(higher_is_better, message):
    """``bool("no")`` is True: a direction given as text or a number must be refused."""
    with pytest.raises(TypeError, match=message):
        dominance_counts(
            np.ones((2, 2)),
            np.ones((2, 2)),
            higher_is_better=higher_is_better,
            measures=("m0", "m1"),
        )


def test_frame_validation():
    a = pd.DataFrame({"acc": [1.0, 2.0]}, index=["d1", "d2"])
    with pytest.raises(ValueError, match="same cases"):
        dominance_counts(a, a.set_axis(["d1", "d3"]))
    with pytest.raises(ValueError, match="no column for measures"):
        dominance_counts(a, a, measures=("time",))
    with pytest.raises(ValueError, match="non-numeric"):
        dominance_counts(a.assign(name=["x", "y"]), a.assign(name=["x", "y"]))
    tidy = pd.DataFrame({"case": ["d1", "d1"], "measure": ["acc", "acc"], "value": [1.0, 2.0]})
    with pytest.raises(ValueError, match="rows sharing"):
        dominance_counts(tidy, tidy)
    with pytest.raises(ValueError, match="no case column"):
        dominance_counts(tidy.drop(columns="case"), tidy.drop(columns="case"))
    holes = pd.DataFrame(
        {"case": ["d1", "d1", "d2"], "measure": ["acc", "time", "acc"], "value": [1.0, 2.0, 3.0]}
    )
    with pytest.raises(ValueError, match="NaN"):
        dominance_counts(holes, holes)


def test_limit_is_sixteen_measures():
    assert MAX_MEASURES == 16
    c = dominance_counts(np.zeros((3, 16)), np.ones((3, 16)))
    assert c.n_statements == 2**16 and c.counts[-1] == 3
    with pytest.raises(ValueError, match=r"2\^17 = 131,072"):
        dominance_counts(np.zeros((3, 17)), np.ones((3, 17)))


@pytest.mark.parametrize("bad", [[1, 2, 3], [[1, 2], [3, 4]], [5], [1, -1], [0, 0], [1, np.nan]])
def test_from_counts_validation(bad):
    with pytest.raises(ValueError):
        DominanceCounts.from_counts(bad)


# ---------------------------------------------------------------------------------- GLRT
@pytest.mark.parametrize(
    ("counts", "n_a", "n_b", "leading", "runner_up"),
    [
        ([3, 7, 1, 1], 7, 3, 1, 0),
        ([2.5, 0, 4.5, 1], 4.5, 2.5, 2, 0),
        ([9, 1], 9, 1, 0, 1),
        ([0, 5, 0, 0, 0, 0, 0, 0], 5, 0, 1, 0),  # runner-up count 0: lambda = 2^-5
        ([1, 2, 12, 0, 6, 0, 0, 1], 12, 6, 2, 4),
    ],
)
def test_glrt_hand_computed(counts, n_a, n_b, leading, runner_up):
    g = glrt(counts)
    lam = expected_lambda(n_a, n_b)
    assert g.statistic == pytest.approx(lam, rel=1e-12)
    assert g.minus_two_log_lambda == pytest.approx(-2 * math.log(lam), rel=1e-10)
    assert g.p_value == pytest.approx(stats.chi2.sf(-2 * math.log(lam), 1), rel=1e-10)
    assert (g.leading, g.runner_up) == (leading, runner_up)
    assert (g.n_leading, g.n_runner_up) == (n_a, n_b)


def test_glrt_worked_number():
    # 7 vs 3: lambda = 5^10 / (7^7 3^3) = 9765625 / 22235661 = 0.43919...
    g = glrt([3, 7, 1, 1])
    assert g.statistic == pytest.approx(9765625 / 22235661)
    assert g.p_value == pytest.approx(0.1996, abs=5e-4)
    assert not g.rejects(0.05) and g.rejects(0.25)


@pytest.mark.parametrize(
    "counts", [[4, 4, 1, 0], [3.5, 1, 3.5, 2], [2, 2], [0, 3, 3, 1, 0, 0, 2, 3]]
)
def test_glrt_tie_gives_lambda_one(counts):
    g = glrt(counts)
    assert g.statistic == 1.0
    assert g.minus_two_log_lambda == 0.0
    assert g.p_value == 1.0
    assert g.n_leading == g.n_runner_up
    assert g.leading < g.runner_up  # equal counts: the lower statement number first


def test_glrt_result_object():
    a, b = scores_from_bits(np.array([[1, 0]] * 12 + [[1, 1]] * 2 + [[0, 0]]))
    g = glrt(dominance_counts(a, b, measures=MEASURES))
    assert g.leading_label == "B better on accuracy, worse on time"
    assert g.runner_up_label == "B better on accuracy and time"
    assert g.statistic == pytest.approx(expected_lambda(12, 2))
    assert g.rejects(0.05)
    frame = g.to_frame()
    assert frame.loc[0, "p_value"] == pytest.approx(g.p_value)
    assert frame.loc[0, "leading_label"] == g.leading_label
    text = str(g)
    assert g.leading_label in text and f"{g.p_value:.4g}" in text
    with pytest.raises(ValueError, match="alpha"):
        g.rejects(1.5)


# ---------------------------------------------------------------------------------- Dirichlet
def within_mc(estimate: float, exact: float, nsamples: int, sigmas: float = 4.0) -> bool:
    """|estimate - exact| <= sigmas standard errors sqrt(p (1 - p) / nsamples)."""
    se = math.sqrt(max(exact * (1 - exact), 1e-12) / nsamples)
    return abs(estimate - exact) <= sigmas * se


@pytest.mark.parametrize("structure", ["dirichlet", "bn"])
@pytest.mark.parametrize(("n0", "n1"), [(3, 7), (5, 6), (4.5, 4.5), (10, 2), (0, 1)])
def test_one_measure_matches_exact_beta(structure, n0, n1):
    """m = 1: theta ~ Dirichlet(n0 + 1/2, n1 + 1/2), P(theta_1 largest) = P(Beta > 1/2).

    Tolerance: 4 Monte Carlo standard errors sqrt(p (1 - p) / nsamples).
    """
    nsamples = 200_000
    p = bayesian_dominance([n0, n1], structure=structure, nsamples=nsamples, seed=1)
    exact = stats.beta.sf(0.5, n1 + 0.5, n0 + 0.5)
    assert within_mc(p.probs[1], exact, nsamples)
    assert p.probs.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(
        p.posterior_mean, [(n0 + 0.5) / (n0 + n1 + 1), (n1 + 0.5) / (n0 + n1 + 1)]
    )


def test_dirichlet_result_object():
    a, b = scores_from_bits(np.array([[1, 0]] * 9 + [[1, 1]] * 6 + [[0, 0]] * 2 + [[0, 1]] * 3))
    c = dominance_counts(a, b, measures=MEASURES)
    p = bayesian_dominance(c, nsamples=20_000, seed=0)
    assert p.best == 2 and p.most_probable == "B better on accuracy, worse on time"
    assert p.probs.sum() == pytest.approx(1.0)
    assert p.edges is None and p.network is None
    np.testing.assert_allclose(p.posterior_mean, (c.counts + 0.25) / 21)
    assert p.sample.shape == (20_000, 4)
    np.testing.assert_allclose(p.sample.sum(axis=1), 1.0)
    # the stored sample is the one the probabilities come from
    np.testing.assert_allclose(p.probs, winner_shares(p.sample) / 20_000)
    np.testing.assert_allclose(p.sample.mean(axis=0), p.posterior_mean, atol=0.01)
    frame = p.to_frame()
    assert list(frame.columns) == ["bits", "label", "count", "posterior_mean", "probability", "se"]
    np.testing.assert_allclose(frame["probability"], p.probs)
    text = str(p)
    assert "Most probable: B better on accuracy, worse on time" in text
    assert bayesian_dominance(c, nsamples=100, seed=0, keep_sample=False).sample is None


def test_plot_returns_figure_and_uses_ax():
    import matplotlib.pyplot as plt

    p = bayesian_dominance([1, 2, 8, 3], nsamples=1000, seed=0)
    fig = p.plot()
    assert isinstance(fig, Figure)
    assert len(fig.axes[0].patches) == 4
    fig2, ax = plt.subplots()
    assert p.plot(ax=ax) is fig2
    assert ax.get_yticklabels()[0].get_text() == p.labels[0]
    plt.close("all")


def test_winner_shares_split_ties():
    theta = np.array([[0.4, 0.4, 0.2], [0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])
    np.testing.assert_allclose(winner_shares(theta), [1.5, 1.5, 0.0])


@pytest.mark.parametrize("structure", ["dirichlet", "bn"])
def test_seeded_determinism_and_batching(structure, monkeypatch):
    counts = [3, 1, 6, 2, 0, 1, 4, 0.5]
    first = bayesian_dominance(counts, structure=structure, nsamples=5000, seed=42)
    second = bayesian_dominance(counts, structure=structure, nsamples=5000, seed=42)
    np.testing.assert_array_equal(first.probs, second.probs)
    np.testing.assert_array_equal(first.sample, second.sample)
    other = bayesian_dominance(counts, structure=structure, nsamples=5000, seed=43)
    assert not np.array_equal(first.sample, other.sample)
    # small batches give the very same draws: memory is bounded without changing the answer
    monkeypatch.setattr(dirichlet_module, "BATCH_ELEMENTS", 8 * 7)
    batched = bayesian_dominance(counts, structure=structure, nsamples=5000, seed=42)
    np.testing.assert_array_equal(batched.sample, first.sample)
    np.testing.assert_array_equal(batched.probs, first.probs)


def test_many_measures_run():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(30, 12)), rng.normal(size=(30, 12))
    p = bayesian_dominance(dominance_counts(a, b), nsamples=300, seed=0)
    assert p.probs.shape == (4096,)
    assert p.probs.sum() == pytest.approx(1.0)
    # a statement never observed can hardly be the largest
    assert p.probs[p.counts.counts == 0].sum() < 0.05
    assert len(str(p).splitlines()) < 20


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"structure": "tree"}, "structure must be one of"),
        ({"nsamples": 0}, "nsamples"),
        ({"nsamples": 2.5}, "nsamples"),
        ({"prior_strength": 0}, "prior_strength"),
    ],
)
def test_bayesian_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bayesian_dominance([1, 2], **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"nsamples": True}, "nsamples must be an integer"),
        ({"nsamples": "5"}, "nsamples must be an integer"),
        ({"prior_strength": "1"}, "prior_strength must be a positive number"),
        ({"seed": 1.5}, "seed"),
        ({"seed": True}, "seed"),
    ],
)
def test_bayesian_validation_of_types(kwargs, message):
    with pytest.raises(TypeError, match=message):
        bayesian_dominance([1, 2], **kwargs)


@pytest.mark.parametrize("structure", ["dirichlet", "bn"])
def test_every_seed_form_is_recorded_as_the_int_that_reproduces_it(structure):
    counts = [3, 1, 2, 6]
    unseeded = bayesian_dominance(counts, structure=structure, nsamples=500)
    again = bayesian_dominance(counts, structure=structure, nsamples=500, seed=unseeded.seed)
    assert isinstance(unseeded.seed, int)
    np.testing.assert_array_equal(again.probs, unseeded.probs)
    for seed in (np.random.default_rng(5), np.random.SeedSequence(5)):
        drawn = bayesian_dominance(counts, structure=structure, nsamples=500, seed=seed)
        replay = bayesian_dominance(counts, structure=structure, nsamples=500, seed=drawn.seed)
        np.testing.assert_array_equal(replay.probs, drawn.probs)


# ---------------------------------------------------------------------------------- BN
def test_bdeu_local_score_by_hand():
    """Two nodes, counts (n00, n01, n10, n11) = (4, 1, 2, 5), ess = 1."""
    g = math.lgamma
    counts = DominanceCounts.from_counts([4, 1, 2, 5])
    # empty graph: each node alone, alpha = 1/2 per value, total 1
    node1 = g(1) - g(1 + 12) + g(0.5 + 5) - g(0.5) + g(0.5 + 7) - g(0.5)  # x1: 5 zeros, 7 ones
    node2 = g(1) - g(1 + 12) + g(0.5 + 6) - g(0.5) + g(0.5 + 6) - g(0.5)  # x2: 6 zeros, 6 ones
    assert bdeu_score(counts, ((), ())) == pytest.approx(node1 + node2)
    # x1 -> x2: x2 given x1 = 0 has (4, 1), given x1 = 1 has (2, 5); alpha = 1/4 per cell
    child = sum(
        g(0.5) - g(0.5 + n0 + n1) + g(0.25 + n0) - g(0.25) + g(0.25 + n1) - g(0.25)
        for n0, n1 in ((4, 1), (2, 5))
    )
    assert bdeu_score(counts, ((), (0,))) == pytest.approx(node1 + child)
    # score equivalence: x2 -> x1 scores the same
    assert bdeu_score(counts, ((1,), ())) == pytest.approx(bdeu_score(counts, ((), (0,))))


def brute_force_best(counts: DominanceCounts, ess: float = 1.0) -> float:
    """Best BDeu score over all DAGs, by enumerating every parent assignment."""
    m = counts.m
    choices = [
        [pa for r in range(m) for pa in itertools.combinations([i for i in range(m) if i != j], r)]
        for j in range(m)
    ]
    best = -np.inf
    for parents in itertools.product(*choices):
        edges = {(p, j) for j, pa in enumerate(parents) for p in pa}
        # acyclic iff repeatedly removing nodes without parents empties the graph
        nodes = set(range(m))
        while nodes:
            roots = {j for j in nodes if not any((p, j) in edges for p in nodes)}
            if not roots:
                break
            nodes -= roots
        if not nodes:
            best = max(best, bdeu_score(counts, parents, ess))
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_search_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    counts = DominanceCounts.from_counts(rng.gamma(0.7, 3.0, size=8))
    network = learn_structure(counts)
    assert network.score == pytest.approx(brute_force_best(counts))
    assert network.score == pytest.approx(bdeu_score(counts, network.parents))


def simulate_bits(n: int, rng: np.random.Generator, dependent: bool) -> np.ndarray:
    """Three binary measures; measure 2 copies measure 1 with prob. 0.85 if ``dependent``."""
    x = rng.random((n, 3)) < 0.5
    if dependent:
        x[:, 1] = np.where(rng.random(n) < 0.85, x[:, 0], ~x[:, 0])
    return x


def test_bn_recovers_independence_and_dependence():
    """Over 40 simulated data sets of 200 cases each: BDeu with ess = 1 adds a spurious edge to
    independent measures rarely (about 7% of the time in long runs) and finds the simulated edge
    measure 1 -> measure 2 (and nothing else) almost always."""
    rng = np.random.default_rng(2024)
    spurious, recovered = 0, 0
    for _ in range(40):
        a, b = scores_from_bits(simulate_bits(200, rng, dependent=False))
        spurious += bool(learn_structure(dominance_counts(a, b)).edges)
        a, b = scores_from_bits(simulate_bits(200, rng, dependent=True))
        recovered += learn_structure(dominance_counts(a, b)).edges == [("measure 1", "measure 2")]
    assert spurious <= 8
    assert recovered >= 36


def test_bn_single_data_sets():
    rng = np.random.default_rng(1)
    a, b = scores_from_bits(simulate_bits(300, rng, dependent=False))
    p = bayesian_dominance(dominance_counts(a, b, names=("A", "B")), "bn", nsamples=2000, seed=0)
    assert p.edges == [] and p.network.n_parameters == 3
    a, b = scores_from_bits(simulate_bits(300, rng, dependent=True))
    c = dominance_counts(a, b, measures=("acc", "time", "size"))
    p = bayesian_dominance(c, "bn", nsamples=2000, seed=0)
    assert p.edges == [("acc", "time")]
    assert "acc -> time" in str(p) and "acc -> time" in str(p.network)
    assert p.network.to_frame().to_dict("records") == [{"parent": "acc", "child": "time"}]
    cpt = p.network.cpt_frame()
    assert len(cpt) == 4 and cpt["n"].sum() == pytest.approx(3 * 300)


def test_bn_independent_matches_product_of_betas():
    """No edges: theta_x = prod_j p_j^x_j (1 - p_j)^(1 - x_j), p_j ~ Beta(N_j1 + 1/2, N_j0 + 1/2)
    independently, so statement x is the largest iff every p_j is on the side of x_j:
    P = prod_j P(p_j > 1/2 if x_j else p_j < 1/2). Tolerance: 4 Monte Carlo standard errors."""
    counts = DominanceCounts.from_counts([5, 4, 7, 6], measures=MEASURES)
    nsamples = 200_000
    p = bayesian_dominance(counts, structure="bn", nsamples=nsamples, seed=3)
    assert p.edges == []
    ones = [counts.counts[2:].sum(), counts.counts[[1, 3]].sum()]  # B better on acc / on time
    above = [stats.beta.sf(0.5, n1 + 0.5, counts.n - n1 + 0.5) for n1 in ones]
    for k, (x1, x2) in enumerate(counts.bits):
        exact = (above[0] if x1 else 1 - above[0]) * (above[1] if x2 else 1 - above[1])
        assert within_mc(p.probs[k], exact, nsamples)
    # posterior mean: product of the marginal posterior means
    means = [(n1 + 0.5) / (counts.n + 1) for n1 in ones]
    for k, (x1, x2) in enumerate(counts.bits):
        expected = (means[0] if x1 else 1 - means[0]) * (means[1] if x2 else 1 - means[1])
        assert p.posterior_mean[k] == pytest.approx(expected)


def test_bn_complete_dag_equals_dirichlet():
    """With the complete DAG and ess = 1 the BN posterior is the Dirichlet(n + 1/2^m) posterior:
    same posterior mean exactly, same probabilities within 4 combined Monte Carlo errors."""
    counts = DominanceCounts.from_counts([10, 1, 1.5, 8], measures=MEASURES)
    nsamples = 100_000
    bn = bayesian_dominance(counts, structure="bn", nsamples=nsamples, seed=0)
    plain = bayesian_dominance(counts, nsamples=nsamples, seed=1)
    assert bn.edges == [("accuracy", "time")]
    np.testing.assert_allclose(bn.posterior_mean, plain.posterior_mean)
    se = np.sqrt(bn.standard_errors**2 + plain.standard_errors**2)
    assert np.all(np.abs(bn.probs - plain.probs) <= 4 * se + 1e-12)
    assert bn.probs.sum() == pytest.approx(1.0)


def test_bn_limit():
    assert MAX_BN_MEASURES == 6
    counts = DominanceCounts.from_counts(np.arange(2.0**7))
    with pytest.raises(ValueError, match="at most 6 measures"):
        bayesian_dominance(counts, structure="bn", nsamples=10)
    six = DominanceCounts.from_counts(np.random.default_rng(0).poisson(1.0, 64) + 0.0)
    assert bayesian_dominance(six, structure="bn", nsamples=100, seed=0).probs.sum() == (
        pytest.approx(1.0)
    )

"""Inputs of every public function (issue 14): the packaged data, label alignment of pandas
objects, one seed policy, type checks of flags and counts, empty and degenerate inputs, the
baycomp facade's constructors and the package's import graph."""

from __future__ import annotations

import ast
import gzip
import importlib
import re
import warnings
from dataclasses import fields
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bayes_hier import (
    CVData,
    correlated_ttest,
    hierarchical_test,
    sign_test,
    signed_rank_test,
)
from bayes_hier._validate import check_bool, check_int
from bayes_hier.compat import (
    CorrelatedTTest,
    SignedRankTest,
    SignTest,
    two_on_multiple,
    two_on_single,
)
from bayes_hier.examples import find_uci_weka, load_uci_weka, packaged_uci_weka
from bayes_hier.fitting import SamplerKeywords, SamplerOptions, SeedStreams, seed_streams
from bayes_hier.frequentist import (
    corrected_resampled_ttest,
    paired_ttest,
    sign_test_freq,
    wilcoxon_signed_rank,
)
from bayes_hier.hierarchical.fit import prepare_input
from bayes_hier.hierarchical.model import HIERARCHICAL
from bayes_hier.hierarchical.model_input import HierarchicalPrior, build_model_input
from bayes_hier.rope import Rope, RopeScaleWarning
from bayes_hier.seeding import resolve_seed

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_DATA = ROOT.parent / "shared" / "data" / "uci_weka_10x10cv.csv"


# ---------------------------------------------------------------------- item 0: packaged data
def test_packaged_real_data_are_the_reference_file_byte_for_byte():
    if not REFERENCE_DATA.is_file():
        pytest.skip("no ../shared/data beside the checkout to compare with")
    with packaged_uci_weka().open("rb") as handle:
        assert gzip.decompress(handle.read()) == REFERENCE_DATA.read_bytes()


def test_load_uci_weka_without_a_path_reads_the_packaged_copy_from_any_folder(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # no ../shared here
    monkeypatch.delenv("BAYES_HIER_DATA", raising=False)
    frame = load_uci_weka()
    assert list(frame.columns) == ["dataset", "model", "run", "fold", "score"]
    assert frame.shape == (27_000, 5)
    assert frame.groupby("model").size().to_dict() == dict.fromkeys(
        ["aode", "hnb", "j48", "j48gr", "nbc"], 5400
    )
    assert frame["dataset"].nunique() == 54
    assert frame.iloc[0].tolist() == ["anneal", "nbc", 0, 0, 94.444]
    assert str(find_uci_weka()).endswith("bayes_hier/example_data/uci_weka_10x10cv.csv.gz")


def test_load_uci_weka_reads_an_explicit_plain_or_compressed_copy(tmp_path):
    packaged = load_uci_weka()
    raw = packaged.rename(columns={"model": "classifier", "score": "accuracy_percent"})
    raw.to_csv(tmp_path / "uci_weka_10x10cv.csv", index=False)
    pd.testing.assert_frame_equal(load_uci_weka(tmp_path / "uci_weka_10x10cv.csv"), packaged)
    pd.testing.assert_frame_equal(load_uci_weka(tmp_path), packaged)  # a folder holding it
    with packaged_uci_weka().open("rb") as handle:
        (tmp_path / "copy.csv.gz").write_bytes(handle.read())
    pd.testing.assert_frame_equal(load_uci_weka(tmp_path / "copy.csv.gz"), packaged)
    with pytest.raises(FileNotFoundError, match="without a path to read the copy shipped"):
        load_uci_weka(tmp_path / "absent.csv")


# ---------------------------------------------------------------------- item 1: pandas labels
def per_dataset_calls(nsamples: int = 20):
    """Every public function taking one score per data set, as (name, call, comparable answer)."""
    return [
        ("sign_test", lambda x, y: sign_test(x, y, 0.01, nsamples=nsamples, seed=1).sample),
        (
            "signed_rank_test",
            lambda x, y: signed_rank_test(x, y, 0.01, nsamples=nsamples, seed=1).sample,
        ),
        ("wilcoxon_signed_rank", lambda x, y: wilcoxon_signed_rank(x, y).p_value),
        ("sign_test_freq", lambda x, y: sign_test_freq(x, y).p_value),
        ("compat.SignTest", lambda x, y: SignTest.sample(x, y, 0.01, nsamples, random_state=1)),
        (
            "compat.SignedRankTest",
            lambda x, y: SignedRankTest.sample(x, y, 0.01, nsamples, random_state=1),
        ),
        ("compat.two_on_multiple", lambda x, y: two_on_multiple(x, y, 0.01, nsamples=nsamples)),
    ]


def fold_calls():
    """Every public function taking the fold scores of one data set."""
    return [
        ("correlated_ttest", lambda x, y: tuple(correlated_ttest(x, y, 0.01).probs)),
        ("paired_ttest", lambda x, y: paired_ttest(x, y).p_value),
        ("corrected_resampled_ttest", lambda x, y: corrected_resampled_ttest(x, y).p_value),
        ("compat.CorrelatedTTest", lambda x, y: CorrelatedTTest.probs(x, y, 0.01)),
        ("compat.two_on_single", lambda x, y: two_on_single(x, y, 0.01)),
    ]


def answers_equal(a, b) -> bool:
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


finite_scores = st.floats(0, 100, allow_nan=False, width=32)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), q=st.integers(2, 12))
def test_series_are_paired_by_label_whatever_their_order(data, q):
    x = np.array(data.draw(st.lists(finite_scores, min_size=q, max_size=q)))
    y = np.array(data.draw(st.lists(finite_scores, min_size=q, max_size=q)))
    labels = data.draw(
        st.lists(st.text(min_size=1, max_size=4), min_size=q, max_size=q, unique=True)
    )
    order = data.draw(st.permutations(range(q)))
    xs, ys = pd.Series(x, index=labels), pd.Series(y, index=labels)
    for name, call in per_dataset_calls():
        if name == "compat.two_on_multiple":
            continue  # random seed: compared in test_compat
        assert answers_equal(call(xs, ys.iloc[list(order)]), call(x, y)), name


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), n=st.integers(3, 20))
def test_fold_series_are_paired_by_label_whatever_their_order(data, n):
    x = np.array(data.draw(st.lists(finite_scores, min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(finite_scores, min_size=n, max_size=n)))
    order = list(data.draw(st.permutations(range(n))))
    index = pd.MultiIndex.from_tuples([(0, fold) for fold in range(n)], names=["run", "fold"])
    xs, ys = pd.Series(x, index=index), pd.Series(y, index=index)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RopeScaleWarning)
        for name, call in fold_calls():
            assert answers_equal(call(xs, ys.iloc[order]), call(x, y)), name


def test_frames_are_paired_by_data_set_and_fold_labels():
    """hierarchical_test's input step (and CVData) align two DataFrames on rows and columns."""
    rng = np.random.default_rng(0)
    x = pd.DataFrame(rng.uniform(0.7, 0.9, (4, 6)), index=list("abcd"))
    y = x + rng.normal(0.01, 0.01, x.shape)
    shuffled = y.iloc[[2, 0, 3, 1], [5, 4, 3, 2, 1, 0]]
    reference, _ = prepare_input(x.to_numpy(), y.to_numpy(), 0.01, runs=2)
    cv, rope = prepare_input(x, shuffled, 0.01, runs=2)
    for expected, got in zip(reference.differences, cv.differences):
        np.testing.assert_array_equal(got, expected)
    assert rope == Rope(-0.01, 0.01)
    per_dataset = sign_test(x, shuffled, 0.01, nsamples=10, seed=0).differences
    np.testing.assert_array_equal(per_dataset, (y - x).mean(axis=1).to_numpy())
    with pytest.raises(ValueError, match=r"x and y have different column \(fold\) labels"):
        prepare_input(x, shuffled.set_axis(range(10, 16), axis=1), runs=2)


@pytest.mark.parametrize("kind", ["per data set", "folds"])
def test_different_or_repeated_labels_raise_naming_x_and_y(kind):
    calls = per_dataset_calls() if kind == "per data set" else fold_calls()
    x = pd.Series(np.linspace(0.7, 0.9, 6), index=list("abcdef"))
    other = x.set_axis(list("abcdeZ")) + 0.01
    repeated = x.set_axis(list("abcdee")) + 0.01
    for name, call in calls:
        with pytest.raises(ValueError, match="x and y have different index labels") as error:
            call(x, other)
        assert "only in x: ['f']; only in y: ['Z']" in str(error.value), name
        with pytest.raises(ValueError, match="y has repeated index labels"):
            call(x, repeated)


# ---------------------------------------------------------------------- random containers
KINDS = ["float64", "float32", "int64", "bool", "object", "list", "str", "complex", "datetime"]
NUMERIC = {"float64", "float32", "int64", "bool", "object", "list"}


def convert(values: np.ndarray, kind: str):
    """The scores as another container or dtype (NaN placements survive where they can)."""
    converters = {
        "float64": lambda v: v,
        "float32": lambda v: v.astype(np.float32),
        "int64": lambda v: np.nan_to_num(v).round().astype(np.int64),
        "bool": lambda v: np.nan_to_num(v) > 50,
        "object": lambda v: v.astype(object),
        "list": lambda v: v.tolist(),
        "str": lambda v: v.astype(str),
        "complex": lambda v: v.astype(complex),
        "datetime": lambda v: np.nan_to_num(v).astype("datetime64[s]"),
    }
    return converters[kind](values)


def as_reference(values) -> np.ndarray:
    """What the scores mean as float64 (for the numeric kinds)."""
    return np.asarray(values, dtype=float)


@st.composite
def score_pairs(draw, ndim: int):
    """x and y of one random shape and kind, with NaN at random places (or none)."""
    shape = tuple(draw(st.integers(0, 6)) for _ in range(ndim))
    elements = st.floats(0, 100, allow_nan=False, width=32)
    x, y = (draw(arrays(np.float64, shape, elements=elements)) for _ in range(2))
    for values in (x, y):
        if values.size and draw(st.booleans()):
            values.flat[draw(st.integers(0, values.size - 1))] = np.nan
    kind = draw(st.sampled_from(KINDS))
    return convert(x, kind), convert(y, kind), kind, shape


def numeric_and_finite(x, y, kind: str) -> bool:
    """Whether the scores are numbers without NaN or infinity (a valid input, size aside)."""
    return kind in NUMERIC and all(np.isfinite(as_reference(v)).all() for v in (x, y))


def names_an_argument(error: Exception) -> bool:
    return re.search(r"\b(x|y|x\[\d+\]|y\[\d+\])\b", str(error)) is not None


def check_answer_or_named_error(call, x, y, valid: bool) -> None:
    """``call(x, y)`` equals ``call`` on the float64 reference when the input is valid, and
    raises a ValueError/TypeError naming x or y when it is not."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if valid:
            assert answers_equal(call(x, y), call(as_reference(x), as_reference(y)))
            return
        with pytest.raises((ValueError, TypeError)) as error:
            call(x, y)
        assert names_an_argument(error.value), str(error.value)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=score_pairs(ndim=1))
def test_one_score_per_data_set_right_answer_or_named_error(pair):
    x, y, kind, (size,) = pair
    finite = numeric_and_finite(x, y, kind)
    for _, call in per_dataset_calls(nsamples=10)[:2]:
        check_answer_or_named_error(call, x, y, valid=finite and size >= 1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=score_pairs(ndim=1))
def test_fold_scores_right_answer_or_named_error(pair):
    x, y, kind, (n,) = pair
    finite = numeric_and_finite(x, y, kind)
    check_answer_or_named_error(fold_calls()[0][1], x, y, valid=finite and n >= 2)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=score_pairs(ndim=2))
def test_fold_score_matrices_right_answer_or_named_error(pair):
    """The input step of hierarchical_test and the fold-averaging sign test."""
    x, y, kind, (q, n) = pair
    finite = numeric_and_finite(x, y, kind)

    def hierarchical_input(a, b):
        cv, _ = prepare_input(a, b, 0.01)
        return np.concatenate(cv.differences)

    def averaged_sign_test(a, b):
        return sign_test(a, b, 0.01, nsamples=10, seed=0).differences

    check_answer_or_named_error(hierarchical_input, x, y, valid=finite and q >= 2 and n >= 2)
    check_answer_or_named_error(averaged_sign_test, x, y, valid=finite and q >= 1 and n >= 2)


# ---------------------------------------------------------------------- item 5: empty inputs
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: correlated_ttest([], []), "x and y hold no scores"),
        (lambda: correlated_ttest(np.zeros(0), np.zeros(0)), "x and y hold no scores"),
        (lambda: prepare_input(np.zeros((0, 10)), np.zeros((0, 10))), "x and y hold no scores"),
        (lambda: hierarchical_test([], []), "x and y hold no scores"),
        (lambda: signed_rank_test(np.zeros((0, 10)), np.zeros((0, 10))), "hold no scores"),
        (lambda: sign_test(np.zeros((3, 0)), np.zeros((3, 0))), "hold no scores"),
        (lambda: signed_rank_test([], []), "x and y are empty"),
    ],
)
def test_empty_inputs_say_what_is_missing(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_same_model_twice_and_a_tidy_frame_twice_are_explained():
    frame = load_uci_weka()
    for test in (sign_test, signed_rank_test, correlated_ttest, prepare_input):
        with pytest.raises(ValueError, match="models must name two different models"):
            test(frame, models=("nbc", "nbc"))
    for test in (sign_test, signed_rank_test, correlated_ttest, prepare_input):
        with pytest.raises(ValueError, match=r"pass a tidy frame .* alone as x, with models="):
            test(frame, frame)


# ---------------------------------------------------------------------- item 4: types
SCORES = np.linspace(0.7, 0.9, 10), np.linspace(0.71, 0.93, 10)


def seeded_calls():
    """Every public function with a seed, and the argument's name."""
    x, y = SCORES
    return [
        (lambda s: sign_test(x, y, 0.01, nsamples=10, seed=s), "seed"),
        (lambda s: signed_rank_test(x, y, 0.01, nsamples=10, seed=s), "seed"),
        (lambda s: correlated_ttest(x, y, 0.01).sample(10, seed=s), "seed"),
        (lambda s: seed_streams(s), "seed"),
        (lambda s: SignTest(x, y, 0.01, nsamples=10, random_state=s), "random_state"),
        (lambda s: SignedRankTest(x, y, 0.01, nsamples=10, random_state=s), "random_state"),
        (lambda s: CorrelatedTTest(x, y, 0.01, random_state=s), "random_state"),
    ]


@pytest.mark.parametrize("bad", [1.7, "a", True, np.bool_(False), [1, 2], -1])
def test_seeds_follow_one_policy(bad):
    for call, argument in seeded_calls():
        with pytest.raises((TypeError, ValueError), match=argument):
            call(bad)


def test_every_seed_kind_is_accepted_and_reproducible():
    for call, _ in seeded_calls():
        for make in (
            lambda: 7,
            lambda: np.int64(7),
            lambda: np.random.default_rng(7),
            lambda: np.random.SeedSequence(7),
        ):
            first, second = call(make()), call(make())
            if isinstance(first, SeedStreams):
                assert first.seed == second.seed and first.stan == second.stan
            elif isinstance(first, np.ndarray):
                np.testing.assert_array_equal(first, second)
            else:
                np.testing.assert_array_equal(first.sample, second.sample)


def test_hierarchical_seed_streams_accept_generators_and_sequences():
    """hierarchical_test resolves its seed through seed_streams (before any sampling)."""
    from_generator = seed_streams(np.random.default_rng(3))
    assert from_generator.seed == resolve_seed(np.random.default_rng(3))
    assert seed_streams(np.random.SeedSequence(3)).seed == resolve_seed(np.random.SeedSequence(3))
    assert seed_streams(5).seed == 5
    with pytest.raises(TypeError, match="seed"):
        hierarchical_test(np.vstack(SCORES), np.vstack(SCORES[::-1]), seed=1.7)


@pytest.mark.parametrize("bad", ["no", "False", 0, 1, None, 1.0])
def test_flags_are_booleans(bad):
    x, y = SCORES
    calls = [
        lambda: sign_test(x, y, higher_is_better=bad, nsamples=10),
        lambda: signed_rank_test(x, y, higher_is_better=bad, nsamples=10),
        lambda: correlated_ttest(x, y, higher_is_better=bad),
        lambda: wilcoxon_signed_rank(x, y, higher_is_better=bad),
        lambda: paired_ttest(x, y, higher_is_better=bad),
        lambda: CVData.from_arrays(x, y, higher_is_better=bad),
        lambda: prepare_input(np.vstack([x, y]), np.vstack([y, x]), higher_is_better=bad),
    ]
    for call in calls:
        with pytest.raises(TypeError, match="higher_is_better must be True or False"):
            call()
    assert sign_test(x, y, higher_is_better=np.False_, nsamples=10).higher_is_better is False


@pytest.mark.parametrize(
    ("value", "error"), [(True, TypeError), ("2", TypeError), (2.5, ValueError), (0, ValueError)]
)
def test_counts_are_integers(value, error):
    x, y = np.tile(SCORES[0], 2), np.tile(SCORES[1], 2)
    calls = {
        "runs": lambda: correlated_ttest(x, y, runs=value),
        "nsamples": lambda: sign_test(x, y, nsamples=value),
        "chains": lambda: SamplerOptions(chains=value),
        "draws": lambda: SamplerOptions(draws=value),
        "max_treedepth": lambda: SamplerOptions(max_treedepth=value),
    }
    for argument, call in calls.items():
        with pytest.raises(error, match=argument):
            call()
    # a float holding a whole number is that number (documented in bayes_hier._validate)
    assert correlated_ttest(x, y, runs=2.0).probs == correlated_ttest(x, y, runs=2).probs


def test_an_unknown_mcmc_keyword_is_refused_with_the_settings_listed():
    from bayes_hier import hierarchical_test
    from bayes_hier.joint import joint_test
    from bayes_hier.ranking import bradley_terry_test, plackett_luce_test

    scores = pd.DataFrame(
        {"dataset": "d", "model": ["a", "b"] * 4, "fold": [0, 0, 1, 1, 2, 2, 3, 3], "score": 0.5}
    )
    settings = "['chains', 'draws', 'warmup', 'adapt_delta', 'max_treedepth', 'engine', 'progress']"
    for name, call in (
        ("hierarchical_test", lambda: hierarchical_test(scores, chain=2)),
        ("joint_test", lambda: joint_test(scores, chain=2)),
        ("bradley_terry_test", lambda: bradley_terry_test(scores, chain=2)),
        ("plackett_luce_test", lambda: plackett_luce_test(scores, chain=2)),
    ):
        with pytest.raises(TypeError) as raised:
            call()
        message = str(raised.value)
        assert message.startswith(f"{name}() got unexpected keyword argument(s) ['chain']")
        assert message.endswith(f"the MCMC settings {settings}.")
    assert SamplerOptions.from_keywords({"chains": 2}, "f") == SamplerOptions(chains=2)
    assert SamplerOptions.from_keywords({}, "f") == SamplerOptions()
    # the typed record of the keywords names exactly the options' fields
    assert set(SamplerKeywords.__annotations__) == {f.name for f in fields(SamplerOptions)}


def test_adapt_delta_defaults_to_the_models_own_and_a_given_value_wins():
    from bayes_hier.hierarchical.model import HIERARCHICAL
    from bayes_hier.hierarchical.two_chart import TWO_CHART
    from bayes_hier.joint.model import JOINT
    from bayes_hier.ranking.bradley_terry import BRADLEY_TERRY

    assert SamplerOptions().adapt_delta is None
    for model, expected in ((HIERARCHICAL, 0.95), (TWO_CHART, 0.95), (JOINT, 0.9)):
        assert SamplerOptions().for_model(model).adapt_delta == expected
        assert SamplerOptions(adapt_delta=0.8).for_model(model).adapt_delta == 0.8
    assert SamplerOptions(chains=2).for_model(BRADLEY_TERRY) == SamplerOptions(
        chains=2, adapt_delta=0.9, warmup=1000
    )


def test_warmup_defaults_to_the_models_own_and_a_given_value_wins():
    from bayes_hier.hierarchical.model import HIERARCHICAL
    from bayes_hier.joint.model import JOINT, JOINT_FOLD

    assert SamplerOptions().warmup is None
    for model, expected in ((HIERARCHICAL, 1000), (JOINT, 1000), (JOINT_FOLD, 500)):
        assert SamplerOptions().for_model(model).warmup == expected
        assert SamplerOptions(warmup=0).for_model(model).warmup == 0
        assert SamplerOptions(warmup=1500.0).for_model(model).warmup == 1500
    for value, error in ((-1, ValueError), (2.5, ValueError), ("500", TypeError)):
        with pytest.raises(error, match="warmup"):
            SamplerOptions(warmup=value)


def test_check_helpers():
    assert check_bool(np.True_, "flag") is True
    assert check_int(np.int32(4), "n", minimum=1) == 4 and type(check_int(4.0, "n")) is int
    with pytest.raises(ValueError, match="n must be at least 1; got 0"):
        check_int(0, "n", minimum=1)
    with pytest.raises(ValueError, match="whole number"):
        check_int(float("nan"), "n")


# ---------------------------------------------------------------------- item 14
def test_hierarchical_test_steps_give_the_settings_of_a_fit():
    x = np.random.default_rng(0).uniform(0.7, 0.9, (3, 10))
    cv, rope = prepare_input(x, x + 0.01, 0.01, names=("a", "b"))
    assert cv.q == 3 and cv.names == ("a", "b") and rope == Rope(-0.01, 0.01)
    with pytest.raises(ValueError, match=r"x and y hold 1 data set; .*\(correlated_ttest\)"):
        prepare_input(x[:1], x[:1] + 0.01)
    streams = seed_streams(11)
    model_input = HIERARCHICAL.build_input(cv, rope, HierarchicalPrior(), streams.perturbation)
    assert len(HIERARCHICAL.initial_values(model_input, 3, streams.inits)) == 3
    coords, dims = HIERARCHICAL.coordinates(cv, model_input)
    assert coords == {"dataset": list(cv.datasets)}
    assert dims == {"sigma": ["dataset"], "tau_raw": ["dataset"]}
    gaussian = build_model_input(
        cv, rope, HierarchicalPrior(nu_prior="gaussian"), np.random.default_rng(0)
    )
    assert HIERARCHICAL.coordinates(cv, gaussian)[1] == {"sigma": ["dataset"]}
    # Split from one seed: a stream keeps its numbers whatever streams follow it.
    first, again = seed_streams(11), seed_streams(11)
    assert first.stan == again.stan and first.predictive == again.predictive
    assert first.inits.random() == again.inits.random()
    children = np.random.SeedSequence(11).spawn(4)
    assert first.stan == int(children[2].generate_state(1)[0] % 2**31)


def package_modules() -> dict[str, Path]:
    package = ROOT / "bayes_hier"
    modules = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports anywhere: at the top, inside functions and
    under ``TYPE_CHECKING`` (the strictest reading of the import graph)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            target = ".".join([*base, node.module] if node.module else base)
            if node.level == 0:
                target = node.module or ""
            if target not in modules:
                continue
            for alias in node.names:
                child = f"{target}.{alias.name}"
                found.add(child if child in modules else target)
    found.discard(name)
    return found


def test_the_package_has_no_import_cycle():
    """A depth-first search of the static import graph finds no cycle.

    Static, because importing any submodule first runs ``bayes_hier/__init__.py``, which fixes
    the order in which Python imports them; a cycle hidden by that order (or by a function-level
    or ``TYPE_CHECKING`` import) would still tie the modules together.
    """
    modules = package_modules()
    graph = {name: imported_modules(name, path, modules) for name, path in modules.items()}
    assert {"bayes_hier.bayesian_tests.plots", "bayes_hier.hierarchical.plots"} <= set(graph)
    cycles = []
    state: dict[str, str] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for child in sorted(graph[node]):
            if state.get(child) == "open":
                cycles.append([*trail[trail.index(child) :], child])
            elif child not in state:
                visit(child, [*trail, child])
        state[node] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == [], "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_every_module_imports():
    for name in package_modules():
        if name.endswith("__main__"):
            continue
        importlib.import_module(name)


@pytest.mark.parametrize("names", ["ab", ("a", "a"), ("a",)])
def test_names_are_a_pair_of_different_names(names):
    """One check for every two-model entry point: a string is not split into characters."""
    from bayes_hier import correlated_ttest, sign_test
    from bayes_hier.frequentist import mcnemar
    from bayes_hier.multimeasure import dominance_counts

    error = TypeError if isinstance(names, str) else ValueError
    x, y = np.linspace(0.7, 0.8, 10), np.linspace(0.71, 0.83, 10)
    for call in (
        lambda: correlated_ttest(x, y, rope=0.01, names=names),
        lambda: sign_test(x, y, rope=0.01, names=names),
        lambda: mcnemar(table=[[5, 3], [9, 7]], names=names),
        lambda: dominance_counts(np.c_[x, x], np.c_[y, y], names=names),
    ):
        with pytest.raises(error, match="names must be"):
            call()


NO_ENGINE = "no such engine"  # the engine lookup comes after every input check


def _three_model_frame(q: int = 6) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    rows = [
        (f"d{i}", m, 0, f, 0.8 + 0.01 * j + rng.normal(0, 0.01))
        for i in range(q)
        for j, m in enumerate("ABC")
        for f in range(5)
    ]
    return pd.DataFrame(rows, columns=["dataset", "model", "run", "fold", "score"])


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"higher_is_better": "no"}, TypeError, "higher_is_better must be True or False"),
        ({"chains": True}, TypeError, "chains must be an integer"),
        ({"draws": 2.5}, ValueError, "draws must be a whole number"),
        ({"draws": "100"}, TypeError, "draws must be an integer"),
        ({"max_treedepth": 0}, ValueError, "max_treedepth must be at least 1"),
        ({"rho": [0.1, 0.2]}, ValueError, "rho must be one number or one value per data set"),
        ({"rho": "0.1"}, TypeError, "rho must be one number"),
        ({"models": "AB"}, TypeError, "models must be a list of model names"),
        ({"hdi_prob": 1.5}, ValueError, "hdi_prob must be in"),
        ({"alpha": 2}, ValueError, "alpha must be in"),
        ({"progress": "yes"}, TypeError, "progress must be True or False"),
        ({"warn": 1}, TypeError, "warn must be True or False"),
        ({"adapt_delta": "0.9"}, TypeError, "adapt_delta must be a number"),
        ({"alpha_range": 5}, TypeError, "alpha_range must be a pair"),
        ({"chains": 2.0}, ValueError, f"Unknown engine '{NO_ENGINE}'"),  # 2.0 is 2: accepted
    ],
)
def test_joint_test_checks_every_argument_before_sampling(kwargs, error, message):
    from bayes_hier import joint_test

    with pytest.raises(error, match=message):
        joint_test(_three_model_frame(), rope=0.01, engine=NO_ENGINE, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"hdi_prob": 1.5}, ValueError, "hdi_prob must be in"),
        ({"hdi_prob": "0.9"}, TypeError, "hdi_prob must be a number"),
        ({"adapt_delta": "0.9"}, TypeError, "adapt_delta must be a number"),
        ({"adapt_delta": 1.2}, ValueError, "adapt_delta must be in"),
        ({"alpha_range": 5}, TypeError, "alpha_range must be a pair"),
        ({"alpha_range": (0.5, 1, 5)}, TypeError, "alpha_range must be a pair"),
        ({"beta_range": (0.2, 0.1)}, ValueError, "beta_range must satisfy 0 < low < high"),
        ({"sigma_factor": "10"}, TypeError, "sigma_factor must be a positive number"),
        ({"delta0_bound": float("inf")}, ValueError, "delta0_bound must be a finite positive"),
        ({"max_treedepth": 2.5}, ValueError, "max_treedepth must be a whole number"),
        ({"progress": "yes"}, TypeError, "progress must be True or False"),
    ],
)
def test_hierarchical_test_checks_every_argument_before_sampling(kwargs, error, message):
    x, y = np.vstack(SCORES), np.vstack(SCORES[::-1])
    with pytest.raises(error, match=message):
        hierarchical_test(x, y, rope=0.01, engine=NO_ENGINE, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"alpha": 2}, ValueError, "alpha must be in"),
        ({"jobs": 2.5}, ValueError, "jobs must be a whole number"),
        ({"jobs": 0}, ValueError, "jobs must be at least 1"),
        ({"progress": "x"}, TypeError, "progress must be True or False"),
        ({"higher_is_better": "no"}, TypeError, "higher_is_better must be True or False"),
        ({"hdi_prob": "0.9", "method": "hierarchical"}, TypeError, "hdi_prob must be a number"),
    ],
)
def test_compare_checks_its_arguments_before_any_pair_runs(kwargs, error, message):
    from bayes_hier import compare

    kwargs = {"method": "sign", **kwargs}
    with pytest.raises(error, match=message):
        compare(_three_model_frame(), rope=0.01, **kwargs)


@pytest.mark.parametrize(
    "kwargs", [{"names": ("X", "Y")}, {"higher_is_better": False}, {"rho": 0.5}, {"runs": 2}]
)
def test_a_cvdata_is_not_silently_given_other_settings(kwargs):
    x, y = np.vstack(SCORES), np.vstack(SCORES[::-1])
    cv = CVData.from_arrays(x, y, names=("A", "B"))
    with pytest.raises(ValueError, match=f"A CVData already fixes {next(iter(kwargs))}"):
        hierarchical_test(cv, rope=0.01, engine=NO_ENGINE, **kwargs)


def test_two_frames_keep_their_data_set_labels():
    rng = np.random.default_rng(0)
    x = pd.DataFrame(rng.uniform(0.7, 0.9, (3, 6)), index=["iris", "wine", "zoo"])
    cv = CVData.from_arrays(x, (x + 0.01).iloc[::-1])
    assert cv.datasets == ("iris", "wine", "zoo")
    np.testing.assert_allclose(cv.means, 0.01)


def test_constant_data_sets_with_an_empty_rope_get_a_spread_in_the_datas_units():
    """All data sets constant, rope 0: the spread is a thousandth of the differences' own size
    (2e-17 for differences of 2e-14), not 0.001 in absolute units."""
    from bayes_hier.hierarchical.model_input import ConstantDifferencesWarning, perturb_constant

    x = np.full((3, 10), 1e-12)
    cv = CVData.from_arrays(x, x + 2e-14, runs=1)
    with pytest.warns(ConstantDifferencesWarning, match="the rope is empty"):
        spread, names = perturb_constant(cv, Rope(0.0, 0.0), np.random.default_rng(0))
    assert len(names) == 3
    width = max(np.ptp(d) for d in spread)
    assert 0 < width <= 2 * 1e-3 * np.abs(cv.means).max()
    zeros = CVData.from_arrays(x, x.copy(), runs=1)  # every difference 0: the scores' size
    with pytest.warns(ConstantDifferencesWarning):
        spread, _ = perturb_constant(zeros, Rope(0.0, 0.0), np.random.default_rng(0))
    assert 0 < max(np.ptp(d) for d in spread) <= 2e-15

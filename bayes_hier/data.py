"""Validated cross-validation results of two models: :class:`CVData`.

All input validation of the package lives here, so that every test (hierarchical, correlated t,
sign, signed-rank, frequentist) accepts the same inputs and rejects bad ones with the same
messages. Two models, the *first* (``x``) and the *second* (``y``), are scored on the same folds of
a (repeated) cross-validation on one or several data sets. The analysed difference is
``d = y - x`` (negated when lower scores are better, so that ``d > 0`` always means the second
model is better).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ._validate import check_bool, check_int, check_pair_names
from .callers import user_stacklevel
from .rope import Rope, RopeLike

#: More results than this per data set with ``runs`` not given trigger a warning.
MANY_FOLDS = 25

#: Default column names of a tidy data frame (one row per model, data set, run and fold).
DEFAULT_COLUMNS: dict[str, str] = {
    "dataset": "dataset",
    "model": "model",
    "run": "run",
    "fold": "fold",
    "score": "score",
}


def column_roles(frame: pd.DataFrame, columns: Mapping[str, str] | None = None) -> dict[str, str]:
    """The column name of each role (``dataset, model, run, fold, score``) in a tidy ``frame``.

    ``columns`` overrides :data:`DEFAULT_COLUMNS` role by role. The model, fold and score columns
    must exist; ``dataset`` (one data set) and ``run`` (one run) may be absent.

    Raises
    ------
    ValueError
        For a role that does not exist, or a required column missing from ``frame`` (the
        message lists the frame's columns and says how to name the right one).
    """
    roles = {**DEFAULT_COLUMNS, **(dict(columns) if columns else {})}
    unknown = set(roles) - set(DEFAULT_COLUMNS)
    if unknown:
        raise ValueError(
            f"Unknown column roles {sorted(unknown)}; the roles are {list(DEFAULT_COLUMNS)}."
        )
    for role in ("model", "fold", "score"):
        if roles[role] not in frame.columns:
            raise ValueError(
                f"The data frame has no {role} column {roles[role]!r} (columns: "
                f"{list(frame.columns)}). Name it with columns={{'{role}': '...'}}."
            )
    check_key_values(frame, roles)
    return roles


def check_key_values(frame: pd.DataFrame, roles: Mapping[str, str]) -> None:
    """ValueError when a row lacks its data set, model, run or fold (a missing value in one of
    those columns, where present): such a row cannot be paired and would be dropped silently."""
    for role in ("dataset", "model", "run", "fold"):
        column = roles[role]
        if column in frame.columns and frame[column].isna().any():
            missing = frame[column].isna().to_numpy()
            raise ValueError(
                f"The {role} column {column!r} has {int(missing.sum())} missing value(s), e.g. in "
                f"row {frame.index[missing][0]!r}; every row needs its {role}. Fill them in or "
                "remove those rows."
            )


def corrected_standard_error(std: ArrayLike, n: ArrayLike, rho: ArrayLike) -> np.ndarray:
    """Standard error of a mean of n correlated cross-validation results, ``s·sqrt(1/n + ρ/(1−ρ))``.

    Nadeau & Bengio (2003): the variance of the mean of n results with sample standard deviation
    s and pairwise correlation ρ (overlapping training sets) is s²(1/n + ρ/(1 − ρ)).
    """
    std, n, rho = (np.asarray(x, dtype=float) for x in (std, n, rho))
    return std * np.sqrt(1.0 / n + rho / (1.0 - rho))


def _all_equal(values: np.ndarray) -> bool:
    """Whether a non-empty 1-D array holds one value only."""
    return bool(np.all(values == values[0]))


def warn_if_one_run_assumed(folds: int, reason: str, fix: str) -> None:
    """Warn when ``folds`` > :data:`MANY_FOLDS` results per data set are taken as one run of
    ``folds``-fold cross-validation (``rho = 1/folds``), which is rarely the design behind so many
    results; ``reason`` says why one run was assumed and ``fix`` how to give the runs."""
    if folds > MANY_FOLDS:
        warnings.warn(
            f"{reason}: the {folds} results per data set are taken as one run of {folds}-fold "
            f"cross-validation (rho = 1/{folds}). For repeated cross-validation {fix}.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )


def check_scores_are_numbers(values: pd.Series, column: str) -> None:
    """ValueError when a score column holds text: inputs are checked, not converted.

    Text that is no number (``"oops"``) and numbers written as text (``"0.8"``, what a column
    with one bad cell holds after ``read_csv``) are both refused, with the first example and how
    to fix it; NaN (a failed fold) and real numbers pass.
    """
    if values.dtype.kind != "O":
        return
    bad = (pd.to_numeric(values, errors="coerce").isna() & values.notna()).to_numpy()
    if bad.any():
        example = values[bad].iloc[0]
        comma = isinstance(example, str) and re.fullmatch(r"\s*[-+]?\d*,\d+\s*", example)
        hint = (
            " It looks like a decimal comma: write the decimals with a point."
            if comma
            else " Leave a failed fold empty or NaN."
        )
        raise ValueError(
            f"The score column {column!r} has {int(bad.sum())} non-numeric value(s), e.g. "
            f"{example!r}; scores must be numbers.{hint}"
        )
    text = values.map(lambda v: isinstance(v, (str, bytes))).to_numpy(bool)
    if not text.any():
        return
    example = values[text].iloc[0]
    raise ValueError(
        f"The score column {column!r} holds {int(text.sum())} number(s) written as text, e.g. "
        f"{example!r}; scores are checked, not converted. Convert the column to numbers first, "
        f"e.g. frame[{column!r}] = pandas.to_numeric(frame[{column!r}])."
    )


def finite_scores(
    frame: pd.DataFrame, score_column: str, key_columns: Sequence[str], owner: str = ""
) -> pd.Series:
    """The score column of a tidy frame as floats.

    Raises a ValueError naming the first offending row (its ``key_columns``) when a score is NaN,
    infinite or not a number; ``owner`` starts the message (e.g. ``"Model 'a' has "``).
    """
    check_scores_are_numbers(frame[score_column], score_column)
    scores = pd.to_numeric(frame[score_column], errors="coerce").astype(float)
    bad = ~np.isfinite(scores.to_numpy())
    if bad.any():
        row = frame.loc[bad, list(key_columns)].iloc[0]
        example = ", ".join(str(value) for value in row)
        raise ValueError(
            f"{owner}{int(bad.sum())} NaN, infinite or non-numeric scores, e.g. at "
            f"({', '.join(key_columns)}) = ({example}). Remove or re-run the failed folds."
        )
    return scores


def _float_array(values: Any, label: str) -> np.ndarray:
    """``values`` as a float array; :class:`TypeError` naming ``label`` unless they are numbers.

    Booleans, integers and floats are accepted (object arrays of numbers too); strings, dates,
    complex numbers and other objects are refused rather than cast.
    """
    try:
        array = np.asarray(values)
    except ValueError:  # a ragged nesting that is not one array
        raise ValueError(
            f"{label} must be a 1-D array, a 2-D array (data sets x folds) or a list of 1-D "
            "arrays of fold scores; got a nesting of unequal depth."
        ) from None
    if array.dtype.kind in "biuf":
        return array.astype(float)
    if array.dtype.kind == "O" and not any(isinstance(v, (str, bytes)) for v in array.flat):
        try:
            return array.astype(float)
        except (TypeError, ValueError):
            pass
    example = next(iter(array.flat), None)
    raise TypeError(
        f"{label} must hold numbers (scores); got values of type {array.dtype} "
        f"(e.g. {example!r}). Convert them to floats first."
    )


def _numeric_frame(frame: pd.DataFrame, label: str) -> np.ndarray:
    """A frame of scores (data sets x folds) as a float array; a tidy frame is refused."""
    text = [str(c) for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if text:
        raise ValueError(
            f"{label} is a data frame with non-numeric columns {text[:5]}: pass a tidy frame "
            "(columns dataset, model, run, fold, score) alone as x, with "
            "models=(first, second); two frames x and y must hold only scores "
            "(data sets x folds)."
        )
    return frame.to_numpy(dtype=float)


def _check_same_labels(x_labels: pd.Index, y_labels: pd.Index, axis: str) -> None:
    for label, labels in (("x", x_labels), ("y", y_labels)):
        if labels.has_duplicates:
            repeated = list(pd.unique(labels[labels.duplicated()]))[:5]
            raise ValueError(
                f"{label} has repeated {axis} labels {repeated}: pandas inputs are paired by "
                "label, so each label must appear once (or pass .to_numpy() to pair by position)."
            )
    if not x_labels.equals(y_labels) and set(x_labels) != set(y_labels):
        only_x = [v for v in x_labels if v not in set(y_labels)][:5]
        only_y = [v for v in y_labels if v not in set(x_labels)][:5]
        raise ValueError(
            f"x and y have different {axis} labels (only in x: {only_x}; only in y: {only_y}). "
            "pandas inputs are paired by label: give both the same labels, or pass "
            ".to_numpy() to pair them by position."
        )


def align_by_label(x: Any, y: Any) -> tuple[Any, Any]:
    """``x`` and ``y`` paired by label when both are pandas objects of the same kind.

    Two Series are aligned on their index, two DataFrames on their index (data sets) and columns
    (folds): ``y`` is reordered to ``x``'s labels, so the order of the rows does not matter.
    Different or repeated labels raise a ValueError naming ``x`` and ``y``. Any other pair
    (arrays, lists, a Series with an array) is paired by position.
    """
    if isinstance(x, pd.Series) and isinstance(y, pd.Series):
        _check_same_labels(x.index, y.index, "index")
        return x, y.reindex(x.index)
    if isinstance(x, pd.DataFrame) and isinstance(y, pd.DataFrame):
        _check_same_labels(x.index, y.index, "index (data set)")
        _check_same_labels(x.columns, y.columns, "column (fold)")
        return x, y.reindex(index=x.index, columns=x.columns)
    return x, y


def _as_float_rows(values: Any, label: str) -> list[np.ndarray]:
    """Turn a 1-D array (one data set), a 2-D array (q x n) or a list of 1-D arrays into rows."""
    if isinstance(values, pd.DataFrame):
        values = _numeric_frame(values, label)
    if isinstance(values, (np.ndarray, pd.Series)) or np.isscalar(values):
        array = _float_array(values, label)
        if array.ndim == 1:
            return [array]
        if array.ndim == 2:
            return [row for row in array]
        raise ValueError(
            f"{label} must be a 1-D array (one data set), a 2-D array (data sets x folds) or a "
            f"list of 1-D arrays; got an array with {array.ndim} dimensions."
        )
    try:
        rows = list(values)
    except TypeError:
        raise TypeError(
            f"{label} must be an array or a list of fold scores; got {type(values).__name__}."
        ) from None
    if rows and all(np.isscalar(v) for v in rows):
        return [_float_array(rows, label)]
    out = []
    for i, row in enumerate(rows):
        array = _float_array(row, f"{label}[{i}]")
        if array.ndim != 1:
            raise ValueError(
                f"{label}[{i}] must be a 1-D array of fold scores; got shape {array.shape}."
            )
        out.append(array)
    return out


def per_dataset_values(value: Any, q: int, label: str) -> np.ndarray:
    """``value`` (one number, or one per data set) as a float array of length ``q``."""
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":  # text, booleans, objects are not read as numbers
        raise TypeError(f"{label} must be one number or one number per data set; got {value!r}.")
    array = array.astype(float)
    if array.ndim == 0:
        return np.full(q, float(array))
    if array.shape != (q,):
        raise ValueError(
            f"{label} must be one number or one value per data set ({q}); got shape {array.shape}."
        )
    return array


def _dataset_names(datasets: Sequence[str] | None, q: int) -> tuple[str, ...]:
    """The names of q data sets (default ``"dataset 0"``, ...), checked to be q unique ones."""
    names = (
        tuple(str(d) for d in datasets)
        if datasets is not None
        else tuple(f"dataset {i}" for i in range(q))
    )
    if len(names) != q:
        raise ValueError(f"Got {len(names)} data-set names for {q} data sets.")
    if len(set(names)) != q:
        raise ValueError("Data-set names must be unique.")
    return names


def _check_rows(rows: Sequence[np.ndarray], datasets: Sequence[str], label: str) -> None:
    """Each data set's row (of ``label``) has at least 2 results, all finite."""
    for name, row in zip(datasets, rows):
        if row.size < 2:
            raise ValueError(
                f"{label}: data set {name!r} has {row.size} score(s); at least 2 paired fold "
                "results are needed to estimate a variance. Run a cross-validation with k >= 2."
            )
        bad = ~np.isfinite(row)
        if bad.any():
            where = np.flatnonzero(bad)[:5].tolist()
            raise ValueError(
                f"{label}: data set {name!r} has {int(bad.sum())} NaN or infinite value(s) "
                f"(positions {where}). Remove or re-run the failed folds before the analysis."
            )


def _runs_per_dataset(runs: Any, q: int) -> np.ndarray:
    """``runs`` (one count, or one per data set) as q integers >= 1 (see :mod:`._validate`)."""
    if np.ndim(runs) == 0:
        return np.full(q, check_int(runs, "runs", minimum=1))
    if np.shape(runs) != (q,):
        raise ValueError(
            f"runs must be one number or one value per data set ({q}); got shape {np.shape(runs)}."
        )
    return np.array([check_int(r, f"runs[{i}]", minimum=1) for i, r in enumerate(runs)])


@dataclass(frozen=True)
class CVData:
    """Paired cross-validation differences of two models on one or more data sets.

    Build it with :meth:`from_arrays` or :meth:`from_frame`; the constructor validates.

    Parameters
    ----------
    differences
        One 1-D array per data set: the paired differences ``d = y - x`` (already negated when
        lower scores are better), in run-major order (run 0 folds 0..k-1, run 1, ...).
    runs
        Number of cross-validation repetitions per data set (one number or one per data set).
        ``n_i`` must be a multiple of it; ``folds_i = n_i / runs_i`` must be at least 2.
    rho
        Fold correlation per data set, in the open interval (0, 1). ``None`` uses the
        Nadeau–Bengio heuristic ``rho = 1 / folds`` (test-set share of a k-fold split).
    datasets
        Data-set names (default ``"dataset 0"``, ...).
    names
        Names of the first and the second model.
    scores
        Optional raw scores (both models, all folds) used only to check that the rope is in
        the units of the scores.
    higher_is_better
        Recorded for the reports; the sign convention has already been applied to
        ``differences``.
    """

    differences: tuple[np.ndarray, ...]
    runs: np.ndarray
    rho: np.ndarray
    datasets: tuple[str, ...]
    names: tuple[str, str] = ("first", "second")
    scores: np.ndarray | None = field(default=None, repr=False)
    higher_is_better: bool = True

    def __init__(
        self,
        differences: Sequence[Iterable[float]] | np.ndarray,
        runs: int | Sequence[int] = 1,
        rho: float | Sequence[float] | None = None,
        datasets: Sequence[str] | None = None,
        names: Sequence[str] = ("first", "second"),
        scores: np.ndarray | None = None,
        higher_is_better: bool = True,
    ) -> None:
        rows = _as_float_rows(differences, "differences")
        q = len(rows)
        if q == 0:
            raise ValueError("No data sets given: pass at least one array of fold results.")
        datasets = _dataset_names(datasets, q)
        _check_rows(rows, datasets, "differences")
        runs_array = _runs_per_dataset(runs, q)
        n = np.array([row.size for row in rows])
        for name, n_i, r_i in zip(datasets, n, runs_array):
            if n_i % r_i:
                raise ValueError(
                    f"Data set {name!r} has {n_i} results, which is not a multiple of runs={r_i}. "
                    "Pass the number of cross-validation repetitions, e.g. runs=10 for 10x10 CV."
                )
            if n_i // r_i < 2:
                raise ValueError(
                    f"Data set {name!r}: runs={r_i} leaves {n_i // r_i} fold per run; a "
                    "cross-validation needs at least 2 folds per run (runs = n / folds)."
                )
        if rho is None:
            rho_array = runs_array / n  # 1 / folds
        else:
            rho_array = per_dataset_values(rho, q, "rho")
            if np.any(~(rho_array > 0) | ~(rho_array < 1)):
                raise ValueError(
                    f"rho must lie strictly between 0 and 1; got {rho!r}. It is the correlation "
                    "between folds, n_test / (n_test + n_train), e.g. 1/k for k-fold CV."
                )
        names = check_pair_names(names)
        object.__setattr__(self, "differences", tuple(rows))
        object.__setattr__(self, "runs", runs_array)
        object.__setattr__(self, "rho", rho_array)
        object.__setattr__(self, "datasets", datasets)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(
            self, "higher_is_better", check_bool(higher_is_better, "higher_is_better")
        )

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_arrays(
        cls,
        x: Any,
        y: Any,
        runs: int | Sequence[int] | None = None,
        *,
        rho: float | Sequence[float] | None = None,
        datasets: Sequence[str] | None = None,
        names: Sequence[str] = ("first", "second"),
        higher_is_better: bool = True,
    ) -> CVData:
        """Build from the scores of the first (``x``) and second (``y``) model.

        ``x`` and ``y`` are 1-D arrays (one data set), 2-D arrays (data sets x folds) or lists of
        1-D arrays (a ragged design: data sets with different numbers of folds). Fold ``j`` of
        ``x`` and ``y`` must come from the same train/test split. ``runs=None`` means a single
        run of k-fold cross-validation (``rho = 1/n``); as that is rarely right for more than
        ``MANY_FOLDS`` results, it warns then: pass ``runs`` explicitly.

        pandas inputs are paired by label (:func:`align_by_label`): two Series on their index,
        two DataFrames on their index (data sets) and columns (folds).
        """
        higher_is_better = check_bool(higher_is_better, "higher_is_better")
        x, y = align_by_label(x, y)
        if datasets is None and isinstance(x, pd.DataFrame):
            datasets = [str(label) for label in x.index]  # the data sets' labels, kept
        x_rows = _as_float_rows(x, "x")
        y_rows = _as_float_rows(y, "y")
        if not any(row.size for row in x_rows + y_rows):
            raise ValueError(
                f"x and y hold no scores (shapes {np.shape(x)} and {np.shape(y)}): give the fold "
                "scores of each model, a 1-D array for one data set or a 2-D array (data sets x "
                "folds) for several."
            )
        if len(x_rows) != len(y_rows):
            raise ValueError(
                f"x has {len(x_rows)} data sets and y has {len(y_rows)}: the two models must be "
                "scored on the same data sets."
            )
        for i, (xr, yr) in enumerate(zip(x_rows, y_rows)):
            if xr.shape != yr.shape:
                raise ValueError(
                    f"x and y have different shapes for data set {i} ({xr.shape} vs {yr.shape}): "
                    "the scores must be paired fold by fold."
                )
        named = _dataset_names(datasets, len(x_rows))
        _check_rows(x_rows, named, "x")
        _check_rows(y_rows, named, "y")
        if runs is None:
            runs = 1
            if rho is None:
                warn_if_one_run_assumed(
                    max(row.size for row in x_rows),
                    "runs not given",
                    "pass runs=, e.g. runs=10 for 10 runs of 10 folds",
                )
        sign = 1.0 if higher_is_better else -1.0
        differences = [sign * (yr - xr) for xr, yr in zip(x_rows, y_rows)]
        scores = np.concatenate(x_rows + y_rows)
        return cls(
            differences,
            runs=runs,
            rho=rho,
            datasets=datasets,
            names=names,
            scores=scores[np.isfinite(scores)],
            higher_is_better=higher_is_better,
        )

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        models: Sequence[str] | None = None,
        *,
        columns: Mapping[str, str] | None = None,
        rho: float | Sequence[float] | None = None,
        higher_is_better: bool = True,
    ) -> CVData:
        """Build from a tidy data frame with one row per (model, data set, run, fold).

        Parameters
        ----------
        frame
            Columns ``dataset, model, run, fold, score`` (names configurable with ``columns``).
            ``dataset`` may be absent (one data set) and so may ``run`` (a single run).
        models
            The (first, second) model to compare; optional when the frame holds exactly two.
        columns
            Mapping from the roles ``dataset, model, run, fold, score`` to column names, e.g.
            ``{"model": "classifier", "score": "accuracy"}``.
        """
        higher_is_better = check_bool(higher_is_better, "higher_is_better")
        roles = column_roles(frame, columns)
        df = frame.copy()
        runs_given = roles["run"] in df.columns
        for role, default in (("dataset", "dataset 0"), ("run", 0)):
            if roles[role] not in df.columns:
                df[roles[role]] = default
        present = list(pd.unique(df[roles["model"]]))
        if models is None:
            if len(present) != 2:
                raise ValueError(
                    f"The frame holds {len(present)} models {present}; say which two to compare "
                    "with models=(first, second)."
                )
            models = present
        if isinstance(models, str) or len(models) != 2 or models[0] == models[1]:
            raise ValueError(
                f"models must name two different models of the frame, (first, second); got "
                f"{models!r} (models in the frame: {present})."
            )
        for model in models:
            if model not in present:
                raise ValueError(f"Model {model!r} is not in the frame (models: {present}).")
        key = [roles["dataset"], roles["run"], roles["fold"]]
        tables = []
        for model in models:
            part = df.loc[df[roles["model"]] == model, [*key, roles["score"]]]
            duplicated = part.duplicated(subset=key, keep=False)
            if duplicated.any():
                example = part.loc[duplicated, key].iloc[0].tolist()
                raise ValueError(
                    f"Model {model!r} has {int(duplicated.sum())} rows sharing a (dataset, run, "
                    f"fold), e.g. {example}. Each fold must appear once per model; aggregate or "
                    "remove the duplicates."
                )
            scores = finite_scores(part, roles["score"], key, f"Model {model!r} has ")
            tables.append(scores.set_axis(pd.MultiIndex.from_frame(part[key])).rename(str(model)))
        joined = pd.concat(tables, axis=1, join="outer")
        missing = joined.isna().any(axis=1)
        if missing.any():
            example = missing[missing].index[0]
            lacking = [str(m) for m in models if pd.isna(joined.loc[example, str(m)])]
            raise ValueError(
                f"{int(missing.sum())} (dataset, run, fold) combinations are scored for one model "
                f"only, e.g. {tuple(example)} lacks {lacking}. The comparison is paired: give both "
                "models the same folds."
            )
        order = list(pd.unique(df[roles["dataset"]]))
        x_rows, y_rows, runs = [], [], []
        for dataset in order:
            if dataset not in joined.index.get_level_values(0):
                continue
            block = joined.loc[dataset].sort_index()
            n_runs = block.index.get_level_values(0).nunique()
            n_folds = block.index.get_level_values(1).nunique()
            if len(block) != n_runs * n_folds:
                raise ValueError(
                    f"Data set {dataset!r} has {len(block)} results for {n_runs} runs and "
                    f"{n_folds} folds; every run must have the same folds."
                )
            x_rows.append(block[str(models[0])].to_numpy(dtype=float))
            y_rows.append(block[str(models[1])].to_numpy(dtype=float))
            runs.append(n_runs)
        if not runs_given and rho is None:
            warn_if_one_run_assumed(
                max(row.size for row in x_rows),
                f"the frame has no run column {roles['run']!r}",
                "add the run column (or name it with columns={'run': ...})",
            )
        return cls.from_arrays(
            x_rows,
            y_rows,
            runs=runs,
            rho=rho,
            datasets=[str(d) for d in order if d in joined.index.get_level_values(0)],
            names=[str(m) for m in models],
            higher_is_better=higher_is_better,
        )

    # ------------------------------------------------------------------ derived quantities
    @property
    def q(self) -> int:
        """Number of data sets."""
        return len(self.differences)

    @property
    def n(self) -> np.ndarray:
        """Number of paired results per data set."""
        return np.array([d.size for d in self.differences])

    @property
    def folds(self) -> np.ndarray:
        """Folds per run, per data set."""
        return self.n // self.runs

    @property
    def means(self) -> np.ndarray:
        """Sample mean of the differences of each data set (the MLE of its true difference).

        A data set whose differences are all equal has exactly that value as its mean (summing
        n equal floats can be off by an ulp: 0.7 + ... + 0.7 over 100 gives 0.7000000000000002).
        """
        return np.array([d[0] if _all_equal(d) else d.mean() for d in self.differences])

    @property
    def sum_of_squares(self) -> np.ndarray:
        """``SS_i = sum_j (d_ij - mean_i)^2`` per data set; exactly 0 when the differences are
        all equal (an ulp-wrong mean would leave about 1e-31 and hide the point mass of the
        correlated t-test and the hierarchical model's constant-data-set handling)."""
        return np.array(
            [0.0 if _all_equal(d) else np.sum((d - d.mean()) ** 2) for d in self.differences]
        )

    @property
    def stds(self) -> np.ndarray:
        """Sample standard deviation (ddof = 1) of the differences of each data set."""
        return np.sqrt(self.sum_of_squares / (self.n - 1))

    @property
    def standard_errors(self) -> np.ndarray:
        """Corrected standard error of each mean, ``s_i * sqrt(1/n_i + rho_i / (1 - rho_i))``.

        The Nadeau–Bengio correction for the correlation between overlapping training sets.
        """
        return corrected_standard_error(self.stds, self.n, self.rho)

    def rope(self, rope: RopeLike) -> Rope:
        """Parse ``rope`` and warn if it looks like it is in other units than the scores."""
        return Rope.parse(rope, self.scores)

    def to_frame(self) -> pd.DataFrame:
        """One row per data set: n, runs, folds, rho, mean and sd of the differences."""
        return pd.DataFrame(
            {
                "dataset": list(self.datasets),
                "n": self.n,
                "runs": self.runs,
                "folds": self.folds,
                "rho": self.rho,
                "mean": self.means,
                "std": self.stds,
            }
        )

    def __repr__(self) -> str:
        design = (
            f"{self.runs[0]}x{self.folds[0]} CV"
            if np.all(self.runs == self.runs[0]) and np.all(self.folds == self.folds[0])
            else "ragged CV"
        )
        return (
            f"CVData({self.names[1]} - {self.names[0]}, {self.q} data set(s), {design}, "
            f"n={self.n.sum()} differences)"
        )


def as_cvdata(
    x: Any,
    y: Any = None,
    runs: int | Sequence[int] | None = None,
    *,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    rho: float | Sequence[float] | None = None,
    higher_is_better: bool = True,
) -> CVData:
    """Accept a :class:`CVData`, a tidy data frame, or the arrays ``x`` and ``y``."""
    if isinstance(x, CVData):
        if y is not None:
            raise ValueError("Pass either a CVData or the scores x and y, not both.")
        given = {"runs": runs, "names": names, "models": models, "columns": columns, "rho": rho}
        ignored = [name for name, value in given.items() if value is not None]
        ignored += [] if higher_is_better is True else ["higher_is_better"]
        if ignored:
            raise ValueError(
                f"A CVData already fixes {', '.join(ignored)}: set them when building it (e.g. "
                "CVData.from_arrays(x, y, runs=..., names=..., higher_is_better=...)), or pass "
                "the scores instead of the CVData."
            )
        return x
    if isinstance(x, pd.DataFrame) and y is None:
        if runs is not None:
            raise ValueError("With a data frame, runs are read from its run column; drop runs=.")
        cv = CVData.from_frame(
            x, models=models, columns=columns, rho=rho, higher_is_better=higher_is_better
        )
        if names is not None:
            cv = CVData(
                cv.differences, cv.runs, cv.rho, cv.datasets, names, cv.scores, higher_is_better
            )
        return cv
    if y is None:
        raise ValueError(
            "Give the scores of both models (x and y), a tidy data frame, or a CVData."
        )
    return CVData.from_arrays(
        x,
        y,
        runs=runs,
        rho=rho,
        names=names if names is not None else ("first", "second"),
        higher_is_better=higher_is_better,
    )


def as_single_cvdata(
    x: Any,
    y: Any = None,
    runs: int | Sequence[int] | None = None,
    *,
    test: str,
    hint: str,
    **kwargs: Any,
) -> CVData:
    """:func:`as_cvdata` for a test that analyses exactly one data set.

    ``test`` names the test and ``hint`` says how to pick a data set or which test compares
    several; both go into the error raised when the input holds more than one data set.
    """
    cv = as_cvdata(x, y, runs, **kwargs)
    if cv.q != 1:
        shown = ", ".join(repr(d) for d in cv.datasets[:3]) + (", ..." if cv.q > 3 else "")
        raise ValueError(
            f"The {test} analyses one data set, but the input holds {cv.q} ({shown}). {hint}"
        )
    return cv


@dataclass(frozen=True)
class PerDataset:
    """One difference per data set (``z = y - x``, negated when lower is better)."""

    differences: np.ndarray
    datasets: tuple[str, ...]
    names: tuple[str, str]
    scores: np.ndarray | None
    higher_is_better: bool = True


def _is_flat(values: Any) -> bool:
    """True for a 1-D array or a flat list of numbers (one score per data set)."""
    if isinstance(values, (pd.DataFrame, CVData)):
        return False
    if isinstance(values, pd.Series):
        return True
    try:
        array = np.asarray(values)
    except ValueError:
        return False  # ragged: a list of 1-D arrays
    if array.dtype == object:
        return array.ndim == 1 and all(np.ndim(v) == 0 for v in array)
    return array.ndim == 1


def per_dataset_differences(
    x: Any,
    y: Any = None,
    *,
    names: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    datasets: Sequence[str] | None = None,
    higher_is_better: bool = True,
) -> PerDataset:
    """The per-data-set differences for the sign and signed-rank tests.

    * 1-D ``x`` and ``y``: one (already averaged) score per data set;
    * 2-D arrays (data sets x folds), lists of 1-D arrays, a tidy data frame or a
      :class:`~bayes_hier.data.CVData`: the fold differences are averaged per data set.

    Two pandas Series (or DataFrames) are paired by label (:func:`align_by_label`).
    """
    higher_is_better = check_bool(higher_is_better, "higher_is_better")
    if y is not None and _is_flat(x) and _is_flat(y):
        x, y = align_by_label(x, y)
        xs = _float_array(x, "x")
        ys = _float_array(y, "y")
        if xs.shape != ys.shape:
            raise ValueError(
                f"x and y have different lengths ({xs.size} vs {ys.size}): give one score per "
                "data set for each model, for the same data sets in the same order."
            )
        if xs.size == 0:
            raise ValueError("No data sets given: x and y are empty.")
        for label, values in (("x", xs), ("y", ys)):
            bad = ~np.isfinite(values)
            if bad.any():
                raise ValueError(
                    f"{label} has {int(bad.sum())} NaN or infinite score(s) (positions "
                    f"{np.flatnonzero(bad)[:5].tolist()}); remove those data sets from x and y "
                    "before the analysis."
                )
        names = check_pair_names(names) if names is not None else ("first", "second")
        if datasets is None:
            datasets = (
                [str(i) for i in x.index]
                if isinstance(x, pd.Series)
                else [f"dataset {i}" for i in range(xs.size)]
            )
        if len(datasets) != xs.size:
            raise ValueError(f"Got {len(datasets)} data-set names for {xs.size} data sets.")
        sign = 1.0 if higher_is_better else -1.0
        with np.errstate(over="ignore", invalid="ignore"):
            differences = sign * (ys - xs)
        if not np.all(np.isfinite(differences)):
            raise ValueError(
                f"{int(np.sum(~np.isfinite(differences)))} difference(s) y - x overflow to "
                "infinity (scores near the largest float); rescale the scores."
            )
        return PerDataset(
            differences,
            tuple(str(d) for d in datasets),
            (str(names[0]), str(names[1])),
            np.concatenate([xs, ys]),
            higher_is_better,
        )
    if y is not None and not isinstance(x, (pd.DataFrame, CVData)):
        # 2-D arrays or ragged lists of fold scores: one run of k folds per data set (the run
        # structure does not matter for a mean).
        cv = CVData.from_arrays(
            x,
            y,
            runs=1,
            datasets=datasets,
            names=tuple(names) if names is not None else ("first", "second"),
            higher_is_better=higher_is_better,
        )
    else:
        cv = as_cvdata(
            x,
            y,
            None,
            names=names,
            models=models,
            columns=columns,
            higher_is_better=higher_is_better,
        )
    return PerDataset(cv.means, cv.datasets, cv.names, cv.scores, cv.higher_is_better)

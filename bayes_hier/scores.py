"""Cross-validation scores of k models as one validated tidy table, and the pairs cut from it.

The missing-data policy of ``bayes_hier.compare()`` lives here (nothing is dropped
silently: every drop is recorded in a :class:`PairUsage` and named in a warning):

* a model missing on some data sets: each pair uses the data sets both models have;
* folds missing or NaN for one model on a data set: the pair uses the (run, fold) cells both
  models have there, still paired by run and fold; the data set is dropped from the pair when
  fewer than ``min_folds`` paired cells remain;
* the rank-based frequentist tests use complete blocks only: the data sets on which every model
  has a score for every (run, fold) cell that any model has (:meth:`ModelScores.complete_blocks`);
* duplicated (dataset, model, run, fold) rows are an error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._validate import check_int
from .data import CVData, check_scores_are_numbers, column_roles, warn_if_one_run_assumed

#: The columns of the canonical tidy table, in this order.
KEYS = ("dataset", "run", "fold")


class MissingDataWarning(UserWarning):
    """Some scores were left out of a comparison (unpaired folds, data sets a model lacks)."""


@dataclass(frozen=True)
class PairUsage:
    """What one pair of models was compared on.

    Attributes
    ----------
    first, second
        The two models, as the pair is written.
    datasets
        Data sets used, in the order of the input.
    folds
        Paired (run, fold) cells used per data set.
    partial
        Data sets used with some cells left out: data set -> number of unpaired cells dropped.
    dropped
        Data sets left out of this pair: data set -> the reason.
    """

    first: str
    second: str
    datasets: tuple[str, ...]
    folds: Mapping[str, int]
    partial: Mapping[str, int] = field(default_factory=dict)
    dropped: Mapping[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """True when nothing was left out."""
        return not self.partial and not self.dropped

    def describe(self) -> list[str]:
        """One sentence per data set dropped or used partially (empty when complete)."""
        lines = [
            f"{self.first} vs {self.second}: data set {name!r} dropped ({reason})"
            for name, reason in self.dropped.items()
        ]
        lines += [
            f"{self.first} vs {self.second}: data set {name!r} uses {self.folds[name]} paired "
            f"folds ({count} unpaired left out)"
            for name, count in self.partial.items()
        ]
        return lines

    def as_dict(self) -> dict[str, Any]:
        """Plain types, for JSON."""
        return {
            "first": self.first,
            "second": self.second,
            "datasets": list(self.datasets),
            "folds": dict(self.folds),
            "partial": dict(self.partial),
            "dropped": dict(self.dropped),
        }


@dataclass(frozen=True)
class ModelScores:
    """The scores of k models in canonical tidy form.

    Attributes
    ----------
    table
        Columns ``dataset, model, run, fold, score`` (names as strings, run and fold as given,
        score float with NaN for a failed fold). Unique on (dataset, model, run, fold).
    models
        The models compared, in order (the order of the pairs and of the tables).
    datasets
        Data sets in order of first appearance.
    score_name
        The name of the score column in the input (for the reports: the rope's units).
    """

    table: pd.DataFrame
    models: tuple[str, ...]
    datasets: tuple[str, ...]
    score_name: str = "score"

    def cells(self, model: str) -> pd.Series:
        """Finite scores of ``model`` indexed by (dataset, run, fold)."""
        part = self.table[self.table["model"] == model]
        scores = part.set_index(list(KEYS))["score"]
        return scores[np.isfinite(scores.to_numpy())]

    def design(self, models: Sequence[str] | None = None) -> pd.DataFrame:
        """Per data set: the number of runs, of folds per run and of (run, fold) cells that
        ``models`` (default: all) have rows for (a NaN score counts: the fold was planned).

        Folds per run are counted within each run (the largest count over the runs), so folds
        numbered across runs (run 1 holding folds 5-9 of a 2 x 5-fold design) count as 5.
        """
        table = self.table if models is None else self.table[self.table["model"].isin(models)]
        grouped = table.groupby("dataset", sort=False)
        per_run = table.groupby(["dataset", "run"], sort=False)["fold"].nunique()
        return pd.DataFrame(
            {
                "runs": grouped["run"].nunique(),
                "folds": per_run.groupby(level="dataset", sort=False).max(),
                "cells": table.drop_duplicates(list(KEYS)).groupby("dataset", sort=False).size(),
            }
        ).reindex(list(self.datasets))

    def complete_blocks(self) -> tuple[pd.DataFrame, dict[str, str]]:
        """Mean score per (data set, model) over the data sets where every model has every cell.

        Returns the data sets x models table (for the rank-based tests) and, for every data set
        left out, the reason.
        """
        finite = self.table.assign(ok=np.isfinite(self.table["score"].to_numpy()))
        cells = finite.pivot_table(
            index=["dataset", "run", "fold"], columns="model", values="ok", aggfunc="first"
        ).reindex(columns=list(self.models))
        left_out: dict[str, str] = {}
        for dataset, block in cells.groupby(level="dataset", sort=False):
            lacking = [m for m in self.models if not block[m].eq(True).all()]
            if lacking:
                left_out[str(dataset)] = f"incomplete for {', '.join(lacking)}"
        means = (
            self.table[np.isfinite(self.table["score"].to_numpy())]
            .groupby(["dataset", "model"], sort=False)["score"]
            .mean()
            .unstack("model")
        )
        kept = [d for d in self.datasets if d not in left_out]
        return means.reindex(index=kept, columns=list(self.models)), left_out

    def pair(
        self, first: str, second: str, *, min_folds: int = 2, higher_is_better: bool = True
    ) -> tuple[CVData | None, PairUsage]:
        """The paired differences ``second - first`` under the missing-data policy.

        A data set scored completely for both models keeps its runs and ``rho = runs / n``
        (``1 / folds``, the default of :class:`~bayes_hier.CVData`), so the pair's input is
        exactly what ``CVData.from_frame`` builds from the same rows. A data set with unpaired
        cells (or whose runs do not all have the same folds) keeps the paired ones (in run-major
        order) as one block with ``rho = 1 / folds`` of its design. Cells are those the two
        models have rows for; other models' cells do not count. ``None`` when no data set
        remains.
        """
        a, b = self.cells(first), self.cells(second)
        design = self.design((first, second))
        runs_of, folds_of, cells_of = (design[c].to_dict() for c in ("runs", "folds", "cells"))
        # the cells both models have, every data set at once: sorted by data set, then (run,
        # fold), so each data set's paired cells are one run of rows in run-major order
        joined = pd.concat([a, b], axis=1, join="inner").sort_index()
        values = joined.to_numpy(float)
        labels = joined.index.get_level_values(0).to_numpy()
        edges = np.flatnonzero(labels[1:] != labels[:-1]) + 1
        starts = np.concatenate([[0], edges]).astype(int)
        stops = np.concatenate([edges, [len(labels)]]).astype(int)
        rows_of = {labels[i]: (i, j) for i, j in zip(starts, stops)} if len(labels) else {}
        x_rows, y_rows, runs, rho, used = [], [], [], [], []
        folds: dict[str, int] = {}
        partial: dict[str, int] = {}
        dropped: dict[str, str] = {}
        a_sets = set(a.index.get_level_values(0))
        b_sets = set(b.index.get_level_values(0))
        for dataset in self.datasets:
            lacking = [m for m, sets in ((first, a_sets), (second, b_sets)) if dataset not in sets]
            if lacking:
                dropped[dataset] = f"no scores for {' and '.join(lacking)}"
                continue
            start, stop = rows_of.get(dataset, (0, 0))
            paired = int(stop - start)
            n_cells = int(cells_of[dataset])
            if paired < min_folds:
                dropped[dataset] = f"{paired} paired folds, fewer than {min_folds}"
                continue
            x_rows.append(values[start:stop, 0].copy())
            y_rows.append(values[start:stop, 1].copy())
            grid = int(runs_of[dataset]) * int(folds_of[dataset])
            if paired == n_cells == grid:
                runs.append(int(runs_of[dataset]))
                rho.append(runs[-1] / paired)
            else:
                if paired < n_cells:
                    partial[dataset] = n_cells - paired
                runs.append(1)
                rho.append(1.0 / int(folds_of[dataset]))
            used.append(dataset)
            folds[dataset] = paired
        usage = PairUsage(first, second, tuple(used), folds, partial, dropped)
        if not used:
            return None, usage
        cv = CVData.from_arrays(
            x_rows,
            y_rows,
            runs=runs,
            rho=rho,
            datasets=used,
            names=(first, second),
            higher_is_better=higher_is_better,
        )
        return cv, usage


def _numeric_scores(values: pd.Series, name: str) -> np.ndarray:
    """Scores as floats; NaN (a failed fold) is kept, text and infinities are errors."""
    check_scores_are_numbers(values, name)
    numbers = pd.to_numeric(values, errors="coerce").astype(float).to_numpy()
    if np.isinf(numbers).any():
        raise ValueError(
            f"The score column {name!r} has {int(np.isinf(numbers).sum())} infinite value(s); "
            "remove them or leave those folds empty."
        )
    return numbers


def from_frame(frame: pd.DataFrame, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The canonical tidy table of a user's frame (roles mapped as in ``CVData.from_frame``)."""
    roles = column_roles(frame, columns)
    table = pd.DataFrame(
        {
            "dataset": (
                frame[roles["dataset"]].astype(str)
                if roles["dataset"] in frame.columns
                else "dataset 0"
            ),
            "model": frame[roles["model"]].astype(str),
            "run": frame[roles["run"]] if roles["run"] in frame.columns else 0,
            "fold": frame[roles["fold"]],
            "score": _numeric_scores(frame[roles["score"]], roles["score"]),
        }
    )
    if roles["run"] not in frame.columns:
        warn_if_one_run_assumed(
            int(table.groupby(["dataset", "model"]).size().max()),
            f"the frame has no run column {roles['run']!r}",
            "add the run column (or name it with columns={'run': ...})",
        )
    return table.reset_index(drop=True)


def from_matrices(matrices: Mapping[str, Any], runs: int = 1) -> pd.DataFrame:
    """The canonical tidy table of ``{model: scores}``.

    Each value is a 2-D array (data sets x folds, run-major: run 0 folds 0..k-1, run 1, ...), a
    wide frame whose index names the data sets, or a list of 1-D arrays. NaN marks a failed fold.
    """
    blocks = [_tidy_block(str(model), values, runs) for model, values in matrices.items()]
    columns = ["dataset", "model", "run", "fold", "score"]
    if not blocks:
        return pd.DataFrame(columns=columns)
    return pd.concat(blocks, ignore_index=True)[columns]


def _tidy_block(model: str, values: Any, runs: int) -> pd.DataFrame:
    """One model's rows of the tidy table (data set by data set, run-major within each)."""
    index = list(values.index) if isinstance(values, pd.DataFrame) else None
    matrix = values.to_numpy() if isinstance(values, pd.DataFrame) else values
    if isinstance(matrix, np.ndarray) and np.atleast_2d(matrix).ndim == 2:
        matrix = np.atleast_2d(matrix)  # validated at once: a block of 132 x 4 in one call
        scores = _numeric_scores(pd.Series(matrix.ravel()), model).reshape(matrix.shape)
        rows = list(scores)
    else:
        data_rows = list(np.atleast_2d(matrix)) if isinstance(matrix, np.ndarray) else matrix
        rows = [
            _numeric_scores(pd.Series(np.ravel(np.asarray(row, dtype=object))), model)
            for row in data_rows
        ]
    for i, row in enumerate(rows):
        if row.size % runs:
            raise ValueError(
                f"Model {model!r}, data set {i}: {row.size} scores are not a multiple of "
                f"runs={runs}."
            )
    sizes = np.array([row.size for row in rows], dtype=int)
    names = [str(index[i]) if index is not None else f"dataset {i}" for i in range(len(rows))]
    position = np.concatenate([np.arange(size) for size in sizes]) if rows else np.zeros(0, int)
    folds = np.repeat(sizes // runs, sizes)
    return pd.DataFrame(
        {
            "dataset": np.repeat(np.array(names, dtype=object), sizes),
            "model": np.full(position.size, model, dtype=object),
            "run": position // np.maximum(folds, 1),
            "fold": position % np.maximum(folds, 1),
            "score": np.concatenate(rows) if rows else np.zeros(0),
        }
    )


def model_scores(
    data: Any,
    *,
    models: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    runs: int = 1,
) -> ModelScores:
    """Validate ``data`` (a tidy frame or ``{model: matrix}``) into :class:`ModelScores`.

    Raises
    ------
    ValueError
        For duplicated (dataset, model, run, fold) rows, unknown models, fewer than two models,
        or non-numeric scores.
    """
    runs = check_int(runs, "runs", minimum=1)
    if isinstance(data, pd.DataFrame):
        if runs != 1:
            raise ValueError(
                f"runs={runs} is for a dict of score matrices; a tidy frame gives each row's run "
                "in its run column (leave runs at 1)."
            )
        score_name = column_roles(data, columns)["score"]
        table = from_frame(data, columns)
    elif isinstance(data, Mapping):
        score_name = "score"
        table = from_matrices(data, runs)
    else:
        raise TypeError(
            f"data must be a tidy pandas DataFrame or a dict of model -> score matrix; got "
            f"{type(data).__name__}."
        )
    duplicated = table.duplicated(subset=["dataset", "model", "run", "fold"], keep=False)
    if duplicated.any():
        example = table.loc[duplicated, ["dataset", "model", "run", "fold"]].iloc[0].tolist()
        raise ValueError(
            f"{int(duplicated.sum())} rows share a (dataset, model, run, fold), e.g. "
            f"{tuple(example)}; each fold must appear once per model. Aggregate or remove the "
            "duplicates."
        )
    present = [str(m) for m in pd.unique(table["model"])]
    if isinstance(models, str):
        raise TypeError(f"models must be a list of model names, e.g. ['A', 'B']; got {models!r}.")
    chosen = present if models is None else [str(m) for m in models]
    unknown = [m for m in chosen if m not in present]
    if unknown:
        raise ValueError(f"Models {unknown} are not in the data (models: {present}).")
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"models lists a model twice: {chosen}.")
    if len(chosen) < 2:
        raise ValueError(
            f"The data hold {len(chosen)} model(s) ({', '.join(chosen) or 'none'}); a comparison "
            "needs at least two."
        )
    table = table[table["model"].isin(chosen)].reset_index(drop=True)
    datasets = tuple(str(d) for d in pd.unique(table["dataset"]))
    return ModelScores(table, tuple(chosen), datasets, score_name)


__all__ = ["MissingDataWarning", "ModelScores", "PairUsage", "model_scores"]

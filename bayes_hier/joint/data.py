"""Cross-validation scores of k models on q data sets: :class:`MultiCVData`.

The joint model needs the scores of the models run on a data set on the same folds (paired across
models). A model may be missing on a data set (it was not run there): its whole block is left out
of that data set's likelihood. The tidy input is the one of
:meth:`bayes_hier.data.CVData.from_frame` and of ``compare``: one row per (dataset, model, run,
fold) with a score; a missing model has no rows (or only NaN scores) on that data set.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._validate import check_bool
from ..callers import user_stacklevel
from ..data import per_dataset_values
from ..scores import KEYS, MissingDataWarning, ModelScores


def observed_in(blocks: Sequence[np.ndarray]) -> np.ndarray:
    """Whether model a was run on data set i, shape (q, k): the blocks' columns that are not NaN
    (a missing model's whole column is NaN)."""
    return np.array([np.isfinite(block[0]) for block in blocks])


class ScoreBlocks:
    """Scores held as one block per data set (runs x folds rows, k columns), a model not run on
    a data set being a column of NaN there: which models each data set has."""

    scores: tuple[np.ndarray, ...]

    @property
    def observed(self) -> np.ndarray:
        """Whether model a was run on data set i, shape (q, k) (its column is not NaN)."""
        return observed_in(self.scores)

    @property
    def complete(self) -> bool:
        """Whether every model was run on every data set."""
        return bool(self.observed.all())


@dataclass(frozen=True)
class MultiCVData(ScoreBlocks):
    """Paired cross-validation scores of k models on q data sets.

    Attributes
    ----------
    scores
        One ``n_i × k`` array per data set, the folds in run-major order, columns in the order of
        ``models``; negated when lower scores are better, so that higher is always better. A
        column of NaN is a model missing on that data set (every data set needs at least 2
        models; a NaN inside an otherwise present column is an error).
    models
        Model names (k ≥ 2).
    datasets
        Data-set names (q).
    runs
        Repetitions of the cross-validation per data set; ``folds_i = n_i / runs_i``.
    rho
        Fold correlation per data set (default ``1 / folds_i``, Nadeau & Bengio).
    higher_is_better
        Whether the raw scores were "higher is better" (recorded for the reports).
    """

    scores: tuple[np.ndarray, ...]
    models: tuple[str, ...]
    datasets: tuple[str, ...]
    runs: np.ndarray
    rho: np.ndarray
    higher_is_better: bool = True

    def __post_init__(self) -> None:
        k, q = len(self.models), len(self.datasets)
        if k < 2:
            raise ValueError(
                f"The joint model compares at least 2 models; got {list(self.models)}."
            )
        if len(set(self.models)) != k or len(set(self.datasets)) != q:
            raise ValueError("Model names and data-set names must be unique.")
        if len(self.scores) != q or len(self.runs) != q or len(self.rho) != q:
            raise ValueError(f"Need scores, runs and rho for each of the {q} data sets.")
        for name, block, runs, rho in zip(self.datasets, self.scores, self.runs, self.rho):
            if block.ndim != 2 or block.shape[1] != k:
                raise ValueError(f"Data set {name!r}: scores must be folds x {k} models.")
            if block.shape[0] < 2 or block.shape[0] % runs:
                raise ValueError(
                    f"Data set {name!r} has {block.shape[0]} folds for {runs} run(s); need at "
                    "least 2 folds and the same number of folds in every run."
                )
            _check_block(name, block, self.models)
            if not 0 < rho < 1:
                raise ValueError(f"Data set {name!r}: rho must be in (0, 1); got {rho}.")

    @property
    def k(self) -> int:
        """Number of models."""
        return len(self.models)

    @property
    def q(self) -> int:
        """Number of data sets."""
        return len(self.datasets)

    @property
    def n(self) -> np.ndarray:
        """Cross-validation results (folds × runs) per data set."""
        return np.array([block.shape[0] for block in self.scores])

    @property
    def means(self) -> np.ndarray:
        """Mean score of every model on every data set, shape (q, k); NaN where it is missing."""
        return np.array([block.mean(axis=0) for block in self.scores])

    @classmethod
    def from_scores(
        cls,
        scores: ModelScores,
        *,
        rho: float | Sequence[float] | None = None,
        higher_is_better: bool = True,
    ) -> MultiCVData:
        """Build from the validated tidy table of ``compare``
        (:func:`bayes_hier.scores.model_scores`: a tidy frame or ``{model: matrix}``).

        A model without any score on a data set (no rows, or NaN on every fold) is missing there:
        its column is NaN. Data sets with fewer than 2 models carry no information on the
        differences and are dropped with a :class:`~bayes_hier.scores.MissingDataWarning`
        naming them.

        Parameters
        ----------
        scores
            The canonical table (columns ``dataset, model, run, fold, score``) and the models.
        rho
            Fold correlation, one value or one per data set of ``scores`` (default
            ``1 / folds``).
        higher_is_better
            ``False`` for errors or losses: the scores are negated.

        Raises
        ------
        ValueError
            When a model lacks a score (absent or NaN) on some but not all (run, fold) cells of a
            data set, when the runs of a data set have different folds, or when no data set has
            two models.
        """
        higher_is_better = check_bool(higher_is_better, "higher_is_better")
        if rho is not None:
            rho = per_dataset_values(rho, len(scores.datasets), "rho")
        models = list(scores.models)
        table = scores.table[scores.table["model"].isin(models)]
        wide = table.pivot(index=list(KEYS), columns="model", values="score").reindex(
            columns=models
        )
        blocks, runs, kept = [], [], []
        for dataset in scores.datasets:
            block = wide.loc[dataset].sort_index()
            present = np.isfinite(block.to_numpy(dtype=float)).any(axis=0)
            if present.sum() < 2:
                continue
            n_runs = block.index.get_level_values(0).nunique()
            if len(block) != n_runs * block.index.get_level_values(1).nunique():
                raise ValueError(
                    f"Data set {dataset!r} has {len(block)} results for {n_runs} runs; every run "
                    "must have the same folds."
                )
            values = block.to_numpy(dtype=float)
            _check_block(dataset, values, models)
            blocks.append(values if higher_is_better else -values)
            runs.append(n_runs)
            kept.append(dataset)
        _report_dropped(scores.datasets, kept)
        runs_array = np.array(runs)
        folds = np.array([len(block) for block in blocks]) / runs_array
        if rho is None:
            rho_array = 1.0 / folds
        else:
            rho_array = rho[[scores.datasets.index(d) for d in kept]]
        return cls(
            scores=tuple(blocks),
            models=tuple(models),
            datasets=tuple(kept),
            runs=runs_array,
            rho=np.array(rho_array, dtype=float),
            higher_is_better=higher_is_better,
        )


def _check_block(dataset: str, block: np.ndarray, models: Sequence[str]) -> None:
    """A model's column is all finite (it was run) or all NaN (missing); at least 2 models."""
    finite = np.isfinite(block)
    if np.isinf(block).any():
        raise ValueError(f"Data set {dataset!r} has infinite scores; remove them.")
    partial = [m for m, column in zip(models, finite.T) if column.any() and not column.all()]
    if partial:
        model = partial[0]
        holes = int((~finite[:, list(models).index(model)]).sum())
        raise ValueError(
            f"Data set {dataset!r}: model {model!r} lacks {holes} of its {block.shape[0]} fold "
            "scores (NaN or no row). MultiCVData takes a model on a data set with all its "
            "folds or not at all: supply the missing folds, remove all of that model's rows "
            "on that data set (it is then treated as not run there), or cut every data set to "
            "its larger paired block with bayes_hier.joint.paired_folds.paired_scores, as "
            "joint_test and compare(method='joint') do."
        )
    if finite.any(axis=0).sum() < 2:
        raise ValueError(
            f"Data set {dataset!r} has scores for fewer than 2 models, so it says nothing about "
            "their differences; drop it (MultiCVData.from_scores drops such data sets with a "
            "warning)."
        )


def _report_dropped(datasets: Sequence[str], kept: Sequence[str]) -> None:
    """Warn about the data sets with fewer than 2 models (raise when none is left)."""
    dropped = [d for d in datasets if d not in set(kept)]
    if not kept:
        raise ValueError(
            "No data set has scores for at least 2 of the models, so there is nothing to "
            "compare: the joint model needs each data set scored by 2 or more of the models "
            "(check the model names, or add the models' scores)."
        )
    if dropped:
        warnings.warn(
            f"{len(dropped)} data set(s) with scores for fewer than 2 models left out of the "
            f"joint model (no information on differences): {', '.join(map(repr, dropped))}.",
            MissingDataWarning,
            stacklevel=user_stacklevel(),
        )

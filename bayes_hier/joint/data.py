"""Cross-validation scores of k models on q data sets: :class:`MultiCVData`.

The joint model needs every model's scores on the same folds of each data set (paired across
models). The tidy input is the one of :meth:`bayes_hier.data.CVData.from_frame` and of ``compare``:
one row per (dataset, model, run, fold) with a score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..compare.tidy import KEYS, ModelScores


@dataclass(frozen=True)
class MultiCVData:
    """Paired cross-validation scores of k models on q data sets.

    Attributes
    ----------
    scores
        One ``n_i × k`` array per data set, the folds in run-major order, columns in the order of
        ``models``; negated when lower scores are better, so that higher is always better.
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
            if not np.isfinite(block).all():
                raise ValueError(f"Data set {name!r} has NaN or infinite scores.")
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
        """Mean score of every model on every data set, shape (q, k)."""
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
        (:func:`bayes_hier.compare.tidy.model_scores`: a tidy frame or ``{model: matrix}``).

        Parameters
        ----------
        scores
            The canonical table (columns ``dataset, model, run, fold, score``) and the models.
        rho
            Fold correlation, one value or one per data set (default ``1 / folds``).
        higher_is_better
            ``False`` for errors or losses: the scores are negated.

        Raises
        ------
        ValueError
            When some model lacks a score (absent or NaN) on some (dataset, run, fold) that
            another model has: models missing on a data set are not supported by the joint model
            yet (drop the data set or the model, or use ``compare``'s pairwise methods), or when
            the runs of a data set have different folds.
        """
        models = list(scores.models)
        table = scores.table[scores.table["model"].isin(models)]
        wide = table.pivot(index=list(KEYS), columns="model", values="score").reindex(
            columns=models
        )
        lacking = ~np.isfinite(wide.to_numpy(dtype=float))
        if lacking.any():
            row = int(np.flatnonzero(lacking.any(axis=1))[0])
            missing = [m for m, bad in zip(models, lacking[row]) if bad]
            raise ValueError(
                f"{int(lacking.any(axis=1).sum())} (dataset, run, fold) cells lack some model's "
                f"score, e.g. {tuple(wide.index[row])} lacks {missing}. The joint model needs "
                "every model on every fold of every data set (missing models are not supported "
                "yet): drop that data set or that model, or use a pairwise method of compare()."
            )
        blocks, runs = [], []
        for dataset in scores.datasets:
            block = wide.loc[dataset].sort_index()
            n_runs = block.index.get_level_values(0).nunique()
            if len(block) != n_runs * block.index.get_level_values(1).nunique():
                raise ValueError(
                    f"Data set {dataset!r} has {len(block)} results for {n_runs} runs; every run "
                    "must have the same folds."
                )
            values = block.to_numpy(dtype=float)
            blocks.append(values if higher_is_better else -values)
            runs.append(n_runs)
        runs_array = np.array(runs)
        folds = np.array([len(block) for block in blocks]) / runs_array
        rho_array = (
            1.0 / folds if rho is None else np.broadcast_to(np.asarray(rho, float), folds.shape)
        )
        return cls(
            scores=tuple(blocks),
            models=tuple(models),
            datasets=tuple(scores.datasets),
            runs=runs_array,
            rho=np.array(rho_array, dtype=float),
            higher_is_better=bool(higher_is_better),
        )

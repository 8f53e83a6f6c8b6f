"""Dominance statements and their counts (conventions §4).

Two models, A (first) and B (second), are scored on ``n`` cases (data sets) and ``m`` measures.
For case ``i`` and measure ``j`` the outcome is ``x_ij = 1`` when B is better than A on that
measure and ``0`` when it is worse. Each row ``x_i`` is one of ``2^m`` *dominance statements*,
numbered in binary order with the first measure as the most significant bit::

    k(x) = sum_j x_j 2^(m - 1 - j)

so for ``m = 2`` (accuracy, time) statement 0 is "B worse on accuracy and time", 1 is "B better on
time, worse on accuracy", 2 is "B better on accuracy, worse on time" and 3 is "B better on
accuracy and time". A tie on a measure (``|d_ij| <= tolerance``) splits the case into two
half-weight copies, one with each outcome; with ``t`` ties a case contributes ``2^-t`` to each of
``2^t`` statements, so counts may be fractional and always sum to ``n``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validate import check_bool, check_finite, check_pair_names

#: Largest number of measures: ``2^16 = 65,536`` statements. Beyond that every posterior draw of
#: the Dirichlet test needs more than 10^5 gamma variates (10^5 draws take minutes and gigabytes)
#: and, with n cases, all but at most n counts are zero, so the answer is the prior's.
MAX_MEASURES = 16

#: Case-identifier columns recognised in tidy input, in order of preference.
CASE_COLUMNS = ("case", "dataset")


def join_words(words: Sequence[str]) -> str:
    """``["a"] -> "a"``, ``["a", "b"] -> "a and b"``, ``["a", "b", "c"] -> "a, b and c"``."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def statement_bits(m: int) -> np.ndarray:
    """The ``(2^m, m)`` 0/1 matrix whose row ``k`` is statement ``k`` (first measure = MSB)."""
    k = np.arange(2**m)[:, None]
    shifts = np.arange(m - 1, -1, -1)[None, :]
    return ((k >> shifts) & 1).astype(np.int8)


def statement_index(bits: Sequence[int] | np.ndarray) -> np.ndarray | int:
    """Statement number ``k = sum_j bits_j 2^(m - 1 - j)`` of one 0/1 row or of each row."""
    bits = np.asarray(bits, dtype=np.int64)
    m = bits.shape[-1]
    index = bits @ (2 ** np.arange(m - 1, -1, -1, dtype=np.int64))
    return int(index) if np.ndim(index) == 0 else index


def statement_label(bits: Sequence[int], measures: Sequence[str], second: str = "B") -> str:
    """The statement in words, e.g. ``"B better on accuracy, worse on time"``.

    Measures with bit 1 are listed after "better on", those with bit 0 after "worse on" (after tie
    splitting "worse" means "not better"), each group in the order of ``measures``.
    """
    better = [str(name) for bit, name in zip(bits, measures) if bit]
    worse = [str(name) for bit, name in zip(bits, measures) if not bit]
    if not worse:
        return f"{second} better on {join_words(better)}"
    if not better:
        return f"{second} worse on {join_words(worse)}"
    return f"{second} better on {join_words(better)}, worse on {join_words(worse)}"


def _check_m(m: int) -> None:
    if m < 1:
        raise ValueError(
            "No measures given: pass at least one column (one performance measure) per model."
        )
    if m > MAX_MEASURES:
        raise ValueError(
            f"{m} measures give 2^{m} = {2**m:,} dominance statements; at most {MAX_MEASURES} "
            f"measures (2^{MAX_MEASURES} = {2**MAX_MEASURES:,} statements) are supported, because "
            "every posterior draw needs one value per statement and, with n cases, all but at "
            "most n counts are zero. Analyse fewer measures at a time (or merge related ones)."
        )


@dataclass(frozen=True, eq=False)
class DominanceCounts:
    """Weighted counts of the ``2^m`` dominance statements of B (second) against A (first).

    Attributes
    ----------
    counts
        Shape ``(2^m,)``: ``counts[k]`` is the (tie-split, possibly fractional) number of cases in
        which statement ``k`` holds; statements are in binary order, first measure = most
        significant bit (see :func:`statement_bits`). ``counts.sum() == n``.
    measures
        Names of the ``m`` measures.
    higher_is_better
        Direction of each measure (``False``: lower is better, e.g. time or error rate).
    names
        ``(first, second)`` model names; statements are about the second model.
    outcomes
        Shape ``(n, m)`` or ``None`` (when built with :meth:`from_counts`): 1 where the second
        model is better, 0 where it is worse, 0.5 for a tie (split into two half cases).
    cases
        Names of the ``n`` cases (``None`` with :meth:`from_counts`).
    """

    counts: np.ndarray
    measures: tuple[str, ...]
    higher_is_better: tuple[bool, ...]
    names: tuple[str, str] = ("A", "B")
    outcomes: np.ndarray | None = None
    cases: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        counts = np.array(self.counts, dtype=float)
        if counts.ndim != 1:
            raise ValueError(f"counts must be a vector; got shape {counts.shape}.")
        m = len(self.measures)
        _check_m(m)
        if len(counts) != 2**m:
            raise ValueError(
                f"{m} measures need 2^{m} = {2**m} counts (one per statement); got {len(counts)}."
            )
        if not np.all(np.isfinite(counts)) or np.any(counts < 0):
            raise ValueError("counts must be finite and non-negative.")
        if counts.sum() <= 0:
            raise ValueError("counts sum to 0: there must be at least one case.")
        if len(set(self.measures)) != m:
            raise ValueError(f"Measure names must be unique; got {list(self.measures)}.")
        if len(self.higher_is_better) != m:
            raise ValueError(
                f"higher_is_better has {len(self.higher_is_better)} entries for {m} measures."
            )
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "names", check_pair_names(self.names))
        if self.outcomes is not None:
            outcomes = np.array(self.outcomes, dtype=float)
            outcomes.setflags(write=False)
            object.__setattr__(self, "outcomes", outcomes)

    @classmethod
    def from_counts(
        cls,
        counts: Sequence[float] | np.ndarray,
        measures: Sequence[str] | None = None,
        names: Sequence[str] = ("A", "B"),
        higher_is_better: Sequence[bool] | None = None,
    ) -> DominanceCounts:
        """Wrap a count vector of length ``2^m`` (binary order, first measure = MSB).

        ``measures`` defaults to ``"measure 1", ..., "measure m"``; ``higher_is_better`` (only used
        for display) to all ``True``.
        """
        counts = np.asarray(counts, dtype=float)
        size = counts.size
        if counts.ndim != 1 or size < 2 or size & (size - 1):
            raise ValueError(
                "counts must be a vector whose length is a power of two, 2^m with m >= 1 "
                f"measures; got shape {counts.shape}."
            )
        m = size.bit_length() - 1
        if measures is None:
            measures = [f"measure {j + 1}" for j in range(m)]
        measures = tuple(str(name) for name in measures)
        if len(measures) != m:
            raise ValueError(f"{size} counts mean {m} measures; got {len(measures)} names.")
        hib = (True,) * m if higher_is_better is None else tuple(bool(h) for h in higher_is_better)
        return cls(counts, measures, hib, tuple(names))  # type: ignore[arg-type]

    # ------------------------------------------------------------------ derived quantities
    @property
    def m(self) -> int:
        """Number of measures."""
        return len(self.measures)

    @property
    def n(self) -> float:
        """Number of cases, ``sum_k counts[k]``."""
        return float(self.counts.sum())

    @property
    def n_statements(self) -> int:
        """``2^m``."""
        return len(self.counts)

    @property
    def bits(self) -> np.ndarray:
        """``(2^m, m)`` 0/1 matrix: row ``k`` says on which measures B is better in statement k."""
        return statement_bits(self.m)

    @property
    def labels(self) -> tuple[str, ...]:
        """Each statement in words, e.g. ``"B better on accuracy, worse on time"``."""
        return tuple(statement_label(row, self.measures, self.names[1]) for row in self.bits)

    def label(self, k: int) -> str:
        """Statement ``k`` in words."""
        return statement_label(statement_bits(self.m)[k], self.measures, self.names[1])

    def index(self, better: Mapping[str, bool] | Sequence[bool]) -> int:
        """Number of the statement in which B is better exactly on the measures marked true.

        ``better`` is a mapping measure -> bool (all measures) or a sequence in measure order.
        """
        if isinstance(better, Mapping):
            if set(better) != set(self.measures):
                raise ValueError(f"Give a value for each measure {list(self.measures)}.")
            better = [better[name] for name in self.measures]
        if len(better) != self.m:
            raise ValueError(f"Give {self.m} values, one per measure; got {len(better)}.")
        return int(statement_index([int(bool(b)) for b in better]))

    def to_frame(self) -> pd.DataFrame:
        """One row per statement: ``bits`` (e.g. ``"10"``, first measure first), ``label``,
        ``count`` and ``proportion = count / n``; indexed by the statement number."""
        bits = ["".join(map(str, row)) for row in self.bits]
        return pd.DataFrame(
            {
                "bits": bits,
                "label": self.labels,
                "count": self.counts,
                "proportion": self.counts / self.n,
            },
            index=pd.RangeIndex(self.n_statements, name="statement"),
        )

    def __str__(self) -> str:
        arrows = ", ".join(
            f"{name} {'↑' if up else '↓'}" for name, up in zip(self.measures, self.higher_is_better)
        )
        lines = [
            f"Dominance counts of {self.names[1]} against {self.names[0]}: n = {self.n:g} cases, "
            f"m = {self.m} measures ({arrows}; ↑ higher is better, ↓ lower is better)"
        ]
        order = np.arange(self.n_statements)
        if self.n_statements > 16:
            order = [k for k in np.argsort(-self.counts, kind="stable") if self.counts[k] > 0][:16]
            lines.append("  (the 16 largest non-zero counts)")
        digits = len(str(self.n_statements - 1))
        for k, label in zip(order, padded_labels(self.labels, order)):
            lines.append(f"  [{k:>{digits}}] {label}  {self.counts[k]:g}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"DominanceCounts(counts={self.counts.tolist()!r}, measures={self.measures!r}, "
            f"names={self.names!r})"
            if self.n_statements <= 16
            else f"DominanceCounts(<{self.n_statements} statements>, measures={self.measures!r})"
        )


def padded_labels(labels: Sequence[str], order: Sequence[int]) -> list[str]:
    """``labels[k]`` for ``k`` in ``order``, padded to one width (a column of a text listing)."""
    width = max(len(labels[k]) for k in order)
    return [labels[k].ljust(width) for k in order]


# ---------------------------------------------------------------------- input conversion
def _tidy_to_wide(frame: pd.DataFrame, label: str) -> pd.DataFrame:
    case = next((c for c in CASE_COLUMNS if c in frame.columns), None)
    if case is None:
        raise ValueError(
            f"{label} looks tidy (it has 'measure' and 'value' columns) but has no case column: "
            f"name the column identifying the case one of {list(CASE_COLUMNS)}."
        )
    duplicated = frame.duplicated(subset=[case, "measure"], keep=False)
    if duplicated.any():
        example = frame.loc[duplicated, [case, "measure"]].iloc[0].tolist()
        raise ValueError(
            f"{label} has {int(duplicated.sum())} rows sharing a ({case}, measure), e.g. "
            f"{example}. Give one value per case and measure (e.g. average the folds first)."
        )
    values = pd.to_numeric(frame["value"], errors="coerce")
    wide = frame.assign(value=values).pivot(index=case, columns="measure", values="value")
    wide = wide.reindex(index=pd.unique(frame[case]), columns=pd.unique(frame["measure"]))
    wide.columns = [str(c) for c in wide.columns]
    return wide


def _as_table(x: Any, label: str) -> tuple[np.ndarray, tuple[str, ...] | None, pd.Index | None]:
    """Values ``(n, m)``, measure names (frames only) and case index (frames only)."""
    if isinstance(x, pd.Series):
        x = x.to_frame(name=str(x.name) if x.name is not None else "measure 1")
    if isinstance(x, pd.DataFrame):
        if {"measure", "value"} <= set(x.columns):
            x = _tidy_to_wide(x, label)
        non_numeric = [c for c in x.columns if not pd.api.types.is_numeric_dtype(x[c])]
        if non_numeric:
            raise ValueError(
                f"{label} has non-numeric columns {non_numeric}. Wide input needs one numeric "
                "column per measure (put case names in the index); tidy input needs columns "
                "case (or dataset), measure, value."
            )
        return x.to_numpy(dtype=float), tuple(str(c) for c in x.columns), x.index
    try:
        values = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{label} must be numeric (n cases x m measures): {error}") from None
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2:
        raise ValueError(
            f"{label} must be 2-D (n cases x m measures) or 1-D (one measure); got shape "
            f"{values.shape}."
        )
    return values, None, None


def _select(
    values: np.ndarray, names: tuple[str, ...] | None, measures: tuple[str, ...], label: str
) -> np.ndarray:
    if names is None:
        return values
    missing = [name for name in measures if name not in names]
    if missing:
        raise ValueError(f"{label} has no column for measures {missing} (columns: {list(names)}).")
    return values[:, [names.index(name) for name in measures]]


def _directions(
    higher_is_better: bool | Sequence[bool] | Mapping[str, bool], measures: tuple[str, ...]
) -> tuple[bool, ...]:
    """One direction per measure, each checked as a boolean (never coerced from text)."""
    m = len(measures)
    if isinstance(higher_is_better, (bool, np.bool_)):
        return (bool(higher_is_better),) * m
    if isinstance(higher_is_better, Mapping):
        keys = {str(k) for k in higher_is_better}
        if keys != set(measures):
            raise ValueError(
                f"higher_is_better names {sorted(keys)} but the measures are {list(measures)}; "
                "give one direction per measure."
            )
        return tuple(
            check_bool(higher_is_better[k], f"higher_is_better[{k!r}]")  # type: ignore[index]
            for k in measures
        )
    if isinstance(higher_is_better, (str, bytes)) or not isinstance(higher_is_better, Iterable):
        raise TypeError(
            "higher_is_better must be True/False, one per measure or a dict measure -> bool; "
            f"got {higher_is_better!r}."
        )
    directions = list(higher_is_better)
    if len(directions) != m:
        raise ValueError(
            f"higher_is_better has {len(directions)} entries for {m} measures {list(measures)}; "
            "give one True/False per measure (or a single bool for all)."
        )
    return tuple(check_bool(d, f"higher_is_better[{i}]") for i, d in enumerate(directions))


def _tolerances(tie_tolerance: float | Sequence[float], m: int) -> np.ndarray:
    tolerance = (
        np.broadcast_to(np.asarray(tie_tolerance, dtype=float), (m,))
        if np.ndim(tie_tolerance) == 0
        else np.asarray(tie_tolerance, dtype=float)
    )
    if tolerance.shape != (m,):
        raise ValueError(f"tie_tolerance must be one number or {m} numbers (one per measure).")
    if not np.all(np.isfinite(tolerance)) or np.any(tolerance < 0):
        raise ValueError(f"tie_tolerance must be finite and >= 0; got {tolerance.tolist()}.")
    return tolerance


def count_statements(outcomes: np.ndarray) -> np.ndarray:
    """Tie-split counts of the ``2^m`` statements from an ``(n, m)`` matrix of 1 / 0 / 0.5.

    A case with outcome probabilities ``p_j`` (1, 0 or 1/2 for a tie) adds
    ``prod_j p_j^(x_j) (1 - p_j)^(1 - x_j)`` to statement ``k(x)``: the Kronecker product of the
    vectors ``(1 - p_j, p_j)``.
    """
    outcomes = np.asarray(outcomes, dtype=float)
    m = outcomes.shape[1]
    tied = np.any(outcomes == 0.5, axis=1)
    counts = np.bincount(
        np.asarray(statement_index(outcomes[~tied].astype(np.int64)), dtype=np.int64).reshape(-1),
        minlength=2**m,
    ).astype(float)
    for row in outcomes[tied]:
        weights = np.ones(1)
        for p in row:
            weights = np.kron(weights, [1.0 - p, p])
        counts += weights
    return counts


def dominance_counts(
    a: Any,
    b: Any,
    higher_is_better: bool | Sequence[bool] | Mapping[str, bool] = True,
    measures: Sequence[str] | None = None,
    names: Sequence[str] = ("A", "B"),
    tie_tolerance: float | Sequence[float] = 0.0,
) -> DominanceCounts:
    """Count in how many cases B (second) is better than A (first) on each subset of measures.

    Parameters
    ----------
    a, b
        Scores of the first and the second model, one value per case and measure, as

        * arrays of shape ``(n, m)`` (or ``(n,)`` for one measure), rows paired by position;
        * wide data frames with one numeric column per measure and the cases in the index (rows
          are matched by index label, columns by name);
        * tidy data frames with columns ``case`` (or ``dataset``), ``measure``, ``value``, one
          row per case and measure.

        Averages over folds / runs are the usual per-case values.
    higher_is_better
        One bool for all measures, one per measure, or a mapping measure -> bool. ``False`` for
        time, error rate, model size: B is then better when its value is lower.
    measures
        Measure names (arrays), or the columns to use and their order (frames). Default: the
        frame's columns (order of first appearance for tidy input) or ``"measure 1", ...``.
    names
        ``(first, second)`` model names used in the statements' labels.
    tie_tolerance
        ``|b - a| <= tie_tolerance`` is a tie (one number or one per measure; default exact
        equality). A tie is split into two half-weight copies, one with each outcome.

    Returns
    -------
    DominanceCounts
        ``counts[k] = sum_i prod_j p_ij^(x_kj) (1 - p_ij)^(1 - x_kj)`` with ``p_ij`` = 1 if B is
        better on measure j in case i, 0 if worse, 1/2 if tied, and ``x_k`` the bits of statement
        ``k`` (first measure = most significant bit).
    """
    names = check_pair_names(names)
    values_a, names_a, index_a = _as_table(a, "a")
    values_b, names_b, index_b = _as_table(b, "b")
    if measures is not None:
        measures = tuple(str(name) for name in measures)
        if len(set(measures)) != len(measures):
            raise ValueError(f"Measure names must be unique; got {list(measures)}.")
    elif names_a is not None:
        measures = names_a
    elif names_b is not None:
        measures = names_b
    else:
        measures = tuple(f"measure {j + 1}" for j in range(values_a.shape[1]))
    _check_m(len(measures))
    values_a = _select(values_a, names_a, measures, "a")
    values_b = _select(values_b, names_b, measures, "b")
    if index_a is not None and index_b is not None:
        if not (index_a.is_unique and index_b.is_unique):
            raise ValueError("Case labels (index / case column) must be unique in a and b.")
        if set(index_a) != set(index_b):
            only = sorted(map(str, set(index_a) ^ set(index_b)))[:5]
            raise ValueError(
                f"a and b must hold the same cases; these appear in one only: {only}. The "
                "comparison is paired: score both models on the same data sets."
            )
        values_b = values_b[index_b.get_indexer(index_a)]
    if values_a.shape != values_b.shape:
        raise ValueError(
            f"a and b must have the same shape (n cases x m measures); got {values_a.shape} and "
            f"{values_b.shape}."
        )
    n, m = values_a.shape
    if n < 1:
        raise ValueError("No cases given: pass at least one row (one case / data set).")
    if len(measures) != m:
        raise ValueError(f"Got {len(measures)} measure names for {m} columns.")
    cases = tuple(index_a if index_a is not None else index_b if index_b is not None else range(n))
    for label, values in (("a", values_a), ("b", values_b)):
        check_finite(
            values,
            lambda count, i, j, label=label: (
                f"{label} has {count} NaN or infinite values, e.g. "
                f"case {cases[i]!r}, measure {measures[j]!r}. Remove the case or fill in the value."
            ),
        )
    directions = _directions(higher_is_better, measures)
    sign = np.where(directions, 1.0, -1.0)
    d = (values_b - values_a) * sign
    tolerance = _tolerances(tie_tolerance, m)
    outcomes = np.where(d > tolerance, 1.0, np.where(d < -tolerance, 0.0, 0.5))
    return DominanceCounts(count_statements(outcomes), measures, directions, names, outcomes, cases)

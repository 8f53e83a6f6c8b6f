"""Which column of a results table is the data set, model, run, fold and score.

Used by the command line: a column named explicitly wins; otherwise a column whose name (case
aside) is one of the common names of :data:`COMMON_NAMES` is taken; the score is the only numeric
column left besides the others when no common name matches.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

#: Common names of each role, in order of preference (compared case-insensitively).
COMMON_NAMES: dict[str, tuple[str, ...]] = {
    "dataset": ("dataset", "data_set", "data", "problem", "task", "benchmark"),
    "model": ("model", "classifier", "algorithm", "learner", "method", "estimator"),
    "run": ("run", "repetition", "rep", "repeat", "iteration"),
    "fold": ("fold", "split", "cv_fold"),
    "score": ("score", "accuracy", "value", "metric"),
}

#: Roles the table must have (a missing data set or run column means one data set / one run).
REQUIRED = ("model", "fold", "score")


def _by_name(frame: pd.DataFrame, role: str, taken: set[str]) -> str | None:
    lower = {str(c).lower(): str(c) for c in frame.columns if str(c) not in taken}
    return next((lower[name] for name in COMMON_NAMES[role] if name in lower), None)


def _numeric_candidates(frame: pd.DataFrame, taken: set[str]) -> list[str]:
    """Columns not yet assigned whose values are mostly numbers."""
    out = []
    for column in frame.columns:
        if str(column) in taken:
            continue
        values = pd.to_numeric(frame[column], errors="coerce")
        if values.notna().sum() >= 0.5 * frame[column].notna().sum() > 0:
            out.append(str(column))
    return out


def missing_role_message(role: str, columns: list[str]) -> str:
    """Why no column was taken for ``role``: the names looked for and the columns there are."""
    names = ", ".join(COMMON_NAMES[role])
    numeric = " (or the only numeric column left)" if role == "score" else ""
    return (
        f"No {role} column found: looked for a column named {names}{numeric} (in any case) "
        f"among the columns {columns}; name it with --{role}-col."
    )


def detect_columns(frame: pd.DataFrame, given: Mapping[str, str | None] | None = None) -> dict:
    """The role -> column mapping of ``frame``.

    Parameters
    ----------
    frame
        The results table.
    given
        Columns named by the user (role -> column or ``None``); they must exist.

    Raises
    ------
    ValueError
        For a named column that does not exist, a required role that cannot be found, or
        several numeric columns that could be the score.
    """
    roles: dict[str, str] = {}
    columns = [str(c) for c in frame.columns]
    for role, column in (given or {}).items():
        if column is None:
            continue
        if column not in columns:
            raise ValueError(f"No column {column!r} for the {role} (columns: {columns}).")
        roles[role] = column
    for role in ("dataset", "model", "run", "fold"):
        found = None if role in roles else _by_name(frame, role, set(roles.values()))
        if found is not None:
            roles[role] = found
    for role in REQUIRED:
        if role != "score" and role not in roles:
            raise ValueError(missing_role_message(role, columns))
    if "score" not in roles:
        candidates = _numeric_candidates(frame, set(roles.values()))
        named = _by_name(frame, "score", set(roles.values()))
        if len(candidates) == 1:
            roles["score"] = candidates[0]
        elif named is not None:
            roles["score"] = named
        elif candidates:
            raise ValueError(
                f"Several numeric columns could be the score ({', '.join(candidates)}); choose "
                "one with --score-col."
            )
        else:
            raise ValueError(missing_role_message("score", columns))
    return roles


__all__ = ["COMMON_NAMES", "detect_columns", "missing_role_message"]

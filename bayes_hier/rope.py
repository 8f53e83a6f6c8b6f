"""The region of practical equivalence (rope).

A rope is an interval ``[low, high]`` of differences ``d = y - x`` that the user considers
practically irrelevant, in the units of the scores. ``rope=r`` means ``[-r, r]``; an asymmetric
pair ``(low, high)`` with ``low <= 0 <= high`` is accepted too. The three outcomes are

* left:  ``d < low``        (the first model is better by more than the rope),
* rope:  ``low <= d <= high`` (practically equivalent; the edges count as rope),
* right: ``d > high``       (the second model is better by more than the rope).
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Union

import numpy as np

from .callers import user_stacklevel

RopeLike = Union[float, int, tuple[float, float], "Rope"]


@dataclass(frozen=True)
class Rope:
    """Interval ``[low, high]`` of practically irrelevant differences (see module docstring)."""

    low: float
    high: float

    def __post_init__(self) -> None:
        for value in (self.low, self.high):
            if not math.isfinite(value):
                raise ValueError(f"The rope must be finite, got [{self.low}, {self.high}].")
        if self.low > 0 or self.high < 0:
            raise ValueError(
                f"The rope [{self.low}, {self.high}] must contain 0: it is the region of "
                "differences too small to matter. Give rope=r for [-r, r], or (low, high) with "
                "low <= 0 <= high."
            )

    @classmethod
    def parse(cls, rope: RopeLike, scores: np.ndarray | None = None) -> Rope:
        """Build a rope from a half-width ``r`` (meaning ``[-r, r]``) or a pair ``(low, high)``.

        With the raw ``scores``, also warn when the rope seems to be in other units than they
        are (:meth:`check_scale`).

        Raises
        ------
        ValueError
            For a negative half-width, a pair with ``low > high`` or not containing 0, or a
            non-finite value.
        """
        parsed = cls._from(rope)
        if scores is not None:
            parsed.check_scale(scores)
        return parsed

    @classmethod
    def _from(cls, rope: RopeLike) -> Rope:
        if isinstance(rope, Rope):
            return rope
        if isinstance(rope, np.ndarray) and rope.ndim == 0:
            rope = rope.item()
        if isinstance(rope, (tuple, list, np.ndarray)):
            if len(rope) != 2:
                raise ValueError(
                    f"An asymmetric rope is a pair (low, high); got {len(rope)} values."
                )
            low, high = (_rope_number(v, rope) for v in rope)
            if low > high:
                raise ValueError(f"The rope ({low}, {high}) has low > high: swap the two ends.")
            return cls(low, high)
        half_width = _rope_number(rope, rope)
        if half_width < 0:
            raise ValueError(
                f"The rope half-width must be >= 0, got {half_width}. A rope r means the "
                f"interval [-r, r]; pass rope={-half_width} for [{half_width}, {-half_width}]."
            )
        return cls(-half_width, half_width)

    @property
    def is_symmetric(self) -> bool:
        return self.low == -self.high

    @property
    def width(self) -> float:
        return self.high - self.low

    @property
    def is_empty(self) -> bool:
        """True for the degenerate rope ``[0, 0]``: only left and right outcomes exist."""
        return self.low == 0.0 and self.high == 0.0

    def scaled(self, factor: float) -> Rope:
        """The same rope in units divided by ``factor`` (``factor > 0``)."""
        return Rope(self.low / factor, self.high / factor)

    def negated(self) -> Rope:
        """The rope for the negated difference ``-d`` (used when lower scores are better)."""
        return Rope(-self.high, -self.low)

    def __str__(self) -> str:
        if self.is_symmetric:
            return f"±{self.high:g}"
        return f"[{self.low:g}, {self.high:g}]"

    def check_scale(self, scores: np.ndarray | None) -> None:
        """Warn when the rope looks like it is in other units than the scores.

        The heuristic looks at the raw scores (not the differences):

        * scores in [0, 100] with values above 1.5 look like percentages; a rope below 0.1 is then
          a tenth of a percentage point, which is almost always a rope meant for scores in [0, 1];
        * scores in [0, 1] look like fractions; a rope of half the range or more leaves nothing
          outside it, which is almost always a rope meant for percentages.
        """
        if scores is None or scores.size == 0 or self.is_empty:
            return
        low, high = float(np.min(scores)), float(np.max(scores))
        reach = max(-self.low, self.high)
        if 0.0 <= low and high <= 100.0 and high > 1.5 and reach < 0.1:
            warnings.warn(
                f"The rope {self} looks like it is meant for scores in [0, 1], but the scores "
                f"range from {low:g} to {high:g}, like percentages. If the scores are percent, "
                f"give the rope in percentage points (e.g. rope={reach * 100:g}).",
                RopeScaleWarning,
                stacklevel=user_stacklevel(),
            )
        elif 0.0 <= low and high <= 1.0 and reach >= 0.5:
            warnings.warn(
                f"The rope {self} is at least half the range of scores in [0, 1] "
                f"({low:g} to {high:g}); it looks like it is meant for percentages. For scores in "
                f"[0, 1] give it as a fraction (e.g. rope={reach / 100:g}).",
                RopeScaleWarning,
                stacklevel=user_stacklevel(),
            )


def _rope_number(value: object, rope: object) -> float:
    """One end (or the half-width) of a rope as a float; ValueError for anything but a real
    number (booleans and strings included: ``rope=True`` or ``"0.01"`` are not read as 1 or
    0.01)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(
            f"The rope must be a number r (meaning [-r, r]) or a pair (low, high) of numbers; "
            f"got {rope!r}."
        )
    return float(value)


class RopeScaleWarning(UserWarning):
    """The rope and the scores seem to be in different units."""

"""Type checks of flags and counts shared by every public function.

Arguments are checked as what they stand for, never coerced from another type:

* **flags** (``higher_is_better``, ``progress``, ``warn``, ...) must be ``True`` or ``False``
  (Python or NumPy booleans). ``"no"``, ``0`` or ``None`` raise :class:`TypeError`: ``bool("no")``
  is ``True``, so a string would silently mean the opposite of what it says.
* **counts** (``runs``, ``chains``, ``draws``, ``warmup``, ``nsamples``, ...) must be integers
  (Python or NumPy). ``True``/``False`` raise :class:`TypeError` (``runs=True`` is not 1 run).
  A float holding a whole number (``2.0``) is accepted as that integer, because counts computed
  with NumPy or pandas (``n / folds``) arrive as floats and baycomp accepts them too; a float
  with a fractional part (``2.5``) raises :class:`ValueError`, and so does a count below its
  minimum. Strings and other types raise :class:`TypeError`.

* **levels and probabilities** (``alpha``, ``hdi_prob``) must be real numbers strictly between
  0 and 1; text and booleans raise :class:`TypeError` rather than a comparison error.

Every message names the argument and says what to pass instead. Seeds follow their own policy in
:mod:`bayes_hier.seeding`.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np


def check_bool(value: Any, name: str) -> bool:
    """``value`` as a Python bool; :class:`TypeError` naming ``name`` unless it is a boolean.

    Examples
    --------
    >>> check_bool(np.True_, "warn")
    True
    >>> check_bool("no", "higher_is_better")
    Traceback (most recent call last):
    ...
    TypeError: higher_is_better must be True or False; got 'no' of type str.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False; got {value!r} of type {type(value).__name__}.")


def check_int(value: Any, name: str, minimum: int | None = None) -> int:
    """``value`` as a Python int (see the module docstring for what is accepted).

    Parameters
    ----------
    value
        The argument as given.
    name
        Its name in the caller's signature, for the messages.
    minimum
        Smallest allowed value (``None``: no bound).

    Raises
    ------
    TypeError
        For booleans, strings and anything that is not a number.
    ValueError
        For a float with a fractional part, a non-finite float, or a value below ``minimum``.

    Examples
    --------
    >>> check_int(np.int64(3), "chains", 1), check_int(2.0, "runs", 1)
    (3, 2)
    >>> check_int(True, "runs", 1)
    Traceback (most recent call last):
    ...
    TypeError: runs must be an integer; got True of type bool.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be an integer; got {value!r} of type {type(value).__name__}.")
    if not isinstance(value, numbers.Integral):
        if not (np.isfinite(value) and float(value).is_integer()):
            raise ValueError(f"{name} must be a whole number; got {value!r}.")
    number = int(value)
    if minimum is not None and number < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {number}.")
    return number


__all__ = ["check_bool", "check_int"]


def check_fraction(value: Any, name: str) -> float:
    """``value`` as a float strictly between 0 and 1 (a level or a probability mass).

    Examples
    --------
    >>> check_fraction(np.float64(0.05), "alpha")
    0.05
    >>> check_fraction("0.9", "hdi_prob")
    Traceback (most recent call last):
    ...
    TypeError: hdi_prob must be a number in (0, 1); got '0.9' of type str.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a number in (0, 1); got {value!r} of type {type(value).__name__}."
        )
    if not 0 < value < 1:
        raise ValueError(f"{name} must be in (0, 1); got {value!r}.")
    return float(value)


def check_pair_names(names: Any) -> tuple[str, str]:
    """Two different model names ``(first, second)`` as strings.

    A string is refused rather than split into its characters (``names="ab"`` is not
    ``("a", "b")``).

    Examples
    --------
    >>> check_pair_names(["nbc", "hnb"])
    ('nbc', 'hnb')
    >>> check_pair_names("ab")
    Traceback (most recent call last):
    ...
    TypeError: names must be a pair of model names (first, second), e.g. ('A', 'B'); got 'ab'.
    """
    if isinstance(names, str) or not hasattr(names, "__len__"):
        raise TypeError(
            f"names must be a pair of model names (first, second), e.g. ('A', 'B'); got {names!r}."
        )
    pair = tuple(str(name) for name in names)
    if len(pair) != 2 or pair[0] == pair[1]:
        raise ValueError(f"names must be two different model names (first, second); got {names!r}.")
    return pair[0], pair[1]


def check_positive(value: Any, name: str) -> float:
    """``value`` as a finite float > 0 (a scale, a bound or a factor).

    >>> check_positive(np.int64(10), "sigma_factor")
    10.0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a positive number; got {value!r} of type {type(value).__name__}."
        )
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite positive number; got {value!r}.")
    return float(value)


def check_range(value: Any, name: str) -> tuple[float, float]:
    """``value`` as a pair ``(low, high)`` of finite numbers with ``0 < low < high``.

    >>> check_range([0.5, 5], "alpha_range")
    (0.5, 5.0)
    """
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"{name} must be a pair (low, high) with 0 < low < high; got {value!r}.")
    low, high = (check_positive(end, name) for end in value)
    if not low < high:
        raise ValueError(f"{name} must satisfy 0 < low < high; got ({low}, {high}).")
    return low, high


def check_finite(values: np.ndarray, message: Callable[[int, int, int], str]) -> None:
    """ValueError when a cell of the 2-D ``values`` is NaN or infinite: its text is
    ``message(count, i, j)``, given how many such cells there are and the row and column of the
    first (to show an example)."""
    bad = ~np.isfinite(values)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(message(int(bad.sum()), int(i), int(j)))

"""One seed policy for every public function of the package.

Every function that draws random numbers takes ``seed`` (``random_state`` in the baycomp facade)
and accepts exactly these:

* ``None``: a fresh seed is drawn from the operating system's entropy (and recorded in the result,
  so the run can be repeated);
* a non-negative ``int`` (Python or NumPy integer; ``bool`` is refused);
* a :class:`numpy.random.Generator` or :class:`numpy.random.RandomState`: one integer is drawn
  from it, so the same generator state gives the same numbers;
* a :class:`numpy.random.SeedSequence`: its first generated word is the seed.

Anything else (a float such as ``1.7``, a string, ...) raises :class:`TypeError` naming the
argument. The result is an integer in ``[0, 2**31)``: Stan's seeds must fit that range, and every
engine and test records the same kind of number.

Sub-tasks of one analysis (the pairs of a many-model comparison, the repetitions of an
experiment) get their own streams from :func:`derive_seed`, keyed by *names* rather than by
position, so that a sub-task's numbers do not depend on the order in which the sub-tasks are
listed or on how many workers run them.
"""

from __future__ import annotations

import hashlib
import numbers

import numpy as np

SeedLike = (
    int | np.integer | np.random.Generator | np.random.RandomState | np.random.SeedSequence | None
)

#: Seeds are integers in [0, SEED_BOUND): what Stan (both engines) accepts.
SEED_BOUND = 2**31


def resolve_seed(seed: SeedLike, argument: str = "seed") -> int:
    """The integer seed in ``[0, 2**31)`` that ``seed`` stands for (see the module docstring).

    Parameters
    ----------
    seed
        ``None``, a non-negative integer, a :class:`numpy.random.Generator`,
        :class:`numpy.random.RandomState` or :class:`numpy.random.SeedSequence`.
    argument
        The name of the argument in the caller's signature, used in error messages.

    Returns
    -------
    int
        Integers below ``2**31`` are returned unchanged; larger ones are mapped into range
        through :class:`numpy.random.SeedSequence` (so distinct large seeds stay distinct with
        overwhelming probability).

    Raises
    ------
    TypeError
        For any other type (floats, strings, booleans, arrays).
    ValueError
        For a negative integer.

    Examples
    --------
    >>> resolve_seed(7)
    7
    >>> resolve_seed(np.random.default_rng(0)) == resolve_seed(np.random.default_rng(0))
    True
    """
    if seed is None:
        return _word(np.random.SeedSequence())
    if isinstance(seed, np.random.SeedSequence):
        return _word(seed)
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, SEED_BOUND))
    if isinstance(seed, np.random.RandomState):
        return int(seed.randint(0, SEED_BOUND))
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(
            f"{argument} must be None, a non-negative int, a numpy.random.Generator or a "
            f"numpy.random.SeedSequence; got {seed!r} of type {type(seed).__name__}."
        )
    value = int(seed)
    if value < 0:
        raise ValueError(f"{argument} must be a non-negative integer; got {value}.")
    return value if value < SEED_BOUND else _word(np.random.SeedSequence(value))


def derive_seed(seed: int, *keys: str | int) -> int:
    """An independent seed for the sub-task named ``keys`` of an analysis seeded with ``seed``.

    The child is ``SeedSequence(seed, spawn_key=(h(k1), h(k2), ...))`` with ``h`` a stable hash
    (the first four bytes of SHA-256 of the key's text), so it depends only on the seed and the
    names, never on the order of the sub-tasks or the process that runs them. Different keys give
    statistically independent streams (the guarantee of :class:`numpy.random.SeedSequence`).

    Examples
    --------
    >>> derive_seed(1, "nbc", "hnb") == derive_seed(1, "nbc", "hnb")
    True
    >>> derive_seed(1, "nbc", "hnb") == derive_seed(1, "hnb", "nbc")
    False
    """
    spawn_key = tuple(_stable_hash(key) for key in keys)
    return _word(np.random.SeedSequence(resolve_seed(seed), spawn_key=spawn_key))


def _stable_hash(key: str | int) -> int:
    return int.from_bytes(hashlib.sha256(str(key).encode()).digest()[:4], "little")


def _word(sequence: np.random.SeedSequence) -> int:
    return int(sequence.generate_state(1)[0] % SEED_BOUND)


__all__ = ["SEED_BOUND", "SeedLike", "derive_seed", "resolve_seed"]

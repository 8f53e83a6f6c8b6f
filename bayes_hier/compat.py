"""A baycomp-compatible facade: switch from baycomp by changing one import.

>>> from bayes_hier.compat import CorrelatedTTest, SignTest, SignedRankTest  # doctest: +SKIP
>>> from bayes_hier.compat import HierarchicalTest, two_on_single, two_on_multiple  # doctest: +SKIP

The names, signatures and semantics follow baycomp 1.0.3: classmethods ``sample``, ``probs``,
``plot``, ``plot_simplex`` and ``plot_histogram``; calling a class returns a posterior object
with ``.probs()``, ``.plot()`` and ``.sample``; ``probs`` returns ``(p_left, p_rope, p_right)``
when the rope is wider than 0 and ``(p_left, p_right)`` when ``rope == 0``; left means the first
model (``x``) is better, the difference is ``y - x``. Every posterior object also carries the
native result of :mod:`bayes_hier` as ``.result`` (probabilities under the models' names,
posterior odds, decisions, expected costs, rope sensitivity, tables and diagnostics).

Deliberate differences from baycomp 1.0.3
-----------------------------------------
* **Random numbers.** ``random_state`` seeds :func:`numpy.random.default_rng` (PCG64), not the
  legacy ``RandomState``: a seed gives bit-identical results run after run, and exactly the
  numbers of the native functions (:func:`~bayes_hier.sign_test`,
  :func:`~bayes_hier.signed_rank_test` with ``seed=random_state``), but not baycomp's numbers
  (they agree within Monte Carlo error). ``random_state`` may also be a ``Generator`` or a
  ``RandomState`` (one integer is drawn from it). ``random_state=None`` draws a fresh seed and
  records it in ``posterior.result.settings["seed"]``.
* **The signed-rank test is vectorised** (no Python loop over samples, O(q) per sample); the
  sampled distribution is the same. The Dirichlet weights are drawn as normalised Gamma
  variables (so the random stream differs from ``RandomState.dirichlet``).
* **Ties in the argmax rule** (a sample whose largest coordinate is shared) are split equally
  between the tied outcomes instead of going to the first; this only matters for degenerate
  samples.
* **CorrelatedTTest** accepts ``random_state`` (keyword) for its ``.sample``; baycomp draws it
  from the global NumPy state. ``.sample`` is cached per posterior object, as in baycomp.
* **HierarchicalTest**: the seed reaches Stan (baycomp ignores ``random_state`` for Stan);
  nothing is written to the working directory (baycomp writes and silently reuses
  ``last-sample.pickle``); the sampler's diagnostics are computed, warned about and kept
  (``posterior.result.diagnostics``); ``nsamples`` is the **total** number of posterior draws
  over all chains (default 10 000, i.e. 2 500 per chain after 1 000 warm-up iterations) instead
  of 10 000 per chain; the model is that of :func:`~bayes_hier.hierarchical_test` (SPEC §3: the
  priors α ~ U(0.5, 5), β ~ U(0.05, 0.15) of the paper; data-based initial values; the
  closed-form likelihood). ``lower_alpha``, ``upper_alpha``, ``lower_beta`` and ``upper_beta``
  set the ranges of the uniform priors on α and β (``None`` keeps the paper's).
  ``upper_sigma`` sets both ``sigma_factor`` and ``sigma0_factor``. Further keyword arguments
  (``warmup``, ``engine``, ``nu_prior``, ``draws`` per chain, ...) go to
  :func:`~bayes_hier.hierarchical_test`.
* **Inputs.** The rope may also be an asymmetric pair ``(low, high)``; the sign and signed-rank
  tests also accept 2-D arrays (data sets x folds, averaged per data set) and pandas objects.
  Invalid input raises the package's :class:`ValueError` messages.
* **Plots** are drawn with matplotlib alone (no seaborn styling): the simplex is a scatter of
  the sample coloured by the most probable outcome, the correlated t-test plot shades the
  three regions. Each returns a :class:`matplotlib.figure.Figure`.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

from .bayesian_tests import correlated_ttest, sign_test, signed_rank_test
from .bayesian_tests._inputs import check_nsamples, resolve_seed
from .hierarchical import HierarchicalPrior, hierarchical_test
from .rope import Rope

__all__ = [
    "CorrelatedTTest",
    "HierarchicalTest",
    "Posterior",
    "SignTest",
    "SignedRankTest",
    "SinglePosterior",
    "two_on_multiple",
    "two_on_single",
]


def _has_rope(rope: Any) -> bool:
    return not Rope.parse(rope).is_empty


def _renamed(result: Any, names: Any) -> Any:
    """The result with other model names for the labels of a plot."""
    if names is None or tuple(names) == tuple(result.names):
        return result
    renamed = copy.copy(result)
    renamed.names = (str(names[0]), str(names[1]))
    return renamed


def _as_tuple(probs: Any, with_rope: bool) -> tuple[float, ...]:
    left, rope, right = (float(p) for p in probs)
    if with_rope:
        return left, rope, right
    total = left + right
    if total == 0:
        return 0.5, 0.5
    return left / total, right / total


# ---------------------------------------------------------------------- one data set
class SinglePosterior:
    """Posterior of the correlated t-test (baycomp's ``single.Posterior``).

    Attributes ``mean``, ``var`` (the squared scale), ``df``, ``rope``, ``meanx``, ``meany``,
    ``names``, ``nsamples`` as in baycomp; ``result`` is the native
    :class:`~bayes_hier.bayesian_tests.CorrelatedTResult`.
    """

    def __init__(self, result: Any, meanx: float, meany: float, *, nsamples: int, seed: int):
        self.result = result
        self.mean = result.mean
        self.var = result.var
        self.df = result.df
        self.rope = result.rope.high if result.rope.is_symmetric else result.rope
        self.meanx = meanx
        self.meany = meany
        self.names = result.names
        self.nsamples = nsamples
        self.seed = seed
        self._sample: np.ndarray | None = None

    @property
    def sample(self) -> np.ndarray:
        """``nsamples`` draws of the mean difference (the same array on every access)."""
        if self._sample is None:
            self._sample = self.result.sample(self.nsamples, self.seed)
        return self._sample

    def probs(self) -> tuple[float, ...]:
        """``(p_left, p_rope, p_right)`` if the rope is not empty, else ``(p_left, p_right)``,
        from the Student CDF."""
        return _as_tuple(self.result.probs, not self.result.rope.is_empty)

    def plot(self, names: Any = None) -> Any:
        """The posterior density with the rope (a matplotlib Figure)."""
        return _renamed(self.result, names).plot_density()

    plot_histogram = plot


class CorrelatedTTest:
    """Bayesian correlated t-test (baycomp's ``CorrelatedTTest``); see the module docstring."""

    def __new__(
        cls,
        x: Any,
        y: Any,
        rope: Any = 0,
        runs: int = 1,
        *,
        names: Any = None,
        nsamples: int = 50000,
        random_state: Any = None,
    ) -> SinglePosterior:
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        if x.ndim != 1 or y.ndim != 1:
            raise ValueError("'x' and 'y' must be 1-dimensional arrays of fold scores.")
        if not (int(runs) == runs > 0):
            raise ValueError("Number of runs must be a positive integer")
        result = correlated_ttest(x, y, rope, int(runs), names=names)
        return SinglePosterior(
            result,
            float(np.mean(x)),
            float(np.mean(y)),
            nsamples=check_nsamples(nsamples),
            seed=resolve_seed(random_state),
        )

    @classmethod
    def compute_statistics(cls, x: Any, y: Any, runs: int = 1) -> tuple[float, float, int]:
        """``(mean, var, df)``: d̄, the corrected ``(1/n + ρ/(1−ρ)) s²`` and ``n − 1``."""
        posterior = cls(x, y, 0, runs)
        return posterior.mean, posterior.var, posterior.df

    @classmethod
    def sample(
        cls, x: Any, y: Any, runs: int = 1, *, nsamples: int = 50000, random_state: Any = None
    ) -> np.ndarray:
        """A sample of the posterior of the mean difference."""
        return cls(x, y, runs=runs, nsamples=nsamples, random_state=random_state).sample

    @classmethod
    def probs(
        cls, x: Any, y: Any, rope: Any = 0, runs: int = 1, *, names: Any = None
    ) -> tuple[float, ...]:
        """``(p_left, p_rope, p_right)`` if ``rope > 0``, else ``(p_left, p_right)``."""
        return cls(x, y, rope, runs, names=names).probs()

    @classmethod
    def plot(cls, x: Any, y: Any, rope: Any = 0, runs: int = 1, *, names: Any = None) -> Any:
        """The posterior density with the rope (a matplotlib Figure)."""
        return cls(x, y, rope, runs, names=names).plot(names)

    plot_histogram = plot


def two_on_single(
    x: Any, y: Any, rope: Any = 0, runs: int = 1, *, names: Any = None, plot: bool = False
) -> Any:
    """Correlated t-test probabilities; with ``plot=True`` also the figure:
    ``(probs, fig)``."""
    posterior = CorrelatedTTest(x, y, rope, runs, names=names)
    if plot:
        return posterior.probs(), posterior.plot(names)
    return posterior.probs()


# ---------------------------------------------------------------------- several data sets
class Posterior:
    """A sampled posterior on the simplex (baycomp's ``multiple.Posterior``).

    ``sample`` is the (nsamples x 3) array of (p_left, p_rope, p_right); ``result`` the native
    result (:class:`~bayes_hier.bayesian_tests.SimplexResult` or
    :class:`~bayes_hier.HierarchicalResult`).
    """

    def __init__(self, result: Any, *, names: Any = None) -> None:
        self.result = result
        self.sample = result.sample
        self.names = tuple(names) if names is not None else result.names

    def probs(self, with_rope: bool = True) -> tuple[float, ...]:
        """``(p_left, p_rope, p_right)``, or ``(p_left, p_right)`` renormalised when
        ``with_rope`` is false."""
        return _as_tuple(self.result.probs, with_rope)

    def plot(self, names: Any = None) -> Any:
        """The simplex, or the histogram when no sample puts more than 0.1 on the rope."""
        if np.max(self.sample[:, 1]) < 0.1:
            return self.plot_histogram(names)
        return self.plot_simplex(names)

    def plot_simplex(self, names: Any = None) -> Any:
        """The sample on the probability simplex (a matplotlib Figure)."""
        from .plots import plot_simplex

        result = _renamed(self.result, names or self.names)
        return plot_simplex(self.sample, result.labels)

    def plot_histogram(self, names: Any = None) -> Any:
        """Histogram of the sample (of p_right with an empty rope)."""
        from .bayesian_tests.plots import plot_histogram

        return plot_histogram(_renamed(self.result, names or self.names))


class _Test:
    LEFT, ROPE, RIGHT = range(3)
    _default_nsamples = 50000

    @classmethod
    def _result(cls, x: Any, y: Any, rope: Any, **kwargs: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    def __new__(
        cls,
        x: Any,
        y: Any,
        rope: Any = 0,
        *,
        nsamples: int | None = None,
        random_state: Any = None,
        names: Any = None,
        **kwargs: Any,
    ) -> Posterior:
        nsamples = cls._default_nsamples if nsamples is None else nsamples
        result = cls._result(
            x, y, rope, nsamples=nsamples, random_state=random_state, names=names, **kwargs
        )
        return Posterior(result, names=names)

    @classmethod
    def sample(
        cls, x: Any, y: Any, rope: Any = 0, nsamples: int | None = None, **kwargs: Any
    ) -> np.ndarray:
        """A posterior sample of shape (nsamples, 3)."""
        return cls(x, y, rope, nsamples=nsamples, **kwargs).sample

    @classmethod
    def probs(
        cls, x: Any, y: Any, rope: Any = 0, *, nsamples: int | None = None, **kwargs: Any
    ) -> tuple[float, ...]:
        """``(p_left, p_rope, p_right)`` if ``rope > 0``, else ``(p_left, p_right)``."""
        return cls(x, y, rope, nsamples=nsamples, **kwargs).probs(_has_rope(rope))

    @classmethod
    def plot(
        cls,
        x: Any,
        y: Any,
        rope: Any = 0,
        *,
        nsamples: int | None = None,
        names: Any = None,
        **kwargs: Any,
    ) -> Any:
        """The simplex, or a histogram when the rope carries little mass."""
        return cls(x, y, rope, nsamples=nsamples, names=names, **kwargs).plot(names)

    @classmethod
    def plot_simplex(
        cls,
        x: Any,
        y: Any,
        rope: Any = 0,
        *,
        nsamples: int | None = None,
        names: Any = None,
        **kwargs: Any,
    ) -> Any:
        """The posterior sample on the simplex."""
        return cls(x, y, rope, nsamples=nsamples, names=names, **kwargs).plot_simplex(names)

    @classmethod
    def plot_histogram(
        cls, x: Any, y: Any, *, nsamples: int | None = None, names: Any = None, **kwargs: Any
    ) -> Any:
        """Histogram of p_right with ``rope=0``."""
        return cls(x, y, 0, nsamples=nsamples, names=names, **kwargs).plot_histogram(names)


class SignTest(_Test):
    """Bayesian sign test (baycomp's ``SignTest``).

    ``prior`` is the strength of the prior (a float, put on the rope) or a tuple
    ``(strength, place)`` with place ``SignTest.LEFT``, ``SignTest.ROPE`` or ``SignTest.RIGHT``.
    """

    @classmethod
    def _result(
        cls,
        x: Any,
        y: Any,
        rope: Any = 0,
        *,
        prior: Any = 1,
        nsamples: int = 50000,
        random_state: Any = None,
        names: Any = None,
    ) -> Any:
        if isinstance(prior, tuple):
            prior, place = prior
        else:
            place = cls.ROPE
        return sign_test(
            x,
            y,
            rope,
            prior=prior,
            prior_place=place,
            nsamples=nsamples,
            seed=random_state,
            names=names,
        )


class SignedRankTest(_Test):
    """Bayesian signed-rank test (baycomp's ``SignedRankTest``), vectorised."""

    @classmethod
    def _result(
        cls,
        x: Any,
        y: Any,
        rope: Any = 0,
        *,
        prior: float = 0.5,
        nsamples: int = 50000,
        random_state: Any = None,
        names: Any = None,
    ) -> Any:
        return signed_rank_test(
            x, y, rope, prior=prior, nsamples=nsamples, seed=random_state, names=names
        )


class HierarchicalTest(_Test):
    """Bayesian hierarchical test (baycomp's ``HierarchicalTest``) run by
    :func:`~bayes_hier.hierarchical_test`; see the module docstring for the differences."""

    _default_nsamples = 10000

    def __new__(
        cls,
        x: Any,
        y: Any,
        rope: Any = 0,
        runs: int = 1,
        *,
        nsamples: int | None = None,
        random_state: Any = None,
        names: Any = None,
        **kwargs: Any,
    ) -> Posterior:
        return super().__new__(
            cls,
            x,
            y,
            rope,
            runs=runs,
            nsamples=nsamples,
            random_state=random_state,
            names=names,
            **kwargs,
        )

    @classmethod
    def _result(
        cls,
        x: Any,
        y: Any,
        rope: Any = 0,
        *,
        runs: int = 1,
        lower_alpha: float | None = None,
        upper_alpha: float | None = None,
        lower_beta: float | None = None,
        upper_beta: float | None = None,
        upper_sigma: float = 1000,
        chains: int = 4,
        nsamples: int = 10000,
        random_state: Any = None,
        names: Any = None,
        **kwargs: Any,
    ) -> Any:
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        if x.ndim != 2 or y.ndim != 2:
            raise ValueError(
                "The hierarchical test needs 2-D arrays (data sets x cross-validation scores)."
            )
        nsamples = check_nsamples(nsamples)
        kwargs.setdefault("draws", math.ceil(nsamples / chains))
        default = HierarchicalPrior()
        kwargs.setdefault(
            "alpha_range",
            (
                default.alpha_range[0] if lower_alpha is None else lower_alpha,
                default.alpha_range[1] if upper_alpha is None else upper_alpha,
            ),
        )
        kwargs.setdefault(
            "beta_range",
            (
                default.beta_range[0] if lower_beta is None else lower_beta,
                default.beta_range[1] if upper_beta is None else upper_beta,
            ),
        )
        return hierarchical_test(
            x,
            y,
            rope,
            runs,
            names=names,
            chains=chains,
            seed=resolve_seed(random_state),
            sigma_factor=upper_sigma,
            sigma0_factor=upper_sigma,
            **kwargs,
        )

    @classmethod
    def sample(
        cls,
        x: Any,
        y: Any,
        rope: Any = 0,
        runs: int = 1,
        *,
        nsamples: int | None = None,
        **kwargs: Any,
    ) -> np.ndarray:
        """A posterior sample of (p_left, p_rope, p_right) for the next data set."""
        return cls(x, y, rope, runs, nsamples=nsamples, **kwargs).sample

    @classmethod
    def probs(
        cls,
        x: Any,
        y: Any,
        rope: Any = 0,
        runs: int = 1,
        *,
        names: Any = None,
        nsamples: int | None = None,
        **kwargs: Any,
    ) -> tuple[float, ...]:
        """``(p_left, p_rope, p_right)`` if ``rope > 0``, else ``(p_left, p_right)``."""
        posterior = cls(x, y, rope, runs, names=names, nsamples=nsamples, **kwargs)
        return posterior.probs(_has_rope(rope))


def two_on_multiple(
    x: Any,
    y: Any,
    rope: Any = 0,
    *,
    runs: int = 1,
    names: Any = None,
    plot: bool = False,
    **kwargs: Any,
) -> Any:
    """Signed-rank test for 1-D ``x`` and ``y`` (one score per data set), hierarchical test for
    2-D (data sets x folds); with ``plot=True`` returns ``(probs, fig)``."""
    x = np.asarray(x, dtype=float)
    if x.ndim == 2:
        posterior = HierarchicalTest(x, y, rope, runs, names=names, **kwargs)
    else:
        posterior = SignedRankTest(x, y, rope, names=names, **kwargs)
    probs = posterior.probs(_has_rope(rope))
    if plot:
        return probs, posterior.plot(names)
    return probs

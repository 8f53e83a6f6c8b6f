"""A baycomp-compatible facade: switch from baycomp by changing one import.

>>> from bayes_hier.compat import CorrelatedTTest, SignTest, SignedRankTest  # doctest: +SKIP
>>> from bayes_hier.compat import HierarchicalTest, two_on_single, two_on_multiple  # doctest: +SKIP
>>> from bayes_hier.compat import Posterior  # baycomp.multiple.Posterior  # doctest: +SKIP
>>> from bayes_hier.compat import SinglePosterior  # baycomp.single.Posterior  # doctest: +SKIP

The names, signatures and semantics follow baycomp 1.0.3: classmethods ``sample``, ``probs``,
``plot``, ``plot_simplex`` and ``plot_histogram``; calling a class returns a posterior object
with ``.probs()``, ``.plot()`` and ``.sample``; the posteriors can also be built directly, as
``Posterior(sample, names=None)`` and ``SinglePosterior(mean, var, df, rope=0, meanx=None,
meany=None, names=None, nsamples=50000)``. The classmethod ``probs`` returns
``(p_left, p_rope, p_right)`` when the rope is wider than 0 and ``(p_left, p_right)`` when
``rope == 0``; ``Posterior.probs()`` returns the three argmax shares of its sample (whatever the
rope) and ``Posterior.probs(False)`` the renormalised two. Left means the first model (``x``) is
better; the difference is ``y - x``. A posterior built by a test also carries the native result
of :mod:`bayes_hier` as ``.result`` (probabilities under the models' names, posterior odds,
decisions, expected costs, rope sensitivity, tables and diagnostics).

Deliberate differences from baycomp 1.0.3
-----------------------------------------
Decided per case; where the facade matches baycomp, that is said too.

* **rope = 0, posterior objects: matched.** ``Posterior.probs()`` (``with_rope=True``) returns
  the raw argmax shares of the sample, the rope's share included (e.g. the sign test with exact
  zero differences), as baycomp does; only ``probs(False)`` and the classmethod ``probs(x, y,
  0)`` renormalise left and right.
* **two_on_multiple: matched.** It always returns three values, as baycomp's code does (its
  docstring promises two for ``rope=0``); ``two_on_single`` returns two for ``rope=0``.
* **No winner at rope = 0: kept.** When no sample has left or right as its largest coordinate
  (e.g. ``SignTest.probs(x, x, 0)``: every difference is 0, all mass on the rope), the
  renormalised pair is ``(0.5, 0.5)``; baycomp divides 0 by 0 and returns ``(nan, nan)``. The
  even split is what baycomp's own correlated t-test returns for a point mass at 0.
* **SignedRankTest(prior=0): kept.** Accepted: the pseudo-observation at 0 gets weight 0 (the
  Bayesian bootstrap of the observed differences alone); baycomp's ``RandomState.dirichlet``
  raises ``ValueError`` for a zero weight. A negative prior raises here too.
* **Ties in the argmax rule: kept.** A sample whose largest coordinate is shared is split
  equally between the tied outcomes instead of going to the first (``numpy.argmax``); this only
  matters for degenerate samples (e.g. every difference exactly 0 in the signed-rank test).
* **Random numbers: kept.** ``random_state`` seeds :func:`numpy.random.default_rng` (PCG64),
  not the legacy ``RandomState``: a seed gives bit-identical results run after run, and exactly
  the numbers of the native functions (:func:`~bayes_hier.sign_test`,
  :func:`~bayes_hier.signed_rank_test` with ``seed=random_state``), but not baycomp's numbers
  (they agree within Monte Carlo error). ``random_state`` follows the package's seed policy
  (:mod:`bayes_hier.seeding`): ``None``, a non-negative int, a ``Generator``, a
  ``SeedSequence`` or a ``RandomState`` (one integer is drawn from it); a float or a string
  raises ``TypeError`` naming ``random_state``. ``None`` draws a fresh seed and records it in
  ``posterior.result.settings["seed"]``.
* **The signed-rank test is vectorised** (no Python loop over samples, O(q) per sample); the
  sampled distribution is the same. The Dirichlet weights are drawn as normalised Gamma
  variables (so the random stream differs from ``RandomState.dirichlet``).
* **CorrelatedTTest and SinglePosterior** accept ``random_state`` (keyword) for ``.sample``;
  baycomp draws it from the global NumPy state. ``.sample`` is cached per posterior object, as
  in baycomp.
* **HierarchicalTest**: the seed reaches Stan (baycomp ignores ``random_state`` for Stan);
  nothing is written to the working directory (baycomp writes and silently reuses
  ``last-sample.pickle``); the sampler's diagnostics are computed, warned about and kept
  (``posterior.result.diagnostics``); ``nsamples`` is the **total** number of posterior draws
  over all chains (default 10 000, i.e. 2 500 per chain after 1 000 warm-up iterations) instead
  of 10 000 per chain; the model is that of :func:`~bayes_hier.hierarchical_test` (conventions §3:
  the priors α ~ U(0.5, 5), β ~ U(0.05, 0.15) of the paper; data-based initial values; the
  closed-form likelihood). ``lower_alpha``, ``upper_alpha``, ``lower_beta`` and ``upper_beta``
  set the ranges of the uniform priors on α and β (``None`` keeps the paper's).
  ``upper_sigma`` sets both ``sigma_factor`` and ``sigma0_factor``. Further keyword arguments
  (``warmup``, ``engine``, ``nu_prior``, ``draws`` per chain, ...) go to
  :func:`~bayes_hier.hierarchical_test`.
* **Inputs.** The rope may also be an asymmetric pair ``(low, high)``; the sign and signed-rank
  tests also accept 2-D arrays (data sets x folds, averaged per data set) and pandas objects
  (two Series or two DataFrames are paired by label, not by position). ``runs``, ``nsamples``
  and ``chains`` must be integers (``True`` raises ``TypeError``; ``2.0`` is taken as 2, as in
  baycomp). Invalid input raises the package's ``ValueError``/``TypeError`` messages.
* **Plots** are drawn with matplotlib alone (no seaborn styling): the simplex is a scatter of
  the sample coloured by the most probable outcome, the correlated t-test plot shades the
  three regions. Each returns a :class:`matplotlib.figure.Figure`; without names the models are
  called ``C1`` and ``C2``, as in baycomp.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy import stats

from ._validate import check_int
from .bayesian_tests import correlated_ttest, sign_test, signed_rank_test
from .bayesian_tests._inputs import check_nsamples
from .bayesian_tests.correlated_t import student_probs
from .bayesian_tests.result import SimplexResult
from .decision import outcome_labels
from .hierarchical import HierarchicalPrior, hierarchical_test
from .probabilities import Probabilities, argmax_shares
from .rope import Rope
from .seeding import resolve_seed

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

#: The model names baycomp's plots show when none are given.
DEFAULT_NAMES = ("C1", "C2")


def _has_rope(rope: Any) -> bool:
    return not Rope.parse(rope).is_empty


def _plot_names(*candidates: Any) -> tuple[str, str]:
    """The first names given, else baycomp's ``("C1", "C2")``."""
    names = next((n for n in candidates if n is not None), DEFAULT_NAMES)
    return str(names[0]), str(names[1])


def _left_right(probs: Probabilities) -> tuple[float, float]:
    """``(p_left, p_right)`` renormalised; an even split when neither ever wins (baycomp: nan)."""
    total = probs.left + probs.right
    if total == 0:
        return 0.5, 0.5
    return probs.left / total, probs.right / total


# ---------------------------------------------------------------------- views for the plots
@dataclass(frozen=True)
class _StudentView:
    """A Student posterior of the mean difference, with what the density plot reads."""

    loc: float
    scale: float
    df: float
    rope: Rope
    names: tuple[str, str]
    test_name: str = "Bayesian correlated t-test"

    @property
    def probs(self) -> Probabilities:
        return student_probs(self.loc, self.scale, self.df, self.rope)

    @property
    def labels(self) -> dict[str, str]:
        return outcome_labels(self.names)

    @property
    def posterior(self) -> Any:
        return None if self.scale == 0 else stats.t(self.df, self.loc, self.scale)


@dataclass(frozen=True)
class _SimplexView:
    """A posterior sample on the simplex, with what the histogram reads."""

    sample: np.ndarray
    rope: Rope
    names: tuple[str, str]
    test_name: str = "Bayesian test"

    @property
    def probs(self) -> Probabilities:
        return SimplexResult.probs_of_sample(self.sample, self.rope)

    @property
    def labels(self) -> dict[str, str]:
        return outcome_labels(self.names)


# ---------------------------------------------------------------------- one data set
class SinglePosterior:
    """The posterior of the mean difference on one data set (baycomp's ``single.Posterior``).

    ``SinglePosterior(mean, var, df, rope=0, meanx=None, meany=None, *, names=None,
    nsamples=50000)`` as in baycomp: the Student posterior St(df, mean, sqrt(var)) (``var`` is
    the squared scale; ``var = 0`` a point mass). :class:`CorrelatedTTest` builds it from
    scores and attaches the native :class:`~bayes_hier.bayesian_tests.CorrelatedTResult` as
    ``result`` (``None`` when built from the statistics). ``random_state`` (an extension) seeds
    :attr:`sample`.
    """

    def __init__(
        self,
        mean: float,
        var: float,
        df: float,
        rope: Any = 0,
        meanx: float | None = None,
        meany: float | None = None,
        *,
        names: Any = None,
        nsamples: int = 50000,
        random_state: Any = None,
    ) -> None:
        mean, var, df = float(mean), float(var), float(df)
        if not (math.isfinite(mean) and math.isfinite(var) and var >= 0):
            raise ValueError(f"mean must be finite and var >= 0; got mean={mean}, var={var}.")
        if not df > 0:
            raise ValueError(f"df (degrees of freedom) must be positive; got {df}.")
        parsed = Rope.parse(rope)
        self.mean, self.var, self.df = mean, var, df
        self.rope = parsed.high if parsed.is_symmetric else parsed
        self.meanx, self.meany = meanx, meany
        self.names = tuple(names) if names is not None else None
        self.nsamples = check_nsamples(nsamples)
        self.seed = resolve_seed(random_state, "random_state")
        self.result: Any = None
        self._view = _StudentView(mean, math.sqrt(var), df, parsed, _plot_names(names))

    @cached_property
    def sample(self) -> np.ndarray:
        """``nsamples`` draws of the mean difference (the same array on every access)."""
        view = self._view
        if view.scale == 0:
            return np.full(self.nsamples, view.loc)
        rng = np.random.default_rng(self.seed)
        return view.loc + view.scale * rng.standard_t(view.df, self.nsamples)

    def probs(self) -> tuple[float, ...]:
        """``(p_left, p_rope, p_right)`` if the rope is not empty, else ``(p_left, p_right)``,
        from the Student CDF."""
        probs = self._view.probs
        if self._view.rope.is_empty:
            return _left_right(probs)
        return tuple(probs)

    def plot(self, names: Any = None) -> Any:
        """The posterior density with the rope (a matplotlib Figure)."""
        from .bayesian_tests.plots import plot_student_density

        view = self._view
        return plot_student_density(
            _StudentView(view.loc, view.scale, view.df, view.rope, _plot_names(names, self.names))
        )

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
        if np.ndim(x) != 1 or np.ndim(y) != 1:
            raise ValueError("'x' and 'y' must be 1-dimensional arrays of fold scores.")
        result = correlated_ttest(x, y, rope, check_int(runs, "runs", minimum=1), names=names)
        posterior = SinglePosterior(
            result.mean,
            result.var,
            result.df,
            result.rope,
            float(np.mean(np.asarray(x, dtype=float))),
            float(np.mean(np.asarray(y, dtype=float))),
            names=names,
            nsamples=nsamples,
            random_state=random_state,
        )
        posterior.result = result
        return posterior

    @classmethod
    def compute_statistics(cls, x: Any, y: Any, runs: int = 1) -> tuple[float, float, int]:
        """``(mean, var, df)``: d̄, the corrected ``(1/n + ρ/(1−ρ)) s²`` and ``n − 1``."""
        posterior = cls(x, y, 0, runs)
        return posterior.mean, posterior.var, int(posterior.df)

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

    ``Posterior(sample, *, names=None)`` as in baycomp: ``sample`` is an (nsamples x 3) array of
    (p_left, p_rope, p_right). The tests build it from data and attach the native result
    (:class:`~bayes_hier.bayesian_tests.SimplexResult` or
    :class:`~bayes_hier.HierarchicalResult`) as ``result`` (``None`` when built from a sample).
    """

    def __init__(self, sample: Any, *, names: Any = None) -> None:
        array = np.asarray(sample, dtype=float)
        if array.ndim != 2 or array.shape[1] != 3 or array.shape[0] == 0:
            raise ValueError(
                "sample must be an array of shape (nsamples, 3) holding (p_left, p_rope, "
                f"p_right) per row; got shape {array.shape}."
            )
        if not np.isfinite(array).all():
            raise ValueError("sample holds NaN or infinite values.")
        self.sample = array
        self.names = tuple(names) if names is not None else None
        self.result: Any = None

    @classmethod
    def _of(cls, result: Any, names: Any = None) -> Posterior:
        posterior = cls(result.sample, names=names if names is not None else result.names)
        posterior.result = result
        return posterior

    def probs(self, with_rope: bool = True) -> tuple[float, ...]:
        """``(p_left, p_rope, p_right)``: the share of samples in which each coordinate is the
        largest; ``(p_left, p_right)`` renormalised when ``with_rope`` is false."""
        shares = argmax_shares(self.sample)
        return tuple(shares) if with_rope else _left_right(shares)

    def plot(self, names: Any = None) -> Any:
        """The simplex, or the histogram when no sample puts more than 0.1 on the rope."""
        if np.max(self.sample[:, 1]) < 0.1:
            return self.plot_histogram(names)
        return self.plot_simplex(names)

    def plot_simplex(self, names: Any = None) -> Any:
        """The sample on the probability simplex (a matplotlib Figure)."""
        from .plots import plot_simplex

        return plot_simplex(self.sample, outcome_labels(_plot_names(names, self.names)))

    def plot_histogram(self, names: Any = None) -> Any:
        """Histogram of the sample (of p_right with an empty rope)."""
        from .bayesian_tests.plots import plot_histogram

        rope = self.result.rope if self.result is not None else Rope(0.0, 0.0)
        test_name = getattr(self.result, "test_name", "Bayesian test")
        return plot_histogram(
            _SimplexView(self.sample, rope, _plot_names(names, self.names), test_name)
        )


class _Test:
    LEFT, ROPE, RIGHT = range(3)
    _default_nsamples = 50000
    #: The argument after ``rope`` that the test also takes by position (baycomp's ``sample``
    #: takes ``nsamples`` there; the hierarchical test ``runs``).
    _positional: tuple[str, ...] = ("nsamples",)

    @classmethod
    def _result(cls, x: Any, y: Any, rope: Any, **kwargs: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    def __new__(
        cls,
        x: Any,
        y: Any,
        rope: Any = 0,
        *args: Any,
        random_state: Any = None,
        names: Any = None,
        **kwargs: Any,
    ) -> Posterior:
        if len(args) > len(cls._positional):
            raise TypeError(
                f"{cls.__name__} takes x, y, rope{''.join(', ' + n for n in cls._positional)} "
                f"by position; got {3 + len(args)} positional arguments."
            )
        kwargs.update(zip(cls._positional, args))
        nsamples = kwargs.pop("nsamples", None)
        nsamples = cls._default_nsamples if nsamples is None else nsamples
        seed = resolve_seed(random_state, "random_state")
        result = cls._result(
            x, y, rope, nsamples=nsamples, random_state=seed, names=names, **kwargs
        )
        return Posterior._of(result, names=names)

    @classmethod
    def sample(cls, x: Any, y: Any, rope: Any = 0, *args: Any, **kwargs: Any) -> np.ndarray:
        """A posterior sample of shape (nsamples, 3): (p_left, p_rope, p_right) per row."""
        return cls(x, y, rope, *args, **kwargs).sample

    @classmethod
    def probs(cls, x: Any, y: Any, rope: Any = 0, *args: Any, **kwargs: Any) -> tuple[float, ...]:
        """``(p_left, p_rope, p_right)`` if ``rope > 0``, else ``(p_left, p_right)``."""
        return cls(x, y, rope, *args, **kwargs).probs(_has_rope(rope))

    @classmethod
    def plot(
        cls, x: Any, y: Any, rope: Any = 0, *args: Any, names: Any = None, **kwargs: Any
    ) -> Any:
        """The simplex, or a histogram when the rope carries little mass."""
        return cls(x, y, rope, *args, names=names, **kwargs).plot(names)

    @classmethod
    def plot_simplex(
        cls, x: Any, y: Any, rope: Any = 0, *args: Any, names: Any = None, **kwargs: Any
    ) -> Any:
        """The posterior sample on the simplex."""
        return cls(x, y, rope, *args, names=names, **kwargs).plot_simplex(names)

    @classmethod
    def plot_histogram(cls, x: Any, y: Any, *, names: Any = None, **kwargs: Any) -> Any:
        """Histogram of p_right with ``rope=0``."""
        return cls(x, y, 0, names=names, **kwargs).plot_histogram(names)


class SignTest(_Test):
    """Bayesian sign test (baycomp's ``SignTest``).

    ``prior`` is the strength of the prior (a float, put on the rope) or a tuple
    ``(strength, place)`` with place ``SignTest.LEFT``, ``SignTest.ROPE`` or ``SignTest.RIGHT``.
    """

    @classmethod
    def _result(
        cls, x: Any, y: Any, rope: Any, *, random_state: Any, prior: Any = 1, **kwargs: Any
    ) -> Any:
        if isinstance(prior, tuple):
            if len(prior) != 2 or isinstance(prior[1], float):
                raise ValueError(
                    f"prior must be a strength or a tuple (strength, place), e.g. "
                    f"(1.0, SignTest.LEFT), as baycomp's SignTest unpacks it; got {prior!r}."
                )
            prior, place = prior
        else:
            place = cls.ROPE
        return sign_test(x, y, rope, prior=prior, prior_place=place, seed=random_state, **kwargs)


class SignedRankTest(_Test):
    """Bayesian signed-rank test (baycomp's ``SignedRankTest``), vectorised."""

    @classmethod
    def _result(
        cls, x: Any, y: Any, rope: Any, *, random_state: Any, prior: float = 0.5, **kwargs: Any
    ) -> Any:
        return signed_rank_test(x, y, rope, prior=prior, seed=random_state, **kwargs)


class HierarchicalTest(_Test):
    """Bayesian hierarchical test (baycomp's ``HierarchicalTest``) run by
    :func:`~bayes_hier.hierarchical_test`; see the module docstring for the differences."""

    _default_nsamples = 10000
    _positional = ("runs",)

    @classmethod
    def _result(
        cls, x: Any, y: Any, rope: Any, *, nsamples: int, random_state: Any, **kwargs: Any
    ) -> Any:
        """:func:`~bayes_hier.hierarchical_test` with baycomp's arguments translated:
        ``nsamples`` total draws, ``lower_alpha`` .. ``upper_beta`` (the prior's ranges,
        ``None`` keeps the paper's bound), ``upper_sigma`` (both sigma factors, default 1000)."""
        if not (_fold_level(x) and _fold_level(y)):
            raise ValueError(
                "The hierarchical test needs 2-D arrays (data sets x cross-validation scores), or "
                "lists of 1-D arrays when data sets have different numbers of folds."
            )
        nsamples = check_nsamples(nsamples)
        chains = check_int(kwargs.pop("chains", 4), "chains", minimum=1)
        kwargs.setdefault("draws", math.ceil(nsamples / chains))
        default = HierarchicalPrior()
        for name, (low, high) in (("alpha", default.alpha_range), ("beta", default.beta_range)):
            lower, upper = kwargs.pop(f"lower_{name}", None), kwargs.pop(f"upper_{name}", None)
            kwargs.setdefault(
                f"{name}_range", (low if lower is None else lower, high if upper is None else upper)
            )
        upper_sigma = kwargs.pop("upper_sigma", 1000)
        return hierarchical_test(
            x,
            y,
            rope,
            chains=chains,
            seed=random_state,
            sigma_factor=upper_sigma,
            sigma0_factor=upper_sigma,
            **kwargs,
        )


def _fold_level(x: Any) -> bool:
    """Whether ``x`` holds fold scores per data set: a 2-D array, or a list of 1-D arrays (data
    sets with different numbers of folds), rather than one score per data set."""
    if isinstance(x, (list, tuple)) and len(x) and all(np.ndim(row) == 1 for row in x):
        return True
    return np.ndim(x) == 2


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
    2-D (data sets x folds): ``(p_left, p_rope, p_right)`` whatever the rope, as baycomp 1.0.3
    returns (its docstring promises two values for ``rope=0``; its code returns three). With
    ``plot=True``, ``(probs, fig)``."""
    if _fold_level(x):
        posterior = HierarchicalTest(x, y, rope, runs, names=names, **kwargs)
    else:
        posterior = SignedRankTest(x, y, rope, names=names, **kwargs)
    probs = posterior.probs()
    if plot:
        return probs, posterior.plot(names)
    return probs

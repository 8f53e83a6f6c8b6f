"""The methods a many-model comparison can run: one dispatch table.

Each pairwise entry names the two-model test of the package that analyses a pair (the comparison
never re-implements a test), how many data sets it needs, whether its pairs are worth sending to
worker processes (only the Stan-based test is), and the phrase that says what its probabilities
are about. ``run_pair`` is the picklable task a worker runs; ``run_pair_reporting_warnings``
returns the warnings the test issued with its result, so that the comparison shows them in the
caller's process whatever the worker that ran the pair. A joint entry (``joint=True``)
analyses all pairs in one call and may name its own result class (a subclass of
:class:`~bayes_hier.ManyModelResult` with extra attributes); adding one is adding
an entry to :data:`METHODS`.
"""

from __future__ import annotations

import inspect
import typing
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..bayesian_tests import correlated_ttest, sign_test, signed_rank_test
from ..data import CVData
from ..hierarchical import hierarchical_test
from ..issued import is_package_warning
from ..rope import Rope
from .result import ManyModelResult


def typed_keywords(function: Callable[..., Any], name: str) -> set[str]:
    """The keys of the TypedDict in ``**name: Unpack[TypedDict]`` of ``function`` (PEP 692);
    empty when the annotation is anything else."""
    hint = typing.get_type_hints(function).get(name)
    (typed_dict,) = typing.get_args(hint) or (None,)
    return set(getattr(typed_dict, "__annotations__", {}))


@dataclass(frozen=True)
class PairMethod:
    """How a comparison analyses its pairs: a two-model test per pair, or one joint model.

    Attributes
    ----------
    name
        The key of :data:`METHODS` (``method=`` of ``bayes_hier.compare()``).
    test
        For a pairwise method, the two-model test, called as
        ``test(cv, rope=..., seed=..., **options)`` on each pair. For a joint method (``joint``
        true), one call for all pairs: ``test(scores, pairs, rope, seed, **options)`` returning
        ``(pair results by pair, extra keyword arguments of result_class)``.
    scope
        What the probabilities are about, completing "A is better than B with probability p ...".
    min_datasets, max_datasets
        How many data sets a pair must have (``None``: no upper limit).
    parallel
        Whether pairs go to worker processes when ``jobs > 1`` (worth it for MCMC only).
    seeded
        Whether the test takes a ``seed``.
    joint
        Whether ``test`` analyses all pairs at once (see ``test``).
    result_class
        The class of the comparison's result (:class:`~bayes_hier.ManyModelResult` or a subclass).
    """

    name: str
    test: Callable[..., Any]
    scope: str
    min_datasets: int
    max_datasets: int | None = None
    parallel: bool = False
    seeded: bool = True
    joint: bool = False
    result_class: type[ManyModelResult] = ManyModelResult

    def options(self) -> set[str]:
        """The keyword options the test accepts besides the data, rope and seed: its named
        parameters and the keys of a ``**keywords: Unpack[SomeTypedDict]`` (the MCMC settings,
        :class:`~bayes_hier.fitting.SamplerKeywords`)."""
        reserved = {"x", "y", "rope", "seed", "runs", "names", "models", "columns", "rho"}
        reserved |= {"higher_is_better", "warn", "dataset", "scores", "pairs"}
        names = set()
        for parameter in inspect.signature(self.test).parameters.values():
            if parameter.kind is parameter.VAR_KEYWORD:
                names |= typed_keywords(self.test, parameter.name)
            else:
                names.add(parameter.name)
        return names - reserved

    def check_options(self, options: Mapping[str, Any]) -> None:
        """Raise a TypeError naming options the test does not take."""
        unknown = sorted(set(options) - self.options())
        if unknown:
            raise TypeError(
                f"The {self.name} method does not take {unknown}; its options are "
                f"{sorted(self.options())}."
            )


METHODS: dict[str, PairMethod] = {
    "hierarchical": PairMethod(
        "hierarchical", hierarchical_test, "on a new data set", 2, parallel=True
    ),
    "signed_rank": PairMethod(
        "signed_rank", signed_rank_test, "on the population of data sets sampled", 2
    ),
    "sign": PairMethod("sign", sign_test, "on the population of data sets sampled", 2),
    "correlated_t": PairMethod(
        "correlated_t", correlated_ttest, "on this data set", 1, max_datasets=1, seeded=False
    ),
}


#: Methods that analyse every pair in one model and take ``compare()``'s own arguments, registered
#: by the package that provides them (``bayes_hier.joint`` registers ``"joint"``), so that this
#: package never imports theirs (they build on it: no import cycle).
WHOLE_METHODS: dict[str, Callable[..., ManyModelResult]] = {}


def register_whole_method(name: str, function: Callable[..., ManyModelResult]) -> None:
    """Make ``compare(..., method=name)`` return ``function(data, rope, **compare's arguments)``."""
    if name in METHODS:
        raise ValueError(f"{name!r} is already a pairwise method.")
    WHOLE_METHODS[name] = function


def get_method(name: str) -> PairMethod:
    """The table entry for ``name``; a ValueError lists the choices."""
    if name not in METHODS:
        raise ValueError(f"Unknown method {name!r}; choose one of {[*METHODS, *WHOLE_METHODS]}.")
    return METHODS[name]


def default_method(n_datasets: int) -> str:
    """``"hierarchical"`` for several data sets, ``"correlated_t"`` for one."""
    return "hierarchical" if n_datasets >= 2 else "correlated_t"


def run_pair(method: str, cv: CVData, rope: Rope, seed: int, options: Mapping[str, Any]) -> Any:
    """Run the method's two-model test on one pair (a module-level function: picklable)."""
    entry = METHODS[method]
    extra = dict(options)
    if entry.seeded:
        extra["seed"] = seed
    if entry is METHODS["hierarchical"]:
        extra.setdefault("warn", False)  # diagnostics are reported by the comparison
    return entry.test(cv, rope=rope, **extra)


#: A warning a pair's test issued: its category and its text.
IssuedWarning = tuple[type[Warning], str]


def run_pair_reporting_warnings(
    method: str, cv: CVData, rope: Rope, seed: int, options: Mapping[str, Any]
) -> tuple[Any, list[IssuedWarning]]:
    """:func:`run_pair`, and the warnings the package issued while running it, caught.

    A warning issued in a worker process goes to that process's standard error (in Jupyter, to
    the server's console, not the notebook); returned with the result, the caller can issue it
    again where the user sees it, as it would have seen it from a run in its own process. Only
    warnings attributed to the package's own code are returned (about the data, the rope, the
    sampling); those of other libraries about their own internals (deprecations met while a
    fresh worker imports the Stan engine) are not the user's concern and are dropped.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_pair(method, cv, rope, seed, options)
    return result, [(w.category, str(w.message)) for w in caught if is_package_warning(w)]


__all__ = [
    "METHODS",
    "WHOLE_METHODS",
    "PairMethod",
    "default_method",
    "get_method",
    "register_whole_method",
    "run_pair",
    "run_pair_reporting_warnings",
]

"""The warnings a test issued while computing its result, kept on the result.

A report must state everything that shaped its numbers (constant differences given a spread,
data sets or folds left out, a rope that looks like it is in other units, an assumed design),
even when the user's warning filters hid the warning. :func:`records_warnings` wraps a test: the
package's warnings issued during the call are recorded, issued again at the caller's line (the
first frame outside the package, so the user sees them as before) and stored as
``result.issued_warnings`` (their texts), which :attr:`~bayes_hier.results.ComparisonResult.
warnings` and the reports read. Warnings of other libraries about their own internals are passed
on unrecorded, at the place that filed them (so that the user's filters decide, as without the
recording); sampling problems are not recorded either, as every result states them from its
diagnostics.
"""

from __future__ import annotations

import functools
import os
import sysconfig
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from .callers import user_stacklevel

F = TypeVar("F", bound=Callable[..., Any])

PACKAGE_DIRECTORY = os.path.dirname(os.path.realpath(__file__))

#: Folders of the standard library and of installed packages (warnings filed there are not
#: the package's, unless the package itself is installed there).
_LIBRARY_DIRECTORIES = tuple(
    os.path.realpath(sysconfig.get_paths()[key]) for key in ("stdlib", "purelib", "platlib")
)


def issued_in_package(filename: str) -> bool:
    """Whether a warning attributed to ``filename`` comes from this package's code."""
    return os.path.realpath(filename).startswith(PACKAGE_DIRECTORY + os.sep)


def is_package_warning(warning: warnings.WarningMessage) -> bool:
    """A warning of the package: its category is the package's, it was filed in the package, or
    it is a plain ``UserWarning`` attributed to the user's code (the package's warnings about the
    data point at the user's line)."""
    if warning.category.__module__.split(".")[0] == __name__.split(".")[0]:
        return True
    if issued_in_package(warning.filename):
        return True
    path = os.path.realpath(warning.filename)
    return warning.category is UserWarning and not path.startswith(_LIBRARY_DIRECTORIES)


def reissue_where_filed(warning: warnings.WarningMessage) -> None:
    """Issue a recorded warning of another library again at the place that filed it, so that the
    caller's filters treat it as they would have without the recording (a library's
    ``DeprecationWarning`` about its own code stays hidden outside ``__main__``)."""
    warnings.warn_explicit(
        warning.message, warning.category, warning.filename, warning.lineno, source=warning.source
    )


def records_warnings(function: F) -> F:
    """Decorate a test: its result gets ``issued_warnings``, the texts of the package's warnings
    issued during the call (sampling warnings excepted); the package's warnings are issued again
    at the caller's line, other libraries' where they were filed."""
    from .diagnostics import SamplingWarning

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = function(*args, **kwargs)
        texts = []
        for warning in caught:
            if not is_package_warning(warning):
                reissue_where_filed(warning)
                continue
            if not issubclass(warning.category, SamplingWarning):
                texts.append(str(warning.message))
            warnings.warn(warning.message, stacklevel=user_stacklevel())
        earlier = list(getattr(result, "issued_warnings", []))
        result.issued_warnings = [*earlier, *(t for t in texts if t not in earlier)]
        return result

    return wrapper  # type: ignore[return-value]


__all__ = [
    "is_package_warning",
    "issued_in_package",
    "records_warnings",
    "reissue_where_filed",
]

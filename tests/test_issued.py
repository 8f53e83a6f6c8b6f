"""Warnings recorded during a test: the package's go to the caller's line and onto the result,
other libraries' go back to where they were filed, where the caller's filters judge them."""

import warnings
from types import SimpleNamespace

from bayes_hier.issued import records_warnings
from bayes_hier.rope import RopeScaleWarning

LIBRARY_FILE = "/opt/somewhere/site-packages/somelib/schemas.py"


@records_warnings
def a_test():
    """Files one library deprecation (as marshmallow does inside httpstan) and one package
    warning."""
    warnings.warn_explicit(
        "The 'missing' argument is deprecated.", DeprecationWarning, LIBRARY_FILE, 12
    )
    warnings.warn("rope in other units?", RopeScaleWarning, stacklevel=2)
    return SimpleNamespace()


def test_a_library_deprecation_keeps_its_place_and_the_default_filters_hide_it():
    with warnings.catch_warnings(record=True) as caught:
        # Python's defaults, with this module as the user's __main__ (a notebook, a script):
        # deprecations are shown for the user's code only
        warnings.resetwarnings()
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("default", category=DeprecationWarning, module=__name__)
        result = a_test()
    assert [w.category for w in caught] == [RopeScaleWarning]
    assert caught[0].filename == __file__  # the package's warning at the caller's line
    assert result.issued_warnings == ["rope in other units?"]


def test_a_library_warning_shown_by_the_filters_names_the_library_file():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a_test()
    library = [w for w in caught if w.category is DeprecationWarning]
    assert [(w.filename, w.lineno) for w in library] == [(LIBRARY_FILE, 12)]

"""``python -m bayes_hier``: the ``bayes-hier`` command line."""

import sys

from .cli import main

sys.exit(main())

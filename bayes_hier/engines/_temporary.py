"""A private temporary folder per fit, removed with everything in it once the fit is read."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def private_temporary_folder(prefix: str) -> Iterator[Path]:
    """A new folder in the temporary folder (``tempfile.gettempdir()``), deleted on exit.

    The engines send every file a fit writes there (CmdStan's CSV files, httpstan's sockets),
    so that the temporary folder is left as it was found, also when the fit fails.
    """
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)

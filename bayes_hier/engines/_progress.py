"""One tidy progress bar (tqdm) in place of pystan's console output.

pystan reports sampling progress by writing lines such as ``Sampling:  45% (1800/4000)`` to
``sys.stderr``, among compiler warnings and sampler messages. :class:`ProgressReader` stands
in for ``sys.stderr`` while pystan runs: it reads the iteration counts out of those lines, moves
a tqdm bar, and drops everything else.
"""

from __future__ import annotations

import io
import re
import sys
from typing import TextIO

from tqdm import tqdm

#: "(done/total)" in pystan's "Sampling:  45% (1800/4000)" lines.
_COUNTS = re.compile(r"\((\d+)/(\d+)\)")


class ProgressReader(io.TextIOBase):
    """A text stream that turns pystan's "Sampling: x% (i/n)" lines into one tqdm bar.

    Parameters
    ----------
    show
        Draw the bar; when false the stream only swallows what is written to it.
    output
        Where the bar is drawn (default: ``sys.stderr`` at construction, i.e. before pystan's
        output is redirected here).
    """

    def __init__(self, show: bool, output: TextIO | None = None) -> None:
        super().__init__()
        self.show = show
        self.output = output if output is not None else sys.stderr
        self.bar: tqdm | None = None

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.show:
            for done, total in _COUNTS.findall(text):
                self._advance(int(done), int(total))
        return len(text)

    def _advance(self, done: int, total: int) -> None:
        if self.bar is None:
            self.bar = tqdm(total=total, desc="Sampling", unit="iter", file=self.output, leave=True)
        self.bar.update(max(0, done - self.bar.n))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        super().close()

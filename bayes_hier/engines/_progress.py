"""What the engines show while they work: one progress bar while sampling, one line when a
program is compiled for the first time, and nothing else.

pystan reports sampling progress by writing lines such as ``Sampling:  45% (1800/4000)`` to
``sys.stderr``, among compiler warnings and sampler messages. :class:`ProgressReader` stands
in for ``sys.stderr`` while pystan runs: it reads the iteration counts out of those lines, moves
the bar, and drops everything else. CmdStan reports ``Iteration:  100 / 2000 [  5%]  (Warmup)``
per chain; :func:`chain_progress_hook` adds the chains' counts up into the same single bar.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from tqdm import tqdm

#: "(done/total)" in pystan's "Sampling:  45% (1800/4000)" lines.
_COUNTS = re.compile(r"\((\d+)/(\d+)\)")
#: "Iteration: 100" in CmdStan's lines, "Chain [2] Iteration: 100" when one process runs
#: several chains.
_CHAIN_ITERATION = re.compile(r"(?:Chain \[(\d+)\] )?Iteration:\s+(\d+)")


def announce_compilation(program_name: str, engine: str, duration: str) -> None:
    """Say on ``sys.stderr`` that a program is being compiled (the only line a first fit
    prints besides the progress bar; a compilation takes long enough to need explaining)."""
    print(
        f"bayes_hier: compiling the Stan program {program_name!r} with {engine} "
        f"(first use on this machine; {duration})...",
        file=sys.stderr,
        flush=True,
    )


class ProgressBar:
    """The one sampling progress bar (tqdm, "Sampling", in iterations), drawn on first use.

    Parameters
    ----------
    output
        Where the bar is drawn (default: ``sys.stderr`` when the bar is made).
    """

    def __init__(self, output: TextIO | None = None) -> None:
        self.output = output
        self.bar: tqdm | None = None

    def advance_to(self, done: int, total: int) -> None:
        """Show ``done`` of ``total`` iterations (never moving backwards)."""
        if self.bar is None:
            output = self.output if self.output is not None else sys.stderr
            self.bar = tqdm(total=total, desc="Sampling", unit="iter", file=output, leave=True)
        self.bar.update(max(0, done - self.bar.n))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class ProgressReader(io.TextIOBase):
    """A text stream that turns pystan's "Sampling: x% (i/n)" lines into one bar.

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
        self.progress = ProgressBar(output if output is not None else sys.stderr)

    @property
    def bar(self) -> tqdm | None:
        return self.progress.bar

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.show:
            for done, total in _COUNTS.findall(text):
                self.progress.advance_to(int(done), int(total))
        return len(text)

    def close(self) -> None:
        self.progress.close()
        super().close()


def chain_progress_hook(
    chain_ids: Sequence[int], total: int, output: TextIO | None = None
) -> Callable[[str, int], None]:
    """A progress hook for cmdstanpy: ``hook(line, index)`` per console line of a chain.

    Stands in for cmdstanpy's own hook (one bar per chain). The bar counts the iterations of
    all chains (``len(chain_ids) * total``); the line ``"Done"`` completes and closes it.

    Parameters
    ----------
    chain_ids
        The chains' ids, in the order of the processes (``index`` refers to it).
    total
        Iterations per chain (warm-up and sampling).
    output
        Where the bar is drawn (default: ``sys.stderr``).
    """
    progress = ProgressBar(output)
    done = dict.fromkeys(chain_ids, 0)
    overall = len(done) * total

    def hook(line: str, index: int) -> None:
        if line == "Done":
            progress.advance_to(overall, overall)
            progress.close()
            return
        match = _CHAIN_ITERATION.match(line)
        if match is None:
            return
        chain = int(match.group(1)) if match.group(1) else chain_ids[index]
        done[chain] = max(done.get(chain, 0), int(match.group(2)))
        progress.advance_to(sum(done.values()), overall)

    hook.progress = progress  # type: ignore[attr-defined]
    return hook

"""What every benchmark records next to a wall time: load average, CPU time, machine, commit.

The machine is shared, so a wall time alone says little: :class:`Stopwatch` records the load
average (1 min) at the start and at the end and the CPU time (user + sys) of this process and of
all its descendants (pystan's chain processes, worker pools) over the timed block.

CPU time: ``user + sys`` of this process, plus ``children_user + children_system`` (descendants
that finished and were waited for), plus ``user + sys`` of every descendant still alive, read with
psutil at both ends; the figure is the difference. A descendant that exits without being waited
for by a process of this tree loses its last CPU seconds, so the figure is a lower bound.
"""

from __future__ import annotations

import os
import platform
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent


def load_average() -> float:
    """The 1-minute load average (runnable processes averaged over the last minute)."""
    return os.getloadavg()[0]


def load_averages() -> str:
    """The 1, 5 and 15-minute load averages, as text (``"1.3, 1.1, 0.9"``)."""
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def descendants_cpu_seconds() -> float:
    """CPU seconds (user + sys) of this process's descendants: those still alive (httpstan's
    chain processes stay alive between fits) plus the ended ones it has waited for."""
    import psutil

    me = psutil.Process()
    own = me.cpu_times()
    total = own.children_user + own.children_system
    for child in me.children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:  # exited between listing and reading
            continue
        total += times.user + times.system
    return total


def cpu_seconds() -> float:
    """CPU seconds (user + sys) used so far by this process and its descendants (see module)."""
    import psutil

    own = psutil.Process().cpu_times()
    return own.user + own.system + descendants_cpu_seconds()


@dataclass
class Stopwatch:
    """Wall time, CPU time and load averages of a ``with`` block."""

    wall: float = 0.0
    cpu: float = 0.0
    load_start: float = 0.0
    load_end: float = 0.0
    _started: tuple[float, float] = field(default=(0.0, 0.0), repr=False)

    def __enter__(self) -> Stopwatch:
        self.load_start = load_average()
        self._started = (time.perf_counter(), cpu_seconds())
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self._started[0]
        self.cpu = cpu_seconds() - self._started[1]
        self.load_end = load_average()

    def describe(self) -> str:
        """``12.3 s wall, 20.1 s CPU, load 1.2 -> 3.4``."""
        return (
            f"{self.wall:.1f} s wall, {self.cpu:.1f} s CPU, load {self.load_start:.1f} -> "
            f"{self.load_end:.1f}"
        )


#: The files the benchmarks write (their own outputs): edits to them are not "uncommitted
#: changes" of the code measured, or a run would mark its own rows ``+changes`` from the first
#: file it writes on.
OUTPUTS = ("benchmarks/RESULTS.md", "benchmarks/RESULTS.json", "benchmarks/COMPARE.md")


def compile_programs(names: tuple[str, ...], engine: str = "auto") -> None:
    """Compile (or find cached) the Stan programs ``names`` with ``engine``, so that no timed fit
    includes a compilation (its compiler processes would count as the chains' CPU, and after a
    change of a program its first fit would wait minutes for the compiler)."""
    from bayes_hier.engines import get_engine
    from bayes_hier.stan_programs import load_program

    resolved = get_engine(engine)
    for name in names:
        resolved.compile(load_program(name))


def commit() -> str:
    """The short hash of HEAD, with ``+changes`` when tracked files other than the benchmarks'
    own outputs (:data:`OUTPUTS`) differ from it."""

    def git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", *args], cwd=REPOSITORY, capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    changed = git(
        "status", "--porcelain", "--untracked-files=no", "--", ".", *(f":!{p}" for p in OUTPUTS)
    )
    return head + ("+changes" if changed else "")


def machine() -> str:
    """``x86_64, 2 CPUs, Linux 6.1, Python 3.11.7``."""
    return (
        f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} "
        f"{platform.release().split('-')[0]}, Python {platform.python_version()}"
    )


def now() -> str:
    """UTC date and time, ``2026-11-23 16:20 UTC``."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())

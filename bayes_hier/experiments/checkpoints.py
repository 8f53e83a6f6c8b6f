"""One file per finished task, so that an interrupted run resumes where it stopped.

Every repetition of an experiment is a task ``function(*task)`` whose numbers depend only on its
arguments (each repetition draws from its own seed, :func:`~.runner.repetition_seeds`). Its
result is written to ``folder / "<function>-<digest>.pkl"`` as soon as it finishes, where the
digest is a SHA-256 of the function's name, a canonical encoding of the arguments (settings,
numbers, arrays, data frames) and a ``salt`` naming what else the result depends on (the
experiments use the Stan program's digest). A rerun with the same arguments finds the file and
skips the task; changed settings or a changed Stan program give other digests, so stale results
are never reused. Each file also keeps how many seconds its task ran and how many workers shared
the machine then, so that a run resumed across several sessions can still say how long all of it
took (:class:`TaskTiming`).
Files are written to a temporary name and renamed (atomic on POSIX and Windows), so a run killed
while writing leaves either the whole file or none; an unreadable file is treated as missing and
recomputed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: Settings fields that choose *which* experiments run, not what a task computes.
NOT_PART_OF_A_TASK = ("experiments",)


def canonical(value: Any) -> bytes:
    """A byte encoding of ``value`` that is equal for equal arguments across processes and runs:
    dataclasses by their fields (without :data:`NOT_PART_OF_A_TASK`), mappings by sorted items,
    floats exactly (``float.hex``), arrays by dtype, shape and bytes, pandas objects by their
    labels and :func:`pandas.util.hash_pandas_object`, anything else by ``repr``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {
            f.name: getattr(value, f.name)
            for f in dataclasses.fields(value)
            if f.name not in NOT_PART_OF_A_TASK
        }
        return b"dataclass:" + type(value).__name__.encode() + canonical(fields)
    if isinstance(value, dict):
        items = sorted((canonical(k), canonical(v)) for k, v in value.items())
        return b"{" + b",".join(k + b":" + v for k, v in items) + b"}"
    if isinstance(value, (list, tuple)):
        return b"(" + b",".join(canonical(v) for v in value) + b")"
    if isinstance(value, (float, np.floating)):
        return b"f" + float(value).hex().encode()
    if isinstance(value, np.ndarray):
        contiguous = np.ascontiguousarray(value)
        return b"a" + f"{value.dtype.str}{value.shape}".encode() + contiguous.tobytes()
    if isinstance(value, (pd.DataFrame, pd.Series)):
        labels = list(value.columns) if isinstance(value, pd.DataFrame) else [value.name]
        hashed = pd.util.hash_pandas_object(value, index=True).to_numpy()
        return b"pd" + canonical(labels) + hashed.tobytes()
    return b"r" + repr(value).encode()


def task_digest(function: Callable[..., Any], task: tuple[Any, ...], salt: str = "") -> str:
    """SHA-256 (hex, first 24 characters) of the function's qualified name, its arguments and
    ``salt`` (the empty salt gives the digest of name and arguments alone)."""
    name = f"{function.__module__}.{function.__qualname__}".encode()
    salted = b"|salt:" + salt.encode() if salt else b""
    return hashlib.sha256(name + b"|" + canonical(tuple(task)) + salted).hexdigest()[:24]


@dataclass
class TaskTiming:
    """How many tasks one :class:`Checkpoints` object loaded or saved, and their run times.

    Attributes
    ----------
    tasks
        Tasks loaded (computed by an earlier run) or saved (computed now).
    reused
        Of those, the tasks loaded from an earlier run.
    seconds
        Summed run time of the tasks, each measured in the process that ran it.
    wall_seconds
        Estimated wall time of computing them all: the sum of each task's seconds divided by the
        number of workers that shared the machine while it ran (a task timed while w workers
        competed for the cores took about w times its share of the elapsed time). ``None`` when
        a task's number of workers is unknown (a Dask cluster).
    """

    tasks: int = 0
    reused: int = 0
    seconds: float = 0.0
    wall_seconds: float | None = 0.0

    def add(self, seconds: float, workers: int | None, *, reused: bool) -> None:
        self.tasks += 1
        self.reused += int(reused)
        self.seconds += seconds
        if self.wall_seconds is not None and workers:
            self.wall_seconds += seconds / workers
        else:
            self.wall_seconds = None

    @classmethod
    def combined(cls, timings: Iterable[TaskTiming]) -> TaskTiming:
        """The timing of all the tasks of ``timings`` together (wall time unknown if any is)."""
        total = cls()
        for timing in timings:
            total.tasks += timing.tasks
            total.reused += timing.reused
            total.seconds += timing.seconds
            if total.wall_seconds is None or timing.wall_seconds is None:
                total.wall_seconds = None
            else:
                total.wall_seconds += timing.wall_seconds
        return total


#: The keys of a checkpoint file's record (``workers`` may be missing: ``None``).
RECORD_KEYS = {"result", "seconds", "workers"}


class Checkpoints:
    """The finished results of the tasks of one experiment, one pickle file per task.

    Parameters
    ----------
    folder
        Created when the first result is saved.
    salt
        Part of every task's digest: what the results depend on besides the task's arguments.

    Attributes
    ----------
    timing
        The run times of the tasks this object has loaded or saved (:class:`TaskTiming`),
        whichever run computed them.
    """

    def __init__(self, folder: str | os.PathLike[str], salt: str = "") -> None:
        self.folder = Path(folder)
        self.salt = salt
        self.timing = TaskTiming()

    def path(self, function: Callable[..., Any], task: tuple[Any, ...]) -> Path:
        return self.folder / f"{function.__name__}-{task_digest(function, task, self.salt)}.pkl"

    def load(self, function: Callable[..., Any], task: tuple[Any, ...]) -> tuple[bool, Any]:
        """``(True, result)`` when the task finished in an earlier run, else ``(False, None)``
        (also for a file that cannot be read, or of another layout: the task then runs again)."""
        path = self.path(function, task)
        try:
            with path.open("rb") as handle:
                record = pickle.load(handle)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ValueError):
            return False, None
        if not (isinstance(record, dict) and {"result", "seconds"} <= record.keys() <= RECORD_KEYS):
            return False, None
        self.timing.add(float(record["seconds"]), record.get("workers"), reused=True)
        return True, record["result"]

    def save(
        self,
        function: Callable[..., Any],
        task: tuple[Any, ...],
        result: Any,
        seconds: float = 0.0,
        workers: int | None = 1,
    ) -> None:
        """Write the result, its task's run time in ``seconds`` and the number of ``workers``
        that shared the machine meanwhile (``None``: unknown) atomically (a temporary file in the
        same folder, then a rename)."""
        path = self.path(function, task)
        record = {"result": result, "seconds": float(seconds), "workers": workers}
        self.timing.add(float(seconds), workers, reused=False)
        self.folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".partial-", suffix=".pkl")
        try:
            with os.fdopen(handle, "wb") as stream:
                pickle.dump(record, stream, protocol=pickle.HIGHEST_PROTOCOL)
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise

    def __len__(self) -> int:
        return len(list(self.folder.glob("[!.]*.pkl"))) if self.folder.is_dir() else 0

    def __repr__(self) -> str:
        return f"Checkpoints({str(self.folder)!r}, salt={self.salt!r})"


__all__ = ["Checkpoints", "TaskTiming", "canonical", "task_digest"]

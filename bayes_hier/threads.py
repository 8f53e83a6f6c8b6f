"""Array work cut into independent blocks and run on threads of this process.

numpy's element-wise loops, sorts, FFTs and batched linear algebra release the GIL, so blocks of
a large array computation run on threads in parallel on a machine's cores without copying the
arrays to other processes. The results never depend on the number of threads: each block's
result depends on that block alone (and on the random stream it is given, if any).
"""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Callable, Iterable
from typing import TypeVar

#: At most this many threads by default (the post-processing of one fit; the machines in view
#: have 2 to 8 cores, and more threads than blocks of useful size only add overhead).
MAX_THREADS = 4

Block = TypeVar("Block")
Result = TypeVar("Result")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def default_threads(blocks: int) -> int:
    """One thread per usable core, at most :data:`MAX_THREADS` and at most one per block."""
    return max(1, min(usable_cores(), MAX_THREADS, blocks))


def map_on_threads(
    function: Callable[[Block], Result], blocks: Iterable[Block], threads: int
) -> list[Result]:
    """``[function(block) for block in blocks]`` on ``threads`` threads (in this thread for 1);
    results in the blocks' order, the first exception raised here."""
    if threads <= 1:
        return [function(block) for block in blocks]
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return list(pool.map(function, blocks))


__all__ = ["MAX_THREADS", "default_threads", "map_on_threads", "usable_cores"]

"""Run blocking calls that start their own asyncio loop, also inside Jupyter.

pystan calls :func:`asyncio.run`, which refuses to start while another loop runs in the same
thread, as it always does in a Jupyter kernel. Rather than patching asyncio globally
(``nest_asyncio``), such calls are run in a worker thread, which has no loop of its own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def loop_is_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_outside_event_loop(function: Callable[[], T]) -> T:
    """Call ``function()`` here, or in a worker thread if an event loop runs in this thread."""
    if not loop_is_running():
        return function()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function).result()

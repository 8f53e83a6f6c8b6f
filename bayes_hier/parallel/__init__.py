"""Running independent tasks in this process, in local worker processes or on a Dask cluster.

:func:`make_executor` chooses the executor, :func:`run_tasks` runs the tasks on it (results in
task order, optionally saved as they finish so that an interrupted run resumes), and
:func:`register_process_cleanup` lets a library that starts processes of its own (a Stan engine's
chain processes) stop them when a worker ends. Nothing here depends on what the tasks compute.
"""

from .executors import (
    InlineExecutor,
    LocalProcessPool,
    ParallelWarning,
    make_executor,
    unguarded_main_line,
    workers_can_start,
)
from .processes import (
    TERMINATE_TIMEOUT,
    descendants,
    end_with_parent,
    register_process_cleanup,
    run_process_cleanups,
    terminate_tree,
)
from .tasks import (
    RESTARTS,
    TaskStore,
    WorkerLostError,
    progress_bar_class,
    run_tasks,
    timed_call,
    workers_of,
)

__all__ = [
    "RESTARTS",
    "TERMINATE_TIMEOUT",
    "InlineExecutor",
    "LocalProcessPool",
    "ParallelWarning",
    "TaskStore",
    "WorkerLostError",
    "descendants",
    "end_with_parent",
    "make_executor",
    "progress_bar_class",
    "register_process_cleanup",
    "run_process_cleanups",
    "run_tasks",
    "terminate_tree",
    "timed_call",
    "unguarded_main_line",
    "workers_can_start",
    "workers_of",
]

"""Memory of one real-data fit (issue 13, target 7) and what the main process holds.

One fit (nbc vs hnb, 4 x 1000 draws after 1000 warm-up, pystan, compiled model from the cache)
runs in a fresh interpreter; this process samples it and all its descendants (pystan's chain
processes) every ``INTERVAL`` seconds from ``/proc/PID/smaps_rollup``:

* **RSS** (resident set size) counts every resident page of a process, also the pages it shares
  with others: the chain processes are forked from the main process and share its pages copy-on-
  write, so a sum of RSS counts those pages once per process (an upper bound of the memory used);
* **PSS** (proportional set size) divides each shared page by the number of processes that map
  it, so the sum of PSS over the processes is the memory they use together.

Reported: the peak over the samples of the sum over processes of each (the figure of the target:
the PSS sum), and the peak of each process (``VmHWM``-like, from the samples).

What the main process holds: its RSS after ``import bayes_hier`` against a bare interpreter, the
heavy packages that import loads, and ``python -X importtime`` cumulative times of them.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.measure import REPOSITORY, now
from benchmarks.summary import Measured, Row, met

INTERVAL = 0.05
TARGET_MIB = 256.0
HEAVY = (
    "numpy",
    "scipy",
    "pandas",
    "xarray",
    "arviz",
    "matplotlib",
    "stan",
    "httpstan",
    "statsmodels",
    "cmdstanpy",
    "jinja2",
    "aiohttp",
    "tqdm",
)

_FIT = """
import time, warnings
warnings.simplefilter("ignore")
from bayes_hier import CVData, hierarchical_test
from bayes_hier.examples import load_uci_weka
cv = CVData.from_frame(load_uci_weka(), models=("nbc", "hnb"))
print("ready", flush=True)
time.sleep(0.5)
start = time.perf_counter()
hierarchical_test(cv, rope=0.01, seed=1, draws=1000, warmup=1000, chains=4, engine="pystan")
print("done", time.perf_counter() - start, flush=True)
time.sleep(0.5)
"""

_RSS_AFTER = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
status = open("/proc/self/status").read()
print(int(status.split("VmRSS:")[1].split()[0]))
print(" ".join(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def smaps_rollup(pid: int) -> tuple[int, int] | None:
    """(RSS, PSS) of a process in KiB, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None
    values = dict(re.findall(r"^(Rss|Pss):\s+(\d+) kB", text, re.MULTILINE))
    return int(values["Rss"]), int(values["Pss"])


@dataclass
class MemoryTrace:
    """Peaks of the sampled sums and of each process (KiB)."""

    peak_rss_sum: int = 0
    peak_pss_sum: int = 0
    rss: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    pss: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    main_pid: int = 0
    samples: int = 0
    fit_seconds: float = 0.0

    def sample(self, pids: list[int]) -> None:
        rss_sum = pss_sum = 0
        for pid in pids:
            values = smaps_rollup(pid)
            if values is None:
                continue
            rss_sum += values[0]
            pss_sum += values[1]
            self.rss[pid] = max(self.rss[pid], values[0])
            self.pss[pid] = max(self.pss[pid], values[1])
        self.peak_rss_sum = max(self.peak_rss_sum, rss_sum)
        self.peak_pss_sum = max(self.peak_pss_sum, pss_sum)
        self.samples += 1


def trace_fit() -> MemoryTrace:
    """Run :data:`_FIT` in a fresh interpreter and sample it and its descendants."""
    import psutil

    process = subprocess.Popen(
        [sys.executable, "-c", _FIT], cwd=REPOSITORY, stdout=subprocess.PIPE, text=True
    )
    trace = MemoryTrace(main_pid=process.pid)
    assert process.stdout is not None
    process.stdout.readline()  # "ready": imports done, data loaded
    parent = psutil.Process(process.pid)
    while process.poll() is None:
        try:
            pids = [process.pid, *(c.pid for c in parent.children(recursive=True))]
        except psutil.Error:
            break
        trace.sample(pids)
        time.sleep(INTERVAL)
    output = process.stdout.read()
    match = re.search(r"done ([\d.]+)", output)
    trace.fit_seconds = float(match.group(1)) if match else float("nan")
    return trace


def rss_after_import(*modules: str) -> tuple[int, str]:
    """(VmRSS in KiB, the heavy packages loaded) of a fresh interpreter after these imports."""
    output = subprocess.run(
        [sys.executable, "-c", _RSS_AFTER.format(heavy=HEAVY), *modules],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return int(output[0]), output[1] if len(output) > 1 else ""


def import_times(module: str = "bayes_hier") -> dict[str, float]:
    """``python -X importtime -c 'import module'``: per heavy package (and ``module``), the
    largest cumulative time (s) of one of its entries (the package or a submodule: the first
    import of a package may be a small ``__init__`` and the cost in a submodule)."""
    stderr = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    times: dict[str, float] = {}
    for line in stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s*(\S+)", line)
        if match is None:
            continue
        package = match.group(2).split(".")[0]
        if package in (*HEAVY, module):
            times[package] = max(times.get(package, 0.0), int(match.group(1)) / 1e6)
    return times


def mib(kib: int) -> str:
    return f"{kib / 1024:.0f} MiB"


def memory_benchmark() -> Measured:
    """Markdown lines of the memory section and the row of target 7."""
    trace = trace_fit()
    bare, _ = rss_after_import()
    package, loaded = rss_after_import("bayes_hier")
    singles = {
        name: rss_after_import(name)[0]
        for name in ("numpy", "pandas", "scipy.stats", "matplotlib.pyplot", "arviz", "stan")
    }
    times = import_times()
    chains = [pid for pid in trace.rss if pid != trace.main_pid]
    lines = [
        "## Memory of one real-data fit (target 7)",
        "",
        f"Measured {now()} (`benchmarks/memory.py`): nbc vs hnb, 4 x 1000 draws after 1000 "
        f"warm-up, pystan, in a fresh interpreter ({trace.fit_seconds:.1f} s), sampled every "
        f"{INTERVAL} s ({trace.samples} samples) from `/proc/PID/smaps_rollup`.",
        "",
        "| | main process | each chain process | sum over processes (peak) |",
        "|---|---:|---:|---:|",
        f"| RSS (shared pages counted once per process) | {mib(trace.rss[trace.main_pid])} | "
        f"{', '.join(mib(trace.rss[p]) for p in chains) or '-'} | {mib(trace.peak_rss_sum)} |",
        f"| PSS (shared pages divided among the processes) | {mib(trace.pss[trace.main_pid])} | "
        f"{', '.join(mib(trace.pss[p]) for p in chains) or '-'} | "
        f"**{mib(trace.peak_pss_sum)}** |",
        "",
        "What the main process holds before any fit (RSS of a fresh interpreter after the "
        "import; `python -X importtime` of `import bayes_hier`: the largest cumulative time of "
        "an entry of the package):",
        "",
        "| import | RSS | import time (s) |",
        "|---|---:|---:|",
        f"| (bare interpreter) | {mib(bare)} | - |",
        f"| `bayes_hier` | {mib(package)} | {times.get('bayes_hier', float('nan')):.2f} |",
        *(
            f"| `{name}` alone | {mib(kib)} | {times[name.split('.')[0]]:.2f} |"
            if name.split(".")[0] in times
            else f"| `{name}` alone | {mib(kib)} | (not imported by bayes_hier) |"
            for name, kib in singles.items()
        ),
        "",
        f"* `import bayes_hier` loads: {loaded}.",
        "",
    ]
    figure = (
        f"PSS sum {mib(trace.peak_pss_sum)}; RSS sum {mib(trace.peak_rss_sum)} (main "
        f"{mib(trace.rss[trace.main_pid])} RSS, {len(chains)} chain processes)"
    )
    return Measured(lines, [Row(7, figure, met(trace.peak_pss_sum / 1024 <= TARGET_MIB))])


if __name__ == "__main__":
    print("\n".join(memory_benchmark().lines))

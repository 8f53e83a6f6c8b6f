"""Memory of one real-data fit (performance target 7) and what the main process holds.

One fit (nbc vs hnb, 4 x 1000 draws after 1000 warm-up, pystan, compiled model from the cache)
runs in a fresh interpreter; this process samples it and all its descendants (pystan's chain
processes) every ``INTERVAL`` seconds from ``/proc/PID/smaps_rollup``:

* **RSS** (resident set size) counts every resident page of a process, also the pages it shares
  with others: the chain processes are forked from the main process and share its pages copy-on-
  write, so a sum of RSS counts those pages once per process (an upper bound of the memory used);
* **PSS** (proportional set size) divides each shared page by the number of processes that map
  it, so the sum of PSS over the processes is the memory they use together (the target's
  figure); shared libraries' pages are divided with unrelated processes that map them too;
* **PSS of anonymous pages** leaves out mapped files, and **USS** counts only the pages of one
  process alone (a lower bound of the sum).

Reported: the peak over the samples of the sum over processes of each, and the peak of each
process; the main process's RSS at the stages of the fit's script (imports, pystan, data, fit).

What the main process holds: its RSS after ``import bayes_hier`` against a bare interpreter and
after single heavy imports, the heavy packages that import loads, and ``python -X importtime``
cumulative times of them.
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

#: The measures read from smaps_rollup, in the order of the report.
MEASURES = {
    "RSS": "resident pages, shared ones counted once per process that maps them",
    "PSS": "shared pages divided among the processes that map them",
    "PSS of anonymous pages": "the PSS of heap and stack only, not of mapped files",
    "USS": "pages of this process alone (Private_Clean + Private_Dirty)",
}

_FIT = """
import time, warnings
warnings.simplefilter("ignore")

def rss():
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0])

stages = [("interpreter", rss())]
from bayes_hier import CVData, hierarchical_test
from bayes_hier.examples import load_uci_weka
stages.append(("import bayes_hier", rss()))
import stan
stages.append(("import stan (pystan, httpstan)", rss()))
cv = CVData.from_frame(load_uci_weka(), models=("nbc", "hnb"))
stages.append(("real data loaded", rss()))
print("ready", flush=True)
time.sleep(0.5)
start = time.perf_counter()
result = hierarchical_test(
    cv, rope=0.01, seed=1, draws=1000, warmup=1000, chains=4, engine="pystan"
)
seconds = time.perf_counter() - start
stages.append(("after the fit (result held)", rss()))
peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0])
stages.append(("peak (VmHWM)", peak))
print("done", seconds, flush=True)
print("stages", repr(stages), flush=True)
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


def smaps_rollup(pid: int) -> dict[str, int] | None:
    """The :data:`MEASURES` of a process in KiB, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None
    values = {k: int(v) for k, v in re.findall(r"^(\w+):\s+(\d+) kB", text, re.MULTILINE)}
    return {
        "RSS": values["Rss"],
        "PSS": values["Pss"],
        "PSS of anonymous pages": values.get("Pss_Anon", 0),
        "USS": values["Private_Clean"] + values["Private_Dirty"],
    }


@dataclass
class MemoryTrace:
    """Peaks (KiB) over the samples: of the sum over processes, and of each process."""

    peak_sum: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MEASURES, 0))
    peak: dict[str, dict[int, int]] = field(
        default_factory=lambda: {m: defaultdict(int) for m in MEASURES}
    )
    main_pid: int = 0
    samples: int = 0
    fit_seconds: float = 0.0
    stages: list[tuple[str, int]] = field(default_factory=list)

    def sample(self, pids: list[int]) -> None:
        sums = dict.fromkeys(MEASURES, 0)
        for pid in pids:
            values = smaps_rollup(pid)
            if values is None:
                continue
            for measure, value in values.items():
                sums[measure] += value
                self.peak[measure][pid] = max(self.peak[measure][pid], value)
        for measure, value in sums.items():
            self.peak_sum[measure] = max(self.peak_sum[measure], value)
        self.samples += 1


def trace_fit() -> MemoryTrace:
    """Run :data:`_FIT` in a fresh interpreter and sample it and its descendants."""
    import ast

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
    stages = re.search(r"stages (.*)", output)
    trace.stages = ast.literal_eval(stages.group(1)) if stages else []
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
        for name in ("numpy", "pandas", "scipy.stats", "matplotlib.pyplot", "xarray", "arviz")
    }
    times = import_times()
    main = trace.main_pid
    chains = [pid for pid in trace.peak["RSS"] if pid != main]
    lines = [
        "## Memory of one real-data fit (target 7)",
        "",
        f"Measured {now()} (`benchmarks/memory.py`): nbc vs hnb, 4 x 1000 draws after 1000 "
        f"warm-up, pystan, in a fresh interpreter ({trace.fit_seconds:.1f} s), it and its "
        f"descendants sampled every {INTERVAL} s ({trace.samples} samples) from "
        "`/proc/PID/smaps_rollup`. Peaks over the samples; the sum's peak is the largest sum at "
        "one sample. The chain processes are forked from the main process and share its pages; "
        "a PSS also divides pages of shared libraries with unrelated processes that map them "
        "(other Python processes of the same environment on a shared machine), which the PSS of "
        "anonymous pages does not.",
        "",
        "| measure | main process | each chain process | sum over processes |",
        "|---|---:|---:|---:|",
        *(
            f"| {measure} ({meaning}) | {mib(trace.peak[measure][main])} | "
            f"{', '.join(mib(trace.peak[measure][p]) for p in chains) or '-'} | "
            f"{'**' if measure == 'PSS' else ''}{mib(trace.peak_sum[measure])}"
            f"{'**' if measure == 'PSS' else ''} |"
            for measure, meaning in MEASURES.items()
        ),
        "",
        "Resident size (VmRSS) of the main process at each stage of the fit's script:",
        "",
        "| stage | RSS |",
        "|---|---:|",
        *(f"| {stage} | {mib(kib)} |" for stage, kib in trace.stages),
        "",
        "What `import bayes_hier` costs (RSS of a fresh interpreter after the import; "
        "`python -X importtime` of `import bayes_hier`: the largest cumulative time of an entry "
        "of the package):",
        "",
        "| import | RSS | import time within `import bayes_hier` (s) |",
        "|---|---:|---:|",
        f"| (bare interpreter) | {mib(bare)} | - |",
        f"| `bayes_hier` | {mib(package)} | {times.get('bayes_hier', float('nan')):.2f} |",
        *(
            f"| `{name}` alone | {mib(kib)} | "
            + (f"{times[name.split('.')[0]]:.2f} |" if name.split(".")[0] in times else "- |")
            for name, kib in singles.items()
        ),
        "",
        f"* `import bayes_hier` loads: {loaded}.",
        "",
    ]
    figure = (
        f"PSS sum {mib(trace.peak_sum['PSS'])} (RSS sum {mib(trace.peak_sum['RSS'])}, USS sum "
        f"{mib(trace.peak_sum['USS'])}; main {mib(trace.peak['PSS'][main])} PSS, "
        f"{len(chains)} chain processes)"
    )
    return Measured(lines, [Row(7, figure, met(trace.peak_sum["PSS"] / 1024 <= TARGET_MIB))])


if __name__ == "__main__":
    print("\n".join(memory_benchmark().lines))

"""The table of the performance targets at the top of ``benchmarks/RESULTS.md``.

Each benchmark returns, next to its Markdown section, the :class:`Row` of the target it
measures. The rows are kept in a JSON file next to the report (``benchmarks/RESULTS.json``), one
per target with the date, the commit, the engine and the load average of the run that measured
it, so that a run of some sections (``--only``) replaces their rows and keeps the others; the
table is rewritten from that file after every section and says for every row when and at which
commit it was measured.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchmarks.measure import commit, load_average, now

#: The performance targets: number -> (short name, the target as stated).
TARGETS = {
    1: ("Real-data fit (pystan)", ">= 100x baycomp's HierarchicalTest (~1 s; milestone 2 s)"),
    "1b": ("Real-data fit (cmdstanpy)", "<= 0.5 s"),
    2: ("Robust over E1-E4", "0 divergences and R-hat <= 1.01 on every setting"),
    3: ("Whole simulation study", "E1-E4 <= 30 min, E1-E6 <= 60 min on 2 cores"),
    4: ("Resumable", "an interrupted run resumes to identical numbers; no orphans"),
    5: ("Dask", "multi-process LocalCluster tested; documented"),
    6: ("Signed-rank", "linear in q up to 4 000; >= 50x baycomp at q = 300"),
    7: ("Memory of one real-data fit", "<= 0.25 GiB, main process plus chain processes"),
    8: ("16 models x 132 data sets x 4 folds", "120 pairs <= 3 min; joint model <= 3 min"),
    "8b": (
        "Joint model on the real data (5 x 54 x 100)",
        "<= 30 s on 2 cores; 0 divergences, R-hat <= 1.01",
    ),
    9: (
        "Rank models (Bradley-Terry, Plackett-Luce)",
        "<= 10 s each on the real data and 16 x 132 x 4; 0 divergences, R-hat <= 1.01",
    ),
}


@dataclass
class Row:
    """One target's measured figure, whether the target is met, and where it came from."""

    target: int | str
    figure: str
    status: str
    engine: str = "pystan"
    measured: str = field(default_factory=now)
    commit: str = field(default_factory=commit)
    load: float = field(default_factory=load_average)

    def cells(self) -> list[str]:
        name, goal = TARGETS[self.target]
        return [
            str(self.target),
            name,
            self.figure,
            goal,
            f"**{self.status}**" if self.status in ("met", "not met") else self.status,
            f"{self.measured}, `{self.commit}`, {self.engine}, load {self.load:.1f}",
        ]


@dataclass
class Measured:
    """What one benchmark section returns: its Markdown lines and the rows of its targets."""

    lines: list[str]
    rows: list[Row] = field(default_factory=list)


def met(condition: bool) -> str:
    return "met" if condition else "not met"


def load_rows(path: Path) -> dict[str, Row]:
    if not path.exists():
        return {}
    return {key: Row(**value) for key, value in json.loads(path.read_text()).items()}


def save_rows(rows: list[Row], path: Path) -> dict[str, Row]:
    """Replace the stored rows of these targets; returns all stored rows."""
    stored = load_rows(path)
    stored.update({str(row.target): row for row in rows})
    path.write_text(json.dumps({k: asdict(v) for k, v in stored.items()}, indent=1) + "\n")
    return stored


def table_lines(rows: dict[str, Row], machine: str) -> list[str]:
    """The Markdown table of all targets in the issue's order (a row not yet measured says so)."""
    lines = [
        "## Performance targets",
        "",
        f"Machine: {machine}. Each row: the figure, the target, and the date (UTC), commit, engine "
        "and 1-minute load average of the run that measured it (`+changes`: uncommitted edits). "
        "Details in the sections below.",
        "",
        "| # | target | measured | goal | status | measured at |",
        "|---|---|---|---|---|---|",
    ]
    for key in TARGETS:
        row = rows.get(str(key))
        if row is None:
            name, goal = TARGETS[key]
            lines.append(f"| {key} | {name} | not measured yet | {goal} | - | - |")
        else:
            lines.append("| " + " | ".join(row.cells()) + " |")
    return [*lines, ""]

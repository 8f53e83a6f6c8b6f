"""Keep a full ``make paper`` run as the results of record: ``paper/`` and the README's summary.

``python -m bayes_hier.experiments.record [--results results] [--to paper] [--readme README.md]``
copies the report, the run times and the tables and figures of a *full* run (all six experiments
at the paper's sizes, the files listed in its ``run_times.json``) from ``results/`` to ``paper/``,
and rewrites the block of the README between ``BEGIN`` and ``END``: the run time, every number
the paper states next to the reproduced one (``bayes_hier.experiments.side_by_side``) and
Table 5 of the paper next to the reproduction. Every number in that block is read from the
record's files. ``REPORT.md`` of the record gets the same side-by-side table as its last
section.

``--update`` takes a full-mode run of *some* experiments (``--only e5``) instead: its files
replace theirs in the existing record, its experiments' sections replace theirs in
``REPORT.md`` (and their rows of the run-time table), ``run_times.json`` takes their times and
lists the update under ``updates``; the rest of the record is kept.

``--refresh`` (no run) rebuilds the side-by-side section of the record's ``REPORT.md`` and the
README's block from the record itself, after a change of the comparison.

The new record and the README's new block are built (in a folder beside the old record) before
anything is replaced; ``paper/`` is replaced in one rename, and the README by a rename too, so a
failure leaves the old record as it was.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from .checkpoints import TaskTiming
from .e6_real_data import PAPER_CSV as TABLE5_CSV
from .paper_values import CITATION
from .report import RUN_TIMES, markdown_table, timing_from_record
from .side_by_side import side_by_side, side_by_side_markdown

BEGIN = "<!-- paper-record:begin (written by python -m bayes_hier.experiments.record) -->"
END = "<!-- paper-record:end -->"
#: The side-by-side section of the record's REPORT.md.
SIDE_BY_SIDE = "## Side by side with the paper"
EXPERIMENTS = ("e1", "e2", "e3", "e4", "e5", "e6")
#: The simulation study (its run time is recorded apart from the rest).
SIMULATION = ("e1", "e2", "e3", "e4")
#: Tables the record must hold: the README's Table 5 and the benchmark's robustness table.
REQUIRED = (TABLE5_CSV, *(f"e{k}_repetitions.csv" for k in range(1, 5)))


class NotARecordError(ValueError):
    """A folder does not hold a complete full-size run, or the record cannot be written."""


def load_run_times(folder: Path, complete: bool = True) -> dict:
    """The run times of the run in ``folder``, which must be a complete full run with the tables
    the record needs (:class:`NotARecordError` otherwise). ``complete=False`` accepts a full-mode
    run of some of the experiments (an update of the record)."""
    path = Path(folder) / RUN_TIMES
    if not path.is_file():
        raise NotARecordError(
            f"{path} is missing: run `make paper` (it writes the report and its run times) first."
        )
    times = json.loads(path.read_text(encoding="utf-8"))
    if not complete:
        if times["mode"] != "full" or not times["experiments"]:
            raise NotARecordError(
                f"{folder} holds a {times['mode']} run of {sorted(times['experiments'])}: an "
                "update of the record comes from a full-mode run (`--full --only ...`)."
            )
        return times
    missing = [key for key in EXPERIMENTS if key not in times["experiments"]]
    if times["mode"] != "full" or missing:
        raise NotARecordError(
            f"{folder} holds a {times['mode']} run"
            + (f" without {', '.join(missing)}" if missing else "")
            + ": the results of record come from `make paper` (full mode, all six experiments)."
        )
    absent = [name for name in ("REPORT.md", *REQUIRED) if not (Path(folder) / name).is_file()]
    if absent:
        raise NotARecordError(f"{folder} lacks {', '.join(absent)}: run `make paper` again.")
    return times


def hours(seconds: float | None) -> str:
    """``1.23 h`` from an hour on, else ``12.3 min``; ``unknown`` for ``None``."""
    if seconds is None:
        return "unknown"
    return f"{seconds / 3600:.2f} h" if round(seconds / 60, 1) >= 60 else f"{seconds / 60:.1f} min"


def recorded_timing(times: dict, keys: tuple[str, ...] = EXPERIMENTS) -> TaskTiming:
    """The timing of the experiments ``keys`` of a run's ``run_times.json``, together."""
    return TaskTiming.combined(timing_from_record(times["experiments"][key]) for key in keys)


def run_time_sentence(times: dict) -> str:
    """When and where the run was made, and how long its repetitions took: summed and as
    estimated wall time (``checkpoints.TaskTiming``), for E1-E4, E5, E6 and all."""
    parts = {"E1-E4": SIMULATION, "E5": ("e5",), "E6": ("e6",), "all": EXPERIMENTS}
    timings = {name: recorded_timing(times, keys) for name, keys in parts.items()}
    summed = ", ".join(f"{name} {hours(t.seconds)}" for name, t in timings.items())
    wall = ", ".join(f"{name} {hours(t.wall_seconds)}" for name, t in timings.items())
    where = f"Dask scheduler {times['scheduler']}" if times["scheduler"] else (
        f"{times['jobs']} local worker processes"
    )  # fmt: skip
    updates = "".join(
        f" {', '.join(key.upper() for key in update['experiments'])} rerun "
        f"{update['generated']} ({update['jobs']} local worker processes)."
        for update in times.get("updates", [])
    )
    return (
        f"Generated {times['generated']} on {times['machine']} ({where}; {times['chains']} "
        f"chains x {times['draws']} draws after {times['warmup']} warm-up per fit).{updates} "
        f"Summed run time of the repetitions (each timed in its worker): {summed}. Estimated "
        f"wall time (each repetition's time divided by the workers sharing the machine): "
        f"**{wall}**."
    )


def side_by_side_lines(folder: Path) -> list[str]:
    """The side-by-side table (``bayes_hier.experiments.side_by_side``) for the record in
    ``folder``, with its legend and a count of the numbers beyond Monte Carlo error."""
    frame = side_by_side(folder)
    beyond = frame[frame["beyond Monte Carlo error"] == "yes"]
    return [
        f"Every number that {CITATION} states for its experiments (Table 2, the text of sections "
        "4.3 and 4.7, Tables 5 and 6) next to the reproduction: difference = reproduced − paper; "
        "Monte Carlo sd of the reproduction; beyond Monte Carlo error when |difference| > 2 sd + "
        "half a unit of the paper's last printed digit (the paper's own Monte Carlo error, not "
        f"stated, comes on top). {len(beyond)} of {len(frame)} numbers differ beyond it; each "
        "has its reason. Sign of E5 as in the paper: δ = acc(LDA) − acc(CART).",
        "",
        side_by_side_markdown(frame),
    ]


def readme_block(folder: Path, record_name: str = "paper") -> str:
    """The README's block from the record in ``folder``, kept in ``record_name/``: the run time,
    the side-by-side table of E1-E5 (E6's numbers summarised; its Table 5 follows in full)."""
    times = load_run_times(folder)
    table = pd.read_csv(Path(folder) / TABLE5_CSV, dtype={"paper signed-rank p": str})
    frame = side_by_side(folder)
    simulations = frame[frame["experiment"] != "E6"]
    e6 = frame[frame["experiment"] == "E6"]
    beyond = frame[frame["beyond Monte Carlo error"] == "yes"]
    e6_sentence = (
        f"E6: the {len(e6)} numbers of Tables 5 and 6 differ from the paper's by at most "
        f"{e6['difference'].abs().max():.3f}; "
        f"{(e6['beyond Monte Carlo error'] == 'yes').sum()} beyond Monte Carlo error (Table 5 "
        "below)."
        if len(e6)
        else "E6: not in this record."
    )
    return "\n".join(
        [
            BEGIN,
            f"Results of record: `{record_name}/` (`REPORT.md`, one CSV per table, one PNG per "
            "figure, "
            "`run_times.json`), copied from a full `make paper` run. " + run_time_sentence(times),
            "",
            f"The numbers {CITATION} states for its simulations (Table 2, sections 4.3 and 4.7), "
            "next to the reproduction: difference = reproduced − paper; beyond Monte Carlo error "
            "when |difference| > 2 Monte Carlo sd + half a unit of the paper's last printed digit "
            f"({len(beyond)} of all {len(frame)} stated numbers, E6 included; each with its "
            "reason). Sign of E5 as in the paper: δ = acc(LDA) − acc(CART). "
            f"`{record_name}/REPORT.md` has the full table.",
            "",
            side_by_side_markdown(simulations),
            "",
            e6_sentence,
            "",
            f"Table 5 (next-data-set probabilities) and Table 6 (signed-rank p-values) of "
            f"{CITATION}, next to the reproduction (E6; the paper's 'left' is 'second better'):",
            "",
            markdown_table(table),
            END,
        ]
    )


def replace_block(text: str, block: str) -> str:
    """``text`` with the part from ``BEGIN`` to the next ``END`` replaced by ``block``."""
    start = text.find(BEGIN)
    end = text.find(END, start) if start >= 0 else -1
    if start < 0 or end < 0:
        raise NotARecordError(f"the README has no block between {BEGIN!r} and {END!r}")
    return text[:start] + block + text[end + len(END) :]


def _check_separate(source: Path, target: Path) -> None:
    source, target = source.resolve(), target.resolve()
    if source == target or source in target.parents or target in source.parents:
        raise NotARecordError(
            f"the record ({target}) must be a folder of its own, neither the run's folder "
            f"({source}) nor inside or around it"
        )


def _build_and_swap(
    target: Path, build: Callable[[Path], None], built: Callable[[Path], None] | None = None
) -> list[Path]:
    """Fill a temporary folder beside ``target`` with ``build(staging)``, call ``built(staging)``
    (which may still refuse the new record by raising), then rename the folder to ``target`` (the
    old folder, if any, is renamed away first and deleted after)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        build(staging)
        if built is not None:
            built(staging)
        if target.exists():
            old = target.with_name(f".{target.name}-old")
            shutil.rmtree(old, ignore_errors=True)
            target.rename(old)
            staging.rename(target)
            shutil.rmtree(old)
        else:
            staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return sorted(target.iterdir())


def copy_results(
    source: Path, target: Path, times: dict, built: Callable[[Path], None] | None = None
) -> list[Path]:
    """Replace ``target`` by a copy of the run's report, run times and listed files, built in a
    temporary folder beside it and renamed into place; the report gets the side-by-side
    section. ``built`` sees the new record before it replaces the old one."""
    source, target = Path(source), Path(target)
    _check_separate(source, target)

    def build(staging: Path) -> None:
        for name in ("REPORT.md", RUN_TIMES, *times["files"]):
            shutil.copy2(source / name, staging / name)
        add_side_by_side(staging)

    return _build_and_swap(target, build, built)


def report_sections(text: str) -> list[str]:
    """``REPORT.md`` cut before every level-2 heading (the first part is the header)."""
    return re.split(r"(?m)^(?=## )", text)


def add_side_by_side(folder: Path) -> None:
    """Put the side-by-side section (:func:`side_by_side_lines`) at the end of
    ``folder/REPORT.md``, replacing an earlier one."""
    path = folder / "REPORT.md"
    kept = [
        part
        for part in report_sections(path.read_text(encoding="utf-8"))
        if not part.startswith(SIDE_BY_SIDE)
    ]
    text = "".join(kept).rstrip("\n") + "\n\n"
    path.write_text(
        text + "\n".join([SIDE_BY_SIDE, "", *side_by_side_lines(folder), ""]), encoding="utf-8"
    )


def _experiment_of(section: str) -> str:
    """``e5`` for a section headed ``## E5: ...`` (or ``## E5``); ``""`` for the header."""
    if not section.startswith("## "):
        return ""
    return section.splitlines()[0][3:].split(":", 1)[0].strip().lower()


def merged_report(old: str, new: str, keys: list[str], times: dict) -> str:
    """The record's ``REPORT.md`` (``old``) with the sections and run-time rows of the
    experiments ``keys`` taken from a rerun's report (``new``), a line naming the rerun in the
    header and the total of the run times recomputed from the merged ``times``."""
    fresh = {_experiment_of(part): part for part in report_sections(new)}
    rows = {
        line.split("|")[1].strip(): line
        for line in new.splitlines()
        if line.startswith("| e") and line.split("|")[1].strip() in keys
    }
    parts = []
    for part in report_sections(old):
        heading = _experiment_of(part)
        if heading in keys and heading in fresh:
            part = fresh[heading].rstrip("\n") + "\n\n"
        elif not part.startswith("## "):
            update = times["updates"][-1]
            part = part.rstrip("\n") + (
                f"\n* Update {update['generated']}: {', '.join(k.upper() for k in keys)} rerun "
                f"in full mode ({update['jobs']} local job(s)); their sections and run-time rows "
                "below come from that run, the rest from the run above.\n\n"
            )
        elif part.startswith("## Run times"):
            lines = [rows.get(line.split("|")[1].strip(), line) if line.startswith("| e")
                     else line for line in part.splitlines()]  # fmt: skip
            part = "\n".join(lines) + "\n"
            total = recorded_timing(times)
            part = re.sub(
                r"All repetitions: [0-9.]+ min summed, about [0-9.a-z]+ min of wall time\.",
                f"All repetitions: {total.seconds / 60:.1f} min summed, about "
                + ("unknown" if total.wall_seconds is None else f"{total.wall_seconds / 60:.1f}")
                + " min of wall time.",
                part,
            )
        parts.append(part)
    return "".join(parts)


def update_results(
    source: Path, target: Path, built: Callable[[Path], None] | None = None
) -> list[Path]:
    """Replace, in the record ``target``, the experiments of the full-mode run in ``source``
    (files, report sections, run times; see the module docstring). ``built`` sees the new record
    before it replaces the old one."""
    source, target = Path(source), Path(target)
    _check_separate(source, target)
    new = load_run_times(source, complete=False)
    old = load_run_times(target)
    keys = sorted(new["experiments"])
    merged = {**old, "experiments": {**old["experiments"], **new["experiments"]}}
    merged["files"] = sorted(set(old["files"]) | set(new["files"]))
    update = {k: new[k] for k in ("generated", "machine", "jobs", "scheduler", "seconds")}
    merged["updates"] = [*old.get("updates", []), {**update, "experiments": keys}]

    def build(staging: Path) -> None:
        for path in target.iterdir():
            shutil.copy2(path, staging / path.name)
        for name in new["files"]:
            shutil.copy2(source / name, staging / name)
        report = merged_report(
            (target / "REPORT.md").read_text(encoding="utf-8"),
            (source / "REPORT.md").read_text(encoding="utf-8"),
            keys,
            merged,
        )
        (staging / "REPORT.md").write_text(report, encoding="utf-8")
        (staging / RUN_TIMES).write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
        add_side_by_side(staging)

    return _build_and_swap(target, build, built)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it over ``path``."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)
    os.replace(temporary, path)


def refresh_record(target: Path, built: Callable[[Path], None] | None = None) -> list[Path]:
    """Rebuild the side-by-side section of the record's ``REPORT.md`` (the rest is kept)."""
    target = Path(target)
    load_run_times(target)

    def build(staging: Path) -> None:
        for path in target.iterdir():
            shutil.copy2(path, staging / path.name)
        add_side_by_side(staging)

    return _build_and_swap(target, build, built)


def record(results: Path | None, to: Path, readme: Path, update: bool = False) -> list[Path]:
    """Check the run, copy it to ``to`` (``update``: merge it into the record there; no
    ``results``: refresh the record's comparison), then rewrite the README's block from the new
    record."""
    old_text = readme.read_text(encoding="utf-8")
    new_text: list[str] = []

    def built(staging: Path) -> None:  # the README's new text, before the record is replaced
        new_text.append(replace_block(old_text, readme_block(staging, to.name)))

    if results is None:
        copied = refresh_record(to, built)
    elif update:
        copied = update_results(results, to, built)
    else:
        copied = copy_results(results, to, load_run_times(results), built)
    write_atomically(readme, new_text[0])
    return copied


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bayes_hier.experiments.record")
    parser.add_argument("--results", default="results", help="the run's folder (default results)")
    parser.add_argument(
        "--refresh",
        action="store_true",
        help="no run: rebuild the record's side-by-side table and the README block",
    )
    parser.add_argument("--to", default="paper", help="where the record goes (default paper)")
    parser.add_argument("--readme", default="README.md", help="README to update")
    parser.add_argument(
        "--update",
        action="store_true",
        help="merge a full-mode run of some experiments (--only) into the existing record",
    )
    args = parser.parse_args(argv)
    if args.refresh and args.update:
        parser.error("--refresh rebuilds the record from itself; --update merges a run: not both")
    try:
        results = None if args.refresh else Path(args.results)
        copied = record(results, Path(args.to), Path(args.readme), args.update)
    except NotARecordError as error:
        parser.error(str(error))
    print(f"Copied {len(copied)} files to {args.to}/ and updated {args.readme}.")
    return 0


__all__ = [
    "NotARecordError",
    "add_side_by_side",
    "copy_results",
    "load_run_times",
    "main",
    "merged_report",
    "readme_block",
    "record",
    "recorded_timing",
    "refresh_record",
    "replace_block",
    "run_time_sentence",
    "side_by_side_lines",
    "update_results",
    "write_atomically",
]


if __name__ == "__main__":
    raise SystemExit(main())

"""Performance targets 4 (resumable) and 5 (Dask) are properties, not timings: the benchmark
runs their tests (``tests/test_experiments.py``) with pytest in this run and reports each test's
outcome (passed / failed / skipped, and its duration) from pytest's JUnit XML report.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from benchmarks.measure import REPOSITORY, now
from benchmarks.summary import Measured, Row

TEST_FILE = "tests/test_experiments.py"
#: target -> the tests that show it.
TESTS = {
    4: (
        "test_checkpoint_digest_ignores_only_the_choice_of_experiments",
        "test_checkpoints_round_trip_and_unreadable_files",
        "test_interrupted_tasks_resume_with_identical_results",
        "test_interrupted_experiment_resumes_to_the_uninterrupted_numbers",
        "test_a_lost_local_worker_is_replaced_and_the_run_goes_on",
        "test_a_worker_lost_again_and_again_stops_with_a_message",
        "test_ctrl_c_leaves_no_orphan_processes",
    ),
    5: (
        "test_dask_multiprocess_cluster_gives_the_same_numbers",
        "test_lost_dask_worker_is_rescheduled",
    ),
}


def run_tests(names: list[str]) -> dict[str, tuple[str, float]]:
    """``{test name (with parameters): (outcome, seconds)}`` of one pytest run of these tests."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.xml"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                f"--junitxml={report}",
                TEST_FILE,
                "-k",
                " or ".join(names),
            ],
            cwd=REPOSITORY,
            capture_output=True,
            text=True,
        )
        if not report.exists():
            return {}
        outcomes = {}
        for case in ElementTree.parse(report).iter("testcase"):
            if case.find("skipped") is not None:
                outcome = "skipped"
            elif case.find("failure") is not None or case.find("error") is not None:
                outcome = "failed"
            else:
                outcome = "passed"
            outcomes[case.get("name", "?")] = (outcome, float(case.get("time", "nan")))
        return outcomes


def tested_benchmark() -> Measured:
    """Section and rows of targets 4 and 5."""
    outcomes = run_tests([name for names in TESTS.values() for name in names])
    lines = [
        "## Resumable and Dask (targets 4 and 5): their tests in this run",
        "",
        f"Run {now()}: `pytest {TEST_FILE} -k ...` (`benchmarks/tested.py`).",
        "",
        "| target | test | outcome | seconds |",
        "|---|---|---|---:|",
    ]
    rows = []
    for target, names in TESTS.items():
        mine = {k: v for k, v in outcomes.items() if k.split("[")[0] in names}
        lines += [f"| {target} | `{k}` | {o} | {s:.1f} |" for k, (o, s) in mine.items()]
        missing = [n for n in names if not any(k.split("[")[0] == n for k in mine)]
        lines += [f"| {target} | `{n}` | not collected | - |" for n in missing]
        passed = sum(o == "passed" for o, _ in mine.values())
        figure = f"{passed} of {len(mine) + len(missing)} tests passed in this run"
        if target == 5:
            figure += " (the documentation is not checked here)"
        ok = passed == len(mine) + len(missing)
        status = (
            "met (tested)"
            if ok
            else "not met: "
            + ", ".join([k for k, (o, _) in mine.items() if o != "passed"] + missing)
        )
        rows.append(Row(target, figure, status))
    return Measured([*lines, ""], rows)


if __name__ == "__main__":
    print("\n".join(tested_benchmark().lines))

"""The paper's published numbers next to the reproduction, and the results of record (paper/)."""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pandas as pd
import pytest

from bayes_hier.experiments import record
from bayes_hier.experiments.checkpoints import TaskTiming
from bayes_hier.experiments.paper_values import (
    OUTCOMES,
    paper_table2,
    paper_table5,
    table2_next_to_paper,
    table5_next_to_paper,
)
from bayes_hier.experiments.report import RUN_TIMES, write_report
from bayes_hier.experiments.runner import ExperimentOutput, Settings


def test_paper_tables_are_probability_vectors_and_cover_the_e6_pairs():
    table = paper_table5()
    assert len(table) == 2 * len(Settings.full().e6_pairs)
    pairs = set(zip(table["first"], table["second"]))
    assert pairs == set(Settings.full().e6_pairs)
    # printed with two decimals: each row sums to 1 up to rounding
    np.testing.assert_allclose(table[list(OUTCOMES)].sum(axis=1), 1.0, atol=0.011)
    assert list(paper_table2()["q"]) == list(Settings.full().e1_q)


def e6_rows(left: float, rope: float, right: float) -> pd.DataFrame:
    """An E6 table in the package convention (p_left = first better) for every pair/variant."""
    rows = [
        {"first": a, "second": b, "variant": v, "p_left": left, "p_rope": rope, "p_right": right}
        | {"wilcoxon_p": 0.5}
        for a, b in Settings.full().e6_pairs
        for v in ("hierarchical", "juarez-steel", "sigma100")
    ]
    return pd.DataFrame(rows)


def test_table5_names_the_outcomes_in_both_conventions():
    """The package's p_right (d = second - first > rope) is the paper's left (second better)."""
    beside = table5_next_to_paper(e6_rows(0.1, 0.2, 0.7))
    assert len(beside) == 12  # the sigma100 rows are not in the paper's Table 5
    np.testing.assert_allclose(beside["reproduced second better"], 0.7)
    np.testing.assert_allclose(beside["reproduced first better"], 0.1)
    row = beside[(beside["pair"] == "nbc vs j48") & (beside["nu prior"] == "hierarchical")]
    # paper: second better 0.80, rope 0.02, first better 0.18
    assert row["max abs difference"].item() == pytest.approx(max(0.1, 0.18, 0.08))
    assert row["paper signed-rank p"].item() == "0.46"


def test_table2_joins_on_q():
    ours = pd.DataFrame({"q": [5, 10], "reps": [3, 3], "mse_mle": [4e-4, 3e-4]})
    ours["mse_shrinkage"] = [2e-4, 1e-4]
    beside = table2_next_to_paper(ours)
    assert list(beside["q"]) == [5, 10]
    assert list(beside["paper MSE of shrinkage"]) == [0.00017, 0.00014]
    assert list(beside["reproduced MSE of the MLE"]) == [4e-4, 3e-4]


def full_results(folder, mode="full", keys=record.EXPERIMENTS, scheduler=None):
    """A results folder as a full run leaves it: report, run times, tables, a figure, and a
    stale file of an earlier run that must not be copied."""
    folder.mkdir(exist_ok=True)
    (folder / "stale_quick_table.csv").write_text("old\n")
    started = time.time() + 1  # files written after this belong to the run
    os.utime(folder / "stale_quick_table.csv", (started - 100, started - 100))
    table5_next_to_paper(e6_rows(0.1, 0.2, 0.7)).to_csv(folder / record.TABLE5_CSV, index=False)
    for k in range(1, 5):
        frame = pd.DataFrame({"q": [5], "delta0": [0.02], "divergences": 0, "max_rhat": 1.0})
        frame.to_csv(folder / f"e{k}_repetitions.csv", index=False)
    (folder / "e4_power.png").write_bytes(b"png")
    for path in folder.iterdir():
        if path.name != "stale_quick_table.csv":
            os.utime(path, (started + 1, started + 1))
    outputs = [
        ExperimentOutput(
            key, key.upper(), "d", seconds=1.0, timing=TaskTiming(10, 2, 3600.0 * (i + 1), 1800.0)
        )
        for i, key in enumerate(keys)
    ]
    settings = Settings.full(mode=mode)
    write_report(
        folder, outputs, settings, engine="pystan", seconds=6.0, jobs=2, started=started,
        scheduler=scheduler,
    )  # fmt: skip
    (folder / "checkpoints").mkdir(exist_ok=True)
    return folder


def run_record(tmp_path, results, readme):
    arguments = ["--results", str(results), "--to", str(tmp_path / "paper")]
    return record.main([*arguments, "--readme", str(readme)])


def test_record_copies_the_run_and_writes_the_readme_block(tmp_path):
    results = full_results(tmp_path / "results")
    readme = tmp_path / "README.md"
    readme.write_text(f"# title\n\n{record.BEGIN}\nold text\n{record.END}\n\n## next\n")
    (tmp_path / "paper").mkdir()
    (tmp_path / "paper" / "from_an_older_record.csv").write_text("x\n")
    assert run_record(tmp_path, results, readme) == 0
    copied = sorted(p.name for p in (tmp_path / "paper").iterdir())
    tables = [record.TABLE5_CSV, *(f"e{k}_repetitions.csv" for k in range(1, 5))]
    assert copied == sorted(["REPORT.md", RUN_TIMES, "e4_power.png", *tables])
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left
    text = readme.read_text()
    assert text.startswith("# title\n\n" + record.BEGIN) and text.endswith(
        record.END + "\n\n## next\n"
    )
    assert "old text" not in text
    # summed: E1-E4 1 + 2 + 3 + 4 hours; E5 5 h; E6 6 h; all 21 h; wall 0.5 h per experiment
    assert "E1-E4 10.00 h, E5 5.00 h, E6 6.00 h, all 21.00 h" in text
    assert "**E1-E4 2.00 h, E5 30.0 min, E6 30.0 min, all 3.00 h**" in text
    assert "4 chains x 1000 draws after 1000 warm-up" in text and "2 local worker" in text
    assert "| nbc vs j48 | hierarchical | 0.8 | 0.7 |" in text and "| < 0.005 |" in text
    # the block's header row and rule have as many cells as its rows
    rows = [line for line in text.splitlines() if line.startswith("| nbc vs j48 |")]
    header = next(line for line in text.splitlines() if line.startswith("| pair |"))
    assert header.count("|") == rows[0].count("|")
    assert run_record(tmp_path, results, readme) == 0 and readme.read_text() == text  # idempotent


@pytest.mark.parametrize(
    ("mode", "keys", "message"),
    [("quick", record.EXPERIMENTS, "holds a quick run"), ("full", ("e1", "e6"), "without e2")],
)
def test_record_refuses_what_is_not_a_full_run(tmp_path, capsys, mode, keys, message):
    results = full_results(tmp_path / "results", mode=mode, keys=keys)
    readme = tmp_path / "README.md"
    readme.write_text(f"{record.BEGIN}\n{record.END}\n")
    with pytest.raises(SystemExit):
        run_record(tmp_path, results, readme)
    assert message in capsys.readouterr().err
    assert (
        not (tmp_path / "paper").exists()
        and readme.read_text() == f"{record.BEGIN}\n{record.END}\n"
    )


def test_record_refuses_missing_tables_and_overlapping_folders(tmp_path):
    results = full_results(tmp_path / "results")
    readme = tmp_path / "README.md"
    readme.write_text(f"{record.BEGIN}\n{record.END}\n")
    with pytest.raises(record.NotARecordError, match="must be a folder of its own"):
        record.record(results, results / "paper", readme)
    with pytest.raises(record.NotARecordError, match="must be a folder of its own"):
        record.record(results, results, readme)
    (results / record.TABLE5_CSV).unlink()
    with pytest.raises(record.NotARecordError, match=r"lacks e6_paper_table5\.csv"):
        record.record(results, tmp_path / "paper", readme)
    assert (results / "REPORT.md").is_file() and not (tmp_path / "paper").exists()


def test_readme_without_its_block_is_an_error_and_blocks_are_found_in_order():
    with pytest.raises(record.NotARecordError, match="no block"):
        record.replace_block("text", "block")
    text = f"{record.END}\n{record.BEGIN}\nold\n{record.END}\n"
    assert record.replace_block(text, "new") == f"{record.END}\nnew\n"
    assert record.hours(3599.9) == "1.00 h" and record.hours(59.0) == "1.0 min"


def test_run_times_json_holds_each_experiments_times(tmp_path):
    results = full_results(tmp_path / "results")
    times = json.loads((results / RUN_TIMES).read_text())
    assert times["mode"] == "full" and times["jobs"] == 2 and times["seconds"] == 6.0
    assert (times["chains"], times["draws"], times["warmup"]) == (4, 1000, 1000)
    assert times["experiments"]["e3"] == {
        "this_run_seconds": 1.0,
        "tasks": 10,
        "reused": 2,
        "task_seconds": 3 * 3600.0,
        "wall_seconds": 1800.0,
    }
    assert "stale_quick_table.csv" not in times["files"] and "e4_power.png" in times["files"]


def test_a_dask_run_is_recorded_without_a_wall_time(tmp_path):
    results = full_results(tmp_path / "results", scheduler="tcp://host:8786")
    times = json.loads((results / RUN_TIMES).read_text())
    for value in times["experiments"].values():
        value["wall_seconds"] = None
    (results / RUN_TIMES).write_text(json.dumps(times))
    sentence = record.run_time_sentence(record.load_run_times(results))
    assert "Dask scheduler tcp://host:8786" in sentence and "all unknown" in sentence


def test_benchmark_targets_2_and_3_read_the_run_of_record(tmp_path):
    """Target 2 counts divergences and R-hat over every recorded fit of E1-E4; target 3 divides
    the summed repetition times by the number of workers."""
    from benchmarks.robustness import recorded_robustness, recorded_run_times

    assert recorded_run_times(tmp_path / "none") is None
    folder = full_results(tmp_path / "paper")
    for key, column, values in (("e1", "q", [5, 10]), ("e2", "q", [10]), ("e3", "q", [10])):
        frame = pd.DataFrame({column: values * 2, "divergences": 0, "max_rhat": 1.004})
        frame.to_csv(folder / f"{key}_repetitions.csv", index=False)
    e4 = pd.DataFrame({"delta0": [0.015, 0.03], "divergences": [0, 3], "max_rhat": [1.02, 1.0]})
    e4.to_csv(folder / "e4_repetitions.csv", index=False)
    times = recorded_run_times(folder)
    assert times["jobs"] == 2 and times["experiments"]["e6"]["wall_seconds"] == 1800.0
    lines, row = recorded_robustness(folder)
    assert row.figure.startswith("3 divergences, max R-hat 1.0200, R-hat > 1.01 in 1 of 10 fits")
    assert "not met" in row.status
    assert "| E4 | delta0 = 0.03 | 1 | 1 | 3 | 1.0000 | 0 |" in lines


# ------------------------------------------------------------------ side by side with the paper
def simulation_tables(folder, shrinkage_q50=6e-5):
    """E1, E3 and E5 tables with known numbers (E5: d = tree − LDA, the package's sign)."""
    folder.mkdir(exist_ok=True)
    e1 = pd.DataFrame(
        {
            "q": [5] * 4 + [50] * 4,
            "rep": list(range(4)) * 2,
            "mse_mle": [3.5e-4, 3.7e-4, 3.6e-4, 3.6e-4] * 2,
            "mse_shrinkage": [1.7e-4] * 4 + [shrinkage_q50] * 4,
        }
    )
    e1.to_csv(folder / "e1_repetitions.csv", index=False)
    e3 = pd.DataFrame(
        {
            "q": [50] * 4 + [10],
            "p_rope": [0.99, 0.5, 0.97, 0.2, 0.99],
            "wilcoxon_p": [0.01, 0.5, 0.5, 0.5, 0.01],
        }
    )
    e3.to_csv(folder / "e3_repetitions.csv", index=False)
    truth = pd.DataFrame({"delta": [-0.05, -0.02, 0.0, 0.01], "sd": 0.0, "reps": 500})
    truth.to_csv(folder / "e5_friedman.csv", index=False)
    reps = pd.DataFrame(
        {
            "p_left": [0.97, 0.9, 0.6, 0.1],
            "p_right": [0.0, 0.0, 0.1, 0.0],
            "wilcoxon_p": [0.01, 0.2, 0.03, 0.9],
            "favoured": ["left", "left", "left", "rope"],
            "evidence": ["strong", "positive", "weak", "positive"],
            "mse_mle": [4e-3, 4e-3, 2e-3, 2e-3],
            "mse_shrinkage": [1e-3, 2e-3, 1e-3, 2e-3],
        }
    )
    reps.to_csv(folder / "e5_repetitions.csv", index=False)
    return folder


def test_side_by_side_reads_every_stated_number(tmp_path):
    from bayes_hier.experiments.side_by_side import REASONS, side_by_side, side_by_side_markdown

    frame = side_by_side(simulation_tables(tmp_path / "run")).set_index("quantity")
    assert len(frame) == 4 + 2 + 8  # Table 2 at q = 5 and 50, E3's two, E5's eight
    mle5 = frame.loc["Table 2: MSE of the MLE, q = 5"]
    assert mle5["reproduced"] == pytest.approx(3.6e-4)
    assert mle5["Monte Carlo sd"] == pytest.approx(np.std([3.5, 3.7, 3.6, 3.6], ddof=1) * 1e-4 / 2)
    assert mle5["beyond Monte Carlo error"] == "no" and mle5["reason"] == ""
    shrunk50 = frame.loc["Table 2: MSE of the shrinkage, q = 50"]
    assert shrunk50["difference"] == pytest.approx(6e-5 - 1.2e-4)
    assert shrunk50["beyond Monte Carlo error"] == "yes"
    assert shrunk50["reason"] == REASONS["e1_shrinkage"]
    # E3 at q = 50 only: 1 of 4 rejections, 2 of 4 with P(rope) > 0.95
    signed_rank = frame.loc["signed-rank rejection rate at q = 50 (α = 0.05)"]
    assert signed_rank["reproduced"] == 0.25
    # Laplace: p = (1 + 1) / (4 + 2) = 1/3, sd = sqrt(p (1 - p) / 4)
    assert signed_rank["Monte Carlo sd"] == pytest.approx(np.sqrt(2 / 9 / 4))
    assert frame.loc["share of runs with P(rope) > 0.95 at q = 50", "reproduced"] == 0.5
    # E5 in the paper's sign: LDA − tree = 0.05, 0.02, 0, −0.01 → mean 0.015, 2 of 4 right
    assert frame.loc["ground truth: mean of the 54 δ_i (LDA − CART)", "reproduced"] == (
        pytest.approx(0.015)
    )
    right = frame.loc["ground truth: share of the δ_i right of the rope (LDA better)"]
    assert right["reproduced"] == 0.5 and right["Monte Carlo sd"] == 0
    assert frame.loc["power of the hierarchical test (P > 0.95)", "reproduced"] == 0.25
    assert frame.loc["power of the signed-rank test (α = 0.05)", "reproduced"] == 0.5
    assert frame.loc["strong evidence for LDA (posterior odds > 20)", "reproduced"] == 0.25
    positive = "positive evidence for LDA (3 < odds <= 20), in addition"
    assert frame.loc[positive, "reproduced"] == 0.25
    rope = frame.loc["positive or strong evidence for the rope (an error)", "reproduced"]
    assert rope == 0.25
    # 1 − (1 + 2 + 1 + 2) / (4 + 4 + 2 + 2) = 0.5
    assert frame.loc["MSE reduction of shrinkage against the MLE", "reproduced"] == 0.5
    # This truth table has no tree column: a record of the unpruned tree, whose E5 gaps share
    # one reason; the markdown names each reason once, below the table.
    assert right["beyond Monte Carlo error"] == "yes"
    assert right["reason"] == REASONS["e5_unpruned"]
    text = side_by_side_markdown(side_by_side(tmp_path / "run"))
    table, legend = text.split("\n\nReasons:\n\n")
    assert table.count("\n") == 1 + 14 and "| E5 | power of the hierarchical test" in table
    assert legend.count(REASONS["e5_unpruned"]) == 1 and legend.startswith("1. ")
    assert "| yes | (1) |" in table


def test_side_by_side_names_no_reason_it_has_not_found(tmp_path):
    from bayes_hier.experiments.side_by_side import e5_tree, side_by_side

    folder = simulation_tables(tmp_path / "run")
    truth = pd.read_csv(folder / "e5_friedman.csv").assign(tree="rpart")
    truth.to_csv(folder / "e5_friedman.csv", index=False)
    assert e5_tree(folder) == "rpart"
    frame = side_by_side(folder).set_index("quantity")
    row = frame.loc["positive evidence for LDA (3 < odds <= 20), in addition"]
    assert row["beyond Monte Carlo error"] == "no"  # 0.25 against 0.33 with 4 repetitions
    right = frame.loc["ground truth: share of the δ_i right of the rope (LDA better)"]
    assert right["beyond Monte Carlo error"] == "yes" and right["reason"] == "not investigated"


def test_side_by_side_leaves_out_what_a_folder_lacks(tmp_path):
    from bayes_hier.experiments.side_by_side import side_by_side

    folder = tmp_path / "partial"
    folder.mkdir()
    pd.DataFrame({"q": [5], "divergences": [0]}).to_csv(folder / "e1_repetitions.csv")
    assert side_by_side(folder).empty and side_by_side(tmp_path / "none").empty


def test_update_merges_a_rerun_of_one_experiment_into_the_record(tmp_path):
    results = full_results(tmp_path / "results")
    readme = tmp_path / "README.md"
    readme.write_text(f"# title\n\n{record.BEGIN}\n{record.END}\n")
    assert run_record(tmp_path, results, readme) == 0
    paper = tmp_path / "paper"
    report_before = (paper / "REPORT.md").read_text()
    assert report_before.count(record.SIDE_BY_SIDE) == 1
    # A full-mode rerun of E5 alone, with its own tables and longer run time.
    rerun = tmp_path / "rerun"
    rerun.mkdir()
    simulation_tables(rerun)
    started = time.time() - 1
    outputs = [
        ExperimentOutput("e5", "E5: new", "rerun text", seconds=2.0,
                         timing=TaskTiming(20, 0, 7200.0, 3600.0))
    ]  # fmt: skip
    write_report(rerun, outputs, Settings.full(experiments=("e5",)), engine="pystan",
                 seconds=2.0, jobs=1, started=started)  # fmt: skip
    with pytest.raises(SystemExit):  # without --update, a partial run is no record
        run_record(tmp_path, rerun, readme)
    arguments = ["--results", str(rerun), "--to", str(paper), "--readme", str(readme)]
    assert record.main([*arguments, "--update"]) == 0
    times = json.loads((paper / RUN_TIMES).read_text())
    assert times["experiments"]["e5"]["task_seconds"] == 7200.0
    assert times["experiments"]["e1"]["task_seconds"] == 3600.0  # kept
    assert [u["experiments"] for u in times["updates"]] == [["e5"]]
    assert "e5_friedman.csv" in times["files"] and "e4_power.png" in times["files"]
    report = (paper / "REPORT.md").read_text()
    assert "## E5: new\n\nrerun text" in report and "## E4\n\nd" in report
    assert "| e5 | E5: new |" in report and "| e4 | E4 |" in report
    assert "Update " in report and "E5 rerun in full mode (1 local job(s))" in report
    # summed minutes: e1-e4 and e6 as before (1+2+3+4+6 hours) plus the new 2 hours
    assert "All repetitions: 1080.0 min summed" in report
    assert report.count(record.SIDE_BY_SIDE) == 1
    assert "| E5 | power of the signed-rank test (α = 0.05) | 28 % | 0.500 |" in report
    text = readme.read_text()
    assert "E5 rerun " in text and "| E5 | MSE reduction of shrinkage against the MLE" in text
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    # --refresh rebuilds the comparison from the record alone and changes nothing else.
    files = {p.name: p.read_bytes() for p in paper.iterdir()}
    head, _ = report.split(record.SIDE_BY_SIDE)
    (paper / "REPORT.md").write_text(f"{head}{record.SIDE_BY_SIDE}\n\nan outdated table\n")
    refresh = ["--refresh", "--to", str(paper), "--readme", str(readme)]
    assert record.main(refresh) == 0
    assert {p.name: p.read_bytes() for p in paper.iterdir()} == files
    assert readme.read_text() == text
    with pytest.raises(SystemExit):
        record.main([*refresh, "--update"])

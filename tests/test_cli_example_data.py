"""``bayes-hier example-data``: the shipped example data as CSV, ready for the other commands."""

from __future__ import annotations

import io
import json

import pandas as pd

from bayes_hier.cli import main
from bayes_hier.examples import load_uci_weka


def test_example_data_is_the_shipped_frame_as_csv(capsys):
    assert main(["example-data"]) == 0
    printed = capsys.readouterr()
    frame = pd.read_csv(io.StringIO(printed.out))
    assert list(frame.columns) == ["dataset", "model", "run", "fold", "score"]
    pd.testing.assert_frame_equal(frame, load_uci_weka(), check_dtype=False)
    assert printed.err == ""


def test_example_data_feeds_the_pair_command(tmp_path, capsys):
    """The 30-second start of the README, with the fast signed-rank test: nbc vs hnb on the
    54 data sets, hnb better (the paper's clearest real-data result)."""
    main(["example-data"])
    results = tmp_path / "results.csv"
    results.write_text(capsys.readouterr().out)
    code = main(
        ["pair", str(results), "nbc", "hnb", "--rope", "1", "--method", "signed_rank", "--json"]
    )
    assert code == 0
    [pair] = json.loads(capsys.readouterr().out)["pairs"]
    assert (pair["first"], pair["second"]) == ("nbc", "hnb")
    assert pair["p_second_better"] > 0.95


def test_example_data_takes_no_arguments(capsys):
    assert main(["example-data", "extra"]) == 2
    assert "unrecognized arguments: extra" in capsys.readouterr().err

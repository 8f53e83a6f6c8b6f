"""Inputs of every public function (issue 14): the packaged data, label alignment of pandas
objects, one seed policy, type checks of flags and counts, empty and degenerate inputs, the
baycomp facade's constructors and the package's import graph."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from bayes_hier.examples import find_uci_weka, load_uci_weka, packaged_uci_weka

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_DATA = ROOT.parent / "shared" / "data" / "uci_weka_10x10cv.csv"


# ---------------------------------------------------------------------- item 0: packaged data
def test_packaged_real_data_are_the_reference_file_byte_for_byte():
    if not REFERENCE_DATA.is_file():
        pytest.skip("no ../shared/data beside the checkout to compare with")
    with packaged_uci_weka().open("rb") as handle:
        assert gzip.decompress(handle.read()) == REFERENCE_DATA.read_bytes()


def test_load_uci_weka_without_a_path_reads_the_packaged_copy_from_any_folder(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # no ../shared here
    monkeypatch.delenv("BAYES_HIER_DATA", raising=False)
    frame = load_uci_weka()
    assert list(frame.columns) == ["dataset", "model", "run", "fold", "score"]
    assert frame.shape == (27_000, 5)
    assert frame.groupby("model").size().to_dict() == dict.fromkeys(
        ["aode", "hnb", "j48", "j48gr", "nbc"], 5400
    )
    assert frame["dataset"].nunique() == 54
    assert frame.iloc[0].tolist() == ["anneal", "nbc", 0, 0, 94.444]
    assert str(find_uci_weka()).endswith("bayes_hier/example_data/uci_weka_10x10cv.csv.gz")


def test_load_uci_weka_reads_an_explicit_plain_or_compressed_copy(tmp_path):
    packaged = load_uci_weka()
    raw = packaged.rename(columns={"model": "classifier", "score": "accuracy_percent"})
    raw.to_csv(tmp_path / "uci_weka_10x10cv.csv", index=False)
    pd.testing.assert_frame_equal(load_uci_weka(tmp_path / "uci_weka_10x10cv.csv"), packaged)
    pd.testing.assert_frame_equal(load_uci_weka(tmp_path), packaged)  # a folder holding it
    with packaged_uci_weka().open("rb") as handle:
        (tmp_path / "copy.csv.gz").write_bytes(handle.read())
    pd.testing.assert_frame_equal(load_uci_weka(tmp_path / "copy.csv.gz"), packaged)
    with pytest.raises(FileNotFoundError, match="without a path to read the copy shipped"):
        load_uci_weka(tmp_path / "absent.csv")

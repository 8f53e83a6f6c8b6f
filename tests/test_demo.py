"""`make demo` runs bayes_hier.demo: it prints the summary and writes the plot."""

import pytest

from bayes_hier import demo

pytestmark = pytest.mark.stan


def test_demo_on_simulated_data_when_the_real_data_are_absent(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(demo, "find_uci_weka", lambda path=None: None)
    assert demo.main(["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "simulated example" in out and "Bayesian hierarchical test: B vs A" in out
    assert (tmp_path / "hierarchical_A_vs_B.png").stat().st_size > 10_000


def test_demo_on_the_real_data(uci, tmp_path, capsys):
    assert demo.main(["--out", str(tmp_path), "--first", "j48", "--second", "j48gr"]) == 0
    assert "j48gr vs j48 on 54 data sets" in capsys.readouterr().out

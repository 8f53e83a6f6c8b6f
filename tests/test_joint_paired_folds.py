"""Models lacking some folds on a data set: the paired block the joint model keeps there."""

import numpy as np
import pytest

from bayes_hier.few_fold import few_fold_study
from bayes_hier.joint.data import MultiCVData
from bayes_hier.joint.fit import joint_data
from bayes_hier.joint.paired_folds import paired_block, paired_scores
from bayes_hier.scores import MissingDataWarning, model_scores

NAN = np.nan


def test_paired_block_keeps_the_larger_block():
    late = np.ones((4, 3))
    late[2:, 1] = NAN  # 4 x 2 = 8 scores against 2 x 3 = 6: the model goes
    rows, columns = paired_block(late)
    assert rows.all() and columns.tolist() == [True, False, True]
    one_hole = np.ones((10, 3))
    one_hole[4, 2] = NAN  # 9 x 3 = 27 against 10 x 2 = 20: the fold goes
    rows, columns = paired_block(one_hole)
    assert rows.sum() == 9 and not rows[4] and columns.all()
    tie = np.ones((4, 4))
    tie[2:, 3] = NAN  # 4 x 3 = 12 against 2 x 4 = 8 ... and with one more hole, a tie:
    tie[3, 2] = NAN  # 4 x 2 = 8 against 2 x 4 = 8: the common folds (more models)
    rows, columns = paired_block(tie)
    assert rows.tolist() == [True, True, False, False] and columns.all()
    lone = np.ones((4, 2))
    lone[3, 1] = NAN  # 3 x 2 = 6 against one complete model (no differences): the fold goes
    rows, columns = paired_block(lone)
    assert rows.tolist() == [True, True, True, False] and columns.all()
    absent = np.ones((3, 3))
    absent[:, 0] = NAN  # a model with no score is missing there, not a hole
    rows, columns = paired_block(absent)
    assert rows.all() and columns.tolist() == [False, True, True]


def test_a_block_with_neither_two_folds_nor_two_complete_models_keeps_the_complete_ones():
    """2 models, the second with 1 of 4 folds: 1 common fold, 1 complete model. The complete
    model is kept alone, so the data set then has too few models and is dropped with a warning."""
    block = np.ones((4, 2))
    block[1:, 1] = NAN
    rows, columns = paired_block(block)
    assert rows.all() and columns.tolist() == [True, False]
    frame = few_fold_study(models=2, datasets=4, folds=4, seed=3)
    gone = (frame["dataset"] == "d001") & (frame["model"] == "m01") & (frame["fold"] > 1)
    kept, rho, notes = paired_scores(model_scores(frame[~gone]))
    assert notes == ("d001: m01 lacks 3 of 4 folds; left out there: m01",)
    with pytest.warns(MissingDataWarning, match=r"fewer than 2 models.*'d001'"):
        data = MultiCVData.from_scores(kept, rho=rho)
    assert data.datasets == ("d000", "d002", "d003")
    np.testing.assert_allclose(data.rho, 0.25)


def test_paired_scores_cut_one_data_set_and_keep_its_correlation():
    """A model lacking 2 of 4 folds on one data set is left out there; a model lacking 1 of 10
    folds cuts that fold for every model. ρ stays 1/K of the original design (not 1/n')."""
    frame = few_fold_study(models=4, datasets=5, folds=4, seed=1)
    late = (frame["dataset"] == "d002") & (frame["model"] == "m01") & (frame["fold"] > 2)
    kept, rho, notes = paired_scores(model_scores(frame[~late]))
    np.testing.assert_allclose(rho, 0.25)
    assert notes == ("d002: m01 lacks 2 of 4 folds; left out there: m01",)
    data = MultiCVData.from_scores(kept, rho=rho)
    assert data.observed.sum() == 19 and not data.observed[2, 1] and data.n.tolist() == [4] * 5

    frame = few_fold_study(models=3, datasets=4, folds=10, seed=2)
    hole = (frame["dataset"] == "d001") & (frame["model"] == "m02") & (frame["fold"] == 5)
    kept, rho, notes = paired_scores(model_scores(frame[~hole]), rho=[0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(rho, [0.1, 0.2, 0.3, 0.4])  # as given, per data set
    assert notes == (
        "d001: m02 lacks 1 of 10 folds; used on the 9 folds where every model has a score",
    )
    data = MultiCVData.from_scores(kept, rho=rho)
    assert data.n.tolist() == [10, 9, 10, 10] and data.complete
    wide = frame[frame["dataset"] == "d001"].pivot(index="fold", columns="model", values="score")
    np.testing.assert_array_equal(data.scores[1], wide.drop(index=5).to_numpy())


def test_repeated_cross_validation_is_cut_to_one_run_of_its_common_cells():
    """2 runs x 5 folds, one model lacking run 2's fold 3: the 9 common cells become folds 1..9
    of one run, in (run, fold) order, and ρ stays 1/5 (the folds per run of the design)."""
    frame = few_fold_study(models=3, datasets=3, folds=10, seed=4)
    frame = frame.assign(run=(frame["fold"] - 1) // 5 + 1, fold=(frame["fold"] - 1) % 5 + 1)
    hole = (frame["dataset"] == "d000") & (frame["model"] == "m01")
    hole &= (frame["run"] == 2) & (frame["fold"] == 3)
    kept, rho, notes = paired_scores(model_scores(frame[~hole]))
    np.testing.assert_allclose(rho, 0.2)
    assert notes == (
        "d000: m01 lacks 1 of 10 folds; used on the 9 folds where every model has a score",
    )
    part = kept.table[kept.table["dataset"] == "d000"]
    assert set(part["run"]) == {1} and sorted(set(part["fold"])) == list(range(1, 10))
    data = MultiCVData.from_scores(kept, rho=rho)
    original = frame[frame["dataset"] == "d000"].sort_values(["run", "fold"])
    wide = original.pivot_table(index=["run", "fold"], columns="model", values="score")
    np.testing.assert_array_equal(data.scores[0], wide.drop(index=(2, 3)).to_numpy())
    assert data.n.tolist() == [9, 10, 10]


def test_complete_scores_pass_through_unchanged():
    scores = model_scores(few_fold_study(models=3, datasets=3, folds=4, seed=5))
    kept, rho, notes = paired_scores(scores, rho=0.3)
    assert kept is scores and rho == 0.3 and notes == ()


def test_the_joint_model_warns_what_it_left_out():
    frame = few_fold_study(models=4, datasets=6, folds=4, seed=6)
    late = (frame["dataset"] == "d004") & (frame["model"] == "m03") & (frame["fold"] > 2)
    with pytest.warns(MissingDataWarning, match=r"d004: m03 lacks 2 of 4 folds; left out there"):
        data = joint_data(model_scores(frame[~late]), None, True)
    assert data.observed.sum() == 23 and not data.observed[4, 3]
    np.testing.assert_allclose(data.rho, 0.25)

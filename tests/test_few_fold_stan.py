"""The hierarchical test on pairs of the simulated few-fold base case (5 models x 20 data sets x
4 folds, :func:`bayes_hier.few_fold.few_fold_study`) with the default settings: 0 divergences,
max R-hat <= 1.01 and bulk ESS >= 400 over every element (per-data-set vectors included).

At 4 folds a data set whose precise mean lies far from the others can have a bimodal posterior
(the population's tail against noise), which the scale-mixture coordinates do not cross (study
seed 2, m00 vs m04: R-hat 1.286 there); ``coordinates="auto"`` then samples in two-chart
coordinates (a valley of 8.5 nats there), and in the scale mixture where no data set makes one
deeper than 6 nats (seed 1, m00 vs m01: none). Three pairs of seed 2 still fail (e.g. m01 vs
m04, R-hat 1.025): there the posterior of ν itself has two regimes (ν near 1, and a plateau up
to ν ≈ 30 where the precise outlier is noise), which the chains cross too rarely
(benchmarks/FEW_FOLD.md, not tested here).
"""

import warnings

import pytest

from bayes_hier import hierarchical_test
from bayes_hier.few_fold import few_fold_study

pytestmark = pytest.mark.stan


@pytest.mark.parametrize(
    "seed, pair, coordinates",
    [
        (1, ("m00", "m01"), "scale-mixture"),
        (2, ("m00", "m04"), "two-chart"),
    ],
    ids=["seed1-m00-m01", "seed2-m00-m04"],
)
def test_default_fit_of_the_base_case_converges(engine, seed, pair, coordinates):
    frame = few_fold_study(5, 20, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = hierarchical_test(frame, rope=0.01, models=pair, seed=1, engine=engine)
    assert len(result.model_input.perturbed) >= 2  # the tied data sets are in the fit
    assert result.settings["coordinates"] == coordinates
    assert result.diagnostics["divergences"] == 0
    assert result.diagnostics["max_rhat"] <= 1.01
    assert result.diagnostics["min_ess_bulk"] >= 400

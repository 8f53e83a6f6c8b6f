"""The joint k-model model as a :class:`~bayes_hier.fitting.StanModel`: its program
(``stan/joint.stan``), input, initial values and the completion of its draws."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import arviz as az
import numpy as np
import xarray as xr

from ..fitting.model import StanModel
from .data import MultiCVData
from .model_input import JointModelInput, build_joint_input, initial_values
from .posterior import complete_posterior
from .result import JointResult

#: Variables checked by the diagnostics: every reported quantity (per pair, model, data set).
DIAGNOSED = ("delta0", "sigma0", "mu0", "nu", "nu_alpha", "nu_beta", "mu", "sigma", "tau")


def diagnosed_view(
    idata: az.InferenceData, diagnosed: Sequence[str] = ("sigma", "noise_sd")
) -> az.InferenceData:
    """The posterior with the quantities that exist: ``sigma`` of a pair on a data set where one
    of its models was not run, and ``noise_sd`` of a model not run on a data set, are NaN and are
    left out (the diagnostics would rank NaN). Only the variables in ``diagnosed`` are looked at
    (at 16 models x 132 data sets x 4 000 draws ``sigma`` holds 0.5 GB that the fold-level
    noise's diagnostics do not read)."""
    posterior = idata.posterior
    view = posterior
    for name in ("sigma", "noise_sd"):
        if name not in diagnosed or name not in posterior:
            continue
        if np.isfinite(posterior[name].values).all():  # nothing to leave out
            continue
        cell = f"{name}_cell"
        cells = posterior[name].stack({cell: posterior[name].dims[2:]})
        finite = np.isfinite(cells.values).all(axis=(0, 1))
        values = xr.DataArray(cells.values[..., finite], dims=("chain", "draw", cell))
        view = view.drop_vars(name).assign({name: values})
    if view is posterior:
        return idata
    return az.InferenceData(posterior=view, sample_stats=idata.sample_stats)


class JointModel(StanModel):
    """One hierarchical model of k models on q data sets (see :func:`joint_test`).

    ``joint.stan`` reads sufficient statistics of the contrasts of every data set."""

    name = "joint model"
    program = "joint"
    diagnosed = DIAGNOSED
    result_type = JointResult

    build_input = staticmethod(build_joint_input)
    initial_values = staticmethod(initial_values)

    def coordinates(
        self, data: MultiCVData, model_input: JointModelInput
    ) -> tuple[Mapping[str, Sequence[Any]], Mapping[str, Sequence[str]]]:
        """None: the completion labels the model's quantities itself."""
        return {}, {}

    def complete(
        self,
        idata: az.InferenceData,
        data: MultiCVData,
        model_input: JointModelInput,
        rng: np.random.Generator,
    ) -> az.InferenceData:
        """θ_i drawn from their full conditional; every quantity in the data's units, labelled
        with the models, pairs and data sets (:func:`~.posterior.complete_posterior`)."""
        return complete_posterior(idata, model_input, data.models, data.datasets, rng)

    def diagnosed_view(self, idata: az.InferenceData) -> az.InferenceData:
        return diagnosed_view(idata, self.diagnosed)


def build_fold_input(
    data: MultiCVData, rope: Any, prior: Any, rng: np.random.Generator, **options: Any
) -> JointModelInput:
    """:func:`~.model_input.build_joint_input` with the fold-level noise."""
    return build_joint_input(data, rope, prior, rng, noise="fold", **options)


#: Variables checked by the diagnostics of the fold-level noise: the noise sd σ_im of every model
#: and data set instead of the pairs' √(σ_ia² + σ_ib²), which are functions of them
#: (:func:`~.posterior.fold_pair_noise_sd`): k columns per data set instead of k(k − 1)/2, at 16
#: models and 132 data sets 2 112 instead of 15 840.
FOLD_DIAGNOSED = (*(name for name in DIAGNOSED if name != "sigma"), "noise_sd", "noise_spread")


class FoldNoiseJointModel(JointModel):
    """The joint model with fold-level noise scales (``stan/joint_fold.stan``,
    :mod:`~.fold_noise`): O(k) noise parameters per data set, any number of folds ≥ 2."""

    name = "joint model (fold-level noise)"
    program = "joint_fold"
    diagnosed = FOLD_DIAGNOSED
    # 500 warm-up iterations (Stan's windows of 75 + 25 + 50 + 100 + 200 + 50): measured against
    # 1000 on the 5 x 20 x 4 few-fold study over 8 seeds, the same divergent transitions (1 in
    # 32 000 with either), steps per draw (51.9 against 52.7 on average) and ESS, and at 16 models
    # x 132 data sets x 4 folds the same 31 steps per draw after 24 200-25 900 warm-up leapfrog
    # steps per chain instead of 39 600-42 600 (benchmarks/JOINT_FIT_COST.md)
    warmup = 500

    build_input = staticmethod(build_fold_input)


#: The instances :func:`~bayes_hier.joint.joint_test` fits: full noise covariances and
#: fold-level noise.
JOINT = JointModel()
JOINT_FOLD = FoldNoiseJointModel()

__all__ = [
    "DIAGNOSED",
    "FOLD_DIAGNOSED",
    "JOINT",
    "JOINT_FOLD",
    "FoldNoiseJointModel",
    "JointModel",
    "build_fold_input",
    "diagnosed_view",
]

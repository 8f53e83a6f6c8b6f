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


def diagnosed_view(idata: az.InferenceData) -> az.InferenceData:
    """The posterior with the quantities that exist: ``sigma`` of a pair on a data set where one
    of its models was not run is NaN and is left out (the diagnostics would rank NaN)."""
    posterior = idata.posterior
    if "sigma" not in posterior or np.isfinite(posterior["sigma"].values).all():
        return idata
    cells = posterior["sigma"].stack(cell=("dataset", "pair"))
    finite = np.isfinite(cells.values).all(axis=(0, 1))
    sigma = xr.DataArray(cells.values[..., finite], dims=("chain", "draw", "cell"))
    view = posterior.drop_vars("sigma").assign(sigma=sigma)
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
        return diagnosed_view(idata)


def build_fold_input(
    data: MultiCVData, rope: Any, prior: Any, rng: np.random.Generator, **options: Any
) -> JointModelInput:
    """:func:`~.model_input.build_joint_input` with the fold-level noise."""
    return build_joint_input(data, rope, prior, rng, noise="fold", **options)


class FoldNoiseJointModel(JointModel):
    """The joint model with fold-level noise scales (``stan/joint_fold.stan``,
    :mod:`~.fold_noise`): O(k) noise parameters per data set, any number of folds ≥ 2."""

    name = "joint model (fold-level noise)"
    program = "joint_fold"
    diagnosed = (*DIAGNOSED, "noise_spread")

    build_input = staticmethod(build_fold_input)


#: The instances :func:`~bayes_hier.joint.joint_test` fits: full noise covariances and
#: fold-level noise.
JOINT = JointModel()
JOINT_FOLD = FoldNoiseJointModel()

__all__ = [
    "DIAGNOSED",
    "JOINT",
    "JOINT_FOLD",
    "FoldNoiseJointModel",
    "JointModel",
    "build_fold_input",
    "diagnosed_view",
]

"""The hierarchical model with its deep data sets integrated out by quadrature
(``stan/hierarchical_quadrature.stan``).

Same model as ``stan/hierarchical.stan``; other coordinates, for few-fold designs. With few folds
a data set whose mean is precise and far from the others has two explanations, the population's
tail (δ_i near x̄_i) and noise (δ_i near δ₀, σ_i large), with a valley between them
(:func:`~.mode_valley.dataset_valleys`) that the scale mixture's chains do not cross, and that
the two-chart coordinates (:mod:`.two_chart`) cross at the price of one hard coordinate per data
set. Here a data set whose valley is deeper than :data:`DEEP_NATS` is *integrated out*: the
program adds the log of its marginal likelihood

    m_j = ∫ L_j(δ) P(δ | δ₀, σ₀, ν) dδ

(σ_j and τ_j integrated out in closed form as in the two charts,
:func:`~.two_chart.chart_log_terms`), by :data:`NODES` Gauss-Legendre nodes in the
Cauchy-quantile variable v of each chart, u = tan(π(v − ½)), du = π(1 + u²)dv:

    m_j ≈ Σ_k w_k π (1 + u_k²) [p_A(u_k) + p_B(u_k)],

p_A, p_B the two charts' terms with the weights g_own^c / (g_A^c + g_B^c), c =
:data:`QUADRATURE_SHARPNESS` (:func:`deep_log_marginals` is its NumPy statement). The other data
sets are sampled as in the scale mixture. The sampler then never meets a deep data set's two
explanations. Measured on few-fold studies (``benchmarks/FEW_FOLD.md``): the rule is within
3e-5 to 6e-4 of the exact log m_j at 32 nodes for such data sets (not for all: one whose standard
error is a thousand times σ₀ at ν near 1 needs far more nodes, which is why only the deep ones are
integrated).

:func:`complete_quadrature` turns the draws back into the model's quantities: the sampled data
sets as in the scale mixture, and for each deep data set δ_j from its one-dimensional
conditional p(δ | δ₀, σ₀, ν, data_j) ∝ L_j(δ) P(δ | δ₀, σ₀, ν) (:func:`draw_deep_delta`), then
σ_j and τ_j from their conditionals given δ_j, as in the two charts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import arviz as az
import numpy as np
import xarray as xr
from numpy.typing import ArrayLike
from scipy import special

from ..data import CVData
from ..rope import Rope
from .mode_valley import dataset_valleys
from .model import HierarchicalModel, sampled_dims, scale_mixture_draws, store_completed
from .model_input import HierarchicalPrior, ModelInput
from .model_input import initial_values as scale_mixture_initial_values
from .two_chart import (
    build_two_chart_input,
    chart_log_terms,
    draw_mixing_precision,
    draw_noise_scale,
    standard_errors,
)

#: A data set whose valley between its two explanations is deeper than this (nats) is
#: integrated out. Measured (``benchmarks/FEW_FOLD.md``): at 6 nats a data set of 2.9 to 4.1
#: nats left in the scale mixture split the chains (tail ESS 18); at 2 nats none did.
DEEP_NATS = 2.0
#: Gauss-Legendre nodes per chart of the quadrature.
NODES = 32
#: c of the charts' weights g_own^c / (g_A^c + g_B^c) in the quadrature. Measured: with c = 2 the
#: two-chart rule is within 6e-4 of the exact log m_j at 32 nodes on every deep data set of the
#: few-fold studies.
QUADRATURE_SHARPNESS = 2.0
#: Cells per chart of the grid from which :func:`draw_deep_delta` draws δ_j.
COMPLETION_CELLS = 256
#: The per-data-set entries of the hierarchical program's data.
PER_DATASET = ("n", "rho", "xbar", "ss")


def deep_datasets(model_input: ModelInput, nats: float = DEEP_NATS) -> np.ndarray:
    """Which data sets the quadrature integrates: those whose valley is deeper than ``nats``.

    The valleys are :func:`~.mode_valley.dataset_valleys` of the rescaled means and corrected
    standard errors the program fits. At least one data set stays sampled (the one with the
    shallowest valley): the program's sampled part needs one, and which data sets are integrated
    changes only the sampler's path, not the posterior."""
    data = model_input.data
    valleys = dataset_valleys(data["xbar"], model_input.standard_errors, data["n"])
    deep = valleys > nats
    if deep.all():
        deep[np.argmin(valleys)] = False
    return deep


def subset(data: Mapping[str, Any], keep: np.ndarray) -> dict[str, Any]:
    """The hierarchical program's data restricted to the data sets where ``keep`` is true
    (without the mask of the deep data sets, which the restriction no longer matches)."""
    picked = {name: np.asarray(data[name])[keep] for name in PER_DATASET}
    picked["n"] = [int(v) for v in picked["n"]]
    rest = {name: value for name, value in data.items() if name != "deep"}
    return {**rest, **picked, "q": int(np.sum(keep))}


def cauchy_quantile_nodes(nodes: int = NODES) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes v_k on (0, 1) mapped to u_k = tan(π(v_k − ½)), and log w_k."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    return np.tan(np.pi * 0.5 * x), np.log(0.5 * w)


def deep_log_marginals(
    data: Mapping[str, Any],
    delta0: float,
    sigma0: float,
    nu: float,
    nodes: int = NODES,
    sharpness: float = QUADRATURE_SHARPNESS,
) -> np.ndarray:
    """log m_j of every data set of ``data`` by the program's quadrature (module docstring),
    given one population (ν = ∞: normal), including the data sets' constants but not
    1/σ̄: the NumPy statement of the deep data sets' term of the program."""
    u, log_weight = cauchy_quantile_nodes(nodes)
    grid = np.broadcast_to(u[:, None], (nodes, len(data["xbar"])))
    term_a, term_b, _, _ = chart_log_terms(data, delta0, sigma0, nu, grid, sharpness)
    measure = np.log(np.pi) + np.log1p(u**2) + log_weight
    return special.logsumexp(np.logaddexp(term_a, term_b) + measure[:, None], axis=0)


def program_data(model_input: ModelInput, nodes: int = NODES) -> dict[str, Any]:
    """The data of ``hierarchical_quadrature.stan``: the sampled data sets as the scale mixture's
    data, the deep ones (``model_input.data["deep"]``) in their own arrays, and the quadrature's
    nodes."""
    data = model_input.data
    deep = np.asarray(data["deep"], bool)
    deep_data = subset(data, deep)
    u, log_weight = cauchy_quantile_nodes(nodes)
    return {
        **subset(data, ~deep),
        "qd": int(deep.sum()),
        "n_deep": np.asarray(deep_data["n"], float),
        "rho_deep": deep_data["rho"],
        "xbar_deep": deep_data["xbar"],
        "ss_deep": deep_data["ss"],
        "nodes": nodes,
        "node_u": u,
        "node_log_weight": log_weight,
        "chart_sharpness": QUADRATURE_SHARPNESS,
    }


def draw_deep_delta(
    data: Mapping[str, Any],
    delta0: ArrayLike,
    sigma0: ArrayLike,
    nu: ArrayLike,
    rng: np.random.Generator,
    cells: int = COMPLETION_CELLS,
    block: int = 500,
) -> np.ndarray:
    """One δ_j per draw of (δ₀, σ₀, ν) (arrays of one shape S) for each data set of ``data``:
    an array of shape S + (data sets,).

    δ_j's conditional f_j(δ) ∝ L_j(δ) P(δ | δ₀, σ₀, ν) is the sum of the two charts' terms
    (:func:`~.two_chart.chart_log_terms`): drawing a chart and v ∈ (0, 1) with density
    proportional to that chart's term times π(1 + u²), u = tan(π(v − ½)), then mapping u to δ
    by the chart, draws δ from f_j exactly. Here v's density is taken constant on each of
    ``cells`` equal cells (its value at the cell's midpoint): a cell near a chart's centre
    spans π/``cells`` of that chart's scale (se_j or σ₀), a small fraction of the width of the
    mode there; the tests compare the draws with the exact conditional distribution.

    The draws are taken ``block`` at a time, fewer with many data sets, so that each temporary
    array holds at most about 2 million values (16 MB).
    """
    delta0, sigma0, nu = np.broadcast_arrays(*(np.asarray(x, float) for x in (delta0, sigma0, nu)))
    shape = delta0.shape
    delta0, sigma0, nu = (x.reshape(-1, 1) for x in (delta0, sigma0, nu))
    xbar, se = np.asarray(data["xbar"], float), standard_errors(data)
    u = np.tan(np.pi * ((np.arange(cells) + 0.5) / cells - 0.5))
    grid = np.broadcast_to(u[:, None], (cells, xbar.size))
    log_measure = np.log1p(np.concatenate([u, u]) ** 2)[:, None]
    out = np.empty((delta0.shape[0], xbar.size))
    block = max(1, min(block, 2_000_000 // (2 * cells * max(xbar.size, 1))))
    for start in range(0, delta0.shape[0], block):
        rows = slice(start, start + block)
        term_a, term_b, _, _ = chart_log_terms(
            data, delta0[rows], sigma0[rows], nu[rows], grid, QUADRATURE_SHARPNESS
        )
        log_mass = np.concatenate([term_a, term_b], axis=1) + log_measure
        cumulative = np.cumsum(np.exp(log_mass - log_mass.max(axis=1, keepdims=True)), axis=1)
        target = rng.random((cumulative.shape[0], 1, xbar.size)) * cumulative[:, -1:, :]
        index = np.minimum((cumulative < target).sum(axis=1), 2 * cells - 1)
        v = (index % cells + rng.random(index.shape)) / cells
        drawn = np.tan(np.pi * (v - 0.5))
        out[rows] = np.where(index >= cells, delta0[rows] + sigma0[rows] * drawn, xbar + se * drawn)
    return out.reshape((*shape, xbar.size))


def complete_quadrature(
    idata: az.InferenceData,
    model_input: ModelInput,
    rng: np.random.Generator,
    names: Sequence[Any] | None = None,
) -> az.InferenceData:
    """The model's quantities from the quadrature's draws, in the original units: the same
    variables as the scale-mixture completion, per data set in ``model_input``'s order
    (labelled by ``names``, default 0, 1, ...). The sampled data sets as in the scale mixture
    (:func:`~.model.scale_mixture_draws`); each deep one's δ_j from its conditional
    (:func:`draw_deep_delta`), then σ_j and τ_j given δ_j
    (:func:`~.two_chart.draw_noise_scale`, :func:`~.two_chart.draw_mixing_precision`)."""
    data = model_input.data
    deep = np.asarray(data["deep"], bool)
    posterior = idata.posterior
    sampled = scale_mixture_draws(posterior, subset(data, ~deep), rng)
    per_dataset = {name: sampled[name] for name in ("delta", "sigma", "tau") if name in sampled}
    deep_data = subset(data, deep)
    delta0, sigma0 = sampled["delta0"].values, sampled["sigma0"].values
    nu = sampled["nu"].transpose(*sampled["delta0"].dims).values if "nu" in sampled else np.inf
    delta = draw_deep_delta(deep_data, delta0, sigma0, nu, rng)
    deep_values = {"delta": delta, "sigma": draw_noise_scale(deep_data, delta, rng)}
    if "tau" in per_dataset:
        deep_values["tau"] = draw_mixing_precision(delta, delta0, sigma0, nu, rng)
    names = list(range(deep.size)) if names is None else list(names)
    dims = (*sampled["delta0"].dims, "dataset")
    for name, variable in per_dataset.items():
        values = np.empty((*delta.shape[:-1], deep.size))
        values[..., ~deep] = variable.transpose(*sampled["delta0"].dims, ...).values
        values[..., deep] = deep_values[name]
        sampled[name] = xr.DataArray(
            values,
            dims=dims,
            coords={**{d: posterior.coords[d] for d in dims[:-1]}, "dataset": names},
        )
    return store_completed(idata, sampled, model_input)


def build_quadrature_input(
    data: CVData,
    rope: Rope,
    prior: HierarchicalPrior,
    rng: np.random.Generator,
    nats: float = DEEP_NATS,
) -> ModelInput:
    """The two-chart input (the scale mixture's, δ₀'s coordinate located robustly) with
    ``data["deep"]``, the data sets to integrate (:func:`deep_datasets`)."""
    return with_deep_datasets(build_two_chart_input(data, rope, prior, rng), nats)


def with_deep_datasets(model_input: ModelInput, nats: float = DEEP_NATS) -> ModelInput:
    """``model_input`` with ``data["deep"]``, the data sets to integrate
    (:func:`deep_datasets`)."""
    deep = deep_datasets(model_input, nats)
    return replace(model_input, data={**model_input.data, "deep": deep})


def quadrature_initial_values(
    model_input: ModelInput, chains: int, rng: np.random.Generator
) -> list[dict[str, Any]]:
    """The scale mixture's initial values of the sampled data sets, with δ₀ near the centre of
    its coordinate (``delta0_raw`` jittered by 0.1, a tenth of its spread)."""
    keep = ~np.asarray(model_input.data["deep"], bool)
    inits = scale_mixture_initial_values(model_input, chains, rng)
    for init in inits:
        init["sigma"] = np.asarray(init["sigma"])[keep]
        init["tau_raw"] = np.asarray(init["tau_raw"])[keep] if len(init["tau_raw"]) else []
        init["delta0_raw"] = 0.1 * float(rng.standard_normal())
    return inits


class QuadratureModel(HierarchicalModel):
    """The hierarchical model with the deep data sets integrated out (module docstring): the same
    result and diagnosed variables as the scale-mixture ``HierarchicalModel``.

    ``nats``: the valley above which a data set is integrated (:data:`DEEP_NATS`; the
    calibration integrates every data set but one with 0)."""

    program = "hierarchical_quadrature"
    initial_values = staticmethod(quadrature_initial_values)

    def __init__(self, nats: float = DEEP_NATS) -> None:
        self.nats = nats

    def build_input(
        self, data: CVData, rope: Rope, prior: HierarchicalPrior, rng: np.random.Generator
    ) -> ModelInput:
        return build_quadrature_input(data, rope, prior, rng, self.nats)

    def stan_data(self, model_input: ModelInput, program: str) -> Mapping[str, Any]:
        """:func:`program_data` for this program; a reference program's data as the scale
        mixture's."""
        if program != self.program:
            return super().stan_data(model_input, program)
        return program_data(model_input)

    def coordinates(
        self, data: CVData, model_input: ModelInput
    ) -> tuple[Mapping[str, Sequence[Any]], Mapping[str, Sequence[str]]]:
        """The sampled data sets label ``sigma`` and, with a Student-t population,
        ``tau_raw``."""
        keep = ~np.asarray(model_input.data["deep"], bool)
        names = [name for name, kept in zip(data.datasets, keep) if kept]
        return {"sampled_dataset": names}, sampled_dims(model_input, "sampled_dataset")

    def complete(
        self,
        idata: az.InferenceData,
        data: CVData | None,
        model_input: ModelInput,
        rng: np.random.Generator,
    ) -> az.InferenceData:
        names = None if data is None else list(data.datasets)
        return complete_quadrature(idata, model_input, rng, names)


#: The instance :func:`~bayes_hier.hierarchical.hierarchical_test` fits with
#: ``coordinates="quadrature"``.
QUADRATURE = QuadratureModel()

__all__ = [
    "COMPLETION_CELLS",
    "DEEP_NATS",
    "NODES",
    "QUADRATURE",
    "QUADRATURE_SHARPNESS",
    "QuadratureModel",
    "build_quadrature_input",
    "cauchy_quantile_nodes",
    "complete_quadrature",
    "deep_datasets",
    "deep_log_marginals",
    "draw_deep_delta",
    "program_data",
    "quadrature_initial_values",
    "subset",
    "with_deep_datasets",
]

"""From :class:`~.data.MultiCVData` to the data and initial values of ``stan/joint.stan``.

Steps (each a function): give models that tie with an earlier model on every fold of a data set a
mean-preserving spread (:func:`perturb_ties`, the two-model rule of SPEC §3.2 reused); take the
orthonormal Helmert contrasts and their sufficient statistics (mean and scatter per data set);
rescale to unit scale; choose the data-based bases of the covariance parameters; fill in the data
of the Stan program and data-based initial values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..data import CVData
from ..hierarchical.model_input import NU_PRIORS, check_nu_prior, perturb_constant
from ..rope import Rope
from .contrasts import helmert_contrasts
from .data import MultiCVData


@dataclass(frozen=True)
class JointPrior:
    """Hyper-parameters of the joint model (``stan/joint.stan``).

    θ₀ is flat and Σ₀ and every Ω_i have the orthogonally invariant prior ``p(M) ∝ |M|^(−1/2)``
    (at k = 2 the uniform priors of the paper in their flat limit); only the prior of ν is
    chosen here.

    Attributes
    ----------
    nu_prior
        ``"hierarchical"`` (ν − 1 ~ Gamma(α, β), α ~ U(alpha_range), β ~ U(beta_range)),
        ``"juarez-steel"``, ``"kruschke"`` or ``"gaussian"``, as in
        :class:`~bayes_hier.hierarchical.HierarchicalPrior`.
    alpha_range, beta_range
        Bounds of the uniform priors on the shape α and rate β of ν − 1.
    """

    nu_prior: str = "hierarchical"
    alpha_range: tuple[float, float] = (0.5, 5.0)
    beta_range: tuple[float, float] = (0.05, 0.15)

    def __post_init__(self) -> None:
        check_nu_prior(self.nu_prior, self.alpha_range, self.beta_range)

    @property
    def heavy_tailed(self) -> bool:
        """Whether the population is multivariate Student-t (every ν prior but ``"gaussian"``)."""
        return self.nu_prior != "gaussian"


@dataclass(frozen=True)
class JointModelInput:
    """Everything a fit of the joint model needs, in rescaled units.

    Attributes
    ----------
    contrasts
        The (k − 1) × k orthonormal Helmert matrix C.
    scores
        Per data set, the (perturbed where needed) scores divided by ``scale`` (n_i × k).
    scale
        The unit of the Stan program: mean over data sets of the root mean contrast variance,
        mean_i sqrt(tr(S_i) / ((n_i − 1)(k − 1))) (at k = 2, the two-model mean_i(s_i) / √2).
    rope
        The rope in rescaled units.
    perturbed
        ``"<data set>: <model> vs <model>"`` for every tie that was given a spread.
    data
        The data of ``joint.stan``.
    """

    contrasts: np.ndarray
    scores: tuple[np.ndarray, ...]
    scale: float
    rope: Rope
    perturbed: tuple[str, ...]
    data: dict[str, Any]

    def matrix_data(self) -> dict[str, Any]:
        """The data of the reference program ``joint_matrix.stan`` (the contrasts of all folds)."""
        y = np.concatenate([block @ self.contrasts.T for block in self.scores])
        return {**self.data, "total": int(y.shape[0]), "y": y}


def perturb_ties(data: MultiCVData, rope: Rope, rng: np.random.Generator) -> tuple[list, tuple]:
    """Give a model that ties with an earlier model on every fold a mean-preserving spread.

    If x_b − x_a is constant over the folds of a data set (two models with the same predictions,
    common in practice), the contrasts' scatter S_i is singular and Ω_i degenerate. For each model
    b in order, its first earlier model a with a constant difference is found and the difference
    d = x_b − x_a is perturbed by the two-model rule
    (:func:`~bayes_hier.hierarchical.model_input.perturb_constant`: ±u_j with u_j ~ U(−r, r),
    r half the rope width, mean kept); then x_b = x_a + d. Models are visited in order, so later
    ties are detected against the already perturbed scores. Deterministic for a given ``rng``.

    Returns
    -------
    scores, perturbed
        The per-data-set score blocks and the labels of the perturbed ties.
    """
    blocks = [block.copy() for block in data.scores]
    labels: list[str] = []
    for b in range(1, data.k):
        cases = []
        for i, block in enumerate(blocks):
            constant = [a for a in range(b) if np.ptp(block[:, b] - block[:, a]) == 0]
            if constant:
                cases.append((i, constant[0]))
        if not cases:
            continue
        names = [f"{data.datasets[i]}: {data.models[b]} vs {data.models[a]}" for i, a in cases]
        ties = CVData(
            [blocks[i][:, b] - blocks[i][:, a] for i, a in cases],
            runs=[int(data.runs[i]) for i, _ in cases],
            rho=[float(data.rho[i]) for i, _ in cases],
            datasets=names,
        )
        spread, _ = perturb_constant(ties, rope, rng)
        for (i, a), difference in zip(cases, spread):
            blocks[i][:, b] = blocks[i][:, a] + difference
        labels.extend(names)
    return blocks, tuple(labels)


def contrast_statistics(
    blocks: list[np.ndarray], contrasts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Means ȳ_i (q × d) and scatters S_i = Σ_j (y_ij − ȳ_i)(y_ij − ȳ_i)ᵀ (q × d × d) of the
    contrasts Y_i = X_i Cᵀ."""
    means, scatters = [], []
    for block in blocks:
        y = block @ contrasts.T
        centred = y - y.mean(axis=0)
        means.append(y.mean(axis=0))
        scatters.append(centred.T @ centred)
    return np.array(means), np.array(scatters)


def _check_regular(scatters: np.ndarray, datasets: tuple[str, ...]) -> None:
    for name, scatter in zip(datasets, scatters):
        eigenvalues = np.linalg.eigvalsh(scatter)
        if not eigenvalues[0] > 1e-12 * max(eigenvalues[-1], np.finfo(float).tiny):
            raise ValueError(
                f"Data set {name!r}: the models' scores are linearly dependent over the folds "
                "(e.g. one model's scores are an average of others'), so their covariance cannot "
                "be estimated. Drop one of the dependent models."
            )


def build_joint_input(
    data: MultiCVData, rope: Rope, prior: JointPrior, rng: np.random.Generator
) -> JointModelInput:
    """Perturb ties, take the contrasts' statistics, rescale and fill in ``joint.stan``'s data.

    Bases: A_i = chol(S_i / ((n_i − 1) a_i)) (the sample estimate of Ω_i) and
    A₀ = chol(Cov_i(ȳ_i) + mean_i (b_i / n_i) A_i A_iᵀ) (the spread of the means, never singular);
    with them the Cholesky parameters L_i and L₀ of ``joint.stan`` are of order 1.
    """
    if data.q < data.k:
        raise ValueError(
            f"The joint model of {data.k} models needs at least {data.k} data sets (its flat "
            f"population priors need more data sets than contrasts); got {data.q}."
        )
    blocks, perturbed = perturb_ties(data, rope, rng)
    contrasts = helmert_contrasts(data.k)
    means, scatters = contrast_statistics(blocks, contrasts)
    _check_regular(scatters, data.datasets)
    n = data.n.astype(float)
    d = data.k - 1
    scale = float(np.mean(np.sqrt(np.trace(scatters, axis1=1, axis2=2) / ((n - 1) * d))))
    means, scatters = means / scale, scatters / scale**2
    a, b = 1 - data.rho, 1 + (n - 1) * data.rho
    noise = scatters / ((n - 1) * a)[:, None, None]
    population = np.cov(means, rowvar=False).reshape(d, d) + np.mean(
        (b / n)[:, None, None] * noise, axis=0
    )
    switch, gamma = NU_PRIORS[prior.nu_prior]
    stan_data: dict[str, Any] = {
        "k": data.k,
        "q": data.q,
        "n": data.n.astype(int).tolist(),
        "rho": data.rho.astype(float),
        "ybar": means,
        "scatter": scatters,
        "noise_basis": np.linalg.cholesky(noise),
        "population_basis": np.linalg.cholesky(population),
        "nu_prior": switch,
        "nu_shape": gamma[0] if gamma else 1.0,
        "nu_rate": gamma[1] if gamma else 1.0,
        "alpha_lower": prior.alpha_range[0],
        "alpha_upper": prior.alpha_range[1],
        "beta_lower": prior.beta_range[0],
        "beta_upper": prior.beta_range[1],
    }
    return JointModelInput(
        contrasts=contrasts,
        scores=tuple(block / scale for block in blocks),
        scale=scale,
        rope=rope.scaled(scale),
        perturbed=perturbed,
        data=stan_data,
    )


def initial_values(model_input: JointModelInput, chains: int, rng: np.random.Generator) -> list:
    """Data-based, jittered initial values, one dict per chain (SPEC §3.2 for the joint model).

    θ₀ near the mean of the ȳ_i (θ₀_raw near 0); the Cholesky factors near the identity (Ω_i at
    its sample estimate) and L₀ near I/2 (Σ₀ between 0 and the spread of the means); α = 2,
    β = 0.1 and the standardised logs of ν − 1 and τ_i near 0. Each is jittered so that R-hat can
    see stuck chains.
    """
    data = model_input.data
    q, d = data["q"], data["k"] - 1
    student = data["nu_prior"] != 2
    hierarchical = data["nu_prior"] == 0

    def near_identity(size: float, jitter: float) -> np.ndarray:
        return np.diag(size * np.exp(jitter * rng.standard_normal(d)))

    inits = []
    for _ in range(chains):
        inits.append(
            {
                "theta0_raw": 0.1 * rng.standard_normal(d) / np.sqrt(q),
                "population_factor": near_identity(0.5, 0.1),
                "noise_factor": np.array([near_identity(1.0, 0.05) for _ in range(q)]),
                "nu_alpha": [2.0] if hierarchical else [],
                "nu_beta": [0.1] if hierarchical else [],
                "nu_raw": 0.1 * rng.standard_normal(int(student)),
                "tau_raw": 0.1 * rng.standard_normal(q if student else 0),
            }
        )
    return inits

"""From :class:`~.data.MultiCVData` to the data and initial values of ``stan/joint.stan``.

Steps (each a function): check that the models are linked through the data sets
(:func:`check_design`, when some models are missing on some data sets); give models that tie with
an earlier model on every fold of a data set a mean-preserving spread (:func:`perturb_ties`, the
two-model rule of conventions §3.2 reused); take the orthonormal Helmert contrasts of the models run
on each data set and their sufficient statistics (mean and scatter per data set, padded to k − 1);
rescale to unit scale; choose the data-based bases of the covariance parameters; fill in the data
of the Stan program and data-based initial values.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import check_positive
from ..callers import user_stacklevel
from ..data import CVData
from ..hierarchical.model_input import (
    ConstantDifferencesWarning,
    NuPrior,
    is_rounding_noise,
    spread_constant,
)
from ..rope import Rope
from .contrasts import helmert_contrasts, observed_contrasts
from .data import MultiCVData, ScoreBlocks
from .fold_noise import (
    fold_noise_initial_values,
    noise_contrasts,
    noise_levels,
    score_scatters,
)
from .likelihood import noise_marginal


@dataclass(frozen=True)
class JointPrior(NuPrior):
    """Hyper-parameters of the joint model (``stan/joint.stan``, ``stan/joint_fold.stan``).

    θ₀ is flat; a full noise covariance Ω_i has the orthogonally invariant prior
    ``p(Ω) ∝ |Ω|^(−1/2)`` (at k = 2 the uniform prior of the paper in its flat limit). The
    population covariance has a proper, scale-free prior in the data-based basis A₀ (the Cholesky
    factor of the spread of the data sets' mean contrasts, which carries the units)::

        Σ₀ = A₀ F Fᵀ A₀ᵀ,   F = diag(s) L_R,
        L_R L_Rᵀ ~ LKJ(population_corr_shape),   s_j ~ half-normal(0, population_sd_scale).

    LKJ(η) has
    density ∝ det(R)^(η − 1) (Lewandowski, Kurowicka and Joe, 2009): uniform at η = 1, pulled
    away from perfectly correlated contrasts above. It makes the posterior proper for any number
    of data sets and shrinks a model seen on few data sets toward the others.

    Attributes
    ----------
    nu_prior
        ``"hierarchical"`` (ν − 1 ~ Gamma(α, β), α ~ U(alpha_range), β ~ U(beta_range)),
        ``"juarez-steel"``, ``"kruschke"`` or ``"gaussian"``, as in
        :class:`~bayes_hier.hierarchical.HierarchicalPrior`.
    alpha_range, beta_range
        Bounds of the uniform priors on the shape α and rate β of ν − 1 ~ Gamma(α, β).
    population_corr_shape
        η of the LKJ prior on the correlation of Σ₀ in the basis A₀ (positive; default 2).
    population_sd_scale
        Scale of the half-normal priors on the standard deviations of Σ₀ in the basis A₀, in
        units of the data sets' spread (positive; default 2: up to about 4 times that spread).
    """

    nu_prior: str = "hierarchical"
    alpha_range: tuple[float, float] = (0.5, 5.0)
    beta_range: tuple[float, float] = (0.05, 0.15)
    population_corr_shape: float = 2.0
    population_sd_scale: float = 2.0

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("population_corr_shape", "population_sd_scale"):
            object.__setattr__(self, name, check_positive(getattr(self, name), name))

    def stan_data(self) -> dict[str, Any]:
        """The ν prior's Stan data (:meth:`NuPrior.stan_data`) and that of Σ₀'s prior."""
        return {
            **super().stan_data(),
            "population_corr_shape": self.population_corr_shape,
            "population_sd_scale": self.population_sd_scale,
        }


@dataclass(frozen=True)
class JointCalibrationPrior:
    """Proper, fixed priors that replace the default ones, for simulation-based calibration.

    The default priors of ``joint.stan`` (flat θ₀, ``|M|^(−1/2)`` on every Ω_i, and Σ₀'s prior
    scaled by the data's spread through A₀) cannot be drawn from. With a
    ``JointCalibrationPrior`` (``build_joint_input(..., calibration=...)``) the programs use
    instead, in the model's rescaled units (scores divided by
    ``JointModelInput.scale``; pass ``scale=`` to :func:`build_joint_input` to fix the unit):

        θ₀ ~ N(0, theta0_sd² I),  Σ₀ ~ InvWishart(population_df, population_scale),
        Ω_i ~ InvWishart(noise_df, noise_scale)  (every data set; ``noise="full"``)
        λ_i ~ N(0, noise_level_sd²), s_i = 1  (the fold-level noise, ``noise="fold"``:
        :mod:`~.fold_noise`)

    (inverse Wishart as in ``scipy.stats.invwishart``: mean scale / (df − d − 1)). The prior of
    ν and τ_i (and of the fold-level noise's κ, ω and η) is unchanged (already proper). The Stan
    data fields are ``calibration_prior`` (1 here, 0 by default), ``theta0_prior_sd``,
    ``population_prior_df``, ``population_prior_scale`` and the noise's own
    (:func:`calibration_fields`).

    Attributes
    ----------
    theta0_sd
        Standard deviation of every coordinate of θ₀.
    population_df, population_scale
        Degrees of freedom (> d − 1) and d × d scale matrix of Σ₀'s inverse Wishart prior.
    noise_df, noise_scale
        The same for every Ω_i (full noise covariances).
    noise_level_sd
        Standard deviation of every λ_i (fold-level noise).
    """

    theta0_sd: float
    population_df: float
    population_scale: np.ndarray
    noise_df: float
    noise_scale: np.ndarray
    noise_level_sd: float = 1.0

    def __post_init__(self) -> None:
        if not self.theta0_sd > 0:
            raise ValueError(f"theta0_sd must be positive; got {self.theta0_sd}.")
        for name in ("population", "noise"):
            scale = np.asarray(getattr(self, f"{name}_scale"), float)
            df = getattr(self, f"{name}_df")
            d = scale.shape[0] if scale.ndim == 2 else -1
            if scale.shape != (d, d) or not np.allclose(scale, scale.T):
                raise ValueError(f"{name}_scale must be a symmetric square matrix.")
            if np.linalg.eigvalsh(scale)[0] <= 0:
                raise ValueError(f"{name}_scale must be positive definite.")
            if not df > d - 1:
                raise ValueError(
                    f"{name}_df must exceed d - 1 = {d - 1} for a proper inverse Wishart prior; "
                    f"got {df}."
                )

        if not self.noise_level_sd > 0:
            raise ValueError(f"noise_level_sd must be positive; got {self.noise_level_sd}.")

    def stan_data(self, d: int, noise: str = "full") -> dict[str, Any]:
        """The calibration fields of the program's data (``calibration_prior`` = 1) for the
        noise structure ``noise``."""
        fields = calibration_fields(d, noise)
        for name in ("population", "noise"):
            if np.shape(getattr(self, f"{name}_scale")) != (d, d):
                raise ValueError(f"{name}_scale must be {d} x {d} (k - 1 contrasts).")
        fields.update(
            calibration_prior=1,
            theta0_prior_sd=float(self.theta0_sd),
            population_prior_df=float(self.population_df),
            population_prior_scale=np.asarray(self.population_scale, float),
        )
        if noise == "fold":
            fields.update(noise_level_prior_sd=float(self.noise_level_sd))
        # with noise="full" the prior of the Ω_i enters the data through df_i and V_i
        # (:func:`full_noise_fields`)
        return fields


#: The noise structures of the joint model: a full covariance Ω_i per data set (``joint.stan``)
#: or fold-level scales (``joint_fold.stan``, :mod:`~.fold_noise`).
NOISE_STRUCTURES = ("full", "fold")


def calibration_fields(d: int, noise: str = "full") -> dict[str, Any]:
    """The calibration fields of the program's data when the default priors are used:
    ``calibration_prior`` = 0 and harmless values that the programs ignore."""
    fields: dict[str, Any] = {
        "calibration_prior": 0,
        "theta0_prior_sd": 1.0,
        "population_prior_df": float(d + 1),
        "population_prior_scale": np.eye(d),
    }
    if noise == "fold":
        fields.update(noise_level_prior_sd=1.0)
    return fields


@dataclass(frozen=True)
class JointModelInput(ScoreBlocks):
    """Everything a fit of the joint model needs, in rescaled units.

    Attributes
    ----------
    contrasts
        The (k − 1) × k orthonormal Helmert matrix C.
    scores
        Per data set, the (perturbed where needed) scores divided by ``scale`` (n_i × k; a NaN
        column for a model not run on that data set).
    scale
        The unit of the Stan program: by default the mean over data sets of the root mean
        contrast variance, mean_i sqrt(tr(S_i) / ((n_i − 1) d_i)) (d_i = k − 1 contrasts when
        every model was run; at k = 2, the two-model mean_i(s_i) / √2); the ``scale=`` of
        :func:`build_joint_input` when given.
    rope
        The rope in rescaled units.
    perturbed
        ``"<data set>: <model> vs <model>"`` for every tie that was given a spread.
    data
        The data of ``joint.stan``, including the calibration-prior fields
        (:class:`JointCalibrationPrior`; ``calibration_prior`` = 0 unless one was given) and the
        missing-model fields ``observed`` (d_i per data set) and ``design`` (M_i, padded), with
        ``ybar``, ``noise_df`` and ``mean_noise_root`` padded beyond d_i
        (:func:`observed_designs`, :func:`full_noise_fields`).
    noise
        The noise structure, ``"full"`` (``joint.stan``) or ``"fold"`` (``joint_fold.stan``,
        whose noise fields replace ``noise_df`` and ``mean_noise_root``: :mod:`~.fold_noise`).
    """

    contrasts: np.ndarray
    scores: tuple[np.ndarray, ...]
    scale: float
    rope: Rope
    perturbed: tuple[str, ...]
    data: dict[str, Any]
    noise: str = "full"


def _tied(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether ``second − first`` is the same on every fold up to rounding: its range is
    :func:`~bayes_hier.hierarchical.model_input.is_rounding_noise` relative to the two models'
    largest |score| (``(x + 0.02) − x`` differs from fold to fold in the last bits)."""
    magnitude = float(np.max(np.abs([first, second])))
    return bool(is_rounding_noise(np.ptp(second - first), magnitude))


def perturb_ties(data: MultiCVData, rope: Rope, rng: np.random.Generator) -> tuple[list, tuple]:
    """Give a model that ties with an earlier model on every fold a mean-preserving spread.

    If x_b − x_a is constant over the folds of a data set (:func:`_tied`; two models with the same
    predictions, common in practice), the contrasts' scatter S_i is singular and Ω_i degenerate.
    For each model b in order, its first earlier model a with a constant difference is found and
    the difference d = x_b − x_a is perturbed by the two-model rule
    (:func:`~bayes_hier.hierarchical.model_input.spread_constant`: ±u_j with u_j ~ U(−r, r),
    r half the rope width, mean kept; with an empty rope, in the units of the tied scores); then
    x_b = x_a + d. Models are visited in order, so later
    ties are detected against the already perturbed scores. Deterministic for a given ``rng``.
    One :class:`~bayes_hier.hierarchical.model_input.ConstantDifferencesWarning` names the ties,
    grouped by data set.

    Returns
    -------
    scores, perturbed
        The per-data-set score blocks and the labels of the perturbed ties.
    """
    blocks = [block.copy() for block in data.scores]
    labels: list[str] = []
    ties_by_dataset: dict[str, list[str]] = {}
    widths: set[tuple[float, str]] = set()
    for b in range(1, data.k):
        cases = []
        for i, block in enumerate(blocks):
            constant = [a for a in range(b) if _tied(block[:, a], block[:, b])]
            if constant:
                cases.append((i, constant[0]))
        if not cases:
            continue
        names = [f"{data.datasets[i]}: {data.models[a]} vs {data.models[b]}" for i, a in cases]
        ties = CVData(
            [blocks[i][:, b] - blocks[i][:, a] for i, a in cases],
            runs=[int(data.runs[i]) for i, _ in cases],
            rho=[float(data.rho[i]) for i, _ in cases],
            datasets=names,
            scores=np.concatenate([blocks[i][:, [a, b]].ravel() for i, a in cases]),
        )
        spread, _, half_width, reason = spread_constant(ties, rope, rng)
        widths.add((half_width, reason))
        for (i, a), difference in zip(cases, spread):
            blocks[i][:, b] = blocks[i][:, a] + difference
            pair = f"{data.models[a]} vs {data.models[b]}"
            ties_by_dataset.setdefault(data.datasets[i], []).append(pair)
        labels.extend(names)
    if labels:
        warn_ties(ties_by_dataset, widths)
    return blocks, tuple(labels)


def warn_ties(ties_by_dataset: dict[str, list[str]], widths: set[tuple[float, str]]) -> None:
    """One :class:`~bayes_hier.hierarchical.model_input.ConstantDifferencesWarning` for all the
    ties :func:`perturb_ties` spread: the data sets (up to 5), their tied pairs, and r."""
    shown = [f"{name} ({', '.join(pairs)})" for name, pairs in list(ties_by_dataset.items())[:5]]
    more = ", ..." if len(ties_by_dataset) > 5 else ""
    low, high = min(w for w, _ in widths), max(w for w, _ in widths)
    reasons = sorted({reason for _, reason in widths})
    size = f"±{low:g}" if low == high else f"±{low:g} to ±{high:g}"
    pairs = sum(len(p) for p in ties_by_dataset.values())
    warnings.warn(
        f"{pairs} pair(s) of models have the same difference on every fold of "
        f"{len(ties_by_dataset)} data set(s): {'; '.join(shown)}{more}. Their variance would be "
        f"0, which the model cannot fit: each such difference was given a mean-preserving spread "
        f"of {size} ({'; '.join(reasons)}).",
        ConstantDifferencesWarning,
        stacklevel=user_stacklevel(),
    )


def contrast_statistics(
    blocks: list[np.ndarray], contrasts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Means ȳ_i (q × d) and scatters S_i = Σ_j (y_ij − ȳ_i)(y_ij − ȳ_i)ᵀ (q × d × d) of the
    contrasts Y_i = X_i Cᵀ.

    A block with NaN columns (models not run on that data set) uses the contrasts C_i of its
    d_i + 1 observed models (:func:`~.contrasts.observed_contrasts`): its ȳ_i and S_i fill the
    first d_i entries and the top-left d_i × d_i block, the rest is zero."""
    d = contrasts.shape[0]
    means, scatters = np.zeros((len(blocks), d)), np.zeros((len(blocks), d, d))
    for i, block in enumerate(blocks):
        run = np.isfinite(block[0])
        own, _ = observed_contrasts(contrasts, run)
        m = own.shape[0]
        y = block[:, run] @ own.T
        centred = y - y.mean(axis=0)
        means[i, :m] = y.mean(axis=0)
        scatters[i, :m, :m] = centred.T @ centred
    return means, scatters


def observed_designs(contrasts: np.ndarray, observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per data set, the number d_i of its own contrasts and M_i = C_i E_i Cᵀ in the first d_i
    rows of a d × d matrix (zeros after; the identity for a complete data set):
    ``joint.stan``'s ``observed`` and ``design``."""
    d = contrasts.shape[0]
    sizes = observed.sum(axis=1) - 1
    design = np.zeros((len(observed), d, d))
    for i, run in enumerate(observed):
        design[i, : sizes[i]] = observed_contrasts(contrasts, run)[1]
    return sizes, design


def check_design(data: MultiCVData) -> None:
    """Models missing on some data sets: check that the comparison is identified.

    The models are linked when the graph "run together on some data set" is connected; otherwise
    the difference between two groups is not identified under the flat prior of θ₀ (ValueError).
    How many data sets each model needs is
    :func:`~bayes_hier.joint.propriety.check_models_seen_enough`'s check.
    """
    observed = data.observed
    reached = {0}
    frontier = [0]
    while frontier:
        model = frontier.pop()
        for row in observed[observed[:, model]]:
            for other in np.flatnonzero(row):
                if other not in reached:
                    reached.add(int(other))
                    frontier.append(int(other))
    if len(reached) < data.k:
        linked = [data.models[a] for a in sorted(reached)]
        others = [m for a, m in enumerate(data.models) if a not in reached]
        raise ValueError(
            f"The models {linked} and {others} are never run on a common data set, so the joint "
            "model cannot compare the two groups. Add a data set on which models of both groups "
            "were run, or compare the groups separately."
        )


def _check_regular(
    scatters: np.ndarray, sizes: np.ndarray, n: np.ndarray, datasets: tuple[str, ...]
) -> None:
    for name, scatter, m, folds in zip(datasets, scatters, sizes, n):
        if folds < 2 * m + 1:
            raise ValueError(
                f"Data set {name!r} has {int(folds)} cross-validation results per model for "
                f"{int(m) + 1} models: the full noise covariance of the models' {int(m)} "
                "differences on each data set is estimated from its folds, which needs at least "
                f"2k - 1 = {2 * int(m) + 1} results for k models (below 2k - 2 the posterior is "
                "improper). Use noise='fold' (one noise scale per model and data set, any number "
                "of folds; the default noise='auto' does so), more folds or runs, or fewer "
                "models at once."
            )
        eigenvalues = np.linalg.eigvalsh(scatter[:m, :m])
        if not eigenvalues[0] > 1e-12 * max(eigenvalues[-1], np.finfo(float).tiny):
            raise ValueError(
                f"Data set {name!r}: the models' scores are linearly dependent over the folds "
                "(e.g. one model's scores are an average of others'), so their covariance cannot "
                "be estimated. Drop one of the dependent models."
            )


def full_noise_fields(
    n: np.ndarray,
    rho: np.ndarray,
    scatters: np.ndarray,
    sizes: np.ndarray,
    design: np.ndarray,
    calibration: JointCalibrationPrior | None,
) -> dict[str, Any]:
    """The noise fields of ``joint.stan``: df_i (``noise_df``) and the Cholesky factor of V_i
    (``mean_noise_root``) of ȳ_i | θ_i with Ω_i integrated out
    (:func:`~.likelihood.noise_marginal`).
    Under the calibration prior Ω ~ InvWishart(ν, Ψ) on the k − 1 contrasts, a data set with
    d_i observed contrasts has Ω_i ~ InvWishart(ν − d + d_i, M_iΨM_iᵀ), the law of M_iΩM_iᵀ."""
    if calibration is None:
        df, mean_noise = noise_marginal(n, rho, scatters, sizes)
    else:
        d = scatters.shape[-1]
        prior_scale = np.einsum("qij,jl,qml->qim", design, calibration.noise_scale, design)
        prior_df = calibration.noise_df - d + sizes
        df, mean_noise = noise_marginal(n, rho, scatters, sizes, prior_df, prior_scale)
    return {"noise_df": df, "mean_noise_root": np.linalg.cholesky(mean_noise)}


def build_joint_input(
    data: MultiCVData,
    rope: Rope,
    prior: JointPrior,
    rng: np.random.Generator,
    *,
    scale: float | None = None,
    calibration: JointCalibrationPrior | None = None,
    noise: str = "full",
) -> JointModelInput:
    """Perturb ties, take the contrasts' statistics, rescale and fill in the program's data.

    The basis A₀ = chol(Cov_i(ȳ_i) + mean_i (b_i / n_i) Ω̂_i) (the spread of the means, never
    singular; Ω̂_i = S_i / ((n_i − 1) a_i), the sample estimate of Ω_i) makes the Cholesky
    parameter L₀ of Σ₀ of order 1 (:func:`population_estimate`, which also covers models missing
    on some data sets). With ``noise="full"`` (``joint.stan``) the noise fields are the Student-t
    df_i and scale V_i of ȳ_i | θ_i with Ω_i integrated out (:func:`full_noise_fields`). With
    ``noise="fold"`` (``joint_fold.stan``) Ω̂_i = s_i²I (:func:`~.fold_noise.noise_levels`) and
    the noise fields are those of :mod:`~.fold_noise`.

    Parameters
    ----------
    data, rope, prior, rng
        The scores, the rope (original units), the prior of ν and the generator of the ties'
        spread.
    scale
        The unit of the model (scores and rope are divided by it). Default: the data-based
        ``JointModelInput.scale``. A fixed value (e.g. 1.0) keeps the model's units known in
        advance, as simulation-based calibration needs.
    calibration
        Proper, fixed priors replacing the default ones (:class:`JointCalibrationPrior`),
        stated in the model's units; default: the model's own priors (``calibration_prior`` = 0).
    noise
        ``"full"`` (a covariance Ω_i per data set: needs at least 2k − 1 results for k models) or
        ``"fold"`` (fold-level scales, any number of folds ≥ 2).

    Raises
    ------
    ValueError
        Fewer than 2 data sets: the basis A₀ needs a spread of means
        (:mod:`~bayes_hier.joint.propriety`).
    """
    if noise not in NOISE_STRUCTURES:
        raise ValueError(f"noise must be one of {NOISE_STRUCTURES}; got {noise!r}.")
    if data.q < 2:
        raise ValueError(
            f"The joint model needs at least 2 data sets: the sampler's basis A₀ is set from the "
            f"spread of the data sets' means; got {data.q}."
        )
    if not data.complete:
        check_design(data)
    blocks, perturbed = perturb_ties(data, rope, rng)
    contrasts = helmert_contrasts(data.k)
    means, scatters = contrast_statistics(blocks, contrasts)
    sizes, design = observed_designs(contrasts, data.observed)
    if noise == "full":
        _check_regular(scatters, sizes, data.n, data.datasets)
    n = data.n.astype(float)
    d = data.k - 1
    if scale is None:
        scale = float(np.mean(np.sqrt(np.trace(scatters, axis1=1, axis2=2) / ((n - 1) * sizes))))
    elif not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive number; got {scale}.")
    means, scatters = means / scale, scatters / scale**2
    blocks = [block / scale for block in blocks]
    a, b = 1 - data.rho, 1 + (n - 1) * data.rho
    if noise == "full":
        noise_estimate = scatters / ((n - 1) * a)[:, None, None]
        noise_fields = full_noise_fields(n, data.rho, scatters, sizes, design, calibration)
    else:
        levels = noise_levels(scatters, sizes, n, a)
        noise_estimate = levels[:, None, None] ** 2 * np.eye(d)
        noise_fields = {
            "model_scatter": score_scatters(blocks),
            "noise_contrasts": noise_contrasts(contrasts, data.observed),
            "run": data.observed.astype(float),
            "log_noise_level": np.zeros(data.q) if calibration else np.log(levels),
        }
    population = population_estimate(means, (b / n)[:, None, None] * noise_estimate, design)
    stan_data: dict[str, Any] = {
        "k": data.k,
        "q": data.q,
        "n": data.n.astype(int).tolist(),
        "rho": data.rho.astype(float),
        "ybar": means,
        **noise_fields,
        "observed": sizes.astype(int).tolist(),
        "design": design,
        "population_basis": np.linalg.cholesky(population),
        **prior.stan_data(),
        **(
            calibration_fields(d, noise) if calibration is None else calibration.stan_data(d, noise)
        ),
    }
    return JointModelInput(
        contrasts=contrasts,
        scores=tuple(blocks),
        scale=float(scale),
        rope=rope.scaled(scale),
        perturbed=perturbed,
        data=stan_data,
        noise=noise,
    )


def population_estimate(means: np.ndarray, noise: np.ndarray, design: np.ndarray) -> np.ndarray:
    """A d × d spread of the ȳ_i for the basis A₀ when models are missing (padded arrays).

    With G = Σ_i M_iᵀM_i, the least-squares centre c = G⁻¹Σ_i M_iᵀȳ_i and r_i = ȳ_i − M_ic:
    G^(−1/2) [Σ_i M_iᵀ(q/(q − 1) r_ir_iᵀ + W_i)M_i] G^(−1/2), W_i = (b_i/n_i)Ω̂_i; at M_i = I it is
    Cov_i(ȳ_i) + mean_i W_i, the complete-data choice. Positive definite when the models are
    linked (G nonsingular); only the sampler's parametrisation depends on it.
    """
    q = means.shape[0]
    gram = np.einsum("qji,qjl->il", design, design)
    centre = np.linalg.solve(gram, np.einsum("qji,qj->i", design, means))
    residual = means - np.einsum("qij,j->qi", design, centre)
    spread = q / (q - 1) * np.einsum("qi,qj->qij", residual, residual) + noise
    total = np.einsum("qji,qjk,qkl->il", design, spread, design)
    values, vectors = np.linalg.eigh(gram)
    root = vectors @ np.diag(values**-0.5) @ vectors.T
    return root @ total @ root


def initial_values(model_input: JointModelInput, chains: int, rng: np.random.Generator) -> list:
    """Data-based, jittered initial values, one dict per chain (conventions §3.2, for the joint
    model).

    θ₀ near the mean of the ȳ_i (θ₀_raw near 0); the standardised logs of the noise weights w_i
    near 0 (``noise="full"``); the factor of Σ₀/g, diag(s)L_R, with s near 1/2 and L_R = I (Σ₀
    between 0 and the spread of the means); α = 2, β = 0.1 and the standardised logs of ν − 1 and
    τ_i near 0; the fold-level noise's scales near their data set's level
    (:func:`~.fold_noise.fold_noise_initial_values`). Each is jittered so that R-hat can see
    stuck chains.
    """
    data = model_input.data
    q, d = data["q"], data["k"] - 1
    student = data["nu_prior"] != 2
    hierarchical = data["nu_prior"] == 0

    inits = []
    for _ in range(chains):
        inits.append(
            {
                "theta0_raw": 0.1 * rng.standard_normal(d) / np.sqrt(q),
                "population_sd": 0.5 * np.exp(0.1 * rng.standard_normal(d)),
                "population_corr": np.eye(d),
                **(
                    {"noise_weight_raw": 0.1 * rng.standard_normal(q)}
                    if model_input.noise == "full"
                    else fold_noise_initial_values(q, d + 1, rng)
                ),
                "nu_alpha": [2.0] if hierarchical else [],
                "nu_beta": [0.1] if hierarchical else [],
                "nu_raw": 0.1 * rng.standard_normal(int(student)),
                "tau_raw": 0.1 * rng.standard_normal(q if student else 0),
            }
        )
    return inits

"""From :class:`~bayes_hier.data.CVData` to the data and initial values of the Stan programs.

Implements conventions §3 and §3.2: the hyper-parameters of the priors, the rescaling to unit scale,
the treatment of data sets whose differences are all equal, and data-based initial values.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import check_positive, check_range
from ..callers import user_stacklevel
from ..data import CVData, corrected_standard_error
from ..rope import Rope
from .delta0_coordinate import coordinate_from_delta0, delta0_centre_and_spread

#: ν priors by name: (Stan switch, Gamma(shape, rate) of ν − 1 when fixed).
NU_PRIORS: dict[str, tuple[int, tuple[float, float] | None]] = {
    "hierarchical": (0, None),
    "juarez-steel": (1, (2.0, 0.1)),
    "kruschke": (1, (1.0, 0.0345)),
    "gaussian": (2, None),
}


#: Relative size below which a spread is rounding noise (:func:`is_rounding_noise`): float64
#: differences and sums are exact to about n · 2.2e-16 of the numbers' magnitude.
ROUNDING_TOLERANCE = 1e-10


class ConstantDifferencesWarning(UserWarning):
    """Some data sets had identical differences on every fold and were perturbed."""


def check_nu_prior(
    nu_prior: str, alpha_range: tuple[float, float], beta_range: tuple[float, float]
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Check a ν prior's name and the ranges of its hierarchical Gamma(α, β) (shared by the
    two-model and the joint model); a ValueError says what is allowed. Returns the ranges as
    pairs of floats."""
    if not isinstance(nu_prior, str) or nu_prior not in NU_PRIORS:
        raise ValueError(f"nu_prior must be one of {list(NU_PRIORS)}; got {nu_prior!r}.")
    return check_range(alpha_range, "alpha_range"), check_range(beta_range, "beta_range")


class NuPrior:
    """The prior of ν that the two-model and the joint model share (a base of their priors).

    ``nu_prior`` names it (:data:`~bayes_hier.hierarchical.NU_PRIORS`); ``alpha_range`` and
    ``beta_range`` bound the uniform priors on the shape α and rate β of ν − 1 ~ Gamma(α, β)
    under ``"hierarchical"``.
    A frozen dataclass deriving from it declares the three fields; its ``__post_init__`` checks
    them with :func:`check_nu_prior` and stores the ranges as pairs of floats.
    """

    nu_prior: str
    alpha_range: tuple[float, float]
    beta_range: tuple[float, float]

    def __post_init__(self) -> None:
        ranges = check_nu_prior(self.nu_prior, self.alpha_range, self.beta_range)
        object.__setattr__(self, "alpha_range", ranges[0])
        object.__setattr__(self, "beta_range", ranges[1])

    @property
    def heavy_tailed(self) -> bool:
        """Whether the population is Student-t (every ν prior except ``"gaussian"``)."""
        return self.nu_prior != "gaussian"

    def stan_data(self) -> dict[str, Any]:
        """The Stan data of the ν prior: the switch ``nu_prior``
        (:data:`~bayes_hier.hierarchical.NU_PRIORS`), the fixed Gamma's ``nu_shape, nu_rate``
        (1, 1 where unused) and the bounds of α and β."""
        switch, gamma = NU_PRIORS[self.nu_prior]
        return {
            "nu_prior": switch,
            "nu_shape": gamma[0] if gamma else 1.0,
            "nu_rate": gamma[1] if gamma else 1.0,
            "alpha_lower": self.alpha_range[0],
            "alpha_upper": self.alpha_range[1],
            "beta_lower": self.beta_range[0],
            "beta_upper": self.beta_range[1],
        }


@dataclass(frozen=True)
class HierarchicalPrior(NuPrior):
    """Hyper-parameters of the hierarchical model (Corani et al., 2017; conventions §3).

    Attributes
    ----------
    nu_prior
        ``"hierarchical"``: ν − 1 ~ Gamma(α, β), α ~ U(0.5, 5), β ~ U(0.05, 0.15) (default);
        ``"juarez-steel"``: ν − 1 ~ Gamma(2, 0.1); ``"kruschke"``: ν − 1 ~ Gamma(1, 0.0345);
        ``"gaussian"``: normal population of differences (ν → ∞).
    sigma_factor
        σ_i ~ U(0, σ̄) with σ̄ = ``sigma_factor`` · mean_i(s_i).
    sigma0_factor
        σ₀ ~ U(0, σ̄₀) with σ̄₀ = ``sigma0_factor`` · sd(x̄_1..x̄_q) (mean_i(s_i) when q = 1 or
        the means are equal up to rounding, see :func:`spread_of_means_or_unit`).
    delta0_bound
        δ₀ ~ U(−D, D). ``None`` takes ``D = max_ij |x_ij|`` as the published reference code does;
        give 1 (or 100 for percentages) to use the paper's bound for bounded scores.
    alpha_range, beta_range
        Bounds of the uniform priors on the shape α and rate β of ν − 1 (hierarchical prior).
    """

    nu_prior: str = "hierarchical"
    sigma_factor: float = 1000.0
    sigma0_factor: float = 1000.0
    delta0_bound: float | None = None
    alpha_range: tuple[float, float] = (0.5, 5.0)
    beta_range: tuple[float, float] = (0.05, 0.15)

    def __post_init__(self) -> None:
        for name in ("sigma_factor", "sigma0_factor"):
            object.__setattr__(self, name, check_positive(getattr(self, name), name))
        if self.delta0_bound is not None:
            bound = check_positive(self.delta0_bound, "delta0_bound")
            object.__setattr__(self, "delta0_bound", bound)
        super().__post_init__()


@dataclass(frozen=True)
class ModelInput:
    """Everything a Stan fit of the hierarchical model needs, in rescaled units.

    Attributes
    ----------
    differences
        Per data set, the (perturbed where needed) differences divided by ``scale``.
    scale
        mean_i(s_i) of the (perturbed) differences: the unit of the Stan program.
    rope
        The rope in rescaled units.
    perturbed
        Names of the data sets whose constant differences were perturbed.
    stds
        Sample standard deviation of each data set's (perturbed) rescaled differences.
    data
        The data of ``hierarchical.stan``.
    """

    differences: tuple[np.ndarray, ...]
    scale: float
    rope: Rope
    perturbed: tuple[str, ...]
    stds: np.ndarray
    data: dict[str, Any]

    @property
    def standard_errors(self) -> np.ndarray:
        """Corrected standard error of each (perturbed, rescaled) mean."""
        return corrected_standard_error(self.stds, self.data["n"], self.data["rho"])

    def matrix_data(self) -> dict[str, Any]:
        """The data of the reference program ``hierarchical_matrix.stan`` (raw differences)."""
        data = {k: v for k, v in self.data.items() if k not in ("xbar", "ss")}
        x = np.concatenate(self.differences)
        return {**data, "total": int(x.size), "x": x}


def rounding_magnitude(cv: CVData) -> float:
    """The magnitude of the numbers the differences were computed from: max |score| (max |d|
    without scores). Rounding errors of float64 arithmetic on them are about 2.2e-16 of it."""
    if cv.scores is not None and cv.scores.size:
        return float(np.abs(cv.scores).max())
    return float(max(np.abs(d).max() for d in cv.differences))


def is_rounding_noise(value: np.ndarray | float, magnitude: float) -> np.ndarray:
    """Whether a spread ``value`` is 0 up to rounding: ``value <= ROUNDING_TOLERANCE * magnitude``.

    Differences and sums of float64 numbers of size ``magnitude`` are exact only to about
    n · 2.2e-16 · magnitude: ``(x + 0.02) - x`` is not the same number on every fold, and the mean
    of a mean-preserving spread of zeros is about 1e-17. Such a spread carries no information and
    must not set the scale of a prior bound.
    """
    return np.asarray(value) <= ROUNDING_TOLERANCE * magnitude


def constant_datasets(cv: CVData) -> np.ndarray:
    """Which data sets have the same difference on every fold, up to rounding
    (:func:`is_rounding_noise` of their standard deviations relative to the scores)."""
    return is_rounding_noise(cv.stds, rounding_magnitude(cv))


def spread_of_means_or_unit(means: np.ndarray, magnitude: float) -> float:
    """sd(x̄_1..x̄_q) (ddof = 1) in rescaled units, or 1 (mean_i(s_i), the unit) when q = 1 or
    the means are equal up to rounding (:func:`is_rounding_noise` relative to ``magnitude``).

    The scale of σ₀'s bound and of δ₀'s sampler coordinate: rounding noise of about 1e-17 there
    would confine σ₀ below about 1e-14 and stall the sampler.
    """
    spread = float(np.std(means, ddof=1)) if means.size > 1 else 0.0
    return 1.0 if is_rounding_noise(spread, magnitude) else spread


def perturb_constant(
    cv: CVData, rope: Rope, rng: np.random.Generator
) -> tuple[list[np.ndarray], tuple[str, ...]]:
    """Give data sets whose differences are all equal a small, mean-preserving spread
    (:func:`spread_constant`), with a :class:`ConstantDifferencesWarning` naming them.

    Returns
    -------
    differences, names
        The differences per data set and the names of the data sets given a spread.
    """
    differences, names, half_width, reason = spread_constant(cv, rope, rng)
    if names:
        warnings.warn(
            f"{len(names)} data set(s) have the same difference on every fold "
            f"({', '.join(names[:5])}{', ...' if len(names) > 5 else ''}): their variance would "
            f"be 0, which the model cannot fit. Each was given a mean-preserving spread of "
            f"±{half_width:g} ({reason}).",
            ConstantDifferencesWarning,
            stacklevel=user_stacklevel(),
        )
    return differences, names


def spread_constant(
    cv: CVData, rope: Rope, rng: np.random.Generator
) -> tuple[list[np.ndarray], tuple[str, ...], float, str]:
    """Give data sets whose differences are all equal a small, mean-preserving spread, silently.

    As in the reference code of Corani et al.: draw ``u_j ~ U(-r, r)`` for ``j = 1..floor(n/2)``,
    add ``u_j`` to the first ``floor(n/2)`` differences and subtract it from the next
    ``floor(n/2)`` (an odd middle value is left alone), so the mean is kept and ``SS > 0``.
    "All equal" allows for rounding (:func:`constant_datasets`); such a data set's differences are
    first set to their mean. ``r`` is half the rope width; with an empty rope, a thousandth of the
    mean standard deviation of the other data sets, or, when all are constant, of the largest
    ``|mean|`` (of the largest ``|score|`` when every difference is 0; 1 without scores): always
    in the units of the data.

    Returns
    -------
    differences, names, half_width, reason
        The differences per data set, the names of the data sets given a spread, r and why r
        (for the warning).
    """
    constant = constant_datasets(cv)
    if not constant.any():
        return list(cv.differences), (), 0.0, ""
    half_width = rope.width / 2
    reason = "half the rope width"
    if half_width == 0:
        means = cv.means
        reference = cv.stds[~constant].mean() if (~constant).any() else np.abs(means).max()
        if reference == 0:  # every difference is 0: the scores' own magnitude
            scores = np.abs(cv.scores) if cv.scores is not None else np.zeros(1)
            reference = scores.max() if scores.max() > 0 else 1.0
        half_width = 1e-3 * reference
        reason = "a thousandth of the data's scale: the rope is empty"
    differences = []
    for d, mean, is_constant in zip(cv.differences, cv.means, constant):
        if is_constant:
            half = d.size // 2
            u = rng.uniform(-half_width, half_width, size=half)
            d = np.full(d.size, mean)
            d[:half] += u
            d[half : 2 * half] -= u
        differences.append(d)
    names = tuple(name for name, c in zip(cv.datasets, constant) if c)
    return differences, names, half_width, reason


def build_model_input(
    cv: CVData,
    rope: Rope,
    prior: HierarchicalPrior,
    rng: np.random.Generator,
) -> ModelInput:
    """Rescale the data to unit scale and fill in the data of the Stan program (conventions §3)."""
    raw, perturbed = perturb_constant(cv, rope, rng)
    n = cv.n.astype(float)
    # a perturbed data set keeps its constant value as its mean exactly (the spread is
    # mean-preserving, but summing it in floating point leaves about 1e-17)
    means = np.where(constant_datasets(cv), cv.means, [d.mean() for d in raw])
    ss = np.array([np.sum((d - m) ** 2) for d, m in zip(raw, means)])
    stds = np.sqrt(ss / (n - 1))
    scale = float(stds.mean())
    differences = tuple(d / scale for d in raw)
    means, stds, ss = means / scale, stds / scale, ss / scale**2
    magnitude = rounding_magnitude(cv) / scale
    spread_of_means = spread_of_means_or_unit(means, magnitude)
    if prior.delta0_bound is None:
        delta0_bound = float(max(np.abs(d).max() for d in differences))
    else:
        delta0_bound = prior.delta0_bound / scale
    if not delta0_bound > np.abs(means).max():
        raise ValueError(
            f"delta0_bound={prior.delta0_bound} is smaller than the largest mean difference "
            f"({np.abs(means).max() * scale:g}); the population mean must be able to reach it."
        )
    delta0_centre, delta0_spread = delta0_centre_and_spread(means, spread_of_means)
    data: dict[str, Any] = {
        "q": cv.q,
        "n": cv.n.astype(int).tolist(),
        "rho": cv.rho.astype(float),
        "sigma_upper": prior.sigma_factor * 1.0,  # mean_i(s_i) is 1 after rescaling
        "sigma0_upper": prior.sigma0_factor * spread_of_means,
        "delta0_bound": delta0_bound,
        "delta0_centre": delta0_centre,
        "delta0_spread": delta0_spread,
        **prior.stan_data(),
        "xbar": means,
        "ss": ss,
    }
    return ModelInput(
        differences=differences,
        scale=scale,
        rope=rope.scaled(scale),
        perturbed=perturbed,
        stds=stds,
        data=data,
    )


def initial_values(model_input: ModelInput, chains: int, rng: np.random.Generator) -> list[dict]:
    """Data-based, slightly jittered initial values, one dict per chain (conventions §3.2).

    σ_i ≈ s_i, δ₀ ≈ mean(x̄) (given as its sampler's coordinate ``delta0_raw``, see
    :mod:`.delta0_coordinate`), σ₀ ≈ sd(x̄), α = 2, β = 0.1 and the standardised logs of ν − 1 and
    of the mixing precisions τ_i near 0 (their prior centres); each jittered by about a tenth of
    its uncertainty so that R-hat can detect stuck chains. Stan's default random inits in
    (−2, 2) on the unconstrained scale put σ_i and σ₀ near 0 or near their huge upper bounds,
    where chains can stall with a step size near zero.
    """
    data = model_input.data
    means = np.asarray(data["xbar"], float)
    stds = model_input.stds
    se = model_input.standard_errors
    bound = data["delta0_bound"]
    student = data["nu_prior"] != 2

    def inside(value: np.ndarray | float, low: float, high: float) -> np.ndarray | float:
        margin = 1e-6 * (high - low)
        return np.clip(value, low + margin, high - margin)

    sigma0_guess = max(np.std(means, ddof=1) if means.size > 1 else 0.0, 0.1 * se.mean())
    hierarchical = data["nu_prior"] == 0
    inits = []
    for _ in range(chains):
        delta0 = inside(means.mean() + 0.1 * se.mean() * rng.standard_normal(), -bound, bound)
        sigma0 = inside(
            sigma0_guess * np.exp(0.1 * rng.standard_normal()), 0.0, data["sigma0_upper"]
        )
        sigma = inside(
            stds * np.exp(0.05 * rng.standard_normal(means.size)), 0.0, data["sigma_upper"]
        )
        inits.append(
            {
                "delta0_raw": float(coordinate_from_delta0(delta0, data)),
                "sigma0": float(sigma0),
                "sigma": np.asarray(sigma, float),
                "nu_alpha": [2.0] if hierarchical else [],
                "nu_beta": [0.1] if hierarchical else [],
                "nu_raw": 0.1 * rng.standard_normal(int(student)),
                "tau_raw": 0.1 * rng.standard_normal(means.size if student else 0),
            }
        )
    return inits

"""The sampler's coordinates of the joint model turned into the model's quantities.

``stan/joint.stan`` samples θ₀ (as θ₀_raw), the factor L₀ of Σ₀/g (as its standard deviations
and correlation factor; L₀ is a transformed parameter), and the standardised logs of ν − 1, of
the mixing precisions τ_i and of the noise weights w_i; the true contrasts θ_i and the noise
covariances Ω_i are integrated out. This module rebuilds Σ₀ = gA₀L₀L₀ᵀA₀ᵀ, ν, τ_i and w_i, draws
θ_i from its normal full conditional given τ_i and w_i
(:func:`~.likelihood.theta_given_mean_noise`, drawn by :func:`draw_theta_given_mean_noise`)
and then Ω_i from its inverse Wishart full conditional given θ_i
(:func:`~.likelihood.inverse_wishart_draws`): one exact draw each per posterior draw, so the
θ_i and Ω_i draws are posterior draws. It expresses everything per model and per pair of models
in the original units:

* ``mu0`` (model): the population's centred model effects Cᵀθ₀ (they sum to 0);
* ``delta0``, ``sigma0`` (pair): location cᵀθ₀ and scale √(cᵀΣ₀c) of the Student-t population of the
  pair's difference (second − first), c = C(e_second − e_first);
* ``mu`` (dataset, model): the data set's centred model effects Cᵀθ_i (shrinkage estimates; for a
  model not run on the data set, the prediction from the other models' scores there and the
  population);
* ``sigma`` (dataset, pair): the per-fold noise sd √(c_iᵀΩ_ic_i) of the pair's difference, c_i the
  pair's vector in the data set's own contrasts (NaN when one of the two models was not run;
  with the fold-level noise √(σ_ia² + σ_ib²), :func:`fold_pair_noise_sd`);
* ``nu``, ``tau`` (dataset), ``nu_alpha``, ``nu_beta``; ``theta0`` and ``Sigma0`` (contrast) for
  predictive draws;
* with the fold-level noise (``joint_fold.stan``), Ω_i = C D_iCᵀ from the scales σ_im
  (:mod:`~.fold_noise`), reported as ``noise_sd`` (dataset, model) with their spread
  ``noise_spread`` (ω, the absolute value of the sampler's signed coordinate).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import arviz as az
import numpy as np
import xarray as xr

from ..hierarchical.scale_mixture import nu_from_standardised, tau_from_standardised
from ..threads import default_threads, map_on_threads
from .contrasts import observed_pair_vectors, pad_observed, pair_vectors
from .fold_noise import fold_noise_covariances, log_sigmas
from .likelihood import inverse_wishart_draws, solve_or_pseudo_inverse
from .model_input import JointModelInput


def pair_labels(models: tuple[str, ...]) -> list[tuple[str, str]]:
    """All pairs (first, second) of models in order, first before second."""
    return list(combinations(models, 2))


def _values(posterior: xr.Dataset, name: str) -> np.ndarray | None:
    if name not in posterior or posterior[name].size == 0:
        return None
    return np.asarray(posterior[name].values, dtype=float)


def theta0_centre(stan_data: dict) -> np.ndarray:
    """The centre of θ₀'s parametrisation in ``joint.stan``: the least-squares θ of the ȳ_i,
    (Σ_i M_iᵀM_i)⁻¹ Σ_i M_iᵀȳ_i (padded ȳ_i and M_i), the mean of the ȳ_i when every model was
    run everywhere (M_i = I)."""
    design = np.asarray(stan_data["design"], float)
    ybar = np.asarray(stan_data["ybar"], float)
    gram = np.einsum("qji,qjl->il", design, design)
    return np.linalg.solve(gram, np.einsum("qji,qj->i", design, ybar))


def theta0_from_raw(stan_data: dict, theta0_raw: np.ndarray) -> np.ndarray:
    """θ₀ = centre + A₀ θ₀_raw, the map of ``joint.stan`` (θ₀_raw of shape (..., d);
    :func:`theta0_centre`)."""
    centre = theta0_centre(stan_data)
    return centre + np.einsum("ij,...j->...i", stan_data["population_basis"], theta0_raw)


def noise_weights(stan_data: dict, noise_weight_raw: np.ndarray) -> np.ndarray:
    """The noise weights w_i ~ Gamma(df_i/2, df_i/2) of ``joint.stan`` from their standardised
    logs (..., q)."""
    return tau_from_standardised(noise_weight_raw, np.asarray(stan_data["noise_df"], float))


def draw_noise_covariances(
    stan_data: dict, thetas: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """One draw of every Ω_i from its full conditional given θ_i (..., q, d), padded with I.

    Given θ_i, p(Ω_i | ·) ∝ |Ω_i|^(−(df_i + 2d_i + 1)/2) exp(−tr(Ω_i⁻¹B_i)/2) with
    B_i = (n_i/b_i)(df_iV_i + e_ie_iᵀ), e_i = ȳ_i − M_iθ_i: InvWishart(df_i + d_i, B_i) on the
    d_i observed contrasts (:func:`~.likelihood.noise_marginal`; df_i + d_i = n_i − d_i under the
    invariant prior). Drawn padded to d with df_i + d and B_i's unused block the identity: the
    top-left d_i × d_i block of InvWishart(ν + d − d_i, B) is InvWishart(ν, B_11).
    """
    n, rho = np.asarray(stan_data["n"], float), np.asarray(stan_data["rho"], float)
    observed = np.asarray(stan_data["observed"])
    df = np.asarray(stan_data["noise_df"], float)
    root = np.asarray(stan_data["mean_noise_root"], float)
    d = root.shape[-1]
    mean_noise = root @ np.swapaxes(root, -1, -2)
    residual = np.asarray(stan_data["ybar"]) - np.einsum(
        "qij,...qj->...qi", np.asarray(stan_data["design"], float), thetas
    )
    n_over_b = n / (1 + (n - 1) * rho)
    scale = n_over_b[:, None, None] * (
        df[:, None, None] * mean_noise + np.einsum("...i,...j->...ij", residual, residual)
    )
    draws = inverse_wishart_draws(df + d, pad_observed(scale, observed), rng)
    return pad_observed(draws, observed)


def _factor_product(basis: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """(B L)(B L)ᵀ for a basis B (…, d, d) and Cholesky factors L (…, d, d), broadcast."""
    root = basis @ factor
    return root @ np.swapaxes(root, -1, -2)


def covariance_root(cov: np.ndarray) -> np.ndarray:
    """A root R with RRᵀ = cov for a stack of covariances (..., d, d), so that R z with
    z ~ N(0, I) is a normal draw: the Cholesky factor, or, where floating point has left some
    matrix of the stack with an eigenvalue at or just below 0 (conditional covariances computed
    from draws of V_i and Ω_i of very different scales), the symmetric square root U diag(√λ⁺)Uᵀ
    of the eigendecomposition with negative eigenvalues set to 0."""
    try:
        return np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        eigenvalues, vectors = np.linalg.eigh(cov)
        root = vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))[..., None, :]
        return root @ np.swapaxes(vectors, -1, -2)


def draw_theta_given_mean_noise(
    ybar: np.ndarray,
    theta0: np.ndarray,
    population_cov: np.ndarray,
    inverse_tau: np.ndarray,
    mean_noise: np.ndarray,
    rng: np.random.Generator,
    design: np.ndarray | None = None,
) -> np.ndarray:
    """One draw of every θ_i from its normal full conditional per posterior draw (the
    distribution of :func:`~.likelihood.theta_given_mean_noise`), by Matheron's rule.

    With V_i = Σ₀/τ_i, θ* = θ₀ + V_i^½ z and ε* = W_i^½ z' drawn from the prior and the noise
    (z, z' standard normal), θ_i = θ* + V_iM_iᵀ(M_iV_iM_iᵀ + W_i)⁻¹(ȳ_i − M_iθ* − ε*) is a draw of
    θ_i | ȳ_i (the conditioning of a joint normal by its residual; Hoffman and Ribak 1991,
    Wilson et al. 2020): one linear solve with one right-hand side per data set and draw, where
    the conditional's mean and covariance need a solve with d right-hand sides, four products of
    d × d matrices and a Cholesky factor. The root of Σ₀ is taken once per draw and scaled by
    τ_i^(−½). Where M_iV_iM_iᵀ + W_i is singular in floating point, its pseudo-inverse stands for
    the inverse, as in :func:`~.likelihood.theta_given_mean_noise`.

    Shapes: ``ybar`` (q, d); ``theta0`` (draw, d); ``population_cov`` Σ₀ (draw, d, d);
    ``inverse_tau`` (draw, q); ``mean_noise`` W_i (draw, q, d, d); ``design`` M_i (q, d, d),
    default the identity (a data set with models missing has zero rows beyond its d_i and W_i
    the identity there, see :func:`~.contrasts.pad_observed`). Returns θ_i (draw, q, d).
    """
    scale = np.sqrt(inverse_tau)[..., None]
    population_root = covariance_root(population_cov)
    prior = theta0[:, None, :] + scale * np.einsum(
        "aij,aqj->aqi", population_root, rng.standard_normal(inverse_tau.shape + theta0.shape[-1:])
    )
    noise = np.einsum(
        "aqij,aqj->aqi", covariance_root(mean_noise), rng.standard_normal(prior.shape)
    )
    prior_cov = population_cov[:, None] * inverse_tau[..., None, None]
    if design is None:
        total = prior_cov + mean_noise
        residual = ybar - prior - noise
    else:
        total = design @ prior_cov @ np.swapaxes(design, -1, -2) + mean_noise
        residual = ybar - np.einsum("qij,aqj->aqi", design, prior) - noise
    solved = solve_or_pseudo_inverse(total, residual[..., None])[..., 0]
    if design is not None:
        solved = np.einsum("qji,aqj->aqi", design, solved)
    return prior + inverse_tau[..., None] * np.einsum("aij,aqj->aqi", population_cov, solved)


#: Posterior draws per block of the θ_i completion: each block of one chain's draws has its own
#: random stream (spawned from the completion's generator in the blocks' order), so the numbers
#: do not depend on how many threads complete the blocks. At 16 models x 132 data sets a block
#: holds 100 x 132 covariances W_i of 15 x 15 (24 MB), one chain's 1 000 draws 0.24 GB.
THETA_BLOCK_DRAWS = 100


def _draw_thetas(
    model_input: JointModelInput,
    theta0: np.ndarray,
    population_cov: np.ndarray,
    inverse_tau: np.ndarray,
    mean_noise: Callable[[int, slice], np.ndarray],
    rng: np.random.Generator,
) -> np.ndarray:
    """One draw of every θ_i from its full conditional per posterior draw
    (:func:`draw_theta_given_mean_noise`), in blocks of at most :data:`THETA_BLOCK_DRAWS` draws
    of one chain on :func:`~bayes_hier.threads.default_threads` threads;
    ``mean_noise(chain, draws)`` is the covariance W_i of ȳ_i given θ_i at those draws of one
    chain (draw, q, d, d), made one block at a time."""
    data = model_input.data
    ybar = np.asarray(data["ybar"], float)
    design = None if model_input.complete else np.asarray(data["design"], float)
    chains, draws = theta0.shape[:2]
    blocks = [
        (chain, slice(start, start + THETA_BLOCK_DRAWS))
        for chain in range(chains)
        for start in range(0, draws, THETA_BLOCK_DRAWS)
    ]
    streams = rng.spawn(len(blocks))
    thetas = np.empty(theta0.shape[:2] + ybar.shape)

    def complete_block(block: int) -> None:
        chain, part = blocks[block]
        thetas[chain, part] = draw_theta_given_mean_noise(
            ybar,
            theta0[chain, part],
            population_cov[chain, part],
            inverse_tau[chain, part],
            mean_noise(chain, part),
            streams[block],
            design,
        )

    map_on_threads(complete_block, range(len(blocks)), default_threads(len(blocks)))
    return thetas


def _fold_noise(
    posterior: xr.Dataset, model_input: JointModelInput, variables: dict[str, xr.DataArray]
) -> np.ndarray:
    """log σ_im of the fold-level noise (:mod:`~.fold_noise`, chain, draw, q, k; Ω_i follows by
    :func:`~.fold_noise.fold_noise_covariances`); adds ``noise_sd`` (dataset, model: σ_im in the
    data's units, NaN where the model was not run) and ``noise_spread`` (ω = abs(ω̃), ω̃ the
    program's signed coordinate) to ``variables``."""
    data = model_input.data
    log_sigma = log_sigmas(
        data,
        _values(posterior, "noise_level"),
        _values(posterior, "model_noise_raw"),
        _values(posterior, "noise_spread"),
        _values(posterior, "noise_raw"),
    )
    noise_sd = np.where(model_input.observed, model_input.scale * np.exp(log_sigma), np.nan)
    variables["noise_sd"] = xr.DataArray(noise_sd, dims=("chain", "draw", "dataset", "model"))
    variables["noise_spread"] = xr.DataArray(
        np.abs(_values(posterior, "noise_spread")), dims=("chain", "draw")
    )
    return log_sigma


#: Draws per block of :func:`fold_pair_noise_sd`.
PAIR_BLOCK_DRAWS = 200


def fold_pair_noise_sd(noise_sd: np.ndarray, indices: list[tuple[int, int]]) -> np.ndarray:
    """The per-fold noise sd of every pair's difference (..., q, pairs) under the fold-level
    noise, from the models' σ_im (``noise_sd``, (..., q, k); NaN where not run): √(σ_ia² + σ_ib²).

    It is √(c_iᵀΩ_ic_i) of the full covariances' completion with Ω_i = B_iD_iB_iᵀ: the pair's
    vector is c_i = B_i(e_b − e_a) and B_iᵀB_i projects onto the differences of the models run,
    so c_iᵀB_iD_iB_iᵀc_i = (e_b − e_a)ᵀD_i(e_b − e_a), O(1) per pair instead of O(d²)."""
    first, second = (np.array(side) for side in zip(*indices))
    variance = noise_sd**2
    rows = variance.reshape(-1, *variance.shape[-2:])
    pair_sd = np.empty(rows.shape[:-1] + first.shape)
    # in blocks of draws: a few arrays of 20 MB reused instead of two temporaries of the result's
    # size (0.5 GB at 16 models x 132 data sets x 4 000 draws)
    for start in range(0, len(rows), PAIR_BLOCK_DRAWS):
        block = slice(start, start + PAIR_BLOCK_DRAWS)
        np.take(rows[block], first, axis=-1, out=pair_sd[block])
        pair_sd[block] += np.take(rows[block], second, axis=-1)
    np.sqrt(pair_sd, out=pair_sd)
    return pair_sd.reshape(variance.shape[:-1] + first.shape)


def complete_posterior(
    idata: az.InferenceData,
    model_input: JointModelInput,
    models: tuple[str, ...],
    datasets: tuple[str, ...],
    rng: np.random.Generator,
) -> az.InferenceData:
    """Replace the sampler's coordinates in ``idata.posterior`` by the model's quantities."""
    posterior = idata.posterior
    data = model_input.data
    scale, contrasts = model_input.scale, model_input.contrasts
    theta0 = theta0_from_raw(data, _values(posterior, "theta0_raw"))
    population_cov = _factor_product(
        data["population_basis"], _values(posterior, "population_factor")
    )
    chains, draws = theta0.shape[:2]
    variables: dict[str, xr.DataArray] = {}
    if model_input.noise == "full":
        weights = noise_weights(data, _values(posterior, "noise_weight_raw"))
        root = np.asarray(data["mean_noise_root"], float)
        fixed = root @ np.swapaxes(root, -1, -2)

        def mean_noise(chain: int, draws: slice) -> np.ndarray:
            return fixed / weights[chain, draws][..., None, None]
    else:
        log_sigma = _fold_noise(posterior, model_input, variables)
        n, rho = np.asarray(data["n"], float), np.asarray(data["rho"], float)
        ratio = ((1 + (n - 1) * rho) / n)[:, None, None]  # b_i / n_i

        def mean_noise(chain: int, draws: slice) -> np.ndarray:
            return ratio * fold_noise_covariances(data, log_sigma[chain, draws])

    inverse_tau = np.ones((chains, draws, data["q"]))
    nu_raw = _values(posterior, "nu_raw")
    if nu_raw is not None:
        alpha, beta = _values(posterior, "nu_alpha"), _values(posterior, "nu_beta")
        if alpha is not None and beta is not None:
            shape, rate = alpha[..., 0], beta[..., 0]
            variables["nu_alpha"] = xr.DataArray(shape, dims=("chain", "draw"))
            variables["nu_beta"] = xr.DataArray(rate, dims=("chain", "draw"))
        else:
            shape, rate = data["nu_shape"], data["nu_rate"]
        nu = nu_from_standardised(nu_raw[..., 0], shape, rate)
        tau = tau_from_standardised(_values(posterior, "tau_raw"), nu[..., None])
        inverse_tau = 1.0 / tau
        # the program samples the factor of Σ₀/g, g the geometric mean of the τ_i (joint_prior.stan)
        population_cov = population_cov * np.exp(np.log(tau).mean(axis=-1))[..., None, None]
        variables["nu"] = xr.DataArray(nu, dims=("chain", "draw"))
        variables["tau"] = xr.DataArray(tau, dims=("chain", "draw", "dataset"))
    thetas = _draw_thetas(model_input, theta0, population_cov, inverse_tau, mean_noise, rng)
    if model_input.noise == "full":
        noise_cov = draw_noise_covariances(data, thetas, rng)
    pairs = pair_labels(models)
    indices = [(models.index(a), models.index(b)) for a, b in pairs]
    vectors = pair_vectors(contrasts, indices)
    if model_input.noise == "full":
        observed_vectors = observed_pair_vectors(contrasts, model_input.observed, indices)
        pair_sigma = scale * np.sqrt(
            np.einsum("ipj,...ijl,ipl->...ip", observed_vectors, noise_cov, observed_vectors)
        )
    else:
        pair_sigma = fold_pair_noise_sd(variables["noise_sd"].values, indices)
    quadratic = "pj,...jl,pl->...p"
    model_level = {
        "mu0": (scale * theta0 @ contrasts, ("chain", "draw", "model")),
        "delta0": (scale * theta0 @ vectors.T, ("chain", "draw", "pair")),
        "sigma0": (
            scale * np.sqrt(np.einsum(quadratic, vectors, population_cov, vectors)),
            ("chain", "draw", "pair"),
        ),
        "mu": (scale * thetas @ contrasts, ("chain", "draw", "dataset", "model")),
        "sigma": (pair_sigma, ("chain", "draw", "dataset", "pair")),
        "theta0": (scale * theta0, ("chain", "draw", "contrast")),
        "Sigma0": (scale**2 * population_cov, ("chain", "draw", "contrast", "contrast_")),
    }
    for name, (values, dims) in model_level.items():
        variables[name] = xr.DataArray(values, dims=dims)
    coords = {
        "chain": posterior["chain"].values,
        "draw": posterior["draw"].values,
        "model": list(models),
        "pair": [f"{b} - {a}" for a, b in pairs],
        "dataset": list(datasets),
    }
    idata.posterior = xr.Dataset(variables, coords=coords, attrs=posterior.attrs)
    idata.posterior.attrs.update(
        scale=scale, units="original units of the scores (higher is better)"
    )
    return idata

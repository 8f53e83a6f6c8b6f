"""Bayesian test: which dominance statement is the most probable? (conventions §4).

The statements' probabilities ``theta = (theta_0, ..., theta_{2^m - 1})`` get a Dirichlet prior
with ``alpha_k = s / 2^m`` (``s = prior_strength``, default 1, so ``alpha_k = 1/2^m``); with the
tie-split counts ``n`` the posterior is ``Dirichlet(n + alpha)``. The test reports, for every
statement, ``P(theta_k = max_l theta_l | data)``, estimated as the share of posterior draws in
which ``theta_k`` is the largest (a tie between ``r`` coordinates gives each ``1/r``), so the
probabilities sum to 1. The Monte Carlo standard error of each is about
``sqrt(p_k (1 - p_k) / nsamples)``.

With ``structure="bn"`` the draws of ``theta`` come instead from a Bayesian network over the
measures (:mod:`bayes_hier.multimeasure.network`), which has fewer parameters when measures are
conditionally independent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._validate import check_int, check_positive
from ..seeding import SeedLike, resolve_seed
from .counts import DominanceCounts, padded_labels
from .network import BayesianNetwork, learn_structure

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Values of ``structure``.
STRUCTURES = ("dirichlet", "bn")

#: Posterior draws are generated in batches of at most this many numbers (about 8 MB each), so
#: memory stays bounded whatever ``nsamples``; the result does not depend on the batch size.
BATCH_ELEMENTS = 2**20

#: By default the posterior sample of theta is kept when it has at most this many numbers
#: (80 MB); otherwise ``sample`` is None unless ``keep_sample=True``.
KEEP_SAMPLE_ELEMENTS = 10_000_000


def winner_shares(theta: np.ndarray) -> np.ndarray:
    """Sum over rows of the indicator that a coordinate is the row's maximum, ties split equally.

    For a ``(draws, K)`` array returns ``w_k = sum_i [theta_ik = max_l theta_il] / r_i`` with
    ``r_i`` the number of maximal coordinates in row ``i``.
    """
    is_top = theta == theta.max(axis=1, keepdims=True)
    return (is_top / is_top.sum(axis=1, keepdims=True)).sum(axis=0)


@dataclass(frozen=True, eq=False)
class DominanceProbabilities:
    """Posterior probability that each dominance statement is the most probable one.

    Attributes
    ----------
    probs
        ``probs[k] = P(theta_k is the largest | data)``, Monte Carlo estimate; sums to 1.
    counts
        The analysed :class:`~bayes_hier.multimeasure.DominanceCounts`.
    structure
        ``"dirichlet"`` (one parameter per statement) or ``"bn"`` (Bayesian network).
    posterior_mean
        ``E[theta | data]`` (exact): ``(n_k + alpha_k) / (n + s)`` for the Dirichlet, the product
        of the CPT posterior means for the network.
    sample
        ``(nsamples, 2^m)`` posterior draws of theta, or ``None`` when not kept (see
        ``keep_sample`` of :func:`bayesian_dominance`).
    nsamples, seed, prior_strength
        Number of draws, the integer seed used, and ``s`` (Dirichlet total ``sum alpha_k`` / BDeu
        equivalent sample size).
    network
        The learned :class:`~bayes_hier.multimeasure.network.BayesianNetwork` (``"bn"`` only).
    """

    probs: np.ndarray
    counts: DominanceCounts
    structure: str
    posterior_mean: np.ndarray
    sample: np.ndarray | None
    nsamples: int
    seed: int
    prior_strength: float
    network: BayesianNetwork | None = None

    @property
    def labels(self) -> tuple[str, ...]:
        """The statements in words (same order as ``probs``)."""
        return self.counts.labels

    @property
    def best(self) -> int:
        """Number of the statement most likely to be the most probable one."""
        return int(np.argmax(self.probs))

    @property
    def most_probable(self) -> str:
        """The statement most likely to be the most probable one, in words."""
        return self.counts.label(self.best)

    @property
    def best_probability(self) -> float:
        """``probs[best]``."""
        return float(self.probs[self.best])

    @property
    def standard_errors(self) -> np.ndarray:
        """Monte Carlo standard errors ``sqrt(p_k (1 - p_k) / nsamples)``."""
        return np.sqrt(self.probs * (1 - self.probs) / self.nsamples)

    @property
    def edges(self) -> list[tuple[str, str]] | None:
        """``(parent, child)`` measure names of the learned DAG (``None`` for ``"dirichlet"``)."""
        return None if self.network is None else self.network.edges

    def to_frame(self) -> pd.DataFrame:
        """One row per statement: ``bits``, ``label``, ``count``, ``posterior_mean`` (of theta),
        ``probability`` (that it is the most probable) and its Monte Carlo ``se``."""
        frame = self.counts.to_frame().drop(columns="proportion")
        frame["posterior_mean"] = self.posterior_mean
        frame["probability"] = self.probs
        frame["se"] = self.standard_errors
        return frame

    def plot(self, ax: Axes | None = None, max_statements: int = 20) -> Figure:
        """Horizontal bars of ``P(statement is the most probable | data)``.

        With more than ``max_statements`` statements only the most probable ones are shown.
        """
        import matplotlib.pyplot as plt

        own = ax is None
        if own:
            fig, ax = plt.subplots(figsize=(7, 0.45 * min(self.counts.n_statements, 20) + 1.2))
        else:
            fig = ax.figure
        order = np.arange(self.counts.n_statements)
        if len(order) > max_statements:
            order = np.sort(np.argsort(-self.probs, kind="stable")[:max_statements])
        labels = self.labels
        y = np.arange(len(order))[::-1]
        colours = ["tab:orange" if k == self.best else "tab:blue" for k in order]
        ax.barh(y, self.probs[order], color=colours)
        ax.set_yticks(y, [labels[k] for k in order])
        for yy, k in zip(y, order):
            ax.text(self.probs[k] + 0.01, yy, f"{self.probs[k]:.3f}", va="center", fontsize=9)
        ax.set_xlim(0, 1.12)
        ax.set_xlabel("P(statement is the most probable | data)")
        kind = "Dirichlet" if self.structure == "dirichlet" else "Bayesian network"
        ax.set_title(f"{self.counts.names[0]} vs {self.counts.names[1]}: {kind}")
        if own:
            fig.tight_layout()
        return fig

    def __str__(self) -> str:
        kind = (
            f"Dirichlet(n + {self.prior_strength:g}/2^m)"
            if self.structure == "dirichlet"
            else f"Bayesian network (BDeu, ess = {self.prior_strength:g})"
        )
        lines = [
            f"Which dominance statement is the most probable? {kind}, {self.nsamples:,} draws",
        ]
        if self.network is not None:
            edges = ", ".join(f"{p} -> {c}" for p, c in self.network.edges) or "none"
            lines.append(f"  learned edges: {edges}")
        order = np.argsort(-self.probs, kind="stable")[:10]
        for k, label in zip(order, padded_labels(self.labels, order)):
            lines.append(
                f"  P({label} is most probable) = {self.probs[k]:.4f}"
                f"  (count {self.counts.counts[k]:g})"
            )
        if self.counts.n_statements > 10:
            lines.append(f"  ... {self.counts.n_statements - 10} more statements")
        lines.append(f"Most probable: {self.most_probable} ({self.best_probability:.3f})")
        return "\n".join(lines)


def bayesian_dominance(
    counts: DominanceCounts | Sequence[float] | np.ndarray,
    structure: str = "dirichlet",
    nsamples: int = 100_000,
    seed: SeedLike = None,
    prior_strength: float = 1.0,
    keep_sample: bool | None = None,
) -> DominanceProbabilities:
    """Posterior probability that each dominance statement is the most probable one.

    Parameters
    ----------
    counts
        A :class:`DominanceCounts` or a plain count vector of length ``2^m`` (binary order).
    structure
        ``"dirichlet"``: ``theta ~ Dirichlet(n + alpha)``, ``alpha_k = prior_strength / 2^m``
        (at most 16 measures). ``"bn"``: learn a DAG over the measures (exact BDeu search, at
        most 6 measures), draw the conditional probability tables from their Beta posteriors and
        multiply them into ``theta``.
    nsamples
        Number of posterior draws (Monte Carlo error about ``sqrt(p (1 - p) / nsamples)``).
    seed
        ``None``, an int, a NumPy ``Generator`` or ``SeedSequence``, made an int by
        :func:`~bayes_hier.seeding.resolve_seed` (recorded in the result), then the seed of
        ``numpy.random.default_rng`` (``"bn"``: of ``numpy.random.SeedSequence``, which gives one
        stream per node); the same seed gives identical numbers, whatever the batching.
    prior_strength
        ``s = sum_k alpha_k`` of the Dirichlet, and the BDeu equivalent sample size (default 1).
    keep_sample
        Keep the ``(nsamples, 2^m)`` draws of theta in ``sample``. ``None`` (default): keep them
        when they are at most 10 million numbers.

    Returns
    -------
    DominanceProbabilities
        ``probs[k] = (1 / nsamples) sum_i [theta_ik = max_l theta_il] / r_i`` (``r_i`` tied maxima).
    """
    if not isinstance(counts, DominanceCounts):
        counts = DominanceCounts.from_counts(counts)
    if structure not in STRUCTURES:
        raise ValueError(f"structure must be one of {STRUCTURES}; got {structure!r}.")
    nsamples = check_int(nsamples, "nsamples", minimum=1)
    prior_strength = check_positive(prior_strength, "prior_strength")
    seed = resolve_seed(seed, "seed")
    n_statements = counts.n_statements
    if keep_sample is None:
        keep_sample = nsamples * n_statements <= KEEP_SAMPLE_ELEMENTS

    rng = np.random.default_rng(seed)
    network = None
    if structure == "bn":
        network = learn_structure(counts, ess=prior_strength)
        mean = network.posterior_mean()

        # one stream per node (spawned from the seed) so that batching does not change the draws
        streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(counts.m)]

        def draw(size: int) -> np.ndarray:
            return network.sample_joint(size, streams)

    else:
        alpha = counts.counts + prior_strength / n_statements
        mean = alpha / alpha.sum()

        def draw(size: int) -> np.ndarray:
            gammas = rng.gamma(alpha, size=(size, n_statements))
            return gammas / gammas.sum(axis=1, keepdims=True)

    batch = max(1, min(nsamples, BATCH_ELEMENTS // n_statements))
    wins = np.zeros(n_statements)
    kept = []
    done = 0
    while done < nsamples:
        size = min(batch, nsamples - done)
        theta = draw(size)
        wins += winner_shares(theta)
        if keep_sample:
            kept.append(theta)
        done += size
    probs = wins / nsamples
    sample = np.concatenate(kept) if keep_sample else None
    for array in (probs, mean, sample):
        if array is not None:
            array.setflags(write=False)
    return DominanceProbabilities(
        probs=probs,
        counts=counts,
        structure=structure,
        posterior_mean=mean,
        sample=sample,
        nsamples=nsamples,
        seed=seed,
        prior_strength=float(prior_strength),
        network=network,
    )

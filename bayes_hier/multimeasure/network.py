"""Bayesian network over the measures' binary outcomes (conventions §4, Bayesian-network extension).

The ``m`` columns of the outcome matrix (1 = B better on that measure) are binary variables.
A DAG over them is learned by exact search with the BDeu score, computed from the (tie-split,
possibly fractional) statement counts, which are sufficient statistics for every family. For node
``j`` with parent set ``Pa`` (``q = 2^|Pa|`` configurations) and weighted counts ``N_pk`` (parent
configuration ``p``, value ``k``), the BDeu log score with equivalent sample size ``s`` is

    sum_p [ lgamma(s/q) - lgamma(s/q + N_p) + sum_k ( lgamma(s/(2q) + N_pk) - lgamma(s/(2q)) ) ]

and the score of a DAG is the sum over nodes. The search maximises it over all DAGs by dynamic
programming over orderings (Silander & Myllymäki, 2006): for each node and candidate set the best
parent subset, then for each set of nodes the best sink. Equal scores prefer fewer parents; DAGs
of one Markov-equivalence class score the same (BDeu is score-equivalent), so an edge's direction
is one representative of its class (ties are broken towards the order of the measures: earlier
measure = parent), not a causal claim. A known BDeu quirk: a measure whose outcome never changes
(B worse on it in every case) can become a parent of a nearly deterministic child, because
conditioning on a constant only halves the child's prior pseudo-counts; such an edge carries no
information and leaves the statement probabilities essentially unchanged.

Each conditional probability ``P(x_j = 1 | Pa = p)`` then has the posterior
``Beta(N_p1 + s/(2q), N_p0 + s/(2q))``, independently across nodes and configurations, and a draw
of the joint over the ``2^m`` statements is ``theta_x = prod_j P(x_j | Pa_j = x_Pa)``. With the
complete DAG this is exactly the Dirichlet(n + s/2^m) posterior of the plain test (Heckerman,
Geiger & Chickering, 1995); with missing edges it has fewer parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import gammaln

from .counts import DominanceCounts, statement_bits, statement_index

#: Largest number of measures for the exact structure search: ``m · 2^(m-1)`` local scores and a
#: dynamic programme over ``2^m`` node sets and ``m · 2^(m-1)`` parent-set lattices, each small up
#: to m = 6 (a few milliseconds); beyond that the search time and the number of CPT parameters
#: (up to 2^m - 1, more than the cases one usually has) grow quickly.
MAX_BN_MEASURES = 6


def family_counts(counts: np.ndarray, node: int, parents: tuple[int, ...]) -> np.ndarray:
    """Weighted counts ``N[p, k]`` of node ``node`` = k under parent configuration ``p``.

    ``p`` numbers the parents' values in binary order, the first parent (in the order given) the
    most significant bit. Shape ``(2^len(parents), 2)``.
    """
    counts = np.asarray(counts, dtype=float)
    m = counts.size.bit_length() - 1
    table = counts.reshape((2,) * m)
    family = (*parents, node)
    others = tuple(axis for axis in range(m) if axis not in family)
    marginal = table.sum(axis=others) if others else table
    kept = [axis for axis in range(m) if axis in family]
    marginal = np.transpose(marginal, [kept.index(axis) for axis in family])
    return marginal.reshape(2 ** len(parents), 2)


def bdeu_local_score(
    counts: np.ndarray, node: int, parents: tuple[int, ...], ess: float = 1.0
) -> float:
    """BDeu log marginal likelihood of ``node`` given ``parents`` (formula in the module doc)."""
    n = family_counts(counts, node, parents)
    q = n.shape[0]
    a_p, a_pk = ess / q, ess / (2 * q)
    return float(
        np.sum(gammaln(a_p) - gammaln(a_p + n.sum(axis=1)))
        + np.sum(gammaln(a_pk + n) - gammaln(a_pk))
    )


def bdeu_score(
    counts: DominanceCounts | np.ndarray, parents: tuple[tuple[int, ...], ...], ess: float = 1.0
) -> float:
    """BDeu log score of the DAG given as a parent tuple per node: sum of the local scores."""
    values = counts.counts if isinstance(counts, DominanceCounts) else np.asarray(counts, float)
    return sum(bdeu_local_score(values, j, tuple(pa), ess) for j, pa in enumerate(parents))


def _members(mask: int, m: int) -> tuple[int, ...]:
    return tuple(j for j in range(m) if mask >> j & 1)


def _search(counts: np.ndarray, m: int, ess: float) -> tuple[tuple[tuple[int, ...], ...], float]:
    """Exact BDeu-optimal DAG: (parents per node, score)."""
    full = (1 << m) - 1
    # best[j][S] = (score, parent mask) of the best parent set of j inside S (j not in S).
    best: list[dict[int, tuple[float, int]]] = []
    for j in range(m):
        table: dict[int, tuple[float, int]] = {}
        for mask in range(full + 1):  # increasing masks: every subset comes before its supersets
            if mask >> j & 1:
                continue
            candidate = (bdeu_local_score(counts, j, _members(mask, m), ess), mask)
            for i in _members(mask, m):
                sub = table[mask & ~(1 << i)]
                if sub[0] >= candidate[0] and (
                    sub[0] > candidate[0] or bin(sub[1]).count("1") < bin(candidate[1]).count("1")
                ):
                    candidate = sub
            table[mask] = candidate
        best.append(table)
    # score[U] = best score of a DAG over U whose parents lie in U; sink[U] = its last node.
    score = {0: 0.0}
    sink: dict[int, int] = {}
    for nodes in range(1, full + 1):
        options = [
            (score[nodes & ~(1 << j)] + best[j][nodes & ~(1 << j)][0], j)
            for j in _members(nodes, m)
        ]
        top = max(option[0] for option in options)
        # Among (numerically) equal scores take the last node as the sink, so that equivalent
        # DAGs are oriented along the order of the measures (earlier measure = parent).
        score[nodes], sink[nodes] = max(
            (option for option in options if option[0] >= top - 1e-9 * max(1.0, abs(top))),
            key=lambda option: option[1],
        )
    parents: list[tuple[int, ...]] = [()] * m
    nodes = full
    while nodes:
        j = sink[nodes]
        rest = nodes & ~(1 << j)
        parents[j] = _members(best[j][rest][1], m)
        nodes = rest
    return tuple(parents), float(score[full])


@dataclass(frozen=True, eq=False)
class BayesianNetwork:
    """A DAG over the measures with the Beta posteriors of its conditional probability tables.

    Attributes
    ----------
    measures
        Node names (the measures).
    parents
        ``parents[j]`` are the indices of node j's parents (increasing).
    score
        BDeu log score of the DAG.
    ess
        Equivalent sample size of the BDeu prior.
    family_counts
        ``family_counts[j][p, k]``: weighted number of cases with ``x_j = k`` under parent
        configuration ``p`` (binary order of the parents' values, first parent = MSB).
    """

    measures: tuple[str, ...]
    parents: tuple[tuple[int, ...], ...]
    score: float
    ess: float
    family_counts: tuple[np.ndarray, ...]

    @property
    def m(self) -> int:
        """Number of nodes."""
        return len(self.measures)

    @property
    def edges(self) -> list[tuple[str, str]]:
        """``(parent, child)`` measure names, ordered by child then parent."""
        return [
            (self.measures[p], self.measures[j]) for j in range(self.m) for p in self.parents[j]
        ]

    @property
    def n_parameters(self) -> int:
        """Free CPT parameters, ``sum_j 2^|Pa_j|`` (the plain Dirichlet has ``2^m - 1``)."""
        return sum(2 ** len(pa) for pa in self.parents)

    def posterior_parameters(self, node: int) -> np.ndarray:
        """``(2^|Pa|, 2)`` Beta parameters ``N_pk + ess / (2 q)`` of ``P(x_node = k | p)``."""
        n = self.family_counts[node]
        return n + self.ess / (2 * n.shape[0])

    def _joint(self, conditionals: list[np.ndarray]) -> np.ndarray:
        """``theta_x = prod_j conditionals[j][..., p_j(x), x_j]`` for every statement x."""
        bits = statement_bits(self.m)
        theta = np.ones((*conditionals[0].shape[:-2], len(bits)))
        for j, table in enumerate(conditionals):
            pa = self.parents[j]
            config = statement_index(bits[:, pa]) if pa else np.zeros(len(bits), dtype=np.int64)
            theta = theta * table[..., config, bits[:, j]]
        return theta

    def posterior_mean(self) -> np.ndarray:
        """``E[theta | data]``: the product of the CPT posterior means (rows are independent)."""
        means = []
        for j in range(self.m):
            alpha = self.posterior_parameters(j)
            means.append(alpha / alpha.sum(axis=1, keepdims=True))
        return self._joint(means)

    def sample_joint(
        self, size: int, rng: np.random.Generator | Sequence[np.random.Generator]
    ) -> np.ndarray:
        """``(size, 2^m)`` draws of the joint over the statements from the CPT posteriors.

        Each Beta draw is ``g_1 / (g_0 + g_1)`` with independent gamma variates, which keeps both
        ``P(x = 1 | p)`` and ``P(x = 0 | p)`` accurate near 0. ``rng`` is one generator or one per
        node; with one per node, successive calls continue each node's stream, so drawing in
        batches gives the same numbers as one big call.
        """
        streams = [rng] * self.m if isinstance(rng, np.random.Generator) else list(rng)
        if len(streams) != self.m:
            raise ValueError(f"Give one generator or {self.m} (one per node); got {len(streams)}.")
        conditionals = []
        for j, stream in enumerate(streams):
            alpha = self.posterior_parameters(j)
            gammas = stream.gamma(alpha, size=(size, *alpha.shape))
            conditionals.append(gammas / gammas.sum(axis=-1, keepdims=True))
        return self._joint(conditionals)

    def to_frame(self) -> pd.DataFrame:
        """The edges, one row each: ``parent``, ``child``."""
        return pd.DataFrame(self.edges, columns=["parent", "child"])

    def cpt_frame(self) -> pd.DataFrame:
        """Posterior mean of ``P(B better on node | parents' outcomes)`` for every node and
        parent configuration, with the weighted count behind it."""
        rows = []
        for j in range(self.m):
            alpha = self.posterior_parameters(j)
            pa = self.parents[j]
            for p, row in enumerate(statement_bits(len(pa)) if pa else [[]]):
                given = ", ".join(
                    f"{'better' if bit else 'worse'} on {self.measures[i]}"
                    for i, bit in zip(pa, row)
                )
                rows.append(
                    {
                        "node": self.measures[j],
                        "given": given or "(no parents)",
                        "n": float(self.family_counts[j][p].sum()),
                        "p_better": float(alpha[p, 1] / alpha[p].sum()),
                    }
                )
        return pd.DataFrame(rows, columns=["node", "given", "n", "p_better"])

    def __str__(self) -> str:
        edges = ", ".join(f"{p} -> {c}" for p, c in self.edges) or "none (independent measures)"
        return (
            f"Bayesian network over {list(self.measures)} (BDeu, ess = {self.ess:g}, "
            f"log score {self.score:.3f}): edges {edges}"
        )


def learn_structure(counts: DominanceCounts, ess: float = 1.0) -> BayesianNetwork:
    """Exact BDeu-optimal DAG over the measures from the statement counts.

    Parameters
    ----------
    counts
        Tie-split statement counts (:func:`~bayes_hier.multimeasure.dominance_counts`).
    ess
        Equivalent sample size of the BDeu prior (default 1, which makes the complete DAG match
        the Dirichlet(1/2^m) prior of the plain test).

    Raises
    ------
    ValueError
        If ``m > MAX_BN_MEASURES`` or ``ess <= 0``.
    """
    if not np.isfinite(ess) or ess <= 0:
        raise ValueError(f"The equivalent sample size must be positive; got {ess}.")
    m = counts.m
    if m > MAX_BN_MEASURES:
        raise ValueError(
            f"The Bayesian-network structure search is exact and supports at most "
            f"{MAX_BN_MEASURES} measures (got {m}): it scores every parent set of every node and "
            f"every ordering, which grows like m · 2^m and beyond {MAX_BN_MEASURES} measures the "
            "tables have more parameters than cases. Use structure='dirichlet' or fewer measures."
        )
    parents, score = _search(counts.counts, m, float(ess))
    tables = tuple(family_counts(counts.counts, j, pa) for j, pa in enumerate(parents))
    for table in tables:
        table.setflags(write=False)
    return BayesianNetwork(counts.measures, parents, score, float(ess), tables)

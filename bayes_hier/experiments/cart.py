"""A classification tree with R rpart's default stopping and pruning rules, on scikit-learn.

The paper's Friedman experiment compares linear discriminant analysis with CART as R's
``rpart`` fits it with its defaults (through caret's ``rpart1SE``, which calls ``rpart`` with no
control arguments): ``minsplit = 20``, ``minbucket = round(minsplit / 3) = 7``, ``cp = 0.01``,
Gini splits. :class:`RpartClassifier` reproduces those rules:

* growth: scikit-learn's CART with Gini splits, ``min_samples_split = 20`` (a node of fewer
  cases is not split) and ``min_samples_leaf = 7`` (no child of fewer cases);
* pruning: rpart's complexity parameter is relative to the root's risk, the number of
  misclassified training cases when every case gets the majority class; a subtree is kept only if
  it lowers the misclassification count by more than ``α = cp · R(root)`` per extra leaf. That is
  cost-complexity pruning (Breiman et al. 1984, ch. 3) on the misclassification risk
  ``R_α(T) = R(T) + α |T|``, and its optimal subtree follows from one bottom-up pass:
  ``C(t) = min(R(t) + α, C(left) + C(right))`` with ``C(leaf) = R(leaf) + α``; the node becomes a
  leaf when ``R(t) + α ≤ C(left) + C(right)`` (rpart snips a split whose complexity is ``≤ α``).

scikit-learn's own ``ccp_alpha`` cannot express this rule: it prunes on the decrease of the
*Gini impurity* (weighted by the share of cases), not of the misclassification count, and in
absolute units, not relative to the root.

Known differences from rpart, all without effect on the fitted model in the Friedman settings'
continuous features: rpart uses surrogate splits only for missing values (none here); ties
between equally good splits may be broken differently.
"""

from __future__ import annotations

import numpy as np

#: rpart's defaults (rpart.control): minsplit, minbucket = round(minsplit / 3), cp.
MIN_SPLIT = 20
MIN_BUCKET = round(MIN_SPLIT / 3)
CP = 0.01


def prune_on_misclassification(
    left: np.ndarray, right: np.ndarray, errors: np.ndarray, alpha: float
) -> np.ndarray:
    """Which nodes of a binary tree are leaves of its cost-complexity optimal subtree.

    Parameters
    ----------
    left, right
        Child indices per node (``-1`` for a leaf), parents before children (scikit-learn's
        depth-first order).
    errors
        ``R(t)``: the misclassified training cases when node ``t`` is a leaf.
    alpha
        Cost per leaf, in the units of ``errors``.

    Returns
    -------
    numpy.ndarray
        Boolean per node: True where the pruned tree has a leaf (nodes below a pruned leaf are
        False). The pruned tree minimises ``Σ_leaves R(t) + α · #leaves``; among minimisers it is
        the smallest (a tie prunes).
    """
    size = left.size
    cost = errors.astype(float) + alpha
    collapse = left < 0
    for node in range(size - 1, -1, -1):  # children have larger indices than their parent
        if left[node] >= 0:
            below = cost[left[node]] + cost[right[node]]
            collapse[node] = errors[node] + alpha <= below
            cost[node] = min(errors[node] + alpha, below)
    leaf = np.zeros(size, dtype=bool)
    stack = [0]
    while stack:
        node = stack.pop()
        if collapse[node]:
            leaf[node] = True
        else:
            stack.extend((left[node], right[node]))
    return leaf


class RpartClassifier:
    """CART with rpart's default rules (see the module docstring): ``fit`` / ``predict``.

    Parameters
    ----------
    min_split, min_bucket, cp
        rpart's ``minsplit``, ``minbucket`` and ``cp`` (defaults 20, 7, 0.01).
    random_state
        Seed of scikit-learn's tree (it only breaks ties between equally good splits).
    """

    def __init__(
        self,
        min_split: int = MIN_SPLIT,
        min_bucket: int = MIN_BUCKET,
        cp: float = CP,
        random_state: int = 0,
    ) -> None:
        if min_split < 2 or min_bucket < 1 or cp < 0:
            raise ValueError(
                "RpartClassifier needs min_split >= 2, min_bucket >= 1 and cp >= 0; got "
                f"min_split={min_split}, min_bucket={min_bucket}, cp={cp}."
            )
        self.min_split = min_split
        self.min_bucket = min_bucket
        self.cp = cp
        self.random_state = random_state

    def fit(self, x: np.ndarray, y: np.ndarray) -> RpartClassifier:
        """Grow the tree with the stopping rules, then prune it at ``cp`` (module docstring)."""
        from sklearn.tree import DecisionTreeClassifier

        tree = DecisionTreeClassifier(
            min_samples_split=self.min_split,
            min_samples_leaf=self.min_bucket,
            random_state=self.random_state,
        ).fit(x, y)
        structure = tree.tree_
        counts = structure.value[:, 0, :] * structure.weighted_n_node_samples[:, None]
        errors = counts.sum(axis=1) - counts.max(axis=1)
        leaf = prune_on_misclassification(
            structure.children_left, structure.children_right, errors, self.cp * errors[0]
        )
        # Every node answers with the class of its nearest ancestor that is a pruned leaf.
        answer = np.arange(structure.node_count)
        for node in range(structure.node_count):
            for child in (structure.children_left[node], structure.children_right[node]):
                if child >= 0:
                    inside = answer[node] == node and not leaf[node]
                    answer[child] = child if inside else answer[node]
        self.tree_ = tree
        self.classes_ = tree.classes_
        self.leaf_ = leaf
        self.node_class_ = tree.classes_[np.argmax(counts, axis=1)][answer]
        return self

    @property
    def n_leaves(self) -> int:
        """Number of leaves of the pruned tree."""
        return int(self.leaf_.sum())

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Class of the pruned leaf each case falls into."""
        return self.node_class_[self.tree_.apply(x)]


__all__ = ["CP", "MIN_BUCKET", "MIN_SPLIT", "RpartClassifier", "prune_on_misclassification"]

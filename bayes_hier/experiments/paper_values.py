"""The published numbers of Corani et al. (2017) and the reproduced ones side by side.

Corani, Benavoli, Demšar, Mangili & Zaffalon, "Statistical comparison of classifiers through
Bayesian hierarchical modelling", Machine Learning 106(11), 1817–1837, 2017 (arXiv:1609.08905):

* Table 2: mean squared error of the MLE x̄_i and of the shrinkage estimates in E1;
* Table 5: next-data-set probabilities on the real data (54 UCI data sets, 10×10 CV, rope of one
  accuracy point) under the hierarchical ν prior and under ν − 1 ~ Gamma(2, 0.1);
* Table 6: two-sided Wilcoxon signed-rank p-values of the same pairs;
* the numbers its text states for the simulations (:data:`STATED`): E3 (section 4.3) and the
  Friedman experiment E5 (section 4.7).

Provenance: the values below were transcribed from a summary of the arXiv HTML version, not from
the journal PDF, and the paper prints two decimals (p-values: two decimals, 0.00 meaning < 0.005).
The paper writes δ = acc(first) − acc(second), so its "left" is *the second classifier better*,
the package's ``p_right`` (d = second − first); the tables here name the outcomes instead of
left/right so that neither convention has to be remembered.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

CITATION = (
    "Corani, Benavoli, Demšar, Mangili & Zaffalon (2017), Machine Learning 106, 1817-1837 "
    "(arXiv:1609.08905)"
)

#: Table 5 (second better, rope, first better) per pair and ν prior, and Table 6's p-value.
_TABLE5 = {
    # (first, second): (hierarchical, Gamma(2, 0.1), signed-rank p)
    ("nbc", "hnb"): ((1.00, 0.00, 0.00), (1.00, 0.00, 0.00), 0.00),
    ("nbc", "j48"): ((0.80, 0.02, 0.18), (0.80, 0.01, 0.20), 0.46),
    ("nbc", "j48gr"): ((0.84, 0.02, 0.14), (0.84, 0.01, 0.15), 0.39),
    ("hnb", "j48"): ((0.03, 0.10, 0.87), (0.03, 0.02, 0.95), 0.07),
    ("hnb", "j48gr"): ((0.03, 0.07, 0.90), (0.03, 0.02, 0.95), 0.08),
    ("j48", "j48gr"): ((0.00, 1.00, 0.00), (0.00, 1.00, 0.00), 0.00),
}

#: Table 2: (MSE of the MLE, MSE of the shrinkage estimates) per number of data sets q.
_TABLE2 = {5: (0.00036, 0.00017), 10: (0.00036, 0.00014), 50: (0.00036, 0.00012)}


@dataclass(frozen=True)
class StatedNumber:
    """One number of the paper's text, as a share or a mean.

    ``key`` names the reproduced quantity (``bayes_hier.experiments.side_by_side`` computes
    it), ``value`` is the number and ``printed`` how the paper words it; ``half_unit`` is half a
    unit of its last printed digit (the rounding the paper's printing allows).
    """

    experiment: str
    key: str
    quantity: str
    value: float
    printed: str
    half_unit: float


#: Numbers of the paper's text, one per line: experiment|key|value|printed|half_unit|quantity.
#: Sign: the paper's E5 δ is acc(LDA) − acc(CART), "LDA better" is its right of the rope (the
#: package's left, d = tree − LDA).
_STATED_TEXT = """
E3|e3_signed_rank_q50|0.25|about 25 %|0.005|signed-rank rejection rate at q = 50 (α = 0.05)
E3|e3_rope_q50|0.4|about 40 %|0.005|share of runs with P(rope) > 0.95 at q = 50
E5|e5_truth_mean|0.02|0.02|0.005|ground truth: mean of the 54 δ_i (LDA − CART)
E5|e5_truth_right|0.65|65 %|0.005|ground truth: share of the δ_i right of the rope (LDA better)
E5|e5_signed_rank_power|0.28|28 %|0.005|power of the signed-rank test (α = 0.05)
E5|e5_hierarchical_power|0.275|27.5 %|0.0005|power of the hierarchical test (P > 0.95)
E5|e5_strong_lda|0.11|11 %|0.005|strong evidence for LDA (posterior odds > 20)
E5|e5_positive_lda|0.33|33 %|0.005|positive evidence for LDA (3 < odds <= 20), in addition
E5|e5_positive_rope|0.02|2 %|0.005|positive or strong evidence for the rope (an error)
E5|e5_mse_reduction|0.6|about 60 %|0.005|MSE reduction of shrinkage against the MLE
"""


def _stated_number(line: str) -> StatedNumber:
    experiment, key, value, printed, half_unit, quantity = (
        cell.strip() for cell in line.split("|")
    )
    return StatedNumber(experiment, key, quantity, float(value), printed, float(half_unit))


STATED = tuple(_stated_number(line) for line in _STATED_TEXT.strip().splitlines())

#: The E6 variants that Table 5 reports, and how the paper names their ν prior.
PRIORS = {"hierarchical": "hierarchical", "juarez-steel": "Gamma(2, 0.1)"}

OUTCOMES = ("second better", "rope", "first better")


def paper_table5() -> pd.DataFrame:
    """Tables 5 and 6 of the paper, one row per pair and ν prior (E6's variant names)."""
    rows = []
    for (first, second), (hierarchical, juarez_steel, p_value) in _TABLE5.items():
        for variant, probabilities in (
            ("hierarchical", hierarchical),
            ("juarez-steel", juarez_steel),
        ):
            rows.append(
                {"first": first, "second": second, "variant": variant}
                | dict(zip(OUTCOMES, probabilities))
                | {"wilcoxon_p": p_value}
            )
    return pd.DataFrame(rows)


def paper_table2() -> pd.DataFrame:
    """Table 2 of the paper: the MSEs of E1 per q."""
    return pd.DataFrame(
        [{"q": q, "mse_mle": mle, "mse_shrinkage": shrunk} for q, (mle, shrunk) in _TABLE2.items()]
    )


def _in_paper_order(e6: pd.DataFrame) -> pd.DataFrame:
    """E6's rows with each pair in the paper's order (first, second): a pair run the other way
    round has its models and its p_left / p_right swapped."""
    paper_pairs = set(_TABLE5)
    flipped = [(b, a) in paper_pairs and (a, b) not in paper_pairs for a, b in
               zip(e6["first"], e6["second"])]  # fmt: skip
    flipped = pd.Series(flipped, index=e6.index, dtype=bool)
    ordered = e6.copy()
    for left, right in (("first", "second"), ("p_left", "p_right")):
        ordered.loc[flipped, [left, right]] = e6.loc[flipped, [right, left]].to_numpy()
    return ordered


def paper_p_value(value: float) -> str:
    """A p-value as the paper prints it: two decimals, ``< 0.005`` for its 0.00."""
    return "< 0.005" if value == 0 else f"{value:.2f}"


def table5_next_to_paper(e6: pd.DataFrame) -> pd.DataFrame:
    """E6's probabilities and p-values next to Tables 5 and 6, for the pairs and priors both have.

    Parameters
    ----------
    e6
        E6's table (``e6_real_data.csv``): columns first, second, variant, p_left, p_rope,
        p_right (package convention: p_left = first better) and wilcoxon_p. A pair listed in the
        other order than the paper's is turned round.

    Returns
    -------
    pandas.DataFrame
        One row per pair and prior: ``paper <outcome>`` and ``reproduced <outcome>`` for the
        three outcomes, ``max abs difference`` over the three probabilities and both p-values
        (the paper's as printed); no rows when the two have nothing in common.
    """
    columns = ["pair", "nu prior"]
    for outcome in OUTCOMES:
        columns += [f"paper {outcome}", f"reproduced {outcome}"]
    columns += ["max abs difference", "paper signed-rank p", "reproduced signed-rank p"]
    needed = {"first", "second", "variant", "p_left", "p_rope", "p_right", "wilcoxon_p"}
    if len(e6) == 0 or not needed <= set(e6.columns):
        return pd.DataFrame(columns=columns)
    ours = _in_paper_order(e6[e6["variant"].isin(list(PRIORS))]).rename(
        columns={"p_right": "second better", "p_rope": "rope", "p_left": "first better"}
    )
    joined = paper_table5().merge(
        ours, on=["first", "second", "variant"], suffixes=(" paper", " reproduced")
    )
    frame = pd.DataFrame(
        {
            "pair": joined["first"] + " vs " + joined["second"],
            "nu prior": joined["variant"].map(PRIORS),
        }
    )
    for outcome in OUTCOMES:
        frame[f"paper {outcome}"] = joined[f"{outcome} paper"]
        frame[f"reproduced {outcome}"] = joined[f"{outcome} reproduced"].astype(float).round(3)
    differences = [
        (joined[f"{o} paper"] - joined[f"{o} reproduced"].astype(float)).abs() for o in OUTCOMES
    ]
    frame["max abs difference"] = pd.concat(differences, axis=1).max(axis=1).round(3)
    frame["paper signed-rank p"] = joined["wilcoxon_p paper"].map(paper_p_value)
    frame["reproduced signed-rank p"] = joined["wilcoxon_p reproduced"].round(4)
    return frame[columns]


def table2_next_to_paper(e1: pd.DataFrame) -> pd.DataFrame:
    """E1's MSEs (``e1_shrinkage.csv``: q, mse_mle, mse_shrinkage) next to Table 2, per q."""
    joined = paper_table2().merge(e1, on="q", suffixes=(" paper", " reproduced"))
    return pd.DataFrame(
        {
            "q": joined["q"],
            "paper MSE of the MLE": joined["mse_mle paper"],
            "reproduced MSE of the MLE": joined["mse_mle reproduced"],
            "paper MSE of shrinkage": joined["mse_shrinkage paper"],
            "reproduced MSE of shrinkage": joined["mse_shrinkage reproduced"],
        }
    )


__all__ = [
    "CITATION",
    "OUTCOMES",
    "PRIORS",
    "STATED",
    "StatedNumber",
    "paper_p_value",
    "paper_table2",
    "paper_table5",
    "table2_next_to_paper",
    "table5_next_to_paper",
]

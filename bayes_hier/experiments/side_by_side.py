"""Every number the paper states next to the reproduced one, with the difference and its reason.

:func:`side_by_side` reads the tables of a full run (or of the results of record) and returns one
row per stated number: Table 2 (E1), the text of section 4.3 (E3) and 4.7 (E5), Tables 5 and 6
(E6). For each row it gives the reproduction's Monte Carlo standard deviation and calls a
difference *beyond Monte Carlo error* when it exceeds twice that sd plus half a unit of the
paper's last printed digit; such rows carry the reason found for the gap (:data:`REASONS`,
measured in ``benchmarks/PAPER_GAPS.md`` and ``benchmarks/E5_GROUND_TRUTH.md``). The paper's own
Monte Carlo error, which it does not state, comes on top.

Monte Carlo standard deviations: a share k/R of R repetitions, √(p̃(1 − p̃)/R) with Laplace's
p̃ = (k + 1)/(R + 2) (not zero when none or all of the runs count); a mean over
repetitions, their sd / √R; the E5 ground truth from each setting's sd over its training sets;
the E5 MSE reduction 1 − Σ MSE_shrinkage / Σ MSE_MLE by a bootstrap over the repetitions; an E6
probability from 4 000 posterior draws, √(p(1 − p)/4000); a p-value is exact (sd 0).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from .paper_values import OUTCOMES as TABLE5_OUTCOMES
from .paper_values import PRIORS, STATED, paper_table2, table5_next_to_paper

ROPE = 0.01
#: Draws behind an E6 probability (4 chains x 1000).
E6_DRAWS = 4000
BOOTSTRAP = 2000
COLUMNS = [
    "experiment",
    "quantity",
    "paper",
    "reproduced",
    "difference",
    "Monte Carlo sd",
    "beyond Monte Carlo error",
    "reason",
]

#: Why a reproduced number differs from the paper's by more than Monte Carlo error (the
#: measurements behind each are in benchmarks/PAPER_GAPS.md and benchmarks/E5_GROUND_TRUTH.md).
REASONS = {
    "e1_mle": (
        "Monte Carlo and rounding: the generator's MLE error variance is exactly 3.54e-4 "
        "(per-fold sd 0.057, ρ = 0.1, 100 folds), which the paper prints as 3.6e-4; this run's "
        "value at q = 50 lies about 2 Monte Carlo sd below 3.54e-4."
    ),
    "e1_shrinkage": (
        "Generator: the δ_i's spread. With the mixture's component sd 0.001 no estimator can go "
        "below the Bayes risk 4.9e-5 (true prior known), which the shrinkage MSE approaches as q "
        "grows (benchmarks/PAPER_GAPS.md). The paper's published code for this simulation draws "
        "the components with sd 0.01: refitting 8 of the record's runs at q = 50 on the same "
        "draws with sd 0.01 gives 1.1e-4 (± 1e-5) against 5.4e-5 with 0.001 "
        "(benchmarks/E1_SPREAD.md), the paper's 1.2e-4. The MLE does not depend on the spread "
        "and agrees."
    ),
    "e3_signed_rank_q50": (
        "Generator: the rate depends only on the δ_i and the MLE noise; Monte Carlo of the "
        "Wilcoxon test on x̄_i = δ_i + N(0, 3.54e-4) gives 0.373 (this run's generator is as "
        "described), 0.325 with the Cauchy scale read as rope width/6. The paper's 25 % needs an "
        "MLE sd near 0.025 instead of 0.019: its E2-E4 data come from cross-validating naive "
        "Bayes on simulated data sets (its published code), noisier than E1's 3.6e-4."
    ),
    "e5_unpruned": (
        "Classifier: this record's E5 ran scikit-learn's unpruned tree (with one class threshold "
        "per noise level and folds not stratified by class); its ground truth is not the "
        "paper's. CART with R rpart's default "
        "rules and one threshold per function, as in the paper's code, gives the paper's ground "
        "truth (mean 0.021, 63 % right of the rope on 500 training sets per setting; "
        "benchmarks/E5_GROUND_TRUTH.md compares the trees). Rerun E5 to replace this record: "
        "`python -m bayes_hier.experiments --full --only e5 --out DIR`, then `python -m "
        "bayes_hier.experiments.record --results DIR --update`."
    ),
    "e5_signed_rank_power": (
        "Not explained. The ground truth and the hierarchical test's power agree with the paper "
        "(their rows), so the δ_i and the cross-validation noise are reproduced; the test here "
        "is the two-sided Wilcoxon signed-rank test at α = 0.05 on the 36 data sets' mean "
        "differences (12 settings per Friedman function). Its variants (zero differences, exact "
        "or normal p-values) and the paper's unstated details were not measured."
    ),
    "e5_positive_lda": (
        "Follows the strong-evidence row: the evidence grades split the same runs, and the "
        "reproduction has more runs with odds above 3 for LDA (0.765 in all, the paper 0.44); "
        "the paper's split between strong and positive does not fit its power (see the "
        "strong-evidence row's reason)."
    ),
    "e5_mse_reduction": (
        "Not resolved. Not the classifier: the record of the unpruned tree gives 0.69 as well. "
        "The paper's code for this analysis bounds ν's Gamma hyperprior by α ∈ [0.5, 3], β ∈ "
        "[0.005, 0.05], the reproduction by its text's α ∈ [0.5, 5], β ∈ [0.05, 0.15]; not "
        "measured here."
    ),
    "e5_strong_lda": (
        "The paper's numbers do not fit one probability: P(LDA better) > 0.95 (its power, "
        "27.5 %) makes the odds against each other outcome at least 19, so strong evidence "
        "(odds > 20) cannot be rarer than about the power, yet the paper gives 11 %. In the "
        "reproduction both come from the same next-data-set probabilities and strong evidence is "
        "at least as frequent as the power. The paper's code also reports probabilities of the "
        "population mean δ₀; which one each number used is not stated."
    ),
    "e3_rope_q50": (
        "Inference: the paper's code for E2-E4 reports the posterior probability that the "
        "population mean δ₀ lies in the rope; the reproduction reports the next-data-set "
        "probability (argmax rule). Refitting 12 of the record's E3 runs at q = 50 (their "
        "next-data-set probabilities come out identical): P(δ₀ in rope) is higher in every run "
        "(mean 0.83 against 0.75) and above 0.95 in 7 of 12 against 2 of 12 "
        "(benchmarks/E3_POPULATION.md). The paper's 40 % lies between the two; its noisier "
        "generator (see the signed-rank row) is not reproduced."
    ),
}


def _share(values: pd.Series) -> tuple[float, float]:
    """A share k/R and its binomial Monte Carlo sd at Laplace's (k + 1)/(R + 2)."""
    count, total = int(values.sum()), len(values)
    smoothed = (count + 1) / (total + 2)
    return count / max(total, 1), float(np.sqrt(smoothed * (1 - smoothed) / max(total, 1)))


def _e1(folder: Path) -> dict[str, tuple[float, float]]:
    reps = pd.read_csv(folder / "e1_repetitions.csv")
    out = {}
    for q, group in reps.groupby("q"):
        for column, name in (("mse_mle", "mle"), ("mse_shrinkage", "shrinkage")):
            values = group[column]
            out[f"e1_{name}_q{q}"] = (
                float(values.mean()),
                float(values.std(ddof=1) / np.sqrt(len(values))),
            )
    return out


def _e3(folder: Path) -> dict[str, tuple[float, float]]:
    reps = pd.read_csv(folder / "e3_repetitions.csv")
    at50 = reps[reps["q"] == 50]
    if at50.empty:
        return {}
    return {
        "e3_signed_rank_q50": _share(at50["wilcoxon_p"] < 0.05),
        "e3_rope_q50": _share(at50["p_rope"] > 0.95),
    }


def e5_tree(folder: Path) -> str:
    """``rpart`` when the folder's E5 ground truth names its tree, else ``unpruned`` (the
    scikit-learn tree of the runs before the ``tree`` column)."""
    columns = pd.read_csv(folder / "e5_friedman.csv", nrows=1).columns
    return "rpart" if "tree" in columns else "unpruned"


def _e5(folder: Path) -> dict[str, tuple[float, float]]:
    truth = pd.read_csv(folder / "e5_friedman.csv")
    # The paper's sign: LDA − tree = −delta (delta = tree − LDA).
    lda_better = -truth["delta"].to_numpy()
    se = truth["sd"].to_numpy() / np.sqrt(truth["reps"].to_numpy())
    # P(a setting's estimate lies right of the rope); 0 or 1 for a setting without spread.
    with np.errstate(divide="ignore", invalid="ignore"):
        right = np.where(
            se > 0, stats.norm.sf((ROPE - lda_better) / se), (lda_better > ROPE).astype(float)
        )
    out = {
        "e5_truth_mean": (float(lda_better.mean()), float(np.sqrt(np.sum(se**2)) / len(se))),
        "e5_truth_right": (
            float(np.mean(lda_better > ROPE)),
            float(np.sqrt(np.sum(right * (1 - right))) / len(se)),
        ),
    }
    reps_path = folder / "e5_repetitions.csv"
    if not reps_path.is_file():
        return out
    reps = pd.read_csv(reps_path)
    lda = "left"  # d = tree − LDA: LDA better is left of the rope
    out["e5_signed_rank_power"] = _share(reps["wilcoxon_p"] < 0.05)
    out["e5_hierarchical_power"] = _share((reps["p_left"] > 0.95) | (reps["p_right"] > 0.95))
    out["e5_strong_lda"] = _share((reps["favoured"] == lda) & (reps["evidence"] == "strong"))
    out["e5_positive_lda"] = _share((reps["favoured"] == lda) & (reps["evidence"] == "positive"))
    out["e5_positive_rope"] = _share(
        (reps["favoured"] == "rope") & reps["evidence"].isin(["positive", "strong"])
    )
    mle, shrunk = reps["mse_mle"].to_numpy(), reps["mse_shrinkage"].to_numpy()
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(reps), (BOOTSTRAP, len(reps)))
    boot = 1 - shrunk[picks].sum(axis=1) / mle[picks].sum(axis=1)
    out["e5_mse_reduction"] = (float(1 - shrunk.sum() / mle.sum()), float(boot.std(ddof=1)))
    return out


READERS: tuple[tuple[str, Callable[[Path], dict[str, tuple[float, float]]]], ...] = (
    ("e1_repetitions.csv", _e1),
    ("e3_repetitions.csv", _e3),
    ("e5_friedman.csv", _e5),
)


def _row(experiment, quantity, printed, paper, half_unit, reproduced, sd, reason_key) -> dict:
    difference = reproduced - paper
    beyond = abs(difference) > 2 * sd + half_unit
    return {
        "experiment": experiment,
        "quantity": quantity,
        "paper": printed,
        "reproduced": reproduced,
        "difference": difference,
        "Monte Carlo sd": sd,
        "beyond Monte Carlo error": "yes" if beyond else "no",
        "reason": REASONS.get(reason_key, "not investigated") if beyond else "",
    }


def _table5_rows(folder: Path) -> list[dict]:
    path = folder / "e6_real_data.csv"
    if not path.is_file():
        return []
    beside = table5_next_to_paper(pd.read_csv(path))
    if beside.empty:
        return []
    rows = []
    for record in beside.to_dict("records"):
        for outcome in TABLE5_OUTCOMES:
            value = float(record[f"reproduced {outcome}"])
            rows.append(
                _row(
                    "E6",
                    f"Table 5: P({outcome}), {record['pair']}, ν prior {record['nu prior']}",
                    f"{record[f'paper {outcome}']:.2f}",
                    float(record[f"paper {outcome}"]),
                    0.005,
                    value,
                    float(np.sqrt(value * (1 - value) / E6_DRAWS)),
                    "e6_table5",
                )
            )
        if record["nu prior"] == PRIORS["hierarchical"]:  # one p-value per pair
            printed = record["paper signed-rank p"]
            paper = 0.0 if printed == "< 0.005" else float(printed)
            rows.append(
                _row(
                    "E6",
                    f"Table 6: signed-rank p, {record['pair']}",
                    printed,
                    paper,
                    0.005,
                    float(record["reproduced signed-rank p"]),
                    0.0,
                    "e6_table6",
                )
            )
    return rows


def side_by_side(folder: str | Path) -> pd.DataFrame:
    """Every stated number of the paper next to the run's in ``folder`` (see the module doc).

    Experiments whose tables the folder lacks (or holds without the needed columns) are left
    out.
    """
    folder = Path(folder)
    reproduced: dict[str, tuple[float, float]] = {}
    for name, reader in READERS:
        if (folder / name).is_file():
            try:
                reproduced |= reader(folder)
            except KeyError:  # a table of another layout: nothing to compare
                continue
    rows = []
    for entry in paper_table2().to_dict("records"):
        q = int(entry["q"])
        for name, label in (("mle", "MLE"), ("shrinkage", "shrinkage")):
            key = f"e1_{name}_q{q}"
            if key in reproduced:
                value, sd = reproduced[key]
                paper = float(entry[f"mse_{name}"])
                rows.append(
                    _row(
                        "E1", f"Table 2: MSE of the {label}, q = {q}", f"{paper:.2g}", paper,
                        5e-6, value, sd, f"e1_{name}",
                    )
                )  # fmt: skip
    unpruned = (folder / "e5_friedman.csv").is_file() and e5_tree(folder) == "unpruned"
    for stated in STATED:
        if stated.key in reproduced:
            value, sd = reproduced[stated.key]
            reason = "e5_unpruned" if unpruned and stated.experiment == "E5" else stated.key
            rows.append(
                _row(
                    stated.experiment, stated.quantity, stated.printed, stated.value,
                    stated.half_unit, value, sd, reason,
                )
            )  # fmt: skip
    rows += _table5_rows(folder)
    return pd.DataFrame(rows, columns=COLUMNS)


def side_by_side_markdown(frame: pd.DataFrame) -> str:
    """The table as markdown, numbers to 3 significant digits (shares and p-values to 3
    decimals), one row per stated number; each distinct reason once, numbered, below the table
    (the rows name it by its number)."""

    def number(value: float) -> str:
        if value == 0:
            return "0"
        return f"{value:.3g}" if abs(value) < 1e-3 else f"{value:.3f}"

    reasons: list[str] = []
    lines = [
        "| " + " | ".join(COLUMNS) + " |",
        "| " + " | ".join("---" for _ in COLUMNS) + " |",
    ]
    for row in frame.to_dict("records"):
        reason = row["reason"]
        if reason and reason not in reasons:
            reasons.append(reason)
        cells = [
            row["experiment"],
            row["quantity"],
            row["paper"],
            number(row["reproduced"]),
            ("+" if row["difference"] > 0 else "") + number(row["difference"]),
            number(row["Monte Carlo sd"]),
            row["beyond Monte Carlo error"],
            f"({reasons.index(reason) + 1})" if reason else "",
        ]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    if reasons:
        lines += ["", "Reasons:", ""]
        lines += [f"{k}. {reason}" for k, reason in enumerate(reasons, 1)]
    return "\n".join(lines)


__all__ = ["COLUMNS", "REASONS", "e5_tree", "side_by_side", "side_by_side_markdown"]

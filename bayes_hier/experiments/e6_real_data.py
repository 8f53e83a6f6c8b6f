"""E6: the real UCI/WEKA data (5 classifiers × 54 data sets × 10×10 CV, accuracy in percent).

For six pairs (first, second) and four variants of the hierarchical model:

* ``hierarchical``: the default ν prior, σ̄ and σ̄₀ at 1000×, rope of 1 accuracy point
  (0.01 in [0, 1] units);
* ``juarez-steel``: ν − 1 ~ Gamma(2, 0.1);
* ``sigma100``: the default ν prior with σ̄ and σ̄₀ at 100×;
* ``half_rope``: the default model with a rope of 0.5 points.

Probabilities follow the package convention d = second − first: ``p_left`` means the first model
is better. ``wilcoxon_p`` is the two-sided Wilcoxon signed-rank p-value on the 54 mean
differences (the same for every variant of a pair).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from . import runner
from .paper_values import CITATION, table5_next_to_paper
from .runner import ExperimentOutput, Settings

EXPERIMENT_ID = 6
CSV = "e6_real_data.csv"
PAPER_CSV = "e6_paper_table5.csv"  # next to the paper's Tables 5 and 6
DENSITY_FIGURE = "e6_densities.png"
BOXPLOT_FIGURE = "e6_j48_j48gr_boxplot.png"
ROPE_POINTS = 1.0  # the rope 0.01 in percent
DRAWS_KEPT = 400


def variant_arguments(variant: str) -> dict:
    """Keyword arguments of :func:`hierarchical_test` for a variant."""
    return {
        "hierarchical": {"rope": ROPE_POINTS},
        "juarez-steel": {"rope": ROPE_POINTS, "nu_prior": "juarez-steel"},
        "sigma100": {"rope": ROPE_POINTS, "sigma_factor": 100.0, "sigma0_factor": 100.0},
        "half_rope": {"rope": ROPE_POINTS / 2},
    }[variant]


def run_fit(pair: int, variant: int, frame: pd.DataFrame, settings: Settings) -> dict:
    """One E6 fit: pair ``settings.e6_pairs[pair]``, variant ``settings.e6_variants[variant]``."""
    from ..data import CVData
    from .runner import fit

    first, second = settings.e6_pairs[pair]
    name = settings.e6_variants[variant]
    all_variants = ("hierarchical", "juarez-steel", "sigma100", "half_rope")
    rng, seed = runner.repetition_seeds(
        settings.base_seed, EXPERIMENT_ID, pair, all_variants.index(name)
    )
    cv = CVData.from_frame(frame, models=(first, second))
    arguments = variant_arguments(name)
    result = fit(cv, settings, seed, rope=arguments.pop("rope"), **arguments)
    probs = result.probs
    keep = rng.choice(result.nu_draws.size, min(DRAWS_KEPT, result.nu_draws.size), replace=False)
    return {
        "first": first,
        "second": second,
        "variant": name,
        "p_left": probs.left,
        "p_rope": probs.rope,
        "p_right": probs.right,
        "wilcoxon_p": runner.signed_rank_p(cv.means),
        **runner.fit_diagnostics(result),
        "_shrunk": result.per_dataset["shrunk"].to_numpy(),
        "_delta0": result.posterior_draws("delta0")[keep],
        "_sigma0": result.posterior_draws("sigma0")[keep],
        "_nu": result.nu_draws[keep],
    }


def predictive_density(grid: np.ndarray, row: dict) -> np.ndarray:
    """Posterior-predictive density of δ: the average of the Student-t densities of the draws."""
    return np.mean(
        [
            stats.t.pdf(grid, nu, d0, s0)
            for d0, s0, nu in zip(row["_delta0"], row["_sigma0"], row["_nu"])
        ],
        axis=0,
    )


def plot_densities(rows: list[dict], pairs, path: Path) -> bool:
    """Per pair: KDE of the shrinkage estimates against the predictive densities (both ν priors)."""
    import matplotlib.pyplot as plt

    by_key = {(r["first"], r["second"], r["variant"]): r for r in rows}
    pairs = [p for p in pairs if (*p, "hierarchical") in by_key]
    if not pairs:
        return False
    columns = min(3, len(pairs))
    lines = -(-len(pairs) // columns)
    fig, axes = plt.subplots(lines, columns, figsize=(5 * columns, 3.6 * lines), squeeze=False)
    for ax, (first, second) in zip(axes.flat, pairs):
        base = by_key[(first, second, "hierarchical")]
        shrunk = base["_shrunk"]
        spread = max(np.ptp(shrunk), 1e-6)
        grid = np.linspace(shrunk.min() - 0.3 * spread, shrunk.max() + 0.3 * spread, 300)
        if np.ptp(shrunk) > 0:
            ax.plot(grid, stats.gaussian_kde(shrunk)(grid), "k--", label="KDE of shrinkage est.")
        for variant, style in (("hierarchical", "tab:blue"), ("juarez-steel", "tab:orange")):
            row = by_key.get((first, second, variant))
            if row is not None:
                ax.plot(
                    grid,
                    predictive_density(grid, row),
                    color=style,
                    label=f"predictive, ν {variant}",
                )
        ax.axvspan(-ROPE_POINTS, ROPE_POINTS, color="gray", alpha=0.2, lw=0)
        ax.set_title(f"{second} − {first}")
        ax.set_xlabel("accuracy difference (points)")
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(pairs) :]:
        ax.set_visible(False)
    runner.save_figure(fig, path)
    return True


def plot_boxplot(frame: pd.DataFrame, path: Path, pair=("j48", "j48gr")) -> None:
    """Boxplots of the 100 fold differences (second − first) of every data set for one pair."""
    import matplotlib.pyplot as plt

    wide = frame[frame["model"].isin(pair)].pivot_table(
        index=["dataset", "run", "fold"], columns="model", values="score"
    )
    differences = (wide[pair[1]] - wide[pair[0]]).rename("d").reset_index()
    order = differences.groupby("dataset")["d"].mean().sort_values().index
    fig, ax = plt.subplots(figsize=(12, 4.5))
    ax.boxplot([differences.loc[differences["dataset"] == d, "d"] for d in order], showfliers=False)
    ax.set_xticks(np.arange(1, len(order) + 1), order, rotation=90, fontsize=6)
    ax.axhline(0, color="black", lw=0.6)
    ax.set_ylabel(f"accuracy {pair[1]} − {pair[0]} (points)")
    ax.set_title(f"E6: per-data-set 10×10 CV differences, {pair[1]} − {pair[0]}")
    runner.save_figure(fig, path)


def run(
    settings: Settings, executor, out: Path, progress: bool = True, data: str | None = None
) -> ExperimentOutput:
    from ..examples import load_uci_weka

    start = time.perf_counter()
    frame = load_uci_weka(data)
    tasks = []
    for p, pair in enumerate(settings.e6_pairs):
        subset = frame[frame["model"].isin(pair)].reset_index(drop=True)
        tasks.extend((p, v, subset, settings) for v in range(len(settings.e6_variants)))
    saved = runner.checkpoints(out, "e6", settings)
    rows = runner.run_tasks(executor, run_fit, tasks, "E6 real data", progress, checkpoints=saved)
    table = pd.DataFrame([{k: v for k, v in r.items() if not k.startswith("_")} for r in rows])
    table.to_csv(out / CSV, index=False)
    tables = {CSV: table}
    runner.add_table(tables, out, PAPER_CSV, table5_next_to_paper(table))
    figures = {}
    if plot_densities(rows, settings.e6_pairs, out / DENSITY_FIGURE):
        figures[DENSITY_FIGURE] = (
            "E6: KDE of the shrinkage estimates against the posterior-predictive densities of δ "
            "(hierarchical and Juárez–Steel ν priors)"
        )
    plot_boxplot(frame, out / BOXPLOT_FIGURE)
    figures[BOXPLOT_FIGURE] = "E6: per-data-set differences of (j48, j48gr)"
    return ExperimentOutput(
        "e6",
        "E6: real data (UCI/WEKA)",
        f"Pairs {[f'{a}/{b}' for a, b in settings.e6_pairs]}; variants "
        f"{list(settings.e6_variants)}; rope {ROPE_POINTS} accuracy point (0.5 for half_rope); "
        "probabilities in the package convention d = second − first (p_left: first better). "
        f"{runner.diagnostics_sentence(table)}. `{PAPER_CSV}`: the hierarchical and Gamma(2, 0.1) "
        f"rows next to Tables 5 and 6 of {CITATION}, outcomes named (the paper's 'left' is "
        "'second better').",
        tables=tables,
        figures=figures,
        seconds=time.perf_counter() - start,
        timing=saved.timing,
    )

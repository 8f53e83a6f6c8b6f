"""Frequentist tests and critical-difference diagrams, for contrast with the Bayesian answers.

conventions §5. Everything works from stored scores (no model is re-run) and follows the package
convention: the difference is ``d = y − x`` (second − first), so positive statistics and
estimates favour the second model.

One data set (fold scores, validated by :class:`~bayes_hier.data.CVData`):
:func:`paired_ttest` (anti-conservative, for contrast), :func:`corrected_resampled_ttest`
(Nadeau–Bengio), :func:`mcnemar` (one test set), :func:`cv52_paired_ttest` (Dietterich) and
:func:`cv52_combined_ftest` (Alpaydin).

Two models on several data sets (one score per data set): :func:`wilcoxon_signed_rank` and
:func:`sign_test_freq`.

Several models on several data sets: :func:`friedman` (with Iman–Davenport), :func:`nemenyi`,
:func:`wilcoxon_holm` and :func:`plot_cd_diagram`.

Each test returns a small result object with ``statistic``, ``p_value``, ``df`` (where it
applies), a one-sentence ``interpretation`` and ``to_frame()``.

References: Dietterich (1998), Neural Computation 10; Alpaydin (1999), Neural Computation 11;
Nadeau & Bengio (2003), Machine Learning 52; Demšar (2006), JMLR 7; Benavoli, Corani & Mangili
(2016), JMLR 17.
"""

from ._result import TestResult
from .cd_diagram import plot_cd_diagram
from .multiple import (
    FriedmanResult,
    PosthocResult,
    critical_difference,
    friedman,
    nemenyi,
    rank_matrix,
    score_matrix,
    wilcoxon_holm,
)
from .several import sign_test_freq, wilcoxon_signed_rank
from .single import (
    corrected_resampled_ttest,
    cv52_combined_ftest,
    cv52_paired_ttest,
    mcnemar,
    paired_ttest,
)

__all__ = [
    "FriedmanResult",
    "PosthocResult",
    "TestResult",
    "corrected_resampled_ttest",
    "critical_difference",
    "cv52_combined_ftest",
    "cv52_paired_ttest",
    "friedman",
    "mcnemar",
    "nemenyi",
    "paired_ttest",
    "plot_cd_diagram",
    "rank_matrix",
    "score_matrix",
    "sign_test_freq",
    "wilcoxon_holm",
    "wilcoxon_signed_rank",
]

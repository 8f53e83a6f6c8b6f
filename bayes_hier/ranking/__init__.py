"""The field's Bayesian models for k models on many data sets: Bradley-Terry and Plackett-Luce.

>>> from bayes_hier import compare
>>> result = compare(frame, method="bradley_terry", seed=1)  # doctest: +SKIP
>>> result.win_probabilities(), result.p_best, result.rank_probabilities  # doctest: +SKIP

* :func:`bradley_terry_test` (``method="bradley_terry"``): Wainer's Bayesian Bradley-Terry
  model (JMLR 24, 2023; R package bbtcomp) of the data sets each model wins against another;
* :func:`plackett_luce_test` (``method="plackett_luce"``): the Bayesian Plackett-Luce model of
  Calvo, Ceberio and Lozano (GECCO 2018; R package scmamp) of one ranking per data set.

Both give a :class:`RankingResult`.
"""

from ..compare.methods import register_whole_method
from .bradley_terry import BradleyTerryPrior, bradley_terry_test, compare_bradley_terry
from .data import rankings, tie_counts, win_table
from .plackett_luce import PlackettLucePrior, compare_plackett_luce, plackett_luce_test
from .result import RankingResult, WinPairResult

register_whole_method("bradley_terry", compare_bradley_terry)
register_whole_method("plackett_luce", compare_plackett_luce)

__all__ = [
    "BradleyTerryPrior",
    "PlackettLucePrior",
    "RankingResult",
    "WinPairResult",
    "bradley_terry_test",
    "compare_bradley_terry",
    "compare_plackett_luce",
    "plackett_luce_test",
    "rankings",
    "tie_counts",
    "win_table",
]

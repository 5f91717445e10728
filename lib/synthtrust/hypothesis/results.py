"""Result objects of the two-sample tests: SciPy-like ``(statistic, pvalue)`` records.

One frozen dataclass per test of :mod:`synthtrust.hypothesis` (Montoya Perez et al. 2024
[``montoyaperez2024``], §3.4 and §4; the DP test of Couch et al. 2019 [``couch2019``]), unpacked
as ``stat, p = result`` like SciPy's result tuples, and the 0-d → scalar conversion of their
fields.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._result import ResultMixin


class _ResultMixin(ResultMixin):
    def __iter__(self):  # ``stat, p = result`` like SciPy's result tuples
        yield self.statistic
        yield self.pvalue


@dataclass(frozen=True, eq=False)
class MannWhitneyUResult(_ResultMixin):
    """Mann–Whitney U result.  Arrays of shape ``(...)`` (scalars for 1-D input).

    statistic : U of the first sample (SciPy's ``U1``).
    pvalue : two-sided p-value.
    exact : True where the exact null distribution was used (SciPy ``method='auto'``).
    """

    statistic: np.ndarray | float
    pvalue: np.ndarray | float
    exact: np.ndarray | bool


@dataclass(frozen=True, eq=False)
class TTestResult(_ResultMixin):
    """Student's t-test (pooled variance) result.  ``df`` = n_x + n_y − 2."""

    statistic: np.ndarray | float
    pvalue: np.ndarray | float
    df: np.ndarray | float


@dataclass(frozen=True, eq=False)
class MedianTestResult(_ResultMixin):
    """Mood's median test result.

    median : grand median of the pooled sample; table : ``(..., 2, 2)`` int array, rows
    (above, at-or-below) the grand median, columns (x, y) — SciPy's layout.
    """

    statistic: np.ndarray | float
    pvalue: np.ndarray | float
    median: np.ndarray | float
    table: np.ndarray


@dataclass(frozen=True, eq=False)
class Chi2Result(_ResultMixin):
    """χ² test of independence.  ``dof`` int (array); ``expected_freq`` same shape as the table."""

    statistic: np.ndarray | float
    pvalue: np.ndarray | float
    dof: np.ndarray | int
    expected_freq: np.ndarray


@dataclass(frozen=True, eq=False)
class DPMannWhitneyUResult(_ResultMixin):
    """DP Mann–Whitney U result (all released quantities are DP or post-processing of DP).

    statistic : released noisy U of the first sample, Ũ = U_x + Lap((n − m*)/ε_U).
    pvalue : Monte-Carlo p-value (1 + #{T_b >= T}) / (1 + n_sim), two-sided.
    reject : ``pvalue <= alpha``.
    m_noisy : released noisy smaller-group size m̃ = m + Lap(1/ε_m).
    m_lower : high-probability lower bound m* = clip(m̃ − ln(1/(2δ))/ε_m, 0, ⌊n/2⌋).
    m_hat : integer smaller-group size used for the null simulation, clip(round(m̃), 1, ⌊n/2⌋).
    n : total sample size (public).
    """

    statistic: np.ndarray | float
    pvalue: np.ndarray | float
    reject: np.ndarray | bool
    m_noisy: np.ndarray | float
    m_lower: np.ndarray | float
    m_hat: np.ndarray | int
    n: np.ndarray | int
    epsilon_size: float
    epsilon_u: float
    delta: float
    alpha: float
    n_sim: int


def as_scalar(a):
    """0-d array → NumPy scalar (SciPy returns scalars for 1-D input)."""
    a = np.asarray(a)
    return a[()] if a.ndim == 0 else a

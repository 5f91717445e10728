"""Chapter 5, beyond the paper — the power of the audit: rejection rates of generators that
leak a chosen share of their records.

The two-step audit of Houssiau et al. (2022) [``houssiau2022``], §3, run on mixtures of the
honest and dishonest generators of an application (:class:`~synthtrust.audit.power.LeakMixture`):
a grid of (leak, K) cells (:func:`power_grid`), independent audits per cell
(:func:`power_cell`) and the rejection rate with its exact binomial interval
(:func:`power_curve`).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from synthtrust._validation import check_int_at_least, check_real_range
from synthtrust.audit.two_step import audit
from synthtrust.run.experiment import run_grid
from synthtrust.studies.auditing.applications import application, basis, card
from synthtrust.studies.auditing.generators import make_generator

__all__ = ["power_cell", "power_curve", "power_grid", "run_power_study"]


def power_grid(
    *, leaks, ks, app: int = 1, copies: int = 100, generator: str = "ipf", alpha: float = 0.01
) -> list[dict]:
    """Grid cells (leak × K) for :func:`power_cell`: the audit of a generator that draws a
    share ``leak`` of its records from the dishonest generator of application ``app``
    (:class:`~synthtrust.audit.power.LeakMixture`), with K₁ = K₂ = K trainings.

    Parameters
    ----------
    leaks : list of float in [0, 1]
        Leak strengths; 0 is the honest generator (the rejection rate is the Type I error).
    ks : list of int ≥ 2
        Trainings per side in each step.
    app : 1, 2 or 3
    copies : int
        R, copies of each support cell in D* (App. 1: N = 200·R records).
    generator : "ipf" or "pgm"
        The honest/dishonest pair mixed.
    alpha : float
        Level of each audit.

    Returns
    -------
    list of dict with keys ``app``, ``generator``, ``leak``, ``k``, ``copies``, ``alpha``.

    Raises
    ------
    ValueError
        Unknown ``app`` or ``generator``; a leak outside [0, 1]; K < 2.
    TypeError
        A leak that is not a real number, a K that is not an integer.
    """
    a = application(app)
    if generator not in ("ipf", "pgm"):
        raise ValueError(f"generator must be 'ipf' or 'pgm', got {generator!r}")
    cells = []
    for leak in leaks:
        check_real_range(leak, "each leak", 0, 1, low_open=False, high_open=False)
        for k in ks:
            check_int_at_least(k, "each K in ks", 2)
            cells.append(
                {
                    "app": a.key,
                    "generator": generator,
                    "leak": float(leak),
                    "k": int(k),
                    "copies": int(copies),
                    "alpha": float(alpha),
                }
            )
    return cells


def power_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """``len(rngs)`` independent audits of one :func:`power_grid` cell: columns ``t``, ``p``,
    ``log10_p``, ``rejected``, ``seconds``; a fresh seed per audit (support, trainings and
    samples differ)."""
    from synthtrust.audit.power import LeakMixture

    a = application(params["app"])
    name = params["generator"]
    gen = LeakMixture(
        make_generator(f"{name}_honest", a.key),
        make_generator(f"{name}_dishonest", a.key),
        float(params["leak"]),
    )
    b, c, k = basis(a.key), card(a.key), int(params["k"])
    rows = []
    for rng in rngs:
        t0 = time.perf_counter()
        res = audit(
            gen,
            c,
            basis=b,
            support=a.support,
            copies=int(params["copies"]),
            k_select=k,
            k_audit=k,
            alpha=float(params["alpha"]),
            random_state=int(rng.integers(2**31 - 1)),
            n_jobs=1,
        )
        rows.append(
            {
                "t": res.statistic,
                "p": res.pvalue,
                "log10_p": res.log10_pvalue,
                "rejected": res.rejected,
                "seconds": time.perf_counter() - t0,
            }
        )
    return pd.DataFrame(rows)


def power_curve(results: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Rejection rate per (leak, K) with its exact binomial interval
    (:func:`~synthtrust.audit.power.rejection_rate`).

    Columns: ``leak``, ``k``, ``audits``, ``rate``, ``low``, ``high``, ``median_t``.

    Raises
    ------
    ValueError
        ``results`` lacks ``leak``, ``k`` or ``rejected`` (the columns of :func:`power_cell`
        after :func:`~synthtrust.run.experiment.run_grid`).
    """
    from synthtrust.audit.power import rejection_rate

    need = {"leak", "k", "rejected", "t"}
    if not need <= set(results.columns):
        raise ValueError(
            f"results must have the columns {sorted(need)} (from power_cell), "
            f"got {list(results.columns)}"
        )
    rows = []
    for (leak, k), grp in results.groupby(["leak", "k"]):
        rate, low, high = rejection_rate(grp["rejected"], confidence)
        rows.append(
            {
                "leak": float(leak),
                "k": int(k),
                "audits": len(grp),
                "rate": rate,
                "low": low,
                "high": high,
                "median_t": float(grp["t"].median()),
            }
        )
    return pd.DataFrame(rows)


def run_power_study(
    *,
    leaks,
    ks,
    copies: int,
    alpha: float,
    audits: int,
    seed: int,
    n_jobs=None,
    dask=None,
    cache_dir=None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The power curve: ``audits`` independent audits of IPF's leak mixture in Application 1
    for every (leak, K) of :func:`power_grid`, run by :func:`~synthtrust.run.experiment.run_grid`,
    and their rejection rates (:func:`power_curve`).

    Parameters
    ----------
    leaks : list of float in [0, 1]
        Shares of records drawn from the dishonest IPF.
    ks : list of int ≥ 2
        K₁ = K₂ = K, trainings per side in each step.
    copies : int
        R, copies of each cell in D* (N = 200·R records).
    alpha : float
        Level of each audit.
    audits : int ≥ 1
        Audits per (leak, K) cell.
    seed : int
        Root seed of the grid.
    n_jobs, dask, cache_dir
        Passed to :func:`~synthtrust.run.experiment.run_grid` (tasks of ``audits // 4`` audits).

    Returns
    -------
    audits : pandas.DataFrame
        One row per audit: the cell's parameters, ``rep`` and the columns of :func:`power_cell`.
    curve : pandas.DataFrame
        :func:`power_curve` of ``audits``.

    Raises
    ------
    ValueError, TypeError
        A bad leak or K (:func:`power_grid`), or ``audits`` (run_grid's ``n_reps``).
    """
    cells = power_grid(leaks=leaks, ks=ks, copies=copies, alpha=alpha)
    raw = run_grid(
        power_cell,
        cells,
        audits,
        seed,
        n_jobs=n_jobs,
        dask=dask,
        cache_dir=cache_dir,
        chunk_size=max(1, audits // 4),
    )
    return raw, power_curve(raw)

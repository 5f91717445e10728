"""Chapter 5 — auditing synthetic-data generators against their cards (Houssiau et al. 2022).

The study: for each of the paper's three census applications (§4.1), declare a generator card
(the "safe" marginals Φ), build the starting dataset D* from the domain alone (R copies of every
cell, or of random cells), and run the two-step audit of :func:`synthtrust.audit.audit`
(extremal datasets, Eq. 4; direction selection, Eqs. 5–6; Student's t-test, Eq. 7) on each
generator of Table 4: IPF and noise-free Private-PGM fed only the declared marginals (honest)
or the declared marginals plus an "unsafe" clique (dishonest), and sequential CART (the paper's
SynthPop). Beyond the paper, the project's DP synthesizers are audited against the 2-way card
of Application 1.

The audit never reads a census record: D* is built from the domain sizes of the ONS 2011
Census Microdata Teaching File (:func:`synthtrust.domain.dataset_domain`), as the paper's code
does. Each grid cell of :func:`build_grid` is one (application, generator) pair; each replicate
of :func:`audit_cell` is one full audit with its own seed (the paper ran one audit per cell).

This module runs the audits (:func:`build_grid`, :func:`audit_cell`, :func:`y_values`) and
re-exports the chapter's other parts, one concept per module: the applications, their cards
and bases (``auditing_applications``), the generators (``auditing_generators``), Table 4 and
the findings as verdicts (``auditing_table4``) and the power of the audit (``auditing_power``).

Source: Houssiau et al. (2022) [``houssiau2022``], §3 (the framework), §4.1 (applications),
§4.4 and Table 4 (the audits).
"""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pandas as pd

from synthtrust._validation import check_names, int_at_least, tuple_of
from synthtrust.audit.two_step import audit
from synthtrust.run.experiment import run_grid
from synthtrust.studies.auditing.applications import (  # noqa: F401 (CENSUS: for the benchmarks)
    APPLICATIONS,
    CENSUS,
    Application,
    application,
    basis,
    card,
)
from synthtrust.studies.auditing.generators import (  # noqa: F401 (the chapter's generator lists)
    DP_GENERATORS,
    GENERATORS,
    PAPER_GENERATORS,
    make_generator,
)
from synthtrust.studies.auditing.power import power_cell, power_curve, power_grid, run_power_study
from synthtrust.studies.auditing.table4 import (  # noqa: F401 (format_pvalue: for the tests)
    PAPER_FINDINGS,
    PAPER_TABLE4,
    REJECTION_BAND,
    format_pvalue,
    summarize,
    table4,
    verdict_rows,
)

__all__ = [
    "APPLICATIONS",
    "GENERATORS",
    "PAPER_FINDINGS",
    "PAPER_TABLE4",
    "REJECTION_BAND",
    "Application",
    "application",
    "audit_cell",
    "basis",
    "build_grid",
    "card",
    "card_dimensions",
    "make_generator",
    "power_cell",
    "power_curve",
    "power_grid",
    "run_audit_study",
    "run_power_study",
    "summarize",
    "table4",
    "verdict_rows",
    "y_values",
]


# --------------------------------------------------------------------------------------------
# the experiment
# --------------------------------------------------------------------------------------------
def _per_app(check):
    """The checker of one value per application (App. 1, 2, 3), each passing ``check``."""
    n = len(APPLICATIONS)
    return tuple_of(check, n, f"a list of {n} values (App. 1, 2, 3)")


def build_grid(
    *,
    applications,
    generators,
    copies=(1000, 1000, 10),
    support=10_000,
    n_candidates=1000,
    k_select: int = 10,
    k_audit: int = 10,
    alpha: float = 0.01,
    epsilon: float = 1000.0,
    delta: float = 1e-5,
    pgm_max_iter=(1000, 1000, 200),
    beyond_generators=(),
    beyond_applications=(),
    basis_seed: int = 0,
) -> list[dict]:
    """Grid cells (application × generator) for :func:`audit_cell`.

    Parameters
    ----------
    applications : list of int
        Applications audited with the paper's generators.
    generators : list of str, or list of 3 lists of str
        The paper's generators run in every application, or one list per application
        (App. 1, 2, 3), e.g. to skip the slow noise-free PGM in App. 3.
    copies, pgm_max_iter : list of 3 ints
        R and the PGM steps of App. 1, 2, 3.
    support, n_candidates : int
        App. 3's random support cells and random candidate bins (App. 1–2 use every cell and
        every bin).
    k_select, k_audit, alpha, epsilon, delta
        The audit's K₁, K₂ and level; the DP generators' privacy parameters.
    beyond_generators, beyond_applications : list
        DP generators audited beyond the paper, and in which applications.
    basis_seed : int
        Seed of App. 3's random candidates (the same directions for every generator).

    Returns
    -------
    list of dict
        One dict per cell: ``app``, ``generator``, ``copies``, ``support``, ``n_candidates``,
        ``k_select``, ``k_audit``, ``alpha``, ``epsilon``, ``delta``, ``pgm_max_iter``,
        ``basis_seed``.

    Raises
    ------
    ValueError
        An unknown application or generator; a per-application list of the wrong length.
    """
    copies = _per_app(int_at_least(1))(copies, "copies")
    pgm_max_iter = _per_app(int_at_least(1))(pgm_max_iter, "pgm_max_iter")
    if generators and all(isinstance(g, (list, tuple)) for g in generators):
        per_app = _per_app(check_names)(generators, "generators")
    else:
        per_app = [list(generators)] * len(APPLICATIONS)
    cells = []

    def add(app, gen):
        a = application(app)
        if gen not in GENERATORS:
            raise ValueError(f"unknown generator {gen!r}; expected one of {', '.join(GENERATORS)}")
        cells.append(
            {
                "app": a.key,
                "generator": gen,
                "copies": int(copies[a.key - 1]),
                "support": None if a.support is None else int(support),
                "n_candidates": None if a.n_candidates is None else int(n_candidates),
                "k_select": int(k_select),
                "k_audit": int(k_audit),
                "alpha": float(alpha),
                "epsilon": float(epsilon),
                "delta": float(delta),
                "pgm_max_iter": int(pgm_max_iter[a.key - 1]),
                "basis_seed": int(basis_seed),
            }
        )

    for app in applications:
        a = application(app)
        for gen in per_app[a.key - 1]:
            add(a.key, gen)
    for app in beyond_applications:
        for gen in beyond_generators:
            add(app, gen)
    return cells


def audit_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """``len(rngs)`` independent audits of one (application, generator) cell.

    Each replicate runs :func:`synthtrust.audit.audit` (``n_jobs=1``: the outer
    :func:`~synthtrust.run.experiment.run_grid` parallelises across cells) with a seed drawn from
    its generator: the support of D* (App. 3), the trainings and the samples differ between
    replicates; App. 3's candidate bins are fixed by ``basis_seed``.

    Parameters
    ----------
    params : dict
        A cell of :func:`build_grid`.
    rngs : list of numpy.random.Generator

    Returns
    -------
    pandas.DataFrame
        One row per replicate: ``t``, ``df``, ``p``, ``log10_p``, ``rejected``, ``leak`` (the
        undeclared interaction carrying the largest share of ‖β*‖², columns joined by " × "),
        ``leak_share``, ``g_minus``, ``g_star``, ``g_plus`` (β* on D⁻, D*, D⁺), ``y_minus_mean``,
        ``y_minus_sd``, ``y_plus_mean``, ``y_plus_sd`` (β* on the step-2 samples), ``y_minus``,
        ``y_plus`` (those K₂ values as JSON lists, see :func:`y_values`), ``dim`` (k),
        ``phi_rank``, ``n_rows`` (|D⁺|), ``seconds`` (wall time of the audit).

    Raises
    ------
    ValueError
        Unknown application or generator.
    """
    app = application(params["app"])
    name = params["generator"]
    if name not in GENERATORS:
        raise ValueError(f"unknown generator {name!r}; expected one of {', '.join(GENERATORS)}")
    b = basis(app.key, params.get("basis_seed", 0), n_candidates=params.get("n_candidates", -1))
    c = card(app.key)
    copies = int(params.get("copies") or app.copies)
    support = params.get("support", app.support)
    gen = make_generator(
        name,
        app.key,
        0,
        epsilon=params.get("epsilon", 1000.0),
        delta=params.get("delta", 1e-5),
        pgm_max_iter=params.get("pgm_max_iter"),
    )
    rows = []
    for rng in rngs:
        seed = int(rng.integers(2**31 - 1))
        t0 = time.perf_counter()
        res = audit(
            gen,
            c,
            basis=b,
            support=support,
            copies=copies,
            k_select=int(params.get("k_select", 10)),
            k_audit=int(params.get("k_audit", 10)),
            alpha=float(params.get("alpha", 0.01)),
            random_state=seed,
            n_jobs=1,
            name=GENERATORS[name][0],
        )
        seconds = time.perf_counter() - t0
        top = res.leak.index[0] if len(res.leak) else ()
        rows.append(
            {
                "t": res.statistic,
                "df": res.df,
                "p": res.pvalue,
                "log10_p": res.log10_pvalue,
                "rejected": res.rejected,
                "leak": " × ".join(top),
                "leak_share": float(res.leak.iloc[0]) if len(res.leak) else math.nan,
                "g_minus": res.g_minus,
                "g_star": res.g_star,
                "g_plus": res.g_plus,
                "y_minus_mean": float(np.mean(res.y_minus)),
                "y_minus_sd": float(np.std(res.y_minus, ddof=1)),
                "y_plus_mean": float(np.mean(res.y_plus)),
                "y_plus_sd": float(np.std(res.y_plus, ddof=1)),
                "y_minus": json.dumps([float(v) for v in res.y_minus]),
                "y_plus": json.dumps([float(v) for v in res.y_plus]),
                "dim": res.dim,
                "phi_rank": res.phi_rank,
                "n_rows": int(res.n_rows[1]),
                "seconds": seconds,
            }
        )
    return pd.DataFrame(rows)


def y_values(results: pd.DataFrame) -> pd.DataFrame:
    """Long frame of the step-2 statistics for Figure 1: one row per (audit, side, training)
    with ``app``, ``generator``, ``label``, ``rep``, ``side`` ("D−" or "D+"), ``y`` and
    ``y_centred`` (y minus the audit's midpoint (ȳ⁻ + ȳ⁺)/2, so that applications share a
    scale).

    Raises
    ------
    ValueError
        ``results`` lacks the columns of :func:`audit_cell` and ``app``/``generator``.
    """
    need = {"app", "generator", "y_minus", "y_plus"}
    if not need <= set(results.columns):
        raise ValueError(
            f"results must have the columns {sorted(need)} (from audit_cell), "
            f"got {list(results.columns)}"
        )
    rows = []
    for r in results.itertuples(index=False):
        ym, yp = json.loads(r.y_minus), json.loads(r.y_plus)
        mid = (np.mean(ym) + np.mean(yp)) / 2
        for side, ys in (("D−", ym), ("D+", yp)):
            for y in ys:
                rows.append(
                    {
                        "app": r.app,
                        "generator": r.generator,
                        "label": GENERATORS[r.generator][0],
                        "rep": getattr(r, "rep", 0),
                        "side": side,
                        "y": y,
                        "y_centred": y - mid,
                    }
                )
    return pd.DataFrame(rows)


def card_dimensions(applications, *, basis_seed: int = 0, n_candidates: int = 1000) -> pd.DataFrame:
    """The size of each application's card and of the part of Φ⊥ its audit probes
    (``houssiau2022`` §3.3 and §4.1): the chapter's table of cards.

    Parameters
    ----------
    applications : iterable of 1, 2, 3
        Shown in ascending order, each once.
    basis_seed : int
        Seed of App. 3's random candidate bins (:func:`basis`).
    n_candidates : int
        App. 3's random candidate bins (App. 1–2 probe every bin of the next order).

    Returns
    -------
    pandas.DataFrame
        One row per application: ``application`` ("App. 1"), ``columns`` (|A*|), ``M`` (cells
        of the domain), ``declared marginals``, ``dim Φ`` (with the constant) and ``probed k``
        (the dimension of the basis of Φ⊥ the audit probes).

    Raises
    ------
    ValueError
        An unknown application.
    """
    rows = []
    for a in sorted(set(applications)):
        c = card(a)
        rows.append(
            {
                "application": f"App. {a}",
                "columns": len(c.columns),
                "M": c.cells,
                "declared marginals": len(c.marginals),
                "dim Φ": c.phi_dimension,
                "probed k": basis(
                    a, basis_seed, n_candidates=(n_candidates if a == 3 else None)
                ).dim,
            }
        )
    return pd.DataFrame(rows)


def _application_audits(application_audits) -> dict[int, int]:
    """``application_audits`` checked: {application: audits per cell}."""
    if application_audits is None:
        return {}
    if not isinstance(application_audits, dict):
        raise TypeError(
            "application_audits must be a dict {application: audits per cell}, got "
            f"{type(application_audits).__name__}"
        )
    out = {}
    for app, k in application_audits.items():
        application(app)  # raises for an unknown application
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(
                f"application_audits[{app!r}] must be an int >= 1 (audits per cell), got {k!r}"
            )
        out[int(app)] = k
    return out


def run_audit_study(
    *,
    n_reps: int,
    seed: int,
    application_audits: dict | None = None,
    n_jobs=None,
    dask=None,
    cache_dir=None,
    **grid,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 4 and the DP audits: ``n_reps`` audits of every (application, generator) cell of
    :func:`build_grid`, run by :func:`~synthtrust.run.experiment.run_grid` (``houssiau2022`` §4.4).

    The slowest cells (most records in D⁺) are submitted first; the audits are returned sorted
    by application, generator (in the order of :data:`GENERATORS`) and replicate.

    Parameters
    ----------
    n_reps : int ≥ 1
        Audits per cell (the paper: 1).
    seed : int
        Root seed of the grid (a cell's seeds also hash its parameters), and App. 3's
        ``basis_seed``.
    application_audits : dict {application: int ≥ 1} or None
        Audits per cell of these applications where not ``n_reps`` (e.g. ``{3: 6}``: App. 3's
        audits cost 20-40 s each); an audit's seed depends on its cell and index only, so the
        first k audits of a cell are the same whatever the count.
    n_jobs, dask, cache_dir
        Passed to :func:`~synthtrust.run.experiment.run_grid`.
    **grid
        The keyword arguments of :func:`build_grid` except ``basis_seed``: ``applications``,
        ``generators``, ``copies``, ``support``, ``n_candidates``, ``k_select``, ``k_audit``,
        ``alpha``, ``epsilon``, ``delta``, ``pgm_max_iter``, ``beyond_generators``,
        ``beyond_applications``.

    Returns
    -------
    audits : pandas.DataFrame
        One row per audit: the cell's parameters, ``rep`` and the columns of
        :func:`audit_cell`.
    summary : pandas.DataFrame
        One row per (application, generator): :func:`summarize` of ``audits``.

    Raises
    ------
    ValueError, TypeError
        A bad grid parameter (:func:`build_grid`) or ``n_reps``
        (:func:`~synthtrust.run.experiment.run_grid`).
    """
    cells = build_grid(**grid, basis_seed=seed)
    cells.sort(key=lambda c: -c["copies"] * (2 if c["app"] == 2 else 1))  # slow cells first
    audits = _application_audits(application_audits)
    n_reps = int_at_least(1)(n_reps, "n_reps")
    raw = run_grid(
        audit_cell,
        cells,
        (lambda cell: audits.get(cell["app"], n_reps)) if audits else n_reps,
        seed,
        n_jobs=n_jobs,
        dask=dask,
        cache_dir=cache_dir,
        chunk_size=1,
    )
    order = {g: i for i, g in enumerate(GENERATORS)}
    raw = raw.sort_values(
        ["app", "generator", "rep"], key=lambda s: s.map(order) if s.name == "generator" else s
    )
    return raw, summarize(raw)

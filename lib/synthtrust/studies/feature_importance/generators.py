"""The generators of the grid of ``giles2022`` (PrivBayes — ε-DP and the paper-compatible
variant —, PATE-CTGAN, MST, AIM, and the baselines independent resampling and subsample):
:data:`GENERATORS`, the paper's PATE-CTGAN settings (:data:`PAPER_TABLE1`), one unfitted
generator per cell (:func:`make_generator`) and the actual ε of the paper-compatible PrivBayes
(:func:`privbayes_ledgers`).
"""

from __future__ import annotations

from synthtrust.studies.feature_importance.data import DATASETS, load_table, study_domain

#: Generators: name -> (label in the chapter, differentially private at the nominal ε?).
GENERATORS = {
    "privbayes": ("PrivBayes (ε-DP)", True),
    "privbayes_ds": ("PrivBayes (paper-compatible, not DP)", False),
    "pate_ctgan": ("PATE-CTGAN", True),
    "mst": ("MST", True),
    "aim": ("AIM", True),
    "independent": ("Independent resampling", False),
    "subsample": ("Subsample", False),
}


#: Table 1 of the paper (PATE-CTGAN): ε -> (moments order, training iterations). The λ column
#: was lost in the published text.
PAPER_TABLE1 = {
    0.001: (30000, 3077),
    0.01: (10000, 2802),
    0.1: (1000, 2791),
    0.4: (1000, 3025),
    1.0: (100, 2949),
    4.0: (100, 3054),
    10.0: (100, 2971),
}


def make_generator(name: str, level, dataset: str, params: dict, random_state):
    """An unfitted generator for one cell.

    ``level`` is ε for the DP generators (and the paper-compatible PrivBayes), the fraction for
    ``"subsample"`` and None for ``"independent"``. ``params`` holds the preset keys
    ``privbayes_degree``, ``privbayes_beta``, ``pate_max_iter`` and ``delta``.
    PATE-CTGAN at one of the ε of :data:`PAPER_TABLE1` gets the paper's moments order.

    Raises ValueError for an unknown name (the message lists :data:`GENERATORS`).
    """
    from synthtrust import synthesizers as syn

    domain = study_domain(dataset)
    if name in ("privbayes", "privbayes_ds"):
        extra = (
            {"noise": "datasynthesizer-0.1.3", "max_cells": 2**24} if name == "privbayes_ds" else {}
        )
        return syn.PrivBayes(
            level,
            degree=params["privbayes_degree"],
            beta=params["privbayes_beta"],
            domain=domain,
            random_state=random_state,
            **extra,
        )
    if name == "pate_ctgan":
        # the paper's moments order at its ε (Table 1): the default 1000 cannot account
        # ε ≤ 0.01 (the order must exceed ln(1/δ)/ε); elsewhere the class default
        order = {"moments_order": PAPER_TABLE1[level][0]} if level in PAPER_TABLE1 else {}
        return syn.PATECTGAN(
            level,
            domain=domain,
            max_iter=params["pate_max_iter"],
            random_state=random_state,
            **order,
        )
    if name in ("mst", "aim"):
        cls = syn.MST if name == "mst" else syn.AIM
        return cls(level, params["delta"], domain=domain, random_state=random_state)
    if name == "independent":
        return syn.IndependentMarginals(random_state=random_state)
    if name == "subsample":
        return syn.Subsample(level, random_state=random_state)
    raise ValueError(f"unknown generator {name!r}; expected one of {', '.join(GENERATORS)}")


def privbayes_ledgers(
    dataset: str, epsilon: float, degree: int, beta: float, seed: int
) -> dict[str, float]:
    """Fit the paper-compatible PrivBayes once on ``dataset`` at the nominal ``epsilon`` and
    return ``{"nominal": ε, "actual": the ledger's total ε}``."""
    params = {"privbayes_degree": degree, "privbayes_beta": beta}
    table = load_table(dataset).drop(columns=list(DATASETS[dataset].identifiers))
    gen = make_generator("privbayes_ds", float(epsilon), dataset, params, seed).fit(table)
    return {"nominal": float(epsilon), "actual": float(gen.ledger_.total_epsilon)}

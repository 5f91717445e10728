"""Chapter 2 — holdout-based fidelity and privacy (Platzer & Reutterer 2021).

For each dataset of the paper, the training half T is given to a "synthesizer" and its output S
is scored against T with the holdout half H as the yardstick (:func:`synthtrust.fidelity.holdout_report`):
the mean k-way TVD F^k(T, S) beside F^k(T, H), and the share of synthetic records closer to a
training record than to a holdout record (Hamming DCR), beside the 50 % a fresh sample scores.

Sources scored here: the holdout itself (the reference row), the paper's "Flip p" perturbations
of the training data, the synthetic files the paper's repository published in 2024, and the DP
synthesizers of chapter 1 on a discretized table.

Source: Platzer & Reutterer (2021), §3 (framework), §4 (study), Figures 7 and 8 (the published
numbers, transcribed in :data:`PAPER`).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from synthtrust import datasets

__all__ = [
    "DATASETS",
    "PAPER",
    "SYNTHETIC_DIR",
    "beside_paper",
    "build_grid",
    "dp_epsilon",
    "dp_warm_up",
    "paper_rows",
    "published_files",
    "score_cell",
    "synthetic_table",
]

#: The four datasets of the paper, in its order.
DATASETS = ("adult", "bank-marketing", "credit-default", "online-shoppers")

#: Folder of the synthetic files the paper's repository published in 2024-12.
SYNTHETIC_DIR = datasets.DATA_DIR / "paper-fidelity-accuracy" / "synthetic-2024-12"

_ROWS = ["Holdout", "MOSTLY"] + [f"Flip {p}%" for p in range(10, 100, 10)]

# Figure 7 (F1, F2, F3 in %) and Figure 8 (share in %, mean DCR train, mean DCR holdout), per
# dataset in the order of _ROWS. The plain-text copy of the paper truncates the last column of
# online-shoppers in Figure 8 for several rows; those values are NaN here.
_FIG7 = {
    "adult": [
        (1.0, 1.6, 2.1),
        (1.3, 1.9, 2.4),
        (0.5, 1.7, 3.0),
        (0.5, 2.8, 5.2),
        (0.6, 3.9, 7.4),
        (0.5, 4.7, 9.1),
        (0.5, 5.4, 10.6),
        (0.5, 6.1, 11.8),
        (0.5, 6.6, 12.8),
        (0.5, 6.9, 13.5),
        (0.5, 7.1, 13.9),
    ],
    "bank-marketing": [
        (1.0, 1.3, 1.7),
        (1.5, 2.0, 2.4),
        (0.6, 1.2, 1.7),
        (0.5, 1.8, 2.9),
        (0.5, 2.4, 3.9),
        (0.5, 2.9, 4.8),
        (0.5, 3.4, 5.7),
        (0.5, 3.7, 6.3),
        (0.5, 4.1, 6.8),
        (0.5, 4.3, 7.1),
        (0.5, 4.4, 7.3),
    ],
    "credit-default": [
        (2.2, 2.2, 2.5),
        (3.8, 5.4, 5.8),
        (0.9, 4.0, 6.6),
        (0.9, 7.3, 12.4),
        (0.9, 10.1, 17.4),
        (0.9, 12.7, 21.7),
        (0.9, 14.8, 25.3),
        (0.9, 16.6, 28.3),
        (1.0, 18.0, 30.5),
        (0.9, 19.0, 32.1),
        (0.9, 19.6, 33.1),
    ],
    "online-shoppers": [
        (2.2, 2.6, 2.7),
        (2.8, 3.2, 3.4),
        (0.6, 1.3, 1.9),
        (0.6, 2.1, 3.4),
        (0.6, 2.9, 4.7),
        (0.5, 3.5, 5.8),
        (0.5, 4.1, 6.8),
        (0.6, 4.6, 7.6),
        (0.5, 4.9, 8.2),
        (0.6, 5.2, 8.6),
        (0.6, 5.3, 8.8),
    ],
}
_NA = float("nan")
_FIG8 = {
    "adult": [
        (50.0, 2.27, 2.27),
        (50.6, 2.34, 2.35),
        (94.3, 0.84, 2.57),
        (85.8, 1.62, 2.84),
        (75.8, 2.29, 3.08),
        (66.2, 2.83, 3.29),
        (59.2, 3.24, 3.48),
        (54.0, 3.51, 3.61),
        (51.4, 3.69, 3.72),
        (50.3, 3.79, 3.79),
        (49.8, 3.84, 3.84),
    ],
    "bank-marketing": [
        (50.1, 3.57, 3.58),
        (50.7, 3.68, 3.70),
        (98.7, 0.96, 3.76),
        (93.4, 1.89, 3.92),
        (84.0, 2.71, 4.06),
        (73.2, 3.38, 4.18),
        (63.5, 3.87, 4.27),
        (56.2, 4.16, 4.34),
        (52.0, 4.34, 4.39),
        (50.6, 4.41, 4.43),
        (49.9, 4.45, 4.45),
    ],
    "credit-default": [
        (49.8, 8.66, 8.66),
        (51.1, 9.81, 9.83),
        (99.4, 1.80, 9.29),
        (98.8, 3.62, 9.87),
        (98.0, 5.41, 10.43),
        (95.7, 7.21, 10.98),
        (90.1, 8.92, 11.44),
        (79.2, 10.42, 11.84),
        (65.3, 11.54, 12.13),
        (55.0, 12.20, 12.35),
        (50.8, 12.43, 12.45),
    ],
    "online-shoppers": [
        (50.5, 4.28, _NA),
        (50.9, 4.50, _NA),
        (97.6, 0.92, _NA),
        (93.8, 1.83, _NA),
        (88.2, 2.73, _NA),
        (78.8, 3.40, _NA),
        (69.4, 3.97, _NA),
        (61.2, 4.39, _NA),
        (54.9, 4.63, _NA),
        (51.9, 4.76, _NA),
        (50.6, 4.83, _NA),
    ],
}


def _paper_frame() -> pd.DataFrame:
    rows = []
    for ds in DATASETS:
        for name, (f1, f2, f3), (share, d_trn, d_hol) in zip(
            _ROWS, _FIG7[ds], _FIG8[ds], strict=True
        ):
            rows.append(
                {
                    "dataset": ds,
                    "source": name,
                    "tvd_1": f1 / 100,
                    "tvd_2": f2 / 100,
                    "tvd_3": f3 / 100,
                    "dcr_share": share / 100,
                    "dcr_train_mean": d_trn,
                    "dcr_holdout_mean": d_hol,
                }
            )
    return pd.DataFrame(rows)


#: The paper's Figures 7 and 8 for the holdout, MOSTLY (2021) and Flip rows: TVDs and share as
#: fractions, mean DCRs in number of differing attributes.
PAPER = _paper_frame()


def paper_rows(dataset: str) -> pd.DataFrame:
    """The paper's rows for one dataset (see :data:`PAPER`); ValueError for another name."""
    if dataset not in DATASETS:
        raise ValueError(
            f"unknown dataset {dataset!r}; the paper's datasets are {', '.join(DATASETS)}"
        )
    return PAPER[PAPER["dataset"] == dataset].reset_index(drop=True)


def published_files(dataset: str) -> dict[str, Path]:
    """The 2024 synthetic files of the paper's repository for ``dataset``: label -> path.

    Labels are the file names without dataset prefix and suffix, e.g. ``"mostlyai"``,
    ``"mostlyai_DP_eps1.6_noise1.5"``, ``"synthcity-arf"``.
    """
    if dataset not in DATASETS:
        raise ValueError(
            f"unknown dataset {dataset!r}; the paper's datasets are {', '.join(DATASETS)}"
        )
    out = {}
    for file in sorted(SYNTHETIC_DIR.glob(f"{dataset}_*.csv.gz")):
        out[re.sub(rf"^{re.escape(dataset)}_|\.csv\.gz$", "", file.name)] = file
    return out


def dp_epsilon(label: str) -> float:
    """ε encoded in a published file label (``..._DP_eps1.6_...`` → 1.6; ``-e100`` → 100), else NaN."""
    m = re.search(r"eps(\d+(?:\.\d+)?)", label) or re.search(r"-e(\d+(?:\.\d+)?)$", label)
    return float(m.group(1)) if m else np.nan


_METRICS = (
    "tvd_1",
    "tvd_2",
    "tvd_3",
    "holdout_tvd_1",
    "holdout_tvd_2",
    "holdout_tvd_3",
    "dcr_share",
    "dcr_train_mean",
    "dcr_holdout_mean",
    "n_closer",
    "n_further",
    "n_equal",
    "n_synthetic",
)


def synthetic_table(params: dict, rng: np.random.Generator) -> pd.DataFrame:
    """The table a grid cell scores.

    ``params["source"]`` is ``"holdout"`` (the holdout half itself), ``"flip"`` (the paper's
    Flip ``p`` of the training half, ``rows`` records; ``rows = 0`` means as many as the
    training half) or ``"published"`` (the 2024 file ``label`` of the paper's repository).
    """
    from synthtrust.synthesizers import Flip

    train, holdout = datasets.holdout_split(params["dataset"])
    source = params["source"]
    if source == "holdout":
        return holdout
    if source == "flip":
        rows = int(params.get("rows") or len(train))
        return Flip(float(params["p"]), random_state=rng).fit(train).sample(rows)
    if source == "published":
        return datasets.read_table(published_files(params["dataset"])[params["label"]])
    raise ValueError(f"unknown source {source!r}; expected 'holdout', 'flip' or 'published'")


def score_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """One grid cell (one replicate): the holdout report of :func:`synthetic_table`'s output.

    Returns a one-row DataFrame with the :class:`~synthtrust.fidelity.HoldoutReport` summary
    (TVDs as fractions, mean DCRs in differing attributes, counts).
    """
    from synthtrust.fidelity import holdout_report

    (rng,) = rngs
    train, holdout = datasets.holdout_split(params["dataset"])
    synthetic = synthetic_table(params, rng)
    report = holdout_report(train, holdout, synthetic, random_state=rng, n_jobs=1)
    summary = report.to_dict()
    return pd.DataFrame([{k: summary[k] for k in _METRICS}])


def build_grid(
    *, datasets_: list[str], flip_rates: list[float], flip_rows: int, published: bool
) -> list[dict]:
    """Cells: the holdout, each Flip rate and (optionally) each published file, per dataset."""
    cells = []
    for ds in datasets_:
        if ds not in DATASETS:
            raise ValueError(
                f"unknown dataset {ds!r}; the paper's datasets are {', '.join(DATASETS)}"
            )
        cells.append(
            {"dataset": ds, "source": "holdout", "p": None, "rows": None, "label": "Holdout"}
        )
        cells += [
            {
                "dataset": ds,
                "source": "flip",
                "p": float(p),
                "rows": int(flip_rows),
                "label": f"Flip {round(100 * p)}%",
            }
            for p in flip_rates
        ]
        if published:
            cells += [
                {"dataset": ds, "source": "published", "p": None, "rows": None, "label": label}
                for label in published_files(ds)
            ]
    return cells


def beside_paper(results: pd.DataFrame) -> pd.DataFrame:
    """This run's rows next to the paper's (Figures 7 and 8) for the rows the paper printed.

    Returns one row per (dataset, label, metric) with ``this_run`` and ``paper``.
    """
    metrics = ["tvd_1", "tvd_2", "tvd_3", "dcr_share", "dcr_train_mean", "dcr_holdout_mean"]
    ours = results.melt(
        id_vars=["dataset", "label"], value_vars=metrics, var_name="metric", value_name="this_run"
    )
    paper = PAPER.rename(columns={"source": "label"}).melt(
        id_vars=["dataset", "label"], value_vars=metrics, var_name="metric", value_name="paper"
    )
    return ours.merge(paper, on=["dataset", "label", "metric"], how="inner")


# --------------------------------------------------------------------------------------------
# Beyond the paper: the DP synthesizers of chapter 1 on a discretized table
# --------------------------------------------------------------------------------------------
#: Columns of adult given to the DP synthesizers, and the public age bins (years).
DP_COLUMNS = ("age", "education", "marital-status", "sex", "income")
AGE_CUTS = (25, 30, 35, 40, 45, 50, 55, 60, 65, 70)


def _age_labels() -> list[str]:
    edges = (17, *AGE_CUTS, 91)
    return [
        f"{a}-{b - 1}" if b < 91 else f"{a}+" for a, b in zip(edges[:-1], edges[1:], strict=True)
    ]


def dp_table(df: pd.DataFrame) -> pd.DataFrame:
    """Adult restricted to :data:`DP_COLUMNS`, age cut at the public :data:`AGE_CUTS` (labels)."""
    out = df.loc[:, list(DP_COLUMNS)].copy()
    idx = np.searchsorted(np.asarray(AGE_CUTS), out["age"].to_numpy(), side="right")
    out["age"] = np.asarray(_age_labels(), dtype=object)[idx]
    return out


def dp_domain() -> dict[str, list]:
    """The public domain of :func:`dp_table`: the levels of each column, in code order.

    Age levels are the public bins; the categorical levels are those of the published UCI
    data dictionary (here read from the whole dataset, which lists exactly them)."""
    full = dp_table(pd.concat(datasets.holdout_split("adult"), ignore_index=True))
    levels = {c: sorted(full[c].unique().tolist()) for c in DP_COLUMNS if c != "age"}
    return {"age": _age_labels(), **levels}


def dp_synthetic(method: str, epsilon: float, rng: np.random.Generator) -> pd.DataFrame:
    """DP synthetic adult (discretized, :data:`DP_COLUMNS`) of the training half's size.

    ``method``: "perturbed_histogram", "mwem" or "private_pgm" (all 1- and 2-way marginals) of
    :mod:`synthtrust.synthesizers`, ε-DP on the training half's counts over the public domain.
    """
    from synthtrust.synthesizers import MWEM, PerturbedHistogram, PrivatePGM

    classes = {"perturbed_histogram": PerturbedHistogram, "mwem": MWEM, "private_pgm": PrivatePGM}
    if method not in classes:
        raise ValueError(f"unknown DP method {method!r}; expected one of {', '.join(classes)}")
    levels = dp_domain()
    train = dp_table(datasets.holdout_split("adult")[0])
    codes = pd.DataFrame(
        {c: pd.Categorical(train[c], categories=levels[c]).codes for c in DP_COLUMNS}
    )
    synth = classes[method](
        epsilon=float(epsilon), domain={c: len(v) for c, v in levels.items()}, random_state=rng
    )
    sample = synth.fit(codes).sample(len(train))
    return pd.DataFrame(
        {c: np.asarray(levels[c], dtype=object)[sample[c].to_numpy()] for c in DP_COLUMNS}
    )


def dp_warm_up() -> None:
    """What the DP cells need once per worker process (``run_grid(..., warm_up=dp_warm_up)``):
    JAX, mbi and Private-PGM's compiled programs for the DP table's domain, by one fit (a
    first fit grows a process by ≈ 570 MB, later ones reuse it; loky would recycle a worker
    whose first task was the holdout row)."""
    dp_synthetic("private_pgm", 1.0, np.random.default_rng(0))


def dp_score_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """One cell of the DP frontier: ``method`` at ``epsilon`` ("holdout": the reference)."""
    from synthtrust.fidelity import holdout_report

    (rng,) = rngs
    train, holdout = (dp_table(t) for t in datasets.holdout_split("adult"))
    if params["method"] == "holdout":
        synthetic = holdout
    else:
        synthetic = dp_synthetic(params["method"], params["epsilon"], rng)
    report = holdout_report(train, holdout, synthetic, random_state=rng, n_jobs=1)
    summary = report.to_dict()
    return pd.DataFrame([{k: summary[k] for k in _METRICS}])

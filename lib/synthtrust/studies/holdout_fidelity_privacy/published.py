"""Chapter 2 — the published numbers of Platzer & Reutterer (2021) [``platzer2021``],
Figures 7 (fidelity: mean k-way TVD F¹, F², F³) and 8 (privacy: the share of synthetic records
closer to a training than to a holdout record, mean DCRs), for the holdout, the seven
generators and the Flip baselines on the paper's four datasets, transcribed by hand
(:data:`PAPER`, :func:`paper_rows`)."""

from __future__ import annotations

import pandas as pd

__all__ = ["DATASETS", "PAPER", "PAPER_GENERATORS", "paper_rows"]

#: The four datasets of the paper, in its order.
DATASETS = ("adult", "bank-marketing", "credit-default", "online-shoppers")

#: The paper's generator rows of Figures 7 and 8, in its order.
PAPER_GENERATORS = (
    "CopulaGAN",
    "CTGAN",
    "GaussianCopula",
    "Gretel",
    "MOSTLY",
    "synthpop",
    "TVAE",
)

_ROWS = ["Holdout", *PAPER_GENERATORS] + [f"Flip {p}%" for p in range(10, 100, 10)]

# Figure 7 (F1, F2, F3 in %) and Figure 8 (share in %, mean DCR train, mean DCR holdout), per
# dataset in the order of _ROWS. The plain-text copy of the paper truncates the last column of
# online-shoppers in Figure 8 for several rows; those values are NaN here.
_FIG7 = {
    "adult": [
        (1.0, 1.6, 2.1),
        (13.1, 20.7, 26.4),
        (15.8, 20.9, 26.3),
        (28.9, 37.4, 45.0),
        (4.2, 6.1, 8.1),
        (1.3, 1.9, 2.4),
        (0.6, 1.3, 1.9),
        (27.7, 42.6, 49.3),
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
        (10.0, 13.8, 16.0),
        (10.6, 14.7, 17.2),
        (22.5, 29.5, 34.4),
        (3.3, 5.4, 7.3),
        (1.5, 2.0, 2.4),
        (0.6, 1.1, 1.4),
        (33.6, 46.6, 54.7),
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
        (16.4, 19.1, 21.4),
        (22.8, 25.0, 28.1),
        (30.2, 37.9, 43.9),
        (11.5, 19.1, 25.1),
        (3.8, 5.4, 5.8),
        (1.3, 2.2, 2.8),
        (47.0, 63.8, 73.0),
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
        (22.0, 29.4, 36.8),
        (24.5, 34.2, 43.2),
        (36.4, 52.5, 59.8),
        (6.5, 9.8, 12.0),
        (2.8, 3.2, 3.4),
        (0.7, 1.3, 1.6),
        (36.7, 50.9, 55.7),
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
        (50.0, 4.19, 4.19),
        (50.4, 4.49, 4.50),
        (50.0, 5.54, 5.54),
        (50.2, 2.49, 2.49),
        (50.6, 2.34, 2.35),
        (58.0, 2.14, 2.33),
        (49.9, 3.89, 3.89),
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
        (50.2, 4.46, 4.46),
        (50.3, 4.61, 4.61),
        (49.6, 5.65, 5.64),
        (49.9, 4.00, 4.00),
        (50.7, 3.68, 3.70),
        (59.6, 3.44, 3.68),
        (51.3, 4.61, 4.64),
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
        (50.0, 12.04, 12.04),
        (50.1, 12.37, 12.37),
        (50.1, 13.82, 13.82),
        (50.8, 10.95, 10.97),
        (51.1, 9.81, 9.83),
        (59.7, 8.97, 9.26),
        (50.7, 14.31, 14.32),
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
        (49.8, 8.26, _NA),
        (50.6, 8.59, _NA),
        (49.5, 9.19, _NA),
        (52.4, 4.56, _NA),
        (50.9, 4.50, _NA),
        (59.3, 4.07, _NA),
        (50.2, 8.15, _NA),
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


#: The paper's Figures 7 and 8 for the holdout, generator (:data:`PAPER_GENERATORS`, MOSTLY of
#: 2021 among them) and Flip rows: TVDs and share as fractions, mean DCRs in number of
#: differing attributes.
PAPER = _paper_frame()


def paper_rows(dataset: str) -> pd.DataFrame:
    """The paper's rows for one dataset (see :data:`PAPER`); ValueError for another name."""
    if dataset not in DATASETS:
        raise ValueError(
            f"unknown dataset {dataset!r}; the paper's datasets are {', '.join(DATASETS)}"
        )
    return PAPER[PAPER["dataset"] == dataset].reset_index(drop=True)

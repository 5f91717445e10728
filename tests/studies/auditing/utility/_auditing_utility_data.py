"""Helpers shared by the test files of this folder (plain functions and constants).

Tests of synthtrust.studies.auditing.utility.experiment (Tables 1–3 of houssiau2022).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


# --------------------------------------------------------------------------------------------
# tables and findings on a made-up results frame
# --------------------------------------------------------------------------------------------
def _fake_results():
    base = {
        "app3_order": "435201",
        "app3_order_real_test": "",
        "app3_jaro_real_test": np.nan,
        "app3_real_order": "435201",
        "n_synthetic": 10_000,
        "seed": 1,
        "fit_seconds": 1.0,
        "seconds": 2.0,
    }
    vals = {  # generator: (rmse3, rmse_gap, a2r, a2s, a3r, a3s, jaro)
        "real": (3e-4, 0.02, 0.325, 0.325, 0.448, 0.448, 1.0),
        "ipf": (7e-4, 0.05, 0.324, 0.33, 0.447, 0.45, 0.99),
        "pgm": (7.5e-4, 0.05, 0.326, 0.33, 0.446, 0.40, 1.0),
        "mst": (1.1e-3, 0.3, 0.30, 0.31, 0.32, 0.33, 0.83),
        "privbayes": (1.5e-3, 0.1, 0.32, 0.34, 0.44, 0.48, 0.65),
        "pategan": (1.2e-2, 0.5, 0.21, 0.40, 0.21, 0.46, 0.50),
        "cart": (6e-4, 0.04, 0.326, 0.34, 0.42, 0.51, 0.89),
    }
    rows = []
    for g, v in vals.items():
        for rep, shift in enumerate((-1e-5, 1e-5)):  # two runs whose mean is v
            rows.append(
                {
                    "generator": g,
                    "rep": rep,
                    **base,
                    "app1_rmse_3way": v[0] + shift,
                    "app1_rmse_gender_gap": v[1],
                    "app2_acc_real": v[2],
                    "app2_acc_synthetic": v[3],
                    "app3_acc_real": v[4],
                    "app3_acc_synthetic": v[5],
                    "app3_jaro": v[6],
                }
            )
    return pd.DataFrame(rows)

"""Helpers shared by the test files of this folder (plain functions and constants).

Generators audited in the auditing chapter (Houssiau et al. 2022, §4.4) and the census data:
IPF and noise-free Private-PGM on declared marginals (honest/dishonest), sequential CART,
the census loaders and the census public domain.
"""

import numpy as np

SIZES = {"a": 2, "b": 3, "c": 2}


def _table(df, cols, sizes=SIZES):
    t = np.zeros([sizes[c] for c in cols])
    np.add.at(t, tuple(df[c].to_numpy() for c in cols), 1)
    return t

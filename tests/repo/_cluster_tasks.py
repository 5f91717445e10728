"""A grid-cell function for the cluster tests (tests/repo/test_cluster.py).

The Dask workers of those tests import nothing from the tests folder by path: the test uploads
this file to them (``Client.upload_file``), as a user ships code to a cluster without a shared
file system.
"""

from __future__ import annotations

import time

import pandas as pd


def slow_draws(params, rngs):
    """``params["seconds"]`` of work per replicate, then one normal draw per replicate: the
    result depends on the replicate's seed only, never on where or when it ran."""
    time.sleep(params["seconds"] * len(rngs))
    return pd.DataFrame({"x": [rng.normal(params["mu"]) for rng in rngs]})

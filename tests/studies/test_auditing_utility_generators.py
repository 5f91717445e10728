"""Tests of ``synthtrust.studies.auditing_utility_generators``.

The oracles and the shared set-up are described in ``_auditing_utility_data.py``.
"""

from __future__ import annotations

import pytest

from synthtrust.studies import auditing_utility as U


def test_make_utility_generator_and_grid():
    ipf = U.make_utility_generator("ipf", 2, 0)
    assert ipf.tol == 1e-3 and sorted(map(tuple, ipf.marginals)) == sorted(
        tuple(m) for m in U.application(2).marginals
    )
    assert U.make_utility_generator("pgm", 3, 0).max_iter == 200
    assert type(U.make_utility_generator("mst")).__name__ == "MST"
    with pytest.raises(ValueError, match="app="):
        U.make_utility_generator("ipf")
    with pytest.raises(ValueError, match="unknown generator"):
        U.make_utility_generator("real")
    cells = U.build_utility_grid(generators=["ipf", "cart"], n_rows=2000)
    assert [c["generator"] for c in cells] == ["real", "ipf", "cart"]
    assert cells[0]["epsilon"] == 1000.0 and cells[0]["pgm_iters"] == [1000, 1000, 200]
    with pytest.raises(ValueError, match="ctgan"):
        U.build_utility_grid(generators=["ctgan"])

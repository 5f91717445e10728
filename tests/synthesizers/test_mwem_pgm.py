"""Tests of ``synthtrust.synthesizers.mwem_pgm``.

The oracles and the shared set-up are described in ``_marginal_data.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _marginal_data import DOMAIN, REL

from synthtrust.privacy import cdp_rho
from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.mwem_pgm import MWEMPGM


@pytest.fixture(scope="module")
def mwem(data):
    return MWEMPGM(2.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=4).fit(data)


# --------------------------------------------------------------------------------------------
# MWEM+PGM and AIM
# --------------------------------------------------------------------------------------------
def test_mwem_pgm_ledger_and_rounds(mwem):
    rho = cdp_rho(2.0, 1e-6)
    assert mwem.ledger_.total_rho == pytest.approx(rho, rel=REL)
    sigma, eps = mg.mwem_pgm_budget(rho, 4)
    frame = mwem.ledger_.to_frame()
    assert list(frame["mechanism"]) == ["exponential", "gaussian"] * 4
    np.testing.assert_allclose(frame["epsilon"].iloc[::2], eps)
    np.testing.assert_allclose(frame["scale"].iloc[1::2], sigma)
    assert len(mwem.cliques_) == 4 and all(len(c) == 2 for c in mwem.cliques_)


def test_mwem_pgm_model_size_cap_restricts_candidates(data):
    # 4 rounds, cap 4·(size of the empty model + one 12-cell pair): round 1 allows only small pairs
    with pytest.raises(ValueError, match="max_model_size"):
        MWEMPGM(1.0, domain=DOMAIN, max_model_size=1e-6, max_iter=50).fit(data)

"""Tests of ``synthtrust.studies.auditing.applications``.

The oracles and the shared set-up are described in ``_auditing_data.py``.
"""

import pytest
from _auditing_data import APP1

from synthtrust.studies.auditing import audits as au


# --------------------------------------------------------------------------------------------
# cards and bases: the paper's dimensions (§3.3, §4.1)
# --------------------------------------------------------------------------------------------
def test_application_columns_and_census_sizes():
    assert au.card(1).columns == {"Economic Activity": 10, "Occupation": 10, "Sex": 2}
    assert au.card(2).columns == {
        "Ethnic Group": 6,
        "Country of Birth": 3,
        "Family Composition": 7,
        "Approximated Social Grade": 5,
    }
    assert au.card(3).sizes == (5, 10, 13, 10, 5, 8, 6)
    assert au.APPLICATIONS[1].cheat == APP1
    assert au.APPLICATIONS[3].cheat == ("Marital Status", "Occupation", "Hours worked per week")
    assert [a.copies for a in au.APPLICATIONS.values()] == [1000, 1000, 10]
    assert [a.support for a in au.APPLICATIONS.values()] == [None, None, 10_000]


def test_application_1_card_and_basis():
    # 3 pairs: 100 + 20 + 20 = 140 bins; rank 1 + (9 + 9 + 1) + (81 + 9 + 9) = 119; k = 200 − 119
    c, b = au.card(1), au.basis(1)
    assert c.cells == 200 and len(c.declared_bins()) == 140 and c.phi_dimension == 119
    assert b.phi_rank == 119 and b.dim == 81 and b.dim == c.complement_dimension


def test_application_2_card_and_basis():
    # cliques (E, C, F), (E, G), (C, G), (F, G): 126 + 30 + 15 + 35 = 206 bins;
    # rank 1 + (5 + 2 + 6 + 4) + (10 + 30 + 20 + 12 + 8 + 24) + 5·2·6 = 182; k = 630 − 182
    c, b = au.card(2), au.basis(2)
    assert c.marginals[0] == ("Ethnic Group", "Country of Birth", "Family Composition")
    assert c.cells == 630 and len(c.declared_bins()) == 206 and c.phi_dimension == 182
    assert b.phi_rank == 182 and b.dim == 448


def test_application_3_card_and_basis():
    # 21 pairs of sizes 5, 10, 13, 10, 5, 8, 6: Σ n_i n_j = (57² − 519)/2 = 1365 bins;
    # rank 1 + 50 + (50² − 412)/2 = 1095; M = 1 560 000
    c = au.card(3)
    assert len(c.marginals) == 21 and c.cells == 1_560_000
    assert len(c.declared_bins()) == 1365 and c.phi_dimension == 1095
    b = au.basis(3, seed=0)
    assert b.phi_rank == 1095 and len(b.bins) == 1000 and 990 <= b.dim <= 1000
    assert au.basis(3, seed=0) is b  # cached
    small = au.basis(3, seed=1, n_candidates=50)
    assert len(small.bins) == 50 and small.dim <= 50


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("app", [0, 4, "1", True, 1.0, None])
def test_unknown_application(app):
    with pytest.raises(ValueError, match=r"app must be one of \[1, 2, 3\]"):
        au.card(app) if app is not None else au.application(app)

"""Tests of ``synthtrust.studies.feature_importance.data.domains``.

The oracles and the shared set-up are described in ``_fi_data.py``.
"""

import json

import pandas as pd
import pytest

from synthtrust import datasets
from synthtrust.domain import Categorical, Numeric, Ordinal
from synthtrust.studies.feature_importance import data as fid


# ------------------------------------------------------------------------ public domains
@pytest.mark.parametrize("name", list(fid.DATASETS))
def test_domain_encodes_and_round_trips_the_prepared_table(name):
    spec = fid.DATASETS[name]
    table = fid.load_table(name).drop(columns=list(spec.identifiers))
    domain = fid.study_domain(name)
    assert domain.columns == list(table.columns)
    codes = domain.encode(table)
    again = domain.encode(domain.decode(codes, random_state=0))
    pd.testing.assert_frame_equal(codes, again)
    assert isinstance(domain[spec.target], Categorical)
    assert max(domain.sizes.values()) <= 42  # adult's native: 41 UCI countries + "?"


def test_domains_list_public_categories_not_only_observed_ones():
    adult = fid.study_domain("adult")
    assert len(adult["native"].categories) == 42 and "?" in adult["native"].categories
    assert len(adult["workclass"].categories) == 9 and len(adult["occupation"].categories) == 15
    assert list(adult["education"].categories) == sorted(adult["education"].categories)
    assert adult["hours"].bounds == (1, 99) and adult["capital-gain"].bounds == (0, 99_999)
    assert adult["age"].n_bins == 10 and isinstance(adult["education-num"], Ordinal)
    # polish categories: synthpop's SD2011 factor levels (data/sd2011_factor_levels.json)
    levels = json.loads((datasets.DATA_DIR / "sd2011_factor_levels.json").read_text())
    polish = fid.study_domain("polish")
    for col in ("smoke", "sex", "edu", "sport", "marital", "region", "ls"):
        assert sorted(polish[col].categories) == sorted(levels[col]), col
    assert list(polish["wkabint"].categories) == ["NO", "YES"]
    household = fid.study_domain("household")
    assert household["parentesco"].categories == tuple(range(12))
    assert household["age"].n_bins == 8 and household["escolari"].n_bins == 8
    art4 = fid.study_domain("artificial_4")
    assert isinstance(art4["X0"], Numeric) and art4["X0"].bounds == (-12, 12) and art4["X0"].clip
    assert fid.study_domain("artificial_5").columns == ["X0", "X9", "X10", "label"]

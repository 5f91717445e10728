"""Tests of ``synthtrust.datasets``, including the census loaders and the census data the
generators of the auditing chapter (Houssiau et al. 2022, §4.4) are fitted on (the census public
domain and its codes)."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from _generator_data import _table

from synthtrust import datasets
from synthtrust.domain import dataset_domain
from synthtrust.synthesizers import IPF

# --------------------------------------------------------------------------------------------
# census data and its public domain
# --------------------------------------------------------------------------------------------
CENSUS_SIZES = {
    "Region": 10,
    "Residence Type": 2,
    "Family Composition": 7,
    "Population Base": 3,
    "Sex": 2,
    "Age": 8,
    "Marital Status": 5,
    "Student": 2,
    "Country of Birth": 3,
    "Health": 6,
    "Ethnic Group": 6,
    "Religion": 10,
    "Economic Activity": 10,
    "Occupation": 10,
    "Industry": 13,
    "Hours worked per week": 5,
    "Approximated Social Grade": 5,
}


@pytest.fixture(scope="module")
def census():
    return {n: datasets.load(n) for n in ("census2011_random10k", "census2011_first50k")}


def test_census_loaders(census):
    small, first = census["census2011_random10k"], census["census2011_first50k"]
    assert small.shape == (10_000, 18) and first.shape == (50_000, 18)
    assert list(small.columns) == list(first.columns) == ["Person ID", *CENSUS_SIZES]
    assert not any(str(c).startswith("Unnamed") for c in small.columns)
    pd.testing.assert_index_equal(small.index, pd.RangeIndex(10_000))
    assert small["Person ID"].is_unique
    assert small.iloc[0, :4].tolist() == [7529361, "E12000002", "H", 3]  # first data line


def test_census_domain_encodes_both_files(census):
    dom = dataset_domain("census2011")
    assert dom.sizes == CENSUS_SIZES
    assert dom.cells == int(np.prod(list(CENSUS_SIZES.values())))
    for name, df in census.items():
        attrs = df.drop(columns="Person ID")
        codes = dom.encode(attrs)
        for col, k in CENSUS_SIZES.items():
            assert codes[col].between(0, k - 1).all(), (name, col)
        pd.testing.assert_frame_equal(dom.decode(codes), attrs)  # values and dtypes
        # -9 ("no code required") is its own level, code 0, and decodes back
        for col in ("Health", "Economic Activity", "Occupation", "Industry"):
            nine = attrs[col] == -9
            assert nine.any(), (name, col)
            np.testing.assert_array_equal(codes[col] == 0, nine)
    assert dom["Health"].categories[0] == -9 and dom["Sex"].categories == (1, 2)
    assert "Person ID" not in dom
    with pytest.raises(ValueError, match="available: .*census2011"):
        dataset_domain("census")


def test_census_codes_feed_the_generators(census):
    """App. 1's columns (Economic Activity, Occupation, Sex): 200 cells, IPF honest vs dishonest."""
    cols = ["Economic Activity", "Occupation", "Sex"]
    dom = dataset_domain("census2011").select(cols)
    codes = dom.encode(census["census2011_random10k"][cols])
    pairs = list(itertools.combinations(cols, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gen = IPF.dishonest(pairs, tuple(cols), domain=dom.sizes).fit(codes)
    assert gen.table_.shape == (10, 10, 2)
    real = _table(codes, cols, dom.sizes)
    assert np.abs(gen.table_ - real).sum() <= 0.5


@pytest.mark.parametrize(
    ("name", "shape", "target", "positives"),
    [
        ("adult", (48842, 15), "income", ("income", ">50K", 11687)),
        ("cardio", (70000, 13), "cardio", ("cardio", 1, 34979)),
        ("bank-marketing", (45211, 17), "y", ("y", "yes", 5289)),
        (
            "credit-default",
            (30000, 24),
            "default payment next month",
            ("default payment next month", 1, 6636),
        ),
        ("online-shoppers", (12330, 18), "Revenue", ("Revenue", True, 1908)),
    ],
)
def test_load_known_datasets(name, shape, target, positives):
    df = datasets.load(name)
    assert isinstance(df, pd.DataFrame)
    assert df.shape == shape
    col, value, count = positives
    assert int((df[col] == value).sum()) == count


def test_adult_missing_marker_is_nan():
    df = datasets.load("adult")
    assert int(df["workclass"].isna().sum()) == 2799
    assert int(df["occupation"].isna().sum()) == 2809


def test_every_listed_dataset_file_exists():
    for name in datasets.NAMES:
        assert datasets.path(name).exists(), name


@pytest.mark.parametrize("bad", ["adlt", "", None, 3])
def test_unknown_dataset_lists_known_names(bad):
    with pytest.raises(ValueError, match="unknown dataset.*adult.*cardio"):
        datasets.load(bad)

import pandas as pd
import pytest

from synthtrust import datasets


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

"""Tests of ``synthtrust.domain.dataset_domains``.

The oracles and the shared set-up are described in ``_domain_data.py``.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from synthtrust import datasets
from synthtrust.domain import (
    DATASET_DOMAINS,
    Categorical,
    Domain,
    Numeric,
    dataset_domain,
)


@pytest.mark.parametrize("name", DATASET_DOMAINS)
def test_dataset_domains_json_round_trip(name):
    dom = dataset_domain(name)
    assert Domain.from_dict(json.loads(json.dumps(dom.to_dict()))) == dom


# --------------------------------------------------------------------------------------------
# Hand-written public domains of the datasets
# --------------------------------------------------------------------------------------------
EXPECTED_SIZES = {
    "pima_diabetes": {
        "Pregnancies": 21,
        "Glucose": 10,
        "BloodPressure": 9,
        "SkinThickness": 7,
        "Insulin": 9,
        "BMI": 8,
        "DiabetesPedigreeFunction": 6,
        "Age": 8,
        "Outcome": 2,
    },
    "ilpd": {
        "Age": 7,
        "Gender": 2,
        "Total_Bilirubin": 9,
        "Direct_Bilirubin": 8,
        "Alkaline_Phosphotase": 9,
        "Alamine_Aminotransferase": 9,
        "Aspartate_Aminotransferase": 9,
        "Total_Protiens": 8,
        "Albumin": 7,
        "Albumin_and_Globulin_Ratio": 9,
        "Dataset": 2,
    },
    "hypothyroid_allhypo": {
        "age": 9,
        "sex": 3,
        **{
            f: 2
            for f in [
                "on_thyroxine",
                "query_on_thyroxine",
                "on_antithyroid_medication",
                "sick",
                "pregnant",
                "thyroid_surgery",
                "I131_treatment",
                "query_hypothyroid",
                "query_hyperthyroid",
                "lithium",
                "goitre",
                "tumor",
                "hypopituitary",
                "psych",
            ]
        },
        "TSH_measured": 2,
        "TSH": 11,
        "T3_measured": 2,
        "T3": 10,
        "TT4_measured": 2,
        "TT4": 10,
        "T4U_measured": 2,
        "T4U": 9,
        "FTI_measured": 2,
        "FTI": 10,
        "TBG_measured": 2,
        "TBG": 4,
        "referral_source": 6,
        "Target": 4,
    },
}
LABELS = {
    "pima_diabetes": ("Outcome", [0, 1]),
    "ilpd": ("Dataset", [1, 2]),
    "hypothyroid_allhypo": (
        "Target",
        ["compensated_hypothyroid", "negative", "primary_hypothyroid", "secondary_hypothyroid"],
    ),
    "adult_pgm_discretized": ("income>50K", [0, 1]),
    "cardio": ("cardio", [0, 1]),
}


def test_dataset_domain_names():
    assert set(DATASET_DOMAINS) <= set(datasets.NAMES)
    with pytest.raises(ValueError, match="no public domain for dataset 'sd2011'; available"):
        dataset_domain("sd2011")


def test_adult_pgm_sizes_equal_the_json_file():
    sizes = json.loads((datasets.DATA_DIR / "adult_pgm_discretized_domain.json").read_text())
    dom = dataset_domain("adult_pgm_discretized")
    assert dom.sizes == sizes
    df = datasets.load("adult_pgm_discretized")
    codes = dom.encode(df)
    pd.testing.assert_frame_equal(codes, df)  # identity on integer-coded data
    pd.testing.assert_frame_equal(dom.decode(codes), df)


# sha256 of each domain as the hand-written Python builders of the former domain.py built it,
# before the domains moved to JSON data files: the files must give exactly equal Domain objects
# (spec reprs included, so 1, 1.0 and True are told apart).
BUILDER_FINGERPRINTS = {
    "pima_diabetes": "6d7531c52128f141092f3434acda3e625f8c45edc4d4f02867982b221d8b3329",
    "ilpd": "8ac1203a9003f53cda6169eb87c97b087b03ac1d76c9e0ddd8786ddd01e57f6e",
    "hypothyroid_allhypo": "bb41ec6812815ba71746c1a41976a720f0c5d671a3d4def44de0ce793298d317",
    "adult_pgm_discretized": "49ee06134874152927df5bfed619a0ba815fb838a805e2f2a84aa7575c2a21a0",
    "cardio": "1149f723e39bb26ed396f0c89900e79ce6bdd88460016acbe31d11ef68b159af",
    "census2011": "2a7542cf7601a4a3d06d25654a3ce56836e566b0fd8ad95a51f852aba837ae60",
}


def _fingerprint(dom: Domain) -> str:
    text = json.dumps([dom.to_dict(), {col: repr(spec) for col, spec in dom.specs.items()}])
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("name", [*DATASET_DOMAINS, "census2011"])
def test_dataset_domain_equals_the_former_python_builders(name):
    assert _fingerprint(dataset_domain(name)) == BUILDER_FINGERPRINTS[name]


def test_dataset_domain_files():
    """One JSON file per hand-written domain (adult's sizes come from data/), named after it;
    a column entry is a Domain.to_dict entry plus an optional "note" on its source."""
    folder = resources.files("synthtrust.domain").joinpath("data")
    files = sorted(f.name for f in folder.iterdir() if f.name.endswith(".json"))
    names = sorted({*DATASET_DOMAINS, "census2011"} - {"adult_pgm_discretized"})
    assert files == [f"{name}.json" for name in names]
    for name in names:
        content = json.loads(folder.joinpath(f"{name}.json").read_text("utf-8"))
        assert set(content) == {"dataset", "description", "columns"}
        assert content["dataset"] == name
        spec_columns = [{k: v for k, v in c.items() if k != "note"} for c in content["columns"]]
        assert Domain.from_dict({"columns": spec_columns}) == dataset_domain(name)


@pytest.mark.parametrize("name", DATASET_DOMAINS)
def test_dataset_round_trip(name):
    df = datasets.load(name)
    if name == "cardio":
        df = df.drop(columns="id").sample(5000, random_state=0)  # the record id is no attribute
    dom = dataset_domain(name)
    assert dom.columns == list(df.columns)
    if name in EXPECTED_SIZES:
        assert dom.sizes == EXPECTED_SIZES[name]
        numeric = [c for c in dom.columns if isinstance(dom[c], Numeric)]
        assert max(dom.sizes[c] for c in numeric) <= 11  # <= 10 bins + a missing code
    codes = dom.encode(df)
    for col, k in dom.sizes.items():
        assert codes[col].between(0, k - 1).all(), col
    dec = dom.decode(codes, random_state=0)
    exact = [c for c in dom.columns if not isinstance(dom[c], Numeric)]
    pd.testing.assert_frame_equal(dec[exact], df[exact])  # values and dtypes
    pd.testing.assert_frame_equal(dom.encode(dec), codes)
    label, values = LABELS[name]
    assert isinstance(dom[label], Categorical)
    assert sorted(dec[label].unique().tolist()) == values
    # numeric values that were not clipped decode into the bin they came from
    for col in dom.columns:
        spec = dom[col]
        if isinstance(spec, Numeric):
            x = df[col].to_numpy(dtype=float)
            inside = (x >= spec.bounds[0]) & (x <= spec.bounds[1])
            assert (np.isnan(dec[col].to_numpy(dtype=float)) == np.isnan(x)).all(), col
            assert (spec.encode(dec[col][inside]) == codes[col][inside]).all(), col


def test_dataset_hand_computed_first_rows():
    pima = dataset_domain("pima_diabetes").encode(datasets.load("pima_diabetes").head(1))
    # 6, 148, 72, 35, 0, 33.6, 0.627, 50, 1 (Pregnancies ... Outcome)
    assert pima.iloc[0].tolist() == [6, 6, 5, 4, 0, 4, 2, 5, 1]
    hypo = dataset_domain("hypothyroid_allhypo")
    codes = hypo.encode(datasets.load("hypothyroid_allhypo").head(1)).iloc[0]
    # age 41, TSH 1.3, T3 2.5, TT4 125, T4U 1.14, FTI 109, TBG NaN, SVHC, negative
    assert codes[["age", "TSH", "T3", "TT4", "T4U", "FTI", "TBG"]].tolist() == [3, 2, 5, 5, 5, 4, 3]
    assert codes[["sex", "TSH_measured", "referral_source", "Target"]].tolist() == [0, 1, 2, 0]


def test_hypothyroid_age_455_is_clipped_to_the_top_bin():
    df = datasets.load("hypothyroid_allhypo")
    dom = dataset_domain("hypothyroid_allhypo")
    assert (df["age"] > 100).sum() == 1
    codes = dom.encode(df)
    assert codes.loc[df["age"] > 100, "age"].tolist() == [7]  # [80, 100]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dataset_domain("pima_diabetes")  # public domains never warn

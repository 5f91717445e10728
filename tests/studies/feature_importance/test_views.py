"""Tests of ``synthtrust.studies.feature_importance.views`` (what the chapter shows of a run of
the giles2022 grid). The oracles: small made-up replicate, real-side and summary frames whose
reference bands (mean ± sample sd over runs of independent resampling, one band per subsample
fraction, the mean of the random permutations), top-feature shares (each run's |scores| scaled
to sum 1, averaged over runs; the PrivBayes variants at their largest ε) and PrivBayes RBO
table are computed by hand; rows of another method, failed runs and other generators left out.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from synthtrust.studies.feature_importance.views import (
    baseline_bands,
    importance_scores,
    privbayes_gap,
    top_features,
)


def _raw_rows(rows):
    cols = ["dataset", "generator", "level", "method", "failed", "rbo", "corr_rbo", "cosine"]
    return pd.DataFrame([dict(zip(cols, r, strict=True)) for r in rows])


def test_baseline_bands_by_hand():
    nan = math.nan
    raw = _raw_rows(
        [
            ("polish", "independent", nan, "shap", False, 0.2, 0.3, 0.8),
            ("polish", "independent", nan, "shap", False, 0.4, 0.5, 0.9),
            ("polish", "independent", nan, "shap", True, nan, nan, nan),  # failed: left out
            ("polish", "independent", nan, "mdi", False, 0.9, 0.9, 0.9),  # another method
            ("polish", "subsample", 0.5, "shap", False, 0.6, 0.7, 0.95),  # one run: no spread
            ("polish", "privbayes", 1.0, "shap", False, 0.1, 0.1, 0.1),  # not a baseline
        ]
    )
    real = pd.DataFrame(
        {
            "dataset": ["polish", "polish", "polish"],
            "method": ["shap", "shap", "mdi"],
            "rbo": [0.1, 0.3, 0.9],
            "corr_rbo": [0.2, 0.4, 0.9],
            "cosine": [0.5, 0.7, 0.9],
        }
    )
    bands = baseline_bands(raw, real, "shap")
    assert list(bands.columns) == ["dataset", "measure", "kind", "label", "mean", "lo", "hi"]
    assert list(bands.kind) == ["independent"] * 3 + ["subsample"] * 3 + ["permutation"] * 3
    assert list(bands.measure) == ["rbo", "corr_rbo", "cosine"] * 3
    assert set(bands.dataset) == {"polish"}
    assert list(bands.label.unique()) == [
        "independent resampling",
        "subsample 50%",
        "random permutation",
    ]
    sd = math.sqrt(0.02)  # sample sd of two values 0.2 apart (0.1 apart: sqrt(0.005))
    np.testing.assert_allclose(bands["mean"][:3], [0.3, 0.4, 0.85])
    np.testing.assert_allclose(bands.lo[:3], [0.3 - sd, 0.4 - sd, 0.85 - math.sqrt(0.005)])
    np.testing.assert_allclose(bands.hi[:3], [0.3 + sd, 0.4 + sd, 0.85 + math.sqrt(0.005)])
    np.testing.assert_allclose(bands[["mean", "lo", "hi"]][3:6].T, [[0.6, 0.7, 0.95]] * 3)
    np.testing.assert_allclose(bands[["mean", "lo", "hi"]][6:].T, [[0.2, 0.3, 0.6]] * 3)


def _imp(**scores) -> str:
    return json.dumps(scores)


def test_top_features_are_mean_shares_of_the_real_ranking():
    real = pd.DataFrame(
        {
            "dataset": ["polish", "polish", "adult", "polish"],
            "method": ["shap", "shap", "shap", "mdi"],
            # shares (0.6, 0.2, 0.2) and (0.25, 0.5, 0.25): means a 0.425, b 0.35, c 0.225
            "importance": [
                _imp(a=0.6, b=-0.2, c=0.2),
                _imp(a=1, b=2, c=1),
                _imp(x=1, y=3),
                _imp(a=0, b=0, c=1),
            ],
        }
    )
    raw = pd.DataFrame(
        {
            "dataset": ["polish"] * 6,
            "generator": ["privbayes"] * 3 + ["privbayes_ds"] * 2 + ["independent"],
            "level": [0.1, 1.0, 1.0, 1.0, 1.0, None],
            "method": ["shap"] * 6,
            "failed": [False, False, True, False, False, False],
            "importance": [
                _imp(a=9, b=0, c=0),  # not the largest ε
                _imp(a=0, b=1, c=3),  # shares 0, 0.25, 0.75
                _imp(a=5, b=5, c=0),  # failed
                _imp(b=2, c=2),  # no a: share 0
                _imp(a=0, b=0, c=0),  # all zero: no share to average
                _imp(a=1, b=1, c=1),  # not a PrivBayes variant
            ],
        }
    )
    top = top_features(raw, real, "shap", k=2)
    assert list(top.columns) == ["dataset", "source", "feature", "share"]
    expected = [
        ("adult", "real data", "y", 0.75),
        ("adult", "real data", "x", 0.25),
        ("polish", "real data", "a", 0.425),
        ("polish", "real data", "b", 0.35),
        ("polish", "privbayes", "a", 0.0),
        ("polish", "privbayes", "b", 0.25),
        ("polish", "privbayes_ds", "a", 0.0),
        ("polish", "privbayes_ds", "b", 0.5),
    ]
    assert list(top[["dataset", "source", "feature"]].itertuples(index=False, name=None)) == [
        e[:3] for e in expected
    ]
    np.testing.assert_allclose(top.share, [e[3] for e in expected], rtol=1e-12)
    assert len(top_features(raw, real, "shap", k=15)) == 2 + 3 * 3  # k larger than the features


def test_privbayes_gap_sets_the_two_variants_side_by_side():
    summary = pd.DataFrame(
        {
            "dataset": ["polish"] * 6 + ["adult"],
            "generator": ["privbayes", "privbayes", "privbayes_ds", "privbayes_ds", "mst"]
            + ["privbayes_ds", "privbayes"],
            "level": [0.1, 1.0, 0.1, 1.0, 1.0, 10.0, 1.0],
            "method": ["shap"] * 5 + ["shap", "mdi"],
            "rbo_mean": [0.2, 0.5, 0.6, 0.9, 0.7, 0.95, 0.1],
        }
    )
    gap = privbayes_gap(summary, "shap")
    assert list(gap.columns) == ["dataset", "ε", "ε-DP", "paper-compatible"]
    assert gap[["dataset", "ε"]].values.tolist() == [
        ["polish", 0.1],
        ["polish", 1.0],
        ["polish", 10.0],
    ]
    np.testing.assert_allclose(gap["ε-DP"], [0.2, 0.5, np.nan])
    np.testing.assert_allclose(gap["paper-compatible"], [0.6, 0.9, 0.95])


def test_importance_scores_reads_the_stored_json():
    s = importance_scores('{"b": 0.25, "a": 1e-300}')
    assert list(s.index) == ["b", "a"] and s.tolist() == [0.25, 1e-300]
    assert s.dtype == float and importance_scores("{}").empty
    with pytest.raises(json.JSONDecodeError):
        importance_scores("not json")

"""Tests of ``synthtrust.fidelity.kway``.

The oracles and the shared set-up are described in ``_fidelity_data.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from _fidelity_data import _is_categorical, triple

from synthtrust import fidelity as F

SEP = "\x1f"


def oracle_binned(train: pd.DataFrame, other: pd.DataFrame, c: int):
    bt, bo = {}, {}
    for col in train.columns:
        t, o = train[col], other[col]
        if _is_categorical(t):
            vc = t.value_counts(dropna=True)
            keep = sorted(vc.index, key=lambda v: (-vc[v], str(v)))[:c]

            def lab(s, keep=keep):
                return s.map(
                    lambda v: "MISSING" if pd.isna(v) else (f"c:{v}" if v in keep else "OTHER")
                )

            bt[col], bo[col] = lab(t), lab(o)
        else:
            breaks = t.quantile(np.linspace(0, 1, c + 1)).unique()

            def lab(s, breaks=breaks):
                x = s.astype(float)
                if len(breaks) > 1:
                    out = pd.cut(x, bins=breaks, include_lowest=True).astype(str)
                else:
                    out = pd.Series(np.where(x == breaks[0], "b0", "OTHER"), index=s.index)
                out = out.where(~((x < breaks.min()) | (x > breaks.max())), "OTHER")
                return out.where(x.notna(), "MISSING")

            bt[col], bo[col] = lab(t), lab(o)
    return pd.DataFrame(bt), pd.DataFrame(bo)


def oracle_tvd(train: pd.DataFrame, other: pd.DataFrame, k: int, c: int) -> dict:
    bt, bo = oracle_binned(train, other, c)
    out = {}
    for combo in itertools.combinations(train.columns, k):
        a = bt[list(combo)].astype(str).agg(SEP.join, axis=1)
        b = bo[list(combo)].astype(str).agg(SEP.join, axis=1)
        p = a.value_counts(normalize=True).rename("p")
        q = b.value_counts(normalize=True).rename("q")
        f = pd.concat([p, q], axis=1).fillna(0.0)
        out[combo] = 0.5 * float(np.abs(f["p"] - f["q"]).sum())
    return out


# ===================================================================================== TVD
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k,c", [(1, 100), (1, 4), (2, 10), (2, 3), (3, 5)])
def test_tvd_matches_oracle(seed, k, c):
    train, _, other = triple(seed)
    got = F.tvd(train, other, k, c)
    want = oracle_tvd(train, other, k, c)
    assert list(got.index) == list(want)  # itertools.combinations order of train's columns
    np.testing.assert_allclose(got.to_numpy(), list(want.values()), rtol=0, atol=1e-12)
    assert got.index.names == [f"column_{i + 1}" for i in range(k)]
    assert ((got >= 0) & (got <= 1)).all()


def test_tvd_default_bins_are_the_papers():
    train, _, other = triple(3)
    for k, c in F.TVD_BINS.items():
        pd.testing.assert_series_equal(F.tvd(train, other, k), F.tvd(train, other, k, c))
    assert F.TVD_BINS == {1: 100, 2: 10, 3: 5}


def test_tvd_identical_tables_is_zero_and_column_order_is_irrelevant():
    train, _, _ = triple(4)
    assert np.allclose(F.tvd(train, train.copy(), 2).to_numpy(), 0.0)
    other = train.sample(frac=1.0, random_state=0)[train.columns[::-1]]  # permuted rows, cols
    assert np.allclose(F.tvd(train, other, 3).to_numpy(), 0.0)


def test_tvd_hand_computed():
    train = pd.DataFrame({"x": ["a", "a", "b", "b"], "y": [1.0, 2.0, 3.0, 4.0]})
    other = pd.DataFrame({"x": ["a", "b", "b", "c"], "y": [1.0, 1.0, 9.0, np.nan]})
    s = F.tvd(train, other, 1, bins=2)
    # x: train a .5 b .5; other a .25 b .5 _other_ .25 -> ½(.25 + 0 + .25) = .25
    # y: breaks 1, 2.5, 4 -> train [1,2.5] .5 (2.5,4] .5; other [1,2.5] .5, _other_ .25,
    #    _missing_ .25 -> ½(0 + .5 + .25 + .25) = .5
    assert s[("x",)] == pytest.approx(0.25) and s[("y",)] == pytest.approx(0.5)
    # cells are tuples: concatenated without a separator, "1" + "11" and "11" + "1" are the
    # same label "111" and the reference would report TVD 0 here
    t2 = pd.DataFrame({"u": ["1", "1"], "v": ["11", "11"]})
    o2 = pd.DataFrame({"u": ["11", "11"], "v": ["1", "1"]})
    assert F.tvd(t2, o2, 2, bins=10).iloc[0] == 1.0


def test_tvd_with_fewer_columns_than_k_is_empty():
    df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "x"]})
    assert len(F.tvd(df, df, 3)) == 0


def test_tvd_datetime_column_is_binned_as_numbers():
    rng = np.random.default_rng(5)
    t = pd.DataFrame(
        {"when": pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, 200), "D")}
    )
    o = pd.DataFrame(
        {"when": pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(-50, 950, 150), "D")}
    )
    o.loc[:5, "when"] = pd.NaT
    as_num = lambda df: df.assign(when=df["when"].astype("int64").where(df["when"].notna()))  # noqa: E731
    got = F.tvd(t, o, 1, 10)
    want = F.tvd(as_num(t), as_num(o), 1, 10)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), atol=1e-12)

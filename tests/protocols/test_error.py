"""Tests of ``synthtrust.protocols.error``.

The oracles and the shared set-up are described in ``_protocol_data.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from synthtrust import protocols as P


# --------------------------------------------------------------------------------------------
# protocol error
# --------------------------------------------------------------------------------------------
def test_protocol_error_hand_computation():
    res = P.protocol_error([1.5, 2.5, 3.5], [0.5, 0.5, 0.5])  # r = [1, 2, 3]
    assert res.me == pytest.approx(2.0) and res.std == pytest.approx(1.0)
    assert res.rmse == pytest.approx(math.sqrt(5.0)) and res.n == 3
    assert res.to_dict()["n_undefined"] == 0


def test_protocol_error_equals_loop_and_omits_nan():
    rng = np.random.default_rng(0)
    p, y = rng.random(25), rng.random(25)
    res = P.protocol_error(p, y)
    r = [pi - yi for pi, yi in zip(p, y, strict=True)]
    me = sum(r) / len(r)
    sd = math.sqrt(sum((ri - me) ** 2 for ri in r) / (len(r) - 1))
    assert res.me == pytest.approx(me, abs=1e-14) and res.std == pytest.approx(sd, abs=1e-14)
    assert res.rmse == pytest.approx(math.hypot(me, sd), abs=1e-14)
    p2 = np.append(p, np.nan)
    res2 = P.protocol_error(p2, np.append(y, 0.5))
    assert (res2.me, res2.std, res2.n, res2.n_undefined) == (res.me, res.std, 25, 1)
    one = P.protocol_error([0.7], [0.5])
    assert one.me == pytest.approx(0.2) and math.isnan(one.std) and math.isnan(one.rmse)
    with pytest.raises(ValueError, match="same length"):
        P.protocol_error([1, 2], [1])


def test_summarize_protocol_errors_equals_per_group():
    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        {
            "protocol": np.repeat(["A", "B"], 30),
            "metric": np.tile(np.repeat(["accuracy", "f1"], 15), 2),
            "estimate": rng.random(60),
            "truth": rng.random(60),
        }
    )
    df.loc[3, "estimate"] = np.nan
    out = P.summarize_protocol_errors(df, by=["protocol", "metric"])
    assert list(out.columns) == ["protocol", "metric", "me", "std", "rmse", "n", "n_undefined"]
    assert len(out) == 4
    for row in out.itertuples():
        g = df[(df.protocol == row.protocol) & (df.metric == row.metric)]
        ref = P.protocol_error(g.estimate, g.truth)
        assert row.me == pytest.approx(ref.me, abs=1e-14)
        assert row.std == pytest.approx(ref.std, abs=1e-14)
        assert row.rmse == pytest.approx(ref.rmse, abs=1e-14)
        assert (row.n, row.n_undefined) == (ref.n, ref.n_undefined)
    assert out.loc[(out.protocol == "A") & (out.metric == "accuracy"), "n"].item() == 14
    overall = P.summarize_protocol_errors(df, by=[])
    assert overall["n"].item() == 59
    with pytest.raises(ValueError, match="'generator'"):
        P.summarize_protocol_errors(df, by=["generator"])

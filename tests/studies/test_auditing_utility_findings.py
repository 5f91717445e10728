"""Tests of ``synthtrust.studies.auditing_utility_findings``.

The oracles and the shared set-up are described in ``_auditing_utility_data.py``.
"""

from __future__ import annotations

from _auditing_utility_data import _fake_results

from synthtrust.studies import auditing_utility as U


def test_utility_findings_verdicts():
    res = _fake_results()
    f = U.utility_findings(res, n_test=1000).set_index("key")
    assert list(f.index) == [k for k, _ in U.PAPER_UTILITY_FINDINGS]
    assert f.loc["tailored_3way", "holds"] is True  # 7.5e-4 < 1.1e-3 (CART excepted)
    assert f.loc["phi_sufficient", "holds"] is True
    assert f.loc["gan_overconfident", "holds"] is True
    assert f.loc["two_way_rf", "holds"] is True  # within ±0.031 (2 SE), Jaro 0.99 and 1.0
    assert f.loc["random_order", "holds"] is True  # 0.50 and 0.65 below 0.696 + 2·0.118/√2
    # a run without the GAN and with a too-good PrivBayes
    res2 = res[res["generator"] != "patectgan"].copy()
    res2.loc[res2["generator"] == "privbayes", "app3_jaro"] = 0.95
    res2.loc[res2["generator"] == "ipf", "app3_jaro"] = 0.97  # order not kept
    res2.loc[res2["generator"] == "pgm", "app2_acc_real"] = 0.28  # 0.045 below the real 0.325
    res2.loc[res2["generator"] == "pgm", "app1_rmse_3way"] = 2e-3  # worse than MST
    f2 = U.utility_findings(res2, n_test=1000).set_index("key")
    assert f2.loc["gan_overconfident", "holds"] is None
    assert f2.loc["random_order", "holds"] is False
    assert f2.loc["two_way_rf", "holds"] is False
    assert f2.loc["phi_sufficient", "holds"] is False
    assert f2.loc["tailored_3way", "holds"] is False
    res3 = res[res["generator"].isin(["real", "cart"])]
    assert U.utility_findings(res3, n_test=1000)["holds"].isna().all()

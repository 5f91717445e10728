"""Tests of ``synthtrust.studies.hypothesis_validity.figures``: the chapter's figures read off hand-built
rate tables (each expected text computed by hand), the tables' cells, and the cardio U
statistic against scipy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from IPython.display import Markdown
from scipy import stats

from synthtrust.studies.hypothesis_validity import figures as page
from synthtrust.studies.hypothesis_validity import simulation as hv

EPS = [0.1, 1.0]


def _row(data, method, n, epsilon, rate, *, test="mannwhitneyu", m=None, lo=None, hi=None):
    """One row of an error-rate table (the columns of ``hv.error_rates`` the page reads)."""
    band = {"lo": rate if lo is None else lo, "hi": rate if hi is None else hi}
    keys = {"data": data, "method": method, "n": n, "m": n if m is None else m, "epsilon": epsilon}
    return {**keys, "test": test, "rate": rate, **band, "n_reps": 100, "n_feasible": 100}


def _gauss() -> pd.DataFrame:
    rows = [
        _row("nonsignal", "perturbed_histogram", 1000, 0.1, 0.40),
        _row("nonsignal", "perturbed_histogram", 1000, 1.0, 0.10),
        _row("nonsignal", "perturbed_histogram", 50, 0.1, 0.90),
        _row("nonsignal", "private_pgm", 1000, 0.1, 0.30),
        _row("nonsignal", "mwem", 1000, 0.1, 0.25),
        _row("nonsignal", "mwem", 1000, 1.0, 0.125),
        _row("nonsignal", "dp_mwu", 1000, 0.1, 0.04, test="dp_mwu"),
        _row("nonsignal", "dp_mwu", 50, 1.0, 0.06, test="dp_mwu"),
        _row("nonsignal", "real", 1000, np.nan, 0.05),
        _row("nonsignal", "smoothed_histogram", 20000, 0.1, 0.01, m=500),
        _row("nonsignal", "smoothed_histogram", 20000, 1.0, 0.03, m=1000),
        _row("signal", "smoothed_histogram", 20000, 0.1, 0.97, m=1000),
        _row("nonsignal", "perturbed_histogram", 1000, 0.1, 0.99, test="chi2"),
    ]
    return pd.DataFrame(rows)


def test_rate_selects_the_first_matching_row_or_nan():
    g = _gauss()
    assert page.rate(g, method="mwem", epsilon=1.0 + 1e-12) == 0.125  # ε with a tolerance
    assert page.rate(g, method="mwem", n=None, epsilon=0.1) == 0.25  # None: not filtered
    assert np.isnan(page.rate(g, method="mwem", epsilon=5.0))


def test_mid_size_and_low_epsilon_fall_back_to_the_grid():
    assert page.mid_size([50, 1000, 5000]) == 1000 and page.mid_size([50, 200]) == 200
    assert page.low_epsilon([0.01, 0.1, 1]) == 0.1 and page.low_epsilon([0.5, 2]) == 0.5


def test_headline_facts_quote_the_mw_u_rows():
    facts = page.headline_facts(_gauss(), sizes=[50, 1000], epsilon=EPS, smoothed_sizes=[500, 1000])
    assert facts == {
        "ph_lo": "40.0 %",
        "pgm_lo": "30.0 %",
        "mwem_lo": "25.0 %",
        "mwem_hi": "12.5 %",
        "dpmwu_lo": "4.0 %",
        "real_null": "5.0 %",
        "smooth_max": "3.0 %",  # max over the smoothed histogram's non-signal rows
        "smooth_sig_lo": "97.0 %",
        "dpmwu_max": "6.0 %",  # max over every size and ε
        "n_mid": "1,000",
        "eps_lo": "0.1",
        "eps_hi": "1",
        "m_big": "1,000",
        "n_big": "1,000",
    }


def test_missing_cells_read_n_a():
    facts = page.headline_facts(_gauss(), sizes=[50, 200], epsilon=[0.5], smoothed_sizes=[10])
    assert facts["ph_lo"] == "n/a" and facts["n_mid"] == "200" and facts["eps_lo"] == "0.5"


def test_label_names_methods_and_repeats_the_real_rows():
    out = page.label(_gauss(), EPS)
    real = out[out.method_key.eq("real")]
    assert sorted(real.epsilon) == EPS and set(real.method) == {"Real data (non-DP)"}
    assert set(out.test) == {"Mann–Whitney U", "DP Mann–Whitney U", "χ² (group × value ≥ split)"}


def test_type_one_table_pivots_method_by_epsilon():
    table = page.type_one_table(_gauss(), 1000, EPS).data
    assert list(table.columns) == EPS
    assert table.loc["Real data (non-DP)"].tolist() == [0.05, 0.05]
    ph = [m for m in table.index if "perturbed" in m.lower()][0]
    assert table.loc[ph].tolist() == [0.40, 0.10]  # the χ² row is not a MW U row
    assert not any("smoothed" in m.lower() for m in table.index)


def _failed_rates() -> pd.DataFrame:
    rows = [
        {**_row("nonsignal", "private_pgm", 50, 0.1, 0.2, test=t), "n_feasible": 100 - k}
        for t, k in zip(hv.TESTS, (7, 9, 0, 30), strict=True)
    ]
    rows.append(_row("nonsignal", "real", 50, np.nan, 0.05))
    return pd.DataFrame(rows)


def test_failed_view_writes_the_four_tests_per_cell():
    view = page.failed_view(_failed_rates(), "nonsignal")
    assert view.data.to_dict() == {"m = 50": {"Private-PGM, ε = 0.1": "7 / 9 / 0 / 30"}}
    empty = page.failed_view(_failed_rates(), "signal")
    assert isinstance(empty, Markdown) and "No unusable synthetic dataset" in empty.data


def test_failed_facts_count_private_pgm_at_the_smallest_cell():
    facts = page.failed_facts(_failed_rates(), sizes=[50, 1000], epsilon=[0.1, 1.0])
    assert facts == {"pgm_failed": "7", "n_lo": "50", "eps_min": "0.1"}
    assert page.failed_facts(_failed_rates(), sizes=[50], epsilon=[1.0])["pgm_failed"] == "0"


def _gan(lo_band, hi_band) -> pd.DataFrame:
    rows = []
    for data, base in [("nonsignal", 0.02), ("signal", 0.5), ("cardio", 0.7)]:
        for eps in (1.0, 10.0):
            rate = base + (0.01 if eps == 10.0 else 0.0)
            band = dict(lo=lo_band, hi=hi_band) if data == "nonsignal" and eps == 10.0 else {}
            rows.append(_row(data, "dp_gan", 20000, eps, rate, m=1000, **band))
            rows.append(_row(data, "dp_gan", 20000, eps, 0.9, m=100))
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("band", "verdict"),
    [
        ((0.06, 0.2), "above the nominal 5 % even allowing for the few generators"),
        ((0.0, 0.04), "below the nominal 5 % with room to spare"),
        (
            (0.01, 0.09),
            "not distinguishable from the nominal 5 % with 20 generators (band 1.0 % to 9.0 %)",
        ),
    ],
)
def test_gan_facts_read_the_verdict_off_the_band(band, verdict):
    facts = page.gan_facts(
        _gan(*band), sizes=[100, 1000], epsilons=[1.0, 10.0], alpha=0.05, n_generators=20
    )
    assert facts["gan_verdict"] == verdict
    assert (facts["gan_null_lo"], facts["gan_null_hi"]) == ("2.0 %", "3.0 %")  # m = 1000 only
    assert (facts["gan_card_lo"], facts["gan_sig_hi"]) == ("70.0 %", "51.0 %")
    assert (facts["g_m"], facts["g_lo"], facts["g_hi"]) == ("1,000", "1", "10")


def _controls() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "run": ["GS-WGAN", "GS-WGAN", "σ = 0", "WGAN-GP", "untrained", "uniform table"],
            "epsilon": [1.0, 10.0, np.nan, np.nan, np.nan, np.nan],
            "iterations": [15, 4987, 4987, 4987, 0, 0],
            "tvd": [0.8881, 0.4704, 0.9031, 0.0421, 0.95, 0.887],
        }
    )


def test_control_facts_and_view():
    facts = page.control_facts(_controls(), 20000, [1.0, 2.0, 10.0])
    assert facts == {
        "ctl_k": "500",  # 20 000 records on critics of 40
        "ctl_n": "20,000",
        "ctl_its": "4,987",
        "ctl_dp_lo": "0.888",
        "ctl_dp_hi": "0.470",
        "ctl_zero": "0.903",
        "ctl_wgan": "0.042",
        "ctl_untrained": "0.950",
        "ctl_uniform": "0.887",
    }
    view = page.controls_view(_controls()).data
    assert view["run"].tolist()[:3] == ["GS-WGAN, ε = 1", "GS-WGAN, ε = 10", "σ = 0"]
    assert list(view.columns) == ["run", "private iterations", "2-way TVD from the real table"]


def test_accounting_view_names_the_two_analyses():
    acct = pd.DataFrame({"a": [1.0], "b": [15], "c": [1.0], "d": [29.66], "e": [29.71]})
    html = page.accounting_view(acct).to_html()
    assert "true ε at least (worst case)" in html and "29.7" in html
    assert "nominal ε, per-sample" in html and "ε guaranteed, one release per iteration" in html


def test_multivariate_chart_without_rates_says_so():
    rows = pd.DataFrame([_row("nonsignal", "mwem", 500, 0.1, np.nan, test="chi2")])
    out = page.multivariate_chart(rows, "nonsignal", epsilon=EPS, alpha=0.05, title="t")
    assert isinstance(out, Markdown) and "no rate to draw" in out.data


def test_cardio_facts_u_is_scipys():
    values, groups = hv.cardio_pool("bmi", "cardio")
    want = stats.mannwhitneyu(values[groups == 1], values[groups == 0]).statistic
    rows = pd.DataFrame(
        [
            _row("cardio", "perturbed_histogram", 500, 0.1, 0.3),
            _row("cardio", "real", 500, np.nan, 0.2),
        ]
    )
    facts = page.cardio_facts(rows, cardio_sizes=[500], epsilon=EPS, variable="bmi", group="cardio")
    assert facts["cardio_u"] == f"{want:,.1f}"
    assert (facts["c_ph"], facts["c_real"], facts["c_pgm"], facts["c_n"]) == (
        "30.0 %",
        "20.0 %",
        "n/a",
        "500",
    )

"""Chapter 1 — what the page shows: its headline figures as text, its tables and its charts,
read off the study's error-rate tables.

The study modules compute (:mod:`~synthtrust.studies.hypothesis_validity.simulation`,
:mod:`~synthtrust.studies.hypothesis_validity.gan`, :mod:`~synthtrust.studies.hypothesis_validity.multivariate`);
this module only selects and formats, so that the chapter's cells stay a few lines each. Each
``*_facts`` function returns ``{glue name: text}``, the values the chapter's prose quotes
(rates in per cent by :func:`synthtrust.presentation.charts.percent`).

Source: Montoya Perez et al. (2024) [``montoyaperez2024``], §5 (Figures 4–10, Tables S1–S2).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthtrust import hypothesis
from synthtrust.presentation import charts
from synthtrust.presentation.page_tables import page_table
from synthtrust.studies.hypothesis_validity import gan as hg
from synthtrust.studies.hypothesis_validity import multivariate as hm
from synthtrust.studies.hypothesis_validity import simulation as hv
from synthtrust.studies.hypothesis_validity.findings import select_cells

__all__ = [
    "MWU_TESTS",
    "SCENARIOS",
    "TEST_LABELS",
    "accounting_view",
    "cardio_facts",
    "control_facts",
    "controls_view",
    "failed_facts",
    "failed_view",
    "gan_facts",
    "headline_facts",
    "label",
    "low_epsilon",
    "mid_size",
    "multivariate_chart",
    "rate",
    "type_one_table",
]

#: The tests of the two-column study's headline rows: the MW U test on synthetic or real data
#: and the DP MW U test on the real data.
MWU_TESTS = ("mannwhitneyu", "dp_mwu")

#: The chapter's names of the tests.
TEST_LABELS = {
    "mannwhitneyu": "Mann–Whitney U",
    "dp_mwu": "DP Mann–Whitney U",
    "ttest_ind": "Student's t",
    "median_test": "Mood's median",
    "chi2": "χ² (group × value ≥ split)",
}

#: The GAN chart's series: which error each scenario measures.
SCENARIOS = {
    "nonsignal": "Type I, Gaussian non-signal",
    "signal": "Type II, Gaussian signal",
    "cardio": "Type II, cardio BMI",
}

_SHORT_TEST = {"mannwhitneyu": "MW U", "ttest_ind": "t", "median_test": "median", "chi2": "χ²"}


def rate(rates: pd.DataFrame, **where) -> float:
    """The ``rate`` of the first row of ``rates`` with ``column=value`` for every ``where``
    given (None: not filtered; ε compared with a tolerance); NaN if no row matches.

    Examples
    --------
    >>> t = pd.DataFrame({"method": ["mwem", "real"], "epsilon": [0.1, np.nan], "rate": [0.4, 0.05]})
    >>> rate(t, method="mwem", epsilon=0.1), rate(t, method="mwem", epsilon=1.0)
    (0.4, nan)
    """
    sel = select_cells(rates, **{k: v for k, v in where.items() if v is not None})
    return float(sel["rate"].iloc[0]) if len(sel) else float("nan")


def mid_size(sizes) -> int:
    """The original size the page quotes: 1 000 if the grid has it, else its largest."""
    return 1000 if 1000 in sizes else sizes[-1]


def low_epsilon(epsilon) -> float:
    """The small ε the page quotes: 0.1 if the grid has it, else its smallest."""
    return 0.1 if 0.1 in epsilon else min(epsilon)


def _mwu(rates: pd.DataFrame) -> pd.DataFrame:
    return rates[rates["test"].isin(MWU_TESTS)]


def label(rates: pd.DataFrame, epsilon) -> pd.DataFrame:
    """``rates`` as the charts show them: the real-data rows repeated at every ε of ``epsilon``
    (:func:`~synthtrust.studies.hypothesis_validity.simulation.spread_reference`), methods and tests by
    their names, and the method's key kept in ``method_key``."""
    df = hv.spread_reference(rates, epsilon)
    df["method_key"] = df["method"]
    df["method"] = df["method"].map(charts.METHOD_LABELS)
    df["test"] = df["test"].map(TEST_LABELS)
    return df


def headline_facts(gauss: pd.DataFrame, *, sizes, epsilon, smoothed_sizes) -> dict[str, str]:
    """The two-column Gaussian study's figures the chapter quotes: the Type I error of each
    synthesizer's MW U test at n = 1 000 (or the largest n) and ε = 0.1 (or the smallest ε),
    MWEM's at the largest ε, the smoothed histogram's worst Type I and its Type II error at the
    largest m, the DP MW U test's worst Type I error; and those n, ε and m.

    ``gauss`` is :func:`~synthtrust.studies.hypothesis_validity.simulation.error_rates` of the Gaussian
    scenarios; ``sizes``, ``epsilon``, ``smoothed_sizes`` the grid's.
    """
    mwu = _mwu(gauss)
    n_mid, eps_lo = mid_size(sizes), low_epsilon(epsilon)
    eps_hi, m_big = max(epsilon), max(smoothed_sizes)
    null = mwu[mwu["data"].eq("nonsignal")]

    def at(method, n=None, eps=None, data="nonsignal", m=None):
        return rate(mwu, data=data, method=method, n=n, epsilon=eps, m=m)

    facts = {
        "ph_lo": at("perturbed_histogram", n_mid, eps_lo),
        "pgm_lo": at("private_pgm", n_mid, eps_lo),
        "mwem_lo": at("mwem", n_mid, eps_lo),
        "mwem_hi": at("mwem", n_mid, eps_hi),
        "dpmwu_lo": at("dp_mwu", n_mid, eps_lo),
        "real_null": at("real", n_mid),
        "smooth_max": float(null[null["method"].eq("smoothed_histogram")]["rate"].max()),
        "smooth_sig_lo": at("smoothed_histogram", data="signal", m=m_big, eps=eps_lo),
        "dpmwu_max": float(null[null["method"].eq("dp_mwu")]["rate"].max()),
    }
    return {
        **{k: charts.percent(v) for k, v in facts.items()},
        "n_mid": f"{n_mid:,}",
        "eps_lo": f"{eps_lo:g}",
        "eps_hi": f"{eps_hi:g}",
        "m_big": f"{m_big:,}",
        "n_big": f"{max(sizes):,}",
    }


def type_one_table(gauss: pd.DataFrame, n: int, epsilon):
    """Table 1 of the page: the MW U test's Type I error per method (rows) and ε (columns) at
    original size ``n``, the real-data row repeated at every ε; a Styler ("—" for no rate)."""
    mwu = _mwu(gauss)
    rows = mwu[mwu["data"].eq("nonsignal") & mwu["n"].eq(n)]
    rows = rows[~rows["method"].eq("smoothed_histogram")]
    table = (
        hv.spread_reference(rows, epsilon)
        .assign(method=lambda d: d["method"].map(charts.METHOD_LABELS))
        .pivot_table(index="method", columns="epsilon", values="rate", dropna=False)
    )
    return page_table(table, "{:.3f}", missing="—", columns=lambda v: f"ε = {v:g}")


def cardio_facts(
    cardio: pd.DataFrame, *, cardio_sizes, epsilon, variable: str, group: str
) -> dict[str, str]:
    """The cardio study's figures: the MW U statistic on all records (the paper's U), and the
    Type II error of each method's MW U test at n = 500 (or the smallest n) and the
    :func:`low_epsilon` of ``epsilon`` (the real-data test's at that n)."""
    eps_lo = low_epsilon(epsilon)
    values, groups = hv.cardio_pool(variable, group)
    full = hypothesis.mannwhitneyu(values[groups == 1], values[groups == 0])
    mwu = _mwu(cardio)
    c_n = 500 if 500 in cardio_sizes else cardio_sizes[0]
    methods = {"c_ph": "perturbed_histogram", "c_pgm": "private_pgm", "c_mwem": "mwem"}
    facts = {
        k: rate(mwu, data="cardio", method=m, n=c_n, epsilon=eps_lo) for k, m in methods.items()
    }
    facts["c_dp"] = rate(mwu, data="cardio", method="dp_mwu", n=c_n, epsilon=eps_lo)
    facts["c_real"] = rate(mwu, data="cardio", method="real", n=c_n)
    return {
        "cardio_u": f"{full.statistic:,.1f}",
        "c_n": f"{c_n:,}",
        **{k: charts.percent(v) for k, v in facts.items()},
    }


def failed_view(rates: pd.DataFrame, data: str):
    """The unusable synthetic datasets of scenario ``data`` as the page shows them: one row per
    synthesizer and ε, one column per synthetic size m, each cell "MW U / t / median / χ²"
    (:func:`~synthtrust.studies.hypothesis_validity.simulation.failed_datasets`); a Styler, or a Markdown
    line when no dataset failed."""
    from IPython.display import Markdown

    table = hv.failed_datasets(rates[rates["data"].eq(data)])
    if table.empty:
        return Markdown(f"*No unusable synthetic dataset in the {data} scenario.*")
    sizes = sorted({m for m, _ in table.columns})
    cells = pd.DataFrame(
        {
            f"m = {m:,}": [
                " / ".join(str(int(row.get((m, t), 0))) for t in hv.TESTS)
                for _, row in table.iterrows()
            ]
            for m in sizes
        },
        index=[f"{charts.METHOD_LABELS[meth]}, ε = {eps:g}" for _, meth, eps in table.index],
    )
    return page_table(cells, compact=True)


def failed_facts(gauss: pd.DataFrame, *, sizes, epsilon) -> dict[str, str]:
    """How many Private-PGM datasets the MW U test could not use at the smallest n and ε of the
    Gaussian non-signal scenario, with that n and ε."""
    failed = hv.failed_datasets(gauss[gauss["data"].eq("nonsignal")])
    n_lo, eps_min = min(sizes), min(epsilon)
    key = ("nonsignal", "private_pgm", eps_min)
    count = int(failed.loc[key].get((n_lo, "mannwhitneyu"), 0)) if key in failed.index else 0
    return {"pgm_failed": f"{count}", "n_lo": f"{n_lo:,}", "eps_min": f"{eps_min:g}"}


def _band(gmwu: pd.DataFrame, data: str, eps: float, m: int) -> tuple[float, float]:
    row = select_cells(gmwu, data=data, m=m, epsilon=eps)
    return (float(row["lo"].iloc[0]), float(row["hi"].iloc[0])) if len(row) else (np.nan, np.nan)


def gan_facts(gan: pd.DataFrame, *, sizes, epsilons, alpha: float, n_generators: int) -> dict:
    """The GAN section's figures: the MW U test's error at the largest synthetic size m and the
    smallest and largest ε in each scenario, that m and those ε, and the verdict on the Type I
    error at the largest ε read off its 95 % band over ``n_generators`` generators.

    ``gan`` is :func:`~synthtrust.studies.hypothesis_validity.gan.gan_error_rates`."""
    gmwu = gan[gan["test"].eq("mannwhitneyu")]
    m, lo, hi = max(sizes), min(epsilons), max(epsilons)
    facts = {
        f"gan_{key}_{tag}": charts.percent(
            rate(gmwu, data=data, method=hg.METHOD, m=m, epsilon=eps)
        )
        for key, data in [("null", "nonsignal"), ("sig", "signal"), ("card", "cardio")]
        for tag, eps in [("lo", lo), ("hi", hi)]
    }
    low, high = _band(gmwu, "nonsignal", hi, m)
    verdict = (
        "above the nominal 5 % even allowing for the few generators"
        if low > alpha
        else "below the nominal 5 % with room to spare"
        if high < alpha
        else f"not distinguishable from the nominal 5 % with {n_generators} generators "
        f"(band {charts.percent(low)} to {charts.percent(high)})"
    )
    return {**facts, "gan_verdict": verdict, "g_m": f"{m:,}", "g_lo": f"{lo:g}", "g_hi": f"{hi:g}"}


def _control(controls: pd.DataFrame, run: str, eps=None):
    eps_match = (
        np.isclose(controls["epsilon"], eps)
        if eps is not None
        else ~np.isfinite(controls["epsilon"])
    )
    return controls[controls["run"].eq(run) & eps_match].iloc[0]


def control_facts(controls: pd.DataFrame, n: int, epsilons) -> dict[str, str]:
    """The controls' figures: the 2-way TVD of GS-WGAN at the smallest and largest ε, of the
    σ = 0 run, the WGAN-GP, the untrained generator and the uniform table; the number of
    critics (n / subset size), n, and the σ = 0 run's iterations.

    ``controls`` is :func:`~synthtrust.studies.hypothesis_validity.gan.control_table`."""
    runs = {
        "dp_lo": ("GS-WGAN", min(epsilons)),
        "dp_hi": ("GS-WGAN", max(epsilons)),
        "zero": ("σ = 0", None),
        "wgan": ("WGAN-GP", None),
        "untrained": ("untrained", None),
        "uniform": ("uniform table", None),
    }
    return {
        "ctl_k": f"{n // hg.GAN_DEFAULTS['subset_size']:,}",
        "ctl_n": f"{n:,}",
        "ctl_its": f"{int(_control(controls, 'σ = 0')['iterations']):,}",
        **{f"ctl_{k}": f"{_control(controls, *run)['tvd']:.3f}" for k, run in runs.items()},
    }


def controls_view(controls: pd.DataFrame):
    """The controls as the page shows them: run (with its ε), private iterations, 2-way TVD."""
    run = [
        r if not np.isfinite(e) else f"{r}, ε = {e:g}"
        for r, e in zip(controls["run"], controls["epsilon"], strict=True)
    ]
    shown = controls.assign(run=run)[["run", "iterations", "tvd"]]
    shown.columns = ["run", "private iterations", "2-way TVD from the real table"]
    return page_table(shown, {shown.columns[1]: "{:,}", shown.columns[2]: "{:.3f}"}, index=False)


def accounting_view(acct: pd.DataFrame):
    """:func:`~synthtrust.studies.hypothesis_validity.gan.accounting_table` as the page shows it."""
    acct = acct.set_axis(
        [
            "ε (checkpoint label)",
            "private iterations",
            "nominal ε, per-sample (as GS-WGAN's code)",
            "true ε at least (worst case)",
            "ε guaranteed, one release per iteration",
        ],
        axis=1,
    )
    formats = ["{:g}", "{:,}", "{:.3f}", "{:,.1f}", "{:,.1f}"]
    return page_table(acct, dict(zip(acct.columns, formats, strict=True)), index=False)


def multivariate_chart(multi: pd.DataFrame, data: str, *, epsilon, alpha: float, title: str):
    """The multivariate study's error rates of scenario ``data``: one row of panels per test
    (named with its variable), one column per original size n; a Markdown line when no cell
    has :data:`~synthtrust.studies.hypothesis_validity.multivariate.MIN_FEASIBLE` usable datasets."""
    from IPython.display import Markdown

    df = label(multi[multi["data"].eq(data)], epsilon)
    names = {TEST_LABELS[t]: f"{_SHORT_TEST[t]} · {v}" for t, v in hm.TESTS.items()}
    df["test"] = df["test"].map(names)
    df = df.dropna(subset=["rate"])  # too few usable datasets: no rate (see the tables)
    if df.empty:
        return Markdown(
            f"*No cell of this run has {hm.MIN_FEASIBLE} usable synthetic datasets: "
            "no rate to draw.*"
        )
    return charts.error_rate_chart(
        df,
        x="epsilon",
        y="rate",
        color="method",
        facet_col="n",
        facet_row="test",
        alpha=alpha if data == "nonsignal" else None,
        title=title,
        columns=None,
        width=88,
        height=90,
    )

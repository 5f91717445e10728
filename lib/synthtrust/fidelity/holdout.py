"""The holdout report: fidelity and privacy of one synthetic table (Platzer & Reutterer 2021)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from synthtrust._format import percent
from synthtrust._result import ResultMixin, json_value
from synthtrust._validation import check_n_jobs, check_random_state

from ._tables import (
    DCR_BINS,
    MISSING,
    OTHER,
    ROLES,
    TVD_BINS,
    check_k,
    check_tables,
    column_kind,
)
from .binning import codes_matrix, fit_binning
from .closest import DCRResult, check_flag, dcr_codes, dcr_result, nearest_distances
from .kway import KWayCells, tvd_series


# =============================================================================================
# the report
# =============================================================================================
def _same_rows(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """True if ``a`` and ``b`` hold the same rows in the same order (index ignored)."""
    if a is b:
        return True
    if a.shape != b.shape or list(a.columns) != list(b.columns):
        return False
    return a.reset_index(drop=True).equals(b.reset_index(drop=True))


def _histogram_lists(result: DCRResult) -> dict[str, list[int]]:
    """:meth:`DCRResult.histogram` as {"distance", "train", "holdout"} lists."""
    hist = result.histogram()
    return {c: hist[c].tolist() for c in hist.columns}


def _pct_interval(interval: tuple[float, float]) -> str:
    return f"[{percent(interval[0])}, {percent(interval[1])}]"


@dataclass(frozen=True, eq=False)
class HoldoutReport(ResultMixin):
    """Fidelity and privacy of one synthetic table against training and holdout data.

    Attributes
    ----------
    tvd_1, tvd_2, tvd_3 : float
        ``F^k(T, S)``: mean k-way TVD of the synthetic data vs training, fractions in [0, 1]
        (c = 100 / 10 / 5; paper Figure 7 prints them in %).
    holdout_tvd_1, holdout_tvd_2, holdout_tvd_3 : float
        ``F^k(T, H)``: the holdout scored against training the same way (the reference).
    tvd_per_combination, holdout_tvd_per_combination : dict[int, pandas.Series]
        k → the Series of :func:`tvd` (one value per column combination).
    dcr : DCRResult
        Distances of the synthetic records (Figure 8).
    holdout_dcr : DCRResult or None
        The holdout scored as synthetic (leave-self-out), the reference row of Figure 8;
        None when the synthetic table is the holdout (then ``dcr`` is that row).
    n_train, n_holdout, n_synthetic : int
        Rows used (after ``max_rows``).
    columns : tuple
        Column names, in the training table's order.
    parameters : dict
        Settings of the run (bins, subsampling, detection of the holdout-as-synthetic case).
    """

    tvd_1: float
    tvd_2: float
    tvd_3: float
    holdout_tvd_1: float
    holdout_tvd_2: float
    holdout_tvd_3: float
    tvd_per_combination: dict[int, pd.Series]
    holdout_tvd_per_combination: dict[int, pd.Series]
    dcr: DCRResult
    holdout_dcr: DCRResult | None
    n_train: int
    n_holdout: int
    n_synthetic: int
    columns: tuple
    parameters: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ derived tables
    def tvd_table(self, k: int) -> pd.DataFrame:
        """Per-combination TVD of the synthetic and of the holdout data for one k: columns
        ``columns`` (tuple of names), ``label`` (names joined by " × "), ``synthetic``,
        ``holdout``; sorted by ``synthetic`` descending."""
        k = check_k(k)
        s = self.tvd_per_combination[k]
        h = self.holdout_tvd_per_combination[k]
        combos = [idx if isinstance(idx, tuple) else (idx,) for idx in s.index]
        out = pd.DataFrame(
            {
                "columns": combos,
                "label": [" × ".join(map(str, c)) for c in combos],
                "synthetic": s.to_numpy(),
                "holdout": h.to_numpy(),
            }
        )
        return out.sort_values(
            ["synthetic", "label"], ascending=[False, True], kind="stable"
        ).reset_index(drop=True)

    def to_dict(self) -> dict:
        """JSON-serialisable summary.

        Keys: ``tvd_1`` … ``tvd_3``, ``holdout_tvd_1`` … ``holdout_tvd_3`` (fractions in
        [0, 1]); ``tvd_3_ratio`` = tvd_3 / holdout_tvd_3 (Figure 9's x-axis; None if the holdout
        scores 0); ``dcr_share``, ``dcr_train_mean``, ``dcr_holdout_mean``, ``n_closer``,
        ``n_further``, ``n_equal`` (distances in number of differing attributes);
        ``dcr_share_interval`` ([low, high], 95 %, :meth:`DCRResult.share_interval`);
        ``holdout_dcr_share``, ``holdout_dcr_share_interval``, ``holdout_dcr_train_mean``,
        ``holdout_dcr_holdout_mean`` (the holdout's reference row); ``dcr_histogram`` and
        ``holdout_dcr_histogram`` ({"distance", "train", "holdout"} lists: records by
        distance);
        ``n_train``, ``n_holdout``, ``n_synthetic``, ``columns``, ``synthetic_is_holdout``,
        ``parameters``; ``tvd_per_column`` / ``tvd_per_pair`` / ``tvd_per_triple`` (lists of
        {"columns", "synthetic", "holdout"}).
        """
        ref = self._reference_dcr()
        out = {
            "tvd_1": self.tvd_1,
            "tvd_2": self.tvd_2,
            "tvd_3": self.tvd_3,
            "holdout_tvd_1": self.holdout_tvd_1,
            "holdout_tvd_2": self.holdout_tvd_2,
            "holdout_tvd_3": self.holdout_tvd_3,
            "tvd_3_ratio": (self.tvd_3 / self.holdout_tvd_3 if self.holdout_tvd_3 > 0 else None),
            "dcr_share": self.dcr.share,
            "dcr_share_interval": list(self.dcr.share_interval()),
            "dcr_train_mean": self.dcr.mean_train,
            "dcr_holdout_mean": self.dcr.mean_holdout,
            "n_closer": self.dcr.n_closer,
            "n_further": self.dcr.n_further,
            "n_equal": self.dcr.n_equal,
            "holdout_dcr_share": ref.share if ref else None,
            "holdout_dcr_share_interval": list(ref.share_interval()) if ref else None,
            "holdout_dcr_train_mean": ref.mean_train if ref else None,
            "holdout_dcr_holdout_mean": ref.mean_holdout if ref else None,
            "dcr_histogram": _histogram_lists(self.dcr),
            "holdout_dcr_histogram": _histogram_lists(ref) if ref else None,
            "n_train": self.n_train,
            "n_holdout": self.n_holdout,
            "n_synthetic": self.n_synthetic,
            "columns": [str(c) for c in self.columns],
            "synthetic_is_holdout": self.dcr.synthetic_is_holdout,
            "parameters": self.parameters,
        }
        for k, key in ((1, "tvd_per_column"), (2, "tvd_per_pair"), (3, "tvd_per_triple")):
            s = self.tvd_per_combination[k]
            h = self.holdout_tvd_per_combination[k]
            out[key] = [
                {
                    "columns": [str(c) for c in (idx if isinstance(idx, tuple) else (idx,))],
                    "synthetic": float(sv),
                    "holdout": float(hv),
                }
                for idx, sv, hv in zip(s.index, s.to_numpy(), h.to_numpy(), strict=True)
            ]
        return json_value(out)

    def _reference_dcr(self) -> DCRResult | None:
        if self.holdout_dcr is not None:
            return self.holdout_dcr
        return self.dcr if self.dcr.synthetic_is_holdout else None

    def summary_rows(self) -> list[tuple[str, str, str]]:
        """(measure, synthetic, holdout reference) rows of :meth:`summary`."""
        ref = self._reference_dcr()
        bins = self.parameters.get("tvd_bins", TVD_BINS)
        rows = [
            (
                f"F{k}: {k}-way TVD (c={bins.get(k, bins.get(str(k)))})",
                percent(getattr(self, f"tvd_{k}")),
                percent(getattr(self, f"holdout_tvd_{k}")),
            )
            for k in (1, 2, 3)
        ]
        dash = "n/a"
        rows += [
            (
                "DCR share closer to training",
                percent(self.dcr.share),
                percent(ref.share) if ref else dash,
            ),
            (
                "  95 % interval",
                _pct_interval(self.dcr.share_interval()),
                _pct_interval(ref.share_interval()) if ref else dash,
            ),
            (
                "mean DCR to training",
                f"{self.dcr.mean_train:.2f}",
                f"{ref.mean_train:.2f}" if ref else dash,
            ),
            (
                "mean DCR to holdout",
                f"{self.dcr.mean_holdout:.2f}",
                f"{ref.mean_holdout:.2f}" if ref else dash,
            ),
            (
                "closer / further / equal",
                f"{self.dcr.n_closer:,} / {self.dcr.n_further:,} / {self.dcr.n_equal:,}",
                f"{ref.n_closer:,} / {ref.n_further:,} / {ref.n_equal:,}" if ref else dash,
            ),
        ]
        return rows

    def summary(self) -> str:
        """A printable table: the synthetic data's F1/F2/F3 (in %, as the paper's Figure 7),
        DCR share and mean DCRs (Figure 8) beside the holdout's reference values."""
        rows = self.summary_rows()
        head = ("measure", "synthetic", "holdout (reference)")
        w0 = max(len(head[0]), *(len(r[0]) for r in rows))
        w1 = max(len(head[1]), *(len(r[1]) for r in rows))
        w2 = max(len(head[2]), *(len(r[2]) for r in rows))
        lines = [
            "Holdout-based fidelity and privacy (Platzer & Reutterer 2021)",
            f"train {self.n_train:,} rows, holdout {self.n_holdout:,}, synthetic "
            f"{self.n_synthetic:,}; {len(self.columns)} columns"
            + (" (synthetic = holdout)" if self.dcr.synthetic_is_holdout else ""),
            "",
            f"{head[0]:<{w0}}  {head[1]:>{w1}}  {head[2]:>{w2}}",
            f"{'-' * w0}  {'-' * w1}  {'-' * w2}",
        ]
        lines += [f"{a:<{w0}}  {b:>{w1}}  {c:>{w2}}" for a, b, c in rows]
        lines += [
            "",
            "TVD: lower is better; the holdout's value is what a fresh sample scores.",
            "Share: ~50 % means synthetic records are no nearer to training than holdout.",
        ]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"HoldoutReport(tvd_1={self.tvd_1:.4f}, tvd_2={self.tvd_2:.4f}, "
            f"tvd_3={self.tvd_3:.4f}, holdout_tvd=({self.holdout_tvd_1:.4f}, "
            f"{self.holdout_tvd_2:.4f}, {self.holdout_tvd_3:.4f}), dcr_share={self.dcr.share:.4f}, "
            f"n_train={self.n_train}, n_holdout={self.n_holdout}, n_synthetic={self.n_synthetic})"
        )


def _subsample(df: pd.DataFrame, max_rows: int | None, rng: np.random.Generator) -> pd.DataFrame:
    if max_rows is None or len(df) <= max_rows:
        return df
    idx = np.sort(rng.choice(len(df), size=max_rows, replace=False))
    return df.iloc[idx]


def holdout_report(
    train: pd.DataFrame,
    holdout: pd.DataFrame,
    synthetic: pd.DataFrame,
    *,
    max_rows: int | None = None,
    n_jobs: int | None = None,
    random_state=None,
    synthetic_is_holdout: bool | None = None,
    progress: bool = False,
) -> HoldoutReport:
    """Fidelity (F1, F2, F3) and privacy (DCR share, mean DCRs) of ``synthetic``, with the
    holdout's reference values (Platzer & Reutterer 2021, Figures 7 and 8).

    * ``tvd_k`` = mean of :func:`tvd` (``train``, ``synthetic``, k, c) and ``holdout_tvd_k`` =
      the same for ``holdout``, c = 100 / 10 / 5 for k = 1 / 2 / 3;
    * ``dcr`` = :func:`dcr` (``train``, ``holdout``, ``synthetic``), 100 pooled quantile bins;
    * ``holdout_dcr`` = :func:`dcr` (``train``, ``holdout``, ``holdout``,
      ``synthetic_is_holdout=True``): the holdout's own row, the target a synthesizer should
      match.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Same columns (any order). Numeric/datetime columns are binned on quantiles,
        boolean/text columns are categorical, missing values are a category.
    max_rows : int, optional
        Use at most this many rows of each table (a random subsample without replacement,
        drawn with ``random_state``; the synthetic table, if it is the holdout, is subsampled
        as the holdout). None: all rows, and nothing random.
    n_jobs : int or None
        Threads for the nearest-neighbour search; None or −1 = all cores. Results do not
        depend on it.
    random_state : int, numpy Generator or None
        Seed of the subsampling (used only with ``max_rows``).
    synthetic_is_holdout : bool or None
        None: detect it (``synthetic`` holds the same rows as ``holdout`` in the same order,
        index ignored, same dtypes); then the DCR uses the paper's leave-self-out rule (second
        nearest holdout record). True/False force the rule on/off.
    progress : bool, default False
        Show progress bars (tqdm) of the k-way counts and of the nearest-record search.

    Returns
    -------
    HoldoutReport

    Raises
    ------
    TypeError, ValueError
        As :func:`dcr`; ``max_rows`` not an integer ≥ 1 (≥ 2 when the synthetic table is the
        holdout).
    """
    columns, aligned, _ = check_tables({"train": train, "holdout": holdout, "synthetic": synthetic})
    train, holdout, synthetic = (aligned[r] for r in ROLES)
    if max_rows is not None:
        if isinstance(max_rows, bool) or not isinstance(max_rows, numbers.Integral):
            raise TypeError(f"max_rows must be an integer >= 1 or None, got {max_rows!r}")
        if max_rows < 1:
            raise ValueError(f"max_rows must be >= 1 or None, got {max_rows!r}")
        max_rows = int(max_rows)
    detected = _same_rows(holdout, synthetic)
    if synthetic_is_holdout is None:
        is_holdout = detected
    else:
        is_holdout = check_flag(synthetic_is_holdout, "synthetic_is_holdout")
    n_jobs_ = check_n_jobs(n_jobs)
    progress = check_flag(progress, "progress")

    rng = check_random_state(random_state) if max_rows is not None else None
    if max_rows is not None:
        train = _subsample(train, max_rows, rng)
        same = detected
        holdout = _subsample(holdout, max_rows, rng)
        synthetic = holdout if same else _subsample(synthetic, max_rows, rng)

    kinds = [column_kind(train[c]) for c in columns]
    tvd_s: dict[int, pd.Series] = {}
    tvd_h: dict[int, pd.Series] = {}
    frames = [train, holdout, synthetic]
    specs = {k: fit_binning(train, kinds, c) for k, c in TVD_BINS.items()}
    cells = {k: KWayCells([s.n_codes for s in specs[k]], k) for k in TVD_BINS}
    tables = 2 if synthetic is holdout else 3
    total = tables * sum(len(c.combos) for c in cells.values())
    with tqdm(total=total, desc="k-way cells", unit="combo", disable=not progress) as bar:
        for k in TVD_BINS:
            counted = [
                (cells[k].counts(codes_matrix(t, specs[k]), bar), len(t)) for t in frames[:2]
            ]
            # the holdout scored as synthetic: its counts once
            counted.append(
                counted[1]
                if synthetic is holdout
                else (cells[k].counts(codes_matrix(synthetic, specs[k]), bar), len(synthetic))
            )
            for (counts, n), store in zip(counted[1:], (tvd_h, tvd_s), strict=True):
                values = cells[k].tvd(*counted[0], counts, n)
                store[k] = tvd_series(columns, cells[k].labels(), values, k)

    t_codes, h_codes, s_codes = dcr_codes(frames, kinds, DCR_BINS)
    if is_holdout and len(h_codes) < 2:
        raise ValueError("the synthetic table is the holdout: at least 2 holdout rows are needed")
    d_t, d_h = nearest_distances(
        t_codes, h_codes, s_codes, second_holdout=is_holdout, n_jobs=n_jobs_, progress=progress
    )
    main = dcr_result(d_t, d_h, len(t_codes), len(h_codes), is_holdout, DCR_BINS)
    reference = None
    if not is_holdout and len(holdout) >= 2:
        t2, h2, s2 = dcr_codes([train, holdout, holdout], kinds, DCR_BINS)
        r_t, r_h = nearest_distances(
            t2, h2, s2, second_holdout=True, n_jobs=n_jobs_, progress=progress
        )
        reference = dcr_result(r_t, r_h, len(t2), len(h2), True, DCR_BINS)

    def mean(s: pd.Series) -> float:
        return float(s.mean()) if len(s) else float("nan")

    parameters = {
        "tvd_bins": dict(TVD_BINS),
        "dcr_bins": DCR_BINS,
        "max_rows": max_rows,
        "random_state": (
            int(random_state)
            if isinstance(random_state, numbers.Integral)
            else None
            if random_state is None
            else type(random_state).__name__
        ),
        "synthetic_is_holdout": bool(is_holdout),
        "synthetic_is_holdout_detected": bool(detected),
        "other_token": OTHER,
        "missing_token": MISSING,
        "source": "Platzer & Reutterer (2021), Figures 7 and 8; mostly-ai/paper-fidelity-accuracy",
    }
    return HoldoutReport(
        tvd_1=mean(tvd_s[1]),
        tvd_2=mean(tvd_s[2]),
        tvd_3=mean(tvd_s[3]),
        holdout_tvd_1=mean(tvd_h[1]),
        holdout_tvd_2=mean(tvd_h[2]),
        holdout_tvd_3=mean(tvd_h[3]),
        tvd_per_combination=tvd_s,
        holdout_tvd_per_combination=tvd_h,
        dcr=main,
        holdout_dcr=reference,
        n_train=len(train),
        n_holdout=len(holdout),
        n_synthetic=len(synthetic),
        columns=tuple(columns),
        parameters=parameters,
    )

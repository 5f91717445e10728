"""Benchmarks for chapter 5 (auditing generators against their cards, Houssiau et al. 2022).

Run from the repository root::

    .venv/bin/python benchmarks/bench_audit.py              # all parts (or: make bench-audit)
    .venv/bin/python benchmarks/bench_audit.py --quick      # sanity run: App. 1-2 only (< 1 min)
    .venv/bin/python benchmarks/bench_audit.py --parts 1    # only the listed parts

The three applications of ``houssiau2022`` (§4.1; ``synthtrust.studies.auditing.audits``): App. 1 (3
census columns, all 2-way marginals declared, M = 200 cells, all 200 3-way candidate bins),
App. 2 (4 columns, M = 630, all 630 4-way bins), App. 3 (7 columns, all 21 pairs declared,
M = 1 560 000, 1000 random 3-way candidate bins drawn with seed 0, 10 000 random support cells).
Every timing runs on one thread (BLAS limited with ``threadpoolctl``) and is CPU time of the
process (``time.process_time``), which other jobs on a shared machine inflate far less than wall
time; the header prints the load average all the same.

Part 1 — the complement basis and the extremal pair: ours vs dense vectors over the domain.
    Ours: ``synthtrust.audit.complement_basis`` (bin Gram matrices from the analytic formula,
    eigen-decompositions of (|Φ| + |𝒞|)-sized matrices, no vector of length M) and
    ``extremal_pair`` (β = all ones, the paper's step 1; support and copies of the application).
    The reference approach with dense vectors over the whole domain 𝒳, written here with
    numpy/scipy: every declared bin, the constant and every candidate bin as an M-vector, then
    (a) "dense QR": orthogonalisation over ℝ^M — rank-revealing (pivoted Householder) QR of the
    Φ vectors, the candidates' residuals orthogonalised twice against them (classical
    Gram–Schmidt twice), pivoted QR of the residuals; the basis is √M·Q (orthonormal under
    ⟨f, h⟩_U = (1/M) Σ f h); (b) "dense Gram": the Gram matrix as inner products of the
    M-vectors (BLAS-3, streamed over blocks of 16 384 cells so that its memory stays small),
    then the same eigen steps as ours. The dense extremal pair: g on the support from the dense
    basis, its residual by ``numpy.linalg.lstsq`` on the dense Φ-indicator matrix of the
    support, then the paper's α and rounding. App. 1–2 run in full. App. 3's dense vectors need
    (|Φ| + 1 + |𝒞|) × M × 8 bytes (29.5 GB): the dense forms are timed on random subsets of
    M/128, M/64 and M/32 cells and extrapolated linearly in M (labelled); the dense pair on the
    10 000 support cells is run in full (with g from our basis, as the dense basis is not
    formed). Asserted: App. 1–2 — ours, dense QR, dense Gram and the library's
    ``complement_basis_dense`` (SVD) span the same space (largest principal angle,
    ``scipy.linalg.subspace_angles`` ≤ 1e-8), the dense Gram equals the analytic one, the
    statistics b(D) of a dataset (the census sample ``census2011_random10k`` coded to the
    application's columns, 10 000 rows) agree after the rotation between the two bases
    (≤ 1e-10), and the dense pair's counts equal ours; App. 3 — brute force over all 1.56 M cells
    (sparse indicator matrix Z of every bin, ZᵀZ/M): the analytic Gram matrix is exact, our
    basis is orthonormal and orthogonal to Φ, and dim span(Φ ∪ 𝒞) − dim span(Φ) = k, so it spans
    the same space as any dense method would; the statistics from marginal tables equal the mean
    of the basis functions evaluated record by record; the dense pair's counts equal ours.
    Time: best of ``--repeats`` runs (dense App. 3 subsets: one run); memory: ``tracemalloc``
    peak (NumPy reports its buffers to it) in a separate run (App. 3 subsets: the timed run;
    the peak at M/32 scaled to M, labelled).

Part 2 — one audit end to end per application, as the study runs it.
    ``synthtrust.audit.audit`` of honest IPF (``make_generator("ipf_honest", app)``, tolerance
    0.5 counts) with K₁ = K₂ = 10 (40 trainings), R = 1000 / 300 / 10 copies (the ``default``
    preset), ``n_jobs=1``, seed 0. The time is split by wrapping, for the run only: the basis
    (computed first and passed in), ``extremal_pair`` (two calls), the trainings (``fit`` +
    ``sample`` of each generator), the statistics (``ComplementBasis.statistic`` on each of the
    40 samples) and the rest (the t-test, ``run_grid``, building D± as frames). The same 40
    samples also go through two other statistics paths, timed apart and excluded from the audit
    time: "dense" (the histogram of the sample over all M cells times the k × M dense basis;
    App. 1–2 only, the dense basis of App. 3 is 12.5 GB) and "per record" (the indicator of every
    bin evaluated at every record — a sparse N × |bins| matrix — averaged, then combined with the
    basis coefficients, as the paper's code evaluates each bin on the synthetic rows); both are
    asserted to equal ours (≤ 1e-9). "audit, dense stats" = the audit
    time with our statistics replaced by the dense path's.

IPF against ``ipfn`` and ``humanleague`` (part 3 of this script until it was split) is
``bench_ipf.py``; ``make bench-audit`` runs both. Shared helpers: ``_audit_common.py``.

Parts are functions ``part<k>(say, args)`` registered in ``PARTS``; ``main()`` runs the parts
given by ``--parts`` in order.

The report goes to stdout and, for a full run, to ``benchmarks/results_audit_dense.txt``
(``--output``; temp file + rename). ``results_audit.txt`` holds past runs of parts 1-3.
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc

import numpy as np
import scipy.linalg as sla
from _audit_common import (  # benchmarks/ is on sys.path when run as a script
    DENSE_MAX_CELLS,
    SEED,
    add_common_options,
    census_codes,
    check,
    clock,
    ratio,
    resolve_common_options,
    run,
    secs,
)
from _report import Report, load

from synthtrust.audit import (
    Bins,
    all_cells,
    candidate_bins,
    complement_basis,
    complement_basis_dense,
    extremal_pair,
    gram,
    two_step,
)
from synthtrust.audit.basis import ComplementBasis
from synthtrust.studies.auditing import audits as study

RESULTS = "results_audit_dense.txt"
#: R, records per support cell of D* (the ``default`` preset of the chapter)
COPIES = {1: 1000, 2: 300, 3: 10}
DENSE_FRACTIONS = (128, 64, 32)  # App. 3: dense forms on M/f random cells
GRAM_BLOCK = 16_384
RTOL_QR = 1e-7  # |R_jj| of the pivoted QRs below this (relative) = rank deficiency
TOL_SPAN = 1e-8  # largest principal angle between two bases of the same space
TOL_STAT = 1e-10  # statistics b(D), after rotation
TOL_STAT_PATH = 1e-9  # part 2: the three statistics paths


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def size(nbytes: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{nbytes:.0f} B"


def best_time(fn, repeats: int):
    """(best wall time over ``repeats`` calls, result of the last call)."""
    best, out = float("inf"), None
    for _ in range(max(1, repeats)):
        t = clock()
        out = fn()
        best = min(best, clock() - t)
    return best, out


def traced(fn):
    """(result, peak bytes allocated while ``fn`` ran, as ``tracemalloc`` sees them)."""
    tracemalloc.start()
    try:
        out = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, peak


def setup(app: int):
    """(card, candidate bins, support, copies) of application ``app`` as the study builds them."""
    a = study.application(app)
    card = study.card(app)
    if a.n_candidates is None:
        cand = candidate_bins(card, a.candidates)
    else:
        cand = candidate_bins(card, a.candidates, n=a.n_candidates, random_state=SEED)
    return card, cand, a.support, COPIES[app]


def random_cells(sizes, m: int, seed: int) -> np.ndarray:
    flat = np.sort(np.random.default_rng(seed).choice(math.prod(sizes), m, replace=False))
    return np.stack(np.unravel_index(flat, sizes), axis=1).astype(np.int64)


# --------------------------------------------------------------------------------------------
# the dense reference (vectors of length M for every bin)
# --------------------------------------------------------------------------------------------
def dense_qr_basis(phi: Bins, cand: Bins, cells: np.ndarray):
    """Orthonormal basis of span(Φ ∪ 𝒞) ⊖ span(Φ) over ℝ^m (m = len(cells)) from the dense
    indicator vectors: pivoted QR of Φ, candidates' residuals (twice), pivoted QR of those.
    Returns (basis (k, m) scaled to ⟨·,·⟩_U, Φ vectors (m, |Φ|), dim Φ)."""
    P = phi.indicator(cells).toarray()
    C = cand.indicator(cells).toarray()
    q, r, _ = sla.qr(P, mode="economic", pivoting=True)
    d = np.abs(np.diag(r))
    rank = int(np.sum(d > RTOL_QR * d[0]))
    q1 = q[:, :rank]
    res = C - q1 @ (q1.T @ C)
    res -= q1 @ (q1.T @ res)
    q2, r2, _ = sla.qr(res, mode="economic", pivoting=True)
    scale = float(np.linalg.norm(C, axis=0).max())
    k = int(np.sum(np.abs(np.diag(r2)) > RTOL_QR * scale))
    return q2[:, :k].T * math.sqrt(cells.shape[0]), P, rank


def dense_gram(bins: Bins, cells: np.ndarray) -> np.ndarray:
    """⟨f, h⟩_U = (1/m) Σ_x f(x) h(x) for every pair of bins from their dense vectors,
    streamed over blocks of cells."""
    n = len(bins)
    g = np.zeros((n, n))
    for s in range(0, cells.shape[0], GRAM_BLOCK):
        x = bins.indicator(cells[s : s + GRAM_BLOCK]).toarray()
        g += x.T @ x
    return g / cells.shape[0]


def basis_from_gram(g: np.ndarray, n_cand: int, rtol: float = 1e-10) -> np.ndarray:
    """Coefficients (k, n) over [candidates, Φ] of the complement basis from a Gram matrix:
    the eigen steps of ``complement_basis`` (here applied to a dense Gram matrix)."""
    g_cc, g_pc, g_pp = g[:n_cand, :n_cand], g[n_cand:, :n_cand], g[n_cand:, n_cand:]
    w, u = np.linalg.eigh(g_pp)
    keep = w > rtol * w.max()
    q = u[:, keep] / np.sqrt(w[keep])
    t = q.T @ g_pc
    r = g_cc - t.T @ t
    lam, v = np.linalg.eigh((r + r.T) / 2)
    keep_c = lam > rtol * max(lam.max(), float(np.diag(g_cc).max()))
    c_coef = v[:, keep_c] / np.sqrt(lam[keep_c])
    return np.concatenate([c_coef, -q @ (t @ c_coef)], axis=0).T


def dense_pair(g: np.ndarray, z: np.ndarray, start: np.ndarray):
    """The paper's residual extremal pair from dense matrices: g⊥ = g − Z·lstsq(Z, g), then
    α± and rounding. Returns (minus counts, plus counts, g⊥)."""
    coef, *_ = np.linalg.lstsq(z, g, rcond=None)
    r = g - z @ coef
    neg, pos = r < 0, r > 0
    a_plus = float(np.min(start[neg] / -r[neg]))
    a_minus = float(np.min(start[pos] / r[pos]))
    plus = np.maximum(start + np.round(a_plus * r), 0).astype(np.int64)
    minus = np.maximum(start - np.round(a_minus * r), 0).astype(np.int64)
    return minus, plus, r


def max_angle(a: np.ndarray, b: np.ndarray) -> float:
    """Largest principal angle between the row spaces of a and b (inf if dimensions differ)."""
    if a.shape[0] != b.shape[0]:
        return math.inf
    return float(np.max(sla.subspace_angles(a.T, b.T)))


# --------------------------------------------------------------------------------------------
# part 1: basis + extremal pair, ours vs dense
# --------------------------------------------------------------------------------------------
def _ours(card, cand, support, copies, repeats):
    t_basis, b = best_time(lambda: complement_basis(card, cand), repeats)
    beta = np.ones(b.dim)
    t_pair, pair = best_time(
        lambda: extremal_pair(card, b, beta, support=support, copies=copies, random_state=SEED),
        repeats,
    )
    _, peak = traced(
        lambda: extremal_pair(card, b, beta, support=support, copies=copies, random_state=SEED)
    )
    _, peak_b = traced(lambda: complement_basis(card, cand))
    return b, pair, t_basis, t_pair, max(peak, peak_b)


def _pair_counts_agree(app, minus, plus, pair) -> tuple[int, int]:
    dm = np.abs(minus - pair.minus.counts)
    dp = np.abs(plus - pair.plus.counts)
    cells = int(np.sum(dm > 0) + np.sum(dp > 0))
    worst = int(max(dm.max(), dp.max()))
    check(
        worst <= 1 and cells <= 2,
        f"App. {app}: the dense pair differs from ours in {cells} cells (max |Δcount| = {worst})",
    )
    return cells, worst


def _part1_small(app, card, cand, support, copies, args, say):
    """App. 1–2: dense forms in full, every assertion."""
    b, pair, t_basis, t_pair, peak_ours = _ours(card, cand, support, copies, args.repeats)
    cells = all_cells(card.sizes)
    m = cells.shape[0]
    t_qr, (bq, p_dense, rank) = best_time(
        lambda: dense_qr_basis(b.phi_bins, cand, cells), args.repeats
    )
    (_, peak_qr) = traced(lambda: dense_qr_basis(b.phi_bins, cand, cells))
    t_gram, coef_g = best_time(
        lambda: basis_from_gram(dense_gram(b.all_bins, cells), len(cand)), args.repeats
    )
    x_all = b.all_bins.indicator(cells).toarray()  # (M, |𝒞| + |Φ|)
    b_ours = b.dense()
    b_gram = coef_g @ x_all.T
    b_lib = complement_basis_dense(
        b.phi_bins.indicator(cells).toarray().T, cand.indicator(cells).toarray().T
    )
    angles = {
        "dense QR": max_angle(b_ours, bq),
        "dense Gram": max_angle(b_ours, b_gram),
        "complement_basis_dense": max_angle(b_ours, b_lib),
    }
    for name, a in angles.items():
        check(
            a <= TOL_SPAN,
            f"App. {app}: ours and {name} span different spaces (largest "
            f"principal angle {a:.3g} > {TOL_SPAN:g}; dims {b.dim}, {bq.shape[0]}, "
            f"{b_gram.shape[0]}, {b_lib.shape[0]})",
        )
    check(rank == b.phi_rank, f"App. {app}: dim Φ {rank} (dense QR) vs {b.phi_rank} (ours)")
    dgram = float(np.abs(dense_gram(b.all_bins, cells) - gram(b.all_bins)).max())
    check(dgram <= 1e-14, f"App. {app}: dense and analytic Gram matrices differ by {dgram:.3g}")
    orth = float(np.abs(b_ours @ b_ours.T / m - np.eye(b.dim)).max())
    perp = float(np.abs(b_ours @ p_dense / m).max())
    check(
        max(orth, perp) <= 1e-10,
        f"App. {app}: our basis is not orthonormal/⊥Φ ({orth:.3g}, {perp:.3g})",
    )
    # statistics of the census sample: ours from marginal tables, dense from the histogram
    codes = census_codes(app).to_numpy()
    s_ours = b.statistic(codes)
    hist = np.bincount(np.ravel_multi_index(tuple(codes.T), card.sizes), minlength=m) / len(codes)
    rot = b_ours @ bq.T / m  # ours = rot · dense (k × k, orthogonal when the spans agree)
    s_dense = bq @ hist
    dstat = float(np.abs(s_ours - rot @ s_dense).max())
    check(dstat <= TOL_STAT, f"App. {app}: statistics differ by {dstat:.3g} > {TOL_STAT:g}")
    # the extremal pair from the dense basis (β rotated so that g is the same function)
    start = np.full(m, copies, dtype=np.int64)

    def run_dense_pair():
        g = (rot.T @ np.ones(b.dim)) @ bq
        return dense_pair(g, p_dense, start) + (g,)

    t_dpair, (minus, plus, _, g_dense) = best_time(run_dense_pair, args.repeats)
    dg = float(np.abs(g_dense - pair.g_values).max())
    check(dg <= 1e-9, f"App. {app}: g on the support differs by {dg:.3g}")
    cells_diff, worst = _pair_counts_agree(app, minus, plus, pair)
    return {
        "b": b,
        "t_basis": t_basis,
        "t_pair": t_pair,
        "peak_ours": peak_ours,
        "t_qr": t_qr,
        "t_gram": t_gram,
        "t_dpair": t_dpair,
        "peak_qr": peak_qr,
        "qr_label": "measured",
        "vectors": (len(b.phi_bins) + len(cand)) * m * 8,
        "checks": (
            f"angles ≤ {max(angles.values()):.1e} (QR, Gram, complement_basis_dense); "
            f"|G_dense − G| = {dgram:.1e}; |Δb(D)| = {dstat:.1e}; |Δg| = {dg:.1e}; "
            f"pair counts differ in {cells_diff} cells"
        ),
    }


def _part1_large(app, card, cand, support, copies, args, say):
    """App. 3: dense forms on subsets of cells (extrapolated), brute-force checks at full M."""
    b, pair, t_basis, t_pair, peak_ours = _ours(card, cand, support, copies, args.repeats)
    m_full = card.cells
    fr = []
    for f in args.dense_fractions:
        m = m_full // f
        cells = random_cells(card.sizes, m, SEED + f)
        tracemalloc.start()
        t0 = clock()
        bq, _, rank = dense_qr_basis(b.phi_bins, cand, cells)
        t_qr = clock() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del bq
        t0 = clock()
        coef_g = basis_from_gram(dense_gram(b.all_bins, cells), len(cand))
        t_gram = clock() - t0
        fr.append((m, t_qr, t_gram, peak, rank, coef_g.shape[0]))
        say(
            f"   dense on M/{f} = {m:,} random cells: QR {secs(t_qr)} (peak {size(peak)}, "
            f"dim Φ {rank}), Gram {secs(t_gram)} (k = {coef_g.shape[0]})"
        )
    ms = np.array([r[0] for r in fr], dtype=float)

    def extrapolate(ts):
        if len(ms) == 1:
            return float(ts[0] * m_full / ms[0])
        slope, icept = np.polyfit(ms, np.asarray(ts, dtype=float), 1)
        return float(icept + slope * m_full)

    t_qr = extrapolate([r[1] for r in fr])
    t_gram = extrapolate([r[2] for r in fr])
    peak_qr = fr[-1][3] / fr[-1][0] * m_full
    # brute force over all M cells: sparse indicators of every bin
    t0 = clock()
    every = np.stack(np.unravel_index(np.arange(m_full), card.sizes), axis=1).astype(np.int64)
    z = b.all_bins.indicator(every).tocsc()
    del every
    g_brute = (z.T @ z).toarray() / m_full
    del z
    t_brute = clock() - t0
    q = len(cand)
    dgram = float(np.abs(g_brute - gram(b.all_bins)).max())
    orth = float(np.abs(b.coef @ g_brute @ b.coef.T - np.eye(b.dim)).max())
    perp = float(np.abs(b.coef @ g_brute[:, q:]).max())

    def rank(g):
        w = np.linalg.eigvalsh(g)
        return int(np.sum(w > 1e-10 * w.max()))

    dim_all, dim_phi = rank(g_brute), rank(g_brute[q:, q:])
    check(dgram <= 1e-14, f"App. {app}: brute-force and analytic Gram differ by {dgram:.3g}")
    check(
        max(orth, perp) <= 1e-9,
        f"App. {app}: our basis is not orthonormal/⊥Φ over all cells ({orth:.3g}, {perp:.3g})",
    )
    check(
        dim_all - dim_phi == b.dim and dim_phi == b.phi_rank,
        f"App. {app}: dim span(Φ ∪ 𝒞) − dim Φ = {dim_all} − {dim_phi} ≠ k = {b.dim}",
    )
    codes = census_codes(app).to_numpy()
    s_ours = b.statistic(codes)
    s_point = b.function_values(codes).mean(axis=0)
    dstat = float(np.abs(s_ours - s_point).max())
    check(dstat <= TOL_STAT, f"App. {app}: statistics (tables vs pointwise) differ by {dstat:.3g}")
    start = pair.star.counts

    def run_dense_pair():
        z_s = b.phi_bins.indicator(pair.support).toarray()
        return dense_pair(pair.g_values, z_s, start)

    t_dpair, (minus, plus, _) = best_time(run_dense_pair, args.repeats)
    cells_diff, worst = _pair_counts_agree(app, minus, plus, pair)
    say(f"   brute force over all {m_full:,} cells (sparse Z, ZᵀZ/M): {secs(t_brute)}")
    return {
        "b": b,
        "t_basis": t_basis,
        "t_pair": t_pair,
        "peak_ours": peak_ours,
        "t_qr": t_qr,
        "t_gram": t_gram,
        "t_dpair": t_dpair,
        "peak_qr": peak_qr,
        "qr_label": f"extrapolated from M/{'+M/'.join(str(f) for f in args.dense_fractions)}",
        "vectors": (len(b.phi_bins) + len(cand)) * m_full * 8,
        "checks": (
            f"over all cells: |G_brute − G| = {dgram:.1e}, orthonormal to {orth:.1e}, "
            f"⊥Φ to {perp:.1e}, dim {dim_all} − {dim_phi} = k; tables vs pointwise "
            f"|Δb(D)| = {dstat:.1e}; pair counts differ in {cells_diff} cells "
            f"(g from our basis)"
        ),
    }


def part1(say: Report, args) -> None:
    say(
        f"Part 1 — complement basis + extremal pair (β = 1): ours (bin Gram matrices) vs dense "
        f"M-vectors (QR over ℝ^M; Gram of the vectors); best of {args.repeats}; {load()}"
    )
    rows, notes = [], []
    for app in args.apps:
        card, cand, support, copies = setup(app)
        small = card.cells <= DENSE_MAX_CELLS
        run = _part1_small if small else _part1_large
        r = run(app, card, cand, support, copies, args, say)
        b = r["b"]
        ours = r["t_basis"] + r["t_pair"]
        extra = "" if small else " (extrap.)"
        rows.append(
            [
                f"App. {app}",
                f"{card.cells:,}",
                len(b.phi_bins),
                len(cand),
                b.dim,
                secs(r["t_basis"]),
                secs(r["t_pair"]),
                secs(r["t_qr"]) + extra,
                secs(r["t_gram"]) + extra,
                secs(r["t_dpair"]),
                ratio(r["t_qr"] + r["t_dpair"], ours),
                ratio(r["t_gram"] + r["t_dpair"], ours),
                size(r["peak_ours"]),
                size(r["vectors"]),
                size(r["peak_qr"]) + ("" if small else " (extrap.)"),
            ]
        )
        notes.append(f"App. {app}: {r['checks']}")
    say.table(
        [
            "app",
            "M",
            "|Φ|+1",
            "|𝒞|",
            "k",
            "ours basis",
            "ours pair",
            "dense QR",
            "dense Gram",
            "dense pair",
            "QR/ours",
            "Gram/ours",
            "mem ours",
            "dense vectors",
            "mem dense QR",
        ],
        rows,
    )
    for n in notes:
        say(n)
    say(
        "ratios: (dense basis + dense pair) / (our basis + our pair); mem: tracemalloc peak; "
        "dense vectors: (|Φ| + 1 + |𝒞|) × M float64; the dense Gram form streams the vectors in "
        f"blocks of {GRAM_BLOCK:,} cells, so its memory is that of one block"
    )


# --------------------------------------------------------------------------------------------
# part 2: one audit end to end
# --------------------------------------------------------------------------------------------
class _Timed:
    """Wraps a generator: adds its fit and sample times to ``acc``."""

    def __init__(self, gen, acc):
        self.gen, self.acc = gen, acc

    def fit(self, frame):
        t0 = clock()
        self.gen.fit(frame)
        self.acc["train"] += clock() - t0
        self.acc["n_train"] += 1
        return self

    def sample(self, n):
        t0 = clock()
        out = self.gen.sample(n)
        self.acc["train"] += clock() - t0
        return out


def timed_audit(app: int, acc: dict, dense_stats: bool):
    """One audit of honest IPF with the time split into ``acc``; returns the AuditResult."""
    card, cand, support, copies = setup(app)
    t0 = clock()
    b = complement_basis(card, cand)
    acc["basis"] = clock() - t0
    sizes, m = card.sizes, card.cells
    b_dense = b.dense() if dense_stats else None
    orig_pair, orig_stat = two_step.extremal_pair, ComplementBasis.statistic

    def pair_wrapper(*a, **k):
        t = clock()
        out = orig_pair(*a, **k)
        acc["pair"] += clock() - t
        return out

    def stat_wrapper(self, codes, counts=None):
        t = clock()
        out = orig_stat(self, codes, counts)
        acc["stat"] += clock() - t
        acc["n_stat"] += 1
        t = clock()
        point = self.evaluate(np.asarray(self.all_bins.indicator(codes).mean(axis=0)).ravel())
        acc["stat_point"] += clock() - t
        acc["d_point"] = max(acc["d_point"], float(np.abs(point - out).max()))
        if b_dense is not None:
            t = clock()
            x = np.asarray(codes)
            hist = np.bincount(np.ravel_multi_index(tuple(x.T), sizes), minlength=m) / len(x)
            dense = b_dense @ hist
            acc["stat_dense"] += clock() - t
            acc["d_dense"] = max(acc["d_dense"], float(np.abs(dense - out).max()))
        return out

    def factory(rs):
        return _Timed(study.make_generator("ipf_honest", app, rs), acc)

    two_step.extremal_pair = pair_wrapper
    ComplementBasis.statistic = stat_wrapper
    try:
        t0 = clock()
        res = two_step.audit(
            factory,
            card,
            basis=b,
            support=support,
            copies=copies,
            k_select=10,
            k_audit=10,
            random_state=SEED,
            n_jobs=1,
            name="IPF (honest)",
        )
        acc["audit"] = clock() - t0
    finally:
        two_step.extremal_pair = orig_pair
        ComplementBasis.statistic = orig_stat
    return res


def part2(say: Report, args) -> None:
    say(
        f"Part 2 — one audit of honest IPF per application (K₁ = K₂ = 10: 40 trainings; "
        f"R = {'/'.join(str(COPIES[a]) for a in args.apps)}; n_jobs=1; seed {SEED}); {load()}"
    )
    rows, notes = [], []
    for app in args.apps:
        acc = dict.fromkeys(
            (
                "basis",
                "pair",
                "train",
                "stat",
                "stat_point",
                "stat_dense",
                "d_point",
                "d_dense",
                "audit",
            ),
            0.0,
        )
        acc.update(n_train=0, n_stat=0)
        small = study.card(app).cells <= DENSE_MAX_CELLS
        t0 = time.perf_counter()
        res = timed_audit(app, acc, small)
        wall = time.perf_counter() - t0
        # the wrapper's alternative paths ran inside the audit: take them out
        alt = acc["stat_point"] + acc["stat_dense"]
        audit_ours = acc["audit"] - alt
        total = acc["basis"] + audit_ours
        other = audit_ours - acc["pair"] - acc["train"] - acc["stat"]
        check(
            acc["d_point"] <= TOL_STAT_PATH,
            f"App. {app}: per-record statistics differ by {acc['d_point']:.3g}",
        )
        if small:
            check(
                acc["d_dense"] <= TOL_STAT_PATH,
                f"App. {app}: dense statistics differ by {acc['d_dense']:.3g}",
            )
            with_dense = total - acc["stat"] + acc["stat_dense"]
            dense_cols = [secs(acc["stat_dense"]), secs(with_dense), ratio(with_dense, total)]
        else:
            dense_cols = ["n/a (12.5 GB)", "-", "-"]
        paper = study.PAPER_TABLE4["ipf_honest"][app - 1]
        rows.append(
            [
                f"App. {app}",
                COPIES[app],
                f"{res.n_rows[1]:,}",
                secs(acc["basis"]),
                secs(acc["pair"]),
                secs(acc["train"]),
                secs(acc["stat"]),
                secs(other),
                secs(total),
                secs(acc["stat_point"]),
            ]
            + dense_cols
            + [f"{res.statistic:+.2f}", f"{res.pvalue:.2f}", f"{paper:.2f}"]
        )
        notes.append(
            f"App. {app}: {acc['n_train']} trainings, {acc['n_stat']} statistics; "
            f"|Δ| per record {acc['d_point']:.1e}"
            + (f", dense {acc['d_dense']:.1e}" if small else "")
            + f"; {res.verdict.split(':')[0]}; wall incl. the other paths {secs(wall)}"
        )
    say.table(
        [
            "app",
            "R",
            "|D+|",
            "basis",
            "pairs (2)",
            "trainings",
            "stats (ours)",
            "other",
            "audit total",
            "stats per record",
            "stats dense",
            "audit, dense stats",
            "ratio",
            "t",
            "p",
            "paper p",
        ],
        rows,
    )
    for n in notes:
        say(n)
    say(
        "stats: the 40 samples' statistics b(S) (ours: from marginal tables); per record and "
        "dense timed on the same samples, outside the audit total; ratio = audit with dense "
        "statistics / audit total"
    )


#: the parts, run in this order (part 3, IPF against ipfn and humanleague, is bench_ipf.py)
PARTS = {"1": part1, "2": part2}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_options(ap, "sanity run: App. 1-2 only, fewer repeats, no report file", RESULTS)
    ap.add_argument(
        "--parts",
        default=",".join(PARTS),
        help=f"comma-separated parts to run, in order (default: {','.join(PARTS)})",
    )
    ap.add_argument(
        "--dense-fractions",
        default=",".join(str(f) for f in DENSE_FRACTIONS),
        help="App. 3: the dense forms run on M/f random cells for each f "
        "(default 128,64,32), extrapolated linearly to M",
    )
    args = ap.parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        moved = " (part 3, IPF, is now bench_ipf.py)" if "3" in unknown else ""
        ap.error(f"unknown part(s) {unknown}; available: {sorted(PARTS)}{moved}")
    args.dense_fractions = tuple(int(f) for f in args.dense_fractions.split(",") if f.strip())
    resolve_common_options(ap, args)
    full_run = not args.quick and parts == list(PARTS) and args.apps == (1, 2, 3)
    return run("bench_audit.py", [PARTS[p] for p in parts], args, RESULTS, full_run)


if __name__ == "__main__":
    raise SystemExit(main())

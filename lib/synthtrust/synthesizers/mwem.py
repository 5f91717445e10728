"""MWEM — multiplicative weights with the exponential mechanism (Hardt, Ligett, McSherry, NIPS 2012).

Algorithm (Hardt et al. 2012, Alg. 1 with the paper's practical improvement of re-running the
multiplicative-weights (MW) update over past measurements), for one dataset with n records
(public under replace-one DP) over a joint histogram B of the flattened domain:

1. A₀ = uniform histogram scaled to n.
2. For t = 1..T:
   a. select a counting query q_t with the exponential mechanism, budget ε/(2T), score
      |q(A_{t−1}) − q(B)| (sensitivity 1), P ∝ exp(ε·score/(4T)); already-measured queries are
      excluded from the candidate set (smartnoise's MWEM [``smartnoise2025``] instead redraws,
      and takes a uniformly random unmeasured query after 10 retries);
   b. measure m_t = q_t(B) + Lap(2T/ε) (sensitivity 1, budget ε/(2T));
   c. MW update A(x) ∝ A(x)·exp(q(x)·(m − q(A))/(2n)), renormalised to n — once with the new
      measurement, then ``repetitions`` passes over all measurements so far (in measurement order).
3. Output the last histogram A_T (as the reference implementations do) and, for synthetic
   records, draw them i.i.d. from A_T/n (a multinomial), as the paper describes ("sampled using
   the histogram noisy weights returned by the MWEM algorithm").

Total budget: T·ε/(2T) + T·ε/(2T) = ε, pure DP. A counting query changes by at most 1 between
replace-one neighbours as well as add/remove neighbours, so the sensitivity is 1 either way.

Query class (default): every cell of every 1-way and 2-way marginal of the columns — "count of
records with column a = u" and "with a = u and b = v" — i.e. marginal counting queries, matching
"preserve all the one-way and two-way marginals" (Montoya Perez et al. 2024, §4.2). For the
chapter's ``group`` (2) × ``value`` (100 bins) table that is 2 + 100 + 200 = 302 queries.

Defaults: T = ``iterations`` = 10 and ``repetitions`` = 10, the defaults of the open-source code the
paper cites for MWEM ([62]: Hardt, Ligett, McSherry, *PrivateMultiplicativeWeights.jl*,
``MWParameters(iterations=10, repetitions=10, noisy_max_budget=0.5)``; the 0.5 is our ε/2 : ε/2
split between selection and measurement). Two differences from that package, both following
the 2012 paper: its ``epsilon`` is *per iteration* (total T·ε), ours is the total; and it
selects with report-noisy-max (Laplace) and allows re-selection of measured queries, we use the
exponential mechanism over unmeasured queries. smartnoise's MWEM (``snsynth/mwem.py``
[``smartnoise2025``], and its versions up to mid-2022) is a different program (30–50 iterations
over whole marginals or range queries).

Behaviour at small ε: the selections become uniform and the measurements are dominated by noise
of scale 2T/ε ≫ n, so the MW update (factor exp(±|error|/(2n))) piles the histogram onto a few
cells chosen by the noise. The output then no longer depends on the data, but it is *not* close
to uniform (the reference packages behave the same; clipping measurements to [0, n] would be a
free post-processing improvement that we do not apply, to stay with the published algorithm).

Everything is vectorized over replicates: histograms are ``(reps, cells)`` arrays, each replicate
drawing its randomness from its own generator (per replicate, round by round: the selection's
Q Gumbel variables, then the measurement's Laplace noise; then the multinomial). The noise is
drawn by the mechanisms of :mod:`synthtrust.privacy.mechanisms`, which write the ledger.
The histogram is kept in log space, so no cell underflows to an absorbing zero.
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    check_epsilon,
    check_is_fitted,
    check_nonnegative_int,
    check_positive_int,
    optional,
)
from ..privacy.ledger import PrivacyLedger
from ..privacy.mechanisms import exponential_mechanism, laplace
from .base import (
    BaseSynthesizer,
    as_count_matrix,
    check_cliques_param,
    check_marginals,
    check_shape,
    replicate_generators,
)

__all__ = ["MWEM", "marginal_queries", "mwem_counts", "mwem_histogram"]


# --------------------------------------------------------------------------------------------
# query structure
# --------------------------------------------------------------------------------------------
class _Queries:
    """All counting queries of a set of marginals over a domain of the given shape.

    Query k = (marginal ``clique[k]``, cell ``local[k]`` of that marginal, C order over the
    marginal's axes in increasing order). ``cell_map[c]`` maps each joint cell to its cell of
    marginal c.
    """

    def __init__(self, shape: tuple[int, ...], cliques: list[tuple[int, ...]]):
        self.shape = shape
        self.cliques = cliques
        coords = np.indices(shape).reshape(len(shape), -1)
        self.cell_map = np.stack(
            [
                np.ravel_multi_index(tuple(coords[a] for a in cl), tuple(shape[a] for a in cl))
                for cl in cliques
            ]
        )
        sizes = [int(np.prod([shape[a] for a in cl])) for cl in cliques]
        self.clique = np.repeat(np.arange(len(cliques)), sizes)
        self.local = np.concatenate([np.arange(s) for s in sizes])
        self.n_queries = int(sum(sizes))

    def answers(self, hist: np.ndarray) -> np.ndarray:
        """All query answers of histograms (reps, cells) -> (reps, Q)."""
        r = hist.shape[0]
        h = hist.reshape((r,) + self.shape)
        parts = []
        for cl in self.cliques:
            drop = tuple(1 + a for a in range(len(self.shape)) if a not in cl)
            parts.append(h.sum(axis=drop).reshape(r, -1))
        return np.concatenate(parts, axis=1)

    def masks(self, q: np.ndarray) -> np.ndarray:
        """0/1 masks over the joint cells of queries ``q`` (reps,) -> (reps, cells) float."""
        return (self.cell_map[self.clique[q]] == self.local[q][:, None]).astype(float)

    def describe(self, k: int, names) -> str:
        cl = self.cliques[self.clique[k]]
        vals = np.unravel_index(self.local[k], tuple(self.shape[a] for a in cl))
        return (
            "count("
            + ", ".join(f"{names[a]}={int(v)}" for a, v in zip(cl, vals, strict=True))
            + ")"
        )


def marginal_queries(shape, marginals=None) -> np.ndarray:
    """The query matrix (Q, cells) of 0/1 counting queries used by MWEM (for inspection/tests)."""
    shape = check_shape(shape)
    qs = _Queries(shape, check_marginals(marginals, len(shape)))
    return qs.masks(np.arange(qs.n_queries))


# --------------------------------------------------------------------------------------------
# core
# --------------------------------------------------------------------------------------------
def _check_iterations(iterations, repetitions, n_queries) -> tuple[int, int]:
    iterations = check_positive_int(iterations, "iterations")
    repetitions = check_nonnegative_int(repetitions, "repetitions")
    if iterations > n_queries:
        raise ValueError(
            f"iterations={iterations} exceeds the number of queries ({n_queries}); "
            "each round measures a different query"
        )
    return iterations, repetitions


def _softmax_scaled(log_a: np.ndarray, n: np.ndarray) -> np.ndarray:
    z = np.exp(log_a - log_a.max(axis=1, keepdims=True))
    return z * (n / z.sum(axis=1))[:, None]


def _mwem_core(
    mat, epsilon, queries: _Queries, iterations, repetitions, rngs, ledger=None, names=None
):
    """Run MWEM on count matrix (R, C); returns (histograms (R, C) float, chosen (R, T), measured (R, T)).

    Every round draws, per replicate, the selection through
    :func:`~synthtrust.privacy.mechanisms.exponential_mechanism` and the measurement through
    :func:`~synthtrust.privacy.mechanisms.laplace`; ``ledger`` receives the first replicate's 2T
    entries as they are drawn (``names``: column names for the entries' notes).
    """
    r, c = mat.shape
    n = mat.sum(axis=1).astype(float)
    eps_round = epsilon / (2 * iterations)  # budget of each selection and of each measurement
    true_ans = queries.answers(mat.astype(float))
    log_a = np.zeros((r, c))  # uniform start; scale n is applied by the softmax
    measured = np.zeros((r, queries.n_queries), dtype=bool)
    chosen = np.empty((r, iterations), dtype=np.int64)
    values = np.empty((r, iterations))
    masks: list[np.ndarray] = []
    rows = np.arange(r)
    half_inv_n = 1.0 / (2.0 * n)
    names = names if names is not None else [f"x{a}" for a in range(len(queries.shape))]

    def update(j: int) -> None:
        a = _softmax_scaled(log_a, n)
        err = values[:, j] - np.einsum("rc,rc->r", a, masks[j])
        log_a[...] += masks[j] * (err * half_inv_n)[:, None]

    for t in range(iterations):
        # score |q(A) − q(B)| (sensitivity 1); measured queries are excluded (score −inf)
        a = _softmax_scaled(log_a, n)
        scores = np.where(measured, -np.inf, np.abs(queries.answers(a) - true_ans))
        for i, rng in enumerate(rngs):
            led = ledger if i == 0 else None
            q = exponential_mechanism(
                scores[i],
                eps_round,
                1.0,
                rng,
                ledger=led,
                note=f"round {t + 1}: select 1 of {queries.n_queries} counting queries",
            )
            chosen[i, t] = q
            values[i, t] = laplace(
                true_ans[i, q],
                sensitivity=1.0,
                epsilon=eps_round,
                random_state=rng,
                ledger=led,
                note=f"round {t + 1}: measure {queries.describe(q, names)}",
            )
        measured[rows, chosen[:, t]] = True
        masks.append(queries.masks(chosen[:, t]))
        update(t)
        for _ in range(repetitions):
            for j in range(t + 1):
                update(j)
        log_a -= log_a.max(axis=1, keepdims=True)
    return _softmax_scaled(log_a, n), chosen, values


def mwem_histogram(
    counts,
    epsilon: float,
    shape,
    *,
    iterations: int = 10,
    repetitions: int = 10,
    marginals=None,
    random_state=None,
    ledger: PrivacyLedger | None = None,
) -> np.ndarray:
    """MWEM's final histogram A_T per replicate (floats, rows sum to n).

    Parameters
    ----------
    counts : array (reps, cells) or (cells,)
        True joint counts (C order over ``shape``).
    epsilon : float
        Total ε > 0 per replicate.
    shape : tuple of int
        Levels of each column (product = cells).
    iterations : int
        T (default 10), at most the number of queries.
    repetitions : int
        Extra MW passes over past measurements per round (default 10; 0 = plain MWEM).
    marginals : list of tuples of axes, optional
        Query class; default all 1-way and 2-way marginals (every cell is a counting query).
    random_state : int, Generator, None, or one per replicate
    ledger : PrivacyLedger, optional
        Receives ONE replicate's 2T entries (T selections, T measurements, ε/(2T) each).

    Returns
    -------
    ndarray float64, shape of ``counts``.

    Memory: O(reps × (cells + T × queries)) floats; chunk the replicates for large domains.
    """
    epsilon = check_epsilon(epsilon)
    mat, was_1d = as_count_matrix(counts)
    shape = check_shape(shape, mat.shape[1])
    queries = _Queries(shape, check_marginals(marginals, len(shape)))
    iterations, repetitions = _check_iterations(iterations, repetitions, queries.n_queries)
    rngs = replicate_generators(random_state, mat.shape[0])
    hist, _, _ = _mwem_core(mat, epsilon, queries, iterations, repetitions, rngs, ledger)
    return hist[0] if was_1d else hist


def mwem_counts(
    counts,
    epsilon: float,
    shape,
    *,
    n_synthetic: int | None = None,
    iterations: int = 10,
    repetitions: int = 10,
    marginals=None,
    random_state=None,
    ledger: PrivacyLedger | None = None,
) -> np.ndarray:
    """Synthetic counts from MWEM, vectorized: run :func:`mwem_histogram`, then draw
    ``n_synthetic`` (default n) records i.i.d. from A_T/n per replicate (multinomial).

    Returns ndarray int64 of the shape of ``counts``; row i sums to ``n_synthetic`` (or n_i).
    Parameters and errors as in :func:`mwem_histogram`.
    """
    epsilon = check_epsilon(epsilon)
    mat, was_1d = as_count_matrix(counts)
    shape = check_shape(shape, mat.shape[1])
    queries = _Queries(shape, check_marginals(marginals, len(shape)))
    iterations, repetitions = _check_iterations(iterations, repetitions, queries.n_queries)
    if n_synthetic is not None:
        n_synthetic = check_positive_int(n_synthetic, "n_synthetic")
    rngs = replicate_generators(random_state, mat.shape[0])
    hist, _, _ = _mwem_core(mat, epsilon, queries, iterations, repetitions, rngs, ledger)
    out = np.empty_like(mat)
    for i, rng in enumerate(rngs):
        m = int(mat[i].sum()) if n_synthetic is None else n_synthetic
        out[i] = rng.multinomial(m, hist[i] / hist[i].sum())
    return out[0] if was_1d else out


class MWEM(BaseSynthesizer):
    """MWEM synthesizer (Hardt, Ligett, McSherry 2012) on the joint histogram of discrete columns.

    Parameters
    ----------
    epsilon : float
        Total ε > 0 (pure DP).
    domain : dict {column: levels}, synthtrust.domain.Domain or None
        The public domain (see :mod:`synthtrust.synthesizers.tabular`).
    iterations : int
        T, default 10 (see the module docstring for the choice).
    repetitions : int
        MW passes over past measurements per round, default 10.
    marginals : list of tuples of column names, optional
        Query class; default every cell of every 1-way and 2-way marginal.
    random_state : int, Generator or None

    Fitted attributes
    -----------------
    ``histogram_`` (A_T, floats summing to n, shape ``shape_``),
    ``queries_`` (descriptions of the T measured queries), ``measurements_`` (their noisy
    answers), ``ledger_`` (2T entries of ε/(2T)). :meth:`sample` draws i.i.d. from A_T.
    """

    _description = "MWEM (Hardt et al. 2012): T rounds of exponential mechanism + Laplace + multiplicative weights"

    _parameter_constraints = {
        **BaseSynthesizer._parameter_constraints,
        "iterations": check_positive_int,
        "repetitions": check_nonnegative_int,
        "marginals": optional(check_cliques_param),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        domain=None,
        iterations: int = 10,
        repetitions: int = 10,
        marginals=None,
        random_state=None,
    ):
        self.iterations = iterations
        self.repetitions = repetitions
        self.marginals = marginals
        super().__init__(epsilon, domain=domain, random_state=random_state)

    def _fit_counts(self, counts, n):
        queries = _Queries(self.shape_, self._marginal_axes())
        iterations, repetitions = _check_iterations(
            self.iterations, self.repetitions, queries.n_queries
        )
        hist, chosen, values = _mwem_core(
            counts[None, :],
            float(self.epsilon),
            queries,
            iterations,
            repetitions,
            [self._rng],
            self.ledger_,
            self.columns_,
        )
        self._hist = hist[0]
        self.queries_ = [queries.describe(int(k), self.columns_) for k in chosen[0]]
        self.measurements_ = values[0].copy()

    @property
    def histogram_(self) -> np.ndarray:
        check_is_fitted(self)
        return self._hist.reshape(self.shape_).copy()

    def _sample_counts(self, n):
        return self._rng.multinomial(n, self._hist / self._hist.sum()).astype(np.int64)

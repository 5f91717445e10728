"""PrivBayes: differentially private synthetic data from a noisy Bayesian network.

Source: J. Zhang, G. Cormode, C. M. Procopiuc, D. Srivastava, X. Xiao, "PrivBayes: private data
release via Bayesian networks", ACM TODS 42(4), 2017 (SIGMOD 2014 version) [``zhang2017``].
Written from the paper's description and from a description of DataSynthesizer 0.1.13
[``datasynthesizer2023``], the reference implementation, not from its code. The paper's results
are cited by name (GreedyBayes, the lemma on the sensitivity of mutual information,
θ-usefulness) rather than by section/equation number; the *formulas* are checked against values
computed by hand from DataSynthesizer's (``tests/synthesizers/test_privbayes.py``).

Algorithm (ε-differential privacy, ``β`` = share of ε for the network)
------------------------------------------------------------------------
1. **Degree k** (paper, "choice of k"): the largest k ∈ {1, …, d−1} whose noisy conditionals are
   θ-useful, :func:`theta_usefulness` ≥ θ, with the *actual* ε (DataSynthesizer always used its
   default ε = 0.1 in ``calculate_k`` [``datasynthesizer2023``]); k = 0 (independent attributes)
   if none is.
2. **Greedy network** (paper's GreedyBayes): the root is drawn uniformly at random from the
   synthesizer's generator; then, d−1 times, the exponential mechanism selects one pair
   (child X ∉ V, parent set Π ⊆ V) with |Π| ≤ min(|V|, k), scored by the mutual information
   I(X; Π) in nats divided by its sensitivity (:func:`mi_sensitivity`, the paper's Lemma on the
   sensitivity of I: binary case if X or Π has ≤ 2 levels in the *public* domain). Each normalised
   score I/S has sensitivity ≤ 1, so a per-candidate S is legitimate (as DataSynthesizer does);
   each step spends ε_net/(d−1), ε_net = β·ε.
3. **Noisy conditionals**: one joint count table per family X ∪ Π, except families contained in
   a later family, which are obtained by marginalising that one (as in the paper, the first k
   nodes come from the joint of the first k+1; d−k tables when every parent set has size
   min(|V|, k)). Each table gets Laplace noise of scale 2m/ε_cond on the counts (m tables,
   ε_cond = ε − ε_net, L1 sensitivity 2 under replace-one), negatives → 0, then per parent
   configuration the child's counts are normalised (all zero ⇒ uniform).
4. **Sampling**: ancestral, vectorised per node (inverse CDF by parent configuration).

Neighbouring relation: **replace-one** (bounded DP; n public)
--------------------------------------------------------------
The paper's sensitivity of mutual information (S(I) above) bounds the change of I when *one
record is replaced* in a dataset of *known size n*. Under add/remove-one, n is itself private: a
calibration S(n) computed from the data's own size is not a data-independent sensitivity, and a
valid bound must hold for every n down to 1, where I changes by ln 2 (one record (0,0) versus the
two records (0,0), (1,1)) — which would make the selection essentially uniform. So the exponential
mechanism with these scores is ε-DP for replace-one neighbours, and we use replace-one
throughout: a count table then has L1 sensitivity 2 (one record moves from one cell to another),
which is exactly the paper's noise 2(d−k)/(n·ε_cond) on *probabilities* = 2(d−k)/ε_cond on
counts. DataSynthesizer ≥ 0.1.7 uses (d−k)/ε_cond (add/remove, sensitivity 1) *together with*
the replace-one MI sensitivity: that mix is 1.5ε-DP under replace-one at β = ½ and not bounded
under add/remove. The number of records n is public under replace-one, so :meth:`sample` without
``n`` returns n rows at no privacy cost, and θ-usefulness may use n.

What is *not* done (DataSynthesizer's choices and bugs [``datasynthesizer2023``]): no extra
release of independent per-attribute histograms (DataSynthesizer spends another ε there), no
data-derived domains (the domain is public; see
:class:`~synthtrust.synthesizers.tabular.TabularSynthesizer`), no global random state.
The ≈n-times-too-small pre-2021 noise is available only on request, as ``noise=
"datasynthesizer-0.1.3"`` (next section), and is then reported as what it is.

``noise="datasynthesizer-0.1.3"``: the noise the published studies actually added (not DP)
-------------------------------------------------------------------------------------------
DataSynthesizer before 0.1.7 (2021-03-31), and forks copied from it such as the one the QUIPP
pipeline of Giles et al. (2022) [``giles2022``, §4.1.1] pins, add Laplace noise of scale
``laplace_noise_parameter = 2(d−k)/(n·ε_cond)`` to the *counts* of each of its d−k noisy joints
(d attributes, k parents of the last node, n records, ε_cond = ε/2): the replace-one scale of
Zhang et al. for *probabilities*, applied to counts, hence n times too little noise (DataSynthesizer
issue #34, fixed in 0.1.7). With this option only that noise scale changes; the degree, the
cap, the network (its exponential-mechanism steps are unchanged and correctly calibrated) and the
sampling are those of the DP version.

*Mapping of the tables.* DataSynthesizer measures the joint of the root and the first k children,
then one joint (k parents + child) for each later child: d−k joints of k+1 attributes each, all
with the scale above. Our m measured tables are the families not contained in a later family.
When every parent set has min(|V|, k) members (no parent set cut by the table cap; always so with
``max_cells=2**24`` on tables whose k+1 largest domains multiply to ≤ 2**24), the first k+1
families are nested in the family of the (k+1)-th node, every later family has k+1 attributes
and none contains another, so our tables *are* DataSynthesizer's joints and m = d−k. Each table
then gets the scale

    b = 2·m / (n·ε_cond)  [counts]  = (correct replace-one scale 2m/ε_cond) / n,

which is the fork's 2(d−k)/(n·ε_cond) exactly. When the cap cuts a parent set (m may differ from
d−k; the fork has no cap and would materialise the big table instead) the same b = 2m/(n·ε_cond)
is used, so the noise stays exactly n times below the correct one.

*What the ledger records.* The noise still goes through :func:`synthtrust.privacy.laplace` with
the true replace-one L1 sensitivity 2, so each table's entry holds the ε it really spends,
2/b = n·ε_cond/m (n times its nominal share ε_cond/m), and the ledger total is the actual
guarantee ε_net + n·ε_cond (ε_net = β·ε; with an empty network ε_net = 0 and ε_cond = ε).
Example: ε = 1e-4, β = ½, n = 32 561 (adult): actual ε = 5e-5 + 32 561·5e-5 ≈ 1.63. The fitted
attributes ``differentially_private_`` (False), ``epsilon_actual_`` and ``privacy_`` and
:meth:`PrivBayes.card` say "not ε-DP at the nominal ε=…; actual guarantee ε = …".

Table-size cap (general, non-binary domains)
--------------------------------------------
The paper's θ-usefulness asks that the average count of a noisy table be at least θ times the
noise scale. A family table of C cells has average count n/C; with m ≤ d tables its Laplace scale
is 2m/ε_cond ≤ 2d/ε_cond, so every table is θ-useful if C ≤ n·ε_cond/(2dθ) (own derivation along
the paper's argument; the paper's binary rule for k assumes exactly d−k tables of 2^{k+1} cells,
which holds only when all families are nested, i.e. for binary attributes). With
``max_cells=None`` this is the cap; a parent set is a candidate only if its family table fits the
cap, and among fitting parent sets only the *maximal* ones are scored (size min(|V|, k), or no
further attribute of V fits); Π = ∅ (a one-way marginal) is always allowed. This follows the
paper's treatment of non-binary attributes (maximal θ-useful parent sets; recalled, unverified
here) and keeps the tables
small: on adult (domains of up to 100 levels) at ε = 1 the cap is 218 cells, and larger caps give
*worse* 2-way fidelity (the noise of the mostly empty cells of big tables dominates; DataSynthesizer
-like k = 2 without a cap: mean 2-way TVD ≈ 0.70 against ≈ 0.10). For binary attributes the cap is
slightly stricter than the degree rule (by the factor d/(d−k)): a parent set may then have k−1
members where the paper has k. If no family with a parent fits at all (a public fact), the network
is empty and the whole ε goes to the d one-way marginals.
"""

from __future__ import annotations

import math
from itertools import groupby

import numpy as np
import pandas as pd

from .._validation import (
    check_epsilon,
    check_int_at_least,
    int_at_least,
    int_in,
    one_of,
    optional,
    real_in,
)
from ..privacy.mechanisms import exponential_mechanism, laplace
from .tabular import TabularSynthesizer

__all__ = [
    "MAX_CELLS_LIMIT",
    "NOISE_MODELS",
    "PrivBayes",
    "choose_degree",
    "mi_sensitivity",
    "mutual_information",
    "theta_usefulness",
]

#: Largest table (cells) PrivBayes materialises: 2**24 cells = 128 MiB of float64.
MAX_CELLS_LIMIT = 2**24
#: Most (child, parent set) candidates of one greedy step (C(|V|, k)·|rest| grows fast).
MAX_CANDIDATES = 200_000
#: Allowed values of ``PrivBayes(noise=...)``: the correct ε-DP noise, and the n-times-too-small
#: count noise of DataSynthesizer ≤ 0.1.6 used by Giles et al. (2022) (module docstring).
NOISE_MODELS = ("dp", "datasynthesizer-0.1.3")


# --------------------------------------------------------------------------------------------
# formulas of the paper
# --------------------------------------------------------------------------------------------
_check_beta = real_in(0.0, 1.0, low_open=True, high_open=True)
_check_theta = real_in(0.0, low_open=True)


def theta_usefulness(n: int, d: int, k: int, epsilon: float, beta: float = 0.5) -> float:
    """Usefulness of the noisy conditionals of a degree-k network on binary attributes.

    ``n·(1−β)·ε / ((d−k)·2^{k+2})``: the average probability 1/2^{k+1} of a cell of one of the d−k
    joint tables over the Laplace scale 2(d−k)/(n·(1−β)ε) of its noise (replace-one). For β = ½
    this is the paper's n·ε/((d−k)·2^{k+3}) (Zhang et al. 2017, θ-usefulness in the choice of k;
    e.g. n = 30 000, d = 15, k = 3, ε = 0.1 ⇒ 3.906, below θ = 4).

    Parameters
    ----------
    n : int ≥ 1 (records), d : int ≥ 1 (attributes), k : int in [0, d−1] (degree),
    epsilon : float > 0 (total ε), beta : float in (0, 1) (share of ε for the network).

    Returns
    -------
    float (dimensionless ratio).

    Raises
    ------
    TypeError, ValueError
        A parameter of the wrong type or out of range (named in the message).
    """
    n = check_int_at_least(n, "n", 1)
    d = check_int_at_least(d, "d", 1)
    k = check_int_at_least(k, "k", 0)
    if k >= d:
        raise ValueError(f"k must be < d = {d}, got {k}")
    epsilon = check_epsilon(epsilon)
    beta = _check_beta(beta, "beta")
    return n * (1.0 - beta) * epsilon / ((d - k) * 2.0 ** (k + 2))


def choose_degree(n: int, d: int, epsilon: float, theta: float = 4.0, beta: float = 0.5) -> int:
    """The degree k of PrivBayes: the largest k ∈ {1, …, d−1} with θ-usefulness ≥ θ, else 0.

    Uses :func:`theta_usefulness` with the actual ``epsilon`` (Zhang et al. 2017, choice of k with
    θ = 4). Examples (β = ½): n = 30 000, d = 15, ε = 0.1 ⇒ 2; n = 48 842, d = 14, ε = 1 ⇒ 7.

    Returns
    -------
    int in [0, d−1]

    Raises
    ------
    TypeError, ValueError
        As :func:`theta_usefulness`; ``theta`` not a finite number > 0.
    """
    theta = _check_theta(theta, "theta")
    d = check_int_at_least(d, "d", 1)
    best = 0
    for k in range(1, d):
        if theta_usefulness(n, d, k, epsilon, beta) >= theta:
            best = k
    return best


def mi_sensitivity(n: int, binary: bool) -> float:
    """Sensitivity of the empirical mutual information I(X; Π) (nats) under replace-one.

    Zhang et al. (2017) [``zhang2017``], lemma on the sensitivity of I, as DataSynthesizer computes
    it [``datasynthesizer2023``]:

    * X or Π binary: (1/n)·ln n + ((n−1)/n)·ln(n/(n−1));
    * otherwise: (2/n)·ln((n+1)/2) + ((n−1)/n)·ln((n+1)/(n−1)).

    n = 1000 ⇒ 0.00791 / 0.01443; n = 30 000 ⇒ 0.000377 / 0.000708. For n = 1 every I is 0
    (sensitivity 0); 1.0 is returned so that scores can still be divided by it.

    Raises
    ------
    TypeError, ValueError
        ``n`` not an integer ≥ 1.
    """
    n = check_int_at_least(n, "n", 1)
    if n == 1:
        return 1.0
    if binary:
        return math.log(n) / n + (n - 1) / n * math.log(n / (n - 1))
    return 2.0 / n * math.log((n + 1) / 2.0) + (n - 1) / n * math.log((n + 1) / (n - 1))


def _plogp_sum(keys: np.ndarray) -> float:
    """Σ c·ln c over the counts c > 0 of the non-negative integer ``keys``."""
    n = keys.shape[0]
    if n and int(keys.max()) > 8 * n:  # sparse: sort instead of a huge, mostly empty bincount
        c = np.unique(keys, return_counts=True)[1].astype(np.float64)
    else:
        c = np.bincount(keys)
        c = c[c > 0].astype(np.float64)
    return float(np.dot(c, np.log(c)))


def _entropy(keys: np.ndarray) -> float:
    n = keys.shape[0]
    return math.log(n) - _plogp_sum(keys) / n


def mutual_information(x, y) -> float:
    """Empirical mutual information I(X; Y) in nats (natural log).

    Parameters
    ----------
    x : array-like of integers, shape (rows,)
    y : array-like of integers, shape (rows,) or (rows, p): a parent set is the joint label of
        its p columns.

    Returns
    -------
    float ≥ 0; equals ``sklearn.metrics.mutual_info_score(x, joint label of y)``.

    Raises
    ------
    ValueError
        Empty input, mismatched lengths, non-integer values.
    """
    x = np.asarray(x)
    y = np.asarray(y)
    if y.ndim == 1:
        y = y[:, None]
    if x.ndim != 1 or y.ndim != 2 or x.shape[0] != y.shape[0] or x.shape[0] == 0:
        raise ValueError(
            f"x must be (rows,) and y (rows,) or (rows, p) with rows >= 1; got {x.shape} and {y.shape}"
        )
    for arr, name in ((x, "x"), (y, "y")):
        if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.bool_)):
            raise ValueError(f"{name} must hold integer codes, got dtype {arr.dtype}")
    # compress every column to 0..m-1, then to one joint label per row
    xl = np.unique(x, return_inverse=True)[1].astype(np.int64)
    yl = np.zeros(x.shape[0], dtype=np.int64)
    for j in range(y.shape[1]):
        col = np.unique(y[:, j], return_inverse=True)[1]
        yl = np.unique(yl * (int(col.max()) + 1) + col, return_inverse=True)[1].astype(np.int64)
    joint = yl * (int(xl.max()) + 1) + xl
    mi = _entropy(xl) + _entropy(yl) - _entropy(joint)
    return max(mi, 0.0)


# --------------------------------------------------------------------------------------------
# structure learning helpers
# --------------------------------------------------------------------------------------------
def _maximal_parent_sets(members: list[int], sizes: np.ndarray, k: int, limit: int) -> list[tuple]:
    """Maximal subsets Π of ``members`` with |Π| ≤ k and ∏ sizes[Π] ≤ limit (sorted tuples).

    Π is maximal if |Π| = k or no further member fits under ``limit``. ∅ is returned when nothing
    else fits. Raises ValueError beyond :data:`MAX_CANDIDATES` feasible subsets.
    """
    members = sorted(members)
    found: list[tuple[tuple, int]] = []
    chosen: list[int] = []

    def rec(start: int, prod: int) -> None:
        found.append((tuple(chosen), prod))
        if len(found) > MAX_CANDIDATES:
            _too_many(len(members), k)
        if len(chosen) == k:
            return
        for j in range(start, len(members)):
            p = prod * int(sizes[members[j]])
            if p <= limit:
                chosen.append(members[j])
                rec(j + 1, p)
                chosen.pop()

    rec(0, 1)
    out = []
    for pi, prod in found:
        if len(pi) < k:
            others = [int(sizes[a]) for a in members if a not in pi]
            if others and prod * min(others) <= limit:
                continue
        out.append(pi)
    return out


def _too_many(members: int, k: int):
    raise ValueError(
        f"more than {MAX_CANDIDATES} (child, parent set) candidates in one greedy step ({members} "
        f"attributes already in the network, degree {k}): pass a smaller degree= or max_cells="
    )


def _parent_key(codes: list[np.ndarray], sizes: np.ndarray, pi: tuple) -> np.ndarray:
    """Mixed-radix index of the parent configuration of every row (C order over ``pi``)."""
    key = codes[pi[0]].copy()
    for a in pi[1:]:
        key *= int(sizes[a])
        key += codes[a]
    return key


# --------------------------------------------------------------------------------------------
# the synthesizer
# --------------------------------------------------------------------------------------------
class PrivBayes(TabularSynthesizer):
    """PrivBayes (Zhang et al. 2017): greedy DP Bayesian network + noisy conditionals; ε-DP
    with the default ``noise="dp"``.

    Neighbouring datasets: replace-one (n public); see the module docstring for why, and for the
    algorithm, the table-size cap and what differs from DataSynthesizer.

    With ``noise="datasynthesizer-0.1.3"`` it is **not ε-DP at the nominal ε**: the conditional
    tables get the n-times-too-small count noise 2m/(n·ε_cond) of DataSynthesizer ≤ 0.1.6 (used by
    Giles et al. 2022), and the ledger records the actual guarantee ε_net + n·ε_cond (module
    docstring). Meant only to reproduce published results.

    Parameters
    ----------
    epsilon : float > 0
        Total privacy budget ε (pure ε-DP; δ = 0).
    degree : int ≥ 0 or None
        Maximum number of parents k (< number of columns). None: chosen by θ-usefulness
        (:func:`choose_degree`) with the actual ε, n and β.
    theta : float > 0
        θ of θ-usefulness (paper's default 4), for the degree and the table-size cap.
    beta : float in (0, 1)
        Share of ε for the network (exponential mechanism); the rest measures the conditionals.
        DataSynthesizer fixes ½.
    max_cells : int in [1, 2**24] or None
        Largest family table (cells of X ∪ Π) a parent set may produce. None: the θ-usefulness
        cap n·ε_cond/(2dθ) (module docstring). One-way marginals are always measured.
    domain : dict {column: levels}, a synthtrust Domain, or None
        Public domain (see :mod:`synthtrust.synthesizers.tabular`; None infers it from the data
        with a warning: not DP).
    noise : {"dp", "datasynthesizer-0.1.3"}, default "dp"
        Laplace scale of the measured tables: "dp" 2m/ε_cond on counts (ε-DP); the other value
        2m/(n·ε_cond), n times smaller, as DataSynthesizer ≤ 0.1.6 (2(d−k)/(n·ε_cond) when m = d−k;
        module docstring). DataSynthesizer-like runs also pass ``degree=3`` and
        ``max_cells=2**24`` (no θ-usefulness cap: DataSynthesizer has none).
    random_state : int, numpy.random.Generator, SeedSequence or None

    Attributes
    ----------
    differentially_private_ : bool
        True iff the release is ε-DP at the nominal ``epsilon`` (``noise="dp"``).
    epsilon_actual_ : float
        The guarantee actually given (= ``ledger_.total_epsilon``): ``epsilon`` for "dp";
        ε_net + n·ε_cond for "datasynthesizer-0.1.3".
    privacy_ : str
        One sentence stating the guarantee (also in :meth:`card`).
    n_records_ : int
        Rows of the training data (public under replace-one; default size of :meth:`sample`).
    degree_ : int
        The k used (0: no parent fits, independent attributes).
    max_cells_ : int
        The table cap used.
    network_ : list of (child, tuple of parents)
        In sampling order; the first entry is the root (no parents).
    conditionals_ : dict child -> ndarray, shape (levels of each parent…, levels of child)
        Noisy conditional distributions P*(child | parents); the last axis sums to 1.
    tables_ : list of tuple of columns
        The families whose noisy joint counts were measured (one Laplace ledger entry each).
    ledger_ : PrivacyLedger
        d−1 exponential-mechanism entries (ε_net/(d−1) each; none if the network is empty) and one
        Laplace entry per measured table (sensitivity 2; ε_cond/m each, totals ε, for "dp";
        n·ε_cond/m each, totals ε_net + n·ε_cond, for "datasynthesizer-0.1.3").

    Raises
    ------
    TypeError, ValueError
        At :meth:`fit`: ε ≤ 0, degree < 0 or ≥ number of columns, beta ∉ (0, 1),
        theta ≤ 0, bad max_cells, ``noise`` not in :data:`NOISE_MODELS`; at :meth:`fit` also a code outside the domain, NaN, non-integer
        codes (messages name the parameter or column and the value).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [0, 1, 1, 0] * 50, "b": [0, 1, 1, 1] * 50})
    >>> pb = PrivBayes(epsilon=1.0, domain={"a": 2, "b": 2}, random_state=0).fit(df)
    >>> round(pb.ledger_.total_epsilon, 12)
    1.0
    >>> pb.sample(5).shape
    (5, 2)
    """

    #: replace-one neighbours (n public)
    neighbouring = "replace_one"

    _description = (
        "PrivBayes (Zhang et al. 2017): noisy Bayesian network, pure epsilon-DP, replace-one"
    )
    #: δ of the mechanism (pure ε-DP): a class attribute, not a parameter
    delta = 0.0
    _parameter_constraints = {
        **{k: v for k, v in TabularSynthesizer._parameter_constraints.items() if k != "delta"},
        "degree": optional(int_at_least(0)),
        "theta": _check_theta,
        "beta": _check_beta,
        "max_cells": optional(int_in(1, MAX_CELLS_LIMIT)),
        "noise": one_of(*NOISE_MODELS),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        degree: int | None = None,
        theta: float = 4.0,
        beta: float = 0.5,
        max_cells: int | None = None,
        noise: str = "dp",
        domain=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.degree = degree
        self.theta = theta
        self.beta = beta
        self.max_cells = max_cells
        self.noise = noise
        self.domain = domain
        self.random_state = random_state

    # -- fitting ------------------------------------------------------------------------------
    def _fit_codes(self, codes: dict, rng: np.random.Generator) -> None:
        names = list(codes)
        arrays = [np.ascontiguousarray(codes[c], dtype=np.int64) for c in names]
        sizes = np.array([int(self.domain_[c]) for c in names], dtype=np.int64)
        d, n = len(names), int(arrays[0].shape[0])
        eps = float(self.epsilon)
        beta = float(self.beta)
        if self.degree is not None and self.degree >= d:
            raise ValueError(
                f"degree must be < the number of columns d = {d} (0..{d - 1}), got {self.degree}"
            )
        k = choose_degree(n, d, eps, self.theta, beta) if self.degree is None else int(self.degree)

        if self.max_cells is not None:
            cap = int(self.max_cells)
        else:  # θ-useful table size (module docstring)
            cap_f = n * (eps - beta * eps) / (2.0 * d * float(self.theta))
            cap = int(min(math.floor(cap_f), MAX_CELLS_LIMIT))
        # public check: can any family with a parent fit? (otherwise the network is empty)
        if k > 0:
            small = np.sort(sizes)[:2]
            if int(small[0]) * int(small[1]) > cap:
                k = 0
        self.n_records_ = n
        self.degree_ = k
        self.max_cells_ = cap

        if k > 0:
            eps_net = beta * eps
            eps_cond = eps - eps_net
            net = self._learn_network(arrays, sizes, n, k, cap, eps_net, rng, names)
        else:
            eps_cond = eps
            order = [int(i) for i in rng.permutation(d)]
            net = [(i, ()) for i in order]
        self._net = net
        self._measure(arrays, sizes, eps_cond, rng, names)
        self.network_ = [(names[c], tuple(names[p] for p in pi)) for c, pi in net]
        self._state_guarantee()

    def _state_guarantee(self) -> None:
        """Set ``differentially_private_``, ``epsilon_actual_`` and ``privacy_`` from the ledger."""
        self.epsilon_actual_ = float(self.ledger_.total_epsilon)
        self.differentially_private_ = self.noise == "dp"
        if self.differentially_private_:
            self.privacy_ = f"ε-DP (replace-one) at ε = {self.epsilon_actual_:.6g}"
        else:
            self.privacy_ = (
                f"not ε-DP at the nominal ε={float(self.epsilon):.6g}; actual guarantee "
                f"ε = {self.epsilon_actual_:.6g} (replace-one): the conditional tables got the "
                f"n-times-too-small count noise of DataSynthesizer ≤ 0.1.6 (n = {self.n_records_})"
            )

    def _learn_network(
        self, codes, sizes, n, k, cap, eps_net, rng, names
    ) -> list[tuple[int, tuple]]:
        d = len(codes)
        eps_step = eps_net / (d - 1)
        s_bin = mi_sensitivity(n, True)
        s_gen = mi_sensitivity(n, False)
        h_child = [_entropy(c) for c in codes]
        h_par: dict[tuple, float] = {}
        score_cache: dict[tuple, float] = {}

        root = int(rng.integers(d))
        net = [(root, ())]
        in_v = [root]
        for step in range(1, d):
            rest = [c for c in range(d) if c not in in_v]
            k_eff = min(len(in_v), k)
            cands: list[tuple[int, tuple]] = []
            # children with the same number of levels share the enumeration of parent sets
            for size_c, group in groupby(
                sorted(rest, key=lambda c: (sizes[c], c)), key=lambda c: int(sizes[c])
            ):
                group = list(group)
                for pi in _maximal_parent_sets(in_v, sizes, k_eff, cap // size_c):
                    cands.extend((c, pi) for c in group)
                if len(cands) > MAX_CANDIDATES:
                    _too_many(len(in_v), k_eff)
            # mutual information of the new candidates, grouped by parent set
            missing: dict[tuple, list[int]] = {}
            for c, pi in cands:
                if pi and (c, pi) not in score_cache:
                    missing.setdefault(pi, []).append(c)
            for pi, children in missing.items():
                key = _parent_key(codes, sizes, pi)
                if pi not in h_par:
                    h_par[pi] = _entropy(key)
                binary_pi = int(np.prod(sizes[list(pi)])) <= 2
                for c in children:
                    joint = key * int(sizes[c]) + codes[c]
                    mi = max(h_child[c] + h_par[pi] - _entropy(joint), 0.0)
                    sens = s_bin if (binary_pi or sizes[c] <= 2) else s_gen
                    score_cache[(c, pi)] = mi / sens
            scores = np.array([score_cache[cand] if cand[1] else 0.0 for cand in cands])
            idx = exponential_mechanism(
                scores,
                eps_step,
                1.0,
                random_state=rng,
                ledger=self.ledger_,
                note=f"network step {step}/{d - 1}: choose (child, parents) among {len(cands)} "
                "candidates, score I/S(I)",
            )
            c, pi = cands[idx]
            net.append((c, pi))
            in_v.append(c)
        return net

    def _measure(self, codes, sizes, eps_cond, rng, names) -> None:
        net = self._net
        # which families are measured: those not contained in a later measured family
        measured: list[tuple] = []  # axes (parents..., child) of measured tables, reverse order
        source: dict[int, int] = {}
        for i in range(len(net) - 1, -1, -1):
            c, pi = net[i]
            fam = set(pi) | {c}
            for t, axes in enumerate(measured):
                if fam <= set(axes):
                    source[i] = t
                    break
            else:
                source[i] = len(measured)
                measured.append(tuple(pi) + (c,))
        m = len(measured)
        calibration, what = self._table_calibration(m, eps_cond, int(codes[0].shape[0]))
        noisy: list[np.ndarray] = [None] * m
        for t in range(m - 1, -1, -1):  # measure in network order
            axes = measured[t]
            shape = tuple(int(sizes[a]) for a in axes)
            cells = int(np.prod(shape))
            key = _parent_key(codes, sizes, axes) if len(axes) > 1 else codes[axes[0]]
            counts = np.bincount(key, minlength=cells).astype(np.float64)
            table = laplace(
                counts,
                sensitivity=2.0,
                **calibration,
                random_state=rng,
                ledger=self.ledger_,
                note=f"noisy joint counts of {[names[a] for a in axes]} ({cells} cells; "
                f"replace-one L1 sensitivity 2; table {m - t} of {m}; {what})",
            )
            noisy[t] = np.maximum(table, 0.0).reshape(shape)
        self.tables_ = [tuple(names[a] for a in measured[t]) for t in range(m - 1, -1, -1)]

        conditionals: dict[int, np.ndarray] = {}
        for i, (c, pi) in enumerate(net):
            axes = measured[source[i]]
            table = noisy[source[i]]
            want = tuple(pi) + (c,)
            drop = tuple(j for j, a in enumerate(axes) if a not in want)
            if drop:
                table = table.sum(axis=drop)
            kept = [a for a in axes if a in want]
            table = np.transpose(table, [kept.index(a) for a in want])
            total = table.sum(axis=-1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                cond = np.where(
                    total > 0, table / np.where(total > 0, total, 1.0), 1.0 / table.shape[-1]
                )
            conditionals[c] = cond
        self._cond = conditionals
        self.conditionals_ = {names[c]: conditionals[c] for c, _ in net}

    def _table_calibration(self, m: int, eps_cond: float, n: int) -> tuple[dict, str]:
        """Laplace calibration of each of the ``m`` measured tables (keyword for
        :func:`~synthtrust.privacy.laplace` besides ``sensitivity=2``) and a note for the ledger.

        "dp": ε = ε_cond/m per table, i.e. scale 2m/ε_cond on counts. "datasynthesizer-0.1.3":
        scale 2m/(n·ε_cond), DataSynthesizer ≤ 0.1.6's 2(d−k)/(n·ε_cond) with its d−k joints = our
        m tables (module docstring); the ledger entry then shows the true ε = 2/scale = n·ε_cond/m.
        """
        if self.noise == "dp":
            return {"epsilon": eps_cond / m}, f"epsilon_cond/m = {eps_cond / m:.6g}"
        return {"scale": 2.0 * m / (n * eps_cond)}, (
            f"NOT DP at the nominal share epsilon_cond/m = {eps_cond / m:.6g}: DataSynthesizer-0.1.3 "
            f"scale 2m/(n*epsilon_cond) with n = {n}, true epsilon = n*epsilon_cond/m"
        )

    # -- documentation ------------------------------------------------------------------------
    def card(self) -> dict:
        """Generator card (see :meth:`TabularSynthesizer.card`) plus the privacy status.

        Extra keys: ``differentially_private`` (bool: ε-DP at the nominal ε), ``privacy`` (one
        sentence; for ``noise="datasynthesizer-0.1.3"`` "not ε-DP at the nominal ε=…; actual
        guarantee ε = …", before fitting with the formula ε_net + n·ε_cond since n is unknown),
        ``nominal_epsilon`` and, once fitted, ``actual_epsilon`` (= ``total_epsilon``).
        """
        info = super().card()
        dp = self.noise == "dp"
        info.update(differentially_private=dp, nominal_epsilon=float(self.epsilon))
        if not dp:
            info["description"] = (
                self._description.replace(
                    "pure epsilon-DP", "NOT epsilon-DP at the nominal epsilon"
                )
                + "; conditional tables with DataSynthesizer-0.1.3 count noise 2m/(n·ε_cond), "
                "n times too small (Giles et al. 2022)"
            )
        if getattr(self, "_fitted", False):
            info.update(privacy=self.privacy_, actual_epsilon=self.epsilon_actual_)
        elif dp:
            info["privacy"] = f"ε-DP (replace-one) at ε = {float(self.epsilon):.6g}"
        else:
            info["privacy"] = (
                f"not ε-DP at the nominal ε={float(self.epsilon):.6g}; actual guarantee "
                "ε = ε_net + n·ε_cond (n = training rows, known after fit)"
            )
        return info

    def _default_n(self) -> int:
        # replace-one neighbours: n is public, no budget is spent on it
        return self.n_records_

    # -- sampling -----------------------------------------------------------------------------
    def _sample_codes(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        """Ancestral sampling, one vectorised inverse-CDF draw per node.

        For a node with parents, the CDF rows of all parent configurations are laid end to end
        with offsets (row r occupies (r, r+1]) and one ``searchsorted`` finds every row's
        category; exact up to the float spacing of the offsets (≤ 2^23·2^-52 ≈ 2e-9).
        """
        names = self.columns_
        out: dict[int, np.ndarray] = {}
        for c, pi in self._net:
            cond = self._cond[c]
            levels = cond.shape[-1]
            cdf = np.cumsum(cond.reshape(-1, levels), axis=1)
            cdf[:, -1] = 1.0
            u = rng.random(n)
            if not pi:
                draw = np.searchsorted(cdf[0], u, side="right")
            else:
                cfg = np.ravel_multi_index([out[p] for p in pi], cond.shape[:-1])
                flat = (cdf + np.arange(cdf.shape[0], dtype=np.float64)[:, None]).ravel()
                draw = np.searchsorted(flat, cfg + u, side="right") - cfg * levels
            out[c] = np.minimum(draw, levels - 1).astype(np.int64)
        return pd.DataFrame({names[c]: out[c] for c in range(len(names))})

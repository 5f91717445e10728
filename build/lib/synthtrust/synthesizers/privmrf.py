"""PrivMRF: data synthesis via differentially private Markov random fields.

Cai, Lei, Wei, Xiao, "Data synthesis via differentially private Markov random fields",
PVLDB 14(11):2190–2202, 2021. This is a re-implementation written from a reading of the authors'
public code (``caicre/PrivMRF``: ``PrivMRF/main.py``, ``attribute_graph.py``,
``markov_random_field.py``, ``utils/tools.py``) with the authors' default configuration; the
inference engine is mbi 2.0's ``MirrorDescent`` (Private-PGM) instead of the authors' own
(GPU, cupy) mirror descent. Nothing of their code is copied.

Algorithm (authors' defaults in brackets)
------------------------------------------
The authors express budgets as a Gaussian-DP "privacy budget" B = μ² (Σ over Gaussian queries of
(Δ₂/σ)²). μ-GDP composes like ρ-zCDP with B = 2ρ, so every fraction below is a fraction of the zCDP
budget ρ = ``cdp_rho(ε, δ)`` and a query with L2 sensitivity Δ and noise σ costs Δ²/(2σ²).

1. **Attribute graph** (``attribute_graph.py``, budget β₁ [0.10]).
   * A noisy record count n̂ (Gaussian, sensitivity 1).
   * The R-score of every attribute pair, R(a, b) = ½‖P(a, b) − P(a)P(b)‖₁ (the total-variation
     distance of the pair from independence; the authors' ``pairwsie_TVD`` score [default]),
     all d(d−1)/2 pairs with Gaussian noise of L2 sensitivity 2/n per pair.
   * Local search: start from the empty graph; in each of at most d(d−1) rounds evaluate adding
     every missing edge (in random order) and move to the best one. The score of a graph is the
     sum of the noisy R-scores over the edges of its triangulation minus
     ``size_penalty`` [1e-8] × (total cells of its maximal cliques); a graph whose triangulation
     has a maximal clique with more than ``max_clique_size`` cells or more than
     ``max_parameter_size`` cells in total is infeasible. The best neighbour is taken even if
     the score drops, so the search stops only when no edge can be added (three rounds without
     a feasible move) — the graph is a maximal feasible graph. Non-chordal graphs are
     triangulated by eliminating the vertices in increasing order of their degree.
2. **Initial marginals** (``construct_inner_Bayesian_network``; θ-usefulness [θ = 6]).
   With the planned marginal noise σ̃ = √((d + t·d)/((1 − β₁ − β₃)B)) a marginal may have at most
   n̂/(σ̃θ) cells. In every maximal clique of the graph a greedy Bayesian network (PrivBayes
   style; random first attribute) chooses, for each next attribute, the (attribute, parents)
   pair with the largest correlation-based-feature-selection score
   Σ_p R̂(a, p) / √(|P| + Σ_{p<q∈P} R̂(p, q)) among maximal parent sets that respect the cell
   limit. For every attribute the best-scoring family is kept; uncovered attributes get their
   1-way marginal; further families are added (random order) until there are d marginals.
3. **Marginal noise** (``generte_noise_scale``; t [0.8]). The budget (1 − β₁ − β₃)B is split
   equally over the initial marginals and int(t·d) marginals to be selected later; all are
   measured with the Gaussian mechanism (L2 sensitivity 1) [noise type "normal"].
4. **Iterative refinement** (``entropy_descent``; budget β₃ [0.10]). Candidates: all proper
   subsets (1 to ``max_measure_attr_num`` [6] attributes) of every maximal clique whose cell count
   is below n̂/(σ√(2/π)θ) (1-way always), weighted by |C|²/(#candidates of C). In each of
   min(⌊d/2⌋, 8) steps, up to ``norm_query_number`` [400] candidates (weighted sampling with
   replacement if there are more) get a noisy L1 error ‖x_c − x̂_c‖₁ between the data and the
   current model (Gaussian, sensitivity 1, β₃B/#steps per step); the largest are measured and
   added, the model is re-estimated (warm start).
5. **Estimation** (``mirror_descent``): L2 loss Σ ½‖(x̂_c − y_c)/σ_c‖²; at most
   ``estimation_iters`` [3000] steps, stopping once the loss is below ``convergence_ratio``
   [1.2] × its expected value at the truth, ½Σ|c| (``final_convergence_ratio`` [0.7] in the last
   step, which also runs at least 3× the average number of steps so far).
6. **Synthesis**: records drawn from the fitted MRF (mbi ``synthetic_data``; the authors also
   sample column by column along the junction tree with randomised rounding).

Differences from the paper and the authors' code (precisely)
-------------------------------------------------------------
* **Inference engine**: mbi 2.0 ``MirrorDescent`` (Armijo line search with step 2/(L·N), ×1.01
  per accepted step, ×½ per rejected step) instead of the authors' cupy mirror descent (step
  2/n̂² reset every iteration, up to 25 halvings). The model's potentials live on the maximal
  subsets of the *measured* cliques (mbi), not on the maximal cliques of the attribute graph;
  because mirror descent only moves potentials along measured marginals, the fitted
  distributions are the same family. Convergence is checked every 50 steps as in the
  authors' code (mbi runs steps in blocks of 50).
* **Accounting**: zCDP, ρ = ``cdp_rho(ε, δ)`` (Canonne–Kamath–Steinke conversion, the project
  convention) with B = 2ρ, instead of the exact Gaussian-DP conversion of the authors
  (``cal_privacy_budget``). Ours is looser: at δ = 1e-5 the authors' B is 1.29× our 2ρ at
  ε = 0.01, 1.18× at ε = 1, 1.12× at ε = 10, 1.08× at ε = 50, i.e. our noise σ is 4–13 % larger.
  The authors' table only covers ε ∈ [0.05, 3.2]; any ε > 0 works here.
* **Neighbouring datasets**: add/remove one record (the project's default). Marginals and the
  L1 queries have sensitivity 1 as in the authors' code. The R-score is privatised as n·R (whose
  sensitivity under add/remove is ≤ 2, derivation in :func:`r_score_statistics`) and divided by
  max(n̂, 1): the same noise as the authors' 2/n̂ sensitivity on R, but with a valid bound.
* **Record count**: the authors draw n̂ with variance 0.01/(β₁B) without charging it to any budget
  (a query costing 100·β₁B, i.e. 10× the total budget). Here n̂ costs ``count_share`` [0.1] of
  the graph budget (1 % of ρ), charged to the ledger; the rest of β₁ pays for the R-scores. The
  total given to mbi and the default number of synthetic rows is the inverse-variance average
  of n̂ and the sums of all noisy marginals (post-processing), not n̂ alone.
* **Budget that the authors leave unspent is spent**: (a) all marginals use one σ computed
  *after* the candidate set is known (the authors shrink int(t·d) to the number of candidates
  but measure the initial marginals with the larger σ); (b) the β₃ share of a refinement step
  that needs no noisy query (fewer candidates left than marginals to pick; the authors still
  query) and the R-score share when d = 1 go to the marginals. The ledger therefore always
  sums to exactly ρ.
* **Code bugs not reproduced**: (a) the CFS denominator uses R̂ of the parent *pair* (the authors
  index attributes 0..k−1 by position); (b) after a refinement step the candidates that were
  queried and ranked in the lower half get their sampling weight halved (the authors halve an
  arbitrary half of the queried set, taken in Python set order); (c) a single refinement step
  (d ∈ {2, 3}) no longer divides by zero when computing the minimal number of steps.
* **Re-measured marginals**: as in the authors' code a marginal selected again replaces its
  previous measurement (it is paid twice).
* **Not implemented**: the attribute hierarchy / domain reduction (``enable_attribute_hierarchy``;
  off by default in the authors' code and switched on only for their adult experiment, with a
  hand-made hierarchy file) and the exponential-mechanism selection variant (``use_exp_mech``,
  off by default). GPU code is replaced by mbi on CPU.
* **Model size**: the authors' defaults ``max_clique_size`` = 1e7 and ``max_parameter_size`` =
  5e7 cells bound the *attribute graph*; mbi's junction tree is built from the measured cliques,
  which θ-usefulness keeps small, so it is far smaller than the graph (adult, ε = 1: a few
  hundred kB). mbi triangulates the measured cliques with its own heuristic, so its tree is not
  guaranteed to be bounded by the graph's cliques. For their CPU dataset (ACS) the authors used
  2e5, 1e6 and ``size_penalty`` 1e-7; pass these to make the search cheaper.
* **Model marginals for the L1 queries** are computed by exact variable elimination in numpy on
  the mbi potentials (:func:`_model_marginals`, equal to ``model.project`` to 1e-12), because
  mbi's JAX ``project`` compiles once per query.
* **Runtime** (2 CPU cores, CPU seconds for fit + sample; mostly mbi's JIT compilation, a few
  seconds per new clique structure, i.e. per estimation, reused within a process): pima
  (768 rows, 9 columns of ≤ 9 levels) 3–31 s depending on ε; a 20-column hypothyroid subset
  (800 rows) ≈ 75 s at ε = 1; adult (48 842 rows, 14 columns) at ε = 1 ≈ 80 s (62 s wall
  when the machine was otherwise idle).

Randomness: every draw (noise, search order, random first attribute, candidate sampling) comes
from the generator built from ``random_state``; mbi's sampler (which uses numpy's global
generator) is seeded with an integer drawn from it inside a context that restores the global
state. Same ``random_state`` ⇒ identical output.
"""

from __future__ import annotations

import itertools
import math
import numbers
import string

import networkx as nx
import numpy as np
import pandas as pd

from .._jax import configure_jax, import_mbi
from .._validation import check_positive_int
from ..privacy.mechanisms import gaussian
from .pgm import _global_numpy_seed
from .tabular import TabularSynthesizer

__all__ = ["PrivMRF", "r_score_statistics", "triangulate"]

_MIN_SCORE = -1e8
_LETTERS = string.ascii_letters  # einsum subscripts (at most 52 attributes)
_METHODS = ("round", "sample")
#: L2 sensitivity of n·R(a, b) for one pair under add/remove-one (see r_score_statistics)
_R_SENSITIVITY = 2.0


# --------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------
def _real(value, name: str, *, low=None, high=None, low_open=False, high_open=False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    bad_low = low is not None and (v <= low if low_open else v < low)
    bad_high = high is not None and (v >= high if high_open else v > high)
    if bad_low or bad_high:
        lo = "" if low is None else f"{'(' if low_open else '['}{low}"
        hi = "" if high is None else f"{high}{')' if high_open else ']'}"
        raise ValueError(f"{name} must be in {lo or '(-inf'}, {hi or 'inf)'}, got {value!r}")
    return v


def _cells(sizes, attrs) -> int:
    out = 1
    for a in attrs:
        out *= int(sizes[a])
    return out


def _counts(codes: np.ndarray, sizes, clique) -> np.ndarray:
    """Contingency table of ``codes[:, clique]`` flattened in C order (float)."""
    clique = list(clique)
    shape = tuple(int(sizes[a]) for a in clique)
    if not clique:
        return np.array([float(codes.shape[0])])
    flat = np.ravel_multi_index(tuple(codes[:, a] for a in clique), shape)
    return np.bincount(flat, minlength=int(np.prod(shape))).astype(float)


def _eliminate(factors: list, query: str, size: dict) -> np.ndarray:
    """Σ over the letters not in ``query`` of Π factors (variable elimination, min-size order).

    ``factors`` are (subscripts, non-negative array) pairs; every intermediate is divided by its
    maximum (only the normalised result is used). Returns an array over ``query``'s letters.
    """
    facs = list(factors)
    todo = {c for s, _ in facs for c in s} - set(query)
    while todo:
        scopes = [s for s, _ in facs]
        v = min(
            sorted(todo),
            key=lambda u: math.prod(size[c] for c in set("".join(s for s in scopes if u in s))),
        )
        inv = [f for f in facs if v in f[0]]
        scope = "".join(sorted(set("".join(s for s, _ in inv)) - {v}))
        arr = np.einsum(",".join(s for s, _ in inv) + "->" + scope, *[a for _, a in inv])
        top = arr.max()
        facs = [f for f in facs if v not in f[0]] + [(scope, arr / top if top > 0 else arr)]
        todo.discard(v)
    ops = [a for _, a in facs] + [
        np.ones(size[c]) for c in query
    ]  # ones: query letters with no factor
    return np.einsum(",".join([s for s, _ in facs] + list(query)) + "->" + query, *ops)


def _model_marginals(model, names, queries) -> list[np.ndarray]:
    """Marginals of an mbi model on ``queries`` (tuples of attribute names), each flattened in
    C order over the query's attribute order and scaled to ``model.total``.

    Exact inference in numpy: variable elimination on exp(potential − max) (one pass per query),
    the same values as ``model.project`` without a JAX compilation per query. Falls back to
    ``model.project`` beyond 52 attributes (einsum subscripts) or if the contraction underflows.
    """
    total = float(model.total)
    if len(names) > len(_LETTERS):
        return [np.ravel(np.asarray(model.project(q).datavector(), dtype=float)) for q in queries]
    letter = {a: _LETTERS[i] for i, a in enumerate(names)}
    size = {
        letter[a]: int(k) for a, k in zip(model.domain.attributes, model.domain.shape, strict=True)
    }
    factors = []
    for cl in model.potentials.cliques:
        f = model.potentials[cl]
        v = np.asarray(f.values, dtype=float)
        factors.append(("".join(letter[a] for a in f.domain.attributes), np.exp(v - v.max())))
    out = []
    for q in queries:
        res = _eliminate(factors, "".join(letter[a] for a in q), size)
        z = res.sum()
        if not (np.isfinite(z) and z > 0):
            res = np.asarray(model.project(q).datavector(), dtype=float)
            z = res.sum()
        out.append(np.ravel(res) * (total / z))
    return out


# --------------------------------------------------------------------------------------------
# dependency measure
# --------------------------------------------------------------------------------------------
def r_score_statistics(codes: np.ndarray, sizes) -> np.ndarray:
    """n·R(a, b) for every attribute pair: ½‖C_ab − C_a C_bᵀ/n‖₁ on the count tables.

    R(a, b) = ½‖P(a, b) − P(a)P(b)‖₁ is the dependency ("R-score", the authors' pairwise TVD) of
    a pair. The unnormalised statistic n·R has sensitivity ≤ 2 under add/remove-one: adding a
    record changes the joint table by 1 in L1 and the product table C_a C_bᵀ/n by at most
    n/(n+1) + (2n+1)/(n+1) < 3, so n·R moves by at most ½(1 + 3) = 2.

    Parameters
    ----------
    codes : int array, shape (rows, d)
        Integer codes, column j in 0..sizes[j]−1.
    sizes : sequence of int, length d

    Returns
    -------
    ndarray, shape (d, d), symmetric, zero diagonal, units of records (divide by n for R).

    Source: Cai et al. (2021) §4 (R-score); ``tools.dp_TVD`` of the authors' code.
    """
    codes = np.asarray(codes)
    n, d = codes.shape
    out = np.zeros((d, d))
    if n == 0:
        return out
    ones = [_counts(codes, sizes, (a,)) for a in range(d)]
    for a, b in itertools.combinations(range(d), 2):
        joint = _counts(codes, sizes, (a, b)).reshape(int(sizes[a]), int(sizes[b]))
        prod = np.outer(ones[a], ones[b]) / n
        out[a, b] = out[b, a] = 0.5 * np.abs(joint - prod).sum()
    return out


# --------------------------------------------------------------------------------------------
# graphs
# --------------------------------------------------------------------------------------------
def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _mcs_peo(adj: list[int]) -> list[int] | None:
    """A perfect elimination ordering of the graph (adjacency bitmasks), or None if the graph is
    not chordal (maximum cardinality search + zero fill-in test; Tarjan & Yannakakis 1984)."""
    d = len(adj)
    weight = [0] * d
    visited, order = 0, []
    for _ in range(d):
        v = max((u for u in range(d) if not visited >> u & 1), key=lambda u: (weight[u], -u))
        before = adj[v] & visited
        if before:
            parent = max(_bits(before), key=order.index)
            if (before & ~(1 << parent)) & ~adj[parent]:
                return None
        order.append(v)
        visited |= 1 << v
        for u in _bits(adj[v] & ~visited):
            weight[u] += 1
    return order[::-1]


def _triangulate_bits(adj: list[int]) -> tuple[list[int], list[int]]:
    """(chordal adjacency, a perfect elimination ordering of it).

    A chordal graph is returned unchanged; otherwise vertices are eliminated in increasing order
    of their degree in the input graph (ties: vertex index), connecting the remaining
    neighbours of each eliminated vertex (``tools.triangulate`` of the authors' code)."""
    peo = _mcs_peo(adj)
    if peo is not None:
        return list(adj), peo
    d = len(adj)
    order = sorted(range(d), key=lambda v: adj[v].bit_count())
    work, out = list(adj), list(adj)
    for v in order:
        nb = work[v]
        for u in _bits(nb):
            work[u] = (work[u] | nb) & ~(1 << u) & ~(1 << v)
            out[u] |= nb & ~(1 << u)
        work[v] = 0
    return out, order


def _cliques_bits(adj: list[int], peo: list[int]) -> list[int]:
    """Maximal cliques (bitmasks) of a chordal graph from a perfect elimination ordering."""
    later, cands = 0, []
    for v in reversed(peo):
        cands.append((1 << v) | (adj[v] & later))
        later |= 1 << v
    return [c for c in cands if not any(c != o and c & o == c for o in cands)]


def _to_bits(graph: nx.Graph, d: int) -> list[int]:
    adj = [0] * d
    for a, b in graph.edges:
        adj[a] |= 1 << b
        adj[b] |= 1 << a
    return adj


def _to_graph(adj: list[int]) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(len(adj)))
    g.add_edges_from((a, b) for a in range(len(adj)) for b in _bits(adj[a]) if a < b)
    return g


def triangulate(graph: nx.Graph) -> nx.Graph:
    """Chordal supergraph of ``graph`` (nodes 0..d−1): eliminate vertices in increasing order of
    their degree.

    The order is fixed from the degrees of the input graph (ties: node index); eliminating a
    vertex connects all its not-yet-eliminated neighbours. A graph that is already chordal is
    returned unchanged (a copy). Source: ``tools.triangulate`` of the authors' code.
    """
    d = graph.number_of_nodes()
    if sorted(graph.nodes) != list(range(d)):
        raise ValueError(f"graph nodes must be 0..{d - 1}, got {sorted(graph.nodes)}")
    return _to_graph(_triangulate_bits(_to_bits(graph, d))[0])


def _maximal_cliques(chordal: nx.Graph) -> list[tuple[int, ...]]:
    return sorted(tuple(sorted(c)) for c in nx.find_cliques(chordal))


def _graph_score(
    adj: list[int], r_hat, sizes, max_clique_size, max_parameter_size, size_penalty
) -> float:
    """Score of the authors' ``pairwise_score_TVD`` for a graph given as adjacency bitmasks:
    Σ R̂ over the edges of its triangulation − penalty × cells; _MIN_SCORE if too large."""
    tri, peo = _triangulate_bits(adj)
    total = 0
    for c in _cliques_bits(tri, peo):
        cells = _cells(sizes, _bits(c))
        if cells > max_clique_size:
            return _MIN_SCORE
        total += cells
    if total > max_parameter_size:
        return _MIN_SCORE
    score = sum(r_hat[a, b] for a in range(len(tri)) for b in _bits(tri[a] >> (a + 1) << (a + 1)))
    return score - size_penalty * total


def _local_search(r_hat, sizes, rng, max_clique_size, max_parameter_size, size_penalty) -> nx.Graph:
    """Greedy edge addition (Cai et al. 2021 §4; ``AttributeGraph.local_search``); returns the
    triangulated graph."""
    d = len(sizes)
    adj = [0] * d
    stalls = 0
    for _ in range(d * (d - 1)):
        missing = [(a, b) for a in range(d) for b in range(a + 1, d) if not adj[a] >> b & 1]
        best, best_adj = _MIN_SCORE, None
        for k in rng.permutation(len(missing)):
            a, b = missing[k]
            cand = list(adj)
            cand[a] |= 1 << b
            cand[b] |= 1 << a
            score = _graph_score(
                cand, r_hat, sizes, max_clique_size, max_parameter_size, size_penalty
            )
            if score > best:
                best, best_adj = score, cand
        if best_adj is None:
            stalls += 1
            if stalls >= 3:
                break
            continue
        stalls = 0
        adj = best_adj
    return _to_graph(_triangulate_bits(adj)[0])


# --------------------------------------------------------------------------------------------
# initial marginals: a greedy Bayesian network inside every maximal clique
# --------------------------------------------------------------------------------------------
def _maximal_parents(parents: list, limit: float, sizes) -> set:
    """Maximal subsets of ``parents`` whose cell product is ≤ ``limit`` (PrivBayes)."""
    if limit < 1:
        return set()
    if not parents:
        return {()}
    rest = list(parents)
    attr = rest.pop()
    without = _maximal_parents(rest, limit, sizes)
    with_attr = _maximal_parents(rest, limit / sizes[attr], sizes)
    for ps in with_attr:
        without.discard(ps)
        without.add(tuple(sorted((*ps, attr))))
    return without


def _cfs_score(attr, parents, r_hat, sizes, limit_2way, limit_high) -> float:
    limit = limit_2way if len(parents) == 1 else limit_high
    if _cells(sizes, parents) * sizes[attr] > limit:
        return _MIN_SCORE
    num = sum(r_hat[attr, p] for p in parents)
    den = len(parents) + sum(r_hat[p, q] for p, q in itertools.combinations(parents, 2))
    return num / math.sqrt(max(den, 1.0))


def _greedy_bayes(clique, r_hat, sizes, rng, limit_2way, limit_high, best_family):
    remaining = list(clique)
    start = remaining.pop(int(rng.integers(len(remaining))))
    parents_set = [start]
    families = []
    while remaining:
        best, best_attr, best_parents = _MIN_SCORE, None, ()
        for attr in remaining:
            for ps in sorted(_maximal_parents(parents_set, limit_high / sizes[attr], sizes)):
                score = _cfs_score(attr, ps, r_hat, sizes, limit_2way, limit_high)
                if score > best:
                    best, best_attr, best_parents = score, attr, ps
        if best_attr is None:
            best_attr = remaining[int(rng.integers(len(remaining)))]
            best_parents = ()
        family = tuple(sorted((best_attr, *best_parents)))
        if len(family) <= 1:
            break  # "unable to construct Bayes network under dom limitation"
        families.append(family)
        if best_attr not in best_family or best_family[best_attr][1] < best:
            best_family[best_attr] = (family, best)
        remaining.remove(best_attr)
        parents_set.append(best_attr)
    return families


def _contains(measures, query) -> bool:
    return any(set(query) <= set(m) for m in measures)


def _deduplicate(measures) -> list:
    ordered = sorted(set(measures), key=lambda m: (-len(m), m))
    out = []
    for m in ordered:
        if not _contains(out, m):
            out.append(m)
    return out


def _initial_measures(cliques, r_hat, sizes, rng, limit_2way, limit_high) -> list:
    """Initial marginal set (``construct_model`` with ``init_measure=0``)."""
    d = len(sizes)
    best_family: dict = {}
    families = []
    for clique in cliques:
        families.extend(
            _greedy_bayes(clique, r_hat, sizes, rng, limit_2way, limit_high, best_family)
        )
    measures = _deduplicate(best_family[a][0] for a in best_family)
    covered = {a for m in measures for a in m}
    measures.extend((a,) for a in range(d) if a not in covered)
    extra = _deduplicate(families)
    for k in rng.permutation(len(extra)):
        if len(measures) >= d:
            break
        if not _contains(measures, extra[k]):
            measures.append(extra[k])
    return measures


def _candidates(cliques, sizes, limit_2way, limit_high, max_attrs) -> dict:
    """Refinement candidates → weight (``generate_measure_set``)."""
    weights: dict = {}
    for clique in cliques:
        found = []
        for length in range(1, min(max_attrs, len(clique) - 1) + 1):
            for m in itertools.combinations(clique, length):
                cells = _cells(sizes, m)
                if (
                    length == 1
                    or (length == 2 and cells < limit_2way)
                    or (length > 2 and cells < limit_high)
                ):
                    found.append(m)
        if found:
            w = len(clique) ** 2 / len(found)
            for m in found:
                weights[m] = weights.get(m, 0.0) + w
    return weights


# --------------------------------------------------------------------------------------------
# the synthesizer
# --------------------------------------------------------------------------------------------
class PrivMRF(TabularSynthesizer):
    """PrivMRF (Cai, Lei, Wei, Xiao, PVLDB 2021) with mbi mirror descent as inference engine.

    ``PrivMRF(epsilon, delta, domain=...).fit(codes_frame).sample(n)``. See the module docstring
    for the algorithm and a precise list of differences from the paper and the authors' code.

    Parameters
    ----------
    epsilon : float
        ε > 0 of the (ε, δ)-DP guarantee; the mechanism is ρ-zCDP with ρ = ``cdp_rho(ε, δ)``.
    delta : float
        δ in (0, 1); default 1e-5 (the authors' default).
    domain : dict {column: levels}, synthtrust Domain or None
        The public domain (see :class:`~synthtrust.synthesizers.tabular.TabularSynthesizer`).
    beta_graph : float
        β₁, fraction of ρ for the attribute graph (noisy count + R-scores); authors 0.10.
    beta_select : float
        β₃, fraction of ρ for the noisy L1 errors of the refinement; authors 0.10. The remaining
        1 − β₁ − β₃ pays for the marginals.
    count_share : float
        Fraction of the graph budget for the noisy record count (not in the authors' budget,
        see module docstring); default 0.10.
    theta : float
        θ of θ-usefulness (cell limit n̂/(σθ) of a measured marginal); authors 6.
    t : float
        int(t·d) marginals are selected during refinement; authors 0.8.
    max_clique_size, max_parameter_size : float
        Cell limits of one maximal clique and of all maximal cliques of the (triangulated)
        attribute graph; authors 1e7 and 5e7 (2e5 and 1e6 for their CPU run on ACS).
    size_penalty : float
        Score penalty per cell of the graph; authors 1e-8.
    max_measure_attr_num : int
        Largest number of attributes of a refinement candidate; authors 6.
    max_refine_steps : int
        Refinement steps = min(⌊d/2⌋, this); authors 8.
    norm_query_number : int
        Candidates whose L1 error is queried per step; authors 400.
    estimation_iters : int
        Mirror-descent steps per estimation (rounded up to a multiple of 50); authors 3000.
    convergence_ratio, final_convergence_ratio : float
        Early stop when the loss < ratio × ½Σ|c| (intermediate / last estimation); authors 1.2, 0.7.
    synthetic_method : {"round", "sample"}
        mbi ``synthetic_data`` method (randomised rounding, like the authors, or i.i.d.).
    random_state : int, numpy Generator or None

    Fitted attributes
    -----------------
    ``graph_edges_`` (edges of the triangulated attribute graph, column names),
    ``graph_cliques_`` (its maximal cliques), ``initial_marginals_``, ``selected_marginals_``
    (one list per refinement step), ``measured_cliques_`` (final measurement set),
    ``r_scores_`` (DataFrame d × d of noisy R-scores), ``n_hat_`` (noisy count),
    ``total_`` (estimated number of records), ``sigma_`` (marginal noise std, records),
    ``iterations_`` (mirror-descent steps per estimation), ``model_`` (mbi MarkovRandomField),
    ``ledger`` (entries sum to ρ).

    Raises
    ------
    TypeError, ValueError
        At construction and in ``fit`` for bad parameters (message names the parameter and the
        value): ε ≤ 0, δ ∉ (0, 1), β's not in (0, 1) or β₁ + β₃ ≥ 1, θ ≤ 0, t < 0, limits < 1,
        non-integer counts, unknown ``synthetic_method``.

    Source: Cai et al. (2021), Algorithm 1 (§3 overview, §4 attribute graph, §5 marginal selection
    and refinement); authors' code ``caicre/PrivMRF`` (defaults in ``PrivMRF/main.py``).
    """

    _description = (
        "PrivMRF (Cai et al. 2021): noisy R-score attribute graph, θ-useful Gaussian marginals "
        "chosen by inner Bayesian networks and noisy-L1 refinement, mbi MirrorDescent"
    )
    _accounting = "zcdp"

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-5,
        *,
        domain=None,
        beta_graph: float = 0.1,
        beta_select: float = 0.1,
        count_share: float = 0.1,
        theta: float = 6.0,
        t: float = 0.8,
        max_clique_size: float = 1e7,
        max_parameter_size: float = 5e7,
        size_penalty: float = 1e-8,
        max_measure_attr_num: int = 6,
        max_refine_steps: int = 8,
        norm_query_number: int = 400,
        estimation_iters: int = 3000,
        convergence_ratio: float = 1.2,
        final_convergence_ratio: float = 0.7,
        synthetic_method: str = "round",
        random_state=None,
    ):
        self.beta_graph = beta_graph
        self.beta_select = beta_select
        self.count_share = count_share
        self.theta = theta
        self.t = t
        self.max_clique_size = max_clique_size
        self.max_parameter_size = max_parameter_size
        self.size_penalty = size_penalty
        self.max_measure_attr_num = max_measure_attr_num
        self.max_refine_steps = max_refine_steps
        self.norm_query_number = norm_query_number
        self.estimation_iters = estimation_iters
        self.convergence_ratio = convergence_ratio
        self.final_convergence_ratio = final_convergence_ratio
        self.synthetic_method = synthetic_method
        super().__init__(epsilon, delta, domain=domain, random_state=random_state)

    # -- parameters ---------------------------------------------------------------------------
    def _validate_params(self) -> None:
        super()._validate_params()
        b1 = _real(self.beta_graph, "beta_graph", low=0, high=1, low_open=True, high_open=True)
        b3 = _real(self.beta_select, "beta_select", low=0, high=1, low_open=True, high_open=True)
        if b1 + b3 >= 1:
            raise ValueError(
                f"beta_graph + beta_select must be < 1 (the rest pays for the marginals), got "
                f"beta_graph={self.beta_graph!r} + beta_select={self.beta_select!r} = {b1 + b3!r}"
            )
        _real(self.count_share, "count_share", low=0, high=1, low_open=True, high_open=True)
        _real(self.theta, "theta", low=0, low_open=True)
        _real(self.t, "t", low=0)
        _real(self.max_clique_size, "max_clique_size", low=1)
        _real(self.max_parameter_size, "max_parameter_size", low=1)
        _real(self.size_penalty, "size_penalty", low=0)
        check_positive_int(self.max_measure_attr_num, "max_measure_attr_num")
        check_positive_int(self.max_refine_steps, "max_refine_steps")
        check_positive_int(self.norm_query_number, "norm_query_number")
        check_positive_int(self.estimation_iters, "estimation_iters")
        _real(self.convergence_ratio, "convergence_ratio", low=0)
        _real(self.final_convergence_ratio, "final_convergence_ratio", low=0)
        if self.synthetic_method not in _METHODS:
            raise ValueError(
                f"synthetic_method must be one of {_METHODS}, got {self.synthetic_method!r}"
            )

    # -- fitting ------------------------------------------------------------------------------
    def _fit_codes(self, codes: dict, rng: np.random.Generator) -> None:
        mbi = import_mbi()
        cols = list(self.columns_)
        d = len(cols)
        sizes = [int(self.domain_[c]) for c in cols]
        data = np.column_stack([np.asarray(codes[c], dtype=np.int64) for c in cols])
        self._names = tuple(f"a{i}" for i in range(d))
        self._mbi_domain = mbi.Domain(self._names, tuple(sizes))
        self._data, self._sizes = data, sizes
        rho = self.rho_
        b1, b3 = float(self.beta_graph), float(self.beta_select)
        led = self.ledger

        # ---- 1. attribute graph: noisy count and noisy R-scores ----------------------------
        pairs = list(itertools.combinations(range(d), 2))
        rho_count = float(self.count_share) * b1 * rho
        rho_r = b1 * rho - rho_count if pairs else 0.0
        n_hat = float(
            gaussian(
                float(data.shape[0]),
                sigma=1.0 / math.sqrt(2 * rho_count),
                sensitivity=1.0,
                random_state=rng,
                ledger=led,
                note="record count (sensitivity 1)",
            )
        )
        self.n_hat_ = n_hat
        n_eff = max(n_hat, 1.0)
        r_hat = np.zeros((d, d))
        if pairs:
            stats = r_score_statistics(data, sizes)
            vec = np.array([stats[a, b] for a, b in pairs])
            sens = _R_SENSITIVITY * math.sqrt(len(pairs))
            noisy = gaussian(
                vec,
                sigma=sens / math.sqrt(2 * rho_r),
                sensitivity=sens,
                random_state=rng,
                ledger=led,
                note=f"n*R-score of {len(pairs)} pairs (sensitivity 2 each)",
            )
            for (a, b), v in zip(pairs, np.atleast_1d(noisy), strict=True):
                r_hat[a, b] = r_hat[b, a] = v / n_eff
        self.r_scores_ = pd.DataFrame(r_hat, index=cols, columns=cols)
        graph = _local_search(
            r_hat,
            sizes,
            rng,
            float(self.max_clique_size),
            float(self.max_parameter_size),
            float(self.size_penalty),
        )
        cliques = _maximal_cliques(graph)
        self.graph_edges_ = sorted((cols[a], cols[b]) for a, b in (sorted(e) for e in graph.edges))
        self.graph_cliques_ = [tuple(cols[a] for a in c) for c in cliques]

        # ---- 2. initial marginals (θ-usefulness with the planned noise) --------------------
        theta, t = float(self.theta), float(self.t)
        rho_marg_plan = (1.0 - b1 - b3) * rho
        sigma_plan = math.sqrt((d + t * d) / (2 * rho_marg_plan))
        limit = n_eff / sigma_plan / theta
        initial = _initial_measures(cliques, r_hat, sizes, rng, limit, limit)

        # ---- 3. marginal noise, candidates and the refinement plan -------------------------
        k_de = int(t * d)
        sigma0 = math.sqrt((len(initial) + k_de) / (2 * rho_marg_plan))
        limit_mrf = n_eff / (sigma0 * math.sqrt(2 / math.pi)) / theta
        weights = _candidates(cliques, sizes, limit_mrf, limit_mrf, int(self.max_measure_attr_num))
        k_de = min(k_de, len(weights))
        steps = min(d // 2, int(self.max_refine_steps))
        per = (
            [k_de // steps + (1 if i < k_de - (k_de // steps) * steps else 0) for i in range(steps)]
            if steps
            else []
        )
        while per and per[-1] == 0:
            per.pop()
        left = len(weights)
        query_steps = []
        for k in per:
            query_steps.append(k < left)
            left -= k
        rho_step = b3 * rho / len(per) if per else 0.0
        rho_marg = rho - rho_count - rho_r - rho_step * sum(query_steps)
        n_marg = len(initial) + k_de
        sigma = math.sqrt(n_marg / (2 * rho_marg))
        self.sigma_ = sigma

        # ---- 4. measure, estimate, refine --------------------------------------------------
        self._measured: dict = {}
        self._sigma_of: dict = {}
        for m in initial:
            self._measure(m, sigma, rng)
        self.initial_marginals_ = [tuple(cols[a] for a in m) for m in initial]
        self.iterations_ = []
        model = self._estimate(
            None, float(self.final_convergence_ratio if not per else self.convergence_ratio), 0
        )
        consider = dict(weights)
        self.selected_marginals_ = []
        for i, k in enumerate(per):
            last = i == len(per) - 1
            if query_steps[i]:
                chosen = self._select(consider, k, model, rho_step, rng)
            else:
                chosen = sorted(consider)
            for m in chosen:
                consider.pop(m, None)
                self._measure(m, sigma, rng)
            self.selected_marginals_.append([tuple(cols[a] for a in m) for m in chosen])
            min_it = 3.0 * sum(self.iterations_) / max(i, 1) if last else 0.0
            ratio = float(self.final_convergence_ratio if last else self.convergence_ratio)
            model = self._estimate(model, ratio, min_it)
        self.model_ = model
        self.measured_cliques_ = [tuple(cols[a] for a in m) for m in self._measured]
        del self._data

    def _measure(self, clique, sigma, rng) -> None:
        x = _counts(self._data, self._sizes, clique)
        y = gaussian(
            x,
            sigma=sigma,
            sensitivity=1.0,
            random_state=rng,
            ledger=self.ledger,
            note=f"marginal {tuple(self.columns_[a] for a in clique)} (L2 sensitivity 1)",
        )
        self._measured.pop(clique, None)  # a re-selected marginal replaces the old measurement
        self._measured[clique] = np.atleast_1d(np.asarray(y, dtype=float))
        self._sigma_of[clique] = sigma

    def _total(self) -> float:
        """Inverse-variance average of n̂ and the sums of the noisy marginals (≥ 1)."""
        sigma_n = 1.0 / math.sqrt(2 * float(self.count_share) * float(self.beta_graph) * self.rho_)
        est, w = [self.n_hat_], [1.0 / sigma_n**2]
        for m, y in self._measured.items():
            est.append(float(y.sum()))
            w.append(1.0 / (self._sigma_of[m] ** 2 * y.size))
        return max(1.0, float(np.average(est, weights=w)))

    def _estimate(self, warm, ratio: float, min_it: float):
        """mbi MirrorDescent with the authors' stopping rule (checked every 50 steps)."""
        jax = configure_jax()
        import jax.numpy as jnp

        mbi = import_mbi()
        ms = [
            mbi.LinearMeasurement(y, tuple(self._names[a] for a in m), stddev=self._sigma_of[m])
            for m, y in self._measured.items()
        ]
        total = self._total()
        self.total_ = total
        loss_fn = mbi.marginal_loss.from_linear_measurements(ms, self._mbi_domain)
        est = mbi.estimation.MirrorDescent()
        state = est._init(self._mbi_domain, loss_fn, total, warm_start=warm)
        state = jax.tree.map(jnp.copy, state)
        target = ratio * 0.5 * sum(y.size for y in self._measured.values())
        every = mbi.estimation.CALLBACK_EVERY
        done = 0
        while done < int(self.estimation_iters):
            state = est._multi_step(state, loss_fn, total, ())
            done += every
            if float(state.loss) < target and done > min_it:
                break
        self.iterations_.append(done)
        return est._finalize(state, total)

    def _select(self, consider: dict, k: int, model, rho_step: float, rng) -> list:
        """Noisy top-k of the L1 errors ‖x_c − x̂_c‖₁ (``select_measure``)."""
        items = sorted(consider)
        if len(items) > int(self.norm_query_number):
            w = np.array([consider[m] for m in items])
            idx = rng.choice(
                len(items), size=int(self.norm_query_number), replace=True, p=w / w.sum()
            )
            queried = [items[i] for i in sorted(set(idx.tolist()))]
            if len(queried) < k:  # top up (never seen in practice): heaviest unsampled candidates
                rest = sorted(
                    (m for m in items if m not in set(queried)), key=lambda m: -consider[m]
                )
                queried += rest[: k - len(queried)]
        else:
            queried = items
        fitted = _model_marginals(
            model, self._names, [tuple(self._names[a] for a in m) for m in queried]
        )
        errors = np.array(
            [
                np.abs(_counts(self._data, self._sizes, m) - f).sum()
                for m, f in zip(queried, fitted, strict=True)
            ]
        )
        sens = math.sqrt(len(queried))
        noisy = np.atleast_1d(
            gaussian(
                errors,
                sigma=sens / math.sqrt(2 * rho_step),
                sensitivity=sens,
                random_state=rng,
                ledger=self.ledger,
                note=f"L1 error of {len(queried)} candidate marginals (sensitivity 1 each)",
            )
        )
        order = np.argsort(-noisy, kind="stable")
        chosen = [queried[j] for j in order[:k]]
        for j in order[len(order) // 2 :]:  # lower half of the noisy ranking: weight halved
            m = queried[j]
            if m in consider and m not in chosen:
                consider[m] /= 2.0
        return chosen

    # -- sampling -----------------------------------------------------------------------------
    def _default_n(self) -> int:
        return max(1, int(round(self.total_)))

    def _sample_codes(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        seed = int(rng.integers(2**32))
        with _global_numpy_seed(seed):
            ds = self.model_.synthetic_data(rows=int(n), method=self.synthetic_method).to_dict()
        return pd.DataFrame(
            {
                c: np.asarray(ds[name], dtype=np.int64)
                for c, name in zip(self.columns_, self._names, strict=True)
            }
        )

"""PrivMRF's marginal selection plan: the initial marginals (a greedy Bayesian network with the
correlation-based-feature-selection score inside every maximal clique, under θ-usefulness cell
limits) and the weighted candidates of the iterative refinement.

Source: Cai et al. (PVLDB 2021) [``cai2021``], §5; ``construct_inner_Bayesian_network`` and
``generate_measure_set`` of the authors' code.
"""

from __future__ import annotations

import itertools
import math

from .graph import MIN_SCORE, clique_cells


def maximal_parents(parents: list, limit: float, sizes) -> set:
    """Maximal subsets of ``parents`` whose cell product is ≤ ``limit`` (PrivBayes)."""
    if limit < 1:
        return set()
    if not parents:
        return {()}
    rest = list(parents)
    attr = rest.pop()
    without = maximal_parents(rest, limit, sizes)
    with_attr = maximal_parents(rest, limit / sizes[attr], sizes)
    for ps in with_attr:
        without.discard(ps)
        without.add(tuple(sorted((*ps, attr))))
    return without


def _cfs_score(attr, parents, r_hat, sizes, limit_2way, limit_high) -> float:
    limit = limit_2way if len(parents) == 1 else limit_high
    if clique_cells(sizes, parents) * sizes[attr] > limit:
        return MIN_SCORE
    num = sum(r_hat[attr, p] for p in parents)
    den = len(parents) + sum(r_hat[p, q] for p, q in itertools.combinations(parents, 2))
    return num / math.sqrt(max(den, 1.0))


def _greedy_bayes(clique, r_hat, sizes, rng, limit_2way, limit_high, best_family):
    remaining = list(clique)
    start = remaining.pop(int(rng.integers(len(remaining))))
    parents_set = [start]
    families = []
    while remaining:
        best, best_attr, best_parents = MIN_SCORE, None, ()
        for attr in remaining:
            for ps in sorted(maximal_parents(parents_set, limit_high / sizes[attr], sizes)):
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


def initial_measures(cliques, r_hat, sizes, rng, limit_2way, limit_high) -> list:
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


def candidate_measures(cliques, sizes, limit_2way, limit_high, max_attrs) -> dict:
    """Candidate marginals of the iterative refinement and their weights (``cai2021``, §5).

    As ``generate_measure_set`` of the authors' code: in each maximal clique, every proper
    subset of at most ``max_attrs`` attributes is a candidate if it has one attribute, or two
    with fewer than ``limit_2way`` cells, or more with fewer than ``limit_high`` cells. A
    clique with k attributes and m candidates gives each of them weight k² / m; weights of a
    candidate found in several cliques add up.

    Returns
    -------
    dict
        ``{tuple of attribute indices: weight}``.
    """
    weights: dict = {}
    for clique in cliques:
        found = []
        for length in range(1, min(max_attrs, len(clique) - 1) + 1):
            for m in itertools.combinations(clique, length):
                cells = clique_cells(sizes, m)
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

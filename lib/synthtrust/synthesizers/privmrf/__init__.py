"""PrivMRF: data synthesis via differentially private Markov random fields.

Cai, Lei, Wei, Xiao, "Data synthesis via differentially private Markov random fields",
PVLDB 14(11):2190–2202, 2021. This is a re-implementation written from a reading of the authors'
public code (``caicre/PrivMRF``: ``PrivMRF/main.py``, ``attribute_graph.py``,
``markov_random_field.py``, ``utils/tools.py``) with the authors' default configuration; the
inference engine is the mirror descent of mbi 2.0's ``MirrorDescent`` (Private-PGM), run in numpy
(:meth:`~synthtrust.synthesizers.marginal.PGMFitter.start`), instead of the authors' own
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
   ``max_iter`` [3000] steps, stopping once the loss is below ``convergence_ratio``
   [1.2] × its expected value at the truth, ½Σ|c| (``final_convergence_ratio`` [0.7] in the last
   step, which also runs at least 3× the average number of steps so far).
6. **Synthesis**: records drawn from the fitted MRF column by column along its junction tree
   with randomised rounding, as the authors do (``synthetic_method="round"``: the package's numpy
   sampler, mbi's ``synthetic_data(method="round")`` algorithm; ``"sample"``: mbi's i.i.d.
   ``synthetic_data``).

Differences from the paper and the authors' code (precisely)
-------------------------------------------------------------
* **Inference engine**: the iterates of mbi 2.0 ``MirrorDescent`` up to rounding (Armijo line
  search with step 2/(L·N), ×1.01 per accepted step, ×½ per rejected step; the numpy port of
  :mod:`synthtrust.synthesizers.marginal.mirror_descent`, one marginal oracle call a step and no
  JIT compilation, which in mbi costs seconds per estimation because every estimation has a new
  set of cliques) instead of the authors' cupy mirror descent (step
  2/n̂² reset every iteration, up to 25 halvings). The model's potentials live on the maximal
  subsets of the *measured* cliques (mbi), not on the maximal cliques of the attribute graph;
  because mirror descent only moves potentials along measured marginals, the fitted
  distributions are the same family. Convergence is checked every 50 steps as in the
  authors' code (and mbi's ``CALLBACK_EVERY``). The fitted model is returned as an mbi
  ``MarkovRandomField`` (``model_``).
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
  off by default). GPU code is replaced by numpy and mbi on CPU.
* **Model size**: the authors' defaults ``max_clique_size`` = 1e7 and ``max_parameter_size`` =
  5e7 cells bound the *attribute graph*; mbi's junction tree is built from the measured cliques,
  which θ-usefulness keeps small, so it is far smaller than the graph (adult, ε = 1: a few
  hundred kB). mbi triangulates the measured cliques with its own heuristic, so its tree is not
  guaranteed to be bounded by the graph's cliques. For their CPU dataset (ACS) the authors used
  2e5, 1e6 and ``size_penalty`` 1e-7; pass these to make the search cheaper.
* **Model marginals for the L1 queries** are all read from one calibrated numpy junction tree of
  the fitted model per refinement step (:func:`_tree_marginals`,
  :meth:`~synthtrust.synthesizers.marginal.JunctionTree.clique_marginals`; equal to mbi's
  ``model.project`` to 1e-12), because mbi's JAX ``project`` compiles once per query; a variable
  elimination per query (the previous code) cost 5.7 times more CPU at ε = 10.
* **Smaller junction trees** (:func:`~synthtrust.synthesizers.marginal.elimination.
  small_tree_order`): an elimination order searched for the smallest tree instead of mbi's
  greedy one, with the same selections and steps. The measured runtimes, and how each of these
  choices changed them, are in ``benchmarks/README.md`` (PrivMRF's estimation engine).
* **Memory**: the default sampler (``"round"``) is numpy on the searched tree: on thyroid at
  ε = 10 mbi's JAX sampler peaked at 2.2 GB (16 CPU-s) after a fit that peaked at 0.6 GB. mbi's
  sampler (``"sample"``) leaves JAX programs compiled for the model's shapes (100–200 MB a
  model); PrivMRF clears JAX's caches after it, so fits on one domain after another do not
  accumulate them (a later JAX call compiles its program again).

Randomness: every draw (noise, search order, random first attribute, candidate sampling,
records) comes from the generator built from ``random_state``; mbi's i.i.d. sampler (which uses
numpy's global generator) is seeded with an integer drawn from it inside a context that restores
the global state. Same ``random_state`` ⇒ identical output.
"""

from __future__ import annotations

from .dependency import r_score_statistics
from .estimator import PrivMRF
from .graph import triangulate

__all__ = ["PrivMRF", "r_score_statistics", "triangulate"]

"""Shared machinery of the marginal-based synthesizers :class:`~synthtrust.synthesizers.mst.MST`,
:class:`~synthtrust.synthesizers.aim.AIM` and :class:`~synthtrust.synthesizers.mwem_pgm.MWEMPGM`
(Private-PGM family, McKenna et al.).

Conventions
-----------
* Columns are referred to internally by their position ``0..d-1``; a *clique* is a sorted tuple of
  positions; ``sizes[i]`` is the number of levels of column ``i``; the data is an int64 array
  ``X`` of shape ``(rows, d)`` with ``0 <= X[:, i] < sizes[i]``.
* A marginal over a clique ``(a, b, ...)`` is a count vector of length ``sizes[a]·sizes[b]·...`` in
  C order (last column of the clique varies fastest), as in mbi's ``Factor.datavector()``.
* Neighbouring datasets differ by adding or removing one record (unbounded DP): one marginal has
  L2 (and L1) sensitivity 1; an L1 error ``‖x_c − x̂‖₁`` used as a selection score has sensitivity 1.
* Privacy is accounted in zero-concentrated DP (Bun & Steinke 2016): a Gaussian measurement with
  noise std σ costs ρ = 1/(2σ²), an ε-exponential-mechanism selection costs ε²/8 (Cesar & Rogers
  2021); the total ρ = ``cdp_rho(ε, δ)`` (Canonne, Kamath & Steinke 2020). Every draw goes through
  :func:`synthtrust.privacy.gaussian` / :func:`synthtrust.privacy.exponential_mechanism` with the
  synthesizer's ``PrivacyLedger``.

Pieces (one module each)
------------------------
* :mod:`.counts` — :func:`marginal_counts` / :func:`true_marginal`, exact marginals by
  ``np.bincount`` of raveled codes; :func:`mean_tvd`, mean total-variation distance between the
  marginals of two coded tables.
* :mod:`.measurement` — :class:`Measurement`, :func:`measure`, :func:`total_estimate`,
  :func:`audit_entries` and :class:`AuditViewMixin` (the white-box audit's view of the
  measurements): noisy
  marginals and the minimum-variance estimate of the number of records.
* :mod:`.compress` — :func:`compress_domain`, :func:`compress_codes`, :func:`decompress_codes`:
  MST's private domain compression (McKenna, Miklau & Sheldon, JPC 2021 [``mckenna2021``], §4;
  ``compress_domain`` of the reference ``mst.py`` [``privatepgm2025``]).
* :mod:`.estimate` — :class:`PGMFitter`, Private-PGM estimation (McKenna, Sheldon & Miklau, ICML
  2019, Alg. 1: mirror descent with Armijo line search, as mbi 2.0's ``MirrorDescent``; the
  iteration itself in :mod:`.mirror_descent`) run in numpy or as one jitted program per clique
  structure, with merged repeated measurements, a canonical measurement order and warm starts;
  returns a :class:`FittedModel` (:mod:`.model`). :meth:`PGMFitter.start` sets the numpy
  iteration up to be run in chunks (PrivMRF's stopping rule), :func:`fitted_model` and
  :func:`mbi_model` turn its state into a model and into mbi's ``MarkovRandomField`` (PrivMRF's
  ``model_``). :func:`independent_estimate`: the exact Private-PGM
  estimate from 1-way measurements only.
* :mod:`.junction` — :class:`JunctionTree`, numpy inference on a fitted model (array helpers in
  :mod:`.factors`): calibrated beliefs, the marginal of any clique and of many cliques in one
  pass (:meth:`JunctionTree.marginals`: selection scores), and record
  generation (:mod:`.sample`) by mbi's randomised-rounding algorithm
  (``MarkovRandomField.synthetic_data(method="round")`` of mbi 2.0 [``mbi2026``]), vectorized and
  driven by a numpy ``Generator``.
* :mod:`.elimination` — mbi's greedy elimination order and the junction tree it gives, in pure
  Python, and :func:`~.elimination.small_tree_order`: a randomised search for an order with
  fewer junction-tree cells, which every numpy junction tree (:class:`JunctionTree`, the
  mirror descent) uses when mbi's greedy tree exceeds 2²⁰ cells (PrivMRF's thyroid model at
  ε = 10: 33.5 M → 7.9 M cells, the fit 3.6× cheaper; the marginals are the tree's, up to
  rounding).
* :mod:`.workload`, :mod:`.model_size` — :func:`downward_closure`, :func:`check_workload`,
  :func:`model_size_mb`: AIM / MWEM+PGM helpers.
* :mod:`.budget` — :func:`mst_budget`, :func:`aim_budget`, :func:`mwem_pgm_budget`: the reference
  noise scales.

Speed notes (2-core machine, adult 48 842 × 14): compiling the fit program for a new clique
structure costs ≈ 3–15 CPU-s (mostly XLA compiling mbi's message passing; it grows with the
number of cliques), a structure seen before in the process costs nothing; our mirror-descent step
calls the marginal oracle once (mbi's twice). The numpy backend needs no compilation and, with one
exponential a node and columns laid out by size, costs ≈ 0.4 ms + 18 ns a junction-tree cell a
step against ≈ 30–60 ns a cell for the JAX program, so :func:`choose_backend` picks it for nearly
every fit. Generating 48 842 records takes ≈ 0.05 s here
against ≈ 4 s for mbi's ``synthetic_data`` and ≈ 15–90 s for a first
``mbi.extensions.synthetic_data`` call (JIT; it recompiles for every new ``rows``), with the same
agreement with the model marginals.
"""

from __future__ import annotations

from .budget import aim_budget, mst_budget, mwem_pgm_budget
from .compress import Compression, compress_codes, compress_domain, decompress_codes
from .counts import marginal_counts, mean_tvd, true_marginal
from .estimate import PGMFitter, choose_backend, fitted_model, independent_estimate, mbi_model
from .junction import JunctionTree
from .measurement import AuditViewMixin, Measurement, audit_entries, measure, total_estimate
from .model import FittedModel, expand_potentials
from .model_size import check_model_size, model_size_mb
from .sample import PGMSamplingMixin
from .workload import check_workload, check_workload_param, downward_closure

# ``name as name``: private helpers re-exported for the tests in tests/synthesizers/marginal/ and
# tests/synthesizers/ (MST, AIM, MWEM+PGM)
__all__ = [
    "AuditViewMixin",
    "audit_entries",
    "Compression",
    "FittedModel",
    "JunctionTree",
    "Measurement",
    "PGMFitter",
    "PGMSamplingMixin",
    "aim_budget",
    "check_model_size",
    "check_workload",
    "check_workload_param",
    "choose_backend",
    "compress_codes",
    "compress_domain",
    "decompress_codes",
    "downward_closure",
    "expand_potentials",
    "fitted_model",
    "independent_estimate",
    "marginal_counts",
    "mbi_model",
    "mean_tvd",
    "measure",
    "model_size_mb",
    "mst_budget",
    "mwem_pgm_budget",
    "total_estimate",
    "true_marginal",
]

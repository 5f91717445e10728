"""Differentially private synthesizers for tables of discrete (integer-coded) columns.

Estimators (sklearn style: ``Synth(epsilon=..., domain=..., random_state=...).fit(df).sample(n)``,
``.ledger_``): :class:`PerturbedHistogram`, :class:`SmoothedHistogram`, :class:`MWEM`,
:class:`PrivatePGM`.

Synthesizers for high-dimensional tables (:class:`TabularSynthesizer`: never the joint histogram;
``domain`` may be a :class:`synthtrust.domain.Domain` for raw mixed-type tables):
:class:`PrivBayes`, :class:`MST`, :class:`AIM`, :class:`MWEMPGM`, :class:`PrivMRF`, and the GANs
:class:`GSWGAN`, :class:`PATECTGAN` and :class:`PATEGAN` (torch).

Vectorized functional forms on count matrices ``(reps, cells)`` of the flattened joint domain,
returning synthetic count matrices, with one generator per replicate:
:func:`perturbed_histogram`, :func:`smoothed_histogram`, :func:`mwem_counts` (and :func:`mwem_histogram`),
:func:`private_pgm`.

Non-private generators of the auditing chapter (Houssiau et al. 2022; ``ledger_ is None``):
:class:`IPF` and :class:`PGMMarginals` (fitted to declared marginals; ``.honest``/``.dishonest``)
and :class:`SequentialCART` (synthpop-like ``syn.cart``); :class:`CTGAN` (Xu et al. 2019, torch).

Non-private baselines for mixed-type DataFrames (:mod:`.baselines`): :class:`Flip` (the "flip p"
perturbation of Platzer & Reutterer 2021), :class:`IndependentMarginals`, :class:`Bootstrap`,
:class:`Subsample` (the subsampling baseline of Giles et al. 2022).

:mod:`.pgm` imports JAX/mbi lazily (first use), so importing this package stays cheap.
"""

from .aim import AIM
from .base import (
    BaseSynthesizer,
    NotFittedError,
    counts_to_frame,
    frame_to_counts,
    largest_remainder,
    released_sample,
    replicate_generators,
)
from .baselines import Bootstrap, Flip, IndependentMarginals, Subsample
from .cart import SequentialCART
from .copula import GaussianCopula
from .ctgan import CTGAN
from .gan import GSWGAN
from .histogram import (
    PerturbedHistogram,
    SmoothedHistogram,
    perturbed_histogram,
    smoothed_histogram,
    smoothed_histogram_probabilities,
)
from .ipf import IPF, PGMMarginals
from .mst import MST
from .mwem import MWEM, marginal_queries, mwem_counts, mwem_histogram
from .mwem_pgm import MWEMPGM
from .pate import PATECTGAN, PATEGAN
from .pgm import PrivatePGM, private_pgm
from .privbayes import PrivBayes
from .privmrf import PrivMRF
from .tabular import TabularSynthesizer

__all__ = [
    "AIM",
    "CTGAN",
    "MST",
    "MWEM",
    "MWEMPGM",
    "GSWGAN",
    "GaussianCopula",
    "IPF",
    "BaseSynthesizer",
    "Bootstrap",
    "Flip",
    "IndependentMarginals",
    "NotFittedError",
    "PATECTGAN",
    "PATEGAN",
    "PGMMarginals",
    "PerturbedHistogram",
    "PrivBayes",
    "PrivMRF",
    "PrivatePGM",
    "SequentialCART",
    "SmoothedHistogram",
    "Subsample",
    "TabularSynthesizer",
    "counts_to_frame",
    "frame_to_counts",
    "largest_remainder",
    "released_sample",
    "marginal_queries",
    "mwem_counts",
    "mwem_histogram",
    "perturbed_histogram",
    "private_pgm",
    "replicate_generators",
    "smoothed_histogram",
    "smoothed_histogram_probabilities",
]

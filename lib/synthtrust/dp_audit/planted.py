"""Planted privacy bugs: positive controls of the audit, never synthesizers to use.

Each class breaks its ε claim in one documented way, and each has a correct twin that the audit
must not flag (:class:`~synthtrust.synthesizers.PerturbedHistogram` at the same ε; for
:class:`DomainFromData`, :class:`~synthtrust.synthesizers.PATEGAN` with the public domain):

- bug (a), a non-private generator claiming ε, needs no class of its own: it is the
  :class:`~synthtrust.synthesizers.Bootstrap` baseline audited against any claim (true ε: ∞);
- :class:`SensitivityIgnored` (bug b): the perturbed histogram with Laplace scale 1/ε under
  replace-one neighbours, where two cells change (sensitivity 2): its true ε is 2ε.
- :class:`ReusedNoise` (bug d): the perturbed histogram whose noise is drawn once per process
  and reused by every fit, whatever ``random_state``: its true ε is ∞;
- :class:`DomainFromData` (a PATE-GAN bug, data-dependent pre-processing): PATE-GAN whose
  column levels are read from the training table instead of the public domain: its true ε is ∞.

Their noise goes through :mod:`synthtrust.privacy.mechanisms` and their ledgers record the
(wrong) claim, as a buggy synthesizer's would. Source: the planted bugs of the audit's design,
after the violations found by ``annamalai2024`` and ``ganev2025pate``.
"""

from __future__ import annotations

import numpy as np

from ..privacy.mechanisms import discrete_laplace
from ..synthesizers.histogram import PerturbedHistogram
from ..synthesizers.pate import PATEGAN

__all__ = ["DomainFromData", "ReusedNoise", "SensitivityIgnored"]


class _NoisyHistogram(PerturbedHistogram):
    """The perturbed histogram with the noise of :meth:`_noise` (clipped at 0 as the original)."""

    def _fit_counts(self, counts, n):
        self._noisy = np.maximum(self._noise(counts), 0)


class SensitivityIgnored(_NoisyHistogram):
    """Bug (b): discrete Laplace of scale 1/ε on every cell under replace-one neighbours, whose
    histogram sensitivity is 2 (true ε: 2ε). Parameters as :class:`PerturbedHistogram`."""

    _description = "planted bug: perturbed histogram with sensitivity 1 under replace-one"

    def _noise_scale(self) -> float:
        return 1.0 / float(self.epsilon)

    def _noise(self, counts):
        return discrete_laplace(
            counts,
            sensitivity=1.0,
            epsilon=float(self.epsilon),
            random_state=self._rng,
            ledger=self.ledger_,
            note="planted bug (b)",
        )


#: The noise drawn by the first fit of a :class:`ReusedNoise` in this process, by shape and ε.
_DRAWN: dict = {}


class ReusedNoise(_NoisyHistogram):
    """Bug (d): the perturbed histogram (scale 2/ε) whose noise vector is drawn once per process
    (by shape and ε) and reused by every later fit, whatever ``random_state`` (true ε: ∞).
    Parameters as :class:`PerturbedHistogram`."""

    _description = "planted bug: perturbed histogram reusing one noise draw"

    def _noise(self, counts):
        scale = self._noise_scale()
        key = (counts.shape, scale)
        if key not in _DRAWN:
            _DRAWN[key] = discrete_laplace(np.zeros_like(counts), scale=scale, random_state=0)
        self.ledger_.record(
            mechanism="discrete_laplace",
            epsilon=float(self.epsilon),
            sensitivity=2.0,
            scale=scale,
            note="planted bug (d)",
        )
        return counts + _DRAWN[key]


class DomainFromData(PATEGAN):
    """A planted PATE-GAN bug: the levels of each column are read from the training table
    (``max code + 1``) instead of the public ``domain``, as an encoder fitted on the private data
    would (true ε: ∞ — a table without a level yields synthetic records without it, whatever
    the noise). Parameters as :class:`~synthtrust.synthesizers.PATEGAN`; the ledger records
    the (wrong) PATE claim. Its correct twin is :class:`~synthtrust.synthesizers.PATEGAN` with
    the public domain."""

    _description = "planted bug: PATE-GAN with the domain read from the training table"
    _label = "PATE-GAN (planted bug: domain from the data)"

    def _fit_codes(self, codes, rng):
        self.domain_ = {c: int(v.max()) + 1 for c, v in codes.items()}
        super()._fit_codes(codes, rng)

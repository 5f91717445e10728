"""Shared machinery of the non-DP generators that work on a table of integer codes (the audited
generators of Houssiau et al. 2022: IPF, noise-free Private-PGM, sequential CART): encoding the
training table with the domain, and sampling a code matrix decoded back to a table."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .base import SynthesizerMixin, decode_output, encode_input, frame_to_codes

__all__ = ["CodeTableGenerator"]


class CodeTableGenerator(SynthesizerMixin):
    """Base: ``_codes(X)`` at fit, and :meth:`sample` from the subclass's
    ``_sample_matrix(n, rng) -> int64 array (n, d)`` (fitted ``columns_``, ``n_records_``,
    ``_rng``)."""

    #: these generators never spend a privacy budget
    ledger_ = None
    differentially_private = False

    def _codes(self, X):
        """``(columns, domain, codes)`` of :func:`~synthtrust.synthesizers.base.frame_to_codes`
        for the training table (levels inferred silently: nothing here is private)."""
        X, sizes = encode_input(self.domain, X)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return frame_to_codes(X, sizes)

    def _default_n(self) -> int:
        return self.n_records_

    def sample(self, n: int | None = None) -> pd.DataFrame:
        """Draw ``n`` synthetic records (default: the number of training records).

        Returns
        -------
        pandas.DataFrame, shape (n, n_columns)
            int64 codes with the fitted columns (decoded values when ``domain`` is a Domain).

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        TypeError, ValueError
            ``n`` not an integer ≥ 1.
        """
        n = self._n_rows(n)
        out = self._sample_matrix(n, self._rng)
        codes = pd.DataFrame({c: out[:, i] for i, c in enumerate(self.columns_)})
        return decode_output(self.domain, codes, self._rng)

    def _sample_matrix(self, n: int, rng: np.random.Generator) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

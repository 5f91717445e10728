"""Base class of the synthesizers for high-dimensional tables (MST, AIM, MWEM+PGM, PrivBayes, ...).

Unlike :class:`~synthtrust.synthesizers.base.BaseSynthesizer`, these never form the joint histogram
(adult has ~10¹⁷ cells): they see the data as one int64 code array per column and release noisy
marginals or conditionals.

Domains
-------
The one meaning of the ``domain=`` parameter of every synthesizer that has one
(:class:`TabularSynthesizer` and its subclasses, the joint-histogram
:class:`~synthtrust.synthesizers.base.BaseSynthesizer` family, the non-DP generators of
:mod:`.ipf` and :mod:`.cart`): ``domain`` is either

* a :class:`synthtrust.domain.Domain` (anything with ``columns``, ``sizes``, ``encode(df)`` and
  ``decode(codes, random_state)``): ``fit`` takes the raw mixed-type table and encodes it with
  the *public* domain; ``sample`` decodes back (``domain_`` holds ``Domain.sizes``); or
* a dict ``{column: number of levels}`` for a table that is already integer-coded; or
* None: the levels are inferred from the data (with a ``UserWarning`` where that breaks
  differential privacy; silently for the non-DP generators).

It is validated by :func:`~synthtrust.synthesizers.base.check_domain_param` in ``fit``. The
baselines (:mod:`.baselines`) and :class:`~synthtrust.synthesizers.GaussianCopula` take any
DataFrame as it is and have no ``domain`` parameter.

Estimator conventions (scikit-learn): ``__init__`` only stores its parameters; ``fit`` validates
them from the class's ``_parameter_constraints`` table; fitted attributes end in ``_``
(``ledger_``: :class:`~synthtrust.privacy.PrivacyLedger`).

Neighbouring datasets: add/remove-one unless a subclass says otherwise; the number of records
``n_records_`` is then *not* public, and ``sample()`` without ``n`` returns a DP estimate of it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_delta, check_epsilon, check_random_state, check_random_state_param
from ..privacy.accounting import cdp_rho
from ..privacy.ledger import PrivacyLedger
from .base import (
    SynthesizerMixin,
    card_params,
    check_domain_param,
    decode_output,
    encode_input,
    frame_to_codes,
)

__all__ = ["TabularSynthesizer"]


class TabularSynthesizer(SynthesizerMixin):
    """sklearn-style base: ``Synth(epsilon=, delta=, domain=, random_state=).fit(df).sample(n)``.

    Subclasses implement

    * ``_fit_codes(codes, rng)``: ``codes`` is a dict ``{column: int64 array (rows,)}`` ordered
      like ``self.columns_`` with ``self.domain_`` = ``{column: levels}``; spend the budget and
      record every mechanism call in ``self.ledger_``;
    * ``_sample_codes(n, rng) -> DataFrame`` of int64 codes with the fitted columns
      (post-processing: no budget);
    * optionally ``_default_n()`` (the default number of rows; e.g. a noisy total).

    Parameters are stored by the constructor and validated in :meth:`fit` from
    ``_parameter_constraints``; ``domain`` as in the module docstring.

    Fitted attributes
    -----------------
    ``columns_``, ``domain_`` (``{column: levels}``), ``ledger_``
    (:class:`~synthtrust.privacy.PrivacyLedger`).
    """

    #: short description used by :meth:`card`
    _description = ""

    _parameter_constraints = {
        "epsilon": check_epsilon,
        "delta": check_delta,
        "domain": check_domain_param,
        "random_state": check_random_state_param,
    }

    def __init__(
        self, epsilon: float = 1.0, delta: float = 1e-9, *, domain=None, random_state=None
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.domain = domain
        self.random_state = random_state

    # -- parameters ---------------------------------------------------------------------------

    @property
    def rho_(self) -> float:
        """The zCDP budget ρ = cdp_rho(ε, δ) the mechanism spends (as the Private-PGM mechanisms
        [``privatepgm2025``]; :func:`synthtrust.privacy.cdp_rho`)."""
        return cdp_rho(self.epsilon, self.delta)

    # -- fitting ------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Fit on a table; returns ``self``.

        Parameters
        ----------
        X : pandas.DataFrame
            Raw mixed-type table when ``domain`` is a :class:`synthtrust.domain.Domain`, otherwise
            integer codes ``0..levels-1``.

        Raises
        ------
        TypeError, ValueError
            Bad parameters (ε ≤ 0, δ ∉ (0, 1), ...); for an encoder domain, a column outside the
            domain, an unseen category, NaN without a missing token (see ``Domain.encode``); for a
            dict domain, see :func:`~synthtrust.synthesizers.base.frame_to_codes`.
        """
        self._validate_params()
        columns, domain, codes = frame_to_codes(*encode_input(self.domain, X))
        self.columns_ = list(columns)
        self.domain_ = dict(domain)
        self.ledger_ = PrivacyLedger()
        self._rng = check_random_state(self.random_state)
        self._fit_codes(dict(zip(columns, codes, strict=True)), self._rng)
        self._fitted = True
        return self

    def _fit_codes(self, codes: dict, rng: np.random.Generator) -> None:  # pragma: no cover
        raise NotImplementedError

    # -- sampling -----------------------------------------------------------------------------
    def _default_n(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def sample(self, n: int | None = None) -> pd.DataFrame:
        """Draw ``n`` synthetic records (default: the synthesizer's estimate of the data size).

        Post-processing of the DP release (no budget); with an encoder domain the records are
        decoded to the original column types. Errors as ``BaseSynthesizer.sample``.
        """
        codes = self._sample_codes(self._n_rows(n), self._rng)
        return decode_output(self.domain, codes, self._rng)

    def _sample_codes(self, n: int, rng: np.random.Generator) -> pd.DataFrame:  # pragma: no cover
        raise NotImplementedError

    # -- documentation ------------------------------------------------------------------------
    def card(self) -> dict:
        """A small generator card: name, parameters, domain and the privacy spend."""
        params = card_params(self)
        info = {
            "synthesizer": type(self).__name__,
            "description": self._description,
            "params": params,
        }
        if getattr(self, "_fitted", False):
            info.update(
                domain=self.domain_,
                total_epsilon=self.ledger_.total_epsilon,
                total_delta=self.ledger_.total_delta,
                total_rho=self.ledger_.total_rho,
                ledger_entries=len(self.ledger_),
            )
        return info

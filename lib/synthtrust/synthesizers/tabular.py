"""Base class of the synthesizers for high-dimensional tables (MST, AIM, MWEM+PGM, PrivBayes, ...).

Unlike :class:`~synthtrust.synthesizers.base.BaseSynthesizer`, these never form the joint histogram
(adult has ~10¹⁷ cells): they see the data as one int64 code array per column and release noisy
marginals or conditionals.

Domains
-------
``domain`` is either

* a :class:`synthtrust.domain.Domain` (anything with ``columns``, ``sizes``, ``encode(df)`` and
  ``decode(codes, random_state)``): :meth:`TabularSynthesizer.fit` takes the raw mixed-type table
  and encodes it with the *public* domain; :meth:`~TabularSynthesizer.sample` decodes back; or
* a dict ``{column: number of levels}`` for a table that is already integer-coded; or
* None: the levels are inferred from the data with a ``UserWarning`` (not differentially private).

Neighbouring datasets: add/remove-one unless a subclass says otherwise; the number of records
``n_records_`` is then *not* public, and ``sample()`` without ``n`` returns a DP estimate of it.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._validation import check_delta, check_epsilon, check_random_state
from ..privacy.accounting import cdp_rho
from ..privacy.ledger import PrivacyLedger
from .base import (
    FittedMixin,
    ParamsMixin,
    check_domain,
    check_random_state_param,
    frame_to_codes,
)

__all__ = ["TabularSynthesizer", "check_domain_param", "encode_input", "is_encoder_domain"]


def is_encoder_domain(domain) -> bool:
    """True for a :class:`synthtrust.domain.Domain`-like object (encodes raw tables)."""
    return all(hasattr(domain, attr) for attr in ("columns", "sizes", "encode", "decode"))


def check_domain_param(domain) -> None:
    """Validate a ``domain`` parameter: a :class:`synthtrust.domain.Domain`, a dict
    ``{column: levels}`` (checked) or None; TypeError/ValueError otherwise."""
    if domain is not None and not is_encoder_domain(domain):
        if not isinstance(domain, Mapping):
            raise TypeError(
                "domain must be a synthtrust.domain.Domain, a dict {column: levels} "
                f"or None, got {type(domain).__name__}"
            )
        check_domain(domain)


def encode_input(domain, X) -> tuple[pd.DataFrame, dict | None]:
    """``(codes frame, sizes)`` of a training table: encoded with ``domain`` when it is a
    :class:`synthtrust.domain.Domain`, else ``X`` itself with ``domain`` as the sizes (a dict,
    or None to infer them)."""
    if is_encoder_domain(domain):
        return domain.encode(X), dict(domain.sizes)
    return X, domain


class TabularSynthesizer(ParamsMixin, FittedMixin):
    """sklearn-style base: ``Synth(epsilon=, delta=, domain=, random_state=).fit(df).sample(n)``.

    Subclasses implement

    * ``_fit_codes(codes, rng)``: ``codes`` is a dict ``{column: int64 array (rows,)}`` ordered
      like ``self.columns_`` with ``self.domain_`` = ``{column: levels}``; spend the budget and
      record every mechanism call in ``self.ledger``;
    * ``_sample_codes(n, rng) -> DataFrame`` of int64 codes with the fitted columns
      (post-processing: no budget);
    * optionally ``_default_n()`` (the default number of rows; e.g. a noisy total).

    Fitted attributes
    -----------------
    ``columns_``, ``domain_`` (``{column: levels}``), ``ledger``
    (:class:`~synthtrust.privacy.PrivacyLedger`).
    """

    #: short description used by :meth:`card`
    _description = ""
    #: "zcdp" (ledger in ρ = cdp_rho(ε, δ)) or "pure" (ledger in ε, δ unused)
    _accounting = "zcdp"
    #: True if ``delta=None`` means "choose δ from n at fit time" (e.g. PATE's 1/(n·√n))
    _delta_default_from_n = False

    def __init__(
        self, epsilon: float = 1.0, delta: float = 1e-9, *, domain=None, random_state=None
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.domain = domain
        self.random_state = random_state
        self._validate_params()

    # -- parameters ---------------------------------------------------------------------------
    def _validate_params(self) -> None:
        check_epsilon(self.epsilon)
        delta_from_n = self.delta is None and self._delta_default_from_n  # set at fit time
        if not delta_from_n and (self._accounting == "zcdp" or self.delta != 0):
            check_delta(self.delta)
        check_domain_param(self.domain)
        check_random_state_param(self.random_state)

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
        self.ledger = PrivacyLedger()
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
        if is_encoder_domain(self.domain):
            return self.domain.decode(codes, random_state=self._rng)
        return codes

    def _sample_codes(self, n: int, rng: np.random.Generator) -> pd.DataFrame:  # pragma: no cover
        raise NotImplementedError

    # -- documentation ------------------------------------------------------------------------
    def card(self) -> dict:
        """A small generator card: name, parameters, domain and the privacy spend."""
        params = {k: v for k, v in self.get_params().items() if k not in ("random_state", "domain")}
        info = {
            "synthesizer": type(self).__name__,
            "description": self._description,
            "params": params,
        }
        if getattr(self, "_fitted", False):
            info.update(
                domain=self.domain_,
                total_epsilon=self.ledger.total_epsilon,
                total_delta=self.ledger.total_delta,
                total_rho=self.ledger.total_rho,
                ledger_entries=len(self.ledger),
            )
        return info

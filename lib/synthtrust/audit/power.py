"""The power of the audit: generators that leak a chosen amount, and rejection rates.

:class:`LeakMixture` draws each synthetic record from a *dishonest* generator with probability
``leak`` and from its *honest* twin otherwise, so the synthetic distribution is
``(1 − leak)·P_honest + leak·P_dishonest``. Every statistic of the samples moves linearly in
``leak`` between the honest and the dishonest value: ``leak`` = 0 is a decomposable generator
(the audit's null hypothesis holds and its rejection rate is the Type I error), ``leak`` = 1 the
dishonest one, and in between a leak as small as one wants. :func:`rejection_rate` turns a
series of audit verdicts into a rate with its Clopper–Pearson interval
(:func:`synthtrust.binomial.clopper_pearson`).

This is the chapter's extension of Houssiau et al. (2022) [``houssiau2022``], whose §3.3
motivates the two-step test by power ("the most revealing direction") but does not measure it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import (
    check_generator,
    check_is_fitted,
    check_positive_int,
    check_random_state,
    check_random_state_param,
    check_real_range,
)
from ..binomial import clopper_pearson
from ..synthesizers.base import FittedMixin, ParamsMixin
from .two_step import instantiate

__all__ = ["LeakMixture", "rejection_rate"]


class LeakMixture(ParamsMixin, FittedMixin):
    """A generator that leaks a share ``leak`` of its records from a dishonest generator.

    :meth:`fit` trains a fresh copy of ``honest`` and of ``dishonest`` on the same data (each
    with its own seed drawn from ``random_state``, as :func:`~synthtrust.audit.two_step.instantiate`
    prepares every training of an audit); :meth:`sample` draws ``m ~ Binomial(n,
    leak)`` records from the dishonest fit and ``n − m`` from the honest one, in random order,
    which is ``n`` i.i.d. records of the mixture when both components sample i.i.d.

    Parameters
    ----------
    honest, dishonest : unfitted estimators with ``get_params``, ``fit(frame)``, ``sample(n)``
        E.g. ``IPF.honest(card, cheat, domain=...)`` and ``IPF.dishonest(card, cheat, domain=...)``
        (:mod:`synthtrust.synthesizers.ipf`). Cloned at every :meth:`fit`.
    leak : float in [0, 1]
        Share of the records drawn from ``dishonest``.
    random_state : None, int, SeedSequence or numpy Generator

    Fitted attributes: ``honest_``, ``dishonest_`` (the fitted clones), ``columns_``.

    Raises
    ------
    TypeError, ValueError
        A component without ``get_params``/``fit``/``sample``; ``leak`` not a real in [0, 1].

    Examples
    --------
    >>> from synthtrust.synthesizers import IPF
    >>> import pandas as pd
    >>> sizes = {"a": 2, "b": 2, "c": 2}
    >>> gen = LeakMixture(IPF.honest([("a", "b"), ("b", "c")], domain=sizes),
    ...                   IPF.dishonest([("a", "b"), ("b", "c")], ("a", "b", "c"), domain=sizes),
    ...                   leak=0.1, random_state=0)
    >>> data = pd.DataFrame({"a": [0, 1, 1, 0], "b": [0, 1, 0, 1], "c": [1, 1, 0, 0]})
    >>> gen.fit(data).sample(5).shape
    (5, 3)
    """

    def __init__(self, honest, dishonest, leak: float = 0.0, *, random_state=None):
        self.honest = honest
        self.dishonest = dishonest
        self.leak = leak
        self.random_state = random_state
        self._validate_params()

    def _validate_params(self) -> None:
        check_generator(self.honest, "honest")
        check_generator(self.dishonest, "dishonest")
        check_real_range(self.leak, "leak", 0.0, 1.0, low_open=False, high_open=False)
        check_random_state_param(self.random_state)

    def fit(self, X, y=None):
        """Fit both components to ``X``; returns ``self``."""
        self._validate_params()
        rng = check_random_state(self.random_state)
        self.honest_, self.dishonest_ = (
            instantiate(component, int(rng.integers(2**31 - 1))).fit(X)
            for component in (self.honest, self.dishonest)
        )
        self.columns_ = list(X.columns)
        self._rng = rng
        self._fitted = True
        return self

    def sample(self, n: int) -> pd.DataFrame:
        """``n`` records of the mixture (a DataFrame with the training columns).

        Raises
        ------
        NotFittedError
            Before :meth:`fit` (an ``AttributeError`` and a ``ValueError``).
        TypeError, ValueError
            ``n`` not an integer ≥ 1.
        """
        check_is_fitted(self)
        n = check_positive_int(n, "n")
        m = int(self._rng.binomial(n, float(self.leak)))
        parts = [
            gen.sample(k)[self.columns_]
            for gen, k in ((self.honest_, n - m), (self.dishonest_, m))
            if k > 0
        ]
        frame = pd.concat(parts, ignore_index=True)
        return frame.iloc[self._rng.permutation(len(frame))].reset_index(drop=True)


def rejection_rate(rejected, confidence: float = 0.95):
    """The share of rejected audits and its Clopper–Pearson interval.

    Parameters
    ----------
    rejected : array-like of bool, shape (n_audits,)
        The verdicts of independent audits.
    confidence : float in (0, 1)

    Returns
    -------
    (rate, low, high) : tuple of float
        ``k/n`` and its Clopper–Pearson interval (:func:`synthtrust.binomial.clopper_pearson`).

    Raises
    ------
    ValueError
        No verdicts.
    """
    rejected = np.asarray(rejected, dtype=bool).ravel()
    if rejected.size == 0:
        raise ValueError("rejected is empty; pass the verdicts of at least one audit")
    k, n = int(rejected.sum()), int(rejected.size)
    low, high = clopper_pearson(k, n, confidence)
    return k / n, float(low), float(high)

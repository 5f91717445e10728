"""Non-private baselines for fidelity/privacy assessments: :class:`Flip`,
:class:`IndependentMarginals`, :class:`Bootstrap`, :class:`Subsample`.

They work on any mixed-type ``pandas.DataFrame`` (numbers, text, booleans, categories, missing
values): every synthetic value is a value of the same training column, so dtypes are kept and
NaN is an ordinary value that can be drawn.

**None of them is differentially private.** They release training values or whole training
records. They are reference points: ``Bootstrap`` and ``Flip`` with a small ``p`` are copies
that a holdout-based privacy check must flag (share of synthetic records closer to training
than to holdout ≫ 50 %); ``IndependentMarginals`` (= ``Flip(1.0)``) keeps every 1-way
distribution and destroys all association. They have no privacy ledger (``ledger_ is None``)
and ``card()`` says "not DP". They take any DataFrame as it is and have no ``domain`` parameter
(its meaning elsewhere: :mod:`synthtrust.synthesizers.tabular`); parameters are validated by
:meth:`~_Baseline.fit`.

Source: Platzer & Reutterer (2021), "Holdout-based empirical assessment of mixed-type synthetic
data" [``platzer2021``], Sec. 4 ("flip X %" perturbations), and their
``synthesizers/perturbate.R`` [``mostlyai2024``]; :class:`Subsample` is the subsampling baseline
of Giles et al. (2022)
[``giles2022``], App. A and Fig. 6.

Interface (sklearn style, like the DP synthesizers)::

    Flip(0.1, random_state=0).fit(train).sample(50_000)   # -> DataFrame like train
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import (
    check_is_fitted,
    check_positive_int,
    check_random_state,
    check_random_state_param,
    real_in,
)
from .base import SynthesizerMixin, not_dp_card

__all__ = ["Bootstrap", "Flip", "IndependentMarginals", "Subsample"]

_NOT_DP = (
    "not DP: the output consists of values (or whole records) of the training data; "
    "there is no privacy guarantee and no privacy budget"
)


class _Baseline(SynthesizerMixin):
    """Shared machinery: parameters, fit (store the training table), sampling, card."""

    #: one-line description used by :meth:`card`
    _description = ""
    #: these baselines never spend a privacy budget; there is no ledger to sum
    ledger_ = None
    #: for code that lists synthesizers: baselines are not differentially private
    differentially_private = False
    _parameter_constraints = {"random_state": check_random_state_param}

    def __init__(self, *, random_state=None):
        self.random_state = random_state

    # -- fitting ------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Remember the training table; returns ``self``.

        Parameters
        ----------
        X : pandas.DataFrame, shape (n_records, n_columns)
            Any column types; missing values allowed. A 2-D array is turned into a DataFrame.
        y : ignored

        Raises
        ------
        TypeError
            ``X`` is not a DataFrame or 2-D array.
        ValueError
            ``X`` has no rows or no columns.
        """
        self._validate_params()
        if not isinstance(X, pd.DataFrame):
            arr = np.asarray(X) if not np.isscalar(X) else None
            if arr is None or arr.ndim != 2:
                raise TypeError(
                    f"X must be a pandas DataFrame (or a 2-D array), got {type(X).__name__}"
                )
            X = pd.DataFrame(arr)
        if X.shape[1] == 0:
            raise ValueError("X has no columns; at least one column is needed")
        if X.shape[0] == 0:
            raise ValueError(f"X has no rows (columns {list(X.columns)}); nothing to sample from")
        # copy-on-write (pandas 3): later changes to the caller's frame do not reach us
        self.data_ = X.reset_index(drop=True)
        self.columns_ = list(X.columns)
        self.n_records_ = int(X.shape[0])
        self._rng = check_random_state(self.random_state)
        self._fitted = True
        return self

    # -- sampling -----------------------------------------------------------------------------
    def sample(self, n: int | None = None) -> pd.DataFrame:
        """Draw ``n`` synthetic records (default: the number of training records).

        Returns
        -------
        pandas.DataFrame, shape (n, n_columns)
            The training columns with their dtypes, a fresh RangeIndex.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        TypeError, ValueError
            ``n`` not an integer ≥ 1.
        """
        check_is_fitted(self)
        n = self.n_records_ if n is None else check_positive_int(n, "n")
        return self._sample(n, self._rng)

    def _sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:  # pragma: no cover
        raise NotImplementedError

    def _take(self, index_per_column) -> pd.DataFrame:
        """The frame whose column j holds training column j at the row positions
        ``index_per_column[j]`` (dtypes kept; duplicate column names kept)."""
        data = self.data_
        parts = {
            j: data.iloc[:, j].take(idx).reset_index(drop=True)
            for j, idx in enumerate(index_per_column)
        }
        out = pd.DataFrame(parts)
        out.columns = data.columns
        return out

    # -- documentation ------------------------------------------------------------------------
    def card(self) -> dict:
        """A small generator card: name, description, parameters and the privacy status."""
        params = {k: v for k, v in self.get_params(deep=False).items() if k != "random_state"}
        return not_dp_card(
            self,
            _NOT_DP,
            params,
            lambda: {"n_records": self.n_records_, "columns": list(self.columns_)},
        )


class Flip(_Baseline):
    """The "flip p" perturbation of Platzer & Reutterer (2021): training records with a share
    ``p`` of their cells replaced by random training values of the same column.

    ``sample(n)``, as ``flip(dt, n, prob)`` in the paper's ``synthesizers/perturbate.R``:

    1. rows: if ``n > n_train``, ``n`` rows drawn uniformly with replacement (bootstrap);
       otherwise the **first** ``n`` training rows, in order (the paper's training halves are
       in random order; shuffle your data first if its order means something);
    2. then, for every column independently, each cell is with probability ``p`` replaced by a
       value drawn uniformly with replacement from that column's ``n_train`` training values
       (it may draw the value it replaces; NaN is a value like any other).

    A cell therefore changes with probability ``p·(1 − f_v)`` where ``f_v`` is the training
    frequency of its value ``v``; for ``n = n_train`` the expected share of changed cells of a
    column is ``p·(1 − Σ_v f_v²)``. ``p = 0`` returns the first ``n`` rows unchanged; ``p = 1``
    gives independent draws from each column's marginal (like :class:`IndependentMarginals`).
    The paper's baselines are ``p = 0.1, …, 0.9`` with ``n = 50 000``.

    Parameters
    ----------
    p : float in [0, 1]
        Probability that a cell is redrawn.
    random_state : None, int, SeedSequence or numpy Generator
        Seeds the generator created at :meth:`fit`; successive ``sample`` calls continue its
        stream.

    Not differentially private (see the module docstring): ``ledger_ is None``.

    Raises
    ------
    TypeError
        ``p`` not a real number; ``random_state`` of another type.
    ValueError
        ``p`` outside [0, 1] or NaN.
    """

    _description = (
        "flip p: the first n training records (bootstrap if n > n_train), each cell replaced "
        "with probability p by a random value of its training column (Platzer & Reutterer 2021)"
    )

    _parameter_constraints = {**_Baseline._parameter_constraints, "p": real_in(0, 1)}

    def __init__(self, p: float, *, random_state=None):
        self.p = p
        super().__init__(random_state=random_state)

    def _sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        n_train = self.n_records_
        p = float(self.p)
        if n > n_train:
            rows = rng.integers(0, n_train, size=n)
        else:
            rows = np.arange(n)
        index = []
        for _ in range(len(self.columns_)):
            flips = rng.random(n) < p
            idx = rows.copy()
            idx[flips] = rng.integers(0, n_train, size=int(flips.sum()))
            index.append(idx)
        return self._take(index)


class IndependentMarginals(_Baseline):
    """Every column sampled independently, with replacement, from its training values.

    Keeps each column's empirical distribution (including the share of missing values) and
    destroys every association between columns: the output is a sample of the product of the
    training marginals. The same as ``Flip(1.0)`` in distribution.

    Parameters
    ----------
    random_state : None, int, SeedSequence or numpy Generator

    Not differentially private: every value is a training value (``ledger_ is None``).
    """

    _description = "each column drawn independently with replacement from its training values"

    def __init__(self, *, random_state=None):
        super().__init__(random_state=random_state)

    def _sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        n_train = self.n_records_
        return self._take([rng.integers(0, n_train, size=n) for _ in self.columns_])


class Bootstrap(_Baseline):
    """Training records resampled uniformly with replacement (a bootstrap copy).

    Every synthetic record is a training record: the worst case for privacy and the best
    attainable fidelity up to sampling noise; a holdout-based check must flag it.

    Parameters
    ----------
    random_state : None, int, SeedSequence or numpy Generator

    Not differentially private: it releases training records (``ledger_ is None``).
    """

    _description = "training records drawn uniformly with replacement"

    def __init__(self, *, random_state=None):
        super().__init__(random_state=random_state)

    def _sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        rows = rng.integers(0, self.n_records_, size=n)
        return self._take([rows] * len(self.columns_))


class Subsample(_Baseline):
    """A random share of the training records, drawn without replacement (a real subsample).

    The subsampling baseline of Giles et al. (2022) [``giles2022``], App. A and Fig. 6: the model
    is refitted on ``df.sample(frac=fraction, replace=False)`` of the real data ("1 %–10 %") and
    its feature importance compared with the full data's; how close a synthesizer comes to that
    says how much of the real data its output is "worth".

    ``sample(n=None)``: ``n`` distinct training records, every subset of size ``n`` equally likely
    (each record is included with probability n/N), in random order, with a fresh RangeIndex.
    Without ``n`` the natural size ``max(1, round(fraction·N))`` is used, N = training rows and
    ``round`` Python's (halves to even), the rounding of ``pandas.DataFrame.sample(frac=)``; the
    ``max`` keeps at least one row where pandas would return none. Each call draws a new subsample
    (the generator's stream continues).

    Parameters
    ----------
    fraction : float in (0, 1]
        Share of the training records; 1 returns all of them in random order.
    random_state : None, int, SeedSequence or numpy Generator

    Not differentially private: it releases training records unchanged (``ledger_ is None``).

    Raises
    ------
    TypeError
        ``fraction`` not a real number; ``random_state`` of another type.
    ValueError
        ``fraction`` outside (0, 1] or not finite; in :meth:`sample`, ``n`` above the number of
        training records (a subsample without replacement cannot be larger).
    """

    _description = (
        "a share `fraction` of the training records, drawn without replacement "
        "(subsampling baseline of Giles et al. 2022, App. A)"
    )

    _parameter_constraints = {
        **_Baseline._parameter_constraints,
        "fraction": real_in(0, 1, low_open=True),
    }

    def __init__(self, fraction: float, *, random_state=None):
        self.fraction = fraction
        super().__init__(random_state=random_state)

    @property
    def n_subsample_(self) -> int:
        """The natural subsample size max(1, round(fraction·N)) (after :meth:`fit`)."""
        check_is_fitted(self)
        return max(1, round(float(self.fraction) * self.n_records_))

    def sample(self, n: int | None = None) -> pd.DataFrame:
        """A subsample of ``n`` distinct training records (default :attr:`n_subsample_`).

        Returns
        -------
        pandas.DataFrame, shape (n, n_columns)
            Training records (dtypes kept), random order, a fresh RangeIndex.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        TypeError, ValueError
            ``n`` not an integer ≥ 1, or larger than the number of training records.
        """
        check_is_fitted(self)
        if n is None:
            n = self.n_subsample_
        n = check_positive_int(n, "n")
        if n > self.n_records_:
            raise ValueError(
                f"n must be <= the number of training records ({self.n_records_}) for a subsample "
                f"without replacement, got {n}"
            )
        return self._sample(n, self._rng)

    def _sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        rows = rng.choice(self.n_records_, size=n, replace=False)
        return self._take([rows] * len(self.columns_))

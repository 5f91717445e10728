"""Shared machinery of the synthesizers: domains, count matrices, per-replicate generators, the
sklearn-style base class, and largest-remainder rounding.

Conventions
-----------
* A table is a ``pandas.DataFrame`` of **integer-coded discrete columns** (code ``v`` of a column with
  ``k`` levels is in ``0..k-1``), together with a **domain** ``{column: k}``. The domain is public
  information; it must not be derived from the private data (inferring it from the data, which the
  synthesizers allow with a warning, is *not* differentially private). The estimators' ``domain=``
  parameter has one meaning everywhere (a :class:`synthtrust.domain.Domain` encoder, a dict of
  levels, or None): see :mod:`synthtrust.synthesizers.tabular`.
* Estimators follow scikit-learn: ``__init__`` only stores its parameters; :meth:`fit` validates
  them from the class's ``_parameter_constraints`` table (``{parameter: check(value, name)}``);
  fitted attributes end in ``_`` (``ledger_``).
* The joint histogram of a table is flattened in C order over the columns *in the order of the
  DataFrame's columns*: cell index = ``numpy.ravel_multi_index(codes, shape)``.
* The vectorized functional forms take a count matrix of shape ``(reps, cells)`` — one flattened joint
  histogram per Monte Carlo replicate — and ``random_state`` as an int, a Generator, or a sequence
  of one Generator per replicate. With a sequence, replicate ``i`` draws only from its own
  generator, so results do not depend on how the replicates are chunked. A single int/Generator is
  used sequentially, replicate by replicate.
* Neighbouring datasets: replace-one (bounded DP, n public), as in Montoya Perez et al. (2024).
"""

from __future__ import annotations

import inspect
import itertools
import numbers
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from .._validation import (
    NotFittedError,
    check_domain,
    check_epsilon,
    check_int_range,
    check_is_fitted,
    check_positive_int,
    check_random_state,
    check_random_state_param,
)
from ..privacy.ledger import PrivacyLedger

__all__ = [
    "BaseSynthesizer",
    "NotFittedError",
    "as_count_matrix",
    "check_cliques_param",
    "check_domain_param",
    "check_shape",
    "counts_to_frame",
    "decode_output",
    "domain_sizes",
    "encode_input",
    "frame_to_codes",
    "frame_to_counts",
    "is_encoder_domain",
    "largest_remainder",
    "released_sample",
    "replicate_generators",
]


# --------------------------------------------------------------------------------------------
# domains and shapes
# --------------------------------------------------------------------------------------------
def is_encoder_domain(domain) -> bool:
    """True for a :class:`synthtrust.domain.Domain`-like object (encodes raw tables)."""
    return all(hasattr(domain, attr) for attr in ("columns", "sizes", "encode", "decode"))


def check_domain_param(domain, name: str = "domain") -> None:
    """Validate a ``domain`` parameter: a :class:`synthtrust.domain.Domain`, a dict
    ``{column: levels}`` (checked) or None; TypeError/ValueError naming ``name`` otherwise."""
    if domain is None or is_encoder_domain(domain):
        return
    if not isinstance(domain, Mapping):
        raise TypeError(
            f"{name} must be a synthtrust.domain.Domain, a dict {{column: levels}} "
            f"or None, got {type(domain).__name__}"
        )
    if len(domain) == 0:
        raise ValueError(f"{name} is empty; give {{column: number of levels}} for every column")
    for col, k in domain.items():
        check_int_range(k, f"{name}[{col!r}]", 1)


def domain_sizes(domain) -> dict | None:
    """``{column: levels}`` of a ``domain`` parameter (an encoder's ``sizes``, a dict, or None)."""
    return dict(domain.sizes) if is_encoder_domain(domain) else domain


def encode_input(domain, X) -> tuple[pd.DataFrame, dict | None]:
    """``(codes frame, sizes)`` of a training table: encoded with ``domain`` when it is a
    :class:`synthtrust.domain.Domain`, else ``X`` itself with ``domain`` as the sizes (a dict,
    or None to infer them)."""
    if is_encoder_domain(domain):
        return domain.encode(X), domain_sizes(domain)
    return X, domain


def decode_output(domain, codes: pd.DataFrame, rng) -> pd.DataFrame:
    """Synthetic codes decoded with ``domain`` when it is a :class:`synthtrust.domain.Domain`
    (drawing from ``rng`` where a column's decoding is random), else ``codes`` itself."""
    if is_encoder_domain(domain):
        return domain.decode(codes, random_state=rng)
    return codes


def check_shape(shape, cells: int | None = None) -> tuple[int, ...]:
    """Validate the domain shape of a flattened joint histogram (tuple of level counts ≥ 1).

    Raises ValueError if ``cells`` is given and differs from the product of the shape.
    """
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, Sequence) or isinstance(shape, str) or len(shape) == 0:
        raise TypeError(f"shape must be a non-empty tuple of level counts, got {shape!r}")
    shape = tuple(check_int_range(k, f"shape[{i}]", 1) for i, k in enumerate(shape))
    if cells is not None and int(np.prod(shape, dtype=np.int64)) != cells:
        raise ValueError(
            f"shape {shape} has {int(np.prod(shape, dtype=np.int64))} cells but the counts have {cells} columns"
        )
    return shape


def as_count_matrix(counts, name: str = "counts") -> tuple[np.ndarray, bool]:
    """Return ``(int64 array of shape (reps, cells), was_1d)`` from a 1-D or 2-D count array.

    Raises
    ------
    TypeError
        Non-numeric input.
    ValueError
        Not 1-D/2-D, no cells or no replicates, NaN/inf, negative or non-integral counts, or a
        replicate with total 0 (an empty dataset).
    """
    try:
        arr = np.asarray(counts, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array of counts: {exc}") from None
    was_1d = arr.ndim == 1
    if was_1d:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{name} must have shape (cells,) or (reps, cells), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if np.any(arr < 0) or np.any(arr != np.rint(arr)):
        raise ValueError(f"{name} must hold non-negative integer counts")
    out = arr.astype(np.int64)
    empty = np.flatnonzero(out.sum(axis=1) == 0)
    if empty.size:
        raise ValueError(
            f"{name} has replicates with no records (rows {empty[:5].tolist()}); the data is empty"
        )
    return out, was_1d


def replicate_generators(random_state, n_reps: int) -> list[np.random.Generator]:
    """One Generator per replicate.

    ``random_state`` may be None, an int, a SeedSequence or a Generator (then the same generator is
    used for every replicate, sequentially), or a sequence of exactly ``n_reps`` such values (one
    per replicate; this makes results independent of chunking).

    Raises
    ------
    ValueError
        A sequence whose length differs from ``n_reps``.
    TypeError
        Anything else.
    """
    if isinstance(random_state, (list, tuple)):
        if len(random_state) != n_reps:
            raise ValueError(
                f"random_state has {len(random_state)} generators but there are {n_reps} replicates; "
                "give one per replicate (or a single int/Generator)"
            )
        return [check_random_state(r) for r in random_state]
    rng = check_random_state(random_state)
    return [rng] * n_reps


# --------------------------------------------------------------------------------------------
# tables <-> counts
# --------------------------------------------------------------------------------------------
def frame_to_codes(X, domain) -> tuple[list, dict, list[np.ndarray]]:
    """Validate a table of integer codes and return ``(columns, domain, codes)``.

    Parameters
    ----------
    X : pandas.DataFrame
        Integer codes (integer, boolean, or float dtype with integral values).
    domain : dict or None
        ``{column: levels}`` for exactly the columns of ``X``. None infers ``max + 1`` per column
        with a ``UserWarning`` (not differentially private: the domain leaks the maximum).

    Returns
    -------
    columns : list
    domain : dict ordered like ``columns``
    codes : list of int64 arrays, one per column, each of shape (rows,)

    Raises
    ------
    TypeError
        ``X`` not a DataFrame; a non-numeric column.
    ValueError
        No rows or no columns; duplicated column names; NaN; non-integral values; a code outside
        ``0..levels-1``.
    """
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"X must be a pandas DataFrame of integer codes, got {type(X).__name__}")
    if X.shape[1] == 0:
        raise ValueError("X has no columns")
    if X.shape[0] == 0:
        raise ValueError("X has no rows: cannot fit a synthesizer to empty data")
    columns = list(X.columns)
    if len(set(columns)) != len(columns):
        raise ValueError(f"X has duplicated column names: {columns}")
    codes = [_column_codes(X[col], col) for col in columns]
    if domain is None:
        domain = {col: int(v.max()) + 1 for col, v in zip(columns, codes, strict=True)}
        warnings.warn(
            f"domain inferred from the data as {domain}: this is NOT differentially private (it "
            "reveals the largest code of each column); pass the public domain= instead",
            UserWarning,
            stacklevel=3,
        )
    domain = check_domain(domain, columns)
    for col, v in zip(columns, codes, strict=True):
        lo, hi = int(v.min()), int(v.max())
        if lo < 0 or hi >= domain[col]:
            bad = lo if lo < 0 else hi
            raise ValueError(
                f"column {col!r} has code {bad}, outside the domain 0..{domain[col] - 1}"
            )
    return columns, domain, codes


def _column_codes(s: pd.Series, col) -> np.ndarray:
    if s.isna().any():
        raise ValueError(
            f"column {col!r} has {int(s.isna().sum())} missing value(s) (NaN); "
            "encode missing values as their own level first (synthtrust.domain)"
        )
    if pd.api.types.is_bool_dtype(s):
        return s.to_numpy(dtype=np.int64)
    if not pd.api.types.is_numeric_dtype(s):
        raise TypeError(
            f"column {col!r} has dtype {s.dtype}; encode it as integer codes 0..levels-1 "
            "first (e.g. with synthtrust.domain)"
        )
    values = s.to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values != np.rint(values))
    if bad.any():
        raise ValueError(
            f"column {col!r} has non-integer value {values[bad][0]!r}; "
            "synthesizers need integer codes 0..levels-1"
        )
    return values.astype(np.int64)


def frame_to_counts(X, domain) -> tuple[list, dict, np.ndarray]:
    """Validate a table of integer codes (see :func:`frame_to_codes`) and return
    ``(columns, domain, flat joint counts)``; the counts have shape ``(prod(levels),)``, C order over
    the columns of ``X``."""
    columns, domain, codes = frame_to_codes(X, domain)
    shape = tuple(domain.values())
    flat = np.ravel_multi_index(tuple(codes), shape)
    counts = np.bincount(flat, minlength=int(np.prod(shape, dtype=np.int64))).astype(np.int64)
    return columns, domain, counts


def counts_to_frame(counts, shape, columns, random_state=None) -> pd.DataFrame:
    """Records (int64 codes) of a flattened joint histogram, in random order.

    ``counts`` (cells,) non-negative integers; returns a DataFrame with ``counts.sum()`` rows and the
    given columns.
    """
    counts = np.asarray(counts, dtype=np.int64)
    rng = check_random_state(random_state)
    cells = np.repeat(np.arange(counts.size), counts)
    rng.shuffle(cells)
    coords = np.unravel_index(cells, tuple(shape))
    return pd.DataFrame(
        {col: np.asarray(c, dtype=np.int64) for col, c in zip(columns, coords, strict=True)}
    )


# --------------------------------------------------------------------------------------------
# rounding
# --------------------------------------------------------------------------------------------
def largest_remainder(weights, totals, tie_breaker) -> np.ndarray:
    """Round ``totals * weights / weights.sum()`` to integers summing exactly to ``totals`` (rowwise).

    Largest-remainder (Hamilton) method: every cell gets the integer part of its quota; the
    ``total − Σ floor`` leftover units go to the cells with the largest fractional parts. Ties in
    the fractional part are broken by ``tie_breaker`` (uniform numbers, one per cell; a random
    tie-break avoids favouring low cell indices, e.g. one group of a two-group table). A row with
    all-zero weights is treated as uniform.

    Parameters
    ----------
    weights : array (reps, cells) or (cells,), non-negative
    totals : int or array (reps,) of non-negative ints
    tie_breaker : array of the shape of ``weights``

    Returns
    -------
    ndarray int64 of the shape of ``weights``; each row sums to its total.
    """
    w = np.asarray(weights, dtype=float)
    one_d = w.ndim == 1
    w = np.atleast_2d(w)
    if np.any(~np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and non-negative")
    u = np.asarray(tie_breaker, dtype=float).reshape(w.shape)
    totals = np.broadcast_to(np.asarray(totals, dtype=np.int64), (w.shape[0],))
    if np.any(totals < 0):
        raise ValueError("totals must be non-negative")
    s = w.sum(axis=1, keepdims=True)
    zero = s[:, 0] == 0
    if zero.any():
        w = w.copy()
        w[zero] = 1.0
        s = w.sum(axis=1, keepdims=True)
    quota = w / s * totals[:, None]
    base = np.floor(quota)
    frac = quota - base
    base = base.astype(np.int64)
    left = totals - base.sum(axis=1)  # in [0, cells) up to floating-point rounding
    order = np.lexsort((u, -frac), axis=-1)  # largest fraction first, random among ties
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(w.shape[1])[None, :].repeat(w.shape[0], 0), axis=1)
    out = base + (rank < np.maximum(left, 0)[:, None])
    # floating-point safety: if the floors overshoot, take units back from the smallest fractions
    over = -np.minimum(left, 0)
    if over.any():
        for i in np.flatnonzero(over):
            idx = [j for j in order[i][::-1] if out[i, j] > 0][: over[i]]
            out[i, idx] -= 1
    return out[0] if one_d else out


# --------------------------------------------------------------------------------------------
# base estimator
# --------------------------------------------------------------------------------------------
class ParamsMixin(BaseEstimator):
    """scikit-learn's ``BaseEstimator`` (``get_params``, ``clone``, the notebook display) whose
    parameters are validated: :meth:`set_params` re-validates, and ``fit`` calls
    ``_validate_params``, which walks the class's ``_parameter_constraints`` table
    ``{parameter: check(value, name)}`` (one entry per constructor parameter; a subclass
    extends its parent's table with ``{**Parent._parameter_constraints, ...}``), then runs
    ``_check_param_relations`` for the rules that involve several parameters. The checkers are
    those of ``synthtrust._validation`` (errors that name the parameter and the value), not
    scikit-learn's constraint objects. The ``repr`` shows every constructor parameter.
    """

    #: {constructor parameter: checker(value, name) raising TypeError/ValueError naming it}
    _parameter_constraints: dict = {}

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """The constructor's parameters in its order (scikit-learn sorts them), so that
        ``get_params``, the ``repr`` and the generator cards list them as the signature does."""
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def set_params(self, **params):
        """Set constructor parameters (validated); returns self."""
        valid = set(self._get_param_names())
        for key, value in params.items():
            if key not in valid:
                raise ValueError(
                    f"invalid parameter {key!r} for {type(self).__name__}; valid: {sorted(valid)}"
                )
            setattr(self, key, value)
        self._validate_params()
        return self

    def __repr__(self, N_CHAR_MAX: int = 700) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params(deep=False).items())
        return f"{type(self).__name__}({args})"

    def _validate_params(self) -> None:
        """Check every parameter against ``_parameter_constraints``, then the relations."""
        for name, check in self._parameter_constraints.items():
            check(getattr(self, name), name)
        self._check_param_relations()

    def _check_param_relations(self) -> None:
        """Rules between parameters that the per-parameter table cannot say (none here)."""


def released_sample(synth, n: int) -> pd.DataFrame:
    """A fitted synthesizer's sample with a size its neighbouring relation allows.

    Under add/remove neighbours (``synth.neighbouring == "add_remove"``) the number of records
    is private, so asking for exactly ``n`` = the real size would release it: the sample is
    ``synth.sample()``, the synthesizer's own size (the package's add/remove synthesizers draw
    their noisy total, a DP estimate of n). Otherwise (replace-one: n public; a generator that
    is not DP) it is ``synth.sample(n)``.

    Parameters
    ----------
    synth : fitted synthesizer with ``sample(n=None)`` and optionally ``neighbouring``
    n : int ≥ 1
        The public size to ask for when the relation allows it.

    Returns
    -------
    DataFrame, shape (``n`` or the synthesizer's own size, n_columns)

    Source: post-processing of a DP release is DP (Dwork & Roth 2014 [``dwork2014``],
    Prop. 2.1); issue 47 ("nothing exact about n under add/remove").

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from synthtrust.synthesizers import MST
    >>> real = pd.DataFrame({"a": np.arange(300) % 2, "b": np.arange(300) % 3})
    >>> mst = MST(1.0, 1e-5, domain={"a": 2, "b": 3}, random_state=1).fit(real)
    >>> len(released_sample(mst, len(real)))  # MST's own noisy size, not n = 300
    307
    """
    if getattr(synth, "neighbouring", None) == "add_remove":
        return synth.sample()
    return synth.sample(n)


def card_params(synth) -> dict:
    """The parameters a generator card shows: ``get_params()`` without ``random_state`` and
    ``domain`` (the card shows the fitted domain apart)."""
    return {
        k: v for k, v in synth.get_params(deep=False).items() if k not in ("random_state", "domain")
    }


def not_dp_card(synth, privacy: str, params: dict, fitted=None, **extra) -> dict:
    """The card of a generator that spends no privacy budget: ``synthesizer``, ``description``
    (its ``_description``), ``params``, ``extra`` entries, ``differentially_private = False``
    and the ``privacy`` statement; once fitted (``_fitted``), the entries of ``fitted()``."""
    info = {
        "synthesizer": type(synth).__name__,
        "description": synth._description,
        "params": params,
        **extra,
        "differentially_private": False,
        "privacy": privacy,
    }
    if fitted is not None and getattr(synth, "_fitted", False):
        info.update(fitted())
    return info


class FittedMixin:
    """``_n_rows`` shared by the synthesizer base classes."""

    def _n_rows(self, n) -> int:
        """The number of records to sample: ``n`` validated, or the default; NotFittedError
        before ``fit``."""
        check_is_fitted(self)
        return self._default_n() if n is None else check_positive_int(n, "n")


class SynthesizerMixin(ParamsMixin, FittedMixin):
    """Shared by every synthesizer base: the parameter protocol and the fitted-state checks."""

    #: The neighbouring relation of the synthesizer's DP claim, ``"replace_one"`` or
    #: ``"add_remove"`` (None: no DP claim); :func:`synthtrust.dp_audit.dp_audit` audits under it.
    neighbouring: str | None = None


class BaseSynthesizer(SynthesizerMixin):
    """sklearn-style base of the discrete-table synthesizers.

    Subclasses implement ``_fit_counts(counts, n)`` (spend the budget, record every mechanism call
    in ``self.ledger_``) and ``_sample_counts(n)`` (post-processing: a synthetic joint histogram with
    ``n`` records). Parameters are stored by the constructor and validated in :meth:`fit` (see
    :class:`ParamsMixin`); ``domain`` has the meaning of
    :mod:`synthtrust.synthesizers.tabular` (a Domain encodes :meth:`fit`'s input and decodes
    :meth:`sample`'s output; :meth:`sample_counts` stays in codes).

    Fitted attributes
    -----------------
    ``columns_``, ``domain_`` (``{column: levels}``), ``shape_``, ``n_records_`` (the number of
    records, public under replace-one DP), ``ledger_`` (:class:`~synthtrust.privacy.PrivacyLedger`).
    """

    #: replace-one neighbours (n public)
    neighbouring = "replace_one"

    #: short description used by :meth:`card`
    _description = ""

    _parameter_constraints = {
        "epsilon": check_epsilon,
        "domain": check_domain_param,
        "random_state": check_random_state_param,
    }

    def __init__(self, epsilon: float = 1.0, *, domain=None, random_state=None):
        self.epsilon = epsilon
        self.domain = domain
        self.random_state = random_state

    # -- parameters ---------------------------------------------------------------------------
    def _marginal_axes(self) -> list[tuple[int, ...]]:
        """``self.marginals`` (column names, or None for all 1- and 2-way) as validated axes of
        the fitted columns; ValueError for a name not in the data."""
        marginals = getattr(self, "marginals", None)
        if marginals is None:
            return check_marginals(None, len(self.shape_))
        index = {c: i for i, c in enumerate(self.columns_)}
        try:
            axes = [
                tuple(index[c] for c in ((cl,) if isinstance(cl, str) else cl)) for cl in marginals
            ]
        except KeyError as exc:
            raise ValueError(
                f"marginals name column {exc.args[0]!r}, which is not in the data "
                f"(columns {self.columns_})"
            ) from None
        return check_marginals(axes, len(self.shape_))

    # -- fitting ------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Fit on a DataFrame of integer codes (see module docstring); returns ``self``.

        Raises
        ------
        TypeError, ValueError
            See :func:`frame_to_counts` and the parameter checks (ε ≤ 0, bad domain, ...).
        """
        self._validate_params()
        columns, domain, counts = frame_to_counts(*encode_input(self.domain, X))
        return self._fit_from(columns, domain, counts)

    def fit_counts(self, counts):
        """Fit on a joint histogram instead of records; needs ``domain=`` (its column order is the
        axis order). ``counts`` has shape ``tuple(levels)`` or its flattened length."""
        self._validate_params()
        if self.domain is None:
            raise ValueError("fit_counts needs the domain= parameter (the axes of the histogram)")
        domain = check_domain(domain_sizes(self.domain))
        shape = tuple(domain.values())
        arr = np.asarray(counts)
        if arr.shape not in (shape, (int(np.prod(shape, dtype=np.int64)),)):
            raise ValueError(
                f"counts has shape {arr.shape}; expected {shape} or its flattened length"
            )
        flat, _ = as_count_matrix(arr.reshape(-1), "counts")
        return self._fit_from(list(domain), domain, flat[0])

    def _fit_from(self, columns, domain, counts):
        self._rng = check_random_state(self.random_state)
        self.ledger_ = PrivacyLedger()
        self.columns_ = list(columns)
        self.domain_ = dict(domain)
        self.shape_ = tuple(domain.values())
        self.n_records_ = int(counts.sum())
        self._fit_counts(np.asarray(counts, dtype=np.int64), self.n_records_)
        self._fitted = True
        return self

    def _fit_counts(self, counts: np.ndarray, n: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- sampling -----------------------------------------------------------------------------
    def _default_n(self) -> int:
        return self.n_records_

    def sample(self, n: int | None = None) -> pd.DataFrame:
        """Draw ``n`` synthetic records (default: the number of training records).

        Returns a DataFrame with the fitted columns (int64 codes, or values decoded by an encoder
        ``domain``), rows in random order. Sampling is post-processing of the fitted DP release: it
        spends no budget.

        Raises
        ------
        NotFittedError
            Before ``fit``.
        TypeError, ValueError
            ``n`` not a positive integer.
        """
        n = self._n_rows(n)
        counts = self._sample_counts(n)
        codes = counts_to_frame(counts, self.shape_, self.columns_, self._rng)
        return decode_output(self.domain, codes, self._rng)

    def sample_counts(self, n: int | None = None) -> np.ndarray:
        """Like :meth:`sample` but return the synthetic joint histogram, shape ``shape_``."""
        return self._sample_counts(self._n_rows(n)).reshape(self.shape_)

    def _sample_counts(self, n: int) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- documentation ------------------------------------------------------------------------
    def card(self) -> dict:
        """A small generator card: name, parameters, domain and the privacy spend."""
        info = {
            "synthesizer": type(self).__name__,
            "description": self._description,
            "params": {k: v for k, v in self.get_params(deep=False).items() if k != "random_state"},
            "neighbouring": "replace-one (n public)",
        }
        if getattr(self, "_fitted", False):
            info.update(
                domain=self.domain_,
                n_records=self.n_records_,
                total_epsilon=self.ledger_.total_epsilon,
                total_delta=self.ledger_.total_delta,
                ledger_entries=len(self.ledger_),
            )
        return info


def check_cliques_param(marginals, name: str = "marginals") -> list[tuple]:
    """Structural check of a list of cliques of column names (column names are checked at fit).

    Returns the cliques as tuples (a bare name becomes a 1-way clique).
    """
    if isinstance(marginals, (str, bytes)) or not isinstance(marginals, (list, tuple)):
        raise TypeError(
            f"{name} must be a list of cliques (tuples of column names), "
            f"got {type(marginals).__name__} {marginals!r}"
        )
    if len(marginals) == 0:
        raise ValueError(
            f"{name} is empty; declare at least one marginal (a tuple of column names)"
        )
    out = []
    for cl in marginals:
        if isinstance(cl, str):
            cl = (cl,)
        if not isinstance(cl, (list, tuple)):
            raise TypeError(
                f"each clique of {name} must be a tuple of column names, "
                f"got {type(cl).__name__} {cl!r}"
            )
        cl = tuple(cl)
        if len(cl) == 0:
            raise ValueError(f"{name} has an empty clique; each clique needs at least one column")
        if len(set(cl)) != len(cl):
            raise ValueError(f"clique {cl!r} of {name} repeats a column")
        out.append(cl)
    return out


def check_marginals(marginals, ndim: int) -> list[tuple[int, ...]]:
    """Validate a list of marginals (tuples of axes of an ``ndim``-column table).

    ``None`` means every 1-way and 2-way marginal. An int is a 1-way marginal; each tuple is
    sorted and duplicates are dropped. Raises TypeError for non-integer axes, ValueError for an
    axis outside ``0..ndim-1``, a repeated axis, or an empty list.
    """
    if marginals is None:
        return [(a,) for a in range(ndim)] + list(itertools.combinations(range(ndim), 2))
    if isinstance(marginals, (str, bytes)) or not hasattr(marginals, "__iter__"):
        raise TypeError(f"marginals must be a list of tuples of axes, got {marginals!r}")
    out: list[tuple[int, ...]] = []
    for cl in marginals:
        cl = (cl,) if isinstance(cl, numbers.Integral) else tuple(cl)
        if not cl or any(isinstance(a, bool) or not isinstance(a, numbers.Integral) for a in cl):
            raise TypeError(f"each marginal must be a non-empty tuple of integer axes, got {cl!r}")
        if any(a < 0 or a >= ndim for a in cl) or len(set(cl)) != len(cl):
            raise ValueError(
                f"marginal {cl!r} has an axis outside 0..{ndim - 1} or a repeated axis"
            )
        cl = tuple(sorted(int(a) for a in cl))
        if cl not in out:
            out.append(cl)
    if not out:
        raise ValueError("marginals is empty; give at least one marginal")
    return out

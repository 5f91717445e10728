"""A Gaussian copula with declared ``scipy.stats`` marginals: a simulator of "original" data.

**Not differentially private.** :class:`GaussianCopula` is fitted to a table and then draws as
many new tables as a simulation study needs. It plays the role that the Synthetic Data Vault's
(SDV) ``GaussianCopulaSynthesizer`` plays in Montoya Perez et al. (2024) [``montoyaperez2024``],
§4.1: it simulates the *original* (sensitive) data, not a release of it. Its parameters
(marginal parameters, level frequencies, a correlation matrix) are computed from the data
without noise, so ``ledger_ is None`` and :meth:`GaussianCopula.card` says "not DP".

Why our own: the copula library of SDV (``copulas``, 0.14) requires ``pandas < 3``; this package
runs on pandas 3. The model needs only ``scipy.stats`` marginals and a NumPy correlation matrix.

Model
-----
Each column j has a declared marginal family (``distributions``):

``"normal"``
    ``scipy.stats.norm(loc, scale)`` fitted by maximum likelihood (mean and population
    standard deviation).
``"beta"``
    ``scipy.stats.beta(a, b, loc, scale)`` on the *observed range* of the column, widened by
    ``(max − min)/n`` on each side so that the minimum and maximum have a finite likelihood:
    ``loc = min − (max − min)/n``, ``scale = (max − min)(1 + 2/n)``; ``a`` and ``b`` by maximum
    likelihood with ``loc`` and ``scale`` fixed. (SDV's ``copulas.univariate.BetaUnivariate``
    fits all four parameters by maximum likelihood; fixing the support to the data's range is
    more stable and keeps simulated values in a plausible range.)
``"discrete"``
    The empirical distribution of the observed levels (``scipy.stats.rv_discrete`` on the level
    codes 0, …, k − 1), for ordinal, binary and categorical columns. Levels are ordered as
    numbers (or by category order for an ordered ``pandas.Categorical``, lexicographically for
    text); the order matters for the sign of correlations.

Normal scores. A record x is mapped to z with z_j = Φ⁻¹(u_j):

* continuous families: u_j = F_j(x_j), clipped to [1/(2n), 1 − 1/(2n)] (n = fitted records), so
  that one badly fitted extreme value cannot dominate the correlation;
* discrete families (``discrete_scores``): with F_j(k⁻) and F_j(k) the CDF just below and at
  level k,

  - ``"jitter"`` (default): u_j drawn uniformly on (F_j(k⁻), F_j(k)) — the *distributional
    transform* (randomised probability integral transform). The scores are then exactly
    N(0, 1). SDV encodes categorical columns in the same way (RDT's frequency encoder with
    noise: each category an interval of [0, 1] as wide as its frequency, a uniform draw
    inside it). The fit depends on ``random_state`` through the jitter (on the 70 000 cardio
    records the correlations vary with an s.d. of 0.004 between seeds).
  - ``"midrank"``: u_j = (F_j(k⁻) + F_j(k))/2, deterministic. These scores have variance < 1
    and one value per level.

  Either way sampling inverts u ↦ level with the fitted F_j, so simulated level frequencies
  equal the fitted ones.

Correlation: the Pearson correlation matrix of the normal scores of the fitted records
(``numpy.corrcoef``), made positive definite if needed (eigenvalues clipped at 1e-10, then
rescaled to a unit diagonal). With continuous margins this is the usual normal-scores estimate
of the copula's correlation ρ (consistent). With discrete margins it is *attenuated* towards 0
compared with the latent correlation of a Gaussian copula: for a continuous column and a
discrete column with levels of probability p_k on latent intervals (a_k, b_k], jittered scores
give ρ·Σ_k (φ(a_k) − φ(b_k))²/p_k (2/π ≈ 0.64 for a balanced binary) and mid-rank scores
about the square root of that factor (a polyserial/polychoric estimate would recover ρ). The
simulator then reproduces the data's associations with discrete columns only in part — as
SDV's does; the purpose is a realistic simulator, not a consistent estimator.

Sampling: z ~ N(0, R) (Cholesky factor of R), u = Φ(z), x_j = F_j⁻¹(u_j) (for discrete
columns the smallest level k with F_j(k) ≥ u_j). ``sample(n, conditions={column: level})``
draws from the copula's conditional distribution given equalities on discrete columns by
rejection (exact; draws about ``n / P(conditions)`` records), as SDV's conditional sampling of a
class label.

Interface (sklearn style)::

    GaussianCopula({"age": "normal", "bmi": "beta"}, random_state=0).fit(df).sample(1000)

Fitted attributes
-----------------
``columns_``, ``families_`` ({column: family}), ``marginals_`` ({column:
frozen ``scipy.stats`` distribution}; for discrete columns over the codes 0..k − 1),
``levels_`` ({column: the observed levels, a ``pandas.Index``} for discrete columns),
``correlation_`` (``pandas.DataFrame``), ``n_records_``. :meth:`GaussianCopula.describe` lists
every column's family and parameters.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import special, stats

from .._result import python_scalar
from .._validation import (
    check_is_fitted,
    check_random_state,
    check_random_state_param,
    dict_of,
    one_of,
    optional,
    str_one_of,
)
from .base import SynthesizerMixin, not_dp_card

__all__ = ["FAMILIES", "GaussianCopula"]

#: Marginal families a column can be declared with.
FAMILIES = ("normal", "beta", "discrete")
_CONTINUOUS = ("normal", "beta")
_SCORES = ("jitter", "midrank")
#: The checker of one column's family.
_FAMILY = str_one_of(*FAMILIES)
_MIN_EIGENVALUE = 1e-10

_NOT_DP = (
    "not DP: marginal parameters, level frequencies and correlations are computed from the "
    "data without noise; a simulator of original data, with no privacy guarantee"
)


def _levels(col: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes 0..k-1 and the sorted observed levels of a discrete column."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        present = col.cat.remove_unused_categories()
        return present.cat.codes.to_numpy(np.int64), pd.Index(present.cat.categories)
    try:
        codes, levels = pd.factorize(col, sort=True)
    except TypeError as exc:
        raise TypeError(
            f"column {col.name!r}: levels are not mutually comparable ({exc})"
        ) from None
    return np.asarray(codes, dtype=np.int64), pd.Index(levels)


def _fit_continuous(x: np.ndarray, family: str, name) -> stats.rv_continuous:
    n = x.size
    lo, hi = float(x.min()), float(x.max())
    if hi == lo:
        raise ValueError(
            f"column {name!r} is constant ({lo!r}); the {family!r} family needs at least two "
            "distinct values (declare it 'discrete')"
        )
    if family == "normal":
        return stats.norm(loc=float(x.mean()), scale=float(x.std()))
    pad = (hi - lo) / n
    loc, scale = lo - pad, (hi - lo) + 2 * pad
    a, b, _, _ = stats.beta.fit(x, floc=loc, fscale=scale)
    return stats.beta(float(a), float(b), loc=loc, scale=scale)


def _as_correlation(r: np.ndarray) -> np.ndarray:
    """A symmetric positive definite matrix with unit diagonal close to ``r``."""
    r = np.where(np.isfinite(r), r, 0.0)
    r = (r + r.T) / 2.0
    np.fill_diagonal(r, 1.0)
    w, v = np.linalg.eigh(r)
    if w.min() < _MIN_EIGENVALUE:
        r = (v * np.maximum(w, _MIN_EIGENVALUE)) @ v.T
        d = np.sqrt(np.diag(r))
        r = r / d[:, None] / d[None, :]
        np.fill_diagonal(r, 1.0)
    return r


class GaussianCopula(SynthesizerMixin):
    """Gaussian copula with a declared ``scipy.stats`` marginal per column (not DP).

    Parameters
    ----------
    distributions : dict {column: family} or None
        Family of each column, one of :data:`FAMILIES` (``"normal"``, ``"beta"``,
        ``"discrete"``); see the module docstring. Columns not listed get
        ``default_distribution``.
    default_distribution : str
        Family of the unlisted columns (default ``"discrete"``: the empirical distribution).
    discrete_scores : {"jitter", "midrank"}
        Normal scores of discrete columns: randomised within the level's CDF interval
        (default) or its midpoint.
    random_state : None, int, SeedSequence or numpy Generator
        Seeds the generator created at :meth:`fit` (the jitter of the normal scores), whose
        stream later :meth:`sample` calls continue unless they are given their own generator.

    Not differentially private (``ledger_ is None``): a simulator of original data. It takes any
    DataFrame as it is and has no ``domain`` parameter (levels are those observed).

    Raises
    ------
    TypeError
        At :meth:`fit`: ``distributions`` not a dict; a family not a string; ``random_state`` of
        another type.
    ValueError
        At :meth:`fit`: an unknown family (the message names the column) or ``discrete_scores``.
    """

    _description = "Gaussian copula: declared scipy.stats marginals + correlation of normal scores"
    #: a simulator of original data: no privacy budget is spent, there is no ledger
    ledger_ = None
    differentially_private = False
    _parameter_constraints = {
        "distributions": optional(dict_of(_FAMILY, "a dict {column: family} or None")),
        "default_distribution": _FAMILY,
        "discrete_scores": one_of(*_SCORES),
        "random_state": check_random_state_param,
    }

    def __init__(
        self,
        distributions=None,
        *,
        default_distribution: str = "discrete",
        discrete_scores: str = "jitter",
        random_state=None,
    ):
        self.distributions = distributions
        self.default_distribution = default_distribution
        self.discrete_scores = discrete_scores
        self.random_state = random_state

    # -- fitting ------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Fit the marginals and the correlation of the normal scores; returns ``self``.

        Parameters
        ----------
        X : pandas.DataFrame, shape (n_records, n_columns)
            No missing values. Columns declared ``"normal"`` or ``"beta"`` must be numeric.
        y : ignored

        Raises
        ------
        TypeError
            ``X`` not a DataFrame; a continuous family declared for a non-numeric column.
        ValueError
            Fewer than 2 rows or no columns; ``distributions`` names a column that ``X`` does
            not have; missing values; a constant column declared continuous (each message
            names the column).
        """
        self._validate_params()
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        if X.shape[1] == 0:
            raise ValueError("X has no columns; at least one column is needed")
        if X.shape[0] < 2:
            raise ValueError(f"X has {X.shape[0]} row(s); at least 2 are needed to fit a copula")
        if X.columns.has_duplicates:
            raise ValueError(
                f"X has duplicate column names: {list(X.columns[X.columns.duplicated()])}"
            )
        declared = dict(self.distributions or {})
        missing = [c for c in declared if c not in X.columns]
        if missing:
            raise ValueError(
                f"distributions names column(s) {missing} that X does not have "
                f"(columns {list(X.columns)})"
            )
        rng = check_random_state(self.random_state)
        n = int(X.shape[0])
        columns = list(X.columns)
        families, marginals, levels, codes, dtypes = {}, {}, {}, {}, {}
        for c in columns:
            col = X[c]
            family = declared.get(c, self.default_distribution)
            if col.isna().any():
                raise ValueError(
                    f"column {c!r} has {int(col.isna().sum())} missing value(s); "
                    "remove or impute them first"
                )
            if family in _CONTINUOUS:
                if not (pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)):
                    raise TypeError(
                        f"column {c!r} is declared {family!r} but has non-numeric dtype {col.dtype}"
                    )
                x = col.to_numpy(dtype=float)
                if not np.all(np.isfinite(x)):
                    raise ValueError(f"column {c!r} has infinite values")
                marginals[c] = _fit_continuous(x, family, c)
            else:
                k_codes, lev = _levels(col)
                p = np.bincount(k_codes, minlength=len(lev)) / n
                marginals[c] = stats.rv_discrete(values=(np.arange(len(lev)), p), name=str(c))
                levels[c] = lev
                codes[c] = k_codes
                dtypes[c] = col.dtype
            families[c] = family
        self.columns_ = columns
        self.families_ = families
        self.marginals_ = marginals
        self.levels_ = levels
        self.n_records_ = n
        self._dtypes = dtypes
        self._cum = {c: self._cumulative(c) for c in levels}
        z = self._scores(X, rng, codes)
        r = np.atleast_2d(np.corrcoef(z, rowvar=False)) if len(columns) > 1 else np.ones((1, 1))
        r = _as_correlation(r)
        self.correlation_ = pd.DataFrame(r, index=columns, columns=columns)
        self._chol = np.linalg.cholesky(r)
        self._rng = rng
        self._fitted = True
        return self

    def _cumulative(self, c) -> np.ndarray:
        p = self.marginals_[c].pk
        cum = np.cumsum(p)
        cum[-1] = 1.0
        return cum

    def _scores(self, X: pd.DataFrame, rng: np.random.Generator, codes: dict) -> np.ndarray:
        n = X.shape[0]
        bound = 0.5 / self.n_records_
        z = np.empty((n, len(self.columns_)))
        for j, c in enumerate(self.columns_):
            if c in self.levels_:
                k = codes[c]
                cum = self._cum[c]
                upper = cum[k]
                lower = np.where(k > 0, cum[np.maximum(k - 1, 0)], 0.0)
                if self.discrete_scores == "jitter":
                    u = lower + rng.random(n) * (upper - lower)
                else:
                    u = (lower + upper) / 2.0
                u = np.clip(u, np.nextafter(0.0, 1.0), np.nextafter(1.0, 0.0))
            else:
                u = np.clip(self.marginals_[c].cdf(X[c].to_numpy(dtype=float)), bound, 1 - bound)
            z[:, j] = special.ndtri(u)
        return z

    def normal_scores(self, X, random_state=None) -> np.ndarray:
        """The normal scores z = Φ⁻¹(u) of the records of ``X`` under the fitted marginals.

        Parameters
        ----------
        X : pandas.DataFrame with the fitted columns (discrete values must be fitted levels).
        random_state : None, int, SeedSequence or Generator
            The jitter of discrete columns (``discrete_scores="jitter"``); None: fresh entropy.

        Returns
        -------
        ndarray, shape (len(X), n_columns), columns in ``columns_`` order.
        """
        check_is_fitted(self)
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        absent = [c for c in self.columns_ if c not in X.columns]
        if absent:
            raise ValueError(f"X lacks the fitted column(s) {absent}")
        codes = {}
        for c, lev in self.levels_.items():
            k = lev.get_indexer(X[c])
            if (k < 0).any():
                bad = python_scalar(X[c][k < 0].iloc[0])
                raise ValueError(
                    f"column {c!r} has value {bad!r}, which is not a fitted level ({list(lev)})"
                )
            codes[c] = k.astype(np.int64)
        return self._scores(X, check_random_state(random_state), codes)

    # -- sampling -----------------------------------------------------------------------------
    def _default_n(self) -> int:
        return self.n_records_

    def _uniforms(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """u = Φ(z), z ~ N(0, R): (n, n_columns)."""
        return special.ndtr(rng.standard_normal((n, len(self.columns_))) @ self._chol.T)

    def _invert(self, c, u: np.ndarray) -> np.ndarray:
        """F⁻¹(u) of column ``c``: values (continuous) or level codes (discrete)."""
        if c in self.levels_:
            cum = self._cum[c]
            return np.minimum(np.searchsorted(cum, u, side="left"), len(cum) - 1)
        return self.marginals_[c].ppf(u)

    def _draw(self, n: int, rng: np.random.Generator) -> dict:
        """n records as {column: values (continuous) or codes (discrete)}."""
        u = self._uniforms(n, rng)
        return {c: self._invert(c, u[:, j]) for j, c in enumerate(self.columns_)}

    def _condition_codes(self, conditions) -> dict:
        """``conditions`` {column: level} as {column: level code}; None gives {}. TypeError or
        ValueError naming the column and the fitted levels for a condition that cannot hold."""
        if conditions is None:
            return {}
        if not isinstance(conditions, Mapping):
            raise TypeError(
                f"conditions must be a dict {{column: level}}, got {type(conditions).__name__}"
            )
        out = {}
        for c, value in conditions.items():
            if c not in self.columns_:
                raise ValueError(
                    f"conditions names column {c!r}, which was not fitted (columns {self.columns_})"
                )
            if c not in self.levels_:
                raise ValueError(
                    f"conditions on column {c!r} (family {self.families_[c]!r}) are not "
                    "supported: only discrete columns can be conditioned on a level"
                )
            k = self.levels_[c].get_indexer([value])[0]
            if k < 0:
                raise ValueError(
                    f"conditions[{c!r}] = {value!r} is not a fitted level of {c!r} "
                    f"({list(self.levels_[c])})"
                )
            out[c] = int(k)
        return out

    def sample(self, n: int | None = None, *, conditions=None, random_state=None) -> pd.DataFrame:
        """Draw ``n`` records (default: the number of fitted records).

        Parameters
        ----------
        n : int ≥ 1 or None
        conditions : dict {column: level}, optional
            Equalities on discrete columns: records are drawn from the copula's conditional
            distribution given them (rejection sampling; exact).
        random_state : None, int, SeedSequence or Generator, optional
            The generator of this call; None continues the generator created at :meth:`fit`.

        Returns
        -------
        pandas.DataFrame, shape (n, n_columns)
            Continuous columns as float64, discrete columns with their fitted levels (and dtype);
            a fresh RangeIndex.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        TypeError, ValueError
            ``n`` not an integer ≥ 1; a condition on an unknown or continuous column or on a
            level that was not fitted; conditions with probability below 1e-6 under the model.
        """
        n = self._n_rows(n)
        cond = self._condition_codes(conditions)
        rng = self._rng if random_state is None else check_random_state(random_state)
        if not cond:
            draws = self._draw(n, rng)
        else:
            draws = self._draw_conditional(n, cond, rng)
        data = {}
        for c in self.columns_:
            if c in self.levels_:
                data[c] = pd.Series(self.levels_[c].take(draws[c])).astype(self._dtypes[c])
            else:
                data[c] = np.asarray(draws[c], dtype=float)
        frame = pd.DataFrame({i: pd.Series(v) for i, v in enumerate(data.values())})
        frame.columns = pd.Index(self.columns_)
        return frame

    def _draw_conditional(self, n: int, cond: dict, rng: np.random.Generator) -> dict:
        """Rejection sampling: draw batches until ``n`` records satisfy every condition."""
        p = math.prod(float(self.marginals_[c].pk[k]) for c, k in cond.items())  # first guess
        parts: list[dict] = []
        need, drawn, kept = n, 0, 0
        while need > 0:
            batch = int(min(math.ceil(1.2 * need / max(p, 1e-6)) + 16, 10_000_000))
            u = self._uniforms(batch, rng)
            keep = np.ones(batch, dtype=bool)
            for c, k in cond.items():
                keep &= self._invert(c, u[:, self.columns_.index(c)]) == k
            drawn += batch
            kept += int(keep.sum())
            idx = np.flatnonzero(keep)[:need]
            # only the accepted records are transformed (the inverse CDFs are the costly part)
            parts.append({c: self._invert(c, u[idx, j]) for j, c in enumerate(self.columns_)})
            need -= idx.size
            p = kept / drawn
            if need > 0 and drawn >= 1_000_000 and p < 1e-6:
                raise ValueError(
                    f"conditions {cond} hold in {kept} of {drawn} simulated records; "
                    "their probability under the fitted copula is below 1e-6"
                )
        return {c: np.concatenate([part[c] for part in parts]) for c in self.columns_}

    # -- documentation ------------------------------------------------------------------------
    def describe(self) -> pd.DataFrame:
        """One row per column: ``family``, ``loc``, ``scale``, ``a``, ``b`` (continuous
        families; NaN otherwise), ``levels`` and ``probabilities`` (discrete; None otherwise)."""
        check_is_fitted(self)
        rows = []
        for c in self.columns_:
            fam = self.families_[c]
            row = {
                "column": c,
                "family": fam,
                "loc": np.nan,
                "scale": np.nan,
                "a": np.nan,
                "b": np.nan,
                "levels": None,
                "probabilities": None,
            }
            dist = self.marginals_[c]
            if fam == "normal":
                row.update(loc=float(dist.mean()), scale=float(dist.std()))
            elif fam == "beta":
                a, b = dist.args
                row.update(
                    loc=float(dist.kwds["loc"]),
                    scale=float(dist.kwds["scale"]),
                    a=float(a),
                    b=float(b),
                )
            else:
                row.update(levels=list(self.levels_[c]), probabilities=[float(v) for v in dist.pk])
            rows.append(row)
        return pd.DataFrame(rows).set_index("column")

    def card(self) -> dict:
        """A small generator card: name, description, parameters and the privacy status."""
        params = {k: v for k, v in self.get_params(deep=False).items() if k != "random_state"}
        return not_dp_card(
            self,
            _NOT_DP,
            params,
            lambda: {
                "n_records": self.n_records_,
                "columns": list(self.columns_),
                "families": dict(self.families_),
            },
        )

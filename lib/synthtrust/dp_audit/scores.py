"""Attack scores of the distinguishing game: higher means "the canary was in the training data".

- :func:`canary_counts`: a_C(Y) = #{y ∈ Y : y_C = c_C}, the synthetic records that agree with the
  canary on the columns C, for every column subset C of the game (black-box features; the exact
  cell a_all > 0 is the fixed-rule score S1, and the counts feed the marginal likelihood ratio);
- :func:`marginal_likelihood_ratio`: the Poisson likelihood ratio of those counts (S2), with
  rates estimated on a training split of fits that the bound never sees;
- :func:`whitebox_score`: the Neyman–Pearson log-likelihood ratio of the noisy measurements a
  synthesizer releases (S3), from its ``audit_view()``;
- :func:`learned_score`: a classifier of those features trained on fits the bound never sees
  (S4, the "hybrid" attack of ``ganev2026``).

Source: the design of ``annamalai2024`` (black-box and white-box scores, worst-case datasets)
and ``ganev2026`` (§4); the white-box ratio is the optimal test for fixed cliques with
independent Laplace or Gaussian noise (Neyman–Pearson).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

import numpy as np
import pandas as pd

from .canary import Worlds

__all__ = [
    "canary_counts",
    "canary_subsets",
    "is_gaussian_view",
    "learned_score",
    "marginal_likelihood_ratio",
    "view_entries",
    "whitebox_score",
]

_NOISES = ("laplace", "discrete_laplace", "gaussian")
_STATISTICS = ("likelihood_ratio", "linear")


def canary_subsets(columns, max_size: int = 3) -> list[tuple[str, ...]]:
    """Every non-empty subset of ``columns`` with at most ``max_size`` columns (and the whole
    record), in size order: the column sets C of :func:`canary_counts`."""
    columns = list(columns)
    subsets = [
        c for k in range(1, min(max_size, len(columns)) + 1) for c in combinations(columns, k)
    ]
    if tuple(columns) not in subsets:
        subsets.append(tuple(columns))
    return subsets


def canary_counts(synthetic: pd.DataFrame, canary: Mapping, subsets) -> np.ndarray:
    """a_C(Y) for each C in ``subsets``: how many rows of ``synthetic`` equal the canary on C.

    Parameters
    ----------
    synthetic : DataFrame
        Integer-coded synthetic records; must have every column of ``canary``.
    canary : mapping {column: code}
    subsets : list of tuples of column names

    Returns
    -------
    ndarray of int64, shape (len(subsets),)

    Raises
    ------
    ValueError
        ``synthetic`` lacks a column of the canary.

    Examples
    --------
    >>> y = pd.DataFrame({"a": [1, 1, 0], "b": [1, 0, 0]})
    >>> canary_counts(y, {"a": 1, "b": 1}, [("a",), ("b",), ("a", "b")]).tolist()
    [2, 1, 1]
    """
    missing = [c for c in canary if c not in synthetic.columns]
    if missing:
        raise ValueError(
            f"the synthetic sample lacks the column(s) {missing} of the canary; it has "
            f"{list(synthetic.columns)}"
        )
    match = {c: synthetic[c].to_numpy() == canary[c] for c in canary}
    return np.array(
        [np.logical_and.reduce([match[c] for c in subset]).sum() for subset in subsets],
        dtype=np.int64,
    )


def marginal_likelihood_ratio(counts, rate_in, rate_out) -> np.ndarray:
    """Poisson log-likelihood ratio Σ_C [a_C ln(λ_C^in/λ_C^out) − (λ_C^in − λ_C^out)] (S2).

    Parameters
    ----------
    counts : array-like, shape (fits, subsets)
        a_C of each fit (:func:`canary_counts`).
    rate_in, rate_out : array-like, shape (subsets,)
        Mean a_C of the training fits with and without the canary, each plus 0.5 (so no rate
        is 0).

    Returns
    -------
    ndarray, shape (fits,)
    """
    counts = np.asarray(counts, dtype=float)
    rate_in, rate_out = np.asarray(rate_in, dtype=float), np.asarray(rate_out, dtype=float)
    return counts @ np.log(rate_in / rate_out) - (rate_in - rate_out).sum()


def learned_score(features_out, features_in, train: slice, random_state: int = 0) -> tuple:
    """Scores of a gradient-boosted classifier of "canary in" (S4).

    The classifier (scikit-learn's ``HistGradientBoostingClassifier`` with its defaults) is
    trained on the ``train`` rows of both worlds, labelled 0 (D) and 1 (D′); every fit is then
    scored by its predicted probability of D′. Only the rows outside ``train`` may feed a
    threshold or a bound.

    Parameters
    ----------
    features_out, features_in : array-like, shape (fits, features)
        One row per fit of D and of D′: the canary's counts a_C (:func:`canary_counts`) and,
        where the generator releases them, the white-box statistics (:func:`whitebox_score`).
    train : slice
        The training rows of each world.
    random_state : int
        The classifier's seed.

    Returns
    -------
    (ndarray, ndarray)
        Shapes (fits of D,) and (fits of D′,), in [0, 1].

    Raises
    ------
    ValueError
        The two worlds have different features, or a training part is empty.

    References
    ----------
    ``ganev2026`` §4 (features ⊕ white-box terms, split 40/20/40).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> out, inn = rng.poisson(1, (200, 3)), rng.poisson(3, (200, 3))
    >>> s0, s1 = learned_score(out, inn, slice(0, 80))
    >>> bool(s1[80:].mean() > s0[80:].mean())
    True
    """
    from sklearn.ensemble import HistGradientBoostingClassifier

    out, inn = np.asarray(features_out, dtype=float), np.asarray(features_in, dtype=float)
    if out.ndim != 2 or inn.ndim != 2 or out.shape[1] != inn.shape[1]:
        raise ValueError(
            f"features_out and features_in must be 2-D with the same features, got shapes "
            f"{out.shape} and {inn.shape}"
        )
    x_out, x_in = out[train], inn[train]
    if len(x_out) == 0 or len(x_in) == 0:
        raise ValueError(f"train must select fits of both worlds, got {train}")
    classifier = HistGradientBoostingClassifier(random_state=random_state)
    classifier.fit(np.vstack([x_out, x_in]), np.repeat([0, 1], [len(x_out), len(x_in)]))
    return classifier.predict_proba(out)[:, 1], classifier.predict_proba(inn)[:, 1]


def _cell_terms(worlds: Worlds, clique: tuple, levels=None) -> list[tuple[tuple, int, int]]:
    """(cell index, count a under D, change Δ from D to D′) of the cells of ``clique`` the
    neighbouring step changes; cells whose changes cancel are left out. ``levels`` (one array
    per column of the clique, original code → index of the measured axis; None: the identity)
    maps records to the measured cells of a compressed domain."""
    positions = [worlds.columns.index(c) for c in clique]

    def cells(codes: np.ndarray) -> np.ndarray:
        if levels is None:
            return codes
        return np.column_stack([np.asarray(m)[codes[:, j]] for j, m in enumerate(levels)])

    changes: dict[tuple, int] = {}
    for record, delta in ((worlds.canary, 1), (worlds.removed, -1)):
        if record is not None:
            codes = np.array([[int(record[c]) for c in clique]], dtype=np.int64)
            cell = tuple(int(v) for v in cells(codes)[0])
            changes[cell] = changes.get(cell, 0) + delta
    base = cells(worlds.base_codes[:, positions])
    return [
        (cell, int((base == np.array(cell)).all(axis=1).sum()), delta)
        for cell, delta in changes.items()
        if delta != 0
    ]


def view_entries(view) -> list[tuple]:
    """The entries ``(clique, values, noise, scale, levels)`` of an ``audit_view()``: a mapping
    ``{clique: (values, noise, scale)}`` or a sequence of ``(clique, values, noise, scale)`` or
    ``(clique, values, noise, scale, levels)`` tuples (a sequence may measure a clique more than
    once; ``levels`` as :func:`whitebox_score`).

    Raises
    ------
    ValueError
        An entry of another length.
    """
    items = [(k, *v) for k, v in view.items()] if isinstance(view, Mapping) else list(view)
    out = []
    for item in items:
        if len(item) not in (4, 5):
            raise ValueError(
                "audit_view: an entry must be (clique, values, noise, scale[, levels]), got "
                f"{len(item)} items"
            )
        clique, values, noise, scale, *levels = item
        out.append((tuple(clique), values, noise, scale, levels[0] if levels else None))
    return out


def is_gaussian_view(view) -> bool:
    """Whether every measurement of ``view`` has Gaussian noise (and there is one): then the
    likelihood ratio is linear in the noise and its equal-error threshold is 0."""
    entries = view_entries(view)
    return bool(entries) and all(noise == "gaussian" for _, _, noise, _, _ in entries)


def whitebox_score(view, worlds: Worlds, statistic: str = "likelihood_ratio") -> float:
    """Score of "D′" against "D" from the released noisy measurements (S3).

    For each measured clique C and each of its cells that the neighbouring step changes (the
    canary's, Δ = +1; under replace-one also the replaced record's, Δ = −1), with a the cell's
    count in D and y its noisy value, the term of ``statistic``:

    - ``"likelihood_ratio"``: the log-likelihood ratio, ``(|y − a| − |y − a − Δ|)/b`` for
      (discrete) Laplace noise of scale b, Δ(y − a − Δ/2)/σ² for Gaussian noise of standard
      deviation σ (the Neyman–Pearson optimal score for fixed cliques and independent noise);
    - ``"linear"``: Δ(y − a − Δ/2)/s with s the scale (b or σ²): the Gaussian ratio for every
      noise. For Laplace noise it keeps what the ratio's flat tails discard (``|y − a| > 1``), so a
      noise that is not fresh (reused across fits) still shifts the score by exactly Σ Δ²/s.

    The score is Σ of the terms. Laplace values clipped at 0 after the noise give the same
    ratio as the raw ones on the cells that matter (a canary cell with a = 0: the ratio is
    constant for y ≤ 0); the Gaussian ratio is linear in y, so a Gaussian view must hold the
    raw values (MST's and AIM's do). Cliques chosen by the mechanism (MST's tree, AIM's rounds) enter as they were
    chosen: given the choice, each measurement's ratio is the one above, so the sum is the
    ratio of the measurements. The choice itself is scored by the synthesizer's
    ``selection_log_ratio`` where it has one (MST's tree; :func:`.game.fit_and_score` adds it).

    Parameters
    ----------
    view : mapping or sequence
        A synthesizer's ``audit_view()`` (:func:`view_entries`): ``clique`` a tuple of column
        names, ``values`` the noisy marginal (an array of shape ``(levels of each column of the
        clique)``, or of the measured levels), ``noise`` one of ``"laplace"``,
        ``"discrete_laplace"``, ``"gaussian"``, ``scale`` b or σ and ``levels`` (optional, one
        integer array per column of the clique) the measured index of each original code: a
        marginal on a compressed domain (MST merges rare levels) is scored on the cell that
        holds the canary's codes.
    worlds : Worlds
    statistic : {"likelihood_ratio", "linear"}

    Returns
    -------
    float

    Raises
    ------
    ValueError
        An unknown noise or statistic, a non-positive scale, a clique naming a column outside
        the game, an entry of the wrong length.

    References
    ----------
    ``annamalai2024`` (white-box scores), ``ganev2026`` §4 (the measurements of MST and AIM).
    """
    if statistic not in _STATISTICS:
        raise ValueError(f"statistic must be one of {_STATISTICS}, got {statistic!r}")
    total = 0.0
    for clique, values, noise, scale, levels in view_entries(view):
        _check_view_entry(clique, noise, scale, worlds)
        gaussian = noise == "gaussian"
        values = np.asarray(values, dtype=float)
        for cell, a, delta in _cell_terms(worlds, clique, levels):
            y = float(values[cell])
            if statistic == "likelihood_ratio" and not gaussian:
                total += (abs(y - a) - abs(y - a - delta)) / scale
            else:
                total += delta * (y - a - delta / 2) / (scale**2 if gaussian else scale)
    return total


def _check_view_entry(clique: tuple, noise, scale, worlds: Worlds) -> None:
    if noise not in _NOISES:
        raise ValueError(
            f"audit_view: noise of clique {clique} must be one of {_NOISES}, got {noise!r}"
        )
    if not scale > 0:
        raise ValueError(f"audit_view: scale of clique {clique} must be > 0, got {scale!r}")
    unknown = [c for c in clique if c not in worlds.domain]
    if unknown:
        raise ValueError(f"audit_view: clique {clique} names columns {unknown} outside the game")

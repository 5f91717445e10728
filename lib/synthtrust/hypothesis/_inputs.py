"""Input validation of the two-sample tests: raw samples and per-bin counts.

Raw samples ``(..., n)`` with broadcasting leading (replicate) axes, and nonnegative integer
counts ``(..., n_bins)`` with optional bin values — the two input layers of
:mod:`synthtrust.hypothesis` (Montoya Perez et al. 2024 [``montoyaperez2024``], §3.4 and §4).
"""

from __future__ import annotations

import numpy as np

from synthtrust._validation import check_array


def two_samples(x, y, name_x="x", name_y="y"):
    """Validate raw samples and broadcast their leading (replicate) axes."""
    x = check_array(x, name_x)
    y = check_array(y, name_y)
    try:
        lead = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
    except ValueError:
        raise ValueError(
            f"leading (replicate) shapes of {name_x} {x.shape[:-1]} and {name_y} "
            f"{y.shape[:-1]} do not broadcast"
        ) from None
    x = np.broadcast_to(x, lead + x.shape[-1:])
    y = np.broadcast_to(y, lead + y.shape[-1:])
    return x, y, lead


def check_counts(c, name):
    """Nonnegative integer counts, at least 1-D with a nonempty last (bin) axis → int64."""
    if isinstance(c, (str, bytes)):
        raise TypeError(f"{name} must be an array of nonnegative integer counts, got a string")
    arr = np.asarray(c)
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(
            f"{name} must be an array of nonnegative integer counts, got dtype {arr.dtype}"
        )
    if arr.ndim < 1 or arr.shape[-1] == 0:
        raise ValueError(f"{name} must have shape (..., n_bins) with n_bins >= 1, got {arr.shape}")
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinite values; counts must be finite")
        if np.any(arr != np.round(arr)):
            raise ValueError(f"{name} must contain integer counts, got non-integer values")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be nonnegative, got minimum {arr.min()}")
    return np.asarray(arr, dtype=np.int64)


def two_counts(cx, cy, values=None, increasing=False):
    """Validate the per-bin counts of two samples and broadcast their leading axes.

    Parameters
    ----------
    cx, cy : array_like, shape (..., n_bins)
        Nonnegative integer counts (:func:`check_counts`), the same number of bins.
    values : array_like, shape (n_bins,), optional
        Finite bin values (``check_array``).
    increasing : bool
        Require ``values`` to be strictly increasing.

    Returns
    -------
    cx, cy : ndarray of int64, broadcast to one shape (..., n_bins)
    values : ndarray of float, shape (n_bins,), or None

    Raises
    ------
    TypeError
        Counts of a non-numeric or boolean dtype, or non-numeric ``values``.
    ValueError
        Invalid counts, different numbers of bins, leading shapes that do not broadcast,
        ``values`` of the wrong shape or not finite, or not increasing when asked.
    """
    cx = check_counts(cx, "cx")
    cy = check_counts(cy, "cy")
    if cx.shape[-1] != cy.shape[-1]:
        raise ValueError(
            f"cx and cy must have the same number of bins (last axis), got {cx.shape[-1]} "
            f"and {cy.shape[-1]}"
        )
    try:
        cx, cy = np.broadcast_arrays(cx, cy)
    except ValueError:
        raise ValueError(
            f"leading shapes of cx {cx.shape} and cy {cy.shape} do not broadcast"
        ) from None
    if values is not None:
        values = check_array(values, "values")
        if values.shape != (cx.shape[-1],):
            raise ValueError(
                f"values must have shape (n_bins,) = ({cx.shape[-1]},), got {values.shape}"
            )
        if increasing and np.any(np.diff(values) <= 0):
            raise ValueError("values (bin values) must be strictly increasing")
    return cx, cy, values

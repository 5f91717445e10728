"""Array operations on factors over column positions (numpy): align a factor to a larger one,
sum out columns, contract a product of factors (``np.einsum``), log-sum-exp over axes. Used by the
numpy junction tree and the warm start.

Source: the factor algebra of mbi's ``Factor`` [``mbi2026``].
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def align_factor(values: np.ndarray, attrs: Sequence[int], target: Sequence[int]) -> np.ndarray:
    """Reshape an array over ``attrs`` (a subset of ``target``) to broadcast against ``target``."""
    attrs = list(attrs)
    order = sorted(range(len(attrs)), key=lambda i: target.index(attrs[i]))
    v = np.transpose(values, order)
    shape = []
    j = 0
    ordered = [attrs[i] for i in order]
    for a in target:
        if j < len(ordered) and ordered[j] == a:
            shape.append(v.shape[j])
            j += 1
        else:
            shape.append(1)
    return v.reshape(shape)


def sum_to(values: np.ndarray, attrs: Sequence[int], keep: Sequence[int]) -> np.ndarray:
    """Σ over the axes of ``attrs`` not in ``keep``; result axes ordered like ``keep``."""
    attrs = list(attrs)
    axes = tuple(i for i, a in enumerate(attrs) if a not in keep)
    if axes:
        values = values.sum(axis=axes)
    rest = [a for a in attrs if a in keep]
    return np.transpose(values, [rest.index(a) for a in keep])


def contract_factors(
    factors: Sequence[tuple[tuple, np.ndarray]], keep: Sequence[int]
) -> np.ndarray:
    """Σ-product of factors (attrs, array) keeping ``keep`` (in that order), via ``np.einsum``."""
    labels: dict = {}
    args = []
    for attrs, arr in factors:
        args.append(arr)
        args.append([labels.setdefault(a, len(labels)) for a in attrs])
    out = [labels[a] for a in keep]
    if len(labels) > 52:
        raise ValueError("a junction-tree contraction involves more than 52 columns")
    return np.einsum(*args, out, optimize=True)


def logsumexp_keep(values: np.ndarray, axes: tuple) -> np.ndarray:
    """log Σ exp over ``axes`` with kept (size-1) axes; finite inputs (messages of potentials)."""
    if not axes:
        return values
    m = values.max(axis=axes, keepdims=True)
    t = values - m
    np.exp(t, out=t)  # in place: one temporary of the input's size, not two
    return np.log(t.sum(axis=axes, keepdims=True)) + m

"""Parameter validation shared by every module: clear errors that name the parameter."""

from __future__ import annotations

import numbers
import os

import numpy as np

__all__ = [
    "check_unit_interval",
    "check_real",
    "check_array",
    "check_delta",
    "check_epsilon",
    "check_int_at_least",
    "check_n_jobs",
    "check_positive_int",
    "check_random_state",
]


def check_random_state(random_state) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``random_state``.

    ``None`` gives fresh OS entropy, an ``int`` or ``SeedSequence`` seeds a PCG64 generator,
    and a ``Generator`` is returned as is.

    Raises
    ------
    TypeError
        For any other type (e.g. the legacy ``RandomState``).
    """
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.SeedSequence)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    raise TypeError(
        f"random_state must be None, an int, a SeedSequence or a numpy Generator, "
        f"got {type(random_state).__name__}"
    )


def check_real(value, name: str) -> float:
    """A finite real number (not bool); TypeError/ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Validate a privacy parameter ε: a finite real number > 0."""
    epsilon = check_real(epsilon, name)
    if epsilon <= 0:
        raise ValueError(f"{name} must be > 0, got {epsilon!r}")
    return epsilon


def check_delta(delta, name: str = "delta") -> float:
    """Validate a privacy parameter δ: a real number in the open interval (0, 1)."""
    delta = check_real(delta, name)
    if not 0 < delta < 1:
        raise ValueError(f"{name} must be in the open interval (0, 1), got {delta!r}")
    return delta


def _check_int(value, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value!r}")
    return int(value)


def check_int_at_least(value, name: str, low: int) -> int:
    """Validate an integer ≥ ``low`` (booleans rejected); TypeError/ValueError naming ``name``."""
    return _check_int(value, name, low)


def check_positive_int(value, name: str) -> int:
    """Validate an integer ≥ 1 (booleans rejected)."""
    return _check_int(value, name, 1)


def check_nonnegative_int(value, name: str) -> int:
    """Validate an integer ≥ 0 (booleans rejected)."""
    return _check_int(value, name, 0)


def check_array(x, name: str, ndim_min: int = 1) -> np.ndarray:
    """Convert ``x`` to a float array; reject NaN/inf, empty last axis and too few dimensions."""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric array-like: {exc}") from None
    if arr.ndim < ndim_min:
        raise ValueError(
            f"{name} must have at least {ndim_min} dimension(s), got shape {arr.shape}"
        )
    if arr.size == 0 or arr.shape[-1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); at least one observation is needed")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values; remove or impute them first")
    return arr


def check_real_range(
    value,
    name: str,
    low: float,
    high: float | None = None,
    *,
    low_open: bool = True,
    high_open: bool = True,
) -> float:
    """A finite real number in the interval from ``low`` to ``high`` (None: no upper end), each
    end open or closed; TypeError/ValueError naming ``name``, the value and the interval."""
    value = check_real(value, name)
    bad_low = value <= low if low_open else value < low
    bad_high = high is not None and (value >= high if high_open else value > high)
    if bad_low or bad_high:
        lo = f"{'(' if low_open else '['}{low}"
        hi = f"{high}{')' if high_open else ']'}" if high is not None else "inf)"
        raise ValueError(f"{name} must be in {lo}, {hi}, got {value!r}")
    return value


def check_unit_interval(value, name: str) -> float:
    """A real number strictly between 0 and 1 (e.g. α, a test share); TypeError/ValueError
    naming ``name`` and the value."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not 0 < value < 1:
        raise ValueError(f"{name} must be in the open interval (0, 1), got {value!r}")
    return value


def check_n_jobs(n_jobs) -> int:
    """Workers: None or -1 → all cores, -k → all but k − 1, k ≥ 1 → k; TypeError/ValueError
    naming ``n_jobs``."""
    if n_jobs is None:
        return os.cpu_count() or 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(
            f"n_jobs must be an integer or None, got {type(n_jobs).__name__} {n_jobs!r}"
        )
    if n_jobs == 0:
        raise ValueError("n_jobs must be >= 1, or negative (-1 = all cores), or None; got 0")
    n_jobs = int(n_jobs)
    if n_jobs < 0:
        n_jobs = max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return n_jobs

"""Parameter validation shared by every module: clear errors that name the parameter."""

from __future__ import annotations

import functools
import inspect
import numbers
import os
from collections.abc import Hashable, Iterable, Mapping, Sequence

import numpy as np
from sklearn.exceptions import NotFittedError

__all__ = [
    "NotFittedError",
    "check_domain",
    "check_is_fitted",
    "check_unique_items",
    "check_sample_frame",
    "validate_params",
    "tuple_of",
    "check_unit_interval",
    "check_real",
    "check_array",
    "check_choice",
    "check_codes",
    "check_column",
    "check_frame",
    "check_sample",
    "check_folder",
    "check_input_folder",
    "check_regex",
    "one_line",
    "check_random_state_param",
    "int_at_least",
    "int_in",
    "one_of",
    "increasing_of",
    "pair_of",
    "dict_of",
    "str_one_of",
    "optional",
    "real_in",
    "check_delta",
    "check_epsilon",
    "check_int_at_least",
    "check_real_array",
    "check_int_array",
    "check_generator",
    "check_instance",
    "check_names",
    "check_str",
    "check_rho",
    "check_int_range",
    "check_n_jobs",
    "check_positive_int",
    "check_random_state",
]


def check_is_fitted(estimator) -> None:
    """NotFittedError naming the class unless ``estimator`` has been fitted (its ``fit`` set
    ``_fitted``), as scikit-learn's ``utils.validation.check_is_fitted``."""
    if not getattr(estimator, "_fitted", False):
        raise NotFittedError(
            f"this {type(estimator).__name__} is not fitted yet; call fit(X) first"
        )


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


def check_real(
    value,
    name: str,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
) -> float:
    """A real number (not bool; numpy scalars accepted) as a float, optionally within bounds.

    ``low``/``high`` (None: no bound) are closed ends unless ``low_open``/``high_open``. NaN is
    always rejected; ±inf unless ``finite=False`` (then only the bounds apply).

    Raises
    ------
    TypeError
        Not a real number (a bool, a string, ...), naming ``name``, the type and the value.
    ValueError
        NaN, an infinite value with ``finite=True``, or a value outside the bounds; the message
        names ``name``, the value and the allowed interval.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    bounded = low is not None or high is not None
    lo = "(-inf" if low is None else f"{'(' if low_open else '['}{low}"
    hi = "inf)" if high is None else f"{high}{')' if high_open else ']'}"
    allowed = f"in {lo}, {hi}" if bounded else "a number"
    bad_low = low is not None and (value <= low if low_open else value < low)
    bad_high = high is not None and (value >= high if high_open else value > high)
    if np.isnan(value) or bad_low or bad_high:
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    if finite and np.isinf(value):
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


def check_int_range(value, name: str, low: int, high: int | None = None) -> int:
    """An integer in ``low..high`` (``high`` None: no upper bound), booleans rejected;
    TypeError/ValueError naming ``name``, the value and the allowed range."""
    allowed = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {allowed}, got {type(value).__name__} {value!r}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return int(value)


def check_rho(rho, name: str = "rho") -> float:
    """Validate a zCDP parameter ρ: a finite real number > 0 [``bun2016``]."""
    return check_epsilon(rho, name)


def check_str(value, name: str) -> str:
    """A string; TypeError naming ``name`` otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__} {value!r}")
    return value


def check_names(value, name: str) -> tuple:
    """An iterable of column names as a tuple; None gives ``()``. TypeError for a
    non-iterable; ValueError for a single string (an iterable of characters, almost always a
    forgotten list: ``["age"]``, not ``"age"``)."""
    if value is None:
        return ()
    if isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be a list of column names or None, got the string {value!r}")
    if not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of column names or None, got {value!r}")
    return tuple(value)


def check_instance(value, name: str, cls: type, *, allow_none: bool = False):
    """``value`` if it is an instance of ``cls`` (or None with ``allow_none``); TypeError
    naming ``name``, the class wanted and the type given otherwise."""
    if (value is None and allow_none) or isinstance(value, cls):
        return value
    wanted = f"a {cls.__name__}" + (" or None" if allow_none else "")
    raise TypeError(f"{name} must be {wanted}, got {type(value).__name__}")


def check_generator(generator, name: str):
    """An unfitted estimator with ``get_params``, ``fit`` and ``sample`` (the package's
    generator API); TypeError naming ``name`` otherwise."""
    if not (
        hasattr(generator, "get_params")
        and callable(getattr(generator, "fit", None))
        and callable(getattr(generator, "sample", None))
    ):
        raise TypeError(
            f"{name} must be an unfitted estimator with get_params, fit and sample "
            f"(e.g. synthtrust.synthesizers.IPF), got {type(generator).__name__}"
        )
    return generator


def check_int_array(value, name: str, low: int, high: int | None = None):
    """An integer in ``low..high`` (``high`` None: no upper bound; returned as ``int``) or an
    integer array with all entries in it (returned as an array)."""

    def check_one(x):
        return (
            check_int_at_least(x, name, low)
            if high is None
            else check_int_range(x, name, low, high)
        )

    if np.ndim(value) == 0 and not isinstance(value, np.ndarray):
        return check_one(value)
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer or an integer array, got dtype {arr.dtype}")
    if arr.ndim == 0:
        return check_one(arr.item())
    bad = (arr < low) | (arr > high) if high is not None else arr < low
    if bad.any():
        allowed = f">= {low}" if high is None else f"in {low}..{high}"
        raise ValueError(f"{name} must be {allowed}, got {arr[bad].flat[0].item()!r}")
    return arr


def check_real_array(value, name: str, low: float, *, low_open: bool):
    """A finite real ≥ (or > with ``low_open``) ``low`` as ``float``, or a float array of such
    values."""
    if np.ndim(value) == 0 and not isinstance(value, np.ndarray):
        return check_real(value, name, low, low_open=low_open)
    arr = np.asarray(value)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a real number or a real array, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if arr.ndim == 0:
        return check_real(arr.item(), name, low, low_open=low_open)
    bad = ~np.isfinite(arr) | ((arr <= low) if low_open else (arr < low))
    if bad.any():
        allowed = f"finite and {'>' if low_open else '>='} {low}"
        raise ValueError(f"{name} must be {allowed}, got {arr[bad].flat[0].item()!r}")
    return arr


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


def check_domain(
    domain, columns=None, *, name: str = "domain", min_levels: int = 1, str_keys: bool = False
) -> dict:
    """Validate a domain ``{column: number of levels}`` and return it as a plain dict.

    If ``columns`` is given, the domain must have exactly these columns; the result is ordered like
    ``columns``. ``min_levels`` is the fewest levels a column may have (a generator card asks 2);
    ``str_keys`` asks the column names to be non-empty strings (a card is written as JSON).

    Raises
    ------
    TypeError
        ``domain`` not a mapping; a level count not an integer; a column name not a string
        (``str_keys``).
    ValueError
        Empty domain; a level count < ``min_levels``; columns missing from or extra to the domain.
    """
    if not isinstance(domain, Mapping):
        raise TypeError(
            f"{name} must be a dict {{column: number of levels}}, got {type(domain).__name__}"
        )
    if len(domain) == 0:
        raise ValueError(f"{name} is empty; give {{column: number of levels}} for every column")
    bad_keys = [c for c in domain if not (isinstance(c, str) and c)] if str_keys else []
    if bad_keys:
        raise TypeError(f"{name}: column names must be non-empty strings, got {bad_keys[0]!r}")
    checked = {col: check_int_range(k, f"{name}[{col!r}]", min_levels) for col, k in domain.items()}
    if columns is not None:
        columns = list(columns)
        missing = [c for c in columns if c not in checked]
        extra = [c for c in checked if c not in columns]
        if missing:
            raise ValueError(
                f"columns {missing} of the data are not in the {name} ({name} has {list(checked)})"
            )
        if extra:
            raise ValueError(f"{name} columns {extra} are not in the data (data has {columns})")
        checked = {c: checked[c] for c in columns}
    return checked


def check_real_range(
    value,
    name: str,
    low: float,
    high: float | None = None,
    *,
    low_open: bool = True,
    high_open: bool = True,
) -> float:
    """:func:`check_real` with a lower bound and open ends by default."""
    return check_real(value, name, low, high, low_open=low_open, high_open=high_open)


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


def check_random_state_param(random_state, name: str = "random_state") -> None:
    """Validate a ``random_state`` parameter without drawing from it: None, an int ≥ 0 (numpy
    rejects negative seeds), a SeedSequence or a numpy Generator."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"{name} must be a non-negative int seed, got {random_state!r}")
    elif not (
        random_state is None
        or isinstance(random_state, (np.random.Generator, np.random.SeedSequence))
    ):
        raise TypeError(
            f"{name} must be None, an int, a SeedSequence or a numpy Generator, "
            f"got {type(random_state).__name__} {random_state!r}"
        )


def check_choice(value, name: str, options) -> object:
    """``value`` if it is one of ``options``; ValueError naming ``name``, the value and the
    options otherwise."""
    if isinstance(value, Hashable) and value in options:
        return value
    raise ValueError(f"{name} must be one of {tuple(options)}, got {value!r}")


def check_sample_frame(sample, n: int, columns, name: str = "the generator's sample"):
    """A generator's ``sample(n)``: a DataFrame of ``n`` rows holding ``columns``, returned with
    exactly these columns in this order.

    Raises
    ------
    TypeError
        Not a DataFrame.
    ValueError
        Not ``n`` rows; a missing column (the error names ``name`` and the columns).
    """
    import pandas as pd

    if not isinstance(sample, pd.DataFrame):
        raise TypeError(f"sample({n}) must return a pandas DataFrame, got {type(sample).__name__}")
    if len(sample) != n:
        raise ValueError(f"sample({n}) returned {len(sample)} rows; it must return {n}")
    return check_frame(sample, name, columns, min_rows=0)[list(columns)]


def check_sample(sample, domain: dict, n: int) -> np.ndarray:
    """A generator's ``sample(n)`` as the int64 codes of the columns of ``domain`` (rows, columns
    in domain order): a DataFrame of n rows with codes 0..levels − 1 (:func:`check_sample_frame`,
    :func:`check_codes`).

    Raises
    ------
    TypeError
        Not a DataFrame; a column that is not numeric.
    ValueError
        Not n rows; a missing column; a missing, non-integral or out-of-range code.
    """
    name = "the generator's sample"
    return check_codes(check_sample_frame(sample, n, domain, name), domain, name)


def check_unique_items(value, name: str, check=None, *, min_len: int = 0) -> list:
    """A sequence (not a string) of at least ``min_len`` distinct items, each passing
    ``check(item)`` if given, as a list; TypeError/ValueError naming ``name`` and the repeated
    item otherwise (e.g. a ranking, a list of classifier names)."""
    import pandas as pd

    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray, pd.Index)):
        raise TypeError(f"{name} must be a sequence of items, got {type(value).__name__}")
    items = list(value)
    if len(items) < min_len:
        raise ValueError(f"{name} must hold at least {min_len} item(s), got {items!r}")
    seen = set()
    for item in items:
        if check is not None:
            check(item)
        if item in seen:
            raise ValueError(f"{name} has the item {item!r} twice; its items must be distinct")
        seen.add(item)
    return items


def validate_params(constraints: dict):
    """Decorator that checks the named arguments of a function, before the call, with the
    checkers of ``constraints`` (``{parameter: check(value, name)}``, the form of the estimators'
    ``_parameter_constraints``) and passes on the checked values, as scikit-learn's
    ``utils._param_validation.validate_params``.

    Examples
    --------
    >>> @validate_params({"k": int_at_least(1)})
    ... def f(k):
    ...     return k
    >>> f(0)
    Traceback (most recent call last):
    ...
    ValueError: k must be >= 1, got 0
    """

    def decorate(func):
        signature = inspect.signature(func)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:
            raise TypeError(f"{func.__name__} has no parameter(s) {sorted(unknown)}")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, check in constraints.items():
                bound.arguments[name] = check(bound.arguments[name], name)
            return func(*bound.args, **bound.kwargs)

        return wrapper

    return decorate


def one_line(error) -> str:
    """An error's text on one line (a parser's multi-line message with its caret drawing
    becomes one line of words), for the command line's one-line errors."""
    return " ".join(str(error).split())


def check_folder(path, name: str):
    """``path`` as a :class:`~pathlib.Path` if it can be an output folder: a folder, or a path
    whose nearest existing ancestor is a writable folder.

    Raises
    ------
    ValueError
        ``path`` (or an ancestor) is a file, or the ancestor is not writable (the message names
        ``name`` and the path).
    """
    from pathlib import Path

    path = Path(path)
    parent = path
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{name} {path}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK):
        raise ValueError(f"{name} {path}: {parent} is not writable")
    return path


def check_input_folder(path, name: str, *, containing: str, what: str):
    """``path`` as a :class:`~pathlib.Path` if it is a folder holding the folder
    ``containing`` (e.g. a run folder and its ``results/``).

    Raises
    ------
    ValueError
        ``path`` is not a folder, or lacks ``containing``; the message names ``name``, the
        path and ``what`` the folder should be.
    """
    from pathlib import Path

    path = Path(path)
    if not (path / containing).is_dir():
        problem = f"has no {containing}/ folder" if path.is_dir() else "is not a folder"
        raise ValueError(f"{name}: {path} {problem}; pass {what}")
    return path


def check_regex(value, name: str):
    """``value`` compiled (:func:`re.compile`) if it is a non-empty regular expression.

    Raises
    ------
    TypeError
        ``value`` is not a string.
    ValueError
        ``value`` is empty (it would match every name) or is not a regular expression; the
        message names ``name`` and the value.
    """
    import re

    if not isinstance(value, str):
        raise TypeError(f"{name} must be a regular expression (str), got {value!r}")
    if not value:
        raise ValueError(f"{name}: an empty pattern matches every name")
    try:
        return re.compile(value)
    except re.error as exc:
        raise ValueError(f"{name}: {value!r} is not a regular expression ({exc})") from None


def check_parameters(params, keys) -> Mapping:
    """A chapter study's ``params``: a mapping holding every key of ``keys``; TypeError for
    another type, ValueError naming the missing keys and the keys the study needs."""
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping of the chapter's parameters, got {params!r}")
    missing = [k for k in keys if k not in params]
    if missing:
        raise ValueError(f"params lacks {missing}; the study needs {list(keys)}")
    return params


def check_frame(data, name: str, columns=(), *, min_rows: int = 1):
    """Check that ``data`` is a pandas DataFrame with the ``columns`` and ≥ ``min_rows`` rows.

    Returns ``data`` unchanged. Raises TypeError if it is not a DataFrame; ValueError, naming
    ``name``, if it lacks one of ``columns`` (the missing ones and the present ones listed) or
    has fewer than ``min_rows`` rows.
    """
    import pandas as pd

    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(data).__name__}")
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {missing}; it has {list(data.columns)}")
    if len(data) < min_rows:
        rows = "no rows" if len(data) == 0 else f"{len(data)} row(s), fewer than {min_rows}"
        raise ValueError(f"{name} has {rows} (columns {list(data.columns)})")
    return data


def check_column(frame, column, name: str):
    """``column`` if it is a string naming a column of the DataFrame ``frame``; TypeError or
    ValueError naming ``name``, the value and the columns otherwise."""
    if not isinstance(column, str):
        raise TypeError(f"{name} must be a column name (str), got {type(column).__name__}")
    if column not in frame.columns:
        raise ValueError(
            f"{name}={column!r} is not a column of df; columns are {list(map(str, frame.columns))}"
        )
    return column


def check_codes(frame, domain: dict, name: str) -> np.ndarray:
    """The columns of ``domain`` of the table ``frame`` as an int64 array (rows, columns), each
    column holding codes 0..levels − 1.

    Raises
    ------
    TypeError
        ``frame`` is not a DataFrame; a column is not numeric.
    ValueError
        ``frame`` has no rows or lacks a column of ``domain``; a column holds a missing,
        non-integral or out-of-range code (the error names the column, the value and the range).
    """
    check_frame(frame, name, domain)
    out = np.empty((len(frame), len(domain)), dtype=np.int64)
    for j, (col, levels) in enumerate(domain.items()):
        values = frame[col].to_numpy()
        if values.dtype.kind not in "iuf":
            raise TypeError(
                f"{name}: column {col!r} must hold integer codes 0..{levels - 1}, got dtype "
                f"{values.dtype}"
            )
        bad = ~np.isfinite(values) | (values != np.round(values)) | (values < 0)
        bad |= values >= levels
        if bad.any():
            raise ValueError(
                f"{name}: column {col!r} must hold integer codes 0..{levels - 1}, got "
                f"{values[bad][0].item()!r}"
            )
        out[:, j] = values
    return out


# --------------------------------------------------------------------------------------------
# checkers for the ``_parameter_constraints`` tables of the estimators: ``check(value, name)``
# --------------------------------------------------------------------------------------------
def optional(check):
    """The checker that accepts None and otherwise applies ``check(value, name)``."""

    def check_optional(value, name: str):
        return None if value is None else check(value, name)

    return check_optional


def real_in(low=None, high=None, *, low_open: bool = False, high_open: bool = False):
    """The checker of a finite real number in an interval (see :func:`check_real`)."""

    def check_real_in(value, name: str) -> float:
        return check_real(value, name, low, high, low_open=low_open, high_open=high_open)

    return check_real_in


def int_at_least(low: int):
    """The checker of an integer ≥ ``low`` (see :func:`check_int_at_least`)."""

    def check_int(value, name: str) -> int:
        return _check_int(value, name, low)

    return check_int


def int_in(low: int, high: int):
    """The checker of an integer in ``low..high`` (see :func:`check_int_range`)."""

    def check_int(value, name: str) -> int:
        return check_int_range(value, name, low, high)

    return check_int


def one_of(*options):
    """The checker of a value among ``options`` (see :func:`check_choice`)."""

    def check_one_of(value, name: str):
        return check_choice(value, name, options)

    return check_one_of


def str_one_of(*options: str):
    """The checker of a string among ``options``: TypeError for a non-string, ValueError for
    another string, both naming the parameter and the options."""

    def check_str_one_of(value, name: str) -> str:
        if not isinstance(value, str):
            raise TypeError(
                f"{name} must be one of {options}, got {type(value).__name__} {value!r}"
            )
        return check_choice(value, name, options)

    return check_str_one_of


def dict_of(check, what: str = "a dict"):
    """The checker of a mapping whose values pass ``check(value, f"{name}[{key!r}]")``; returns
    a plain dict. ``what`` describes the mapping in the TypeError (e.g. ``"a dict {column:
    family}"``)."""

    def check_dict_of(value, name: str) -> dict:
        if not isinstance(value, Mapping):
            raise TypeError(f"{name} must be {what}, got {type(value).__name__}")
        return {k: check(v, f"{name}[{k!r}]") for k, v in value.items()}

    return check_dict_of


def tuple_of(check, length: int, what: str):
    """The checker of a sequence of exactly ``length`` values, each passing ``check``; returns
    a tuple. ValueError names ``what`` (e.g. ``"a list of 3 values (App. 1, 2, 3)"``)."""

    def check_tuple_of(value, name: str) -> tuple:
        if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != length:
            raise ValueError(f"{name} must be {what}, got {value!r}")
        return tuple(check(v, f"{name}[{i}]") for i, v in enumerate(value))

    return check_tuple_of


def pair_of(check, what: str = "a pair"):
    """The checker of a sequence of exactly two values, each passing ``check``; returns a
    tuple. ValueError names ``what`` (e.g. ``"a pair (beta1, beta2) in [0, 1)"``)."""
    return tuple_of(check, 2, what)


def increasing_of(check, what: str = "values"):
    """The checker of a non-empty, strictly increasing sequence of values passing ``check``;
    returns a list."""

    def check_increasing_of(value, name: str) -> list:
        if isinstance(value, str) or not isinstance(value, Sequence) or not value:
            raise ValueError(f"{name} must be a non-empty sequence of {what}, got {value!r}")
        values = [check(v, f"{name}[{i}]") for i, v in enumerate(value)]
        if any(b <= a for a, b in zip(values[:-1], values[1:], strict=True)):
            raise ValueError(f"{name} must be strictly increasing, got {list(value)!r}")
        return values

    return check_increasing_of

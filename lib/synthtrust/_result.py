"""The result protocol every result object of the package follows (scipy.stats style):
``to_dict()`` gives its fields as plain, JSON-safe Python values and ``to_json()`` returns that
dict as a JSON string. Results do not write files (the CLI does, atomically) and do not render
HTML (:mod:`synthtrust.presentation.report` does, one entry point per result kind)."""

from __future__ import annotations

import json
import math
from dataclasses import fields
from typing import Any

import numpy as np

__all__ = ["ResultMixin", "json_value", "python_scalar"]


def python_scalar(value: Any) -> Any:
    """A NumPy scalar as the Python value (``np.int64(7)`` → ``7``); anything else as it is."""
    return value.item() if isinstance(value, np.generic) else value


def json_value(x: Any) -> Any:
    """``x`` with NumPy scalars and arrays as Python numbers and lists, tuples as lists, keys as
    strings, and NaN or ±inf as None (JSON has no non-finite numbers)."""
    if isinstance(x, dict):
        return {str(k): json_value(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_value(v) for v in x]
    if isinstance(x, np.ndarray):
        return [json_value(v) for v in x.tolist()]
    x = python_scalar(x)
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


class ResultMixin:
    """``to_dict`` and ``to_json`` for a dataclass result: the fields shown in its ``repr``
    (fitted models and other objects are declared with ``field(repr=False)``)."""

    def to_dict(self) -> dict:
        """The fields as plain Python values (:func:`json_value`)."""
        return json_value({f.name: getattr(self, f.name) for f in fields(self) if f.repr})

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`to_dict` as a JSON string (UTF-8 text, no NaN)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)

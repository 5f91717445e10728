"""A categorical column over a public list of categories: code = position in the list,
decoded exactly; an optional missing token gets the last code.

The domain is public input of a DP mechanism [``privatepgm2025``]: the categories come from
documentation, never from the private rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._values import (
    MAX_ALLOWED_SHOWN,
    as_series,
    bool_safe_keys,
    check_codes,
    check_token,
    column_label,
    json_scalar,
    show_values,
    token_mask,
)


@dataclass(frozen=True)
class Categorical:
    """A categorical column with a public list of categories.

    Parameters
    ----------
    categories : sequence of str, int, float or bool
        The allowed values, unique; code ``i`` is ``categories[i]``. ``True`` and ``1`` are
        different categories (a bool column needs ``[False, True]``).
    missing : str, int, float, bool or None
        ``None`` (default): missing values are an error. Otherwise a token (e.g. ``"NA"`` or
        ``"?"``): NaN/None/``pd.NA`` and values equal to the token get the last code
        ``len(categories)``, which decodes to NaN. The token must not be a category.

    Codes: ``size = len(categories) + (missing is not None)``. Decoding is exact; the dtype is
    what pandas gives the category values (``str``, ``int64``, ``bool``; ``float64`` or
    ``object`` if a decoded value is missing).

    Raises
    ------
    ValueError
        Duplicate categories, NaN among them, no categories and no missing token, or a token
        that is also a category.
    TypeError
        A category or token that is not a JSON scalar.
    """

    categories: tuple
    missing: object = None

    def __post_init__(self):
        if isinstance(self.categories, (str, bytes)) or not isinstance(
            self.categories, (Sequence, np.ndarray, pd.Index, pd.Series)
        ):
            raise TypeError(
                "Categorical: categories must be a list of values, got "
                f"{type(self.categories).__name__} {self.categories!r}"
            )
        cats = []
        for i, c in enumerate(self.categories):
            if c is None or c is pd.NA or (isinstance(c, float) and math.isnan(c)):
                raise ValueError(
                    f"Categorical: categories[{i}] is missing ({c!r}); "
                    "use missing=<token> for missing values"
                )
            cats.append(json_scalar(c, f"Categorical: categories[{i}]"))
        token = check_token(self.missing, "Categorical")
        index = pd.Index(cats)
        if not index.is_unique:
            dup = index[index.duplicated()].tolist()
            raise ValueError(f"Categorical: duplicate categories {show_values(dup)}")
        if not cats and token is None:
            raise ValueError("Categorical: needs at least one category or a missing token")
        if token is not None and (index.get_indexer([token]) >= 0).any():
            raise ValueError(f"Categorical: missing token {token!r} is also a category")
        object.__setattr__(self, "categories", tuple(cats))
        object.__setattr__(self, "missing", token)

    @property
    def size(self) -> int:
        """Number of codes ``k``."""
        return len(self.categories) + (self.missing is not None)

    def labels(self) -> list[str]:
        """One human-readable label per code (for tables and charts)."""
        out = [str(c) for c in self.categories]
        return out + [str(self.missing)] if self.missing is not None else out

    def encode(self, values, column=None) -> np.ndarray:
        """Codes of ``values`` (1-D array-like, length n) as an int64 array of shape (n,).

        Raises
        ------
        ValueError
            A value not in ``categories`` ("unseen category", naming the column, the value and
            the allowed categories), or a missing value without a missing token.
        """
        series = as_series(values, column)
        # factorize once (fast), then look the few distinct values up in the categories
        row_codes, keys = pd.factorize(bool_safe_keys(series), use_na_sentinel=True)
        rows = np.flatnonzero(row_codes >= 0)
        first = rows[np.unique(row_codes[rows], return_index=True)[1]]  # a row per unique key
        uniques = pd.Series(series.to_numpy()[first])
        categories = bool_safe_keys(pd.Series(list(self.categories), dtype=object))
        unique_codes = pd.Index(categories).get_indexer(keys).astype(np.int64)
        unique_codes[token_mask(uniques, self.missing)] = self.size - 1
        codes = np.append(unique_codes, -1)[row_codes]  # NA rows (row code -1) -> -1
        unknown = codes < 0
        if unknown.any():
            isna = series.isna().to_numpy()
            na = unknown & isna
            if na.any():
                if self.missing is None:
                    raise ValueError(
                        f"{column_label(column)}: {int(na.sum())} missing value(s) (NaN/None) but the "
                        "Categorical has no missing token; pass missing=<token> (e.g. 'NA') to "
                        "give missing values their own code"
                    )
                codes[na] = self.size - 1
            unseen = unknown & ~isna
            if unseen.any():
                bad = pd.unique(series[unseen].to_numpy(dtype=object))
                allowed = list(self.categories)
                shown = repr(allowed[:MAX_ALLOWED_SHOWN])
                if len(allowed) > MAX_ALLOWED_SHOWN:
                    shown = shown[:-1] + f", ... ({len(allowed)} in all)]"
                token = f"; missing token {self.missing!r}" if self.missing is not None else ""
                raise ValueError(
                    f"{column_label(column)}: unseen category {show_values(bad)} "
                    f"({int(unseen.sum())} row(s)); allowed categories: {shown}{token}"
                )
        return codes

    def decode(self, codes, random_state=None, column=None) -> pd.Series:
        """Values of ``codes`` (int array-like, shape (n,)), exactly; ``random_state`` unused."""
        codes = check_codes(codes, self.size, column)
        if self.missing is not None:
            codes = np.where(codes == self.size - 1, -1, codes)
        index = pd.Index(list(self.categories))
        return pd.Series(index.take(codes, allow_fill=True, fill_value=np.nan), name=column)

    def to_dict(self) -> dict:
        """JSON-serialisable description (see :meth:`Domain.to_dict`)."""
        return {"type": "categorical", "categories": list(self.categories), "missing": self.missing}

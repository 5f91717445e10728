"""The public domain of a table: one column specification per column, the table's encoding
to integer codes and back, and its JSON/YAML (de)serialisation.

The coded table is the input of the marginal synthesizers, as ``mbi.Domain`` and Private-PGM's
``*-domain.json`` [``privatepgm2025``].
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._validation import check_frame, check_random_state
from ._values import check_integer
from .categorical import Categorical
from .numeric import Numeric
from .ordinal import Ordinal

_SPEC_TYPES = (Categorical, Numeric, Ordinal)
_SPEC_KEYS = {
    "categorical": (Categorical, {"categories"}, {"missing"}),
    "numeric": (Numeric, {"bins"}, {"missing", "integer", "clip"}),
    "ordinal": (Ordinal, {"lo", "hi"}, {"missing"}),
}


def _spec_from_dict(column: str, d) -> Categorical | Numeric | Ordinal:
    if not isinstance(d, Mapping):
        raise TypeError(f"column {column!r}: spec must be a mapping, got {type(d).__name__} {d!r}")
    kind = d.get("type")
    if kind not in _SPEC_KEYS:
        raise ValueError(
            f"column {column!r}: unknown spec type {kind!r}; allowed: {', '.join(_SPEC_KEYS)}"
        )
    cls, required, optional = _SPEC_KEYS[kind]
    keys = set(d) - {"type", "name"}
    if required - keys or keys - required - optional:
        raise ValueError(
            f"column {column!r}: a {kind} spec needs keys {sorted(required)} and may have "
            f"{sorted(optional)}, got {sorted(keys)}"
        )
    kwargs = {k: d[k] for k in keys}
    if kind == "numeric":
        kwargs["bins"] = list(kwargs["bins"])  # JSON/YAML lists are edges
    return cls(**kwargs)


class Domain:
    """The public domain of a table: one spec per column, and the encoding it defines.

    Parameters
    ----------
    specs : mapping {column name (str): Categorical | Numeric | Ordinal}
        In column order.

    The properties ``columns``, ``sizes`` and ``cells`` describe the coded table.

    Examples
    --------
    ::

        dom = Domain({"sex": Categorical(["F", "M"]), "age": Numeric([0, 50, 120], integer=True)})
        codes = dom.encode(df)                   # int64 codes, columns ["sex", "age"]
        synth = dom.decode(codes, random_state=0)  # same types as df; ages uniform in their bin

    Raises
    ------
    TypeError
        ``specs`` not a mapping, a column name that is not a str, a spec of another type.
    ValueError
        No columns.
    """

    def __init__(self, specs: Mapping):
        if not isinstance(specs, Mapping):
            raise TypeError(
                f"Domain: specs must be a mapping {{column: spec}}, got {type(specs).__name__}"
            )
        if not specs:
            raise ValueError("Domain: needs at least one column")
        for name, spec in specs.items():
            if not isinstance(name, str):
                raise TypeError(f"Domain: column names must be str, got {name!r}")
            if not isinstance(spec, _SPEC_TYPES):
                raise TypeError(
                    f"column {name!r}: spec must be Categorical, Numeric or Ordinal, got "
                    f"{type(spec).__name__} {spec!r}"
                )
        self._specs: dict[str, Categorical | Numeric | Ordinal] = dict(specs)

    # ---------------------------------------------------------------- introspection
    @property
    def columns(self) -> list[str]:
        """Column names in order (a new list)."""
        return list(self._specs)

    @property
    def sizes(self) -> dict[str, int]:
        """``{column: number of codes}`` in column order (a new dict): the input the marginal
        synthesizers take, as ``mbi.Domain`` / private-pgm's ``*-domain.json``."""
        return {name: spec.size for name, spec in self._specs.items()}

    @property
    def specs(self) -> dict:
        """``{column: spec}`` in column order (a new dict; specs are immutable)."""
        return dict(self._specs)

    @property
    def cells(self) -> int:
        """``prod(sizes)``, the size of the full contingency table (Python int, no overflow)."""
        return math.prod(self.sizes.values())

    def __getitem__(self, column: str):
        try:
            return self._specs[column]
        except KeyError:
            raise KeyError(
                f"column {column!r} is not in the domain; columns: {self.columns}"
            ) from None

    def __contains__(self, column) -> bool:
        return column in self._specs

    def __len__(self) -> int:
        return len(self._specs)

    def __iter__(self):
        return iter(self._specs)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Domain):
            return NotImplemented
        return list(self._specs.items()) == list(other._specs.items())

    __hash__ = None

    def __repr__(self) -> str:
        cells = self.cells
        shown = str(cells) if cells < 10**9 else f"{cells:.3g}"
        return f"Domain(columns={len(self)}, cells={shown}, sizes={self.sizes})"

    def labels(self, column: str) -> list[str]:
        """Human-readable label of each code of ``column`` (e.g. ``'[0, 10)'``, ``'F'``)."""
        return self[column].labels()

    def select(self, columns: Sequence[str]) -> Domain:
        """The domain of a subset of the columns, in the given order.

        Raises
        ------
        ValueError
            A column not in the domain, or a repeated column.
        """
        columns = list(columns)
        unknown = [c for c in columns if c not in self._specs]
        if unknown:
            raise ValueError(f"columns {unknown} are not in the domain; columns: {self.columns}")
        if len(set(columns)) != len(columns):
            raise ValueError(f"repeated columns in {columns}")
        return Domain({c: self._specs[c] for c in columns})

    # ---------------------------------------------------------------- encode / decode
    def _check_frame(self, df, what: str) -> None:
        """``df`` holds exactly the domain's columns, once each (any order, any rows)."""
        check_frame(df, what, min_rows=0)
        if df.columns.has_duplicates:
            dup = df.columns[df.columns.duplicated()].tolist()
            raise ValueError(f"{what} has duplicated columns {dup}")
        missing = [c for c in self._specs if c not in df.columns]
        extra = [c for c in df.columns if c not in self._specs]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"columns of the domain missing from {what}: {missing}")
            if extra:
                parts.append(f"columns of {what} not in the domain: {extra}")
            raise ValueError(
                "; ".join(parts) + " (use Domain.select(...) or df[domain.columns] to align)"
            )

    def encode(self, df: pd.DataFrame) -> pd.DataFrame:
        """Integer codes of a table.

        Parameters
        ----------
        df : pandas.DataFrame, shape (n, d)
            Exactly the domain's columns (any order).

        Returns
        -------
        pandas.DataFrame, shape (n, d)
            int64 codes ``0..k-1`` per column, columns in ``self.columns`` order, ``df``'s index.

        Raises
        ------
        ValueError
            Columns missing or extra (named), an unseen category, a value outside the public
            bounds, a missing value in a column without a missing token.
        TypeError
            ``df`` not a DataFrame; non-numeric values in a Numeric/Ordinal column.
        """
        self._check_frame(df, "df")
        out = {name: spec.encode(df[name], column=name) for name, spec in self._specs.items()}
        return pd.DataFrame(out, index=df.index, columns=self.columns)

    def decode(self, codes, random_state=None) -> pd.DataFrame:
        """Values of a table of codes (the inverse of :meth:`encode`, up to within-bin position).

        Parameters
        ----------
        codes : pandas.DataFrame (n, d) with the domain's columns, or array (n, d) in
            ``self.columns`` order
            Integer codes ``0..k-1`` (integer-valued floats are accepted).
        random_state : int, numpy.random.Generator or None
            For the within-bin draws of Numeric columns (columns consume the stream in
            ``self.columns`` order). Same seed → same frame.

        Returns
        -------
        pandas.DataFrame, shape (n, d)
            Columns in ``self.columns`` order, the original types: categories exactly, ordinal
            values exactly, numeric values uniform within their bin; missing codes → NaN.

        Raises
        ------
        ValueError
            Columns missing/extra, wrong array shape, codes outside ``0..k-1``.
        TypeError
            Non-integer codes dtype, a bad ``random_state``.
        """
        if isinstance(codes, np.ndarray):
            if codes.ndim != 2 or codes.shape[1] != len(self):
                raise ValueError(
                    f"codes array must have shape (n, {len(self)}) (columns {self.columns}), "
                    f"got {codes.shape}"
                )
            codes = pd.DataFrame(codes, columns=self.columns)
        self._check_frame(codes, "codes")
        rng = check_random_state(random_state)
        out = {}
        for name, spec in self._specs.items():
            values = spec.decode(codes[name], random_state=rng, column=name)
            values.index = codes.index
            out[name] = values
        return pd.DataFrame(out, index=codes.index, columns=self.columns)

    # ---------------------------------------------------------------- (de)serialisation
    def to_dict(self) -> dict:
        """JSON/YAML-serialisable description, round-tripped by :meth:`from_dict`.

        Returns
        -------
        dict
            ``{"columns": [{"name": col, "type": "categorical"|"numeric"|"ordinal", ...}]}``
            (a list, so the column order survives YAML dumpers that sort keys).
        """
        return {"columns": [{"name": name, **spec.to_dict()} for name, spec in self._specs.items()]}

    @classmethod
    def from_dict(cls, d: Mapping) -> Domain:
        """Domain from :meth:`to_dict`'s output, or from a mapping ``{column: spec dict}``.

        A spec dict is ``{"type": "categorical", "categories": [...], "missing": None}``,
        ``{"type": "numeric", "bins": [edges...], "missing": None, "integer": False,
        "clip": False}`` or ``{"type": "ordinal", "lo": 0, "hi": 9, "missing": None}``
        (optional keys may be left out).

        Raises
        ------
        ValueError
            Unknown spec type or keys, repeated column names, invalid spec values.
        TypeError
            Not a mapping; a column entry that is not a mapping.
        """
        if not isinstance(d, Mapping):
            raise TypeError(f"Domain.from_dict: expected a mapping, got {type(d).__name__}")
        if set(d) == {"columns"} and isinstance(d["columns"], list):
            specs = {}
            for i, entry in enumerate(d["columns"]):
                if not isinstance(entry, Mapping) or "name" not in entry:
                    raise ValueError(
                        f"Domain.from_dict: columns[{i}] needs a 'name', got {entry!r}"
                    )
                name = entry["name"]
                if name in specs:
                    raise ValueError(f"Domain.from_dict: column {name!r} appears twice")
                specs[name] = _spec_from_dict(name, entry)
            return cls(specs)
        return cls({name: _spec_from_dict(name, spec) for name, spec in d.items()})

    @classmethod
    def from_sizes(cls, sizes: Mapping[str, int]) -> Domain:
        """Domain of already integer-coded data: column ``c`` holds codes ``0..sizes[c]-1``.

        Encoding and decoding are the identity (each column is ``Ordinal(0, k - 1)``). This is
        the format of private-pgm's ``data/*-domain.json`` (e.g.
        ``data/adult_pgm_discretized_domain.json``).

        Raises
        ------
        TypeError
            A size that is not an int.
        ValueError
            A size < 1.
        """
        if not isinstance(sizes, Mapping):
            raise TypeError(f"Domain.from_sizes: expected a mapping, got {type(sizes).__name__}")
        specs = {}
        for name, k in sizes.items():
            k = check_integer(k, f"size of column {name!r}")
            if k < 1:
                raise ValueError(f"size of column {name!r} must be >= 1, got {k}")
            specs[name] = Ordinal(0, k - 1)
        return cls(specs)

    @classmethod
    def infer(
        cls,
        df: pd.DataFrame,
        n_bins: int = 10,
        max_categories: int = 10,
        missing: str = "NA",
    ) -> Domain:
        """NON-PRIVATE convenience: a domain read off the data itself (warns).

        Columns of dtype object/str/bool/category, and numeric columns with at most
        ``max_categories`` distinct values, become :class:`Categorical` (sorted observed
        values, or the dtype's categories); other numeric columns become :class:`Numeric` with
        ``n_bins`` equal-width bins over the observed ``[min, max]`` (``integer=True`` if all
        values are whole numbers; fewer bins if the integer range is shorter). Columns with
        missing values get the token ``missing``.

        The observed categories and min/max are functions of the private rows, so a DP
        mechanism run on this domain is **not** differentially private. Use public specs.

        Warns
        -----
        UserWarning
            Always: "Domain.infer reads the domain from the data; it is not differentially
            private".

        Raises
        ------
        TypeError
            ``df`` not a DataFrame; a column of an unsupported dtype (e.g. datetime).
        ValueError
            Empty ``df``.
        """
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"Domain.infer: df must be a pandas DataFrame, got {type(df).__name__}")
        n_bins = check_integer(n_bins, "n_bins")
        max_categories = check_integer(max_categories, "max_categories")
        if n_bins < 1 or max_categories < 1:
            raise ValueError(
                f"n_bins and max_categories must be >= 1, got {n_bins}, {max_categories}"
            )
        if df.shape[1] == 0 or df.shape[0] == 0:
            raise ValueError(f"Domain.infer: df is empty (shape {df.shape})")
        warnings.warn(
            "Domain.infer reads the domain (categories, min/max) from the data; it is not "
            "differentially private. Use public bounds (Categorical/Numeric/Ordinal) for a DP "
            "release.",
            UserWarning,
            stacklevel=2,
        )
        specs = {}
        for name in df.columns:
            s = df[name]
            token = missing if s.isna().any() else None
            observed = s.dropna()
            dtype = s.dtype
            if isinstance(dtype, pd.CategoricalDtype):
                specs[name] = Categorical(list(dtype.categories), missing=token)
                continue
            numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
            if not numeric and not (
                pd.api.types.is_bool_dtype(dtype)
                or pd.api.types.is_object_dtype(dtype)
                or pd.api.types.is_string_dtype(dtype)
            ):
                raise TypeError(
                    f"column {name!r}: Domain.infer cannot handle dtype {dtype}; "
                    "convert it to numbers or strings first"
                )
            uniques = pd.unique(observed.to_numpy(dtype=object)).tolist()
            if not numeric or len(uniques) <= max_categories:
                try:
                    uniques = sorted(uniques)
                except TypeError:
                    pass  # mixed types: keep order of appearance
                specs[name] = Categorical(uniques, missing=token)
                continue
            x = observed.to_numpy(dtype=float)
            lo, hi = float(x.min()), float(x.max())
            integer = bool(np.all(x == np.round(x)))
            n = min(n_bins, int(hi - lo)) if integer else n_bins
            specs[name] = Numeric((lo, hi, max(n, 1)), missing=token, integer=integer)
        return cls(specs)

"""Generator cards: the statistics a synthetic-data generator declares it uses.

Houssiau et al. (2022) [``houssiau2022``], §3.1, define a generator card C = ⟨ψ, Φ, 𝒢⟩: Φ the
linear space of "safe" statistics the generator may depend on, ψ their values on the real
data, 𝒢 the generator. Here Φ is given by marginals (§4.1: Φ = span⟨Θ⁽ᵏ⁾⟩): the indicators
1[x_S = v] of every declared clique S and value v ∈ 𝒳_S, plus the constant 1 (so that the
number of records is public, as in the paper's code). A :class:`GeneratorCard` holds the public
part — the analysed columns with their domain sizes and the declared cliques — and is
serialised to a dict, JSON or YAML.
"""

from __future__ import annotations

import itertools
import json
import math
import numbers
from collections.abc import Mapping, Sequence
from pathlib import Path

from .._result import ResultMixin
from .._validation import check_domain, check_str, one_line
from .basis import Bins, span_dimension

__all__ = ["GeneratorCard"]

_KEYS = ("name", "description", "columns", "marginals")


def _check_marginals(marginals, columns: dict[str, int]) -> tuple[tuple[str, ...], ...]:
    if isinstance(marginals, (str, bytes)) or not isinstance(marginals, Sequence):
        raise TypeError(
            f"marginals must be a list of cliques (tuples of column names), "
            f"got {type(marginals).__name__}"
        )
    out: list[tuple[str, ...]] = []
    seen: dict[frozenset, int] = {}
    for i, clique in enumerate(marginals):
        if isinstance(clique, (str, bytes)) or not isinstance(clique, Sequence):
            raise TypeError(
                f"marginals[{i}] must be a sequence of column names, got "
                f"{clique!r} (write a one-column clique as ({clique!r},))"
            )
        clique = tuple(clique)
        if not clique:
            raise ValueError(
                f"marginals[{i}] is empty; the constant is always in Φ, "
                "declare cliques of at least one column"
            )
        unknown = [c for c in clique if c not in columns]
        if unknown:
            raise ValueError(
                f"marginals[{i}] = {clique!r} names unknown column(s) {unknown}; "
                f"allowed: {list(columns)}"
            )
        if len(set(clique)) != len(clique):
            raise ValueError(f"marginals[{i}] = {clique!r} repeats a column")
        key = frozenset(clique)
        if key in seen:
            raise ValueError(
                f"marginals[{i}] = {clique!r} repeats marginals[{seen[key]}] = {out[seen[key]]!r}"
            )
        seen[key] = i
        out.append(clique)
    return tuple(out)


class GeneratorCard(ResultMixin):
    """The public part of a generator card (``houssiau2022``, §3.1): columns and Φ.

    Parameters
    ----------
    columns : mapping str -> int
        The analysed columns A* in order, each with its domain size n_j ≥ 2 (codes 0..n_j − 1),
        e.g. ``Domain.sizes``.
    marginals : list of tuples of str
        The declared cliques S; Φ = span{1[x_S = v]: S declared, v ∈ 𝒳_S} ∪ {1}. An empty
        list is allowed: Φ is then the constants (only N is public).
    name, description : str

    Raises
    ------
    TypeError
        A non-mapping ``columns``, a non-integer size, a clique given as a bare string.
    ValueError
        A size < 2, an empty clique, a clique with an unknown or repeated column, a repeated
        clique (same set of columns).

    Examples
    --------
    >>> card = GeneratorCard({"a": 2, "b": 3, "c": 2}, [("a", "b"), ("b", "c")])
    >>> card.cells, card.phi_dimension
    (12, 9)
    """

    __slots__ = ("_columns", "_marginals", "_name", "_description")

    def __init__(self, columns, marginals, name: str = "", description: str = ""):
        cols = check_domain(columns, name="columns", min_levels=2, str_keys=True)
        object.__setattr__(self, "_columns", cols)
        object.__setattr__(self, "_marginals", _check_marginals(marginals, cols))
        object.__setattr__(self, "_name", check_str(name, "name"))
        object.__setattr__(self, "_description", check_str(description, "description"))

    def __setattr__(self, key, value):
        raise AttributeError("GeneratorCard is immutable")

    def __reduce__(self):
        """Pickled by its constructor arguments (the parallel workers rebuild it; the default
        protocol would set the slots through the blocked ``__setattr__``)."""
        return type(self), (self.columns, list(self._marginals), self._name, self._description)

    # convenience constructors --------------------------------------------------------------
    @classmethod
    def k_way(cls, columns, k: int, name: str = "", description: str = "") -> GeneratorCard:
        """A card declaring every k-subset of the columns (in column order)."""
        cols = check_domain(columns, name="columns", min_levels=2, str_keys=True)
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= len(cols):
            raise ValueError(
                f"k must be an integer in 1..{len(cols)} (the number of columns), got {k!r}"
            )
        return cls(cols, list(itertools.combinations(cols, int(k))), name, description)

    @classmethod
    def two_way(cls, columns, name: str = "", description: str = "") -> GeneratorCard:
        """A card declaring every pair of columns (App. 1 and 3 of ``houssiau2022``)."""
        return cls.k_way(columns, 2, name, description)

    # attributes ----------------------------------------------------------------------------
    @property
    def columns(self) -> dict[str, int]:
        """Column -> domain size, in order (a copy)."""
        return dict(self._columns)

    @property
    def column_names(self) -> list[str]:
        return list(self._columns)

    @property
    def sizes(self) -> tuple[int, ...]:
        """Domain sizes in column order."""
        return tuple(self._columns.values())

    @property
    def marginals(self) -> tuple[tuple[str, ...], ...]:
        """The declared cliques as given."""
        return self._marginals

    @property
    def clique_indices(self) -> tuple[tuple[int, ...], ...]:
        """The declared cliques as sorted tuples of column indices."""
        pos = {c: i for i, c in enumerate(self._columns)}
        return tuple(tuple(sorted(pos[c] for c in clique)) for clique in self._marginals)

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return self._description

    @property
    def cells(self) -> int:
        """M = ``|𝒳|`` = Π_j n_j (a Python int, exact for any size)."""
        return math.prod(self._columns.values())

    @property
    def phi_dimension(self) -> int:
        """dim Φ (the constant included), from the ANOVA formula of
        :func:`~synthtrust.audit.basis.span_dimension`."""
        return span_dimension(self.clique_indices, self.sizes)

    @property
    def complement_dimension(self) -> int:
        """dim Φ⊥ = M − dim Φ."""
        return self.cells - self.phi_dimension

    def declared_bins(self) -> Bins:
        """The bins (clique, value tuple) of the declared marginals, clique by clique, values
        in C order (the constant is not included). ``len`` = Σ_S Π_{a∈S} n_a."""
        return Bins.from_cliques(self.clique_indices, self.sizes, self.column_names)

    # comparison ----------------------------------------------------------------------------
    def __eq__(self, other) -> bool:
        if not isinstance(other, GeneratorCard):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((tuple(self._columns.items()), self._marginals, self._name, self._description))

    def __repr__(self) -> str:
        cols = ", ".join(f"{c}: {n}" for c, n in self._columns.items())
        name = f"{self._name!r}, " if self._name else ""
        return f"GeneratorCard({name}{{{cols}}}, marginals={[list(m) for m in self._marginals]})"

    # serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """``{"name", "description", "columns": {column: size}, "marginals": [[...], ...]}``."""
        return {
            "name": self._name,
            "description": self._description,
            "columns": dict(self._columns),
            "marginals": [list(m) for m in self._marginals],
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> GeneratorCard:
        """Inverse of :meth:`to_dict`; ``name`` and ``description`` optional.

        Raises
        ------
        TypeError, ValueError
            Not a mapping, an unknown key, a missing ``columns``/``marginals``, or an invalid
            card.
        """
        if not isinstance(d, Mapping):
            raise TypeError(f"a card must be a mapping, got {type(d).__name__}")
        unknown = [k for k in d if k not in _KEYS]
        if unknown:
            raise ValueError(f"unknown card key(s) {unknown}; allowed: {list(_KEYS)}")
        missing = [k for k in ("columns", "marginals") if k not in d]
        if missing:
            raise ValueError(f"the card lacks the key(s) {missing}")
        marginals = d["marginals"]
        if marginals is None:
            marginals = []
        return cls(d["columns"], marginals, d.get("name", "") or "", d.get("description", "") or "")

    @classmethod
    def from_json(cls, text: str) -> GeneratorCard:
        return cls.from_dict(json.loads(text))

    def to_yaml(self) -> str:
        import yaml

        d = self.to_dict()
        return yaml.safe_dump(d, sort_keys=False, allow_unicode=True, default_flow_style=None)

    @classmethod
    def from_yaml(cls, text: str) -> GeneratorCard:
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ValueError(f"not valid YAML: {one_line(exc)}") from None
        return cls.from_dict(data)

    def save(self, path) -> None:
        """Write the card as YAML (``.yaml``/``.yml``) or JSON (``.json``)."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix in (".yaml", ".yml"):
            path.write_text(self.to_yaml(), encoding="utf-8")
        elif suffix == ".json":
            path.write_text(self.to_json(), encoding="utf-8")
        else:
            raise ValueError(f"path must end in .yaml, .yml or .json, got {str(path)!r}")

    @classmethod
    def load(cls, path) -> GeneratorCard:
        """Read a card written by :meth:`save` (format from the suffix)."""
        path = Path(path)
        suffix = path.suffix.lower()
        text = path.read_text(encoding="utf-8")
        if suffix in (".yaml", ".yml"):
            return cls.from_yaml(text)
        if suffix == ".json":
            return cls.from_json(text)
        raise ValueError(f"path must end in .yaml, .yml or .json, got {str(path)!r}")

"""What the chapter ``feature_importance`` knows about each dataset of Giles et al. (2022),
"Faking feature importance: a cautionary tale on the use of differentially-private synthetic
data" (``giles2022``): :class:`DataSpec` (sizes, target, id column) of the three real and the
five artificial sets (:data:`DATASETS`), and which QUIPP file each artificial set comes from
(:data:`ARTIFICIAL`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DataSpec:
    """One dataset of the study.

    Attributes
    ----------
    label : str
        Display name as in ``giles2022`` ("Adult", "Household", "Polish", "Artificial 1", ...).
    target : str
        The class column of :func:`load_table`.
    kind : str
        ``"real"`` or ``"artificial"``.
    rows : int
        Rows of the prepared table (:func:`load_table`).
    features : int
        Columns of ``X`` from :func:`engineer_features` (App. A: 141 / 39 / 67).
    id_column : str or None
        The household key (``"idhogar"``) that groups rows, or None.
    identifiers : tuple of str
        Columns of :func:`load_table` that are not attributes (Household: ``Id`` and
        ``idhogar``); :func:`study_domain` covers every other column, so a synthesizer is fitted
        on ``load_table(name).drop(columns=list(spec.identifiers))``.
    model_rows : int
        Rows of ``X`` on the real data (Household: households).
    classes : tuple of int
        The values of ``y``.
    """

    label: str
    target: str
    kind: str
    rows: int
    features: int
    id_column: str | None = None
    identifiers: tuple = ()
    model_rows: int = 0
    classes: tuple = (0, 1)


#: The QUIPP file each artificial set comes from (paper numbering -> ``generate.py`` output).
ARTIFICIAL: dict[int, str] = {
    1: "artificial_1",
    2: "artificial_2",
    3: "artificial_5",
    4: "artificial_6",
    5: "artificial_7",
}

# paper k -> (n_features, n_informative, n_redundant, categorical?, kept columns or None)
ARTIFICIAL_SETTINGS: dict[int, tuple] = {
    1: (5, 5, 0, True, None),
    2: (5, 1, 4, True, None),
    3: (15, 15, 0, True, None),
    4: (15, 15, 0, False, None),
    5: (15, 5, 5, True, ("X0", "X9", "X10")),
}

DATASETS: dict[str, DataSpec] = {
    "adult": DataSpec("Adult", "label", "real", 32_561, 141, model_rows=32_561),
    "household": DataSpec(
        "Household",
        "Target",
        "real",
        9_554,
        39,
        id_column="idhogar",
        identifiers=("Id", "idhogar"),
        model_rows=2_581,
        classes=(1, 2, 3, 4),
    ),
    "polish": DataSpec("Polish", "wkabint", "real", 4_895, 67, model_rows=4_171),
}
for _k, (_nf, _ni, _nr, _cat, _keep) in ARTIFICIAL_SETTINGS.items():
    _n = len(_keep) if _keep else _nf
    DATASETS[f"artificial_{_k}"] = DataSpec(
        f"Artificial {_k}", "label", "artificial", 10_000, _n, model_rows=10_000
    )


def check_name(name) -> DataSpec:
    """The :class:`DataSpec` of dataset ``name``, a key of :data:`DATASETS`.

    Raises
    ------
    ValueError
        ``name`` is not one of those keys (a non-string included).
    """
    if not isinstance(name, str) or name not in DATASETS:
        raise ValueError(f"unknown dataset name={name!r}; expected one of {', '.join(DATASETS)}")
    return DATASETS[name]

"""Hand-written PUBLIC domains of the datasets in ``data/``, stored as data: one JSON file
per domain in ``synthtrust/domain/data/`` (``{"dataset", "description", "columns"}``, each
column a :meth:`~synthtrust.domain.Domain.to_dict` entry plus a ``"note"`` on where its bounds
and bin edges come from), read through :meth:`~synthtrust.domain.Domain.from_dict`.

The small medical datasets of the evaluation-protocols chapter (Movahedi et al. 2024
[``movahedi2024``]), the ONS 2011 census teaching file (Houssiau et al. 2022
[``houssiau2022``]), and private-pgm's discretised adult [``privatepgm2025``], whose sizes are
read from ``data/adult_pgm_discretized_domain.json``.
"""

from __future__ import annotations

import json
from importlib import resources

from .categorical import Categorical
from .table import Domain

#: Datasets (names of :func:`synthtrust.datasets.load`) with a hand-written public domain.
DATASET_DOMAINS: tuple[str, ...] = (
    "pima_diabetes",
    "ilpd",
    "hypothyroid_allhypo",
    "adult_pgm_discretized",
    "cardio",
)

#: Public domains shared by several files of ``data/`` (so not names of
#: :func:`synthtrust.datasets.load`): census2011 -> census2011_first50k, census2011_random10k.
_SHARED_DOMAINS: tuple[str, ...] = ("census2011",)

#: Keys of a domain file's column entries that document and are not part of the spec.
_NOTE_KEYS = frozenset({"note"})


def _domain_file(name: str) -> Domain:
    """The domain stored in ``synthtrust/domain/data/<name>.json``."""
    text = resources.files(__package__).joinpath("data", f"{name}.json").read_text("utf-8")
    columns = json.loads(text)["columns"]
    return Domain.from_dict(
        {"columns": [{k: v for k, v in col.items() if k not in _NOTE_KEYS} for col in columns]}
    )


def _adult_pgm_discretized() -> Domain:
    """private-pgm's integer-coded adult: sizes from data/adult_pgm_discretized_domain.json
    (ryan112358/private-pgm data/adult-domain.json); the label is Categorical([0, 1])."""
    from synthtrust.datasets import DATA_DIR

    file = DATA_DIR / "adult_pgm_discretized_domain.json"
    if not file.exists():
        raise FileNotFoundError(f"domain file {file} is missing; data/ must hold {file.name}")
    sizes = json.loads(file.read_text())
    specs = Domain.from_sizes(sizes).specs
    specs["income>50K"] = Categorical([0, 1])
    return Domain(specs)


def dataset_domain(name: str) -> Domain:
    """The hand-written PUBLIC domain of a dataset of ``data/``.

    Bounds and bin edges come from clinical reference ranges, physical plausibility or the
    dataset documentation (data/DATASETS.md, the UCI names files, the ONS code lists), never
    from the data's min/max; each choice is noted in the domain's data file
    (``synthtrust/domain/data/<name>.json``). Numeric columns have ≤ 10 bins (+ a missing
    code), small enough for the marginal synthesizers (Movahedi et al. 2024, Sec. III-C:
    "discretized into number of bins based on literature and the curator's knowledge"). The
    label column is :class:`Categorical`, so it decodes to its labels.

    Parameters
    ----------
    name : str
        One of :data:`DATASET_DOMAINS`: ``"pima_diabetes"`` (label ``Outcome``), ``"ilpd"``
        (``Dataset``), ``"hypothyroid_allhypo"`` (``Target``), ``"adult_pgm_discretized"``
        (``income>50K``; sizes from ``data/adult_pgm_discretized_domain.json``), ``"cardio"``
        (``cardio``; every column but ``id``); or ``"census2011"``, the 17 attributes of the
        ONS 2011 census teaching file shared by ``census2011_first50k`` and
        ``census2011_random10k`` (every column but ``Person ID``; all Categorical, code
        lists with ``-9`` "no code required" first; sizes Region 10, Residence Type 2, Family
        Composition 7, Population Base 3, Sex 2, Age 8, Marital Status 5, Student 2, Country
        of Birth 3, Health 6, Ethnic Group 6, Religion 10, Economic Activity 10, Occupation
        10, Industry 13, Hours worked per week 5, Approximated Social Grade 5).

    Returns
    -------
    Domain
        Covers every column of ``synthtrust.datasets.load(name)`` (cardio: but ``id``; census:
        but ``Person ID``), in the file's order.

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).
    """
    known = (*DATASET_DOMAINS, *_SHARED_DOMAINS)
    if not isinstance(name, str) or name not in known:
        raise ValueError(f"no public domain for dataset {name!r}; available: {', '.join(known)}")
    if name == "adult_pgm_discretized":
        return _adult_pgm_discretized()
    return _domain_file(name)

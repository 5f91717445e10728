"""Chapter 5 — the paper's three census applications, their generator cards and the bases
of Φ⊥ that the audits probe.

Houssiau et al. (2022) [``houssiau2022``], §4.1 and §4.4: each application is an analysis of
the ONS 2011 Census Microdata Teaching File (a 3-way table, a logistic regression, a random
forest) with its declared marginals Φ (the card), an unsafe clique the dishonest generators
also fit, and the settings of its audit (candidate bins, support and copies of D*). The cards
take their domain sizes from :func:`synthtrust.domain.dataset_domain`: no census record is
read.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from synthtrust.audit import GeneratorCard, candidate_bins, complement_basis
from synthtrust.audit.basis import ComplementBasis

__all__ = ["APPLICATIONS", "CENSUS", "Application", "application", "basis", "card"]

#: Census domain used for the cards (17 attributes; code −9 is a level of its own).
CENSUS = "census2011"


@dataclass(frozen=True)
class Application:
    """One of the paper's three example analyses (``houssiau2022``, §4.1 and §4.4).

    Attributes
    ----------
    key : int
        1, 2 or 3.
    title : str
        What the analyst wants to do.
    columns : tuple of str
        The analysed attributes A* (census column names, in the reference code's order).
    marginals : tuple of tuples of str
        The declared cliques of the card (Φ = span of their bins and the constant).
    cheat : tuple of str
        The unsafe clique Φ⁺ the dishonest generators also fit (§4.4).
    candidates : str or int
        Candidate bins 𝒞 probing Φ⊥: ``"next"`` (all (k+1)-way bins of a k-way card) or an
        order (3: 3-way bins).
    n_candidates : int or None
        Draw this many candidate bins at random (App. 3: 1000 of 17 799, footnote 5); None: all.
    support : int or None
        Support cells of D*: None = every cell (App. 1–2), an int = that many random cells
        (App. 3: 10 000).
    copies : int
        R, records per support cell in D* (App. 1–2: 1000; App. 3: 10).
    pgm_max_iter : int
        Mirror-descent steps of the noise-free Private-PGM (mbi's default 1000; 200 in App. 3).
    """

    key: int
    title: str
    columns: tuple
    marginals: tuple
    cheat: tuple
    candidates: object
    n_candidates: int | None
    support: int | None
    copies: int
    pgm_max_iter: int


_APP1 = ("Economic Activity", "Occupation", "Sex")
_APP2 = ("Ethnic Group", "Country of Birth", "Family Composition", "Approximated Social Grade")
_APP3 = (
    "Marital Status",
    "Occupation",
    "Industry",
    "Region",
    "Hours worked per week",
    "Age",
    "Health",
)


def _pairs(cols):
    return tuple((cols[i], cols[j]) for i in range(len(cols)) for j in range(i + 1, len(cols)))


#: The three applications of §4.1 (spec of the reference notebooks): 1 = the gender gap in
#: occupations (3-way table from all 2-way marginals); 2 = a logistic regression of social grade
#: (the 3-way marginal of the features and each feature with the target); 3 = a random forest of
#: health status on six attributes (all 21 pairs of seven attributes).
APPLICATIONS: dict[int, Application] = {
    1: Application(
        1,
        "Gender gap in occupations (3-way table)",
        _APP1,
        _pairs(_APP1),
        _APP1,
        "next",
        None,
        None,
        1000,
        1000,
    ),
    2: Application(
        2,
        "Logistic regression of social grade",
        _APP2,
        (_APP2[:3], (_APP2[0], _APP2[3]), (_APP2[1], _APP2[3]), (_APP2[2], _APP2[3])),
        _APP2,
        "next",
        None,
        None,
        1000,
        1000,
    ),
    3: Application(
        3,
        "Random forest of health status",
        _APP3,
        _pairs(_APP3),
        (_APP3[0], _APP3[1], _APP3[4]),
        3,
        1000,
        10_000,
        10,
        200,
    ),
}


def application(app) -> Application:
    """The :class:`Application` numbered ``app`` (1, 2 or 3).

    Raises
    ------
    ValueError
        ``app`` is not one of 1, 2, 3.
    """
    if (
        isinstance(app, (bool, np.bool_))
        or not isinstance(app, numbers.Integral)
        or int(app) not in APPLICATIONS
    ):
        raise ValueError(
            f"app must be one of {list(APPLICATIONS)} (the paper's applications), got {app!r}"
        )
    return APPLICATIONS[int(app)]


def application_sizes(app: Application) -> dict[str, int]:
    """Domain sizes ``{column: number of codes}`` of an application's columns A*.

    Taken from the public census domain (``dataset_domain("census2011")``), in the order of
    ``app.columns``; no census record is read (``houssiau2022``, §4.1).
    """
    from synthtrust.domain import dataset_domain

    sizes = dataset_domain(CENSUS).sizes
    return {c: int(sizes[c]) for c in app.columns}


def card(app) -> GeneratorCard:
    """The generator card of application ``app``: its columns with the census domain sizes
    and its declared marginals (``houssiau2022`` §3.1, §4.1).

    Dimensions (the constant included in Φ): App. 1 M = 200, dim Φ = 119; App. 2 M = 630,
    dim Φ = 182; App. 3 M = 1 560 000, dim Φ = 1095.

    Raises
    ------
    ValueError
        Unknown ``app``.
    """
    return _card(application(app).key)


@lru_cache(maxsize=8)
def _card(key: int) -> GeneratorCard:
    a = APPLICATIONS[key]
    return GeneratorCard(
        application_sizes(a),
        [list(m) for m in a.marginals],
        name=f"application {a.key}",
        description=a.title,
    )


@lru_cache(maxsize=16)
def _basis(app: int, seed: int | None, n_candidates: int | None) -> ComplementBasis:
    a = application(app)
    c = card(app)
    if n_candidates is None:
        return complement_basis(c, a.candidates)
    return complement_basis(c, candidate_bins(c, a.candidates, n=n_candidates, random_state=seed))


def basis(app, seed: int | None = 0, *, n_candidates: int | None = -1) -> ComplementBasis:
    """The orthonormal basis of span(Φ ∪ 𝒞) ⊖ span(Φ) probed in application ``app``
    (``houssiau2022`` §3.3; cached).

    Parameters
    ----------
    app : 1, 2 or 3
    seed : int or None
        Seed of the random candidate bins (App. 3 only; ignored when all candidates are used).
    n_candidates : int, None or -1
        -1 (default): the application's setting (App. 3: 1000 random 3-way bins, others all
        bins); None: every candidate bin; an int: that many random bins.

    Returns
    -------
    ComplementBasis
        ``dim`` = k (App. 1: 81, App. 2: 448, App. 3: ≤ 1000), ``phi_rank`` = dim Φ.

    Raises
    ------
    ValueError
        Unknown ``app``; ``n_candidates`` not an int ≥ 1, None or −1.
    """
    a = application(app)
    if n_candidates == -1 and not isinstance(n_candidates, bool):
        n_candidates = a.n_candidates
    if n_candidates is not None and (
        isinstance(n_candidates, bool)
        or not isinstance(n_candidates, numbers.Integral)
        or n_candidates < 1
    ):
        raise ValueError(
            f"n_candidates must be an int >= 1, None (all) or -1 (the "
            f"application's), got {n_candidates!r}"
        )
    seed = None if n_candidates is None else int(seed or 0)
    return _basis(a.key, seed, None if n_candidates is None else int(n_candidates))

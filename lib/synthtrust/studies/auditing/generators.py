"""Chapter 5 — the generators audited: the paper's honest and dishonest tailored generators,
sequential CART, and the project's DP synthesizers.

Houssiau et al. (2022) [``houssiau2022``], §4.4 and Table 4: IPF and noise-free Private-PGM fed
only the declared marginals (honest) or also an unsafe clique (dishonest), and synthpop's
sequential CART; beyond the paper, MST, AIM, MWEM+PGM and PrivBayes.
"""

from __future__ import annotations

from synthtrust.studies.auditing.applications import application, application_sizes

__all__ = ["DP_GENERATORS", "GENERATORS", "PAPER_GENERATORS", "make_generator"]


#: Generators: name -> (label, expected verdict in the paper: True = rejected, False = not,
#: None = not audited in the paper). The paper's "MST (Honest/Dishonest)" rows are noise-free
#: Private-PGM (its code); the paper's "SynthPop" is synthpop's sequential CART.
GENERATORS = {
    "ipf_honest": ("IPF (honest)", False),
    "ipf_dishonest": ("IPF (dishonest)", True),
    "pgm_honest": ("Private-PGM (paper: MST), honest", False),
    "pgm_dishonest": ("Private-PGM (paper: MST), dishonest", True),
    "cart": ("Sequential CART (paper: SynthPop)", True),
    "mst": ("MST (ε-DP)", None),
    "aim": ("AIM (ε-DP)", None),
    "mwem_pgm": ("MWEM+PGM (ε-DP)", None),
    "privbayes": ("PrivBayes (ε-DP)", None),
}

#: The generators of Table 4.
PAPER_GENERATORS = ("ipf_honest", "ipf_dishonest", "pgm_honest", "pgm_dishonest", "cart")

#: The project's DP synthesizers, audited beyond the paper.
DP_GENERATORS = ("mst", "aim", "mwem_pgm", "privbayes")


def make_generator(
    name: str,
    app,
    random_state=None,
    *,
    epsilon: float = 1000.0,
    delta: float = 1e-5,
    pgm_max_iter: int | None = None,
):
    """An unfitted generator ``name`` for application ``app`` (``houssiau2022`` §4.4).

    * ``ipf_honest`` / ``ipf_dishonest``: :class:`~synthtrust.synthesizers.IPF` (tolerance 0.5
      counts, at most 10⁴ sweeps, as the reference) fitted to the card's marginals, or to those
      plus the application's cheat clique (App. 1 the 3-way, App. 2 the 4-way marginal, App. 3
      (Marital Status, Occupation, Hours worked per week)).
    * ``pgm_honest`` / ``pgm_dishonest``: noise-free Private-PGM
      (:class:`~synthtrust.synthesizers.PGMMarginals`) on the same marginals, ``pgm_max_iter``
      steps (default the application's: 1000, or 200 in App. 3). The paper labels these
      "MST"; its code runs Private-PGM with no selection step and σ = 0.001.
    * ``cart``: :class:`~synthtrust.synthesizers.SequentialCART` (``min_samples_leaf=5``, as
      synthpop's ``minbucket``), the paper's "SynthPop".
    * beyond the paper, at (``epsilon``, ``delta``): ``mst``, ``aim``, ``mwem_pgm``
      (zCDP, ρ from (ε, δ)) and ``privbayes`` (ε-DP, degree chosen from ε and N). None is
      decomposable for an arbitrary card: MST's first step selects the marginals to measure
      *from the data*, and the selected set varies from run to run (footnote 6), and so do AIM's
      and MWEM+PGM's rounds and PrivBayes's network. What they read from the data, though, is
      bounded: MST measures 1-way and 2-way marginals and selects among pairs from noisy 2-way
      statistics, AIM and MWEM+PGM (default workload: every pair) measure only marginals of at
      most two columns, so against a *complete* 2-way card (App. 1, App. 3) their output
      distribution depends on the data only through Φ and the audit should not reject them.
      PrivBayes scores and measures (degree + 1)-way conditionals: at large ε on App. 1 its
      degree is 2, a 3-way statistic outside the card.

    Parameters
    ----------
    name : str
        A key of :data:`GENERATORS`.
    app : 1, 2 or 3
    random_state : None, int or numpy Generator
        The generator's seed (:func:`~synthtrust.audit.audit` re-seeds every training).
    epsilon, delta : float
        Privacy parameters of the DP generators (the paper's utility runs: ε = 1000, δ = 1e-5).
    pgm_max_iter : int, optional

    Returns
    -------
    An unfitted synthesizer whose ``domain`` is the application's columns → sizes.

    Raises
    ------
    ValueError
        Unknown ``name`` or ``app``.
    """
    from synthtrust import synthesizers as syn

    a = application(app)
    if name not in GENERATORS:
        raise ValueError(f"unknown generator {name!r}; expected one of {', '.join(GENERATORS)}")
    sizes = application_sizes(a)
    marginals = [tuple(m) for m in a.marginals]
    if name.startswith(("ipf_", "pgm_")):
        cls = syn.IPF if name.startswith("ipf_") else syn.PGMMarginals
        params = {"domain": sizes, "random_state": random_state}
        if cls is syn.PGMMarginals:
            params["max_iter"] = int(pgm_max_iter or a.pgm_max_iter)
        build = cls.honest if name.endswith("_honest") else cls.dishonest
        return build(marginals, tuple(a.cheat), **params)
    if name == "cart":
        return syn.SequentialCART(min_samples_leaf=5, domain=sizes, random_state=random_state)
    if name == "privbayes":
        return syn.PrivBayes(float(epsilon), domain=sizes, random_state=random_state)
    cls = {"mst": syn.MST, "aim": syn.AIM, "mwem_pgm": syn.MWEMPGM}[name]
    return cls(float(epsilon), float(delta), domain=sizes, random_state=random_state)

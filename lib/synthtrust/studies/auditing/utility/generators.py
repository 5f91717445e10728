"""Chapter 5, utility part — the generators whose utility is measured.

Houssiau et al. (2022) [``houssiau2022``], §4.2: the tailored, decomposable generators fed only
an application's card (IPF, noise-free Private-PGM) and the general-purpose generators trained
once on all 17 census attributes (sequential CART, MST, PrivBayes, PATE-GAN at the paper's
ε = 1000, δ = 1e-5, and the non-private CTGAN for 10 epochs; beyond the paper, PATE-CTGAN).
"""

from __future__ import annotations

from synthtrust._jax import import_mbi
from synthtrust._optional import import_if_installed
from synthtrust.studies.auditing.applications import application
from synthtrust.studies.auditing.utility.census import census_sizes

__all__ = [
    "GENERAL_PURPOSE",
    "TAILORED",
    "UTILITY_GENERATORS",
    "make_utility_generator",
    "warm_up",
]

#: Generators of the utility study: name -> label. ``real`` is the real train split itself.
UTILITY_GENERATORS: dict[str, str] = {
    "real": "Real data",
    "ipf": "IPF",
    "pgm": "Private-PGM (noise-free)",
    "mst": "MST (ε = 1000)",
    "pategan": "PATE-GAN (ε = 1000)",
    "patectgan": "PATE-CTGAN (ε = 1000; not in the paper)",
    "ctgan": "CTGAN (10 epochs, not DP)",
    "privbayes": "PrivBayes (ε = 1000)",
    "cart": "Sequential CART (paper: SynthPop)",
}
#: Decomposable generators fitted to the application's card only (one fit per application).
TAILORED = ("ipf", "pgm")
#: Generators fitted once on all 17 attributes, serving the three applications.
GENERAL_PURPOSE = ("cart", "mst", "privbayes", "pategan", "patectgan", "ctgan")
#: CTGAN's training epochs in the paper's utility study (Houssiau et al. 2022, §4.2)
CTGAN_EPOCHS = 10


def warm_up() -> None:
    """Load what the generators load once per worker process, before its first task
    (``run_grid(..., warm_up=warm_up)``): JAX and mbi (Private-PGM, MST) and PyTorch when it is
    installed (the GANs). loky takes a worker's memory after its first task as the reference
    and recycles a worker grown 300 MB beyond it; loaded by the later tasks, they grew a worker
    by about 400 MB (mbi 126, PyTorch and a PATE-CTGAN training 277), and loky recycled it with
    a warning. Warmed up, the whole grid grows a worker by about 90 MB."""
    import_mbi()
    import_if_installed("torch", "the GANs")


def make_utility_generator(
    name: str,
    app=None,
    random_state=None,
    *,
    epsilon: float = 1000.0,
    delta: float = 1e-5,
    ipf_tol: float = 1e-3,
    pgm_max_iter=None,
    pate_max_iter: int = 300,
):
    """An unfitted generator of the utility study, working on census codes.

    * ``ipf`` / ``pgm`` (``app`` required): IPF (L1 tolerance ``ipf_tol`` counts, 10⁴ sweeps at
      most) or noise-free Private-PGM (``pgm_max_iter`` steps, default the application's: 1000, or
      200 in App. 3) fitted to the card's declared marginals
      (:data:`synthtrust.studies.auditing.audits.APPLICATIONS`), domain = the application's columns;
    * ``cart``: sequential CART (``min_samples_leaf=5``, synthpop's ``minbucket``);
    * ``mst``: MST at (ε, δ); ``privbayes``: PrivBayes at ε (degree by θ-usefulness);
    * ``pategan`` / ``patectgan``: PATE-GAN / PATE-CTGAN at (ε, δ), at most
      ``pate_max_iter`` generator iterations;
    * ``ctgan``: CTGAN (not DP) for :data:`CTGAN_EPOCHS` epochs, the package's other defaults;

    the last six with the 17-attribute census domain.

    Raises
    ------
    ValueError
        Unknown ``name`` (or ``real``, which is no generator); ``ipf``/``pgm`` without ``app``.
    """
    from synthtrust import synthesizers as syn

    if name not in UTILITY_GENERATORS or name == "real":
        gens = [g for g in UTILITY_GENERATORS if g != "real"]
        raise ValueError(f"unknown generator {name!r}; expected one of {', '.join(gens)}")
    if name in TAILORED:
        if app is None:
            raise ValueError(f"{name} is tailored to an application: pass app=1, 2 or 3")
        a = application(app)
        sizes = census_sizes()
        dom = {c: sizes[c] for c in a.columns}
        marginals = [tuple(m) for m in a.marginals]
        if name == "ipf":
            return syn.IPF.honest(
                marginals,
                domain=dom,
                tol=float(ipf_tol),
                max_iter=10_000,
                random_state=random_state,
            )
        return syn.PGMMarginals.honest(
            marginals,
            domain=dom,
            max_iter=int(pgm_max_iter or a.pgm_max_iter),
            random_state=random_state,
        )
    sizes = census_sizes()
    if name == "cart":
        return syn.SequentialCART(min_samples_leaf=5, domain=sizes, random_state=random_state)
    if name == "mst":
        return syn.MST(float(epsilon), float(delta), domain=sizes, random_state=random_state)
    if name == "privbayes":
        return syn.PrivBayes(float(epsilon), domain=sizes, random_state=random_state)
    if name == "ctgan":
        return syn.CTGAN(epochs=CTGAN_EPOCHS, domain=sizes, random_state=random_state)
    return (syn.PATEGAN if name == "pategan" else syn.PATECTGAN)(
        float(epsilon),
        float(delta),
        domain=sizes,
        max_iter=int(pate_max_iter),
        random_state=random_state,
    )

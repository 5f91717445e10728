"""Tests of ``synthtrust.studies.auditing.generators``.

The oracles and the shared set-up are described in ``_auditing_data.py``.
"""

from _auditing_data import APP1

from synthtrust import synthesizers as syn
from synthtrust.studies.auditing import audits as au


# --------------------------------------------------------------------------------------------
# generators
# --------------------------------------------------------------------------------------------
def test_make_generator_builds_the_paper_generators():
    honest = au.make_generator("ipf_honest", 1, 0)
    bad = au.make_generator("ipf_dishonest", 1, 0)
    assert isinstance(honest, syn.IPF) and honest.tol == 0.5 and honest.max_iter == 10_000
    assert [tuple(m) for m in honest.marginals] == [APP1[:2], (APP1[0], APP1[2]), APP1[1:]]
    assert tuple(bad.marginals[-1]) == APP1 and len(bad.marginals) == 4
    pgm = au.make_generator("pgm_dishonest", 3, 0)
    assert isinstance(pgm, syn.PGMMarginals) and pgm.max_iter == 200
    assert tuple(pgm.marginals[-1]) == au.APPLICATIONS[3].cheat
    assert au.make_generator("pgm_honest", 2, 0, pgm_max_iter=7).max_iter == 7
    cart = au.make_generator("cart", 1, 3)
    assert isinstance(cart, syn.SequentialCART) and cart.min_samples_leaf == 5
    assert cart.domain == au.card(1).columns
    mst = au.make_generator("mst", 1, 0, epsilon=10.0, delta=1e-6)
    assert isinstance(mst, syn.MST) and mst.epsilon == 10.0 and mst.delta == 1e-6
    assert isinstance(au.make_generator("privbayes", 1, 0), syn.PrivBayes)
    assert set(au.GENERATORS) == set(au.PAPER_GENERATORS) | set(au.DP_GENERATORS)

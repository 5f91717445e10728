"""Tests of ``synthtrust.studies.feature_importance.generators`` (the generators of the grid of
giles2022). The oracles: the parameters each cell's generator is built with (its class, ε or
fraction, the preset's degree, β, δ and iterations, the dataset's public domain); Table 1 of
the paper for PATE-CTGAN's moments order; the actual ε of the paper-compatible PrivBayes by the
formula of the PrivBayes module docstring, β·ε + n·(1 − β)·ε (n records; DataSynthesizer ≤ 0.1.6
scaled the count noise for probabilities), against the nominal ε of the ε-DP variant.
"""

from __future__ import annotations

import pytest

from synthtrust.studies.feature_importance.data.domains import study_domain
from synthtrust.studies.feature_importance.data.tables import load_table
from synthtrust.studies.feature_importance.generators import (
    GENERATORS,
    PAPER_TABLE1,
    make_generator,
    privbayes_ledgers,
)
from synthtrust.synthesizers.aim import AIM
from synthtrust.synthesizers.baselines import IndependentMarginals, Subsample
from synthtrust.synthesizers.mst import MST
from synthtrust.synthesizers.pate import PATECTGAN
from synthtrust.synthesizers.privbayes import PrivBayes

PARAMS = {
    "privbayes_degree": 2,
    "privbayes_beta": 0.4,
    "pate_max_iter": 5,
    "delta": 1e-6,
}


def _same_domain(gen, dataset):
    domain, public = gen.get_params()["domain"], study_domain(dataset)
    return domain.columns == public.columns and dict(domain.sizes) == dict(public.sizes)


def test_each_name_builds_its_generator_with_the_presets_parameters():
    pb = make_generator("privbayes", 0.5, "polish", PARAMS, 7)
    assert type(pb) is PrivBayes and _same_domain(pb, "polish")
    assert {k: pb.get_params()[k] for k in ("epsilon", "degree", "beta", "noise", "max_cells")} == {
        "epsilon": 0.5,
        "degree": 2,
        "beta": 0.4,
        "noise": "dp",
        "max_cells": None,
    }
    ds = make_generator("privbayes_ds", 0.5, "polish", PARAMS, 7)
    # DataSynthesizer's noise and no table-size cap (it has none)
    assert ds.get_params()["noise"] == "datasynthesizer-0.1.3"
    assert ds.get_params()["max_cells"] == 2**24 and ds.get_params()["degree"] == 2
    gan = make_generator("pate_ctgan", 2.0, "adult", PARAMS, 7)
    assert type(gan) is PATECTGAN and _same_domain(gan, "adult")
    assert (gan.epsilon, gan.max_iter, gan.random_state) == (2.0, 5, 7)
    for name, cls in (("mst", MST), ("aim", AIM)):
        g = make_generator(name, 1.5, "household", PARAMS, 7)
        assert type(g) is cls and _same_domain(g, "household")
        assert (g.epsilon, g.delta, g.random_state) == (1.5, 1e-6, 7)
    ind = make_generator("independent", None, "polish", PARAMS, 7)
    assert type(ind) is IndependentMarginals and ind.get_params() == {"random_state": 7}
    sub = make_generator("subsample", 0.3, "polish", PARAMS, 7)
    assert type(sub) is Subsample and sub.get_params() == {"fraction": 0.3, "random_state": 7}
    with pytest.raises(ValueError, match="unknown generator 'gan'; expected one of privbayes, "):
        make_generator("gan", 1.0, "polish", {}, 0)


def test_pate_ctgan_takes_table_1s_moments_order_at_the_papers_epsilons():
    # Table 1 of giles2022: ε -> (moments order, iterations); ε = 0.01 needs order 10 000
    assert PAPER_TABLE1[0.01] == (10000, 2802) and PAPER_TABLE1[10.0] == (100, 2971)
    assert sorted(PAPER_TABLE1) == [0.001, 0.01, 0.1, 0.4, 1.0, 4.0, 10.0]
    for eps, (order, _) in PAPER_TABLE1.items():
        assert make_generator("pate_ctgan", eps, "polish", PARAMS, 0).moments_order == order
    default = PATECTGAN().moments_order
    assert make_generator("pate_ctgan", 0.5, "polish", PARAMS, 0).moments_order == default


@pytest.mark.parametrize(("epsilon", "beta"), [(0.1, 0.5), (1.0, 0.2)])
def test_privbayes_ledgers_gives_the_actual_epsilon(epsilon, beta):
    n = len(load_table("polish"))
    assert n == 4_895
    got = privbayes_ledgers("polish", epsilon, 2, beta, 0)
    assert got["nominal"] == epsilon
    assert got["actual"] == pytest.approx(beta * epsilon + n * (1 - beta) * epsilon, rel=1e-12)


def test_only_the_generators_marked_dp_are_dp_at_the_nominal_epsilon():
    assert set(GENERATORS) == {
        "privbayes",
        "privbayes_ds",
        "pate_ctgan",
        "mst",
        "aim",
        "independent",
        "subsample",
    }
    table = load_table("polish")
    params = {**PARAMS, "privbayes_beta": 0.5}
    for name in ("privbayes", "privbayes_ds"):
        gen = make_generator(name, 1.0, "polish", params, 0).fit(table)
        assert gen.differentially_private_ is GENERATORS[name][1]
        assert (gen.ledger_.total_epsilon == pytest.approx(1.0)) is GENERATORS[name][1]

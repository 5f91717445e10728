"""Chapter 2's generator comparison: the code book against hand-made tables, the generator
factory, the grid's cells, the Gaussian copula's SDV-like output, and the cells' score rows on
online-shoppers (CART, the copula and CTGAN for one epoch; a few seconds)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust import synthesizers
from synthtrust.studies.holdout_fidelity_privacy import generators as hg


def test_code_book_codes_are_the_fidelity_bins_and_decode_draws_the_bin_s_values():
    """x in 2 quantile bins of [1, 2, 2, 3, 9, 9]: breaks 1, 2.5, 9 (right-closed), so 1, 2, 2
    in bin 0 and 3, 9, 9 in bin 1; y keeps its 2 most frequent values (a, b), and c is the
    fidelity metric's OTHER, a third code."""
    train = pd.DataFrame({"x": [1.0, 2.0, 2.0, 3.0, 9.0, 9.0], "y": ["a", "a", "b", "c", "a", "b"]})
    book = hg.CodeBook(bins=2).fit(train)
    assert book.codes_["x"].tolist() == [0, 0, 0, 1, 1, 1]
    assert book.codes_["y"].tolist() == [0, 0, 1, 2, 0, 1]  # a, b, then OTHER
    assert book.sizes_ == {"x": 2, "y": 3}
    # 6000 draws of bin 0 of x: values 1 and 2 at 1/3 and 2/3 (binomial band, 99.9 %)
    codes = pd.DataFrame({"x": np.zeros(6000, dtype=int), "y": np.full(6000, 2)})
    out = book.decode(codes, random_state=0)
    assert set(out["x"]) == {1.0, 2.0} and set(out["y"]) == {"c"}
    low, high = stats.binom.interval(0.999, 6000, 1 / 3)
    assert low <= (out["x"] == 1.0).sum() <= high
    assert out.dtypes["x"] == np.float64 and list(out.columns) == ["x", "y"]
    # a code comes back as a training value of its own bin, never of another
    back = book.decode(book.codes_, random_state=1)
    assert set(back["x"][:3]) <= {1.0, 2.0} and set(back["x"][3:]) <= {3.0, 9.0}
    assert back["y"].tolist()[3] == "c"
    with pytest.raises(ValueError, match="codes of column 'y' must lie in 0..2"):
        book.decode(pd.DataFrame({"x": [0], "y": [3]}))
    with pytest.raises(ValueError, match="training table's columns"):
        book.decode(pd.DataFrame({"y": [0], "x": [0]}))


def test_copula_records_keep_the_range_the_dtype_and_the_levels():
    rng = np.random.default_rng(3)
    train = pd.DataFrame(
        {
            "count": rng.integers(0, 50, 400),
            "rate": rng.beta(2, 5, 400),
            "flag": rng.random(400) < 0.3,
            "kind": rng.choice(["u", "v", "w"], 400),
        }
    )
    out = hg.copula_records(train, 2000, random_state=0)
    assert list(out.columns) == list(train.columns) and len(out) == 2000
    assert out["count"].dtype == np.int64  # whole numbers: rounded, the training dtype
    assert out["count"].between(train["count"].min(), train["count"].max()).all()
    assert out["rate"].dtype == np.float64 and not np.all(out["rate"] == out["rate"].round())
    assert out["rate"].between(train["rate"].min(), train["rate"].max()).all()
    assert set(out["flag"]) <= {True, False} and set(out["kind"]) <= {"u", "v", "w"}
    # the level frequencies are the fitted ones: "kind" within a binomial band of its share
    share = (train["kind"] == "u").mean()
    low, high = stats.binom.interval(0.999, 2000, share)
    assert low <= (out["kind"] == "u").sum() <= high


def test_make_generator_gives_the_package_s_generators_with_the_cell_s_parameters():
    sizes = {"a": 3, "b": 2}
    cart = hg.make_generator("cart", sizes, epochs=None, epsilon=None, delta=None)
    assert isinstance(cart, synthesizers.SequentialCART) and cart.min_samples_leaf == 5
    ctgan = hg.make_generator("ctgan", sizes, epochs=7, epsilon=None, delta=None)
    assert isinstance(ctgan, synthesizers.CTGAN) and ctgan.epochs == 7
    aim = hg.make_generator("aim", sizes, epochs=None, epsilon=10, delta=1e-5)
    assert isinstance(aim, synthesizers.AIM) and (aim.epsilon, aim.delta) == (10.0, 1e-5)
    mst = hg.make_generator("mst", sizes, epochs=None, epsilon=1, delta=1e-5)
    assert isinstance(mst, synthesizers.MST) and mst.domain == sizes
    with pytest.raises(ValueError, match="unknown code-table generator 'copula'"):
        hg.make_generator("copula", sizes, epochs=None, epsilon=None, delta=None)


def test_build_grid_gives_each_cell_the_parameters_its_generator_uses():
    cells = hg.build_grid(
        datasets_=["adult", "online-shoppers"],
        generators=["cart", "ctgan", "aim"],
        rows=50_000,
        ctgan_epochs=3,
        epsilon=10,
        delta=1e-5,
    )
    assert [(c["dataset"], c["label"]) for c in cells] == [
        (ds, g) for ds in ("adult", "online-shoppers") for g in ("cart", "ctgan", "aim")
    ]
    assert cells[0] == {"dataset": "adult", "source": "generator", "rows": 50_000, "label": "cart"}
    assert cells[1]["epochs"] == 3 and "epsilon" not in cells[1]
    assert (cells[2]["epsilon"], cells[2]["delta"]) == (10.0, 1e-5) and "epochs" not in cells[2]
    with pytest.raises(ValueError, match="unknown generator 'tvae'"):
        hg.build_grid(
            datasets_=["adult"], generators=["tvae"], rows=0, ctgan_epochs=1, epsilon=1, delta=0
        )
    with pytest.raises(ValueError, match="unknown dataset 'iris'"):
        hg.build_grid(
            datasets_=["iris"], generators=["cart"], rows=0, ctgan_epochs=1, epsilon=1, delta=0
        )


@pytest.fixture(scope="module")
def shoppers_rows():
    """The score rows of CART, the copula and CTGAN (one epoch) on online-shoppers, 300
    records each."""
    cells = hg.build_grid(
        datasets_=["online-shoppers"],
        generators=["cart", "copula", "ctgan"],
        rows=300,
        ctgan_epochs=1,
        epsilon=1,
        delta=1e-5,
    )
    rows = [hg.score_cell(cell, [np.random.default_rng(i)]) for i, cell in enumerate(cells)]
    return pd.concat(rows, keys=[c["label"] for c in cells]).droplevel(1)


def test_score_cells_give_one_row_of_the_chapter_s_metrics(shoppers_rows):
    columns = ["tvd_1", "tvd_2", "tvd_3", "holdout_tvd_1", "holdout_tvd_2", "holdout_tvd_3"]
    columns += ["dcr_share", "dcr_train_mean", "dcr_holdout_mean"]
    columns += ["n_closer", "n_further", "n_equal", "n_synthetic"]
    assert list(shoppers_rows.columns) == columns
    assert (shoppers_rows.n_synthetic == 300).all()
    counted = shoppers_rows.n_closer + shoppers_rows.n_further + shoppers_rows.n_equal
    assert (counted == 300).all()
    assert shoppers_rows[["tvd_1", "tvd_2", "tvd_3", "dcr_share"]].stack().between(0, 1).all()
    # the holdout's own TVDs do not depend on the generator
    assert shoppers_rows.holdout_tvd_3.nunique() == 1
    # the share lies between the closer-only and the closer-or-tied fractions
    assert (shoppers_rows.dcr_share >= shoppers_rows.n_closer / 300).all()
    assert (shoppers_rows.dcr_share <= counted.sub(shoppers_rows.n_further) / 300).all()


def test_cart_copies_training_values_and_is_the_closest_to_the_training_records(shoppers_rows):
    """CART draws every value from the training values of a leaf or bin: its one-way TVD is
    that of a sample of the training table's own distribution, far below one-epoch CTGAN's,
    and its records lie nearer to the training records than to the holdout's (the paper's
    synthpop; 111 of 300 closer and 33 further here)."""
    cart, ctgan = shoppers_rows.loc["cart"], shoppers_rows.loc["ctgan"]
    assert cart.tvd_1 < ctgan.tvd_1 / 3
    assert cart.dcr_train_mean < cart.dcr_holdout_mean
    closer, further = int(cart.n_closer), int(cart.n_further)
    assert stats.binomtest(closer, closer + further).pvalue < 1e-6


def test_a_worker_loads_only_what_its_cells_generator_needs():
    """MST and AIM need JAX and mbi, CTGAN PyTorch, CART and the copula neither: run_grid gives
    each group its own workers (the default build's peak, 1 276 MB, was a worker with both)."""
    cells = hg.build_grid(
        datasets_=["adult"], generators=list(hg.GENERATORS), rows=100, ctgan_epochs=1,
        epsilon=1.0, delta=1e-6,
    )  # fmt: skip
    got = {c["label"]: hg.warm_up_of(c) for c in cells}
    assert got == {
        "cart": None,
        "ctgan": hg.load_torch,
        "copula": None,
        "mst": hg.load_mbi,
        "aim": hg.load_mbi,
    }
    import subprocess
    import sys

    # in a fresh process: load_mbi imports no PyTorch, load_torch no JAX
    code = (
        "import sys; from synthtrust.studies.holdout_fidelity_privacy import generators as g; "
        "g.{}(); print('torch' in sys.modules, 'jax' in sys.modules)"
    )
    runs = {
        name: subprocess.run(
            [sys.executable, "-c", code.format(name)], capture_output=True, text=True, check=True
        ).stdout.split()
        for name in ("load_mbi", "load_torch")
    }
    assert runs == {"load_mbi": ["False", "True"], "load_torch": ["True", "False"]}

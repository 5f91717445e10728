import numpy as np
import pytest

from synthtrust._validation import (
    NotFittedError,
    check_array,
    check_codes,
    check_delta,
    check_domain,
    check_epsilon,
    check_folder,
    check_frame,
    check_generator,
    check_input_folder,
    check_instance,
    check_int_array,
    check_int_range,
    check_is_fitted,
    check_names,
    check_positive_int,
    check_random_state,
    check_real_array,
    check_regex,
    check_rho,
    check_sample,
    check_sample_frame,
    check_str,
    check_unique_items,
    dict_of,
    increasing_of,
    int_at_least,
    int_in,
    one_line,
    pair_of,
    real_in,
    str_one_of,
    tuple_of,
    validate_params,
)


def test_random_state_int_is_reproducible():
    a = check_random_state(7).integers(0, 1_000_000, 5)
    b = check_random_state(7).integers(0, 1_000_000, 5)
    np.testing.assert_array_equal(a, b)
    g = np.random.default_rng(1)
    assert check_random_state(g) is g


def test_random_state_rejects_legacy():
    with pytest.raises(TypeError, match="random_state"):
        check_random_state(np.random.RandomState(0))


@pytest.mark.parametrize("eps", [0, -1, float("nan"), float("inf")])
def test_epsilon_must_be_positive_finite(eps):
    with pytest.raises(ValueError, match="epsilon"):
        check_epsilon(eps)


def test_epsilon_type():
    with pytest.raises(TypeError, match="epsilon"):
        check_epsilon("1")
    assert check_epsilon(2) == 2.0


@pytest.mark.parametrize("delta", [0, 1, -0.1, 1.5])
def test_delta_open_interval(delta):
    with pytest.raises(ValueError, match=r"delta must be in the open interval \(0, 1\)"):
        check_delta(delta)


def test_positive_int():
    assert check_positive_int(3, "n_reps") == 3
    with pytest.raises(ValueError, match="n_reps must be >= 1, got 0"):
        check_positive_int(0, "n_reps")
    with pytest.raises(TypeError, match="n_reps"):
        check_positive_int(2.5, "n_reps")


def test_array_rejects_nan_and_empty():
    with pytest.raises(ValueError, match="x contains NaN"):
        check_array([1.0, np.nan], "x")
    with pytest.raises(ValueError, match="y is empty"):
        check_array([], "y")
    np.testing.assert_array_equal(check_array([[1, 2]], "x"), [[1.0, 2.0]])


def test_check_n_jobs_counts_cores_like_joblib():
    import os

    from synthtrust._validation import check_n_jobs

    cores = os.cpu_count() or 1
    assert check_n_jobs(None) == cores == check_n_jobs(-1)
    assert check_n_jobs(3) == 3 and check_n_jobs(-2) == max(1, cores - 1)
    assert check_n_jobs(-10_000) == 1
    with pytest.raises(ValueError, match="n_jobs must be >= 1, or negative"):
        check_n_jobs(0)
    with pytest.raises(TypeError, match="n_jobs must be an integer or None, got float 2.0"):
        check_n_jobs(2.0)
    with pytest.raises(TypeError, match="got bool True"):
        check_n_jobs(True)


def test_check_codes_returns_int64_codes_in_domain_order():
    import pandas as pd

    frame = pd.DataFrame({"b": [1.0, 0.0], "a": [2, 0], "extra": ["x", "y"]})
    codes = check_codes(frame, {"a": 3, "b": 2}, "data")
    assert codes.dtype == np.int64 and codes.tolist() == [[2, 1], [0, 0]]
    with pytest.raises(ValueError, match=r"data: column 'a' must hold integer codes 0\.\.1, got 2"):
        check_codes(frame, {"a": 2, "b": 2}, "data")
    with pytest.raises(ValueError, match="data has no rows"):
        check_codes(frame.iloc[:0], {"a": 3}, "data")
    with pytest.raises(TypeError, match="column 'extra' must hold integer codes"):
        check_codes(frame, {"extra": 2}, "data")


def test_check_sample_wants_n_rows_of_codes():
    import pandas as pd

    domain = {"a": 2}
    assert check_sample(pd.DataFrame({"a": [0, 1, 1]}), domain, 3).tolist() == [[0], [1], [1]]
    with pytest.raises(TypeError, match="must return a pandas DataFrame, got ndarray"):
        check_sample(np.zeros((3, 1)), domain, 3)
    with pytest.raises(ValueError, match=r"sample\(4\) returned 3 rows; it must return 4"):
        check_sample(pd.DataFrame({"a": [0, 1, 1]}), domain, 4)
    with pytest.raises(ValueError, match="the generator's sample: column 'a'"):
        check_sample(pd.DataFrame({"a": [0, 2, 1]}), domain, 3)


def test_check_folder_accepts_new_folders_under_writable_ones(tmp_path):
    assert check_folder(tmp_path / "new" / "deeper", "out") == tmp_path / "new" / "deeper"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match=r"out .*file/x: .*file is a file, not a folder"):
        check_folder(tmp_path / "file" / "x", "out")


def test_check_input_folder_wants_the_folder_it_names(tmp_path):
    (tmp_path / "run" / "results").mkdir(parents=True)
    (tmp_path / "empty").mkdir()
    what = "a run folder"
    assert check_input_folder(str(tmp_path / "run"), "a", containing="results", what=what) == (
        tmp_path / "run"
    )
    with pytest.raises(ValueError, match=r"^b: .*empty has no results/ folder; pass a run folder$"):
        check_input_folder(tmp_path / "empty", "b", containing="results", what=what)
    with pytest.raises(ValueError, match=r"^b: .*run/results/x is not a folder; pass a run"):
        check_input_folder(tmp_path / "run" / "results" / "x", "b", containing="results", what=what)


def test_check_regex_compiles_or_names_the_pattern():
    assert check_regex(r"(^|_)s$", "ignore").search("fit_s") is not None
    with pytest.raises(ValueError, match="^ignore: an empty pattern matches every name$"):
        check_regex("", "ignore")
    with pytest.raises(
        ValueError, match=r"^ignore: '\[' is not a regular expression \(unterminated"
    ):
        check_regex("[", "ignore")
    with pytest.raises(TypeError, match=r"^ignore must be a regular expression \(str\), got 3$"):
        check_regex(3, "ignore")


def test_one_line_joins_a_multi_line_message():
    assert one_line(ValueError("while parsing\n  line 1\n    ^\nexpected ']'")) == (
        "while parsing line 1 ^ expected ']'"
    )


def test_check_int_range_names_the_range():
    assert check_int_range(np.int64(3), "k", 1, 5) == 3 and check_int_range(9, "n", 0) == 9
    with pytest.raises(ValueError, match=r"^k must be an integer in 1\.\.5, got 6$"):
        check_int_range(6, "k", 1, 5)
    with pytest.raises(ValueError, match=r"^seed must be an integer >= 0, got -1$"):
        check_int_range(-1, "seed", 0)
    with pytest.raises(TypeError, match=r"k must be an integer in 1\.\.5, got bool True"):
        check_int_range(True, "k", 1, 5)
    with pytest.raises(TypeError, match="got float 2.5"):
        int_in(1, 8)(2.5, "n")
    assert int_in(1, 8)(8, "n") == 8


def test_check_rho_str_names_and_instance():
    assert check_rho(0.5) == 0.5
    with pytest.raises(ValueError, match="rho must be > 0, got 0.0"):
        check_rho(0)
    assert check_str("a", "name") == "a"
    with pytest.raises(TypeError, match="name must be a string, got int 1"):
        check_str(1, "name")
    assert check_names(None, "cols") == () and check_names(iter("ab"), "cols") == ("a", "b")
    with pytest.raises(ValueError, match="cols must be a list of column names or None, got the"):
        check_names("ab", "cols")
    with pytest.raises(TypeError, match="cols must be a list of column names or None, got 3"):
        check_names(3, "cols")
    assert check_instance(None, "ledger", dict, allow_none=True) is None
    with pytest.raises(TypeError, match="^ledger must be a dict or None, got list$"):
        check_instance([], "ledger", dict, allow_none=True)
    with pytest.raises(TypeError, match="^x must be a dict, got NoneType$"):
        check_instance(None, "x", dict)


def test_check_generator_wants_the_generator_api():
    class Sampler:
        def get_params(self):
            return {}

        def fit(self, data):
            return self

        sample = None  # not callable

    with pytest.raises(TypeError, match="honest must be an unfitted estimator .* got Sampler"):
        check_generator(Sampler(), "honest")
    Sampler.sample = lambda self, n: n
    gen = Sampler()
    assert check_generator(gen, "honest") is gen


def test_check_int_and_real_arrays():
    assert (
        check_int_array(3, "k", 0) == 3 and check_real_array(0.5, "mu", 0.0, low_open=True) == 0.5
    )
    np.testing.assert_array_equal(check_int_array(np.array([0, 2]), "k", 0), [0, 2])
    np.testing.assert_array_equal(check_int_array(np.array([0, 2]), "k", 0, 2), [0, 2])
    with pytest.raises(ValueError, match=r"^k must be in 0\.\.2, got 3$"):
        check_int_array(np.array([0, 3]), "k", 0, 2)
    with pytest.raises(ValueError, match=r"^k must be an integer in 0\.\.2, got 3$"):
        check_int_array(3, "k", 0, 2)
    with pytest.raises(ValueError, match="n must be >= 1, got 0"):
        check_int_array(np.array([3, 0]), "n", 1)
    with pytest.raises(TypeError, match="got dtype float64"):
        check_int_array(np.array([1.0]), "n", 1)
    out = check_real_array([0, 1.5], "epsilon", 0.0, low_open=False)
    assert out.dtype == float and out.tolist() == [0.0, 1.5]
    with pytest.raises(ValueError, match=r"mu must be finite and > 0.0, got 0.0"):
        check_real_array(np.array([1.0, 0.0]), "mu", 0.0, low_open=True)


def test_check_frame_names_missing_columns_and_rows():
    import pandas as pd

    frame = pd.DataFrame({"a": [1, 2]})
    assert check_frame(frame, "data", ["a"]) is frame
    with pytest.raises(TypeError, match="data must be a pandas DataFrame, got list"):
        check_frame([1], "data")
    with pytest.raises(ValueError, match=r"data lacks the column\(s\) \['b'\]; it has \['a'\]"):
        check_frame(frame, "data", ["a", "b"])
    with pytest.raises(ValueError, match=r"data has 2 row\(s\), fewer than 3"):
        check_frame(frame, "data", min_rows=3)
    assert check_frame(frame.iloc[:0], "data", min_rows=0).empty


def test_constraint_factories_check_containers_element_by_element():
    family = str_one_of("normal", "beta")
    assert family("beta", "f") == "beta"
    with pytest.raises(TypeError, match=r"^f must be one of \('normal', 'beta'\), got int 3$"):
        family(3, "f")
    with pytest.raises(ValueError, match=r"f must be one of \('normal', 'beta'\), got 'gamma'"):
        family("gamma", "f")
    families = dict_of(family, "a dict {column: family}")
    assert families({"a": "normal"}, "d") == {"a": "normal"}
    with pytest.raises(TypeError, match=r"^d must be a dict \{column: family\}, got list$"):
        families(["a"], "d")
    with pytest.raises(ValueError, match=r"d\['a'\] must be one of"):
        families({"a": "gamma"}, "d")
    betas = pair_of(real_in(0.0, 1.0, high_open=True), "a pair in [0, 1)")
    assert betas([0.5, 0.9], "betas") == (0.5, 0.9)
    with pytest.raises(ValueError, match=r"^betas must be a pair in \[0, 1\), got \(0.5,\)$"):
        betas((0.5,), "betas")
    with pytest.raises(ValueError, match=r"betas\[1\] must be in \[0.0, 1.0\), got 1.0"):
        betas((0.5, 1.0), "betas")
    checkpoints = increasing_of(real_in(0.0, low_open=True), "epsilons")
    assert checkpoints((1, 2.5), "c") == [1.0, 2.5]
    with pytest.raises(ValueError, match=r"^c must be strictly increasing, got \[2, 2\]$"):
        checkpoints([2, 2], "c")
    with pytest.raises(ValueError, match=r"^c must be a non-empty sequence of epsilons, got \[\]$"):
        checkpoints([], "c")


def test_tuple_of_wants_exactly_n_checked_values():
    per_app = tuple_of(int_at_least(1), 3, "a list of 3 values (App. 1, 2, 3)")
    assert per_app([1, 2, 3], "copies") == (1, 2, 3)
    with pytest.raises(ValueError, match=r"^copies must be a list of 3 values \(App. 1, 2, 3\)"):
        per_app([1, 2], "copies")
    with pytest.raises(ValueError, match=r"^copies\[2\] must be >= 1, got 0$"):
        per_app([1, 2, 0], "copies")


def test_check_unique_items_names_the_repeated_item():
    import pandas as pd

    assert check_unique_items(pd.Index(["b", "a"]), "s") == ["b", "a"]
    assert check_unique_items(np.array([2, 1]), "s") == [2, 1]
    with pytest.raises(ValueError, match=r"^s has the item 'a' twice; its items must be distinct$"):
        check_unique_items(["a", "b", "a"], "s")
    with pytest.raises(TypeError, match=r"^s must be a sequence of items, got str$"):
        check_unique_items("ab", "s")
    with pytest.raises(ValueError, match=r"^s must hold at least 1 item\(s\), got \[\]$"):
        check_unique_items([], "s", min_len=1)
    seen = []
    check_unique_items(["x", "y"], "s", seen.append)
    assert seen == ["x", "y"]


def test_check_sample_frame_aligns_the_columns():
    import pandas as pd

    sample = pd.DataFrame({"b": [1, 2], "extra": [0, 0], "a": [3, 4]})
    out = check_sample_frame(sample, 2, ["a", "b"], "the sample")
    assert list(out.columns) == ["a", "b"] and out["a"].tolist() == [3, 4]
    with pytest.raises(ValueError, match=r"^the sample lacks the column\(s\) \['c'\]"):
        check_sample_frame(sample, 2, ["a", "c"], "the sample")
    with pytest.raises(ValueError, match=r"^sample\(3\) returned 2 rows; it must return 3$"):
        check_sample_frame(sample, 3, ["a"])


def test_validate_params_checks_named_arguments_before_the_call():
    calls = []

    @validate_params({"k": int_at_least(1), "p": real_in(0.0, 1.0)})
    def f(k, *, p=0.5, label="x"):
        """Doc."""
        calls.append((k, p, label))
        return k

    assert f(2) == 2 and f(k=3, p=1, label="y") == 3
    assert calls == [(2, 0.5, "x"), (3, 1.0, "y")]  # the checked value (1 -> 1.0) is passed on
    assert f.__doc__ == "Doc." and f.__name__ == "f"
    with pytest.raises(ValueError, match=r"^k must be >= 1, got 0$"):
        f(0)
    with pytest.raises(ValueError, match=r"^p must be in \[0.0, 1.0\], got 1.5$"):
        f(1, p=1.5)
    assert len(calls) == 2  # nothing ran on bad input

    def g(k):
        return k

    g.__name__ = "g"
    with pytest.raises(TypeError, match=r"g has no parameter\(s\) \['q'\]"):
        validate_params({"q": int_at_least(1)})(g)


def test_check_is_fitted_wants_fit_first():
    class Model:
        def fit(self):
            self._fitted = True
            return self

    with pytest.raises(
        NotFittedError, match=r"^this Model is not fitted yet; call fit\(X\) first$"
    ):
        check_is_fitted(Model())
    check_is_fitted(Model().fit())
    assert issubclass(NotFittedError, ValueError) and issubclass(NotFittedError, AttributeError)


def test_check_domain_orders_by_columns_and_names_the_parameter():
    assert check_domain({"b": 2, "a": np.int64(3)}, ["a", "b"]) == {"a": 3, "b": 2}
    assert check_domain({0: 1}) == {0: 1}  # any column label; one level allowed by default
    with pytest.raises(ValueError, match=r"^columns\['x'\] must be an integer >= 2, got 1$"):
        check_domain({"x": 1}, name="columns", min_levels=2)
    with pytest.raises(TypeError, match=r"^columns: column names must be non-empty strings"):
        check_domain({0: 2}, name="columns", str_keys=True)
    with pytest.raises(ValueError, match=r"^columns \['c'\] of the data are not in the domain"):
        check_domain({"a": 2}, ["a", "c"])
    with pytest.raises(ValueError, match=r"^domain columns \['a'\] are not in the data"):
        check_domain({"a": 2, "b": 2}, ["b"])
    with pytest.raises(ValueError, match=r"^domain is empty"):
        check_domain({})


def test_check_parameters_names_the_missing_keys():
    from synthtrust._validation import check_parameters

    params = {"seed": 1, "n_reps": 2}
    assert check_parameters(params, ("seed",)) is params
    with pytest.raises(ValueError, match=r"params lacks \['datasets'\]; the study needs "):
        check_parameters(params, ("seed", "datasets"))
    with pytest.raises(TypeError, match="params must be a mapping of the chapter's parameters"):
        check_parameters([("seed", 1)], ("seed",))

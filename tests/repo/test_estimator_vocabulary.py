"""One estimator vocabulary for every synthesizer: declarative parameter tables validated in
``fit`` (never in ``__init__``), ``ledger_`` (the old ``ledger`` alias is gone), ``max_iter``
(the old keywords are TypeErrors), one meaning of ``domain=``, and the shared checkers of
``synthtrust._validation``."""

import inspect

import numpy as np
import pandas as pd
import pytest
import sklearn.base

import synthtrust.synthesizers as syn
from synthtrust._validation import (
    check_choice,
    check_random_state_param,
    check_real,
    int_at_least,
    one_of,
    optional,
    real_in,
)
from synthtrust.domain import Categorical, Domain
from synthtrust.privacy.ledger import PrivacyLedger

SYNTHESIZERS = sorted(
    (obj for obj in vars(syn).values() if inspect.isclass(obj) and hasattr(obj, "fit")),
    key=lambda cls: cls.__name__,
)
#: constructor arguments without a default
REQUIRED = {
    "IPF": {"marginals": [("a", "b")]},
    "PGMMarginals": {"marginals": [("a", "b")]},
    "Flip": {"p": 0.5},
    "Subsample": {"fraction": 0.5},
}
#: generic bad values; each parameter must reject one of them with a ValueError naming it
BAD_VALUES = [-1, 0, float("nan"), "__bad__", [], {"__bad__": 0}, {"a": "__bad__"}]
CODES = pd.DataFrame({"a": [0, 1, 0, 1], "b": [1, 0, 1, 1]})


def _params(cls) -> list[str]:
    return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]


def _make(cls, **params):
    return cls(**{**REQUIRED.get(cls.__name__, {}), **params})


def test_the_walk_covers_every_exported_synthesizer():
    names = {cls.__name__ for cls in SYNTHESIZERS}
    assert {"AIM", "MST", "PrivatePGM", "GSWGAN", "PATECTGAN", "PrivMRF", "Flip"} <= names
    assert len(names) >= 21  # every estimator exported today


@pytest.mark.parametrize("cls", SYNTHESIZERS, ids=lambda c: c.__name__)
def test_every_parameter_has_one_constraint(cls):
    assert set(cls._parameter_constraints) == set(_params(cls))


@pytest.mark.parametrize("cls", SYNTHESIZERS, ids=lambda c: c.__name__)
def test_bad_values_are_stored_by_init_and_rejected_by_fit(cls):
    for name in _params(cls):
        for bad in BAD_VALUES:
            est = _make(cls, **{name: bad})  # never raises: __init__ only stores
            assert getattr(est, name) is bad
            try:
                est._validate_params()
            except (TypeError, ValueError) as exc:
                if isinstance(exc, ValueError) and name in str(exc):
                    break
        else:
            pytest.fail(f"{cls.__name__}: no bad value of {name!r} gives a ValueError naming it")
        with pytest.raises(ValueError, match=name):
            est.fit(CODES)


@pytest.mark.parametrize("cls", SYNTHESIZERS, ids=lambda c: c.__name__)
def test_sklearn_clone_keeps_the_parameters(cls):
    est = _make(cls, random_state=7)
    twin = sklearn.base.clone(est)
    assert type(twin) is cls and twin is not est
    assert twin.get_params() == est.get_params()


@pytest.mark.parametrize("cls", SYNTHESIZERS, ids=lambda c: c.__name__)
def test_estimators_are_sklearn_base_estimators_with_sklearns_not_fitted_error(cls):
    from sklearn.base import BaseEstimator
    from sklearn.exceptions import NotFittedError

    assert issubclass(cls, BaseEstimator)
    est = _make(cls)
    assert list(est.get_params(deep=False)) == _params(cls)  # the constructor's order
    with pytest.raises(NotFittedError, match=f"this {cls.__name__} is not fitted yet"):
        est.sample(3)


RENAMED = [
    (syn.AIM, "max_iters", 300),
    (syn.MST, "iters", 300),
    (syn.MWEMPGM, "iters", 300),
    (syn.PrivatePGM, "iters", 300),
    (syn.PGMMarginals, "iters", 300),
    (syn.PATECTGAN, "max_iterations", 300),
    (syn.GSWGAN, "max_iterations", 300),
    (syn.PrivMRF, "estimation_iters", 300),
]


@pytest.mark.parametrize("cls,old,value", RENAMED, ids=lambda x: getattr(x, "__name__", str(x)))
def test_old_iteration_keywords_are_gone(cls, old, value):
    """The package was never released: the old names of ``max_iter`` are refused, not mapped."""
    assert "max_iter" in _params(cls) and old not in _params(cls)
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{old}'"):
        _make(cls, **{old: value})
    assert _make(cls, max_iter=value).get_params()["max_iter"] == value


def test_the_ledger_is_ledger_only():
    df = pd.DataFrame({"a": [0, 1, 1, 0] * 10})
    synth = syn.PerturbedHistogram(1.0, domain={"a": 2}, random_state=0).fit(df)
    assert isinstance(synth.ledger_, PrivacyLedger) and synth.ledger_.total_epsilon == 1.0
    assert not hasattr(synth, "ledger")  # the deprecated alias is gone
    assert syn.Bootstrap(random_state=0).ledger_ is None


def test_cross_parameter_rules_run_after_the_table():
    gan = syn.GSWGAN(epsilon=1.0, checkpoints=[0.5, 2.0])
    with pytest.raises(ValueError, match=r"checkpoints must be <= epsilon = 1\.0, got 2\.0"):
        gan._validate_params()
    mrf = syn.PrivMRF(beta_graph=0.6, beta_select=0.5)
    with pytest.raises(ValueError, match=r"beta_graph \+ beta_select must be < 1"):
        mrf.fit(CODES)


# ---------------------------------------------------------------------------------------------
# domain=: one meaning everywhere
# ---------------------------------------------------------------------------------------------
SEX = Domain({"sex": Categorical(["F", "M"]), "smoker": Categorical(["no", "yes"])})
RAW = pd.DataFrame({"sex": ["F", "M", "M", "F"] * 5, "smoker": ["no", "no", "yes", "no"] * 5})


@pytest.mark.parametrize(
    "make",
    [
        lambda d: syn.PerturbedHistogram(1e6, domain=d, random_state=0),
        lambda d: syn.MST(1e6, 1e-9, domain=d, max_iter=50, random_state=0),
        lambda d: syn.IPF([("sex", "smoker")], domain=d, random_state=0),
    ],
    ids=["histogram base", "tabular base", "code-table base"],
)
def test_an_encoder_domain_encodes_fit_and_decodes_sample(make):
    synth = make(SEX).fit(RAW)
    assert synth.domain_ == {"sex": 2, "smoker": 2}
    out = synth.sample(20)
    assert set(out["sex"]) <= {"F", "M"} and set(out["smoker"]) <= {"no", "yes"}
    # the same table as codes with the equivalent dict domain
    codes = make(SEX.sizes).fit(SEX.encode(RAW)).sample(20)
    assert set(codes["sex"]) <= {0, 1}


def test_fit_counts_takes_the_axes_of_an_encoder_domain():
    counts = np.array([[3, 1], [0, 6]])
    synth = syn.PerturbedHistogram(1e9, domain=SEX, random_state=0).fit_counts(counts)
    assert synth.shape_ == (2, 2) and synth.columns_ == ["sex", "smoker"]
    assert synth.sample_counts().tolist() == counts.tolist()  # ε = 1e9: exact


def test_a_bad_domain_is_named_at_fit():
    with pytest.raises(TypeError, match="domain must be a synthtrust.domain.Domain, a dict"):
        syn.MWEM(domain=["a"]).fit(CODES)
    with pytest.raises(ValueError, match=r"domain\['a'\] must be an integer >= 1, got 0"):
        syn.SequentialCART(domain={"a": 0, "b": 2}).fit(CODES)


# ---------------------------------------------------------------------------------------------
# the shared checkers (hand-written oracles)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value,kwargs,expected",
    [
        (0.5, {}, 0.5),
        (np.float32(0.25), {}, 0.25),
        (np.int64(3), {"low": 0}, 3.0),
        (0, {"low": 0}, 0.0),  # closed lower end
        (1, {"low": 0, "high": 1}, 1.0),  # closed upper end
        (float("inf"), {"low": 0, "finite": False}, float("inf")),
        (-2.5, {"high": 0, "high_open": True}, -2.5),
    ],
)
def test_check_real_accepts(value, kwargs, expected):
    out = check_real(value, "x", **kwargs)
    assert out == expected and type(out) is float


@pytest.mark.parametrize(
    "value,kwargs,error,message",
    [
        (True, {}, TypeError, "x must be a real number, got bool True"),
        ("1", {}, TypeError, "x must be a real number, got str '1'"),
        (float("nan"), {}, ValueError, "x must be a number, got nan"),
        (float("nan"), {"low": 0}, ValueError, r"x must be in \[0, inf\), got nan"),
        (float("inf"), {}, ValueError, "x must be finite, got inf"),
        (float("inf"), {"low": 0}, ValueError, "x must be finite, got inf"),
        (0, {"low": 0, "low_open": True}, ValueError, r"x must be in \(0, inf\), got 0.0"),
        (1, {"low": 0, "high": 1, "high_open": True}, ValueError, r"in \[0, 1\), got 1.0"),
        (-0.1, {"low": 0}, ValueError, r"x must be in \[0, inf\), got -0.1"),
        (3, {"high": 2}, ValueError, r"x must be in \(-inf, 2\], got 3.0"),
        (np.float64(1e-12), {"low": 1e-9}, ValueError, r"in \[1e-09, inf\), got 1e-12"),
    ],
)
def test_check_real_rejects(value, kwargs, error, message):
    with pytest.raises(error, match=message):
        check_real(value, "x", **kwargs)


def test_table_checkers():
    assert optional(int_at_least(2))(None, "k") is None
    assert optional(int_at_least(2))(np.int64(5), "k") == 5
    with pytest.raises(ValueError, match="k must be >= 2, got 1"):
        optional(int_at_least(2))(1, "k")
    with pytest.raises(TypeError, match="k must be an integer, got bool True"):
        int_at_least(0)(True, "k")
    assert real_in(0.0, 1.0, high_open=True)(0, "p") == 0.0
    with pytest.raises(ValueError, match=r"p must be in \[0.0, 1.0\), got 1.0"):
        real_in(0.0, 1.0, high_open=True)(1.0, "p")
    assert one_of("a", "b")("b", "mode") == "b"
    with pytest.raises(ValueError, match=r"mode must be one of \('a', 'b'\), got 'c'"):
        one_of("a", "b")("c", "mode")
    with pytest.raises(ValueError, match=r"mode must be one of \('a',\), got \['a'\]"):
        check_choice(["a"], "mode", ("a",))  # unhashable values are never an option


@pytest.mark.parametrize("ok", [None, 0, np.int64(3), np.random.default_rng(0)])
def test_random_state_param_accepts(ok):
    assert check_random_state_param(ok) is None


def test_random_state_param_rejects():
    with pytest.raises(ValueError, match="random_state must be a non-negative int seed, got -1"):
        check_random_state_param(-1)
    with pytest.raises(TypeError, match="seed must be None, an int, .* got float 1.5"):
        check_random_state_param(1.5, "seed")
    with pytest.raises(TypeError, match="got bool True"):
        check_random_state_param(True)

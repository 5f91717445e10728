"""Tests of synthtrust.protocols (Movahedi et al. 2024): classifiers, metrics against
scikit-learn, the DP confusion matrix against Laplace theory, the curator's trust boundary, the
protocol error (eq. 2–3) and one repetition of the experiment end to end on Pima diabetes."""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

from synthtrust import datasets
from synthtrust import protocols as P
from synthtrust.privacy import PrivacyLedger

TARGET = "Outcome"


# --------------------------------------------------------------------------------------------
# fixtures and stubs
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pima() -> pd.DataFrame:
    return datasets.load("pima_diabetes")


@pytest.fixture(scope="module")
def pima_split(pima):
    return P.split_train_test(pima, 0.2, random_state=0)


class BootstrapStub:
    """A trivial non-DP 'synthesizer': resamples the training rows with replacement."""

    def __init__(self, epsilon, random_state):
        self.epsilon = epsilon
        self.rng = np.random.default_rng(random_state)

    def fit(self, data):
        self.data = data.reset_index(drop=True)
        return self

    def sample(self, n):
        idx = self.rng.integers(0, len(self.data), size=n)
        return self.data.iloc[idx].reset_index(drop=True)


class OneClassStub(BootstrapStub):
    """Bootstrap of the negative rows only: the synthetic data lack the positive class."""

    def fit(self, data):
        return super().fit(data[data[TARGET] == 0])


def mixed_frame(n=300, seed=0) -> pd.DataFrame:
    """Mixed-type table: numeric with NaN, a string column with NaN, a boolean, an int-coded
    nominal column, and a string binary target."""
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x1[rng.random(n) < 0.1] = np.nan
    colour = rng.choice(["red", "green", "blue"], size=n).astype(object)
    colour[rng.random(n) < 0.1] = None
    flag = rng.random(n) < 0.4
    code = rng.integers(0, 4, size=n)
    logit = np.nan_to_num(x1) + (colour == "red") - 0.5 * code + flag
    y = np.where(logit + rng.logistic(size=n) > 0, "sick", "healthy")
    return pd.DataFrame(
        {
            "x1": x1,
            "colour": pd.array(colour, dtype="str"),
            "flag": flag,
            "code": code,
            "y": y,
        }
    )


# --------------------------------------------------------------------------------------------
# classifiers
# --------------------------------------------------------------------------------------------
def test_make_classifier_matches_the_paper():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import LinearSVC

    rf = P.make_classifier("random_forest", 3).named_steps["classifier"]
    svm = P.make_classifier("linear_svm", 3).named_steps["classifier"]
    knn = P.make_classifier("knn").named_steps["classifier"]
    assert (
        isinstance(rf, RandomForestClassifier) and rf.n_estimators == 100 and rf.random_state == 3
    )
    assert isinstance(svm, LinearSVC) and svm.C == 1.0
    assert isinstance(knn, KNeighborsClassifier) and knn.n_neighbors == 5
    with pytest.raises(ValueError, match="'svm'.*random_forest, linear_svm, knn"):
        P.make_classifier("svm")


def test_fit_classifier_is_deterministic_given_random_state(pima_split):
    train, test = pima_split
    X = test.drop(columns=TARGET)
    a = P.fit_classifier("random_forest", train, TARGET, 11).predict_proba(X)
    b = P.fit_classifier("random_forest", train, TARGET, 11).predict_proba(X)
    c = P.fit_classifier("random_forest", train, TARGET, 12).predict_proba(X)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_preprocessing_one_hot_and_standardise():
    df = mixed_frame()
    model = P.fit_classifier("linear_svm", df, "y", 0, categorical=["code"])
    pre = model.named_steps["preprocess"]
    cols = {name: list(c) for name, _, c in pre.transformers_ if name != "remainder"}
    assert cols["numeric"] == ["x1"]
    assert cols["categorical"] == ["colour", "flag", "code"]
    Z = pre.transform(df.drop(columns="y"))
    # x1: median-imputed then z-scored on the training data
    x = df["x1"].fillna(df["x1"].median()).to_numpy()
    np.testing.assert_allclose(Z[:, 0], (x - x.mean()) / x.std(), rtol=1e-12)
    # colour: blue, green, red, missing; flag: False, True; code: 0..3  -> 1 + 4 + 2 + 4 columns
    assert Z.shape == (len(df), 11)
    np.testing.assert_array_equal(Z[:, 1:].sum(axis=1), 3)


# --------------------------------------------------------------------------------------------
# metrics from the confusion matrix
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_metrics_equal_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    y_true = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.7, y_true, 1 - y_true)
    cm = P.confusion_matrix(y_true, y_pred, positive=1)
    np.testing.assert_array_equal(cm, skm.confusion_matrix(y_true, y_pred, labels=[0, 1]))
    assert cm.dtype == np.int64
    assert P.accuracy_from_confusion(cm) == pytest.approx(
        skm.accuracy_score(y_true, y_pred), abs=1e-15
    )
    assert P.f1_from_confusion(cm) == pytest.approx(
        skm.f1_score(y_true, y_pred, pos_label=1, zero_division=0), abs=1e-15
    )


def test_metrics_string_labels_and_degenerate_cases():
    y_true = np.array(["no", "yes", "yes", "no", "no"])
    y_pred = np.array(["no", "yes", "no", "no", "yes"])
    cm = P.confusion_matrix(y_true, y_pred, positive="yes")
    np.testing.assert_array_equal(cm, skm.confusion_matrix(y_true, y_pred, labels=["no", "yes"]))
    assert P.f1_from_confusion(cm) == pytest.approx(skm.f1_score(y_true, y_pred, pos_label="yes"))
    # never predicting the positive class: F1 = 0 (sklearn zero_division=0)
    all_neg = np.array(["no"] * 5)
    cm0 = P.confusion_matrix(y_true, all_neg, positive="yes")
    assert (
        P.f1_from_confusion(cm0)
        == 0.0
        == skm.f1_score(y_true, all_neg, pos_label="yes", zero_division=0)
    )
    # no positive at all: denominator 0 -> F1 = 0; empty matrix -> accuracy NaN
    assert P.f1_from_confusion([[5, 0], [0, 0]]) == 0.0
    assert math.isnan(P.accuracy_from_confusion([[0, 0], [0, 0]]))
    assert P.classification_metrics([[3, 1], [1, 5]]) == {
        "accuracy": 0.8,
        "f1": pytest.approx(10 / 12),
    }


def test_metrics_vectorized_equal_loop():
    rng = np.random.default_rng(3)
    cms = rng.integers(0, 5, size=(4, 3, 2, 2))
    acc = P.accuracy_from_confusion(cms)
    f1 = P.f1_from_confusion(cms)
    assert acc.shape == f1.shape == (4, 3)
    for i in range(4):
        for j in range(3):
            a = P.accuracy_from_confusion(cms[i, j])
            assert (math.isnan(a) and math.isnan(acc[i, j])) or a == acc[i, j]
            assert f1[i, j] == P.f1_from_confusion(cms[i, j])
    with pytest.raises(ValueError, match="shape"):
        P.accuracy_from_confusion(np.ones((3, 3)))
    with pytest.raises(ValueError, match=">= 0"):
        P.f1_from_confusion([[1, -1], [0, 2]])


# --------------------------------------------------------------------------------------------
# DP confusion matrix
# --------------------------------------------------------------------------------------------
def test_dp_confusion_matrix_release_and_ledger():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    pred = np.where(rng.random(200) < 0.8, y, 1 - y)
    ledger = PrivacyLedger()
    rel = P.dp_confusion_matrix(y, pred, 0.5, random_state=1, ledger=ledger)
    assert rel.matrix.dtype == np.int64 and rel.matrix.shape == (2, 2)
    assert np.all(rel.matrix >= 0)
    np.testing.assert_array_equal(rel.matrix, np.clip(np.rint(rel.noisy), 0, None))
    assert len(ledger) == 1 and ledger.total_epsilon == 0.5
    entry = ledger.entries[0]
    assert entry.mechanism == "laplace" and entry.sensitivity == 1.0 and entry.scale == 2.0
    assert rel.accuracy == P.accuracy_from_confusion(rel.matrix)
    assert rel.f1 == P.f1_from_confusion(rel.matrix)
    # replace-one neighbours: sensitivity 2, scale 2/ε, still one entry of ε
    led2 = PrivacyLedger()
    rel2 = P.dp_confusion_matrix(y, pred, 0.5, 1, led2, neighbouring="replace_one")
    assert led2.total_epsilon == 0.5 and rel2.scale == 4.0 and rel2.sensitivity == 2.0
    # huge ε: the release is the true matrix
    big = P.dp_confusion_matrix(y, pred, 1e6, random_state=2)
    np.testing.assert_array_equal(big.matrix, P.confusion_matrix(y, pred))


def _rounded_laplace_moments(b: float, kmax: int = 400):
    """Exact mean, variance, 4th central moment of rint(L), L ~ Laplace(0, b)."""
    k = np.arange(-kmax, kmax + 1, dtype=float)

    def cdf(x):
        return np.where(x < 0, 0.5 * np.exp(x / b), 1 - 0.5 * np.exp(-x / b))

    pmf = cdf(k + 0.5) - cdf(k - 0.5)
    mean = float(np.sum(k * pmf))
    var = float(np.sum((k - mean) ** 2 * pmf))
    m4 = float(np.sum((k - mean) ** 4 * pmf))
    return mean, var, m4


@pytest.mark.parametrize("neighbouring, b", [("add_remove", 1.0), ("replace_one", 2.0)])
def test_dp_confusion_matrix_noise_matches_laplace_theory(neighbouring, b):
    cm = np.array([[1000, 1000], [1000, 1000]])  # far from 0: clipping never happens
    rng = np.random.default_rng(2024)
    draws = 4000
    raw = np.empty((draws, 4))
    out = np.empty((draws, 4))
    for i in range(draws):
        rel = P.privatize_confusion_matrix(cm, 1.0, rng, neighbouring=neighbouring)
        raw[i] = rel.noisy.ravel() - 1000
        out[i] = rel.matrix.ravel() - 1000
    n = raw.size
    # raw Laplace noise: mean 0, variance 2b², 4th moment 24 b⁴
    var_l, m4_l = 2 * b**2, 24 * b**4
    assert abs(raw.mean()) < 4.5 * math.sqrt(var_l / n)
    assert abs(raw.var(ddof=1) - var_l) < 4.5 * math.sqrt((m4_l - var_l**2) / n)
    # released (rounded) noise: exact law of rint(Laplace)
    mean_r, var_r, m4_r = _rounded_laplace_moments(b)
    assert mean_r == pytest.approx(0.0, abs=1e-12)
    assert abs(out.mean() - mean_r) < 4.5 * math.sqrt(var_r / n)
    assert abs(out.var(ddof=1) - var_r) < 4.5 * math.sqrt((m4_r - var_r**2) / n)


def test_dp_confusion_matrix_clipping_at_zero_binomial_band():
    # a true count 0 is released as 0 iff L < 0.5: probability 1 − exp(−0.5/b)/2
    b = 1.0
    rng = np.random.default_rng(7)
    draws = 3000
    zeros = 0
    for _ in range(draws):
        rel = P.privatize_confusion_matrix([[0, 0], [0, 0]], 1 / b, rng)
        zeros += int(np.count_nonzero(rel.matrix == 0))
    p = 1 - 0.5 * math.exp(-0.5 / b)
    n = 4 * draws
    assert abs(zeros / n - p) < 4.5 * math.sqrt(p * (1 - p) / n)


def test_dp_confusion_matrix_bad_input():
    with pytest.raises(ValueError, match="epsilon must be > 0, got 0.0"):
        P.dp_confusion_matrix([0, 1], [0, 1], 0)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        P.dp_confusion_matrix([0, 1], [0, 1], -1.0)
    with pytest.raises(ValueError, match="'bounded'.*add_remove, replace_one"):
        P.dp_confusion_matrix([0, 1], [0, 1], 1.0, neighbouring="bounded")
    with pytest.raises(ValueError, match="same length"):
        P.dp_confusion_matrix([0, 1, 1], [0, 1], 1.0)
    with pytest.raises(ValueError, match="integer counts"):
        P.privatize_confusion_matrix([[0.5, 1], [2, 3]], 1.0)


# --------------------------------------------------------------------------------------------
# models as JSON data and the curator
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", P.CLASSIFIERS)
def test_exported_model_predicts_like_sklearn_pima(pima_split, name):
    train, test = pima_split
    model = P.fit_classifier(name, train, TARGET, 5)
    spec = P.export_model(model)
    text = json.dumps(spec, allow_nan=False)  # strictly JSON: nothing but data
    X = test.drop(columns=TARGET)
    expected = model.predict(X)
    np.testing.assert_array_equal(P.predict_exported(text, X).astype(np.int64), expected)
    np.testing.assert_array_equal(P.predict_exported(spec, X).astype(np.int64), expected)


@pytest.mark.parametrize("name", P.CLASSIFIERS)
def test_exported_model_predicts_like_sklearn_mixed_types(name):
    df = mixed_frame(400, seed=1)
    train, test = df.iloc[:300], df.iloc[300:].reset_index(drop=True)
    # a category unseen in training and a missing value in the test set
    test.loc[0, "colour"] = "purple"
    test.loc[1, "x1"] = np.nan
    model = P.fit_classifier(name, train, "y", 2, categorical=["code"])
    spec = json.loads(json.dumps(P.export_model(model), allow_nan=False))
    X = test.drop(columns="y")
    np.testing.assert_array_equal(P.predict_exported(spec, X), model.predict(X).astype(object))


def test_curator_refuses_pickles_and_objects(pima_split):
    train, test = pima_split
    model = P.fit_classifier("linear_svm", train, TARGET, 0)
    curator = P.Curator(test, TARGET)
    for bad in (pickle.dumps(model), bytearray(pickle.dumps(model)), memoryview(b"\x80\x04")):
        with pytest.raises(TypeError, match="pickle"):
            curator.evaluate(bad, 1.0)
    with pytest.raises(TypeError, match="export_model"):
        curator.evaluate(model, 1.0)  # a fitted estimator object is not JSON data
    with pytest.raises(TypeError, match="pickle"):
        P.predict_exported(pickle.dumps(P.export_model(model)), test)
    with pytest.raises(ValueError, match="not valid JSON"):
        curator.evaluate(pickle.dumps(model, protocol=0).decode("latin-1"), 1.0)
    with pytest.raises(ValueError, match="format"):
        curator.evaluate({"format": "pickle"}, 1.0)
    assert len(curator.ledger) == 0  # nothing was released


def test_curator_evaluate_json_callable_and_ledger(pima_split):
    train, test = pima_split
    model = P.fit_classifier("linear_svm", train, TARGET, 0)
    curator = P.Curator(test, TARGET)
    assert curator.n_test == len(test) and curator.positive == 1 and curator.labels == [0, 1]
    true_cm = P.confusion_matrix(test[TARGET].to_numpy(), model.predict(test.drop(columns=TARGET)))
    rel = curator.evaluate(json.dumps(P.export_model(model)), 1e6, random_state=0)
    np.testing.assert_array_equal(rel.matrix, true_cm)
    rel2 = curator.evaluate(model.predict, 1e6, random_state=0)  # callable inside the curator
    np.testing.assert_array_equal(rel2.matrix, true_cm)
    curator.evaluate(P.export_model(model), 0.3, random_state=1)
    assert len(curator.ledger) == 3
    assert curator.ledger.total_epsilon == pytest.approx(2e6 + 0.3)  # sequential composition
    with pytest.raises(ValueError, match="shape"):
        curator.evaluate(lambda X: np.zeros(3), 1.0)
    with pytest.raises(ValueError, match=r"label\(s\) \[7\]"):
        curator.evaluate(lambda X: np.full(len(X), 7), 1.0)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        curator.evaluate(model.predict, 0.0)


def test_curator_bad_test_sets(pima):
    with pytest.raises(ValueError, match="'label' is not in test"):
        P.Curator(pima, "label")
    three = pima.assign(Outcome=pima["Outcome"] + (pima["Age"] > 50))
    with pytest.raises(ValueError, match="exactly 2 classes.*got 3"):
        P.Curator(three, TARGET)
    with pytest.raises(ValueError, match="exactly 2 classes.*got 1"):
        P.Curator(pima[pima[TARGET] == 0], TARGET)
    shifted = pima.assign(Outcome=pima["Outcome"] + 1)  # labels {1, 2}: which is positive?
    with pytest.raises(ValueError, match=r"positive="):
        P.Curator(shifted, TARGET)
    assert P.Curator(shifted, TARGET, positive=2).positive == 2
    with pytest.raises(ValueError, match="positive=5"):
        P.Curator(shifted, TARGET, positive=5)


# --------------------------------------------------------------------------------------------
# protocols
# --------------------------------------------------------------------------------------------
def test_protocol_a_and_b_and_truth(pima_split):
    train, test = pima_split
    syn = train.sample(len(train) + len(test), replace=True, random_state=1).reset_index(drop=True)
    res_a = P.protocol_a(syn, TARGET, "knn", 0.2, random_state=3)
    assert res_a.protocol == "A" and (res_a.n_train, res_a.n_test) == (614, 154)
    assert res_a.release is None
    assert res_a.accuracy == P.accuracy_from_confusion(res_a.confusion)
    assert res_a.confusion.sum() == 154

    ledger = PrivacyLedger()
    syn_b = syn.iloc[: len(train)]
    res_b = P.protocol_b(syn_b, test, TARGET, "knn", 1e6, random_state=4, ledger=ledger)
    assert res_b.protocol == "B" and (res_b.n_train, res_b.n_test) == (614, 154)
    assert ledger.total_epsilon == 1e6 and len(ledger) == 1
    truth = P.true_performance(syn_b, test, TARGET, "knn", random_state=0)
    assert truth.protocol == "truth"
    np.testing.assert_array_equal(res_b.confusion, truth.confusion)  # no noise at ε = 1e6
    assert res_b.f1 == truth.f1 and res_b.accuracy == truth.accuracy


def test_protocols_bad_input(pima_split):
    train, test = pima_split
    with pytest.raises(ValueError, match="epsilon must be > 0, got 0.0"):
        P.protocol_b(train, test, TARGET, "knn", 0.0)
    with pytest.raises(ValueError, match="unknown classifier 'tree'"):
        P.protocol_a(train, TARGET, "tree")
    with pytest.raises(ValueError, match="'y' is not in synthetic"):
        P.protocol_a(train, "y", "knn")
    with pytest.raises(ValueError, match="test_size"):
        P.protocol_a(train, TARGET, "knn", test_size=1.0)
    bad = train.assign(Outcome=train["Outcome"] * 5)  # label 5 unknown to the real data
    with pytest.raises(ValueError, match=r"label\(s\) \[5\]"):
        P.protocol_b(bad, test, TARGET, "knn", 1.0)


@pytest.mark.parametrize("name", P.CLASSIFIERS)
def test_single_class_synthetic_data_gives_constant_classifier(pima_split, name):
    train, test = pima_split
    neg = train[train[TARGET] == 0].reset_index(drop=True)
    res_b = P.protocol_b(neg, test, TARGET, name, 1e6, random_state=0)
    assert res_b.f1 == 0.0  # never predicts the positive class
    assert res_b.accuracy == pytest.approx(float((test[TARGET] == 0).mean()))
    res_a = P.protocol_a(neg, TARGET, name, random_state=0)
    assert res_a.accuracy == 1.0 and res_a.f1 == 0.0  # no positives anywhere: F1 = 0
    spec = P.export_model(res_b.model)
    assert spec["estimator"] == {"kind": "constant", "label": 0}


# --------------------------------------------------------------------------------------------
# protocol error
# --------------------------------------------------------------------------------------------
def test_protocol_error_hand_computation():
    res = P.protocol_error([1.5, 2.5, 3.5], [0.5, 0.5, 0.5])  # r = [1, 2, 3]
    assert res.me == pytest.approx(2.0) and res.std == pytest.approx(1.0)
    assert res.rmse == pytest.approx(math.sqrt(5.0)) and res.n == 3
    assert res.to_dict()["n_undefined"] == 0


def test_protocol_error_equals_loop_and_omits_nan():
    rng = np.random.default_rng(0)
    p, y = rng.random(25), rng.random(25)
    res = P.protocol_error(p, y)
    r = [pi - yi for pi, yi in zip(p, y, strict=True)]
    me = sum(r) / len(r)
    sd = math.sqrt(sum((ri - me) ** 2 for ri in r) / (len(r) - 1))
    assert res.me == pytest.approx(me, abs=1e-14) and res.std == pytest.approx(sd, abs=1e-14)
    assert res.rmse == pytest.approx(math.hypot(me, sd), abs=1e-14)
    p2 = np.append(p, np.nan)
    res2 = P.protocol_error(p2, np.append(y, 0.5))
    assert (res2.me, res2.std, res2.n, res2.n_undefined) == (res.me, res.std, 25, 1)
    one = P.protocol_error([0.7], [0.5])
    assert one.me == pytest.approx(0.2) and math.isnan(one.std) and math.isnan(one.rmse)
    with pytest.raises(ValueError, match="same length"):
        P.protocol_error([1, 2], [1])


def test_summarize_protocol_errors_equals_per_group():
    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        {
            "protocol": np.repeat(["A", "B"], 30),
            "metric": np.tile(np.repeat(["accuracy", "f1"], 15), 2),
            "estimate": rng.random(60),
            "truth": rng.random(60),
        }
    )
    df.loc[3, "estimate"] = np.nan
    out = P.summarize_protocol_errors(df, by=["protocol", "metric"])
    assert list(out.columns) == ["protocol", "metric", "me", "std", "rmse", "n", "n_undefined"]
    assert len(out) == 4
    for row in out.itertuples():
        g = df[(df.protocol == row.protocol) & (df.metric == row.metric)]
        ref = P.protocol_error(g.estimate, g.truth)
        assert row.me == pytest.approx(ref.me, abs=1e-14)
        assert row.std == pytest.approx(ref.std, abs=1e-14)
        assert row.rmse == pytest.approx(ref.rmse, abs=1e-14)
        assert (row.n, row.n_undefined) == (ref.n, ref.n_undefined)
    assert out.loc[(out.protocol == "A") & (out.metric == "accuracy"), "n"].item() == 14
    overall = P.summarize_protocol_errors(df, by=[])
    assert overall["n"].item() == 59
    with pytest.raises(ValueError, match="'generator'"):
        P.summarize_protocol_errors(df, by=["generator"])


# --------------------------------------------------------------------------------------------
# one repetition, end to end on Pima diabetes
# --------------------------------------------------------------------------------------------
def test_evaluate_repetition_bootstrap_pima(pima):
    ledger = PrivacyLedger()
    df = P.evaluate_repetition(pima, TARGET, BootstrapStub, 50.0, random_state=42, ledger=ledger)
    assert list(df.columns) == [
        "protocol",
        "classifier",
        "metric",
        "estimate",
        "truth",
        "reference",
    ]
    assert len(df) == 2 * 3 * 2
    assert set(df.protocol) == {"A", "B"} and set(df.metric) == {"accuracy", "f1"}
    assert set(df.classifier) == set(P.CLASSIFIERS)
    assert ledger.total_epsilon == pytest.approx(150.0) and len(ledger) == 3  # one per classifier
    vals = df[["estimate", "truth", "reference"]].to_numpy()
    assert np.all((vals >= 0) & (vals <= 1))
    b = df[df.protocol == "B"]
    # ε = 50: Lap(0.02) noise is rounded away (P(|L| > 0.5) = e^-25), so B equals the truth
    np.testing.assert_array_equal(b.estimate.to_numpy(), b.truth.to_numpy())
    # the reference does not depend on the protocol
    piv = df.pivot_table(index=["classifier", "metric"], columns="protocol", values="reference")
    np.testing.assert_array_equal(piv["A"], piv["B"])
    # a moderate ε: B close to the truth (Lap(0.2) per cell moves few counts of 154)
    df5 = P.evaluate_repetition(pima, TARGET, BootstrapStub, 5.0, ["linear_svm"], random_state=1)
    b5 = df5[df5.protocol == "B"]
    assert np.all(np.abs(b5.estimate - b5.truth) <= 0.05)


def test_evaluate_repetition_is_deterministic(pima):
    args = (pima, TARGET, BootstrapStub, 1.0)
    one = P.evaluate_repetition(*args, ["knn", "linear_svm"], random_state=7)
    two = P.evaluate_repetition(*args, ["knn", "linear_svm"], random_state=7)
    pd.testing.assert_frame_equal(one, two)
    other = P.evaluate_repetition(*args, ["knn", "linear_svm"], random_state=8)
    assert not one.equals(other)
    # each classifier has its own stream: its rows do not depend on the others requested
    knn_only = P.evaluate_repetition(*args, ["knn"], random_state=7)
    pd.testing.assert_frame_equal(knn_only, one[one.classifier == "knn"].reset_index(drop=True))
    # a Generator works as random_state and gives the int seed's result
    three = P.evaluate_repetition(
        *args, ["knn", "linear_svm"], random_state=np.random.default_rng(7)
    )
    pd.testing.assert_frame_equal(one, three)


def test_evaluate_repetition_one_class_synthetic_data(pima):
    df = P.evaluate_repetition(pima, TARGET, OneClassStub, 1e3, random_state=0)
    assert len(df) == 12 and df[["estimate", "truth", "reference"]].notna().all().all()
    f1 = df[df.metric == "f1"]
    assert np.all(f1.truth == 0.0) and np.all(f1.estimate == 0.0)


def test_evaluate_repetition_with_a_package_synthesizer(pima):
    from synthtrust.synthesizers.baselines import IndependentMarginals

    df = P.evaluate_repetition(
        pima,
        TARGET,
        lambda eps, rs: IndependentMarginals(random_state=rs),
        10.0,
        ["linear_svm"],
        random_state=3,
    )
    # features independent of the class: the models are worse than the real-data reference
    acc = df[(df.metric == "accuracy")]
    assert np.all(acc.truth < acc.reference)


def test_evaluate_repetition_bad_input(pima):
    with pytest.raises(ValueError, match="epsilon must be > 0, got -1.0"):
        P.evaluate_repetition(pima, TARGET, BootstrapStub, -1.0)
    with pytest.raises(ValueError, match="unknown classifier 'svc'"):
        P.evaluate_repetition(pima, TARGET, BootstrapStub, 1.0, ["svc"])
    with pytest.raises(ValueError, match="'diabetes' is not in real"):
        P.evaluate_repetition(pima, "diabetes", BootstrapStub, 1.0)
    with pytest.raises(ValueError, match="exactly 2 classes"):
        P.evaluate_repetition(pima.assign(Outcome=pima["Pregnancies"]), TARGET, BootstrapStub, 1.0)
    with pytest.raises(TypeError, match="make_synthesizer"):
        P.evaluate_repetition(pima, TARGET, "mst", 1.0)

"""Tests of ``synthtrust.protocols.repetition``.

The oracles and the shared set-up are described in ``_protocol_data.py``.
"""

from __future__ import annotations

import weakref

import numpy as np
import pandas as pd
import pytest
from _protocol_data import TARGET

from synthtrust import protocols as P
from synthtrust.privacy import PrivacyLedger


class BootstrapStub:
    """A trivial non-DP 'synthesizer': resamples the training rows with replacement (its own
    size, ``sample()`` without ``n``, is the number of training rows)."""

    def __init__(self, epsilon, random_state):
        self.epsilon = epsilon
        self.rng = np.random.default_rng(random_state)

    def fit(self, data):
        self.data = data.reset_index(drop=True)
        return self

    def sample(self, n=None):
        n = len(self.data) if n is None else n
        idx = self.rng.integers(0, len(self.data), size=n)
        return self.data.iloc[idx].reset_index(drop=True)


class OneClassStub(BootstrapStub):
    """Bootstrap of the negative rows only: the synthetic data lack the positive class."""

    def fit(self, data):
        return super().fit(data[data[TARGET] == 0])


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
    with pytest.raises(ValueError, match=r"classifiers must hold at least 1 item\(s\), got \[\]"):
        P.evaluate_repetition(pima, TARGET, BootstrapStub, 1.0, [])
    with pytest.raises(ValueError, match="classifiers has the item 'linear_svm' twice"):
        P.evaluate_repetition(pima, TARGET, BootstrapStub, 1.0, ["linear_svm", "linear_svm"])


class ShortStub(BootstrapStub):
    def sample(self, n=None):
        return super().sample(n).iloc[:-1]


class NoTargetStub(BootstrapStub):
    def sample(self, n=None):
        return super().sample(n).drop(columns=TARGET)


class ArrayStub(BootstrapStub):
    def sample(self, n=None):
        return super().sample(n).to_numpy()


@pytest.mark.parametrize(
    ("stub", "neighbouring", "exc", "match"),
    [
        # replace-one (n public): the exact sizes, A (614 + 154) first
        (
            ShortStub,
            "replace_one",
            ValueError,
            r"sample\(768\) returned 767 rows; it must return 768",
        ),
        (
            NoTargetStub,
            "replace_one",
            ValueError,
            r"the Protocol A sample lacks the column\(s\) \['Outcome'\]",
        ),
        (
            ArrayStub,
            "replace_one",
            TypeError,
            r"sample\(768\) must return a pandas DataFrame, got ndarray",
        ),
        # add/remove: B is the stub's own 613 rows, A round(613 / 0.8) = 766
        (
            ShortStub,
            "add_remove",
            ValueError,
            r"sample\(766\) returned 765 rows; it must return 766",
        ),
        (
            NoTargetStub,
            "add_remove",
            ValueError,
            r"the Protocol B sample lacks the column\(s\) \['Outcome'\]",
        ),
        (
            ArrayStub,
            "add_remove",
            TypeError,
            r"sample\(\) must return a pandas DataFrame, got ndarray",
        ),
    ],
)
def test_evaluate_repetition_refuses_a_bad_sample(pima, stub, neighbouring, exc, match):
    with pytest.raises(exc, match=match):
        P.evaluate_repetition(
            pima, TARGET, stub, 1.0, ["linear_svm"], random_state=0, neighbouring=neighbouring
        )


def test_evaluate_repetition_sizes_follow_the_neighbouring_relation(pima):
    """Replace-one asks for the exact |train| + |test| and |train|; add/remove asks B for no
    size and A for the split rule's estimate from B's; a stub that needs ``n`` is refused
    under add/remove only (before it is fitted); the frame's ``attrs`` say which."""
    calls = []

    class Recording(BootstrapStub):
        """Its own size is 100 rows fewer than the training data."""

        def sample(self, n=None):
            out = super().sample(len(self.data) - 100 if n is None else n)
            calls.append((n, len(out)))
            return out

    exact = P.evaluate_repetition(
        pima, TARGET, Recording, 1.0, ["knn"], random_state=0, neighbouring="replace_one"
    )
    assert calls == [(768, 768), (614, 614)]
    assert exact.attrs == {"neighbouring": "replace_one", "synthetic_sizes": "exact"}
    calls.clear()
    own = P.evaluate_repetition(pima, TARGET, Recording, 1.0, ["knn"], random_state=0)
    assert calls == [(None, 514), (642, 642)]  # round(514 / 0.8) = round(642.5) = 642
    assert own.attrs == {"neighbouring": "add_remove", "synthetic_sizes": "synthesizer"}

    class NeedsN(BootstrapStub):
        fitted = False

        def fit(self, data):
            NeedsN.fitted = True
            return super().fit(data)

        def sample(self, n):
            return super().sample(n)

    with pytest.raises(TypeError, match=r"sample\(\) without n.*its sample\(n\) needs n"):
        P.evaluate_repetition(pima, TARGET, NeedsN, 1.0, ["knn"], random_state=0)
    assert not NeedsN.fitted
    P.evaluate_repetition(
        pima, TARGET, NeedsN, 1.0, ["knn"], random_state=0, neighbouring="replace_one"
    )
    assert NeedsN.fitted

    class Empty(BootstrapStub):
        def sample(self, n=None):
            return super().sample(n).iloc[:0]

    with pytest.raises(ValueError, match=r"sample\(\) returned no rows"):
        P.evaluate_repetition(pima, TARGET, Empty, 1.0, ["knn"], random_state=0)


def test_evaluate_repetition_sample_columns_follow_the_real_data(pima):
    """A sample with its columns in another order and an extra column is aligned to ``real``."""

    class Shuffled(BootstrapStub):
        def sample(self, n=None):
            out = super().sample(n)
            return out[out.columns[::-1]].assign(extra=1)

    args = (pima, TARGET)
    a = P.evaluate_repetition(*args, Shuffled, 1.0, ["linear_svm"], random_state=5)
    b = P.evaluate_repetition(*args, BootstrapStub, 1.0, ["linear_svm"], random_state=5)
    pd.testing.assert_frame_equal(a, b)


def test_evaluate_repetition_keeps_one_fitted_model_alive(pima, monkeypatch):
    """Memory: the synthesizer is released before the first classifier is trained, and each
    protocol's model once its scores are read (weak references to them are dead by the next
    fit)."""
    from synthtrust.protocols import repetition

    refs = {"synth": None, "models": []}
    alive = []

    class Tracked(BootstrapStub):
        def __init__(self, epsilon, random_state):
            super().__init__(epsilon, random_state)
            refs["synth"] = weakref.ref(self)

    def tracking(fit):
        def wrapped(*args, **kwargs):
            alive.append(
                (refs["synth"]() is not None, sum(r() is not None for r in refs["models"]))
            )
            res = fit(*args, **kwargs)
            refs["models"].append(weakref.ref(res.model))
            return res

        return wrapped

    monkeypatch.setattr(repetition, "protocol_a", tracking(repetition.protocol_a))
    monkeypatch.setattr(repetition, "protocol_b", tracking(repetition.protocol_b))
    P.evaluate_repetition(pima, TARGET, Tracked, 5.0, random_state=3)
    assert alive == [(False, 0)] * 2 * len(P.CLASSIFIERS)

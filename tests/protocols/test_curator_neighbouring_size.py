"""Nothing exact about n under add/remove (issue 47): Protocol B's curator and the repetition
harness release no exact size of the real data under add/remove neighbours.

Two neighbouring datasets under add/remove differ by one record, so their sizes differ by
exactly 1: a released value that equals the exact size tells them apart with certainty.  The
oracle is that definition, applied to two runs with the same seed on 50 and 51 records (and 54
and 55, where the extra record lands in the training part): :func:`exact_size_leaks` lists
every released value that equals the exact size in *both* runs — a number equal to it, or a
text (a ``repr``, an error message, a ledger note, JSON) that contains it as a number.

What counts as released is what a party outside the curator can read (:func:`released`):
dataclass fields, public attributes and properties, ``repr``s, ledger entries, the result
frame's cells and ``attrs``, and the sizes of the synthetic samples.  Left out: the cells of
the ε-DP release itself (arrays; with the same seed the Laplace noise is the same, so any noisy
count of neighbouring datasets differs by exactly the count — a DP release is told apart from
its neighbour only in distribution, which ``test_release.py`` checks against Laplace theory),
and the analyst's fitted model (trained on the synthetic data, never on the test set).

The check can fail: a planted curator that exposes n (an attribute, the old ``n_test``, its
``repr``, its shape error), a replace-one curator (n public, by design) and the harness under
replace-one (the paper's exact sizes) are all caught.
"""

from __future__ import annotations

import dataclasses
import inspect
import numbers
import re

import numpy as np
import pandas as pd
import pytest
from _protocol_data import TARGET

from synthtrust import protocols as P
from synthtrust.privacy import PrivacyLedger
from synthtrust.privacy.mechanisms import laplace

EPSILON = 0.2  # Laplace scale 5 on the stub's total: P(rounded to the exact size) = 1 − e^-0.1


# --------------------------------------------------------------------------------------------
# the check: what is released, and which released values are the exact size
# --------------------------------------------------------------------------------------------
def released(obj, path: str = "") -> dict:
    """Every scalar and text of ``obj`` a party outside the curator can read, by path."""
    out: dict = {}
    _walk(obj, path, out)
    return out


def _walk(obj, path: str, out: dict) -> None:
    if obj is None or isinstance(obj, (bool, numbers.Number, str)):
        out[path] = obj
    elif isinstance(obj, np.ndarray):
        return  # the cells of the ε-DP release (module docstring)
    elif isinstance(obj, PrivacyLedger):
        out[f"{path}.repr"] = repr(obj)
        out[f"{path}.total_epsilon"] = obj.total_epsilon
        for i, entry in enumerate(obj):
            _walk(entry, f"{path}[{i}]", out)
    elif dataclasses.is_dataclass(obj):
        out[f"{path}.repr"] = repr(obj)
        for f in dataclasses.fields(obj):
            if f.name != "model":  # the analyst's model (module docstring)
                _walk(getattr(obj, f.name), f"{path}.{f.name}", out)
        if hasattr(obj, "to_json"):
            out[f"{path}.to_json"] = obj.to_json()
    elif isinstance(obj, pd.DataFrame):
        for col in obj.columns:
            for i, v in enumerate(obj[col].tolist()):
                _walk(v, f"{path}[{i}, {col!r}]", out)
        _walk(dict(obj.attrs), f"{path}.attrs", out)
    elif isinstance(obj, dict):
        for key, v in obj.items():
            _walk(v, f"{path}[{key!r}]", out)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _walk(v, f"{path}[{i}]", out)
    else:  # a plain object such as the curator: public attributes and properties, its repr
        out[f"{path}.repr"] = repr(obj)
        for name, v in vars(obj).items():
            if not name.startswith("_"):
                _walk(v, f"{path}.{name}", out)
        for name, member in inspect.getmembers(type(obj)):
            if isinstance(member, property) and not name.startswith("_"):
                _walk(getattr(obj, name), f"{path}.{name}", out)


def _shows(value, n: int) -> bool:
    """``value`` is the number ``n``, or a text holding ``n`` as a number (not 0.50 or 500)."""
    if value is None or isinstance(value, bool):
        return False
    if isinstance(value, numbers.Number):
        return value == n
    if isinstance(value, str):
        return re.search(rf"(?<![\d.]){n}(?!\.?\d)", value) is not None
    return False


def exact_size_leaks(first: dict, second: dict, sizes_first: dict, sizes_second: dict) -> list:
    """Paths whose value is the exact size of its run in both runs (``"path (kind)"``)."""
    return [
        f"{path} ({kind})"
        for path in sorted(first.keys() | second.keys())
        for kind in sizes_first
        if _shows(first.get(path), sizes_first[kind])
        and _shows(second.get(path), sizes_second[kind])
    ]


def test_the_check_reads_numbers_and_texts():
    """The oracle's own cases: a size in both runs is a leak; a size in one run, a number that
    only contains the digits, or a value that differs are not."""
    sizes = ({"n": 50}, {"n": 51})
    assert exact_size_leaks({"a": 50}, {"a": 51}, *sizes) == ["a (n)"]
    assert exact_size_leaks({"a": "(50,)"}, {"a": "(51,)"}, *sizes) == ["a (n)"]
    assert exact_size_leaks({"a": "n=50."}, {"a": "n=51."}, *sizes) == ["a (n)"]
    assert exact_size_leaks({"a": 50.0}, {"a": 51.0}, *sizes) == ["a (n)"]
    for one, two in [(50, 52), (50.4, 51.4), ("0.50", "0.51"), ("500", "510"), (None, None)]:
        assert exact_size_leaks({"a": one}, {"a": two}, *sizes) == [], (one, two)
    assert exact_size_leaks({"a": True}, {"a": True}, {"n": 1}, {"n": 1}) == []


# --------------------------------------------------------------------------------------------
# Protocol B: two test sets of 50 and 51 records, the same synthetic data and seed
# --------------------------------------------------------------------------------------------
class ExposingCurator(P.Curator):
    """A planted curator with the leaks of issue 47: the exact size as an attribute, as
    ``n_test``, in its ``repr`` and in its shape error."""

    def __init__(self, test, target, **kwargs):
        super().__init__(test, target, **kwargs)
        self.size = len(test)

    @property
    def n_test(self):
        return len(self._y)

    def _predict(self, model):
        if callable(model):
            pred = np.asarray(model(self._features.copy()))
            if pred.shape != (len(self._y),):
                raise ValueError(f"shape {pred.shape}; expected ({len(self._y)},)")
        return super()._predict(model)

    def __repr__(self):
        return f"Curator(n_test={len(self._y)})"


def _protocol_b_run(syn: pd.DataFrame, test: pd.DataFrame, curator_cls=P.Curator, **kwargs):
    curator = curator_cls(test, TARGET, **kwargs)
    result = P.protocol_b(syn, curator, TARGET, "linear_svm", 1.0, random_state=7)
    with pytest.raises(ValueError, match="shape") as err:
        curator.evaluate(lambda X: np.zeros(3, dtype=np.int64), 1.0)
    values = released(result, "result")
    values.update(released(curator, "curator"))
    values["error"] = str(err.value)
    return values, curator


@pytest.fixture(scope="module")
def neighbouring_tests(pima_split):
    train, test = pima_split
    syn = train.sample(len(train), replace=True, random_state=1).reset_index(drop=True)
    return syn, test.iloc[:50], test.iloc[:51]  # add/remove neighbours: one record added


def test_protocol_b_releases_no_exact_test_size(neighbouring_tests):
    syn, t50, t51 = neighbouring_tests
    (v50, c50), (v51, c51) = _protocol_b_run(syn, t50), _protocol_b_run(syn, t51)
    assert exact_size_leaks(v50, v51, {"n_test": 50}, {"n_test": 51}) == []
    assert v50["result.n_test"] is None and v50["curator.n_test"] is None
    assert v50["curator.n_public"] is False
    # the ledger says what the relation makes of n; the one release is charged
    assert [e.note for e in c50.ledger] == [
        "confusion matrix, 4 disjoint cells (add/remove: n not public)"
    ]
    assert c51.ledger.total_epsilon == 1.0
    # the released attributes besides the DP release are those of the larger test set
    same = {k for k in v50 if v50[k] == v51.get(k)}
    assert {"result.n_test", "result.n_train", "curator.repr", "error"} <= same
    assert "does not match the test set" in v50["error"]


def test_the_check_catches_a_curator_that_exposes_n(neighbouring_tests):
    syn, t50, t51 = neighbouring_tests
    (v50, _), (v51, _) = (_protocol_b_run(syn, t, ExposingCurator) for t in (t50, t51))
    leaks = exact_size_leaks(v50, v51, {"n_test": 50}, {"n_test": 51})
    planted = ["curator.n_test", "curator.repr", "curator.size", "error", "result.n_test"]
    assert {f"{p} (n_test)" for p in planted} <= set(leaks)


def test_replace_one_shows_n_and_says_so(neighbouring_tests):
    """Replace-one: n is public by the relation; the check sees it, the ledger says so."""
    syn, t50, t51 = neighbouring_tests
    (v50, c50), (v51, _) = (_protocol_b_run(syn, t, neighbouring="replace_one") for t in (t50, t51))
    leaks = exact_size_leaks(v50, v51, {"n_test": 50}, {"n_test": 51})
    assert {"curator.n_test (n_test)", "curator.repr (n_test)", "error (n_test)"} <= set(leaks)
    assert "result.n_test (n_test)" in leaks
    assert "replace-one: n public" in v50["curator.repr"] and v50["curator.n_public"] is True
    assert [e.note for e in c50.ledger] == [
        "confusion matrix, 4 disjoint cells (replace-one: n public)"
    ]


# --------------------------------------------------------------------------------------------
# the repetition harness: real data of 50 and 51 (54 and 55) records, the same seed
# --------------------------------------------------------------------------------------------
class NoisyTotalBootstrap:
    """A stub add/remove synthesizer: resamples the training rows; its own size is a Laplace
    estimate of the number of training rows (sensitivity 1, drawn by ``synthtrust.privacy``),
    as the package's add/remove synthesizers default to a noisy total.  Records every
    ``sample`` call as (n asked, rows returned)."""

    neighbouring = "add_remove"
    calls: list = []

    def __init__(self, epsilon, random_state):
        self.epsilon = epsilon
        self.rng = np.random.default_rng(random_state)

    def fit(self, data):
        self.data = data.reset_index(drop=True)
        self.ledger_ = PrivacyLedger()
        self.total_ = float(
            laplace(
                float(len(data)),
                sensitivity=1.0,
                epsilon=self.epsilon,
                random_state=self.rng,
                ledger=self.ledger_,
                note="number of records",
            )
        )
        return self

    def sample(self, n=None):
        rows = max(1, round(self.total_)) if n is None else n
        out = self.data.iloc[self.rng.integers(0, len(self.data), size=rows)]
        type(self).calls.append((n, rows))
        return out.reset_index(drop=True)


def _repetition_run(real: pd.DataFrame, seed: int, **kwargs):
    NoisyTotalBootstrap.calls = []
    ledger = PrivacyLedger()
    frame = P.evaluate_repetition(
        real, TARGET, NoisyTotalBootstrap, EPSILON, ["knn"], seed, ledger=ledger, **kwargs
    )
    values = released(frame, "frame")
    values.update(released(ledger, "ledger"))
    for i, (asked, rows) in enumerate(NoisyTotalBootstrap.calls):
        values[f"sample[{i}].n"] = asked
        values[f"sample[{i}].rows"] = rows
    return values, list(NoisyTotalBootstrap.calls)


def _sizes(n: int, test_size: float = 0.2) -> dict:
    n_test = int(np.ceil(test_size * n))  # split_train_test's rule
    return {"n": n, "n_train": n - n_test, "n_test": n_test}


@pytest.mark.parametrize("pair", [(50, 51), (54, 55)])  # the extra record: test, then train
def test_repetition_asks_no_exact_size_under_add_remove(pima, pair):
    small, large = pair
    seed = 11
    (v1, calls1), (v2, calls2) = (_repetition_run(pima.iloc[:n], seed) for n in pair)
    assert exact_size_leaks(v1, v2, _sizes(small), _sizes(large)) == []
    for values, calls in ((v1, calls1), (v2, calls2)):
        # B asks no size; A the split rule's estimate from B's (the synthesizer's own) size
        (b_asked, b_rows), (a_asked, a_rows) = calls
        assert b_asked is None and a_asked == a_rows == max(2, round(b_rows / 0.8))
        assert values["frame.attrs['synthetic_sizes']"] == "synthesizer"
        assert values["frame.attrs['neighbouring']"] == "add_remove"


def test_the_check_catches_the_exact_sizes_of_replace_one(pima):
    """Replace-one asks for the paper's exact |train| + |test| and |train| rows: caught."""
    (v1, _), (v2, _) = (
        _repetition_run(pima.iloc[:n], 11, neighbouring="replace_one") for n in (54, 55)
    )
    leaks = exact_size_leaks(v1, v2, _sizes(54), _sizes(55))
    assert {"sample[0].n (n)", "sample[1].n (n_train)", "sample[1].rows (n_train)"} <= set(leaks)
    assert v1["frame.attrs['synthetic_sizes']"] == "exact"


@pytest.mark.slow
def test_repetition_with_mst_uses_its_noisy_total(pima):
    """The package's add/remove synthesizer: Protocol B's sample is MST's own size (the total of
    its noisy model), Protocol A's the split rule's estimate from it; no exact size is asked."""
    from synthtrust.domain import dataset_domain
    from synthtrust.synthesizers import MST

    domain = dataset_domain("pima_diabetes")
    codes = domain.encode(pima)
    calls, totals = [], []

    class Recorded(MST):
        def sample(self, n=None):
            out = super().sample(n)
            calls.append((n, len(out)))
            totals.append(self.model_.total)
            return out

    def factory(epsilon, random_state):
        return Recorded(epsilon, 1e-6, domain=dict(domain.sizes), random_state=random_state)

    for n in (54, 55):
        calls.clear()
        frame = P.evaluate_repetition(codes.iloc[:n], TARGET, factory, 1.0, ["knn"], 5)
        (b_asked, b_rows), (a_asked, a_rows) = calls
        assert b_asked is None and b_rows == max(1, round(totals[-1]))
        assert a_asked == a_rows == max(2, round(b_rows / 0.8))
        assert frame.attrs == {"neighbouring": "add_remove", "synthetic_sizes": "synthesizer"}

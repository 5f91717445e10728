"""The result protocol (synthtrust._result): to_dict() of plain JSON values, to_json() -> str,
no file writing and no HTML in the result classes."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
from dataclasses import dataclass, field

import numpy as np
import pytest

import synthtrust
from synthtrust._result import ResultMixin, json_value, python_scalar
from synthtrust.hypothesis import mannwhitneyu
from synthtrust.importance import rank_biased_overlap
from synthtrust.protocols import protocol_error


def test_python_scalar_unwraps_numpy_scalars_only():
    assert type(python_scalar(np.float32(0.5))) is float and python_scalar(np.float32(0.5)) == 0.5
    assert type(python_scalar(np.int64(7))) is int and python_scalar(np.int64(7)) == 7
    assert python_scalar("a") == "a" and python_scalar(None) is None
    array = np.arange(2)
    assert python_scalar(array) is array


def test_json_value_gives_plain_python_values():
    value = {
        ("a", 1): np.float64(0.5),
        "n": np.int64(3),
        "x": np.array([[1, 2], [3, 4]]),
        "t": (np.bool_(True), float("nan"), -np.inf),
    }
    assert json_value(value) == {
        "('a', 1)": 0.5,
        "n": 3,
        "x": [[1, 2], [3, 4]],
        "t": [True, None, None],
    }
    assert type(json_value(np.int64(3))) is int


@dataclass(frozen=True)
class _Toy(ResultMixin):
    statistic: float
    counts: np.ndarray
    model: object = field(repr=False, default=None)


def test_the_mixin_gives_the_repr_fields_and_json_text():
    toy = _Toy(np.float32(0.25), np.arange(3), model=object())
    assert toy.to_dict() == {"statistic": 0.25, "counts": [0, 1, 2]}
    text = toy.to_json(indent=None)
    assert text == '{"statistic": 0.25, "counts": [0, 1, 2]}'
    assert json.loads(toy.to_json()) == toy.to_dict()


def test_real_results_round_trip_through_json():
    mwu = mannwhitneyu([1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0])
    assert mwu.to_dict() == {"statistic": 0.0, "pvalue": pytest.approx(2 / 35), "exact": True}
    err = protocol_error([0.8], [0.7])  # one repetition: the standard deviation is undefined
    assert err.to_dict() == {
        "me": pytest.approx(0.1),
        "std": None,
        "rmse": None,
        "n": 1,
        "n_undefined": 0,
    }
    rbo = rank_biased_overlap(["a", "b", "c"], ["a", "b", "c"], p=0.9)
    for result in (mwu, err, rbo):
        assert json.loads(result.to_json()) == result.to_dict()


def _result_classes() -> list[type]:
    found = {}
    for info in pkgutil.walk_packages(synthtrust.__path__, "synthtrust."):
        if info.name.startswith("synthtrust._sphinx"):
            continue
        module = importlib.import_module(info.name)
        for name, cls in vars(module).items():
            if (
                inspect.isclass(cls)
                and cls.__module__ == module.__name__
                and (name.endswith(("Result", "Report")) or name == "GeneratorCard")
            ):
                found[f"{module.__name__}.{name}"] = cls
    return [found[k] for k in sorted(found)]


def test_every_result_class_follows_the_protocol():
    classes = _result_classes()
    names = {c.__name__ for c in classes}
    assert {"HoldoutReport", "DCRResult", "AuditResult", "DPAuditResult", "RBOResult"} <= names
    for cls in classes:
        assert callable(getattr(cls, "to_dict", None)), cls
        params = inspect.signature(cls.to_json).parameters.values()
        assert all(p.default is not p.empty for p in list(params)[1:]), cls  # to_json() -> str
        assert not hasattr(cls, "to_html"), (
            cls
        )  # HTML is rendered in synthtrust.presentation.report

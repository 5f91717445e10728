"""Tests of ``synthtrust.synthesizers._code_tables`` (the base of the non-DP generators that work
on a table of integer codes: IPF, noise-free Private-PGM, sequential CART). The oracle: a
minimal subclass whose ``_sample_matrix`` replays the training codes in order, so that every
sampled record is known in advance: the codes the base hands to ``fit`` (a dict domain checked,
a missing one inferred as max + 1 without the privacy warning), the default number of records,
the decoding through a :class:`~synthtrust.domain.Domain` back to the training values, and the
errors before ``fit`` and for a bad ``n``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from synthtrust.domain.categorical import Categorical
from synthtrust.domain.ordinal import Ordinal
from synthtrust.domain.table import Domain
from synthtrust.synthesizers._code_tables import CodeTableGenerator
from synthtrust.synthesizers.base import NotFittedError


class _Replay(CodeTableGenerator):
    """Samples the training codes again, row after row (cycling), from the base's codes."""

    def __init__(self, domain=None, random_state=None):
        self.domain = domain
        self.random_state = random_state

    def fit(self, X):
        columns, domain, codes = self._codes(X)
        self.columns_, self.domain_ = list(columns), dict(domain)
        self._data = np.column_stack(codes)
        self.n_records_ = len(self._data)
        self._rng = np.random.default_rng(self.random_state)
        self._fitted = True
        return self

    def _sample_matrix(self, n, rng):
        return self._data[np.arange(n) % len(self._data)]


CODES = pd.DataFrame({"a": [0, 2, 1, 2], "b": [1, 0, 0, 1]})


def test_fit_gets_the_codes_and_sample_replays_them():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an inferred domain warns nowhere here: nothing is DP
        gen = _Replay().fit(CODES)
    assert gen.columns_ == ["a", "b"] and gen.domain_ == {"a": 3, "b": 2}
    out = gen.sample()  # default: as many records as the training table
    pd.testing.assert_frame_equal(out, CODES.astype(np.int64))
    six = gen.sample(6)
    assert list(six.columns) == ["a", "b"] and (six.dtypes == np.int64).all()
    assert six["a"].tolist() == [0, 2, 1, 2, 0, 2] and six["b"].tolist() == [1, 0, 0, 1, 1, 0]
    assert _Replay(domain={"a": 5, "b": 2}).fit(CODES).domain_ == {"a": 5, "b": 2}


def test_a_domain_encodes_the_training_table_and_decodes_the_records():
    domain = Domain({"colour": Categorical(["red", "green", "blue"]), "size": Ordinal(1, 3)})
    table = pd.DataFrame({"colour": ["green", "blue", "red"], "size": [3, 1, 2]})
    gen = _Replay(domain=domain).fit(table)
    assert gen.domain_ == {"colour": 3, "size": 3}
    codes = domain.encode(table)
    np.testing.assert_array_equal(gen._data, codes.to_numpy())
    out = gen.sample(4)
    assert out["colour"].tolist() == ["green", "blue", "red", "green"]
    assert out["size"].tolist() == [3, 1, 2, 3]


def test_never_private_and_the_errors_of_sample():
    gen = _Replay()
    assert gen.ledger_ is None and gen.differentially_private is False
    with pytest.raises(NotFittedError, match="_Replay is not fitted yet"):
        gen.sample(3)
    gen.fit(CODES)
    with pytest.raises(ValueError, match="n must be >= 1"):
        gen.sample(0)
    with pytest.raises(TypeError, match="n must be an integer"):
        gen.sample(2.5)
    with pytest.raises(ValueError, match="column 'a' has code 2, outside the domain 0..1"):
        _Replay(domain={"a": 2, "b": 2}).fit(CODES)

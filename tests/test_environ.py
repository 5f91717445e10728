"""synthtrust._environ: the worker environment and its temporary setting."""

from __future__ import annotations

import os

import pytest

from synthtrust._environ import WORKER_ENV, environ


def test_environ_sets_then_restores_or_removes(monkeypatch):
    monkeypatch.setenv("SYNTHTRUST_T_SET", "before")
    monkeypatch.delenv("SYNTHTRUST_T_UNSET", raising=False)
    with environ({"SYNTHTRUST_T_SET": "during", "SYNTHTRUST_T_UNSET": "x"}):
        assert os.environ["SYNTHTRUST_T_SET"] == "during"
        assert os.environ["SYNTHTRUST_T_UNSET"] == "x"
    assert os.environ["SYNTHTRUST_T_SET"] == "before"
    assert "SYNTHTRUST_T_UNSET" not in os.environ


def test_environ_restores_after_an_exception(monkeypatch):
    monkeypatch.delenv("SYNTHTRUST_T_UNSET", raising=False)
    try:
        with environ({"SYNTHTRUST_T_UNSET": "x"}):
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert "SYNTHTRUST_T_UNSET" not in os.environ


def test_workers_get_the_hash_seed_of_dask_nannies():
    assert WORKER_ENV == {"PYTHONHASHSEED": "6640"}
    pytest.importorskip("distributed")
    from distributed.nanny import Nanny

    nanny = Nanny("tcp://127.0.0.1:1", nthreads=1)  # not started: its environment only
    assert nanny.env["PYTHONHASHSEED"] == WORKER_ENV["PYTHONHASHSEED"]

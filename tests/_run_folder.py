"""A chapter's run folder written by hand, as ``synthtrust run --out`` lays it out (the tests of
synthtrust.run.compare and of ``synthtrust compare``)."""

from __future__ import annotations

import json

import pandas as pd


def glued_output(name: str, value) -> dict:
    """The notebook output myst-nb's ``glue(name, value)`` leaves (a papermill record)."""
    return {
        "data": {"application/papermill.record/text/plain": repr(value)},
        "metadata": {"scrapbook": {"mime_prefix": "application/papermill.record/", "name": name}},
        "output_type": "display_data",
    }


def make_run(folder, results: dict, glued: dict, *, parameters=None, commit="0" * 40):
    """Write ``results`` (``{relative path: DataFrame, JSON value or bytes}``; a DataFrame goes
    to .csv without its index or to .parquet), a notebook ``toy.ipynb`` gluing ``glued`` and a
    manifest for chapter ``toy``; return the folder."""
    for rel, value in results.items():
        path = folder / "results" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".csv":
            value.to_csv(path, index=False)
        elif path.suffix == ".parquet":
            value.to_parquet(path)
        elif path.suffix == ".json":
            path.write_text(json.dumps(value))
        else:
            path.write_bytes(value)
    outputs = [glued_output(name, value) for name, value in glued.items()]
    cells = [{"cell_type": "code", "source": "", "metadata": {}, "outputs": outputs}]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (folder / "toy.ipynb").write_text(json.dumps(notebook))
    manifest = {
        "chapter": "toy",
        "preset": "smoke",
        "parameters": parameters or {"seed": 1},
        "git": {"commit": commit, "dirty": False},
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def toy_results() -> dict:
    """A small run's results: a table with a timing column, a Parquet table and a JSON file."""
    table = pd.DataFrame(
        {"epsilon": [0.1, 1.0, 10.0, 0.1, 1.0], "rate": [0.05, 0.2, float("nan"), 0.04, 0.5]}
    )
    table["seconds"] = [1.5, 2.5, 3.5, 4.5, 5.5]
    wide = pd.DataFrame({"n": [10, 20, 30], "tvd": [0.3, 0.2, 0.1], "name": ["a", "b", "c"]})
    return {
        "rates.csv": table,
        "sub/wide.parquet": wide,
        "card.json": {"a": {"b": [1, 2, 3], "seconds": 9.0}, "k": "x"},
    }

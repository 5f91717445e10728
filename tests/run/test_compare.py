"""synthtrust.run.compare: two run folders compared file by file, on hand-built runs whose
differences are known, and against a brute-force cell-by-cell comparison of random tables."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from _run_folder import make_run, toy_results

from synthtrust.run.compare import TIMING, compare_runs, frame_difference, json_difference

GLUED = {"headline": "0.123", "n_reps": 200, "wall": "12 s"}


def _pair(tmp_path, before=None, after=None, glued_after=None, **kw):
    a = make_run(tmp_path / "a", before or toy_results(), GLUED, commit="a" * 40)
    b = make_run(tmp_path / "b", after or toy_results(), glued_after or GLUED, **kw)
    return a, b


def test_identical_runs_are_identical(tmp_path):
    after = toy_results()
    after["rates.csv"]["seconds"] *= 3  # another run's wall-clock times
    after["card.json"]["a"]["seconds"] = 1.0
    a, b = _pair(tmp_path, after=after, glued_after={**GLUED, "wall": "4 s"})
    result = compare_runs(a, b)
    assert result.identical
    assert result.equal_files == ["card.json", "rates.csv", "sub/wide.parquet"]
    assert result.differing_files == {} and result.only_before == result.only_after == []
    assert result.equal_glued == ["headline", "n_reps"]  # 'wall' is a timing
    assert result.differing_glued == {} and result.differing_parameters == []
    assert result.before == f"{a} (toy, smoke, aaaaaaa)"
    assert result.summary().splitlines()[2:4] == [
        "results files: 3 equal, 0 differing, 0 only before, 0 only after",
        "glued values:  2 equal, 0 differing",
    ]
    assert result.summary().endswith("\nidentical")
    assert json.loads(result.to_json()) == result.to_dict()
    assert result.to_dict()["ignore"] == TIMING


def test_timings_are_compared_when_nothing_is_left_out(tmp_path):
    after = toy_results()
    after["rates.csv"]["seconds"] += 1
    after["card.json"]["a"]["seconds"] = 1.0
    a, b = _pair(tmp_path, after=after, glued_after={**GLUED, "wall": "4 s"})
    result = compare_runs(a, b, ignore=None)
    assert not result.identical
    assert result.differing_files == {
        "card.json": "JSON values differ at $.a.seconds",
        "rates.csv": "values differ in 5 of 5 rows, columns seconds",
    }
    assert result.differing_glued == {"wall": ["'12 s'", "'4 s'"]}
    assert result.summary().endswith("\nNOT identical")
    assert "left out" not in result.summary()


def test_each_kind_of_difference_is_named(tmp_path):
    after = toy_results()
    after["rates.csv"].loc[3, "rate"] = 0.0401
    after["sub/wide.parquet"] = after["sub/wide.parquet"].astype({"n": "float64"})
    after["card.json"]["a"]["b"][1] = 5
    after["new.txt"] = b"x"
    before = toy_results()
    before["old.bin"] = b"\x00"
    a, b = _pair(
        tmp_path,
        before=before,
        after=after,
        glued_after={"headline": "0.124", "extra": 1},
        parameters={"seed": 2},
    )
    result = compare_runs(a, b)
    assert result.differing_files == {
        "card.json": "JSON values differ at $.a.b[1]",
        "rates.csv": "values differ in 1 of 5 rows, columns rate",
        "sub/wide.parquet": "dtypes differ, columns n",
    }
    assert result.only_before == ["old.bin"] and result.only_after == ["new.txt"]
    assert result.differing_glued == {
        "extra": [None, "1"],
        "headline": ["'0.123'", "'0.124'"],
        "n_reps": ["200", None],
    }
    assert result.differing_parameters == ["seed"]
    lines = result.summary().splitlines()
    assert "  differs: rates.csv: values differ in 1 of 5 rows, columns rate" in lines
    assert "  only before: old.bin" in lines and "  only after: new.txt" in lines
    assert "  glued headline: \"'0.123'\" -> \"'0.124'\"" in lines
    assert "parameters differ: seed" in lines


def test_frame_difference_names_columns_rows_and_index():
    a = pd.DataFrame({"x": [1, 2, 3], "y": ["a", "b", None], "fit_seconds": [1.0, 2.0, 3.0]})
    timing = re.compile(TIMING)
    assert frame_difference(a, a.copy()) is None
    assert frame_difference(a, a.assign(fit_seconds=0.0), timing) is None
    assert frame_difference(a, a.assign(fit_seconds=0.0)) == (
        "values differ in 3 of 3 rows, columns fit_seconds"
    )
    assert frame_difference(a, a.drop(columns="y").assign(z=1)) == (
        "columns differ (only before: y; only after: z)"
    )
    assert frame_difference(a, a.drop(columns="y")) == (
        "columns differ (only before: y; only after: none)"
    )
    assert frame_difference(a, a[["y", "x", "fit_seconds"]]) == "the same columns in another order"
    assert frame_difference(a, a.iloc[:2]) == "3 rows before, 2 after"
    assert frame_difference(a, a.set_axis([5, 6, 7])) == "row index differs"
    assert frame_difference(a, a.assign(y=["a", "b", "c"])) == (
        "values differ in 1 of 3 rows, columns y"
    )  # a missing value against a value


@pytest.mark.parametrize("seed", range(20))
def test_frame_difference_agrees_with_a_cell_by_cell_loop(seed):
    rng = np.random.default_rng(seed)
    n, k = rng.integers(1, 30), rng.integers(1, 6)
    a = pd.DataFrame(rng.integers(0, 3, size=(n, k)).astype(float), columns=list("abcdef"[:k]))
    a = a.mask(rng.random(a.shape) < 0.2)  # missing values, equal to each other
    b = a.copy()
    for _ in range(rng.integers(0, 4)):
        i, j = rng.integers(n), rng.integers(k)
        b.iloc[i, j] = rng.choice([np.nan, 0.0, 1.0, 2.0, 7.0])
    cells = {
        (i, c)
        for i in range(n)
        for c in a.columns
        if not (a.at[i, c] == b.at[i, c] or (np.isnan(a.at[i, c]) and np.isnan(b.at[i, c])))
    }
    columns = sorted({c for _, c in cells})
    rows = len({i for i, _ in cells})
    expected = f"values differ in {rows} of {n} rows, columns {', '.join(columns)}"
    assert frame_difference(a, b) == (expected if cells else None)


def test_json_difference_walks_dicts_and_lists():
    timing = re.compile(TIMING)
    a = {"a": [1, {"b": 2.0, "wall": 3}], "c": None}
    assert json_difference(a, json.loads(json.dumps(a))) is None
    assert json_difference(a, {"a": [1, {"b": 2.0, "wall": 4}], "c": None}, timing) is None
    assert json_difference(a, {"a": [1, {"b": 2.5, "wall": 3}], "c": None}) == "$.a[1].b"
    assert json_difference(a, {"a": [1], "c": None}) == "$.a"
    assert json_difference(a, {"a": a["a"]}) == "$.c"
    assert json_difference(1, 1.0) == "$"  # 1 and 1.0 are written differently


def test_the_notebook_is_found_without_a_manifest(tmp_path):
    a, b = _pair(tmp_path, glued_after={**GLUED, "headline": "0.2"})
    for run in (a, b):
        (run / "manifest.json").unlink()
        (run / "toy.ipynb").rename(run / "renamed.ipynb")
    result = compare_runs(a, b)
    assert list(result.differing_glued) == ["headline"]
    assert result.before == str(a) and result.differing_parameters == []
    (b / "second.ipynb").write_text("{}")  # two notebooks and no manifest: no glued values
    assert compare_runs(a, b).differing_glued["headline"] == ["'0.123'", None]


def test_bad_input_is_refused_with_the_parameter_and_value(tmp_path):
    a, b = _pair(tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"^before: .*nowhere is not a folder; pass a run folder"):
        compare_runs(tmp_path / "nowhere", b)
    with pytest.raises(ValueError, match=r"^after: .*empty has no results/ folder"):
        compare_runs(a, tmp_path / "empty")
    with pytest.raises(ValueError, match="ignore: an empty pattern matches every name"):
        compare_runs(a, b, ignore="")
    with pytest.raises(ValueError, match=r"ignore: '\(' is not a regular expression"):
        compare_runs(a, b, ignore="(")
    with pytest.raises(TypeError, match="ignore must be a regular expression .* got 3"):
        compare_runs(a, b, ignore=3)
    (b / "results" / "sub" / "wide.parquet").write_bytes(b"not parquet")
    with pytest.raises(ValueError, match=r"cannot read .*wide\.parquet"):
        compare_runs(a, b)


def test_atol_counts_close_numbers_as_equal_and_nothing_else():
    a = pd.DataFrame({"lower": [0.1, np.nan, 0.3], "n": [1, 2, 3], "v": ["x", "y", "z"]})
    close = a.assign(lower=[0.1 + 4e-13, np.nan, 0.3 - 1e-13])
    assert frame_difference(a, close) == "values differ in 2 of 3 rows, columns lower"
    assert frame_difference(a, close, atol=1e-12) is None
    assert frame_difference(a, a.assign(lower=[0.1 + 2e-12, np.nan, 0.3]), atol=1e-12) == (
        "values differ in 1 of 3 rows, columns lower"
    )
    assert frame_difference(a, a.assign(lower=[0.1, 0.2, 0.3]), atol=1.0) == (
        "values differ in 1 of 3 rows, columns lower"
    )  # NaN against a number is never close
    assert frame_difference(a, a.assign(n=[1, 2, 4]), atol=5.0) == (
        "values differ in 1 of 3 rows, columns n"
    )  # integers are compared exactly


def test_timing_names_with_spaces_and_hyphens_are_left_out():
    timing = re.compile(TIMING)
    for name in ("seconds a fit", "core-seconds", "fit_seconds", "wall", "adult_s_mst",
                 "hours for 0.5 × claim"):  # fmt: skip
        assert timing.search(name), name
    for name in ("sensitivity", "share_lower", "estimate", "dcr_share"):
        assert not timing.search(name), name


def test_compare_runs_with_atol_says_so(tmp_path):
    for side, value in (("a", 0.25), ("b", 0.25 + 1e-13)):
        (tmp_path / side / "results").mkdir(parents=True)
        pd.DataFrame({"lower": [value]}).to_csv(tmp_path / side / "results" / "t.csv", index=False)
    exact = compare_runs(tmp_path / "a", tmp_path / "b")
    assert not exact.identical and exact.summary().endswith("NOT identical")
    loose = compare_runs(tmp_path / "a", tmp_path / "b", atol=1e-12)
    assert loose.identical and loose.summary().endswith("identical (numbers to within 1e-12)")
    with pytest.raises(ValueError, match=r"atol must be in \[0.0, inf\), got -1.0"):
        compare_runs(tmp_path / "a", tmp_path / "b", atol=-1.0)  # the message names it


def _table_runs(tmp_path, before: pd.DataFrame, after: pd.DataFrame):
    for side, frame in (("a", before), ("b", after)):
        (tmp_path / side / "results").mkdir(parents=True)
        frame.to_csv(tmp_path / side / "results" / "t.csv", index=False)
    return tmp_path / "a", tmp_path / "b"


def test_a_renamed_column_is_compared_under_its_new_name(tmp_path):
    before = pd.DataFrame({"pgm_iters": [200, 200], "rate": [0.05, 0.06]})
    a, b = _table_runs(tmp_path, before, before.rename(columns={"pgm_iters": "pgm_max_iter"}))
    result = compare_runs(a, b)
    assert result.identical and result.renamed == ["pgm_iters -> pgm_max_iter"]
    assert "names compared under their new names: pgm_iters -> pgm_max_iter" in result.summary()
    # the values still count: a renamed column with another value differs
    changed = before.rename(columns={"pgm_iters": "pgm_max_iter"}).assign(pgm_max_iter=[200, 300])
    a, b = _table_runs(tmp_path / "x", before, changed)
    assert compare_runs(a, b).differing_files == {
        "t.csv": "values differ in 1 of 2 rows, columns pgm_max_iter"
    }


def test_a_renamed_parameter_is_compared_under_its_new_name(tmp_path):
    table = pd.DataFrame({"rate": [0.05]})
    a, b = _table_runs(tmp_path, table, table)
    (a / "manifest.json").write_text(json.dumps({"parameters": {"pgm_iters": 200, "seed": 1}}))
    (b / "manifest.json").write_text(json.dumps({"parameters": {"pgm_max_iter": 200, "seed": 1}}))
    result = compare_runs(a, b)
    assert result.differing_parameters == [] and result.renamed == ["pgm_iters -> pgm_max_iter"]
    # another value under the new name still differs, and so does a name that is no rename
    (b / "manifest.json").write_text(json.dumps({"parameters": {"pgm_max_iter": 300, "n": 2}}))
    assert compare_runs(a, b).differing_parameters == ["n", "pgm_max_iter", "seed"]


def test_only_the_vocabulary_table_renames(tmp_path):
    from synthtrust.run.compare import RENAMED
    from synthtrust.run.experiment import FROZEN_NAMES

    assert RENAMED == {v: k for k, v in FROZEN_NAMES.items()} and len(RENAMED) == 4
    before = pd.DataFrame({"pgm_iterations": [200]})  # not a frozen name
    a, b = _table_runs(tmp_path, before, pd.DataFrame({"pgm_max_iter": [200]}))
    result = compare_runs(a, b)
    assert result.renamed == [] and "columns differ" in result.differing_files["t.csv"]
    # a table that still has the old name on both sides is compared as it is
    a, b = _table_runs(
        tmp_path / "x", pd.DataFrame({"pgm_iters": [1]}), pd.DataFrame({"pgm_iters": [1]})
    )
    assert compare_runs(a, b).identical and compare_runs(a, b).renamed == []

"""Tests of datasets.holdout_split (the paper's 50/50 splits) and datasets.read_table."""

from __future__ import annotations

import bz2
import gzip

import numpy as np
import pandas as pd
import pytest

from synthtrust import datasets

SIZES = {
    "adult": (24421, 24421, 15),
    "bank-marketing": (22606, 22605, 17),
    "credit-default": (15000, 15000, 24),
    "online-shoppers": (6165, 6165, 18),
}


# ---------------------------------------------------------------------------------------------
# holdout_split
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(SIZES))
def test_split_sizes_and_columns(name):
    train, holdout = datasets.holdout_split(name)
    n_trn, n_val, k = SIZES[name]
    assert train.shape == (n_trn, k)
    assert holdout.shape == (n_val, k)
    assert list(train.columns) == list(holdout.columns) == list(datasets.load(name).columns)
    assert isinstance(train.index, pd.RangeIndex) and isinstance(holdout.index, pd.RangeIndex)


@pytest.mark.parametrize("name", ["bank-marketing", "credit-default", "online-shoppers"])
def test_combined_file_is_train_then_holdout(name):
    # the combined data/ files are trn followed by val: equal row by row, hence as multisets
    train, holdout = datasets.holdout_split(name)
    both = pd.concat([train, holdout], ignore_index=True)
    pd.testing.assert_frame_equal(both, datasets.load(name), check_dtype=False)


def _sorted_rows(df: pd.DataFrame) -> pd.DataFrame:
    key = df.astype(str)
    return key.sort_values(list(key.columns), kind="mergesort").reset_index(drop=True)


def test_adult_halves_are_the_full_file_as_a_multiset():
    train, holdout = datasets.holdout_split("adult")
    full = datasets.load("adult").fillna("?")  # load() reads "?" as NaN, the split keeps it
    pd.testing.assert_frame_equal(
        _sorted_rows(pd.concat([train, holdout], ignore_index=True)), _sorted_rows(full)
    )


def test_adult_keeps_question_mark_as_the_paper_read_it():
    train, holdout = datasets.holdout_split("adult")
    assert not train.isna().any().any() and not holdout.isna().any().any()
    both = pd.concat([train, holdout])
    # 2 799 / 2 809 missing in the full file (tests/test_datasets.py), all written "?"
    assert int((both["workclass"] == "?").sum()) == 2799
    assert int((both["occupation"] == "?").sum()) == 2809


def test_split_dtypes_as_pandas_reads_them():
    train, holdout = datasets.holdout_split("online-shoppers")
    assert train["Revenue"].dtype == bool and holdout["Weekend"].dtype == bool
    train, holdout = datasets.holdout_split("credit-default")
    assert train["BILL_AMT1"].dtype == np.int64
    assert holdout["BILL_AMT1"].dtype == np.float64  # fwrite wrote 100000 as 1e+05
    assert (holdout["BILL_AMT1"] % 1 == 0).all()


@pytest.mark.parametrize("bad", ["cardio", "adlt", "", None, 3])
def test_split_unknown_name_lists_the_four(bad):
    with pytest.raises(ValueError) as err:
        datasets.holdout_split(bad)
    for name in SIZES:
        assert name in str(err.value)


# ---------------------------------------------------------------------------------------------
# read_table
# ---------------------------------------------------------------------------------------------
FRAME = pd.DataFrame(
    {
        "age": [30, 41, 52],
        "job": ["a,b", "c", None],  # a quoted comma in a value
        "score": [0.5, np.nan, 1.5],
        "flag": [True, False, True],
    }
)


def _check_frame(df: pd.DataFrame) -> None:
    assert list(df.columns) == list(FRAME.columns)
    assert df["age"].tolist() == [30, 41, 52]
    assert df["job"].iloc[0] == "a,b" and pd.isna(df["job"].iloc[2])
    assert np.isnan(df["score"].iloc[1]) and df["score"].iloc[2] == 1.5
    assert df["flag"].dtype == bool


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz", ".csv.bz2", ".parquet"])
def test_read_table_formats(tmp_path, suffix):
    path = tmp_path / f"t{suffix}"
    if suffix == ".parquet":
        FRAME.to_parquet(path)
    else:
        FRAME.to_csv(path, index=False)
    _check_frame(datasets.read_table(path))
    _check_frame(datasets.read_table(str(path)))


def test_read_table_explicit_and_tsv_separators(tmp_path):
    semi = tmp_path / "semi.csv"
    FRAME.to_csv(semi, index=False, sep=";")
    _check_frame(datasets.read_table(semi, sep=";"))
    tsv = tmp_path / "t.tsv.gz"
    FRAME.to_csv(tsv, index=False, sep="\t")
    _check_frame(datasets.read_table(tsv))  # tab is the default for .tsv


@pytest.mark.parametrize(
    ("sep", "word", "hint"),
    [(";", "semicolon", "--sep ';'"), ("\t", "tab", "--sep tab"), ("|", "pipe", "--sep '|'")],
)
@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_read_table_wrong_delimiter_is_named(tmp_path, sep, word, hint, suffix):
    path = tmp_path / f"x{suffix}"
    FRAME.to_csv(path, index=False, sep=sep)
    with pytest.raises(ValueError) as err:
        datasets.read_table(path)
    msg = str(err.value)
    assert str(path) in msg and word in msg and hint in msg and "seems to be" in msg


def test_read_table_comma_file_read_with_semicolon(tmp_path):
    path = tmp_path / "x.csv"
    FRAME.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"seems to be ',' \(comma\)-separated.*sep=','"):
        datasets.read_table(path, sep=";")


def test_read_table_one_column_file_is_fine(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("x\n1\n2\n")
    assert datasets.read_table(path)["x"].tolist() == [1, 2]


def test_read_table_parse_error_mentions_delimiter(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("a,b\n1,2\n3,4,5,6\n")
    with pytest.raises(ValueError, match=r"cannot parse .*ragged\.csv.*wrong delimiter"):
        datasets.read_table(path)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b"", "empty \\(0 bytes\\)"),
        (b"\n\n", "empty: no header"),
        (b"a,b,c\n", "header \\(3 columns\\) but no data rows"),
    ],
)
def test_read_table_empty_files(tmp_path, content, match):
    path = tmp_path / "empty.csv"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=match) as err:
        datasets.read_table(path)
    assert str(path) in str(err.value)


def test_read_table_empty_gz_and_parquet(tmp_path):
    gz = tmp_path / "e.csv.gz"
    with gzip.open(gz, "wb"):
        pass
    with pytest.raises(ValueError, match="e.csv.gz is empty"):
        datasets.read_table(gz)
    pq = tmp_path / "e.parquet"
    FRAME.iloc[:0].to_parquet(pq)
    with pytest.raises(ValueError, match="e.parquet has a header .* but no data rows"):
        datasets.read_table(pq)


def test_read_table_missing_file_and_bad_arguments(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file.*nope.csv"):
        datasets.read_table(tmp_path / "nope.csv")
    with pytest.raises(FileNotFoundError, match="is a directory"):
        datasets.read_table(tmp_path)
    with pytest.raises(TypeError, match="path must be a file path"):
        datasets.read_table(3)
    path = tmp_path / "x.csv"
    FRAME.to_csv(path, index=False)
    with pytest.raises(TypeError, match="sep must be a non-empty string"):
        datasets.read_table(path, sep="")


def test_read_table_corrupt_compressed_file(tmp_path):
    path = tmp_path / "bad.csv.bz2"
    path.write_bytes(b"not bzip2 data at all")
    with pytest.raises(ValueError, match="bad.csv.bz2"):
        datasets.read_table(path)
    ok = tmp_path / "ok.csv.bz2"
    ok.write_bytes(bz2.compress(b"a,b\n1,2\n"))
    assert datasets.read_table(ok).to_dict("list") == {"a": [1], "b": [2]}


def test_read_table_reads_the_split_like_holdout_split():
    train, _ = datasets.holdout_split("online-shoppers")
    path = datasets.DATA_DIR / "paper-fidelity-accuracy" / "splits" / "online-shoppers_trn.csv.gz"
    pd.testing.assert_frame_equal(datasets.read_table(path), train)

"""check_tables: the public validation of a fidelity report's tables (the CLI calls it)."""

import numpy as np
import pandas as pd
import pytest

from synthtrust.fidelity import check_tables


def test_aligns_columns_on_the_first_table_and_names_their_kinds():
    t = pd.DataFrame(
        {
            "age": [30, 41],
            "job": ["a", "b"],
            "ok": [True, False],
            "day": pd.to_datetime(["2020-01-01"] * 2),
        }
    )
    s = t[["day", "ok", "job", "age"]]
    columns, aligned, kinds = check_tables({"train": t, "synthetic": s})
    assert columns == ["age", "job", "ok", "day"]
    assert list(aligned["synthetic"].columns) == columns
    assert kinds == ["numeric", "text", "boolean", "datetime"]


@pytest.mark.parametrize(
    ("synthetic", "error", "message"),
    [
        ([1, 2], TypeError, "synthetic must be a pandas DataFrame, got list"),
        (
            pd.DataFrame({"age": [1.0]}),
            ValueError,
            "the synthetic file s.csv lacks column(s) ['job']",
        ),
        (
            pd.DataFrame({"age": ["x", "y"], "job": ["a", "b"]}),
            ValueError,
            "data row 1 of the synthetic file s.csv holds 'x'",
        ),
        (
            pd.DataFrame({"age": [np.inf, 1.0], "job": ["a", "b"]}),
            ValueError,
            "column 'age' of the synthetic file s.csv holds an infinite value",
        ),
        (
            pd.DataFrame({"age": [np.nan, np.nan], "job": ["a", "b"]}),
            ValueError,
            "'age' in the synthetic file s.csv",
        ),
    ],
)
def test_bad_tables_are_named_in_the_message(synthetic, error, message):
    t = pd.DataFrame({"age": [30, 41], "job": ["a", "b"]})
    with pytest.raises(error) as info:
        check_tables(
            {"train": t, "synthetic": synthetic}, {"synthetic": "the synthetic file s.csv"}
        )
    assert message in str(info.value)

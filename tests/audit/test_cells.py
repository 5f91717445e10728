"""Tests of ``synthtrust.audit.cells``, the record space Π_j {0, …, n_j − 1} of a generator
card: every cell of a small domain in C order (against ``itertools.product`` and
``np.unravel_index``) and the size limit of that listing; a dataset as distinct cells and their
counts, expanded to its rows by hand; and the checks of domain sizes, integer codes (arrays or
DataFrames, columns picked by name) and row weights, with the value each returns and every
error it raises."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from synthtrust.audit.cells import (
    CellCounts,
    all_cells,
    check_card_codes,
    check_cell_counts,
    check_sizes,
)


# ------------------------------------------------------------------------------ every cell
@pytest.mark.parametrize("sizes", [(3,), (2, 3), (3, 1, 2, 2), {"a": 4, "b": 2}])
def test_all_cells_lists_the_domain_in_c_order(sizes):
    ranges = [range(n) for n in (sizes.values() if isinstance(sizes, dict) else sizes)]
    expected = np.array(list(itertools.product(*ranges)))
    cells = all_cells(sizes)
    assert cells.dtype == np.int64
    np.testing.assert_array_equal(cells, expected)
    # row i is cell i of the flat (np.ravel_multi_index) numbering
    flat = np.ravel_multi_index(tuple(cells.T), tuple(len(r) for r in ranges))
    np.testing.assert_array_equal(flat, np.arange(len(cells)))


def test_all_cells_allows_at_most_200_000_cells():
    assert all_cells([200_000]).shape == (200_000, 1)
    assert all_cells(np.array([400, 500])).shape == (200_000, 2)
    with pytest.raises(ValueError, match="M = 200001 cells; all_cells allows at most 200000"):
        all_cells([200_001])
    with pytest.raises(ValueError, match="M = 10000000000 cells"):
        all_cells([10**5, 10**5])  # the count itself is a Python int (no int64 overflow)


# ------------------------------------------------------------------ a weighted set of cells
def test_cell_counts_expand_to_their_rows():
    codes = np.array([[0, 1], [2, 0], [1, 1]], dtype=np.int64)
    cc = CellCounts(codes, np.array([2, 0, 3]), ("x", "y"))
    assert cc.n == 5 and isinstance(cc.n, int)
    frame = cc.to_frame()
    expected = pd.DataFrame({"x": [0, 0, 1, 1, 1], "y": [1, 1, 1, 1, 1]})  # the empty cell: no row
    pd.testing.assert_frame_equal(frame, expected)
    assert list(frame.dtypes) == [np.int64, np.int64]
    # float counts (e.g. from a solver) that are whole numbers are repeated as integers
    assert CellCounts(codes, np.array([1.0, 1.0, 0.0]), ("x", "y")).to_frame().shape == (2, 2)
    with pytest.raises(AttributeError):
        cc.counts = np.ones(3)  # frozen


# -------------------------------------------------------------------------------- the checks
def test_check_sizes_returns_python_ints():
    sizes = check_sizes(np.array([3, 2], dtype=np.int32))
    assert sizes == (3, 2) and all(type(n) is int for n in sizes)
    assert check_sizes({"a": np.int64(4), "b": 1}) == (4, 1)  # a mapping: its values, in order
    assert check_sizes((5,)) == (5,)


@pytest.mark.parametrize(
    ("sizes", "exc", "message"),
    [
        ("abc", TypeError, "sizes must be a sequence of domain sizes, got str"),
        (3, TypeError, "sizes must be a sequence of domain sizes, got int"),
        ([2, 2.0], TypeError, r"sizes\[1\] must be an integer domain size, got 2.0"),
        ([True, 2], TypeError, r"sizes\[0\] must be an integer domain size, got True"),
        ([3, 0], ValueError, r"sizes\[1\] must be >= 1, got 0"),
        ([], ValueError, "sizes is empty; at least one column is needed"),
    ],
)
def test_check_sizes_refuses(sizes, exc, message):
    with pytest.raises(exc, match=f"^{message}$"):
        check_sizes(sizes)


def test_check_card_codes_of_arrays_and_frames():
    sizes, columns = (3, 2), ("a", "b")
    codes = check_card_codes([[0, 1], [2, 0]], sizes, columns)
    assert codes.dtype == np.int64
    np.testing.assert_array_equal(codes, [[0, 1], [2, 0]])
    # whole floats become int64
    np.testing.assert_array_equal(check_card_codes(np.array([[2.0, 1.0]]), sizes, None), [[2, 1]])
    # a DataFrame: the card's columns picked by name, in the card's order, extras ignored
    frame = pd.DataFrame({"b": [1, 0], "extra": [9, 9], "a": [0, 2]})
    np.testing.assert_array_equal(check_card_codes(frame, sizes, columns), [[0, 1], [2, 0]])
    # a CellCounts: its codes
    cc = CellCounts(np.array([[1, 1]]), np.array([4]), columns)
    np.testing.assert_array_equal(check_card_codes(cc, sizes, columns), [[1, 1]])


@pytest.mark.parametrize(
    ("codes", "columns", "exc", "message"),
    [
        ([[0, 1, 0]], None, ValueError, r"codes must have shape \(n, 2\) .*got shape \(1, 3\)"),
        ([0, 1], None, ValueError, r"codes must have shape \(n, 2\) .*got shape \(2,\)"),
        ([[0.5, 1.0]], None, ValueError, "codes must hold integer codes; got non-integral"),
        ([[np.nan, 1.0]], None, ValueError, "codes must hold integer codes; got non-integral"),
        ([["0", "1"]], None, TypeError, "codes must hold integer codes, got dtype <U1"),
        ([[True, False]], None, TypeError, "codes must hold integer codes, got dtype bool"),
        ([[3, 0], [0, 0]], None, ValueError, r"column 0 has codes outside 0..2, e.g. \[3\]"),
        ([[0, -1]], ("a", "b"), ValueError, r"column 'b' has codes outside 0..1, e.g. \[-1\]"),
        (
            pd.DataFrame({"a": [0]}),
            ("a", "b"),
            ValueError,
            r"codes lacks the column\(s\) \['b'\]; the card's columns are \['a', 'b'\]",
        ),
    ],
)
def test_check_card_codes_refuses(codes, columns, exc, message):
    with pytest.raises(exc, match=message):
        check_card_codes(codes, (3, 2), columns)


def test_check_cell_counts():
    np.testing.assert_array_equal(check_cell_counts(None, 3), [1.0, 1.0, 1.0])  # one per row
    weights = check_cell_counts([2, 0, 1], 3)
    assert weights.dtype == float and weights.tolist() == [2.0, 0.0, 1.0]
    with pytest.raises(ValueError, match=r"counts must have shape \(3,\) .*got \(2,\)"):
        check_cell_counts([1, 1], 3)
    with pytest.raises(ValueError, match="counts must be finite and >= 0"):
        check_cell_counts([1, -1, 1], 3)
    with pytest.raises(ValueError, match="weights must be finite and >= 0"):
        check_cell_counts([1, np.inf, 1], 3, "weights")
    with pytest.raises(ValueError, match="counts sum to 0: the dataset is empty"):
        check_cell_counts([0, 0, 0], 3)

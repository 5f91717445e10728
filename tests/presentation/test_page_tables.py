"""synthtrust.presentation.page_tables: a results table as a page shows it."""

import pandas as pd
import pytest

from synthtrust.presentation.page_tables import COMPACT, page_table


def _frame():
    return pd.DataFrame({"rate": [0.05, None], "count": [1234, 5]}, index=["a", "b"])


def test_formats_per_column_and_missing_text():
    html = page_table(_frame(), {"rate": "{:.3f}", "count": "{:,}"}, missing="—").to_html()
    assert ">0.050<" in html and ">1,234<" in html and ">—<" in html
    assert ">a<" in html  # the row labels are shown by default


def test_one_format_for_every_cell_and_column_labels():
    frame = pd.DataFrame([[0.1234, 0.5]], columns=[0.1, 1.0])
    html = page_table(frame, "{:.2f}", columns=lambda e: f"ε = {e:g}").to_html()
    assert ">0.12<" in html and ">0.50<" in html
    assert ">ε = 0.1<" in html and ">ε = 1<" in html


def test_hidden_index_and_compact_cells():
    styler = page_table(_frame(), index=False, compact=True)
    html = styler.to_html()
    assert ">a<" not in html
    assert html.count("white-space: nowrap") == len(COMPACT) * 2  # td and th
    # no format asked: pandas' own rendering of the cells
    assert ">nan<" in html


def test_not_a_frame():
    with pytest.raises(TypeError, match="frame must be a pandas DataFrame, got list"):
        page_table([1, 2])

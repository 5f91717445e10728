"""Tests of ``synthtrust.studies.feature_importance.data.specs``.

The oracles and the shared set-up are described in ``_fi_data.py``.
"""

from _fi_data import REAL

from synthtrust.studies.feature_importance import data as fid

ARTIFICIAL = [f"artificial_{k}" for k in range(1, 6)]


# ------------------------------------------------------------------------ prepared tables
def test_dataset_specs_match_the_paper():
    assert list(fid.DATASETS) == REAL + ARTIFICIAL
    sizes = {n: (s.rows, s.features, s.model_rows) for n, s in fid.DATASETS.items()}
    assert sizes["adult"] == (32_561, 141, 32_561)
    assert sizes["household"] == (9_554, 39, 2_581)
    assert sizes["polish"] == (4_895, 67, 4_171)
    assert [sizes[n][1] for n in ARTIFICIAL] == [5, 5, 15, 15, 3]
    assert [fid.DATASETS[n].label for n in REAL] == ["Adult", "Household", "Polish"]
    assert fid.DATASETS["artificial_3"].label == "Artificial 3"
    assert [fid.DATASETS[n].target for n in REAL] == ["label", "Target", "wkabint"]
    assert fid.DATASETS["household"].id_column == "idhogar"
    assert {s.kind for n, s in fid.DATASETS.items() if n in ARTIFICIAL} == {"artificial"}
    assert fid.ARTIFICIAL == {
        1: "artificial_1",
        2: "artificial_2",
        3: "artificial_5",
        4: "artificial_6",
        5: "artificial_7",
    }

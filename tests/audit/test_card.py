"""Tests of ``synthtrust.audit.card``.

The oracles and the shared set-up are described in ``_audit_data.py``.
"""

from __future__ import annotations

import pytest
from _audit_data import APP2, APP2_MARGINALS, APP3

from synthtrust.audit import (
    GeneratorCard,
)


# --------------------------------------------------------------------------------------------
# card
# --------------------------------------------------------------------------------------------
def test_card_attributes_and_declared_bins():
    card = GeneratorCard(APP2, APP2_MARGINALS, name="App. 2")
    assert card.column_names == list(APP2)
    assert card.sizes == (6, 3, 7, 5)
    assert card.cells == 630
    assert card.clique_indices == ((0, 1, 2), (0, 3), (1, 3), (2, 3))
    bins = card.declared_bins()
    assert len(bins) == 126 + 30 + 15 + 35 == 206
    # the first clique's bins in C order, then (eth, grade) ...
    assert bins.to_list()[0] == ((0, 1, 2), (0, 0, 0))
    assert bins.to_list()[1] == ((0, 1, 2), (0, 0, 1))
    assert bins.to_list()[126] == ((0, 3), (0, 0))
    assert card.phi_dimension == 182
    assert card.complement_dimension == 448


def test_card_cells_is_an_exact_python_int():
    card = GeneratorCard({f"x{i}": 97 for i in range(12)}, [])
    assert card.cells == 97**12
    assert isinstance(card.cells, int)
    assert card.phi_dimension == 1  # an empty card declares only N


def test_card_convenience_constructors():
    card = GeneratorCard.two_way(APP3)
    assert len(card.marginals) == 21
    assert card.marginals[0] == ("marital", "occ")
    assert len(card.declared_bins()) == 1365
    three = GeneratorCard.k_way(APP3, 3)
    assert len(three.marginals) == 35
    with pytest.raises(ValueError, match=r"k must be an integer in 1\.\.7"):
        GeneratorCard.k_way(APP3, 8)
    with pytest.raises(ValueError, match="k must be"):
        GeneratorCard.k_way(APP3, 0)


@pytest.mark.parametrize(
    ("columns", "marginals", "exc", "match"),
    [
        ({"a": 2, "b": 3}, [("a", "z")], ValueError, r"unknown column\(s\) \['z'\]"),
        ({"a": 2, "b": 3}, [("a", "a")], ValueError, "repeats a column"),
        ({"a": 2, "b": 3}, [("a", "b"), ("b", "a")], ValueError, "repeats marginals"),
        ({"a": 2, "b": 3}, [()], ValueError, "is empty"),
        ({"a": 2, "b": 3}, ["ab"], TypeError, "sequence of column names"),
        ({"a": 2, "b": 3}, "a", TypeError, "marginals must be a list"),
        ({"a": 1, "b": 3}, [], ValueError, r"columns\['a'\] must be an integer >= 2, got 1"),
        ({"a": 2.0, "b": 3}, [], TypeError, "must be an integer"),
        ({"a": True, "b": 3}, [], TypeError, "must be an integer"),
        ({}, [], ValueError, "columns is empty"),
        ([("a", 2)], [], TypeError, r"columns must be a dict \{column: number of levels\}"),
        ({"": 2, "b": 3}, [], TypeError, "column names must be non-empty strings, got ''"),
        ({1: 2, "b": 3}, [], TypeError, "column names must be non-empty strings, got 1"),
    ],
)
def test_card_validation(columns, marginals, exc, match):
    with pytest.raises(exc, match=match):
        GeneratorCard(columns, marginals)


def test_card_round_trips(tmp_path):
    card = GeneratorCard(APP2, APP2_MARGINALS, name="App. 2", description="Φ of §4.1 — ψ")
    assert GeneratorCard.from_dict(card.to_dict()) == card
    assert GeneratorCard.from_json(card.to_json()) == card
    assert GeneratorCard.from_yaml(card.to_yaml()) == card
    for suffix in (".yaml", ".json"):
        card.save(tmp_path / f"card{suffix}")
        back = GeneratorCard.load(tmp_path / f"card{suffix}")
        assert back == card
        assert back.column_names == card.column_names  # order kept
        assert back.marginals == card.marginals
    assert hash(GeneratorCard.from_yaml(card.to_yaml())) == hash(card)
    assert card != GeneratorCard(APP2, APP2_MARGINALS[:2], name="App. 2")
    with pytest.raises(ValueError, match=r"unknown card key\(s\) \['cliques'\]"):
        GeneratorCard.from_dict({"columns": APP2, "cliques": []})
    with pytest.raises(ValueError, match=r"lacks the key\(s\) \['marginals'\]"):
        GeneratorCard.from_dict({"columns": APP2})
    with pytest.raises(ValueError, match="must end in"):
        card.save(tmp_path / "card.txt")
    with pytest.raises(AttributeError, match="immutable"):
        card.name = "other"
    cols = card.columns
    cols["eth"] = 99
    assert card.columns["eth"] == 6  # a copy


def test_a_card_survives_pickling_for_the_parallel_workers():
    """Issue 27: loky ships the card to its workers; the default protocol set the slots through
    the blocked __setattr__ ("A task has failed to un-serialize")."""
    import pickle

    card = GeneratorCard({"a": 2, "b": 3}, [("a", "b")], name="toy", description="d")
    copy = pickle.loads(pickle.dumps(card))
    assert (copy.columns, copy.marginals, copy.name, copy.description) == (
        {"a": 2, "b": 3},
        (("a", "b"),),
        "toy",
        "d",
    )
    with pytest.raises(AttributeError, match="immutable"):
        copy.name = "other"

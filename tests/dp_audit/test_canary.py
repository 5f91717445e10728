import pytest

from synthtrust.dp_audit.canary import worst_case


def test_replace_one_worlds_have_equal_size_and_differ_by_one_replaced_record():
    w = worst_case("replace_one", n_columns=4, n_levels=3, n_base=7)
    assert len(w.without) == len(w.with_canary) == 8
    assert w.canary == {"c0": 2, "c1": 2, "c2": 2, "c3": 2}
    assert w.removed == {"c0": 0, "c1": 0, "c2": 0, "c3": 0}
    assert (w.without.to_numpy() == 0).all()
    assert (w.with_canary.iloc[:7].to_numpy() == 0).all()
    assert w.with_canary.iloc[7].to_dict() == w.canary
    assert w.domain == {"c0": 3, "c1": 3, "c2": 3, "c3": 3}


def test_add_remove_worlds_differ_by_the_canary_only():
    w = worst_case("add_remove")
    assert (len(w.without), len(w.with_canary)) == (10, 11)
    assert w.removed is None
    assert w.with_canary.iloc[:10].equals(w.without)
    # the canary disagrees with every base record on every column: its cells are empty in D
    assert all((w.without[c] != w.canary[c]).all() for c in w.columns)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"neighbouring": "edit"}, "neighbouring must be one of"),
        ({"neighbouring": "add_remove", "n_levels": 1}, "n_levels"),
        ({"neighbouring": "add_remove", "n_columns": 0}, "n_columns"),
        ({"neighbouring": "add_remove", "n_base": 2.5}, "n_base"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        worst_case(**kwargs)

import numpy as np
import pandas as pd
import pytest

from synthtrust.dp_audit.canary import from_data, rare_cell, vulnerability, worst_case


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


def _brute_vulnerability(codes, x):
    """V(x) by loops over the records: Σ over 1- and 2-column sets of 1/(1 + matches)."""
    d = len(x)
    sets = [(j,) for j in range(d)] + [(i, j) for i in range(d) for j in range(i + 1, d)]
    return sum(1 / (1 + sum(all(row[k] == x[k] for k in s) for row in codes)) for s in sets)


def test_vulnerability_equals_a_loop_over_the_records():
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 3, (50, 4))
    candidates = rng.integers(0, 3, (10, 4))
    got = vulnerability(codes, candidates, [3, 3, 3, 3])
    want = [_brute_vulnerability(codes.tolist(), x) for x in candidates.tolist()]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_the_rare_cell_is_the_most_vulnerable_unseen_candidate():
    """Oracle: every record of a small domain by brute force. The greedy record (rarest level of
    each column, ties to the highest code) is unseen here and the most vulnerable of all."""
    rng = np.random.default_rng(5)
    data = pd.DataFrame(
        {"a": rng.choice(3, 200, p=[0.7, 0.2, 0.1]), "b": rng.choice(2, 200), "c": [0] * 200}
    )
    domain = {"a": 4, "b": 2, "c": 3}  # level 3 of a and levels 1, 2 of c never occur
    canary = rare_cell(data, domain, random_state=1)
    counts_b = np.bincount(data.b, minlength=2)
    rarest_b = max(v for v in range(2) if counts_b[v] == counts_b.min())
    assert canary == {"a": 3, "b": rarest_b, "c": 2}  # the greedy record wins the ties
    codes = data.to_numpy().tolist()
    everything = [(a, b, c) for a in range(4) for b in range(2) for c in range(3)]
    best = max(_brute_vulnerability(codes, x) for x in everything if list(x) not in codes)
    assert _brute_vulnerability(codes, tuple(canary.values())) == pytest.approx(best)


def test_the_rare_cell_never_occurs_in_the_table_and_needs_an_unseen_record():
    data = pd.DataFrame({"a": [0, 1, 0, 1], "b": [0, 0, 1, 1]})
    with pytest.raises(ValueError, match="every candidate canary occurs"):
        rare_cell(data)
    for seed in range(5):
        c = rare_cell(data, {"a": 2, "b": 3}, random_state=seed)
        assert c["b"] == 2  # the unseen level


@pytest.mark.parametrize("neighbouring", ["add_remove", "replace_one"])
def test_worlds_on_a_users_table_differ_by_the_canary(neighbouring):
    data = pd.DataFrame({"a": [0, 0, 1, 2, 2], "b": [0, 1, 0, 0, 1]})
    w = from_data(data, neighbouring, domain={"a": 3, "b": 3})
    assert w.canary == {"a": 1, "b": 2}
    pd.testing.assert_frame_equal(w.without, data)
    rows = lambda f: sorted(map(tuple, f.to_numpy().tolist()))  # noqa: E731
    if neighbouring == "add_remove":
        assert w.removed is None and rows(w.with_canary) == sorted(rows(data) + [(1, 2)])
    else:
        # r disagrees with the canary on both columns (the first such record)
        assert w.removed == {"a": 0, "b": 0}
        expected = rows(data)
        expected.remove((0, 0))
        assert rows(w.with_canary) == sorted(expected + [(1, 2)])


@pytest.mark.parametrize(
    ("data", "domain", "error", "match"),
    [
        (pd.DataFrame({"a": ["x", "y"]}), None, TypeError, "column 'a' must hold integer codes"),
        (pd.DataFrame({"a": [0, 1.5]}), None, ValueError, "column 'a' .* got 1.5"),
        (pd.DataFrame({"a": [0, 3]}), {"a": 2}, ValueError, r"codes 0\.\.1, got 3"),
        (pd.DataFrame({"a": [0, 1]}), {"b": 2}, ValueError, r"lacks the column\(s\) \['b'\]"),
        (pd.DataFrame({"a": [0, 1]}), {"a": 0}, ValueError, r"domain\['a'\]"),
        ([[0, 1]], {"a": 2}, TypeError, "must be a pandas DataFrame"),
    ],
)
def test_bad_tables_name_the_column_and_value(data, domain, error, match):
    with pytest.raises(error, match=match):
        from_data(data, "add_remove", domain=domain)

"""Tests of synthtrust._optional: the extra named when a module is missing, and the tqdm
notebook warning that shap's import prints in a kernel without ipywidgets kept off the pages."""

import sys
import warnings

import pytest

from synthtrust._optional import import_optional


def test_missing_module_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "shap", None)  # an import of shap now fails
    with pytest.raises(ImportError, match=r"TreeSHAP needs 'shap'.*synthtrust\[importance\]"):
        import_optional("shap", "TreeSHAP")


def test_the_iprogress_warning_is_not_shown(tmp_path, monkeypatch):
    (tmp_path / "noisy_widgets.py").write_text(
        "import warnings\n"
        "warnings.warn('IProgress not found. Please update jupyter and ipywidgets.')\n"
        "warnings.warn('another warning')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        module = import_optional("noisy_widgets", "a test")
    assert module.__name__ == "noisy_widgets"
    assert [str(w.message) for w in seen] == ["another warning"]  # only the IProgress one goes


def test_import_if_installed_imports_or_gives_none(monkeypatch):
    import importlib.util
    import json

    from synthtrust import _optional

    assert _optional.import_if_installed("json", "a test") is json
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert _optional.import_if_installed("torch", "a test") is None

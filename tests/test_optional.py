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

"""The README's "Use the package" block runs as written, and its list of synthesizers is the
package's."""

from __future__ import annotations

import contextlib
import inspect
import io
import re

from _readme import python_block, section

import synthtrust.synthesizers as synthesizers
from synthtrust.privacy.accounting import cdp_rho


def test_use_the_package_block_runs_and_prints_what_it_says():
    code = python_block("Use the package")
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102
    printed = out.getvalue()
    assert "PrivacyLedger(" in printed and "HoldoutReport(" in printed
    mst, synthetic, holdout = namespace["mst"], namespace["synthetic"], namespace["holdout"]
    # MST at ε = 1, δ = 1e-9 spends at most the ρ of that (ε, δ) budget
    assert 0 < mst.ledger_.total_rho <= cdp_rho(1.0, 1e-9) * (1 + 1e-9)
    assert len(synthetic) == len(holdout) and list(synthetic.columns) == list(holdout.columns)
    # the age difference between disease groups is real: found on the synthetic data and by
    # the DP test on the real data
    assert "pvalue=np.float64(0.0)" in printed
    assert re.search(r"DPMannWhitneyUResult\(.*reject=np\.True_", printed)
    report = namespace["report"]
    assert 0.4 < report.dcr.share < 0.6 and report.tvd_2 > report.holdout_tvd_2


def test_the_readme_names_every_synthesizer():
    text = section("Use the package")
    classes = {
        name for name in synthesizers.__all__ if inspect.isclass(getattr(synthesizers, name))
    }
    bases = {"BaseSynthesizer", "TabularSynthesizer", "NotFittedError"}
    named = set(re.findall(r"`([A-Z][A-Za-z]+)`", text))
    missing = sorted(classes - bases - named)
    assert not missing, f"README's 'Use the package' does not name {missing}"

"""synthtrust.presentation.provenance: the line that ends a chapter page, from a run's
manifest, and its paragraph."""

from __future__ import annotations

from _repo import SAMPLE_MANIFEST as MANIFEST

from synthtrust.presentation.provenance import PROVENANCE_CLASS, provenance_html, provenance_line


def test_the_line_names_version_commit_preset_and_day():
    assert provenance_line(MANIFEST) == (
        "Numbers on this page: synthtrust 9.9.9, commit feedfac, preset paper, run on 2026-01-02."
    )
    dirty = {**MANIFEST, "git": {"commit": "0123456789" * 4, "dirty": True}}
    assert provenance_line(dirty) == (
        "Numbers on this page: synthtrust 9.9.9, commit 0123456 with uncommitted changes, "
        "preset paper, run on 2026-01-02."
    )
    # outside a git work tree (write_manifest's "unknown"), and a manifest that lacks the rest
    outside = {**MANIFEST, "git": {"commit": "unknown", "dirty": None}}
    assert ", an unknown commit, " in provenance_line(outside)
    assert provenance_line({}) == (
        "Numbers on this page: synthtrust of an unknown version, an unknown commit, preset unknown."
    )


def test_the_paragraph_escapes_the_line():
    assert PROVENANCE_CLASS == "synthtrust-provenance"
    assert provenance_html('a <b> & "c"') == (
        '<p class="synthtrust-provenance">a &lt;b&gt; &amp; &quot;c&quot;</p>'
    )

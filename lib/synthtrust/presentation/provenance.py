"""The line that ends a chapter page: which synthtrust version, commit and preset made its
numbers, from the run's ``manifest.json``, and the paragraph that shows it.

``synthtrust.run.book`` writes a line for each chapter it stages (:func:`provenance_line`), the
``synthtrust._sphinx`` extension ends the chapter's page with it (:func:`provenance_html`), so a
site rebuilt from a results bundle names the bundle's runs, not the machine that rebuilt it.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

__all__ = ["PROVENANCE_CLASS", "provenance_html", "provenance_line"]

#: The class of the paragraph that ends a chapter page with its provenance line.
PROVENANCE_CLASS = "synthtrust-provenance"


def provenance_line(manifest: Mapping[str, Any]) -> str:
    """The line a chapter page ends with: what made its numbers, from its run's manifest.

    Parameters
    ----------
    manifest : mapping
        A run's ``manifest.json`` (:func:`synthtrust.run.manifest.write_manifest`): its
        ``packages.synthtrust``, ``git.commit`` and ``git.dirty``, ``preset`` and ``end_time``.

    Returns
    -------
    str
        e.g. ``Numbers on this page: synthtrust 0.1.0, commit 2bbc1ff, preset smoke, run on
        2026-12-03.``; the commit in its 7-character form, ``with uncommitted changes`` after it
        when the tree was dirty; what the manifest lacks is said to be unknown.

    Examples
    --------
    >>> provenance_line({"preset": "smoke", "git": {"commit": "2bbc1ff" + "0" * 33}})
    'Numbers on this page: synthtrust of an unknown version, commit 2bbc1ff, preset smoke.'
    """
    version = (manifest.get("packages") or {}).get("synthtrust") or "of an unknown version"
    git = manifest.get("git") or {}
    commit = str(git.get("commit") or "unknown")
    if commit == "unknown":
        made = "an unknown commit"
    else:
        made = f"commit {commit[:7]}" + (" with uncommitted changes" if git.get("dirty") else "")
    preset = manifest.get("preset") or "unknown"
    day = str(manifest.get("end_time") or "")[:10]
    when = f", run on {day}" if day else ""
    return f"Numbers on this page: synthtrust {version}, {made}, preset {preset}{when}."


def provenance_html(line: str) -> str:
    """``line`` as the paragraph that ends a page (HTML-escaped, class :data:`PROVENANCE_CLASS`).

    Examples
    --------
    >>> provenance_html("Numbers on this page: <b>")
    '<p class="synthtrust-provenance">Numbers on this page: &lt;b&gt;</p>'
    """
    return f'<p class="{PROVENANCE_CLASS}">{html.escape(line)}</p>'

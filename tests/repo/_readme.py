"""The README's sections and its Python example, for the tests that run it: in the
repository's environment (``test_readme.py``) and from the installed wheel (``test_wheel.py``)."""

from __future__ import annotations

import re

from _repo import ROOT

README = ROOT / "README.md"


def section(title: str) -> str:
    """The text of the README's ``## title`` section, up to the next ``## `` heading."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else None]


def python_block(title: str) -> str:
    """The one ```` ```python ```` block of section ``title``, verbatim."""
    (code,) = re.findall(r"```python\n(.*?)```", section(title), flags=re.S)
    return code

"""What the reader sees: the only package that builds HTML.

Modules (one concept each): :mod:`.charts` (the book's Altair theme, the offline renderer and
the chart kinds the chapters share), :mod:`.page_tables` (a results table as a page shows it),
:mod:`.verdict_tables` (the verdict tables), :mod:`.report` (the offline HTML pages of a fidelity
report and of the audits), :mod:`.scorecard` (every chapter's verdicts on one page),
:mod:`.provenance` (the line that ends a chapter page: the version, commit and preset of its
numbers). ``tests/repo/test_layout.py`` checks that no module outside this package builds HTML.
"""

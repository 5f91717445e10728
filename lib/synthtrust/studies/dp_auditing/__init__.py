"""Chapter ``dp_auditing``: empirical DP auditing of the book's synthesizers (Annamalai et al.
2024 [``annamalai2024``], Ganev et al. 2026 [``ganev2026``]).

Modules (one concept each): :mod:`.audits` (the calibration, planted-bug, one-run, PrivBayes
and per-synthesizer audits, the chart and the verdicts), :mod:`.promises` (the package's own ε
claims: GS-WGAN's nominal accounting and the replay of every DP release of the book) and
:mod:`.tightness` (the tight audits beside the published ones, and the budgets the others would
need).
"""

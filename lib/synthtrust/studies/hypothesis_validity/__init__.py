"""Chapter ``hypothesis_validity``: Montoya Perez et al. (2024) [``montoyaperez2024``],
hypothesis tests on DP synthetic data, re-run.

Modules (one concept each): :mod:`.simulation` (the univariate study: original samples, the DP
synthesizers, the tests and their Type I / Type II error rates), :mod:`.gan` (the GS-WGAN rows,
its controls and its accounting), :mod:`.multivariate` (the four tests on a simulated medical
table), :mod:`.findings` (the paper's findings as verdicts on this run) and :mod:`.figures`
(the headline figures, tables and charts the page shows).
"""

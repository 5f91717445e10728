"""Chapter ``holdout_fidelity_privacy``: Platzer & Reutterer (2021) [``platzer2021``],
holdout-based fidelity and privacy, re-run.

Modules (one concept each): :mod:`.scores` (the training half given to a generator, its output
scored against the holdout half: fidelity, DCR shares, the verdicts), :mod:`.generators` (the
paper's generator comparison with the package's generators), :mod:`.published` (the paper's
Figures 7 and 8, transcribed) and :mod:`.figures` (the comparison tables the page shows).
"""

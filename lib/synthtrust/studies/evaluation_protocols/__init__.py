"""Chapter ``evaluation_protocols``: Movahedi et al. (2024) [``movahedi2024``], benchmarking
evaluation protocols for classifiers trained on DP synthetic data, re-run.

Modules: :mod:`.benchmark` (the grid cell: one repetition of the paper's §IV.C on a dataset,
generator and ε; protocols A and B and their errors; the findings as verdicts) and
:mod:`.study` (each of the chapter's studies behind one call: :func:`.study.run_protocol_study`
and :func:`.study.run_adult_study`).
"""

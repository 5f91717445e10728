"""Chapter ``auditing``, utility part: Tables 1–3 of Houssiau et al. (2022) [``houssiau2022``].

Modules (one concept each): :mod:`.census` (the census sample, its split and codes),
:mod:`.generators` (the generators whose utility is measured), :mod:`.models` (the models
trained on synthetic data), :mod:`.jaro` (the Jaro similarity of two feature orders),
:mod:`.table1`, :mod:`.table2`, :mod:`.table3` (the three analyses), :mod:`.experiment` (the
grid cell and its run), :mod:`.summary` (per-generator summaries beside the paper's tables) and
:mod:`.findings` (the paper's utility findings as verdicts).
"""

"""Chapter ``auditing``: Houssiau et al. (2022) [``houssiau2022``], auditing synthetic-data
generators against their generator cards, re-run.

Modules (one concept each): :mod:`.applications` (the three census applications, their cards
and the bases of Φ⊥), :mod:`.generators` (the generators audited), :mod:`.audits` (the two-step
audit of each application and generator), :mod:`.power` (the audit's power against leaking
generators), :mod:`.table4` (Table 4 and the audit findings) and the package :mod:`.utility`
(Tables 1–3: what the generators are worth to the applications).
"""

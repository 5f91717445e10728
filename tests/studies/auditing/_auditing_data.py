"""Helpers shared by the test files of this folder (plain functions and constants).

The auditing study (Houssiau et al. 2022): the three applications' cards against the paper's
dimensions, the generators of Table 4, a small Application 1 audit (honest IPF passes,
dishonest IPF and sequential CART are rejected, the leak is on the 3-way interaction), the
summaries against hand computations, and bad input.
"""

from synthtrust.studies.auditing import audits as au

APP1 = ("Economic Activity", "Occupation", "Sex")


# --------------------------------------------------------------------------------------------
# a small Application 1 audit
# --------------------------------------------------------------------------------------------
def _cell(gen, **kw):
    cell = au.build_grid(
        applications=[1], generators=[gen], copies=[100, 100, 10], k_select=3, k_audit=4
    )[0]
    cell.update(kw)
    return cell

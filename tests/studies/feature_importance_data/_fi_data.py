"""Helpers shared by the test files of this folder (plain functions and constants).

Data preparation and feature engineering of chapter ``feature_importance`` (Giles et al. 2022,
``giles2022``): the paper's sizes (§4.2, App. A), engineered values against independent pandas
computations, fixed output columns for synthetic-like tables, the artificial sets' mutual
information (§5.1), public domains that round-trip the prepared tables, and bad input.
"""

REAL = ["adult", "household", "polish"]

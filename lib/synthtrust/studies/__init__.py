"""The chapters' experiments: one package per chapter, named after it, called from its notebook.

A chapter's notebook imports its own package here and the library, never another chapter's
(``tests/repo/test_studies.py``). Each package's modules are named by concept; its
``__init__`` lists them.
"""

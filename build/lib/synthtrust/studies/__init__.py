"""Experiment code of the chapters: one module per chapter, called from its notebook."""

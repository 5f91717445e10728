"""The command line, ``synthtrust``: :mod:`.app` (the parser and the subcommands ``list``,
``run``, ``book``, ``compare``, ``fidelity``, ``audit``, ``dp-audit``), :mod:`.arguments` (the
argument types, with one-line errors), :mod:`.user_generator` (a ``module:Class`` named on the
command line as a picklable factory) and :mod:`.dp_audit` (the ``dp-audit`` command's pilot
fits, cost estimate and its three modes)."""

from synthtrust.cli.app import main

__all__ = ["main"]

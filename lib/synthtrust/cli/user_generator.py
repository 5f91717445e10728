"""A generator named by ``module:Class`` on the command line, as a picklable factory: the
parallel workers import the user's module themselves (from the working directory, like
``python -m``), so a class that cloudpickle could not ship by reference still reaches them.
Used by the ``audit`` and ``dp-audit`` commands."""

from __future__ import annotations

import os
import sys

__all__ = ["GeneratorFactory"]


class GeneratorFactory:
    """``module:Class`` plus constructor parameters, as a picklable factory
    ``factory(random_state) -> generator`` (parallel workers import the module themselves).

    Raises ValueError at construction if the module or class cannot be imported, is not a
    class, or lacks ``fit``/``sample``."""

    def __init__(self, spec: str, params: dict):
        if not isinstance(spec, str) or spec.count(":") != 1 or not all(spec.split(":")):
            raise ValueError(
                f"--generator must be module:Class (e.g. mygen:MyGenerator), got {spec!r}"
            )
        self.spec, self.params = spec, dict(params)
        cls = self.cls()
        missing = [m for m in ("fit", "sample") if not callable(getattr(cls, m, None))]
        if missing:
            raise ValueError(
                f"--generator {spec}: the class lacks {' and '.join(missing)}; an "
                "audited generator needs fit(frame) and sample(n)"
            )

    def cls(self) -> type:
        """The class, imported (in the calling process)."""
        import importlib
        import inspect

        module, name = self.spec.split(":")
        if os.getcwd() not in sys.path:  # like `python -m`: modules of the working directory
            sys.path.insert(0, os.getcwd())
        try:
            obj = getattr(importlib.import_module(module), name)
        except ImportError as exc:
            raise ValueError(
                f"--generator {self.spec}: cannot import module {module!r} ({exc})"
            ) from None
        except AttributeError:
            raise ValueError(
                f"--generator {self.spec}: module {module!r} has no {name!r}"
            ) from None
        if not inspect.isclass(obj):
            raise ValueError(f"--generator {self.spec}: {name!r} is not a class")
        return obj

    def __call__(self, random_state):
        from synthtrust.audit.two_step import construct

        try:
            return construct(self.cls(), self.params, random_state)
        except TypeError as exc:
            raise ValueError(f"--params do not fit {self.spec}: {exc}") from None

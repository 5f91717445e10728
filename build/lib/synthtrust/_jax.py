"""The one place that configures JAX for mbi (Private-PGM) before mbi is imported.

mbi 2.0 needs float64 (``jax_enable_x64``): in float32 its mirror descent stalls and dual averaging
diverges for large totals (mbi PRs #121/#146), and it warns at import time. The persistent
compilation cache is switched off because mbi compiles many small programs (its import warns
too). Both settings are process-wide and must be made before any JAX array is created, so every
module that needs mbi calls :func:`import_mbi` instead of ``import mbi``.
"""

from __future__ import annotations

import threading

__all__ = ["configure_jax", "import_mbi"]

_lock = threading.Lock()
_configured = False


def configure_jax():
    """Enable float64 and disable the persistent compilation cache; return the ``jax`` module."""
    global _configured
    with _lock:
        import jax

        if not _configured:
            jax.config.update("jax_enable_x64", True)
            jax.config.update("jax_enable_compilation_cache", False)
            _configured = True
        return jax


def import_mbi():
    """Return the ``mbi`` module, imported after :func:`configure_jax` (no float32/cache warnings)."""
    configure_jax()
    import mbi

    return mbi

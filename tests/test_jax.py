"""Tests of ``synthtrust._jax``, the one place that configures JAX before mbi (Private-PGM) is
imported: in a fresh interpreter JAX starts in float32 with the persistent compilation cache on
(the defaults this module exists to change); after :func:`import_mbi` arrays are float64, the
cache is off, importing mbi warned about neither, and :func:`configure_jax` is idempotent and
returns the ``jax`` module. The check runs in a subprocess because both settings are
process-wide and must be made before JAX creates its first array."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import json, warnings
import jax
before = [bool(jax.config.jax_enable_x64), bool(jax.config.jax_enable_compilation_cache)]
from synthtrust._jax import configure_jax, import_mbi
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    mbi = import_mbi()
import jax.numpy as jnp
print(json.dumps({
    "before": before,
    "after": [bool(jax.config.jax_enable_x64), bool(jax.config.jax_enable_compilation_cache)],
    "dtype": str(jnp.asarray(1.0).dtype),
    "warnings": [str(w.message) for w in caught
                 if "float32" in str(w.message) or "compilation cache" in str(w.message)],
    "mbi": mbi.__name__,
    "same_mbi": mbi is import_mbi(),
    "jax": configure_jax() is jax and configure_jax() is jax,
}))
"""


def test_import_mbi_configures_jax_first_in_a_fresh_process():
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["before"] == [False, True]  # JAX's defaults: float32, persistent cache on
    assert out["after"] == [True, False]
    assert out["dtype"] == "float64"
    assert out["warnings"] == []  # mbi warns about float32 and the cache when not configured
    assert out["mbi"] == "mbi" and out["same_mbi"] and out["jax"]

"""feature_importance.grid: warm_up, what a worker loads before its first task."""

from __future__ import annotations

import subprocess
import sys

_SCRIPT = """
import importlib.util, sys
from synthtrust.importance.treeshap import _accumulate
from synthtrust.studies import feature_importance as fi
from synthtrust.studies.feature_importance.data.tables import _table
assert _table.cache_info().currsize == 0 and not _accumulate.signatures
fi.warm_up()
print(_table.cache_info().currsize, len(fi.DATASETS), len(_accumulate.signatures),
      "mbi" in sys.modules,
      ("torch" in sys.modules) == (importlib.util.find_spec("torch") is not None))
"""


def test_warm_up_loads_every_table_mbi_torch_and_the_compiled_treeshap():
    # in a fresh interpreter: this one may have loaded them already
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    tables, datasets, compiled, mbi, torch = out.stdout.split()
    assert int(tables) == int(datasets) == 8
    assert int(compiled) >= 1 and mbi == "True" and torch == "True"


_LEAN = """
import sys
from synthtrust.studies import feature_importance as fi
fi.WarmUp(mbi=False, torch=False)()
print("mbi" in sys.modules, "jax" in sys.modules, "torch" in sys.modules)
"""


def test_a_lean_warm_up_loads_neither_jax_nor_torch():
    out = subprocess.run([sys.executable, "-c", _LEAN], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["False", "False", "False"]

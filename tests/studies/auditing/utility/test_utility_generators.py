"""Tests of ``synthtrust.studies.auditing.utility.generators``.

The oracles and the shared set-up are described in ``_auditing_utility_data.py``.
"""

from __future__ import annotations

import pytest

from synthtrust.studies.auditing.utility import experiment as U


def test_make_utility_generator_and_grid():
    ipf = U.make_utility_generator("ipf", 2, 0)
    assert ipf.tol == 1e-3 and sorted(map(tuple, ipf.marginals)) == sorted(
        tuple(m) for m in U.application(2).marginals
    )
    assert U.make_utility_generator("pgm", 3, 0).max_iter == 200
    assert type(U.make_utility_generator("mst")).__name__ == "MST"
    ctgan = U.make_utility_generator("ctgan")
    assert type(ctgan).__name__ == "CTGAN" and ctgan.epochs == 10 and ctgan.max_iter is None
    with pytest.raises(ValueError, match="app="):
        U.make_utility_generator("ipf")
    with pytest.raises(ValueError, match="unknown generator"):
        U.make_utility_generator("real")
    cells = U.build_utility_grid(generators=["ipf", "cart"], n_rows=2000)
    assert [c["generator"] for c in cells] == ["real", "ipf", "cart"]
    assert cells[0]["epsilon"] == 1000.0 and cells[0]["pgm_max_iter"] == [1000, 1000, 200]
    with pytest.raises(ValueError, match="'gan'"):
        U.build_utility_grid(generators=["gan"])


def test_warm_up_loads_mbi_and_torch_before_the_first_task():
    """The utility grid's workers load JAX, mbi and PyTorch in ``warm_up``; loaded lazily by the
    Private-PGM and PATE-CTGAN tasks they grew a worker past loky's 300 MB and it was recycled."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from synthtrust.studies.auditing.utility.experiment import warm_up\n"
        "before = {m for m in ('jax', 'mbi', 'torch') if m in sys.modules}\n"
        "warm_up()\n"
        "print(sorted(before), sorted(m for m in ('jax', 'mbi', 'torch') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    pytest.importorskip("torch")
    assert out.stdout.split("\n")[0] == "[] ['jax', 'mbi', 'torch']"

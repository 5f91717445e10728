"""Noise scales of the reference marginal-based mechanisms (MST, AIM, MWEM+PGM) for a zCDP
budget ρ.

Sources: McKenna, Miklau & Sheldon (JPC 2021) [``mckenna2021``]; McKenna et al. (VLDB 2022)
[``mckenna2022``]; McKenna, Sheldon & Miklau (ICML 2019) [``mckenna2019``]; the reference scripts
``mechanisms/mst.py``, ``aim.py``, ``mwem+pgm.py`` of Private-PGM [``privatepgm2025``].
"""

from __future__ import annotations

import math
import numbers

from ..._validation import check_positive_int, check_rho


def mst_budget(rho: float, d: int) -> dict:
    """Noise scales of MST for ``d`` columns and a zCDP budget ``rho``.

    The budget is split in thirds (1-way measurements, tree selection, 2-way measurements):
    base σ = √(3/(2ρ)); each of the ``d`` 1-way marginals gets std σ√d (together ρ/3), each of the
    ``d − 1`` tree edges std σ√(d − 1) (together ρ/3), and each of the ``d − 1`` exponential-
    mechanism draws ε = √(8·(ρ/3)/(d − 1)) (together ρ/3). For ``d = 1`` there is no tree: the
    single 1-way marginal gets the whole budget (std √(1/(2ρ))) — our choice, the reference code
    assumes d ≥ 2.

    For adult (d = 14) at the reference's defaults ε = 1, δ = 1e-9: σ ≈ 10.0, 1-way std ≈ 37.5,
    2-way std ≈ 36.1, ε per edge ≈ 0.055.

    Returns
    -------
    dict with keys ``sigma``, ``sigma_1way``, ``sigma_2way``, ``epsilon_edge`` (the last two are
    ``nan`` when ``d = 1``).

    References
    ----------
    McKenna, Miklau & Sheldon (JPC 2021) [``mckenna2021``], §4; the reference ``mechanisms/mst.py``
    of Private-PGM [``privatepgm2025``].
    """
    rho = check_rho(rho)
    if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 1:
        raise ValueError(f"d must be an integer >= 1, got {d!r}")
    if d == 1:
        s = math.sqrt(1.0 / (2.0 * rho))
        return {"sigma": s, "sigma_1way": s, "sigma_2way": math.nan, "epsilon_edge": math.nan}
    sigma = math.sqrt(3.0 / (2.0 * rho))
    return {
        "sigma": sigma,
        "sigma_1way": sigma * math.sqrt(d),
        "sigma_2way": sigma * math.sqrt(d - 1),
        "epsilon_edge": math.sqrt(8.0 * (rho / 3.0) / (d - 1)),
    }


def aim_budget(rho: float, rounds: int, measure_share: float = 0.9) -> tuple[float, float]:
    """AIM's initial per-round noise std σ and selection ε for ``rounds`` rounds.

    Each round gets ρ/T: ``measure_share`` (0.9) of it for the Gaussian measurement,
    σ = √(T/(2·0.9·ρ)), the rest for the exponential mechanism, ε = √(8·0.1·ρ/T).
    For adult (d = 14, T = 16·d = 224) at ε = 1, δ = 1e-9: σ ≈ 91.2, ε ≈ 0.0073.

    References
    ----------
    McKenna et al. (VLDB 2022) [``mckenna2022``], Alg. 2; the reference ``mechanisms/aim.py`` of
    Private-PGM [``privatepgm2025``].
    """
    rho = check_rho(rho)
    rounds = check_positive_int(rounds, "rounds")
    sigma = math.sqrt(rounds / (2.0 * measure_share * rho))
    eps = math.sqrt(8.0 * (1.0 - measure_share) * rho / rounds)
    return sigma, eps


def mwem_pgm_budget(rho: float, rounds: int, alpha: float = 0.9) -> tuple[float, float]:
    """MWEM+PGM's per-round noise std σ = √(1/(2αρ_r)) and selection ε = √(8(1−α)ρ_r), ρ_r = ρ/T.

    For adult (d = 14, T = d = 14 rounds) at ε = 1, δ = 1e-9: σ ≈ 22.8, ε ≈ 0.029.

    References
    ----------
    McKenna, Sheldon & Miklau (ICML 2019) [``mckenna2019``], §3.3 (MWEM with Private-PGM); the
    reference script ``mechanisms/mwem+pgm.py`` of Private-PGM [``privatepgm2025``].
    """
    rho = check_rho(rho)
    rho_r = rho / check_positive_int(rounds, "rounds")
    return math.sqrt(1.0 / (2.0 * alpha * rho_r)), math.sqrt(8.0 * (1.0 - alpha) * rho_r)

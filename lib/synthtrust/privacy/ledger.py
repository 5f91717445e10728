"""PrivacyLedger: one row per noisy measurement, so a synthesizer's spend can be audited and summed."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import pandas as pd

__all__ = ["LedgerEntry", "PrivacyLedger"]

_COLUMNS = ["step", "mechanism", "epsilon", "delta", "rho", "sensitivity", "scale", "draws", "note"]


@dataclass(frozen=True)
class LedgerEntry:
    """One privacy-spending step.

    Attributes
    ----------
    mechanism : str
        e.g. ``"laplace"``, ``"discrete_laplace"``, ``"gaussian"``, ``"exponential"``.
    epsilon : float or None
        ε of the step (nats); None when the step is accounted in ρ only.
    delta : float
        δ of the step (0 for pure ε-DP).
    rho : float or None
        ρ of the step under zCDP (ε²/2 for pure ε-DP noise, ε²/8 for an exponential mechanism);
        None when unknown.
    sensitivity : float or None
        Sensitivity of the released quantity (L1 for Laplace, L2 for Gaussian, score
        sensitivity for the exponential mechanism).
    scale : float or None
        Noise scale (Laplace/discrete-Laplace scale b, Gaussian σ); None for selection steps.
    draws : int
        How many calls of the noise mechanism the step accounts for: 1 for a single
        measurement; an accountant's entry (the PATE moments accountant, the Rényi-DP
        accountant of DP-SGD) covers every release it composes.
    note : str
        Free text: what was measured (e.g. the marginal).
    """

    mechanism: str
    epsilon: float | None
    delta: float
    rho: float | None
    sensitivity: float | None
    scale: float | None
    draws: int = 1
    note: str = ""


def _opt_nonneg(value, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number or None, got {type(value).__name__} {value!r}"
        )
    value = float(value)
    if math.isnan(value) or value < 0:
        raise ValueError(f"{name} must be >= 0 (or None), got {value!r}")
    return value


class PrivacyLedger:
    """Record of every privacy-spending step of a mechanism or synthesizer.

    Totals use basic sequential composition: ``total_epsilon`` and ``total_delta`` add the ε and δ of
    the entries; ``total_rho`` adds their ρ (zCDP composition). A total is ``nan`` when some entry
    does not carry that quantity (e.g. a Gaussian step recorded in ρ only has no ε), so an
    unknown cost is never silently counted as zero. Sums use ``math.fsum`` (correctly rounded).

    Examples
    --------
    >>> led = PrivacyLedger()
    >>> _ = led.record(mechanism="laplace", epsilon=0.5, sensitivity=1.0, scale=2.0)
    >>> _ = led.record(mechanism="laplace", epsilon=0.5, sensitivity=1.0, scale=2.0)
    >>> led.total_epsilon
    1.0
    """

    def __init__(self) -> None:
        self._entries: list[LedgerEntry] = []

    def record(
        self,
        *,
        mechanism: str,
        epsilon: float | None = None,
        delta: float = 0.0,
        rho: float | None = None,
        sensitivity: float | None = None,
        scale: float | None = None,
        draws: int = 1,
        note: str = "",
    ) -> LedgerEntry:
        """Append one step and return it.

        If ``rho`` is None, ``delta == 0`` and ``epsilon`` is given, ρ is filled in as ε²/2 (pure
        ε-DP implies ε²/2-zCDP; Bun & Steinke 2016, Prop. 1.4).

        Raises
        ------
        TypeError
            ``mechanism`` not a non-empty string; a numeric field not a real number.
        ValueError
            A negative or NaN numeric field; neither ``epsilon`` nor ``rho`` given; ``draws``
            not an integer >= 0.
        """
        if not isinstance(mechanism, str) or not mechanism:
            raise TypeError(f"mechanism must be a non-empty string, got {mechanism!r}")
        epsilon = _opt_nonneg(epsilon, "epsilon")
        delta = _opt_nonneg(delta, "delta")
        rho = _opt_nonneg(rho, "rho")
        if delta is None:
            delta = 0.0
        if delta > 1:
            raise ValueError(f"delta must be <= 1, got {delta!r}")
        if epsilon is None and rho is None:
            raise ValueError("record() needs the cost of the step: give epsilon and/or rho")
        if isinstance(draws, bool) or not isinstance(draws, numbers.Integral) or draws < 0:
            raise ValueError(f"draws must be an integer >= 0, got {draws!r}")
        if rho is None and epsilon is not None and delta == 0:
            rho = epsilon**2 / 2
        entry = LedgerEntry(
            mechanism=mechanism,
            epsilon=epsilon,
            delta=delta,
            rho=rho,
            sensitivity=_opt_nonneg(sensitivity, "sensitivity"),
            scale=_opt_nonneg(scale, "scale"),
            draws=int(draws),
            note=str(note),
        )
        self._entries.append(entry)
        return entry

    def extend(self, other: PrivacyLedger) -> None:
        """Append all entries of ``other`` (sequential composition of two ledgers)."""
        if not isinstance(other, PrivacyLedger):
            raise TypeError(f"other must be a PrivacyLedger, got {type(other).__name__}")
        self._entries.extend(other._entries)

    @property
    def entries(self) -> list[LedgerEntry]:
        """A copy of the list of entries, in recording order."""
        return list(self._entries)

    def _total(self, field: str) -> float:
        values = [getattr(e, field) for e in self._entries]
        if any(v is None for v in values):
            return math.nan
        return math.fsum(values)

    @property
    def total_epsilon(self) -> float:
        """Σ ε over entries (0.0 for an empty ledger; nan if an entry has no ε)."""
        return self._total("epsilon")

    @property
    def total_delta(self) -> float:
        """Σ δ over entries."""
        return self._total("delta")

    @property
    def total_rho(self) -> float:
        """Σ ρ over entries (zCDP composition; nan if an entry has no ρ)."""
        return self._total("rho")

    def to_frame(self) -> pd.DataFrame:
        """Tidy table: one row per entry, columns ``step, mechanism, epsilon, delta, rho,
        sensitivity, scale, draws, note`` (missing values as NaN)."""
        rows = [{"step": i, **asdict(e)} for i, e in enumerate(self._entries)]
        frame = pd.DataFrame(rows, columns=_COLUMNS)
        for col in ("epsilon", "delta", "rho", "sensitivity", "scale"):
            frame[col] = pd.to_numeric(frame[col], errors="coerce").astype(float)
        frame["step"] = frame["step"].astype("int64")
        frame["draws"] = frame["draws"].astype("int64")
        return frame

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[LedgerEntry]:
        return iter(list(self._entries))

    def __repr__(self) -> str:
        return (
            f"PrivacyLedger({len(self)} entries, total_epsilon={self.total_epsilon:.6g}, "
            f"total_delta={self.total_delta:.3g}, total_rho={self.total_rho:.6g})"
        )

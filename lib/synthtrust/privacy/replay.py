"""Recording the mechanism calls of a run, and comparing the records of two neighbouring runs:
the grey-box replay audit ("Re:cord-play") of Cebere, Erb, Desfontaines, Bellet & Fitzsimons
(PETS 2026) [``cebere2026``].

Inside :func:`record_mechanisms` every call of a recorded mechanism appends a
:class:`MechanismCall` to the list the context manager yields: the query value *before* the
noise, the declared sensitivity and its norm, the noise scale, the budget and the calling
function. The recorded mechanisms (:data:`RECORDED`) are those of
:mod:`synthtrust.privacy.mechanisms` (Laplace, discrete Laplace, Gaussian, the exponential
mechanism and its i.i.d. counts), the noisy teacher vote :func:`synthtrust.privacy.pate.
noisy_vote_labels` and GS-WGAN's gradient sanitiser :func:`synthtrust.privacy.gradients.
sanitize_gradients`; a recorded mechanism that calls another (the vote calls :func:`laplace`) is
one call. Outside the context the hook costs one :class:`contextvars.ContextVar` look-up.

The audit (Cebere et al. 2026, §4): run the algorithm on a dataset D and on a neighbour D′ with
the same randomness (the same ``random_state``), and compare the two records
(:func:`compare_replays`):

* **control flow** — a DP algorithm interleaves mechanism calls with post-processing of their
  outputs, so the sequence of calls (mechanism, noise scale, declared sensitivity, shape) may
  depend on the data only through earlier outputs. With the outputs frozen — the run on D′
  given ``replay=`` the calls of D returns D's outputs from its mechanisms (and still draws
  their noise, so the random streams stay aligned) — the two sequences must be equal; the first
  difference is data-dependent control flow outside a mechanism (a branch on a count, a
  stopping rule on the data, a sensitivity computed from the data).
* **sensitivity** — per call, the observed distance ‖f(D) − f(D′)‖ of the two query values in
  the call's norm must not exceed the declared sensitivity. One pair of neighbours can falsify a
  declared sensitivity, never prove it: the tests pick pairs at the edges of the domain.

Norms: ``"l1"`` for the (discrete) Laplace mechanism; ``"l2"`` for the Gaussian mechanism and
the gradient sanitiser; ``"linf"`` for the exponential mechanism (the largest change of one
candidate's score; every selection of a vectorized call has its own scores) and for the teacher
votes (each of the Q queries is its own ε_q = λ release, composed by the moments accountant,
and one record changes each vote by at most 1). A Laplace call with one sensitivity per element
(independent releases, e.g. one per Monte Carlo replicate) is compared elementwise in
``"linf"`` against the largest of them.

Where this departs from the reference implementation ``dp-recorder`` [``cebere2026``]: the
hook sits inside this package's mechanisms (no monkeypatching), and the replay draws the noise
of each call before replacing the output, so the random streams of the two runs stay aligned
without saving and restoring generator states.

References
----------
Cebere, Erb, Desfontaines, Bellet & Fitzsimons (2026), "Privacy in theory, bugs in practice:
grey-box auditing of differential privacy libraries", PETS 2026 (arXiv:2602.17454), §4
(Re:cord-play); the reference implementation ``ObliviousAI/dp-recorder`` [``cebere2026``].
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import ResultMixin, json_value

__all__ = [
    "NORMS",
    "RECORDED",
    "MechanismCall",
    "ReplayResult",
    "compare_replays",
    "observed_sensitivity",
    "record_call",
    "record_mechanisms",
]

#: The norms of the declared sensitivities (module docstring).
NORMS = ("l1", "l2", "linf")

#: The recorded mechanisms, by the name a :class:`MechanismCall` gives them: the function.
RECORDED = {
    "laplace": "synthtrust.privacy.mechanisms.laplace",
    "discrete_laplace": "synthtrust.privacy.mechanisms.discrete_laplace",
    "gaussian": "synthtrust.privacy.mechanisms.gaussian",
    "exponential_mechanism": "synthtrust.privacy.mechanisms.exponential_mechanism",
    "exponential_mechanism_counts": "synthtrust.privacy.mechanisms.exponential_mechanism_counts",
    "noisy_vote_labels": "synthtrust.privacy.pate.noisy_vote_labels",
    "sanitize_gradients": "synthtrust.privacy.gradients.sanitize_gradients",
}
_FUNCTIONS = frozenset(RECORDED.values())
_PACKAGE = "synthtrust.privacy"


@dataclass(frozen=True, eq=False)
class MechanismCall:
    """One call of a recorded mechanism, as :func:`record_mechanisms` saw it.

    Attributes
    ----------
    mechanism : str
        A key of :data:`RECORDED` (the function's name).
    norm : {"l1", "l2", "linf"}
        The norm of ``sensitivity`` (module docstring).
    sensitivity : float
        The declared sensitivity of the query value under the caller's neighbouring relation
        (NaN when the call declared none, e.g. a Gaussian calibrated by ``sigma`` alone).
    scale : float
        The noise scale: Laplace b, discrete Laplace t, Gaussian σ, the sanitiser's noise std
        2σC/B, the vote's Laplace scale 1/λ; for the exponential mechanism its ε (of one
        selection; of all ``size`` selections for ``exponential_mechanism_counts``).
    shape : tuple of int
        Shape of the query value.
    value : ndarray of float64
        A copy of the query value before the noise: counts, marginals, scores, votes, or the
        clipped per-sample gradients (B, L). For ``exponential_mechanism_counts`` the scores
        implied by its probabilities, q_r = (2Δ·size/ε)·ln p_r (−inf where p_r = 0): the scores
        up to the additive constant of the normalisation, which is the same on D and D′ when it
        depends on public quantities only (the smoothed histogram: Σ_r (c_r + α) = n + kα, n
        public under replace-one).
    epsilon, delta, rho : float or None
        The budget of the call where the mechanism knows it (ε by basic composition of its
        elements; None where an accountant outside the call composes its releases, as for the
        gradient sanitiser).
    caller : str
        ``module.qualname`` of the first frame outside :mod:`synthtrust.privacy`.
    output : object
        A copy of the mechanism's own output: what a later replay against this call returns in
        its place. (In a replay the caller received the replayed call's output instead; this
        field keeps the call's own, which shows its noise.)
    """

    mechanism: str
    norm: str
    sensitivity: float
    scale: float
    shape: tuple
    value: np.ndarray = field(repr=False)
    epsilon: float | None = None
    delta: float | None = None
    rho: float | None = None
    caller: str = ""
    output: object = field(default=None, repr=False)


class _Recorder:
    """One active :func:`record_mechanisms` context: its list and, in a replay, the calls whose
    outputs it returns (until the first call that does not match)."""

    __slots__ = ("calls", "replay", "diverged")

    def __init__(self, replay):
        self.calls: list[MechanismCall] = []
        self.replay = replay
        self.diverged = False

    def frozen_output(self, call: MechanismCall):
        """The recorded output of the replayed call at this position, or None."""
        if self.replay is None or self.diverged:
            return None
        i = len(self.calls) - 1
        if i >= len(self.replay) or _difference(self.replay[i], call) is not None:
            self.diverged = True
            return None
        return (_copy(self.replay[i].output),)


_ACTIVE: contextvars.ContextVar[tuple[_Recorder, ...]] = contextvars.ContextVar(
    "synthtrust_privacy_recorders", default=()
)


@contextlib.contextmanager
def record_mechanisms(replay: Sequence[MechanismCall] | None = None) -> Iterator[list]:
    """Record every call of a recorded mechanism made inside the ``with`` block.

    Parameters
    ----------
    replay : sequence of MechanismCall, optional
        The calls of a run on another dataset (D), to replay this run (on D′) against: the
        i-th call returns ``replay[i].output`` instead of its own output (it still draws its
        noise, so the random streams of the two runs stay aligned), as long as every call so
        far matched its counterpart in mechanism, norm, scale, declared sensitivity and shape
        (``rtol`` 1e-9); from the first call that does not, the calls return their own outputs
        (and :func:`compare_replays` reports the mismatch). None: record only.

    Yields
    ------
    list of MechanismCall
        Filled in call order while the block runs. Contexts nest: a call is appended to the
        list of every enclosing context; the outputs are those of the innermost replaying one.

    Raises
    ------
    TypeError
        ``replay`` not a sequence of :class:`MechanismCall`.

    Notes
    -----
    The contexts are :mod:`contextvars` state, so each thread (and each asyncio task) records
    its own calls; work sent to another process (``run_grid`` with ``n_jobs`` > 1) is not
    recorded. Source: Cebere et al. (2026) [``cebere2026``], §4 (module docstring).

    Examples
    --------
    >>> from synthtrust.privacy import laplace
    >>> with record_mechanisms() as calls:
    ...     _ = laplace([3.0, 4.0], sensitivity=2.0, epsilon=1.0, random_state=0)
    >>> calls[0].mechanism, calls[0].norm, calls[0].sensitivity, calls[0].scale
    ('laplace', 'l1', 2.0, 2.0)
    """
    if replay is not None:
        if isinstance(replay, (str, bytes)) or not isinstance(replay, Sequence):
            raise TypeError(
                f"replay must be a sequence of MechanismCall, got {type(replay).__name__}"
            )
        bad = [type(c).__name__ for c in replay if not isinstance(c, MechanismCall)]
        if bad:
            raise TypeError(f"replay must hold MechanismCall objects only, got {bad[0]}")
        replay = list(replay)
    recorder = _Recorder(replay)
    token = _ACTIVE.set((*_ACTIVE.get(), recorder))
    try:
        yield recorder.calls
    finally:
        _ACTIVE.reset(token)


def record_call(
    mechanism: str,
    norm: str,
    value,
    output,
    *,
    sensitivity,
    scale,
    epsilon=None,
    delta=None,
    rho=None,
):
    """The hook of a recorded mechanism: return ``output``, recording the call first if a
    :func:`record_mechanisms` context is active (else nothing but a context-variable look-up).

    Called by the mechanisms of :data:`RECORDED` as they return (``return record_call(...)``);
    not meant for other callers. A call made from inside another recorded mechanism is not
    recorded (the outer call is).

    Parameters
    ----------
    mechanism : str
        A key of :data:`RECORDED`.
    norm : {"l1", "l2", "linf"}
    value : array-like, torch tensor, or a function of no arguments returning one
        The query value before the noise (a function is called only while recording).
    output : object
        What the mechanism returns.
    sensitivity, scale, epsilon, delta, rho
        As the attributes of :class:`MechanismCall` (None sensitivity: NaN; an array: its
        largest element, compared in ``"linf"``).

    Returns
    -------
    object
        ``output``; in a replay with frozen outputs, the replayed call's output instead.
    """
    recorders = _ACTIVE.get()
    if not recorders:
        return output
    caller = _caller()
    if caller is None:  # inside another recorded mechanism: recorded as that one
        return output
    if callable(value):
        value = value()
    values = _as_float(value)
    sens = np.asarray(np.nan if sensitivity is None else sensitivity, dtype=float)
    if sens.ndim > 0:
        norm = "linf"
    call = MechanismCall(
        mechanism=mechanism,
        norm=norm,
        sensitivity=float(np.max(sens)),
        scale=float(np.max(scale)),
        shape=tuple(values.shape),
        value=values,
        epsilon=None if epsilon is None else float(epsilon),
        delta=None if delta is None else float(delta),
        rho=None if rho is None else float(rho),
        caller=caller,
        output=_copy(output),
    )
    frozen = None
    for recorder in recorders:
        recorder.calls.append(call)
    for recorder in reversed(recorders):
        if recorder.replay is not None:
            frozen = recorder.frozen_output(call)
            break
    return output if frozen is None else frozen[0]


def _caller() -> str | None:
    """``module.qualname`` of the first frame outside :mod:`synthtrust.privacy`, or None when a
    frame between it and the hooked mechanism is another recorded mechanism."""
    frame = sys._getframe(2)  # the mechanism that called record_call
    frame = frame.f_back
    while frame is not None:
        module = frame.f_globals.get("__name__", "?")
        if module != _PACKAGE and not module.startswith(_PACKAGE + "."):
            return f"{module}.{frame.f_code.co_qualname}"
        if f"{module}.{frame.f_code.co_qualname}" in _FUNCTIONS:
            return None
        frame = frame.f_back
    return "?"


def _as_float(value) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    return np.array(value, dtype=np.float64, copy=True)


def _copy(output):
    if isinstance(output, np.ndarray):
        return output.copy()
    if hasattr(output, "clone"):  # a torch tensor
        return output.clone()
    return output


# --------------------------------------------------------------------------------------------
# comparing two records
# --------------------------------------------------------------------------------------------
def _close(a: float, b: float, rtol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= rtol * max(abs(a), abs(b))


def _difference(a: MechanismCall, b: MechanismCall, rtol: float = 1e-9) -> str | None:
    """What differs between two calls at the same position (None if they match)."""
    if a.mechanism != b.mechanism:
        return f"mechanism {a.mechanism!r} on D, {b.mechanism!r} on D′"
    if a.norm != b.norm:
        return f"norm {a.norm!r} on D, {b.norm!r} on D′"
    if a.shape != b.shape:
        return f"shape {a.shape} on D, {b.shape} on D′"
    if not _close(a.scale, b.scale, rtol):
        return f"scale {a.scale!r} on D, {b.scale!r} on D′"
    if not _close(a.sensitivity, b.sensitivity, rtol):
        return f"declared sensitivity {a.sensitivity!r} on D, {b.sensitivity!r} on D′"
    return None


def observed_sensitivity(a: np.ndarray, b: np.ndarray, norm: str) -> float:
    """‖a − b‖ in ``norm`` ("l1", "l2" or "linf"), for two query values of one shape.

    Entries equal in both (also −inf, an excluded candidate of the exponential mechanism)
    contribute 0; an entry infinite in one value only makes the distance infinite.

    Raises
    ------
    ValueError
        ``norm`` not one of :data:`NORMS`; the shapes differ.
    """
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {NORMS}, got {norm!r}")
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"the two values have different shapes: {a.shape} and {b.shape}")
    same = a == b
    with np.errstate(invalid="ignore"):
        d = np.where(same, 0.0, np.abs(a - b))
    d = np.where(np.isnan(d), np.inf, d)
    if d.size == 0:
        return 0.0
    if norm == "l1":
        return float(d.sum())
    if norm == "l2":
        return float(math.sqrt(float(np.sum(d * d)))) if np.all(np.isfinite(d)) else math.inf
    return float(d.max())


@dataclass(frozen=True, eq=False)
class ReplayResult(ResultMixin):
    """The comparison of the mechanism calls of two runs on neighbouring datasets
    (:func:`compare_replays`).

    Attributes
    ----------
    violation : bool
        True if the call sequences differ or some call's observed sensitivity exceeds its
        declared one (beyond floating-point rounding).
    statistic : float
        The largest ratio observed / declared sensitivity over the compared calls (0.0 without
        calls; inf for a changed value of a call that declared no sensitivity).
    sequences_match : bool
        The two runs made the same calls: same number, and at every position the same
        mechanism, norm, shape, scale and declared sensitivity.
    first_mismatch : int or None
        Position of the first call that differs (or the length of the shorter sequence when
        one is a prefix of the other); None if the sequences match.
    mismatch : str
        What differs there, with the callers ("" if the sequences match): data-dependent
        control flow outside a mechanism.
    n_calls, n_calls_prime : int
        Calls of the run on D and on D′.
    worst_call : int or None
        Position of the call with the largest ratio (None without compared calls).
    table : pandas.DataFrame
        One row per compared call (the calls before ``first_mismatch``): ``call``,
        ``mechanism``, ``caller``, ``norm``, ``shape``, ``scale``, ``declared``, ``observed``,
        ``ratio``, ``violation``. In :meth:`to_dict` as a list of row dicts.
    """

    violation: bool
    statistic: float
    sequences_match: bool
    first_mismatch: int | None
    mismatch: str
    n_calls: int
    n_calls_prime: int
    worst_call: int | None
    table: pd.DataFrame = field(repr=False)

    def to_dict(self) -> dict:
        """The fields as plain Python values, ``table`` as a list of row dicts."""
        out = super().to_dict()
        out["table"] = json_value(self.table.to_dict(orient="records"))
        return out


_TABLE_COLUMNS = (
    "call",
    "mechanism",
    "caller",
    "norm",
    "shape",
    "scale",
    "declared",
    "observed",
    "ratio",
    "violation",
)


def compare_replays(
    calls_d: Sequence[MechanismCall],
    calls_d_prime: Sequence[MechanismCall],
    *,
    rtol: float = 1e-9,
) -> ReplayResult:
    """Compare the mechanism calls of a run on D with those of a run on a neighbour D′.

    Parameters
    ----------
    calls_d, calls_d_prime : sequence of MechanismCall
        The lists of :func:`record_mechanisms` of the two runs, made with the same randomness
        (and, for the second, ``replay=calls_d`` to freeze the outputs).
    rtol : float ≥ 0
        Relative tolerance for floating-point rounding: two scales (or declared sensitivities)
        match when they differ by at most ``rtol`` × the larger; a call violates its declared
        sensitivity Δ when the observed distance exceeds Δ + ``rtol``·(Δ + m), m the largest
        finite ``|entry|`` of the two values (the rounding of a difference of large numbers).

    Returns
    -------
    ReplayResult
        The first mismatch of the sequences, and per compared call the observed sensitivity
        ‖f(D) − f(D′)‖ in the call's norm against the declared one.

    Raises
    ------
    TypeError
        A sequence holds something else than :class:`MechanismCall`.
    ValueError
        ``rtol`` negative or not finite.

    Notes
    -----
    A call that declared no sensitivity (NaN) violates when its value changed. Source:
    Cebere et al. (2026) [``cebere2026``], §4: the sequence check (data-dependent control
    flow) and the sensitivity check (their Δ_actual ≤ Δ_declared).

    Examples
    --------
    >>> from synthtrust.privacy import laplace
    >>> with record_mechanisms() as d:
    ...     _ = laplace([3.0, 4.0], sensitivity=1.0, epsilon=1.0, random_state=0)
    >>> with record_mechanisms(replay=d) as d_prime:   # one record moved: two counts change
    ...     _ = laplace([2.0, 5.0], sensitivity=1.0, epsilon=1.0, random_state=0)
    >>> result = compare_replays(d, d_prime)
    >>> result.violation, result.statistic
    (True, 2.0)
    """
    for name, calls in (("calls_d", calls_d), ("calls_d_prime", calls_d_prime)):
        if isinstance(calls, (str, bytes)) or not isinstance(calls, Sequence):
            raise TypeError(
                f"{name} must be a sequence of MechanismCall, got {type(calls).__name__}"
            )
        for c in calls:
            if not isinstance(c, MechanismCall):
                raise TypeError(f"{name} must hold MechanismCall objects, got {type(c).__name__}")
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)) or not math.isfinite(rtol):
        raise ValueError(f"rtol must be a finite number >= 0, got {rtol!r}")
    if rtol < 0:
        raise ValueError(f"rtol must be a finite number >= 0, got {rtol!r}")

    first, mismatch = None, ""
    for i, (a, b) in enumerate(zip(calls_d, calls_d_prime, strict=False)):
        diff = _difference(a, b, rtol)
        if diff is not None:
            first = i
            mismatch = f"call {i}: {diff} (callers {a.caller} / {b.caller})"
            break
    if first is None and len(calls_d) != len(calls_d_prime):
        first = min(len(calls_d), len(calls_d_prime))
        longer = calls_d if len(calls_d) > len(calls_d_prime) else calls_d_prime
        mismatch = (
            f"{len(calls_d)} calls on D, {len(calls_d_prime)} on D′; the first extra one is "
            f"{longer[first].mechanism} from {longer[first].caller}"
        )
    rows = []
    for i, (a, b) in enumerate(zip(calls_d, calls_d_prime, strict=False)):
        if first is not None and i >= first:
            break
        observed = observed_sensitivity(a.value, b.value, a.norm)
        declared = a.sensitivity
        if math.isnan(declared):
            ratio = 0.0 if observed == 0 else math.inf
            bad = observed > 0
        else:
            finite = [np.abs(v[np.isfinite(v)]) for v in (a.value, b.value)]
            size = max((float(f.max()) for f in finite if f.size), default=0.0)
            bad = observed > declared + rtol * (declared + size)
            ratio = observed / declared if declared > 0 else (0.0 if observed == 0 else math.inf)
        rows.append(
            (i, a.mechanism, a.caller, a.norm, a.shape, a.scale, declared, observed, ratio, bad)
        )
    table = pd.DataFrame(rows, columns=list(_TABLE_COLUMNS))
    table = table.astype({"call": np.int64, "violation": bool}) if rows else table
    if rows:
        worst = int(table["ratio"].to_numpy().argmax())
        statistic = float(table["ratio"].iloc[worst])
        any_bad = bool(table["violation"].any())
    else:
        worst, statistic, any_bad = None, 0.0, False
    return ReplayResult(
        violation=bool(first is not None or any_bad),
        statistic=statistic,
        sequences_match=first is None,
        first_mismatch=first,
        mismatch=mismatch,
        n_calls=len(calls_d),
        n_calls_prime=len(calls_d_prime),
        worst_call=worst,
        table=table,
    )

"""The grey-box replay audit of a generator (``synthtrust dp-audit --mode replay``).

Where the distinguishing game (:mod:`.game`) looks at the generator's output only, the replay
looks inside: it fits the generator on D and on its neighbour D′ (the pair of :mod:`.canary`,
under the claim's neighbouring relation) with the same ``random_state``, records every noisy
measurement it makes, and compares the two records (Cebere, Erb, Desfontaines, Bellet &
Fitzsimons 2026 [``cebere2026``], §4):

* the calls of :mod:`synthtrust.privacy` (its mechanisms, PATE's teacher votes, GS-WGAN's
  gradient sanitiser) are recorded by :func:`synthtrust.privacy.replay.record_mechanisms`; the
  run on D′ replays the outputs of D's calls (:func:`~synthtrust.privacy.replay.compare_replays`);
* noise a class draws with numpy itself — ``laplace``, ``normal`` or ``standard_normal`` of the
  ``numpy.random.Generator`` it is given as ``random_state`` (or of one spawned or copied from
  it) — is recorded by :class:`RecordingGenerator`: the draw is returned as an array that, when
  added to (or subtracted from) the query, ``counts + noise``, records the other operand as the
  query value; ``loc=counts`` is the query value itself; multiplying the noise by a constant
  scales the recorded noise scale. In the run on D′ the noisy sum is D's (frozen outputs, as for
  the mechanisms), so that post-processing of noisy values takes the same branches.

A **violation** is any of: the two runs make different sequences of calls (data-dependent
control flow outside a mechanism); a call's observed sensitivity ‖f(D) − f(D′)‖ exceeds the one
it declared; the privacy loss the recorded calls imply with their *observed* sensitivities
exceeds the claim. The implied loss: Laplace-type calls (Laplace, discrete Laplace, numpy's
Laplace draws) cost ε = Δ_obs / b, the exponential mechanism its ε × Δ_obs / Δ_declared;
Gaussian-type calls (the Gaussian mechanism, numpy's normal draws) cost ρ = Δ₂² / (2σ²) in zCDP.
Pure ε adds up; with Gaussian calls the loss is the smaller of ε_pure + ε(ρ_Gauss, δ) and
ε(ρ_all, δ), the pure calls as ε²/2-zCDP (ε²/8 for the exponential mechanism), each ε(ρ, δ) by
:func:`synthtrust.privacy.cdp_epsilon`. PATE's votes and the gradient sanitiser are accounted
by their own accountants: they are checked on their sensitivity only. A raw numpy draw declares
no sensitivity, so for it the implied loss is the check.

One pair of neighbours can refute a claim, never prove it: "no violation detected" means only
that this pair, with this seed, shows nothing.

References
----------
Cebere, Erb, Desfontaines, Bellet & Fitzsimons (2026), "Privacy in theory, bugs in practice:
grey-box auditing of differential privacy libraries", PETS 2026, §4 [``cebere2026``].
"""

from __future__ import annotations

import copy
import math
import sys
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import ResultMixin, json_value
from .._validation import check_nonnegative_int, check_real
from ..privacy.accounting import cdp_epsilon
from ..privacy.replay import MechanismCall, compare_replays, record_mechanisms
from ._generator import fresh_generator
from .canary import NEIGHBOURING, Worlds, worst_case
from .game import declared_relation

__all__ = ["REPLAY_VERDICTS", "RecordingGenerator", "ReplayAuditResult", "replay_audit"]

#: The verdicts of a replay audit.
REPLAY_VERDICTS = ("violation", "no violation detected", "nothing recorded")

#: Relative tolerance of the comparisons (floating-point rounding, as compare_replays).
_RTOL = 1e-9
#: Mechanisms whose loss is pure ε (Δ_obs / scale), and those in zCDP (Δ₂² / 2σ²).
_LAPLACE = ("laplace", "discrete_laplace", "numpy.laplace")
_EXPONENTIAL = ("exponential_mechanism", "exponential_mechanism_counts")
_GAUSSIAN = ("gaussian", "numpy.normal", "numpy.standard_normal")
_PRIVACY = "synthtrust.privacy"


# --------------------------------------------------------------------------------------------
# recording numpy's noise draws
# --------------------------------------------------------------------------------------------
@dataclass(eq=False)
class _Draw:
    """One noise draw of a :class:`RecordingGenerator`, and the queries it was added to."""

    index: int
    mechanism: str
    norm: str
    scale: float
    shape: tuple
    position: int  # calls of synthtrust.privacy recorded before it
    caller: str
    loc: np.ndarray
    pieces: list = field(default_factory=list)  # the query values it was added to
    outputs: list = field(default_factory=list)  # the noisy sums
    factor: float | None = None  # the constant the draw was multiplied by
    tape: _Tape | None = field(default=None, repr=False)

    def signature(self) -> tuple:
        return (self.mechanism, self.scale, self.shape, self.position)

    def call(self) -> MechanismCall:
        """The draw as a :class:`MechanismCall` that declares no sensitivity."""
        if not self.pieces:
            value = np.broadcast_to(self.loc, self.shape).astype(float)
        elif len(self.pieces) == 1:
            value = self.pieces[0]
        else:  # added piece by piece (e.g. a slice at a time): one query of all pieces
            value = np.concatenate([np.ravel(p) for p in self.pieces])
        return MechanismCall(
            mechanism=self.mechanism,
            norm=self.norm,
            sensitivity=math.nan,
            scale=self.scale * (1.0 if self.factor is None else self.factor),
            shape=tuple(value.shape),
            value=value,
            caller=self.caller,
            output=list(self.outputs),
        )


class _Tape:
    """The draws of one fit (shared by a generator and those spawned or copied from it), the
    list of :func:`record_mechanisms` they interleave with, and the draws of the run on D they
    replay."""

    def __init__(self, replay: list[_Draw] | None = None):
        self.draws: list[_Draw] = []
        self.calls: list = []
        self.replay = replay
        self.diverged = False

    def append(self, draw: _Draw) -> None:
        self.draws.append(draw)
        if self.replay is not None and not self.diverged:
            j = draw.index
            if j >= len(self.replay) or self.replay[j].signature() != draw.signature():
                self.diverged = True

    def attach(self, draw: _Draw, value: np.ndarray, output: np.ndarray, factor: float):
        """Record that ``output = value + noise``; return the output to give back (D's, in a
        replay that has matched so far), or None for ``output`` itself."""
        draw.pieces.append(np.array(value, dtype=float, copy=True))
        draw.outputs.append(np.array(output, copy=True))
        if draw.factor is None:
            draw.factor = factor
        if self.replay is None or self.diverged:
            return None
        ref = self.replay[draw.index]
        k = len(draw.pieces) - 1
        if k >= len(ref.outputs) or np.shape(ref.outputs[k]) != np.shape(output):
            self.diverged = True
            return None
        return np.array(ref.outputs[k], copy=True)


def _inside_privacy() -> bool:
    """A frame of :mod:`synthtrust.privacy` is on the stack: its mechanisms record the draw."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith(_PRIVACY):
            return True
        frame = frame.f_back
    return False


def _caller() -> str:
    """``module.qualname`` of the first frame outside this module."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    if frame is None:
        return "?"
    return f"{frame.f_globals.get('__name__', '?')}.{frame.f_code.co_qualname}"


def _plain(x):
    return x.view(np.ndarray) if isinstance(x, _Noise) else x


def _unwrap(result):
    return result[()] if isinstance(result, np.ndarray) and result.ndim == 0 else result


class _Noise(np.ndarray):
    """Noise drawn by a :class:`RecordingGenerator`, not yet added to a query: adding it to an
    array records that array as the query value of its draw (module docstring)."""

    _draw: _Draw | None = None
    _factor: float = 1.0

    def __array_finalize__(self, obj):
        self._draw = getattr(obj, "_draw", None)
        self._factor = getattr(obj, "_factor", 1.0)

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        tagged = [i for i, x in enumerate(inputs) if isinstance(x, _Noise) and x._draw is not None]
        plain = [_plain(x) for x in inputs]
        adds = method == "__call__" and ufunc in (np.add, np.subtract) and len(inputs) == 2
        query = None
        if adds and len(tagged) == 1:  # copied first: ``counts += noise`` overwrites it
            try:
                query = np.array(plain[1 - tagged[0]], dtype=float, copy=True)
            except (TypeError, ValueError):  # not a numeric query: the draw stays unattached
                query = None
        if out is not None:
            kwargs["out"] = tuple(_plain(o) for o in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        if method != "__call__" or len(tagged) != 1 or isinstance(result, tuple):
            return self._returned(result, out)
        noise = inputs[tagged[0]]
        if adds:
            return self._added(noise, query, result, out)
        scaled = self._scaled(ufunc, inputs, tagged[0])
        if scaled is None:
            return self._returned(result, out)
        tagged_result = np.asarray(result).view(_Noise)
        tagged_result._draw, tagged_result._factor = noise._draw, noise._factor * scaled
        return tagged_result

    @staticmethod
    def _returned(result, out):
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _unwrap(result)

    @staticmethod
    def _scaled(ufunc, inputs, i) -> float | None:
        """The factor of ``c * noise``, ``noise / c`` or ``-noise`` (None for anything else)."""
        if ufunc in (np.negative, np.positive) and len(inputs) == 1:
            return 1.0
        if len(inputs) != 2 or ufunc not in (np.multiply, np.true_divide):
            return None
        if ufunc is np.true_divide and i == 1:
            return None
        try:
            c = np.abs(np.asarray(inputs[1 - i], dtype=float))
        except (TypeError, ValueError):
            return None
        if c.size == 0 or not np.all(np.isfinite(c)) or not np.all(c > 0):
            return None
        # conservative for the implied loss: the smallest scale the noise can have
        return float(c.min()) if ufunc is np.multiply else 1.0 / float(c.max())

    def _added(self, noise: _Noise, query, result, out):
        draw = noise._draw
        if query is None:
            return self._returned(result, out)
        value = np.broadcast_to(query, np.shape(result))
        tape = draw.tape
        frozen = tape.attach(draw, value, result, noise._factor)
        if out is not None:
            for o in out:
                if isinstance(o, _Noise) and o._draw is draw:
                    o._draw = None  # ``noise += counts``: the array is now a noisy answer
            if frozen is not None:
                _plain(out[0])[...] = frozen
            return self._returned(result, out)
        return _unwrap(np.asarray(result) if frozen is None else frozen)


class RecordingGenerator(np.random.Generator):
    """A ``numpy.random.Generator`` whose noise draws the replay audit records.

    Its random stream is that of ``numpy.random.default_rng(seed)``: ``laplace``, ``normal``
    and ``standard_normal`` return the same numbers, as an ndarray subclass that records the
    array it is added to as the query value of the draw (module docstring). Draws made inside
    :mod:`synthtrust.privacy` are plain (its mechanisms record their calls themselves).
    Generators spawned from it (``spawn``) or copied (``copy.deepcopy``, as
    ``sklearn.base.clone`` does) record into the same tape.

    Parameters
    ----------
    seed : int or numpy.random.BitGenerator
        An int seeds a PCG64 bit generator, as ``numpy.random.default_rng``.
    tape : optional
        Where the draws go (set by :func:`replay_audit`, shared with the generators spawned or
        copied from this one); None: a tape of its own.

    Attributes
    ----------
    draws : list of MechanismCall
        The draws recorded so far, each with the query it was added to (``value``; its
        ``loc`` while it was added to none), ``sensitivity`` NaN and ``mechanism``
        ``"numpy.laplace"``, ``"numpy.normal"`` or ``"numpy.standard_normal"``.

    Examples
    --------
    >>> rng = RecordingGenerator(0)
    >>> counts = np.array([11.0, 0.0])
    >>> noisy = counts + rng.laplace(0.0, 2.0, size=2)
    >>> bool(np.all(noisy == counts + np.random.default_rng(0).laplace(0.0, 2.0, size=2)))
    True
    >>> rng.draws[0].mechanism, rng.draws[0].scale, rng.draws[0].value.tolist()
    ('numpy.laplace', 2.0, [11.0, 0.0])
    """

    def __init__(self, seed, tape: _Tape | None = None):
        bits = seed if isinstance(seed, np.random.BitGenerator) else np.random.PCG64(seed)
        super().__init__(bits)
        self._tape = _Tape() if tape is None else tape

    @property
    def draws(self) -> list[MechanismCall]:
        return [d.call() for d in self._tape.draws]

    def spawn(self, n_children):
        """numpy's ``spawn``; the children record into the same tape."""
        children = super().spawn(n_children)
        for child in children:
            child._tape = self._tape
        return children

    def __deepcopy__(self, memo):
        return RecordingGenerator(copy.deepcopy(self.bit_generator, memo), self._tape)

    def __reduce__(self):  # a pickled copy (e.g. sent to a worker) records nothing
        return (np.random.Generator, (self.bit_generator,))

    def _record(self, mechanism: str, norm: str, values, loc, scale):
        tape = self._tape
        if _inside_privacy():
            return values
        shape = np.shape(values)
        draw = _Draw(
            index=len(tape.draws),
            mechanism=f"numpy.{mechanism}",
            norm=norm,
            scale=float(np.min(scale)) if np.size(scale) else math.nan,
            shape=tuple(shape),
            position=len(tape.calls),
            caller=_caller(),
            loc=np.broadcast_to(np.asarray(loc, dtype=float), shape).copy(),
            tape=tape,
        )
        tape.append(draw)
        if np.any(draw.loc != 0):  # ``loc=counts``: the draw is the noisy answer
            frozen = tape.attach(draw, draw.loc, values, 1.0)
            return values if frozen is None else _unwrap(frozen)
        noise = np.array(values, dtype=float).view(_Noise)
        noise._draw = draw
        return noise

    def laplace(self, loc=0.0, scale=1.0, size=None):
        """numpy's ``laplace``, recorded (class docstring)."""
        values = super().laplace(loc, scale, size)
        return self._record("laplace", "l1", values, loc, scale)

    def normal(self, loc=0.0, scale=1.0, size=None):
        """numpy's ``normal``, recorded (class docstring)."""
        values = super().normal(loc, scale, size)
        return self._record("normal", "l2", values, loc, scale)

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        """numpy's ``standard_normal``, recorded when it returns a new float64 array."""
        values = super().standard_normal(size, dtype=dtype, out=out)
        if out is not None or np.dtype(dtype) != np.float64:
            return values
        return self._record("standard_normal", "l2", values, 0.0, 1.0)


# --------------------------------------------------------------------------------------------
# the two runs
# --------------------------------------------------------------------------------------------
@dataclass
class _Run:
    calls: list  # of synthtrust.privacy
    draws: list  # of the RecordingGenerator
    fit_marks: tuple  # (calls, draws) made by fit
    warning: str
    holds_rng: bool
    int_seed: bool = False  # the generator refused a Generator as random_state

    def merged(self) -> tuple[list[MechanismCall], list[str]]:
        """Both records in call order, and each call's phase ("fit" or "sample")."""
        out, phases, j = [], [], 0
        for k in range(len(self.calls) + 1):
            while j < len(self.draws) and self.draws[j].position <= k:
                out.append(self.draws[j].call())
                phases.append("fit" if j < self.fit_marks[1] else "sample")
                j += 1
            if k < len(self.calls):
                out.append(self.calls[k])
                phases.append("fit" if k < self.fit_marks[0] else "sample")
        return out, phases


def _run(generator, params, worlds: Worlds, world: int, seed: int, n_synthetic: int, replay=None):
    """One fit (and sample) on D (``world`` 0) or D′ (1) with every call recorded; the run on
    D′ replays the run on D. A generator that refused the :class:`RecordingGenerator` on D
    (``int_seed``) gets the int ``seed`` instead, on D and D′."""
    int_seed = replay is not None and replay.int_seed
    try:
        return _run_once(generator, params, worlds, world, seed, n_synthetic, replay, int_seed)
    except (TypeError, ValueError):
        if replay is not None or int_seed:
            raise
    # e.g. np.random.RandomState(random_state): the same fit with the int seed (what the game
    # passes); the noise drawn by synthtrust.privacy is still recorded, numpy's is not
    return _run_once(generator, params, worlds, world, seed, n_synthetic, None, True)


def _run_once(generator, params, worlds, world, seed, n_synthetic, replay, int_seed) -> _Run:
    tape = _Tape(None if replay is None else replay.draws)
    rng = seed if int_seed else RecordingGenerator(seed, tape)
    gen = fresh_generator(generator, params, worlds.domain, rng)
    holds = not int_seed and any(v is rng for v in getattr(gen, "__dict__", {}).values())
    data = (worlds.with_canary if world else worlds.without).copy()
    with (
        warnings.catch_warnings(record=True) as caught,
        record_mechanisms(replay=None if replay is None else replay.calls) as calls,
    ):
        warnings.simplefilter("always")
        tape.calls = calls
        gen.fit(data)
        marks = (len(calls), len(tape.draws))
        if n_synthetic:
            gen.sample(n_synthetic)
        calls = list(calls)
    warning = str(caught[0].message) if caught else ""
    return _Run(calls, tape.draws, marks, warning, holds, int_seed)


# --------------------------------------------------------------------------------------------
# the result
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ReplayAuditResult(ResultMixin):
    """The outcome of :func:`replay_audit`.

    Attributes
    ----------
    verdict : {"violation", "no violation detected", "nothing recorded"}
        "nothing recorded": neither run made a recorded call (noise drawn some other way, or
        none at all); the replay cannot check such a generator.
    reasons : tuple of str
        Why it is a violation (empty otherwise).
    generator : str
        ``module:Class`` of the audited generator.
    params : dict
        Its constructor parameters (``random_state`` aside: the seed).
    epsilon, delta : float
        The claim.
    neighbouring : {"add_remove", "replace_one"}
    datasets : dict
        D and D′: ``source``, ``records_d``, ``records_d_prime``, ``canary``, ``removed`` (the
        record of D that D′ replaces, None under add/remove), ``domain``.
    random_state : int
        The seed of both runs.
    n_synthetic : int
        Rows sampled after each fit (0: fit only).
    n_calls, n_calls_prime : int
        Recorded calls on D and on D′.
    sequences_match : bool
    first_mismatch : int or None
    mismatch : str
        As :class:`synthtrust.privacy.replay.ReplayResult`.
    statistic : float
        The largest observed / declared sensitivity over the calls that declare one.
    implied_epsilon : float
        The ε the compared calls imply with their observed sensitivities (module docstring).
    epsilon_pure : float
        Its pure-ε part (Laplace-type and exponential-mechanism calls).
    rho_gaussian : float
        ρ of its Gaussian-type calls.
    notes : tuple of str
        What the audit could not see (calls accounted elsewhere, draws never added to a query,
        a generator that did not keep the Generator it was given, a warning of the fits).
    table : pandas.DataFrame
        One row per compared call: ``call``, ``phase``, ``mechanism``, ``caller``, ``norm``,
        ``shape``, ``scale``, ``declared`` (NaN: none declared), ``observed``, ``ratio``,
        ``epsilon`` and ``rho`` (its implied loss), ``violation`` (observed > declared). In
        :meth:`to_dict` as a list of row dicts.
    """

    verdict: str
    reasons: tuple
    generator: str
    params: dict
    epsilon: float
    delta: float
    neighbouring: str
    datasets: dict
    random_state: int
    n_synthetic: int
    n_calls: int
    n_calls_prime: int
    sequences_match: bool
    first_mismatch: int | None
    mismatch: str
    statistic: float
    implied_epsilon: float
    epsilon_pure: float
    rho_gaussian: float
    notes: tuple
    table: pd.DataFrame = field(repr=False)

    def to_dict(self) -> dict:
        """The fields as plain Python values, ``table`` as a list of row dicts."""
        out = super().to_dict()
        out["table"] = json_value(self.table.to_dict(orient="records"))
        return out

    def summary(self) -> str:
        """One line: the verdict and its first reason (or what was checked)."""
        if self.verdict == "violation":
            more = f" (+{len(self.reasons) - 1} more)" if len(self.reasons) > 1 else ""
            return f"verdict: violation; {self.reasons[0]}{more}"
        if self.verdict == "nothing recorded":
            return (
                "verdict: nothing recorded; neither fit made a call of synthtrust.privacy or "
                "drew numpy noise from its random_state, so the replay cannot check it"
            )
        declared = int(self.table["declared"].notna().sum())
        ratio = f", observed/declared sensitivity <= {self.statistic:.3g}" if declared else ""
        return (
            f"verdict: no violation detected; {self.n_calls} call(s) identical on D and D′"
            f"{ratio}, implied epsilon {self.implied_epsilon:.4g} <= claim {self.epsilon:g}"
        )


def _costs(row, call: MechanismCall) -> tuple[float, float]:
    """(ε, ρ) a compared call implies with its observed sensitivity (NaN: not accounted here)."""
    observed, scale, mech = row.observed, row.scale, row.mechanism
    if mech in _LAPLACE:
        eps = observed / scale if scale > 0 else (0.0 if observed == 0 else math.inf)
        return eps, eps * eps / 2
    if mech in _EXPONENTIAL:
        budget = call.epsilon if call.epsilon is not None else scale
        eps = budget * row.ratio if row.ratio > 0 else 0.0
        return eps, eps * eps / 8  # bounded range (Cesar & Rogers 2021)
    if mech in _GAUSSIAN:
        rho = observed**2 / (2 * scale**2) if scale > 0 else (0.0 if observed == 0 else math.inf)
        return math.nan, rho
    return math.nan, math.nan  # PATE votes, the gradient sanitiser: their own accountants


def _implied(eps_pure: float, rho_gauss: float, rho_all: float, delta: float) -> float:
    """The implied ε: pure ε adds up; Gaussian calls need δ > 0 (module docstring)."""
    if not math.isfinite(eps_pure) or not math.isfinite(rho_all):
        return math.inf
    if rho_gauss == 0:
        split = eps_pure
    else:
        split = eps_pure + cdp_epsilon(rho_gauss, delta) if delta > 0 else math.inf
    zcdp = cdp_epsilon(rho_all, delta) if delta > 0 else math.inf
    return min(split, zcdp)


def _compare(d: _Run, d_prime: _Run, epsilon: float, delta: float):
    calls_d, phases = d.merged()
    calls_p, _ = d_prime.merged()
    replay = compare_replays(calls_d, calls_p, rtol=_RTOL)
    table = replay.table.copy()
    n = len(table)
    table.insert(1, "phase", phases[:n])
    costs = [_costs(row, calls_d[i]) for i, row in enumerate(table.itertuples())]
    table["epsilon"] = [c[0] for c in costs]
    table["rho"] = [c[1] for c in costs]
    declared = table["declared"].to_numpy(float) if n else np.zeros(0)
    table["violation"] = (table["violation"].to_numpy(bool) & ~np.isnan(declared)) if n else []
    if n:  # no declared sensitivity, no ratio: the implied loss checks these calls
        table["ratio"] = np.where(np.isnan(declared), np.nan, table["ratio"].to_numpy(float))
    gauss = table["mechanism"].isin(_GAUSSIAN) if n else pd.Series([], dtype=bool)
    eps_pure = float(np.nansum(table["epsilon"])) if n else 0.0
    rho_gauss = float(table.loc[gauss, "rho"].sum()) if n else 0.0
    rho_all = float(np.nansum(table["rho"])) if n else 0.0
    implied = _implied(eps_pure, rho_gauss, rho_all, delta)
    ratios = table.loc[~np.isnan(declared), "ratio"] if n else pd.Series([], dtype=float)
    statistic = float(ratios.max()) if len(ratios) else 0.0
    return replay, table, implied, eps_pure, rho_gauss, statistic


def _reasons(replay, table, implied, epsilon, delta) -> list[str]:
    out = []
    if not replay.sequences_match:
        out.append(
            f"the calls differ between D and D′ (data-dependent control flow): {replay.mismatch}"
        )
    for row in table[table["violation"]].itertuples():
        out.append(
            f"call {row.call} ({row.mechanism} from {row.caller}): observed {row.norm} "
            f"sensitivity {row.observed:.4g} > declared {row.declared:.4g}"
        )
    if implied > epsilon * (1 + _RTOL) + _RTOL:
        gauss = bool(table["mechanism"].isin(_GAUSSIAN).any()) if len(table) else False
        why = " (Gaussian noise with delta = 0)" if gauss and delta == 0 else ""
        out.append(
            f"the recorded calls with their observed sensitivities imply epsilon = "
            f"{implied:.4g} > claim {epsilon:g}{why}"
        )
    return out


def _notes(d: _Run, d_prime: _Run, table) -> list[str]:
    out = []
    if d.int_seed:
        out.append(
            "the generator refused a numpy Generator as random_state and got the int seed: "
            "noise it draws with numpy is not recorded"
        )
    elif not d.holds_rng:
        out.append(
            "the generator did not keep the random_state Generator it was given: numpy noise it "
            "draws otherwise is not recorded"
        )
    unattached = [x.index for x in d.draws if not x.pieces]
    if unattached:
        out.append(
            f"{len(unattached)} numpy draw(s) on D were never added to an array, so their query "
            "is taken as their loc (e.g. sampling noise, or noise transformed before it was added)"
        )
    elsewhere = sorted(set(table.loc[table["epsilon"].isna() & table["rho"].isna(), "mechanism"]))
    if elsewhere:
        out.append(
            f"{', '.join(elsewhere)}: accounted by its own accountant, checked on its "
            "sensitivity only, not in the implied epsilon"
        )
    for run, name in ((d, "D"), (d_prime, "D′")):
        if run.warning:
            out.append(f"the run on {name} warned: {run.warning}")
    return out


def _name(generator) -> tuple[str, dict]:
    spec, params = getattr(generator, "spec", None), getattr(generator, "params", None)
    if isinstance(spec, str) and isinstance(params, dict):  # a module:Class factory
        return spec, params
    cls = generator if isinstance(generator, type) else type(generator)
    return f"{cls.__module__}:{cls.__qualname__}", {}


def replay_audit(
    generator,
    epsilon: float,
    *,
    delta: float = 0.0,
    neighbouring: str | None = None,
    worlds: Worlds | None = None,
    generator_params: dict | None = None,
    n_synthetic: int | None = None,
    random_state: int = 0,
    source: str = "",
) -> ReplayAuditResult:
    """The replay audit: fit ``generator`` on D and D′ with one seed and compare what the two
    fits measure (module docstring).

    Parameters
    ----------
    generator : class, factory or unfitted estimator
        As :func:`synthtrust.dp_audit.dp_audit` (a class is built with ``random_state`` and,
        if it takes one, the pair's ``domain``).
    epsilon : float > 0
        The claimed ε.
    delta : float in [0, 1)
        The claimed δ (needed for Gaussian noise).
    neighbouring : {"add_remove", "replace_one"} or None
        The relation of the claim; None: the generator's ``neighbouring`` attribute.
    worlds : Worlds or None
        D and D′; None: :func:`~synthtrust.dp_audit.worst_case` under ``neighbouring``.
    generator_params : dict or None
        Constructor parameters of a class ``generator`` (not ``random_state``: the replay sets
        it).
    n_synthetic : int >= 0 or None
        Rows sampled after each fit, whose calls are recorded too; None: ``len(D′)``; 0: none.
    random_state : int >= 0
        The seed of both runs: the generator receives a :class:`RecordingGenerator` on it.
    source : str
        Where D comes from, for the report (default: the worst case, or "worlds given").

    Returns
    -------
    ReplayAuditResult

    Raises
    ------
    ValueError
        A bad parameter; no relation given nor declared; ``generator_params`` set
        ``random_state``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from synthtrust.privacy import laplace
    >>> class Histogram:
    ...     def __init__(self, domain, random_state=None):
    ...         self.domain, self.random_state = domain, random_state
    ...     def fit(self, X):
    ...         cells = np.ravel_multi_index(X.to_numpy().T, tuple(self.domain.values()))
    ...         counts = np.bincount(cells, minlength=8)
    ...         rng = self.random_state
    ...         self.noisy_ = laplace(counts, sensitivity=2, epsilon=1.0, random_state=rng)
    ...         return self
    ...     def sample(self, n):
    ...         return pd.DataFrame({c: np.zeros(n, int) for c in self.domain})
    >>> result = replay_audit(Histogram, 1.0, neighbouring="replace_one")
    >>> result.verdict, result.implied_epsilon
    ('no violation detected', 1.0)
    """
    epsilon = check_real(epsilon, "epsilon", low=0.0, low_open=True)
    delta = check_real(delta, "delta", low=0.0, high=1.0, high_open=True)
    random_state = check_nonnegative_int(random_state, "random_state")
    params = dict(generator_params or {})
    if "random_state" in params:
        raise ValueError("generator_params must not set random_state: the replay sets it")
    relation = neighbouring if neighbouring is not None else declared_relation(generator)
    relation = str(relation).replace("-", "_")
    if relation not in NEIGHBOURING:
        raise ValueError(f"neighbouring must be one of {NEIGHBOURING}, got {relation!r}")
    if worlds is None:
        worlds = worst_case(relation)
        source = source or f"worst case: {len(worlds.with_canary) - 1} base records"
    elif worlds.neighbouring != relation:
        raise ValueError(
            f"worlds are {worlds.neighbouring} neighbours, the claim is under {relation}"
        )
    if n_synthetic is None:
        n_synthetic = len(worlds.with_canary)
    n_synthetic = check_nonnegative_int(n_synthetic, "n_synthetic")

    d = _run(generator, params, worlds, 0, random_state, n_synthetic)
    d_prime = _run(generator, params, worlds, 1, random_state, n_synthetic, replay=d)
    replay, table, implied, eps_pure, rho_gauss, statistic = _compare(d, d_prime, epsilon, delta)
    reasons = _reasons(replay, table, implied, epsilon, delta)
    if reasons:
        verdict = "violation"
    elif replay.n_calls == 0 and replay.n_calls_prime == 0:
        verdict = "nothing recorded"
    else:
        verdict = "no violation detected"
    name, factory_params = _name(generator)
    return ReplayAuditResult(
        verdict=verdict,
        reasons=tuple(reasons),
        generator=name,
        params={**factory_params, **params},
        epsilon=float(epsilon),
        delta=float(delta),
        neighbouring=relation,
        datasets={
            "source": source or "worlds given",
            "records_d": len(worlds.without),
            "records_d_prime": len(worlds.with_canary),
            "canary": worlds.canary,
            "removed": worlds.removed,
            "domain": worlds.domain,
        },
        random_state=random_state,
        n_synthetic=n_synthetic,
        n_calls=replay.n_calls,
        n_calls_prime=replay.n_calls_prime,
        sequences_match=replay.sequences_match,
        first_mismatch=replay.first_mismatch,
        mismatch=replay.mismatch,
        statistic=statistic,
        implied_epsilon=implied,
        epsilon_pure=eps_pure,
        rho_gaussian=rho_gauss,
        notes=tuple(_notes(d, d_prime, table)),
        table=table,
    )

"""Chapter 6, "The book's own promises": the audit turned on the package's own ε claims.

- :func:`gswgan_nominal_table`: chapter 1's GS-WGAN rows, labelled with the nominal ε of
  GS-WGAN's reference accounting (Chen et al. 2020 [``chen2020``], [``gswgan2022``]; Montoya
  Perez et al. 2024 [``montoyaperez2024``], §4.2), against the true ε of the iterations they
  ran: an analytic lower bound (the worst case of one iteration, optimistic PLD) and the
  standard analysis's upper bound (pessimistic PLD);
- :func:`replay_table`: every DP release of the book fitted on the worst-case pair D, D′ of
  :func:`synthtrust.dp_audit.worst_case` under its declared relation, both fits with the same
  ``random_state``, the run on D′ replaying D's mechanism outputs, and the two records of
  mechanism calls compared (the grey-box replay of Cebere, Erb, Desfontaines, Bellet &
  Fitzsimons 2026 [``cebere2026``], §4: :func:`synthtrust.privacy.record_mechanisms`,
  :func:`synthtrust.privacy.compare_replays`), with a planted halved-sensitivity twin as the
  positive control;
- :data:`REPLAYED`: the releases :func:`replay_table` knows.

Both tables run their cells through :func:`~synthtrust.run.experiment.run_grid` (``n_jobs``,
``dask``, ``cache_dir``: a rerun reads finished cells from the cache). The verdict rows of both
are built by :func:`synthtrust.studies.dp_auditing.audits.verdict_rows`. ε are in nats.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd

from synthtrust import synthesizers as syn
from synthtrust._jax import import_mbi
from synthtrust._optional import import_if_installed
from synthtrust.dp_audit import worst_case
from synthtrust.dp_audit.planted import SensitivityIgnored
from synthtrust.hypothesis import dp_mannwhitneyu
from synthtrust.privacy.replay import compare_replays, record_mechanisms
from synthtrust.protocols.release import dp_confusion_matrix
from synthtrust.run.experiment import run_grid
from synthtrust.studies.dp_auditing.audits import GENERATORS, REPLAY_CONTROL
from synthtrust.synthesizers.gan import REFERENCE_SETTINGS

__all__ = [
    "NOMINAL_EPSILONS",
    "REPLAYED",
    "REPLAY_GSWGAN",
    "gswgan_nominal_table",
    "nominal_cell",
    "release",
    "replay_cell",
    "replay_table",
    "warm_up",
]

#: The nominal ε of chapter 1's GS-WGAN rows that this chapter checks (its checkpoints 1, 2, 4
#: and 10; the paper's are 1, 2, 3, 4, 5 and 10).
NOMINAL_EPSILONS = (1.0, 2.0, 4.0, 10.0)

#: GS-WGAN's settings in the replay, over those of :data:`~.dp_auditing.GENERATORS`: the
#: audit's settings (σ = 3, B = 32) allow no private iteration on the 11 records of the worst
#: case at ε ≤ 4, so the replay would record nothing; and with several shards the replaced
#: record may sit in a shard never picked (or in none: 5 shards of 2 hold 10 of the 11
#: records), so that no recorded value changes. One shard of all 11 records (K = 1), B = 2 and
#: σ = 50: both accountings allow at least 10 iterations at ε = 1 (89 and 52), and both stop at
#: ``max_iter`` = 10, so the two rows make the same calls and differ only in the ε they
#: account for them.
REPLAY_GSWGAN = {"subset_size": 11, "batch_size": 2, "noise_multiplier": 50.0, "max_iter": 10}


def _gswgan(label: str, **accounting) -> tuple:
    kwargs = {**GENERATORS["gswgan"][3], **REPLAY_GSWGAN, **accounting}
    return (label, "replace_one", syn.GSWGAN, kwargs)


#: The releases :func:`replay_table` fits: name -> (label, declared relation, class or None,
#: constructor arguments beside ``epsilon``, ``domain`` and ``random_state``). The synthesizers
#: of :data:`~.dp_auditing.GENERATORS` with the audit's settings (GS-WGAN with
#: :data:`REPLAY_GSWGAN`, at both accountings), the DP Mann–Whitney U test of chapter 1
#: (Couch et al. 2019 [``couch2019``]; replace-one with n public) and the DP confusion matrix of
#: chapter 3's protocol B (add/remove), which :func:`release` calls on their own inputs, and the
#: positive control :data:`~.dp_auditing.REPLAY_CONTROL`: the planted bug (b) of
#: :mod:`synthtrust.dp_audit.planted`, the perturbed histogram declaring L1 sensitivity 1 under
#: replace-one, where a replaced record moves two cells (the halved-sensitivity twin).
REPLAYED = {
    **{
        name: (label, relation, cls, kwargs)
        for name, (label, cls, relation, kwargs) in GENERATORS.items()
        if name != "gswgan"
    },
    "gswgan": _gswgan("GS-WGAN (standard analysis)"),
    "gswgan_nominal": _gswgan(
        "GS-WGAN (reference accounting, nominal)", composition="per_sample", conversion="classic"
    ),
    "dp_mannwhitneyu": ("DP Mann–Whitney U test", "replace_one", None, {"n_sim": 100}),
    "dp_confusion_matrix": ("DP confusion matrix", "add_remove", None, {}),
    REPLAY_CONTROL: (
        "planted: sensitivity 1 under replace-one",
        "replace_one",
        SensitivityIgnored,
        {},
    ),
}


# --------------------------------------------------------------------------------------------
# GS-WGAN's nominal ε
# --------------------------------------------------------------------------------------------
def nominal_cell(params: dict, rngs: list) -> pd.DataFrame:
    """One nominal ε of :func:`gswgan_nominal_table` (a :func:`~synthtrust.run.experiment.run_grid`
    task; deterministic, ``rngs`` unused but for their number).

    ``params``: ``n`` (records of the original), ``nominal_epsilon``, ``gan`` (GSWGAN
    parameters over :data:`synthtrust.synthesizers.gan.REFERENCE_SETTINGS`). Returns one row
    per replicate: the columns of :meth:`synthtrust.synthesizers.GSWGAN.accounting_table`
    but its ``epsilon``.
    """
    gswgan = syn.GSWGAN(**{**REFERENCE_SETTINGS, **dict(params["gan"] or {})})
    row = gswgan.accounting_table(int(params["n"]), [params["nominal_epsilon"]])
    return pd.concat([row.drop(columns="epsilon")] * len(rngs), ignore_index=True)


def _analytic_verdict(lower: float, upper: float, claim: float) -> str:
    """The true ε lies in [lower, upper]: "violation" if the whole interval exceeds the claim,
    "kept" if none of it does, "undetermined" otherwise."""
    if lower > claim:
        return "violation"
    return "kept" if upper <= claim else "undetermined"


def gswgan_nominal_table(
    n: int = 20000,
    epsilons=NOMINAL_EPSILONS,
    gan: dict | None = None,
    *,
    n_jobs=None,
    dask=None,
    cache_dir=None,
    progress: bool = True,
) -> pd.DataFrame:
    """Chapter 1's GS-WGAN rows: what the reference accounting runs for each nominal ε, and
    what those iterations truly cost.

    Chapter 1 labels its GS-WGAN checkpoints with the ε of GS-WGAN's reference code (each of
    the B sanitised gradients of an iteration counted as its own subsampled Gaussian query,
    RDP with the classic conversion: ``composition="per_sample", conversion="classic"``), as
    the paper did. The B gradients come from one critic, i.e. one subsample, so the standard
    analysis counts one subsampled release of B gradients per iteration; the worst case of
    such an iteration (a critic that pushes all B rows one way) bounds the true ε from below
    (:func:`synthtrust.privacy.rdp.gswgan_epsilon_lower_bound`).

    Parameters
    ----------
    n : int ≥ 1
        Records of chapter 1's original (K = n // 40 critics: 500 at n = 20 000).
    epsilons : sequence of float > 0
        The nominal ε (checkpoint labels) to check.
    gan : dict or None
        GSWGAN parameters over :data:`synthtrust.synthesizers.gan.REFERENCE_SETTINGS`
        (B = 32, σ = 1.07, δ = 1e-5, subsets of 40).
    n_jobs, dask, cache_dir, progress
        As :func:`synthtrust.run.experiment.run_grid` (one task a nominal ε).

    Returns
    -------
    DataFrame
        One row per nominal ε, in increasing order: ``nominal_epsilon``, ``iterations`` (the
        private iterations the reference accounting allows), ``epsilon_spent`` (their nominal
        ε, ≤ the label), ``epsilon_lower_bound`` (the true ε at δ of those iterations is at
        least this: optimistic PLD of the worst case), ``epsilon_upper`` (the standard
        analysis, pessimistic PLD: the true ε is at most this) and ``verdict``: "violation"
        when the lower bound exceeds the nominal ε, "kept" when the upper bound does not,
        "undetermined" between.

    Raises
    ------
    TypeError, ValueError
        As :meth:`synthtrust.synthesizers.GSWGAN.accounting_table` and
        :func:`~synthtrust.run.experiment.run_grid`.

    Notes
    -----
    Both bounds are analytic: exact computations of the PLD accountant (dp-accounting's
    discretisation, pessimistic above and optimistic below), with no replicates and no
    sampling error, so the verdict follows from the interval [lower, upper] itself.

    An empirical audit of GS-WGAN at these iterations is out of reach on this machine. Refuting
    a claim ε with α = 5 % needs a ceiling above it (:func:`~.dp_auditing.fewest_fits`): 48
    fits for ε = 1, but only an attack as strong as the worst case reaches that, and a trained
    critic is not the worst case (black-box audits of GANs are weak: the chapter's audits of
    GS-WGAN bound ε near 0). Showing the true ε of the 15 iterations labelled ε = 1, at least
    29.67, needs a ceiling above 29.67, i.e. about 4·ln(40)·e^29.67 ≈ 1.1e14 fits. One fit of
    chapter 1's GS-WGAN on 20 000 records to nominal ε = 1 (500 critics pretrained for 100
    iterations, then the 15 private iterations) took 56 CPU seconds on one core of the
    project's 2-core machine (79 s wall, shared): 48 fits are 45 CPU minutes, 1.1e14 fits
    some 2e8 CPU years.

    References
    ----------
    Balle, Barthe & Gaboardi (2018) [``balle2018``]; Nasr et al. (2021) [``nasr2021``];
    GS-WGAN issues #11, #12 [``gswgan2022``]; Montoya Perez et al. (2024)
    [``montoyaperez2024``], §4.2.
    """
    cells = [
        {"n": int(n), "nominal_epsilon": float(e), "gan": dict(gan or {})}
        for e in sorted(float(e) for e in epsilons)
    ]
    frame = run_grid(
        nominal_cell,
        cells,
        1,
        chunk_size=1,
        n_jobs=n_jobs,
        dask=dask,
        cache_dir=cache_dir,
        progress=progress,
    )
    table = frame.rename(columns={"epsilon_guarantee": "epsilon_upper"})[
        ["nominal_epsilon", "iterations", "epsilon_spent", "epsilon_lower_bound", "epsilon_upper"]
    ].reset_index(drop=True)
    table["iterations"] = table["iterations"].astype(np.int64)
    table["verdict"] = [
        _analytic_verdict(r.epsilon_lower_bound, r.epsilon_upper, r.nominal_epsilon)
        for r in table.itertuples()
    ]
    return table


# --------------------------------------------------------------------------------------------
# the replay
# --------------------------------------------------------------------------------------------
def _mwu_samples(world: int) -> tuple[np.ndarray, np.ndarray]:
    """The Mann–Whitney pair: D has every x below every y; in D′ one x moves above every y, the
    replace-one change that moves U by n_y (its largest)."""
    x, y = np.arange(6.0), np.arange(6.0, 15.0)
    return (np.r_[x[:-1], 100.0] if world else x), y


def release(name: str, epsilon: float, world: int, seed: int) -> None:
    """Run the release ``name`` of :data:`REPLAYED` once on D (``world`` 0) or D′ (1) with
    ``random_state=seed``; its mechanism calls are what a :func:`synthtrust.privacy.
    record_mechanisms` context around it records.

    The synthesizers are fitted on the worst case of their relation (:func:`~synthtrust.
    dp_audit.worst_case`); the confusion matrix is that of the worst case's columns ``c0``
    (truth) and ``c1`` (prediction), a true negative for every base record and a true positive
    for the canary; the Mann–Whitney U test runs on :func:`_mwu_samples`.

    Raises
    ------
    KeyError
        ``name`` not a key of :data:`REPLAYED`.
    """
    _, relation, cls, kwargs = REPLAYED[name]
    if name == "dp_mannwhitneyu":
        dp_mannwhitneyu(*_mwu_samples(world), float(epsilon), random_state=seed, **kwargs)
        return
    worlds = worst_case(relation)
    data = (worlds.with_canary if world else worlds.without).copy()
    if cls is None:  # the confusion matrix
        dp_confusion_matrix(
            data["c0"].to_numpy(),
            data["c1"].to_numpy(),
            float(epsilon),
            random_state=seed,
            neighbouring=relation,
        )
        return
    cls(epsilon=float(epsilon), domain=worlds.domain, random_state=seed, **kwargs).fit(data)


def replay_cell(params: dict, rngs: list) -> pd.DataFrame:
    """The replay of one release (a :func:`~synthtrust.run.experiment.run_grid` task): the release
    on D recorded, then on D′ recorded with D's calls replayed (frozen outputs), both with
    ``random_state = params["seed"]``, and the two records compared.

    ``params``: ``name`` (a key of :data:`REPLAYED`), ``epsilon``, ``seed``. ``rngs`` is unused
    but for its number: the replay is one deterministic pair of runs. Returns one row per
    replicate: ``mechanisms`` (the recorded mechanisms, in order of first call), ``calls``
    (calls on D), ``calls_prime`` (on D′), ``sequences_match``, ``changed`` (compared calls
    whose query value differs between D and D′: those the sensitivity check tests),
    ``max_ratio`` (the largest
    observed / declared sensitivity), ``worst_caller`` (the function that made that call),
    ``mismatch`` (the first difference of the sequences, "" if none), ``violation`` and
    ``seconds`` (both runs). Warnings of the fits (e.g. GS-WGAN's on a tiny table) are
    silenced.
    """
    name, eps, seed = params["name"], float(params["epsilon"]), int(params["seed"])
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with record_mechanisms() as calls_d:
            release(name, eps, 0, seed)
        with record_mechanisms(replay=calls_d) as calls_d_prime:
            release(name, eps, 1, seed)
    result = compare_replays(calls_d, calls_d_prime)
    seconds = time.perf_counter() - start
    worst = "" if result.worst_call is None else result.table["caller"].iloc[result.worst_call]
    row = {
        "mechanisms": ", ".join(dict.fromkeys(c.mechanism for c in calls_d)),
        "calls": result.n_calls,
        "calls_prime": result.n_calls_prime,
        "sequences_match": result.sequences_match,
        "changed": int((result.table["observed"] > 0).sum()) if len(result.table) else 0,
        "max_ratio": result.statistic,
        "worst_caller": worst,
        "mismatch": result.mismatch,
        "violation": result.violation,
        "seconds": seconds,
    }
    return pd.DataFrame([row] * len(rngs))


#: The releases that train with PyTorch (their import grows a worker by about 280 MB).
_TORCH = {"gswgan", "gswgan_nominal", "pate_ctgan"}


def _replay_verdict(row) -> str:
    if row.violation:
        return "violation"
    if row.calls == 0:
        return "nothing recorded"
    return "pass" if row.changed > 0 else "nothing changed"


def warm_up() -> None:
    """Load JAX and mbi (Private-PGM, MST, AIM, MWEM+PGM, PrivMRF) and PyTorch (the GANs) once
    per worker process (``run_grid(..., warm_up=warm_up)``): loaded by later tasks, together
    they grew a worker past loky's 300 MB margin, and loky recycled it with a warning on the
    page. :func:`replay_table` warms up only when it replays a GAN (mbi alone stays within the
    margin)."""
    import_mbi()
    import_if_installed("torch", "the GANs")


def replay_table(
    epsilon: float,
    names=None,
    *,
    control: bool = True,
    seed: int = 0,
    n_jobs=None,
    dask=None,
    cache_dir=None,
    progress: bool = True,
) -> pd.DataFrame:
    """The replay audit of each release of ``names`` at claim ``epsilon``: one pair of fits on
    the worst-case neighbours D, D′ of its declared relation, with one seed.

    Parameters
    ----------
    epsilon : float > 0
        The ε every release is run at.
    names : sequence of str or None
        Keys of :data:`REPLAYED`; None: all of them. The control
        (:data:`~.dp_auditing.REPLAY_CONTROL`) is added when ``control`` (at the end, once).
    control : bool
        Add the planted halved-sensitivity twin, whose replay must be a violation.
    seed : int ≥ 0
        The ``random_state`` of both runs of every release.
    n_jobs, dask, cache_dir, progress
        As :func:`synthtrust.run.experiment.run_grid` (one task a release; the two runs of a
        release are in one task, since the records are kept in the process that fits).

    Returns
    -------
    DataFrame
        One row per release: ``name``, ``synthesizer`` (its label), ``relation``, the columns
        of :func:`replay_cell`, and ``verdict``: "violation" (the call sequences differ, or a
        call's observed sensitivity exceeds its declared one), "pass" (neither, on this pair
        with this seed, and some call's value changed: one pair can refute a declared
        sensitivity, never prove it), "nothing changed" (same calls, but no value moved: the
        sensitivities were not tested) or "nothing recorded" (no mechanism call: the replay
        checked nothing).

    Raises
    ------
    KeyError
        A name not in :data:`REPLAYED`.
    TypeError, ValueError
        As :func:`synthtrust.run.experiment.run_grid`.

    Notes
    -----
    What the replay cannot see: the accounting. It checks that each call's declared
    sensitivity holds and that the calls do not depend on the data outside a mechanism; how an
    accountant composes correct calls into an ε is not a property of any one call, so both of
    GS-WGAN's accountings pass (:func:`gswgan_nominal_table` shows the difference).
    GS-WGAN's recorded values are the clipped per-sample gradients of the critic of the chosen
    shard, whose D/D′ distance is bounded by the clipping, not by a query of the data.
    Source: Cebere et al. (2026) [``cebere2026``], §4.
    """
    names = list(REPLAYED) if names is None else [str(n) for n in names]
    names = [n for n in names if n != REPLAY_CONTROL] + ([REPLAY_CONTROL] if control else [])
    for name in names:
        if name not in REPLAYED:
            raise KeyError(f"unknown release {name!r}; known: {sorted(REPLAYED)}")
    cells = [{"name": name, "epsilon": float(epsilon), "seed": int(seed)} for name in names]
    frame = run_grid(
        replay_cell,
        cells,
        1,
        seed=int(seed),
        chunk_size=1,
        n_jobs=n_jobs,
        dask=dask,
        cache_dir=cache_dir,
        progress=progress,
        # the warm-up costs each worker a few seconds: only where a GAN's PyTorch would grow it
        warm_up=warm_up if set(names) & _TORCH else None,
    )
    frame.insert(1, "synthesizer", frame["name"].map(lambda n: REPLAYED[n][0]))
    frame.insert(2, "relation", frame["name"].map(lambda n: REPLAYED[n][1].replace("_", "-")))
    frame["verdict"] = [_replay_verdict(r) for r in frame.itertuples()]
    return frame.drop(columns=["seed", "rep"]).reset_index(drop=True)

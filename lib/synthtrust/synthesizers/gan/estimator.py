"""The GS-WGAN estimator: parameters, the RDP accounting of a run and its ledger entry, the fit
(shards, iteration budget, checkpoints; the training loop is :mod:`.training`), sampling by the
Gumbel-max trick and the checkpoint snapshots.

Source: Chen, Orekondy & Fritz (NeurIPS 2020) [``chen2020``]; the reference implementation
[``gswgan2022``]; the tabular port of Montoya Perez et al. (2024) [``montoyaperez2024``], §4.2.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..._optional import import_optional
from ..._validation import (
    check_epsilon,
    check_is_fitted,
    check_names,
    check_nonnegative_int,
    check_positive_int,
    check_random_state,
    increasing_of,
    one_of,
    optional,
    pair_of,
    real_in,
)
from ...privacy.gradients import SENSITIVITY
from ...privacy.ledger import PrivacyLedger
from ...privacy.rdp import gswgan_epsilon, gswgan_epsilon_lower_bound, gswgan_max_iterations
from .._torch_tables import decode_gumbel_max, numeric_code, one_thread
from ..tabular import TabularSynthesizer
from .networks import generator_logits
from .shards import partition_shards
from .training import GSWGANTraining

#: GS-WGAN's privacy settings as Montoya Perez et al. (2024) [``montoyaperez2024``], §4.2, ran
#: it: subsets of 40 records (γ = 1/500 at n = 20 000), C = 1, noise multiplier 1.07 and
#: δ = 1e-5 (GS-WGAN's), accounted as the reference code does (``composition="per_sample"``,
#: the classic RDP conversion): the ε it labels a run with is **nominal, not a guarantee**
#: (:meth:`GSWGAN.accounting_table` gives the standard analysis beside it).
REFERENCE_SETTINGS = {
    "composition": "per_sample",
    "conversion": "classic",
    "subset_size": 40,
    "clip_bound": 1.0,
    "noise_multiplier": 1.07,
    "delta": 1e-5,
}


class GSWGAN(GSWGANTraining, TabularSynthesizer):
    """GS-WGAN (Chen et al. 2020) for integer-coded discrete tables; (ε, δ)-DP, replace-one.

    (ε, δ)-DP under the default accounting (the standard analysis); with
    ``composition="per_sample"`` its ε is the nominal ε of the reference code, not an (ε, δ)
    guarantee (the package docstring, :mod:`synthtrust.synthesizers.gan`).

    See the package docstring (:mod:`synthtrust.synthesizers.gan`) for the networks, the algorithm
    and the accounting.

    Parameters
    ----------
    epsilon : float > 0, default 10.0
        Budget ε (nats); training runs the largest number of iterations with ε(T) ≤ epsilon.
        Ignored in the non-private mode (``noise_multiplier=0``).
    delta : float in (0, 1), default 1e-5
    domain : dict {column: levels}, a synthtrust Domain, or None
        Public domain (None infers it from the data with a warning: not DP).
    subset_size : int ≥ 1, default 40
        Records per discriminator shard; K = n // subset_size shards (the paper: 40 of 20 000,
        γ = 1/500). Must be ≤ n (checked at :meth:`fit`).
    noise_multiplier : float ≥ 0, default 1.07
        σ (0: non-private mode, ε = ∞).
    clip_bound : float > 0 or None, default 1.0
        C. None (only with ``noise_multiplier=0``): no sanitiser at all, the generator gets the
        critic's gradients as they are — with ``subset_size`` = n (one critic on all records)
        this is the plain, non-private WGAN-GP (Gulrajani et al. 2017), the control of a DP run.
    batch_size : int ≥ 1, default 32
        B, generated samples per generator step (and real records per critic step, capped at
        ``subset_size``).
    z_dim : int ≥ 1, default 10
    hidden : int ≥ 1, default 64
        Width of the hidden layers of the generator and the critics.
    critic_iters : int ≥ 1, default 5
    lr : float > 0, default 1e-4
    betas : (float, float) in [0, 1), default (0.5, 0.9)
        Adam (Gulrajani et al. 2017).
    gp_weight : float ≥ 0, default 10.0
    drift_weight : float ≥ 0, default 1e-3
    ema_decay : float in [0, 1), default 0.999
    tau : float > 0, default 0.2
        Gumbel-softmax temperature of the samples shown to the critics.
    numeric_columns : sequence of str, default ()
        Ordered columns (≥ 2 levels) the networks see as one number instead of a one-hot block:
        code c of k levels is 2c/(k − 1) − 1 ∈ [−1, 1] (public: from the domain only), the
        generator outputs it linearly, and :meth:`sample` rounds it to the nearest code (clipped
        to the domain). The encoding of Montoya Perez et al. (2024), §4.2, whose GAN generates the
        group and the value while the histogram methods see bins.
    pretrain_iterations : int ≥ 0, default 100
        Non-private warm-start iterations of every discriminator (each: ``critic_iters`` critic
        steps and one step of its throw-away generator). The reference uses 2000 (MNIST); one
        batched iteration for K = 500 critics on the (2, 100)-level table costs ≈ 0.3–0.7 s on
        one CPU thread one-hot, ≈ 0.3 s with the value as one number (``numeric_columns``;
        ``benchmarks/bench_gan.py``; the range is the machine's load), so 2000 take 10–20 min
        per fit and the default is smaller.
    max_iter : int ≥ 1, default 20000
        Cap on the private iterations (the reference's ``iterations``).
    checkpoints : sequence of floats or None
        Strictly increasing ε values in (0, epsilon]: the EMA generator is kept at the last
        iteration whose ε ≤ each value; :meth:`at_epsilon` returns those snapshots. They come
        from the same run, so releasing several costs the largest of their ε, not the sum. A run
        is a prefix of any longer run with the same ``random_state`` and parameters, so the
        snapshot at checkpoint c is identical to the generator of a fresh fit with epsilon=c.
    composition : {"per_iteration", "per_sample"}, default "per_iteration"
        Accounting (package docstring): "per_iteration" is the standard analysis, an (ε, δ)
        guarantee; "per_sample" is GS-WGAN's reference accounting — the nominal ε of the
        reference code, not an (ε, δ) guarantee.
    conversion : {"pld", "classic", "improved"}, default "pld"
        The accountant: dp-accounting's PLD, or RDP with the classic (autodp's, the reference's)
        or improved conversion (:mod:`synthtrust.privacy.rdp`).
    track_wasserstein : bool, default False
        Keep ``wasserstein_``, the critic's unnoised estimate on real batches at every iteration:
        a training diagnostic that is **not private** (a statistic of the real data with no
        noise), so it is off by default.
    random_state : int, numpy.random.Generator, SeedSequence or None

    Attributes
    ----------
    n_records_ : int
    n_discriminators_ : int
        K.
    iterations_ : int
        Private iterations run.
    epsilon_spent_ : float
        ε(``iterations_``) under the chosen ``composition`` and ``conversion`` (≤ epsilon; ∞ in
        the non-private mode; 0 if no iteration was affordable); nominal under "per_sample".
    epsilon_guarantee_ : float
        ε(``iterations_``) under the standard analysis (per-iteration PLD): the (ε, δ) guarantee
        of the run, = ``epsilon_spent_`` under the default accounting.
    differentially_private_ : bool
        True iff ``epsilon_spent_`` is a guarantee (the default accounting, noise on).
    privacy_ : str
        One sentence stating the guarantee (also in :meth:`card`).
    checkpoints_ : dict {ε checkpoint: (iterations, ε spent)}
    wasserstein_ : ndarray, shape (``iterations_``,)
        Only with ``track_wasserstein=True``: the critic's estimate mean D(real) − mean D(fake)
        at the last critic step of each iteration (a training diagnostic; not private).
    ledger_ : PrivacyLedger
        One ``"subsampled_gaussian"`` entry with ε = ``epsilon_guarantee_``, δ = delta,
        sensitivity 2C/B, scale 2σC/B (ρ not defined: the accounting is not zCDP); under
        "per_sample" its note gives the nominal ε and says it is not a guarantee.

    Raises
    ------
    TypeError, ValueError
        At :meth:`fit`: a parameter of the wrong type or out of range (the message
        names it, its value and the allowed range); at :meth:`fit` also ``subset_size`` > n and
        codes outside the domain.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> df = pd.DataFrame({"a": np.arange(2000) % 2, "b": np.arange(2000) % 3})
    >>> g = GSWGAN(epsilon=5.0, subset_size=20, pretrain_iterations=5, domain={"a": 2, "b": 3},
    ...            composition="per_sample", conversion="classic", random_state=0).fit(df)
    >>> g.n_discriminators_, g.iterations_, g.epsilon_spent_ <= 5.0
    (100, 54, True)
    >>> g.differentially_private_, round(g.epsilon_guarantee_, 1)
    (False, 68.5)
    >>> g.sample(5).shape
    (5, 2)
    """

    #: replace-one neighbours (n public)
    neighbouring = "replace_one"

    _description = (
        "GS-WGAN (Chen et al. 2020): WGAN-GP generator trained on sanitised gradients from "
        "discriminators on disjoint shards; (epsilon, delta)-DP (per-iteration analysis, "
        "privacy loss distribution), replace-one"
    )

    #: What the card, the repr and the ledger say of the reference's accounting.
    NOMINAL = "nominal epsilon of the reference code, not an (epsilon, delta) guarantee"

    _parameter_constraints = {
        **TabularSynthesizer._parameter_constraints,
        "subset_size": check_positive_int,
        "noise_multiplier": real_in(0.0),
        "clip_bound": optional(real_in(0.0, low_open=True)),
        "batch_size": check_positive_int,
        "z_dim": check_positive_int,
        "hidden": check_positive_int,
        "critic_iters": check_positive_int,
        "lr": real_in(0.0, low_open=True),
        "betas": pair_of(real_in(0.0, 1.0, high_open=True), "a pair (beta1, beta2) in [0, 1)"),
        "gp_weight": real_in(0.0),
        "drift_weight": real_in(0.0),
        "ema_decay": real_in(0.0, 1.0, high_open=True),
        "tau": real_in(0.0, low_open=True),
        "numeric_columns": check_names,
        "pretrain_iterations": check_nonnegative_int,
        "max_iter": check_positive_int,
        "checkpoints": optional(increasing_of(check_epsilon, "epsilons")),
        "composition": one_of("per_iteration", "per_sample"),
        "conversion": one_of("pld", "classic", "improved"),
        "track_wasserstein": one_of(False, True),
    }

    def __init__(
        self,
        epsilon: float = 10.0,
        delta: float = 1e-5,
        *,
        domain=None,
        subset_size: int = 40,
        noise_multiplier: float = 1.07,
        clip_bound: float = 1.0,
        batch_size: int = 32,
        z_dim: int = 10,
        hidden: int = 64,
        critic_iters: int = 5,
        lr: float = 1e-4,
        betas: tuple[float, float] = (0.5, 0.9),
        gp_weight: float = 10.0,
        drift_weight: float = 1e-3,
        ema_decay: float = 0.999,
        tau: float = 0.2,
        numeric_columns: Sequence[str] = (),
        pretrain_iterations: int = 100,
        max_iter: int = 20000,
        checkpoints: Sequence[float] | None = None,
        composition: str = "per_iteration",
        conversion: str = "pld",
        track_wasserstein: bool = False,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.domain = domain
        self.subset_size = subset_size
        self.noise_multiplier = noise_multiplier
        self.clip_bound = clip_bound
        self.batch_size = batch_size
        self.z_dim = z_dim
        self.hidden = hidden
        self.critic_iters = critic_iters
        self.lr = lr
        self.betas = betas
        self.gp_weight = gp_weight
        self.drift_weight = drift_weight
        self.ema_decay = ema_decay
        self.tau = tau
        self.numeric_columns = numeric_columns
        self.pretrain_iterations = pretrain_iterations
        self.max_iter = max_iter
        self.checkpoints = checkpoints
        self.composition = composition
        self.conversion = conversion
        self.track_wasserstein = track_wasserstein
        self.random_state = random_state

    # -- parameters ---------------------------------------------------------------------------
    def _check_param_relations(self) -> None:
        if self.clip_bound is None and float(self.noise_multiplier) != 0:
            raise ValueError(
                "clip_bound=None (no sanitiser) is the non-private control: it needs "
                f"noise_multiplier=0, got noise_multiplier={self.noise_multiplier!r}"
            )
        if self.checkpoints is None:
            return
        if float(self.checkpoints[-1]) > float(self.epsilon):
            raise ValueError(
                f"checkpoints must be <= epsilon = {self.epsilon!r}, got {self.checkpoints[-1]!r}"
            )
        if float(self.noise_multiplier) == 0:
            raise ValueError(
                "checkpoints need a private run: noise_multiplier must be > 0 with checkpoints, "
                "got noise_multiplier=0"
            )

    @property
    def rho_(self) -> float:
        """Not defined: GS-WGAN is accounted in Rényi DP (see ``epsilon_spent_``), not zCDP."""
        raise AttributeError(
            "GSWGAN is accounted in Renyi DP (epsilon_spent_, ledger_), not in zCDP: no rho_"
        )

    # -- accounting -----------------------------------------------------------------------------
    def _n_critics(self, n) -> int:
        """K = n // subset_size critics of a training on ``n`` records (parameters validated)."""
        self._validate_params()
        n = check_positive_int(n, "n")
        if n < int(self.subset_size):
            raise ValueError(f"n must be at least subset_size = {self.subset_size}, got {n}")
        return n // int(self.subset_size)

    def max_iterations(self, n: int, epsilon: float) -> int:
        """The private iterations a training on ``n`` records runs before it has spent
        ``epsilon`` (nats) under this configuration's accounting, at most ``max_iter``: the
        ``iterations`` column of :meth:`accounting_table`, without its bounds.

        Raises TypeError/ValueError as :meth:`accounting_table`. Source: Chen et al. (2020)
        [``chen2020``], §3.3.
        """
        return self._iterations_for(check_epsilon(epsilon, "epsilon"), self._n_critics(n))

    def accounting_table(self, n: int, epsilons) -> pd.DataFrame:
        """The privacy accounting behind checkpoints of a training on ``n`` records (the
        accountant only: nothing is trained, no fit is needed).

        Parameters
        ----------
        n : int ≥ ``subset_size``
            Records of the training table: K = n // ``subset_size`` critics.
        epsilons : sequence of float > 0
            Checkpoint budgets ε (nats), as ``checkpoints``.

        Returns
        -------
        DataFrame
            One row per checkpoint ε, in increasing order: ``epsilon``, ``iterations`` (the
            private iterations a run reaches by then, at most ``max_iter``), ``epsilon_spent``
            (ε of those iterations under this configuration's ``composition`` and
            ``conversion``: under ``"per_sample"`` the reference code's nominal ε, not a
            guarantee), ``epsilon_lower_bound`` (the true ε of those iterations is at least
            this: :func:`~synthtrust.privacy.rdp.gswgan_epsilon_lower_bound`, the worst case)
            and ``epsilon_guarantee`` (the standard analysis, one subsampled release of B
            gradients per iteration, by the PLD: an upper bound).

        Raises
        ------
        TypeError, ValueError
            ``n`` not an integer ≥ ``subset_size``, an ε not a positive real, or a parameter of
            the estimator outside its constraints (as :meth:`fit` checks them).

        References
        ----------
        Chen et al. (2020) [``chen2020``], §3.3; Montoya Perez et al. (2024)
        [``montoyaperez2024``], §4.2.

        Examples
        --------
        >>> GSWGAN(**REFERENCE_SETTINGS).accounting_table(20000, [1.0])[["epsilon", "iterations"]]
           epsilon  iterations
        0      1.0          15
        """
        k = self._n_critics(n)
        kw = self._accountant_kwargs(k)
        standard = {**kw, "composition": "per_iteration", "conversion": "pld"}
        rows = []
        for eps in sorted(check_epsilon(e, "epsilons") for e in epsilons):
            its = self._iterations_for(eps, k)
            rows.append(
                {
                    "epsilon": eps,
                    "iterations": its,
                    "epsilon_spent": gswgan_epsilon(its, **kw),
                    "epsilon_lower_bound": gswgan_epsilon_lower_bound(its, **standard),
                    "epsilon_guarantee": gswgan_epsilon(its, **standard),
                }
            )
        return pd.DataFrame(rows)

    def _accountant_kwargs(self, k: int) -> dict:
        return dict(
            n_discriminators=k,
            batch_size=int(self.batch_size),
            noise_multiplier=float(self.noise_multiplier),
            delta=float(self.delta),
            composition=self.composition,
            conversion=self.conversion,
        )

    def _iterations_for(self, eps: float, k: int) -> int:
        return gswgan_max_iterations(
            float(eps), max_iter=int(self.max_iter), **self._accountant_kwargs(k)
        )

    def epsilon_at(self, iterations: int) -> float:
        """ε(iterations) (nats) of this fitted configuration (K, B, σ, δ, composition, conversion).

        ∞ for iterations ≥ 1 in the non-private mode. Raises NotFittedError before :meth:`fit`,
        TypeError/ValueError for ``iterations`` not an integer ≥ 0.
        """
        check_is_fitted(self)
        return self._epsilon(check_nonnegative_int(iterations, "iterations"))

    def _epsilon(self, iterations: int) -> float:
        if float(self.noise_multiplier) == 0:
            return 0.0 if iterations == 0 else math.inf
        return gswgan_epsilon(iterations, **self._accountant_kwargs(self.n_discriminators_))

    def _nominal(self) -> bool:
        """Is the chosen accounting the reference's (nominal, not a guarantee)?"""
        return self.composition == "per_sample"

    def _guarantee(self, iterations: int) -> float:
        """ε of ``iterations`` under the standard analysis (per-iteration PLD)."""
        if float(self.noise_multiplier) == 0:
            return 0.0 if iterations == 0 else math.inf
        if not self._nominal():
            return self._epsilon(iterations)
        kw = self._accountant_kwargs(self.n_discriminators_)
        kw.update(composition="per_iteration", conversion="pld")
        return gswgan_epsilon(iterations, **kw)

    def _privacy_sentence(self, iterations: int, eps: float, guarantee: float) -> str:
        if float(self.noise_multiplier) == 0:
            return "not DP: non-private mode (noise_multiplier=0)"
        if self._nominal():
            return (
                f"epsilon = {eps:.6g} is the {self.NOMINAL}; the standard analysis of the "
                f"{iterations} iterations run gives epsilon = {guarantee:.6g} at "
                f"delta = {float(self.delta):g} (replace-one)"
            )
        return (
            f"(epsilon, delta) = ({guarantee:.6g}, {float(self.delta):g})-DP, replace-one "
            f"(per-iteration analysis, {self.conversion})"
        )

    def __repr__(self) -> str:
        text = super().__repr__()
        return f"{text}  # {self.NOMINAL}" if self._nominal() else text

    def card(self) -> dict:
        """Generator card (see :meth:`TabularSynthesizer.card`) plus the privacy status.

        Extra keys: ``differentially_private`` (bool: is the accounting a guarantee),
        ``nominal_epsilon`` (``epsilon``), ``privacy`` (one sentence; under
        ``composition="per_sample"`` it says the ε is the nominal ε of the reference code, not an
        (ε, δ) guarantee) and, once fitted, ``epsilon_guarantee`` and
        ``epsilon_lower_bound`` (:func:`~synthtrust.privacy.rdp.gswgan_epsilon_lower_bound` of
        the iterations run).
        """
        info = super().card()
        private = float(self.noise_multiplier) > 0
        info.update(
            differentially_private=private and not self._nominal(),
            nominal_epsilon=float(self.epsilon),
        )
        if getattr(self, "_fitted", False):
            kw = self._accountant_kwargs(self.n_discriminators_)
            kw.update(composition="per_iteration", conversion="pld")
            lower = gswgan_epsilon_lower_bound(self.iterations_, **kw) if private else math.inf
            info.update(
                privacy=self.privacy_,
                epsilon_guarantee=self.epsilon_guarantee_,
                epsilon_lower_bound=lower,
            )
        elif self._nominal():
            info["privacy"] = f"epsilon is the {self.NOMINAL}"
        else:
            info["privacy"] = "(epsilon, delta)-DP, replace-one (per-iteration analysis)"
        return info

    def _record(self, ledger: PrivacyLedger, iterations: int, eps: float) -> None:
        b, s = int(self.batch_size), float(self.noise_multiplier)
        c = math.inf if self.clip_bound is None else float(self.clip_bound)
        guarantee = self._guarantee(iterations)
        nominal = (
            f"; epsilon = {eps:.6g} by the reference's per-sample accounting is the {self.NOMINAL}"
            if self._nominal() and s > 0
            else ""
        )
        ledger.record(
            mechanism="subsampled_gaussian",
            epsilon=guarantee,
            delta=float(self.delta) if s > 0 else 0.0,
            rho=None,
            sensitivity=SENSITIVITY * c / b,
            scale=SENSITIVITY * c * s / b if s > 0 else 0.0,
            draws=iterations if s > 0 else 0,
            note=(
                f"GS-WGAN: {iterations} iterations x B={b} sanitised per-sample gradients; "
                f"1 of K={self.n_discriminators_} disjoint shards per iteration (q=1/K, without "
                f"replacement), sigma={s}, C={c}; replace-one; epsilon of the per-iteration "
                f"analysis (dp-accounting 0.6.0 PLD)"
                + nominal
                + ("" if s > 0 else "; NON-PRIVATE mode (noise_multiplier=0)")
            ),
        )

    # -- fitting --------------------------------------------------------------------------------
    def _fit_codes(self, codes: dict, rng: np.random.Generator) -> None:
        torch = import_optional("torch", "GSWGAN")

        names = list(codes)
        self._numeric_mask(names)  # checks numeric_columns against the data before any work
        sizes = [int(self.domain_[c]) for c in names]
        n = int(next(iter(codes.values())).shape[0])
        subset = int(self.subset_size)
        if subset > n:
            raise ValueError(f"subset_size must be <= the number of records n = {n}, got {subset}")
        shards = partition_shards(n, subset, rng)
        k = len(shards)
        self.n_records_ = n
        self.n_discriminators_ = k
        private = float(self.noise_multiplier) > 0

        # iterations: budget, checkpoints
        if private:
            total_it = self._iterations_for(self.epsilon, k)
            cp_eps = [] if self.checkpoints is None else [float(c) for c in self.checkpoints]
            cp_it = [self._iterations_for(c, k) for c in cp_eps]
        else:
            total_it, cp_eps, cp_it = int(self.max_iter), [], []
        if private and total_it == 0:
            warnings.warn(
                f"one GS-WGAN iteration already costs more than epsilon={self.epsilon}: no training "
                "iteration is run and the released generator is the untrained initial one",
                UserWarning,
                stacklevel=3,
            )
        seed = int(rng.integers(0, 2**63 - 1))
        self._checkpoint_seeds = [int(rng.integers(0, 2**63 - 1)) for _ in cp_eps]

        with one_thread(torch), torch.no_grad():
            gen = torch.Generator().manual_seed(seed)
            ema, snaps, wass = self._train(codes, names, sizes, shards, total_it, cp_it, gen, torch)

        self._ema = ema
        self.iterations_ = total_it
        self.epsilon_spent_ = self._epsilon(total_it)
        self.epsilon_guarantee_ = self._guarantee(total_it)
        self.differentially_private_ = private and not self._nominal()
        self.privacy_ = self._privacy_sentence(
            total_it, self.epsilon_spent_, self.epsilon_guarantee_
        )
        if self.track_wasserstein:
            self.wasserstein_ = wass
        self._snapshots = dict(zip(cp_eps, snaps, strict=True))
        self.checkpoints_ = {c: (t, self._epsilon(t)) for c, t in zip(cp_eps, cp_it, strict=True)}
        self._record(self.ledger_, total_it, self.epsilon_spent_)

    def _numeric_mask(self, names) -> list[bool]:
        """One bool per column of ``names``: is it in ``numeric_columns``? Raises ValueError for a
        name that is not a column or a numeric column with fewer than 2 levels."""
        wanted = list(self.numeric_columns)
        unknown = [c for c in wanted if c not in names]
        if unknown:
            raise ValueError(
                f"numeric_columns must be columns of the data {list(names)}, got {unknown}"
            )
        short = [c for c in wanted if int(self.domain_[c]) < 2]
        if short:
            raise ValueError(f"numeric_columns need >= 2 levels, got {short} with one level")
        return [c in wanted for c in names]

    def _decode(self, logits: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
        """Codes from generator outputs (n, width): Gumbel-max on each one-hot block, the
        nearest code for a numeric slot."""
        names = list(self.columns_)
        levels = [int(self.domain_[c]) for c in names]
        numeric = self._numeric_mask(names)
        if not any(numeric):
            return decode_gumbel_max(logits, names, levels, rng)
        widths = [1 if num else k for k, num in zip(levels, numeric, strict=True)]
        blocks = np.split(logits, np.cumsum(widths)[:-1], axis=1)
        cat = [i for i, num in enumerate(numeric) if not num]
        out = decode_gumbel_max(
            np.concatenate([blocks[i] for i in cat], axis=1) if cat else logits[:, :0],
            [names[i] for i in cat],
            [levels[i] for i in cat],
            rng,
        )
        for i in (i for i, num in enumerate(numeric) if num):
            out[names[i]] = numeric_code(blocks[i][:, 0], levels[i])
        return out[names]

    def _default_n(self) -> int:
        # replace-one neighbours: n is public, no budget is spent on it
        return self.n_records_

    # -- sampling -------------------------------------------------------------------------------
    def _logits(self, n: int, rng: np.random.Generator, params) -> np.ndarray:
        torch = import_optional("torch", "GSWGAN")

        z = rng.standard_normal((n, int(self.z_dim))).astype(np.float32)
        with one_thread(torch), torch.no_grad():
            out = generator_logits(params, torch.from_numpy(z), torch).numpy()
        return out.astype(np.float64)

    def _sample_codes(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        """One category per column by the Gumbel-max trick on the EMA generator's logits (a
        numeric column: its output rounded to the nearest code)."""
        return self._decode(self._logits(n, rng, self._ema), rng)

    def category_probabilities(self, n: int = 10000, random_state=None) -> dict:
        """Monte-Carlo average of the generator's per-column softmax over ``n`` latent draws (a
        numeric column: the shares of the codes its ``n`` outputs round to).

        Returns ``{column: ndarray (levels,)}`` summing to 1 (post-processing; no budget).
        """
        check_is_fitted(self)
        n = check_positive_int(n, "n")
        logits = self._logits(n, check_random_state(random_state), self._ema)
        out, off = {}, 0
        for c, num in zip(self.columns_, self._numeric_mask(self.columns_), strict=True):
            size = int(self.domain_[c])
            if num:
                out[c] = np.bincount(numeric_code(logits[:, off], size), minlength=size) / n
                off += 1
                continue
            block = logits[:, off : off + size]
            p = np.exp(block - block.max(axis=1, keepdims=True))
            out[c] = (p / p.sum(axis=1, keepdims=True)).mean(axis=0)
            off += size
        return out

    # -- checkpoints ----------------------------------------------------------------------------
    def at_epsilon(self, epsilon: float) -> GSWGAN:
        """The fitted synthesizer whose generator is the EMA snapshot of checkpoint ``epsilon``.

        Returns a new fitted :class:`GSWGAN` (parameters ``epsilon`` = the checkpoint,
        ``checkpoints`` = None) with ``iterations_`` / ``epsilon_spent_`` of the snapshot and a
        ledger of one entry recording that ε; its sampler has its own generator seeded at fit
        time, so repeated calls sample identically.

        Raises
        ------
        ValueError
            ``epsilon`` is not one of the fitted ``checkpoints`` (within 1e-9 relative).
        NotFittedError
            Before :meth:`fit`.
        """
        check_is_fitted(self)
        epsilon = check_epsilon(epsilon)
        match = [i for i, c in enumerate(self._snapshots) if math.isclose(c, epsilon, rel_tol=1e-9)]
        if not match:
            raise ValueError(
                f"epsilon must be one of the fitted checkpoints {list(self._snapshots)}, got {epsilon!r}"
            )
        i = match[0]
        cp = list(self._snapshots)[i]
        its, eps_spent = self.checkpoints_[cp]
        new = copy.copy(self)
        new.epsilon = cp
        new.checkpoints = None
        new._ema = self._snapshots[cp]
        new._snapshots = {}
        new.checkpoints_ = {}
        new._checkpoint_seeds = []
        new.iterations_ = its
        new.epsilon_spent_ = eps_spent
        new.epsilon_guarantee_ = self._guarantee(its)
        new.privacy_ = self._privacy_sentence(its, eps_spent, new.epsilon_guarantee_)
        if self.track_wasserstein:
            new.wasserstein_ = self.wasserstein_[:its].copy()
        new._rng = np.random.default_rng(self._checkpoint_seeds[i])
        new.ledger_ = PrivacyLedger()
        new._record(new.ledger_, its, eps_spent)
        return new

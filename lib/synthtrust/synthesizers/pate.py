"""PATE-CTGAN and PATE-GAN for tables of discrete columns: a generator trained against a student
discriminator that only ever sees generated records labelled by a noisy vote of teacher
discriminators, each trained on its own disjoint shard of the private data. PATE-CTGAN's
generator is CTGAN's, with conditional vectors; :class:`PATEGAN` (Jordon et al. 2019) is the same
training loop with an unconditional generator (no conditional vectors, no noisy marginals, the
whole ε to the votes). What follows describes PATE-CTGAN; PATE-GAN drops the parts on
conditional vectors.

Sources: Papernot, Abadi, Erlingsson, Goodfellow, Talwar, "Semi-supervised knowledge transfer for
deep learning from private training data", ICLR 2017 (PATE, the data-dependent moments bound,
Theorems 2–3 of its appendix); Jordon, Yoon, van der Schaar, "PATE-GAN", ICLR 2019; Rosenblatt
et al. 2020 (PATE-CTGAN, smartnoise-synth); Xu et al., "Modeling tabular data using conditional
GAN", NeurIPS 2019 (CTGAN); Giles et al. 2022 [``giles2022``] §4.1.2 (1000 records per teacher,
5 teacher and 5 student iterations, Adam, batch 64). The reference implementation is
smartnoise-synth's ``PATECTGAN``/``PATEGAN`` (``opendp/smartnoise-sdk`` @ 81d1351b
[``smartnoise2025``]); this module is written from a description of it and of its bugs, not from
its code.

Data and networks
-----------------
Each column with k levels is one-hot encoded; a record is a vector of L = Σ k entries.

* **Conditional vector** c (CTGAN): one column drawn uniformly, then one of its categories from
  the *public or privately estimated* category distribution p̂ (see ``cond_epsilon_fraction``),
  one-hot over all L entries.
* **Generator** G(z, c), z ~ N(0, I) (``embedding_dim``; the same latent law at training and
  sampling time): CTGAN residual blocks h ← [ReLU(BatchNorm(Linear(h))), h] (concatenation) for
  each width of ``generator_dim``, then Linear → L logits, one block per column. The
  discriminators see the Gumbel-softmax relaxation softmax((logits + g)/τ) of each block
  (τ = ``tau`` = 0.2 as CTGAN). Loss: BCE(student(G(z, c)), 1) + the CTGAN conditional
  cross-entropy between the chosen column's logits and the chosen category.
* **Discriminators** (teachers and student, pac = 1): MLP Linear → LeakyReLU(0.2) → Dropout(0.5)
  per width of ``discriminator_dim``, then Linear → 1 logit. The k teachers are one batched
  ensemble (weights (k, in, out)); each teacher's loss depends on its own weights only, and Adam
  is element-wise, so they are trained exactly as k independent networks with independent
  initialisations.

The discriminators see the record x only (not c): with c drawn from p̂, Σ_c p̂(c)·p(x | c) is the
data distribution, so G can satisfy both losses; CTGAN's training-by-sampling of real rows per
condition is not used (it would need per-shard category indices, empty for rare categories).

Algorithm (one iteration)
-------------------------
1. **Partition** (once): the n records are shuffled with the synthesizer's generator and split
   into k = max(1, n // ``sample_per_teacher``) disjoint shards (sizes differ by at most one; if
   n < sample_per_teacher there is a single teacher holding all records, which makes every vote
   depend on every record — allowed, but utility is then poor).
2. ``teacher_iters`` × every teacher: a real batch of ``batch_size`` records drawn uniformly with
   replacement from its own shard (label 1) and a generated batch (label 0), BCE, one Adam step.
3. The ``student_iters`` generated batches of the student are drawn and labelled: teacher j
   votes "real" iff sigmoid(D_j(x)) > 0.5 (dropout off); v = number of "real" votes;
   label = 1[v + Lap(1/λ) > k/2], λ = ``noise_multiplier``. **Before** the noise is drawn the
   moments of these B·student_iters queries are added to a tentative total; if the resulting ε
   exceeds the target the iteration is discarded and training stops (never overshoots).
4. ``student_iters`` student steps with BCE on the noisy labels; one generator step.

Accountant: the PATE moments accountant of :mod:`synthtrust.privacy.pate` (its docstring gives
the bound and how it differs from the reference's).

Category frequencies: with ``cond_epsilon_fraction`` = f > 0 (default 0.1), a share f·ε of the
budget is spent on the 1-way marginals by the Laplace mechanism (replace-one: L1 sensitivity 2
per column, 2·m for m columns; scale 2m/(f·ε)); the noisy counts, clipped at 0 and normalised
(uniform if all are 0), give p̂, used for the conditional vectors at training and sampling time
(the reference uses the uncharged exact frequencies). f = 0 uses uniform category frequencies
(no data, no budget), which biases G's marginals towards uniform by the conditional loss. The
PATE part then runs with target (1 − f)·ε; the two compose to (ε, δ)-DP.

Neighbouring relation: **replace-one** (n public: k and the shards are derived from n).
:meth:`PATECTGAN.sample` without ``n`` returns n rows.

Other differences from the reference (smartnoise's ``patectgan.py`` [``smartnoise2025``]):
shuffled (not contiguous) shards; k independent teachers (the reference repeats one
discriminator object); n // 1000 teachers, not n // 1000 + 1; the same latent law N(0, I) at
training and sampling; training stops *before* the iteration that would exceed ε (the reference
checks after spending); the default λ is chosen from the budget (the reference's fixed 1e-3
gives coin-flip labels); batch 64, embedding 64, widths
(128, 128) for a CPU (reference 500, 128, (256, 256)); cross-entropy loss only (no Wasserstein /
DRAGAN option); discriminators do not see the conditional vector. The teachers, which saw raw
records and are not DP, are not kept after :meth:`~PATECTGAN.fit`; the generator and the student
are post-processing of the noisy labels and of p̂.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._optional import import_optional
from .._validation import (
    check_delta,
    check_positive_int,
    check_random_state,
    one_of,
    optional,
    real_in,
)
from ..privacy.mechanisms import laplace
from ..privacy.pate import (
    noisy_vote_labels,
    pate_epsilon,
    pate_moments,
    pate_noise_for_budget,
)
from ._conditional_gan import (
    NETWORK_CONSTRAINTS,
    Conditions,
    Discriminators,
    ResidualGenerator,
    adam,
    conditional_loss,
    sample_records,
)
from ._torch_tables import block_softmax, gumbel, one_thread, onehot_shards
from .tabular import TabularSynthesizer

__all__ = [
    "PATECTGAN",
    "PATEGAN",
    "noisy_vote_labels",
    "pate_epsilon",
    "pate_moments",
    "pate_noise_for_budget",
    "pate_partitions",
]


# --------------------------------------------------------------------------------------------
# teacher shards
# --------------------------------------------------------------------------------------------
def pate_partitions(n: int, sample_per_teacher: int, random_state=None) -> list[np.ndarray]:
    """Shuffle range(n) once and split it into k = max(1, n // sample_per_teacher) disjoint shards.

    Returns a list of k int64 index arrays (disjoint, covering 0..n−1, sizes differing by ≤ 1).
    Raises ValueError for n < 1 or sample_per_teacher < 1.
    """
    n = check_positive_int(n, "n")
    spt = check_positive_int(sample_per_teacher, "sample_per_teacher")
    perm = check_random_state(random_state).permutation(n).astype(np.int64)
    return list(np.array_split(perm, max(1, n // spt)))


# --------------------------------------------------------------------------------------------
# the synthesizer
# --------------------------------------------------------------------------------------------
class PATECTGAN(TabularSynthesizer):
    """PATE-CTGAN (Rosenblatt et al. 2020, re-implemented) for integer-coded discrete tables;
    (ε, δ)-DP under replace-one neighbours. See the module docstring for networks, algorithm,
    accountant and the differences from the reference.

    Parameters
    ----------
    epsilon : float > 0, default 1.0
        Total budget ε (nats).
    delta : float in (0, 1) or None, default None
        None: 1/(n·√n) at fit time (the reference's default).
    domain : dict {column: levels}, a synthtrust Domain, or None
    noise_multiplier : float > 0 or None, default None
        λ; the vote noise is Lap(1/λ) (std √2/λ votes) and each query costs ε_q = λ. None: the
        largest λ for which the data-independent bound affords exactly ``max_iter``
        iterations (:func:`pate_noise_for_budget`; public quantities only), mirroring Giles et
        al. (2022) [``giles2022``], Table 1, whose columns are ε (0.001, 0.01, 0.1, 0.4, 1, 4,
        10), λ (lost in the published text), the moments order (30 000, 10 000, 1000, 1000,
        100, 100, 100) and the training iterations (2791–3077): λ and the moments order were
        tuned per ε to train ≈3000 iterations. The reference's fixed 1e-3 (smartnoise's default
        [``smartnoise2025``]) makes labels coin flips. Labels carry information only if 1/λ is
        not much larger than k/2, which with a few teachers needs a large ε.
    moments_order : int ≥ 1, default 1000
        Reference 100; larger orders only tighten ε (Giles et al. 2022, Table 1: 100 for ε ≥ 1 up
        to 30 000 for ε = 0.001; the order must exceed about ln(1/δ)/ε).
    sample_per_teacher : int ≥ 1, default 1000
        k = max(1, n // sample_per_teacher) teachers (reference: n // 1000 + 1).
    teacher_iters, student_iters : int ≥ 1, default 5
    batch_size : int ≥ 1, default 64
        Giles et al. 2022 (reference default 500). Queries per iteration: student_iters·batch_size.
    embedding_dim : int ≥ 1, default 64
    generator_dim, discriminator_dim : sequences of int ≥ 1, default (128, 128)
        Reference: 128 and (256, 256); smaller for a 2-core CPU.
    generator_lr, discriminator_lr : float > 0, default 2e-4
    generator_decay, discriminator_decay : float ≥ 0, default 1e-6
        Adam with betas (0.5, 0.9) and this weight decay (CTGAN).
    tau : float > 0, default 0.2
    cond_epsilon_fraction : float in [0, 1), default 0.1
        Share of ε spent on noisy 1-way marginals for the conditional vectors (0: uniform).
    accountant : {"data_independent", "data_dependent"}, default "data_independent"
        The data-independent bound makes ε and the stopping time functions of public quantities
        only; the data-dependent one (PATE's) can be smaller but is itself not DP (module
        docstring). With the automatic λ both give the same ε here.
    max_iter : int ≥ 1, default 3000
        Cap on the generator iterations (the reference runs until ε is reached).
    random_state : int, numpy.random.Generator, SeedSequence or None

    Attributes
    ----------
    n_records_, n_teachers_ : int
    partitions_ : list of int64 arrays (record indices of each teacher's shard)
    delta_ : float
    noise_multiplier_ : float
        λ used (the parameter, or the automatic choice).
    iterations_ : int
        Generator iterations run (0 with a warning if the first one would exceed the budget).
    epsilon_spent_ : float
        Total ε spent (marginals + PATE) ≤ epsilon.
    pate_epsilon_ : float
        ε of the PATE part (moments accountant at ``delta_``).
    alpha_ : ndarray (moments_order,)
        Accumulated log-moments.
    category_probabilities_ : dict {column: ndarray}
        p̂ used for the conditional vectors.
    ledger_ : PrivacyLedger
        ``"laplace"`` entry for the marginals (if f > 0) and one ``"pate_moments"`` entry.

    Raises
    ------
    TypeError, ValueError
        A parameter of the wrong type or out of range (message names it, its value and the
        allowed range), at :meth:`fit`; codes outside the domain at :meth:`fit`.
    """

    #: replace-one neighbours (n public)
    neighbouring = "replace_one"

    _description = (
        "PATE-CTGAN: CTGAN-style generator trained against a student discriminator labelled by a "
        "noisy vote of teachers on disjoint shards; (epsilon, delta)-DP by the PATE moments "
        "accountant, replace-one"
    )
    #: keep the (non-private) teacher ensemble after fit as ``_teachers`` (tests only)
    _keep_teachers = False
    #: conditional vectors (CTGAN's) for the generator; False: PATE-GAN's unconditional one
    _conditional = True
    #: the name in ledger notes and warnings
    _label = "PATE-CTGAN"
    _parameter_constraints = {
        **TabularSynthesizer._parameter_constraints,
        "delta": optional(check_delta),  # None: 1/(n·√n) at fit time
        "noise_multiplier": optional(real_in(0.0, low_open=True)),
        "moments_order": check_positive_int,
        "sample_per_teacher": check_positive_int,
        "teacher_iters": check_positive_int,
        "student_iters": check_positive_int,
        "batch_size": check_positive_int,
        **NETWORK_CONSTRAINTS,
        "cond_epsilon_fraction": real_in(0.0, 1.0, high_open=True),
        "accountant": one_of("data_dependent", "data_independent"),
        "max_iter": check_positive_int,
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float | None = None,
        *,
        domain=None,
        noise_multiplier: float | None = None,
        moments_order: int = 1000,
        sample_per_teacher: int = 1000,
        teacher_iters: int = 5,
        student_iters: int = 5,
        batch_size: int = 64,
        embedding_dim: int = 64,
        generator_dim: Sequence[int] = (128, 128),
        discriminator_dim: Sequence[int] = (128, 128),
        generator_lr: float = 2e-4,
        generator_decay: float = 1e-6,
        discriminator_lr: float = 2e-4,
        discriminator_decay: float = 1e-6,
        tau: float = 0.2,
        cond_epsilon_fraction: float = 0.1,
        accountant: str = "data_independent",
        max_iter: int = 3000,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.domain = domain
        self.noise_multiplier = noise_multiplier
        self.moments_order = moments_order
        self.sample_per_teacher = sample_per_teacher
        self.teacher_iters = teacher_iters
        self.student_iters = student_iters
        self.batch_size = batch_size
        self.embedding_dim = embedding_dim
        self.generator_dim = generator_dim
        self.discriminator_dim = discriminator_dim
        self.generator_lr = generator_lr
        self.generator_decay = generator_decay
        self.discriminator_lr = discriminator_lr
        self.discriminator_decay = discriminator_decay
        self.tau = tau
        self.cond_epsilon_fraction = cond_epsilon_fraction
        self.accountant = accountant
        self.max_iter = max_iter
        self.random_state = random_state

    # -- parameters ---------------------------------------------------------------------------

    @property
    def rho_(self) -> float:
        """Not defined: PATE is accounted by the moments accountant (see ``epsilon_spent_``)."""
        raise AttributeError(
            "PATECTGAN is accounted by the PATE moments accountant, not zCDP: no rho_"
        )

    def _default_n(self) -> int:
        return self.n_records_  # replace-one: n is public

    # -- fitting --------------------------------------------------------------------------------
    def _fit_codes(self, codes: dict, rng: np.random.Generator) -> None:
        torch = import_optional("torch", type(self).__name__)

        names = list(codes)
        sizes = [int(self.domain_[c]) for c in names]
        n = int(next(iter(codes.values())).shape[0])
        delta = 1.0 / (n * math.sqrt(n)) if self.delta is None else float(self.delta)
        check_delta(delta, "delta")
        eps = float(self.epsilon)
        frac = float(self.cond_epsilon_fraction) if self._conditional else 0.0
        self.n_records_ = n
        self.delta_ = delta
        shards = pate_partitions(n, int(self.sample_per_teacher), rng)
        self.partitions_ = shards
        self.n_teachers_ = len(shards)
        eps_cond = frac * eps
        if self._conditional:
            self.category_probabilities_ = self._noisy_frequencies(
                codes, names, sizes, eps_cond, rng
            )
        if self.noise_multiplier is None:
            n_q = int(self.max_iter) * int(self.student_iters) * int(self.batch_size)
            self.noise_multiplier_ = pate_noise_for_budget(
                (1.0 - frac) * eps, delta, n_q, int(self.moments_order)
            )
        else:
            self.noise_multiplier_ = float(self.noise_multiplier)

        seed = int(rng.integers(0, 2**63 - 1))
        with one_thread(torch), torch.enable_grad():
            gen = torch.Generator().manual_seed(seed)
            self._train(codes, names, sizes, shards, (1.0 - frac) * eps, delta, rng, gen, torch)

        self.epsilon_spent_ = eps_cond + self.pate_epsilon_
        self.ledger_.record(
            mechanism="pate_moments",
            epsilon=self.pate_epsilon_,
            delta=delta,
            rho=None,
            sensitivity=1.0,
            scale=1.0 / self.noise_multiplier_,
            draws=self.iterations_,
            note=(
                f"{self._label}: {self.iterations_} iterations x {self.student_iters}x{self.batch_size} "
                f"noisy teacher votes, k={self.n_teachers_} teachers, lambda={self.noise_multiplier_:.6g}, "
                f"{self.accountant} moments accountant (orders 1..{self.moments_order}), replace-one"
                + (
                    "; data-dependent: this epsilon and the stopping time are functions of the "
                    "teachers' unnoised votes and are themselves NOT private"
                    if self.accountant == "data_dependent"
                    else ""
                )
            ),
        )

    def _noisy_frequencies(self, codes, names, sizes, eps_cond, rng) -> dict:
        """Category frequencies p̂ for the conditional vectors: one Laplace release of all 1-way
        marginals at ``eps_cond`` (replace-one: L1 sensitivity 2 per column), clipped at 0 and
        normalised; uniform for a column whose noisy counts are all 0, and for all with
        ``eps_cond`` = 0 (no draw, no budget)."""
        probs = {c: np.full(s, 1.0 / s) for c, s in zip(names, sizes, strict=True)}
        if eps_cond <= 0:
            return probs
        counts = np.concatenate(
            [np.bincount(codes[c], minlength=s) for c, s in zip(names, sizes, strict=True)]
        )
        noisy = laplace(
            counts,
            sensitivity=2.0 * len(names),
            epsilon=eps_cond,
            random_state=rng,
            ledger=self.ledger_,
            note="PATE-CTGAN: noisy 1-way marginals of all columns for the conditional "
            "vectors (replace-one, L1 sensitivity 2 per column)",
        )
        for c, part in zip(names, np.split(noisy, np.cumsum(sizes)[:-1]), strict=True):
            part = np.clip(part, 0.0, None)
            if part.sum() > 0:
                probs[c] = part / part.sum()
        return probs

    def _train(self, codes, names, sizes, shards, eps_target, delta, rng, gen, torch):
        f = torch.nn.functional
        L = sum(sizes)
        k = len(shards)
        bsz, t_it, s_it = int(self.batch_size), int(self.teacher_iters), int(self.student_iters)
        lam, order = self.noise_multiplier_, int(self.moments_order)
        dd = self.accountant == "data_dependent"
        tau = float(self.tau)
        emb = int(self.embedding_dim)

        # one-hot shards, padded: (k, m_max, L)
        data, shard_sizes = onehot_shards(codes, names, sizes, shards)
        data = torch.from_numpy(data)
        shard_n = torch.from_numpy(shard_sizes.astype(np.float32))

        # conditional vectors: column uniform, category from p̂ (public after the Laplace step)
        conditions = None
        if self._conditional:
            conditions = Conditions([self.category_probabilities_[c] for c in names], sizes, torch)

        def generate(b, training=True):
            col = cat = None
            if conditions is not None:
                col, cat, cvec = conditions.draw(b, gen, torch)
            z = torch.randn((b, emb), generator=gen)
            inp = z if conditions is None else torch.cat([z, cvec], dim=-1)
            logits = gnet(inp, torch, training)
            x = block_softmax((logits + gumbel(logits.shape, gen, torch)) / tau, sizes, torch)
            return x, logits, col, cat

        ddims = [L, *self.discriminator_dim, 1]
        in_dim = emb + (L if conditions is not None else 0)
        gnet = ResidualGenerator(in_dim, self.generator_dim, L, gen, torch)
        teachers = Discriminators((k,), ddims, gen, torch)
        student = Discriminators((), ddims, gen, torch)
        d_lr, d_wd = self.discriminator_lr, self.discriminator_decay
        t_opt = adam(teachers.params, d_lr, d_wd, torch)
        s_opt = adam(student.params, d_lr, d_wd, torch)
        g_opt = adam(gnet.parameters(), self.generator_lr, self.generator_decay, torch)
        ones_t = torch.ones((k, bsz))

        alpha = np.zeros(order)
        iterations = 0
        for _ in range(int(self.max_iter)):
            # 2. teachers, each on its own shard vs generated data
            for _ in range(t_it):
                idx = (torch.rand((k, bsz), generator=gen) * shard_n[:, None]).long()
                idx = torch.minimum(idx, (shard_n[:, None] - 1).long())
                real = data[torch.arange(k)[:, None], idx]  # (k, B, L)
                with torch.no_grad():
                    fake = generate(bsz)[0]
                out_r = teachers(real, torch, gen)
                out_f = teachers(fake.expand(k, bsz, L), torch, gen)
                # sum over teachers of each teacher's mean BCE: gradients stay per teacher
                loss = (
                    f.binary_cross_entropy_with_logits(out_r, ones_t, reduction="none").mean(-1)
                    + f.binary_cross_entropy_with_logits(out_f, 0 * ones_t, reduction="none").mean(
                        -1
                    )
                ).sum()
                t_opt.zero_grad(set_to_none=True)
                loss.backward()
                t_opt.step()
            # 3. student batches and their votes; check the budget before any noise is drawn
            with torch.no_grad():
                s_x = generate(s_it * bsz)[0].reshape(s_it, bsz, L)
                votes = (teachers(s_x.reshape(1, s_it * bsz, L).expand(k, -1, -1), torch) > 0).sum(
                    0
                )
            votes = votes.numpy().astype(np.int64)
            tentative = alpha + pate_moments(votes, k, lam, order, data_dependent=dd)
            if pate_epsilon(tentative, delta) > eps_target:
                break
            alpha = tentative
            labels = noisy_vote_labels(votes, k, lam, rng).reshape(s_it, bsz)
            labels = torch.from_numpy(labels.astype(np.float32))
            # 4. student on the noisy labels, then the generator against the student
            for s in range(s_it):
                out = student(s_x[s], torch, gen)
                loss = f.binary_cross_entropy_with_logits(out, labels[s])
                s_opt.zero_grad(set_to_none=True)
                loss.backward()
                s_opt.step()
            x, logits, col, cat = generate(bsz)
            out = student(x, torch, gen)
            loss = f.binary_cross_entropy_with_logits(out, torch.ones(bsz))
            if conditions is not None:
                loss = loss + conditional_loss(logits, col, cat, sizes, torch)
            g_opt.zero_grad(set_to_none=True)
            loss.backward()
            g_opt.step()
            iterations += 1

        if iterations == 0:
            warnings.warn(
                f"one {self._label} iteration already costs more than the PATE budget {eps_target:.4g}: "
                "no training iteration is run and the released generator is the untrained initial one",
                UserWarning,
                stacklevel=4,
            )
        gnet.freeze()
        self._gnet = gnet
        # the teachers saw raw records (not DP): dropped unless kept for a test
        self._teachers = teachers if self._keep_teachers else None
        self._student = student
        self.alpha_ = alpha
        self.iterations_ = iterations
        self.pate_epsilon_ = pate_epsilon(alpha, delta) if iterations > 0 else 0.0

    # -- sampling -------------------------------------------------------------------------------
    def _sample_codes(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        """Post-processing: c from p̂ (PATE-CTGAN), z ~ N(0, I), one category per column by
        Gumbel-max on the generator's logits (BatchNorm with its running statistics)."""
        torch = import_optional("torch", type(self).__name__)
        sizes = [int(self.domain_[c]) for c in self.columns_]
        return sample_records(
            self._gnet,
            self.category_probabilities_ if self._conditional else None,
            self.columns_,
            sizes,
            int(self.embedding_dim),
            n,
            rng,
            torch,
        )


class PATEGAN(PATECTGAN):
    """PATE-GAN (Jordon, Yoon & van der Schaar 2019 [``jordon2019``], Algorithm 1) for
    integer-coded discrete tables; (ε, δ)-DP under replace-one neighbours.

    k teacher discriminators, each trained on its own disjoint shard of the records against
    generated ones; a student discriminator that sees generated records only, labelled by the
    teachers' vote with Laplace noise (each vote through :func:`noisy_vote_labels`, accounted by
    the PATE moments accountant of :mod:`synthtrust.privacy.pate`, one ``ledger_`` entry); a
    generator trained against the student. The generator is unconditional: z ~ N(0, I) →
    residual blocks → one softmax block per column (the discriminators see its Gumbel-softmax
    relaxation, τ = ``tau``; records are drawn by Gumbel-max). PATE-CTGAN
    (:class:`PATECTGAN`, Rosenblatt et al. 2020 [``rosenblatt2020``]) is this algorithm with
    CTGAN's conditional vectors added; here the whole ε goes to the teachers' votes.

    Parameters
    ----------
    epsilon, delta, domain, noise_multiplier, moments_order, max_iter, random_state
        As :class:`PATECTGAN`, whose other parameters this class takes too, with the same
        defaults (the teachers, the student, the networks and their training), except
        ``cond_epsilon_fraction``: there are no conditional vectors. Jordon et al.'s Algorithm 1
        has the same loop: ``teacher_iters`` (their n_T) teacher steps, ``student_iters`` (n_S)
        student steps on noisy labels, one generator step, until the moments accountant reaches
        ε (or ``max_iter``).

    Attributes
    ----------
    n_records_, n_teachers_, partitions_, delta_, noise_multiplier_, iterations_, alpha_
        As :class:`PATECTGAN`.
    epsilon_spent_, pate_epsilon_ : float
        Equal: no marginals are released.
    ledger_ : PrivacyLedger
        One ``"pate_moments"`` entry.

    Raises
    ------
    TypeError, ValueError
        A parameter of the wrong type or out of range (message names it, its value and the
        allowed range), at :meth:`fit`; codes outside the domain at :meth:`fit`.

    References
    ----------
    Jordon et al. 2019 [``jordon2019``], §4 and Algorithm 1; Papernot et al. 2017 (the moments
    bound; :mod:`synthtrust.privacy.pate`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [0, 1, 2, 1] * 500, "b": [1, 0, 0, 1] * 500})
    >>> gan = PATEGAN(5.0, max_iter=3, batch_size=16, random_state=0).fit(df)
    >>> gan.n_teachers_, gan.iterations_, gan.sample(4).shape
    (2, 3, (4, 2))
    """

    _description = (
        "PATE-GAN: unconditional generator trained against a student discriminator labelled by a "
        "noisy vote of teachers on disjoint shards; (epsilon, delta)-DP by the PATE moments "
        "accountant, replace-one"
    )
    _conditional = False
    _label = "PATE-GAN"
    _parameter_constraints = {
        k: v for k, v in PATECTGAN._parameter_constraints.items() if k != "cond_epsilon_fraction"
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float | None = None,
        *,
        domain=None,
        noise_multiplier: float | None = None,
        moments_order: int = 1000,
        sample_per_teacher: int = 1000,
        teacher_iters: int = 5,
        student_iters: int = 5,
        batch_size: int = 64,
        embedding_dim: int = 64,
        generator_dim: Sequence[int] = (128, 128),
        discriminator_dim: Sequence[int] = (128, 128),
        generator_lr: float = 2e-4,
        generator_decay: float = 1e-6,
        discriminator_lr: float = 2e-4,
        discriminator_decay: float = 1e-6,
        tau: float = 0.2,
        accountant: str = "data_independent",
        max_iter: int = 3000,
        random_state=None,
    ):
        params = {name: value for name, value in locals().items() if name != "self"}
        for name, value in params.items():  # each parameter as given (sklearn's convention)
            setattr(self, name, value)

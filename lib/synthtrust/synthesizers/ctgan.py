"""CTGAN for tables of discrete columns (Xu, Skoularidou, Cuesta-Infante & Veeramachaneni,
"Modeling tabular data using conditional GAN", NeurIPS 2019 [``xu2019``]), written for the
package from the paper (§4) and the defaults of its authors' ``ctgan`` package; no code of
theirs is used. Not differentially private (``ledger_ is None``): the generator of Houssiau et
al. (2022) [``houssiau2022``] Tables 1–3 and of Platzer & Reutterer (2021) [``platzer2021``]
Figures 7–8.

Model (§4.2–4.4 of the paper; every column is discrete here, so the mode-specific normalisation
of continuous columns is not needed: a record is the one-hot vector of its levels, length L)

* **Conditional vector** c: a column drawn uniformly, then one of its levels with probability
  ∝ log(1 + count) (``log_frequency=True``, the paper's "training-by-sampling"; ∝ count with
  ``False``), one-hot over the L positions.
* **Training-by-sampling**: the real batch is drawn to match the conditions: for each c of a
  (permuted) batch of conditions, one record drawn uniformly among the training records that
  have the conditioned level.
* **Generator** G(z, c), z ~ N(0, I) of ``embedding_dim``: residual blocks
  h ← [ReLU(BatchNorm(Linear(h))), h] for each width of ``generator_dim``, then Linear → L
  logits; each column's block goes through the Gumbel-softmax with τ = 0.2.
* **Critic** (PacGAN, ``pac`` records per critic input): [x, c] of ``pac`` records concatenated
  (length pac·2L) → Linear → LeakyReLU(0.2) → Dropout(0.5) for each width of
  ``discriminator_dim`` → Linear → one score. WGAN-GP loss: E[D(fake)] − E[D(real)] + 10·E[(‖∇D(x̂)‖
  − 1)²] on one interpolate x̂ = αx + (1 − α)x̃ per pac group.
* **Generator loss**: −E[D(G(z, c), c)] + the cross-entropy between the conditioned column's
  logits and the conditioned level (averaged over the batch).
* Adam (betas 0.5, 0.9) with learning rate 2e-4 and weight decay 1e-6 for both networks;
  ``discriminator_steps`` critic steps per generator step.

Sampling: conditions drawn from the data's level frequencies (the package's
``sample_original_condvec``), then one level per column by Gumbel-max on the logits, which is
the argmax of the Gumbel-softmax the package takes; BatchNorm with its running statistics.

Differences from the ``ctgan`` package: ``max_iter``, when given, counts generator steps in
place of ``epochs`` (an epoch is max(1, n // batch_size) steps, as the package's); the networks are
explicit tensors initialised from the estimator's seed, trained on one thread (the same numbers
on every machine); continuous columns are not modelled (discretise them with a
:class:`synthtrust.domain.Domain`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._optional import import_optional
from .._validation import (
    check_positive_int,
    check_random_state,
    check_random_state_param,
    one_of,
    optional,
)
from ._code_tables import CodeTableGenerator
from ._conditional_gan import (
    NETWORK_CONSTRAINTS,
    Conditions,
    Discriminators,
    ResidualGenerator,
    adam,
    conditional_loss,
    sample_records,
)
from ._torch_tables import block_softmax, column_offsets, gumbel, one_thread, onehot_shards
from .base import card_params, check_domain_param, not_dp_card

__all__ = ["CTGAN", "level_probabilities"]

_NOT_DP = (
    "not DP: the critic sees the training records at every step; no privacy guarantee and no "
    "privacy budget"
)
_GP_WEIGHT = 10.0  # λ of the gradient penalty (WGAN-GP, as the paper)


def level_probabilities(counts: np.ndarray, log_frequency: bool) -> np.ndarray:
    """The conditional vector's level distribution of one column from its level counts:
    ∝ log(1 + count) (``log_frequency``, Xu et al. 2019 §4.3) or ∝ count.

    Parameters
    ----------
    counts : array of int ≥ 0, shape (levels,), at least one positive.
    log_frequency : bool

    Returns
    -------
    float64 array (levels,) summing to 1; 0 exactly where the count is 0.

    Examples
    --------
    >>> level_probabilities(np.array([3, 0, 1]), log_frequency=False)
    array([0.75, 0.  , 0.25])
    >>> level_probabilities(np.array([3, 0, 1]), log_frequency=True).round(4)
    array([0.6667, 0.    , 0.3333])
    """
    w = np.log1p(counts) if log_frequency else np.asarray(counts, dtype=float)
    return w / w.sum()


class _LevelRows:
    """Training-by-sampling: a uniform training record among those with a given level.

    ``codes`` and ``counts`` are {column: int64 codes (n,)} and {column: level counts}, both in
    the order of ``names``."""

    def __init__(self, codes: dict, counts: dict, names: list, torch):
        self.by_level = torch.from_numpy(
            np.stack([np.argsort(codes[c], kind="stable") for c in names]).astype(np.int64)
        )
        # where each level's records start in its column's sorted order
        starts = np.concatenate([column_offsets(counts[c]) for c in names])
        self.counts = torch.from_numpy(np.concatenate([counts[c] for c in names]).astype(np.int64))
        self.starts = torch.from_numpy(starts)
        self.offsets = torch.from_numpy(column_offsets([len(counts[c]) for c in names]))

    def draw(self, col, level, gen, torch):
        """Record indices (b,): for each (column, level) pair, a uniform record with that level
        (the level must occur in the data)."""
        pos = self.offsets[col] + level
        count = self.counts[pos]
        pick = (torch.rand(col.shape, generator=gen) * count).long().clamp_(max=count - 1)
        return self.by_level[col, self.starts[pos] + pick]


class CTGAN(CodeTableGenerator):
    """CTGAN (Xu et al. 2019, re-implemented) for integer-coded discrete tables; not DP. See the
    module docstring for the model and the differences from the authors' package.

    Parameters
    ----------
    embedding_dim : int ≥ 1, default 128
        Dimension of z.
    generator_dim, discriminator_dim : sequences of int ≥ 1, default (256, 256)
        Hidden widths of the generator's residual blocks and of the critic.
    generator_lr, discriminator_lr : float > 0, default 2e-4
    generator_decay, discriminator_decay : float ≥ 0, default 1e-6
        Adam's weight decay (betas 0.5, 0.9).
    batch_size : int ≥ 1, default 500
        Records a step; a multiple of ``pac``.
    discriminator_steps : int ≥ 1, default 1
        Critic steps per generator step.
    log_frequency : bool, default True
        Conditional levels ∝ log(1 + count) at training time (:func:`level_probabilities`).
    pac : int ≥ 1, default 10
        Records per critic input (PacGAN).
    tau : float > 0, default 0.2
        Gumbel-softmax temperature.
    epochs : int ≥ 1, default 300
        The package's ``epochs``: with ``max_iter=None``, epochs·max(1, n // batch_size)
        generator steps (Houssiau et al. 2022 [``houssiau2022``], §4.2, ran 10).
    max_iter : int ≥ 1 or None, default None
        Generator steps, in place of ``epochs`` when given.
    domain : dict {column: levels}, synthtrust.domain.Domain or None
        As for the other code-table generators (levels inferred when None).
    random_state : None, int, SeedSequence or numpy Generator

    Attributes
    ----------
    columns_, domain_, n_records_
    iterations_ : int
        Generator steps run.
    condition_probabilities_ : dict {column: ndarray}
        Level distribution of the training conditions (log-frequency or frequency).
    level_frequencies_ : dict {column: ndarray}
        The data's level frequencies, for the conditions at sampling time.
    wasserstein_ : ndarray, shape (``iterations_``,)
        The critic's Wasserstein estimate E[D(real)] − E[D(fake)] at its last step of each
        iteration (a training curve; no penalty term), as GSWGAN's.
    ledger_ : None
        Not DP.

    Raises
    ------
    TypeError, ValueError
        At :meth:`fit`: a parameter of the wrong type or out of range (the message names it),
        ``batch_size`` not a multiple of ``pac``, and the input errors of the code-table
        generators (not a DataFrame, NaN, codes outside the domain).

    References
    ----------
    Xu et al. 2019 [``xu2019``], §4 (conditional generator, training-by-sampling); Lin et al. 2018
    [``lin2018``] (the packed critic); Gulrajani et al. 2017, "Improved training of Wasserstein
    GANs", NeurIPS (the gradient penalty).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [0, 1, 1, 0] * 50, "b": [1, 1, 0, 0] * 50})
    >>> gan = CTGAN(batch_size=20, pac=10, max_iter=5, random_state=0).fit(df)
    >>> gan.sample(3).shape, gan.iterations_, gan.ledger_ is None
    ((3, 2), 5, True)
    """

    _description = (
        "CTGAN: conditional generator with training-by-sampling against a PacGAN WGAN-GP critic, "
        "Gumbel-softmax outputs"
    )
    _parameter_constraints = {
        **NETWORK_CONSTRAINTS,
        "batch_size": check_positive_int,
        "discriminator_steps": check_positive_int,
        "log_frequency": one_of(True, False),
        "pac": check_positive_int,
        "epochs": check_positive_int,
        "max_iter": optional(check_positive_int),
        "domain": check_domain_param,
        "random_state": check_random_state_param,
    }

    def __init__(
        self,
        *,
        embedding_dim: int = 128,
        generator_dim: Sequence[int] = (256, 256),
        discriminator_dim: Sequence[int] = (256, 256),
        generator_lr: float = 2e-4,
        generator_decay: float = 1e-6,
        discriminator_lr: float = 2e-4,
        discriminator_decay: float = 1e-6,
        batch_size: int = 500,
        discriminator_steps: int = 1,
        log_frequency: bool = True,
        pac: int = 10,
        tau: float = 0.2,
        epochs: int = 300,
        max_iter: int | None = None,
        domain=None,
        random_state=None,
    ):
        self.embedding_dim = embedding_dim
        self.generator_dim = generator_dim
        self.discriminator_dim = discriminator_dim
        self.generator_lr = generator_lr
        self.generator_decay = generator_decay
        self.discriminator_lr = discriminator_lr
        self.discriminator_decay = discriminator_decay
        self.batch_size = batch_size
        self.discriminator_steps = discriminator_steps
        self.log_frequency = log_frequency
        self.pac = pac
        self.tau = tau
        self.epochs = epochs
        self.max_iter = max_iter
        self.domain = domain
        self.random_state = random_state

    def _check_param_relations(self) -> None:
        if int(self.batch_size) % int(self.pac):
            raise ValueError(
                f"batch_size must be a multiple of pac = {self.pac} (PacGAN packs pac records "
                f"per critic input), got batch_size = {self.batch_size}"
            )

    # -- fitting ----------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Train the generator; returns ``self``.

        Parameters
        ----------
        X : pandas.DataFrame, shape (n_records, n_columns)
            Integer codes (raw values when ``domain`` is a Domain).
        y : ignored

        Raises
        ------
        TypeError, ValueError
            See the class docstring.
        """
        torch = import_optional("torch", "CTGAN")
        self._validate_params()
        columns, domain, codes = self._codes(X)
        names = list(columns)
        sizes = [int(domain[c]) for c in names]
        codes = dict(zip(names, codes, strict=True))
        rng = check_random_state(self.random_state)
        self._rng = rng
        self.columns_ = names
        self.domain_ = dict(domain)
        n = self.n_records_ = int(len(codes[names[0]]))
        counts = {c: np.bincount(codes[c], minlength=s) for c, s in zip(names, sizes, strict=True)}
        self.level_frequencies_ = {c: level_probabilities(v, False) for c, v in counts.items()}
        self.condition_probabilities_ = {
            c: level_probabilities(v, bool(self.log_frequency)) for c, v in counts.items()
        }
        steps = self.max_iter
        if steps is None:
            steps = int(self.epochs) * max(1, n // int(self.batch_size))
        seed = int(rng.integers(0, 2**63 - 1))
        with one_thread(torch), torch.enable_grad():
            gen = torch.Generator().manual_seed(seed)
            self._train(codes, counts, names, sizes, int(steps), gen, torch)
        self._fitted = True
        return self

    def _train(self, codes, counts, names, sizes, steps, gen, torch):
        L = sum(sizes)
        bsz, pac, tau = int(self.batch_size), int(self.pac), float(self.tau)
        emb = int(self.embedding_dim)
        every = [np.arange(self.n_records_)]
        onehot = torch.from_numpy(onehot_shards(codes, names, sizes, every)[0][0])
        conditions = Conditions([self.condition_probabilities_[c] for c in names], sizes, torch)
        level_rows = _LevelRows(codes, counts, names, torch)

        gnet = ResidualGenerator(emb + L, self.generator_dim, L, gen, torch)
        critic = Discriminators((), [pac * 2 * L, *self.discriminator_dim, 1], gen, torch)
        g_opt = adam(gnet.parameters(), self.generator_lr, self.generator_decay, torch)
        d_opt = adam(critic.params, self.discriminator_lr, self.discriminator_decay, torch)

        def generate(cvec):
            z = torch.randn((cvec.shape[0], emb), generator=gen)
            logits = gnet(torch.cat([z, cvec], dim=-1), torch, True)
            return block_softmax(
                (logits + gumbel(logits.shape, gen, torch)) / tau, sizes, torch
            ), logits

        def packed(x, cvec):
            return torch.cat([x, cvec], dim=-1).reshape(bsz // pac, pac * 2 * L)

        wass = np.zeros(steps)
        for t in range(steps):
            for _ in range(int(self.discriminator_steps)):
                col, level, cvec = conditions.draw(bsz, gen, torch)
                with torch.no_grad():
                    fake = packed(generate(cvec)[0], cvec)
                perm = torch.randperm(bsz, generator=gen)
                real = packed(
                    onehot[level_rows.draw(col[perm], level[perm], gen, torch)], cvec[perm]
                )
                alpha = torch.rand((bsz // pac, 1), generator=gen)
                mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
                (grad,) = torch.autograd.grad(
                    critic(mixed, torch, gen).sum(), mixed, create_graph=True
                )
                penalty = _GP_WEIGHT * ((grad.norm(2, dim=1) - 1) ** 2).mean()
                w = critic(real, torch, gen).mean() - critic(fake, torch, gen).mean()
                d_opt.zero_grad(set_to_none=True)
                (penalty - w).backward()
                d_opt.step()
            wass[t] = float(w.detach())
            col, level, cvec = conditions.draw(bsz, gen, torch)
            x, logits = generate(cvec)
            loss = -critic(packed(x, cvec), torch, gen).mean() + conditional_loss(
                logits, col, level, sizes, torch
            )
            g_opt.zero_grad(set_to_none=True)
            loss.backward()
            g_opt.step()
        gnet.freeze()
        self._gnet = gnet
        self.iterations_ = steps
        self.wasserstein_ = wass

    # -- sampling ---------------------------------------------------------------------------------
    def _sample_matrix(self, n: int, rng: np.random.Generator) -> np.ndarray:
        torch = import_optional("torch", "CTGAN")
        sizes = [int(self.domain_[c]) for c in self.columns_]
        out = sample_records(
            self._gnet,
            self.level_frequencies_,
            self.columns_,
            sizes,
            int(self.embedding_dim),
            n,
            rng,
            torch,
        )
        return out.to_numpy(dtype=np.int64)

    # -- documentation ----------------------------------------------------------------------------
    def card(self) -> dict:
        """A small generator card: name, description, parameters and the privacy status."""
        params = card_params(self)
        return not_dp_card(
            self,
            _NOT_DP,
            params,
            lambda: {
                "domain": self.domain_,
                "n_records": self.n_records_,
                "columns": list(self.columns_),
                "iterations": self.iterations_,
            },
        )

"""GS-WGAN for tables of discrete columns: a Wasserstein GAN whose generator only ever receives
sanitised gradients from an ensemble of non-private discriminators on disjoint data shards.

Source: D. Chen, T. Orekondy, M. Fritz, "GS-WGAN: a gradient-sanitized approach for learning
differentially private generators", NeurIPS 2020 [``chen2020``]; defaults, algorithm and
accounting as in the reference implementation (``DingfanChen/GS-WGAN`` @ 62e77b3 [``gswgan2022``]),
written from a description of it, not from its code. The tabular port follows Montoya Perez et
al. (2024) [``montoyaperez2024``], §4.2: a fully connected three-layer generator,
WGAN-GP hyperparameters (Gulrajani et al. 2017), subsampling rate γ = 1/500 (disjoint subsets
of 40 records out of 20 000), C = 1, noise multiplier 1.07, generators saved at several ε during
one training run.

Data and networks
-----------------
Each column with k levels is one-hot encoded; a record is a vector of L = Σ k entries.

* Generator G: z ~ N(0, I_{z_dim}) → Linear(z_dim, hidden) → ReLU → Linear(hidden, hidden) → ReLU
  → Linear(hidden, L) = logits, one block of k logits per column. During training the
  discriminator sees the **Gumbel-softmax relaxation** (Jang, Gu & Poole 2017) of each block,
  softmax((logits + g)/τ) with g i.i.d. standard Gumbel and temperature τ = ``tau`` (default 0.2,
  as CTGAN); small τ makes the relaxed vectors close to one-hot (the real records are exactly
  one-hot). :meth:`GSWGAN.sample` draws one category per column as argmax(logits + g) (the
  Gumbel-max trick: exactly a draw from softmax(logits)).
* Discriminators (WGAN critics): K MLPs Linear(L, hidden) → LeakyReLU(0.2) → Linear(hidden,
  hidden) → LeakyReLU(0.2) → Linear(hidden, 1), stored as **one batched ensemble** (weights of
  shape (K, in, out), batched matmul, stacked Adam state), so pretraining all K is one batched
  computation and a private iteration indexes one member. The gradient of a critic with respect to
  its input, needed for the gradient penalty and the sanitiser, is written out in closed form
  (∂D/∂x = W₁ diag φ'(a₁) W₂ diag φ'(a₂) w₃; φ' is piecewise constant), so no double
  backpropagation is needed.

Implementation (CPU, one thread): no autograd — the critic's WGAN-GP gradient and the
generator's backward pass (per-column softmax, 1/τ, three Linear layers) are written out and
checked against autograd in the tests; Adam is PyTorch's fused kernel. In the batched pretraining
a real record enters the first layer as the sum of the c rows of W₁ of its one-hot entries (and
its part of ∂/∂W₁ is a scatter-add), the first layer of x̂ = αx_real + (1−α)x_fake is
α·a₁(x_real) + (1−α)·a₁(x_fake) (it is affine), and the K (critic, generator) pairs are processed
a chunk of ``_CHUNK`` at a time so that the intermediates stay in the cache; every random number
is drawn in the same order as an unchunked loop, so the chunk size does not change any result.
These change only the floating-point rounding, not the algorithm or the random draws: a run
equals the previous dense, autograd-based implementation (kept as the baseline of
``benchmarks/bench_gan.py``) to ≈ 1e-7 over short runs
(tests/synthesizers/gan/test_gan_estimator.py); over thousands of iterations the rounding
differences grow as in any GAN, so quality is compared by the benchmark's TVD check instead.

Algorithm (the reference implementation's, adapted to tables)
--------------------------------------------------------------
1. **Partition**: the n records are shuffled once (the synthesizer's generator) and split into
   K = n // ``subset_size`` disjoint shards (sizes differ by at most one, all ≥ subset_size);
   discriminator j only ever sees shard j.
2. **Warm start** (``pretrain_iterations``): every discriminator is trained non-privately on its
   own shard against its own throw-away generator (as GS-WGAN's ``pretrain.py``: critic_iters
   critic steps then one generator step per iteration; here all K pairs in one batched
   computation). Not charged: only the released generator G is a function of the outputs that
   are accounted, and G only ever receives sanitised gradients. Discriminator j (and its
   throw-away generator) is a function of shard j and public randomness only, which is what the
   subsampling argument needs: on neighbouring datasets (one record replaced) every
   discriminator except the one holding the replaced record is identical given the same
   history. The Adam state of the critics is reset after pretraining (as the reference, which
   creates new optimisers).
3. **Iterations**: pick one discriminator j uniformly at random (a record's shard is used with
   probability q = 1/K); ``critic_iters`` critic steps on D_j with loss
   mean D(fake) − mean D(real) + gp_weight·mean(‖∇ₓD(x̂)‖₂ − 1)² + drift_weight·mean D(real)²
   (x̂ = αx_real + (1−α)x_fake, α ~ U(0, 1); WGAN-GP; drift term of PGGAN); then one generator step
   through the frozen D_j with loss −mean D_j(G(z)) over B = ``batch_size`` samples: the gradient
   of that loss with respect to each generated sample (the discriminator's input) is clipped to L2
   norm C/B (C = ``clip_bound``) and gets Gaussian noise of std (C/B)·σ·2 (σ =
   ``noise_multiplier``; 2 = replace-one sensitivity of a clipped vector) before it flows into G
   (:func:`sanitize_gradients`). Adam (``lr``, ``betas``) for G and each D.
4. **Release**: an exponential moving average of G's parameters with decay
   min(1 − 1/(t+1), ``ema_decay``) at iteration t = 0, 1, … (the reference's warm-up) is the
   released model.

Real batches are uniform random subsets of b = min(``batch_size``, ``subset_size``) records of
the shard (without replacement; so if a shard is smaller than the batch the batch is a random
subset of that size, never a resample), with b fake samples; the critic is not released, so the
real-batch size does not enter the accounting.

Accounting (:mod:`synthtrust.privacy.rdp`, :mod:`synthtrust.privacy.pld`)
-----------------------------------------------------------------------------
The B sanitised gradients of an iteration all depend on the *same* critic, i.e. on one shard.
The default (``composition="per_iteration"``, ``conversion="pld"``) is the standard analysis: T
compositions of one Gaussian release of the B gradients (multiplier σ/√B) on 1 of K shards drawn
without replacement, replace-one, composed by dp-accounting's pessimistic privacy loss
distribution — an (ε, δ) guarantee, and a tight one (within 1e-2 nats of the lower bound of the
worst case, :func:`synthtrust.privacy.rdp.gswgan_epsilon_lower_bound`). It is expensive: one
iteration at K = 500, B = 32, σ = 1.07, δ = 1e-5 costs ε ≈ 20.6, so at ε ≤ 20 no private
iteration is affordable and the released generator is the untrained one (with a warning).

``composition="per_sample"`` (with ``conversion="classic"``) is the accounting of GS-WGAN's
reference code [``gswgan2022``]: T·B compositions with multiplier σ, each per-sample gradient
counted as a query on its own subsample (reproduces the reference's ε = 9.99 for K = 1000,
T = 20 000, B = 32, σ = 1.07, δ = 1e-5). Its ε is the **nominal ε of the reference code, not an
(ε, δ) guarantee**: the 15 iterations it labels ε = 1 at K = 500 have a true ε of at least 29.6,
the 4 987 it labels ε = 10 at least 224. Training stops at the largest T ≤ ``max_iter`` with
ε(T) ≤ ``epsilon`` under the chosen accounting; the ledger always records the standard
analysis's ε of the iterations run (``epsilon_guarantee_``), with the nominal ε in its note.

Neighbouring relation: **replace-one** (n public; the size of the shards and K are derived from
n). :meth:`GSWGAN.sample` without ``n`` returns n rows.

Non-private mode: ``noise_multiplier=0`` rescales every per-sample gradient to norm exactly C/B
and adds no noise (the reference's non-DP mode); ε = ∞ is recorded, training runs
``max_iter`` iterations.
"""

from __future__ import annotations

from ...privacy.gradients import sanitize_gradients
from .estimator import GSWGAN, REFERENCE_SETTINGS
from .shards import partition_shards

__all__ = ["GSWGAN", "REFERENCE_SETTINGS", "partition_shards", "sanitize_gradients"]

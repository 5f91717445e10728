"""GS-WGAN's training loop: the batched non-private warm start of the K (critic, throw-away
generator) pairs, then the private iterations (one discriminator per iteration, sanitised
generator gradients, EMA of the generator, snapshots at the checkpoints); steps 2–4 of the
algorithm in the package docstring (:mod:`synthtrust.synthesizers.gan`).

Source: Chen, Orekondy & Fritz (NeurIPS 2020) [``chen2020``]; ``pretrain.py`` and ``main.py`` of
the reference implementation [``gswgan2022``].
"""

from __future__ import annotations

import time

import numpy as np

from ...privacy.gradients import sanitize_gradients
from .._torch_tables import code_shards, gumbel, onehot_shards
from .adam import FusedAdam
from .networks import (
    FlatMLP,
    critic_grads,
    critic_input_grad,
    generator_backward,
    generator_forward,
    row_index,
)

_CHUNK = 25  # (critic, generator) pairs pretrained together (cache-sized intermediates)


class GSWGANTraining:
    """The training loop of :class:`~synthtrust.synthesizers.gan.GSWGAN`, as a mixin: ``_train``
    reads the estimator's hyperparameters from ``self`` and records ``_phase_seconds``."""

    def _train(self, codes, names, levels, shards, total_it, cp_it, gen, torch):
        numeric = self._numeric_mask(names)
        sizes = [1 if num else size for size, num in zip(levels, numeric, strict=True)]
        dense = any(numeric)  # numeric slots: real records enter the critics densely
        L = sum(sizes)
        k = len(shards)
        h, zd = int(self.hidden), int(self.z_dim)
        bsz = int(self.batch_size)
        b = min(bsz, int(self.subset_size))
        ci = int(self.critic_iters)
        tau = float(self.tau)
        gp_w, dr_w = float(self.gp_weight), float(self.drift_weight)
        lr, betas = float(self.lr), (float(self.betas[0]), float(self.betas[1]))
        clip, sigma = self.clip_bound, float(self.noise_multiplier)
        clock = time.perf_counter
        t_start = clock()

        # records of every shard as the positions of their one-hot entries (K, m_max, columns),
        # for the ensemble, and encoded (K, m_max, L), for one critic at a time (and for the
        # ensemble when there are numeric slots)
        cols, shard_sizes = code_shards(codes, names, levels, shards)
        m_max = cols.shape[1]
        cols = torch.from_numpy(cols)
        data = torch.from_numpy(onehot_shards(codes, names, levels, shards, numeric)[0])
        pad = torch.from_numpy(np.arange(m_max)[None, :] >= shard_sizes[:, None])  # (K, m_max)
        any_pad = bool(pad.any())

        def real_rows(j, reps):
            """Uniform random subsets of b records, without replacement: of every shard (j None),
            as the positions of their one-hot entries (K, reps, b, c) or, with numeric slots,
            encoded (K, reps, b, L); or of shard j, encoded (reps, b, L)."""
            if j is None:
                keys = torch.rand((k, reps, m_max), generator=gen)
                if any_pad:
                    keys.masked_fill_(pad[:, None, :], 2.0)
                idx = keys.argsort(dim=-1)[..., :b].reshape(k, reps * b)
                return (data if dense else cols)[torch.arange(k)[:, None], idx].reshape(
                    k, reps, b, -1
                )
            keys = torch.rand((reps, m_max), generator=gen)
            if any_pad:
                keys.masked_fill_(pad[j][None, :], 2.0)
            return data[j][keys.argsort(dim=-1)[:, :b]]

        def relaxed(p, z):
            """Gumbel-softmax samples of the generator(s) with parameters p (+ backward cache)."""
            noise = gumbel((*z.shape[:-1], L), gen, torch)
            return generator_forward(p, z, noise, tau, sizes, torch, numeric)

        critic = FlatMLP((k,), [L, h, h, 1], gen, torch).tensors()
        d_opt = FusedAdam(critic, lr, betas, n_members=k, torch=torch)
        gnet = FlatMLP((), [zd, h, h, L], gen, torch).tensors()

        # -- 2. non-private warm start: every critic against its own throw-away generator
        n_pre = int(self.pretrain_iterations)
        if n_pre > 0:
            pre_g = FlatMLP((k,), [zd, h, h, L], gen, torch).tensors()
            pg_opt = FusedAdam(pre_g, lr, betas, n_members=k, torch=torch)
            chunks = [slice(c, min(c + _CHUNK, k)) for c in range(0, k, _CHUNK)]
            for _ in range(n_pre):
                # the random draws of one iteration, for all K pairs, in the order of the
                # unbatched algorithm (so the numbers do not depend on the chunking)
                picked = real_rows(None, ci)  # (K, ci, b, c) one-hot positions, or (K, ci, b, L)
                z = torch.randn((k, ci * b, zd), generator=gen)
                noise = gumbel((k, ci * b, L), gen, torch)
                alpha = torch.rand((k, ci, b, 1), generator=gen)
                z2 = torch.randn((k, bsz, zd), generator=gen)
                noise2 = gumbel((k, bsz, L), gen, torch)
                # the K (critic, generator) pairs are independent: a chunk of them at a time, so
                # that the intermediate tensors stay in the cache
                for c in chunks:
                    crit, pg = [x[c] for x in critic], [x[c] for x in pre_g]
                    if not dense:
                        rows = row_index(picked[c], (c.stop - c.start,), L, torch)
                    fake = generator_forward(pg, z[c], noise[c], tau, sizes, torch, numeric)[0]
                    fake = fake.view(-1, ci, b, L)
                    for s in range(ci):
                        real = {"xr": picked[c, s]} if dense else {"rows": rows[:, s]}
                        _, grads = critic_grads(
                            crit, fake[:, s], alpha[c, s], gp_w, dr_w, torch, **real
                        )
                        d_opt.step(grads, c)
                    y, cache = generator_forward(pg, z2[c], noise2[c], tau, sizes, torch, numeric)
                    gy = critic_input_grad(crit, y, torch).mul_(-1.0 / bsz)
                    pg_opt.step(generator_backward(pg, cache, gy, tau, sizes, torch, numeric), c)
            d_opt.reset()
            del pre_g, pg_opt
        t_pre = clock()

        # -- 3. private iterations
        g_opt = FusedAdam(gnet, lr, betas, torch=torch)
        ema = [x.clone() for x in gnet]
        todo = sorted(set(cp_it))
        snaps_at = {}
        if todo and todo[0] == 0:
            snaps_at[todo.pop(0)] = [x.clone() for x in ema]
        wass = torch.zeros(total_it)
        decay = float(self.ema_decay)
        for t in range(total_it):
            # drawn per iteration so that a run is a prefix of any longer run with the same seed
            j = int(torch.randint(0, k, (1,), generator=gen))
            dj = [x[j] for x in critic]
            real = real_rows(j, ci)  # (ci, b, L)
            fake = relaxed(gnet, torch.randn((ci * b, zd), generator=gen))[0].reshape(ci, b, L)
            alpha = torch.rand((ci, b, 1), generator=gen)
            for s in range(ci):
                w, grads = critic_grads(
                    dj, fake[s], alpha[s], gp_w, dr_w, torch, xr=real[s], wasserstein=s == ci - 1
                )
                d_opt.step(grads, index=j)
            wass[t] = w
            # generator step through the frozen D_j with sanitised per-sample gradients
            y, cache = relaxed(gnet, torch.randn((bsz, zd), generator=gen))
            gy = critic_input_grad(dj, y, torch).mul_(-1.0 / bsz)
            if clip is not None:  # None: the plain WGAN-GP control, gradients as they are
                gy = sanitize_gradients(gy, float(clip), sigma, generator=gen)
            g_opt.step(generator_backward(gnet, cache, gy, tau, sizes, torch, numeric))
            torch._foreach_lerp_(ema, gnet, 1.0 - min(1.0 - 1.0 / (t + 1), decay))
            if todo and todo[0] == t + 1:
                snaps_at[todo.pop(0)] = [x.clone() for x in ema]
        snaps = [snaps_at[c] for c in cp_it]
        self._phase_seconds = {"pretraining": t_pre - t_start, "private": clock() - t_pre}
        return ema, snaps, wass.numpy().astype(np.float64)

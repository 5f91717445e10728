"""A fresh, unfitted generator for one fit of an audit (shared by the multi-run game and the
one-run audit)."""

from __future__ import annotations

import inspect

from ..audit.two_step import construct, instantiate

__all__ = ["fresh_generator"]


def fresh_generator(generator, params: dict, domain: dict, seed: int):
    """An unfitted generator for one fit, told the game's public domain when it takes one."""
    if isinstance(generator, type):
        takes_domain = "domain" in inspect.signature(generator).parameters
        return construct(generator, {"domain": domain, **params} if takes_domain else params, seed)
    gen = instantiate(generator, seed)
    if hasattr(gen, "set_params") and "domain" in gen.get_params(deep=False):
        gen.set_params(domain=domain)
    return gen

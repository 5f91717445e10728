"""Tests of ``synthtrust.dp_audit._generator``, the fresh, unfitted generator of one fit of an
audit: a class is constructed with the game's public domain, the parameters (which win) and the
fit's seed as ``random_state`` (when its constructor takes it and the parameters do not set
it); an estimator is cloned, never reused, with its ``random_state`` and ``domain`` set when it
has them; a factory is called with the seed. How the multi-run game and the one-run audit use
it is tested in test_game.py and test_one_run.py."""

from __future__ import annotations

from sklearn.base import BaseEstimator

from synthtrust.dp_audit._generator import fresh_generator
from synthtrust.synthesizers.histogram import PerturbedHistogram

DOMAIN = {"c0": 2, "c1": 3}


class Recorder:
    """A user's class: records how it was constructed."""

    def __init__(self, domain=None, epsilon=1.0, random_state=None):
        self.domain, self.epsilon, self.random_state = domain, epsilon, random_state

    def fit(self, frame):
        return self

    def sample(self, n):
        return None


class Unseeded(Recorder):
    def __init__(self, domain=None):
        self.domain = domain


class NoDomain(Recorder):
    def __init__(self, random_state=None):
        self.random_state = random_state


class Estimator(BaseEstimator):
    """An sklearn-style estimator without a domain parameter."""

    def __init__(self, epsilon=1.0, random_state=None):
        self.epsilon, self.random_state = epsilon, random_state

    def fit(self, frame):
        return self

    def sample(self, n):
        return None


def test_a_class_is_built_with_the_domain_the_parameters_and_the_seed():
    gen = fresh_generator(Recorder, {"epsilon": 0.5}, DOMAIN, 17)
    assert type(gen) is Recorder
    assert (gen.domain, gen.epsilon, gen.random_state) == (DOMAIN, 0.5, 17)
    # the parameters win over the game's domain and the seed
    gen = fresh_generator(Recorder, {"domain": {"c0": 9}, "random_state": 1}, DOMAIN, 17)
    assert (gen.domain, gen.random_state) == ({"c0": 9}, 1)
    gen = fresh_generator(Unseeded, {}, DOMAIN, 17)  # no random_state: not passed
    assert gen.domain == DOMAIN and not hasattr(gen, "random_state")
    assert fresh_generator(Recorder, {}, DOMAIN, 1) is not fresh_generator(Recorder, {}, DOMAIN, 1)


def test_a_class_without_a_domain_parameter_is_built_without_it():
    gen = fresh_generator(NoDomain, {}, DOMAIN, 17)
    assert gen.random_state == 17


def test_an_estimator_is_cloned_with_the_seed_and_the_domain():
    template = PerturbedHistogram(epsilon=2.0, domain={"c0": 5}, random_state=0)
    gen = fresh_generator(template, {"epsilon": 99.0}, DOMAIN, 17)  # params: classes only
    assert type(gen) is PerturbedHistogram and gen is not template
    assert gen.get_params() == {**template.get_params(), "domain": DOMAIN, "random_state": 17}
    assert template.get_params()["domain"] == {"c0": 5} and template.random_state == 0
    plain = fresh_generator(Estimator(epsilon=3.0), {}, DOMAIN, 17)  # no domain parameter
    assert plain.get_params() == {"epsilon": 3.0, "random_state": 17}


def test_a_factory_is_called_with_the_seed():
    seeds = []

    def factory(seed):
        seeds.append(seed)
        return Recorder(epsilon=4.0, random_state=seed)

    gen = fresh_generator(factory, {}, DOMAIN, 17)
    assert seeds == [17] and (gen.epsilon, gen.random_state, gen.domain) == (4.0, 17, None)

"""Tests of ``synthtrust.cli.user_generator``, the ``module:Class`` generator of the ``audit`` and
``dp-audit`` commands as a picklable factory: the class is imported from the working directory
(like ``python -m``); every bad spec, module, name and class is a ValueError naming it; a call
constructs a fresh generator with the parameters and the seed (``random_state`` only when the
constructor takes it and the parameters do not set it); a pickled factory carries the spec, not
the class. The commands' own one-line errors are tested in tests/test_cli_dp_audit.py."""

from __future__ import annotations

import pickle
import sys
import textwrap

import pytest
from _user_module import user_module

from synthtrust.cli.user_generator import GeneratorFactory

MODULE = "usergen_for_test_user_generator"
SOURCE = textwrap.dedent("""
    class Seeded:
        def __init__(self, epsilon=1.0, random_state=None):
            self.epsilon, self.random_state = epsilon, random_state

        def fit(self, X):
            return self

        def sample(self, n):
            return None


    class Unseeded(Seeded):
        def __init__(self, epsilon=1.0):
            self.epsilon = epsilon


    class NoFit:
        def sample(self, n):
            return None


    class NoFitNoSample:
        pass


    def not_a_class():
        return None
""")


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A working directory holding the user's module, as `synthtrust audit` is run from."""
    with user_module(tmp_path, monkeypatch, MODULE, SOURCE) as path:
        yield path


def test_the_class_is_imported_from_the_working_directory(workdir):
    factory = GeneratorFactory(f"{MODULE}:Seeded", {"epsilon": 2.0})
    cls = factory.cls()
    assert cls.__name__ == "Seeded" and cls.__module__ == MODULE
    assert sys.modules[MODULE].__file__ == str(workdir / f"{MODULE}.py")
    assert (factory.spec, factory.params) == (f"{MODULE}:Seeded", {"epsilon": 2.0})


def test_a_call_constructs_a_fresh_generator_with_the_parameters_and_the_seed(workdir):
    params = {"epsilon": 0.5}
    factory = GeneratorFactory(f"{MODULE}:Seeded", params)
    params["epsilon"] = 99.0  # the factory keeps its own copy
    a, b = factory(7), factory(8)
    assert type(a).__name__ == "Seeded" and a is not b
    assert (a.epsilon, a.random_state, b.random_state) == (0.5, 7, 8)
    # the parameters' own random_state wins over the seed
    assert GeneratorFactory(f"{MODULE}:Seeded", {"random_state": 3})(7).random_state == 3
    # a constructor without random_state is called without it
    gen = GeneratorFactory(f"{MODULE}:Unseeded", {"epsilon": 4.0})(7)
    assert gen.epsilon == 4.0 and not hasattr(gen, "random_state")


def test_parameters_the_class_does_not_take_are_a_value_error(workdir):
    factory = GeneratorFactory(f"{MODULE}:Seeded", {"colour": "red"})  # not checked yet
    with pytest.raises(ValueError, match=rf"^--params do not fit {MODULE}:Seeded: .*'colour'"):
        factory(0)


def test_a_pickled_factory_carries_the_spec_and_imports_the_class_again(workdir):
    factory = GeneratorFactory(f"{MODULE}:Seeded", {"epsilon": 3.0})
    data = pickle.dumps(factory)
    assert b"usergen_for_test_user_generator:Seeded" in data
    sys.modules.pop(MODULE)  # as in a worker process that has not imported it
    copy = pickle.loads(data)
    gen = copy(5)
    assert (gen.epsilon, gen.random_state) == (3.0, 5)
    assert type(gen) is sys.modules[MODULE].Seeded


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("Seeded", "--generator must be module:Class (e.g. mygen:MyGenerator), got 'Seeded'"),
        ("a:b:c", "--generator must be module:Class"),
        (":Seeded", "--generator must be module:Class"),
        (f"{MODULE}:", "--generator must be module:Class"),
        (42, "--generator must be module:Class (e.g. mygen:MyGenerator), got 42"),
        ("nosuchmodule_for_a_test:G", "cannot import module 'nosuchmodule_for_a_test' (No module"),
        (f"{MODULE}:Missing", f"--generator {MODULE}:Missing: module '{MODULE}' has no 'Missing'"),
        (f"{MODULE}:not_a_class", f"--generator {MODULE}:not_a_class: 'not_a_class' is not a"),
        (f"{MODULE}:NoFit", f"--generator {MODULE}:NoFit: the class lacks fit; an audited"),
        (f"{MODULE}:NoFitNoSample", "the class lacks fit and sample; an audited generator"),
    ],
)
def test_a_bad_spec_or_class_is_a_value_error_at_construction(workdir, spec, message):
    with pytest.raises(ValueError) as info:
        GeneratorFactory(spec, {})
    assert message in str(info.value)

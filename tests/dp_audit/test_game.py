import json

import numpy as np
import pandas as pd
import pytest

from synthtrust.dp_audit.bounds import ceiling, epsilon_lower_bound
from synthtrust.dp_audit.canary import worst_case
from synthtrust.dp_audit.game import _select_threshold, dp_audit
from synthtrust.synthesizers import Bootstrap, PerturbedHistogram


class LaplaceHistogram:
    """A user's generator, written outside the package: Laplace(2/ε) on every cell of the joint
    histogram (replace-one ε-DP), clipped, normalised and sampled."""

    def __init__(self, epsilon=1.0, domain=None, random_state=None):
        self.epsilon, self.domain, self.random_state = epsilon, domain, random_state

    def fit(self, frame):
        self.rng_ = np.random.default_rng(self.random_state)
        shape = tuple(self.domain.values())
        cells = np.ravel_multi_index(frame[list(self.domain)].to_numpy().T, shape)
        counts = np.bincount(cells, minlength=int(np.prod(shape))).astype(float)
        noisy = np.maximum(counts + self.rng_.laplace(0, 2 / self.epsilon, counts.size), 0)
        self.p_ = noisy / noisy.sum() if noisy.sum() > 0 else np.full(counts.size, 1 / counts.size)
        return self

    def sample(self, n):
        shape = tuple(self.domain.values())
        cells = self.rng_.choice(self.p_.size, size=n, p=self.p_)
        return pd.DataFrame(
            np.column_stack(np.unravel_index(cells, shape)), columns=list(self.domain)
        )


def test_a_hundred_audits_of_the_correct_histogram_call_at_most_nine_violations():
    """Calibration (issue acceptance 1): the 95 % quantile of Bin(100, 0.05) is 9; a correct
    generator is called a violation with probability at most alpha = 0.05 by construction."""
    results = [
        dp_audit(
            PerturbedHistogram(epsilon=1.0),
            1.0,
            neighbouring="replace_one",
            n_fits=200,
            random_state=seed,
            n_jobs=2,
            progress=False,
        )
        for seed in range(100)
    ]
    violations = sum(r.verdict == "violation" for r in results)
    assert violations <= 9
    bounds = np.array([r.epsilon_lb for r in results])
    # the audits are not vacuous: the white-box score separates the worlds in most of them
    assert (bounds > 0).mean() > 0.25
    assert bounds.max() <= results[0].ceiling == pytest.approx(ceiling(50))


def test_a_user_class_audited_with_the_default_backend_gives_the_sequential_result():
    kwargs = dict(neighbouring="replace_one", n_fits=400, random_state=7, progress=False)
    default = dp_audit(LaplaceHistogram, 1.0, score="count", **kwargs)  # all cores, loky
    sequential = dp_audit(LaplaceHistogram, 1.0, score="count", n_jobs=1, **kwargs)
    assert default.to_dict() == sequential.to_dict()
    assert default.verdict == "no violation detected"
    # the same user class claiming a tenth of its true epsilon is caught
    assert (
        dp_audit(
            LaplaceHistogram,
            1.0,
            generator_params={"epsilon": 10.0},
            score="count",
            n_jobs=1,
            **kwargs,
        ).verdict
        == "violation"
    )


def test_an_audit_that_cannot_refute_the_claim_is_underpowered():
    r = dp_audit(
        PerturbedHistogram(epsilon=10.0),
        10.0,
        neighbouring="replace_one",
        n_fits=200,
        n_jobs=1,
        progress=False,
    )
    assert r.ceiling == pytest.approx(ceiling(50))
    assert r.ceiling < 10
    assert r.verdict == "underpowered"


def test_the_count_rule_uses_every_fit_and_no_threshold_search():
    r = dp_audit(
        Bootstrap(),
        1.0,
        neighbouring="add_remove",
        n_fits=200,
        n_jobs=1,
        progress=False,
    )
    assert (r.score, r.statistic, r.threshold) == ("count", "exact_cell", 0.5)
    assert (r.n0, r.n1, r.fp, r.fn) == (100, 100, 0, 0)
    assert r.epsilon_lb == pytest.approx(ceiling(100))


#: A sequential replace-one audit at claim epsilon = 1 (the tests add the budget and score).
REPLACE_ONE = dict(neighbouring="replace_one", n_jobs=1, progress=False)


def test_the_marginal_ratio_splits_train_select_and_eval():
    r = dp_audit(
        PerturbedHistogram(epsilon=1.0), 1.0, n_fits=400, score="marginal_lr", **REPLACE_ONE
    )
    assert (r.statistic, r.n0, r.n1) == ("poisson_ratio", 80, 80)
    assert r.epsilon_lb <= 1.0


@pytest.mark.parametrize("generator, verdict", [("bug", "violation"), ("twin", "no violation")])
def test_the_learned_score_finds_the_ignored_sensitivity_and_passes_its_twin(generator, verdict):
    """Spec budget for bug (b): 2 000 fits at epsilon = 1 (true epsilon 2). The classifier sees
    the canary's counts and the white-box statistics; 40/20/40 split."""
    from synthtrust.dp_audit.planted import SensitivityIgnored

    cls = SensitivityIgnored if generator == "bug" else PerturbedHistogram
    r = dp_audit(cls(epsilon=1.0), 1.0, n_fits=2000, score="learned", **REPLACE_ONE)
    assert (r.statistic, r.n0, r.n1) == ("classifier", 400, 400)
    assert r.verdict.startswith(verdict)
    assert (r.epsilon_lb > 1.0) == (generator == "bug")
    assert r.epsilon_lb < 2.0  # never above the true epsilon


def test_an_audit_on_a_users_table_finds_the_bootstrap_and_passes_the_histogram():
    from synthtrust.dp_audit.canary import from_data

    rng = np.random.default_rng(0)
    data = pd.DataFrame({"a": rng.integers(0, 3, 300), "b": rng.integers(0, 2, 300)})
    worlds = from_data(data, "replace_one", domain={"a": 3, "b": 3})
    kwargs = dict(neighbouring="replace_one", worlds=worlds, n_fits=200, n_jobs=1, progress=False)
    boot = dp_audit(Bootstrap(), 1.0, score="count", **kwargs)
    assert (boot.verdict, boot.fp, boot.fn) == ("violation", 0, 0)
    hist = dp_audit(PerturbedHistogram(epsilon=1.0), 1.0, score="whitebox", **kwargs)
    assert hist.verdict == "no violation detected" and hist.epsilon_lb <= 1.0


def test_the_threshold_is_the_best_select_bound_with_ten_fits_on_each_side():
    rng = np.random.default_rng(0)
    s0, s1 = rng.normal(0, 1, 60).round(1), rng.normal(1.5, 1, 60).round(1)
    threshold, bound = _select_threshold(s0, s1, 0.0, 0.05)
    pooled = np.concatenate([s0, s1])
    brute = max(
        (epsilon_lower_bound(int((s0 >= t).sum()), 60, int((s1 < t).sum()), 60), t)
        for t in np.unique(pooled)
        if (pooled >= t).sum() >= 10 and (pooled < t).sum() >= 10
    )
    assert bound == pytest.approx(brute[0])
    assert epsilon_lower_bound(
        int((s0 >= threshold).sum()), 60, int((s1 < threshold).sum()), 60
    ) == pytest.approx(brute[0])
    # a perfect separation with fewer than 10 fits on one side is not a candidate
    assert _select_threshold(np.zeros(30), np.r_[np.zeros(25), np.ones(5)], 0.0, 0.05) == (
        np.inf,
        0.0,
    )


def test_the_result_round_trips_through_json():
    r = dp_audit(
        PerturbedHistogram(epsilon=1.0),
        1.0,
        neighbouring="replace_one",
        n_fits=40,
        n_jobs=1,
        progress=False,
    )
    assert json.loads(r.to_json()) == r.to_dict()
    assert r.to_dict()["verdict"] in ("violation", "underpowered", "no violation detected")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"neighbouring": "edit"}, ValueError, "neighbouring must be one of"),
        (
            {"neighbouring": "add_remove", "worlds": worst_case("replace_one")},
            ValueError,
            "worlds were built for 'replace_one'",
        ),
        ({"neighbouring": "add_remove", "n_fits": 20}, ValueError, "n_fits"),
        ({"neighbouring": "add_remove", "alpha": 1.5}, ValueError, "alpha"),
        ({"neighbouring": "add_remove", "score": "mia"}, ValueError, "score must be one of"),
        ({"neighbouring": "add_remove", "delta": 2.0}, ValueError, "delta"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, error, match):
    with pytest.raises(error, match=match):
        dp_audit(PerturbedHistogram(), 1.0, n_jobs=1, progress=False, **kwargs)


def test_whitebox_needs_an_audit_view():
    with pytest.raises(ValueError, match="audit_view"):
        dp_audit(
            Bootstrap(),
            1.0,
            neighbouring="add_remove",
            score="whitebox",
            n_fits=40,
            n_jobs=1,
            progress=False,
        )


def test_the_claim_must_be_positive():
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        dp_audit(PerturbedHistogram(), 0.0, neighbouring="add_remove", n_jobs=1, progress=False)


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 1.0])
def test_the_paper_compatible_privbayes_is_a_violation_and_the_correct_one_is_not(epsilon):
    """Issue acceptance 3. The noise of DataSynthesizer 0.1.3 is n times too small; on 1 000
    base records (W2) its 1- and 2-way marginals of the canary barely depend on the seed (at
    small epsilon its network has no edges, so the canary's whole record never comes out: the
    marginal score, not the exact cell)."""
    from synthtrust.synthesizers import PrivBayes

    worlds = worst_case("replace_one", n_base=1000)
    kwargs = dict(
        neighbouring="replace_one",
        worlds=worlds,
        n_fits=200,
        score="marginal_lr",
        n_jobs=1,
        progress=False,
    )
    paper = dp_audit(PrivBayes(epsilon=epsilon, noise="datasynthesizer-0.1.3"), epsilon, **kwargs)
    assert paper.verdict == "violation"
    assert paper.epsilon_lb > 1.0
    correct = dp_audit(PrivBayes(epsilon=epsilon), epsilon, **kwargs)
    assert correct.verdict != "violation"


def test_the_relation_defaults_to_the_one_the_synthesizer_declares():
    from synthtrust.dp_audit.game import declared_relation
    from synthtrust.synthesizers import MST

    assert declared_relation(MST) == "add_remove"
    assert declared_relation(PerturbedHistogram(epsilon=1.0)) == "replace_one"
    r = dp_audit(PerturbedHistogram(epsilon=1.0), 1.0, n_fits=40, n_jobs=1, progress=False)
    assert r.neighbouring == "replace_one"
    # a generator that declares nothing is never guessed at
    with pytest.raises(ValueError, match="neighbouring must be given"):
        dp_audit(Bootstrap(), 1.0, n_fits=40, n_jobs=1, progress=False)
    with pytest.raises(ValueError, match="neighbouring must be given"):
        dp_audit(LaplaceHistogram, 1.0, n_fits=40, n_jobs=1, progress=False)


class _Warns(LaplaceHistogram):
    def fit(self, frame):
        import warnings

        warnings.warn("no training iteration affordable", UserWarning, stacklevel=2)
        return super().fit(frame)


def test_a_generator_that_warns_at_every_fit_gives_one_warning():
    with pytest.warns(UserWarning) as caught:
        dp_audit(_Warns, 1.0, n_fits=40, score="count", **REPLACE_ONE)
    messages = [str(w.message) for w in caught]
    assert messages == ["40 of 40 fits warned, e.g.: no training iteration affordable"]


class GaussianMarginals:
    """A user's zCDP generator: Gaussian noise on the three 1-way marginals, each with the
    third of ``rho_used`` (σ = √(3/(2ρ))), released in ``audit_view``; the claim is
    ρ = cdp_rho(ε, δ). ``rho_used`` above the claim plants a bug that spends more than it says."""

    neighbouring = "add_remove"
    privacy_definition = "zcdp"

    def __init__(self, epsilon=1.0, delta=1e-2, domain=None, random_state=None, rho_used=None):
        from synthtrust.privacy import cdp_rho

        self.domain, self.random_state = domain, random_state
        self.rho_used = cdp_rho(epsilon, delta) if rho_used is None else rho_used

    def fit(self, frame):
        rng = np.random.default_rng(self.random_state)
        self.sigma_ = np.sqrt(3 / (2 * self.rho_used))
        self.noisy_ = {
            c: np.bincount(frame[c], minlength=k) + rng.normal(0, self.sigma_, k)
            for c, k in self.domain.items()
        }
        return self

    def sample(self, n):
        return pd.DataFrame({c: np.zeros(n, dtype=np.int64) for c in self.domain})

    def audit_view(self):
        return [((c,), y, "gaussian", self.sigma_) for c, y in self.noisy_.items()]


def test_a_zcdp_claim_is_audited_by_gaussian_dp_at_the_equal_error_threshold():
    """The ratio of Gaussian measurements is scored at its pre-registered threshold 0, every
    fit an eval fit; μ_lb is the Clopper–Pearson bound of those counts against μ = √(2ρ).
    A generator that spends 9ρ (true μ = 3·0.455) is above the claim's μ; the correct one is not,
    and its μ bound is close to its true μ (0.455) at 4 000 fits."""
    from synthtrust.dp_audit.bounds import mu_lower_bound
    from synthtrust.privacy import cdp_rho

    rho = cdp_rho(1.0, 1e-2)
    kwargs = dict(delta=1e-2, n_fits=4000, n_jobs=1, progress=False)
    correct = dp_audit(GaussianMarginals, 1.0, **kwargs)
    assert (correct.statistic, correct.threshold) == ("likelihood_ratio", 0.0)
    assert correct.n0 == correct.n1 == 2000
    assert correct.rho == pytest.approx(rho) and correct.mu == pytest.approx(np.sqrt(2 * rho))
    assert correct.mu_lb == mu_lower_bound(correct.fp, 2000, correct.fn, 2000)
    assert correct.mu_verdict == "at most the claim's mu" and correct.verdict != "violation"
    assert 0.25 < correct.mu_lb < correct.mu
    assert "Gaussian DP: 95% lower bound mu >= " in correct.summary()
    from synthtrust.dp_audit import fits_to_reach

    half = fits_to_reach(correct.fp / 2000, correct.fn / 2000, correct.mu / 2)
    assert correct.fits_for(0.5) == 2 * half  # every fit is an eval fit here
    assert correct.fits_for(2.0) == np.inf  # twice the true μ: no budget
    with pytest.raises(ValueError, match="fraction"):
        correct.fits_for(0)
    planted = dp_audit(GaussianMarginals, 1.0, generator_params={"rho_used": 9 * rho}, **kwargs)
    assert planted.mu_verdict == "above the claim's mu" and planted.mu_lb > 1.0
    # without a zCDP claim the white-box score chooses its threshold on select fits as before
    plain = dp_audit(GaussianMarginals, 1.0, rho=None, **{**kwargs, "delta": 0.0})
    assert plain.mu_verdict == "" and np.isnan(plain.mu) and plain.n0 == 1000


def test_the_declared_rho_is_the_zcdp_budget_of_the_claim():
    from synthtrust.dp_audit import declared_rho
    from synthtrust.privacy import cdp_rho
    from synthtrust.synthesizers import AIM, MST, MWEMPGM, PrivBayes

    for cls in (MST, AIM, MWEMPGM, GaussianMarginals):
        assert declared_rho(cls, 2.0, 1e-5) == cdp_rho(2.0, 1e-5)
        assert np.isnan(declared_rho(cls, 2.0, 0.0))  # ρ-zCDP gives (ε, δ) only with δ > 0
    assert np.isnan(declared_rho(PrivBayes, 1.0, 1e-5))
    assert np.isnan(declared_rho(LaplaceHistogram, 1.0, 1e-5))


class AlwaysTheCanary:
    """A user's generator whose every record is the canary (1, 1, 1), in both worlds."""

    neighbouring = "replace_one"

    def __init__(self, domain=None, random_state=None):
        self.domain = domain

    def fit(self, frame):
        return self

    def sample(self, n):
        return pd.DataFrame({c: np.ones(n, dtype=np.int64) for c in self.domain})


def test_a_score_that_sees_no_signal_says_so_and_names_the_score_to_try():
    blind = dp_audit(AlwaysTheCanary, 1.0, score="count", n_fits=40, n_jobs=1, progress=False)
    assert blind.epsilon_lb == 0.0 and blind.fp == blind.n0 and blind.fn == 0
    assert blind.note.startswith("no signal: every fit of both worlds scored 1100")
    assert "try score='learned'" in blind.note and blind.note in blind.summary()
    quick = {"neighbouring": "replace_one", "n_jobs": 1, "progress": False}
    assert dp_audit(PerturbedHistogram(epsilon=1.0), 1.0, n_fits=200, **quick).note == ""


def test_the_page_of_a_blind_audit_carries_its_note():
    from synthtrust.presentation.report import render_dp_audit_html

    blind = dp_audit(AlwaysTheCanary, 1.0, score="count", n_fits=40, n_jobs=1, progress=False)
    assert "no signal: every fit of both worlds scored 1100" in render_dp_audit_html(blind)


def test_the_whitebox_ratio_of_mst_adds_the_ratio_of_its_tree():
    from synthtrust.dp_audit.game import fit_and_score
    from synthtrust.dp_audit.scores import whitebox_score
    from synthtrust.synthesizers import MST

    w = worst_case("add_remove")
    params = {"epsilon": 1.0, "delta": 1e-2, "max_iter": 50}
    for world, seed in ((1, 11), (0, 12), (1, 13)):
        out = fit_and_score(MST, w, world, seed, generator_params=params)
        m = MST(**params, domain=w.domain, random_state=seed)
        m.fit(w.with_canary if world else w.without)
        tree = m.selection_log_ratio(w.without, w.with_canary)
        # every column compressed to one level: each pair's quality is the same in both worlds
        assert (tree == 0.0) == (m.compression_.sizes == (1, 1, 1))
        assert out["likelihood_ratio"] == pytest.approx(
            whitebox_score(m.audit_view(), w) + tree, abs=1e-12
        )
        assert out["linear"] == pytest.approx(whitebox_score(m.audit_view(), w, "linear"))


def test_the_warm_up_is_equal_for_equal_games_and_fits_each_world():
    import functools

    from synthtrust.dp_audit.game import _play, _WarmUp

    w = worst_case("replace_one")

    def warm(generator, params=None):
        kw = {"generator_params": params or {}, "worlds": w, "n_synthetic": 11}
        return _WarmUp(functools.partial(_play, generator=generator, **kw))

    a, b = warm(PerturbedHistogram(epsilon=1.0)), warm(PerturbedHistogram(epsilon=1.0))
    assert a == b and hash(a) == hash(b)  # loky keeps its workers for the next audit
    assert a != warm(PerturbedHistogram(epsilon=2.0)) and a != warm(Bootstrap())
    assert a != warm(PerturbedHistogram(epsilon=1.0), {"epsilon": 3.0})
    assert a() is None and warm(AlwaysTheCanary)() is None  # a fit per world, nothing kept

"""The protocols' estimates of one classifier's performance: Protocol A (Syn-Only: split the
synthetic data), Protocol B (Syn-Real: the curator's DP confusion matrix of the real test set),
and the non-private truth / reference they are compared with.

Spec: Movahedi et al. (2024) [``movahedi2024``], §III.A, Fig. 1; splits as in §IV.C.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._result import ResultMixin
from .._validation import check_epsilon, check_frame, check_random_state, check_unit_interval
from ..privacy.ledger import PrivacyLedger
from ._checks import check_labels_subset, check_target, resolve_classes
from .classifiers import check_classifier_name, fit_classifier
from .confusion import accuracy_from_confusion, confusion_matrix, f1_from_confusion
from .curator import Curator
from .model_json import export_model
from .release import ConfusionRelease


@dataclass(frozen=True, eq=False)
class ProtocolResult(ResultMixin):
    """Performance of one classifier as seen by one protocol.

    Protocol B's estimates need no test-set size: accuracy and F1 are ratios of the released
    cells (:func:`accuracy_from_confusion`, :func:`f1_from_confusion`), so under add/remove the
    size is not released (``n_test``).

    Attributes
    ----------
    protocol : {"A", "B", "truth", "reference"}
        A = Syn-Only estimate, B = Syn-Real (DP) estimate, truth = the same kind of model trained
        on synthetic data and tested on the real test set without DP, reference = trained on
        real training data, tested on the real test set.
    classifier : str
    accuracy, f1 : float
    confusion : int64 array (2, 2) ``[[TN, FP], [FN, TP]]`` — for B the released (noisy) matrix.
    n_train : int
        Rows used to train (for A and B: synthetic rows, public).
    n_test : int or None
        Rows used to test.  For B the real test set's size, released only when it is public:
        the exact size under replace-one neighbours (n public), None under add/remove (the
        default), where it would tell neighbouring test sets apart; ``release.noisy.sum()`` is
        then a DP estimate of it at no further cost (:class:`Curator`).  For A the synthetic
        test part (public).  Truth and reference are the experimenter's non-private oracles,
        not releases: there it is the real test set's size.
    model : the fitted pipeline (analyst side).
    release : ConfusionRelease or None (B only).
    """

    protocol: str
    classifier: str
    accuracy: float
    f1: float
    confusion: np.ndarray
    n_train: int
    n_test: int | None
    model: object = field(repr=False, default=None)
    release: ConfusionRelease | None = field(repr=False, default=None)

    def metrics(self) -> dict:
        """``{"accuracy": ..., "f1": ...}``."""
        return {"accuracy": self.accuracy, "f1": self.f1}


def split_train_test(data: pd.DataFrame, test_size: float = 0.2, random_state=None):
    """Simple random split (not stratified; paper §IV.C "divided randomly").

    ``n_test = ceil(test_size · n)``, ``n_train = n − n_test`` (both ≥ 1).  Returns
    ``(train, test)`` DataFrames with fresh RangeIndex, rows in random order.

    Raises ValueError for ``test_size`` outside (0, 1) or a split with an empty part.
    """
    check_frame(data, "data")
    test_size = check_unit_interval(test_size, "test_size")
    n = len(data)
    n_test = math.ceil(test_size * n)
    if n_test < 1 or n_test >= n:
        raise ValueError(
            f"test_size={test_size} of {n} rows leaves an empty training or test set "
            f"(n_test={n_test})"
        )
    perm = check_random_state(random_state).permutation(n)
    test = data.iloc[perm[:n_test]].reset_index(drop=True)
    train = data.iloc[perm[n_test:]].reset_index(drop=True)
    return train, test


def evaluate_model(model, data: pd.DataFrame, target, *, positive=1) -> dict:
    """Non-private metrics of a fitted pipeline on ``data``: ``{"accuracy", "f1", "confusion"}``.

    Raises ValueError if ``target`` is missing from ``data``.
    """
    check_frame(data, "data")
    check_target(data, target, "data")
    pred = model.predict(data.drop(columns=[target]))
    cm = confusion_matrix(data[target].to_numpy(), np.asarray(pred), positive=positive)
    return {"accuracy": accuracy_from_confusion(cm), "f1": f1_from_confusion(cm), "confusion": cm}


def _result(protocol, classifier, scores, n_train, n_test, model, release=None) -> ProtocolResult:
    return ProtocolResult(
        protocol=protocol,
        classifier=classifier,
        accuracy=scores["accuracy"],
        f1=scores["f1"],
        confusion=scores["confusion"],
        n_train=int(n_train),
        n_test=None if n_test is None else int(n_test),
        model=model,
        release=release,
    )


def protocol_a(
    synthetic: pd.DataFrame,
    target,
    classifier: str,
    test_size: float = 0.2,
    random_state=None,
    *,
    positive=None,
    categorical=None,
) -> ProtocolResult:
    """Protocol A (Syn-Only): split the released synthetic data, train on one part and test on
    the other; everything happens on the analyst's side, no further privacy cost.

    Parameters
    ----------
    synthetic : DataFrame, shape (n_train + n_test, n_features + 1)
        The released synthetic data (the paper samples ``|train|`` + ``|test|`` rows).
    target : column label of the class
    classifier : {"random_forest", "linear_svm", "knn"}
    test_size : float in (0, 1)
        Share of the synthetic rows used for testing (0.2 in the paper).
    random_state : int, numpy.random.Generator or None
        Drives the split and the classifier.
    positive, categorical
        See :class:`Curator` and :func:`make_classifier`.

    Returns
    -------
    ProtocolResult (protocol ``"A"``); ``model`` is trained on the synthetic training part.

    Raises
    ------
    ValueError
        Unknown classifier; ``target`` missing; more than 2 classes; bad ``test_size``.

    Source: Movahedi et al. (2024), §III.A, Protocol A steps 3–6; Fig. 1 (top).
    """
    check_classifier_name(classifier)
    check_frame(synthetic, "synthetic")
    check_target(synthetic, target, "synthetic")
    positive, _ = resolve_classes(synthetic[target], positive, "synthetic", exact_two=False)
    rng = check_random_state(random_state)
    split_rng, clf_rng = rng.spawn(2)
    train, test = split_train_test(synthetic, test_size, split_rng)
    model = fit_classifier(classifier, train, target, clf_rng, categorical=categorical)
    scores = evaluate_model(model, test, target, positive=positive)
    return _result("A", classifier, scores, len(train), len(test), model)


def protocol_b(
    synthetic: pd.DataFrame,
    real_test,
    target,
    classifier: str,
    epsilon: float,
    random_state=None,
    *,
    positive=None,
    categorical=None,
    neighbouring: str = "add_remove",
    ledger: PrivacyLedger | None = None,
) -> ProtocolResult:
    """Protocol B (Syn-Real): train on all of the synthetic data, send the model as JSON data
    (:func:`export_model`) to the curator, receive the ε-DP confusion matrix of the real test set.

    Parameters
    ----------
    synthetic : DataFrame, shape (n_train, n_features + 1)
        The released synthetic data (the paper samples ``|train|`` rows).
    real_test : DataFrame or Curator
        The real test set (a :class:`Curator` is built around it) or an existing curator.
    target, classifier, positive, categorical
        As in :func:`protocol_a`.  ``positive`` defaults to the curator's.
    epsilon : float
        ε > 0 of the confusion-matrix release (the paper uses the generator's ε: train and test
        sets are disjoint, parallel composition).
    random_state : int, numpy.random.Generator or None
        Drives the classifier and the curator's Laplace noise.
    neighbouring : {"add_remove", "replace_one"}
        Used when a curator is built here.
    ledger : PrivacyLedger, optional
        Used when a curator is built here; receives the release's entry.

    Returns
    -------
    ProtocolResult (protocol ``"B"``): metrics of the released matrix; ``release`` holds it.
    ``n_test`` is the curator's: the exact size under replace-one (n public), None under
    add/remove (not released).

    Raises
    ------
    ValueError
        ε ≤ 0; unknown classifier; ``target`` missing; the real test target not binary; a
        synthetic label the real data does not have.

    Source: Movahedi et al. (2024), §III.A, Protocol B steps 3–8; Fig. 1 (bottom).
    """
    check_classifier_name(classifier)
    epsilon = check_epsilon(epsilon)
    check_frame(synthetic, "synthetic")
    check_target(synthetic, target, "synthetic")
    if isinstance(real_test, Curator):
        curator = real_test
        if curator.target != target:
            raise ValueError(f"the curator's target is {curator.target!r}, not {target!r}")
        if positive is not None and positive != curator.positive:
            raise ValueError(
                f"positive={positive!r} differs from the curator's {curator.positive!r}"
            )
    else:
        curator = Curator(
            real_test, target, positive=positive, neighbouring=neighbouring, ledger=ledger
        )
    check_labels_subset(synthetic[target], curator.labels, "synthetic")
    rng = check_random_state(random_state)
    clf_rng, noise_rng = rng.spawn(2)
    model = fit_classifier(classifier, synthetic, target, clf_rng, categorical=categorical)
    release = curator.evaluate(export_model(model), epsilon, noise_rng)
    scores = {"accuracy": release.accuracy, "f1": release.f1, "confusion": release.matrix}
    return _result("B", classifier, scores, len(synthetic), curator.n_test, model, release)


def true_performance(
    train: pd.DataFrame,
    real_test: pd.DataFrame,
    target,
    classifier: str,
    random_state=None,
    *,
    positive=None,
    categorical=None,
    protocol: str = "truth",
) -> ProtocolResult:
    """Train on ``train`` and test on the real test set without DP (the oracle).

    With synthetic ``train`` this is the true performance a protocol estimates; with the real
    training data it is the paper's reference (pass ``protocol="reference"`` for the label).
    Deterministic given ``random_state``: the same training data and seed as a protocol's give
    the protocol's model.

    Raises
    ------
    ValueError
        Unknown classifier; ``target`` missing; the real target not binary; labels of ``train``
        not among the real ones.
    """
    check_classifier_name(classifier)
    check_frame(train, "train")
    check_frame(real_test, "real_test")
    check_target(train, target, "train")
    check_target(real_test, target, "real_test")
    positive, labels = resolve_classes(real_test[target], positive, "real_test", exact_two=True)
    check_labels_subset(train[target], labels, "train")
    model = fit_classifier(classifier, train, target, random_state, categorical=categorical)
    scores = evaluate_model(model, real_test, target, positive=positive)
    return _result(protocol, classifier, scores, len(train), len(real_test), model)

"""The data curator of Protocol B: holds the real test set behind the privacy barrier and
releases only DP confusion matrices of the models it is sent, keeping a privacy ledger.

Spec: Movahedi et al. (2024) [``movahedi2024``], §III.A (Protocol B), Fig. 1 (bottom), §VII.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._validation import check_epsilon, check_frame
from ..privacy.ledger import PrivacyLedger
from ._checks import check_target, labels_of, resolve_classes
from .model_json import predict_exported
from .release import ConfusionRelease, check_neighbouring, dp_confusion_matrix


class Curator:
    """The data curator of Protocol B: holds the real test set behind the privacy barrier.

    The analyst never sees the test features or labels; the only output is
    :meth:`evaluate`'s DP confusion-matrix release.  Every evaluation spends ``epsilon`` on
    the test set and is recorded in :attr:`ledger` (sequential composition: k evaluations cost
    kε; paper §VII).

    The size of the test set is public only under replace-one neighbours.  Under add/remove
    neighbours (the default) two neighbouring test sets differ in size, so an exact size would
    tell them apart with certainty: the curator releases no exact size, in no attribute,
    ``repr`` or error message (:attr:`n_test` is None, the message of a model with predictions
    of the wrong length does not give the expected length).  A DP estimate of the size comes
    free with every release: the total of its noisy matrix (``release.noisy.sum()``, unbiased,
    variance 8b²) is post-processing of the ε-DP release already in the ledger, so no
    separate size query is offered or charged.  Under replace-one neighbours (n public) the
    exact size is :attr:`n_test`, shown in the ``repr``, and each ledger entry says
    "replace-one: n public" (Dwork & Roth 2014 [``dwork2014``], Def. 2.4: neighbours at
    histogram distance 1, i.e. one record added or removed; post-processing, Prop. 2.1).

    The public attributes are ``target``, ``positive`` (resolved), ``labels`` (the two
    classes), ``neighbouring``, ``ledger`` and the properties :attr:`n_public` and
    :attr:`n_test`; the test set itself is private.

    Parameters
    ----------
    test : DataFrame, shape (n_test, n_features + 1)
        The real test set (features and target).
    target : column label of the class
    positive : label, optional
        The positive class (default: 1 / True for {0, 1} / {False, True} labels).
    neighbouring : {"add_remove", "replace_one"}
        Sensitivity of the release (see :func:`privatize_confusion_matrix`), and whether the
        test-set size is public (replace-one) or not (add/remove).
    ledger : PrivacyLedger, optional
        Where the releases are recorded (a new one by default).

    Raises
    ------
    ValueError
        ``target`` not a column; the target does not have exactly 2 classes; ``positive`` not one
        of them; unknown ``neighbouring``.
    TypeError
        ``test`` not a DataFrame; ``ledger`` not a PrivacyLedger.

    Source: Movahedi et al. (2024), §III.A, Fig. 1 (bottom), §VII; Dwork & Roth (2014),
    Def. 2.4, Prop. 2.1.
    """

    def __init__(
        self,
        test: pd.DataFrame,
        target,
        *,
        positive=None,
        neighbouring: str = "add_remove",
        ledger: PrivacyLedger | None = None,
    ):
        check_frame(test, "test")
        check_target(test, target, "test")
        check_neighbouring(neighbouring)
        if ledger is not None and not isinstance(ledger, PrivacyLedger):
            raise TypeError(f"ledger must be a PrivacyLedger or None, got {type(ledger).__name__}")
        self.positive, self.labels = resolve_classes(test[target], positive, "test", exact_two=True)
        self.target = target
        self.neighbouring = neighbouring
        self.ledger = PrivacyLedger() if ledger is None else ledger
        self._features = test.drop(columns=[target]).reset_index(drop=True)
        self._y = test[target].to_numpy()

    @property
    def n_public(self) -> bool:
        """Whether the test-set size is public: True under replace-one, False under add/remove."""
        return self.neighbouring == "replace_one"

    @property
    def n_test(self) -> int | None:
        """Number of test records under replace-one (n public); None under add/remove, where
        the exact size would tell neighbouring test sets apart (a DP estimate is the total of a
        release's noisy matrix, see the class docstring)."""
        return len(self._y) if self.n_public else None

    def _predict(self, model) -> np.ndarray:
        if isinstance(model, (bytes, bytearray, memoryview)):
            raise TypeError(
                "the curator does not accept bytes (e.g. a pickled model) across the trust "
                "boundary; send export_model(model) (JSON data) instead"
            )
        if isinstance(model, (str, Mapping)):
            pred = predict_exported(model, self._features)
        elif callable(model):
            pred = model(self._features.copy())
        else:
            raise TypeError(
                f"the curator accepts a model as JSON data (export_model(model), a dict or JSON "
                f"text) or a callable, not a {type(model).__name__}"
            )
        pred = np.asarray(pred)
        if pred.shape != (len(self._y),):
            if self.n_public:
                expected = f"expected ({self.n_test},) (replace-one: n public)"
            else:
                expected = (
                    "expected one label per test record (the test-set size is not public "
                    "under add/remove neighbours)"
                )
            raise ValueError(
                f"the model returned predictions of shape {pred.shape}, which does not match "
                f"the test set; {expected}"
            )
        extra = [v for v in labels_of(pd.Series(pred)) if v not in self.labels]
        if extra:
            raise ValueError(f"the model predicts label(s) {extra}, not among {self.labels}")
        return pred

    def evaluate(self, model, epsilon: float, random_state=None) -> ConfusionRelease:
        """Apply ``model`` to the real test set and release its confusion matrix with ε-DP.

        Parameters
        ----------
        model : dict, str or callable
            :func:`export_model` output (or its JSON text), or a callable ``f(features) ->
            labels`` (features: DataFrame of the test set without the target; labels: array of
            shape (n_test,)) — the callable runs inside the curator, see the docstring of
            :mod:`synthtrust.protocols`.
        epsilon : float
            ε > 0 of this release.
        random_state : int, numpy.random.Generator or None

        Returns
        -------
        ConfusionRelease

        Raises
        ------
        TypeError
            ``model`` is bytes / bytearray / memoryview (a pickle) or another non-JSON object
            such as a fitted estimator.
        ValueError
            ε ≤ 0; malformed model description; predictions of the wrong shape (the message
            gives the expected length under replace-one only) or with labels the test set does
            not have.
        """
        epsilon = check_epsilon(epsilon)
        pred = self._predict(model)
        return dp_confusion_matrix(
            self._y,
            pred,
            epsilon,
            random_state,
            self.ledger,
            positive=self.positive,
            neighbouring=self.neighbouring,
        )

    def __repr__(self) -> str:
        size = f"n_test={self.n_test} (replace-one: n public)" if self.n_public else "n not public"
        return (
            f"Curator({size}, target={self.target!r}, positive={self.positive!r}, "
            f"neighbouring={self.neighbouring!r}, spent epsilon={self.ledger.total_epsilon:g})"
        )

"""Evaluating a classifier trained on DP synthetic data: Protocol A (Syn-Only) and Protocol B
(Syn-Real, a DP confusion matrix released by the data curator), and the protocol-error metric.

Spec: Movahedi, Nieminen, Montoya Perez, Daafane, Sukhwal, Pahikkala, Airola (2024),
"Benchmarking evaluation protocols for classifiers trained on differentially private synthetic
data", IEEE Access 12 [``movahedi2024``], §III.A (protocols), §III.B eq. (2)–(3) (ME, STD,
RMSE), §IV.C (experimental setup). No code of the paper was found; the paper is the spec.

The pieces
----------
* :func:`make_classifier` / :func:`fit_classifier` — the paper's three scikit-learn classifiers
  (random forest, 100 trees; linear SVM, C = 1; KNN, k = 5) behind one preprocessing step.
* :func:`confusion_matrix`, :func:`accuracy_from_confusion`, :func:`f1_from_confusion` — the
  metrics, computed from a 2 × 2 confusion matrix so that the same code serves the true and the
  noisy matrix.
* :func:`privatize_confusion_matrix`, :func:`dp_confusion_matrix` — the Laplace release of the
  four cells (Protocol B, step 8).
* :func:`export_model`, :func:`predict_exported`, :class:`Curator` — the trust boundary of
  Protocol B: the model crosses it as JSON data, never as a pickle.
* :func:`protocol_a`, :func:`protocol_b`, :func:`true_performance`, :func:`evaluate_model`.
* :func:`protocol_error`, :func:`summarize_protocol_errors` — ME, STD, RMSE over repetitions.
* :func:`evaluate_repetition` — one repetition of the paper's experiment, as a tidy frame.

Design decisions (where the paper is silent, the choice is ours and stated here)
---------------------------------------------------------------------------------
* **Classifiers** (§IV.C: "default settings", SVM C = 1.0, RF 100 estimators, KNN k = 5):
  ``RandomForestClassifier(n_estimators=100)``, ``LinearSVC(C=1.0)`` (scikit-learn's linear SVM:
  squared hinge loss, L2 penalty; ``SVC(kernel="linear")`` is not the default kernel of ``SVC``
  and is quadratic in n, infeasible on Cardio's 56 000 training rows), ``KNeighborsClassifier(
  n_neighbors=5)`` (k is lowered to the number of training rows if there are fewer than 5).
* **Features.** The paper's tables are discretised (integer bin codes) before synthesis and it
  does not describe the classifiers' preprocessing.  Ours, identical for the three classifiers
  and fitted on the training data only: numeric columns (bin codes are ordinal, so they are used
  as numbers) → median imputation of missing values → standardisation (z-scores; needed by the
  SVM and KNN, harmless for the forest); categorical columns (non-numeric or boolean dtype, plus
  any listed in ``categorical=``) → one-hot encoding, missing values as their own category,
  categories unseen in training encoded as all zeros.  Every column except the target is a
  feature.
* **Positive class** (for F1): ``positive=``; by default 1 (or True) when the labels are
  {0, 1} (or {False, True}); other labels need an explicit ``positive`` (e.g. ILPD's
  ``Dataset == 1``, liver patient, 71 % in the paper's Table 1).
* **Confusion matrix layout**: ``[[TN, FP], [FN, TP]]`` — rows true class (negative, positive),
  columns predicted class — scikit-learn's layout with ``labels=[negative, positive]``.
* **Undefined metrics.** F1 = 2TP / (2TP + FP + FN) is 0 when its denominator is 0 (no
  positive label and no positive prediction; scikit-learn's ``zero_division`` value) and in
  particular 0 for a classifier that never predicts the positive class.  Accuracy is NaN when
  the matrix sums to 0 (possible only for a noisy release at tiny ε); :func:`protocol_error` and
  :func:`summarize_protocol_errors` leave such repetitions out and count them.
* **Neighbouring relation and noise** (Protocol B).  Every test record falls in exactly one cell
  of the confusion matrix, so the 4 cells are a histogram of disjoint parts (parallel
  composition, the paper's argument in §III.A).  Under *add/remove-one* neighbours (the default,
  as the paper's generators MST, AIM, MWEM-PGM, PrivBayes use) the 4-vector has L1 sensitivity 1
  and each cell gets Lap(1/ε) noise; under *replace-one* neighbours (n public; as the histogram
  synthesizers of this package) one record can move between two cells, L1 sensitivity 2, noise
  Lap(2/ε).  The paper says "Laplace mechanism with the ε" per cell without giving the scale;
  Lap(1/ε) is the reading of its parallel-composition argument.  The release is ε-DP for the
  test set; the training set is disjoint, so the whole protocol is ε-DP (parallel composition).
  Each further evaluation on the same test set spends another ε (the :class:`Curator`'s ledger
  adds them up; §VII).
* **Test-set size** (Protocol B).  Under add/remove neighbours two neighbouring test sets differ
  in size, so an exact size would tell them apart with certainty: the curator releases none —
  ``Curator.n_test`` and Protocol B's ``ProtocolResult.n_test`` are None, the curator's
  ``repr`` and its error for predictions of the wrong length do not show it.  No separate noisy
  size is released either: the estimates need none (accuracy and F1 are ratios of the released
  cells), and the total of the noisy matrix (``ConfusionRelease.noisy.sum()``) is already an
  unbiased DP estimate of n, post-processing of the charged release (Dwork & Roth 2014
  [``dwork2014``], Prop. 2.1).  Under replace-one, n is public: ``n_test`` is exact, shown in
  the ``repr``, and the ledger entry's note says "replace-one: n public".
* **Post-processing of the noisy matrix**: round each cell to the nearest integer and clip at 0;
  the total is *not* forced to the test-set size (under add/remove it is not public).  Metrics
  are computed from the post-processed matrix.  The raw Laplace output is part of the release too
  (``ConfusionRelease.noisy``).
* **Splits** (§IV.C: "divided randomly"): simple random 80/20 splits, not stratified;
  ``n_test = ceil(test_size · n)`` (scikit-learn's rule), the rest is training data.  The same
  rule splits the real data and, in Protocol A, the synthetic data.
* **Synthetic samples** (§IV.C): one generator is fitted per repetition; Protocol A gets a
  sample of ``|train|`` + ``|test|`` rows and Protocol B a separate, independent sample of
  ``|train|`` rows.  A sample's size is released with it, so :func:`evaluate_repetition` asks for
  these exact sizes only under replace-one (n public); under add/remove (its default) the sizes
  are the synthesizer's own: ``sample()`` without a size for B (a DP estimate n̂ of ``|train|``
  for the package's add/remove synthesizers), ``round(n̂ / (1 − test_size))`` rows for A.  The
  result frame's ``attrs["synthetic_sizes"]`` says which (``"synthesizer"`` or ``"exact"``).
* **Degenerate synthetic data**: a synthetic training set with a single class gives a constant
  classifier that predicts that class (scikit-learn's classifiers refuse one class);
  ``LinearSVC`` convergence warnings are silenced (``max_iter=1000`` as in its default).
* **Trust boundary** (Fig. 1, §VII: "the curator can not accept and run arbitrary code ... one
  needs to standardize the types of models").  The :class:`Curator` holds the real test set and
  accepts a model only as data: the dict of :func:`export_model` (or its JSON text) — a
  preprocessing description, plus linear coefficients, the forest's tree arrays, or the KNN
  reference points (the synthetic training data, already public) — interpreted by
  :func:`predict_exported` with NumPy (and scikit-learn's KNN, rebuilt from the data).  Bytes
  (e.g. a pickle) and estimator objects are refused with ``TypeError``.  A Python callable is
  also accepted, as a simulation convenience for code the curator already trusts; a real curator
  would only take the JSON form.
* **Randomness**: every draw comes from ``numpy.random.Generator`` streams spawned from
  ``random_state`` (scikit-learn estimators get integer seeds drawn from them); nothing uses
  global state.
"""

from __future__ import annotations

from .classifiers import CLASSIFIERS, fit_classifier, make_classifier
from .confusion import (
    METRICS,
    accuracy_from_confusion,
    classification_metrics,
    confusion_matrix,
    f1_from_confusion,
)
from .curator import Curator
from .error import ProtocolErrorResult, protocol_error, summarize_protocol_errors
from .estimates import (
    ProtocolResult,
    evaluate_model,
    protocol_a,
    protocol_b,
    split_train_test,
    true_performance,
)
from .model_json import MODEL_FORMAT, export_model, predict_exported
from .release import NEIGHBOURING, ConfusionRelease, dp_confusion_matrix, privatize_confusion_matrix
from .repetition import evaluate_repetition

__all__ = [
    "CLASSIFIERS",
    "METRICS",
    "MODEL_FORMAT",
    "NEIGHBOURING",
    "ConfusionRelease",
    "Curator",
    "ProtocolErrorResult",
    "ProtocolResult",
    "accuracy_from_confusion",
    "classification_metrics",
    "confusion_matrix",
    "dp_confusion_matrix",
    "evaluate_model",
    "evaluate_repetition",
    "export_model",
    "f1_from_confusion",
    "fit_classifier",
    "make_classifier",
    "predict_exported",
    "privatize_confusion_matrix",
    "protocol_a",
    "protocol_b",
    "protocol_error",
    "split_train_test",
    "summarize_protocol_errors",
    "true_performance",
]

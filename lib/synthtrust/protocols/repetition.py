"""One repetition of the paper's experiment for one generator and one ε, as a tidy frame:
split, fit the generator, sample, and for each classifier the Protocol A and B estimates, their
truths and the real-data reference.

Spec: Movahedi et al. (2024) [``movahedi2024``], §IV.C; Fig. 2–4.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence

import pandas as pd

from .._validation import (
    check_epsilon,
    check_frame,
    check_random_state,
    check_sample_frame,
    check_unique_items,
)
from ..privacy.ledger import PrivacyLedger
from ._checks import check_labels_subset, check_target, resolve_classes
from .classifiers import CLASSIFIERS, check_classifier_name
from .confusion import METRICS
from .curator import Curator
from .estimates import evaluate_model, protocol_a, protocol_b, split_train_test, true_performance
from .release import check_neighbouring

_FRAME_COLUMNS = ["protocol", "classifier", "metric", "estimate", "truth", "reference"]

#: The synthetic sizes of each neighbouring relation (the frame's ``attrs["synthetic_sizes"]``).
_SIZES = {"add_remove": "synthesizer", "replace_one": "exact"}


def evaluate_repetition(
    real: pd.DataFrame,
    target,
    make_synthesizer: Callable,
    epsilon: float,
    classifiers: Sequence[str] = CLASSIFIERS,
    random_state=None,
    *,
    test_size: float = 0.2,
    positive=None,
    categorical=None,
    neighbouring: str = "add_remove",
    ledger: PrivacyLedger | None = None,
) -> pd.DataFrame:
    """One repetition of the paper's experiment (§IV.C) for one generator and one ε.

    1. Split ``real`` at random into train (80 %) and test (20 %).
    2. ``synth = make_synthesizer(epsilon, generator)``; ``synth.fit(train)``.
    3. Draw the synthetic samples, their sizes as ``neighbouring`` allows (below).
    4. For each classifier: Protocol A estimate and its truth (the A-model on the real test
       set); Protocol B estimate (ε-DP release by a :class:`Curator` holding the real test set,
       the same ε as the generator) and its truth (the B-model on the real test set); the
       reference (trained on the real train set, tested on the real test set).

    The sizes of the synthetic samples are released with them, so they follow the neighbouring
    relation of the repetition:

    * ``"add_remove"`` (the default; n not public): the synthesizer's own sizes.  Protocol B
      gets ``synth.sample()`` — no size is asked, so the synthesizer draws its own number of
      rows (the package's add/remove synthesizers MST, AIM, MWEM-PGM and PrivMRF: a DP
      estimate n̂ of ``|train|``, the total of their noisy model) — and Protocol A then
      ``round(n̂ / (1 − test_size))`` rows (at least 2), the estimate of ``|train|`` +
      ``|test|`` by the split rule; both are post-processing of the synthesizer's release.  A
      replace-one synthesizer's own size (PrivBayes, the histogram synthesizers) is the exact
      ``|train|``: its DP claim treats n as public.
    * ``"replace_one"`` (n public): the paper's exact sizes, ``|train|`` + ``|test|`` rows for
      Protocol A and, independently, ``|train|`` rows for B (§IV.C).

    The curator's release has the same relation (sensitivity 1 or 2, :class:`Curator`), and the
    frame says which sizes were drawn in ``attrs`` (below).

    Parameters
    ----------
    real : DataFrame, shape (n, n_features + 1)
        The private data (features already in the form the generator takes, e.g. bin codes).
    target : column label of the binary class
    make_synthesizer : callable (epsilon, random_state) -> synthesizer
        Returns an unfitted object with ``fit(train)`` and ``sample(n) -> DataFrame``; under
        add/remove ``sample()`` must also work without ``n`` (the synthesizer's own size).  The
        package's synthesizers fit this.  ``random_state`` is a numpy Generator.
    epsilon : float
        ε > 0 of the generator and of Protocol B's release.
    classifiers : sequence of names from :data:`CLASSIFIERS`
    random_state : int, numpy.random.Generator or None
        Root of every random draw (split, generator, classifiers, noise); each classifier has its
        own stream, so its rows do not depend on which other classifiers are run.
    test_size, positive, categorical
        See :func:`split_train_test`, :class:`Curator`, :func:`make_classifier`.
    neighbouring : {"add_remove", "replace_one"}
        The relation of the curator's release and of the synthetic sizes (above).
    ledger : PrivacyLedger, optional
        Receives Protocol B's releases, one entry of ε per classifier (each classifier is a
        separate evaluation of the same test set).

    Returns
    -------
    DataFrame, 2 · len(classifiers) · 2 rows, columns ``protocol`` ("A", "B"), ``classifier``,
    ``metric`` ("accuracy", "f1"), ``estimate`` (the protocol's estimate), ``truth`` (the same
    model on the real test set, non-private), ``reference`` (real-train model on the real test
    set).  ``attrs`` holds ``{"neighbouring": neighbouring, "synthetic_sizes": "synthesizer"}``
    under add/remove (the synthesizer's own sizes) and ``{"neighbouring": "replace_one",
    "synthetic_sizes": "exact"}`` under replace-one (n public).

    Raises
    ------
    ValueError
        ε ≤ 0; unknown classifier; ``target`` missing; the real target not binary; unknown
        ``neighbouring``; a sample with the wrong size (no rows, under add/remove), missing
        columns or unknown labels.
    TypeError
        ``real`` not a DataFrame; ``make_synthesizer`` not callable; under add/remove, a
        synthesizer whose ``sample`` needs ``n``; a sample that is not a DataFrame.

    Source: Movahedi et al. (2024), §IV.C; Fig. 2–4 (rows a, b, c).  Post-processing of a DP
    release is DP (Dwork & Roth 2014 [``dwork2014``], Prop. 2.1).
    """
    check_frame(real, "real")
    check_target(real, target, "real")
    epsilon = check_epsilon(epsilon)
    if isinstance(classifiers, str):
        classifiers = [classifiers]
    classifiers = check_unique_items(classifiers, "classifiers", check_classifier_name, min_len=1)
    check_neighbouring(neighbouring)
    if not callable(make_synthesizer):
        raise TypeError(f"make_synthesizer must be callable, got {type(make_synthesizer).__name__}")
    positive, labels = resolve_classes(real[target], positive, "real", exact_two=True)

    rng = check_random_state(random_state)
    split_rng, synth_rng, clf_root = rng.spawn(3)
    train, test = split_train_test(real, test_size, split_rng)

    synth = make_synthesizer(epsilon, synth_rng)
    if neighbouring == "replace_one":
        syn_a, syn_b = _exact_sets(synth, train, len(test), real.columns)
    else:
        syn_a, syn_b = _own_size_sets(synth, train, test_size, real.columns)
    del synth  # released before the first classifier is trained (memory)
    check_labels_subset(syn_a[target], labels, "Protocol A")
    check_labels_subset(syn_b[target], labels, "Protocol B")

    curator = Curator(test, target, positive=positive, neighbouring=neighbouring, ledger=ledger)
    streams = dict(zip(CLASSIFIERS, clf_root.spawn(len(CLASSIFIERS)), strict=True))
    rows = []
    for name in classifiers:
        a_rng, b_rng, ref_rng = streams[name].spawn(3)
        # one fitted model alive at a time: each is dropped once its scores are read (a forest
        # on Cardio's 56 000 rows holds hundreds of MB)
        scores_a = _scores(
            protocol_a(
                syn_a, target, name, test_size, a_rng, positive=positive, categorical=categorical
            ),
            test,
            target,
            positive,
        )
        scores_b = _scores(
            protocol_b(syn_b, curator, target, name, epsilon, b_rng, categorical=categorical),
            test,
            target,
            positive,
        )
        ref = true_performance(
            train,
            test,
            target,
            name,
            ref_rng,
            positive=positive,
            categorical=categorical,
            protocol="reference",
        ).metrics()
        for prot, (estimate, truth) in (("A", scores_a), ("B", scores_b)):
            for metric in METRICS:
                rows.append(
                    {
                        "protocol": prot,
                        "classifier": name,
                        "metric": metric,
                        "estimate": float(estimate[metric]),
                        "truth": float(truth[metric]),
                        "reference": float(ref[metric]),
                    }
                )
    frame = pd.DataFrame(rows, columns=_FRAME_COLUMNS)
    frame.attrs.update(neighbouring=neighbouring, synthetic_sizes=_SIZES[neighbouring])
    return frame


def _exact_sets(synth, train: pd.DataFrame, n_test: int, columns) -> tuple:
    """Replace-one (n public): fit ``synth`` on ``train``; |train| + ``n_test`` rows for
    Protocol A, then |train| rows for B, each checked for its size and ``columns``."""
    synth.fit(train)
    n_a, n_b = len(train) + n_test, len(train)
    syn_a = check_sample_frame(synth.sample(n_a), n_a, columns, "the Protocol A sample")
    syn_b = check_sample_frame(synth.sample(n_b), n_b, columns, "the Protocol B sample")
    return syn_a, syn_b


def _own_size_sets(synth, train: pd.DataFrame, test_size: float, columns) -> tuple:
    """Add/remove (n not public): fit ``synth`` on ``train``; Protocol B's sample is
    ``synth.sample()`` (the synthesizer's own size n̂), Protocol A's ``round(n̂ / (1 −
    test_size))`` rows (at least 2); no exact size of the real data is asked for.

    Raises TypeError if ``synth.sample`` cannot be called without ``n`` (before fitting) or
    returns something other than a DataFrame; ValueError for an empty sample or missing
    columns.
    """
    try:
        inspect.signature(synth.sample).bind()
    except TypeError:
        raise TypeError(
            "under neighbouring='add_remove' the synthesizer of make_synthesizer must draw its "
            "own number of rows: sample() without n (e.g. a DP estimate of |train|); its "
            f"sample{inspect.signature(synth.sample)} needs n. Pass neighbouring='replace_one' "
            "if the data size is public"
        ) from None
    synth.fit(train)
    syn_b = synth.sample()
    if not isinstance(syn_b, pd.DataFrame):
        raise TypeError(f"sample() must return a pandas DataFrame, got {type(syn_b).__name__}")
    if len(syn_b) < 1:
        raise ValueError("sample() returned no rows; the Protocol B sample needs at least one")
    syn_b = check_sample_frame(syn_b, len(syn_b), columns, "the Protocol B sample")
    n_a = max(2, round(len(syn_b) / (1.0 - test_size)))
    syn_a = check_sample_frame(synth.sample(n_a), n_a, columns, "the Protocol A sample")
    return syn_a, syn_b


def _scores(res, test: pd.DataFrame, target, positive) -> tuple[dict, dict]:
    """A protocol's estimate and its truth (the protocol's model on the real test set)."""
    return res.metrics(), evaluate_model(res.model, test, target, positive=positive)

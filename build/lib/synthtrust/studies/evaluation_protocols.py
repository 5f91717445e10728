"""Chapter ``evaluation_protocols``: Movahedi et al. (2024), "Benchmarking evaluation protocols for
classifiers trained on differentially private synthetic data" (IEEE Access 12), re-run.

One grid cell = (dataset, generator, ε); one replicate = one repetition of the paper's §IV.C
experiment (:func:`synthtrust.protocols.evaluate_repetition`): a random 80/20 split of the real
data, a DP generator fitted on the 80 %, Protocol A (Syn-Only) and Protocol B (Syn-Real, an ε-DP
confusion matrix from the curator) estimates of each classifier's accuracy and F1, their truths
on the real test set, and the real-data reference.

Data are the paper's public datasets, each encoded with its *public* domain
(:func:`synthtrust.domain.dataset_domain`): the generators and the classifiers see the bin codes
("the generative models used in this study only accept categorical features, therefore, all the
continuous valued features … have been discretized", §IV.C). The private IMPROD set is not
available.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import datasets, protocols
from ..domain import Categorical, dataset_domain
from ..experiment import replicate_index

__all__ = [
    "DATASETS",
    "adult_cell",
    "GENERATORS",
    "PAPER_FINDINGS",
    "build_grid",
    "compare_protocols",
    "joint_cells",
    "make_generator",
    "prepare",
    "repetition_cell",
    "summarize",
    "two_way_tvd",
]


@dataclass(frozen=True)
class StudyData:
    """How the chapter uses one dataset: its label in the paper, the class column, the labels
    that make the positive class, and the attributes dropped before synthesis."""

    label: str
    target: str
    positive: tuple
    drop: tuple = ()


#: The paper's public datasets (Table 1); IMPROD is private and not reproduced.
DATASETS = {
    "pima_diabetes": StudyData("Diabetes", "Outcome", (1,)),
    "ilpd": StudyData("Liver", "Dataset", (1,)),  # 1 = liver patient (416 of 583)
    # Thyroid: any hypothyroid class is positive (291 of 3772, 8 %); the paper's 22 features
    # drop the "*_measured" flags (implied by a missing value) and TBG (never measured)
    "hypothyroid_allhypo": StudyData(
        "Thyroid",
        "Target",
        ("compensated_hypothyroid", "primary_hypothyroid", "secondary_hypothyroid"),
        (
            "TSH_measured",
            "T3_measured",
            "TT4_measured",
            "T4U_measured",
            "FTI_measured",
            "TBG_measured",
            "TBG",
        ),
    ),
    "cardio": StudyData("Cardio", "cardio", (1,), ("id",)),
}

#: Generators: name -> (label in the chapter, differentially private?).
GENERATORS = {
    "privbayes": ("PrivBayes", True),
    "mst": ("MST", True),
    "mwem_pgm": ("MWEM-PGM", True),
    "aim": ("AIM", True),
    "privmrf": ("PrivMRF", True),
    "independent": ("Independent (non-DP)", False),
    "bootstrap": ("Bootstrap (non-DP)", False),
}

#: What the paper concludes (§V–VI), quoted for the side-by-side table.
PAPER_FINDINGS = [
    (
        "Protocol B (DP test on real data) is closer to the true performance than Protocol A",
        "lower ME and STD of the errors for B on every dataset; A's errors stay large even at high ε",
    ),
    ("Protocol A is often over-optimistic", "MWEM-PGM in A shows substantial optimistic bias"),
    ("Small ε (≤ 0.1) makes both protocols noisy", "variation grows as ε shrinks, more for A"),
    ("AIM gives the best downstream classifiers", "AIM, MWEM-PGM and PrivMRF perform best"),
]


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=8)
def _encoded(name: str) -> tuple[pd.DataFrame, dict, tuple[str, ...]]:
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; the chapter uses {', '.join(DATASETS)}")
    spec = DATASETS[name]
    raw = datasets.load(name).drop(columns=list(spec.drop))
    domain = dataset_domain(name)
    domain = domain.select([c for c in domain.columns if c not in spec.drop])
    codes = domain.encode(raw)
    codes[spec.target] = raw[spec.target].isin(spec.positive).to_numpy(dtype=np.int64)
    sizes = dict(domain.sizes)
    sizes[spec.target] = 2
    nominal = tuple(
        c
        for c in domain.columns
        if c != spec.target and isinstance(domain[c], Categorical) and domain.sizes[c] > 2
    )
    return codes, sizes, nominal


def prepare(name: str, max_rows: int | None = None, random_state=None):
    """The integer-coded table of one dataset, its public domain and its nominal columns.

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`.
    max_rows : int, optional
        Keep a uniform random subset of this many rows (the ``default`` preset's budget on
        Cardio's 70 000); None keeps all.
    random_state : int | Generator | None
        For the subset.

    Returns
    -------
    codes : DataFrame (rows, columns), int64 codes; the target is 0/1 (1 = positive class)
    sizes : dict {column: levels}, the public domain
    nominal : tuple of column names one-hot encoded by the classifiers (categorical, > 2 levels)

    Raises
    ------
    ValueError
        An unknown dataset name.
    """
    codes, sizes, nominal = _encoded(name)
    if max_rows is not None and max_rows < len(codes):
        rng = np.random.default_rng(random_state)
        codes = codes.iloc[np.sort(rng.choice(len(codes), int(max_rows), replace=False))]
        codes = codes.reset_index(drop=True)
    return codes.copy(), dict(sizes), nominal


def joint_cells(name: str) -> int:
    """Cells of the dataset's full joint histogram (why the histogram synthesizers of the
    hypothesis-validity chapter do not apply here)."""
    return int(np.prod(list(_encoded(name)[1].values()), dtype=object))


# --------------------------------------------------------------------------------------------
# generators
# --------------------------------------------------------------------------------------------
def make_generator(name: str, epsilon: float, delta: float, sizes: dict, random_state):
    """An unfitted generator with the paper's defaults (§IV.C: "all parameters … left to their
    default values").

    Raises ValueError for an unknown name (the message lists :data:`GENERATORS`).
    """
    from .. import synthesizers as syn

    if name == "privbayes":
        return syn.PrivBayes(epsilon, domain=sizes, random_state=random_state)
    zcdp = {"mst": "MST", "mwem_pgm": "MWEMPGM", "aim": "AIM", "privmrf": "PrivMRF"}
    if name in zcdp:
        return getattr(syn, zcdp[name])(epsilon, delta, domain=sizes, random_state=random_state)
    if name == "independent":
        return syn.IndependentMarginals(random_state=random_state)
    if name == "bootstrap":
        return syn.Bootstrap(random_state=random_state)
    raise ValueError(f"unknown generator {name!r}; expected one of {', '.join(GENERATORS)}")


# --------------------------------------------------------------------------------------------
# the experiment
# --------------------------------------------------------------------------------------------
def build_grid(
    *,
    datasets_: list[str],
    generators: list[str],
    epsilon: list[float],
    delta: float,
    classifiers: list[str],
    max_rows: int | None,
) -> list[dict]:
    """Grid cells (dataset × generator × ε) for :func:`repetition_cell`.

    Raises ValueError for an unknown dataset, generator or classifier.
    """
    for name in datasets_:
        if name not in DATASETS:
            raise ValueError(f"unknown dataset {name!r}; the chapter uses {', '.join(DATASETS)}")
    for name in generators:
        if name not in GENERATORS:
            raise ValueError(f"unknown generator {name!r}; expected one of {', '.join(GENERATORS)}")
    for name in classifiers:
        if name not in protocols.CLASSIFIERS:
            raise ValueError(
                f"unknown classifier {name!r}; expected one of {protocols.CLASSIFIERS}"
            )
    return [
        {
            "dataset": d,
            "generator": g,
            "epsilon": float(e),
            "delta": float(delta),
            "classifiers": list(classifiers),
            "max_rows": max_rows,
        }
        for d in datasets_
        for g in generators
        for e in epsilon
    ]


def repetition_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """``len(rngs)`` repetitions of one cell; tidy rows (see
    :func:`synthtrust.protocols.evaluate_repetition`) plus ``rep``.

    With ``max_rows`` each repetition draws its own subset of the data from its generator.
    """
    frames = []
    for rng in rngs:
        codes, sizes, nominal = prepare(params["dataset"], params.get("max_rows"), rng)
        target = DATASETS[params["dataset"]].target

        def factory(epsilon, random_state, sizes=sizes):
            return make_generator(
                params["generator"], epsilon, params["delta"], sizes, random_state
            )

        out = protocols.evaluate_repetition(
            codes,
            target,
            factory,
            params["epsilon"],
            params["classifiers"],
            random_state=rng,
            positive=1,
            categorical=list(nominal),
        )
        frames.append(out.assign(rep=replicate_index(rng, len(frames))))
    return pd.concat(frames, ignore_index=True)


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """ME, STD (n − 1) and RMSE of each protocol's error (Eq. 2–3) per dataset, generator, ε,
    classifier and metric, with the mean estimate, truth and reference."""
    by = ["dataset", "generator", "epsilon", "protocol", "classifier", "metric"]
    errors = protocols.summarize_protocol_errors(results, by=by)
    means = results.groupby(by, sort=False)[["estimate", "truth", "reference"]].mean().reset_index()
    return errors.merge(means, on=by)


def compare_protocols(summary: pd.DataFrame, generators) -> dict:
    """The chapter's headline: Protocol B against Protocol A over every comparison.

    A comparison is one (dataset, generator, ε, classifier, metric) of :func:`summarize`'s
    output restricted to ``generators``, with both protocols present.

    Returns
    -------
    dict
        ``n_compare`` (comparisons), ``b_wins`` (share where B's RMSE < A's), ``a_optimistic``
        (share where A's ME > 0), and per protocol ``rmse_median_A`` / ``_B`` and
        ``absme_median_A`` / ``_B`` (medians over the rows of that protocol).

    Raises
    ------
    ValueError
        No comparison has both protocols.
    """
    dp = summary[summary["generator"].isin(list(generators))]
    keys = ["dataset", "generator", "epsilon", "classifier", "metric"]
    wide = dp.pivot_table(index=keys, columns="protocol", values=["rmse", "me"], dropna=False)
    wide = wide.dropna(subset=[("rmse", "A"), ("rmse", "B")]) if len(wide) else wide
    if not len(wide):
        raise ValueError("no comparison has both protocols A and B for the given generators")
    out = {
        "n_compare": len(wide),
        "b_wins": float((wide[("rmse", "B")] < wide[("rmse", "A")]).mean()),
        "a_optimistic": float((wide[("me", "A")] > 0).mean()),
    }
    for prot in ("A", "B"):
        rows = dp[dp["protocol"] == prot]
        out[f"rmse_median_{prot}"] = float(rows["rmse"].median())
        out[f"absme_median_{prot}"] = float(rows["me"].abs().median())
    return out


# --------------------------------------------------------------------------------------------
# the generators on adult (the literature check)
# --------------------------------------------------------------------------------------------
def two_way_tvd(real: pd.DataFrame, synthetic: pd.DataFrame, sizes: dict) -> float:
    """Mean total variation distance ½‖p − q‖₁ between the 2-way marginals of two integer-coded
    tables over all column pairs (the workload error of the MST/AIM papers, normalised).

    Raises ValueError if the tables have different columns."""
    if list(real.columns) != list(synthetic.columns):
        raise ValueError(f"columns differ: {list(real.columns)} vs {list(synthetic.columns)}")
    cols = list(real.columns)
    out = []
    for i, a in enumerate(cols):
        for b in cols[i + 1 :]:
            cells = sizes[a] * sizes[b]
            p = np.bincount(real[a].to_numpy() * sizes[b] + real[b].to_numpy(), minlength=cells)
            q = np.bincount(
                synthetic[a].to_numpy() * sizes[b] + synthetic[b].to_numpy(), minlength=cells
            )
            out.append(0.5 * np.abs(p / p.sum() - q / q.sum()).sum())
    return float(np.mean(out))


def adult_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """Fit one generator (``params["generator"]``, ``epsilon``, ``delta``) on the discretised
    adult of the Private-PGM repository (``adult_pgm_discretized``, 48 842 × 14) and score its
    synthetic data (as many records); one row per replicate generator in ``rngs``.

    Returns a DataFrame with columns ``tvd_2way`` (:func:`two_way_tvd`) and ``fit_sample_s``
    (wall seconds for fit + sample); :func:`~synthtrust.experiment.run_grid` adds the parameters.
    """
    import time

    real = datasets.load("adult_pgm_discretized")
    sizes = dict(dataset_domain("adult_pgm_discretized").sizes)
    rows = []
    for rng in rngs:
        t0 = time.perf_counter()
        synth = make_generator(params["generator"], params["epsilon"], params["delta"], sizes, rng)
        out = synth.fit(real).sample(len(real))
        rows.append(
            {
                "tvd_2way": two_way_tvd(real, out[real.columns], sizes),
                "fit_sample_s": time.perf_counter() - t0,
            }
        )
    return pd.DataFrame(rows, columns=["tvd_2way", "fit_sample_s"])

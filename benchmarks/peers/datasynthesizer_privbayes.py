"""DataSynthesizer 0.1.13 PrivBayes (correlated attribute mode) on an integer-coded table.

Runs in the side environment ``.cache/peers/datasynthesizer`` (``requirements-datasynthesizer.txt``:
NumPy < 2, because DataSynthesizer's sampling crashes under NumPy 2).

As a user runs it: ``DataDescriber(category_threshold=20)`` (the default) on the CSV, so columns with
more than 20 distinct values (adult: age, fnlwgt, capital-gain, capital-loss, hours-per-week,
native-country) become *numeric* with 20 equal-width bins over the data's own min/max, then
``describe_dataset_in_correlated_attribute_mode(k=2, epsilon=ε, seed)`` and
``DataGenerator().generate_dataset_in_correlated_attribute_mode(n, description, seed)``.
Numeric values are drawn uniformly within a bin and rounded (Integer columns), so the output is
again integer codes in [min, max].

Privacy as implemented (DataSynthesizer 0.1.13, ``references.bib``: ``datasynthesizer2023``):
network ε/2 + noisy conditionals ε/2, *plus* the independent-mode per-attribute histograms stored
in the same description, which spend another ε (strict accounting of the released description:
2ε); min/max, the category sets and the "categorical" decision are read from the data without
noise.

``fit_s`` = describe (independent + correlated mode) + writing the description JSON;
``sample_s`` = generation + writing the synthetic CSV.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402


def main(argv=None) -> int:
    ap = _common.parser(__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=2, help="maximum number of parents (default 2)")
    ap.add_argument("--category-threshold", type=int, default=20)
    args = ap.parse_args(argv)

    import numpy as np
    import pandas as pd
    from DataSynthesizer.DataDescriber import DataDescriber
    from DataSynthesizer.DataGenerator import DataGenerator

    n_in = len(pd.read_csv(args.input))
    n_out = args.rows or n_in
    with tempfile.TemporaryDirectory(prefix="ds_") as tmp:
        desc_path = os.path.join(tmp, "description.json")
        t0 = time.perf_counter()
        describer = DataDescriber(category_threshold=args.category_threshold)
        describer.describe_dataset_in_correlated_attribute_mode(
            dataset_file=args.input, k=args.k, epsilon=args.epsilon, seed=args.seed
        )
        describer.save_dataset_description_to_file(desc_path)
        fit_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        generator = DataGenerator()
        generator.generate_dataset_in_correlated_attribute_mode(n_out, desc_path, seed=args.seed)
        generator.save_synthetic_data(args.output)
        sample_s = time.perf_counter() - t0

        with open(desc_path, encoding="utf-8") as fh:
            desc = json.load(fh)

    attrs = desc["attribute_description"]
    numeric = [a for a, d in attrs.items() if not d.get("is_categorical")]
    bn = desc["bayesian_network"]
    notes = {
        "k": args.k,
        "epsilon_network": args.epsilon / 2,
        "epsilon_conditionals": args.epsilon / 2,
        "epsilon_independent_histograms": args.epsilon,
        "epsilon_strict_total": 2 * args.epsilon,
        "numeric_20_bins": numeric,
        "bayesian_network": bn,
        "n_parents_max": max(len(p) for _, p in bn),
        "conditional_tables": len(desc["conditional_probabilities"]),
    }
    _common.write_result(
        args.result,
        fit_s=fit_s,
        sample_s=sample_s,
        rows_in=n_in,
        rows_out=n_out,
        versions=_common.versions("DataSynthesizer", "numpy", "pandas", "scikit-learn"),
        numpy_version=np.__version__,
        notes=notes,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

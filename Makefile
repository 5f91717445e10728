# synthtrust — the README's two commands are `make book` and `make test`; both set up first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NODE_DIR := .cache/node
MATHJAX  := $(NODE_DIR)/node_modules/mathjax/es5/tex-chtml.js
PRESET ?= default
# the package's version (pyproject.toml), which names the results bundle `make book` writes
VERSION := $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' pyproject.toml)
BUNDLE ?= _build/results-$(VERSION).tar.gz
# the release tag being built (GitHub Actions sets GITHUB_REF_NAME)
TAG ?= $(GITHUB_REF_NAME)

.PHONY: install assets chromium book site-from-results release-check test lint bench bench-synthesizers bench-importance bench-audit clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all]'
	touch $(STAMP)

# MathJax 3 from the npm registry, served by the site itself (no CDN at read time).
assets: $(MATHJAX)

$(MATHJAX):
	mkdir -p $(NODE_DIR)
	npm install --silent --no-audit --no-fund --prefix $(NODE_DIR) mathjax@3

# Headless Chromium for the site test (Debian package; needs root as on CI).
chromium:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# every chapter on $(PRESET) into _build/runs/, their results bundle _build/results-$(VERSION).tar.gz
# and the site _build/html (.github/workflows/book.yml runs it on a release tag, and on the smoke
# preset for a pull request)
book: install assets
	$(BIN)/synthtrust book --preset $(PRESET)

# the site again from a results bundle, no chapter run (a couple of minutes): BUNDLE=FILE, by
# default the one `make book` wrote
site-from-results: install assets
	$(BIN)/synthtrust book --from-results $(BUNDLE)

# a release tag names the package's version: v$(VERSION)
release-check:
	@test "$(TAG)" = "v$(VERSION)" || { echo "release tag '$(TAG)' does not name version $(VERSION) of pyproject.toml: tag v$(VERSION), or change the version"; exit 1; }
	@echo "release v$(VERSION)"

test: install assets chromium lint
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup tests

# ruff's lint rules and formatting (pyproject.toml [tool.ruff]); `ruff format lib tests
# benchmarks` fixes the formatting
lint: install
	$(BIN)/ruff check lib tests benchmarks
	$(BIN)/ruff format --check lib tests benchmarks

bench: install
	$(BIN)/python benchmarks/bench_hypothesis.py

# synthesizers on adult vs DataSynthesizer, smartnoise-synth, dpmm and OpenDP (~50 min; the
# peers get side virtual environments in .cache/peers, from PyPI)
bench-synthesizers: install
	$(BIN)/python benchmarks/bench_synthesizers.py --timeout 600

# chapter 4: correlated RBO (exact assignment vs the reference's per-depth LPs), ~10 s
bench-importance: install
	$(BIN)/python benchmarks/bench_importance.py

# chapter 5: audit basis + extremal pair vs dense M-vectors and one audit per application
# (bench_audit.py), then IPF vs ipfn and humanleague (bench_ipf.py; side environment
# .cache/peers/ipfn, from PyPI), ~7 min
bench-audit: install
	$(BIN)/python benchmarks/bench_audit.py
	$(BIN)/python benchmarks/bench_ipf.py

# chapter 5's IPF alone: synthtrust IPF vs ipfn 1.4.4 and humanleague 2.4.3, ~3 min
.PHONY: bench-ipf
bench-ipf: install
	$(BIN)/python benchmarks/bench_ipf.py

# chapter 1's DP GAN: GS-WGAN training at the paper's setting, previous vs current implementation
# (per phase, same accounting, 2-way TVD over 3 seeds), ~10 min
.PHONY: bench-gan bench-gan-controls bench-privmrf bench-treeshap
bench-gan: install
	$(BIN)/python benchmarks/bench_gan.py

# chapter 1's DP GAN beside its controls (sigma = 0, plain WGAN-GP, untrained) with the authors'
# 2000-iteration warm start, both encodings, ~45 min on 2 cores
bench-gan-controls: install
	$(BIN)/python benchmarks/bench_gan.py --controls

# chapter 6's audits: seconds a fit of MST and AIM on the audit's worst case, fits a second on
# 2 cores, against dpmm 0.1.9 (side environment .cache/peers/dpmm) and the published 9.2 s (~3 min)
.PHONY: bench-dp-audit
bench-dp-audit: install
	$(BIN)/python benchmarks/bench_dp_audit.py

# synthtrust fidelity against mostlyai-qa and SDMetrics (side environments in .cache/peers)
bench-fidelity-scale: install
	for p in mostlyai-qa sdmetrics; do test -x .cache/peers/$$p/bin/python || \
	  (python3 -m venv .cache/peers/$$p && .cache/peers/$$p/bin/pip install --quiet \
	  -r benchmarks/peers/requirements-$$p.txt); done
	HF_HUB_OFFLINE=1 $(BIN)/python benchmarks/bench_fidelity_scale.py

# chapter 3's PrivMRF on thyroid at ε ∈ {1, 10}: mbi's JAX mirror descent (the previous engine)
# vs the package's numpy one, same process (~25 min, mostly mbi at ε = 10)
bench-privmrf: install
	$(BIN)/python benchmarks/bench_privmrf.py

# chapter 3's PrivMRF on thyroid at ε = 10: mbi's greedy junction trees vs the searched ones
# (elimination.small_tree_order), same process, outputs compared (~5 min)
.PHONY: bench-privmrf-tree
bench-privmrf-tree: install
	$(BIN)/python benchmarks/bench_privmrf_tree.py

# chapter 3's PrivMRF on thyroid at ε = 10: one reduction a potential clique vs shared partial
# sums (marginal.reduction), same process, outputs compared (~2 min)
.PHONY: bench-privmrf-sums
bench-privmrf-sums: install
	$(BIN)/python benchmarks/bench_privmrf_sums.py

# chapter 3's PrivMRF on thyroid at ε = 10: candidate marginals by one variable elimination each
# (the previous code) vs one junction tree a step, same process, checked identical (~20 min)
.PHONY: bench-privmrf-select
bench-privmrf-select: install
	$(BIN)/python benchmarks/bench_privmrf_select.py --output benchmarks/results_privmrf_select.txt

# chapter 4's TreeSHAP of one Adult forest: shap's C++ vs synthtrust._treeshap on 500 test rows,
# then the new path on the whole test split (~6 min, mostly shap)
bench-treeshap: install
	$(BIN)/python benchmarks/bench_treeshap.py

# chapter 4's TreeSHAP on tables with repeated rows (the artificial datasets): every row vs each
# distinct row once, whole test splits as the paper preset, bitwise the same values (~5 min)
.PHONY: bench-treeshap-repeats
bench-treeshap-repeats: install
	$(BIN)/python benchmarks/bench_treeshap_repeats.py

# chapter 4's permutation importance of one Adult forest: sklearn's default scorer vs
# synthtrust._forest_score.ForestAccuracy, bitwise the same importances (~3 min)
.PHONY: bench-permutation
bench-permutation: install
	$(BIN)/python benchmarks/bench_permutation.py

# chapter 3's AIM on the whole Cardio data at ε = 15: node log-potentials added one potential at
# a time vs shared partial sums (marginal.reduction.SharedBroadcast), same process (~4 min)
.PHONY: bench-node-fill
bench-node-fill: install
	$(BIN)/python benchmarks/bench_node_fill.py

clean:
	rm -rf _build .cache/joblib

# the worker warm-ups of chapters 4 and 2: every library vs what the cell needs, peak memory
# of one task each, outputs compared (~6 min)
.PHONY: bench-warm-up profile-book
bench-warm-up: install
	$(BIN)/python benchmarks/bench_warm_up.py
	$(BIN)/python benchmarks/bench_warm_up.py --chapter holdout_fidelity_privacy

# a second build after `make book`: every chapter from the cache vs the unchanged ones not run,
# the runs compared (~3 min at the default preset)
.PHONY: bench-second-build
bench-second-build: install
	$(BIN)/python benchmarks/bench_second_build.py --preset $(PRESET)

# CTGAN's sampling in blocks of rows vs one pass: peak memory, seconds, identical records
.PHONY: bench-gan-sampling
bench-gan-sampling: install
	$(BIN)/python benchmarks/bench_gan_sampling.py

# the chapters' wall times and grids of the last `make book` (their run manifests)
profile-book: install
	$(BIN)/python benchmarks/profile_book.py --runs _build/runs/$(PRESET)

# The Encoder Book. The two commands a reader needs: `make book` and `make test`.
# Both set up .venv/ on first use; nothing else has to be installed by hand.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
SETUP_DONE := $(VENV)/.setup-done
# The CPU build of torch lies on this machine's disk; installing it first, with pip
# (which looks there), keeps the `torch>=2.2` requirement from resolving to a multi-GB
# CUDA download. uv then installs the rest at the pinned versions, in seconds where
# pip takes minutes; it finds torch installed and leaves it alone. It compiles the
# bytecode as pip does: where PYTHONDONTWRITEBYTECODE is set (as on CI's machines), no
# later import writes it, and every process (each notebook kernel) would compile
# transformers, ipykernel and the rest from source again (3.6 s more per import).
TORCH := torch==2.13.0
CHAPTERS := $(sort $(wildcard chapters/*.ipynb))
# Tests and chapters never reach a model or dataset hub: fail fast, fall back, say so.
OFFLINE := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# Another CPU, simulated (DESIGN §3a): ATen's portable kernels, MKL's reproducible code
# path and one thread change the last bits of matmul, softmax, LayerNorm, GELU and every
# reduction, as a reader's machine would. Every chapter's outputs must hold under both.
OTHER_CPU := ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE OMP_NUM_THREADS=1

.PHONY: help setup export check-export book test test-fast test-other-cpu bench execute format constraints clean diagrams study budget

help:
	@echo "make book          build the book into _build/html (sets up .venv on first use)"
	@echo "make test          run every test: pytest, nbval over all chapters, book build with warnings as errors, offline-math check"
	@echo "make setup         create .venv with pinned versions and install encoderlib in editable mode"
	@echo "make export        regenerate encoderlib/ and appendix/claims.md from the chapters"
	@echo "make check-export  fail if encoderlib/ or the claims index differ from a fresh export"
	@echo "make test-fast     pytest only (no nbval, no book build)"
	@echo "make test-other-cpu  nbval over every chapter with the low bits of every kernel changed"
	@echo "make bench         run the speed and memory comparisons in benchmarks/ (minutes; prints tables)"
	@echo "make diagrams      redraw the architecture diagrams (chapters/figures/) and place them in their chapters"
	@echo "make format        ruff format and ruff check --fix over chapters, tools and tests"
	@echo "make execute NB=chapters/01_the_cat_sat.ipynb   run a chapter top to bottom and store its outputs"
	@echo "make study CH=09 [SEEDS=0:100] [DEVICE=cuda]   print the tables chapter 9 records (studies/)"
	@echo "make budget        words and visible code lines per chapter (tools/page_budget.py)"

setup: $(SETUP_DONE)

$(SETUP_DONE): pyproject.toml constraints.txt tools/ipython_kernel_config.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt $(TORCH) uv
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(PY) -c constraints.txt -e ".[test]"
	mkdir -p $(VENV)/etc/ipython
	cp tools/ipython_kernel_config.py $(VENV)/etc/ipython/ipython_kernel_config.py
	touch $@

export: $(SETUP_DONE)
	$(PY) tools/setup_cell.py
	$(PY) tools/export.py
	$(PY) tools/claims_index.py

check-export: $(SETUP_DONE)
	$(PY) tools/export.py --check
	$(PY) tools/claims_index.py --check

# The architecture diagrams: drawn by tools/diagrams.py, placed by tools/place_figures.py.
diagrams: $(SETUP_DONE)
	$(PY) tools/diagrams.py
	$(PY) tools/place_figures.py

# Run a chapter top to bottom and store its outputs (NB=path; default: every chapter).
execute: $(SETUP_DONE)
	for nb in $(or $(NB),$(CHAPTERS)); do \
		echo "executing $$nb"; \
		$(OFFLINE) $(BIN)/jupyter execute --inplace "$$nb" || exit 1; \
	done

book: $(SETUP_DONE)
	$(BIN)/jupyter-book build . -W --keep-going
	@echo "The book is at file://$(CURDIR)/_build/html/index.html"

# The page budget first (seconds); then pytest and nbval in one run, two workers, whole
# files per worker (--dist loadfile keeps a notebook's cells on one kernel; the study
# reruns are spread over five tests/test_study_reruns_*.py files for the same reason;
# conftest.py hands the files out longest first); nbval again as another CPU would
# compute; then the
# whole book (--all: every page re-read, so a warning on an unchanged page still fails)
# with warnings as errors; then the built pages must render math offline (MathJax from a
# file inside _build/html, never a CDN).
test: $(SETUP_DONE)
	$(PY) tools/page_budget.py --check
	$(OFFLINE) $(PY) -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=25 --nbval --nbval-current-env --nbval-sanitize-with tools/nbval_sanitize.cfg tests $(CHAPTERS)
	$(MAKE) --no-print-directory test-other-cpu
	$(BIN)/jupyter-book build . -W --keep-going --all
	$(PY) tools/check_built_book.py _build/html

# The chapters' stored outputs and asserts under the second numeric configuration.
test-other-cpu: $(SETUP_DONE)
	$(OFFLINE) $(OTHER_CPU) $(PY) -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=5 --nbval --nbval-current-env --nbval-sanitize-with tools/nbval_sanitize.cfg $(CHAPTERS)

# pytest alone, without nbval and the book build: for quick edits to tools/ and tests/.
test-fast: $(SETUP_DONE)
	$(OFFLINE) $(PY) -m pytest -n 2 --dist loadfile tests

# Speed and memory against PyTorch's and Hugging Face's encoders, printed as tables.
bench: $(SETUP_DONE)
	for script in $(sort $(wildcard benchmarks/*.py)); do \
		echo "== $$script"; $(OFFLINE) $(PY) "$$script" || exit 1; \
	done

# Format and lint chapters, tools and tests (the exported library follows its chapters).
format: $(SETUP_DONE)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
	$(PY) tools/export.py

constraints: $(SETUP_DONE)
	{ echo "# Exact versions for CI and for the stored notebook outputs (pip install -c constraints.txt)."; \
	  echo "# torch is installed first on its own, as the CPU build 2.13.0; regenerate with \`make constraints\`."; \
	  $(BIN)/pip freeze --exclude-editable | grep -vi '^encoderlib' | sed 's/^torch==\(.*\)+cpu$$/torch==\1/'; \
	} > constraints.txt

clean:
	rm -rf _build .pytest_cache .hypothesis

# Every chapter within 4,000 words of prose and 500 visible code lines.
budget: $(SETUP_DONE)
	$(PY) tools/page_budget.py

# The script behind a chapter's recorded tables (studies/chNN_*.py): make study CH=07,
# with other seeds (SEEDS=0:3 or SEEDS=0,5) or on a GPU (DEVICE=cuda). It prints each
# table with its command, versions, device and threads, ready to paste into the chapter.
study: $(SETUP_DONE)
	@test -n "$(CH)" || { echo "usage: make study CH=07 [SEEDS=0:3] [DEVICE=cuda]"; exit 2; }
	@ls studies/ch$(CH)_*.py >/dev/null 2>&1 || { echo "no study for chapter $(CH) in studies/"; exit 2; }
	for script in studies/ch$(CH)_*.py; do \
		$(OFFLINE) $(PY) -m studies.$$(basename $$script .py) $(if $(SEEDS),--seeds $(SEEDS)) $(if $(DEVICE),--device $(DEVICE)) || exit 1; \
	done

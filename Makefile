# Every target creates .venv and installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The real data: the copy packaged in bayes_hier/example_data unless DATA names a file or folder.
DATA ?=
DATA_ARG := $(if $(DATA),--data $(DATA))
JOBS ?= 2
# make paper: one worker more than cores. httpstan runs a fit's 4 chains on one process per core,
# two at a time, so a worker leaves the cores idle between its chain batches and while it reads
# the draws. Measured on 2 cores, E1 q = 50 fits, 8 min each way: 3 workers finished 128 fits,
# 2 workers 113.
PAPER_JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 1 )))
export MPLBACKEND := Agg

.PHONY: demo test check lint bench clean paper paper-quick calibrate calibrate-joint calibrate-ranking docs demo-many report-screenshot

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The pystan extra: the embedded engine, for machines without CmdStan.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[pystan]"
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[test]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/python -m bayes_hier.demo

# The 5 classifiers on the real data, all 10 pairs (hierarchical test): report in demo_output/many.
demo-many: $(VENV)/.installed
	mkdir -p demo_output
	$(BIN)/python -c "from bayes_hier.examples import load_uci_weka; \
		load_uci_weka().to_csv('demo_output/uci_weka_10x10cv.csv', index=False)"
	$(BIN)/bayes-hier compare demo_output/uci_weka_10x10cv.csv --rope 1 --seed 1 --jobs $(JOBS) \
		--out demo_output/many --force

# Render demo_output/many/report.html in headless Chromium (Debian: apt-get install chromium).
report-screenshot: demo-many
	chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir=$$(mktemp -d) --screenshot=demo_output/many/report.png \
		--window-size=1200,2000 file://$(abspath demo_output/many/report.html)

lint: $(VENV)/.installed-test
	$(BIN)/ruff check bayes_hier tests benchmarks notebooks
	$(BIN)/ruff format --check bayes_hier tests benchmarks notebooks

# Tests run in parallel worker processes (pytest-xdist), one test file per worker at a time, in
# the order the suite sorts them (long files first); at most 4 workers, as many as the machine has
# cores. PARALLEL_TESTS= (empty) runs them in this process.
PARALLEL_TESTS ?= --numprocesses=auto --maxprocesses=4 --dist=loadfile --no-loadscope-reorder

# For every edit (under 3 minutes on 2 cores): lint and every test that needs neither Stan, notebooks,
# the wheel, worker processes nor Dask (those are marked slow).
check: lint
	$(BIN)/python -m pytest -q -m "not slow" --durations=10 $(PARALLEL_TESTS)

# The whole suite: lint, the documentation site (warnings fail), then every test (Stan fits and
# notebook runs included; select with -m stan / -m notebook).
test: lint docs
	$(BIN)/python -m pytest -ra --durations=15 $(PARALLEL_TESTS)

# The Stan tests again on the cmdstanpy engine, where a CmdStan is installed
# (python -c "import cmdstanpy; cmdstanpy.install_cmdstan()", or CMDSTAN=/path/to/cmdstan).
.PHONY: test-cmdstan
test-cmdstan: $(VENV)/.installed-test
	@$(BIN)/python -c 'from bayes_hier.engines import CMDSTAN_INSTALL, CmdStanPyEngine; \
		CmdStanPyEngine.available() or exit("make test-cmdstan: no CmdStan found; install " \
		f"one with {CMDSTAN_INSTALL} or point the variable CMDSTAN at one.")'
	BAYES_HIER_ENGINE=cmdstanpy $(BIN)/python -m pytest -ra -m "stan and not notebook and not wheel"

# The performance benchmarks: the targets' table and sections in benchmarks/RESULTS.md (and .json).
# One section alone: make bench BENCH_ONLY=robustness; all 120 pairs of target 8: SCALE=full.
# Needs the test extra (targets 4-5 run their tests); baycomp goes to benchmarks/.venv-baycomp.
BENCH_ONLY ?=
SCALE ?= subset
bench: $(VENV)/.installed-test
	nice -n 10 $(BIN)/python -m benchmarks.run --out benchmarks/RESULTS.md --scale-size $(SCALE) \
		$(if $(BENCH_ONLY),--only $(BENCH_ONLY))
	$(if $(BENCH_ONLY),,nice -n 10 $(BIN)/python -m benchmarks.compare --out benchmarks/COMPARE.md \
		--jobs $(JOBS))

# The full run; when it is complete, its results of record go to paper/ and the README's block.
paper: $(VENV)/.installed-test
	$(BIN)/python -m bayes_hier.experiments --full --out results --jobs $(PAPER_JOBS) $(DATA_ARG)
	$(BIN)/python -m bayes_hier.experiments.record --results results --to paper --readme README.md

paper-quick: $(VENV)/.installed-test
	$(BIN)/python -m bayes_hier.experiments --quick --out results --jobs $(JOBS) $(DATA_ARG)

# One entry for every model: python -m bayes_hier.calibration --model NAME [NAME ...].
# SBC of the hierarchical model (2 nu priors x 4 (q, n), 64 replicates each), of its two-chart
# coordinates and of its quadrature coordinates (every data set but one integrated) at 2 and 4
# folds (2 nu priors x 3 (q, n) each) and its decision
# error rates: results/calibration.
calibrate: $(VENV)/.installed-test
	$(BIN)/python -m bayes_hier.calibration --model hierarchical hierarchical_two_chart hierarchical_quadrature --out results/calibration --jobs $(JOBS)

# SBC of the joint model (k = 3, q = 10, n = 10) and of its fold-level noise (k = 5, q = 10,
# n = 4; k = 8, q = 10, n = 2), 200 replicates each: results/calibration-joint.
calibrate-joint: $(VENV)/.installed-test
	$(BIN)/python -m bayes_hier.calibration --model joint joint_fold joint_fold_two --out results/calibration-joint --jobs $(JOBS)

# SBC of the Bradley-Terry and Plackett-Luce models (k = 4, 20 data sets, 200 replicates each).
calibrate-ranking: $(VENV)/.installed-test
	$(BIN)/python -m bayes_hier.calibration --model bradley_terry plackett_luce --out results/calibration-ranking --jobs $(JOBS)

$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[docs,pystan]"
	touch $@ $(VENV)/.installed

# The HTML site in docs/_build/html, offline; warnings (nitpicky cross-references included) fail.
docs: $(VENV)/.installed-docs
	$(BIN)/sphinx-build -W --keep-going -n -b html docs docs/_build/html

clean:
	rm -rf $(VENV) build dist demo_output .pytest_cache .ruff_cache docs/_build docs/jupyter_execute

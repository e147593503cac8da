# Two commands: `make run` (main job) and `make test` (the suite). Both set up .venv first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TORCH_VERSION ?= 2.13.0

.PHONY: run test test-all setup lint clean gpu-test results

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# torch first, pinned, so pip never pulls a multi-GB CUDA build on a CPU machine
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/python -m pip install -q torch==$(TORCH_VERSION)
	$(BIN)/python -m pip install -q -e '.[dev,llm,scale]'
	touch $(STAMP)

setup: $(STAMP)

# Without a GPU the campaign runs through the Triton interpreter on the 4 smallest workloads with the
# quick timing preset (about a minute on 2 cores); pass Hydra overrides with `make run RUN_ARGS=...`.
RUN_ARGS ?=

run: $(STAMP)
	$(BIN)/kernelopt optimize $(RUN_ARGS)

# The suite runs on TEST_JOBS processes (pytest-xdist; one test file per process at a time, so a file's
# fixtures are set up once); `make test TEST_JOBS=0` runs it in one process. The 15 slowest tests are listed
# at the end (the suite should stay under ~20 minutes on the 2-core CI machine). `make test` leaves out the
# interpreter checks of superseded kernels (marker `superseded`: frozen seeds and dispatches no retained solution
# runs, found from operators/*/retained/solution.json by tests/retained_sets.py; ~27 of the suite's ~64 CPU-minutes);
# `make test-all` runs them too. The GPU suite (`make gpu-test`) runs every kernel's GPU check either way.
TEST_JOBS ?= 2
TEST_MARKS ?= not superseded

test: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -n $(TEST_JOBS) --dist loadfile --durations=15 -m "$(TEST_MARKS)" tests

test-all: $(STAMP)
	$(MAKE) test TEST_MARKS=

# Older device-call outputs are packed in benchmarks/results/archive/ (scripts/results_archive.py): unpack them in
# place to read the files that notes and summaries cite (standard library only: no setup needed).
results:
	$(PY) scripts/results_archive.py unpack

gpu-test: $(STAMP)
	$(BIN)/python -m pytest -q -m gpu tests

clean:
	rm -rf $(VENV) mlruns outputs multirun reports .pytest_cache

# shithead-sim: `make run` installs and runs the main job; `make test` installs and tests;
# `make test-fast` (while working) skips the slow tests: cold compiles, Dask, Chromium, studies.
PYTHON ?= python3
GAMES ?= 1e6
PLAYERS ?= 4
SEED ?= 7
BENCH_ARGS ?=

.PHONY: install run test test-fast bench clean

install:
	$(PYTHON) -m pip install -q -e '.[all,test]'
	@# Bytecode for the package's own modules: an editable install gets none, and where
	@# PYTHONDONTWRITEBYTECODE is set (containers) each command compiled them again (26 ms).
	$(PYTHON) -m compileall -q sim strategies reports

run: install
	$(PYTHON) -m sim.cli run --games $(GAMES) --players $(PLAYERS) --seed $(SEED) --strategy lowest

test: install
	$(PYTHON) -m ruff check .
	$(PYTHON) -m pytest -q

test-fast:
	$(PYTHON) -m ruff check .
	$(PYTHON) -m pytest -q -m "not slow"

bench: install
	$(PYTHON) benchmarks/bench.py --cold $(BENCH_ARGS)

clean:
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	rm -rf .pytest_cache .hypothesis *.egg-info

# Two commands: `make run` starts the whole system, `make test` runs lint, types and the suite.
# Both work from a fresh clone: they create .venv and install the project into it first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck pytest bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Settings come from the environment: PORT, REDIS_URL, SOLVE_WORKERS, ENUMERATE_WORKERS,
# WEB_CONCURRENCY and the ALPHAMETIC_* ones (see README). GNU make exports variables given on its
# command line to recipes, so `make run ENUMERATE_WORKERS=4` reaches scripts/run.py as well.
run: $(STAMP)
	$(BIN)/python -m scripts.run

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache

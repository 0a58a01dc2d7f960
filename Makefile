# The two commands a fresh machine needs: `make run` and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-fast contracts bench bench-guard install clean package deploy destroy browser git-lfs cb-client axe

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet pip==26.2.1  # chalice asks for pip<26.3
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP)

# Serve the API on 127.0.0.1:$${PORT:-8000} with embedded moto; state in $${NIMBUS_DATA_DIR:-./.nimbus}.
run: $(STAMP)
	$(PY) -m chalicelib.local

# Tests keep their compiled modules even where the environment says not to write them
# (PYTHONDONTWRITEBYTECODE): each pytest process and each of its workers would otherwise
# compile the whole package again.
test test-fast: export PYTHONDONTWRITEBYTECODE :=

# Contracts first (.importlinter, its generated part current): a broken layer or a domain
# reached past its face fails in seconds, loudly.  Then the fast layer (every domain's
# rules on the in-memory AWS twin, no moto), then the end-to-end tests on every core.
test: $(STAMP) browser git-lfs cb-client axe
	$(PY) dev/import_contracts.py --check
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m pytest -q -m fast -n auto
	$(PY) -m pytest -q -m "not fast" -n auto --dist worksteal --durations=25

# The rules of every domain against the in-memory twin: seconds, no moto, no servers.
test-fast: $(STAMP)
	$(PY) -m pytest -q -m fast -n auto

# After adding a domain or a routes module: the generated contracts and docstrings.
contracts: $(STAMP)
	$(PY) dev/import_contracts.py --write
	$(PY) dev/domain_docs.py --write

# Debian's headless Chromium and its matching chromedriver, for tests/web/test_browser.py;
# nothing to do (and no network) when both are installed.  Run as root, as CI does.
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends chromium chromium-driver >/dev/null; }

# axe-core from the npm registry (pinned by tests/web/axe/package-lock.json), which
# tests/web/test_accessibility.py injects into every page; nothing to do when installed.
AXE := tests/web/axe/node_modules/axe-core/axe.min.js
$(AXE): tests/web/axe/package-lock.json
	cd tests/web/axe && npm ci --silent --no-audit --no-fund
	touch $@

axe: $(AXE)

# Debian's git-lfs, for tests/lfs/test_lfs_git.py (skipped, saying why, without it);
# nothing to do (and no network) when it is installed.  Run as root, as CI does.
git-lfs:
	@command -v git-lfs >/dev/null || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends git-lfs >/dev/null; }

# The cb CLI (requirements-cb.txt) in a virtualenv of its own: it needs Python 3.12,
# taken from PATH or, on machines with pyenv, from its versions.
CB_VENV := .venv-cb
CB_PYTHON ?= $(shell for p in python3.12 $$HOME/.pyenv/versions/3.12*/bin/python3.12; do \
  "$$p" -c 'import sys' >/dev/null 2>&1 && { echo "$$p"; break; }; done)

$(CB_VENV)/.installed: requirements-cb.txt
	@test -n "$(CB_PYTHON)" || { echo "cb-client: no Python 3.12 found (set CB_PYTHON)"; exit 1; }
	$(CB_PYTHON) -m venv $(CB_VENV)
	$(CB_VENV)/bin/pip install --quiet -r requirements-cb.txt
	touch $@

cb-client: $(CB_VENV)/.installed

# The ratio guards (bench/guard.py): cold start against a bare app, git on `make run`
# against C git, list pages at two sizes, events under a burst.  A few minutes; fails
# when a ratio measured in this run passes its limit.  .ci/run calls it after the tests.
bench-guard: $(STAMP)
	$(PY) bench/guard.py

bench: $(STAMP)
	$(PY) bench/aws_calls.py
	$(PY) bench/cold_start.py
	$(PY) bench/git_transfer.py
	$(PY) bench/markdown_render.py
	$(PY) bench/local_throughput.py
	$(PY) bench/page_weight.py

# The Lambda zip (python3.12 wheels, whatever Python runs this) and its template, in
# .chalice/deployments/package/; prints the sizes.  infra/README.md has the details.
package: $(STAMP)
	$(PY) -m infra.package

# make deploy STACK=nimbus ARTIFACT_BUCKET=my-artifacts [ROOT_URL=https://git.example.com/]
#   [DOMAIN=git.example.com CERTIFICATE_ARN=arn:aws:acm:us-east-1:...] [ALARM_TOPIC_ARN=arn:aws:sns:...]
#   [EVENTBRIDGE_BUS=default]
# Region and credentials: the usual AWS settings (AWS_REGION, AWS_PROFILE, ~/.aws/config).
deploy: $(STAMP)
	$(PY) -m infra.deploy --stack "$(STACK)" --artifact-bucket "$(ARTIFACT_BUCKET)" --root-url "$(ROOT_URL)" \
	  --domain "$(DOMAIN)" --certificate-arn "$(CERTIFICATE_ARN)" --alarm-topic-arn "$(ALARM_TOPIC_ARN)" \
	  --eventbridge-bus "$(EVENTBRIDGE_BUS)"

# make destroy STACK=nimbus: the table and the bucket are kept, with their data.
destroy: $(STAMP)
	$(PY) -m infra.destroy --stack "$(STACK)"

clean:
	rm -rf $(VENV) .pytest_cache

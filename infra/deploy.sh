#!/usr/bin/env bash
# Deploy Nimbus to the AWS account of the current credentials, in one command:
#   infra/deploy.sh <stack-name> <artifact-bucket> [root-url]
# The same as `make deploy STACK=... ARTIFACT_BUCKET=... [ROOT_URL=...]` (infra/deploy.py):
# installs the virtualenv when missing, builds the package, creates or updates the stack.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
exec make -C "$here" --no-print-directory deploy STACK="${1:-}" ARTIFACT_BUCKET="${2:-}" \
  ROOT_URL="${3:-}"

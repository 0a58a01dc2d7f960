#!/usr/bin/env bash
# Delete the Nimbus stack (table and bucket are kept, with their data):
#   infra/destroy.sh <stack-name>          (the same as `make destroy STACK=...`)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
exec make -C "$here" --no-print-directory destroy STACK="${1:-}"

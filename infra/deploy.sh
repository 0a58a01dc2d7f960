#!/usr/bin/env bash
# Deploy Nimbus to the AWS account of the current credentials, in one command:
#   infra/deploy.sh <stack-name> <artifact-bucket> [root-url]
# Packages the Chalice app with the resources of infra/template.py merged in, then
# creates or updates one CloudFormation stack.  Needs: AWS credentials, AWS_DEFAULT_REGION,
# an existing S3 bucket for the deployment artifact, and the awscli.
set -euo pipefail
stack=${1:?stack name}
artifacts=${2:?artifact bucket}
root_url=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
py=${PY:-$here/.venv/bin/python}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cd "$here"
"$py" -m infra.template > "$out/resources.json"
if [ -n "$root_url" ]; then
  "$py" - "$out/resources.json" "$root_url" <<'PY'
import json, sys
path, url = sys.argv[1], sys.argv[2]
doc = json.load(open(path))
doc["Resources"]["APIHandler"]["Properties"]["Environment"]["Variables"]["NIMBUS__SERVER__ROOT_URL"] = url
json.dump(doc, open(path, "w"))
PY
fi
"$here/.venv/bin/chalice" package --stage prod --merge-template "$out/resources.json" "$out/pkg"
aws cloudformation package --template-file "$out/pkg/sam.json" --s3-bucket "$artifacts" \
  --output-template-file "$out/packaged.yaml"
aws cloudformation deploy --template-file "$out/packaged.yaml" --stack-name "$stack" \
  --capabilities CAPABILITY_IAM CAPABILITY_AUTO_EXPAND
aws cloudformation describe-stacks --stack-name "$stack" \
  --query "Stacks[0].Outputs" --output table

"""Delete the Nimbus stack; its data stays.

    python -m infra.destroy --stack NAME          (make destroy STACK=NAME)

The table and the bucket carry ``DeletionPolicy: Retain`` (infra/template.py), so
deleting the stack removes the functions, the API, the queues and the role, and leaves
every repository, user and attachment where it was: a later ``make deploy`` of the same
settings does not adopt them by itself (CloudFormation creates new ones), so this prints
their names for an import or for deleting them by hand.  The artifact bucket is left
alone too.
"""
from __future__ import annotations

import argparse
import sys

from infra.deploy import STACK_NAME, DeployError, resolve_region, session, stack_status

RETAINED_TYPES = {"AWS::DynamoDB::Table": "table", "AWS::S3::Bucket": "bucket"}


def destroy(stack: str) -> list[str]:
    """Delete ``stack``; the retained resources, as printable lines."""
    from botocore.exceptions import WaiterError

    if not stack:
        raise DeployError("STACK is missing\nusage: make destroy STACK=<stack name>")
    if not STACK_NAME.fullmatch(stack):
        raise DeployError(f"STACK {stack!r} is not a stack name")
    region = resolve_region()
    cfn = session(region).client("cloudformation")
    status = stack_status(cfn, stack)
    if status is None:
        raise DeployError(f"no stack {stack} in {region}")
    found = cfn.describe_stack_resources(StackName=stack)["StackResources"]
    kept = [f"{RETAINED_TYPES[r['ResourceType']]} {r.get('PhysicalResourceId', '?')}"
            for r in found if r["ResourceType"] in RETAINED_TYPES]
    print(f"deleting stack {stack} in {region} (a few minutes)...")
    cfn.delete_stack(StackName=stack)
    try:
        cfn.get_waiter("stack_delete_complete").wait(
            StackName=stack, WaiterConfig={"Delay": 10, "MaxAttempts": 360})
    except WaiterError:
        raise DeployError(f"stack {stack} was not deleted: see its events in the "
                          "CloudFormation console") from None
    print(f"stack {stack} deleted.")
    if kept:
        print("Kept, with all their data (DeletionPolicy Retain); delete them by hand to "
              "remove it:\n  " + "\n  ".join(kept))
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.destroy")
    parser.add_argument("--stack", default="")
    args = parser.parse_args(argv)
    try:
        destroy(args.stack)
    except DeployError as exc:
        print(f"make destroy: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

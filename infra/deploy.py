"""Create or update the Nimbus stack in the AWS account of the current credentials.

    python -m infra.deploy --stack NAME --artifact-bucket BUCKET [--root-url URL]
        [--domain NAME --certificate-arn ARN] [--alarm-topic-arn ARN]
        [--eventbridge-bus NAME]
    (make deploy STACK=NAME ARTIFACT_BUCKET=BUCKET [ROOT_URL=URL] [DOMAIN=NAME
        CERTIFICATE_ARN=ARN] [ALARM_TOPIC_ARN=ARN] [EVENTBRIDGE_BUS=NAME])

Builds the package (infra/package.py), uploads the zip and the template to the artifact
bucket (created when missing), and applies them through a CloudFormation change set;
then prints the API's URL and how to create the first admin.  boto3 does what
``aws cloudformation package/deploy`` would: it is already installed, while the aws CLI
from PyPI pins its own botocore, which would fight the one requirements.txt pins.

ROOT_URL is the stack parameter ``RootUrl``: given, it is set; omitted, an existing
stack keeps its value, a stack given a custom domain gets ``https://<domain>/`` (known
before anything exists: so from the first deployment on), and a new stack without one
gets its own API Gateway URL (known only once the stack exists, so the first deployment
takes a second update that changes only the functions' ROOT_URL).

The optional parameters (``DomainName`` with ``CertificateArn``, infra/domain.py;
``AlarmTopicArn``, infra/alarms.py; ``EventBridgeBus``, infra/eventbridge.py) work the same way: given, set; omitted, kept;
``none`` clears them.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import secrets
import sys
import time
from urllib.parse import urlsplit

from infra import domain, package

CAPABILITIES = ["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"]
# Optional stack parameters: (template parameter, make variable).
DOMAIN = ("DomainName", "DOMAIN")
CERTIFICATE = ("CertificateArn", "CERTIFICATE_ARN")
ALARM_TOPIC = ("AlarmTopicArn", "ALARM_TOPIC_ARN")
EVENT_BUS = ("EventBridgeBus", "EVENTBRIDGE_BUS")
CLEARED = "none"
DOMAIN_NAME = re.compile(r"(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}")
CERTIFICATE_ARN = re.compile(r"arn:aws[a-z-]*:acm:([a-z0-9-]+):\d{12}:certificate/[0-9a-f-]+")
BUS_NAME = re.compile(r"[A-Za-z0-9._-]{1,256}")
TOPIC_ARN = re.compile(r"arn:[a-z-]+:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+(\.fifo)?")
# Stands in for ROOT_URL while a new stack does not know its own URL yet.
PLACEHOLDER_ROOT_URL = "https://nimbus.invalid/"
STACK_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,127}")
BUCKET_NAME = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
NO_CHANGES = ("didn't contain changes", "No updates are to be performed")
WAIT = {"Delay": 10, "MaxAttempts": 360}


class DeployError(Exception):
    """Deployment stopped; the message says why and what to do."""


def resolve_region() -> str:
    """The region the usual AWS settings name: AWS_REGION, AWS_DEFAULT_REGION, or the
    profile's ``region`` in ~/.aws/config (AWS_PROFILE, AWS_CONFIG_FILE apply)."""
    import botocore.session

    region = os.environ.get("AWS_REGION") or botocore.session.Session().get_config_variable(
        "region")
    if not region:
        profile = os.environ.get("AWS_PROFILE") or "default"
        raise DeployError(
            "no AWS region configured: set AWS_REGION (or AWS_DEFAULT_REGION), e.g. "
            f"`make deploy AWS_REGION=eu-west-1 ...`, or `region = ...` under profile "
            f"{profile!r} in {os.environ.get('AWS_CONFIG_FILE', '~/.aws/config')}")
    return region


def session(region: str):
    import boto3

    made = boto3.session.Session(region_name=region)
    if made.get_credentials() is None:
        raise DeployError("no AWS credentials: set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, "
                          "AWS_PROFILE, or run `aws configure`/`aws sso login` elsewhere")
    return made


def check_arguments(stack: str, bucket: str, root_url: str) -> str:
    """The normalised ROOT_URL ("" when not given); DeployError for bad arguments."""
    usage = ("usage: make deploy STACK=<stack name> ARTIFACT_BUCKET=<s3 bucket> "
             "[ROOT_URL=https://git.example.com/] [DOMAIN=git.example.com "
             "CERTIFICATE_ARN=arn:aws:acm:us-east-1:...] [ALARM_TOPIC_ARN=arn:aws:sns:...]")
    if not stack:
        raise DeployError(f"STACK is missing\n{usage}")
    if not STACK_NAME.fullmatch(stack):
        raise DeployError(f"STACK {stack!r}: a stack name is a letter, then letters, "
                          "digits and '-' (128 at most)")
    if not bucket:
        raise DeployError(f"ARTIFACT_BUCKET is missing: the S3 bucket (in the stack's region)"
                          f" that holds the code and template; created when absent\n{usage}")
    if not BUCKET_NAME.fullmatch(bucket) or ".." in bucket:
        raise DeployError(f"ARTIFACT_BUCKET {bucket!r} is not a valid S3 bucket name")
    if not root_url:
        return ""
    parts = urlsplit(root_url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query:
        raise DeployError(f"ROOT_URL {root_url!r}: expected the public http(s) URL of the "
                          "instance, e.g. https://git.example.com/")
    return root_url if root_url.endswith("/") else root_url + "/"


def check_options(domain: str = "", certificate: str = "", alarm_topic: str = "",
                  event_bus: str = "") -> dict:
    """The optional parameters given ({parameter: value}, "" for ``none``); DeployError
    for a bad one.  A domain needs its certificate, which CloudFront reads from
    us-east-1 only."""
    given = {}
    domain = domain.strip().lower().rstrip(".")
    if domain:
        if domain != CLEARED and not DOMAIN_NAME.fullmatch(domain):
            raise DeployError(f"DOMAIN {domain!r}: expected a host name such as git.example.com")
        given[DOMAIN[0]] = "" if domain == CLEARED else domain
    if certificate:
        match = CERTIFICATE_ARN.fullmatch(certificate)
        if certificate != CLEARED and not match:
            raise DeployError(f"CERTIFICATE_ARN {certificate!r}: expected an ACM certificate "
                              "ARN (arn:aws:acm:us-east-1:<account>:certificate/<id>)")
        if match and match.group(1) != "us-east-1":
            raise DeployError(f"CERTIFICATE_ARN is in {match.group(1)}: CloudFront takes "
                              "certificates from us-east-1 only; request one there "
                              "(infra/README.md, \"A custom domain\")")
        given[CERTIFICATE[0]] = "" if certificate == CLEARED else certificate
    if given.get(DOMAIN[0]) and CERTIFICATE[0] not in given:
        raise DeployError("DOMAIN needs CERTIFICATE_ARN: the ACM certificate for "
                          f"{given[DOMAIN[0]]} in us-east-1")
    if alarm_topic:
        if alarm_topic != CLEARED and not TOPIC_ARN.fullmatch(alarm_topic):
            raise DeployError(f"ALARM_TOPIC_ARN {alarm_topic!r}: expected an SNS topic ARN")
        given[ALARM_TOPIC[0]] = "" if alarm_topic == CLEARED else alarm_topic
    if event_bus:
        if event_bus != CLEARED and not BUS_NAME.fullmatch(event_bus):
            raise DeployError(f"EVENTBRIDGE_BUS {event_bus!r}: expected the name of an "
                              "EventBridge bus of the stack's account and region, e.g. default")
        given[EVENT_BUS[0]] = "" if event_bus == CLEARED else event_bus
    return given


def stack_parameters(root_url: str, options: dict, previous: dict[str, str] | None
                     ) -> list[dict]:
    """The change set's parameters: what was given, else the stack's previous values
    (``previous`` is None for a new stack), else the template's defaults."""
    chosen = dict(options)
    if root_url:
        chosen[package.ROOT_URL_PARAMETER] = root_url
    elif options.get(DOMAIN[0]):
        chosen[package.ROOT_URL_PARAMETER] = f"https://{options[DOMAIN[0]]}/"
    elif previous is None:
        chosen[package.ROOT_URL_PARAMETER] = PLACEHOLDER_ROOT_URL
    if domain.EDGE_SECRET_PARAMETER not in (previous or {}):
        # Made once, kept by every later deploy (UsePreviousValue): the distribution and
        # the functions share it (infra/domain.py).
        chosen[domain.EDGE_SECRET_PARAMETER] = secrets.token_urlsafe(32)
    found = [{"ParameterKey": k, "ParameterValue": v} for k, v in chosen.items()]
    return found + [{"ParameterKey": k, "UsePreviousValue": True}
                    for k in sorted(previous or ()) if k not in chosen]


def ensure_bucket(s3, bucket: str, region: str) -> None:
    from botocore.exceptions import ClientError

    try:
        location = s3.get_bucket_location(Bucket=bucket).get("LocationConstraint") or "us-east-1"
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code")
        if code not in ("NoSuchBucket", "404"):
            raise DeployError(f"artifact bucket {bucket}: {code} (is the name taken by "
                              "another account, or not readable with these credentials?)")
        options = {} if region == "us-east-1" else {
            "CreateBucketConfiguration": {"LocationConstraint": region}}
        s3.create_bucket(Bucket=bucket, **options)
        s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={
            "BlockPublicAcls": True, "IgnorePublicAcls": True,
            "BlockPublicPolicy": True, "RestrictPublicBuckets": True})
        print(f"created artifact bucket {bucket} in {region}")
        return
    if location != region:
        # Lambda takes code only from a bucket in the function's region.
        raise DeployError(f"artifact bucket {bucket} is in {location}, the stack goes to "
                          f"{region}: use a bucket in {region}")


def upload(s3, bucket: str, prefix: str, body: bytes, suffix: str) -> str:
    """Store ``body`` under its content hash (an unchanged zip is not uploaded again)."""
    from botocore.exceptions import ClientError

    key = f"{prefix}/{hashlib.sha256(body).hexdigest()}{suffix}"
    try:
        s3.head_object(Bucket=bucket, Key=key)
    except ClientError:
        s3.put_object(Bucket=bucket, Key=key, Body=body)
    return key


def point_at_code(template: dict, bucket: str, key: str) -> dict:
    """Every function whose code is the local zip gets its S3 location."""
    for resource in package.functions(template).values():
        props = resource.get("Properties", {})
        if props.get("CodeUri") == package.CODE_URI:
            props["CodeUri"] = {"Bucket": bucket, "Key": key}
        if props.get("Code") == package.CODE_URI:
            props["Code"] = {"S3Bucket": bucket, "S3Key": key}
    return template


def template_url(bucket: str, key: str, region: str) -> str:
    suffix = "amazonaws.com.cn" if region.startswith("cn-") else "amazonaws.com"
    return f"https://{bucket}.s3.{region}.{suffix}/{key}"


def previous_parameters(cfn, stack: str) -> dict[str, str]:
    found = cfn.describe_stacks(StackName=stack)["Stacks"][0].get("Parameters", [])
    return {p["ParameterKey"]: p.get("ParameterValue", "") for p in found}


def stack_status(cfn, stack: str) -> str | None:
    from botocore.exceptions import ClientError

    try:
        return cfn.describe_stacks(StackName=stack)["Stacks"][0]["StackStatus"]
    except ClientError as exc:
        if "does not exist" in str(exc):
            return None
        raise


def failure_reasons(cfn, stack: str, limit: int = 8) -> str:
    events = cfn.describe_stack_events(StackName=stack).get("StackEvents", [])
    failed = [f"{e['LogicalResourceId']}: {e.get('ResourceStatusReason', '')}"
              for e in events if e.get("ResourceStatus", "").endswith("_FAILED")]
    return "\n  ".join(failed[:limit]) or "(no failed resource events)"


def apply_change_set(cfn, stack: str, change_type: str, parameters: list[dict], **source) -> bool:
    """Create, wait for and execute one change set; False when it changes nothing."""
    from botocore.exceptions import WaiterError

    name = f"nimbus-{int(time.time())}"
    cfn.create_change_set(StackName=stack, ChangeSetName=name, ChangeSetType=change_type,
                          Parameters=parameters, Capabilities=CAPABILITIES, **source)
    try:
        cfn.get_waiter("change_set_create_complete").wait(
            StackName=stack, ChangeSetName=name, WaiterConfig={"Delay": 5, "MaxAttempts": 120})
    except WaiterError:
        described = cfn.describe_change_set(StackName=stack, ChangeSetName=name)
        reason = described.get("StatusReason", "")
        if any(text in reason for text in NO_CHANGES):
            cfn.delete_change_set(StackName=stack, ChangeSetName=name)
            return False
        raise DeployError(f"change set {name} failed: {reason}") from None
    cfn.execute_change_set(StackName=stack, ChangeSetName=name)
    waiter = "stack_create_complete" if change_type == "CREATE" else "stack_update_complete"
    print(f"{change_type.lower()} of stack {stack} under way (several minutes)...")
    try:
        cfn.get_waiter(waiter).wait(StackName=stack, WaiterConfig=WAIT)
    except WaiterError:
        raise DeployError(f"stack {stack} did not {change_type.lower()}; failed resources:\n  "
                          + failure_reasons(cfn, stack)) from None
    return True


def outputs(cfn, stack: str) -> dict[str, str]:
    found = cfn.describe_stacks(StackName=stack)["Stacks"][0].get("Outputs", [])
    return {item["OutputKey"]: item["OutputValue"] for item in found}


def physical_ids(cfn, stack: str) -> dict[str, str]:
    found = cfn.describe_stack_resources(StackName=stack)["StackResources"]
    return {r["LogicalResourceId"]: r.get("PhysicalResourceId", "") for r in found}


def deploy(stack: str, bucket: str, root_url: str = "", **optional: str) -> dict[str, str]:
    """``optional``: domain, certificate, alarm_topic, event_bus (``check_options``)."""
    root_url = check_arguments(stack, bucket, root_url)
    options = check_options(**optional)
    region = resolve_region()
    aws = session(region)
    cfn, s3 = aws.client("cloudformation"), aws.client("s3")
    status = stack_status(cfn, stack)
    if status == "ROLLBACK_COMPLETE":
        raise DeployError(f"stack {stack} failed to create and must be deleted first: "
                          f"make destroy STACK={stack}")
    if status and status.endswith("_IN_PROGRESS"):
        raise DeployError(f"stack {stack} is busy ({status}); run again when it settles")
    ensure_bucket(s3, bucket, region)
    built = package.build(region=region)
    print(f"package: {built.zipped / 1e6:.1f} MB zipped, {built.unpacked / 1e6:.1f} MB "
          f"unpacked, for {built.target.describe()}")
    prefix = f"nimbus/{stack}"
    code_key = upload(s3, bucket, prefix, built.zip_path.read_bytes(), ".zip")
    template = point_at_code(json.loads(built.template_path.read_text()), bucket, code_key)
    template_key = upload(s3, bucket, prefix, json.dumps(template).encode(), ".template.json")
    url = template_url(bucket, template_key, region)
    # A redeploy keeps every parameter the template still declares and is not given.
    declared = set(template.get("Parameters", {}))
    previous = {k: v for k, v in previous_parameters(cfn, stack).items()
                if k in declared} if status else None
    parameters = stack_parameters(root_url, options, previous)
    changed = apply_change_set(cfn, stack, "UPDATE" if status else "CREATE", parameters,
                               TemplateURL=url)
    if not changed:
        print(f"stack {stack} is up to date")
    found = outputs(cfn, stack)
    root_url = root_url or next((p.get("ParameterValue", "") for p in parameters
                                 if p["ParameterKey"] == package.ROOT_URL_PARAMETER
                                 and p.get("ParameterValue") != PLACEHOLDER_ROOT_URL), "")
    if not root_url and not status:
        root_url = found.get("EndpointURL") or ""
        if not root_url:
            raise DeployError(f"stack {stack} has no EndpointURL output to use as ROOT_URL: "
                              f"run again with ROOT_URL=...")
        apply_change_set(cfn, stack, "UPDATE", stack_parameters(
            root_url, options, {k: "" for k in declared if k != package.ROOT_URL_PARAMETER}),
            TemplateURL=url)
    report(stack, region, found, physical_ids(cfn, stack), root_url)
    return found


def report(stack: str, region: str, found: dict[str, str], ids: dict[str, str],
           root_url: str) -> None:
    endpoint = found.get("EndpointURL", "?")
    print(f"\nNimbus is deployed: stack {stack} in {region}")
    print(f"  API:      {endpoint}api/v1  (Forgejo/Gitea REST API)")
    if root_url:
        print(f"  ROOT_URL: {root_url}")
    print(f"  table:    {ids.get('NimbusTable', '?')}")
    print(f"  bucket:   {ids.get('NimbusBucket', '?')}")
    if found.get("DashboardURL"):
        print(f"  alarms:   {found['DashboardURL']}")
    if found.get("DistributionDomainName"):
        print(f"  domain:   {found.get('CustomDomainURL', '?')}  (point its DNS name at "
              f"{found['DistributionDomainName']}: a CNAME, or a Route 53 alias)")
    print("\nCreate the first admin (your AWS credentials, straight to the stack's table):\n"
          f"  NIMBUS__AWS__REGION={region} NIMBUS__AWS__TABLE={ids.get('NimbusTable', '?')} "
          f"NIMBUS__AWS__BUCKET={ids.get('NimbusBucket', '?')} \\\n"
          "    .venv/bin/python -m chalicelib.cli --aws admin user create --username admin \\\n"
          "    --email admin@example.com --password '<a long password>' --admin")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.deploy")
    parser.add_argument("--stack", default="")
    parser.add_argument("--artifact-bucket", default="")
    parser.add_argument("--root-url", default="")
    parser.add_argument("--domain", default="", help="custom domain (none: remove it)")
    parser.add_argument("--certificate-arn", default="", help="its ACM certificate, us-east-1")
    parser.add_argument("--alarm-topic-arn", default="", help="SNS topic for the alarms")
    parser.add_argument("--eventbridge-bus", default="",
                        help="EventBridge bus receiving every event (none: stop)")
    args = parser.parse_args(argv)
    try:
        deploy(args.stack, args.artifact_bucket, args.root_url, domain=args.domain,
               certificate=args.certificate_arn, alarm_topic=args.alarm_topic_arn,
               event_bus=args.eventbridge_bus)
    except (DeployError, package.PackagingError) as exc:
        print(f"make deploy: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``make deploy`` / ``make destroy`` (infra/deploy.py, infra/destroy.py) without an AWS
account: the argument and region checks, and the whole create/update/delete flow
against moto.  moto's CloudFormation has no SAM transform, so the flow runs a stand-in
template with the real one's interface (a function whose code is the local zip, the
``RootUrl`` parameter, the ``EndpointURL`` output, a retained table and bucket); the
real template is checked by tests/test_package.py."""
from __future__ import annotations

import json

import boto3
import pytest
from moto import mock_aws

from infra import deploy, destroy, package

REGION = "eu-west-1"
ENDPOINT = f"https://abc123.execute-api.{REGION}.amazonaws.com/api/"


@pytest.fixture
def aws_settings(monkeypatch, tmp_path):
    """No region from anywhere, unless a test sets one; credentials stay moto's."""
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_DEFAULT_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    return tmp_path


def test_region_comes_from_the_usual_settings(aws_settings, monkeypatch):
    with pytest.raises(deploy.DeployError, match="no AWS region configured: set AWS_REGION"):
        deploy.resolve_region()
    (aws_settings / "config").write_text("[default]\nregion = ca-central-1\n"
                                         "[profile ops]\nregion = ap-southeast-2\n")
    assert deploy.resolve_region() == "ca-central-1"
    monkeypatch.setenv("AWS_PROFILE", "ops")
    assert deploy.resolve_region() == "ap-southeast-2"
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")
    assert deploy.resolve_region() == "us-west-2"
    monkeypatch.setenv("AWS_REGION", REGION)
    assert deploy.resolve_region() == REGION


def test_deploy_without_region_stops_before_building(aws_settings, monkeypatch, capsys):
    monkeypatch.setattr(package, "build", lambda *a, **k: pytest.fail("built anyway"))
    assert deploy.main(["--stack", "nimbus", "--artifact-bucket", "my-artifacts"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("make deploy: no AWS region configured")
    assert "AWS_DEFAULT_REGION" in err and str(aws_settings / "config") in err


@pytest.mark.parametrize("stack, bucket, root_url, message", [
    ("", "my-artifacts", "", "STACK is missing"),
    ("1nimbus", "my-artifacts", "", "a stack name is a letter"),
    ("nimbus", "", "", "ARTIFACT_BUCKET is missing"),
    ("nimbus", "My_Bucket", "", "not a valid S3 bucket name"),
    ("nimbus", "my-artifacts", "ftp://git.example.com/", "ROOT_URL .* expected the public http"),
    ("nimbus", "my-artifacts", "git.example.com", "ROOT_URL .* expected the public http"),
])
def test_bad_arguments_are_refused_with_the_make_variable(stack, bucket, root_url, message):
    with pytest.raises(deploy.DeployError, match=message):
        deploy.check_arguments(stack, bucket, root_url)


def test_root_url_gets_its_trailing_slash():
    assert deploy.check_arguments("nimbus", "my-artifacts", "https://git.example.com") == (
        "https://git.example.com/")
    assert deploy.check_arguments("nimbus", "my-artifacts", "") == ""


def test_destroy_needs_a_stack(capsys):
    assert destroy.main([]) == 2
    assert "make destroy: STACK is missing" in capsys.readouterr().err


# ---- against moto ----------------------------------------------------------------------

STAND_IN = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Parameters": {package.ROOT_URL_PARAMETER: {"Type": "String"},
                   **{name: {"Type": "String", "Default": ""} for name in (
                       "DomainName", "CertificateArn", "AlarmTopicArn")},
                   "EdgeSecret": {"Type": "String", "Default": "", "NoEcho": True}},
    "Resources": {
        "NimbusTable": {"Type": "AWS::DynamoDB::Table", "DeletionPolicy": "Retain",
                        "Properties": {
                            "BillingMode": "PAY_PER_REQUEST",
                            "AttributeDefinitions": [{"AttributeName": "pk",
                                                      "AttributeType": "S"}],
                            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}},
        "NimbusBucket": {"Type": "AWS::S3::Bucket", "DeletionPolicy": "Retain"},
        "ApiHandlerRole": {"Type": "AWS::IAM::Role", "Properties": {
            "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": [{
                "Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"},
                "Action": "sts:AssumeRole"}]}}},
        "APIHandler": {"Type": "AWS::Lambda::Function", "Properties": {
            "Code": package.CODE_URI, "Handler": "app.app", "Runtime": "python3.12",
            "Role": {"Fn::GetAtt": ["ApiHandlerRole", "Arn"]},
            "Environment": {"Variables": {
                "NIMBUS__SERVER__ROOT_URL": {"Ref": package.ROOT_URL_PARAMETER},
                "NIMBUS__SERVER__EDGE_SECRET": {"Ref": "EdgeSecret"}}}}},
    },
    "Outputs": {"EndpointURL": {"Value": {
        "Fn::Sub": ENDPOINT.replace(REGION, "${AWS::Region}")}}},
}


@pytest.fixture
def moto_stack(aws_settings, monkeypatch, tmp_path):
    """deploy() with the stand-in template in place of the built package."""
    monkeypatch.setenv("AWS_REGION", REGION)
    monkeypatch.setattr(deploy, "WAIT", {"Delay": 1, "MaxAttempts": 30})
    zip_path = tmp_path / package.ZIP_NAME
    with __import__("zipfile").ZipFile(zip_path, "w") as archive:
        archive.writestr("app.py", "app = None\n")
    template_path = tmp_path / package.TEMPLATE_NAME
    template_path.write_text(json.dumps(STAND_IN))
    built = package.Package(zip_path, template_path, package.Target((3, 12), "x86_64"),
                            zip_path.stat().st_size, 12, 1, False)
    monkeypatch.setattr(package, "build", lambda *a, **k: built)
    # moto's change sets leave a stack's Outputs empty (its create_stack fills them):
    # answer with what CloudFormation gives for the stand-in template.
    described = deploy.outputs
    monkeypatch.setattr(deploy, "outputs",
                        lambda cfn, stack: described(cfn, stack) or {"EndpointURL": ENDPOINT})
    with mock_aws():
        yield boto3.session.Session(region_name=REGION)


def _parameters(cfn, stack) -> dict:
    found = cfn.describe_stacks(StackName=stack)["Stacks"][0].get("Parameters", [])
    return {p["ParameterKey"]: p["ParameterValue"] for p in found}


def test_first_deploy_creates_the_stack_and_points_root_url_at_the_api(moto_stack, capsys):
    cfn, s3 = moto_stack.client("cloudformation"), moto_stack.client("s3")
    assert deploy.main(["--stack", "nimbus", "--artifact-bucket", "nimbus-artifacts"]) == 0
    out = capsys.readouterr().out
    endpoint = ENDPOINT
    # A new stack without ROOT_URL is given its own API URL, in a second update.
    assert _parameters(cfn, "nimbus")[package.ROOT_URL_PARAMETER] == endpoint
    assert "created artifact bucket nimbus-artifacts in eu-west-1" in out
    assert f"API:      {endpoint}api/v1" in out
    assert "Create the first admin" in out and "admin user create" in out
    table = moto_stack.client("dynamodb").list_tables()["TableNames"][0]
    assert f"NIMBUS__AWS__TABLE={table}" in out
    # The code went to the artifact bucket under its content hash; the function uses it.
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket="nimbus-artifacts")["Contents"]]
    code = [k for k in keys if k.endswith(".zip")]
    assert len(code) == 1 and code[0].startswith("nimbus/nimbus/")
    assert s3.get_bucket_location(Bucket="nimbus-artifacts")["LocationConstraint"] == REGION
    assert s3.get_public_access_block(Bucket="nimbus-artifacts")[
        "PublicAccessBlockConfiguration"]["BlockPublicAcls"] is True
    function = moto_stack.client("lambda").list_functions()["Functions"][0]
    assert function["Environment"]["Variables"]["NIMBUS__SERVER__ROOT_URL"] == endpoint


def test_redeploy_keeps_or_sets_root_url(moto_stack, capsys):
    cfn = moto_stack.client("cloudformation")
    args = ["--stack", "nimbus", "--artifact-bucket", "nimbus-artifacts"]
    assert deploy.main([*args, "--root-url", "https://git.example.com"]) == 0
    assert _parameters(cfn, "nimbus")[package.ROOT_URL_PARAMETER] == "https://git.example.com/"
    assert deploy.main(args) == 0
    assert _parameters(cfn, "nimbus")[package.ROOT_URL_PARAMETER] == "https://git.example.com/"
    assert "ROOT_URL: https://git.example.com/" in capsys.readouterr().out


def test_artifact_bucket_in_another_region_is_refused(moto_stack, capsys):
    moto_stack.client("s3", region_name="us-east-1").create_bucket(Bucket="far-away")
    assert deploy.main(["--stack", "nimbus", "--artifact-bucket", "far-away"]) == 2
    assert "artifact bucket far-away is in us-east-1, the stack goes to eu-west-1" in (
        capsys.readouterr().err)


def test_unchanged_code_is_uploaded_once(moto_stack):
    s3 = moto_stack.client("s3")
    deploy.ensure_bucket(s3, "nimbus-artifacts", REGION)
    first = deploy.upload(s3, "nimbus-artifacts", "nimbus/x", b"same bytes", ".zip")
    assert deploy.upload(s3, "nimbus-artifacts", "nimbus/x", b"same bytes", ".zip") == first
    assert s3.list_objects_v2(Bucket="nimbus-artifacts")["KeyCount"] == 1


def test_destroy_deletes_the_stack_and_keeps_the_data(moto_stack, capsys):
    assert deploy.main(["--stack", "nimbus", "--artifact-bucket", "nimbus-artifacts"]) == 0
    ddb, cfn = moto_stack.client("dynamodb"), moto_stack.client("cloudformation")
    table = ddb.list_tables()["TableNames"][0]
    capsys.readouterr()
    assert destroy.main(["--stack", "nimbus"]) == 0
    out = capsys.readouterr().out
    assert "stack nimbus deleted." in out
    assert f"table {table}" in out and "bucket " in out and "DeletionPolicy Retain" in out
    assert deploy.stack_status(cfn, "nimbus") is None
    assert ddb.describe_table(TableName=table)["Table"]["TableStatus"] == "ACTIVE"
    assert destroy.main(["--stack", "nimbus"]) == 2
    assert f"make destroy: no stack nimbus in {REGION}" in capsys.readouterr().err


CERTIFICATE = "arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789"
TOPIC = "arn:aws:sns:eu-west-1:123456789012:nimbus-alarms"


@pytest.mark.parametrize("options, message", [
    ({"domain": "git.example.com"}, "DOMAIN needs CERTIFICATE_ARN"),
    ({"domain": "git.example.com", "certificate": CERTIFICATE.replace("us-east-1", "eu-west-1")},
     "CERTIFICATE_ARN is in eu-west-1: CloudFront takes certificates from us-east-1 only"),
    ({"domain": "https://git.example.com/", "certificate": CERTIFICATE}, "expected a host name"),
    ({"domain": "git.example.com", "certificate": "my-cert"}, "expected an ACM certificate"),
    ({"alarm_topic": "alarms@example.com"}, "expected an SNS topic ARN"),
    ({"event_bus": "arn:aws:events:eu-west-1:123456789012:event-bus/x"},
     "EVENTBRIDGE_BUS .*: expected the name of an EventBridge bus"),
])
def test_bad_options_are_refused_with_the_make_variable(options, message):
    with pytest.raises(deploy.DeployError, match=message):
        deploy.check_options(**options)


def test_options_set_clear_or_keep():
    assert deploy.check_options("Git.Example.com.", CERTIFICATE, TOPIC) == {
        "DomainName": "git.example.com", "CertificateArn": CERTIFICATE, "AlarmTopicArn": TOPIC}
    assert deploy.check_options("none", "none", "none") == {
        "DomainName": "", "CertificateArn": "", "AlarmTopicArn": ""}
    assert deploy.check_options(event_bus="default") == {"EventBridgeBus": "default"}
    assert deploy.check_options(event_bus="none") == {"EventBridgeBus": ""}
    assert deploy.check_options() == {}
    # A new stack with a domain has its ROOT_URL from the start; an existing one keeps
    # every parameter it is not given.
    first = deploy.stack_parameters("", {"DomainName": "git.example.com"}, None)
    secret = first.pop()     # the edge secret, made once (infra/domain.py)
    assert secret["ParameterKey"] == "EdgeSecret" and len(secret["ParameterValue"]) >= 40
    assert first == [
        {"ParameterKey": "DomainName", "ParameterValue": "git.example.com"},
        {"ParameterKey": package.ROOT_URL_PARAMETER, "ParameterValue": "https://git.example.com/"}]
    assert deploy.stack_parameters("", {}, {"RootUrl": "x", "AlarmTopicArn": TOPIC,
                                            "EdgeSecret": "****"}) == [
        {"ParameterKey": "AlarmTopicArn", "UsePreviousValue": True},
        {"ParameterKey": "EdgeSecret", "UsePreviousValue": True},
        {"ParameterKey": "RootUrl", "UsePreviousValue": True}]


def test_first_deploy_with_a_domain_needs_no_second_update(moto_stack, monkeypatch, capsys):
    cfn = moto_stack.client("cloudformation")
    applied = []
    real = deploy.apply_change_set
    monkeypatch.setattr(deploy, "apply_change_set",
                        lambda *a, **k: applied.append(a[2]) or real(*a, **k))
    args = ["--stack", "nimbus", "--artifact-bucket", "nimbus-artifacts"]
    assert deploy.main([*args, "--domain", "git.example.com", "--certificate-arn", CERTIFICATE,
                        "--alarm-topic-arn", TOPIC]) == 0
    assert applied == ["CREATE"]
    found = _parameters(cfn, "nimbus")
    edge = found.pop("EdgeSecret")
    assert found == {
        package.ROOT_URL_PARAMETER: "https://git.example.com/", "DomainName": "git.example.com",
        "CertificateArn": CERTIFICATE, "AlarmTopicArn": TOPIC}
    function = moto_stack.client("lambda").list_functions()["Functions"][0]
    variables = function["Environment"]["Variables"]
    assert variables["NIMBUS__SERVER__ROOT_URL"] == "https://git.example.com/"
    # The distribution's secret reaches the functions (infra/domain.py), made once.
    secret = variables["NIMBUS__SERVER__EDGE_SECRET"]
    assert len(secret) >= 40 and edge in (secret, "****")
    # A redeploy that names none of them keeps them all; ``none`` clears the topic.
    assert deploy.main(args) == 0
    assert deploy.main([*args, "--alarm-topic-arn", "none"]) == 0
    assert _parameters(cfn, "nimbus") == {
        package.ROOT_URL_PARAMETER: "https://git.example.com/", "DomainName": "git.example.com",
        "CertificateArn": CERTIFICATE, "AlarmTopicArn": "", "EdgeSecret": edge}
    assert "ROOT_URL: https://git.example.com/" in capsys.readouterr().out

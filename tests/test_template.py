"""The template's running-it-for-real side (infra/template.py, infra/alarms.py,
infra/domain.py): backups on by default, an alarm for each thing an operator must act
on and a dashboard that names only the stack's own resources, the optional custom
domain behind CloudFront; and the packaged template, with the domain and the alarm
topic set and without, passing cfn-lint and checkov (with infra/template.py's
CHECKOV_SKIPPED only; checkov runs when .ci/run has installed it in .venv/checkov)."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from infra import alarms, domain, eventbridge
from infra.template import CHECKOV_SKIPPED, FUNCTION_NAMES, STREAM_FUNCTION, resources

ROOT = Path(__file__).resolve().parent.parent
CHECKOV = ROOT / ".venv" / "checkov" / "bin" / "checkov"
FUNCTIONS = (*FUNCTION_NAMES, STREAM_FUNCTION)


@pytest.fixture(scope="module")
def template() -> dict:
    from chalicelib.settings import get_settings

    return resources(get_settings())


def test_backups_are_on_by_default(template):
    found = template["Resources"]
    table, bucket = found["NimbusTable"]["Properties"], found["NimbusBucket"]["Properties"]
    assert table["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert bucket["VersioningConfiguration"] == {"Status": "Enabled"}
    rules = {r["Id"]: r for r in bucket["LifecycleConfiguration"]["Rules"]}
    assert rules["earlier-versions"]["NoncurrentVersionExpiration"] == {"NoncurrentDays": 30}
    assert "Prefix" not in rules["earlier-versions"]           # the whole bucket
    assert rules["incomplete-uploads"]["AbortIncompleteMultipartUpload"] == {
        "DaysAfterInitiation": 2}
    assert all(r["Status"] == "Enabled" for r in rules.values())
    for data in ("NimbusTable", "NimbusBucket"):
        assert found[data]["DeletionPolicy"] == found[data]["UpdateReplacePolicy"] == "Retain"


def test_every_alarm_notifies_the_optional_topic(template):
    found = {k: v for k, v in template["Resources"].items()
             if v.get("Type") == "AWS::CloudWatch::Alarm"}
    assert {f"{f}ErrorsAlarm" for f in FUNCTIONS} <= set(found)
    assert {"ApiErrorRateAlarm", "ApiLatencyAlarm", "ThrottlesAlarm", "OutboxLagAlarm",
            "EventsDeadLettersAlarm", "WebhookDeadLettersAlarm"} <= set(found)
    topic = {"Fn::If": [alarms.HAS_ALARM_TOPIC, [{"Ref": alarms.ALARM_TOPIC_PARAMETER}],
                        {"Ref": "AWS::NoValue"}]}
    for name, alarm in found.items():
        props = alarm["Properties"]
        assert props["AlarmActions"] == props["OKActions"] == topic, name
        assert "infra/README.md" in props["AlarmDescription"], name
    assert template["Parameters"][alarms.ALARM_TOPIC_PARAMETER]["Default"] == ""
    # Billed alarm metrics (bench/cost.py prices them): each metric an alarm reads.
    count = sum(len([m for m in a["Properties"].get("Metrics", [{"MetricStat": 1}])
                     if "MetricStat" in m]) for a in found.values())
    assert count == alarms.alarm_metric_count(FUNCTIONS)


def test_the_outbox_alarm_reads_what_the_relay_publishes(template):
    """The relay's lines carry OutboxLag in namespace Nimbus by Function, the Lambda's
    own name (chalicelib/telemetry): the alarm reads it for the relay and the sweep."""
    from chalicelib import telemetry

    metrics = template["Resources"]["OutboxLagAlarm"]["Properties"]["Metrics"]
    read = [m["MetricStat"]["Metric"] for m in metrics if "MetricStat" in m]
    assert {m["Namespace"] for m in read} == {telemetry.NAMESPACE}
    assert {m["MetricName"] for m in read} == {"OutboxLag"}
    assert [m["Dimensions"] for m in read] == [
        [{"Name": telemetry.FUNCTION, "Value": {"Ref": f}}] for f in alarms.RELAY_FUNCTIONS]
    assert template["Resources"]["OutboxLagAlarm"]["Properties"]["Threshold"] == \
        alarms.OUTBOX_LAG_MINUTES * 60


def test_dead_letter_alarms_watch_the_dead_letter_queues(template):
    found = template["Resources"]
    for queue in ("EventsDeadLetters", "WebhookDeadLetters"):
        assert found[queue]["Type"] == "AWS::SQS::Queue"
        props = found[f"{queue}Alarm"]["Properties"]
        assert props["Dimensions"] == [{"Name": "QueueName",
                                        "Value": {"Fn::GetAtt": [queue, "QueueName"]}}]


def test_the_dashboard_names_only_the_stack_s_resources(template):
    body = template["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    names = set(re.findall(r"\$\{([^}]+)\}", body))
    for name in names:
        resource = name.split(".")[0]
        assert resource.startswith("AWS::") or resource in template["Resources"], name
    widgets = json.loads(body)["widgets"]
    shown = {m[3] for w in widgets if w["type"] == "metric" for m in w["properties"]["metrics"]
             if m[0] == "AWS/Lambda"}
    assert {"${" + f + "}" for f in FUNCTIONS} <= shown
    # CloudWatch's free dashboards hold up to 50 metrics (bench/cost.py counts it free).
    assert sum(len(w["properties"]["metrics"]) for w in widgets if w["type"] == "metric") <= 50
    alarm_widget = next(w for w in widgets if w["type"] == "alarm")
    assert len(alarm_widget["properties"]["alarms"]) == len(alarms.alarms(FUNCTIONS))


def test_the_custom_domain_is_optional_and_caches_nothing(template):
    config = json.loads((ROOT / ".chalice" / "config.json").read_text())
    found = template["Resources"][domain.DISTRIBUTION]
    assert found["Condition"] == domain.HAS_DOMAIN
    assert template["Conditions"][domain.HAS_DOMAIN]["Fn::And"]
    for name in (domain.DOMAIN_PARAMETER, domain.CERTIFICATE_PARAMETER):
        assert template["Parameters"][name]["Default"] == ""
    dist = found["Properties"]["DistributionConfig"]
    behaviour = dist["DefaultCacheBehavior"]
    assert "CacheBehaviors" not in dist          # one behaviour: git and LFS paths too
    assert behaviour["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
    assert behaviour["OriginRequestPolicyId"] == "b689b0a8-53d0-40ab-baf2-68738e2966ac"
    assert set(behaviour["AllowedMethods"]) == {"GET", "HEAD", "OPTIONS", "PUT", "PATCH",
                                                "POST", "DELETE"}
    [origin] = dist["Origins"]
    assert origin["OriginPath"] == "/" + config["stages"]["prod"]["api_gateway_stage"]
    assert origin["DomainName"]["Fn::Sub"].startswith("${RestAPI}.execute-api.")
    assert dist["ViewerCertificate"]["MinimumProtocolVersion"] == "TLSv1.2_2021"
    assert dist["Aliases"] == [{"Ref": domain.DOMAIN_PARAMETER}]
    # The distribution proves itself to the API with its secret header; the parameter
    # is never echoed (infra/domain.py, chalicelib/http/gateway.py client_address).
    assert origin["OriginCustomHeaders"] == [{"HeaderName": domain.EDGE_HEADER,
                                              "HeaderValue": {"Ref": domain.EDGE_SECRET_PARAMETER}}]
    assert template["Parameters"][domain.EDGE_SECRET_PARAMETER]["NoEcho"] is True
    # ACM certificates for CloudFront live in us-east-1, whatever the stack's region.
    pattern = template["Parameters"][domain.CERTIFICATE_PARAMETER]["AllowedPattern"]
    assert re.fullmatch(pattern, "arn:aws:acm:us-east-1:123456789012:certificate/0a1b-2c3d")
    assert not re.fullmatch(pattern, "arn:aws:acm:eu-west-1:123456789012:certificate/0a1b")


def test_the_event_bus_is_optional_and_only_the_worker_puts_on_it(template):
    resources = template["Resources"]
    assert template["Parameters"][eventbridge.BUS_PARAMETER]["Default"] == ""
    for name in (eventbridge.EXAMPLE_RULE, eventbridge.EXAMPLE_QUEUE):
        assert resources[name]["Condition"] == eventbridge.HAS_BUS
    rule = resources[eventbridge.EXAMPLE_RULE]["Properties"]
    assert rule["State"] == "DISABLED" and rule["EventPattern"]["source"] == ["nimbus"]
    putters = {}
    for name, resource in resources.items():
        if resource.get("Type") != "AWS::IAM::Role":
            continue
        for policy in resource["Properties"]["Policies"]:
            for statement in policy["PolicyDocument"]["Statement"]:
                if "events:PutEvents" in statement["Action"]:
                    putters[name] = statement["Resource"]
    assert putters == {"EventWorkerRole": eventbridge.BUS_ARN}
    for name in FUNCTIONS:
        variables = resources[name]["Properties"]["Environment"]["Variables"]
        assert variables[eventbridge.BUS_VARIABLE] == {"Ref": eventbridge.BUS_PARAMETER}


# --- the packaged template, the custom domain and the topic on and off ------------------

ON = {domain.DOMAIN_PARAMETER: "git.example.com",
      domain.CERTIFICATE_PARAMETER: "arn:aws:acm:us-east-1:123456789012:certificate/0a1b-2c3d",
      alarms.ALARM_TOPIC_PARAMETER: "arn:aws:sns:us-east-1:123456789012:nimbus-alarms",
      eventbridge.BUS_PARAMETER: "default"}


@pytest.fixture(scope="module")
def packaged(tmp_path_factory) -> dict[str, Path]:
    """The template infra/deploy.py deploys, as packaged, and with the custom domain and
    the alarm topic given (as deploy passes them: the parameters' values)."""
    from infra.package import chalice_template, finish_template

    made = finish_template(chalice_template("us-east-1"))
    out = tmp_path_factory.mktemp("packaged")
    paths = {"off": out / "off.json", "on": out / "on.json"}
    paths["off"].write_text(json.dumps(made))
    for name, value in ON.items():
        made["Parameters"][name]["Default"] = value
    paths["on"].write_text(json.dumps(made))
    # Every function learns the edge secret, with a domain only.
    for resource in made["Resources"].values():
        if resource["Type"] == "AWS::Serverless::Function":
            variables = resource["Properties"]["Environment"]["Variables"]
            assert variables[domain.EDGE_SECRET_VARIABLE] == domain.edge_secret_variable()
    return paths


@pytest.mark.parametrize("option", ["off", "on"])
def test_packaged_template_passes_cfn_lint(packaged, option):
    done = subprocess.run([str(ROOT / ".venv/bin/cfn-lint"), str(packaged[option])],
                          check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(not CHECKOV.exists(), reason="checkov is installed by .ci/run "
                    "(.venv/checkov: it pins an older boto3 than the app's)")
@pytest.mark.parametrize("option", ["off", "on"])
def test_packaged_template_passes_checkov(packaged, option):
    done = subprocess.run([str(CHECKOV), "--quiet", "--compact", "--skip-download",
                           "--framework", "cloudformation", "-f", str(packaged[option]),
                           "--skip-check", ",".join(CHECKOV_SKIPPED)],
                          check=False, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr

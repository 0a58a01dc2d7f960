"""The stack's alarms and its CloudWatch dashboard (``infra/template.py`` merges them).

Each alarm is one thing an operator must act on; ``infra/README.md`` ("Alarms: what
each means and what to do") is the runbook for each, by its name here:

| alarm | metric | fires when |
|---|---|---|
| ``ApiErrorRateAlarm`` | API Gateway ``5XXError`` / ``Count`` (the stack's API) | over 5% of requests answered 5xx, in 2 of 3 five-minute periods with at least 20 requests |
| ``ApiLatencyAlarm`` | Lambda ``Duration`` p99 of ``APIHandler`` | above 10 s for 15 minutes (the API answers within 29 s or API Gateway gives up) |
| ``ThrottlesAlarm`` | Lambda ``Throttles`` of the functions that serve people and queues | any, in 5 minutes |
| ``EventsDeadLettersAlarm``, ``WebhookDeadLettersAlarm`` | SQS ``ApproximateNumberOfMessagesVisible`` of the dead-letter queues | a message is there |
| ``OutboxLagAlarm`` | ``Nimbus`` ``OutboxLag`` (seconds) by ``Function`` of the relay and the sweep | an outbox item older than ``OUTBOX_LAG_MINUTES`` |
| ``<Function>ErrorsAlarm`` | Lambda ``Errors`` of each function | any, in 5 minutes |

The throttles alarm watches the API, streaming and queue functions only: a scheduled
function's throttled invocation is retried by Lambda for hours, and the next run
catches up.  API Gateway's own latency is left to the dashboard: it includes the
streaming function's clones, which take minutes by design.

Every alarm sends its state changes to ``AlarmTopicArn`` (an SNS topic of yours) when
the parameter is set, and to nothing when it is empty: the alarms still show in the
console and on the dashboard.  Missing data is not breaching: a quiet stack publishes
no errors, no lag and no requests.

Cost (CloudWatch list prices, us-east-1): $0.10 per alarm metric a month past the free
10 (a metric math alarm pays for each metric it reads: ``alarm_metric_count``), and the
dashboard is one of the three free ones; bench/cost.py counts both.
"""
from __future__ import annotations

import json

ALARM_TOPIC_PARAMETER = "AlarmTopicArn"
HAS_ALARM_TOPIC = "HasAlarmTopic"
DASHBOARD = "Dashboard"
PERIOD = 300
OUTBOX_LAG_MINUTES = 15
ERROR_RATE_PERCENT = 5
ERROR_RATE_MIN_REQUESTS = 20
LATENCY_P99_MS = 10_000
# Functions whose throttling keeps people or queued work waiting.
THROTTLE_WATCHED = ("APIHandler", "StreamHandler", "EventWorker", "WebhookWorker",
                    "OutboxRelay")
RELAY_FUNCTIONS = ("OutboxRelay", "OutboxSweep")
DEAD_LETTER_QUEUES = {"EventsDeadLetters": "events", "WebhookDeadLetters": "webhooks"}
API = {"Ref": "AWS::StackName"}       # the REST API's name (RestAPI's Name, template.py)


def parameters() -> dict:
    return {ALARM_TOPIC_PARAMETER: {
        "Type": "String", "Default": "",
        "AllowedPattern": "^(arn:[a-z-]+:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]+(\\.fifo)?)?$",
        "Description": "SNS topic the alarms notify (empty: no notifications)"}}


def conditions() -> dict:
    return {HAS_ALARM_TOPIC: {"Fn::Not": [{"Fn::Equals": [{"Ref": ALARM_TOPIC_PARAMETER}, ""]}]}}


def _actions() -> dict:
    topic = {"Fn::If": [HAS_ALARM_TOPIC, [{"Ref": ALARM_TOPIC_PARAMETER}],
                        {"Ref": "AWS::NoValue"}]}
    return {"AlarmActions": topic, "OKActions": topic}


def _alarm(description: str, **properties) -> dict:
    return {"Type": "AWS::CloudWatch::Alarm", "Properties": {
        "AlarmDescription": description + " (runbook: infra/README.md, \"Alarms\")",
        "TreatMissingData": "notBreaching", **_actions(), **properties}}


def _metric(namespace: str, name: str, dimensions: dict, stat: str, ident: str,
            returned: bool = False) -> dict:
    return {"Id": ident, "ReturnData": returned, "MetricStat": {
        "Metric": {"Namespace": namespace, "MetricName": name, "Dimensions": [
            {"Name": k, "Value": v} for k, v in dimensions.items()]},
        "Period": PERIOD, "Stat": stat}}


def _simple(namespace: str, name: str, dimensions: dict, stat: str) -> dict:
    return {"Namespace": namespace, "MetricName": name, "Statistic": stat, "Period": PERIOD,
            "Dimensions": [{"Name": k, "Value": v} for k, v in dimensions.items()]}


def alarms(functions) -> dict:
    """The alarm resources for the template's ``functions`` (logical names)."""
    out = {
        "ApiErrorRateAlarm": _alarm(
            f"More than {ERROR_RATE_PERCENT}% of API requests answered 5xx",
            ComparisonOperator="GreaterThanThreshold", Threshold=ERROR_RATE_PERCENT,
            EvaluationPeriods=3, DatapointsToAlarm=2, Metrics=[
                _metric("AWS/ApiGateway", "5XXError", {"ApiName": API}, "Sum", "errors"),
                _metric("AWS/ApiGateway", "Count", {"ApiName": API}, "Sum", "requests"),
                {"Id": "rate", "ReturnData": True, "Label": "5xx %",
                 "Expression": f"IF(requests >= {ERROR_RATE_MIN_REQUESTS}, "
                               "100 * errors / requests, 0)"}]),
        "ApiLatencyAlarm": _alarm(
            f"The API function's p99 duration is above {LATENCY_P99_MS // 1000} s",
            ComparisonOperator="GreaterThanThreshold", Threshold=LATENCY_P99_MS,
            EvaluationPeriods=3, DatapointsToAlarm=3,
            Namespace="AWS/Lambda", MetricName="Duration", ExtendedStatistic="p99",
            Period=PERIOD, Dimensions=[{"Name": "FunctionName", "Value": {"Ref": "APIHandler"}}]),
        "ThrottlesAlarm": _alarm(
            "Lambda throttled the API, streaming or queue functions (concurrency limit)",
            ComparisonOperator="GreaterThanOrEqualToThreshold", Threshold=1,
            EvaluationPeriods=1, Metrics=[
                *(_metric("AWS/Lambda", "Throttles", {"FunctionName": {"Ref": f}}, "Sum",
                          f"t{n}") for n, f in enumerate(THROTTLE_WATCHED)),
                {"Id": "throttles", "ReturnData": True, "Label": "throttles",
                 "Expression": " + ".join(f"t{n}" for n in range(len(THROTTLE_WATCHED)))}]),
        "OutboxLagAlarm": _alarm(
            f"An outbox item is older than {OUTBOX_LAG_MINUTES} minutes: events are not "
            "reaching their consumers",
            ComparisonOperator="GreaterThanOrEqualToThreshold",
            Threshold=OUTBOX_LAG_MINUTES * 60, EvaluationPeriods=1, Metrics=[
                *(_metric("Nimbus", "OutboxLag", {"Function": {"Ref": f}}, "Maximum", f"l{n}")
                  for n, f in enumerate(RELAY_FUNCTIONS)),
                {"Id": "lag", "ReturnData": True, "Label": "outbox lag (s)",
                 "Expression": "MAX([" + ", ".join(
                     f"l{n}" for n in range(len(RELAY_FUNCTIONS))) + "])"}]),
    }
    for queue, name in DEAD_LETTER_QUEUES.items():
        out[f"{queue}Alarm"] = _alarm(
            f"Messages of the {name} queue failed five times and wait in its dead-letter "
            "queue", ComparisonOperator="GreaterThanOrEqualToThreshold", Threshold=1,
            EvaluationPeriods=1, **_simple("AWS/SQS", "ApproximateNumberOfMessagesVisible",
                                           {"QueueName": {"Fn::GetAtt": [queue, "QueueName"]}},
                                           "Maximum"))
    for function in functions:
        out[f"{function}ErrorsAlarm"] = _alarm(
            f"The {function} function failed (an exception, a timeout or running out of "
            "memory)", ComparisonOperator="GreaterThanOrEqualToThreshold", Threshold=1,
            EvaluationPeriods=1, **_simple("AWS/Lambda", "Errors",
                                           {"FunctionName": {"Ref": function}}, "Sum"))
    return out


def alarm_metric_count(functions) -> int:
    """Alarm metrics CloudWatch bills (a metric math alarm: each metric it reads)."""
    return 2 + 1 + len(THROTTLE_WATCHED) + len(RELAY_FUNCTIONS) + len(DEAD_LETTER_QUEUES) \
        + len(functions)


# The dashboard ------------------------------------------------------------------------

def _sub(name: str) -> str:
    """A name the dashboard body's Fn::Sub replaces (a resource's Ref or attribute)."""
    return "${" + name + "}"


def _widget(title: str, metrics: list, x: int, y: int, *, stat: str = "Sum",
            width: int = 12, **more) -> dict:
    return {"type": "metric", "x": x, "y": y, "width": width, "height": 6, "properties": {
        "title": title, "region": "${AWS::Region}", "stat": stat, "period": PERIOD,
        "view": "timeSeries", "metrics": metrics, **more}}


def dashboard(functions) -> dict:
    """One dashboard: the API, the functions, the queues and the outbox, and the alarms;
    within the 50 metrics of a free dashboard (throttles are on their alarm)."""
    api = ["AWS/ApiGateway", "Count", "ApiName", "${AWS::StackName}"]

    def per_function(metric: str) -> list:
        return [["AWS/Lambda", metric, "FunctionName", _sub(f), {"label": f}]
                for f in functions]

    queues = [["AWS/SQS", metric, "QueueName", _sub(q + ".QueueName"), {"label": q}]
              for metric in ("ApproximateAgeOfOldestMessage",)
              for q in ("EventsQueue", "WebhookQueue")]
    widgets = [
        _widget("API requests and errors", [
            api, [*api[:1], "4XXError", *api[2:]], [*api[:1], "5XXError", *api[2:]]], 0, 0),
        _widget("API latency (ms; clones stream for minutes)", [
            [*api[:1], "Latency", *api[2:], {"stat": "p50"}],
            [*api[:1], "Latency", *api[2:], {"stat": "p99"}],
            ["AWS/Lambda", "Duration", "FunctionName", "${APIHandler}",
             {"stat": "p99", "label": "APIHandler p99"}]], 12, 0, stat="p99"),
        _widget("Function errors", per_function("Errors"), 0, 6),
        _widget("Invocations", per_function("Invocations"), 12, 6),
        _widget("Dead letters (messages)", [
            ["AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName",
             _sub(q + ".QueueName"), {"label": q}] for q in DEAD_LETTER_QUEUES], 0, 12,
            stat="Maximum"),
        _widget("Queue age (s of the oldest message)", queues, 12, 12, stat="Maximum"),
        _widget("Outbox lag (s)", [["Nimbus", "OutboxLag", "Function", _sub(f),
                                    {"label": f}] for f in RELAY_FUNCTIONS], 0, 18,
                stat="Maximum"),
        _widget("Git bytes and webhook deliveries", [
            ["Nimbus", "GitBytesOut", "Function", "${StreamHandler}", {"label": "out"}],
            ["Nimbus", "GitBytesIn", "Function", "${StreamHandler}", {"label": "in"}],
            ["Nimbus", "WebhookDeliveries", "Function", "${WebhookWorker}", {"yAxis": "right"}],
            ["Nimbus", "WebhookFailures", "Function", "${WebhookWorker}", {"yAxis": "right"}]],
            12, 18),
        {"type": "alarm", "x": 0, "y": 24, "width": 24, "height": 6, "properties": {
            "title": "Alarms", "alarms": [_sub(name + ".Arn") for name in alarms(functions)]}},
    ]
    return {DASHBOARD: {"Type": "AWS::CloudWatch::Dashboard", "Properties": {
        "DashboardName": {"Fn::Sub": "${AWS::StackName}-${AWS::Region}"},
        "DashboardBody": {"Fn::Sub": json.dumps({"widgets": widgets})}}}}


def outputs() -> dict:
    return {"DashboardURL": {"Value": {"Fn::Sub": (
        "https://${AWS::Region}.console.aws.amazon.com/cloudwatch/home?region=${AWS::Region}"
        "#dashboards:name=${AWS::StackName}-${AWS::Region}")}}}

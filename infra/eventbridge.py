"""Domain events on an Amazon EventBridge bus (``chalicelib/jobs/bridge.py``): the
``EventBridgeBus`` stack parameter names a bus of the stack's account and region (the
``default`` bus, or one the operator made); empty, nothing is put anywhere.

The functions learn it as ``[events] EVENTBRIDGE_BUS``; the event worker's role may put
events on that bus and no other (``infra/iam.py``).  With a bus, the stack also carries
an example rule, disabled: pushes to any repository's ``main`` go to a queue of their own
(``EventBridgeExampleQueue``), which the rule may write to and nothing else.  Enable it,
or copy its pattern into rules of your own (docs/extensions.md lists the detail types).
"""
from __future__ import annotations

import json

BUS_PARAMETER = "EventBridgeBus"
BUS_VARIABLE = "NIMBUS__EVENTS__EVENTBRIDGE_BUS"
HAS_BUS = "HasEventBridgeBus"
EXAMPLE_RULE = "EventBridgeExampleRule"
EXAMPLE_QUEUE = "EventBridgeExampleQueue"
EXAMPLE_PATTERN = {"source": ["nimbus"], "detail-type": ["RepositoryPushed"],
                   "detail": {"ref": ["refs/heads/main"]}}
BUS_ARN = {"Fn::Sub": "arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:"
                      "event-bus/${" + BUS_PARAMETER + "}"}


def parameters() -> dict:
    return {BUS_PARAMETER: {
        "Type": "String", "Default": "", "AllowedPattern": "^[A-Za-z0-9._-]{0,256}$",
        "Description": "EventBridge bus of this account and region that receives every "
                       "domain event, e.g. default (empty: none)"}}


def conditions() -> dict:
    return {HAS_BUS: {"Fn::Not": [{"Fn::Equals": [{"Ref": BUS_PARAMETER}, ""]}]}}


def variables() -> dict:
    return {BUS_VARIABLE: {"Ref": BUS_PARAMETER}}


def resources() -> dict:
    rule_arn = {"Fn::GetAtt": [EXAMPLE_RULE, "Arn"]}
    return {
        EXAMPLE_QUEUE: {"Type": "AWS::SQS::Queue", "Condition": HAS_BUS, "Properties": {
            "MessageRetentionPeriod": 345600}},
        "EventBridgeExampleQueuePolicy": {
            "Type": "AWS::SQS::QueuePolicy", "Condition": HAS_BUS, "Properties": {
                "Queues": [{"Ref": EXAMPLE_QUEUE}],
                "PolicyDocument": {"Version": "2012-10-17", "Statement": [{
                    "Effect": "Allow", "Principal": {"Service": "events.amazonaws.com"},
                    "Action": "sqs:SendMessage",
                    "Resource": {"Fn::GetAtt": [EXAMPLE_QUEUE, "Arn"]},
                    "Condition": {"ArnEquals": {"aws:SourceArn": rule_arn}}}]}}},
        EXAMPLE_RULE: {"Type": "AWS::Events::Rule", "Condition": HAS_BUS, "Properties": {
            "Description": "Example: pushes to main on any Nimbus repository",
            "EventBusName": {"Ref": BUS_PARAMETER}, "State": "DISABLED",
            "EventPattern": json.loads(json.dumps(EXAMPLE_PATTERN)),
            "Targets": [{"Id": "example-queue",
                         "Arn": {"Fn::GetAtt": [EXAMPLE_QUEUE, "Arn"]}}]}},
    }

"""Render the CloudFormation resources that `chalice package` does not make: the table
(with its stream and TTL), the bucket, the webhook and events queues with their
dead-letter queues (the webhook queue drives the WebhookWorker function: chalice makes
that mapping from app.py), and the stream's mapping to the outbox relay.  Written as a merge template
(``chalice package --merge-template <file>``; infra/deploy.sh does this), from the same definitions
``infra/bootstrap.py`` creates locally.

    python -m infra.template > resources.json
"""
from __future__ import annotations

import json
import sys

from chalicelib.settings import get_settings
from infra.bootstrap import TTL_ATTRIBUTE, dead_letter_queue_name, table_definition

# Every Lambda chalice package makes from app.py (API, schedules, queue consumers).
FUNCTION_NAMES = ("APIHandler", "MirrorSync", "PackCompaction", "OutboxRelay", "OutboxSweep",
                  "EventWorker", "WebhookWorker", "WebhookSweep", "QuotaCheck")
# The stream invokes the relay for new outbox items only (store/outbox.py): other writes
# cost no invocation.
OUTBOX_STREAM_FILTER = {"eventName": ["INSERT"],
                        "dynamodb": {"NewImage": {"kind": {"S": ["outbox"]}}}}
# Chalice picks the runtime from the packaging interpreter; AWS closed python3.11 to new
# functions on 2026-07-31, so the package runs on 3.12 (our code and wheels support it:
# the only binary dependency, cryptography, ships abi3 wheels).
LAMBDA_RUNTIME = "python3.12"


# Data outlives a stack update or deletion.
_RETAIN = {"DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain"}


def resources(settings) -> dict:
    table = table_definition(settings)
    env = {
        "NIMBUS__AWS__TABLE": {"Ref": "NimbusTable"},
        "NIMBUS__AWS__BUCKET": {"Ref": "NimbusBucket"},
        "NIMBUS__AWS__WEBHOOK_QUEUE": {"Fn::GetAtt": ["WebhookQueue", "QueueName"]},
        "NIMBUS__AWS__EVENTS_QUEUE": {"Fn::GetAtt": ["EventsQueue", "QueueName"]},
        "NIMBUS__AWS__REGION": {"Ref": "AWS::Region"},
    }
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow",
             "Action": ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem",
                        "dynamodb:DeleteItem", "dynamodb:Query", "dynamodb:BatchGetItem",
                        "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem",
                        "dynamodb:DescribeTable"],
             "Resource": [{"Fn::GetAtt": ["NimbusTable", "Arn"]},
                          {"Fn::Sub": "${NimbusTable.Arn}/index/*"}]},
            {"Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
             "Resource": {"Fn::Sub": "${NimbusBucket.Arn}/*"}},
            {"Effect": "Allow", "Action": ["s3:ListBucket"],
             "Resource": {"Fn::GetAtt": ["NimbusBucket", "Arn"]}},
            {"Effect": "Allow", "Action": ["sqs:SendMessage", "sqs:ReceiveMessage",
                                           "sqs:DeleteMessage", "sqs:GetQueueAttributes",
                                           "sqs:GetQueueUrl"],
             "Resource": [{"Fn::GetAtt": [name, "Arn"]} for name in
                          ("WebhookQueue", "WebhookDeadLetters", "EventsQueue",
                           "EventsDeadLetters")]},
            {"Effect": "Allow", "Action": ["dynamodb:DescribeStream", "dynamodb:GetRecords",
                                           "dynamodb:GetShardIterator", "dynamodb:ListStreams"],
             "Resource": {"Fn::GetAtt": ["NimbusTable", "StreamArn"]}},
            {"Effect": "Allow", "Action": ["ssm:GetParameter"],
             "Resource": {"Fn::Sub": "arn:${AWS::Partition}:ssm:${AWS::Region}:"
                                     "${AWS::AccountId}:parameter/nimbus/*"}},
            {"Effect": "Allow", "Action": ["logs:CreateLogGroup", "logs:CreateLogStream",
                                           "logs:PutLogEvents"], "Resource": "*"},
        ],
    }
    out = {
        "NimbusTable": {"Type": "AWS::DynamoDB::Table", **_RETAIN, "Properties": {
            "BillingMode": table["BillingMode"],
            "AttributeDefinitions": table["AttributeDefinitions"],
            "KeySchema": table["KeySchema"],
            "GlobalSecondaryIndexes": table["GlobalSecondaryIndexes"],
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
            "StreamSpecification": {"StreamViewType": "NEW_IMAGE"},
            "TimeToLiveSpecification": {"AttributeName": TTL_ATTRIBUTE, "Enabled": True},
        }},
        "NimbusBucket": {"Type": "AWS::S3::Bucket", **_RETAIN, "Properties": {
            "PublicAccessBlockConfiguration": {
                "BlockPublicAcls": True, "BlockPublicPolicy": True,
                "IgnorePublicAcls": True, "RestrictPublicBuckets": True},
            "BucketEncryption": {"ServerSideEncryptionConfiguration": [
                {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]},
            # Events too large for SQS wait here for their consumers (jobs/relay.py).
            "LifecycleConfiguration": {"Rules": [
                {"Id": "large-events", "Status": "Enabled", "Prefix": "events/",
                 "ExpirationInDays": 14}]},
        }},
        "WebhookDeadLetters": {"Type": "AWS::SQS::Queue", "Properties": {
            "QueueName": dead_letter_queue_name(settings), "MessageRetentionPeriod": 1209600}},
        "WebhookQueue": {"Type": "AWS::SQS::Queue", "Properties": {
            "QueueName": settings.aws.WEBHOOK_QUEUE, "VisibilityTimeout": 120,
            "RedrivePolicy": {"deadLetterTargetArn": {"Fn::GetAtt": ["WebhookDeadLetters", "Arn"]},
                              "maxReceiveCount": 5}}},
        "EventsDeadLetters": {"Type": "AWS::SQS::Queue", "Properties": {
            "QueueName": dead_letter_queue_name(settings, settings.aws.EVENTS_QUEUE),
            "MessageRetentionPeriod": 1209600}},
        "EventsQueue": {"Type": "AWS::SQS::Queue", "Properties": {
            "QueueName": settings.aws.EVENTS_QUEUE, "VisibilityTimeout": 120,
            "RedrivePolicy": {"deadLetterTargetArn": {"Fn::GetAtt": ["EventsDeadLetters", "Arn"]},
                              "maxReceiveCount": 5}}},
        "OutboxStreamMapping": {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {
            "EventSourceArn": {"Fn::GetAtt": ["NimbusTable", "StreamArn"]},
            "FunctionName": {"Ref": "OutboxRelay"},
            "StartingPosition": "TRIM_HORIZON", "BatchSize": 100,
            "MaximumBatchingWindowInSeconds": 0,
            # A failing batch is split and retried; what still fails stays in the outbox
            # for the sweep, so nothing is lost when the stream gives up.
            "BisectBatchOnFunctionError": True, "MaximumRetryAttempts": 10,
            "FilterCriteria": {"Filters": [{"Pattern": json.dumps(OUTBOX_STREAM_FILTER)}]}}},
        "NimbusRole": {"Type": "AWS::IAM::Role", "Properties": {
            "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": [{
                "Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"},
                "Action": "sts:AssumeRole"}]},
            "Policies": [{"PolicyName": "nimbus", "PolicyDocument": policy}]}},
    }
    for name in FUNCTION_NAMES:
        out[name] = {"Properties": {"Role": {"Fn::GetAtt": ["NimbusRole", "Arn"]},
                                    "Runtime": LAMBDA_RUNTIME,
                                    "Environment": {"Variables": env}}}
    # /tmp caches pack indexes and packs across warm invocations.
    out["APIHandler"]["Properties"]["EphemeralStorage"] = {"Size": 2048}
    # Jobs run longer than a request may: mirror fetches and repacks.
    for name in ("MirrorSync", "PackCompaction", "QuotaCheck"):
        out[name]["Properties"].update({"Timeout": 900, "MemorySize": 2048,
                                        "EphemeralStorage": {"Size": 4096}})
    # A lane run stops taking deliveries after RUN_SECONDS (45) and one attempt takes at
    # most DELIVER_TIMEOUT: within this timeout, itself within the queue's visibility
    # timeout (120), so a message is not handed to a second worker while the first runs.
    out["WebhookWorker"]["Properties"]["Timeout"] = 100
    return {"Resources": out}


if __name__ == "__main__":
    json.dump(resources(get_settings()), sys.stdout, indent=2)
    sys.stdout.write("\n")

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
from infra import iam
from infra.bootstrap import TTL_ATTRIBUTE, dead_letter_queue_name, table_definition

# Every Lambda chalice package makes from app.py (API, schedules, queue consumers).
FUNCTION_NAMES = ("APIHandler", "MirrorSync", "PackCompaction", "OutboxRelay", "OutboxSweep",
                  "EventWorker", "WebhookWorker", "WebhookSweep", "QuotaCheck", "LfsCollect",
                  "MigrationResume")
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
    }
    # One least-privilege role per function (infra/iam.py).
    out.update(iam.roles(FUNCTION_NAMES, settings))
    for name in FUNCTION_NAMES:
        out[name] = {"Properties": {"Role": {"Fn::GetAtt": [iam.role_name(name), "Arn"]},
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
    # The LFS collection works through idle objects a page at a time; a run cut short
    # leaves the rest (and any object it had marked) to the next hour's.
    out["LfsCollect"]["Properties"]["Timeout"] = 900
    out["WebhookWorker"]["Properties"]["Timeout"] = 100
    out.update(streaming_resources(env, settings))
    # Bundles of large pushes that were uploaded and never applied (git_transport/large_push.py).
    out["NimbusBucket"]["Properties"]["LifecycleConfiguration"]["Rules"].append(
        {"Id": "abandoned-large-pushes", "Status": "Enabled", "Prefix": "large-push/",
         "ExpirationInDays": 2})
    return {"Resources": out}


# Streaming function (docs/git-at-scale.md) ---------------------------------------------
# API Gateway cannot route /{owner}/{repo}/git-upload-pack apart from Chalice's
# /{proxy+} (one variable path part per level), so the split is by method: POST goes
# to StreamHandler, whose integration streams (responseTransferMode STREAM, 15 min,
# 200 MB); every other method stays on APIHandler, buffered.  StreamHandler runs the
# same app: only clone/fetch packs and large-push applies use the streamed allowance
# (chalicelib/streaming/handler.py), every other POST is held to the buffered limits.
STREAM_FUNCTION = "StreamHandler"
# The Python managed runtime with its loop replaced by ours, which streams.
STREAM_EXEC_WRAPPER = "/var/task/chalicelib/streaming/exec-wrapper"
STREAM_TIMEOUT_MS = 900_000
LARGE_PUSH_HINT = ("Request Too Long: API Gateway and Lambda take about 6 MB per request. "
                   "For a git push this large use `python -m chalicelib.cli push-bundle` "
                   "(docs/git-at-scale.md).")


def streaming_resources(env: dict, settings) -> dict:
    integration = {
        "type": "aws_proxy", "httpMethod": "POST", "passthroughBehavior": "when_no_match",
        "uri": {"Fn::Sub": "arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/"
                           "2021-11-15/functions/${StreamHandler.Arn}/response-streaming-invocations"},
        "timeoutInMillis": STREAM_TIMEOUT_MS,
        "responseTransferMode": "STREAM",
    }
    post = {"consumes": ["*/*"], "produces": ["*/*"],
            "parameters": [{"name": "proxy", "in": "path", "required": True, "type": "string"}],
            "responses": {"200": {"description": "200 response"}},
            "x-amazon-apigateway-integration": integration}
    message = json.dumps({"message": LARGE_PUSH_HINT})
    # The API's rights (it serves the same routes), plus the bundles of large pushes:
    # presigning a PUT needs PutObject, applying one reads and deletes it.
    role = iam.roles((STREAM_FUNCTION,), settings)
    role[iam.role_name(STREAM_FUNCTION)]["Properties"]["Policies"][0]["PolicyDocument"][
        "Statement"].append({"Effect": "Allow",
                             "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
                             "Resource": iam.objects("large-push/")})
    return {
        **role,
        STREAM_FUNCTION: {"Type": "AWS::Serverless::Function", "Properties": {
            "CodeUri": "./deployment.zip",   # chalice package's artifact: APIHandler's code
            "Handler": "app.app",            # required by the resource; the wrapper's loop runs
            "Runtime": LAMBDA_RUNTIME,
            "Role": {"Fn::GetAtt": [iam.role_name(STREAM_FUNCTION), "Arn"]},
            "Timeout": STREAM_TIMEOUT_MS // 1000,
            # A 200 MB answer is held once in memory; a 2 GB bundle is staged in /tmp.
            "MemorySize": 3008, "EphemeralStorage": {"Size": 10240},
            "Environment": {"Variables": {**env,
                                          "AWS_LAMBDA_EXEC_WRAPPER": STREAM_EXEC_WRAPPER}}}},
        "StreamHandlerInvokePermission": {"Type": "AWS::Lambda::Permission", "Properties": {
            "Action": "lambda:InvokeFunction", "FunctionName": {"Ref": STREAM_FUNCTION},
            "Principal": "apigateway.amazonaws.com",
            "SourceArn": {"Fn::Sub": "arn:${AWS::Partition}:execute-api:${AWS::Region}:"
                                     "${AWS::AccountId}:${RestAPI}/*"}}},
        # Deep-merged into Chalice's API definition (chalice package --merge-template).
        "RestAPI": {"Properties": {"DefinitionBody": {
            "paths": {"/{proxy+}": {"post": post}},
            "x-amazon-apigateway-gateway-responses": {"REQUEST_TOO_LARGE": {
                "statusCode": 413,
                "responseTemplates": {"application/json": message}}}}}},
    }


if __name__ == "__main__":
    json.dump(resources(get_settings()), sys.stdout, indent=2)
    sys.stdout.write("\n")

"""Render the CloudFormation resources that `chalice package` does not make: the table
(with its stream and TTL, point-in-time recovery on), the bucket (versioned), the webhook
and events queues with their dead-letter queues (the webhook queue drives the
WebhookWorker function: chalice makes that mapping from app.py), the stream's mapping to
the outbox relay, the alarms and the dashboard (infra/alarms.py) and the optional
custom domain behind CloudFront (infra/domain.py) and the EventBridge bus with its
example rule (infra/eventbridge.py), with their parameters.  Written as a merge template
(``chalice package --merge-template <file>``; infra/deploy.sh does this), from the same definitions
``infra/bootstrap.py`` creates locally.

    python -m infra.template > resources.json
"""
from __future__ import annotations

import json
import sys

from chalicelib import instance
from chalicelib.settings import get_settings
from infra import alarms, domain, eventbridge, iam
from infra.bootstrap import TTL_ATTRIBUTE, dead_letter_queue_name, table_definition

# Every Lambda chalice package makes from app.py (API, schedules, queue consumers).
FUNCTION_NAMES = ("APIHandler", "MirrorSync", "PackCompaction", "OutboxRelay", "OutboxSweep",
                  "EventWorker", "WebhookWorker", "WebhookSweep", "QuotaCheck", "LfsCollect",
                  "MigrationResume", "DeletedRepoPurge", "AuditExport")
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
# How long the bucket keeps an object's overwritten or deleted versions.
NONCURRENT_VERSION_DAYS = 30
# checkov's checks the packaged template does not pass, each for a reason (none is
# about IAM).  .ci/run and tests/test_template.py run checkov with exactly these skipped.
CHECKOV_SKIPPED = {
    "CKV_AWS_115": "reserved concurrency: on-demand scaling is the design; a limit per "
                   "function is an operator's choice per account, not the template's",
    "CKV_AWS_116": "Lambda DLQ: the queue consumers dead-letter through their queues' "
                   "redrive policies; schedules and the API have no asynchronous callers "
                   "but adminCronRun, whose run is recorded and can be started again",
    "CKV_AWS_117": "VPC: every dependency is an AWS API reached over its public endpoint",
    "CKV_AWS_173": "env-var KMS: variables hold resource names only, no secrets (the keys "
                   "live in SSM SecureStrings)",
    "CKV_AWS_119": "table CMK: DynamoDB encrypts at rest with an AWS-owned key by default",
    "CKV_AWS_18": "bucket access logs: they need a second bucket the stack does not own; "
                  "every request is logged by the functions (docs/operations.md)",
    "CKV_AWS_27": "SQS encryption: SQS-managed SSE is on for every new queue since 2022",
    "CKV_AWS_120": "API Gateway caching: answers are per caller",
    "CKV_AWS_73": "X-Ray: tracing is opt-in (Tracing: PassThrough)",
    "CKV_AWS_76": "API Gateway access logs: the functions log every request they answer",
    "CKV_AWS_68": "WAF on the custom domain: a web ACL costs $5 a month and more per rule "
                  "and request, as much as the rest of a team's month; attach one if the "
                  "instance draws abuse (infra/README.md)",
    "CKV_AWS_86": "CloudFront access logs: the functions log every request CloudFront "
                  "passes on, and nothing is cached, so every request reaches them",
}


def resources(settings) -> dict:
    table = table_definition(settings)
    env = {
        "NIMBUS__AWS__TABLE": {"Ref": "NimbusTable"},
        "NIMBUS__AWS__BUCKET": {"Ref": "NimbusBucket"},
        "NIMBUS__AWS__WEBHOOK_QUEUE": {"Fn::GetAtt": ["WebhookQueue", "QueueName"]},
        "NIMBUS__AWS__EVENTS_QUEUE": {"Fn::GetAtt": ["EventsQueue", "QueueName"]},
        "NIMBUS__AWS__REGION": {"Ref": "AWS::Region"},
        **eventbridge.variables(),
    }
    out = {
        "NimbusTable": {"Type": "AWS::DynamoDB::Table", **_RETAIN, "Properties": {
            "BillingMode": table["BillingMode"],
            "AttributeDefinitions": table["AttributeDefinitions"],
            "KeySchema": table["KeySchema"],
            "GlobalSecondaryIndexes": table["GlobalSecondaryIndexes"],
            # Restorable to any second of the last 35 days (infra/README.md, "Restoring").
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
            # Every object's earlier versions are kept 30 days: an overwritten or deleted
            # object can be restored (infra/README.md, "Restoring").  Uploads in parts
            # that never completed are dropped.
            "VersioningConfiguration": {"Status": "Enabled"},
            "LifecycleConfiguration": {"Rules": [
                {"Id": "earlier-versions", "Status": "Enabled",
                 "NoncurrentVersionExpiration": {"NoncurrentDays": NONCURRENT_VERSION_DAYS},
                 "ExpiredObjectDeleteMarker": True},
                {"Id": "incomplete-uploads", "Status": "Enabled",
                 "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 2}},
                # Events too large for SQS wait here for their consumers (jobs/relay.py).
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
    # The purge of deleted repositories works through due records a page at a time; a
    # run cut short leaves the rest to the next hour's (repo_admin/deleted_purge.py).
    out["DeletedRepoPurge"]["Properties"]["Timeout"] = 900
    # The audit log's export reads the last days a Query page at a time (audit/export.py).
    out["AuditExport"]["Properties"]["Timeout"] = 900
    out["WebhookWorker"]["Properties"]["Timeout"] = 100
    out.update(streaming_resources(env, settings))
    # adminCronRun starts a cron task's own function (chalicelib/instance/cron.py): the
    # functions serving the API (every POST goes to the streaming one) know their names.
    cron_functions = {"NIMBUS_CRON_FUNCTIONS": {"Fn::Sub": json.dumps(
        {task.name: f"${{{task.function}}}" for task in instance.CRON_TASKS})}}
    for name in ("APIHandler", STREAM_FUNCTION):
        properties = out[name]["Properties"]
        properties["Environment"] = {"Variables": {**properties["Environment"]["Variables"],
                                                   **cron_functions}}
    # Bundles of large pushes that were uploaded and never applied (git_transport/large_push.py).
    out["NimbusBucket"]["Properties"]["LifecycleConfiguration"]["Rules"].append(
        {"Id": "abandoned-large-pushes", "Status": "Enabled", "Prefix": "large-push/",
         "ExpirationInDays": 2})
    # The API is named after the stack, so its CloudWatch metrics (dimension ApiName) are
    # this stack's alone (infra/alarms.py).
    api = out["RestAPI"]["Properties"]
    api["Name"] = {"Ref": "AWS::StackName"}
    api["DefinitionBody"]["info"] = {"version": "1.0", "title": {"Ref": "AWS::StackName"}}
    functions = (*FUNCTION_NAMES, STREAM_FUNCTION)
    out.update(alarms.alarms(functions))
    out.update(alarms.dashboard(functions))
    out.update(domain.resources())
    out.update(eventbridge.resources())
    return {"Parameters": {**alarms.parameters(), **domain.parameters(),
                           **eventbridge.parameters()},
            "Conditions": {**alarms.conditions(), **domain.conditions(),
                           **eventbridge.conditions()},
            "Resources": out,
            "Outputs": {**alarms.outputs(), **domain.outputs()}}


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

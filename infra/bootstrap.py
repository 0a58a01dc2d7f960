"""Create the service's AWS resources: the table (with its TTL attribute), the bucket,
the webhook and events queues and their dead-letter queues.  Idempotent.  The local runtime calls this against embedded moto;
``python -m infra.bootstrap`` runs it against a real account (see infra/README.md).

The table's key schema and indexes come from the PynamoDB models, so code and
infrastructure cannot drift apart; ``infra/template.py`` renders the same description
as CloudFormation.
"""
from __future__ import annotations

import json

from chalicelib import aws
from chalicelib.settings import Settings, get_settings
from chalicelib.store import table


def table_definition(settings: Settings) -> dict:
    """CreateTable arguments derived from the models."""
    schema = table.Item._get_schema()  # already in the API's key spelling
    return {
        "TableName": settings.aws.TABLE,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": schema["attribute_definitions"],
        "KeySchema": schema["key_schema"],
        "GlobalSecondaryIndexes": [
            {"IndexName": index["index_name"], "KeySchema": index["key_schema"],
             "Projection": index["projection"]}
            for index in schema["global_secondary_indexes"]],
    }


def dead_letter_queue_name(settings: Settings, queue: str | None = None) -> str:
    return (queue or settings.aws.WEBHOOK_QUEUE) + "-dlq"


# Outbox items and delivery marks expire through this attribute (store/outbox.py).
TTL_ATTRIBUTE = "expires"


def ensure_table(settings: Settings) -> None:
    ddb = aws.client("dynamodb")
    wanted = table_definition(settings)
    existing = ddb.list_tables().get("TableNames", [])
    if settings.aws.TABLE not in existing:
        ddb.create_table(**wanted)
        ddb.get_waiter("table_exists").wait(TableName=settings.aws.TABLE)
        ensure_ttl(ddb, settings)
        return
    ensure_ttl(ddb, settings)
    # A table made by an older version gains the indexes added since.
    described = ddb.describe_table(TableName=settings.aws.TABLE)["Table"]
    have = {i["IndexName"] for i in described.get("GlobalSecondaryIndexes", [])}
    for index in wanted["GlobalSecondaryIndexes"]:
        if index["IndexName"] not in have:
            ddb.update_table(TableName=settings.aws.TABLE,
                             AttributeDefinitions=wanted["AttributeDefinitions"],
                             GlobalSecondaryIndexUpdates=[{"Create": index}])


def ensure_ttl(ddb, settings: Settings) -> None:
    status = ddb.describe_time_to_live(TableName=settings.aws.TABLE)["TimeToLiveDescription"]
    if status.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING"):
        ddb.update_time_to_live(TableName=settings.aws.TABLE, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": TTL_ATTRIBUTE})


def ensure_bucket(settings: Settings) -> None:
    s3 = aws.client("s3")
    names = {b["Name"] for b in s3.list_buckets().get("Buckets", [])}
    if settings.aws.BUCKET in names:
        return
    kwargs = {"Bucket": settings.aws.BUCKET}
    if settings.aws.REGION != "us-east-1":
        kwargs["CreateBucketConfiguration"] = {"LocationConstraint": settings.aws.REGION}
    s3.create_bucket(**kwargs)


def ensure_queues(settings: Settings) -> None:
    for queue in (settings.aws.WEBHOOK_QUEUE, settings.aws.EVENTS_QUEUE):
        ensure_queue(settings, queue)


def ensure_queue(settings: Settings, queue: str) -> None:
    """A queue with a dead-letter queue behind it (five receives, then dead-lettered)."""
    sqs = aws.client("sqs")
    dlq_url = sqs.create_queue(QueueName=dead_letter_queue_name(settings, queue))["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(
        QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    attributes = {
        "VisibilityTimeout": "120",
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "5"}),
    }
    try:
        url = sqs.get_queue_url(QueueName=queue)["QueueUrl"]
    except sqs.exceptions.QueueDoesNotExist:
        sqs.create_queue(QueueName=queue, Attributes=attributes)
    else:
        # An existing queue (e.g. restored local state) takes the current attributes.
        sqs.set_queue_attributes(QueueUrl=url, Attributes=attributes)


def ensure_resources(settings: Settings | None = None) -> None:
    settings = settings or get_settings()
    ensure_table(settings)
    ensure_bucket(settings)
    ensure_queues(settings)


if __name__ == "__main__":
    ensure_resources()
    print("resources ready")

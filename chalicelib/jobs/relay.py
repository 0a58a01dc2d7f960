"""The outbox relay: moves outbox items (``chalicelib.store.outbox``) to the events queue,
then removes them.

Three ways in, one way out (``publish``):
- in AWS, the table's stream invokes ``relay_stream_records`` for each new outbox item
  (filtered to outbox inserts), seconds after the commit and with no call on the request
  path;
- ``sweep`` (a schedule in AWS, a background thread locally) publishes what is older
  than a grace period: items a stream batch failed on, or that a dead process left;
- the local runtime wakes its relay right after each commit (``unit_of_work.after_commit``).

A crash between sending and removing publishes an item twice; consumers are idempotent
on the event id, so that is harmless (``chalicelib.jobs.consumers``).
"""
from __future__ import annotations

import json
import logging
from typing import Iterable

from chalicelib import aws, clock, telemetry
from chalicelib.settings import get_settings
from chalicelib.store import outbox

log = logging.getLogger("nimbus.relay")

SQS_BATCH = 10
# SQS takes at most 256 KiB per message (and per batch): larger events travel through S3
# and the message carries a pointer to them (consumers.handle_message follows it).
INLINE_MESSAGE_BYTES = 60 * 1024
LARGE_EVENT_PREFIX = "events/"
# The stream delivers within seconds; the sweep leaves younger items to it.
SWEEP_GRACE_SECONDS = 60.0


def queue_url() -> str:
    return aws.client("sqs").get_queue_url(QueueName=get_settings().aws.EVENTS_QUEUE)["QueueUrl"]


def publish(items: Iterable[outbox.OutboxItem], *, url: str | None = None) -> int:
    """Send each item's event to the events queue, then remove the items that went.
    One telemetry line per call, with the age of the oldest item (``OutboxLag``)."""
    with telemetry.run("relay_run", "Relay") as run:
        items = list(items)
        note_outbox_lag(items)
        run.fields["found"] = len(items)
        if not items:
            run.quiet()          # the sweep's idle runs, every five minutes
            return 0
        sqs, url = aws.client("sqs"), url or queue_url()
        sent: list[outbox.OutboxItem] = []
        for start in range(0, len(items), SQS_BATCH):
            chunk = items[start:start + SQS_BATCH]
            result = sqs.send_message_batch(QueueUrl=url, Entries=[
                {"Id": str(n), "MessageBody": _queued_body(item),
                 "MessageAttributes": {"event_type": {"DataType": "String",
                                                      "StringValue": item.event_type}}}
                for n, item in enumerate(chunk)])
            for failure in result.get("Failed", []):
                log.warning("event %s not queued: %s", chunk[int(failure["Id"])].event_id,
                            failure.get("Message"))
            sent += [chunk[int(ok["Id"])] for ok in result.get("Successful", [])]
        outbox.remove(sent)
        telemetry.add("EventsRelayed", len(sent))
        return len(sent)


def note_outbox_lag(items: list[outbox.OutboxItem]) -> None:
    """``OutboxLag`` of the run being measured: seconds since the oldest of ``items``
    was committed (0 for none)."""
    oldest = min((float(item.created) for item in items), default=None)
    lag = 0.0 if oldest is None else max(0.0, clock.now() - oldest)
    telemetry.add("OutboxLag", round(lag, 3), telemetry.SECONDS)


def _queued_body(item: outbox.OutboxItem) -> str:
    """The item's message, or a pointer to it in S3 when it is too large for SQS."""
    if len(item.message.encode("utf-8")) <= INLINE_MESSAGE_BYTES:
        return item.message
    key = f"{LARGE_EVENT_PREFIX}{item.event_id}.json"
    aws.client("s3").put_object(Bucket=get_settings().aws.BUCKET, Key=key,
                                Body=item.message.encode("utf-8"),
                                ContentType="application/json")
    return json.dumps({"type": item.event_type, "id": item.event_id, "stored_at": key})


def sweep(*, grace: float = SWEEP_GRACE_SECONDS) -> int:
    """Publish every outbox item older than ``grace`` seconds."""
    return publish(outbox.pending(older_than=clock.now() - grace))


def relay_stream_records(records: Iterable[dict]) -> int:
    """The stream function: publish the outbox items among new-image records."""
    items = []
    for record in records:
        image = (record.get("dynamodb") or {}).get("NewImage")
        if record.get("eventName") == "INSERT" and image:
            item = outbox.from_stream_image(image)
            if item is not None:
                items.append(item)
    return publish(items)

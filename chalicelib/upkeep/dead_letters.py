"""The dead-letter queues: their messages described without their bodies, and replay.

The events queue and the webhook queue (``[aws] EVENTS_QUEUE``, ``WEBHOOK_QUEUE``) each
move a message whose handling failed five times to their dead-letter queue (the queue's
``RedrivePolicy``, which names it: infra/bootstrap.py, infra/template.py), which keeps it
14 days.  An event there reached none of the consumers that failed on it; a webhook
lane message there woke no lane (the lane's deliveries stay in the table, and the
webhook sweep wakes due lanes anyway).

Listing reads the messages without keeping them: it receives them with a short
visibility timeout and hands them straight back (visibility 0).  It never shows a
body, which carries users' data: only what names a message (an event's type and id, a
webhook lane), when it was first sent and how often it was received.

Replay moves messages back to their live queue a batch at a time: each is sent there
with its attributes, and deleted from the dead-letter queue only once SQS accepted the
send; a message the send refused stays (hidden for ``REPLAY_HOLD_SECONDS``, so one
replay does not take it twice).  A failure between the send and the delete leaves the
message in both queues: consumers are idempotent on the event id (delivery marks), and
a lane message only wakes its lane, so the copy is harmless.

Locally (``make run``) the runtime's events go from the outbox to its own workers,
never through the events queue, so only the webhook queue dead-letters there; an event
that keeps failing stays in the outbox, which ``admin health`` reports.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from chalicelib import aws
from chalicelib.settings import get_settings

QUEUES = ("events", "webhooks")
# How long a listing holds the messages it reads before handing them back.
PEEK_SECONDS = 30
REPLAY_HOLD_SECONDS = 60
SQS_BATCH = 10


class DeadLetterError(Exception):
    """A queue is not set up as expected (one line for the operator)."""


@dataclass(frozen=True)
class Letter:
    message_id: str
    sent_at: float          # epoch seconds it was first sent, to the live queue
    receives: int           # how often it was received, this listing's included
    kind: str               # the event's type, or "lane" for a webhook lane message
    subject: str            # the event's id, or the lane


@dataclass
class DeadLetters:
    queue: str              # "events" or "webhooks"
    live: str               # the live queue's name
    dead: str               # its dead-letter queue's name
    count: int              # SQS's approximate number of messages
    letters: list[Letter] = field(default_factory=list)


@dataclass(frozen=True)
class Replayed:
    queue: str
    sent: int
    refused: list[str]      # SQS's reasons, one per message left in the dead-letter queue


@dataclass(frozen=True)
class _Queues:
    live: str
    live_url: str
    dead: str
    dead_url: str


def chosen(queue: str | None) -> tuple[str, ...]:
    """The queues ``--queue`` names (both when it names none)."""
    return QUEUES if queue is None else (queue,)


def _queues(queue: str) -> _Queues:
    settings = get_settings().aws
    live = {"events": settings.EVENTS_QUEUE, "webhooks": settings.WEBHOOK_QUEUE}[queue]
    sqs = aws.client("sqs")
    live_url = sqs.get_queue_url(QueueName=live)["QueueUrl"]
    policy = sqs.get_queue_attributes(QueueUrl=live_url, AttributeNames=["RedrivePolicy"]
                                      ).get("Attributes", {}).get("RedrivePolicy")
    if not policy:
        raise DeadLetterError(f"queue {live} has no dead-letter queue (no RedrivePolicy)")
    dead = json.loads(policy)["deadLetterTargetArn"].rsplit(":", 1)[-1]
    return _Queues(live, live_url, dead, sqs.get_queue_url(QueueName=dead)["QueueUrl"])


def count(queue: str) -> tuple[str, int]:
    """The dead-letter queue's name and how many messages it holds (approximately)."""
    found = _queues(queue)
    return found.dead, _approximate(found.dead_url)


def _approximate(url: str) -> int:
    attributes = aws.client("sqs").get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])["Attributes"]
    return int(attributes.get("ApproximateNumberOfMessages", 0))


def _receive(url: str, at_most: int, hold: int) -> list[dict]:
    # A second of long polling: short polling samples some of SQS's servers only and
    # may answer nothing while messages wait.
    return aws.client("sqs").receive_message(
        QueueUrl=url, MaxNumberOfMessages=min(SQS_BATCH, at_most), VisibilityTimeout=hold,
        WaitTimeSeconds=1, AttributeNames=["SentTimestamp", "ApproximateReceiveCount"],
        MessageAttributeNames=["All"]).get("Messages", [])


def _give_back(url: str, messages: list[dict]) -> None:
    sqs = aws.client("sqs")
    for start in range(0, len(messages), SQS_BATCH):
        chunk = messages[start:start + SQS_BATCH]
        sqs.change_message_visibility_batch(QueueUrl=url, Entries=[
            {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": 0}
            for n, m in enumerate(chunk)])


def describe(message: dict) -> Letter:
    """What names a message, read from its attributes and body (the body is not kept)."""
    attributes = message.get("Attributes") or {}
    try:
        body = json.loads(message.get("Body") or "")
    except ValueError:
        body = None
    body = body if isinstance(body, dict) else {}
    event_type = ((message.get("MessageAttributes") or {}).get("event_type") or {}).get(
        "StringValue")
    if "lane" in body and not event_type:
        kind, subject = "lane", str(body["lane"])
    else:
        kind, subject = str(event_type or body.get("type") or "unknown"), str(body.get("id") or "")
    return Letter(message_id=message["MessageId"],
                  sent_at=int(attributes.get("SentTimestamp", 0)) / 1000,
                  receives=int(attributes.get("ApproximateReceiveCount", 0)),
                  kind=kind, subject=subject)


def inspect(queue: str, *, limit: int = 1000) -> DeadLetters:
    """The dead-letter queue of ``queue``: its count and up to ``limit`` messages."""
    found = _queues(queue)
    result = DeadLetters(queue, found.live, found.dead, _approximate(found.dead_url))
    held: list[dict] = []
    try:
        while len(held) < limit:
            got = _receive(found.dead_url, limit - len(held), PEEK_SECONDS)
            if not got:
                break
            held += got
    finally:
        _give_back(found.dead_url, held)
    result.letters = sorted((describe(m) for m in held), key=lambda letter: letter.sent_at)
    return result


def _sendable(attributes: dict) -> dict:
    # What SQS answers holds list fields it refuses in a send ("reserved for future use").
    keep = ("DataType", "StringValue", "BinaryValue")
    return {name: {k: v for k, v in value.items() if k in keep}
            for name, value in attributes.items()}


def replay(queue: str, *, max_messages: int | None = None) -> Replayed:
    """Move up to ``max_messages`` (default: all) dead letters of ``queue`` back to it."""
    found = _queues(queue)
    sqs = aws.client("sqs")
    sent, refused = 0, []
    while max_messages is None or sent + len(refused) < max_messages:
        room = SQS_BATCH if max_messages is None else max_messages - sent - len(refused)
        got = _receive(found.dead_url, room, REPLAY_HOLD_SECONDS)
        if not got:
            break
        result = sqs.send_message_batch(QueueUrl=found.live_url, Entries=[
            {"Id": str(n), "MessageBody": m["Body"],
             **({"MessageAttributes": _sendable(m["MessageAttributes"])}
                if m.get("MessageAttributes") else {})}
            for n, m in enumerate(got)])
        accepted = [got[int(ok["Id"])] for ok in result.get("Successful", [])]
        refused += [f"{got[int(f['Id'])]['MessageId']}: {f.get('Code')} {f.get('Message', '')}"
                    .strip() for f in result.get("Failed", [])]
        if accepted:
            sqs.delete_message_batch(QueueUrl=found.dead_url, Entries=[
                {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]}
                for n, m in enumerate(accepted)])
        sent += len(accepted)
    return Replayed(queue, sent, refused)

"""SQS in memory, on the JSON protocol botocore 1.44 speaks (``AmazonSQS.<Op>``).

Standard queues: messages in send order; a received message stays invisible for its
visibility timeout, then is delivered again with a higher ApproximateReceiveCount; a
queue with a RedrivePolicy moves a message to its dead-letter queue instead of
delivering it once it has been received ``maxReceiveCount`` times.  A long poll
(WaitTimeSeconds) waits for a message without holding up senders.  Errors carry the
old query protocol's codes in ``x-amzn-query-error``, as SQS sends them, so botocore
raises ``sqs.exceptions.QueueDoesNotExist`` and friends.
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
import uuid

from tests.twin.errors import ServiceError, Unsupported
from tests.twin.sqs_messages import (Message, attributes_md5, check_body, pick_attributes,
                                     system_attributes)

ACCOUNT = "123456789012"
QUERY_CODES = {
    "QueueDoesNotExist": "AWS.SimpleQueueService.NonExistentQueue",
    "QueueNameExists": "QueueAlreadyExists",
    "MessageNotInflight": "AWS.SimpleQueueService.MessageNotInflight",
    "EmptyBatchRequest": "AWS.SimpleQueueService.EmptyBatchRequest",
    "TooManyEntriesInBatchRequest": "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
    "BatchEntryIdsNotDistinct": "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
    "BatchRequestTooLong": "AWS.SimpleQueueService.BatchRequestTooLong",
    "InvalidBatchEntryId": "AWS.SimpleQueueService.InvalidBatchEntryId",
}
DEFAULTS = {"VisibilityTimeout": "30", "DelaySeconds": "0", "MaximumMessageSize": "1048576",
            "MessageRetentionPeriod": "345600", "ReceiveMessageWaitTimeSeconds": "0",
            "SqsManagedSseEnabled": "true"}
SETTABLE = frozenset(DEFAULTS) | {"RedrivePolicy", "RedriveAllowPolicy", "Policy",
                                  "KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds"}
COMPUTED = ("QueueArn", "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed", "CreatedTimestamp", "LastModifiedTimestamp")
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,80}$")
_BATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,80}$")


def query_code(code: str) -> str:
    return QUERY_CODES.get(code, code)


def fail(code: str, message: str) -> ServiceError:
    return ServiceError(code, message)


class Queue:
    def __init__(self, name: str, url: str, arn: str, attributes: dict):
        self.name, self.url, self.arn = name, url, arn
        self.attributes = {**DEFAULTS, **attributes}
        self.created = self.modified = int(time.time())
        self.messages: list[Message] = []

    def seconds(self, name: str) -> int:
        return int(self.attributes[name])


class SQS:
    def __init__(self, region: str = "us-east-1"):
        self.region = region
        self.queues: dict[str, Queue] = {}
        self.changed = threading.Condition(threading.Lock())

    def handle(self, operation: str, body: dict) -> dict:
        method = getattr(self, "op_" + operation, None)
        if method is None:
            raise Unsupported("sqs", operation)
        with self.changed:
            return method(body)

    def queue(self, url) -> Queue:
        found = self.queues.get(str(url or "").rstrip("/").rpartition("/")[2])
        if found is None:
            raise fail("QueueDoesNotExist", "The specified queue does not exist.")
        return found

    # -- queues
    def checked(self, attributes: dict) -> dict:
        out = {}
        for name, value in attributes.items():
            if name not in SETTABLE:
                raise fail("InvalidAttributeName", f"Unknown Attribute {name}.")
            if name == "RedrivePolicy" and value:
                policy = json.loads(value)
                target = policy["deadLetterTargetArn"].rpartition(":")[2]
                if target not in self.queues:
                    raise fail("InvalidParameterValue", "Value "
                               f"{value} for parameter RedrivePolicy is invalid. Reason: Dead "
                               "letter target does not exist.")
                value = json.dumps({"deadLetterTargetArn": policy["deadLetterTargetArn"],
                                    "maxReceiveCount": int(policy["maxReceiveCount"])},
                                   separators=(",", ":"))
            out[name] = str(value)
        return out

    def op_CreateQueue(self, body: dict) -> dict:
        name = body.get("QueueName", "")
        attributes = body.get("Attributes") or {}
        if name.endswith(".fifo") or attributes.get("FifoQueue"):
            raise Unsupported("sqs", "CreateQueue", "FIFO queues")
        if not _NAME.match(name):
            raise fail("InvalidParameterValue", "Can only include alphanumeric characters, "
                       "hyphens, or underscores. 1 to 80 in length")
        attributes = self.checked(attributes)
        existing = self.queues.get(name)
        if existing is not None:
            for key, value in attributes.items():
                if existing.attributes.get(key) != value:
                    raise fail("QueueNameExists", "A queue already exists with the same name and "
                               f"a different value for attribute {key}")
            return {"QueueUrl": existing.url}
        url = f"https://sqs.{self.region}.amazonaws.com/{ACCOUNT}/{name}"
        arn = f"arn:aws:sqs:{self.region}:{ACCOUNT}:{name}"
        self.queues[name] = Queue(name, url, arn, attributes)
        return {"QueueUrl": url}

    def op_GetQueueUrl(self, body: dict) -> dict:
        found = self.queues.get(body.get("QueueName", ""))
        if found is None:
            raise fail("QueueDoesNotExist", "The specified queue does not exist.")
        return {"QueueUrl": found.url}

    def op_DeleteQueue(self, body: dict) -> dict:
        del self.queues[self.queue(body.get("QueueUrl")).name]
        return {}

    def op_ListQueues(self, body: dict) -> dict:
        urls = [q.url for name, q in self.queues.items()
                if name.startswith(body.get("QueueNamePrefix", ""))]
        start = int(body.get("NextToken") or 0)
        limit = body.get("MaxResults")
        page = urls[start:start + limit] if limit else urls[start:]
        out = {"QueueUrls": page} if page else {}
        if limit and start + limit < len(urls):
            out["NextToken"] = str(start + limit)
        return out

    def op_GetQueueAttributes(self, body: dict) -> dict:
        queue = self.queue(body.get("QueueUrl"))
        now = time.time()
        known = {**queue.attributes, "QueueArn": queue.arn,
                 "ApproximateNumberOfMessages": sum(m.visible(now) for m in queue.messages),
                 "ApproximateNumberOfMessagesNotVisible":
                     sum(m.in_flight(now) for m in queue.messages),
                 "ApproximateNumberOfMessagesDelayed": sum(m.delayed(now) for m in queue.messages),
                 "CreatedTimestamp": queue.created, "LastModifiedTimestamp": queue.modified}
        wanted = body.get("AttributeNames") or []
        if "All" in wanted:
            wanted = list(known)
        out = {}
        for name in wanted:
            if name not in known and name not in SETTABLE:
                raise fail("InvalidAttributeName", f"Unknown Attribute {name}.")
            if name in known:
                out[name] = str(known[name])
        return {"Attributes": out} if out else {}

    def op_SetQueueAttributes(self, body: dict) -> dict:
        queue = self.queue(body.get("QueueUrl"))
        queue.attributes.update(self.checked(body.get("Attributes") or {}))
        queue.modified = int(time.time())
        return {}

    def op_PurgeQueue(self, body: dict) -> dict:
        self.queue(body.get("QueueUrl")).messages.clear()
        return {}

    # -- messages
    def send(self, queue: Queue, entry: dict) -> dict:
        text = entry.get("MessageBody")
        attributes = entry.get("MessageAttributes") or {}
        check_body(text, attributes, queue.seconds("MaximumMessageSize"))
        delay = entry.get("DelaySeconds", queue.seconds("DelaySeconds"))
        if not 0 <= delay <= 900:
            raise fail("InvalidParameterValue", f"Value {delay} for parameter DelaySeconds is "
                       "invalid. Reason: must be between 0 and 900, if provided.")
        message = Message(str(uuid.uuid4()), text, attributes, delay)
        queue.messages.append(message)
        self.changed.notify_all()
        out = {"MessageId": message.id, "MD5OfMessageBody": hashlib.md5(
            text.encode("utf-8")).hexdigest()}
        if attributes:
            out["MD5OfMessageAttributes"] = attributes_md5(attributes)
        return out

    def op_SendMessage(self, body: dict) -> dict:
        return self.send(self.queue(body.get("QueueUrl")), body)

    def batch(self, entries: list, verb: str) -> None:
        if not entries:
            raise fail("EmptyBatchRequest", f"There should be at least one {verb}"
                       "MessageBatchRequestEntry in the request.")
        if len(entries) > 10:
            raise fail("TooManyEntriesInBatchRequest", "Maximum number of entries per request "
                       f"are 10. You have sent {len(entries)}.")
        seen = set()
        for entry in entries:
            if not _BATCH_ID.match(str(entry.get("Id", ""))):
                raise fail("InvalidBatchEntryId", "A batch entry id can only contain "
                           "alphanumeric characters, hyphens and underscores. It can be at "
                           "most 80 letters long.")
            if entry["Id"] in seen:
                raise fail("BatchEntryIdsNotDistinct", f"Id {entry['Id']} repeated.")
            seen.add(entry["Id"])

    def op_SendMessageBatch(self, body: dict) -> dict:
        queue = self.queue(body.get("QueueUrl"))
        entries = body.get("Entries") or []
        self.batch(entries, "Send")
        total = sum(len(str(e.get("MessageBody", "")).encode("utf-8")) for e in entries)
        if total > queue.seconds("MaximumMessageSize"):
            raise fail("BatchRequestTooLong", "Batch requests cannot be longer than "
                       f"{queue.seconds('MaximumMessageSize')} bytes. You have sent {total} bytes.")
        ok, failed = [], []
        for entry in entries:
            try:
                ok.append({"Id": entry["Id"], **self.send(queue, entry)})
            except ServiceError as err:
                failed.append({"Id": entry["Id"], "SenderFault": True, "Code": err.code,
                               "Message": err.message})
        return {"Successful": ok, "Failed": failed}

    def op_ReceiveMessage(self, body: dict) -> dict:
        queue = self.queue(body.get("QueueUrl"))
        count = body.get("MaxNumberOfMessages", 1)
        if not 1 <= count <= 10:
            raise fail("InvalidParameterValue", f"Value {count} for parameter "
                       "MaxNumberOfMessages is invalid. Reason: must be between 1 and 10, if "
                       "provided.")
        timeout = body.get("VisibilityTimeout", queue.seconds("VisibilityTimeout"))
        wait = body.get("WaitTimeSeconds", queue.seconds("ReceiveMessageWaitTimeSeconds"))
        if not 0 <= wait <= 20:
            raise fail("InvalidParameterValue", f"Value {wait} for parameter WaitTimeSeconds is "
                       "invalid. Reason: Must be >= 0 and <= 20, if provided.")
        deadline = time.time() + wait
        while True:
            taken = self.take(queue, count, timeout)
            remaining = deadline - time.time()
            if taken or remaining <= 0 or queue.name not in self.queues:
                break
            # Wait outside the lock; wake on a send, and often enough to see a message
            # whose visibility timeout or delay ran out.
            self.changed.wait(min(remaining, 0.05))
        if not taken:
            return {}
        system = set(body.get("AttributeNames") or []) | set(
            body.get("MessageSystemAttributeNames") or [])
        names = body.get("MessageAttributeNames") or []
        out = []
        for message in taken:
            entry = {"MessageId": message.id, "ReceiptHandle": message.receipt,
                     "MD5OfBody": hashlib.md5(message.body.encode("utf-8")).hexdigest(),
                     "Body": message.body}
            if system:
                entry["Attributes"] = system_attributes(message, system)
            shown = pick_attributes(message.attributes, names)
            if shown:
                entry["MessageAttributes"] = shown
                entry["MD5OfMessageAttributes"] = attributes_md5(shown)
            out.append(entry)
        return {"Messages": out}

    def take(self, queue: Queue, count: int, timeout: int) -> list:
        now, taken = time.time(), []
        policy = json.loads(queue.attributes.get("RedrivePolicy") or "null")
        for message in list(queue.messages):
            if len(taken) == count:
                break
            if not message.visible(now):
                continue
            if policy and message.receive_count >= int(policy["maxReceiveCount"]):
                dead = self.queues.get(policy["deadLetterTargetArn"].rpartition(":")[2])
                queue.messages.remove(message)
                if dead is not None:
                    message.moved()
                    dead.messages.append(message)
                continue
            message.receive(now, timeout)
            taken.append(message)
        return taken

    def find(self, queue: Queue, handle: str) -> Message:
        """The message a receipt handle names; a handle of no message in this queue
        (deleted, or moved to the dead-letter queue) is invalid, as moto has it."""
        try:
            message_id = base64.urlsafe_b64decode(handle.encode()).decode().partition("#")[0]
        except (ValueError, UnicodeDecodeError):
            message_id = ""
        found = next((m for m in queue.messages if m.id == message_id), None) \
            if message_id else None
        if found is None:
            raise fail("ReceiptHandleIsInvalid", f'The input receipt handle "{handle}" is not a '
                       "valid receipt handle.")
        return found

    def op_DeleteMessage(self, body: dict) -> dict:
        queue = self.queue(body.get("QueueUrl"))
        queue.messages.remove(self.find(queue, body.get("ReceiptHandle", "")))
        return {}

    def op_DeleteMessageBatch(self, body: dict) -> dict:
        queue = self.queue(body.get("QueueUrl"))
        entries = body.get("Entries") or []
        self.batch(entries, "Delete")
        ok, failed = [], []
        for entry in entries:
            try:
                self.op_DeleteMessage({"QueueUrl": queue.url,
                                       "ReceiptHandle": entry.get("ReceiptHandle", "")})
                ok.append({"Id": entry["Id"]})
            except ServiceError as err:
                failed.append({"Id": entry["Id"], "SenderFault": True, "Code": err.code,
                               "Message": err.message})
        return {"Successful": ok, "Failed": failed}

    def op_ChangeMessageVisibility(self, body: dict) -> dict:
        queue = self.queue(body.get("QueueUrl"))
        message = self.find(queue, body.get("ReceiptHandle", ""))
        timeout = body.get("VisibilityTimeout", 0)
        if not 0 <= timeout <= 43200:
            raise fail("InvalidParameterValue", f"Value {timeout} for parameter "
                       "VisibilityTimeout is invalid. Reason: Must be between 0 and 43200.")
        now = time.time()
        if not message.in_flight(now):
            raise fail("MessageNotInflight", "Message does not exist or is not available for "
                       "visibility timeout change.")
        message.visible_at = now + timeout
        self.changed.notify_all()
        return {}

"""One SQS message's state (visibility, receive count, receipt handle) and the message
rules SQS applies: allowed characters, size, attributes and their MD5 digest (the
algorithm SQS documents, so clients that check it agree)."""
from __future__ import annotations

import base64
import hashlib
import re
import time

from tests.twin.errors import ServiceError

# SQS accepts these characters in a body: #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to
# #xFFFD | #x10000 to #x10FFFF.
_INVALID = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class Message:
    def __init__(self, id_: str, body: str, attributes: dict, delay: int):
        self.id, self.body, self.attributes = id_, body, attributes
        self.sent = time.time()
        self.visible_at = self.sent + delay
        self.receive_count = 0
        self.first_receive: float | None = None
        self.receipt = ""

    def visible(self, now: float) -> bool:
        return self.visible_at <= now

    def in_flight(self, now: float) -> bool:
        return self.receive_count > 0 and self.visible_at > now

    def delayed(self, now: float) -> bool:
        return self.receive_count == 0 and self.visible_at > now

    def receive(self, now: float, timeout: int) -> None:
        self.receive_count += 1
        if self.first_receive is None:
            self.first_receive = now
        self.visible_at = now + timeout
        # A new handle each time; it names the message (base64 of "id#count").
        self.receipt = base64.urlsafe_b64encode(
            f"{self.id}#{self.receive_count}#{now}".encode()).decode()

    def moved(self) -> None:
        """Into a dead-letter queue: visible there at once."""
        self.visible_at = time.time()


def check_body(body, attributes: dict, limit: int) -> None:
    if not body:
        raise ServiceError("MissingParameter", "The request must contain the parameter "
                           "MessageBody.")
    if _INVALID.search(body):
        raise ServiceError("InvalidMessageContents", "Invalid characters found. Valid unicode "
                           "characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD "
                           "| #x10000 to #x10FFFF")
    if len(attributes) > 10:
        raise ServiceError("InvalidParameterValue", "Number of message attributes "
                           f"[{len(attributes)}] exceeds the allowed maximum [10].")
    size = len(body.encode("utf-8"))
    for name, value in attributes.items():
        data_type = value.get("DataType", "")
        if not data_type.startswith(("String", "Number", "Binary")):
            raise ServiceError("InvalidParameterValue", f"The message attribute '{name}' has an "
                               "invalid message attribute type, the set of supported type "
                               "prefixes is Binary, Number, and String.")
        content = value.get("StringValue") if "BinaryValue" not in value else value["BinaryValue"]
        if content is None or content == "":
            raise ServiceError("InvalidParameterValue", f"The message attribute '{name}' must "
                               "contain non-empty message attribute value for message attribute "
                               f"type '{data_type}'.")
        size += len(name.encode()) + len(data_type.encode()) + len(str(content).encode())
    if size > limit:
        raise ServiceError("InvalidParameterValue", "One or more parameters are invalid. Reason: "
                           f"Message must be shorter than {limit} bytes.")


def attributes_md5(attributes: dict) -> str:
    def framed(data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + data

    digest = hashlib.md5()
    for name in sorted(attributes):
        value = attributes[name]
        digest.update(framed(name.encode("utf-8")))
        digest.update(framed(value["DataType"].encode("utf-8")))
        if "BinaryValue" in value:
            digest.update(b"\x02" + framed(base64.b64decode(value["BinaryValue"])))
        else:
            digest.update(b"\x01" + framed(value["StringValue"].encode("utf-8")))
    return digest.hexdigest()


def pick_attributes(attributes: dict, names: list) -> dict:
    """The message attributes a ReceiveMessage asked for (names, ``All``, ``.*``,
    ``prefix.*``)."""
    if not names or not attributes:
        return {}
    if "All" in names or ".*" in names:
        return dict(attributes)
    picked = {}
    for name, value in attributes.items():
        for wanted in names:
            if name == wanted or (wanted.endswith(".*") and name.startswith(wanted[:-1])):
                picked[name] = value
    return picked


def system_attributes(message: Message, names: set) -> dict:
    everything = {
        "SenderId": "AIDAIT2UOQQY3AUEKVGXU",
        "SentTimestamp": str(int(message.sent * 1000)),
        "ApproximateReceiveCount": str(message.receive_count),
        "ApproximateFirstReceiveTimestamp": str(int((message.first_receive or 0) * 1000)),
    }
    if "All" in names:
        return everything
    return {name: value for name, value in everything.items() if name in names}

"""Helpers of the differential tests: the same operations against moto's ``mock_aws``
and against the twin, answers and errors recorded in a comparable form.

``run_both(scenario)`` calls ``scenario()`` once under each backend (fresh state, new
clients, chalicelib's clients and PynamoDB's connection reset) and returns both
records.  ``Record.call`` runs one operation and keeps what it answered, or the error
(code, message and the error's other fields), with what always differs between two
runs (request ids, timestamps, consumed capacity) left out.
"""
from __future__ import annotations

import contextlib
import datetime
from typing import Callable, Iterator

import boto3
from botocore.exceptions import ClientError
from botocore.response import StreamingBody
from pynamodb.exceptions import PynamoDBException

from tests.twin import transport
from tests.twin.world import World

VOLATILE = {"ResponseMetadata", "ConsumedCapacity", "RequestId", "HostId", "TableId",
            "CreationDateTime", "LastModifiedDate", "LastModified", "CreationDate", "MessageId",
            "ReceiptHandle", "UploadId"}


def client(service: str):
    return boto3.session.Session().client(service, region_name="us-east-1")


@contextlib.contextmanager
def twin_installed() -> Iterator[World]:
    state = World()
    transport.install(state)
    try:
        yield state
    finally:
        transport.uninstall()


@contextlib.contextmanager
def backend(name: str) -> Iterator[None]:
    from moto import mock_aws

    from chalicelib import aws
    from chalicelib.store import table

    with (mock_aws() if name == "moto" else twin_installed()):
        aws.reset_clients()
        table.configure()
        try:
            yield
        finally:
            aws.reset_clients()
            table.configure()


def run_both(scenario: Callable[[], object]) -> tuple[object, object]:
    found = []
    for name in ("moto", "twin"):
        with backend(name):
            found.append(scenario())
    return found[0], found[1]


def clean(value):
    """``value`` without what differs between runs; bodies read, datetimes dropped."""
    if isinstance(value, dict):
        # moto adds an empty ItemCollectionMetrics that DynamoDB sends only when asked.
        return {k: clean(v) for k, v in value.items() if k not in VOLATILE
                and not (k == "ItemCollectionMetrics" and v == {})}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, StreamingBody):
        return value.read()
    if isinstance(value, datetime.datetime):
        return "<datetime>"
    return value


def error_of(exc: BaseException):
    if isinstance(exc, ClientError):
        extra = {k: v for k, v in exc.response.items() if k not in ("Error", "ResponseMetadata")}
        error = exc.response.get("Error", {})
        return ("error", error.get("Code"), error.get("Message"), clean(extra))
    if isinstance(exc, PynamoDBException):
        reasons = getattr(exc, "cancellation_reasons", None) or []
        return ("pynamodb", type(exc).__name__, exc.cause_response_code,
                exc.cause_response_message,
                [None if r is None else (r.code, r.message, r.raw_item) for r in reasons])
    raise exc


class Record(list):
    """What a scenario saw, in order."""

    def call(self, operation: Callable, *args, code_only: bool = False, **kwargs):
        """``code_only``: keep an error's code alone (where moto words it otherwise than
        DynamoDB does, and the twin follows DynamoDB)."""
        try:
            answer = operation(*args, **kwargs)
        except (ClientError, PynamoDBException) as exc:
            found = error_of(exc)
            self.append(found[:2] if code_only else found)
            return None
        self.append(("ok", clean(answer)))
        return answer

    def note(self, value) -> None:
        self.append(("note", clean(value)))


def first_difference(one: list, two: list) -> str:
    for at, (a, b) in enumerate(zip(one, two)):
        if a != b:
            return f"step {at}:\n  moto: {a!r}\n  twin: {b!r}"
    return f"lengths {len(one)} and {len(two)}" if len(one) != len(two) else "none"


def assert_same(scenario: Callable[[], list]) -> list:
    """Run ``scenario`` under both backends and require equal records."""
    moto, twin = run_both(scenario)
    assert moto == twin, first_difference(moto, twin)
    return twin

"""Which AWS requests change state, and the locks that make moto's answers atomic.

moto is not thread-safe where it matters to us (moto 5.2.5, measured by
tests/test_local_atomicity.py before these locks existed):

- ``TransactWriteItems`` deep-copies the whole table before it starts and, when a
  condition fails, puts that copy back, undoing every write other threads made
  meanwhile; two transactions conditioned on the same version both succeed; the copy
  itself fails with "dictionary changed size during iteration" (a 500) while another
  thread writes;
- a conditional write reads the item, evaluates the condition and writes, with nothing
  to stop another thread in between.

Real DynamoDB and S3 apply each request atomically, so the embedded backend must too,
or a test could never tell a race in our code from one in moto's.  The rule here:

- DynamoDB: every request holds the service's lock exclusively.  Even moto's reads
  write: a GetItem of a missing item inserts an empty entry into the table's
  ``defaultdict``, which breaks a concurrent Query ("dictionary changed size during
  iteration");
- S3: requests that write hold the lock exclusively, requests that read hold it shared
  (a read never sees half of a write);
- SSM and SQS: requests that write the persisted state (parameters, queue definitions)
  hold their service's lock exclusively; everything else runs freely, in particular
  SQS long polls, which would otherwise hold up the messages they wait for.

Serializing more than real AWS does never hides a race in our code: those are between
separate requests (read, then a conditional write), and each request stays atomic.

The same classification decides what the journal records (``journaled``): every
request of a persisted service that may change what the snapshot saves.  SQS messages
are not kept across restarts, so message traffic is neither locked nor journaled.
"""
from __future__ import annotations

import contextlib
import re
import threading
from dataclasses import dataclass
from typing import Iterator, Mapping
from urllib.parse import parse_qs

PERSISTED_SERVICES = frozenset({"dynamodb", "s3", "sqs", "ssm"})
# Services whose reads are isolated from their writes (see the module docstring).
ISOLATED_SERVICES = frozenset({"dynamodb", "s3"})
# Actions (X-Amz-Target, the query protocol's Action, a botocore operation name) that
# only read.
READ_ACTION_PREFIXES = ("Get", "Describe", "List", "Query", "Scan", "BatchGet",
                        "TransactGet", "Head", "Select")
# SQS actions on messages: volatile state, never journaled.
SQS_MESSAGE_ACTIONS = frozenset({
    "SendMessage", "SendMessageBatch", "ReceiveMessage", "DeleteMessage",
    "DeleteMessageBatch", "ChangeMessageVisibility", "ChangeMessageVisibilityBatch",
    "PurgeQueue", "StartMessageMoveTask", "CancelMessageMoveTask"})
_READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_CREDENTIAL = re.compile(r"Credential=([^,\s]+)")
_FORM_ACTION = re.compile(rb"(?:^|&)Action=([A-Za-z]+)")


@dataclass(frozen=True)
class Access:
    """How one request touches the backend: ``service`` (lower case, or None when it
    is none of the persisted ones), whether it ``writes`` persisted state (then it is
    journaled and holds the service's lock exclusively) and whether it ``locks`` at all."""
    service: str | None
    writes: bool

    @property
    def locks(self) -> bool:
        return self.writes or self.service in ISOLATED_SERVICES


UNTOUCHED = Access(None, False)


def signing_service(authorization: str, query_string: str) -> str | None:
    """The service named in a SigV4 credential scope (header, or presigned query)."""
    match = _CREDENTIAL.search(authorization or "")
    if match:
        credential = match.group(1)
    else:
        credential = parse_qs(query_string or "").get("X-Amz-Credential", [""])[0]
    scope = credential.split("/")
    return scope[3].lower() if len(scope) == 5 else None


def classify(service: str | None, method: str, action: str | None) -> Access:
    """``action``: the operation named by X-Amz-Target or a query-protocol Action
    (None for S3, whose operations are told apart by method)."""
    if service not in PERSISTED_SERVICES:
        return UNTOUCHED
    if service == "s3":
        return Access(service, method.upper() not in _READ_METHODS)
    if action and action.startswith(READ_ACTION_PREFIXES):
        return Access(service, False)
    if service == "sqs" and action in SQS_MESSAGE_ACTIONS:
        return Access(service, False)
    return Access(service, bool(action) or method.upper() not in _READ_METHODS)


def action_of(target: str | None, content_type: str | None, body: bytes) -> str | None:
    """The operation of a JSON-protocol (X-Amz-Target) or query-protocol request."""
    if target:
        return target.rpartition(".")[2]
    if (content_type or "").startswith("application/x-www-form-urlencoded"):
        match = _FORM_ACTION.search(body)
        return match.group(1).decode("ascii") if match else None
    return None


class ReadWriteLock:
    """Many readers or one writer; a waiting writer goes before readers that come later
    (a stream of reads cannot starve it)."""

    def __init__(self):
        self._condition = threading.Condition(threading.Lock())
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        with self._condition:
            self._condition.wait_for(lambda: not self._writing and not self._writers_waiting)
            self._readers += 1
        try:
            yield
        finally:
            with self._condition:
                self._readers -= 1
                if not self._readers:
                    self._condition.notify_all()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._condition:
            self._writers_waiting += 1
            try:
                self._condition.wait_for(lambda: not self._writing and not self._readers)
            finally:
                self._writers_waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._condition:
                self._writing = False
                self._condition.notify_all()


class ServiceLocks:
    """One :class:`ReadWriteLock` per persisted service."""

    def __init__(self):
        self._locks: Mapping[str, ReadWriteLock] = {
            service: ReadWriteLock() for service in PERSISTED_SERVICES}

    @contextlib.contextmanager
    def holding(self, access: Access) -> Iterator[None]:
        if not access.locks:
            yield
            return
        lock = self._locks[access.service]
        exclusive = access.writes or access.service == "dynamodb"
        with lock.exclusive() if exclusive else lock.shared():
            yield


# -- the in-process moto of the tests (mock_aws) ---------------------------------------

_mock_locks = ServiceLocks()
_patch_lock = threading.Lock()
_patch_users = 0


def _access_of_botocore(request) -> Access:
    def header(name: str) -> str:
        value = request.headers.get(name) or ""
        return value.decode("latin-1") if isinstance(value, bytes) else value

    service = signing_service(header("Authorization"), request.url.partition("?")[2])
    body = request.body if isinstance(request.body, bytes) else b""
    action = action_of(header("X-Amz-Target") or None, header("Content-Type"), body)
    return classify(service, request.method, action)


@contextlib.contextmanager
def serialized_mock_aws() -> Iterator[None]:
    """While active, requests that ``moto.mock_aws`` answers in-process follow the same
    locking rules as the embedded server (module docstring), so tests that race threads
    through the app under ``mock_aws`` see atomic DynamoDB requests.  Use it inside (or
    beside) ``mock_aws()``; nesting is fine."""
    from moto.core.botocore_stubber import BotocoreStubber

    from chalicelib.local import moto_speed, moto_transactions

    moto_transactions.install()   # relies on the exclusive DynamoDB lock set up here
    moto_speed.install()
    global _patch_users
    with _patch_lock:
        if _patch_users == 0:
            unlocked = BotocoreStubber.process_request

            def process_request(self, request):
                with _mock_locks.holding(_access_of_botocore(request)):
                    return unlocked(self, request)

            process_request.unlocked = unlocked
            BotocoreStubber.process_request = process_request
        _patch_users += 1
    try:
        yield
    finally:
        with _patch_lock:
            _patch_users -= 1
            if _patch_users == 0:
                BotocoreStubber.process_request = BotocoreStubber.process_request.unlocked

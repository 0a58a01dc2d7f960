"""One step of the outbox crash test, run as its own process by tests/test_outbox.py
against a moto server that outlives it (the parent passes the endpoint in the
environment)::

    python -m tests.outbox_child write     # create a user; NIMBUS_FAULT kills us after commit
    python -m tests.outbox_child deliver   # what a restarted process does: sweep + consume
    python -m tests.outbox_child again     # the queue delivers the same event once more

Consumed events are appended to $OUTBOX_TEST_LOG, one JSON line per consumer call.
"""
from __future__ import annotations

import json
import os
import sys


def _log_consumer():
    from chalicelib import events
    from chalicelib.jobs import consumers

    def record(event):
        with open(os.environ["OUTBOX_TEST_LOG"], "a") as fh:
            fh.write(json.dumps({"type": type(event).__name__, "id": event.event_id,
                                 "login": getattr(event, "login", "")}) + "\n")

    consumers.register("test-log", (events.UserCreated,), record)


def write() -> None:
    import base64

    from infra.bootstrap import ensure_resources

    ensure_resources()
    from chalicelib.local.events import build_event
    from chalicelib.accounts.service import ensure_admin

    ensure_admin("root", "root-password-1", "root@example.com")
    from app import app

    os.environ["NIMBUS_FAULT"] = "after-commit"
    body = json.dumps({"username": "crashy", "password": "crashy-password-1",
                       "email": "crashy@example.com"}).encode()
    auth = "Basic " + base64.b64encode(b"root:root-password-1").decode()
    app(build_event("POST", "/api/v1/admin/users",
                    [("Authorization", auth), ("Content-Type", "application/json")], body), None)
    print("survived the fault point", flush=True)   # must not be reached
    sys.exit(3)


def deliver() -> None:
    from chalicelib.jobs import consumers, relay
    from chalicelib.store import outbox

    _log_consumer()
    left = list(outbox.pending())
    print(json.dumps({"left": [item.event_type for item in left]}), flush=True)
    with open(os.environ["OUTBOX_TEST_LOG"] + ".messages", "w") as fh:
        json.dump([item.message for item in left], fh)
    relay.sweep(grace=0)
    url = relay.queue_url()
    while consumers.poll(url):
        pass


def again() -> None:
    """The relay died after sending and before removing: the same messages go again."""
    from chalicelib import aws
    from chalicelib.jobs import consumers, relay

    _log_consumer()
    url = relay.queue_url()
    with open(os.environ["OUTBOX_TEST_LOG"] + ".messages") as fh:
        for message in json.load(fh):
            aws.client("sqs").send_message(QueueUrl=url, MessageBody=message)
    while consumers.poll(url):
        pass


if __name__ == "__main__":
    {"write": write, "deliver": deliver, "again": again}[sys.argv[1]]()

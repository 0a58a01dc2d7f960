"""The webhook delivery worker of the local runtime: what the ``webhook_worker``
function and the ``webhook_sweep`` schedule do in AWS, as one background thread.

At start it sends every lane the table holds, leases ignored: the data dir is locked to
this process, so a lease can only be a dead process's (``make run`` killed with
deliveries pending delivers them here).  Then it long-polls the webhook queue, which
the delivery consumer and retries post to, and looks for due lanes every
``SWEEP_SECONDS`` besides (moto's queue does not survive a restart; the table does).
"""
from __future__ import annotations

import json
import logging
import threading
import time
from typing import Callable

log = logging.getLogger("nimbus.local")

POLL_WAIT_SECONDS = 1
SWEEP_SECONDS = 1.0


# At most this long the worker lets the runtime's requests go first (see
# ``LocalRuntime.yield_to_requests``): a delivery waits for a pause in requests.
REQUESTS_FIRST_SECONDS = 1.0


class WebhookWorker:
    def __init__(self, yield_to_requests: Callable[[float], None] | None = None):
        self._yield_to_requests = yield_to_requests or (lambda at_most: None)

    def tasks(self) -> list:
        return [self.webhook_loop]

    def webhook_loop(self, stopping: threading.Event) -> None:
        from chalicelib import aws, webhooks

        self._safely(lambda: webhooks.deliver_due(every=True), stopping)
        sqs, next_sweep = aws.client("sqs"), time.monotonic() + SWEEP_SECONDS
        while not stopping.is_set():
            self._yield_to_requests(REQUESTS_FIRST_SECONDS)

            def poll() -> None:
                received = sqs.receive_message(
                    QueueUrl=webhooks.queue_url(), MaxNumberOfMessages=10,
                    WaitTimeSeconds=POLL_WAIT_SECONDS).get("Messages", [])
                for message in received:
                    sqs.delete_message(QueueUrl=webhooks.queue_url(),
                                       ReceiptHandle=message["ReceiptHandle"])
                webhooks.run_lanes(self._lanes(received))
            self._safely(poll, stopping)
            if time.monotonic() >= next_sweep:
                self._safely(webhooks.deliver_due, stopping)
                next_sweep = time.monotonic() + SWEEP_SECONDS

    @staticmethod
    def _lanes(messages: list) -> list[str]:
        refs = []
        for message in messages:
            try:
                refs.append(json.loads(message["Body"])["lane"])
            except (ValueError, KeyError, TypeError):
                continue
        return refs

    @staticmethod
    def _safely(work, stopping: threading.Event) -> None:
        try:
            work()
        except Exception:  # noqa: BLE001 - keep the worker alive, as Lambda would
            log.exception("webhook worker failed; the table keeps its deliveries")
            stopping.wait(1.0)

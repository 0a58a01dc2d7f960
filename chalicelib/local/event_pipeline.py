"""The domain-event pipeline of the local runtime: what the table stream, the relay
function, the sweep schedule and the queue worker do in AWS, as background threads.

- the relay thread publishes the outbox items of each commit right after it (the unit of
  work hands them over in-process: no AWS call on the request path), and sweeps the
  outbox for leftovers at start and every ``SWEEP_SECONDS`` (items a crash left);
- the receiver thread long-polls the events queue and puts each message in its
  repository's lane (``event_lanes.py``), and ``WORKERS`` threads run the lanes in turn
  (as Lambda runs several batches of the queue at once): one repository's burst does not
  hold up another repository's events, and each repository's events run in the order
  they were received.  (AWS gives no order: docs/events.md says why none is needed.)
"""
from __future__ import annotations

import logging
import threading
import time

from chalicelib.local.event_lanes import Lanes

log = logging.getLogger("nimbus.local")

SWEEP_SECONDS = 30.0
WORKERS = 4
# Received and not yet done: past this the receiver waits (a backlog this large is
# spread over its lanes; the rest stays in the queue).
MAX_BUFFERED = 5000
# Items younger than this are still being handed over by their commit.
SWEEP_GRACE_SECONDS = 2.0
POLL_WAIT_SECONDS = 1
WAKE_SECONDS = 0.5


class EventPipeline:
    def __init__(self):
        self._lanes = Lanes()
        self._pending: list = []
        self._lock = threading.Lock()
        self._wake = threading.Event()

    def tasks(self) -> list:
        return [self.relay_loop, self.receive_loop, *[self.lane_loop] * WORKERS]

    def _committed(self, items: list) -> None:
        if items:
            with self._lock:
                self._pending.extend(items)
            self._wake.set()

    def relay_loop(self, stopping: threading.Event) -> None:
        from chalicelib.jobs import relay
        from chalicelib.store import unit_of_work

        unit_of_work.after_commit(self._committed)
        try:
            self._sweep(relay, grace=0.0)
            next_sweep = time.monotonic() + SWEEP_SECONDS
            while not stopping.is_set():
                # Short waits: a stop is noticed within WAKE_SECONDS.
                self._wake.wait(WAKE_SECONDS)
                self._wake.clear()
                with self._lock:
                    batch, self._pending = self._pending, []
                try:
                    relay.publish(batch)
                except Exception:  # noqa: BLE001 - the sweep publishes them later
                    log.exception("relay of %d events failed; the sweep retries", len(batch))
                if time.monotonic() >= next_sweep:
                    self._sweep(relay, grace=SWEEP_GRACE_SECONDS)
                    next_sweep = time.monotonic() + SWEEP_SECONDS
        finally:
            unit_of_work.remove_after_commit(self._committed)

    @staticmethod
    def _sweep(relay, *, grace: float) -> None:
        try:
            relay.sweep(grace=grace)
        except Exception:  # noqa: BLE001 - keep relaying, as the schedule would
            log.exception("outbox sweep failed")

    def receive_loop(self, stopping: threading.Event) -> None:
        from chalicelib import aws
        from chalicelib.jobs import consumers, relay

        sqs, url = aws.client("sqs"), relay.queue_url()
        while not stopping.is_set():
            if len(self._lanes) >= MAX_BUFFERED:
                stopping.wait(WAKE_SECONDS)
                continue
            try:
                received = sqs.receive_message(
                    QueueUrl=url, MaxNumberOfMessages=10,
                    WaitTimeSeconds=POLL_WAIT_SECONDS).get("Messages", [])
            except Exception:  # noqa: BLE001 - keep receiving, as the event source would
                log.exception("receiving events failed")
                stopping.wait(1.0)
                continue
            for message in received:
                self._lanes.put(consumers.lane_of(message["Body"]), message)

    def lane_loop(self, stopping: threading.Event) -> None:
        from chalicelib import aws
        from chalicelib.jobs import consumers, relay

        sqs, url = aws.client("sqs"), relay.queue_url()
        while not stopping.is_set():
            taken = self._lanes.take(WAKE_SECONDS)
            if taken is None:
                continue
            lane, message = taken
            try:
                consumers.handle_message(message["Body"])
                sqs.delete_message(QueueUrl=url,
                                   ReceiptHandle=self._lanes.receipt_handle(message))
            except Exception:  # noqa: BLE001 - left on the queue: redelivered, then dead-lettered
                log.exception("event %s failed; the queue delivers it again",
                              message.get("MessageId"))
            finally:
                self._lanes.done(lane, message)

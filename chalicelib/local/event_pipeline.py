"""The domain-event pipeline of the local runtime: what the table stream, the relay
function, the sweep schedule and the queue worker do in AWS, as two background threads.

- the relay thread publishes the outbox items of each commit right after it (the unit of
  work hands them over in-process: no AWS call on the request path), and sweeps the
  outbox for leftovers at start and every ``SWEEP_SECONDS`` (items a crash left);
- the worker thread long-polls the events queue and runs the consumers.
"""
from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger("nimbus.local")

SWEEP_SECONDS = 30.0
# Items younger than this are still being handed over by their commit.
SWEEP_GRACE_SECONDS = 2.0
POLL_WAIT_SECONDS = 1
WAKE_SECONDS = 0.5


class EventPipeline:
    def __init__(self):
        self._pending: list = []
        self._lock = threading.Lock()
        self._wake = threading.Event()

    def tasks(self) -> list:
        return [self.relay_loop, self.worker_loop]

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

    def worker_loop(self, stopping: threading.Event) -> None:
        from chalicelib.jobs import consumers, relay

        url = relay.queue_url()
        while not stopping.is_set():
            try:
                consumers.poll(url, wait_seconds=POLL_WAIT_SECONDS)
            except Exception:  # noqa: BLE001 - keep the worker alive, as Lambda would
                log.exception("event worker failed")
                stopping.wait(1.0)

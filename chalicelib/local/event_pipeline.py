"""The domain-event pipeline of the local runtime: what the table stream, the relay, the
events queue and the queue worker do in AWS (docs/events.md), as background threads.

In AWS an event goes outbox → stream → relay → SQS → worker.  Locally the outbox itself
is the queue: moto's queues are not part of the data dir's state (an event queued there
before a kill -9 would be gone with the process, its outbox item already removed), and
queueing through them costs about five AWS calls per ten events.  So:

- each commit hands its outbox items over in-process (``unit_of_work.after_commit``);
  the feeder thread puts them in their repositories' lanes (``event_lanes.py``);
- the feeder also sweeps the outbox (items older than ``SWEEP_GRACE_SECONDS``) into the
  lanes: at start, which is what a crash left (no acknowledged write's event is lost),
  and every ``SWEEP_SECONDS``, which is what failed and waits for another attempt;
- ``WORKERS`` threads run the lanes in turn, a batch at a time (as Lambda runs several
  batches of the queue at once): one repository's burst does not hold up another
  repository's events, and each repository's events run in the order committed.  An
  item leaves the outbox once its batch ran; a failed one stays for the next sweep,
  and after ``MAX_ATTEMPTS`` it waits for the next start (logged: the local runtime's
  dead-letter queue).  (AWS gives no order: docs/events.md says why none is needed.)

Every step first lets the runtime's requests go (``yield_to_requests``): in AWS this
work runs in other Lambdas and takes nothing from a request.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from chalicelib.local.event_lanes import Lanes

log = logging.getLogger("nimbus.local")

WORKERS = 4
# Items of one lane a worker runs together (lookups shared within it: events.batches);
# also what one BatchWriteItem removes from the outbox.
BATCH = 25
# Before each step the pipeline waits for a pause in requests, at most this long: under
# steady load events still move.
REQUESTS_FIRST_SECONDS = 1.0
SWEEP_SECONDS = 30.0
# Items younger than this are still being handed over by their commit.
SWEEP_GRACE_SECONDS = 2.0
MAX_ATTEMPTS = 5
WAKE_SECONDS = 0.5


class EventPipeline:
    def __init__(self, yield_to_requests: Callable[[float], None] | None = None):
        """``yield_to_requests(at_most)``: wait for the runtime's requests to pause, at
        most that long (``LocalRuntime.yield_to_requests``)."""
        self._yield_to_requests = yield_to_requests or (lambda at_most: None)
        self._lanes = Lanes()
        self._committed_items: list = []
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._attempts: dict[str, int] = {}

    def tasks(self) -> list:
        return [self.feed_loop, *[self.lane_loop] * WORKERS]

    def _committed(self, items: list) -> None:
        # In the committing request's thread: only hand the items over.
        if items:
            with self._lock:
                self._committed_items.extend(items)
            self._wake.set()

    def feed_loop(self, stopping: threading.Event) -> None:
        from chalicelib.store import unit_of_work

        unit_of_work.after_commit(self._committed)
        try:
            self._sweep(grace=0.0)
            next_sweep = time.monotonic() + SWEEP_SECONDS
            while not stopping.is_set():
                # Short waits: a stop is noticed within WAKE_SECONDS.
                self._wake.wait(WAKE_SECONDS)
                self._wake.clear()
                if self._committed_items:
                    self._yield_to_requests(REQUESTS_FIRST_SECONDS)
                    with self._lock:
                        items, self._committed_items = self._committed_items, []
                    self._queue(items)
                if time.monotonic() >= next_sweep:
                    self._yield_to_requests(REQUESTS_FIRST_SECONDS)
                    self._sweep(grace=SWEEP_GRACE_SECONDS)
                    next_sweep = time.monotonic() + SWEEP_SECONDS
        finally:
            unit_of_work.remove_after_commit(self._committed)

    def _queue(self, items: list) -> None:
        from chalicelib.jobs import consumers
        from chalicelib.store import outbox

        ready = [item for item in items
                 if self._attempts.get(item.event_id, 0) < MAX_ATTEMPTS]
        self._lanes.put_all([(consumers.lane_of(outbox.message_of(item)), item.event_id, item)
                             for item in ready])

    def _sweep(self, *, grace: float) -> None:
        from chalicelib import clock
        from chalicelib.store import outbox

        try:
            self._queue(list(outbox.pending(older_than=clock.now() - grace)))
        except Exception:  # noqa: BLE001 - keep going, as the schedule would
            log.exception("outbox sweep failed")

    def sweep_now(self) -> int:
        """The ``outbox_sweep`` cron task here (its schedule, or adminCronRun): what
        waits in the outbox goes to its lanes, as the periodic sweep does (in AWS the
        task publishes to the events queue, which nothing here reads).  How many
        items were found."""
        from chalicelib import clock
        from chalicelib.store import outbox

        items = list(outbox.pending(older_than=clock.now() - SWEEP_GRACE_SECONDS))
        self._queue(items)
        self._wake.set()
        return len(items)

    def lane_loop(self, stopping: threading.Event) -> None:
        while not stopping.is_set():
            self._yield_to_requests(REQUESTS_FIRST_SECONDS)
            taken = self._lanes.take(WAKE_SECONDS, limit=BATCH)
            if taken is not None:
                lane, batch = taken
                try:
                    self._run(batch)
                finally:
                    self._lanes.done(lane, [event_id for event_id, _ in batch])

    def _run(self, batch: list) -> None:
        from chalicelib import telemetry
        from chalicelib.jobs import consumers, relay
        from chalicelib.store import outbox

        items = [item for _, item in batch]
        # The relay's line as in AWS (OutboxLag: here the outbox is the queue); each
        # consumer run writes its own.
        with telemetry.run("relay_run", "Relay", found=len(items)) as run:
            relay.note_outbox_lag(items)
            try:
                done = consumers.handle_batch(outbox.message_of(item) for item in items)
                outbox.remove([item for item, ok in zip(items, done) if ok])
            except Exception as exc:  # noqa: BLE001 - the items stay in the outbox: the sweep retries
                log.exception("%d events not handled; the next sweep runs them again", len(items))
                run.failed(exc)
                done = [False] * len(items)
            telemetry.add("EventsRelayed", sum(done))
        for item, ok in zip(items, done):
            if ok:
                self._attempts.pop(item.event_id, None)
                continue
            tried = self._attempts[item.event_id] = self._attempts.get(item.event_id, 0) + 1
            if tried == MAX_ATTEMPTS:
                log.error("event %s (%s) failed %d times; it stays in the outbox until the "
                          "next start", item.event_id, item.event_type, tried)

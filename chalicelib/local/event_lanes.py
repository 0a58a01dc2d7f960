"""Lanes for the local event worker: one per repository, taken in turn by a few threads.

An event queue shared by every repository runs one repository's burst (300 tags: 600
events) before another repository's next event if one thread runs them in queue order.
Here each event joins its lane (``consumers.lane_of``: its repository), and each worker
thread takes the lane that has waited longest, runs its next events (up to a batch), and
puts the lane back at the end of the turn.  A lane is held by one thread at a time, so
one repository's events still run in the order they came; another repository's event
waits for at most the batches already running, not for the burst.

An event is known by its key (the event id) until it is done: the outbox sweep finding
an event still waiting in its lane (a long lane) does not queue it twice.
"""
from __future__ import annotations

import threading
from collections import deque
from typing import Any


class Lanes:
    def __init__(self):
        self._changed = threading.Condition()
        self._waiting: dict[str, deque[tuple[str, Any]]] = {}
        self._turn: deque[str] = deque()      # lanes with events and no thread, in turn
        self._held: set[str] = set()
        self._known: set[str] = set()         # keys queued or running

    def put_all(self, arrived: list[tuple[str, str, Any]]) -> int:
        """Queue each (lane, key, item) at once, so that a taker finds a lane's items
        that came together in one batch; how many were new (a known key is skipped)."""
        new = 0
        with self._changed:
            for lane, key, item in arrived:
                if key in self._known:
                    continue
                self._known.add(key)
                waiting = self._waiting.setdefault(lane, deque())
                waiting.append((key, item))
                new += 1
                if len(waiting) == 1 and lane not in self._held:
                    self._turn.append(lane)
                    self._changed.notify()
        return new

    def take(self, timeout: float, limit: int = 1) -> tuple[str, list[tuple[str, Any]]] | None:
        """The next (key, item) pairs (at most ``limit``, in order) of the lane whose
        turn it is, holding that lane; None when nothing came within ``timeout`` seconds."""
        with self._changed:
            if not self._changed.wait_for(lambda: self._turn, timeout):
                return None
            lane = self._turn.popleft()
            self._held.add(lane)
            waiting = self._waiting[lane]
            return lane, [waiting.popleft() for _ in range(min(limit, len(waiting)))]

    def done(self, lane: str, keys: list[str]) -> None:
        """Release ``lane`` (to the end of the turn if it has more) and forget ``keys``
        (queued again later, they run again)."""
        with self._changed:
            self._held.discard(lane)
            self._known.difference_update(keys)
            if self._waiting.get(lane):
                self._turn.append(lane)
                self._changed.notify()
            else:
                self._waiting.pop(lane, None)

    def __len__(self) -> int:
        """Events queued or running."""
        with self._changed:
            return len(self._known)

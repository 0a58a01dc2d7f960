"""Lanes for the local event worker: one per repository, taken in turn by a few threads.

An event queue shared by every repository runs one repository's burst (300 tags: 600
events) before another repository's next event if one thread runs them in queue order.
Here each received message joins its lane (``consumers.lane_of``: its repository), and
each worker thread takes the lane that has waited longest, runs one message, and puts
the lane back at the end of the turn.  A lane is held by one thread at a time, so one
repository's events still run in the order they were received; another repository's
event waits for at most the messages already running, not for the burst.

A message is known by its id until it is done: a redelivery of a message still waiting
in its lane (the queue's visibility timeout passed while the lane was long) only
updates its receipt handle, so a long lane is not run twice.
"""
from __future__ import annotations

import threading
from collections import deque


class Lanes:
    def __init__(self):
        self._changed = threading.Condition()
        self._waiting: dict[str, deque[dict]] = {}
        self._turn: deque[str] = deque()      # lanes with messages and no thread, in turn
        self._held: set[str] = set()
        self._known: dict[str, dict] = {}     # message id -> the message, until done

    def put(self, lane: str, message: dict) -> bool:
        """Queue ``message`` (an SQS message: MessageId, ReceiptHandle, Body) in ``lane``;
        False when it is a redelivery of a message not yet done."""
        with self._changed:
            known = self._known.get(message["MessageId"])
            if known is not None:
                known["ReceiptHandle"] = message["ReceiptHandle"]
                return False
            self._known[message["MessageId"]] = message
            waiting = self._waiting.setdefault(lane, deque())
            waiting.append(message)
            if len(waiting) == 1 and lane not in self._held:
                self._turn.append(lane)
                self._changed.notify()
            return True

    def take(self, timeout: float) -> tuple[str, dict] | None:
        """The next message of the lane whose turn it is, holding that lane; None when
        nothing came within ``timeout`` seconds."""
        with self._changed:
            if not self._changed.wait_for(lambda: self._turn, timeout):
                return None
            lane = self._turn.popleft()
            self._held.add(lane)
            return lane, self._waiting[lane].popleft()

    def done(self, lane: str, message: dict) -> None:
        """Release ``lane`` (to the end of the turn if it has more) and forget ``message``
        (a later redelivery, after a failure, is run again)."""
        with self._changed:
            self._held.discard(lane)
            self._known.pop(message["MessageId"], None)
            if self._waiting.get(lane):
                self._turn.append(lane)
                self._changed.notify()
            else:
                self._waiting.pop(lane, None)

    def receipt_handle(self, message: dict) -> str:
        """The newest receipt handle of ``message`` (a redelivery may have replaced it)."""
        with self._changed:
            return message["ReceiptHandle"]

    def __len__(self) -> int:
        """Messages received and not done."""
        with self._changed:
            return len(self._known)

"""Numeric ids from atomic counters, handed out in blocks.

A process takes ``BLOCK`` ids of a sequence with one ``UpdateItem ADD`` and hands them
out one by one, so no counter item is written by every create (a hot item would cap
creation throughput and cost a call per create).  Ids are unique, and increasing within
one process; across Lambda instances they are not in creation order, so nothing may
sort by id to mean "older first" across processes (lists that promise creation order
sort by their creation time).  Ids stay far below 2**53, so JavaScript clients read
them exactly.
"""
from __future__ import annotations

import threading

from chalicelib.store.keys import keys
from chalicelib.store.table import Counter

MAX_SAFE_ID = 2 ** 53 - 1
BLOCK = 16

# (table, endpoint, sequence) -> (next id, last id of block).  Keyed by the table too:
# a process that talks to two tables in turn (the tests' worlds beside a local runtime
# started in the same process) must never hand out one table's block in the other.
_blocks: dict[tuple, tuple[int, int]] = {}
_lock = threading.Lock()


def next_id(sequence: str) -> int:
    where = (Counter.Meta.table_name, Counter.Meta.host, sequence)
    with _lock:
        following, last = _blocks.get(where, (1, 0))
        if following > last:
            counter = Counter(*keys.counter(sequence))
            counter.update(actions=[Counter.value.add(BLOCK)])
            last = int(counter.value)
            following = last - BLOCK + 1
            if last > MAX_SAFE_ID:  # pragma: no cover - would take 2**53 creations
                raise OverflowError(f"id sequence {sequence!r} exhausted")
        _blocks[where] = (following + 1, last)
        return following


def reset() -> None:
    """Forget the blocks held (the table was replaced: tests, a new local runtime)."""
    with _lock:
        _blocks.clear()

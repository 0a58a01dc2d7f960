"""Numeric ids from atomic counters (one UpdateItem ADD per id).

Ids stay far below 2**53, so JavaScript clients read them exactly.
"""
from __future__ import annotations

from chalicelib.store.table import Counter, keys

MAX_SAFE_ID = 2 ** 53 - 1


def next_id(sequence: str) -> int:
    counter = Counter(*keys.counter(sequence))
    counter.update(actions=[Counter.value.add(1)])
    value = int(counter.value)
    if value > MAX_SAFE_ID:  # pragma: no cover - would take 2**53 creations
        raise OverflowError(f"id sequence {sequence!r} exhausted")
    return value

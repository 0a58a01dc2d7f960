"""The one clock: what time it is, for every record, expiry, schedule and commit date.

Every wall-clock reading in the service goes through ``now()`` (seconds as a float) or
``seconds()`` (whole seconds, as records store them), so a test can fix or move time
for everything at once (``frozen``) instead of patching a dozen modules.  Durations and
deadlines inside one call (how long a delivery took, when to stop a loop) are not
readings of the date and use ``time.monotonic`` directly.
"""
from __future__ import annotations

import contextlib
import threading
import time
from typing import Callable, Iterator

__all__ = ["now", "seconds", "milliseconds", "frozen", "Frozen", "driven_by"]

_source: Callable[[], float] = time.time
_lock = threading.Lock()


def now() -> float:
    """Seconds since the epoch."""
    return _source()


def seconds() -> int:
    """Whole seconds since the epoch (what records store as ``created``/``updated``)."""
    return int(_source())


def milliseconds() -> int:
    return int(_source() * 1000)


class Frozen:
    """A fixed time that a test moves by hand."""

    def __init__(self, at: float):
        self.at = float(at)

    def __call__(self) -> float:
        return self.at

    def advance(self, by: float) -> float:
        self.at += by
        return self.at


@contextlib.contextmanager
def driven_by(source: Callable[[], float]) -> Iterator[None]:
    """Read the time from ``source`` for the block (a test's sequence of instants).
    Process-wide: every thread reads it."""
    global _source
    with _lock:
        before, _source = _source, source
    try:
        yield
    finally:
        with _lock:
            _source = before


@contextlib.contextmanager
def frozen(at: float | None = None) -> Iterator[Frozen]:
    """Fix the clock at ``at`` (default: the current time) for the block; ``advance``
    moves it."""
    fixed = Frozen(time.time() if at is None else at)
    with driven_by(fixed):
        yield fixed

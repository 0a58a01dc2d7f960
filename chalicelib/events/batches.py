"""A batch of events handled together: the queue worker takes up to ten messages at a
time (SQS's batch; a local lane's next messages), and what a consumer looks up for one
event of the batch may serve the others.

A push of 100 tags raises 200 events; the webhook consumer must know, for each, whether
the repository, its owner or the system has a hook (three queries).  Within one batch
the answer is read once: the batch is handled as of the moment it began, as a Lambda
invocation handling ten messages would see the table.  A hook created while a batch
runs gets the next batch's events.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Iterator

_local = threading.local()


@contextlib.contextmanager
def handling() -> Iterator[dict]:
    """Run a batch in this thread; ``memo()`` is one dict for all of it."""
    outer = getattr(_local, "memo", None)
    _local.memo = {} if outer is None else outer
    try:
        yield _local.memo
    finally:
        _local.memo = outer


def memo() -> dict | None:
    """The running batch's shared lookups (None outside a batch)."""
    return getattr(_local, "memo", None)

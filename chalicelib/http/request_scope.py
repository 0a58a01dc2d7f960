"""What the gateway needs of the unit of work, so the api layer never touches the store:
one unit per request (its identity map serves every read of the request, its commits
carry the request's events, each stamped with the request's id and the caller's address
for the audit log) and the batched preload of the keys a route names."""
from __future__ import annotations

import contextlib
from typing import Iterable, Iterator

from chalicelib import events
from chalicelib.store import unit_of_work


@contextlib.contextmanager
def request_scope(*, request_id: str = "", address: str = "") -> Iterator[None]:
    with unit_of_work.start(), events.originating(request_id=request_id, address=address):
        yield


def prefetch(keys: Iterable) -> None:
    """Read every key not yet known in one BatchGetItem."""
    unit_of_work.prefetch(keys)

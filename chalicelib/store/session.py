"""A request-scoped identity map over the table, with batched prefetching.

The gateway opens a session per request.  Reads by key go through it, so an item is
read at most once per request, and keys known up front (the token, the repository in
the path) are fetched together in one BatchGetItem, then the keys those reveal (the
user, the owner, a collaboration) in a second one.  That is how a repository read with
token auth stays at two calls.  Outside a session (CLI, jobs) reads go straight through.
"""
from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Iterable, Iterator

from pynamodb.exceptions import DoesNotExist

from chalicelib.store.table import Item

Key = tuple[str, str]
_ABSENT = object()
_items: ContextVar[dict | None] = ContextVar("nimbus_session", default=None)


@contextlib.contextmanager
def request_session() -> Iterator[None]:
    token = _items.set({})
    try:
        yield
    finally:
        _items.reset(token)


def _cache() -> dict | None:
    return _items.get()


def prefetch(keys: Iterable[Key]) -> None:
    """Read every key not yet known in one BatchGetItem (no-op outside a session)."""
    cache = _cache()
    if cache is None:
        return
    wanted = list(dict.fromkeys(k for k in keys if k is not None and k not in cache))
    if not wanted:
        return
    found = {(item.pk, item.sk): item for item in Item.batch_get(wanted)}
    for key in wanted:
        cache[key] = found.get(key, _ABSENT)


def get(model: type[Item], key: Key, *, consistent: bool = False):
    """The item at ``key`` as ``model`` (or None), read at most once per request."""
    cache = _cache()
    if cache is not None and key in cache and not consistent:
        hit = cache[key]
        if hit is _ABSENT:
            return None
        return hit if isinstance(hit, model) else None
    try:
        item = model.get(*key, consistent_read=consistent)
    except DoesNotExist:
        item = None
    remember(key, item)
    return item


def remember(key: Key, item) -> None:
    cache = _cache()
    if cache is not None:
        cache[key] = _ABSENT if item is None else item


def forget(key: Key) -> None:
    cache = _cache()
    if cache is not None:
        cache.pop(key, None)

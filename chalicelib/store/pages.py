"""One page of an index walk, and how many matches were seen: for lists that read an
index a DynamoDB page at a time and filter in Python (users, organizations, e-mail
addresses), stopping ``ahead`` matches past the page so a request never walks the
whole index; the count is exact when the matches end within that, else what was seen
(still enough for a client's ``next`` link)."""
from __future__ import annotations

from itertools import islice
from typing import Any, Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")
# Entries read again at least this many at a time when a check dropped some.
RECHECK = 10


def window(matches: Iterable[T], offset: int, limit: int, *, ahead: int) -> tuple[list[T], int]:
    page, seen = [], 0
    for item in matches:
        if offset <= seen < offset + limit:
            page.append(item)
        seen += 1
        if seen >= offset + limit + ahead:
            break
    return page, seen


def kept_in_chunks(first: list, rest: Iterator, want: int, keep: Callable[[list], Iterable],
                   prepare: Callable[[list], None]) -> Iterator:
    """What ``keep`` keeps of ``first`` and then of ``rest``, in order, until ``want``
    are kept: for an index read wider than its caller may see, each entry checked by a
    read rule.  ``first`` was prepared with the page's own batch; later entries (only
    when some were dropped) come ``RECHECK`` or more at a time, each chunk ``prepare``d
    (one batch) before it is checked."""
    kept, chunk = 0, first
    while chunk:
        for found in keep(chunk):
            kept += 1
            yield found
        if kept >= want:
            return
        chunk = list(islice(rest, max(want - kept, RECHECK)))
        if chunk:
            prepare(chunk)


def sort_range(sort_key: Any, low: str | None, high: str | None) -> Any:
    """A key condition on an index's sort key between ``low`` and ``high`` (inclusive;
    either may be None: unbounded), or None for the whole partition."""
    if low is not None and high is not None:
        return sort_key.between(low, high)
    if low is not None:
        return sort_key >= low
    if high is not None:
        return sort_key <= high
    return None

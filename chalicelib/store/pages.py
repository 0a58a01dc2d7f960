"""One page of an index walk, and how many matches were seen: for lists that read an
index a DynamoDB page at a time and filter in Python (users, organizations, e-mail
addresses), stopping ``ahead`` matches past the page so a request never walks the
whole index; the count is exact when the matches end within that, else what was seen
(still enough for a client's ``next`` link)."""
from __future__ import annotations

from typing import Iterable, TypeVar

T = TypeVar("T")


def window(matches: Iterable[T], offset: int, limit: int, *, ahead: int) -> tuple[list[T], int]:
    page, seen = [], 0
    for item in matches:
        if offset <= seen < offset + limit:
            page.append(item)
        seen += 1
        if seen >= offset + limit + ahead:
            break
    return page, seen

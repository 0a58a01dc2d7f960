"""Tracked times by their index entries (``comment_store.new_time`` writes them): gsi1
``RTIMES#<repo>`` (the repository's) and gsi2 ``UTIMES#<user>`` (the user's), both
sorted by ``<created, 15 digits>#<id>``, so a time range is a key range.  A walk is
lazy: DynamoDB pages are read as the caller iterates, no further."""
from __future__ import annotations

from typing import Iterator

from chalicelib.issues.models import TrackedTime
from chalicelib.issues.store import Issue, get_issue, ikeys
from chalicelib.store import pages, unit_of_work

PAGE_SIZE = 100      # items per DynamoDB page of a walk


def _range(sort_key, since: int | None, before: int | None):
    """``since`` and ``before`` inclusive, as Forgejo's created_unix >= / <=."""
    low = f"{max(since, 0):015d}#" if since is not None else None
    high = f"{max(before, 0):015d}#~" if before is not None else None
    return pages.sort_range(sort_key, low, high)


def repo_walk(repo_id: int, since: int | None, before: int | None,
              wanted: int) -> Iterator[TrackedTime]:
    return iter(TrackedTime.gsi1.query(
        ikeys.repo_times(repo_id), _range(TrackedTime.gsi1sk, since, before),
        page_size=min(max(wanted, 1), PAGE_SIZE)))


def user_walk(user_id: int, since: int | None, before: int | None, wanted: int, *,
              repo_id: int | None = None) -> Iterator[TrackedTime]:
    """The user's times (``repo_id``: only that repository's, read past the others)."""
    found = TrackedTime.gsi2.query(
        ikeys.user_times(user_id), _range(TrackedTime.gsi2sk, since, before),
        page_size=min(max(wanted, 1), PAGE_SIZE))
    if repo_id is None:
        return iter(found)
    partition = ikeys.partition(repo_id)
    return (t for t in found if t.pk == partition)


def repo_id_of(item: TrackedTime) -> int:
    return int(str(item.pk).split("#", 1)[1])


def issues_of(found: list[TrackedTime], also=()) -> dict[tuple[int, int], Issue]:
    """The issues of a page of times, by (repository id, number): one BatchGetItem
    (with ``also``: more keys the caller reads next)."""
    wanted = {(repo_id_of(t), int(t.issue_number)) for t in found}
    unit_of_work.prefetch([ikeys.issue(*pair) for pair in sorted(wanted)] + list(also))
    issues = {pair: get_issue(*pair) for pair in wanted}
    return {pair: issue for pair, issue in issues.items() if issue is not None}

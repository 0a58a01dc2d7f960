"""Pinned issues and pull requests, as Forgejo has them: a repository admin pins,
unpins and moves pins (403 otherwise); at most ``[repository.issue] MAX_PINNED`` issues,
and as many pull requests, are pinned at once (400 past it); pinning a pinned issue or
unpinning one that is not pinned does nothing.  Readers list the pinned ones in pin
order.

The pinned numbers live on the tracker item (``pin_store``); a write reads the list,
drops what was closed or deleted since (Forgejo unpins an issue when it closes), and
writes the new list on condition that nobody changed it meanwhile, retrying a lost
race on a consistent re-read.
"""
from __future__ import annotations

from typing import Callable

from chalicelib.errors import BadInput, ConditionFailed, ConflictError, InvalidInput, PermissionDenied
from chalicelib.issues import pin_store
from chalicelib.issues.context import Ctx
from chalicelib.issues.service import get_issue
from chalicelib.issues.store import Issue
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work

ATTEMPTS = 5
MAX_REACHED = "the max number of pinned issues has been readched"   # Forgejo's spelling


def max_pinned() -> int:
    return get_settings().issue.MAX_PINNED


def _live(ctx: Ctx, is_pull: bool, consistent: bool = False) -> list[Issue]:
    """The pinned items of one kind that are still open, in pin order."""
    numbers = ctx.tracker().pinned[is_pull]
    if not numbers:
        return []
    return [item for item in pin_store.pinned_items(ctx.repo_id, numbers, consistent=consistent)
            if item.is_open and bool(item.is_pull) == is_pull]


def _admin_issue(ctx: Ctx, number: int) -> Issue:
    issue = get_issue(ctx, number)
    if ctx.user is None or not ctx.is_admin:
        raise PermissionDenied("user should be an administrator of the repository")
    return issue


def _rewrite(ctx: Ctx, is_pull: bool, compute: Callable[[list[int]], list[int] | None]) -> None:
    """Write ``compute(live numbers)`` as the new list (None: nothing to change)."""
    for attempt in range(ATTEMPTS):
        consistent = attempt > 0
        tracker = ctx.tracker(consistent=consistent)
        live = [int(i.number) for i in _live(ctx, is_pull, consistent)]
        wanted = compute(live)
        if wanted is None or wanted == tracker.pinned[is_pull]:
            return
        try:
            with unit_of_work.writing():
                pin_store.stage_pins(ctx.repo_id, is_pull, wanted, tracker.pin_version)
        except ConditionFailed:
            continue
        tracker.pinned[is_pull], tracker.pin_version = wanted, tracker.pin_version + 1
        return
    raise ConflictError("the pins changed while they were being written; try again")


def pin(ctx: Ctx, number: int) -> None:
    issue = _admin_issue(ctx, number)

    def compute(live: list[int]) -> list[int] | None:
        if number in live:
            return None
        if len(live) >= max_pinned():
            raise BadInput(MAX_REACHED)
        return live + [number]

    if issue.is_open:
        _rewrite(ctx, bool(issue.is_pull), compute)
    # Forgejo pins a closed issue too, and unpins it only when it closes; here a closed
    # issue is never pinned, so pinning one does nothing.


def unpin(ctx: Ctx, number: int) -> None:
    issue = _admin_issue(ctx, number)
    _rewrite(ctx, bool(issue.is_pull),
             lambda live: [n for n in live if n != number] if number in live else None)


def move(ctx: Ctx, number: int, position: int) -> None:
    """moveIssuePin: to ``position`` (1-based; past the end: last); an issue that is not
    pinned stays where it is."""
    issue = _admin_issue(ctx, number)
    if position < 1:
        raise InvalidInput("The Position can't be lower than 1")

    def compute(live: list[int]) -> list[int] | None:
        if number not in live:
            return None
        others = [n for n in live if n != number]
        spot = min(position, len(live)) - 1
        return others[:spot] + [number] + others[spot:]

    _rewrite(ctx, bool(issue.is_pull), compute)


def pinned(ctx: Ctx, is_pull: bool) -> list[Issue]:
    """The pinned issues (or pull requests), in pin order (one batch read)."""
    return _live(ctx, is_pull)


def new_pin_allowed(ctx: Ctx) -> tuple[bool, bool]:
    """Whether one more issue, and one more pull request, may be pinned."""
    limit = max_pinned()
    tracker = ctx.tracker()
    pin_store.pinned_items(ctx.repo_id, tracker.pinned[False] + tracker.pinned[True])  # one read
    return len(_live(ctx, False)) < limit, len(_live(ctx, True)) < limit

"""Stopwatches on issues, as Forgejo keeps them: one running stopwatch per user and
issue; stopping it writes a tracked time of the seconds it ran, cancelling it writes
nothing.  Only writers of the issue's unit who may track time on it use them (403
otherwise, Forgejo's ``CanWriteIssuesOrPulls`` and ``CanUseTimetracker``).

Starting is a put on condition that the user has no stopwatch on the issue (two starts
at once: one stopwatch, the other 409); stopping deletes the stopwatch read, on condition
it is still that one, in the transaction that writes its tracked time (two stops at
once: one time, the other 409).  Forgejo also stops a user's stopwatch on another issue
when one starts; here each issue's stopwatch runs on its own.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import clock, events, repos
from chalicelib.errors import ConditionFailed, ConflictError, PermissionDenied
from chalicelib.issues import comment_store, stopwatch_store, store
from chalicelib.issues.comments import can_track
from chalicelib.issues.context import Ctx
from chalicelib.issues.service import get_issue
from chalicelib.issues.store import ikeys
from chalicelib.store import pages, unit_of_work

if TYPE_CHECKING:
    from chalicelib.issues.models import StopWatch
    from chalicelib.issues.store import Issue
    from chalicelib.repos import Repo

ALREADY_RUNNING = "Cannot start a stopwatch again if it already exists"
NOT_RUNNING_STOP = "Cannot stop a non existent stopwatch"
NOT_RUNNING_CANCEL = "Cannot cancel a non existent stopwatch"


def _usable_issue(ctx: Ctx, number: int) -> Issue:
    issue = get_issue(ctx, number)
    if ctx.user is None or not ctx.can_write_for(issue):
        raise PermissionDenied("Not repo writer, user does not have rights to toggle stopwatch")
    if not can_track(ctx, issue):
        raise PermissionDenied("Cannot use time tracker")
    return issue


def start(ctx: Ctx, number: int) -> StopWatch:
    issue = _usable_issue(ctx, number)
    item = stopwatch_store.new_stopwatch(issue, int(ctx.user.id), clock.seconds())
    try:
        with unit_of_work.writing():
            stopwatch_store.stage_start(item)
    except ConditionFailed:
        raise ConflictError(ALREADY_RUNNING) from None
    return item


def _running(ctx: Ctx, issue: Issue, missing: str) -> StopWatch:
    found = stopwatch_store.get_stopwatch(ctx.repo_id, int(issue.number), int(ctx.user.id))
    if found is None:
        raise ConflictError(missing)
    return found


def stop(ctx: Ctx, number: int):
    """The stopwatch becomes a tracked time of the seconds it ran (its event with it)."""
    issue = _usable_issue(ctx, number)
    running = _running(ctx, issue, NOT_RUNNING_STOP)
    now = clock.seconds()
    seconds = max(now - int(running.created), 0)
    item = comment_store.new_time(issue, int(ctx.user.id), ctx.user.login, seconds, now)
    try:
        with unit_of_work.writing() as uow:
            stopwatch_store.stage_finish(running)
            comment_store.stage_add_time(item)
            uow.raise_event(events.TrackedTimeChanged(
                **ctx.event_fields(), issue_id=int(issue.id), number=int(issue.number),
                is_pull=bool(issue.is_pull), action="added", user_id=int(ctx.user.id),
                times=(events.snapshot(item),)))
    except ConditionFailed:
        raise ConflictError(NOT_RUNNING_STOP) from None
    return item


def cancel(ctx: Ctx, number: int) -> None:
    issue = _usable_issue(ctx, number)
    running = _running(ctx, issue, NOT_RUNNING_CANCEL)
    try:
        with unit_of_work.writing():
            stopwatch_store.stage_finish(running)
    except ConditionFailed:
        raise ConflictError(NOT_RUNNING_CANCEL) from None


def stopwatch_key(repo_id: int, number: int, user_id: int) -> tuple[str, str]:
    """What a stopwatch route preloads with the issue."""
    return ikeys.stopwatch(repo_id, number, user_id)


def user_stopwatches(user_id: int, offset: int,
                     limit: int) -> tuple[list[tuple[StopWatch, Issue, Repo]], int]:
    """A page of the user's running stopwatches, oldest first, each with its issue and
    repository, and how many there are (exact when they end within the page, else one
    past it: the index is read no further).  The issues' keys follow from the
    stopwatches, read in one batch with the repositories' id links; the repositories
    come in another."""
    found, total = pages.window(stopwatch_store.user_stopwatches(user_id, offset + limit + 1),
                                offset, limit, ahead=1)
    unit_of_work.prefetch([ikeys.issue(int(w.repo_id), int(w.issue_number)) for w in found]
                          + [repos.repo_id_key(int(w.repo_id)) for w in found])
    by_id = {int(r.id): r for r in repos.repos_by_ids({int(w.repo_id) for w in found})}
    listed = []
    for watch in found:
        repo = by_id.get(int(watch.repo_id))
        issue = store.get_issue(int(watch.repo_id), int(watch.issue_number))
        if repo is not None and issue is not None:    # else gone since
            listed.append((watch, issue, repo))
    return listed, total


def duration_text(seconds: int) -> str:
    """Forgejo's ``util.SecToTime``: the two largest units that matter, in words
    ("1 minute 6 seconds", "14 hours 33 minutes", "2 weeks 4 days")."""
    days_left = seconds // 86400
    years = days_left // 365
    days_left -= years * 365
    months = days_left * 12 // 365
    days_left -= months * 365 // 12
    weeks = days_left // 7
    days = days_left - weeks * 7
    hours, minutes, secs = (seconds // 3600) % 24, (seconds // 60) % 60, seconds % 60
    if years:
        parts = ((years, "year"), (months, "month"))
    elif months:
        parts = ((months, "month"), (weeks, "week"))
    elif weeks:
        parts = ((weeks, "week"), (days, "day"))
    elif days:
        parts = ((days, "day"), (hours, "hour"))
    elif hours:
        parts = ((hours, "hour"), (minutes, "minute"))
    else:
        parts = ((minutes, "minute"), (secs, "second"))
    return " ".join(f"{n} {unit}{'s' if n > 1 else ''}" for n, unit in parts if n > 0)

"""Comments and tracked times of issues.

A comment is committed with its id lookup item, its issue's ``num_comments`` (and
``version``), the tracker's repository-wide count and its ``IssueCommentChanged`` event;
deleting one reverses all of it.  Editing or deleting a comment takes its author or a
repository admin (403 otherwise).  Time may be tracked by writers, the issue's author
and its assignees (Forgejo's ``CanUseTimetracker``); others get 403.  Lists come in
creation order.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import accounts, clock, events
from chalicelib.errors import (BadInput, ConditionFailed, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.issues import (attachments, comment_store, reaction_store, store,
                               tracker_store)
from chalicelib.issues.context import Ctx, parse_time, snapshot
from chalicelib.issues.options import (AddTimeOption, CreateIssueCommentOption,
                                       EditIssueCommentOption)
from chalicelib.issues.service import get_issue
from chalicelib.issues.store import Issue
from chalicelib.issues.tracker_store import TrackerChange
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.issues.models import Comment, TrackedTime


def _body(body: str | None) -> str:
    """A comment's body: sent empty or null, it is missing all the same."""
    if not body:
        raise InvalidInput("[Body]: Required")
    return body


def _comment_event(ctx: Ctx, issue: Issue | None, comment: dict, action: str,
                   before: str = "") -> events.IssueCommentChanged:
    return events.IssueCommentChanged(
        **ctx.event_fields(), issue_id=int(comment["issue_id"]),
        number=int(comment["issue_number"]), is_pull=bool(issue is not None and issue.is_pull),
        comment_id=int(comment["id"]), action=action, body_before=before, comment=comment,
        issue=events.snapshot(issue))


def _with_comments(issue: Issue | None, delta: int, updated: int) -> Issue | None:
    """The issue as a comment write leaves it (what the unit stages as ADDs)."""
    if issue is None:
        return None
    after = store.copy_issue(issue)
    after.num_comments = int(issue.num_comments) + delta
    after.version = int(issue.version) + 1
    after.updated = updated
    return after


def _commit_comment(ctx: Ctx, delta: int, stage, event: events.IssueCommentChanged,
                    missing: str) -> None:
    """Commit a comment write that moves the comment counts by ``delta`` (0: none);
    a failed condition means the comment or its issue is gone (404 ``missing``), or the
    whole repository."""
    tracker = ctx.tracker()
    change = TrackerChange(comments=delta)
    try:
        with unit_of_work.writing() as uow:
            stage()
            tracker_store.stage(ctx.repo_id, change)
            uow.raise_event(event)
    except ConditionFailed as failed:
        if failed.label == "tracker":
            raise NotFoundError("repository does not exist") from None
        raise NotFoundError(missing) from None
    ctx.wrote(tracker, change)


def create_comment(ctx: Ctx, number: int,
                   option: CreateIssueCommentOption) -> tuple[Comment, Issue]:
    issue = get_issue(ctx, number)
    # The owner's block is preloaded; another poster's costs one GetItem.
    accounts.check_not_blocked([ctx.repo.owner_id, issue.poster_id], ctx.user.id)
    body = _body(option.body)
    if issue.is_locked and not ctx.can_write_for(issue):
        raise PermissionDenied("this issue is locked")
    comment = comment_store.new_comment(issue, int(ctx.user.id),
                                        store.dumps(snapshot(ctx.user)), body)
    after = _with_comments(issue, +1, int(comment.created))
    _commit_comment(ctx, +1, lambda: comment_store.stage_create_comment(comment),
                    _comment_event(ctx, after, events.snapshot(comment), "created"),
                    f"issue does not exist [index: {number}]")
    return comment, after


def _in_range(comment: Comment, since: int | None, before: int | None) -> bool:
    return (since is None or int(comment.updated) >= since) and \
        (before is None or int(comment.updated) <= before)


def issue_comments(ctx: Ctx, number: int, since: int | None = None,
                   before: int | None = None) -> list[Comment]:
    get_issue(ctx, number)
    return [c for c in comment_store.comments_of(ctx.repo_id, number)
            if _in_range(c, since, before)]


def repo_comments(ctx: Ctx, offset: int, limit: int, since: int | None = None,
                  before: int | None = None) -> tuple[list[Comment], int]:
    """In creation order.  Without a time filter the total is the tracker's counter and
    the read stops after the page; with one, every comment is read and filtered."""
    if since is None and before is None:
        found = comment_store.repo_comments(ctx.repo_id, offset + limit)
        return found[offset:offset + limit], ctx.tracker().num_comments
    found = [c for c in comment_store.repo_comments(ctx.repo_id) if _in_range(c, since, before)]
    return found[offset:offset + limit], len(found)


def get_comment(ctx: Ctx, comment_id: int) -> Comment:
    comment = comment_store.get_comment(ctx.repo_id, comment_id)
    if comment is None:
        raise NotFoundError(f"comment does not exist [id: {comment_id}]")
    return comment


def _may_change(ctx: Ctx, comment: Comment) -> None:
    if ctx.user is None or (int(comment.poster_id) != int(ctx.user.id) and not ctx.is_admin):
        raise PermissionDenied("user should be the author of the comment or a repository admin")


def edit_comment(ctx: Ctx, comment_id: int, option: EditIssueCommentOption) -> Comment:
    comment = get_comment(ctx, comment_id)
    _may_change(ctx, comment)
    body = _body(option.body)
    before = comment.body
    if body == before:
        return comment
    updated = clock.seconds()
    issue = store.get_issue(ctx.repo_id, int(comment.issue_number))   # read with the comment
    edited = {**events.snapshot(comment), "body": body, "updated": updated}
    _commit_comment(ctx, 0, lambda: comment_store.stage_edit_comment(comment, body, updated),
                    _comment_event(ctx, issue, edited, "edited", before),
                    f"comment does not exist [id: {comment_id}]")
    comment.body, comment.updated = body, updated
    return comment


def delete_comment(ctx: Ctx, comment_id: int) -> None:
    comment = get_comment(ctx, comment_id)
    _may_change(ctx, comment)
    updated = clock.seconds()
    issue = store.get_issue(ctx.repo_id, int(comment.issue_number))   # read with the comment
    reacted = reaction_store.reactions_of(ctx.repo_id, int(comment.issue_number), comment_id)
    objects: list[str] = []

    def stage() -> None:   # the comment's reactions and attachments go with it
        comment_store.stage_delete_comment(comment, updated)
        reaction_store.stage_remove([(r.pk, r.sk) for r in reacted])
        objects[:] = attachments.stage_forget(int(ctx.repo.owner_id), comment)

    _commit_comment(ctx, -1, stage,
                    _comment_event(ctx, _with_comments(issue, -1, updated),
                                   events.snapshot(comment), "deleted"),
                    f"comment does not exist [id: {comment_id}]")
    attachments.remove_objects(objects)


# Tracked times ---------------------------------------------------------------------------------

def can_track(ctx: Ctx, issue: Issue) -> bool:
    user = ctx.user
    if user is None:
        return False
    return ctx.can_write_for(issue) or int(issue.poster_id) == int(user.id) or \
        int(user.id) in [int(i) for i in issue.assignee_ids]


def _time_event(ctx: Ctx, issue: Issue, action: str, user_id: int,
                times: list[TrackedTime]) -> events.TrackedTimeChanged:
    return events.TrackedTimeChanged(
        **ctx.event_fields(), issue_id=int(issue.id), number=int(issue.number),
        is_pull=bool(issue.is_pull), action=action, user_id=user_id,
        times=tuple(events.snapshot(t) for t in times))


def add_time(ctx: Ctx, number: int, option: AddTimeOption) -> tuple[TrackedTime, Issue]:
    issue = get_issue(ctx, number)
    seconds = option.time
    if seconds is None:
        raise InvalidInput("[Time]: Required")
    # The option lets any value through, so that a time that is not a positive number
    # of seconds keeps this answer (a 400, not the edge's 422).
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds <= 0:
        raise BadInput(f"time must be a positive number of seconds, not {seconds!r}")
    if not can_track(ctx, issue):
        raise PermissionDenied("user is not allowed to add time")
    user = ctx.user
    name = option.user_name
    if name and name.lower() != user.lower_name:
        if not (ctx.is_admin or user.is_admin):
            raise PermissionDenied("user is not allowed to add time for another user")
        user = accounts.get_user(name, ctx.user)
    created = parse_time(option.created or None, "Created") or clock.seconds()
    item = comment_store.new_time(issue, int(user.id), user.login, seconds, created)
    with unit_of_work.writing() as uow:
        comment_store.stage_add_time(item)
        uow.raise_event(_time_event(ctx, issue, "added", int(user.id), [item]))
    return item, issue


def list_times(ctx: Ctx, number: int, user_name: str = "", since: int | None = None,
               before: int | None = None) -> tuple[list[TrackedTime], Issue]:
    """Writers and site admins see everyone's time; others only their own."""
    issue = get_issue(ctx, number)
    if ctx.user is None:
        raise PermissionDenied("user is not allowed to list time")
    user_id = 0
    if user_name:
        user_id = int(accounts.get_user(user_name, ctx.user).id)
    if not (ctx.user.is_admin or ctx.can_write_for(issue)):
        if user_id and user_id != int(ctx.user.id):
            raise PermissionDenied("query by user not allowed; not enough rights")
        user_id = int(ctx.user.id)
    found = [t for t in comment_store.times_of(ctx.repo_id, number)
             if (not user_id or int(t.user_id) == user_id)
             and (since is None or int(t.created) >= since)
             and (before is None or int(t.created) <= before)]
    return found, issue


def reset_time(ctx: Ctx, number: int) -> None:
    """issueResetTime: removes the caller's own time on the issue (one event for all)."""
    issue = get_issue(ctx, number)
    if not can_track(ctx, issue):
        raise PermissionDenied("user is not allowed to delete time")
    user_id = int(ctx.user.id)
    mine = [t for t in comment_store.times_of(ctx.repo_id, number) if int(t.user_id) == user_id]
    if not mine:
        return
    with unit_of_work.writing() as uow:
        store.stage_delete_items(mine, label="time")
        uow.raise_event(_time_event(ctx, issue, "reset", user_id, mine))


def delete_time(ctx: Ctx, number: int, time_id: int) -> None:
    issue = get_issue(ctx, number)
    if not can_track(ctx, issue):
        raise PermissionDenied("user is not allowed to delete time")
    item = comment_store.get_time(ctx.repo_id, number, time_id)
    if item is None:
        raise NotFoundError(f"tracked time does not exist [id: {time_id}]")
    if not ctx.user.is_admin and int(item.user_id) != int(ctx.user.id):
        raise PermissionDenied("user is not allowed to delete time of another user")
    try:
        with unit_of_work.writing() as uow:
            comment_store.stage_delete_time(item)
            uow.raise_event(_time_event(ctx, issue, "deleted", int(item.user_id), [item]))
    except ConditionFailed:
        raise NotFoundError(f"tracked time does not exist [id: {time_id}]") from None

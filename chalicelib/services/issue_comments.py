"""Comments and tracked times of issues.

A comment is written in one transaction with its id lookup item, its issue's
``num_comments`` (and ``version``) and the tracker's repository-wide count; deleting
one reverses all of it.  Editing or deleting a comment takes its author or a repository
admin (403 otherwise).  Time may be tracked by writers, the issue's author and its
assignees (Forgejo's ``CanUseTimetracker``); others get 403.
"""
from __future__ import annotations

from chalicelib.services import accounts, events
from chalicelib.services.errors import BadInput, InvalidInput, NotFoundError, PermissionDenied
from chalicelib.services.issues import Ctx, get_issue, now, parse_time, snapshot
from chalicelib.store import ids, session
from chalicelib.store import issues as store
from chalicelib.store.issues import Comment, CommentRef, Issue, IssueTracker, TrackedTime


def _publish(ctx: Ctx, issue_number: int, issue_id: int, is_pull: bool, comment_id: int,
             action: str, before: str = "") -> None:
    events.publish(events.IssueCommentChanged(
        actor_id=ctx.user.id if ctx.user else None, repo_id=ctx.repo_id, issue_id=issue_id,
        number=issue_number, is_pull=is_pull, comment_id=comment_id, action=action,
        body_before=before))


def _body(data: dict) -> str:
    body = accounts.optional(data, "body", str)
    if not body:
        raise InvalidInput("[Body]: Required")
    return body


def _issue_counter(ctx: Ctx, number: int, delta: int) -> tuple:
    return ("issue", "update", (Issue(*store.ikeys.issue(ctx.repo_id, number)),),
            {"actions": [Issue.num_comments.add(delta), Issue.version.add(1),
                         Issue.updated.set(now())],
             "condition": Issue.pk.exists()})


def create_comment(ctx: Ctx, number: int, data: dict) -> tuple[Comment, Issue]:
    issue = get_issue(ctx, number)
    body = _body(data)
    if issue.is_locked and not ctx.can_write_for(issue):
        raise PermissionDenied("this issue is locked")
    comment_id = ids.next_id("comment")
    created = now()
    comment = Comment(*store.ikeys.comment(ctx.repo_id, number, comment_id), id=comment_id,
                      repo_id=ctx.repo_id, issue_number=number, issue_id=int(issue.id),
                      poster_id=ctx.user.id, poster=store.dumps(snapshot(ctx.user)), body=body,
                      created=created, updated=created,
                      gsi1pk=store.ikeys.repo_comments(ctx.repo_id), gsi1sk=f"{comment_id:015d}")
    ref = CommentRef(*store.ikeys.comment_ref(ctx.repo_id, comment_id), issue_number=number)
    failed = store.commit(
        ("comment", "save", (comment,), {"condition": Comment.pk.does_not_exist()}),
        ("ref", "save", (ref,), {}),
        _issue_counter(ctx, number, +1),
        store.tracker_update(ctx.repo_id, [IssueTracker.num_comments.add(1)]))
    session.forget(store.ikeys.issue(ctx.repo_id, number))
    session.forget(store.ikeys.tracker(ctx.repo_id))
    if failed == "issue":
        raise NotFoundError(f"issue does not exist [index: {number}]")
    if failed is not None:  # pragma: no cover
        raise NotFoundError("repository does not exist")
    issue.num_comments = int(issue.num_comments) + 1
    _publish(ctx, number, int(issue.id), bool(issue.is_pull), comment_id, "created")
    return comment, issue


def _in_range(comment: Comment, since: int | None, before: int | None) -> bool:
    return (since is None or int(comment.updated) >= since) and \
        (before is None or int(comment.updated) <= before)


def issue_comments(ctx: Ctx, number: int, since: int | None = None,
                   before: int | None = None) -> list[Comment]:
    get_issue(ctx, number)
    return [c for c in store.comments_of(ctx.repo_id, number) if _in_range(c, since, before)]


def repo_comments(ctx: Ctx, offset: int, limit: int, since: int | None = None,
                  before: int | None = None) -> tuple[list[Comment], int]:
    """In creation order.  Without a time filter the total is the tracker's counter and
    the read stops after the page; with one, every comment is read and filtered."""
    if since is None and before is None:
        found = store.repo_comments(ctx.repo_id, offset + limit)
        return found[offset:offset + limit], ctx.tracker().num_comments
    found = [c for c in store.repo_comments(ctx.repo_id) if _in_range(c, since, before)]
    return found[offset:offset + limit], len(found)


def get_comment(ctx: Ctx, comment_id: int) -> Comment:
    ref = session.get(CommentRef, store.ikeys.comment_ref(ctx.repo_id, comment_id))
    comment = None
    if ref is not None:
        comment = session.get(Comment, store.ikeys.comment(ctx.repo_id, int(ref.issue_number),
                                                           comment_id))
    if comment is None:
        raise NotFoundError(f"comment does not exist [id: {comment_id}]")
    return comment


def _may_change(ctx: Ctx, comment: Comment) -> None:
    if ctx.user is None or (int(comment.poster_id) != int(ctx.user.id) and not ctx.is_admin):
        raise PermissionDenied("user should be the author of the comment or a repository admin")


def edit_comment(ctx: Ctx, comment_id: int, data: dict) -> Comment:
    comment = get_comment(ctx, comment_id)
    _may_change(ctx, comment)
    body = _body(data)
    before = comment.body
    if body != before:
        comment.body, comment.updated = body, now()
        comment.save(condition=Comment.pk.exists())
        session.forget((comment.pk, comment.sk))
        issue = store.get_issue(ctx.repo_id, int(comment.issue_number))
        _publish(ctx, int(comment.issue_number), int(comment.issue_id),
                 bool(issue.is_pull) if issue else False, comment_id, "edited", before)
    return comment


def delete_comment(ctx: Ctx, comment_id: int) -> None:
    comment = get_comment(ctx, comment_id)
    _may_change(ctx, comment)
    number = int(comment.issue_number)
    failed = store.commit(
        ("comment", "delete", (comment,), {"condition": Comment.pk.exists()}),
        ("ref", "delete", (CommentRef(*store.ikeys.comment_ref(ctx.repo_id, comment_id)),), {}),
        _issue_counter(ctx, number, -1),
        store.tracker_update(ctx.repo_id, [IssueTracker.num_comments.add(-1)]))
    for key in ((comment.pk, comment.sk), store.ikeys.comment_ref(ctx.repo_id, comment_id),
                store.ikeys.issue(ctx.repo_id, number), store.ikeys.tracker(ctx.repo_id)):
        session.forget(key)
    if failed is not None:
        raise NotFoundError(f"comment does not exist [id: {comment_id}]")
    _publish(ctx, number, int(comment.issue_id), False, comment_id, "deleted")


# Tracked times ---------------------------------------------------------------------------------

def can_track(ctx: Ctx, issue: Issue) -> bool:
    user = ctx.user
    if user is None:
        return False
    return ctx.can_write_for(issue) or int(issue.poster_id) == int(user.id) or \
        int(user.id) in [int(i) for i in issue.assignee_ids]


def add_time(ctx: Ctx, number: int, data: dict) -> tuple[TrackedTime, Issue]:
    issue = get_issue(ctx, number)
    if "time" not in data or data.get("time") is None:
        raise InvalidInput("[Time]: Required")
    seconds = data.get("time")
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds <= 0:
        raise BadInput(f"time must be a positive number of seconds, not {seconds!r}")
    if not can_track(ctx, issue):
        raise PermissionDenied("user is not allowed to add time")
    user = ctx.user
    name = accounts.optional(data, "user_name", str)
    if name and name.lower() != user.lower_name:
        if not (ctx.is_admin or user.is_admin):
            raise PermissionDenied("user is not allowed to add time for another user")
        user = accounts.get_user(name, ctx.user)
    created = parse_time(accounts.optional(data, "created", str), "Created") or now()
    time_id = ids.next_id("tracked_time")
    item = TrackedTime(*store.ikeys.tracked_time(ctx.repo_id, number, time_id), id=time_id,
                       issue_number=number, issue_id=int(issue.id), user_id=user.id,
                       user_name=user.login, time=seconds, created=created)
    item.save(condition=TrackedTime.pk.does_not_exist())
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
    found = [t for t in store.times_of(ctx.repo_id, number)
             if (not user_id or int(t.user_id) == user_id)
             and (since is None or int(t.created) >= since)
             and (before is None or int(t.created) <= before)]
    return found, issue


def reset_time(ctx: Ctx, number: int) -> None:
    """issueResetTime: removes the caller's own time on the issue."""
    issue = get_issue(ctx, number)
    if not can_track(ctx, issue):
        raise PermissionDenied("user is not allowed to delete time")
    store.delete_items(t for t in store.times_of(ctx.repo_id, number)
                       if int(t.user_id) == int(ctx.user.id))


def delete_time(ctx: Ctx, number: int, time_id: int) -> None:
    issue = get_issue(ctx, number)
    if not can_track(ctx, issue):
        raise PermissionDenied("user is not allowed to delete time")
    item = session.get(TrackedTime, store.ikeys.tracked_time(ctx.repo_id, number, time_id),
                       consistent=True)
    if item is None:
        raise NotFoundError(f"tracked time does not exist [id: {time_id}]")
    if not ctx.user.is_admin and int(item.user_id) != int(ctx.user.id):
        raise PermissionDenied("user is not allowed to delete time of another user")
    item.delete()
    session.forget((item.pk, item.sk))

"""Comments and tracked times of issues (keys in ``chalicelib.issues.store``).

Lists come in creation order, ``(created, id)``: ids are handed out in per-process
blocks, so id order alone is not creation order across Lambda instances.  A comment is
staged with its id lookup item and its issue's ``num_comments`` (and ``version``); the
tracker's repository-wide count moves through ``chalicelib.issues.tracker_store``.
Labels in ``ConditionFailed``: "comment", "issue", "time".
"""
from __future__ import annotations

from typing import Iterable

from chalicelib import clock
from chalicelib.issues.models import Comment, CommentRef, TrackedTime
from chalicelib.issues.store import Issue, ikeys
from chalicelib.store import ids, unit_of_work


def _in_creation_order(items: Iterable) -> list:
    return sorted(items, key=lambda item: (int(item.created), int(item.id)))


# Comments: reads ------------------------------------------------------------------------------

def comments_of(repo_id: int, number: int) -> list[Comment]:
    """Every comment of the issue, oldest first (one consistent Query)."""
    return _in_creation_order(Comment.query(
        ikeys.partition(repo_id), Comment.sk.startswith(ikeys.comment_prefix(number)),
        consistent_read=True))


def repo_comments(repo_id: int, limit: int | None = None) -> list[Comment]:
    """The repository's comments oldest first (the index keeps that order);
    ``limit`` bounds the read."""
    kwargs: dict = {}
    if limit is not None:
        kwargs = dict(limit=limit, page_size=min(limit, 500))
    return list(Comment.gsi1.query(ikeys.repo_comments(repo_id), **kwargs))


def comment_keys(repo_id: int, comment_id: int) -> list[tuple[str, str]]:
    """Keys to read with a comment's lookup item once it is known: the comment and its
    issue (empty while the lookup item has not been read, or is missing)."""
    ref = unit_of_work.get(CommentRef, ikeys.comment_ref(repo_id, comment_id))
    if ref is None:
        return []
    number = int(ref.issue_number)
    return [ikeys.comment(repo_id, number, comment_id), ikeys.issue(repo_id, number)]


def get_comment(repo_id: int, comment_id: int) -> Comment | None:
    """The comment and its issue come in one BatchGetItem (the lookup item was read with
    the request's preload)."""
    found = comment_keys(repo_id, comment_id)
    if not found:
        return None
    unit_of_work.prefetch(found)
    return unit_of_work.get(Comment, found[0])


# Comments: staged writes ------------------------------------------------------------------------

def new_comment(issue: Issue, poster_id: int, poster: str, body: str) -> Comment:
    repo_id, number = int(issue.repo_id), int(issue.number)
    comment_id = ids.next_id("comment")
    created = clock.seconds()
    return Comment(*ikeys.comment(repo_id, number, comment_id), id=comment_id, repo_id=repo_id,
                   issue_number=number, issue_id=int(issue.id), poster_id=poster_id,
                   poster=poster, body=body, created=created, updated=created,
                   gsi1pk=ikeys.repo_comments(repo_id),
                   gsi1sk=ikeys.repo_comment_order(created, comment_id))


def _count_on_issue(repo_id: int, number: int, delta: int, updated: int) -> None:
    unit_of_work.current().update(
        Issue(*ikeys.issue(repo_id, number)),
        [Issue.num_comments.add(delta), Issue.version.add(1), Issue.updated.set(updated)],
        label="issue", condition=Issue.pk.exists())


def stage_create_comment(comment: Comment) -> None:
    repo_id, number = int(comment.repo_id), int(comment.issue_number)
    uow = unit_of_work.current()
    uow.put(comment, label="comment", must_not_exist=True)
    uow.put(CommentRef(*ikeys.comment_ref(repo_id, int(comment.id)), issue_number=number),
            label="comment")
    _count_on_issue(repo_id, number, +1, int(comment.created))


def stage_edit_comment(comment: Comment, body: str, updated: int) -> None:
    unit_of_work.current().update(
        Comment(comment.pk, comment.sk), [Comment.body.set(body), Comment.updated.set(updated)],
        label="comment", condition=Comment.pk.exists())


def stage_delete_comment(comment: Comment, updated: int) -> None:
    repo_id, number = int(comment.repo_id), int(comment.issue_number)
    uow = unit_of_work.current()
    uow.delete(comment, label="comment", condition=Comment.pk.exists())
    uow.delete(CommentRef(*ikeys.comment_ref(repo_id, int(comment.id))), label="comment")
    _count_on_issue(repo_id, number, -1, updated)


def refs_of(comments: Iterable[Comment]) -> list[CommentRef]:
    """The id lookup items of comments (deleted with them)."""
    return [CommentRef(*ikeys.comment_ref(int(c.repo_id), int(c.id))) for c in comments]


# Tracked times ----------------------------------------------------------------------------------

def times_of(repo_id: int, number: int) -> list[TrackedTime]:
    """Every time entry of the issue, oldest first (one consistent Query)."""
    return _in_creation_order(TrackedTime.query(
        ikeys.partition(repo_id), TrackedTime.sk.startswith(ikeys.time_prefix(number)),
        consistent_read=True))


def get_time(repo_id: int, number: int, time_id: int) -> TrackedTime | None:
    return unit_of_work.get(TrackedTime, ikeys.tracked_time(repo_id, number, time_id))


def new_time(issue: Issue, user_id: int, user_name: str, seconds: int,
             created: int) -> TrackedTime:
    repo_id, number = int(issue.repo_id), int(issue.number)
    time_id = ids.next_id("tracked_time")
    item = TrackedTime(*ikeys.tracked_time(repo_id, number, time_id), id=time_id,
                       issue_number=number, issue_id=int(issue.id), user_id=user_id,
                       user_name=user_name, time=seconds, created=created)
    for name, value in time_index_keys(item).items():   # the repository's and user's lists
        setattr(item, name, value)
    return item


def time_index_keys(item: TrackedTime) -> dict[str, str]:
    """The index keys a tracked time is listed by (``time_lists.py``); ``admin repair``
    gives them to times written before the lists existed."""
    repo_id = int(str(item.pk).split("#", 1)[1])
    order = ikeys.time_order(int(item.created), int(item.id))
    return {"gsi1pk": ikeys.repo_times(repo_id), "gsi1sk": order,
            "gsi2pk": ikeys.user_times(int(item.user_id)), "gsi2sk": order}


def stage_add_time(item: TrackedTime) -> None:
    unit_of_work.current().put(item, label="time", must_not_exist=True)


def stage_delete_time(item: TrackedTime) -> None:
    unit_of_work.current().delete(item, label="time", condition=TrackedTime.pk.exists())

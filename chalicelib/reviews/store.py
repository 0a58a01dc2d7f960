"""Reviews of pull requests in the table: one item per review, one per code comment.

Everything lives in the repository's partition ``R#<repo id>`` (deleting a repository
removes it with the rest of that partition), keyed under the pull request's number, so
one Query lists a pull request's reviews (``reviews_of``).

| item | pk | sk | attributes |
|---|---|---|---|
| review | ``R#<repo>`` | ``REVIEW#<number, 10 digits>#<review id, 15 digits>`` | ``id``, ``number``, ``reviewer_id``, ``reviewer`` (account snapshot, JSON), ``team_id``, ``team`` (JSON), ``state``, ``body``, ``commit_id``, ``official``, ``stale``, ``dismissed``, ``submitted_at``, ``updated``, ``comments_count``, ``version`` |
| code comment | ``R#<repo>`` | ``REVIEWC#<number>#<review id>#<comment id, 15 digits>`` | ``id``, ``review_id``, ``poster_id``, ``poster``, ``body``, ``path``, ``line`` (Forgejo's signed line: < 0 on the old side), ``commit_id``, ``original_commit_id``, ``diff_hunk``, ``invalidated``, ``created``, ``updated`` |

States are Forgejo's API names: PENDING, APPROVED, REQUEST_CHANGES, COMMENT and
REQUEST_REVIEW (a review request is a review, as in Forgejo).

Every change of a review is a write conditional on the ``version`` read
(``ConditionFailed("review")`` when someone changed or deleted it meanwhile): a pending
review is submitted once, however many submits race.  Adding a code comment bumps the
review's ``version`` and ``comments_count`` in the same transaction, so a deletion that
read the comments before it fails instead of leaving a comment without its review.

This module imports only the table's foundations: the pull requests domain reads it
(the merge gate) without reaching anything above it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Iterable

from chalicelib.reviews.models import ReviewCommentItem, ReviewItem, keys
from chalicelib.store import ids, unit_of_work

PENDING, APPROVED, REQUEST_CHANGES, COMMENT, REQUEST_REVIEW = (
    "PENDING", "APPROVED", "REQUEST_CHANGES", "COMMENT", "REQUEST_REVIEW")
STATES = (PENDING, APPROVED, REQUEST_CHANGES, COMMENT, REQUEST_REVIEW)
REVIEW = "review"          # ConditionFailed label: the review changed or is gone
EARLIER = "earlier review"  # ConditionFailed label: an earlier review of the reviewer changed


def _json(text: str | None) -> dict:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _dumps(value: dict) -> str:
    return json.dumps(value or {}, separators=(",", ":"), sort_keys=True)


@dataclass
class Review:
    """A review as plain data (what rules, records and the merge gate read)."""
    id: int
    number: int
    reviewer_id: int = 0
    reviewer: dict = field(default_factory=dict)      # account snapshot
    team_id: int = 0
    team: dict = field(default_factory=dict)          # team snapshot (review requests)
    state: str = PENDING
    body: str = ""
    commit_id: str = ""
    official: bool = False
    stale: bool = False
    dismissed: bool = False
    submitted_at: int = 0
    updated: int = 0
    comments_count: int = 0
    version: int = 1


@dataclass
class ReviewComment:
    id: int
    number: int
    review_id: int
    poster_id: int = 0
    poster: dict = field(default_factory=dict)
    body: str = ""
    path: str = ""
    line: int = 0
    commit_id: str = ""
    original_commit_id: str = ""
    diff_hunk: str = ""
    invalidated: bool = False
    created: int = 0
    updated: int = 0


def _review(item: ReviewItem) -> Review:
    state = item.state if item.state in STATES else COMMENT
    return Review(id=int(item.id), number=int(item.number),
                  reviewer_id=int(item.reviewer_id or 0), reviewer=_json(item.reviewer),
                  team_id=int(item.team_id or 0), team=_json(item.team), state=state,
                  body=item.body or "", commit_id=item.commit_id or "",
                  official=bool(item.official), stale=bool(item.stale),
                  dismissed=bool(item.dismissed), submitted_at=int(item.submitted_at or 0),
                  updated=int(item.updated or 0), comments_count=int(item.comments_count or 0),
                  version=int(item.version or 1))


def _comment(item: ReviewCommentItem) -> ReviewComment:
    return ReviewComment(id=int(item.id), number=int(item.number), review_id=int(item.review_id),
                         poster_id=int(item.poster_id or 0), poster=_json(item.poster),
                         body=item.body or "", path=item.path or "", line=int(item.line or 0),
                         commit_id=item.commit_id or "",
                         original_commit_id=item.original_commit_id or "",
                         diff_hunk=item.diff_hunk or "", invalidated=bool(item.invalidated),
                         created=int(item.created or 0), updated=int(item.updated or 0))


def _review_item(repo_id: int, review: Review) -> ReviewItem:
    return ReviewItem(*keys.review(repo_id, review.number, review.id), id=review.id,
                      number=review.number, reviewer_id=review.reviewer_id,
                      reviewer=_dumps(review.reviewer), team_id=review.team_id,
                      team=_dumps(review.team), state=review.state, body=review.body,
                      commit_id=review.commit_id, official=review.official, stale=review.stale,
                      dismissed=review.dismissed, submitted_at=review.submitted_at,
                      updated=review.updated, comments_count=review.comments_count,
                      version=review.version)


def _comment_item(repo_id: int, c: ReviewComment) -> ReviewCommentItem:
    return ReviewCommentItem(*keys.review_comment(repo_id, c.number, c.review_id, c.id),
                             id=c.id, number=c.number, review_id=c.review_id,
                             poster_id=c.poster_id, poster=_dumps(c.poster), body=c.body,
                             path=c.path, line=c.line, commit_id=c.commit_id,
                             original_commit_id=c.original_commit_id, diff_hunk=c.diff_hunk,
                             invalidated=c.invalidated, created=c.created, updated=c.updated)


# Reads ------------------------------------------------------------------------------------

def review_key(repo_id: int, number: int, review_id: int) -> tuple[str, str]:
    """For batch preloads (the route names the pull request and the review)."""
    return keys.review(int(repo_id), int(number), int(review_id))


def reviews_of(repo_id: int, number: int, consistent: bool = False) -> list[Review]:
    """Every review of a pull request (review requests too), oldest first: one Query."""
    items = ReviewItem.query(keys.repo_partition(int(repo_id)),
                             ReviewItem.sk.startswith(keys.review_prefix(int(number))),
                             consistent_read=consistent)
    found = [_review(item) for item in items]
    found.sort(key=lambda r: (r.submitted_at or r.updated, r.id))
    return found


def get_review(repo_id: int, number: int, review_id: int, *,
               consistent: bool = False) -> Review | None:
    item = unit_of_work.get(ReviewItem, review_key(repo_id, number, review_id),
                            consistent=consistent)
    return _review(item) if item is not None else None


def comments_of(repo_id: int, number: int, review_id: int | None = None, *,
                consistent: bool = False) -> list[ReviewComment]:
    """The code comments of one review (or of every review of the pull request)."""
    items = ReviewCommentItem.query(
        keys.repo_partition(int(repo_id)),
        ReviewCommentItem.sk.startswith(keys.review_comment_prefix(int(number), review_id)),
        consistent_read=consistent)
    found = [_comment(item) for item in items]
    found.sort(key=lambda c: (c.created, c.id))
    return found


def get_comment(repo_id: int, number: int, review_id: int, comment_id: int) -> ReviewComment | None:
    item = unit_of_work.get(ReviewCommentItem,
                            keys.review_comment(int(repo_id), int(number), int(review_id),
                                                int(comment_id)))
    return _comment(item) if item is not None else None


# Writes -----------------------------------------------------------------------------------

def new_review_id() -> int:
    return ids.next_id("review")


def new_comment_id() -> int:
    # Review comments and issue comments share Forgejo's one comment id space.
    return ids.next_id("comment")


def stage_create(repo_id: int, review: Review,
                 comments: Iterable[ReviewComment] = ()) -> None:
    """A new review (its key must be free) with its first code comments."""
    uow = unit_of_work.current()
    listed = list(comments)
    review.comments_count = len(listed)
    uow.put(_review_item(repo_id, review), label=REVIEW, must_not_exist=True)
    for c in listed:
        uow.put(_comment_item(repo_id, c), label=REVIEW, must_not_exist=True)


def stage_replace(repo_id: int, review: Review, read_version: int, *,
                  only_if_state: str | None = None,
                  comments: Iterable[ReviewComment] = (), label: str = REVIEW) -> None:
    """Write ``review`` whole if nobody changed it since ``read_version`` (and, with
    ``only_if_state``, if it is still in that state): ``ConditionFailed(REVIEW)``
    otherwise.  ``comments`` are added with it (``comments_count`` moved here)."""
    uow = unit_of_work.current()
    listed = list(comments)
    review.comments_count += len(listed)
    review.version = int(read_version) + 1
    condition = ReviewItem.version == int(read_version)
    if only_if_state is not None:
        condition = condition & (ReviewItem.state == only_if_state)
    uow.put(_review_item(repo_id, review), label=label, condition=condition)
    for c in listed:
        uow.put(_comment_item(repo_id, c), label=REVIEW, must_not_exist=True)


def stage_delete(repo_id: int, review: Review, comments: Iterable[ReviewComment]) -> None:
    """Delete the review as read (``ConditionFailed(REVIEW)`` if it changed: a comment
    added meanwhile bumps its version) with the comments read."""
    uow = unit_of_work.current()
    uow.delete(ReviewItem(*review_key(repo_id, review.number, review.id)), label=REVIEW,
               condition=ReviewItem.version == int(review.version))
    for c in comments:
        uow.delete(ReviewCommentItem(*keys.review_comment(repo_id, c.number, c.review_id, c.id)),
                   label="review comment")


def stage_delete_comment(repo_id: int, review: Review, comment: ReviewComment) -> None:
    """Delete one code comment; the review's count moves with it (conditional on the
    review as read)."""
    uow = unit_of_work.current()
    uow.delete(ReviewCommentItem(*keys.review_comment(repo_id, comment.number,
                                                      comment.review_id, comment.id)),
               label=REVIEW, condition=ReviewCommentItem.id.exists())
    uow.update(ReviewItem(*review_key(repo_id, review.number, review.id)),
               [ReviewItem.comments_count.set(max(0, review.comments_count - 1)),
                ReviewItem.version.set(review.version + 1)],
               label=REVIEW, condition=ReviewItem.version == int(review.version))


def stage_invalidate(repo_id: int, comment: ReviewComment) -> None:
    """Mark a code comment outdated (the head changed its line)."""
    unit_of_work.current().update(
        ReviewCommentItem(*keys.review_comment(repo_id, comment.number, comment.review_id,
                                               comment.id)),
        [ReviewCommentItem.invalidated.set(True)], label="review comment",
        condition=ReviewCommentItem.id.exists())


def stage_purge(repo_id: int, number: int) -> int:
    """Delete every review and code comment of pull request ``number`` (the pull request
    was deleted: its number is never handed out again, so nothing can be read through
    them, but they must not stay behind).  Returns how many items were staged."""
    uow = unit_of_work.current()
    partition = keys.repo_partition(int(repo_id))
    found = [*ReviewItem.query(partition, ReviewItem.sk.startswith(keys.review_prefix(number)),
                               consistent_read=True),
             *ReviewCommentItem.query(
                 partition, ReviewCommentItem.sk.startswith(keys.review_comment_prefix(number)),
                 consistent_read=True)]
    for item in found:
        uow.delete(item, label="review content")
    return len(found)

"""An issue's timeline (issueGetCommentsAndTimeline; fj:routers/api/v1/repo/issue_comment.go
ListIssueCommentsAndTimeline): its comments, the changes Forgejo records as typed
comments, the references to it and, for a pull request, what its reviews record,
oldest first.

It lives with the reviews because it reads both domains: from the issues domain
(``issues.issue_timeline``) one Query of the comments together with the events (close,
reopen, merge_pull, label, milestone, assignees, change_title, deadlines, delete_branch,
pull_push: ``issues/timeline_store.py``), one of the references (commit_ref, issue_ref, pull_ref,
comment_ref) and, only when a reference comes from another issue or comment, one
BatchGetItem of those; for a pull request its review items (``store.reviews_of``: one
Query more).  Never an item per comment or per review.

From the review items, as Forgejo's timeline shows them:
- a submitted review is a ``review`` entry at its submit time (a pending one only for
  whoever may see it: ``service.may_see``, the reviews routes' rule);
- a review request is a ``review_request`` entry naming who was asked (a user or a team;
  a withdrawn request is deleted with its item, so it is not shown);
- a dismissed review adds a ``dismiss_review`` entry at the review's last change.

What the items do not record is left out rather than made up: who asked for a review
or dismissed one (Forgejo's ``user`` of those entries; ours is null), the dismissal's
message, and the changes made before the issues domain wrote events (an old issue shows
its comments, references and reviews only).  A dismissal has no item of its own: it
carries its review's id.
"""
from __future__ import annotations

from dataclasses import dataclass

from chalicelib import issues
from chalicelib.issues import Ctx
from chalicelib.reviews import service
from chalicelib.reviews.store import PENDING, REQUEST_REVIEW, Review

COMMENT, REVIEW, REVIEW_REQUEST, DISMISS_REVIEW = (
    "comment", "review", "review_request", "dismiss_review")


@dataclass
class Entry:
    """One timeline entry: an issue comment, or what a review item records."""
    type: str
    id: int
    created: int
    updated: int
    comment: object | None = None     # issues.store.Comment (type ``comment``)
    review: Review | None = None      # review types
    found: object | None = None       # an issues timeline event or reference (the rest)

    @property
    def poster(self) -> str:
        """The stored account snapshot of who the entry names as its user ("" if none)."""
        if self.comment is not None:
            return self.comment.poster
        if self.found is not None:
            return self.found.poster
        return self.review.reviewer

    @property
    def order(self) -> tuple[int, int, int]:
        # Forgejo's order is creation time, then id; a dismissal follows its review.
        return self.created, self.id, int(self.type == DISMISS_REVIEW)


def _in_range(entry: Entry, since: int | None, before: int | None) -> bool:
    """Forgejo filters a timeline on each entry's update time."""
    return (since is None or entry.updated >= since) and \
        (before is None or entry.updated <= before)


def _review_entries(review: Review) -> list[Entry]:
    created = int(review.submitted_at or review.updated)
    if review.state == REQUEST_REVIEW:
        return [Entry(REVIEW_REQUEST, review.id, created, int(review.updated), review=review)]
    found = [Entry(REVIEW, review.id, created, int(review.updated), review=review)]
    if review.dismissed and review.state != PENDING:
        found.append(Entry(DISMISS_REVIEW, review.id, int(review.updated), int(review.updated),
                           review=review))
    return found


def timeline(ctx: Ctx, number: int, since: int | None = None,
             before: int | None = None) -> tuple[object, list[Entry]]:
    """The issue (404 when missing) and its whole timeline in the range, oldest first."""
    read = issues.issue_timeline(ctx, number)
    issue = read.issue
    found = [Entry(COMMENT, int(c.id), int(c.created), int(c.updated), comment=c)
             for c in read.comments]
    found += [Entry(f.type, f.id, f.created, f.created, found=f) for f in read.entries]
    found = [e for e in found if _in_range(e, since, before)]
    if issue.is_pull:
        for review in service.list_reviews(ctx, number):
            found += [e for e in _review_entries(review) if _in_range(e, since, before)]
    found.sort(key=lambda e: e.order)
    return issue, found

"""Reviews brought in by a project migration (``chalicelib.migrations``): a pull
request's submitted reviews and their code comments, with the states, bodies, commits,
lines and dates the source had.

The migration calls these inside its own units of work, beside the write that moves
its cursor:

- each source review gets its local id when its pull request is written
  (``new_ids``), and the pull request's standing verdicts are computed from them then
  (``verdicts``), so the merge gate and the search index see the reviews with the pull
  request, and the ids never change when the step resumes;
- a review is put under that id (``must_not_exist``) with its ``comments_count`` the
  count it will have, so the code comments that follow (in chunks, as many
  transactions as they need) never touch it, and a second write of the same source
  review fails instead of doubling it.

Authors: Forgejo's PullReview and PullReviewComment carry no original author, so a
person the migration matched to a local user is the reviewer; anyone else's review
stands under the migrating user (``issues.ImportedAuthor.account``), as Forgejo's
migration shows them.  Only submitted reviews come in (approved, changes requested,
commented): a pending review is its author's alone, and a review request is not a
review.  No events are raised: a migration notifies nobody.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from chalicelib import pulls
from chalicelib.accounts import account_snapshot
from chalicelib.reviews.models import ReviewCommentItem, ReviewItem, keys
from chalicelib.reviews.store import APPROVED, COMMENT, REQUEST_CHANGES, REVIEW, Review
from chalicelib.store import ids, unit_of_work

SUBMITTED = (APPROVED, REQUEST_CHANGES, COMMENT)


@dataclass(frozen=True)
class ImportedReviewComment:
    author: object               # issues.ImportedAuthor
    body: str
    path: str
    line: int                    # > 0 new side, < 0 old side
    diff_hunk: str = ""
    commit_id: str = ""
    created: int = 0
    updated: int = 0


@dataclass(frozen=True)
class ImportedReview:
    local_id: int
    author: object               # issues.ImportedAuthor
    state: str
    body: str = ""
    commit_id: str = ""
    official: bool = False
    created: int = 0
    num_comments: int = 0        # the code comments it will have


def _snapshot(account) -> str:
    return json.dumps(account_snapshot(account), separators=(",", ":"), sort_keys=True)


def new_ids(source_ids: Iterable[int]) -> dict[str, int]:
    """A local id for each source review ({source id as text: local id}: the cursor's
    JSON form)."""
    return {str(int(s)): ids.next_id("review") for s in source_ids}


def verdicts(number: int, imported: Iterable[ImportedReview]) -> list[dict]:
    """The pull request's standing verdicts (``PullFields.verdicts``) once these
    reviews are written."""
    return pulls.standing([
        Review(id=r.local_id, number=int(number), reviewer_id=int(r.author.account.id),
               state=r.state, commit_id=r.commit_id, official=bool(r.official),
               submitted_at=int(r.created), updated=int(r.created))
        for r in imported if r.state in SUBMITTED])


def stage_review(repo_id: int, number: int, imported: ImportedReview) -> None:
    """Put the review under its local id (once: a second write fails)."""
    account = imported.author.account
    item = ReviewItem(*keys.review(int(repo_id), int(number), int(imported.local_id)),
                      id=int(imported.local_id), number=int(number),
                      reviewer_id=int(account.id), reviewer=_snapshot(account),
                      state=imported.state if imported.state in SUBMITTED else COMMENT,
                      body=imported.body, commit_id=imported.commit_id,
                      official=bool(imported.official), submitted_at=int(imported.created),
                      updated=int(imported.created), comments_count=int(imported.num_comments))
    unit_of_work.current().put(item, label=REVIEW, must_not_exist=True)


def stage_comments(repo_id: int, number: int, review_id: int,
                   comments: Iterable[ImportedReviewComment]) -> int:
    """Put code comments under the review (its ``comments_count`` counted them
    already); how many.  Their ids are in the comments' id space, as Forgejo's."""
    uow = unit_of_work.current()
    written = 0
    for c in comments:
        comment_id = ids.next_id("comment")
        account = c.author.account
        uow.put(ReviewCommentItem(
            *keys.review_comment(int(repo_id), int(number), int(review_id), comment_id),
            id=comment_id, number=int(number), review_id=int(review_id),
            poster_id=int(account.id), poster=_snapshot(account), body=c.body,
            path=c.path, line=int(c.line), commit_id=c.commit_id,
            original_commit_id=c.commit_id, diff_hunk=c.diff_hunk,
            created=int(c.created), updated=int(c.updated or c.created)),
            label="review comment", must_not_exist=True)
        written += 1
    return written

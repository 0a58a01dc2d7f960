"""PullReview and PullReviewComment records (fj:services/convert/pull_review.go), and
the TimelineComment of an issue's timeline (fj:services/convert/issue_comment.go).

A review request of a team has no user; a user's has no team.  Forgejo shows a code
comment's line on the new side as ``position`` and on the old side as
``original_position``; a comment the head outdated keeps its line in
``original_position`` and shows ``position`` 0.
"""
from __future__ import annotations

from types import SimpleNamespace

from chalicelib import accounts, orgs
from chalicelib.http import schemas
from chalicelib.http.formats import rfc3339
from chalicelib.http.schema_types import B, I, S, T, nullable, ref
from chalicelib.issues import TIMELINE_EMPTY, issue_html_url
from chalicelib.pulls import TEAM_DEFAULTS
from chalicelib.reviews.timeline import COMMENT, REVIEW, REVIEW_REQUEST

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "PullReview": {"id": I, "user": nullable(ref("User")), "team": nullable(ref("Team")),
                   "state": S, "body": S, "commit_id": S, "stale": B, "official": B,
                   "dismissed": B, "comments_count": I, "submitted_at": T, "updated_at": T,
                   "html_url": S, "pull_request_url": S},
    "PullReviewComment": {"id": I, "body": S, "user": ref("User"),
                          "resolver": nullable(ref("User")), "pull_request_review_id": I,
                          "created_at": T, "updated_at": T, "path": S, "commit_id": S,
                          "original_commit_id": S, "diff_hunk": S, "position": I,
                          "original_position": I, "extra_lines_count": I, "html_url": S,
                          "pull_request_url": S},
    "TimelineComment": {
    "id": I, "type": S, "html_url": S, "pull_request_url": S, "issue_url": S,
    "user": nullable(ref("User")), "body": S, "created_at": T, "updated_at": T,
    "old_project_id": I, "project_id": I, "old_milestone": nullable(ref("Milestone")),
    "milestone": nullable(ref("Milestone")), "tracked_time": nullable(ref("TrackedTime")),
    "old_title": S, "new_title": S, "old_ref": S, "new_ref": S,
    "ref_issue": nullable(ref("Issue")), "ref_comment": nullable(ref("Comment")),
    "ref_action": S, "ref_commit_sha": S, "review_id": I, "label": nullable(ref("Label")),
    "assignee": nullable(ref("User")), "assignee_team": nullable(ref("Team")),
    "resolve_doer": nullable(ref("User")), "dependent_issue": nullable(ref("Issue")),
    "removed_assignee": B,
},
}, lists=("PullReview", "PullReviewComment"))


def _team_record(review, owner) -> dict | None:
    if not review.team_id or owner is None:
        return None
    return orgs.team_record(SimpleNamespace(**{**TEAM_DEFAULTS, **review.team}), owner)


def pull_review(review, view, viewer, *, reviewer, owner) -> dict:
    """``review``: a reviews.store.Review; ``reviewer``: its account (None for a team)."""
    pull_url = issue_html_url(view, review.number, True)
    team = _team_record(review, owner)
    return {
        "id": review.id,
        "user": accounts.user_record(reviewer, viewer) if reviewer is not None else None,
        "team": team,
        "state": review.state,
        "body": review.body,
        "commit_id": review.commit_id,
        "stale": review.stale,
        "official": review.official,
        "dismissed": review.dismissed,
        "comments_count": review.comments_count,
        "submitted_at": rfc3339(review.submitted_at or review.updated),
        "updated_at": rfc3339(review.updated),
        "html_url": f"{pull_url}#issuecomment-{review.id}",
        "pull_request_url": pull_url,
    }


def review_comment(comment, view, viewer, *, poster) -> dict:
    pull_url = issue_html_url(view, comment.number, True)
    line = abs(comment.line)
    if comment.invalidated:
        position, original = 0, line
    elif comment.line < 0:
        position, original = 0, line
    else:
        position, original = line, 0
    return {
        "id": comment.id,
        "body": comment.body,
        "user": accounts.user_record(poster, viewer),
        "resolver": None,
        "pull_request_review_id": comment.review_id,
        "created_at": rfc3339(comment.created),
        "updated_at": rfc3339(comment.updated),
        "path": comment.path,
        "commit_id": comment.commit_id,
        "original_commit_id": comment.original_commit_id,
        "diff_hunk": comment.diff_hunk,
        "position": position,
        "original_position": original,
        "extra_lines_count": 0,
        "html_url": f"{pull_url}/files#issuecomment-{comment.id}",
        "pull_request_url": pull_url,
    }


def timeline_comment(entry, view, viewer, *, is_pull: bool, user, owner) -> dict:
    """A TimelineComment (fj:services/convert/issue_comment.go ToTimelineComment) of a
    reviews.timeline.Entry.  ``user``: the comment's poster or the review's reviewer
    (None when the entry does not record one)."""
    issue_url = issue_html_url(view, (entry.comment.issue_number if entry.comment is not None
                                      else entry.review.number), is_pull)
    record = {
        "id": entry.id, "type": entry.type,
        "html_url": f"{issue_url}#issuecomment-{entry.id}",
        "pull_request_url": issue_url if is_pull else "",
        "issue_url": "" if is_pull else issue_url,
        "user": None, "body": "",
        "created_at": rfc3339(entry.created), "updated_at": rfc3339(entry.updated),
        **TIMELINE_EMPTY,
    }
    if entry.type == COMMENT:
        record.update(user=accounts.user_record(user, viewer), body=entry.comment.body)
        return record
    record["review_id"] = entry.review.id
    if entry.type == REVIEW:
        record.update(user=accounts.user_record(user, viewer) if user is not None else None,
                      body=entry.review.body)
    elif entry.type == REVIEW_REQUEST:
        # Who was asked; who asked is not recorded.
        record.update(assignee=accounts.user_record(user, viewer) if user is not None else None,
                      assignee_team=_team_record(entry.review, owner))
    return record

"""PullReview and PullReviewComment records (fj:services/convert/pull_review.go).

A review request of a team has no user; a user's has no team.  Forgejo shows a code
comment's line on the new side as ``position`` and on the old side as
``original_position``; a comment the head outdated keeps its line in
``original_position`` and shows ``position`` 0.
"""
from __future__ import annotations

from types import SimpleNamespace

from chalicelib.accounts import records as account_records
from chalicelib.http.formats import rfc3339
from chalicelib.issues.records import issue_html_url
from chalicelib.orgs import records as org_records
from chalicelib.pulls.records import TEAM_DEFAULTS


def pull_review(review, view, viewer, *, reviewer, owner) -> dict:
    """``review``: a reviews.store.Review; ``reviewer``: its account (None for a team)."""
    pull_url = issue_html_url(view, review.number, True)
    team = None
    if review.team_id and owner is not None:
        team = org_records.team(SimpleNamespace(**{**TEAM_DEFAULTS, **review.team}), owner)
    return {
        "id": review.id,
        "user": account_records.user(reviewer, viewer) if reviewer is not None else None,
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
        "user": account_records.user(poster, viewer),
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

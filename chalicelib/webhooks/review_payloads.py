"""Code review webhooks (fj:services/webhook/notifier.go PullRequestReview,
PullRequestReviewRequest; services/issue/assignee.go teamReviewRequestNotify).

A submitted review sends one PullRequestPayload with action ``reviewed`` under the
event type its verdict names (approved, rejected, comment; a pending review, a review
request, a dismissal or a deletion sends none, as Forgejo): the reviewer is both the
``sender`` and the ``requested_reviewer``, the pull request is shown as the reviewer
sees it, the repository with the pull request poster's permission, and ``review``
carries the event type and the review's body.

A review request sends ``pull_request_review_request`` with action ``review_requested``
or ``review_request_removed``: the doer is the sender (and whose permission the
repository shows), ``requested_reviewer`` the user asked.  A team asked sends one
payload per member of the team other than the poster; a team's request withdrawn
sends none (Forgejo notifies team members of additions only).
"""
from __future__ import annotations

from chalicelib import accounts, events
from chalicelib.webhooks import sources as webhook_sources

# Review state -> the hook event type a submitted review raises.
HOOK_OF_STATE = {
    "APPROVED": "pull_request_review_approved",
    "REQUEST_CHANGES": "pull_request_review_rejected",
    "COMMENT": "pull_request_review_comment",
}


def _pull_payload(b, item, action: str, reviewer, access, review: dict | None) -> dict:
    return {"action": action, "number": int(item.number),
            "pull_request": b.pull_request(item),
            "requested_reviewer": accounts.user_record(reviewer, None)
            if reviewer is not None else None,
            "repository": b.repository(access), "sender": b.sender(),
            "commit_id": "", "review": review}


def review_payloads(b, e: events.PullReviewChanged) -> list:
    hook = HOOK_OF_STATE.get(e.state)
    item = webhook_sources.issue_from(e.issue)
    if e.action != "submitted" or hook is None or item is None:
        return []
    reviewer = webhook_sources.account((e.review or {}).get("reviewer") or e.actor)
    poster = webhook_sources.account(item.poster)
    data = _pull_payload(b, item, "reviewed", reviewer, b.access("poster", poster),
                         {"type": hook, "content": (e.review or {}).get("body", "")})
    return [b.payload(hook, "reviewed", data)]


def _team_members(team_id: int, poster_id: int) -> list:
    from chalicelib import orgs

    ids = [int(m.user_id) for m in orgs.list_team_members(int(team_id))
           if int(m.user_id) != int(poster_id)]
    return sorted(accounts.accounts_by_ids(ids), key=lambda a: int(a.id)) if ids else []


def request_payloads(b, e: events.ReviewRequestChanged) -> list:
    item = webhook_sources.issue_from(e.issue)
    if item is None or e.action not in ("review_requested", "review_request_removed"):
        return []
    if e.reviewer:
        asked = [webhook_sources.account(e.reviewer)]
    elif e.team and e.action == "review_requested":
        asked = _team_members(int(e.team.get("id") or 0), int(item.poster_id or 0))
    else:
        asked = []
    access = b.access("doer")
    return [b.payload("pull_request_review_request", e.action,
                      _pull_payload(b, item, e.action, reviewer, access, None))
            for reviewer in asked]

"""What a pull request's pages show of its code review: the submitted reviews (their
bodies rendered as every comment is), the requested reviewers, the caller's pending
review, who may review, and the diff as numbered rows with the code comments under their
lines.

No routes here: ``pull_view`` (the conversation and the files view) and
``actions_reviews`` (a refused form shown again) both call it.  Everything comes from
``reviews.service`` (one Query lists the reviews, one the code comments when the diff is
shown), the rules the API applies: a pending review is its author's alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from chalicelib import reviews
from chalicelib.accounts import account_from
from chalicelib.http.message import ApiRequest
from chalicelib.issues import fresh_accounts
from chalicelib.web import diff_table, present

PENDING, REQUEST_REVIEW = "PENDING", "REQUEST_REVIEW"
EVENTS = (("APPROVED", "Approve"), ("REQUEST_CHANGES", "Request changes"),
          ("COMMENT", "Comment"))
STATE_LABELS = {"APPROVED": "approved", "REQUEST_CHANGES": "requested changes",
                "COMMENT": "commented", PENDING: "pending review"}
# A review's badge, as people read it (the API's states are words for programs).
STATE_BADGES = {"APPROVED": "Approved", "REQUEST_CHANGES": "Changes requested",
                "COMMENT": "Comment", PENDING: "Pending", "REQUEST_REVIEW": "Review requested"}


@dataclass
class Shown:
    """A code comment as the diff shows it: its record and its rendered body."""
    record: dict
    html: str
    path: str
    line: int
    pending: bool


def _reviewer(ctx, review):
    return account_from(review.reviewer, fresh_accounts(ctx)) if review.reviewer_id else None


def review_values(req: ApiRequest, web, ctx, view, record: dict, *,
                  diff_text: str | None = None, found: list | None = None) -> dict:
    """The values ``review_panel.html`` and ``pull_diff.html`` read.  ``found``: the
    pull request's reviews when the page has listed them already (its timeline)."""
    number = int(record["number"])
    found = reviews.list_reviews(ctx, number) if found is None else found
    shown = [r for r in found if r.state != REQUEST_REVIEW]
    # The code comments go under their lines of the diff: a page without the diff (the
    # conversation) shows each review's count from the review itself, and reads none.
    code = reviews.code_comments_of(ctx, number, shown) if diff_text is not None else []
    texts = [r.body for r in shown] + [c.body for c in code]
    bodies = present.markdown(req, view, texts) if texts else []
    review_bodies, comment_bodies = bodies[:len(shown)], bodies[len(shown):]
    states = {r.id: r.state for r in shown}
    listed = [(reviews.pull_review_record(r, view, req.actor, reviewer=_reviewer(ctx, r),
                                          owner=view.owner), html)
              for r, html in zip(shown, review_bodies)]
    me = web.user
    pending = next((rec for rec, _ in listed if rec["state"] == PENDING and me is not None
                    and rec["user"] and rec["user"]["id"] == int(me.id)), None)
    is_open = record["state"] == "open" and not record["merged"]
    values = {
        "reviews": [(rec, html) for rec, html in listed if rec["state"] != PENDING],
        "pending_review": pending,
        "requested_users": [u["login"] for u in record.get("requested_reviewers") or []],
        "requested_teams": [t["name"] for t in record.get("requested_reviewers_teams") or []],
        "can_review": me is not None and is_open,
        "can_comment_code": me is not None,
        "is_poster": me is not None and int(record["user"]["id"]) == int(me.id),
        "review_events": EVENTS, "state_labels": STATE_LABELS, "state_badges": STATE_BADGES,
        "files_url": files_url(view, number), "line_link": line_link,
    }
    if diff_text is not None:
        comments = [Shown(reviews.review_comment_record(c, view, req.actor,
                                                        poster=account_from(
                                                            c.poster, fresh_accounts(ctx))),
                          html, c.path, c.line, states.get(c.review_id) == PENDING)
                    for c, html in zip(code, comment_bodies)]
        values["diff"] = diff_table.attach(diff_table.parse(diff_text), comments)
    return values


def files_url(view, number: int) -> str:
    from chalicelib.web.view import path_url

    return path_url(view.owner.login, view.repo.name, "pulls", str(number), "files")


def line_link(base: str, path: str, line: int) -> str:
    """The files view with the comment form open under ``line`` of ``path``."""
    return base + "?" + urlencode({"path": path, "line": str(line)}) + "#comment-form"

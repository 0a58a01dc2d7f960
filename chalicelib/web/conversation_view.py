"""What an issue's and a pull request's conversation shows, and how their pages read
it: the body and comments rendered as markdown, the timeline's events and references
(worded by ``timeline_event.html``), a pull request's review requests and reviews among
them, the reaction badges, and the edit sidebar's values.

No page of its own: ``issue_pages`` (the issue) and ``pull_pages`` (the pull request's
three tabs) use it, and ``actions_reviews`` when it shows the conversation again with a
refused review request.  ``tracker_page`` registers a page whose path names an issue:
the gateway's second batched read then holds the issue and the tracker with the
caller's access (what the API's issue routes preload), so neither costs a call of its
own.
"""
from __future__ import annotations

import functools
import json
from datetime import datetime, timezone
from typing import Callable

from chalicelib import accounts, issues
from chalicelib.errors import NotFoundError
from chalicelib.http import auth
from chalicelib.http.message import ApiRequest
from chalicelib.http.router import SESSION, route
from chalicelib.issues import IssueRenderer
from chalicelib.repos import repo_preload
from chalicelib.web import present
from chalicelib.web.view import Web, serve

PENDING, REQUEST_REVIEW = "PENDING", "REQUEST_REVIEW"


def number_of(req: ApiRequest) -> int:
    raw = req.params["index"]
    if not raw.isdigit():
        raise NotFoundError(f"issue does not exist [index: {raw}]")
    return int(raw)


def _issue_more(req: ApiRequest, user_id: int | None) -> list:
    """The second preload batch: the caller's access items (the session's user when no
    token names one) and account, the tracker and the issue the path names."""
    user_id = user_id or auth.session_user_id(req)
    keys = issues.issue_preload_more(req, user_id)
    return keys + ([accounts.account_key(user_id)] if user_id else [])


def tracker_page(pattern: str, name: str) -> Callable:
    """As ``view.page("GET", pattern, name, in_repo=True)``, with the issue of the
    path's ``{index}`` and the tracker read in the access batch."""
    def register(func: Callable) -> Callable:
        @functools.wraps(func)
        def handler(req: ApiRequest):
            return serve(req, func, in_repo=True)
        route("GET", pattern, name, tag="web", raw=True, in_swagger=False,
              credentials=SESSION, scope=None, preload=repo_preload,
              preload_more=_issue_more)(handler)
        return func
    return register


def conversation(req: ApiRequest, ctx, view, number: int, record: dict, is_pull: bool,
                 more: list | None = None):
    """The issue's body rendered, and its conversation oldest first: each comment as
    ``(record, html)``, each event or reference as ``(TimelineComment record, None)``
    (``conversation.html`` words it); the comment pairs alone come third.  ``more``:
    further ``((created, id), (record, None))`` entries (a pull request's reviews)."""
    renderer = IssueRenderer(req, ctx)
    read = issues.issue_timeline(ctx, number)
    comment_records = [renderer.comment(c, is_pull) for c in read.comments]
    bodies = present.markdown(req, view, [record.get("body") or "",
                                          *[c.get("body") or "" for c in comment_records]])
    comments = list(zip(comment_records, bodies[1:]))
    events = issues.TimelineRenderer(req, ctx)
    ordered = [((int(c.created), int(c.id)), pair) for c, pair in zip(read.comments, comments)]
    ordered += [((f.created, f.id),
                 (_with_push(events.record(f, number=number, is_pull=is_pull)), None))
                for f in read.entries]
    ordered += more or []
    ordered.sort(key=lambda kv: kv[0])
    return bodies[0], [pair for _, pair in ordered], comments


def _with_push(record: dict) -> dict:
    """A ``pull_push`` record with its JSON body read (``pushed``: is_force_push and
    commit_ids), for ``timeline_event.html`` to word; other records as they are."""
    if record.get("type") != "pull_push":
        return record
    try:
        pushed = json.loads(record.get("body") or "{}")
    except ValueError:
        pushed = {}
    if not isinstance(pushed, dict):
        pushed = {}
    ids = [i for i in pushed.get("commit_ids") or [] if isinstance(i, str)]
    return {**record, "pushed": {"force": bool(pushed.get("is_force_push")), "ids": ids}}


def _stamp(seconds: int) -> str:
    return datetime.fromtimestamp(int(seconds or 0), timezone.utc).isoformat()


def review_entries(listed: list) -> list:
    """A pull request's review requests and reviews (``listed``: the reviews the page
    read once for its review panel too) as timeline entries, as the timeline API lists
    them: who was asked, each submitted verdict, each dismissal.  Who asked or
    dismissed is not recorded, so those name nobody."""
    found = []
    for review in listed:
        when = int(review.submitted_at or review.updated or 0)
        entry = {"id": review.id, "user": review.reviewer or None, "created_at": _stamp(when),
                 "state": review.state}
        if review.state == REQUEST_REVIEW:
            found.append(((when, review.id), ({**entry, "type": "review_request", "user": None,
                                                "assignee": review.reviewer or None,
                                                "assignee_team": review.team or None}, None)))
        elif review.state != PENDING:
            found.append(((when, review.id), ({**entry, "type": "review"}, None)))
            if review.dismissed:
                at = int(review.updated or when)
                found.append(((at, review.id), ({**entry, "type": "dismiss_review", "user": None,
                                                  "assignee": review.reviewer or None,
                                                  "created_at": _stamp(at)}, None)))
    return found


def edit_values(web: Web, ctx, item, record: dict) -> dict:
    """What the page's edit forms need: who may change the title and body (the poster
    or a writer, as issueEditIssue) and the labels, milestone and assignees (writers),
    with the choices from the tracker already read."""
    me = web.user
    can_triage = me is not None and ctx.can_write_for(item)
    can_edit = me is not None and (can_triage or int(item.poster_id) == int(me.id))
    if not can_edit:
        return {"can_edit": False, "can_triage": False}
    tracker = ctx.tracker()
    having = {int(label["id"]) for label in record.get("labels") or []}
    return {"can_edit": True, "can_triage": can_triage,
            "label_choices": [(i, entry.get("name", ""), entry.get("color", ""), i in having)
                              for i, entry in sorted(tracker.labels.items(),
                                                     key=lambda kv: kv[1].get("name", ""))],
            "milestone_choices": sorted(((i, m.get("title", ""))
                                         for i, m in tracker.milestones.items()
                                         if m.get("state") == "open"
                                         or i == int(item.milestone_id or 0)),
                                        key=lambda kv: kv[1]),
            "assignee_names": ", ".join(a["login"] for a in record.get("assignees") or [])}


def reaction_badges(ctx, number: int) -> dict[int, list[tuple[str, int]]]:
    """{0 (the issue) or comment id: [(emoji or ``:name:``, count)]}: one Query."""
    return {target: [(issues.REACTION_EMOJI.get(content, f":{content}:"), n)
                     for content, n in found]
            for target, found in issues.reaction_counts(ctx, number).items()}

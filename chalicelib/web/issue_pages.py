"""Issues and pull requests: the lists (state, labels, milestone, assignee, poster,
mentioned, search, paging, the open and closed counts) and one issue with its
conversation (``conversation_view``: the body and comments rendered as markdown, the
timeline's events worded by ``timeline_event.html``, the reactions) and, for whoever may
change them, the forms of ``actions_issue_edit``.

An issue's number that belongs to a pull request shows the pull request's conversation
(``pull_pages``, where its commits and files changed have their own tabs).
"""
from __future__ import annotations

from urllib.parse import urlencode

from chalicelib import issues, pulls
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.issues import IssueRenderer
from chalicelib.pulls import PullRenderer
from chalicelib.repos import caller, current_repo
from chalicelib.web import pull_pages
from chalicelib.web.conversation_view import (conversation, edit_values, number_of,
                                              reaction_badges, tracker_page)
from chalicelib.web.actions_forms import repo_values
from chalicelib.web.view import pager
from chalicelib.web.view import Web, page, render

STATES = ("open", "closed", "all")


def _split(req: ApiRequest, name: str) -> list[str]:
    return [s.strip() for s in (req.arg(name) or "").split(",") if s.strip()]


# The people filters: the query's names for them, the issue search's fields.
PEOPLE = (("assignee", "assigned_by"), ("poster", "created_by"), ("mentioned", "mentioned_by"))


def _filters(req: ApiRequest) -> dict:
    state = (req.arg("state") or "open").lower()
    return {"state": state if state in STATES else "open", "q": (req.arg("q") or "").strip(),
            "labels": _split(req, "labels"), "milestone": (req.arg("milestone") or "").strip(),
            **{name: (req.arg(name) or "").strip().lstrip("@") for name, _ in PEOPLE}}


def _query(wanted: dict, kind: str, state: str | None = None) -> issues.IssueQuery:
    return issues.IssueQuery(
        state=state or wanted["state"], kind=kind, keyword=wanted["q"], labels=wanted["labels"],
        milestones=[wanted["milestone"]] if wanted["milestone"] else [],
        **{field: wanted[name] for name, field in PEOPLE})


def _filtered(wanted: dict) -> bool:
    return any(wanted[name] for name in ("q", "labels", "milestone", *dict(PEOPLE)))


def _counts(ctx, wanted: dict, kind: str) -> dict:
    """Open and closed items the filters match: the tracker's counters when nothing
    else is asked (no read), else the filtered list of each state."""
    if not _filtered(wanted):
        tracker, letter = ctx.tracker(), "p" if kind == "pulls" else "i"
        return {"open": tracker.total("o", letter), "closed": tracker.total("c", letter)}
    return {state: issues.list_issues(ctx, _query(wanted, kind, state), 0, 0)[1]
            for state in ("open", "closed")}


def _tracker_values(ctx) -> dict:
    tracker = ctx.tracker()
    return {"all_labels": sorted((entry.get("name", "") for entry in tracker.labels.values())),
            "all_milestones": sorted(entry.get("title", "")
                                     for entry in tracker.milestones.values())}


def _list_values(req: ApiRequest, view, ctx, wanted: dict, kind: str) -> dict:
    """What the filter bar shows: the current filters, the counts, a link per state."""
    base = [(k, v) for k, v in (("labels", ",".join(wanted["labels"])),
                                ("milestone", wanted["milestone"]), ("q", wanted["q"]),
                                *((name, wanted[name]) for name, _ in PEOPLE)) if v]
    state_links = {state: "?" + urlencode([("state", state), *base])
                   for state in ("open", "closed")}
    return {"filters": wanted, "counts": _counts(ctx, wanted, kind), "state_links": state_links,
            "filtered": _filtered(wanted), **_tracker_values(ctx)}


@page("GET", "/{owner}/{repo}/issues", "webRepoIssues", in_repo=True)
def issue_list(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    ctx = issues.issue_context(caller(req), view)
    wanted = _filters(req)
    page_ = paging.page_of(req)
    found, total = issues.list_issues(ctx, _query(wanted, "issues"), page_.offset, page_.limit)
    renderer = IssueRenderer(req, ctx)
    return render(web, "issues.html", title="Issues", items=[renderer.issue(i) for i in found],
                  pager=pager(req, total), kind="issues",
                  **_list_values(req, view, ctx, wanted, "issues"),
                  **repo_values(req, view, "issues"))


@tracker_page("/{owner}/{repo}/issues/{index}", "webRepoIssue")
def issue_one(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    ctx = issues.issue_context(caller(req), view)
    item = issues.get_issue(ctx, number_of(req))
    if item.is_pull:
        return pull_pages.conversation_page(req, web, view, int(item.number))
    record = IssueRenderer(req, ctx).issue(item)
    body_html, timeline, comments = conversation(req, ctx, view, int(item.number), record,
                                                 False)
    return render(web, "issue.html", title=f"{record['title']} #{record['number']}",
                  issue=record, body_html=body_html, comments=comments, timeline=timeline,
                  reactions=reaction_badges(ctx, int(item.number)),
                  **edit_values(web, ctx, item, record), **repo_values(req, view, "issues"))


@page("GET", "/{owner}/{repo}/pulls", "webRepoPulls", in_repo=True)
def pull_list(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    ctx = pulls.pull_context(caller(req), view)
    wanted = _filters(req)
    if _filtered(wanted):
        # The pull list's filters are ids; the issue search takes names and keywords.
        page_ = paging.page_of(req)
        found, total = issues.list_issues(issues.issue_context(caller(req), view),
                                          _query(wanted, "pulls"), page_.offset, page_.limit)
    else:
        page_ = paging.page_of(req)
        found, total = pulls.list_pulls(ctx, pulls.PullQuery(state=wanted["state"]),
                                        page_.offset, page_.limit)
    renderer = PullRenderer(req, ctx)
    return render(web, "issues.html", title="Pull requests",
                  items=renderer.pulls(found), pager=pager(req, total), kind="pulls",
                  **_list_values(req, view, ctx, wanted, "pulls"),
                  **repo_values(req, view, "pulls"))

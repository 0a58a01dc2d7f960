"""Issues and pull requests: the lists (state, labels, milestone, assignee, poster,
mentioned, search, paging, the open and closed counts) and one issue or pull request
with its conversation rendered as markdown, its timeline's events worded
(``timeline_event.html``: a pull request's review requests and reviews too) and, for
whoever may change them, the forms of ``actions_issue_edit``.

A pull request's page shows its reviews and requested reviewers, its commits, changed
files and diff (numbered lines, code comments under theirs), its head's commit statuses
and mergeability; signed-in callers see the review form (``actions_reviews``), writers
the merge form (the styles the repository allows), which posts to
``/{owner}/{repo}/pulls/{n}/merge``.  ``/pulls/{n}/files`` shows the diff alone, with
the form for a comment on the line its ``path`` and ``line`` arguments name.
"""
from __future__ import annotations

from datetime import datetime, timezone
from urllib.parse import urlencode

from chalicelib import contents, issues, pulls, repos, reviews, statuses
from chalicelib.errors import NotFoundError
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.issues import IssueRenderer
from chalicelib.pulls import PullRenderer
from chalicelib.repos import caller, current_repo
from chalicelib.web import present, review_view
from chalicelib.web.pages import pager, repo_values
from chalicelib.web.view import Web, page, render

STATES = ("open", "closed", "all")
PENDING, REQUEST_REVIEW = "PENDING", "REQUEST_REVIEW"
MERGE_STYLES = (("merge", "Create merge commit"), ("rebase", "Rebase and fast-forward"),
                ("rebase-merge", "Rebase and create merge commit"),
                ("squash", "Squash and merge"), ("fast-forward-only", "Fast-forward only"))


def _number(req: ApiRequest) -> int:
    raw = req.params["index"]
    if not raw.isdigit():
        raise NotFoundError(f"issue does not exist [index: {raw}]")
    return int(raw)


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


def _conversation(req: ApiRequest, ctx, view, number: int, record: dict, is_pull: bool,
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
    ordered += [((f.created, f.id), (events.record(f, number=number, is_pull=is_pull), None))
                for f in read.entries]
    ordered += more or []
    ordered.sort(key=lambda kv: kv[0])
    return bodies[0], [pair for _, pair in ordered], comments


def _stamp(seconds: int) -> str:
    return datetime.fromtimestamp(int(seconds or 0), timezone.utc).isoformat()


def _review_entries(listed: list) -> list:
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


def _reaction_badges(ctx, number: int) -> dict[int, list[tuple[str, int]]]:
    """{0 (the issue) or comment id: [(emoji or ``:name:``, count)]}: one Query."""
    return {target: [(issues.REACTION_EMOJI.get(content, f":{content}:"), n)
                     for content, n in found]
            for target, found in issues.reaction_counts(ctx, number).items()}


@page("GET", "/{owner}/{repo}/issues/{index}", "webRepoIssue", in_repo=True)
def issue_one(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    ctx = issues.issue_context(caller(req), view)
    item = issues.get_issue(ctx, _number(req))
    if item.is_pull:
        return pull_one_of(req, web, view, int(item.number))
    record = IssueRenderer(req, ctx).issue(item)
    body_html, timeline, comments = _conversation(req, ctx, view, int(item.number), record,
                                                  False)
    return render(web, "issue.html", title=f"{record['title']} #{record['number']}",
                  issue=record, body_html=body_html, comments=comments, timeline=timeline,
                  reactions=_reaction_badges(ctx, int(item.number)),
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


@page("GET", "/{owner}/{repo}/pulls/{index}", "webRepoPull", in_repo=True)
def pull_one(req: ApiRequest, web: Web) -> ApiResponse:
    return pull_one_of(req, web, current_repo(req), _number(req))


def _statuses(req: ApiRequest, view, sha: str) -> dict | None:
    if not sha:
        return None
    combined = statuses.combined_status(view, caller(req), sha)
    if not combined.shown:
        return None
    return statuses.combined_status_record(combined, view, repos.repository_record(view, req.actor))


def _pull_diff(ctx, item, *, with_commits: bool = True) -> tuple[list, list, str]:
    """(commits, files, diff text) of a pull request; nothing when its refs are gone."""
    view = ctx.view
    html = repos.repo_html_url(view)
    api = repos.repo_api_url(view.owner.login, view.repo.name)
    try:
        commits_shown = [contents.commit_record(c, html, api)
                         for c in pulls.pull_commits(ctx, item)] if with_commits else []
        changes, head = pulls.pull_files(ctx, item)
        files = [contents.changed_file_record(f, html, api, head) for f in changes]
        diff = pulls.pull_diff_or_patch(ctx, item, "diff").decode("utf-8", "replace")
    except NotFoundError:
        commits_shown, files, diff = [], [], ""
    return commits_shown, files, diff[:present.MAX_SHOWN]


def pull_one_of(req: ApiRequest, web: Web, view, number: int) -> ApiResponse:
    ctx = pulls.pull_context(caller(req), view)
    item = pulls.get_pull(ctx, number)
    record = PullRenderer(req, ctx).pull(item)
    issue_ctx = issues.issue_context(caller(req), view)
    listed = reviews.list_reviews(ctx, number)
    body_html, timeline, comments = _conversation(req, issue_ctx, view, number, record, True,
                                                  _review_entries(listed))
    commits_shown, files, diff = _pull_diff(ctx, item)
    base_repo = record["base"].get("repo") or {}
    settings = {**repos.MERGE_DEFAULTS,
                **{k: v for k, v in base_repo.items() if k in repos.MERGE_DEFAULTS}}
    styles = [(style, label) for style, label in MERGE_STYLES
              if settings.get(repos.MERGE_STYLE_SWITCH.get(style, ""), False)]
    can_merge = bool(view.can_write) and record["state"] == "open" and not record["merged"]
    return render(web, "pull.html", title=f"{record['title']} #{record['number']}",
                  pull=record, issue=record, body_html=body_html, comments=comments,
                  timeline=timeline,
                  reactions=_reaction_badges(issue_ctx, number),
                  **edit_values(web, issue_ctx, item, record),
                  commits=commits_shown, files=files,
                  checks=_statuses(req, view, record["head"]["sha"]),
                  merge_styles=styles if can_merge else [],
                  default_style=settings.get("default_merge_style", "merge"),
                  form_csrf=web.csrf if can_merge else "",
                  **review_view.review_values(req, web, ctx, view, record, diff_text=diff,
                                              found=listed),
                  **repo_values(req, view, "pulls"))


@page("GET", "/{owner}/{repo}/pulls/{index}/files", "webRepoPullFiles", in_repo=True)
def pull_files(req: ApiRequest, web: Web) -> ApiResponse:
    """The diff alone; ``?path=&line=`` opens the comment form under that line."""
    view = current_repo(req)
    ctx = pulls.pull_context(caller(req), view)
    item = pulls.get_pull(ctx, _number(req))
    record = PullRenderer(req, ctx).pull(item)
    _, files, diff = _pull_diff(ctx, item, with_commits=False)
    line = req.arg("line") or ""
    chosen = (req.arg("path") or "", int(line) if line.lstrip("-").isdigit() else 0)
    return render(web, "pull_files.html",
                  title=f"Files changed · {record['title']} #{record['number']}",
                  pull=record, files=files, chosen=chosen,
                  **review_view.review_values(req, web, ctx, view, record, diff_text=diff),
                  **repo_values(req, view, "pulls"))

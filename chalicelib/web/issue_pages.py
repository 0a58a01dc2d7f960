"""Issues and pull requests: the lists (state, labels, milestone, search, paging) and
one issue or pull request with its conversation rendered as markdown.

A pull request's page shows its reviews and requested reviewers, its commits, changed
files and diff (numbered lines, code comments under theirs), its head's commit statuses
and mergeability; signed-in callers see the review form (``actions_reviews``), writers
the merge form (the styles the repository allows), which posts to
``/{owner}/{repo}/pulls/{n}/merge``.  ``/pulls/{n}/files`` shows the diff alone, with
the form for a comment on the line its ``path`` and ``line`` arguments name.
"""
from __future__ import annotations

from chalicelib import contents, issues, pulls, repos, statuses
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


def _filters(req: ApiRequest) -> dict:
    state = (req.arg("state") or "open").lower()
    return {"state": state if state in STATES else "open", "q": (req.arg("q") or "").strip(),
            "labels": _split(req, "labels"), "milestone": (req.arg("milestone") or "").strip()}


def _tracker_values(ctx) -> dict:
    tracker = ctx.tracker()
    return {"all_labels": sorted((entry.get("name", "") for entry in tracker.labels.values())),
            "all_milestones": sorted(entry.get("title", "")
                                     for entry in tracker.milestones.values())}


@page("GET", "/{owner}/{repo}/issues", "webRepoIssues", in_repo=True)
def issue_list(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    ctx = issues.issue_context(caller(req), view)
    wanted = _filters(req)
    query = issues.IssueQuery(state=wanted["state"], kind="issues", keyword=wanted["q"],
                              labels=wanted["labels"],
                              milestones=[wanted["milestone"]] if wanted["milestone"] else [])
    page_ = paging.page_of(req)
    found, total = issues.list_issues(ctx, query, page_.offset, page_.limit)
    renderer = IssueRenderer(req, ctx)
    return render(web, "issues.html", title="Issues", items=[renderer.issue(i) for i in found],
                  filters=wanted, pager=pager(req, total), kind="issues",
                  **_tracker_values(ctx), **repo_values(req, view, "issues"))


def _conversation(req: ApiRequest, ctx, view, number: int, record: dict, is_pull: bool):
    """The issue's body rendered, and its conversation oldest first: each comment as
    ``(record, html)``, each event or reference as ``(TimelineComment record, None)``
    (``conversation.html`` words it); the comment pairs alone come third."""
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
    ordered.sort(key=lambda kv: kv[0])
    return bodies[0], [pair for _, pair in ordered], comments


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
                  **repo_values(req, view, "issues"))


@page("GET", "/{owner}/{repo}/pulls", "webRepoPulls", in_repo=True)
def pull_list(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    ctx = pulls.pull_context(caller(req), view)
    wanted = _filters(req)
    if wanted["q"] or wanted["labels"] or wanted["milestone"]:
        # The pull list's filters are ids; the issue search takes names and keywords.
        query = issues.IssueQuery(state=wanted["state"], kind="pulls", keyword=wanted["q"],
                                  labels=wanted["labels"],
                                  milestones=[wanted["milestone"]] if wanted["milestone"] else [])
        page_ = paging.page_of(req)
        found, total = issues.list_issues(issues.issue_context(caller(req), view), query,
                                          page_.offset, page_.limit)
    else:
        page_ = paging.page_of(req)
        found, total = pulls.list_pulls(ctx, pulls.PullQuery(state=wanted["state"]),
                                        page_.offset, page_.limit)
    renderer = PullRenderer(req, ctx)
    return render(web, "issues.html", title="Pull requests",
                  items=renderer.pulls(found), filters=wanted,
                  pager=pager(req, total), kind="pulls", **_tracker_values(ctx),
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
    body_html, timeline, comments = _conversation(req, issue_ctx, view, number, record, True)
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
                  commits=commits_shown, files=files,
                  checks=_statuses(req, view, record["head"]["sha"]),
                  merge_styles=styles if can_merge else [],
                  default_style=settings.get("default_merge_style", "merge"),
                  form_csrf=web.csrf if can_merge else "",
                  **review_view.review_values(req, web, ctx, view, record, diff_text=diff),
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

"""Pull requests in the browser: the compare page, which opens one
(``GET/POST /{owner}/{repo}/compare/{base}...{head}``), and merging
(``POST /{owner}/{repo}/pulls/{index}/merge``, the form on the pull request's page).

The compare page lists the head's commits with ``commit_views.compare`` (what
``repoCompareDiff`` answers) and opens the pull request with ``pulls.create_pull``,
with labels, a milestone and assignees (writers: ``issue_fields``) and reviewers and
teams to ask (``reviewers`` / ``team_reviewers``, the API's fields and rules);
the merge calls ``pull_merging.merge_pull`` with a MergePullRequestOption, so the
allowed styles, the write check and the mergeability are the API's.
"""
from __future__ import annotations

from urllib.parse import quote

from chalicelib import contents, errors, pulls, repos, reviews
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.pulls import CreatePullRequestOption, MergePullRequestOption
from chalicelib.repos import caller, current_repo
from chalicelib.web import issue_fields
from chalicelib.web.actions_forms import (checked, fixable_status, issue_number, posted,
                                          repo_values, show_form)
from chalicelib.web.view import Web, page, path_url, redirect

COMPARE = "forms/compare.html"
MERGE = "forms/merge.html"
# The styles a form may ask for; "manually-merged" needs a commit id and stays API-only.
STYLES = (("merge", "Create merge commit"), ("rebase", "Rebase and fast-forward"),
          ("rebase-merge", "Rebase and create merge commit"), ("squash", "Squash and merge"),
          ("fast-forward-only", "Fast-forward only"))
MAX_SHOWN_COMMITS = 50
# A refused title shows above the form, as it always has; the tracker fields beside theirs.
PULL_FIELDS = {k: v for k, v in issue_fields.FIELDS.items() if k not in ("title", "body")}


def compare_path(view, base: str, head: str) -> str:
    return path_url(view.owner.login, view.repo.name, "compare") + "/" + \
        quote(f"{base}...{head}", safe="/:")


def _split(view, spec: str) -> tuple[str, str]:
    base, sep, head = spec.partition("...")
    if not sep:       # "/compare/feature": the default branch is the base
        base, head = view.repo.default_branch, spec
    return base.strip(), head.strip()


@page("GET", "/{owner}/{repo}/compare", "webCompareChoose", in_repo=True)
def choose(req: ApiRequest, web: Web) -> ApiResponse:
    """The selects' GET form lands here and is sent on to ``base...head``."""
    view = current_repo(req)
    base = (req.arg("base") or view.repo.default_branch).strip()
    head = (req.arg("head") or base).strip()
    return redirect(compare_path(view, base, head))


def _compare_page(req: ApiRequest, web: Web, view, base: str, head: str, *,
                  error: errors.ServiceError | None = None, values: dict | None = None):
    names = sorted(b.name for b in contents.list_branches(view))
    commits, note = [], ""
    if base == head:
        note = "Choose two different branches to compare."
    else:
        found = contents.compare(caller(req), view, f"{base}...{head}")
        commits = [{"sha": c.id.decode(), "subject": c.message.decode("utf-8", "replace")
                    .split("\n", 1)[0], "author": c.author.decode("utf-8", "replace")
                    .split(" <", 1)[0]} for c in found.commits[:MAX_SHOWN_COMMITS]]
        if not found.commits:
            note = f"{base} is up to date with all commits from {head}."
    can_open = web.user is not None and view.can_read and not note
    extra = issue_fields.choices(pulls.pull_context(caller(req), view), people=False) \
        if can_open else {}
    return show_form(web, COMPARE, error=error, title=f"Compare {base}...{head}",
                     fields=PULL_FIELDS,
                     base_branch=base, head_branch=head, branch_names=names,
                     commits=commits, note=note,
                     values=values or {"title": commits[0]["subject"] if commits else "",
                                       "content": ""},
                     chosen=issue_fields.chosen_values(req), can_open=can_open, **extra,
                     **repo_values(req, view, "pulls"))


@page("GET", "/{owner}/{repo}/compare/{spec:path}", "webCompare", in_repo=True)
def compare(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    if view.repo.empty:
        raise errors.NotFoundError("repository is empty")
    base, head = _split(view, req.params["spec"])
    return _compare_page(req, web, view, base, head)


@page("POST", "/{owner}/{repo}/compare/{spec:path}", "webCompareOpenPull", in_repo=True,
      signed_in=True)
def open_pull(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    base, head = _split(view, req.params["spec"])
    form = posted(req)
    values = {"title": form.get("title", ""), "content": form.get("content", "")}
    ctx = pulls.pull_context(caller(req), view)
    try:
        chosen = issue_fields.triage(req, ctx, is_pull=True)
        asked = {"reviewers": issue_fields.many(req, "reviewers"),
                 "team_reviewers": issue_fields.many(req, "team_reviewers")}
        item = reviews.open_pull(ctx, CreatePullRequestOption(
            base=base, head=head, title=values["title"], body=values["content"],
            **{k: v for k, v in {**chosen, **asked}.items() if v}))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _compare_page(req, web, view, base, head, error=issue_fields.with_field(err),
                             values=values)
    return redirect(path_url(view.owner.login, view.repo.name, "pulls", str(int(item.number))))


@page("POST", "/{owner}/{repo}/pulls/{index}/merge", "webPullMerge", in_repo=True,
      signed_in=True)
def merge(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    number = issue_number(req, "pull request")
    form = posted(req)
    style = form.get("do", "")
    ctx = pulls.pull_context(caller(req), view)
    pulls.get_pull(ctx, number)     # 404 before anything else, as the API
    try:
        # The form offers fewer styles than the API takes: checked before the option
        # is built from it.
        if style not in dict(STYLES):
            raise errors.InvalidInput(f"[Do]: must be one of {', '.join(dict(STYLES))}")
        option = MergePullRequestOption(
            Do=style, MergeTitleField=form.get("merge_title_field", ""),
            MergeMessageField=form.get("merge_message_field", ""),
            delete_branch_after_merge=checked(form, "delete_branch_after_merge"))
        pulls.merge_pull(ctx, number, option)
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        allowed = [(s, label) for s, label in STYLES
                   if repos.merge_style_allowed(view.repo, s)]
        return show_form(web, MERGE, error=err, title=f"Merge #{number}", number=number,
                         styles=allowed, chosen=style, **repo_values(req, view, "pulls"))
    return redirect(path_url(view.owner.login, view.repo.name, "pulls", str(number)))

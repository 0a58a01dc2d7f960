"""Issues in the browser: open one (``GET/POST /{owner}/{repo}/issues/new``, with
labels, a milestone and assignees for writers: ``issue_fields``) and
comment on an issue or pull request, optionally closing or reopening it
(``POST /{owner}/{repo}/issues/{index}/comments``, Forgejo's URL and fields:
``content`` and ``status``).

Each calls the service the API route calls (``issues.create_issue``,
``issue_comments.create_comment``, ``issues.edit_issue``) with the API's option
object, so permissions, locks and validation are one set of rules.
"""
from __future__ import annotations

from chalicelib import errors, issues
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.issues import CreateIssueCommentOption, CreateIssueOption, EditIssueOption
from chalicelib.repos import caller, current_repo
from chalicelib.web import issue_fields
from chalicelib.web.actions_forms import (fixable_status, issue_number, issue_path, posted,
                                         repo_values, show_form)
from chalicelib.web.view import Web, page, redirect

NEW = "forms/issue_new.html"
COMMENT = "forms/comment.html"
STATES = {"close": "closed", "reopen": "open"}
# The API's field names on the form: a refused value shows beside its field.
ISSUE_FIELDS = issue_fields.FIELDS


@page("GET", "/{owner}/{repo}/issues/new", "webIssueNewForm", in_repo=True, signed_in=True)
def new_form(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    ctx = issues.issue_context(caller(req), view)
    return show_form(
        web, NEW, title="New issue", values={"title": "", "content": ""},
        chosen=issue_fields.chosen_values(req), **issue_fields.choices(ctx),
        **repo_values(req, view, "issues"))


@page("POST", "/{owner}/{repo}/issues/new", "webIssueNew", in_repo=True, signed_in=True)
def new(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    form = posted(req)
    values = {"title": form.get("title", ""), "content": form.get("content", "")}
    ctx = issues.issue_context(caller(req), view)
    try:
        chosen = issue_fields.triage(req, ctx)
        item = issues.create_issue(ctx, CreateIssueOption(
            title=values["title"], body=values["content"],
            **{k: v for k, v in chosen.items() if v}))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return show_form(web, NEW, error=issue_fields.with_field(err), title="New issue",
                         values=values, fields=ISSUE_FIELDS,
                         chosen=issue_fields.chosen_values(req), **issue_fields.choices(ctx),
                         **repo_values(req, view, "issues"))
    return redirect(issue_path(view, item))


@page("POST", "/{owner}/{repo}/issues/{index}/comments", "webIssueComment", in_repo=True,
      signed_in=True)
def comment(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    number = issue_number(req)
    form = posted(req)
    content, status = form.get("content", ""), form.get("status", "")
    ctx = issues.issue_context(caller(req), view)
    item = issues.get_issue(ctx, number)
    anchor = ""
    try:
        if status and status not in STATES:
            raise errors.InvalidInput(f"[Status]: must be one of {', '.join(STATES)}")
        if content.strip() or not status:
            found, item = issues.create_comment(ctx, number,
                                                        CreateIssueCommentOption(body=content))
            anchor = f"#issuecomment-{int(found.id)}"
        if status:
            item = issues.edit_issue(ctx, number, EditIssueOption(state=STATES[status]))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return show_form(web, COMMENT, error=err, title="Comment", issue_number=number,
                         issue_path=issue_path(view, item), content=content,
                         **repo_values(req, view, "issues"))
    return redirect(issue_path(view, item) + anchor)

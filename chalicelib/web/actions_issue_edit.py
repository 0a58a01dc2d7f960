"""Changing an issue or pull request from its page: its title and body
(``GET/POST /{owner}/{repo}/issues/{index}/edit``: the poster or a writer, as
issueEditIssue allows), and from the page's sidebar its labels, milestone and
assignees (``POST …/issues/{index}/labels``, ``/milestone``, ``/assignees``: writers,
as the API's label routes require; a reader gets the 403 page).  And the Markdown
preview of the forms' text areas (``POST /{owner}/{repo}/markup``, Forgejo's path),
which ``nimbus.js`` calls with the page's session and CSRF header.

Each change calls the service the API route calls (``issues.edit_issue`` with an
EditIssueOption, ``issues.replace_issue_labels`` with an IssueLabelsOption).  A
refused value shows the edit form again with the message beside its field.
"""
from __future__ import annotations

from chalicelib import errors, issues
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.issues import EditIssueOption, IssueLabelsOption
from chalicelib.repos import caller, current_repo
from chalicelib.web import issue_fields, present
from chalicelib.web.actions_forms import (fixable_status, issue_number, issue_path, posted,
                                         repo_values, show_form)
from chalicelib.web.view import HTML, Web, compress, page, redirect

EDIT = "forms/issue_edit.html"
MAX_PREVIEW = 256 * 1024        # what one preview renders, at most


def _editable(req: ApiRequest, web: Web, *, triage: bool = False):
    """(view, ctx, issue) when the caller may edit it (writers only with ``triage``);
    the 403 page otherwise, as the API answers."""
    view = current_repo(req)
    ctx = issues.issue_context(caller(req), view)
    item = issues.get_issue(ctx, issue_number(req))
    writer = ctx.can_write_for(item)
    if not writer and (triage or int(item.poster_id) != int(web.user.id)):
        raise errors.PermissionDenied("user should have a permission to write to a repo")
    return view, ctx, item


def _form(req, web, view, ctx, item, *, values=None, error=None) -> ApiResponse:
    """The edit form: title and body; for writers the labels, milestone and assignees."""
    record = issues.IssueRenderer(req, ctx).issue(item)
    writer = ctx.can_write_for(item)
    chosen = {"labels": [str(label["id"]) for label in record.get("labels") or []],
              "milestone": str((record.get("milestone") or {}).get("id") or ""),
              "assignees": ", ".join(a["login"] for a in record.get("assignees") or [])}
    if values is not None:
        chosen.update({k: v for k, v in values.items() if k in chosen})
    tracker = ctx.tracker()
    return show_form(
        web, EDIT, error=error, fields=issue_fields.FIELDS, title=f"Edit #{int(item.number)}",
        issue=record, issue_path=issue_path(view, item), triage=writer,
        values=values or {"title": record["title"], "content": record.get("body") or ""},
        chosen=chosen,
        label_choices=sorted(((i, e.get("name", ""), e.get("color", ""))
                              for i, e in tracker.labels.items()), key=lambda t: t[1]),
        milestone_choices=sorted(((i, m.get("title", "")) for i, m in tracker.milestones.items()),
                                 key=lambda t: t[1]),
        **repo_values(req, view, "pulls" if item.is_pull else "issues"))


@page("GET", "/{owner}/{repo}/issues/{index}/edit", "webIssueEditForm", in_repo=True,
      signed_in=True)
def edit_form(req: ApiRequest, web: Web) -> ApiResponse:
    view, ctx, item = _editable(req, web)
    return _form(req, web, view, ctx, item)


def _apply(req, web, view, ctx, item, change, values: dict) -> ApiResponse:
    """Run ``change()``; a value the rules refuse shows the form again with it."""
    try:
        change()
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _form(req, web, view, ctx, item, values=values,
                     error=issue_fields.with_field(err))
    return redirect(issue_path(view, item))


@page("POST", "/{owner}/{repo}/issues/{index}/edit", "webIssueEdit", in_repo=True,
      signed_in=True)
def edit(req: ApiRequest, web: Web) -> ApiResponse:
    view, ctx, item = _editable(req, web)
    form = posted(req)
    values = {"title": form.get("title", ""), "content": form.get("content", "")}

    def change() -> None:
        if not values["title"].strip():
            raise errors.InvalidInput("[Title]: Required")
        if len(values["content"]) > issues.ISSUE_MAXIMA["body"]:
            raise errors.InvalidInput("[Body]: MaxSize")
        issues.edit_issue(ctx, int(item.number),
                          EditIssueOption(title=values["title"], body=values["content"]))
    return _apply(req, web, view, ctx, item, change, values)


def _set_field(req: ApiRequest, web: Web, field: str, typed, write) -> ApiResponse:
    """A writer's change of one sidebar field: ``write(ctx, number)`` makes it; a value
    the rules refuse shows the edit form again with ``typed`` (as posted) in that field."""
    view, ctx, item = _editable(req, web, triage=True)
    record = issues.IssueRenderer(req, ctx).issue(item)
    values = {"title": record["title"], "content": record.get("body") or "", field: typed}
    return _apply(req, web, view, ctx, item, lambda: write(ctx, int(item.number)), values)


@page("POST", "/{owner}/{repo}/issues/{index}/labels", "webIssueLabels", in_repo=True,
      signed_in=True)
def labels(req: ApiRequest, web: Web) -> ApiResponse:
    wanted = issue_fields.many(req, "labels")

    def write(ctx, number: int) -> None:
        ids = issue_fields.label_ids(ctx.tracker(), wanted)
        issues.replace_issue_labels(ctx, number, IssueLabelsOption(labels=ids))
    return _set_field(req, web, "labels", wanted, write)


@page("POST", "/{owner}/{repo}/issues/{index}/milestone", "webIssueMilestone", in_repo=True,
      signed_in=True)
def milestone(req: ApiRequest, web: Web) -> ApiResponse:
    wanted = posted(req).get("milestone", "")

    def write(ctx, number: int) -> None:
        found = issue_fields.milestone_id(ctx.tracker(), wanted)
        issues.edit_issue(ctx, number, EditIssueOption(milestone=found))
    return _set_field(req, web, "milestone", wanted, write)


@page("POST", "/{owner}/{repo}/issues/{index}/assignees", "webIssueAssignees", in_repo=True,
      signed_in=True)
def assignees(req: ApiRequest, web: Web) -> ApiResponse:
    wanted = issue_fields.many(req, "assignees")

    def write(ctx, number: int) -> None:
        issues.edit_issue(ctx, number, EditIssueOption(assignees=wanted))
    return _set_field(req, web, "assignees", ", ".join(wanted), write)


@page("POST", "/{owner}/{repo}/markup", "webMarkup", in_repo=True)
def markup(req: ApiRequest, web: Web) -> ApiResponse:
    """The text rendered as a comment is (the API's renderer and sanitizer), as an
    HTML fragment for the preview; the CSRF field or ``X-Csrf-Token`` header was
    checked before this runs, and the repository must be readable (its links)."""
    view = current_repo(req)
    text = posted(req).get("text", "")
    if len(text) > MAX_PREVIEW:
        raise errors.InvalidInput("[Text]: MaxSize")
    html = present.markdown(req, view, [text])[0] if text.strip() else ""
    response = ApiResponse(status=200, body=html.encode("utf-8"),
                           headers={"Content-Type": HTML, "Cache-Control": "no-store"})
    return compress(req, response)

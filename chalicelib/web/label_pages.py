"""A repository's labels (``/{owner}/{repo}/labels``, Forgejo's URL): each with its
colour swatch, description and a link to the issues carrying it (no counts: the
tracker keeps none per label, and counting would read every issue), and for writers
the forms Forgejo's page has: new
(``POST …/labels/new``), edit (``POST …/labels/edit``) and delete
(``POST …/labels/delete``), the id in the form as Forgejo posts it.

The forms call the API's services (``issues.create_label`` with a CreateLabelOption,
``edit_label``, ``delete_label``): the writer check and the colour rule are theirs.
A refused value shows the page again with the message beside the field (a new label's
fields, or the edited label's form).
"""
from __future__ import annotations

from chalicelib import errors, issues
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.issues import CreateLabelOption, EditLabelOption
from chalicelib.repos import caller, current_repo
from chalicelib.web.actions_forms import checked, fixable_status, posted, repo_values, show_form
from chalicelib.web.view import Web, page, path_url, redirect

LABELS = "labels.html"
FIELDS = {"name": "name", "color": "color", "description": "description"}


def _values(req: ApiRequest, view, ctx) -> dict:
    labels = issues.list_labels(ctx)
    return {"labels": [{"id": i, **entry, "color": entry.get("color", "").lstrip("#")}
                       for i, entry in labels],
            "can_write": bool(ctx.can_write), **repo_values(req, view, "issues")}


def _page(req: ApiRequest, web: Web, view, ctx, *, error=None, values=None,
          editing: int = 0) -> ApiResponse:
    """The page; with ``error`` the form it is about (``editing``: a label's id, else the
    new label's form) keeps what was typed."""
    return show_form(web, LABELS, error=error, fields=FIELDS, title="Labels",
                     values=values or {"name": "", "color": "#", "description": ""},
                     editing=editing, **_values(req, view, ctx))


@page("GET", "/{owner}/{repo}/labels", "webRepoLabels", in_repo=True)
def label_list(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    return _page(req, web, view, issues.issue_context(caller(req), view))


def _label_fields(form: dict) -> dict:
    return {"name": form.get("name", ""), "color": form.get("color", ""),
            "description": form.get("description", ""), "exclusive": checked(form, "exclusive")}


def _done(view) -> ApiResponse:
    return redirect(path_url(view.owner.login, view.repo.name, "labels"))


def _label_id(form: dict) -> int:
    raw = form.get("id", "")
    if not raw.isdigit():
        raise errors.NotFoundError(f"label does not exist [id: {raw}]")
    return int(raw)


@page("POST", "/{owner}/{repo}/labels/new", "webRepoLabelNew", in_repo=True, signed_in=True)
def label_new(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    ctx = issues.issue_context(caller(req), view)
    fields = _label_fields(posted(req))
    try:
        issues.create_label(ctx, CreateLabelOption(**fields))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _page(req, web, view, ctx, error=err, values=fields)
    return _done(view)


@page("POST", "/{owner}/{repo}/labels/edit", "webRepoLabelEdit", in_repo=True, signed_in=True)
def label_edit(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    ctx = issues.issue_context(caller(req), view)
    form = posted(req)
    label_id = _label_id(form)
    fields = _label_fields(form)
    try:
        issues.edit_label(ctx, label_id, EditLabelOption(**fields))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _page(req, web, view, ctx, error=err, values=fields, editing=label_id)
    return _done(view)


@page("POST", "/{owner}/{repo}/labels/delete", "webRepoLabelDelete", in_repo=True,
      signed_in=True)
def label_delete(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    ctx = issues.issue_context(caller(req), view)
    issues.delete_label(ctx, _label_id(posted(req)))
    return _done(view)

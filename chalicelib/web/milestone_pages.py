"""A repository's milestones, at Forgejo's URLs: the list
(``/{owner}/{repo}/milestones?state=open|closed``) with each one's progress (its
closed and open issues, the counters the tracker keeps: no read beyond the tracker),
due date and description; and for writers new (``GET/POST …/milestones/new``), edit
(``GET/POST …/milestones/{id}/edit``), close and reopen (``POST …/milestones/{id}/close``,
``…/open``) and delete (``POST …/milestones/delete``, the id in the form).

The forms call the API's services (``issues.create_milestone`` with a
CreateMilestoneOption, ``edit_milestone`` with an EditMilestoneOption,
``delete_milestone``): the writer check and the rules are theirs.  The due date is an
``<input type="date">``: a day, sent to the service as midnight UTC.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone

from chalicelib import errors, issues
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.issues import CreateMilestoneOption, EditMilestoneOption
from chalicelib.repos import caller, current_repo
from chalicelib.web.actions_forms import fixable_status, posted, repo_values, show_form
from chalicelib.web.view import Web, page, path_url, redirect, render

LIST = "milestones.html"
FORM = "forms/milestone.html"
FIELDS = {"title": "title", "description": "description", "deadline": "deadline"}
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _day(seconds: int) -> str:
    return datetime.fromtimestamp(int(seconds), timezone.utc).strftime("%Y-%m-%d") \
        if seconds else ""


def _shown(milestone_id: int, m: dict) -> dict:
    opened, closed = int(m.get("o") or 0), int(m.get("c") or 0)
    total = opened + closed
    return {"id": milestone_id, "title": m.get("title", ""),
            "description": m.get("description", ""), "state": m.get("state", "open"),
            "open": opened, "closed": closed,
            "percent": (closed * 100 // total) if total else 0,
            "due": _day(m.get("due") or 0), "closed_at": _day(m.get("closed_at") or 0)}


@page("GET", "/{owner}/{repo}/milestones", "webRepoMilestones", in_repo=True)
def milestone_list(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    ctx = issues.issue_context(caller(req), view)
    state = "closed" if req.arg("state") == "closed" else "open"
    every = issues.list_milestones(ctx, "all")
    counts = {s: sum(1 for _, m in every if m.get("state") == s) for s in ("open", "closed")}
    shown = [_shown(i, m) for i, m in every if m.get("state") == state]
    return render(web, LIST, title="Milestones", milestones=shown, state=state, counts=counts,
                  can_write=bool(ctx.can_write), form_csrf=web.csrf if ctx.can_write else "",
                  **repo_values(req, view, "issues"))


def _writer(req: ApiRequest):
    view = current_repo(req)
    ctx = issues.issue_context(caller(req), view)
    if not ctx.can_write:      # the services' own check, before a form is shown
        raise errors.PermissionDenied("user should have a permission to write to a repo")
    return view, ctx


def _form(req, web, view, *, values: dict, milestone_id: int = 0, error=None) -> ApiResponse:
    return show_form(web, FORM, error=error, fields=FIELDS,
                     title="Edit milestone" if milestone_id else "New milestone",
                     values=values, milestone_id=milestone_id,
                     **repo_values(req, view, "issues"))


def _posted_values(req: ApiRequest) -> dict:
    form = posted(req)
    return {"title": form.get("title", ""), "description": form.get("description", ""),
            "deadline": form.get("deadline", "").strip()}


def _due_on(day: str) -> str | None:
    if not day:
        return None
    if not _DAY.match(day):
        raise errors.InvalidInput("[Deadline]: use a date as YYYY-MM-DD")
    return f"{day}T00:00:00Z"


def _done(view) -> ApiResponse:
    return redirect(path_url(view.owner.login, view.repo.name, "milestones"))


@page("GET", "/{owner}/{repo}/milestones/new", "webRepoMilestoneNewForm", in_repo=True,
      signed_in=True)
def new_form(req: ApiRequest, web: Web) -> ApiResponse:
    view, _ = _writer(req)
    return _form(req, web, view, values={"title": "", "description": "", "deadline": ""})


@page("POST", "/{owner}/{repo}/milestones/new", "webRepoMilestoneNew", in_repo=True,
      signed_in=True)
def new(req: ApiRequest, web: Web) -> ApiResponse:
    view, ctx = _writer(req)
    values = _posted_values(req)
    try:
        if not values["title"].strip():
            raise errors.InvalidInput("[Title]: Required")
        issues.create_milestone(ctx, CreateMilestoneOption(
            title=values["title"], description=values["description"],
            due_on=_due_on(values["deadline"])))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _form(req, web, view, values=values, error=err)
    return _done(view)


def _milestone_id(req: ApiRequest) -> str:
    raw = req.params["id"]
    if not raw.isdigit():
        raise errors.NotFoundError(f"milestone does not exist [id: {raw}]")
    return raw


@page("GET", "/{owner}/{repo}/milestones/{id}/edit", "webRepoMilestoneEditForm",
      in_repo=True, signed_in=True)
def edit_form(req: ApiRequest, web: Web) -> ApiResponse:
    view, ctx = _writer(req)
    milestone_id, m = issues.find_milestone(ctx, _milestone_id(req))
    return _form(req, web, view, milestone_id=milestone_id,
                 values={"title": m.get("title", ""), "description": m.get("description", ""),
                         "deadline": _day(m.get("due") or 0)})


@page("POST", "/{owner}/{repo}/milestones/{id}/edit", "webRepoMilestoneEdit", in_repo=True,
      signed_in=True)
def edit(req: ApiRequest, web: Web) -> ApiResponse:
    view, ctx = _writer(req)
    milestone_id, _ = issues.find_milestone(ctx, _milestone_id(req))
    values = _posted_values(req)
    try:
        if not values["title"].strip():
            raise errors.InvalidInput("[Title]: Required")
        issues.edit_milestone(ctx, str(milestone_id), EditMilestoneOption(
            title=values["title"], description=values["description"],
            due_on=_due_on(values["deadline"])))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _form(req, web, view, values=values, milestone_id=milestone_id, error=err)
    return _done(view)


@page("POST", "/{owner}/{repo}/milestones/{id}/{action}", "webRepoMilestoneState",
      in_repo=True, signed_in=True)
def change_state(req: ApiRequest, web: Web) -> ApiResponse:
    """Close or reopen (Forgejo's ``/milestone/{id}/close`` and ``/open``)."""
    view, ctx = _writer(req)
    action = req.params["action"]
    if action not in ("close", "open"):
        raise errors.NotFoundError("page does not exist")
    milestone_id, _ = issues.find_milestone(ctx, _milestone_id(req))
    issues.edit_milestone(ctx, str(milestone_id), EditMilestoneOption(
        state="closed" if action == "close" else "open"))
    return _done(view)


@page("POST", "/{owner}/{repo}/milestones/delete", "webRepoMilestoneDelete", in_repo=True,
      signed_in=True)
def delete(req: ApiRequest, web: Web) -> ApiResponse:
    view, ctx = _writer(req)
    raw = posted(req).get("id", "")
    if not raw.isdigit():
        raise errors.NotFoundError(f"milestone does not exist [id: {raw}]")
    issues.delete_milestone(ctx, raw)
    return _done(view)

"""A new repository from a template in the browser: ``/repo/create?template_id=<id>``
(Forgejo's URL: its "Use this template" button on a template repository's page), the
new repository form with the template's items to copy.

This module registers no routes: ``actions_repos`` hands it ``/repo/create`` when the
request names a template (the query's ``template_id``, the form's hidden field).

The form posts what the API's GenerateRepoOption carries (owner, name, description,
private, and which items: git content, topics, labels, protected branches, webhooks,
the avatar) to ``repo_admin.generate_repo``, the service ``generateRepo`` calls, so the
template check, the owner's permission, the quota and the name rules are the API's,
and a failure leaves nothing behind (the service removes what it made).  Git hooks
are not offered: Nimbus runs none (the service copies nothing for them).  A refusal
the form can fix goes beside its field with the typed values kept.
"""
from __future__ import annotations

from chalicelib import errors, repo_admin
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repo_admin import GenerateRepoOption
from chalicelib.repos import caller, find_repo_by_id, repository_record
from chalicelib.web.actions_forms import checked, fixable_status, posted
from chalicelib.web.settings_common import edge_option, shown_error
from chalicelib.web.view import Web, path_url, redirect, render

TEMPLATE = "lifecycle/generate.html"
# The items the form offers, in Forgejo's order, with their labels.
ITEMS = (("git_content", "Git content (default branch)"), ("topics", "Topics"),
         ("labels", "Labels"), ("protected_branch", "Protected branches"),
         ("webhooks", "Webhooks"), ("avatar", "Avatar"))
# Words of the service's refusals -> the field they are about (checked in this order).
FIELDS = {"owner": "owner", "organization": "owner", "other user": "owner",
          "description": "description", "name": "repo_name", "template item": "items",
          "not supported": "items", "a template repo": "items"}


def _template(req: ApiRequest, raw: str):
    """The template repository the caller can read; the 404 page otherwise."""
    found = find_repo_by_id(caller(req), int(raw)) if raw.isdigit() else None
    if found is None:
        raise errors.NotFoundError(f"repository does not exist [id: {raw}]")
    return found


def _show(req: ApiRequest, web: Web, template, values: dict, *,
          error: errors.ServiceError | None = None) -> ApiResponse:
    status, field_errors, message = shown_error(error, FIELDS)
    return render(web, TEMPLATE, status=status, form_csrf=web.csrf, title="New repository",
                  template_repo=repository_record(template, req.actor), values=values,
                  items=ITEMS, field_errors=field_errors, error=message)


def generate_form(req: ApiRequest, web: Web) -> ApiResponse:
    """``GET /repo/create?template_id=<id>``."""
    template = _template(req, req.arg("template_id") or "")
    if not template.repo.template:
        raise errors.NotFoundError("this is not a template repo")
    values = {"owner": web.user.login, "repo_name": "",
              "description": template.repo.description or "",
              "private": bool(template.repo.private), "git_content": True}
    return _show(req, web, template, values)


def _refusal(err: errors.ServiceError) -> errors.ServiceError | None:
    """``err`` as the form shows it, or None when it is not the form's to show.  An
    owner that does not exist (the API's 404) or that the doer may not create in (403)
    is an answer about the owner field, which the doer fixes by naming another."""
    if isinstance(err, errors.NotFoundError) and "owner" in str(err):
        return errors.InvalidInput(getattr(err, "message", "") or str(err))
    if isinstance(err, errors.PermissionDenied):
        return err
    return err if fixable_status(err) is not None else None


def generate(req: ApiRequest, web: Web) -> ApiResponse:
    """``POST /repo/create`` with ``template_id``: the new repository's page."""
    form = posted(req)
    template = _template(req, form.get("template_id", ""))
    values = {"owner": form.get("owner", "").strip(),
              "repo_name": form.get("repo_name", "").strip(),
              "description": form.get("description", ""), "private": checked(form, "private"),
              **{name: checked(form, name) for name, _ in ITEMS}}
    body = {"owner": values["owner"], "name": values["repo_name"],
            "description": values["description"], "private": values["private"],
            **{name: values[name] for name, _ in ITEMS}}
    try:
        view = repo_admin.generate_repo(caller(req), template,
                                        edge_option(GenerateRepoOption, body))
    except errors.ServiceError as err:
        shown = _refusal(err)
        if shown is None:
            raise
        return _show(req, web, template, values, error=shown)
    return redirect(path_url(view.owner.login, view.repo.name))

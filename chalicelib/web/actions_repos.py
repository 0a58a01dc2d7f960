"""Create a repository in the browser: ``GET/POST /repo/create`` (Forgejo's URL).

The form posts what the API's CreateRepoOption carries (name, description, private,
auto_init) to ``repo_admin.create_repo``, the service ``createCurrentUserRepo`` calls, so
the name rules, the quota and the initial commit are the API's.  With a ``template_id``
(Forgejo's "Use this template") it is the template's form instead (``template_forms``).
"""
from __future__ import annotations

from chalicelib import errors, repo_admin
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repo_admin import CreateRepoOption
from chalicelib.repos import caller
from chalicelib.web import template_forms
from chalicelib.web.actions_forms import checked, fixable_status, posted, show_form
from chalicelib.web.view import Web, page, path_url, redirect

TEMPLATE = "forms/repo_create.html"


@page("GET", "/repo/create", "webRepoCreateForm", signed_in=True)
def create_form(req: ApiRequest, web: Web) -> ApiResponse:
    if req.arg("template_id"):      # Forgejo's "Use this template"
        return template_forms.generate_form(req, web)
    return show_form(
        web, TEMPLATE, title="New repository",
        values={"repo_name": "", "description": "", "private": False, "auto_init": True})


@page("POST", "/repo/create", "webRepoCreate", signed_in=True)
def create(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    if form.get("template_id"):
        return template_forms.generate(req, web)
    values = {"repo_name": form.get("repo_name", "").strip(),
              "description": form.get("description", ""),
              "private": checked(form, "private"), "auto_init": checked(form, "auto_init")}
    option = CreateRepoOption(name=values["repo_name"], description=values["description"],
                              private=values["private"], auto_init=values["auto_init"])
    try:
        view = repo_admin.create_repo(caller(req), web.user, option)
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return show_form(web, TEMPLATE, error=err, title="New repository", values=values)
    return redirect(path_url(view.owner.login, view.repo.name))

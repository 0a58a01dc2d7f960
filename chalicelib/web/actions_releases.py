"""Create a release in the browser: ``GET/POST /{owner}/{repo}/releases/new``.

The form carries a CreateReleaseOption (tag, target, title, notes, draft, pre-release)
to ``releases.create_release``, the service ``repoCreateRelease`` calls: the writer
check, the tag rules and the quota are the API's.  The form page itself is refused as
the API refuses the POST (404 to who may not read, 403 to readers).
"""
from __future__ import annotations

from chalicelib import contents, errors, releases
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.releases import CreateReleaseOption
from chalicelib.repos import caller, current_repo
from chalicelib.web.actions_forms import checked, fixable_status, posted, repo_values, show_form
from chalicelib.web.view import Web, page, path_url, redirect

TEMPLATE = "forms/release_new.html"
FIELDS = ("tag_name", "target", "title", "content")


def _page(req: ApiRequest, web: Web, view, values: dict, error=None) -> ApiResponse:
    names = sorted(b.name for b in contents.list_branches(view))
    return show_form(web, TEMPLATE, error=error, title="New release", values=values,
                     branch_names=names, **repo_values(req, view, "releases"))


@page("GET", "/{owner}/{repo}/releases/new", "webReleaseNewForm", in_repo=True, signed_in=True)
def new_form(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    releases.require_release_writer(releases.release_context(caller(req), view))
    values = {name: "" for name in FIELDS}
    values.update(tag_name=req.arg("tag") or "", target=view.repo.default_branch,
                  draft=False, prerelease=False)
    return _page(req, web, view, values)


@page("POST", "/{owner}/{repo}/releases/new", "webReleaseNew", in_repo=True, signed_in=True)
def new(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    form = posted(req)
    values = {name: form.get(name, "") for name in FIELDS}
    values.update(draft=checked(form, "draft"), prerelease=checked(form, "prerelease"))
    ctx = releases.release_context(caller(req), view)
    option = CreateReleaseOption(
        tag_name=values["tag_name"].strip(), target_commitish=values["target"],
        name=values["title"].strip(), body=values["content"], draft=values["draft"],
        prerelease=values["prerelease"])
    try:
        made = releases.create_release(ctx, option)
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _page(req, web, view, values, err)
    return redirect(path_url(view.owner.login, view.repo.name, "releases", "tag",
                             made.tag_name))

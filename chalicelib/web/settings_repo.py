"""A repository's options in the browser, for its admins: ``/{owner}/{repo}/settings``
(description, website, default branch, visibility, template, the merge styles pull
requests may use) and its danger zone: archive or unarchive
(``/settings/archive``) and delete (``/settings/delete``, after typing the
repository's name, as Forgejo asks).

Each form calls the service ``repoEdit`` or ``repoDelete`` calls
(``repo_admin.edit_repo``, ``repo_admin.delete_repo``) with the API's EditRepoOption,
built from the form and held to the API's edge checks, so the rules are the API's:
deleting needs owner rights (a repository admin who is not an owner gets the API's
403).  The danger zone's transfer form posts to ``lifecycle_pages``, which shows its
refusals here again (``options_page``).  Renaming is not offered: the service refuses it ("renaming repositories is not
supported yet").  Forgejo's issue, pull request and wiki switches are not offered
either: those units are always on here and EditRepoOption has no field for them.
"""
from __future__ import annotations

from chalicelib import contents, errors, repo_admin, repos
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repo_admin import EditRepoOption
from chalicelib.repos import caller, repo_record
from chalicelib.web.actions_forms import checked, fixable_status, posted
from chalicelib.web.settings_common import admin_view, edge_option, settings_url, show, shown_error
from chalicelib.web.view import Web, page, path_url, redirect

TEMPLATE = "settings/options.html"
# The styles a pull request may be merged with, in Forgejo's order, and the switch
# (EditRepoOption field) of each.  ``manually-merged`` needs a commit id and stays API-only.
MERGE_STYLES = (("merge", "allow_merge_commits", "Create a merge commit"),
                ("rebase", "allow_rebase", "Rebase and fast-forward"),
                ("rebase-merge", "allow_rebase_explicit", "Rebase and create a merge commit"),
                ("squash", "allow_squash_merge", "Squash and merge"),
                ("fast-forward-only", "allow_fast_forward_only_merge", "Fast-forward only"))
FLAGS = ("private", "template", "has_wiki", *(switch for _, switch, _ in MERGE_STYLES))
TEXTS = ("description", "website", "default_branch", "default_merge_style")
# Words of the service's messages -> the form field they are about.
OPTION_FIELDS = {"description": "description", "website": "website",
                 "defaultbranch": "default_branch", "branch": "default_branch",
                 "default_merge_style": "default_merge_style"}


def _current(repo: dict) -> dict:
    """The form's values from the Repository record."""
    return {**{name: repo.get(name) or "" for name in TEXTS},
            **{name: bool(repo.get(name)) for name in FLAGS}}


def _page(req: ApiRequest, web: Web, view, *, values: dict | None = None,
          error: errors.ServiceError | None = None, delete_error: str = "",
          typed_name: str = "", transfer: dict | None = None) -> ApiResponse:
    status, field_errors, message = shown_error(error, OPTION_FIELDS)
    if delete_error:
        status, field_errors = 422, {"delete_repo_name": delete_error}
    transfer = transfer or {}
    if transfer.get("field_errors"):
        status, field_errors = transfer["status"], transfer["field_errors"]
    branches = [b.name for b in contents.list_branches(view)]
    return show(req, web, view, TEMPLATE, "options", status=status, title="Settings",
                values=values or _current(repo_record(req, view)), branch_names=branches,
                merge_styles=MERGE_STYLES, field_errors=field_errors, error=message,
                saved=req.arg("saved") == "1" and error is None and not delete_error,
                typed_name=typed_name, settings_path=settings_url(view),
                restorable_days=repo_admin.deleted_retention_days(),
                transfer_typed=transfer.get("typed", {}),
                transfer_done=req.arg("transfer") or "")


def options_page(req: ApiRequest, web: Web, view, *, transfer: dict) -> ApiResponse:
    """The options page again with the transfer form's refusal (``lifecycle_pages``):
    ``transfer`` holds ``status``, ``field_errors`` and the ``typed`` values."""
    return _page(req, web, view, transfer=transfer)


@page("GET", "/{owner}/{repo}/settings", "webRepoSettings", in_repo=True)
def settings(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    return _page(req, web, view)


def _typed(form: dict) -> dict:
    values = {name: form.get(name, "") for name in TEXTS}
    values.update({name: checked(form, name) for name in FLAGS})
    return values


def _refused(err: errors.ServiceError) -> bool:
    """Whether the options form shows ``err``: input an admin can fix, or a default
    branch that does not exist (the API's 404, here a message beside the field)."""
    return fixable_status(err) is not None or (
        isinstance(err, errors.NotFoundError) and "branch does not exist" in str(err))


@page("POST", "/{owner}/{repo}/settings", "webRepoSettingsEdit", in_repo=True)
def edit(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    values = _typed(posted(req))
    body = {name: values[name] for name in FLAGS}
    body.update(description=values["description"], website=values["website"].strip())
    if values["default_branch"]:
        body["default_branch"] = values["default_branch"]
    if values["default_merge_style"]:
        body["default_merge_style"] = values["default_merge_style"]
    # The service sets some fields on the (request-cached) record before a later check
    # refuses the edit: put them back, so the re-shown page's header tells the truth.
    stored = {name: getattr(view.repo, name) for name in repos.EDITABLE}
    try:
        repo_admin.edit_repo(caller(req), view, edge_option(EditRepoOption, body))
    except errors.ServiceError as err:
        if not _refused(err):
            raise
        for name, value in stored.items():
            setattr(view.repo, name, value)
        if isinstance(err, errors.NotFoundError):
            err = errors.InvalidInput(f"[DefaultBranch]: {err}")
        return _page(req, web, view, values=values, error=err)
    return redirect(settings_url(view) + "?saved=1")


@page("POST", "/{owner}/{repo}/settings/archive", "webRepoSettingsArchive", in_repo=True)
def archive(req: ApiRequest, web: Web) -> ApiResponse:
    """``archive`` = ``true`` archives, anything else unarchives (Forgejo's two buttons)."""
    view = admin_view(req)
    archived = posted(req).get("archive", "") == "true"
    repo_admin.edit_repo(caller(req), view, EditRepoOption(archived=archived))
    return redirect(settings_url(view) + "#danger-zone")


@page("POST", "/{owner}/{repo}/settings/delete", "webRepoSettingsDelete", in_repo=True)
def delete(req: ApiRequest, web: Web) -> ApiResponse:
    """Deleted only when the repository's name was typed, exactly (as Forgejo)."""
    view = admin_view(req)
    typed = posted(req).get("repo_name", "").strip()
    if typed != view.repo.name:
        return _page(req, web, view, typed_name=typed,
                     delete_error="The repository name you typed does not match: "
                                  f"type {view.repo.name} to delete it.")
    repo_admin.delete_repo(caller(req), view)
    return redirect(path_url(view.owner.login))
